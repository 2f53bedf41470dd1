//! What a team works through ([`TeamWork`] implementations): a constraint type's colours, swept
//! one or more times ([`SweepWork`], [`damped_team_work`]), two works one after the other
//! ([`Chain`]), work that may be left out (`Option`) and one of two kernels ([`Either`]).

use super::{ColourCut, SharedSlice, TeamWork};
use crate::constraints::SubstepCoefficients;
use crate::constraints::access::SharedPositions;
use crate::constraints::sweep::{DampedKernels, Sweep};
use glam::Vec3;

/// Colour starts of a sweep.
pub(crate) enum ColourStarts<'a> {
    /// Offsets of the colour ranges (`u32[colour count + 1]`, as `colour_start`).
    Ranges(&'a [u32]),
    /// One colour of all constraints: `[0, constraint count]` (the tethers' groups).
    All([u32; 2]),
}

impl ColourStarts<'_> {
    fn as_slice(&self) -> &[u32] {
        match self {
            ColourStarts::Ranges(starts) => starts,
            ColourStarts::All(starts) => starts,
        }
    }
}

/// A sweep kernel's colours as [`TeamWork`], `passes` times over (the stretch sweeps run twice
/// per iteration): the first pass with kernel `first`, the others with `later` (they differ in
/// whether λ is taken as 0, `fresh`).
pub(crate) struct SweepWork<'a, S> {
    first: S,
    later: S,
    passes: usize,
    colour_start: ColourStarts<'a>,
    lambda: SharedSlice<'a, f32>,
}

impl<'a, S: Sweep> SweepWork<'a, S> {
    /// `lambda`: the multipliers of every constraint (`f32[constraint count]`).
    pub(crate) fn new(first: S, later: S, passes: usize, colour_start: ColourStarts<'a>, lambda: &'a mut [f32]) -> Self {
        SweepWork { first, later, passes, colour_start, lambda: SharedSlice::new(lambda) }
    }

    fn colours_per_pass(&self) -> usize {
        self.colour_start.as_slice().len().saturating_sub(1)
    }

    /// The kernel and pass-local colour of team colour `colour`.
    fn kernel(&self, colour: usize) -> (&S, usize) {
        let n = self.colours_per_pass();
        (if colour < n { &self.first } else { &self.later }, colour % n)
    }
}

impl<S: Sweep> TeamWork for SweepWork<'_, S> {
    fn colours(&self) -> usize {
        self.passes * self.colours_per_pass()
    }

    fn cut(&self, colour: usize, parts: usize, cut: &mut ColourCut) {
        let (kernel, colour) = self.kernel(colour);
        cut.of_sweep(kernel, self.colour_start.as_slice(), colour, parts);
    }

    unsafe fn project(&self, x: &mut SharedPositions<'_>, colour: usize, begin: usize, end: usize) {
        // SAFETY: a range is projected once per pass, and ranges projected at the same time touch
        // disjoint particles, so hold different constraints (the caller's contract).
        let lambda = unsafe { self.lambda.range(begin, end) };
        self.kernel(colour).0.project_disjoint(begin, lambda, x);
    }
}

/// The sweeps of [`solve_damped`](crate::constraints::sweep::solve_damped) (`passes` sweeps in a row, the first one `fresh`)
/// as work for a team of threads ([`run_team`](super::run_team), whose contract is `solve_damped`'s). The
/// constraints must be coloured (a cloth is split over threads only then): panics otherwise.
pub(crate) fn damped_team_work<'a, C: DampedKernels>(
    constraints: &'a mut C,
    x_prev: &'a [Vec3],
    w: &'a [f32],
    k: &'a SubstepCoefficients,
    passes: usize,
    fresh: bool,
) -> impl TeamWork + 'a {
    if k.undamped() {
        let (kernel, colour_start, lambda) = constraints.kernel::<false>(x_prev, w, k, fresh);
        Either::Left(SweepWork::new(kernel, C::not_fresh(kernel), passes, coloured(colour_start, lambda), lambda))
    } else {
        let (kernel, colour_start, lambda) = constraints.kernel::<true>(x_prev, w, k, fresh);
        Either::Right(SweepWork::new(kernel, C::not_fresh(kernel), passes, coloured(colour_start, lambda), lambda))
    }
}

/// The colour starts of constraints split over threads. Uncoloured, the team would skip them (no
/// colours): never so, as the solver splits only coloured cloths, and checked since the cost is
/// one comparison per step.
fn coloured<'a>(colour_start: Option<&'a [u32]>, lambda: &[f32]) -> ColourStarts<'a> {
    assert!(colour_start.is_some() || lambda.is_empty(), "uncoloured constraints split over threads");
    ColourStarts::Ranges(colour_start.unwrap_or(&[]))
}

/// Two [`TeamWork`]s one after the other: the colours of `.0`, then those of `.1` (colour `c` of
/// the chain is `.1`'s colour `c − .0.colours()` from there on).
pub(crate) struct Chain<A, B>(pub A, pub B);

impl<A: TeamWork, B: TeamWork> TeamWork for Chain<A, B> {
    fn colours(&self) -> usize {
        self.0.colours() + self.1.colours()
    }

    fn cut(&self, colour: usize, parts: usize, cut: &mut ColourCut) {
        let n = self.0.colours();
        if colour < n { self.0.cut(colour, parts, cut) } else { self.1.cut(colour - n, parts, cut) }
    }

    unsafe fn project(&self, x: &mut SharedPositions<'_>, colour: usize, begin: usize, end: usize) {
        let n = self.0.colours();
        // SAFETY: the caller's contract.
        unsafe {
            if colour < n { self.0.project(x, colour, begin, end) } else { self.1.project(x, colour - n, begin, end) }
        }
    }
}

/// Work that may be left out (no colours).
impl<W: TeamWork> TeamWork for Option<W> {
    fn colours(&self) -> usize {
        self.as_ref().map_or(0, W::colours)
    }

    fn cut(&self, colour: usize, parts: usize, cut: &mut ColourCut) {
        if let Some(w) = self {
            w.cut(colour, parts, cut);
        }
    }

    unsafe fn project(&self, x: &mut SharedPositions<'_>, colour: usize, begin: usize, end: usize) {
        if let Some(w) = self {
            // SAFETY: the caller's contract.
            unsafe { w.project(x, colour, begin, end) }
        }
    }
}

/// One of two [`TeamWork`]s (a kernel with or without damping).
pub(crate) enum Either<A, B> {
    Left(A),
    Right(B),
}

impl<A: TeamWork, B: TeamWork> TeamWork for Either<A, B> {
    fn colours(&self) -> usize {
        match self {
            Either::Left(a) => a.colours(),
            Either::Right(b) => b.colours(),
        }
    }

    fn cut(&self, colour: usize, parts: usize, cut: &mut ColourCut) {
        match self {
            Either::Left(a) => a.cut(colour, parts, cut),
            Either::Right(b) => b.cut(colour, parts, cut),
        }
    }

    unsafe fn project(&self, x: &mut SharedPositions<'_>, colour: usize, begin: usize, end: usize) {
        // SAFETY: the caller's contract.
        unsafe {
            match self {
                Either::Left(a) => a.project(x, colour, begin, end),
                Either::Right(b) => b.project(x, colour, begin, end),
            }
        }
    }
}
