//! The dihedral bending constraint on a hinge of two triangles, in the notation of Bridson,
//! Marino & Fedkiw 2003, "Simulation of Clothing with Folds and Wrinkles", §4: wing tips x1, x2,
//! shared edge x3 → x4, E = x4 − x3, triangle normals N1 = (x1 − x3) × (x1 − x4) and
//! N2 = (x2 − x4) × (x2 − x3).
//!
//! φ = atan2((N̂1 × N̂2)·Ê, N̂1·N̂2), the signed angle between the normals about the edge (0 when
//! flat), and C = φ − φ₀ taken in (−π, π] (an angle difference is defined modulo 2π).
//!
//! Gradient: Bridson's bending modes,
//! u1 = |E|·N1/|N1|²,  u2 = |E|·N2/|N2|²,
//! u3 = ((x1 − x4)·E/|E|)·N1/|N1|² + ((x2 − x4)·E/|E|)·N2/|N2|²,
//! u4 = −((x1 − x3)·E/|E|)·N1/|N1|² − ((x2 − x3)·E/|E|)·N2/|N2|²,
//! are the gradient of the angle up to its sign convention: with φ as above, ∇_k φ = −u_k (moving
//! x1 along N1 turns N̂1 × N̂2 against Ê). Σ u_k = 0 (translation invariance). Projected with XPBD
//! (Macklin et al. 2016, eq. 18 and 26), Δx_k = w_k·∇_k φ·Δλ.

use super::xpbd::{Compliance, Projection, delta_lambda};
use glam::DVec3;
use std::f64::consts::PI;

/// A triangle lower than this fraction of the edge length makes a hinge degenerate: its normal, and
/// so φ and the gradient (which grows as 1/height), are not defined (docs/design.md, "Bending
/// constraint": such hinges are skipped).
pub(crate) const MIN_RELATIVE_HEIGHT: f64 = 1e-6;

/// The hinge's vectors of Bridson's notation, or `None` when it is degenerate (a zero or
/// non-finite edge, or a triangle of height at most [`MIN_RELATIVE_HEIGHT`]·|E|).
struct Hinge {
    e: DVec3,
    n1: DVec3,
    n2: DVec3,
}

impl Hinge {
    fn of([x1, x2, x3, x4]: [DVec3; 4]) -> Option<Hinge> {
        let e = x4 - x3;
        let n1 = (x1 - x3).cross(x1 - x4);
        let n2 = (x2 - x4).cross(x2 - x3);
        let e_len = e.length();
        // |N| is twice the triangle's area, |E|·height.
        let lowest = MIN_RELATIVE_HEIGHT * e_len * e_len;
        let fine = e_len > 0.0 && n1.length() > lowest && n2.length() > lowest;
        (fine && (e + n1 + n2).is_finite()).then_some(Hinge { e, n1, n2 })
    }
}

/// φ \[rad\] in (−π, π] of the hinge `[x1, x2, x3, x4]` (module docs), or `None` if degenerate.
pub(crate) fn dihedral_angle(p: [DVec3; 4]) -> Option<f64> {
    let h = Hinge::of(p)?;
    let (n1, n2, e) = (h.n1.normalize(), h.n2.normalize(), h.e.normalize());
    Some(n1.cross(n2).dot(e).atan2(n1.dot(n2)))
}

/// ∇φ with respect to x1, x2, x3, x4 (module docs: −u_k), or `None` if degenerate.
pub(crate) fn dihedral_gradient(p: [DVec3; 4]) -> Option<[DVec3; 4]> {
    let Hinge { e, n1, n2 } = Hinge::of(p)?;
    let [x1, x2, x3, x4] = p;
    let e_len = e.length();
    let (m1, m2) = (n1 / n1.length_squared(), n2 / n2.length_squared());
    let u1 = e_len * m1;
    let u2 = e_len * m2;
    let u3 = (x1 - x4).dot(e) / e_len * m1 + (x2 - x4).dot(e) / e_len * m2;
    let u4 = -(x1 - x3).dot(e) / e_len * m1 - (x2 - x3).dot(e) / e_len * m2;
    Some([-u1, -u2, -u3, -u4])
}

/// An angle difference \[rad\] taken into (−π, π].
pub(crate) fn principal_angle(a: f64) -> f64 {
    let r = (a + PI).rem_euclid(2.0 * PI) - PI;
    if r == -PI { PI } else { r }
}

/// One XPBD projection of the bending constraint C = φ − φ₀ of the hinge at `x` (module docs):
/// `x_prev` at the substep's start, inverse masses `w` \[1/kg\], rest angle `rest_angle` \[rad\],
/// compliance α \[rad/(N·m)\] and damping β \[N·m·s/rad\] in `k`, `lambda` the multiplier so far
/// \[N·m·s²\]. `None` for a degenerate hinge or when nothing can move.
pub(crate) fn project_dihedral(
    x: [DVec3; 4],
    x_prev: [DVec3; 4],
    w: [f64; 4],
    rest_angle: f64,
    k: Compliance,
    lambda: f64,
) -> Option<Projection<4>> {
    let c = principal_angle(dihedral_angle(x)? - rest_angle);
    let gradient = dihedral_gradient(x)?;
    let weighted_gradient_norm2: f64 = (0..4).map(|q| w[q] * gradient[q].length_squared()).sum();
    let gradient_dot_motion: f64 = (0..4).map(|q| gradient[q].dot(x[q] - x_prev[q])).sum();
    let dl = delta_lambda(c, lambda, k, weighted_gradient_norm2, gradient_dot_motion)?;
    let dx = std::array::from_fn(|q| w[q] * gradient[q] * dl);
    Some(Projection { delta_lambda: dl, dx, weighted_gradient_norm2 })
}
