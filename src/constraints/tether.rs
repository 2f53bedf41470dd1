//! Tethers (long-range attachments), Kim, Chentanez & Müller 2012, "Long Range Attachments — A
//! Method to Simulate Inextensible Clothing in Computer Games", §3–4.
//!
//! Each free particle i that is connected through the mesh to kinematic (pinned) particles gets one
//! inequality constraint to each of its nearest anchors a along the mesh (up to
//! [`TETHERS_PER_PARTICLE`]):
//!
//! C(x) = ‖x_i − x_a‖ − s·d_geo(i, a) ≤ 0,  ∇_i C = n = (x_i − x_a)/‖x_i − x_a‖
//!
//! where d_geo is the rest shortest-path distance along mesh edges and hinge diagonals (an upper
//! bound of the geodesic distance on flat regions, within a few percent of it) and s ≥ 1 the slack factor. It is projected only while violated, so it never pulls a
//! particle towards its anchor; it only stops the chain of edges from stretching beyond what a
//! one-pass Gauss–Seidel sweep can recover, which is what keeps light, stiff, fine cloth stable.

use super::access::{Positions, SolverParticle};
use super::sweep::{Sweep, sweep};
use super::{MIN_DENOMINATOR, SubstepCoefficients, xpbd_delta_lambda_parts};
use glam::Vec3;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Tethers per free particle: to this many nearest anchors (fewer if the cloth has fewer).
///
/// Measured on the light, stiff, fine cloth (1 kg, stretch α = 0, bending α = 1e-5, two corners
/// pinned, 10 s): with 1 tether, each half of the cloth is held towards its own pin and the edges
/// between the halves take the stretch (128²: 199 % max strain at the end); with 2 (one per corner)
/// 50 %, and every particle exactly inside both bounds (see `finish_pair`); with 4, 30 % but the
/// alternating projections leave particles up to 2 % beyond a bound.
pub const TETHERS_PER_PARTICLE: usize = 2;

/// Consecutive projections of one particle's tether group per sweep (see `solve`).
const GROUP_ROUNDS: usize = 3;

/// All tethers of one cloth, structure-of-arrays, grouped by particle.
#[derive(Clone, Debug, Default)]
pub struct TetherConstraints {
    /// Constrained (free) particle.
    pub particle: Vec<u32>,
    /// Anchor (kinematic) particle.
    pub anchor: Vec<u32>,
    /// Rest geodesic distance d_geo [m] (before the slack factor).
    pub geodesic_distance: Vec<f32>,
    /// Lagrange multiplier λ of the current substep [N·s²].
    pub lambda: Vec<f32>,
}

impl TetherConstraints {
    /// Rebuild the tethers for the current set of kinematic particles (`w == 0`): each free particle
    /// is tied to its [`TETHERS_PER_PARTICLE`] nearest anchors by rest mesh distance (a K-nearest-
    /// sources Dijkstra over the edge graph). More than one anchor matters when pins are far apart
    /// (two corners of a sheet): with only the nearest, each half of the cloth is held towards its
    /// own pin and the edges between the halves take all the stretch. Particles not connected to
    /// any anchor get no tether. Runs when pins change, never per step; deterministic (ties broken
    /// by index).
    ///
    /// `links` and `link_length` [m] describe the rest distance graph (mesh edges, optionally plus
    /// shortcuts such as hinge diagonals); `w` are the inverse masses (anchors have `w == 0`).
    pub fn build(particle_count: usize, links: &[[u32; 2]], link_length: &[f32], w: &[f32]) -> Self {
        const K: usize = TETHERS_PER_PARTICLE;
        // CSR adjacency.
        let mut start = vec![0u32; particle_count + 1];
        for &[i, j] in links {
            start[i as usize + 1] += 1;
            start[j as usize + 1] += 1;
        }
        for k in 0..particle_count {
            start[k + 1] += start[k];
        }
        let mut fill = start.clone();
        let mut neighbour = vec![(0u32, 0.0f32); links.len() * 2];
        for (&[i, j], &l) in links.iter().zip(link_length) {
            neighbour[fill[i as usize] as usize] = (j, l);
            fill[i as usize] += 1;
            neighbour[fill[j as usize] as usize] = (i, l);
            fill[j as usize] += 1;
        }

        // Up to K settled (anchor, distance) labels per particle, in order of distance.
        let mut labels: Vec<Vec<(u32, f64)>> = vec![Vec::new(); particle_count];
        // Heap of (distance bits, particle, anchor): f64 bits of non-negative numbers order like
        // the numbers; ties broken by indices, so the result is deterministic.
        let mut heap = BinaryHeap::new();
        for p in 0..particle_count {
            if w[p] == 0.0 {
                heap.push(Reverse((0u64, p as u32, p as u32)));
            }
        }
        while let Some(Reverse((d_bits, p, anchor))) = heap.pop() {
            let l = &mut labels[p as usize];
            if l.len() >= K || l.iter().any(|&(a, _)| a == anchor) {
                continue;
            }
            let d = f64::from_bits(d_bits);
            l.push((anchor, d));
            for &(q, len) in &neighbour[start[p as usize] as usize..start[p as usize + 1] as usize] {
                let lq = &labels[q as usize];
                if lq.len() < K && !lq.iter().any(|&(a, _)| a == anchor) {
                    heap.push(Reverse(((d + len as f64).to_bits(), q, anchor)));
                }
            }
        }

        let mut t = TetherConstraints::default();
        for (p, l) in labels.iter().enumerate() {
            if w[p] > 0.0 {
                for &(anchor, d) in l {
                    t.particle.push(p as u32);
                    t.anchor.push(anchor);
                    t.geodesic_distance.push(d as f32);
                }
            }
        }
        t.lambda = vec![0.0; t.particle.len()];
        t
    }

    /// One Gauss–Seidel sweep; `slack` is s, `compliance` α [m/N] for all tethers. With
    /// `parallel`, particle groups are spread over the current rayon pool: a group moves only its
    /// own particle and reads only kinematic anchors, so the bits are the same.
    ///
    /// Tethers are stored grouped by particle, and an anchor is kinematic, so a group moves only its
    /// own particle: each group is projected up to [`GROUP_ROUNDS`] times in a row (alternating
    /// projections onto the intersection of its balls), and a rigid pair is then finished exactly on
    /// the two-ball lens (`finish_pair`), so a particle ends inside every tether bound.
    pub(crate) fn solve(
        &mut self,
        x: &mut [SolverParticle],
        w: &[f32],
        slack: f32,
        compliance: f32,
        k: &SubstepCoefficients,
        parallel: bool,
    ) {
        let all = [0, self.particle.len() as u32];
        let colours = parallel.then_some(&all[..]);
        let (particle, anchor, geodesic_distance) = (&self.particle[..], &self.anchor[..], &self.geodesic_distance[..]);
        let kernel = TetherSweep { particle, anchor, geodesic_distance, w, slack, compliance, k };
        sweep(&kernel, x, &mut self.lambda, colours, parallel);
    }
}

/// The tether projection for [`sweep`]: whole particle groups, never split.
struct TetherSweep<'a> {
    particle: &'a [u32],
    anchor: &'a [u32],
    geodesic_distance: &'a [f32],
    w: &'a [f32],
    slack: f32,
    compliance: f32,
    k: &'a SubstepCoefficients,
}

impl Sweep for TetherSweep<'_> {
    fn project_range<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
        let end = first + lambda.len();
        let mut group_start = first;
        while group_start < end {
            let p = self.particle[group_start];
            let mut group_end = group_start + 1;
            while group_end < end && self.particle[group_end] == p {
                group_end += 1;
            }
            for _ in 0..GROUP_ROUNDS {
                let mut moved = false;
                for c in group_start..group_end {
                    moved |= self.project(c, &mut lambda[c - first], x);
                }
                // A round that projected nothing left the particle inside every bound: the
                // remaining rounds would change nothing either.
                if !moved {
                    break;
                }
            }
            if group_end - group_start == 2 && self.compliance == 0.0 {
                self.finish_pair(group_start, x);
            }
            group_start = group_end;
        }
    }

    #[inline]
    fn can_split_before(&self, c: usize) -> bool {
        self.particle[c] != self.particle[c - 1]
    }
}

impl TetherSweep<'_> {
    /// Rigid tethers to two kinematic anchors whose balls barely overlap (a particle on the line
    /// between two pins, e.g. the top edge of a cloth hung by its corners) form a thin lens, where
    /// alternating projections converge slowly. If the particle is still outside either ball after
    /// the rounds, place it at the closest point of the lens exactly: on the sphere of one ball when
    /// that point is inside the other, else on the circle where the two spheres meet (the closest
    /// point of an intersection of two balls is on that circle when it is not on either sphere
    /// alone).
    fn finish_pair<P: Positions + ?Sized>(&self, c: usize, x: &mut P) {
        let (w, slack) = (self.w, self.slack);
        let i = self.particle[c] as usize;
        let (a1, a2) = (self.anchor[c] as usize, self.anchor[c + 1] as usize);
        if w[a1] != 0.0 || w[a2] != 0.0 {
            return;
        }
        let (r1, r2) = (slack * self.geodesic_distance[c], slack * self.geodesic_distance[c + 1]);
        let (p1, p2) = (x.get(a1), x.get(a2));
        let xi = x.get(i);
        let outside1 = |q: Vec3| q.distance(p1) > r1 * (1.0 + 1e-6);
        let outside2 = |q: Vec3| q.distance(p2) > r2 * (1.0 + 1e-6);
        if !outside1(xi) && !outside2(xi) {
            return;
        }
        // Outside one ball only: the closest point of the lens is on that ball's sphere unless that
        // point lies outside the other ball. Checked first because f32 rounding of coordinates far
        // from the origin (1e-5 m at 100 m) leaves a particle the rounds put on a sphere "outside"
        // by a few ulps; snapping it to the circle instead moved it across the cloth (a flag pinned
        // along a pole 5 m from the origin folded onto its pole: 10 % strain; 900 % at 100 m).
        let onto_sphere = |p: Vec3, r: f32| (xi - p).try_normalize().map(|dir| p + dir * r.min(xi.distance(p)));
        let on_one_sphere = onto_sphere(p1, r1)
            .filter(|&q| !outside2(q))
            .or_else(|| onto_sphere(p2, r2).filter(|&q| !outside1(q)));
        if let Some(q) = on_one_sphere {
            x.set(i, q);
            return;
        }
        let axis = p2 - p1;
        let d = axis.length();
        if !(d > 1e-9) {
            return;
        }
        let u = axis / d;
        if d >= r1 + r2 {
            // The balls touch (rest geometry: the particle lies on the straight line between the
            // pins) or are apart (pins moved further than the cloth allows): the point between
            // them that exceeds both limits by the same fraction.
            x.set(i, p1 + u * (d * r1 / (r1 + r2)));
            return;
        }
        let t = (d * d + r1 * r1 - r2 * r2) / (2.0 * d);
        let rho2 = r1 * r1 - t * t;
        if rho2 <= 0.0 {
            return; // one ball inside the other: the rounds' projection is already exact
        }
        let centre = p1 + u * t;
        let radial = (xi - centre) - u * (xi - centre).dot(u);
        if let Some(dir) = radial.try_normalize() {
            x.set(i, centre + dir * rho2.sqrt());
        }
    }

    /// One projection of tether `c`. Only the particle moves: anchors are kinematic (`w == 0`,
    /// which is how `build` chose them, and pins changing rebuilds the tethers), so their
    /// correction would be zero, and leaving them unwritten lets groups run in parallel. Tethers
    /// are undamped (γ = 0), so x_prev is not read. Returns whether the tether was violated (and
    /// so projected).
    #[inline(always)]
    fn project<P: Positions + ?Sized>(&self, c: usize, lambda: &mut f32, x: &mut P) -> bool {
        let (i, a) = (self.particle[c] as usize, self.anchor[c] as usize);
        let (xi, xa) = (x.get(i), x.get(a));
        let d = xi - xa;
        let len = d.length();
        let value = len - self.slack * self.geodesic_distance[c];
        if value <= 0.0 || len <= 1e-9 {
            return false;
        }
        let (wi, wa) = (self.w[i], self.w[a]);
        debug_assert!(wa == 0.0, "tether anchor {a} is not kinematic");
        let (num, den) = xpbd_delta_lambda_parts::<f32, false>(value, *lambda, self.compliance, self.k, wi + wa, 0.0);
        if den > MIN_DENOMINATOR {
            // Δλ = num/den along the unit normal d/len: one division for both.
            let t = num / (den * len);
            *lambda += t * len;
            x.set(i, xi + d * (wi * t));
        }
        true
    }
}

impl TetherConstraints {
    /// max(0, C) of every tether at positions `x`.
    pub(crate) fn residuals(&self, x: &[Vec3], slack: f32, out: &mut Vec<f32>) {
        out.extend((0..self.particle.len()).map(|c| {
            let (i, a) = (self.particle[c] as usize, self.anchor[c] as usize);
            ((x[i] - x[a]).length() - slack * self.geodesic_distance[c]).max(0.0)
        }));
    }
}
