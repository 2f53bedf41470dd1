//! Inter-cloth collision: particles of different cloths of one world kept r_a + r_b apart, for
//! cloths with `ClothParams::inter_cloth_collision` on (each with its self-collision radius and
//! friction, see `self_collision.rs`).
//!
//! Cloths step in parallel, each on its own particles, so a cloth cannot move another's. Before
//! the step the world takes a snapshot of every participating cloth's particles (positions,
//! velocities, radii; `InterClothSnapshot`, in slot order, one thread) and hashes
//! it. Each cloth then finds, once per step, its pairs with the other cloths' particles (the
//! criterion of `self_collision.rs`: distance minus predicted relative travel below
//! (r_a + r_b)·(1 + `MARGIN_RADII`/2)) and, every iteration of every substep, treats the other
//! particle as moving on its predicted path y(t) = y₀ + v·t (t from the step's start; no gravity,
//! see `InterClothSnapshot::at`).
//! An overlap is projected on the half-space along the pair's direction at the substep start,
//! friction as for self-collision, and this cloth's particle takes the full depth, as if the
//! other were fixed; the other cloth does the same from its side. That is exact when the other
//! particle rests on something (a cloth lying on another that lies on the floor, a garment
//! pressed against a body): sharing the depth by inverse mass instead, the collider under the
//! lower cloth undid its share and two stacked sheets settled closer than r_a + r_b
//! (docs/dev/performance-log.md, "2026-11-29 — Self-collision and inter-cloth collision as
//! tested"; docs/design.md, "Inter-cloth collision"). The price is when both move
//! freely into each other: together they separate up to twice the depth per substep, a bounce
//! where the mass-weighted share would be inelastic. Each step reads only the snapshot: the
//! result does not depend on the thread count or on which cloth steps first. A prediction is
//! only as good as the step is short: cloths that hit each other hard see each other where they
//! would have been.

use super::contact::{Friction, apply_friction};
use super::self_collision::{MARGIN_RADII, SelfCollisionSettings};
use super::spatial_hash::SpatialHash;
use glam::Vec3;

/// The participating cloths' particles at the start of a step (owned by the world, reused).
#[derive(Clone, Debug, Default)]
pub(crate) struct InterClothSnapshot {
    /// Positions \[m\], velocities \[m/s\], radii \[m\], owner key per particle.
    pub x: Vec<Vec3>,
    pub v: Vec<Vec3>,
    pub radius: Vec<f32>,
    pub owner: Vec<u32>,
    /// Largest reach of any snapshot particle this step \[m\] (for the queries).
    pub max_reach: f32,
    /// Mean velocity of the snapshot's particles \[m/s\] (reaches are relative to it).
    pub mean_v: Vec3,
    /// Step length \[s\] of the last build.
    pub dt: f32,
    hash: SpatialHash,
    hashed_count: usize,
}

impl InterClothSnapshot {
    /// Forget the last step's particles (keeps the buffers).
    pub fn clear(&mut self) {
        self.x.clear();
        self.v.clear();
        self.radius.clear();
        self.owner.clear();
    }

    /// Append one cloth's particles under `owner`.
    pub fn push_cloth(&mut self, owner: u32, x: &[Vec3], v: &[Vec3], radius: f32) {
        self.x.extend_from_slice(x);
        self.v.extend_from_slice(v);
        self.radius.extend(std::iter::repeat_n(radius, x.len()));
        self.owner.extend(std::iter::repeat_n(owner, x.len()));
    }

    /// Hash the particles for a step of `dt` \[s\] (cells sized by the largest reach).
    pub fn build(&mut self, dt: f32) {
        let n = self.x.len();
        if n == 0 {
            return;
        }
        let mean_v = self.v.iter().copied().fold(Vec3::ZERO, |a, b| a + b) / n as f32;
        (self.mean_v, self.dt) = (mean_v, dt);
        let mut max_reach = 0.0f32;
        let mut sum = 0.0f32;
        for k in 0..n {
            let reach = self.reach(self.radius[k], self.v[k]);
            max_reach = max_reach.max(reach);
            sum += reach;
        }
        self.max_reach = max_reach;
        if self.hashed_count != n {
            self.hash = SpatialHash::new(n);
            self.hashed_count = n;
        }
        let cell = 2.0 * sum / n as f32;
        if cell.is_finite() && cell > 0.0 {
            self.hash.build(&self.x, cell);
        }
    }

    /// Broad-phase reach \[m\] of a particle of radius `radius` and velocity `v`: every kept pair
    /// is closer than the sum of its two reaches (see `self_collision.rs`).
    #[inline]
    fn reach(&self, radius: f32, v: Vec3) -> f32 {
        radius * (1.0 + 0.5 * MARGIN_RADII) + (v - self.mean_v).length() * self.dt
    }

    /// Predicted position of snapshot particle `k` at time `t` \[s\] after the step's start: its
    /// start velocity, no gravity. Gravity would be right for free fall, but a cloth at rest on
    /// a collider or on another cloth does not accelerate, and predicting it 1.4 mm lower per
    /// 60 Hz step lets whatever lies on it sink by that much (docs/dev/performance-log.md,
    /// "2026-11-29 — Self-collision and inter-cloth collision as tested"). Two cloths falling
    /// together only err on the safe side.
    #[inline]
    fn at(&self, k: usize, t: f32) -> Vec3 {
        self.x[k] + self.v[k] * t
    }
}

/// One cloth's pairs with other cloths' particles for the current step.
#[derive(Clone, Debug, Default)]
pub(crate) struct InterClothPairs {
    /// (own particle, snapshot index), sorted.
    pairs: Vec<[u32; 2]>,
}

impl InterClothPairs {
    /// Candidate pairs of the step.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// At the start of a step: find this cloth's (`owner`; its particles' positions `x` \[m\],
    /// velocities `v` \[m/s\] and inverse masses `w` \[1/kg\], one per particle; particle radius
    /// \[m\]) pairs with the other cloths' particles in `snapshot` (module docs), or forget them
    /// (`None`: inter-cloth collision off or fewer than two cloths taking part).
    #[allow(clippy::too_many_arguments)]
    pub fn begin_step(&mut self, snapshot: Option<&InterClothSnapshot>, owner: u32, x: &[Vec3], v: &[Vec3], w: &[f32], radius: f32, dt: f32) {
        self.pairs.clear();
        let Some(snapshot) = snapshot else { return };
        if snapshot.x.is_empty() || snapshot.hashed_count != snapshot.x.len() {
            return;
        }
        for i in 0..x.len() {
            if w[i] == 0.0 {
                continue;
            }
            let search = snapshot.reach(radius, v[i]) + snapshot.max_reach;
            let mut consider = |k: u32| {
                let ku = k as usize;
                if snapshot.owner[ku] == owner {
                    return;
                }
                let keep = (radius + snapshot.radius[ku]) * (1.0 + 0.5 * MARGIN_RADII);
                let travel = ((v[i] - snapshot.v[ku]) * dt).length();
                if x[i].distance(snapshot.x[ku]) - travel < keep {
                    self.pairs.push([i as u32, k]);
                }
            };
            if !snapshot.hash.for_each_within(x[i], search, &mut consider) {
                (0..snapshot.x.len() as u32).for_each(&mut consider);
            }
        }
        self.pairs.sort_unstable();
    }

    /// One Gauss–Seidel sweep over the pairs for the substep (`t0`, `t1`) [s after the step's
    /// start]: push this cloth's particle (positions `x`, substep-start positions `x_prev` \[m\],
    /// inverse masses `w`) out of the other's predicted sphere by the full depth, then friction
    /// (`settings`' coefficients, if `friction` is on) on the relative slip.
    #[allow(clippy::too_many_arguments)]
    pub fn solve(&self, snapshot: &InterClothSnapshot, x: &mut [Vec3], x_prev: &[Vec3], w: &[f32], settings: &SelfCollisionSettings, (t0, t1): (f32, f32), friction: Friction) {
        let (radius, friction) = (settings.radius, friction.coefficients(settings.friction));
        for &[i, k] in &self.pairs {
            let (i, k) = (i as usize, k as usize);
            if w[i] == 0.0 {
                continue;
            }
            let (y0, y1) = (snapshot.at(k, t0), snapshot.at(k, t1));
            let diameter = radius + snapshot.radius[k];
            let delta = x[i] - y1;
            if delta.length_squared() >= diameter * diameter {
                continue;
            }
            let start = x_prev[i] - y0;
            let normal = if start.length_squared() > 1e-12 { start.normalize() } else { delta.normalize_or_zero() };
            let depth = diameter - normal.dot(delta);
            if normal == Vec3::ZERO || !depth.is_finite() || depth <= 0.0 {
                continue;
            }
            // Full depth on this side (module docs: the other particle is taken as fixed).
            let moved = (x[i] - x_prev[i]) - (y1 - y0) + normal * depth;
            let slip = apply_friction(moved, normal, depth, friction);
            x[i] += normal * depth + (slip - moved);
        }
    }
}
