//! Soft grabs (`crate::cloth::grabs`): each grabbed particle pulled towards its target for this
//! substep by a compliant attachment, with the anim drive's update (one particle per constraint).

use super::Constraint;
use crate::constraints::animated::drive;
use crate::solver::{Parts, Step, SubstepInfo};

/// The grabs of a cloth, in particle order.
pub(crate) struct Grabs;

impl Constraint for Grabs {
    #[cfg(test)]
    fn name(&self) -> &'static str {
        "grabs"
    }

    fn active(&self, step: &Step) -> bool {
        step.grabbed
    }

    fn on_rows(&self) -> bool {
        true
    }

    fn solve(&self, parts: &mut Parts, step: &Step, substep: &SubstepInfo, fresh: bool) {
        let (g, rows) = (&mut parts.state.grabs, &mut parts.scratch.rows);
        let inverse_h_sq = 1.0 / (step.h * step.h);
        let s = substep.window.end;
        for k in 0..g.particles.len() {
            let row = &mut rows[g.particles[k] as usize];
            if row.w == 0.0 {
                continue; // pinned or kinematic: the pin wins
            }
            // Where the target is at this substep's end: lerp(start, target, (i + 1)/n), exactly
            // the target at the last substep, as a pin's (`Pins::position`).
            let target = if s >= 1.0 { g.target[k] } else { g.start[k] + (g.target[k] - g.start[k]) * s };
            let mut x = row.truncate();
            let lambda = if fresh { 0.0 } else { g.lambda[k] };
            g.lambda[k] = drive(&mut x, target, row.w, g.compliance[k] * inverse_h_sq, lambda);
            *row = x.extend(row.w);
        }
    }
}
