//! Stretch: every edge's length (`crate::constraints::stretch`).

use super::{Constraint, TeamInputs, TeamSweep};
use crate::constraints::access::SharedPositions;
use crate::constraints::team::{ColourCut, cut_coloured, project_coloured};
use crate::solver::{Parts, Step, SubstepInfo};

/// The stretch constraints of the layout, anchor-outward and coloured.
pub(crate) struct Stretch;

impl Constraint for Stretch {
    #[cfg(test)]
    fn name(&self) -> &'static str {
        "stretch"
    }

    fn active(&self, step: &Step) -> bool {
        step.params.enable_stretch
    }

    fn on_rows(&self) -> bool {
        true
    }

    fn solve(&self, parts: &mut Parts, step: &Step, _: &SubstepInfo, fresh: bool) {
        let (c, s) = (parts.config, &mut *parts.scratch);
        // SAFETY: the layout's indices were checked for these rows (`ConstraintLayout::rows_ready`,
        // at the top of the step) and its colouring is valid (`ConstraintLayout::build`).
        unsafe { parts.layout.stretch.solve_in_bounds(&c.stretch_compliance, &mut s.stretch_lambda, &mut s.rows, &s.x_prev, &c.w, &step.k.stretch, fresh) };
    }

    fn team(&self) -> Option<&dyn TeamSweep> {
        Some(self)
    }
}

impl TeamSweep for Stretch {
    fn colours(&self, t: &TeamInputs) -> usize {
        let s = &t.layout.stretch;
        assert!(!s.colour_start().is_empty() || s.edges().is_empty(), "uncoloured edges split over threads");
        s.colour_start().len().saturating_sub(1)
    }

    fn cut(&self, t: &TeamInputs, colour: usize, parts: usize, cut: &mut ColourCut) {
        cut_coloured(&t.layout.stretch, t.layout.stretch.colour_start(), colour, parts, cut);
    }

    unsafe fn project(&self, t: &TeamInputs, x: &mut SharedPositions<'_>, _: usize, begin: usize, end: usize, fresh: bool) {
        // SAFETY: a range is projected by one member at a time (the caller's contract).
        let lambda = unsafe { t.stretch_lambda.range(begin, end) };
        let c = t.config;
        project_coloured(&t.layout.stretch, &c.stretch_compliance, t.x_prev, &c.w, &t.k.stretch, fresh, begin, lambda, x);
    }
}
