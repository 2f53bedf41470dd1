//! The per-particle ends of a substep (Macklin et al. 2019, "Small Steps in Physics Simulation",
//! Algorithm 1; docs/design.md, "Substep order", steps 2 and 5): symplectic Euler prediction before
//! the constraints, the velocity from the positions after them, then linear damping.

use glam::DVec3;

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
