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

use super::access::{Positions, RowOffsets, SolverParticle, gather_rows_at, row_offset};
use super::colouring::permute;
use super::lanes::{LANES, LaneSet, Lanes, Real, V3, v3};
#[cfg(target_arch = "x86_64")]
use super::lanes_avx::{Lanes8, avx_available};
use super::sweep::{Sweep, sweep};
use super::team::{ColourStarts, SweepWork, TeamWork};
use super::{MIN_DENOMINATOR, SubstepCoefficients, xpbd_delta_lambda_parts};
use glam::Vec3;
use std::cmp::Reverse;
use crate::mesh::adjacency::Adjacency;
use std::collections::BinaryHeap;

/// Tethers per free particle: to this many nearest anchors (fewer if the cloth has fewer).
///
/// Measured on the light, stiff, fine cloth (1 kg, stretch α = 0, bending α = 1e-5, two corners
/// pinned, 10 s): with 1 tether, each half of the cloth is held towards its own pin and the edges
/// between the halves take the stretch (128²: 199 % max strain at the end); with 2 (one per corner)
/// 50 %, and every particle exactly inside both bounds (see `finish_pair`); with 4, 30 % but the
/// alternating projections leave particles up to 2 % beyond a bound.
pub const TETHERS_PER_PARTICLE: usize = 2;

/// Relative tolerance of "the particle lies on a straight line to its anchor"
/// ([`TetherConstraints::put_straight_groups_first`]): f32 rounding of a straight chain of
/// links stays far below it.
const STRAIGHT_TOLERANCE: f32 = 1e-4;

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
    /// Tethers `0 .. full_groups_end` form groups of exactly [`TETHERS_PER_PARTICLE`] tethers and
    /// the other groups follow ([`TetherConstraints::put_full_groups_first`], which `build`
    /// calls): the sweep takes those groups 8 or 4 at a time without looking for where each one
    /// ends (that scan was a quarter of the tether sweep's instructions on the 64² bench grid).
    /// 0 when the tethers are not arranged so: then every group is projected one at a time (the
    /// same bits). Groups move only their own particle, so their order changes no bit.
    pub(crate) full_groups_end: usize,
    /// Byte offsets of each tether's particle and anchor rows, derived from `particle` and
    /// `anchor` and checked at the top of the first step after they changed
    /// ([`Self::prepare_rows`]); what the lane-wise kernel addresses rows by. Code that changes
    /// `particle` or `anchor` in place calls [`RowOffsets::indices_changed`] on it.
    pub(crate) row_offsets: RowOffsets<2>,
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
    /// Groups of exactly [`TETHERS_PER_PARTICLE`] tethers come first
    /// (`put_full_groups_first`); a cloth then also puts the straight ones first
    /// (`put_straight_groups_first`, which needs positions).
    pub fn build(particle_count: usize, links: &[[u32; 2]], link_length: &[f32], w: &[f32]) -> Self {
        const K: usize = TETHERS_PER_PARTICLE;
        let graph = Adjacency::new(particle_count, links, |k| link_length[k]);

        // Up to K settled (anchor, distance) labels per particle, in order of distance.
        let mut labels: Vec<Vec<(u32, f64)>> = vec![Vec::new(); particle_count];
        // Heap of (distance bits, particle, anchor): f64 bits of non-negative numbers order like
        // the numbers; ties broken by indices, so the result is deterministic.
        let mut heap = BinaryHeap::new();
        for (p, &wp) in w[..particle_count].iter().enumerate() {
            if wp == 0.0 {
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
            for &(q, len) in graph.links_of(p as usize) {
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
        t.row_offsets = RowOffsets::with_capacity(t.particle.len());
        t.put_full_groups_first();
        t
    }

    /// Reorder the full groups ([`TetherConstraints::full_groups_end`]) stably so that those whose
    /// particle lies, in the pose `x` [m], on a straight line to one of its anchors come first:
    /// |x_i − x_a| ≥ (1 − [`STRAIGHT_TOLERANCE`])·d_geo, a straight geodesic. Those are the
    /// tethers a cloth hanging from its pins pulls taut: the edge between two pins, the columns
    /// and diagonals below them. The lane-wise sweep skips a batch of groups when none of its
    /// tethers is violated; in particle order the taut ones were spread over most batches (64²
    /// hanging grid: 5 % of the groups violated, in 21 % of the batches; 16²: 20 % in 65 %).
    /// Groups move only their own particle, so their order changes no position or λ bit.
    /// Allocates; for when tethers are built.
    pub(crate) fn put_straight_groups_first(&mut self, x: &[Vec3]) {
        const K: usize = TETHERS_PER_PARTICLE;
        let straight = |g: usize| {
            (0..K).any(|s| {
                let c = K * g + s;
                let (i, a) = (self.particle[c] as usize, self.anchor[c] as usize);
                x[i].distance(x[a]) >= (1.0 - STRAIGHT_TOLERANCE) * self.geodesic_distance[c]
            })
        };
        let groups = self.full_groups_end / K;
        let (mut order, mut other): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
        for g in 0..groups {
            let tethers = (K * g) as u32..(K * (g + 1)) as u32;
            if straight(g) { order.extend(tethers) } else { other.extend(tethers) }
        }
        order.extend(other);
        order.extend(self.full_groups_end as u32..self.particle.len() as u32);
        self.permute_tethers(&order);
    }

    /// Reorder the tethers and everything stored per tether: new tether k = old tether `order[k]`.
    fn permute_tethers(&mut self, order: &[u32]) {
        permute(&mut self.particle, order);
        permute(&mut self.anchor, order);
        self.row_offsets.indices_changed();
        permute(&mut self.geodesic_distance, order);
        permute(&mut self.lambda, order);
    }

    /// Reorder the groups (stably) so that those of exactly [`TETHERS_PER_PARTICLE`] tethers come
    /// first, and set [`TetherConstraints::full_groups_end`]. Allocates; for when tethers are built.
    pub(crate) fn put_full_groups_first(&mut self) {
        // Tether indices of the full groups, then of the others, each in storage order.
        let (mut order, mut other) = (Vec::new(), Vec::new());
        let mut start = 0u32;
        for group in self.particle.chunk_by(|a, b| a == b) {
            let tethers = start..start + group.len() as u32;
            start = tethers.end;
            if group.len() == TETHERS_PER_PARTICLE { order.extend(tethers) } else { other.extend(tethers) }
        }
        self.full_groups_end = order.len();
        order.extend(other);
        self.permute_tethers(&order);
    }

    /// One Gauss–Seidel sweep; `slack` is s, `compliance` α [m/N] for all tethers. With
    /// `parallel`, particle groups are spread over the current rayon pool: a group moves only its
    /// own particle and reads only kinematic anchors, so the bits are the same.
    ///
    /// Tethers are stored grouped by particle, and an anchor is kinematic, so a group moves only its
    /// own particle: each group is projected up to [`GROUP_ROUNDS`] times in a row (alternating
    /// projections onto the intersection of its balls), and a rigid pair is then finished exactly on
    /// the two-ball lens (`finish_pair`), so a particle ends inside every tether bound. For the same
    /// reason all groups form one "colour" (they share no particle they write), which is always
    /// handed to the lane-wise path: 8 (AVX) or [`LANES`] groups of [`TETHERS_PER_PARTICLE`]
    /// tethers at once.
    ///
    /// # Safety
    /// Every particle and anchor index is `< x.len()` and [`Self::row_offsets`] are derived from
    /// the current tethers (both by [`Self::prepare_rows`]), and the
    /// tethers were built for the current inverse masses `w` (anchors kinematic, constrained
    /// particles not), so that no group writes a particle another group reads.
    // Out of line so that profilers (perf, callgrind) attribute the sweep to it; once per substep.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn solve_in_bounds(&mut self, x: &mut [SolverParticle], w: &[f32], slack: f32, compliance: f32, k: &SubstepCoefficients, fresh: bool) {
        let all = [0, self.particle.len() as u32];
        let (kernel, lambda) = self.kernel(w, slack, compliance, k, fresh);
        // SAFETY: the caller's contract; the kernel reads particles only through `particle`,
        // `anchor` and their row offsets.
        unsafe { sweep(&kernel, x, lambda, Some(&all)) };
    }

    /// The sweep of [`Self::solve_in_bounds`] as work for a team of threads
    /// ([`super::team::run_team`], whose contract is that of `solve_in_bounds`): all groups as one
    /// colour.
    pub(crate) fn team_work<'a>(&'a mut self, w: &'a [f32], slack: f32, compliance: f32, k: &'a SubstepCoefficients, fresh: bool) -> impl TeamWork + 'a {
        let all = ColourStarts::All([0, self.particle.len() as u32]);
        let (kernel, lambda) = self.kernel(w, slack, compliance, k, fresh);
        SweepWork::new(kernel, kernel, 1, all, lambda)
    }

    /// The projection kernel and the multipliers, borrowed apart.
    fn kernel<'a>(&'a mut self, w: &'a [f32], slack: f32, compliance: f32, k: &'a SubstepCoefficients, fresh: bool) -> (TetherSweep<'a>, &'a mut [f32]) {
        let (particle, anchor, geodesic_distance) = (&self.particle[..], &self.anchor[..], &self.geodesic_distance[..]);
        let (full_groups_end, row_offsets) = (self.full_groups_end, self.row_offsets.as_slice());
        let kernel = TetherSweep { fresh, particle, anchor, row_offsets, geodesic_distance, full_groups_end, w, slack, compliance, k };
        (kernel, &mut self.lambda)
    }

    /// Whether every particle and anchor index is `< particle_count` (at most 2²⁸); derives
    /// [`Self::row_offsets`] from them. At the top of every step, before the sweeps; a pass over
    /// the tethers only after they changed ([`RowOffsets::prepare`]).
    pub(crate) fn prepare_rows(&mut self, particle_count: usize) -> bool {
        let (particle, anchor) = (&self.particle, &self.anchor);
        self.row_offsets.prepare(particle.len(), particle_count, |out| {
            let n = particle_count as u32;
            out.resize(particle.len(), [0; 2]);
            let mut beyond = 0u32;
            for ((out, &i), &a) in out.iter_mut().zip(particle).zip(anchor) {
                *out = [row_offset(i, n, &mut beyond), row_offset(a, n, &mut beyond)];
            }
            beyond == 0
        })
    }
}

/// d = x_i − x_a, ‖d‖, C = ‖d‖ − r of a tether (or of [`LANES`] tethers), and whether it is
/// violated: unless C ≤ 0 or ‖d‖ ≤ 1e-9 (so violated for NaN).
#[inline(always)]
fn measure_tether<T: Real>(xi: V3<T>, xa: V3<T>, bound: T) -> (V3<T>, T, T, T::Mask) {
    let d = xi.sub(xa);
    let len = d.dot(d).sqrt();
    let value = len - bound;
    (d, len, value, T::both(value.nle(T::splat(0.0)), len.nle(T::splat(1e-9))))
}

/// ‖x_i − x_a‖ of each of a group's tethers (into `len`) and whether any of them is violated in
/// any lane (see [`measure_tether`]).
#[inline(always)]
fn measure_tethers<T: Real, const K: usize>(xi: V3<T>, xa: &[V3<T>; K], bound: &[T; K], len: &mut [T; K]) -> bool {
    let mut violated = None;
    for s in 0..K {
        let (_, l, _, v) = measure_tether(xi, xa[s], bound[s]);
        len[s] = l;
        violated = Some(violated.map_or(v, |before| T::either(before, v)));
    }
    violated.is_some_and(T::any)
}

/// One XPBD projection of a tether (or of [`LANES`] tethers of distinct particles) onto its
/// kinematic anchor: x_i at `xi`, anchor at `xa`, inverse masses `wi`, `wa`, bound r = s·d_geo.
/// Returns whether the tether was violated (a violated tether is projected), and the new λ and
/// x_i. Only a violated tether with a denominator above [`MIN_DENOMINATOR`] changes
/// anything, and then by a select, so an unviolated one leaves λ and x_i exactly as they were (a
/// lane's update is never "+ 0", which would turn −0 into +0). Tethers are undamped (γ = 0).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn project_tether<T: Real>(
    xi: V3<T>,
    xa: V3<T>,
    wi: T,
    wa: T,
    bound: T,
    compliance: T,
    lambda: T,
    k: &SubstepCoefficients,
) -> (T::Mask, T, V3<T>) {
    let (d, len, value, violated) = measure_tether(xi, xa, bound);
    let (num, den) = xpbd_delta_lambda_parts::<T, false>(value, lambda, compliance, k, wi + wa, T::splat(0.0));
    let ok = T::both(den.gt(T::splat(MIN_DENOMINATOR)), violated);
    // Δλ = num/den along the unit normal d/len: one division for both.
    let t = num / (den * len);
    let s = wi * t;
    let lambda = T::select(ok, lambda + t * len, lambda);
    let moved = |x: T, d: T| T::select(ok, x + d * s, x);
    (violated, lambda, V3 { x: moved(xi.x, d.x), y: moved(xi.y, d.y), z: moved(xi.z, d.z) })
}

/// The tether projection for [`sweep`]: whole particle groups, never split.
#[derive(Clone, Copy)]
struct TetherSweep<'a> {
    /// Zero the multipliers of a range before projecting it (the first sweep of a substep: no
    /// pass over all of them on one thread before the sweep).
    fresh: bool,
    particle: &'a [u32],
    anchor: &'a [u32],
    /// [`TetherConstraints::row_offsets`].
    row_offsets: &'a [[u32; 2]],
    geodesic_distance: &'a [f32],
    /// [`TetherConstraints::full_groups_end`].
    full_groups_end: usize,
    w: &'a [f32],
    slack: f32,
    compliance: f32,
    k: &'a SubstepCoefficients,
}

impl Sweep for TetherSweep<'_> {
    /// The reference path: one group at a time, one tether at a time.
    fn project_range<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
        if self.fresh {
            lambda.fill(0.0);
        }
        let end = first + lambda.len();
        let mut group_start = first;
        while group_start < end {
            let group_end = self.group_end(group_start, end);
            self.project_group(group_start, group_end, first, lambda, x);
            group_start = group_end;
        }
    }

    /// The full groups ([`TetherConstraints::full_groups_end`]) 8 at a time where the CPU has AVX,
    /// else [`LANES`] (`project_groups`), the rest of them as one partial batch, the other groups
    /// one at a time: the same bits as [`Sweep::project_range`], since groups share no particle
    /// they write, so their order does not matter, and every width does the same IEEE operations
    /// per lane. Not 16 at a time where the CPU has AVX-512, as edges and hinges are: a batch
    /// runs its rounds while any lane's tethers are violated, and of 16 lanes more often one is
    /// (perf samples in the tether sweep, 64² grid: +5 % with 16 lanes).
    fn project_disjoint<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
        if self.fresh {
            // Zeroed here once; the kernel that runs (and its one-at-a-time rest through
            // `project_range`) then reads them as they are.
            lambda.fill(0.0);
            return TetherSweep { fresh: false, ..*self }.project_disjoint(first, lambda, x);
        }
        #[cfg(target_arch = "x86_64")]
        if avx_available() {
            // SAFETY: the CPU has AVX (checked above).
            return unsafe { self.project_disjoint_avx(first, lambda, x) };
        }
        self.project_batched::<LANES, Lanes, P>(first, lambda, x);
    }

    #[inline]
    fn can_split_before(&self, c: usize) -> bool {
        self.particle[c] != self.particle[c - 1]
    }
}

impl TetherSweep<'_> {
    /// The full groups ([`TetherConstraints::full_groups_end`]) `N` at a time, the rest of them as
    /// one partial batch, the other groups one at a time.
    #[inline(always)]
    fn project_batched<const N: usize, L: LaneSet<N>, P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
        const K: usize = TETHERS_PER_PARTICLE;
        let end = first + lambda.len();
        // The full groups: one every K tethers (a range starts at a group's start).
        let full_end = self.full_groups_end.clamp(first, end);
        debug_assert!(first == full_end || first.is_multiple_of(K), "a range starts inside a group: {first}");
        let mut group_start = first;
        while group_start + N * K <= full_end {
            self.project_groups::<N, L, P>(group_start, N, first, lambda, x);
            group_start += N * K;
        }
        let groups = (full_end - group_start) / K;
        if groups > 0 {
            self.project_partial_groups::<N, L, P>(group_start, groups, first, lambda, x);
        }
        self.project_range(full_end, &mut lambda[full_end - first..], x);
    }

    /// The `groups` full groups from tether `g0` on (1 ≤ `groups` < `N`) as one `N`-lane batch:
    /// [`Self::project_groups`] on a copy of the sweep whose arrays hold those groups, the last
    /// one repeated to fill the lanes (as `sweep::padded` does for edges and hinges). A repeated
    /// lane computes the bits of the lane it copies and writes the same row again; its λ are
    /// dropped, and it does not run `finish_pair` a second time. One at a time, the rest cost small
    /// cloths their instructions: callgrind, 8-lane path, 5 steps on one thread, 256 grids of 8²
    /// 515.0 M → 499.8 M (−2.9 %), 64 grids of 16² 367.7 M → 364.0 M (−1.0 %), the same bits.
    #[inline(always)]
    fn project_partial_groups<const N: usize, L: LaneSet<N>, P: Positions + ?Sized>(
        &self,
        g0: usize,
        groups: usize,
        first: usize,
        lambda: &mut [f32],
        x: &mut P,
    ) {
        const K: usize = TETHERS_PER_PARTICLE;
        /// Tethers in the widest batch (8 groups).
        const MAX_TETHERS: usize = 8 * K;
        const { assert!(N * K <= MAX_TETHERS) };
        debug_assert!((1..N).contains(&groups));
        let (mut particle, mut anchor) = ([0u32; MAX_TETHERS], [0u32; MAX_TETHERS]);
        let (mut row_offsets, mut geodesic_distance, mut lam) = ([[0u32; 2]; MAX_TETHERS], [0.0f32; MAX_TETHERS], [0.0f32; MAX_TETHERS]);
        for j in 0..N * K {
            let t = g0 + K * (j / K).min(groups - 1) + j % K;
            (particle[j], anchor[j]) = (self.particle[t], self.anchor[t]);
            (row_offsets[j], geodesic_distance[j], lam[j]) = (self.row_offsets[t], self.geodesic_distance[t], lambda[t - first]);
        }
        let batch = TetherSweep {
            particle: &particle[..N * K],
            anchor: &anchor[..N * K],
            row_offsets: &row_offsets[..N * K],
            geodesic_distance: &geodesic_distance[..N * K],
            full_groups_end: N * K,
            ..*self
        };
        batch.project_groups::<N, L, P>(0, groups, 0, &mut lam[..N * K], x);
        lambda[g0 - first..g0 - first + groups * K].copy_from_slice(&lam[..groups * K]);
    }

    /// [`Self::project_batched`] 8 groups at a time in AVX registers.
    ///
    /// # Safety
    /// The CPU must have AVX ([`avx_available`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    unsafe fn project_disjoint_avx<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
        self.project_batched::<8, Lanes8, P>(first, lambda, x);
    }

    /// End of the particle group that starts at tether `start` (at most `end`).
    #[inline(always)]
    fn group_end(&self, start: usize, end: usize) -> usize {
        let p = self.particle[start];
        let mut group_end = start + 1;
        while group_end < end && self.particle[group_end] == p {
            group_end += 1;
        }
        group_end
    }

    /// Project the group of tethers `start .. end` (multipliers at `lambda[c − first]`) up to
    /// [`GROUP_ROUNDS`] times, then finish a rigid pair.
    fn project_group<P: Positions + ?Sized>(&self, start: usize, end: usize, first: usize, lambda: &mut [f32], x: &mut P) {
        for _ in 0..GROUP_ROUNDS {
            let mut moved = false;
            for c in start..end {
                moved |= self.project(c, &mut lambda[c - first], x);
            }
            // A round that projected nothing left the particle inside every bound: the
            // remaining rounds would change nothing either.
            if !moved {
                break;
            }
        }
        if end - start == 2 && self.compliance == 0.0 {
            self.finish_pair(start, x);
        }
    }

    /// [`project_group`](Self::project_group) for the `N` full groups of [`TETHERS_PER_PARTICLE`]
    /// tethers from tether `g0` on (group l at `g0 + K·l`). The early exit is per batch: a round runs
    /// while any lane's previous round projected something. For a lane whose previous round
    /// projected nothing, the further rounds are exact no-ops (its particle and anchors are as they
    /// were, so its tethers are still unviolated, and `project_tether` then changes nothing), so
    /// each lane gets the bits of its own scalar rounds. Anchors are read once: kinematic, no
    /// tether moves them. Lanes from `lanes` on repeat an earlier lane's group (a padded partial
    /// batch) and are left out of `finish_pair`.
    #[inline(always)]
    fn project_groups<const N: usize, L: LaneSet<N>, P: Positions + ?Sized>(
        &self,
        g0: usize,
        lanes: usize,
        first: usize,
        lambda: &mut [f32],
        x: &mut P,
    ) {
        const K: usize = TETHERS_PER_PARTICLE;
        let (zero, one) = (L::splat(0.0), L::splat(1.0));
        // The batch's tethers as slices of known length, read at constant offsets: the per-lane
        // reads below need no bounds checks.
        let row_offsets = &self.row_offsets[g0..g0 + N * K];
        let geodesic_distance = &self.geodesic_distance[g0..g0 + N * K];
        let lambda = &mut lambda[g0 - first..g0 - first + N * K];
        let at = |l: usize| K * l;
        // Row byte offsets of each lane's particle and of its K anchors.
        let mut i = [0usize; N];
        let mut a = [[0usize; N]; K];
        for l in 0..N {
            i[l] = row_offsets[at(l)][0] as usize;
            for s in 0..K {
                a[s][l] = row_offsets[at(l) + s][1] as usize;
            }
        }
        // Particle rows (x, y, z, w) turned into lanes by a transpose.
        let (mut xi, wi) = gather_rows_at::<N, L, P>(x, i);
        let mut xa = [V3 { x: zero, y: zero, z: zero }; K];
        let mut wa = [zero; K];
        let mut bound = [zero; K];
        for s in 0..K {
            (xa[s], wa[s]) = gather_rows_at::<N, L, P>(x, a[s]);
            let mut b = [0.0; N];
            for (l, b) in b.iter_mut().enumerate() {
                *b = self.slack * geodesic_distance[at(l) + s];
            }
            bound[s] = L::from_array(b);
        }
        let mut len = [zero; K];
        // Usually no tether of the batch is violated (94 % of the batches of the hanging 64² bench
        // grid, with the straight groups first: `put_straight_groups_first`): then the first round
        // projects nothing in any lane and every lane's scalar rounds stop there, which this test
        // finds without a division.
        if measure_tethers(xi, &xa, &bound, &mut len) {
            let mut lam = [zero; K];
            for s in 0..K {
                let mut l_in = [0.0; N];
                for (l, l_in) in l_in.iter_mut().enumerate() {
                    *l_in = lambda[at(l) + s];
                }
                lam[s] = L::from_array(l_in);
            }
            let compliance = L::splat(self.compliance);
            for _ in 0..GROUP_ROUNDS {
                let mut moved = None;
                for s in 0..K {
                    let violated;
                    (violated, lam[s], xi) = project_tether(xi, xa[s], wi, wa[s], bound[s], compliance, lam[s], self.k);
                    moved = Some(moved.map_or(violated, |before| L::either(before, violated)));
                }
                // No lane projected anything: every lane's scalar rounds have stopped.
                if !moved.is_some_and(L::any) {
                    break;
                }
            }
            let rows = L::lanes_and_w_to_rows(xi, wi);
            for s in 0..K {
                let lam = lam[s].to_array();
                for l in 0..N {
                    lambda[at(l) + s] = lam[l];
                }
            }
            // The particles' offsets read again rather than kept in `i` (as for hinges, `bending.rs`):
            // the tether sweep −2 % instructions (64²).
            for l in 0..N {
                x.set_row_at(row_offsets[at(l)][0] as usize, rows[l]);
            }
            measure_tethers(xi, &xa, &bound, &mut len);
        }
        if K == 2 && self.compliance == 0.0 {
            // `finish_pair` changes only a particle outside a ball, by its own test (the same
            // bits): run it for those lanes only.
            let limit = L::splat(1.0 + 1e-6);
            let outside = L::either(len[0].gt(bound[0] * limit), len[1].gt(bound[1] * limit));
            // Usually no lane is outside: one test for the whole batch.
            if L::any(outside) {
                let outside = L::select(outside, one, zero).to_array();
                // Lanes `lanes ..` repeat a group of the batch (`project_partial_groups`): its
                // particle must not be finished twice.
                for (l, outside) in outside.into_iter().enumerate().take(lanes) {
                    if outside > 0.0 {
                        self.finish_pair(g0 + at(l), x);
                    }
                }
            }
        }
    }

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
        let (wi, wa) = (self.w[i], self.w[a]);
        debug_assert!(wa == 0.0, "tether anchor {a} is not kinematic");
        let bound = self.slack * self.geodesic_distance[c];
        let (violated, new_lambda, xi) =
            project_tether(v3(x.get(i)), v3(x.get(a)), wi, wa, bound, self.compliance, *lambda, self.k);
        *lambda = new_lambda;
        x.set(i, xi.to_vec3());
        violated
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

#[cfg(test)]
mod tests {
    //! The lane-wise tether sweep (sequential and parallel) against the reference path (one group
    //! at a time, one tether at a time): the same bits of positions and λ.

    use super::super::sweep::Sweep;
    use super::super::SubstepCoefficients;
    use super::super::access::pack_solver_particles;
    use super::super::tests::{grid_cloth, noise};
    use super::{LANES, STRAIGHT_TOLERANCE, TETHERS_PER_PARTICLE, TetherConstraints, TetherSweep};
    use glam::{Vec3, Vec4};

    const PINS: [u32; 3] = [0, NX as u32 - 1, ((NY - 1) * NX) as u32];
    const NX: usize = 29;
    const NY: usize = 23;

    /// Rest positions, inverse masses and tethers of a 29 × 23 grid cloth pinned at three
    /// corners, with the groups made of mixed sizes: every fifth particle keeps one tether, every
    /// seventh gets a third one (to the pin it is not tied to), and every third bound is shortened
    /// by 3 % so that more tethers are violated and need several rounds.
    fn pinned_cloth() -> (Vec<Vec3>, Vec<f32>, TetherConstraints) {
        let mut cloth = grid_cloth(NX, NY);
        cloth.set_pinned(&PINS, None).unwrap();
        let (x, w, built) = (cloth.particles.x.clone(), cloth.particles.w.clone(), cloth.tethers.clone());
        let mut t = TetherConstraints::default();
        let mut push = |p: u32, a: u32, d: f32| {
            t.particle.push(p);
            t.anchor.push(a);
            let shorter = if t.geodesic_distance.len() % 3 == 0 { 0.97 } else { 1.0 };
            t.geodesic_distance.push(d * shorter);
        };
        let mut c = 0;
        while c < built.particle.len() {
            let p = built.particle[c];
            let group: Vec<usize> = (c..built.particle.len()).take_while(|&k| built.particle[k] == p).collect();
            c += group.len();
            let keep = if p % 5 == 0 { 1 } else { group.len() };
            for &k in &group[..keep] {
                push(p, built.anchor[k], built.geodesic_distance[k]);
            }
            if p % 7 == 0 {
                let other = PINS.iter().find(|a| !group.iter().any(|&k| built.anchor[k] == **a)).unwrap();
                push(p, *other, x[p as usize].distance(x[*other as usize]) * 1.02);
            }
        }
        t.lambda = vec![0.0; t.particle.len()];
        (x, w, t)
    }

    /// Sizes of the particle groups, in storage order.
    fn group_sizes(t: &TetherConstraints) -> Vec<usize> {
        t.particle.chunk_by(|a, b| a == b).map(<[u32]>::len).collect()
    }

    /// Both storage orders: groups mixed in particle order (`full_groups_end` 0: every group one at
    /// a time) and full groups first (`put_full_groups_first`, as `build` stores them: those
    /// lane-wise). The order of the groups changes no position bit.
    #[test]
    fn lane_wise_tether_sweeps_give_the_bits_of_the_one_group_at_a_time_sweep() {
        let (rest, w, mixed) = pinned_cloth();
        let mut arranged = mixed.clone();
        arranged.put_full_groups_first();
        assert_eq!(mixed.full_groups_end, 0);
        let pairs = group_sizes(&mixed).iter().filter(|&&s| s == TETHERS_PER_PARTICLE).count();
        assert_eq!(arranged.full_groups_end, pairs * TETHERS_PER_PARTICLE);
        assert!(group_sizes(&arranged)[pairs..].iter().all(|&s| s != TETHERS_PER_PARTICLE));
        let x_mixed = tether_sweeps_give_the_bits_of_the_one_group_at_a_time_sweep(&rest, &w, &mixed);
        let x_arranged = tether_sweeps_give_the_bits_of_the_one_group_at_a_time_sweep(&rest, &w, &arranged);
        assert_eq!(x_mixed, x_arranged);
        // Straight groups first (as a cloth stores them): in the pose the pins were set at, the
        // groups on a straight line to an anchor (the edges between the pins, the diagonals)
        // form a prefix of the full groups, and the order changes no bit.
        let mut straight_first = arranged.clone();
        straight_first.put_straight_groups_first(&rest);
        let is_straight = |t: &TetherConstraints, g: usize| {
            (0..TETHERS_PER_PARTICLE).any(|s| {
                let c = TETHERS_PER_PARTICLE * g + s;
                let d = rest[t.particle[c] as usize].distance(rest[t.anchor[c] as usize]);
                d >= (1.0 - STRAIGHT_TOLERANCE) * t.geodesic_distance[c]
            })
        };
        let flags: Vec<bool> = (0..pairs).map(|g| is_straight(&straight_first, g)).collect();
        let straight = flags.iter().filter(|&&f| f).count();
        // (This grid's quads all split one way, so whole rows, columns and diagonals are
        // straight, and every third bound is 3 % short: more than half the groups.)
        assert!(straight >= NX && straight < pairs, "{straight} straight groups of {pairs}");
        assert!(flags[..straight].iter().all(|&f| f), "straight groups not first");
        assert_eq!(straight_first.full_groups_end, arranged.full_groups_end);
        assert_eq!(group_sizes(&straight_first), {
            let mut sizes = group_sizes(&arranged);
            sizes[..pairs].sort();
            sizes
        });
        let x_straight_first = tether_sweeps_give_the_bits_of_the_one_group_at_a_time_sweep(&rest, &w, &straight_first);
        assert_eq!(x_straight_first, x_arranged);
        // The rest of the pairs after the 8-lane batches, a partial batch: 3 in `arranged`, 7 in
        // this one.
        assert_eq!(pairs % 8, 3, "{pairs} pairs");
        let mut fewer = arranged.clone();
        let drop = 4;
        for v in [&mut fewer.particle, &mut fewer.anchor] {
            v.drain(..drop * TETHERS_PER_PARTICLE);
        }
        fewer.geodesic_distance.drain(..drop * TETHERS_PER_PARTICLE);
        fewer.lambda.drain(..drop * TETHERS_PER_PARTICLE);
        fewer.full_groups_end -= drop * TETHERS_PER_PARTICLE;
        fewer.row_offsets.indices_changed();
        assert_eq!((pairs - drop) % 8, 7);
        tether_sweeps_give_the_bits_of_the_one_group_at_a_time_sweep(&rest, &w, &fewer);
    }

    /// Positions after the sweeps of `tethers`, checked across the paths.
    fn tether_sweeps_give_the_bits_of_the_one_group_at_a_time_sweep(rest: &[Vec3], w: &[f32], tethers: &TetherConstraints) -> Vec<[u32; 3]> {
        let sizes = group_sizes(tethers);
        let pairs = sizes.iter().filter(|&&s| s == TETHERS_PER_PARTICLE).count();
        assert!(pairs % LANES != 0, "no remainder of pairs after the 4- or 8-lane batches");
        assert!([1, 2, 3].iter().all(|s| sizes.contains(s)), "group sizes {sizes:?}");
        assert!(tethers.particle.len() > 1024, "too few tethers to split over two threads");
        let mut noise = noise();
        // Crumpled, and pulled away from the pins (so that most tethers are violated); the pins stay.
        let mut crumpled: Vec<Vec3> = (rest.iter().zip(w))
            .map(|(p, &wp)| if wp == 0.0 { *p } else { *p * 1.05 + Vec3::new(noise(), noise(), noise()) * 0.08 })
            .collect();
        // Tethers the kernels must treat like the scalar path, in pairs (batched lane-wise, unlike
        // the groups of every fifth and seventh particle): a NaN particle's (violated, so
        // projected: NaN stays in that particle and its λ) and a particle on its anchor (‖d‖ = 0:
        // not projected).
        const NAN_PARTICLE: usize = 101;
        crumpled[NAN_PARTICLE].y = f32::NAN;
        crumpled[202] = rest[PINS[0] as usize];
        let mut x0 = vec![Vec4::ZERO; crumpled.len()];
        pack_solver_particles(&crumpled, w, &mut x0);
        let k = SubstepCoefficients::new(1.0 / 600.0, 0.0);
        let slack = 1.0;
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let mut result = Vec::new();
        for compliance in [0.0, 1e-4] {
            // One sweep of `t` after checking its indices.
            let solve = |t: &mut TetherConstraints, x: &mut [Vec4], parallel: bool, fresh: bool| {
                assert!(t.prepare_rows(x.len()));
                if parallel {
                    // SAFETY: as below; the tethers' one colour has no particle bounds.
                    unsafe { crate::constraints::team::run_team(&t.team_work(w, slack, compliance, &k, fresh), x) }
                } else {
                    // SAFETY: indices checked above; the tethers were built for `w`.
                    unsafe { t.solve_in_bounds(x, w, slack, compliance, &k, fresh) }
                }
            };
            // The reference path, one tether at a time (the multipliers as they are).
            let scalar_sweep = |t: &mut TetherConstraints, x: &mut [Vec4], fresh: bool| {
                let (particle, anchor, geodesic_distance) = (&t.particle[..], &t.anchor[..], &t.geodesic_distance[..]);
                let (full_groups_end, row_offsets) = (t.full_groups_end, t.row_offsets.as_slice());
                let kernel = TetherSweep { fresh, particle, anchor, row_offsets, geodesic_distance, full_groups_end, w, slack, compliance, k: &k };
                kernel.project_range(0, &mut t.lambda, x);
            };
            // Every path but `from_zero` starts from stale multipliers, which its first (`fresh`)
            // sweep must take as 0.
            let mut stale = tethers.clone();
            stale.lambda.fill(7.0);
            let (mut scalar, mut lanes, mut parallel, mut from_zero) = (stale.clone(), stale.clone(), stale.clone(), tethers.clone());
            let (mut x_scalar, mut x_lanes, mut x_parallel, mut x_from_zero) = (x0.clone(), x0.clone(), x0.clone(), x0.clone());
            // The 4-lane kernels alone, where the CPU would run the 8-lane ones.
            let (mut lanes4, mut x_lanes4) = (stale.clone(), x0.clone());
            for sweep in 0..3 {
                let fresh = sweep == 0;
                scalar_sweep(&mut scalar, &mut x_scalar, fresh);
                scalar_sweep(&mut from_zero, &mut x_from_zero, false);
                solve(&mut lanes, &mut x_lanes, false, fresh);
                #[cfg(target_arch = "x86_64")]
                super::super::lanes_avx::tests::sse_only(|| solve(&mut lanes4, &mut x_lanes4, false, fresh));
                #[cfg(not(target_arch = "x86_64"))]
                solve(&mut lanes4, &mut x_lanes4, false, fresh);
                pool.install(|| solve(&mut parallel, &mut x_parallel, true, fresh));
            }
            // Bits, with every NaN as one pattern: the NaN particle's coordinates and λ come out
            // NaN on every path, but which NaN (sign, payload) depends on the operand order LLVM
            // picked for each width. Every other particle and multiplier is compared bit for bit.
            let canonical = |v: f32| if v.is_nan() { f32::NAN.to_bits() } else { v.to_bits() };
            let lambda_bits = |t: &TetherConstraints| t.lambda.iter().map(|&l| canonical(l)).collect::<Vec<_>>();
            let bits = |x: &[Vec4]| x.iter().map(|p| [p.x, p.y, p.z].map(canonical)).collect::<Vec<_>>();
            let violated = scalar.lambda.iter().filter(|&&l| l != 0.0).count();
            assert!(violated > tethers.particle.len() / 4, "only {violated} tethers projected");
            assert_ne!(bits(&x_scalar), bits(&x0), "the sweeps moved nothing");
            let non_finite: Vec<usize> = (0..x_scalar.len()).filter(|&i| !x_scalar[i].is_finite()).collect();
            assert_eq!(non_finite, [NAN_PARTICLE], "the NaN stays in its particle");
            assert_eq!(bits(&x_scalar), bits(&x_from_zero), "compliance {compliance}: stale λ after a fresh sweep");
            assert_eq!(lambda_bits(&scalar), lambda_bits(&from_zero), "compliance {compliance}: stale λ after a fresh sweep");
            assert_eq!(bits(&x_lanes), bits(&x_scalar), "compliance {compliance}");
            assert_eq!(lambda_bits(&lanes), lambda_bits(&scalar), "compliance {compliance}");
            assert_eq!(bits(&x_lanes4), bits(&x_scalar), "compliance {compliance}, 4 lanes");
            assert_eq!(lambda_bits(&lanes4), lambda_bits(&scalar), "compliance {compliance}, 4 lanes");
            assert_eq!(bits(&x_parallel), bits(&x_scalar), "compliance {compliance}, two threads");
            assert_eq!(lambda_bits(&parallel), lambda_bits(&scalar), "compliance {compliance}, two threads");
            result.extend(bits(&x_scalar));
        }
        result
    }
}
