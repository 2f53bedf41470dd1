//! Local-space inertia (docs/design.md, "Character cloth"): each substep the free particles are
//! carried by the share of the reference frame's motion over it that `linear_inertia` and
//! `angular_inertia` leave out, positions and velocities turned alike, so the carry adds no
//! velocity of its own. The collider contacts of the substep march from the particles' uncarried
//! starts ([`substep_carry`]), so colliders moving with the frame see the cloth where it was
//! relative to them and world colliders see the carry as motion.

use super::{Parts, Step, SubstepInfo};
use crate::collision::Carry;
use glam::{Quat, Vec3};

/// The carried frame's pose at fraction `s` of the step: position p₀ + (1 − l)·(p(s) − p₀),
/// rotation slerp(q₀, q(s), 1 − a), with p(s), q(s) the frame interpolated (lerp, slerp).
fn carried(start: (Vec3, Quat), target: (Vec3, Quat), s: f32, linear: f32, angular: f32) -> (Vec3, Quat) {
    if s <= 0.0 {
        return start;
    }
    let (p, q) = if s >= 1.0 { target } else { (start.0.lerp(target.0, s), start.1.slerp(target.1, s).normalize()) };
    (start.0 + (p - start.0) * (1.0 - linear), start.1.slerp(q, 1.0 - angular).normalize())
}

/// The rigid motion the carry gives the free particles over `substep`, None when there is none.
pub(super) fn substep_carry(parts: &Parts, step: &Step, substep: &SubstepInfo) -> Option<Carry> {
    let (Some(frame), Some((linear, angular))) = (parts.state.animation.frame, step.carry) else { return None };
    let (o0, q0) = carried(frame.start, frame.target, substep.window.begin, linear, angular);
    let (o1, q1) = carried(frame.start, frame.target, substep.window.end, linear, angular);
    let rotation = (q1 * q0.conjugate()).normalize();
    (rotation != Quat::IDENTITY || o0 != o1).then_some(Carry { rotation, from: o0, to: o1 })
}

/// Carry the free particles (in the rows) and their velocities over `substep`.
pub(super) fn carry_with_frame(parts: &mut Parts, step: &Step, substep: &SubstepInfo) {
    let Some(Carry { rotation: r, from: o0, to: o1 }) = substep_carry(parts, step, substep) else { return };
    for (row, v) in parts.scratch.rows.iter_mut().zip(parts.state.v.iter_mut()) {
        if row.w > 0.0 {
            *row = (r * (row.truncate() - o0) + o1).extend(row.w);
            *v = r * *v;
        }
    }
}
