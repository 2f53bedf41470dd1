//! Bending: the signed dihedral angle of every interior edge (`crate::constraints::bending`).

use super::{Constraint, TeamInputs, TeamSweep};
use crate::constraints::access::SharedPositions;
use crate::constraints::team::{ColourCut, cut_coloured, project_coloured};
use crate::solver::{Parts, Step, SubstepInfo};

/// The bending constraints of the layout, coloured.
pub(crate) struct Bending;

impl Constraint for Bending {
    #[cfg(test)]
    fn name(&self) -> &'static str {
        "bending"
    }

    fn active(&self, step: &Step) -> bool {
        step.params.enable_bending
    }

    fn on_rows(&self) -> bool {
        true
    }

    fn solve(&self, parts: &mut Parts, step: &Step, _: &SubstepInfo, fresh: bool) {
        let (c, s) = (parts.config, &mut *parts.scratch);
        // SAFETY: the layout's indices were checked for these rows (`ConstraintLayout::rows_ready`,
        // at the top of the step) and its colouring is valid (`ConstraintLayout::build`).
        unsafe { parts.layout.bending.solve_in_bounds(&c.bend_compliance, &mut s.bend_lambda, &mut s.rows, &s.x_prev, &c.w, &step.k.bend, fresh) };
    }

    fn team(&self) -> Option<&dyn TeamSweep> {
        Some(self)
    }
}

impl TeamSweep for Bending {
    fn colours(&self, t: &TeamInputs) -> usize {
        let s = &t.layout.bending;
        assert!(!s.colour_start().is_empty() || s.hinges().is_empty(), "uncoloured hinges split over threads");
        s.colour_start().len().saturating_sub(1)
    }

    fn cut(&self, t: &TeamInputs, colour: usize, parts: usize, cut: &mut ColourCut) {
        cut_coloured(&t.layout.bending, t.layout.bending.colour_start(), colour, parts, cut);
    }

    unsafe fn project(&self, t: &TeamInputs, x: &mut SharedPositions<'_>, _: usize, begin: usize, end: usize, fresh: bool) {
        // SAFETY: a range is projected by one member at a time (the caller's contract).
        let lambda = unsafe { t.bend_lambda.range(begin, end) };
        let c = t.config;
        project_coloured(&t.layout.bending, &c.bend_compliance, t.x_prev, &c.w, &t.k.bend, fresh, begin, lambda, x);
    }
}
