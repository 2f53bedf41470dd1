//! Tethers: the long-range attachments to the anchors (`crate::constraints::tether`).

use super::{Constraint, TeamInputs, TeamSweep};
use crate::constraints::access::SharedPositions;
use crate::constraints::team::ColourCut;
use crate::solver::{Parts, Step, SubstepInfo};

/// The tethers of the layout: one colour of all groups (a group moves only its own particle).
pub(crate) struct Tethers;

impl Constraint for Tethers {
    #[cfg(test)]
    fn name(&self) -> &'static str {
        "tethers"
    }

    fn active(&self, step: &Step) -> bool {
        step.params.enable_tethers
    }

    fn on_rows(&self) -> bool {
        true
    }

    fn solve(&self, parts: &mut Parts, step: &Step, _: &SubstepInfo, fresh: bool) {
        let (p, s) = (&step.params, &mut *parts.scratch);
        // SAFETY: the layout's indices were checked for these rows (`ConstraintLayout::rows_ready`);
        // the groups touch disjoint particles (one run per particle, no constrained particle an
        // anchor), which `TetherConstraints` keeps.
        unsafe { parts.layout.tethers.solve_in_bounds(&mut s.tether_lambda, &mut s.rows, &parts.config.w, parts.config.tether_factor, p.tether_compliance, &step.k.tether, fresh) };
    }

    fn team(&self) -> Option<&dyn TeamSweep> {
        Some(self)
    }
}

impl TeamSweep for Tethers {
    fn colours(&self, _: &TeamInputs) -> usize {
        1
    }

    fn cut(&self, t: &TeamInputs, _: usize, parts: usize, cut: &mut ColourCut) {
        t.layout.tethers.cut(parts, cut);
    }

    unsafe fn project(&self, t: &TeamInputs, x: &mut SharedPositions<'_>, _: usize, begin: usize, end: usize, fresh: bool) {
        // SAFETY: a range is projected by one member at a time (the caller's contract).
        let lambda = unsafe { t.tether_lambda.range(begin, end) };
        let p = &t.config.params;
        t.layout.tethers.project_range(&t.config.w, t.config.tether_factor, p.tether_compliance, &t.k.tether, fresh, begin, lambda, x);
    }
}
