//! Works for the team's tests: a kernel's colours swept one or more times ([`SweepWork`]), two
//! works one after the other ([`Chain`]) and work that may be left out (`Option`).

use super::{ColourCut, SharedSlice, TeamWork};
use crate::constraints::access::SharedPositions;
use crate::constraints::sweep::Sweep;

/// A sweep kernel's colours as [`TeamWork`], `passes` times over (the stretch sweeps run twice
/// per iteration): the first pass with kernel `first`, the others with `later` (they differ in
/// whether λ is taken as 0, `fresh`).
pub(crate) struct SweepWork<'a, S> {
    first: S,
    later: S,
    passes: usize,
    colour_start: &'a [u32],
    lambda: SharedSlice<'a, f32>,
}

impl<'a, S: Sweep> SweepWork<'a, S> {
    /// `lambda`: the multipliers of every constraint (`f32[constraint count]`).
    pub(crate) fn new(first: S, later: S, passes: usize, colour_start: &'a [u32], lambda: &'a mut [f32]) -> Self {
        SweepWork { first, later, passes, colour_start, lambda: SharedSlice::new(lambda) }
    }

    fn colours_per_pass(&self) -> usize {
        self.colour_start.len().saturating_sub(1)
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
        cut.of_sweep(kernel, self.colour_start, colour, parts);
    }

    unsafe fn project(&self, x: &mut SharedPositions<'_>, colour: usize, begin: usize, end: usize) {
        // SAFETY: a range is projected once per pass, and ranges projected at the same time touch
        // disjoint particles, so hold different constraints (the caller's contract).
        let lambda = unsafe { self.lambda.range(begin, end) };
        self.kernel(colour).0.project_disjoint(begin, lambda, x);
    }
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
