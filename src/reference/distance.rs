//! The distance (stretch) constraint between two particles.
//!
//! C(x_i, x_j) = ‖x_i − x_j‖ − L,  ∇_i C = n,  ∇_j C = −n,  n = (x_i − x_j)/‖x_i − x_j‖
//! (Müller et al. 2006, "Position Based Dynamics", §3.3 eq. 10–11), projected with XPBD
//! (Macklin, Müller & Chentanez 2016, eq. 18, with the damping of eq. 26):
//! Δx_i = +w_i·n·Δλ, Δx_j = −w_j·n·Δλ.

use super::xpbd::{Compliance, Projection, delta_lambda};
use glam::DVec3;

/// One XPBD projection of the distance constraint between particles at `x` = [x_i, x_j] \[m\] with
/// rest length `rest_length` \[m\]: `x_prev` are their positions at the substep's start (for the
/// damping term), `w` their inverse masses \[1/kg\], `lambda` the multiplier so far in this
/// substep \[N·s²\]. `None` where the gradient is undefined (coinciding or non-finite particles)
/// or nothing can move.
pub(crate) fn project_distance(
    x: [DVec3; 2],
    x_prev: [DVec3; 2],
    w: [f64; 2],
    rest_length: f64,
    k: Compliance,
    lambda: f64,
) -> Option<Projection<2>> {
    let d = x[0] - x[1];
    let length = d.length();
    if !(length > 0.0 && length.is_finite()) {
        return None;
    }
    let n = d / length;
    let c = length - rest_length;
    let gradient = [n, -n];
    let weighted_gradient_norm2 = w[0] * n.length_squared() + w[1] * n.length_squared();
    let gradient_dot_motion = gradient[0].dot(x[0] - x_prev[0]) + gradient[1].dot(x[1] - x_prev[1]);
    let dl = delta_lambda(c, lambda, k, weighted_gradient_norm2, gradient_dot_motion)?;
    let dx = [w[0] * gradient[0] * dl, w[1] * gradient[1] * dl];
    Some(Projection { delta_lambda: dl, dx, weighted_gradient_norm2 })
}
