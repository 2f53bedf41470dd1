//! A particle's contact with a static sphere, with friction.
//!
//! Contact (docs/design.md, "Collider contacts and friction"): C = d(x) − t ≥ 0, d the signed
//! distance to the sphere (‖x − c‖ − r) and t the cloth's contact thickness, so the particle is
//! kept outside the sphere of radius R = r + t. The collider is infinitely heavy, so with α = 0
//! XPBD gives Δλ = −C/w and the particle alone moves by −C·n. Which C: a particle that starts the
//! substep on the sphere R (within `touching`) uses the sphere at its current position,
//! C = ‖x − c‖ − R, n = (x − c)/‖x − c‖; one that starts outside and whose substep motion
//! x_prev → x enters the sphere uses the contact plane at the first point q where the motion meets
//! it (continuous collision detection, so that a fast particle cannot pass through):
//! C = n·(x − q), n = (q − c)/R, q from the segment–sphere intersection solved in closed form.
//!
//! Friction (Macklin, Müller, Chentanez & Kim 2014, "Unified Particle Physics for Real-Time
//! Applications", §6, eq. 24, with the collider's inverse mass 0): after the contact moved the
//! particle by depth d = −C, its tangential displacement relative to the collider over the
//! substep, Δx⊥ = (x − x_prev)⊥, is removed when |Δx⊥| < μ_s·d (static) and otherwise reduced by
//! Δx⊥·min(μ_k·d/|Δx⊥|, 1) (kinetic).

use glam::DVec3;

/// A sphere collider at rest.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Sphere {
    /// Centre \[m\].
    pub centre: DVec3,
    /// Radius \[m\].
    pub radius: f64,
    /// Static friction coefficient μ_s.
    pub static_friction: f64,
    /// Kinetic friction coefficient μ_k.
    pub kinetic_friction: f64,
}

/// The contact constraint the substep motion `x_prev` → `x` meets (module docs) against the sphere
/// of radius `outer` = r + t: C \[m\] and the unit normal, or `None` when the motion stays outside.
fn contact_constraint(x: DVec3, x_prev: DVec3, centre: DVec3, outer: f64, touching: f64) -> Option<(f64, DVec3)> {
    let start_gap = x_prev.distance(centre) - outer;
    if start_gap <= touching {
        let n = (x - centre).normalize();
        return Some((x.distance(centre) - outer, n));
    }
    // |x_prev + s·m − c|² = R²: s² |m|² + 2s m·(x_prev − c) + |x_prev − c|² − R² = 0, first root.
    let (m, f) = (x - x_prev, x_prev - centre);
    let (a, b, c) = (m.length_squared(), m.dot(f), f.length_squared() - outer * outer);
    let discriminant = b * b - a * c;
    if !(a > 0.0 && discriminant >= 0.0) {
        return None;
    }
    let s = (-b - discriminant.sqrt()) / a;
    if !(0.0..1.0).contains(&s) {
        return None;
    }
    let q = x_prev + m * s;
    let n = (q - centre) / outer;
    Some((n.dot(x - q), n))
}

/// The particle at `x` (at `x_prev` at the substep's start) after one projection of its contact
/// with `sphere` for a contact thickness `thickness` \[m\] (module docs); `touching` \[m\] is how near
/// the sphere a start counts as on it. `None` when the contact is not violated (nothing moves).
pub(crate) fn project_sphere_contact(x: DVec3, x_prev: DVec3, sphere: &Sphere, thickness: f64, touching: f64) -> Option<DVec3> {
    let (c, n) = contact_constraint(x, x_prev, sphere.centre, sphere.radius + thickness, touching)?;
    if !(c < 0.0) {
        return None;
    }
    let depth = -c;
    let pushed = x + n * depth;
    let slip = pushed - x_prev;
    let tangential = slip - n * n.dot(slip);
    let length = tangential.length();
    let friction = if length < sphere.static_friction * depth {
        tangential
    } else if length > 0.0 {
        tangential * (sphere.kinetic_friction * depth / length).min(1.0)
    } else {
        DVec3::ZERO
    };
    Some(pushed - friction)
}
