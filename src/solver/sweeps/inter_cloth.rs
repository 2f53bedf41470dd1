//! Inter-cloth collision: pairs with the other cloths' particles (`crate::collision::inter_cloth`).

use super::Constraint;
use crate::solver::{Parts, Step, SubstepInfo};

/// The pairs with the world's snapshot of the other cloths found at the step's start.
pub(crate) struct InterCloth;

impl Constraint for InterCloth {
    #[cfg(test)]
    fn name(&self) -> &'static str {
        "inter-cloth"
    }

    fn active(&self, step: &Step) -> bool {
        step.inter_cloth.is_some()
    }

    fn on_rows(&self) -> bool {
        false
    }

    fn solve(&self, parts: &mut Parts, step: &Step, substep: &SubstepInfo, _fresh: bool) {
        if let Some(snapshot) = step.inter_cloth {
            let s = &mut *parts.scratch;
            s.inter_cloth.solve(snapshot, &mut parts.state.x, &s.x_prev, &parts.config.w, &step.pairs, substep.span);
        }
    }
}
