//! One Gauss–Seidel sweep over a constraint type, sequential or colour-parallel, with the same
//! projection code on both paths ([`Sweep::project_range`] is generic over [`Positions`]).

use super::access::{Positions, SharedPositions, SolverParticle};

/// Smallest run of constraints handed to one rayon task. Below it the task-split overhead (a few
/// hundred ns) is comparable to the projections it would spread.
const MIN_TASK: usize = 256;

/// A constraint type's projection, for [`sweep`].
pub(crate) trait Sweep: Sync {
    /// Project constraints `first .. first + lambda.len()` in storage order; `lambda` are their
    /// multipliers.
    fn project_range<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P);

    /// The same as [`Sweep::project_range`] for constraints that share no particle (part of one
    /// colour), which lets a kernel project several at once. It must give the same bits.
    #[inline(always)]
    fn project_disjoint<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
        self.project_range(first, lambda, x);
    }

    /// Whether a range may end just before constraint `c` (constraints that must run together on
    /// one thread, such as a particle's tether group, return false inside the group).
    #[inline]
    fn can_split_before(&self, _c: usize) -> bool {
        true
    }
}

/// Project every constraint once. Without `colour_start`, one at a time in storage order. With it
/// (`colour_count + 1` offsets of colour ranges in storage order), colour after colour through
/// [`Sweep::project_disjoint`]; with `parallel`, each colour split into runs of at least
/// [`MIN_TASK`] constraints projected in parallel on the current rayon pool. Within a colour no
/// particle is shared, so the bits depend neither on the split nor on the batching: every variant
/// equals the one-at-a-time sweep over the same (colour-sorted) order.
///
/// Each colour range must satisfy that: constraints in it share no particle they write, and
/// particles they only read are written by none.
pub(crate) fn sweep<S: Sweep>(s: &S, x: &mut [SolverParticle], lambda: &mut [f32], colour_start: Option<&[u32]>, parallel: bool) {
    let Some(colour_start) = colour_start else {
        s.project_range(0, lambda, x);
        return;
    };
    for range in colour_start.windows(2) {
        let (begin, end) = (range[0] as usize, range[1] as usize);
        if !parallel {
            s.project_disjoint(begin, &mut lambda[begin..end], x);
            continue;
        }
        // SAFETY: the constraints of one colour range touch disjoint particles (the caller's
        // contract above; colourings are checked by `colouring_is_valid` in the tests).
        let shared = unsafe { SharedPositions::new(x) };
        split_and_project(s, begin, &mut lambda[begin..end], shared);
    }
}

/// Halve the run at a permitted split point and project the halves with `rayon::join`
/// (no allocation: the jobs live on the stack).
fn split_and_project<S: Sweep>(s: &S, first: usize, lambda: &mut [f32], x: SharedPositions) {
    let len = lambda.len();
    let mut mid = len / 2;
    while mid < len && !s.can_split_before(first + mid) {
        mid += 1;
    }
    if len < 2 * MIN_TASK || mid == len {
        let mut x = x;
        s.project_disjoint(first, lambda, &mut x);
        return;
    }
    let (a, b) = lambda.split_at_mut(mid);
    rayon::join(|| split_and_project(s, first, a, x), || split_and_project(s, first + mid, b, x));
}
