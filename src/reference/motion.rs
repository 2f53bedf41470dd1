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

/// Deformation damping over a step of `dt` \[s\] at rate `d` \[1/s\]: the free particles' (w > 0)
/// velocities `v` move toward their rigid motion v_cm + ω × (x − x_cm) by 1 − exp(−d·dt), with
/// x_cm, v_cm their centre of mass and its velocity and ω = I⁻¹·L from their angular momentum L
/// and inertia tensor I about x_cm (Müller et al. 2007, §3.5, steps 1–5, with k = 1 − exp(−d·dt)).
pub(crate) fn damp_deformation(x: &[DVec3], v: &mut [DVec3], w: &[f64], d: f64, dt: f64) {
    let free: Vec<usize> = (0..x.len()).filter(|&i| w[i] > 0.0).collect();
    if free.is_empty() || d == 0.0 {
        return;
    }
    let mass: f64 = free.iter().map(|&i| 1.0 / w[i]).sum();
    let x_cm = free.iter().map(|&i| x[i] / w[i]).sum::<DVec3>() / mass;
    let v_cm = free.iter().map(|&i| v[i] / w[i]).sum::<DVec3>() / mass;
    let (mut l, mut inertia) = (DVec3::ZERO, DMat3::ZERO);
    for &i in &free {
        let r = x[i] - x_cm;
        l += r.cross(v[i]) / w[i];
        // m·r̃·r̃ᵀ with r̃ the cross-product matrix of r: m(|r|²·1 − r·rᵀ).
        let skew = DMat3::from_cols(DVec3::new(0.0, r.z, -r.y), DVec3::new(-r.z, 0.0, r.x), DVec3::new(r.y, -r.x, 0.0));
        inertia += skew * skew.transpose() / w[i];
    }
    // Collinear particles leave I singular along their line, where ω moves nothing: any ω there.
    let scale = inertia.x_axis.x + inertia.y_axis.y + inertia.z_axis.z;
    let omega = if scale > 0.0 { (inertia + DMat3::IDENTITY * (scale * 1e-12)).inverse() * l } else { DVec3::ZERO };
    let k = 1.0 - (-d * dt).exp();
    for &i in &free {
        let rigid = v_cm + omega.cross(x[i] - x_cm);
        v[i] += k * (rigid - v[i]);
    }
}
