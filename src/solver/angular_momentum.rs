//! A free cloth's angular momentum kept over the step. Projecting positions onto the edge lengths
//! pulls each particle of a spinning cloth back in towards the centre, across its velocity, every
//! substep, which loses angular momentum at a rate of about ω²·h (a sheet at 0.5 turns/s lost
//! 1.6 % per second at 10 substeps, at 2 turns/s 18.8 %). Nothing outside a free cloth exerts a
//! torque about its centre of mass (gravity and a uniform acceleration do not), so its angular
//! momentum L at the step's end must equal L at its start: once per step, after everything that
//! moves the particles, the free particles get the rigid rotation Δω × r that restores it,
//! Δω = I⁻¹·(L₀ − L₁) (I the inertia tensor about the centre of mass at the end), which keeps the
//! linear momentum. A cloth that something outside acts on in the step (a pinned or kinematic
//! particle, a collider contact, wind, linear damping, a reference frame's carry, an animated
//! pose, another cloth) is left as it is.

use super::deformation_damping::RigidMotion;
use super::{Parts, Step};
use glam::{DVec3, Vec3};

/// L₀ \[kg·m²/s\] of a free cloth at the step's start (positions `x` \[m\], velocities `v`
/// \[m/s\], inverse masses `w` \[1/kg\]), None when the step may be acted on from outside (module
/// docs). Contacts are known only at the step's end ([`keep`] checks them); a cloth a contact
/// moved in the step before (`touched_before`) is taken as touched again, so a cloth resting on a
/// collider pays nothing (the step after it leaves contact keeps what it had).
pub(super) fn at_start(step: &Step, x: &[Vec3], v: &[Vec3], w: &[f32], touched_before: bool) -> Option<DVec3> {
    let p = &step.params;
    let outside = step.aerodynamics.is_some() || step.carry.is_some() || step.animate || step.inter_cloth.is_some() || p.linear_damping > 0.0;
    if outside || touched_before || !w.iter().all(|&w| w > 0.0) {
        return None;
    }
    RigidMotion::angular_momentum_of(x.iter().copied().zip(w.iter().copied()), v)
}

/// Restore `start` ([`at_start`]) at the step's end when no contact moved a particle in the step
/// (the rows hold the positions).
pub(super) fn keep(parts: &mut Parts, start: Option<DVec3>) {
    let Some(start) = start else { return };
    if parts.scratch.contacts.touched_in_step() {
        return;
    }
    let (rows, v) = (&parts.scratch.rows, &mut parts.state.v);
    let Some(end) = RigidMotion::fit(rows, v) else { return };
    let turn = end.inertia.inverse() * (start - end.angular_momentum);
    if !turn.is_finite() {
        return;
    }
    for (row, v) in rows.iter().zip(v.iter_mut()) {
        *v = (v.as_dvec3() + turn.cross(row.truncate().as_dvec3() - end.centre)).as_vec3();
    }
}
