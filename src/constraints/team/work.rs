//! The pieces a caller that assembles its own [`super::TeamWork`] needs (the solver's
//! `GroupWork`): a coloured sweep's cut and its projection of one range.

use super::ColourCut;
use crate::constraints::SubstepCoefficients;
use crate::constraints::access::Positions;
use crate::constraints::sweep::{DampedKernels, Sweep};
use glam::Vec3;

/// Cut colour `colour` of the coloured constraints `c` into `parts` ([`ColourCut::of_sweep`]).
pub(crate) fn cut_coloured<C: DampedKernels>(c: &C, colour_start: &[u32], colour: usize, parts: usize, cut: &mut ColourCut) {
    let k = SubstepCoefficients { inv_h2: 0.0, damping_over_h: 0.0 };
    // The cut reads the kernel's particle bounds and split points only, not its inputs.
    let (kernel, _) = c.kernel::<false>(&[], &[], &[], &k, false);
    cut.of_sweep(&kernel, colour_start, colour, parts);
}

/// Project constraints `first .. first + lambda.len()` of `c` (part of one colour: they share no
/// particle), `lambda` their multipliers, with the undamped kernel when `k` has no damping, else
/// the damped one; `compliance`, `x_prev`, `w`, `fresh` as for [`DampedKernels::kernel`].
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn project_coloured<C: DampedKernels, P: Positions + ?Sized>(
    c: &C,
    compliance: &[f32],
    x_prev: &[Vec3],
    w: &[f32],
    k: &SubstepCoefficients,
    fresh: bool,
    first: usize,
    lambda: &mut [f32],
    x: &mut P,
) {
    if k.undamped() {
        c.kernel::<false>(compliance, x_prev, w, k, fresh).0.project_disjoint(first, lambda, x);
    } else {
        c.kernel::<true>(compliance, x_prev, w, k, fresh).0.project_disjoint(first, lambda, x);
    }
}
