//! Contacts of the cloth's edges with thin round colliders: spheres and capsules whose radius plus
//! the cloth's thickness is shorter than the cloth's longest edge. Particle contacts alone let such
//! a collider pass between two particles (a strip with 4 cm edges over a 1 cm rod falls through
//! it or slides off), so an edge that straddles one is kept outside at the point where it comes
//! closest to the collider's axis.
//!
//! # Contact constraint
//! For an edge x_i → x_j, the point p(t) = (1 − t)·x_i + t·x_j nearest the collider's axis segment
//! (a sphere's axis is its centre), c the axis point nearest p, R = radius + thickness:
//!
//! C(x) = n·(p(t) − c) − R ≥ 0,  ∇_{x_i} C = (1 − t)·n,  ∇_{x_j} C = t·n,
//!
//! an XPBD contact with α = 0 on a point of an edge (Müller et al. 2007, "Position Based
//! Dynamics", §3.3, with the barycentric weights of the point): Δλ = −C/((1 − t)²·w_i + t²·w_j),
//! Δx_i = w_i·(1 − t)·n·Δλ, Δx_j = w_j·t·n·Δλ. n is the direction from c to p; when the edge
//! has crossed the axis within the substep (its direction at the substep's start is opposite),
//! the start's direction is kept, so a fast edge is pushed back to the side it came from and
//! never tunnels. Only interior points (0 < t < 1, away from the ends by [`END_MARGIN`]) are
//! taken: at an end the particle's own contact holds it. Friction acts on the point's slip
//! relative to the collider over the substep as for particles (Macklin et al. 2014, §6, eq. 24),
//! distributed with the same weights.
//!
//! The candidate edges are found once per step ([`EdgeContacts::begin_step`]): those with an end
//! within reach of the collider's swept bounds, the reach covering the edge's length and the
//! particles' travel over the step.

use super::contact::apply_friction;
use super::shape::Shape;
use super::store::{ColliderStore, Frame};
use glam::Vec3;

/// An edge's point of contact lies at least this fraction of the edge from either end.
pub const END_MARGIN: f32 = 1e-3;

/// The thin round colliders' candidate edges of one step.
#[derive(Clone, Debug, Default)]
pub(crate) struct EdgeContacts {
    /// (collider index in the store's order, edge index), colliders in the store's order, edges
    /// in storage order within each.
    candidates: Vec<(u32, u32)>,
}

/// A thin round collider's axis segment (local −h..h along Y) and radius R = radius + thickness.
fn thin_axis(shape: &Shape, thickness: f32, longest_edge: f32) -> Option<(f32, f32)> {
    let (radius, half_height) = match *shape {
        Shape::Sphere { radius } => (radius, 0.0),
        Shape::Capsule { radius, half_height } => (radius, half_height),
        _ => return None,
    };
    let reach = radius + thickness;
    (reach < longest_edge).then_some((half_height, reach))
}

impl EdgeContacts {
    /// Whether a collider of `mask`'s layers is thin for a cloth whose longest edge is
    /// `longest_edge` \[m\] (else [`Self::begin_step`] finds nothing and need not run).
    pub fn needed(colliders: &ColliderStore, mask: u32, thickness: f32, longest_edge: f32) -> bool {
        colliders.iter().any(|(_, c)| c.active_layers() & mask != 0 && thin_axis(&c.shape, thickness, longest_edge).is_some())
    }

    /// Find the step's candidate edges: `edges` (particle pairs) with an end whose position `x`
    /// \[m\] lies within the box around the axis of a thin collider (of `mask`'s layers) at its
    /// start and target poses, grown by R, the longest edge `longest_edge` \[m\] and `travel`
    /// \[m\], a bound on how far a particle moves in the step. Kinematic pairs (`w` 0 at both ends)
    /// are left out.
    #[allow(clippy::too_many_arguments)]
    pub fn begin_step(&mut self, x: &[Vec3], w: &[f32], edges: &[[u32; 2]], longest_edge: f32, colliders: &ColliderStore, mask: u32, thickness: f32, travel: f32) {
        self.candidates.clear();
        for (k, (_, collider)) in colliders.iter().enumerate() {
            if collider.active_layers() & mask == 0 {
                continue;
            }
            let Some((half_height, reach)) = thin_axis(&collider.shape, thickness, longest_edge) else { continue };
            let (start, target) = (collider.frame_at(0.0), collider.frame_at(1.0));
            let ends = [start, target].map(|f| [f.position + f.rotation * Vec3::new(0.0, -half_height, 0.0), f.position + f.rotation * Vec3::new(0.0, half_height, 0.0)]);
            let grow = Vec3::splat(reach + longest_edge + travel);
            let lo = ends.iter().flatten().fold(Vec3::INFINITY, |a, &p| a.min(p)) - grow;
            let hi = ends.iter().flatten().fold(Vec3::NEG_INFINITY, |a, &p| a.max(p)) + grow;
            let near = |p: u32| {
                let q = x[p as usize];
                q.cmpge(lo).all() && q.cmple(hi).all()
            };
            for (e, &[i, j]) in edges.iter().enumerate() {
                if (w[i as usize] > 0.0 || w[j as usize] > 0.0) && (near(i) || near(j)) {
                    self.candidates.push((k as u32, e as u32));
                }
            }
        }
    }

    /// No candidates (a step without thin colliders).
    pub fn clear(&mut self) {
        self.candidates.clear();
    }

    /// Whether some edge is a candidate this step.
    pub fn any(&self) -> bool {
        !self.candidates.is_empty()
    }

    /// Project the candidate edges of collider `k` (the store's order), moving from `begin` to
    /// `end` over the substep (module docs); `friction` (μ_s, μ_k), (0, 0) without.
    #[allow(clippy::too_many_arguments)]
    /// `touched` gets `touched_bit` for the particles of every edge it moves.
    pub fn solve_collider(&self, k: usize, shape: &Shape, begin: &Frame, end: &Frame, x: &mut [Vec3], x_prev: &[Vec3], w: &[f32], edges: &[[u32; 2]], thickness: f32, longest_edge: f32, friction: (f32, f32), touched: (&mut [u8], u8)) {
        let Some((half_height, reach)) = thin_axis(shape, thickness, longest_edge) else { return };
        let first = self.candidates.partition_point(|&(c, _)| (c as usize) < k);
        for &(c, e) in &self.candidates[first..] {
            if c as usize != k {
                break;
            }
            let [i, j] = edges[e as usize].map(|p| p as usize);
            let (a0, b0) = (begin.to_local(x_prev[i]), begin.to_local(x_prev[j]));
            let (a1, b1) = (end.to_local(x[i]), end.to_local(x[j]));
            let Some((dx_i, dx_j)) = edge_contact(a0, b0, a1, b1, w[i], w[j], half_height, reach, friction) else { continue };
            x[i] += end.rotation * dx_i;
            x[j] += end.rotation * dx_j;
            touched.0[i] |= touched.1;
            touched.0[j] |= touched.1;
        }
    }
}

impl EdgeContacts {
    /// The step's candidate edges touching their thin collider at the end of a step (collider `k`
    /// of the store's order at `end`): (count of edges whose interior point is within
    /// `touching` \[m\] of the thickened surface, largest penetration \[m\]), added to the
    /// particles' [`crate::ClothStats::contact_count`] and `max_penetration`.
    pub fn summary(&self, x: &[Vec3], edges: &[[u32; 2]], colliders: &ColliderStore, thickness: f32, longest_edge: f32, touching: f32) -> (u32, f32) {
        let (mut count, mut deepest) = (0u32, 0.0f32);
        let (mut k, mut colliders_left) = (usize::MAX, colliders.iter().enumerate());
        let mut current: Option<(Frame, f32, f32)> = None;
        for &(c, e) in &self.candidates {
            if c as usize != k {
                k = c as usize;
                let (_, (_, collider)) = colliders_left.find(|(i, _)| *i == k).expect("a candidate's collider");
                current = thin_axis(&collider.shape, thickness, longest_edge).map(|(h, r)| (collider.frame_at(1.0), h, r));
            }
            let Some((end, half_height, reach)) = current else { continue };
            let [i, j] = edges[e as usize].map(|p| p as usize);
            let axis = (Vec3::new(0.0, -half_height, 0.0), Vec3::new(0.0, half_height, 0.0));
            let (a, b) = (end.to_local(x[i]), end.to_local(x[j]));
            let (t, c) = nearest_on_segments((a, b), axis);
            if !(END_MARGIN..=1.0 - END_MARGIN).contains(&t) {
                continue;
            }
            let gap = a.lerp(b, t).distance(c) - reach;
            count += (gap <= touching) as u32;
            deepest = deepest.max(-gap);
        }
        (count, deepest)
    }
}

/// The moves (collider-local) of an edge's particles, from a0 → a1 and b0 → b1 over the substep,
/// with inverse masses `wi`, `wj`, against the thickened axis of half length `half_height` and
/// radius `reach` (module docs); None when the edge is clear, its nearest point is at an end, or
/// both particles are kinematic.
#[allow(clippy::too_many_arguments)]
fn edge_contact(a0: Vec3, b0: Vec3, a1: Vec3, b1: Vec3, wi: f32, wj: f32, half_height: f32, reach: f32, friction: (f32, f32)) -> Option<(Vec3, Vec3)> {
    let axis = (Vec3::new(0.0, -half_height, 0.0), Vec3::new(0.0, half_height, 0.0));
    let (t, c) = nearest_on_segments((a1, b1), axis);
    if !(END_MARGIN..=1.0 - END_MARGIN).contains(&t) {
        return None;
    }
    let p = a1.lerp(b1, t);
    let offset = p - c;
    let distance = offset.length();
    if distance >= reach {
        return None;
    }
    // The side the edge came from: its direction from the axis at the substep's start.
    let (t0, c0) = nearest_on_segments((a0, b0), axis);
    let before = a0.lerp(b0, t0) - c0;
    let normal = match (offset.try_normalize(), before.try_normalize()) {
        (Some(now), Some(start)) if now.dot(start) >= 0.0 => now,
        (_, Some(start)) => start,
        (Some(now), None) => now,
        (None, None) => return None,
    };
    let c_value = normal.dot(offset) - reach;
    if c_value >= 0.0 {
        return None;
    }
    let (gi, gj) = (1.0 - t, t);
    let denominator = gi * gi * wi + gj * gj * wj;
    if !(denominator > 0.0) {
        return None;
    }
    // The point's slip relative to the collider over the substep, after the normal correction.
    let moved = p - a0.lerp(b0, t);
    let slip = moved - normal * c_value;
    let kept = apply_friction(slip, normal, -c_value, friction);
    // What the point moves by: out along n, and the tangential slip friction takes back.
    let correction = -normal * c_value + (kept - slip);
    let scale = correction / denominator;
    Some((scale * (gi * wi), scale * (gj * wj)))
}

/// Parameters of the nearest points of segments p0 → p1 and q0 → q1: t on the first and the
/// point on the second (Ericson 2004, "Real-Time Collision Detection", §5.1.9); a degenerate
/// segment is its start.
fn nearest_on_segments((p0, p1): (Vec3, Vec3), (q0, q1): (Vec3, Vec3)) -> (f32, Vec3) {
    let (d1, d2, r) = (p1 - p0, q1 - q0, p0 - q0);
    let (a, e, f) = (d1.length_squared(), d2.length_squared(), d2.dot(r));
    const TINY: f32 = 1e-12;
    let (s, t) = if a <= TINY && e <= TINY {
        (0.0, 0.0)
    } else if a <= TINY {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = d1.dot(r);
        if e <= TINY {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = d1.dot(d2);
            let denom = a * e - b * b;
            let mut s = if denom > TINY * a * e { ((b * f - c * e) / denom).clamp(0.0, 1.0) } else { 0.0 };
            let mut t = (b * s + f) / e;
            if t < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            }
            (s, t)
        }
    };
    (s, q0 + d2 * t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nearest points of two segments against brute force over a fine grid of both
    /// parameters, on random segments (crossing, parallel, degenerate).
    #[test]
    fn nearest_points_of_two_segments_match_brute_force() {
        let mut u = crate::test_util::uniform(11);
        let mut v = || Vec3::new(u(), u(), u());
        for case in 0..300 {
            let (p0, mut p1, q0, mut q1) = (v(), v(), v(), v());
            if case % 10 == 0 {
                p1 = p0; // a point against a segment
            }
            if case % 10 == 1 {
                q1 = q0 + (p1 - p0) * 0.7; // parallel
            }
            let (t, c) = nearest_on_segments((p0, p1), (q0, q1));
            let got = p0.lerp(p1, t).distance(c);
            let mut best = f32::INFINITY;
            for a in 0..=200 {
                for b in 0..=200 {
                    best = best.min(p0.lerp(p1, a as f32 / 200.0).distance(q0.lerp(q1, b as f32 / 200.0)));
                }
            }
            assert!(got <= best + 1e-5 && got >= best - 2e-2 * (p1 - p0).length().max((q1 - q0).length()) - 1e-5, "case {case}: {got} vs {best}");
            assert!(got <= best + 1e-5, "case {case}: {got} > brute force {best}");
        }
    }

    /// An edge resting across a rod: its middle pushed out to the thickened radius along the
    /// normal, the particles by the barycentric XPBD split (equal masses, t = ½: each half the
    /// way), no friction when (0, 0); an edge that crossed the axis within the substep goes back
    /// to its side; a clear edge and one touching at an end are left alone.
    #[test]
    fn an_edge_across_a_rod_is_pushed_out_and_never_tunnels() {
        let (h, r) = (0.5, 0.01);
        // The rod along local Y; the edge along X, 4 mm above the axis at its middle.
        let (a, b) = (Vec3::new(-0.02, 0.0, 0.004), Vec3::new(0.02, 0.0, 0.004));
        let (da, db) = edge_contact(a, b, a, b, 1.0, 1.0, h, r, (0.0, 0.0)).expect("touching");
        // C = 0.004 − 0.01; each end moves by −C·½/(¼ + ¼)·½ ... = 6 mm at the middle.
        let mid = (a + da).lerp(b + db, 0.5);
        assert!((mid.z - r).abs() < 1e-6 && mid.x.abs() < 1e-6, "{mid}");
        assert!((da - db).length() < 1e-7, "equal masses move equally: {da} {db}");
        // Crossed within the substep: from z = +5 mm to z = −3 mm: back to +z.
        let (a0, b0) = (a + Vec3::Z * 0.001, b + Vec3::Z * 0.001);
        let (a1, b1) = (a - Vec3::Z * 0.007, b - Vec3::Z * 0.007);
        let (da, db) = edge_contact(a0, b0, a1, b1, 1.0, 1.0, h, r, (0.0, 0.0)).expect("crossed");
        assert!(((a1 + da).lerp(b1 + db, 0.5).z - r).abs() < 1e-6);
        // Clear, and touching only at an end.
        assert!(edge_contact(a + Vec3::Z, b + Vec3::Z, a + Vec3::Z, b + Vec3::Z, 1.0, 1.0, h, r, (0.0, 0.0)).is_none());
        let (c, d) = (Vec3::new(0.0, 0.0, 0.005), Vec3::new(0.0, 0.0, 0.05));
        assert!(edge_contact(c, d, c, d, 1.0, 1.0, h, r, (0.0, 0.0)).is_none(), "nearest at the end: the particle's contact");
        // A heavier end (w 0.25 against 1) moves less, and the point still ends on the surface.
        let (da, db) = edge_contact(a, b, a, b, 0.25, 1.0, h, r, (0.0, 0.0)).unwrap();
        assert!(da.length() < db.length());
        assert!(((a + da).lerp(b + db, 0.5).z - r).abs() < 1e-6);
    }

    /// Static friction keeps a point that slid along the rod's surface where it was: the
    /// tangential slip is cancelled (μ_s large), and without friction it is kept.
    #[test]
    fn static_friction_holds_an_edge_on_a_rod() {
        let (h, r) = (0.5, 0.01);
        let (a0, b0) = (Vec3::new(-0.02, 0.0, 0.011), Vec3::new(0.02, 0.0, 0.011));
        // Sinks 3 mm and slides 1 mm along the rod (local Y) in the substep.
        let shift = Vec3::new(0.0, 0.001, -0.003);
        let (a1, b1) = (a0 + shift, b0 + shift);
        let (da, db) = edge_contact(a0, b0, a1, b1, 1.0, 1.0, h, r, (10.0, 10.0)).unwrap();
        let mid = (a1 + da).lerp(b1 + db, 0.5);
        assert!(mid.y.abs() < 1e-6, "slip kept: {mid}");
        let (da, db) = edge_contact(a0, b0, a1, b1, 1.0, 1.0, h, r, (0.0, 0.0)).unwrap();
        assert!(((a1 + da).lerp(b1 + db, 0.5).y - 0.001).abs() < 1e-6);
    }
}
