//! Collider contacts with friction (`crate::collision::contact`), marched from the particles'
//! starts before the substep's reference-frame carry (`solver/frame.rs`).

use super::Constraint;
use crate::solver::{Parts, Step, SubstepInfo};

/// Contacts with the world's colliders of the cloth's collision layers.
pub(crate) struct Colliders;

impl Constraint for Colliders {
    #[cfg(test)]
    fn name(&self) -> &'static str {
        "colliders"
    }

    fn active(&self, step: &Step) -> bool {
        step.collide
    }

    fn on_rows(&self) -> bool {
        false
    }

    fn solve(&self, parts: &mut Parts, step: &Step, substep: &SubstepInfo, fresh: bool) {
        let carry = crate::solver::frame::substep_carry(parts, step, substep);
        let s = &mut *parts.scratch;
        if fresh {
            s.contacts.begin_substep();
        }
        let (x, w) = (&mut parts.state.x, &parts.config.w);
        s.contacts.solve(x, &s.x_prev, w, step.ctx.colliders, substep.window, carry, &step.contact, substep.friction, step.parallel);
        let stretch = &parts.layout.stretch;
        s.contacts.solve_edges(x, &s.x_prev, w, step.ctx.colliders, substep.window, carry, &step.contact, substep.friction, stretch.edges(), parts.model.longest_edge);
    }
}
