//! Tethers, or long-range attachments (Kim, Chentanez & Müller 2012, "Long Range Attachments — A
//! Method to Simulate Inextensible Clothing in Computer Games", §3): a free particle x may move at
//! most s·d from a kinematic anchor x_a, d its rest distance to the anchor along the mesh and s
//! the slack factor. The inequality C(x) = ‖x − x_a‖ − s·d ≤ 0 is projected only while violated,
//! with XPBD (Macklin et al. 2016, eq. 18; the anchor has w = 0, so only x moves):
//! Δλ = (−C − α̃·λ)/(w + α̃), Δx = w·n·Δλ, n = (x − x_a)/‖x − x_a‖.

use super::xpbd::{Compliance, Projection, delta_lambda};
use glam::DVec3;

/// How far \[m\] the particle at `x` is beyond its tether's bound `bound` = s·d from the anchor at
/// `anchor`: max(0, ‖x − x_a‖ − s·d), the residual the statistics report.
pub(crate) fn tether_violation(x: DVec3, anchor: DVec3, bound: f64) -> f64 {
    (x.distance(anchor) - bound).max(0.0)
}

/// One XPBD projection of a tether (module docs) of the particle at `x` with inverse mass `w`
/// \[1/kg\] to a kinematic anchor at `anchor`, bound `bound` = s·d \[m\], compliance `k` (tethers
/// have no damping), `lambda` the multiplier so far. `None` while the tether is not violated (or
/// the particle sits on its anchor, where the direction is undefined).
pub(crate) fn project_tether(x: DVec3, anchor: DVec3, w: f64, bound: f64, k: Compliance, lambda: f64) -> Option<Projection<1>> {
    let d = x - anchor;
    let length = d.length();
    let c = length - bound;
    if !(c > 0.0 && length > 0.0) {
        return None;
    }
    let n = d / length;
    let dl = delta_lambda(c, lambda, k, w, 0.0)?;
    Some(Projection { delta_lambda: dl, dx: [w * n * dl], weighted_gradient_norm2: w })
}

/// The point nearest to `x` within both balls (centre `a1`, radius `r1`) and (`a2`, `r2`): the
/// exact projection onto two rigid tethers at once. Not in Kim et al.: the library projects a
/// particle held by two rigid tethers so (alternating single projections approach a thin lens of
/// two barely overlapping balls slowly), and the reference does the same, derived from the
/// geometry. A point within (1 + `tolerance`)·r of a centre counts as inside that ball, as in the
/// library: the nearest point of a lens whose balls barely overlap is ill-conditioned (the lens's
/// rim has a radius of about r·√(2δ) for an overlap of a relative δ, so f32 rounding of the
/// bounds alone would move it by 1e-4·r), while the nearest point of one ball is not. When the
/// balls do not meet, the point on the segment a1 → a2 that exceeds both bounds by the same
/// fraction, d·r1/(r1 + r2) from a1, as the library documents.
pub(crate) fn nearest_point_in_two_balls(x: DVec3, (a1, r1): (DVec3, f64), (a2, r2): (DVec3, f64), tolerance: f64) -> DVec3 {
    let inside = |p: DVec3, a: DVec3, r: f64| p.distance(a) <= r * (1.0 + tolerance);
    if inside(x, a1, r1) && inside(x, a2, r2) {
        return x;
    }
    // The nearest point of one ball; the answer when it lies in the other ball.
    let onto = |a: DVec3, r: f64| if x.distance(a) <= r { x } else { a + (x - a) * (r / x.distance(a)) };
    for (p, (b, rb)) in [(onto(a1, r1), (a2, r2)), (onto(a2, r2), (a1, r1))] {
        if inside(p, b, rb) {
            return p;
        }
    }
    let d = a1.distance(a2);
    let u = (a2 - a1) / d;
    if d >= r1 + r2 {
        return a1 + u * (d * r1 / (r1 + r2));
    }
    // Otherwise on the circle where the spheres meet: centre a1 + t·u, radius ρ, with
    // t² + ρ² = r1² and (d − t)² + ρ² = r2².
    let t = (d * d + r1 * r1 - r2 * r2) / (2.0 * d);
    let rho = (r1 * r1 - t * t).max(0.0).sqrt();
    let centre = a1 + u * t;
    let radial = (x - centre) - u * (x - centre).dot(u);
    centre + radial.normalize() * rho
}

/// The change of the two multipliers \[N·s²\] when the particle at `x` (inverse mass `w`
/// \[1/kg\]) is put at `q`, the nearest point within both balls of two rigid tethers (α = 0,
/// [`nearest_point_in_two_balls`] with `tolerance`), written from the Karush–Kuhn–Tucker
/// conditions of the projection: q − x = w·(Δλ₁·n₁ + Δλ₂·n₂) with each Δλ ≤ 0 and 0 for a
/// tether not on its sphere at q, n_s = (q − a_s)/‖q − a_s‖ the outward normal there.
/// - q = x: none.
/// - q on one sphere, inside the other ball: that tether alone, Δλ = −C/w (one XPBD projection,
///   Macklin et al. 2016, eq. 18, with α = 0).
/// - q on both spheres (their circle): the 2 × 2 system in the normals' Gram matrix
///   [1 c; c 1], c = n₁·n₂, with 1 − c² taken as at least `min_gram` (the library's floor for
///   nearly opposite normals), each Δλ clamped to ≤ 0.
/// - balls apart (q between them, no KKT point): each tether's own violation, −max(0, C)/w.
pub(crate) fn two_ball_multipliers(x: DVec3, q: DVec3, (a1, r1): (DVec3, f64), (a2, r2): (DVec3, f64), w: f64, tolerance: f64, min_gram: f64) -> [f64; 2] {
    if q == x {
        return [0.0, 0.0];
    }
    let own = |a: DVec3, r: f64| -(x.distance(a) - r).max(0.0) / w;
    if a1.distance(a2) >= r1 + r2 {
        return [own(a1, r1), own(a2, r2)];
    }
    let on_sphere = |a: DVec3, r: f64| (q.distance(a) - r).abs() <= r * tolerance.max(1e-9);
    match (on_sphere(a1, r1), on_sphere(a2, r2)) {
        (true, true) => {
            let (n1, n2) = ((q - a1) / r1, (q - a2) / r2);
            let (b1, b2) = ((q - x).dot(n1) / w, (q - x).dot(n2) / w);
            let c = n1.dot(n2);
            let gram = (1.0 - c * c).max(min_gram);
            [((b1 - c * b2) / gram).min(0.0), ((b2 - c * b1) / gram).min(0.0)]
        }
        (true, false) => [own(a1, r1), 0.0],
        (false, true) => [0.0, own(a2, r2)],
        (false, false) => [0.0, 0.0],
    }
}
