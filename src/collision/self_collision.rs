//! Self-collision: particle–particle contacts inside one cloth, so that a fold or a pile does not
//! pass through itself.
//!
//! # Constraint
//! Every particle is a sphere of radius r (`ClothParams::self_collision_radius`, default the
//! contact `collision_thickness`): for two particles i, j of the cloth,
//! C = ‖x_i − x_j‖ − 2r ≥ 0 (docs/design.md, "Self-collision"; Macklin et al. 2014, Unified
//! Particle Physics, §5 particle collisions), a hard inequality (α = 0). When a pair overlaps, it
//! is projected as the half-space n₀·(x_i − x_j) − 2r ≥ 0 with n₀ the pair's direction at the
//! substep start (x_prev,i − x_prev,j, normalised), the linearisation collider contacts use too:
//! XPBD moves the two by Δx_i = w_i/(w_i + w_j)·d·n₀, Δx_j = −w_j/(w_i + w_j)·d·n₀ with d = −C the
//! depth. With the current direction instead, a particle that got between two particles of another
//! layer within one substep (2r barely larger than the hole) would be pushed on through it; n₀
//! sends it back to the side it came from. Satisfying the half-space also satisfies C ≥ 0.
//!
//! Pairs whose rest distance is already below 2r (mesh neighbours on a fine mesh) are skipped:
//! the stretch and bending constraints keep them apart, and the inequality would fight their
//! rest state. The rest distance is the Euclidean distance in the mesh as created, so two layers
//! created closer than 2r (front and back of a garment modelled 5 mm apart with r = 5 mm) never
//! collide: keep 2r below the smallest gap between layers of the rest mesh.
//!
//! A particle sphere only stops particles: a layer can pass between the particles of another
//! where their gaps are wider than 2r (on a square grid of spacing s, through the middle of a
//! quad while 2r < s/√2, r < 0.36 s). Just above that, a particle over the middle of a quad is
//! stopped only √((2r)² − s²/2) from the other layer's plane (3 mm for s = 19.4 mm, r = 7 mm) and
//! a pile's pressure ratchets it through (seen in tests/self_collision.rs); with r = 0.5 s it is
//! held s/√2 away. So r ≈ half the edge length is the setting to use.
//!
//! # Broad phase (once per step)
//! Candidate pairs are found once per step and re-tested every iteration of every substep. A pair
//! is kept when ‖x_i − x_j‖ − ‖(v_i − v_j)·Δt‖ < 2r + [`MARGIN_RADII`]·r at the step's start: the
//! two could touch within the step if their predicted relative displacement turned towards each
//! other, with a margin for relative motion that appears during the step (part of the cloth
//! stopped by a collider while the rest falls). Same-layer neighbours move alike, so only pairs
//! near contact or closing fast are kept. To find them, particle i's reach is
//! R_i = r·(1 + [`MARGIN_RADII`]/2) + ‖v_i − v̄‖·Δt (v̄ the cloth's mean velocity; every kept pair
//! has ‖x_i − x_j‖ < R_i + R_j by the triangle inequality). Points are sorted into a spatial hash
//! (`spatial_hash.rs`) with cells twice the mean reach; each pair is looked for by the particle
//! of larger reach (ties: the lower index) in the cells within 2·R_i, so a fast particle finds
//! its pairs without making the cells of all the others large. A particle whose search would
//! cover more cells than the cloth has particles (one flung far faster than the rest) tests every
//! particle instead. Pairs are stored as (i < j), sorted: the same order on every run and every
//! thread count.
//!
//! # Friction (Macklin et al. 2014, §6, eq. 24, two moving particles)
//! After the normal correction, the pair's relative displacement over the substep,
//! Δx_ij = (x_i − x_prev,i) − (x_j − x_prev,j), loses its tangential part Δx⊥ entirely while
//! ‖Δx⊥‖ < μ_s·d (static, d = −C the penetration) and otherwise ‖Δx⊥‖ shrinks by μ_k·d (kinetic);
//! the change is shared as the normal correction, in proportion w_i/(w_i + w_j) and w_j/(w_i + w_j).
//! The same model and code as collider contacts (`contact.rs`), so layers at rest on each other
//! on a slope hold or slide by Coulomb's law.

use super::contact::{Friction, apply_friction};
use super::spatial_hash::SpatialHash;
use glam::Vec3;

/// A pair counts as touching (for [`crate::ClothStats::self_contact_count`]) when its distance is
/// at most 2r·(1 + this fraction).
pub const SELF_TOUCHING_FRACTION: f32 = 0.01;

/// The per-cloth settings of one step's self-collision.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SelfCollisionSettings {
    /// Particle radius r \[m\] (> 0): particles are kept 2r apart.
    pub radius: f32,
    /// (μ_s, μ_k) between layers.
    pub friction: (f32, f32),
}

/// Below this fraction of the current distance, the start direction x_prev,i − x_prev,j is too
/// short to trust and the current direction is used.
const MIN_DIRECTION: f32 = 1e-3;

/// Broad-phase margin in radii: a pair is kept when its distance minus its predicted relative
/// travel over the step is below 2r + this × r. It covers relative motion that appears during the step (part of the
/// cloth stopped by a collider while the rest falls: g·Δt²/2 = 1.4 mm at 60 Hz).
pub const MARGIN_RADII: f32 = 1.0;

/// Broad-phase state of one cloth: the hash and this step's candidate pairs (the rest positions
/// for the rest-distance exclusion are the cloth's, passed in). The hash and the pair list are allocated when self-collision
/// is switched on (cloth creation or `set_params`), never while stepping; the pair list grows
/// (amortised) only if a step finds more than [`RESERVED_PAIRS_PER_PARTICLE`] pairs per particle.
#[derive(Clone, Debug, Default)]
pub(crate) struct SelfCollision {
    hash: SpatialHash,
    /// Broad-phase reach R_i of each particle this step \[m\].
    reach: Vec<f32>,
    /// Candidate pairs (i < j), sorted.
    pairs: Vec<[u32; 2]>,
}

/// Candidate pairs per particle reserved when self-collision is switched on: with r = half the
/// edge length, a particle of a flat sheet keeps its 4 edge neighbours and 4 diagonal ones
/// (rest 2r and 2.8r, within 2r + r) and owns half of them; the fold test peaks at 17 per
/// particle while its layers swing together.
pub const RESERVED_PAIRS_PER_PARTICLE: usize = 24;

impl SelfCollision {
    /// Allocate the hash and the pair list for `n` particles (once; call when self-collision is
    /// switched on).
    pub fn prepare(&mut self, n: usize) {
        if self.reach.len() != n {
            if self.reach.capacity() >= n && self.hash.can_hold(n) {
                // A torn cloth grown within the room it reserved (`reserve`).
                self.hash.set_point_count(n);
                self.reach.resize(n, 0.0);
                return;
            }
            self.hash = SpatialHash::new(n);
            self.reach = vec![0.0; n];
            self.pairs.reserve(n * RESERVED_PAIRS_PER_PARTICLE);
        }
    }

    /// [`Self::prepare`] for `n` particles if self-collision was prepared before (a cloth that grew
    /// by a cut); nothing otherwise.
    pub fn prepare_if_on(&mut self, n: usize) {
        if !self.reach.is_empty() {
            self.prepare(n);
        }
    }

    /// Room for up to `max` particles (a tearable cloth), so that [`Self::prepare`] for a count
    /// up to it allocates nothing. Allocates the hash for `max` points.
    pub fn reserve(&mut self, n: usize, max: usize) {
        self.hash = SpatialHash::with_room(n, max);
        self.reach.clear();
        self.reach.reserve(max);
        self.reach.resize(n, 0.0);
        self.pairs.reserve((max * RESERVED_PAIRS_PER_PARTICLE).saturating_sub(self.pairs.len()));
    }

    /// Candidate pairs of the current step.
    pub fn pairs(&self) -> &[[u32; 2]] {
        &self.pairs
    }

    /// At the start of a step: find the candidate pairs with `settings`, or forget them when
    /// self-collision is off (`None`). `rest`: the particles' positions as created \[m\].
    #[allow(clippy::too_many_arguments)]
    pub fn begin_step(&mut self, x: &[Vec3], v: &[Vec3], w: &[f32], rest: &[Vec3], dt: f32, settings: Option<SelfCollisionSettings>) {
        match settings {
            Some(s) => self.find_pairs(x, v, w, rest, dt, s.radius),
            None => self.pairs.clear(),
        }
    }

    /// The broad phase (module docs): candidate pairs for a step of `dt` \[s\] that starts with
    /// positions `x` \[m\], velocities `v` \[m/s\] and inverse masses `w`. Pairs of two particles with
    /// w = 0 and pairs closer than 2r at `rest` (the positions as created \[m\]) are left out.
    pub fn find_pairs(&mut self, x: &[Vec3], v: &[Vec3], w: &[f32], rest: &[Vec3], dt: f32, radius: f32) {
        self.pairs.clear();
        let n = x.len();
        self.prepare(n); // no-op once prepared (the cloth does it when the setting is switched on)
        if n < 2 {
            return;
        }
        let mean_v = v.iter().copied().fold(Vec3::ZERO, |a, b| a + b) / n as f32;
        let base = (1.0 + 0.5 * MARGIN_RADII) * radius;
        let mut reach_sum = 0.0f32;
        for (reach, v) in self.reach.iter_mut().zip(v) {
            *reach = base + (*v - mean_v).length() * dt;
            reach_sum += *reach;
        }
        let cell = 2.0 * reach_sum / n as f32;
        if !(cell.is_finite() && cell > 0.0) {
            return; // the cloth has blown up (non-finite velocities): nothing sensible to find
        }
        self.hash.build(x, cell);
        let min_rest2 = (2.0 * radius) * (2.0 * radius);
        let keep = 2.0 * radius + MARGIN_RADII * radius;
        let (reach, pairs) = (&self.reach, &mut self.pairs);
        for i in 0..n {
            let ri = reach[i];
            let mut consider = |j: u32| {
                let ju = j as usize;
                // Owner rule: the particle of larger reach (ties: lower index) records the pair.
                let owns = ri > reach[ju] || (ri == reach[ju] && i < ju);
                if !owns || (w[i] == 0.0 && w[ju] == 0.0) {
                    return;
                }
                let limit = ri + reach[ju];
                if x[i].distance_squared(x[ju]) < limit * limit
                    && x[i].distance(x[ju]) - ((v[i] - v[ju]) * dt).length() < keep
                    && rest[i].distance_squared(rest[ju]) >= min_rest2
                {
                    pairs.push(if i < ju { [i as u32, j] } else { [j, i as u32] });
                }
            };
            if !self.hash.for_each_within(x[i], 2.0 * ri, &mut consider) {
                (0..n as u32).for_each(consider);
            }
        }
        self.pairs.sort_unstable();
    }

    /// One Gauss–Seidel sweep over the candidate pairs, in their sorted order: push apart every
    /// pair closer than 2r, then apply `settings`' friction if `friction` is on (module docs).
    /// `x_prev` are the positions at the start of the substep.
    pub fn solve(&self, x: &mut [Vec3], x_prev: &[Vec3], w: &[f32], settings: &SelfCollisionSettings, friction: Friction) {
        let mu = friction.coefficients(settings.friction);
        let diameter = 2.0 * settings.radius;
        for &[i, j] in &self.pairs {
            let (i, j) = (i as usize, j as usize);
            let delta = x[i] - x[j];
            let distance2 = delta.length_squared();
            let w_sum = w[i] + w[j];
            if distance2 >= diameter * diameter || w_sum <= 0.0 {
                continue;
            }
            // The half-space n₀·(x_i − x_j) ≥ 2r with n₀ the pair's direction at the substep start
            // (module docs): pushes keep each particle on the side it came from.
            let start = x_prev[i] - x_prev[j];
            let normal = if start.length_squared() > MIN_DIRECTION * MIN_DIRECTION * distance2 {
                start.normalize()
            } else {
                delta / distance2.sqrt()
            };
            let depth = diameter - normal.dot(delta);
            if !depth.is_finite() || depth <= 0.0 {
                continue; // coincident particles give NaN: no direction, skip (design.md, "The XPBD update")
            }
            let moved = (x[i] - x_prev[i]) - (x[j] - x_prev[j]) + normal * depth;
            let slip = apply_friction(moved, normal, depth, mu);
            // The normal push plus the tangential slip friction removes, shared by inverse mass.
            let correction = normal * depth + (slip - moved);
            x[i] += correction * (w[i] / w_sum);
            x[j] -= correction * (w[j] / w_sum);
        }
    }

    /// Pairs touching at the end of a step: distance ≤ 2r·(1 + [`SELF_TOUCHING_FRACTION`]).
    pub fn contact_count(&self, x: &[Vec3], radius: f32) -> u32 {
        let touching = 2.0 * radius * (1.0 + SELF_TOUCHING_FRACTION);
        let t2 = touching * touching;
        self.pairs
            .iter()
            .filter(|&&[i, j]| x[i as usize].distance_squared(x[j as usize]) <= t2)
            .count() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SETTINGS: SelfCollisionSettings = SelfCollisionSettings { radius: 0.01, friction: (0.0, 0.0) };

    #[test]
    fn overlapping_pair_is_pushed_to_two_radii_in_inverse_mass_proportion() {
        // Rest: 1 m apart (not excluded). Now 1.5 cm apart along x, r = 1 cm: depth 5 mm.
        let rest = [Vec3::ZERO, Vec3::X];
        let mut sc = SelfCollision::default();
        let mut x = [Vec3::ZERO, Vec3::new(0.015, 0.0, 0.0)];
        let w = [1.0, 3.0];
        sc.find_pairs(&x, &[Vec3::ZERO; 2], &w, &rest, 1.0 / 60.0, SETTINGS.radius);
        assert_eq!(sc.pairs(), &[[0, 1]]);
        let x_prev = x;
        sc.solve(&mut x, &x_prev, &w, &SETTINGS, Friction::On);
        assert!((x[1].x - x[0].x - 0.02).abs() < 1e-7, "{x:?}");
        // Particle 1 is three times lighter: it moves three quarters of the 5 mm.
        assert!((x[0].x + 0.00125).abs() < 1e-7 && (x[1].x - 0.01875).abs() < 1e-7, "{x:?}");
        assert_eq!(sc.contact_count(&x, SETTINGS.radius), 1);
    }

    #[test]
    fn particle_that_passed_between_two_others_is_pushed_back_to_its_side() {
        // Particles 0 and 1 are 1.6 cm apart on the x axis; particle 2 came down from 1 cm above
        // their midpoint to 1 mm below it in one substep (r = 1 cm). Pushing along the current
        // directions would send it on downwards; the start directions send it back up.
        let rest = [Vec3::new(-0.008, 0.0, 0.0), Vec3::new(0.008, 0.0, 0.0), Vec3::new(0.0, 1.0, 0.0)];
        let mut sc = SelfCollision::default();
        let x_prev = [rest[0], rest[1], Vec3::new(0.0, 0.01, 0.0)];
        sc.find_pairs(&x_prev, &[Vec3::ZERO; 3], &[0.0, 0.0, 1.0], &rest, 1.0 / 60.0, SETTINGS.radius);
        assert_eq!(sc.pairs(), &[[0, 2], [1, 2]]);
        let mut x = [rest[0], rest[1], Vec3::new(0.0, -0.001, 0.0)];
        for _ in 0..4 {
            sc.solve(&mut x, &x_prev, &[0.0, 0.0, 1.0], &SETTINGS, Friction::On);
        }
        assert!(x[2].y > 0.0, "pushed through: {}", x[2]);
        assert!(x[2].distance(x[0]) >= 0.02 - 1e-6 && x[2].distance(x[1]) >= 0.02 - 1e-6, "{x:?}");
    }

    #[test]
    fn pairs_closer_than_two_radii_at_rest_are_never_candidates() {
        let rest = [Vec3::ZERO, Vec3::new(0.015, 0.0, 0.0)];
        let mut sc = SelfCollision::default();
        sc.find_pairs(&rest, &[Vec3::ZERO; 2], &[1.0; 2], &rest, 1.0 / 60.0, SETTINGS.radius);
        assert!(sc.pairs().is_empty());
    }

    /// Solve one pair from `start` after particle 1 moved by `motion`; returns (tangential part
    /// of the relative motion before, after, penetration depth before).
    fn slide(motion: Vec3, mu: (f32, f32), friction: Friction) -> (f32, f32, f32) {
        let rest = [Vec3::ZERO, Vec3::X];
        let mut sc = SelfCollision::default();
        let start = [Vec3::ZERO, Vec3::new(0.0, 0.0205, 0.0)];
        sc.find_pairs(&start, &[Vec3::ZERO; 2], &[1.0; 2], &rest, 1.0 / 60.0, SETTINGS.radius);
        let mut x = [start[0], start[1] + motion];
        let normal = Vec3::Y; // the pair's direction at the substep start
        let depth = 0.02 - normal.dot(x[1] - x[0]);
        let tangential = |d: Vec3| (d - normal * normal.dot(d)).length();
        sc.solve(&mut x, &start, &[1.0; 2], &SelfCollisionSettings { friction: mu, ..SETTINGS }, friction);
        assert!((normal.dot(x[1] - x[0]) - 0.02).abs() < 1e-6, "not pushed to 2r: {x:?}");
        (tangential(motion), tangential((x[1] - x[0]) - (start[1] - start[0])), depth)
    }

    #[test]
    fn static_friction_holds_a_slow_slip_and_kinetic_friction_slows_a_fast_one() {
        // Down 1 mm (depth ≈ 0.5 mm), 0.1 mm sideways: below μ_s·d ≈ 0.24 mm, held.
        let (before, after, depth) = slide(Vec3::new(1e-4, -1e-3, 0.0), (0.5, 0.4), Friction::On);
        assert!(before > 9e-5 && after < 1e-8, "static friction left {after} of {before}");
        // 1 mm sideways: slides, the slip shrinks by μ_k·d.
        let (before, after, depth_k) = slide(Vec3::new(1e-3, -1e-3, 0.0), (0.5, 0.4), Friction::On);
        assert!((after - (before - 0.4 * depth_k)).abs() < 1e-7, "{after} vs {before} − 0.4·{depth_k}");
        assert!((depth - 5e-4).abs() < 1e-6 && (depth_k - 5e-4).abs() < 1e-6);
        // Without friction the slip is untouched: coefficients 0, or friction off (the strain
        // limit's re-projection) whatever the coefficients.
        for (mu, friction) in [((0.0, 0.0), Friction::On), ((0.5, 0.4), Friction::Off)] {
            for motion in [Vec3::new(1e-4, -1e-3, 0.0), Vec3::new(1e-3, -1e-3, 0.0)] {
                let (before, after, _) = slide(motion, mu, friction);
                assert!((after - before).abs() < 1e-7, "{mu:?} {friction:?}: {after} of {before}");
            }
        }
    }

    #[test]
    fn fast_particle_finds_its_pairs_without_growing_every_cell() {
        // A row of slow particles 5 cm apart and one particle approaching at 30 m/s from 40 cm.
        let mut rest: Vec<Vec3> = (0..20).map(|k| Vec3::new(0.05 * k as f32, 0.0, 0.0)).collect();
        rest.push(Vec3::new(0.5, 0.4, 0.0));
        let mut v = vec![Vec3::ZERO; rest.len()];
        v[20] = Vec3::new(0.0, -30.0, 0.0);
        let mut sc = SelfCollision::default();
        sc.find_pairs(&rest, &v, &[1.0; 21], &rest, 1.0 / 60.0, SETTINGS.radius);
        // Brute force over every pair: distance − relative travel < 2r + margin. The fast one
        // (0.5 m of travel) pairs with every slow particle within 0.53 m; the slow ones, 5 cm
        // apart, with none.
        let mut expected = Vec::new();
        let keep = (2.0 + MARGIN_RADII) * SETTINGS.radius;
        for i in 0..21u32 {
            for j in i + 1..21 {
                let (a, b) = (i as usize, j as usize);
                if rest[a].distance(rest[b]) - ((v[a] - v[b]) / 60.0).length() < keep {
                    expected.push([i, j]);
                }
            }
        }
        assert!(expected.iter().filter(|p| p[1] == 20).count() >= 10, "{expected:?}");
        assert_eq!(sc.pairs(), &expected[..]);
    }
}
