//! Self-collision: this cloth's particle pairs (`crate::collision::self_collision`).

use super::Constraint;
use crate::solver::{Parts, Step, SubstepInfo};

/// The candidate pairs the step's broad phase found.
pub(crate) struct SelfCollision;

impl Constraint for SelfCollision {
    #[cfg(test)]
    fn name(&self) -> &'static str {
        "self-collision"
    }

    fn active(&self, step: &Step) -> bool {
        step.self_contact.is_some()
    }

    fn on_rows(&self) -> bool {
        false
    }

    fn solve(&self, parts: &mut Parts, step: &Step, substep: &SubstepInfo, _fresh: bool) {
        if let Some(settings) = &step.self_contact {
            let s = &mut *parts.scratch;
            s.self_collision.solve(&mut parts.state.x, &s.x_prev, &parts.config.w, settings, substep.friction);
        }
    }
}
