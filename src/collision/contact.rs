//! Contacts between cloth particles and colliders: detection by a swept test of each particle's
//! substep motion, projection of the contact inequality, and position-level friction.
//!
//! Everything is computed in the collider's local frame, so a moving collider is handled by the
//! same code as a static one: a particle's substep motion relative to the collider is the local
//! segment p₀ → p₁ with p₀ = its start position in the collider's frame at the substep's
//! beginning and p₁ = its current position in the frame at the substep's end (see `store.rs`).
//!
//! # Contact constraint
//! C(x) = d(p) − thickness ≥ 0, ∇C = n(p), with d the shape's signed distance and n its outward
//! normal (DESIGN §2). The collider has infinite mass, so with α = 0 XPBD gives Δλ = −C/w and the
//! particle alone moves by Δx = −C·n. Contacts are projected in every iteration, after the cloth's
//! own constraints, so every step ends with its contacts satisfied.
//!
//! # No tunnelling: first contact along the substep segment
//! A distance test at p₁ alone misses a collider the particle crossed within the substep (a 1 cm
//! board passed at 20 m/s moves 8 cm per 240 Hz substep), and pushes a particle that went past
//! the middle of a thin shape out through the far side. So once per substep, before the
//! iterations, each particle's segment p₀ → p₁ is marched against every collider. Every shape is
//! convex, so the gap g(t) = d(p₀ + t·(p₁ − p₀)) − thickness is a convex function of t, and the
//! tangent line at t_k lies below it: from g(t_k) > 0 with slope g′ = n·(p₁ − p₀) < 0, the Newton
//! step t_k + g/(−g′) never passes the first root (and, since |n| = 1, it is never shorter than
//! the sphere-tracing step g/|p₁ − p₀|); a slope ≥ 0 proves that the gap never falls again, so
//! there is no hit. The march stops at the first point whose gap is below [`SWEEP_TOLERANCE`].
//! The earliest hit over all colliders becomes the particle's contact for the substep,
//! linearised there: the half-space n_hit · (p − q_hit) ≥ 0, with q_hit the hit point on the
//! thickened surface. The whole thickened shape lies behind this plane (convexity again), so
//! satisfying it keeps the particle out of the shape on the side it came from, whatever its
//! speed. A march still short of the surface after [`MAX_SWEEP_STEPS`] (a segment touching the
//! surface tangentially) takes the tangent plane at its current point, conservative for the same
//! reason. The relative motion is exact for translating colliders; for rotating ones the local
//! segment is the chord of the particle's arc (error ≤ r·(1 − cos(θ/2)) for a turn θ per
//! substep at distance r).
//!
//! # Particles inside: bounded push-out
//! A particle that starts a substep deeper than the bound b = `max_depenetration_speed` · h inside
//! the thickened shape (spawned inside, or a collider teleported onto it) is not given a swept
//! contact. Its contact uses d(p) directly, towards the nearest surface, but may only gain b of
//! gap per substep: the constraint becomes d(p) − thickness ≥ min(0, gap₀ + b), gap₀ its gap at
//! the substep start. Its separation speed from the collider is therefore at most
//! `max_depenetration_speed` (plus what gravity and its neighbours add), instead of
//! depth / h (a 10 cm overlap would otherwise launch it at 60 m/s at 600 Hz substeps).
//! A particle within b of the surface is treated as on it (swept contact at time 0): pushing it
//! fully out cannot exceed the bound.
//!
//! # Friction (Macklin, Müller, Chentanez & Kim 2014, Unified Particle Physics, §6, eq. 24)
//! After a contact moves a particle by depth d = −C, its slip relative to the collider over the
//! substep, Δx⊥ = tangential part of (p − p₀) (local frame, so the collider's own motion is
//! subtracted and a moving collider carries what lies on it), is cancelled when
//! |Δx⊥| < μ_s·d (static) and otherwise reduced by μ_k·d: Δx = −Δx⊥·min(μ_k·d/|Δx⊥|, 1).
//! With d = g·cos θ·h² for a particle at rest on a slope this is Coulomb's law: it sticks while
//! tan θ < μ_s and slides with acceleration g·(sin θ − μ_k·cos θ).

use super::shape::Shape;
use super::store::{ColliderStore, SubstepWindow};
use glam::Vec3;

/// A march stops when the gap to the thickened surface is below this [m].
pub const SWEEP_TOLERANCE: f32 = 1e-6;

/// Newton steps before a march settles for the tangent plane at its current point.
pub const MAX_SWEEP_STEPS: u32 = 24;

/// A particle counts as touching a collider (for [`crate::ClothStats::contact_count`]) when its
/// gap d − thickness is at most this fraction of the thickness plus [`SWEEP_TOLERANCE`].
pub const TOUCHING_FRACTION: f32 = 0.01;

const NO_CONTACT: u32 = u32::MAX;

/// The per-cloth settings the contact code needs for one substep.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactSettings {
    /// Contact thickness [m]: particles are kept this far from every surface.
    pub thickness: f32,
    /// Collision mask: colliders whose layers do not intersect it are ignored.
    pub mask: u32,
    /// Largest gain of gap per substep for a particle that starts inside [m] (speed × h).
    pub max_depenetration: f32,
}

/// Where the segment p₀ → p₁ first reaches the thickened surface (local frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SweptHit {
    /// Fraction of the segment, in [0, 1).
    pub time: f32,
    /// Point on the thickened surface [m].
    pub point: Vec3,
    /// Outward unit normal there.
    pub normal: Vec3,
}

/// March p₀ → p₁ against `shape` thickened by `thickness` (module docs). `None` when the segment
/// stays outside, or when p₀ is deeper inside than `rest_band` (bounded push-out handles it).
pub(crate) fn sweep(shape: &Shape, p0: Vec3, p1: Vec3, thickness: f32, rest_band: f32) -> Option<SweptHit> {
    let (d0, n0) = shape.distance(p0);
    let gap0 = d0 - thickness;
    if gap0 < -rest_band {
        return None;
    }
    let hit = |time: f32, q: Vec3, gap: f32, normal: Vec3| SweptHit { time, point: q - normal * gap, normal };
    if gap0 <= SWEEP_TOLERANCE {
        return Some(hit(0.0, p0, gap0, n0));
    }
    let segment = p1 - p0;
    let (mut time, mut gap, mut q, mut normal) = (0.0f32, gap0, p0, n0);
    for _ in 0..MAX_SWEEP_STEPS {
        let slope = normal.dot(segment);
        if slope >= 0.0 {
            return None; // convex gap, not decreasing: it stays > 0 for the rest of the segment
        }
        time += gap / -slope;
        if time >= 1.0 {
            return None;
        }
        q = p0 + segment * time;
        let (d, n) = shape.distance(q);
        (gap, normal) = (d - thickness, n);
        if gap <= SWEEP_TOLERANCE {
            break;
        }
    }
    Some(hit(time, q, gap, normal))
}

/// Macklin et al. 2014, §6, eq. 24 with an infinitely heavy collider: cancel (static) or reduce
/// by μ_k·depth (kinetic) the tangential slip p − p_prev, all in the collider's local frame.
#[inline]
fn apply_friction(p: Vec3, p_prev: Vec3, normal: Vec3, depth: f32, (mu_s, mu_k): (f32, f32)) -> Vec3 {
    let slip = p - p_prev;
    let tangential = slip - normal * normal.dot(slip);
    let length = tangential.length();
    if length < mu_s * depth {
        p - tangential
    } else if length > 0.0 {
        p - tangential * (mu_k * depth / length).min(1.0)
    } else {
        p
    }
}

/// Each particle's first swept contact of the current substep (structure-of-arrays, allocated
/// with the cloth, so stepping allocates nothing).
#[derive(Clone, Debug, Default)]
pub(crate) struct SweptContacts {
    /// Collider slot index, or `NO_CONTACT`.
    collider: Vec<u32>,
    time: Vec<f32>,
    /// Hit point on the thickened surface, collider-local [m].
    point: Vec<Vec3>,
    /// Outward normal at the hit, collider-local.
    normal: Vec<Vec3>,
}

impl SweptContacts {
    pub fn new(particle_count: usize) -> Self {
        SweptContacts {
            collider: vec![NO_CONTACT; particle_count],
            time: vec![0.0; particle_count],
            point: vec![Vec3::ZERO; particle_count],
            normal: vec![Vec3::ZERO; particle_count],
        }
    }

    /// Find each free particle's earliest hit along x_prev → x (predicted) over all colliders in
    /// `settings.mask`, colliders moving as `window` says.
    pub fn detect(
        &mut self,
        x_prev: &[Vec3],
        x: &[Vec3],
        w: &[f32],
        colliders: &ColliderStore,
        window: SubstepWindow,
        settings: &ContactSettings,
    ) {
        self.collider.fill(NO_CONTACT);
        for (slot, collider) in colliders.iter() {
            if collider.layers() & settings.mask == 0 {
                continue;
            }
            let (begin, end) = collider.substep_frames(window);
            for i in 0..x.len() {
                if w[i] == 0.0 {
                    continue;
                }
                let (p0, p1) = (begin.to_local(x_prev[i]), end.to_local(x[i]));
                let band = settings.max_depenetration;
                let Some(hit) = sweep(&collider.shape, p0, p1, settings.thickness, band) else {
                    continue;
                };
                if self.collider[i] == NO_CONTACT || hit.time < self.time[i] {
                    self.collider[i] = slot;
                    self.time[i] = hit.time;
                    self.point[i] = hit.point;
                    self.normal[i] = hit.normal;
                }
            }
        }
    }

    /// One Gauss–Seidel sweep over all (collider, particle) pairs: project violated contacts
    /// (the swept half-space where one was found, else d − thickness with the push-out bound),
    /// then friction.
    pub fn solve(
        &self,
        x: &mut [Vec3],
        x_prev: &[Vec3],
        w: &[f32],
        colliders: &ColliderStore,
        window: SubstepWindow,
        settings: &ContactSettings,
    ) {
        for (slot, collider) in colliders.iter() {
            if collider.layers() & settings.mask == 0 {
                continue;
            }
            let (begin, end) = collider.substep_frames(window);
            let friction = collider.friction();
            for i in 0..x.len() {
                if w[i] == 0.0 {
                    continue;
                }
                let p = end.to_local(x[i]);
                let p_prev = begin.to_local(x_prev[i]);
                let (c, normal) = if self.collider[i] == slot {
                    (self.normal[i].dot(p - self.point[i]), self.normal[i])
                } else {
                    let (d, normal) = collider.shape.distance(p);
                    let gap = d - settings.thickness;
                    if gap >= 0.0 {
                        continue;
                    }
                    let gap0 = collider.shape.distance(p_prev).0 - settings.thickness;
                    (gap - (gap0 + settings.max_depenetration).min(0.0), normal)
                };
                if c >= 0.0 {
                    continue;
                }
                let pushed = p - normal * c;
                x[i] = end.to_world(apply_friction(pushed, p_prev, normal, -c, friction));
            }
        }
    }
}

/// Contacts at the end of a step (colliders at their target poses): the number of
/// (free particle, collider) pairs touching (gap ≤ [`TOUCHING_FRACTION`]·thickness + tolerance)
/// and the largest penetration max(0, thickness − d) [m].
pub(crate) fn contact_summary(
    x: &[Vec3],
    w: &[f32],
    colliders: &ColliderStore,
    settings: &ContactSettings,
) -> (u32, f32) {
    let touching = TOUCHING_FRACTION * settings.thickness + SWEEP_TOLERANCE;
    let (mut count, mut max_penetration) = (0u32, 0.0f32);
    for (_, collider) in colliders.iter() {
        if collider.layers() & settings.mask == 0 {
            continue;
        }
        let end = collider.frame_at(1.0);
        for i in 0..x.len() {
            if w[i] == 0.0 {
                continue;
            }
            let gap = collider.shape.distance(end.to_local(x[i])).0 - settings.thickness;
            count += (gap <= touching) as u32;
            max_penetration = max_penetration.max(-gap);
        }
    }
    (count, max_penetration)
}

#[cfg(test)]
mod tests {
    use super::*;

    const THIN_BOARD: Shape = Shape::Box { half_extents: Vec3::new(0.5, 0.005, 0.5), rounding: 0.0 };

    #[test]
    fn segment_through_a_thin_board_hits_its_near_face() {
        // 8 cm downwards through a 1 cm board, thickness 5 mm: first contact 10 mm above the
        // board's centre, i.e. at (0.05 − 0.01)/0.08 = half the segment.
        let hit = sweep(&THIN_BOARD, Vec3::new(0.1, 0.05, 0.0), Vec3::new(0.1, -0.03, 0.0), 0.005, 1e-3).unwrap();
        assert!((hit.time - 0.5).abs() < 1e-4, "{hit:?}");
        assert!((hit.point - Vec3::new(0.1, 0.01, 0.0)).length() < 1e-5);
        assert_eq!(hit.normal, Vec3::Y);
        // The end point alone would be pushed out of the far face.
        assert_eq!(THIN_BOARD.distance(Vec3::new(0.1, -0.003, 0.0)).1, -Vec3::Y);
    }

    #[test]
    fn segment_passing_beside_a_sphere_has_no_hit() {
        let ball = Shape::Sphere { radius: 0.1 };
        let miss = |y: f32| sweep(&ball, Vec3::new(-1.0, y, 0.0), Vec3::new(1.0, y, 0.0), 0.01, 1e-3);
        assert_eq!(miss(0.2), None);
        // 0.1 mm clear of the thickened sphere (radius 0.11 m) while passing its top.
        assert_eq!(miss(0.1101), None);
        // Moving away from it.
        assert_eq!(sweep(&ball, Vec3::new(0.0, 0.2, 0.0), Vec3::new(0.0, 0.3, 0.0), 0.01, 1e-3), None);
        // A head-on segment finds the pole, from either side.
        let hit = sweep(&ball, Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, -1.0, 0.0), 0.01, 1e-3).unwrap();
        assert!((hit.point - Vec3::new(0.0, 0.11, 0.0)).length() < 2e-6, "{hit:?}");
        assert!((hit.time - 0.445).abs() < 1e-5);
    }

    #[test]
    fn friction_sticks_below_static_limit_and_slides_by_kinetic_amount() {
        let (p_prev, n) = (Vec3::ZERO, Vec3::Y);
        // Slip 0.3 mm, depth 1 mm: sticks with μ_s = 0.5.
        let p = Vec3::new(3e-4, 0.0, 0.0);
        assert_eq!(apply_friction(p, p_prev, n, 1e-3, (0.5, 0.4)), Vec3::ZERO);
        // μ_s = 0.2: slides, slip reduced by μ_k·d = 0.1 mm.
        let q = apply_friction(p, p_prev, n, 1e-3, (0.2, 0.1));
        assert!((q.x - 2e-4).abs() < 1e-9, "{q}");
    }
}
