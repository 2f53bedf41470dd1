//! The per-particle ends of a substep (Macklin et al. 2019, "Small Steps in Physics Simulation",
//! Algorithm 1; docs/design.md, "Substep order", steps 2 and 5): symplectic Euler prediction before
//! the constraints, the velocity from the positions after them, then linear damping; and at the
//! end of a step the deformation damping (Müller et al. 2007, "Position Based Dynamics", §3.5).

use glam::{DMat3, DVec3};

/// Prediction over a substep h \[s\] under acceleration `gravity` \[m/s²\]: for a free particle
/// (w > 0) v ← v + h·g, then x ← x + h·v; a kinematic one (w = 0, a pin at rest) stays. Returns
/// the new (x, v); the caller keeps the old x as x_prev.
pub(crate) fn predict(x: DVec3, v: DVec3, w: f64, gravity: DVec3, h: f64) -> (DVec3, DVec3) {
    if w > 0.0 {
        let v = v + h * gravity;
        (x + h * v, v)
    } else {
        (x, v)
    }
}

/// Velocity after the constraints, v = (x − x_prev)/h, then for a free particle linear damping
/// v ← v·exp(−d·h) with `linear_damping` d \[1/s\] (the exact solution of dv/dt = −d·v over h).
pub(crate) fn update_velocity(x: DVec3, x_prev: DVec3, w: f64, h: f64, linear_damping: f64) -> DVec3 {
    let v = (x - x_prev) / h;
    if w > 0.0 { v * (-linear_damping * h).exp() } else { v }
}

/// The free particles' (w > 0) centre of mass x_cm, its velocity v_cm, their angular momentum L
/// about it and their inertia tensor I there (I = Σ m·r̃·r̃ᵀ, r̃ the cross-product matrix of
/// r = x − x_cm), None without free particles.
fn rigid_momenta(x: &[DVec3], v: &[DVec3], w: &[f64]) -> Option<(DVec3, DVec3, DVec3, DMat3)> {
    let free: Vec<usize> = (0..x.len()).filter(|&i| w[i] > 0.0).collect();
    if free.is_empty() {
        return None;
    }
    let mass: f64 = free.iter().map(|&i| 1.0 / w[i]).sum();
    let x_cm = free.iter().map(|&i| x[i] / w[i]).sum::<DVec3>() / mass;
    let v_cm = free.iter().map(|&i| v[i] / w[i]).sum::<DVec3>() / mass;
    let (mut l, mut inertia) = (DVec3::ZERO, DMat3::ZERO);
    for &i in &free {
        let r = x[i] - x_cm;
        l += r.cross(v[i]) / w[i];
        let skew = DMat3::from_cols(DVec3::new(0.0, r.z, -r.y), DVec3::new(-r.z, 0.0, r.x), DVec3::new(r.y, -r.x, 0.0));
        inertia += skew * skew.transpose() / w[i];
    }
    Some((x_cm, v_cm, l, inertia))
}

/// I⁻¹·l; collinear particles leave I singular along their line, where ω moves nothing: any ω
/// there (a multiple of 1 of 10⁻¹² of I's trace added).
fn solve_inertia(inertia: DMat3, l: DVec3) -> DVec3 {
    let scale = inertia.x_axis.x + inertia.y_axis.y + inertia.z_axis.z;
    if scale > 0.0 { (inertia + DMat3::IDENTITY * (scale * 1e-12)).inverse() * l } else { DVec3::ZERO }
}

/// Deformation damping over a step of `dt` \[s\] at rate `d` \[1/s\]: the free particles' (w > 0)
/// velocities `v` move toward their rigid motion v_cm + ω × (x − x_cm) by 1 − exp(−d·dt), with
/// x_cm, v_cm their centre of mass and its velocity and ω = I⁻¹·L from their angular momentum L
/// and inertia tensor I about x_cm (Müller et al. 2007, §3.5, steps 1–5, with k = 1 − exp(−d·dt)).
pub(crate) fn damp_deformation(x: &[DVec3], v: &mut [DVec3], w: &[f64], d: f64, dt: f64) {
    if d == 0.0 {
        return;
    }
    let Some((x_cm, v_cm, l, inertia)) = rigid_momenta(x, v, w) else { return };
    let omega = solve_inertia(inertia, l);
    let k = 1.0 - (-d * dt).exp();
    for i in (0..x.len()).filter(|&i| w[i] > 0.0) {
        let rigid = v_cm + omega.cross(x[i] - x_cm);
        v[i] += k * (rigid - v[i]);
    }
}

/// The free particles' angular momentum about their centre of mass \[kg·m²/s\] (None without).
pub(crate) fn angular_momentum(x: &[DVec3], v: &[DVec3], w: &[f64]) -> Option<DVec3> {
    rigid_momenta(x, v, w).map(|(_, _, l, _)| l)
}

/// Angular momentum `l0` \[kg·m²/s\] given back to a free cloth whose projections lost some: every
/// free particle's velocity gains Δω × (x − x_cm), Δω = I⁻¹·(l0 − L), the rigid rotation that makes
/// the angular momentum l0 and leaves the linear momentum (docs/design.md, "Angular momentum of a
/// free cloth").
pub(crate) fn restore_angular_momentum(x: &[DVec3], v: &mut [DVec3], w: &[f64], l0: DVec3) {
    let Some((x_cm, _, l, inertia)) = rigid_momenta(x, v, w) else { return };
    let turn = solve_inertia(inertia, l0 - l);
    for i in (0..x.len()).filter(|&i| w[i] > 0.0) {
        v[i] += turn.cross(x[i] - x_cm);
    }
}
