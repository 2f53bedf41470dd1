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
//! The kernel is tested against the inequality written from the paper in `src/reference/tether.rs`.

use super::access::{ROW_BYTES, RowOffsets, SolverParticle, row_offset};
use super::colouring::permute;
use super::sweep::{Sweep, sweep};
use super::access::Positions;
use super::team::ColourCut;
use super::SubstepCoefficients;
use glam::Vec3;
use std::cmp::Reverse;
use crate::mesh::adjacency::Adjacency;
use std::collections::BinaryHeap;

pub(crate) mod kernel;
#[cfg(test)]
mod tests;

use kernel::TetherSweep;

/// Tethers per free particle: to this many nearest anchors (fewer if the cloth has fewer).
///
/// Two: with one, each half of a sheet pinned at two corners is held towards its own pin and the
/// edges between the halves take the stretch; with two, every particle ends exactly inside both
/// bounds (a rigid pair is projected onto its two-ball lens at once, `kernel::project_pair`); with four, the alternating projections leave particles beyond a
/// bound (docs/design.md, "Tethers"; the measurement: docs/dev/performance-log.md, "2026-11-29 —
/// Stability aids on the light stiff cloth").
pub const TETHERS_PER_PARTICLE: usize = 2;

/// Relative tolerance of "the particle lies on a straight line to its anchor"
/// ([`TetherConstraints::put_straight_groups_first`]): f32 rounding of a straight chain of
/// links stays far below it.
const STRAIGHT_TOLERANCE: f32 = 1e-4;


/// A path along the links at most this much longer than the straight line between a flat mesh's
/// particle and its anchor is taken to be that straight line ([`TetherConstraints::straighten`]).
const STRAIGHT_SHORTCUT: f32 = 1.1;

/// All tethers of one cloth, structure-of-arrays, grouped by particle. The fields are private
/// because the unchecked sweeps rely on them agreeing: one anchor and one distance per tether,
/// each particle's tethers one run (its group) and no tethered particle an anchor (so a group
/// writes only its own particle, which no other group reads: the groups run on several threads at
/// once), `full_groups_end` marking where the groups of exactly [`TETHERS_PER_PARTICLE`] end, and
/// row offsets derived from the current particles and anchors. Every change goes through
/// [`Self::build`] (which makes them so), the reorderings of whole groups, or [`Self::new`] and
/// [`Self::edit`], which check what can be checked in one pass and leave the rest to the caller.
#[derive(Clone, Debug, Default)]
pub struct TetherConstraints {
    /// Constrained (free) particle.
    particle: Vec<u32>,
    /// Anchor (kinematic) particle, one per tether.
    anchor: Vec<u32>,
    /// Rest geodesic distance d_geo \[m\] (before the slack factor), one per tether.
    geodesic_distance: Vec<f32>,
    /// Tethers `0 .. full_groups_end` form groups of exactly [`TETHERS_PER_PARTICLE`] tethers and
    /// the other groups follow ([`TetherConstraints::put_full_groups_first`], which `build`
    /// calls): the sweep takes those groups 8 or 4 at a time without looking for where each one
    /// ends (that scan was a large share of the tether sweep's instructions:
    /// docs/dev/performance-log.md, "2026-11-30 — Fewer instructions per projection").
    /// 0 when the tethers are not arranged so: then every group is projected one at a time (the
    /// same bits). Groups move only their own particle, so their order changes no bit.
    full_groups_end: usize,
    /// Byte offsets of each tether's particle and anchor rows, derived from `particle` and
    /// `anchor` and checked at the top of the first step after they changed
    /// ([`Self::prepare_rows`]); what the lane-wise kernel addresses rows by. [`Self::edit`] and
    /// the reorderings mark them stale.
    row_offsets: RowOffsets<2>,
}

/// The arrays of [`TetherConstraints`] lent to [`TetherConstraints::edit`].
pub(crate) struct TetherArrays<'a> {
    /// Constrained (free) particle per tether.
    pub particle: &'a mut Vec<u32>,
    /// Anchor (kinematic) particle per tether.
    pub anchor: &'a mut Vec<u32>,
    /// Rest geodesic distance d_geo \[m\] per tether.
    pub geodesic_distance: &'a mut Vec<f32>,
    /// As [`TetherConstraints::full_groups_end`].
    pub full_groups_end: &'a mut usize,
}

/// A particle's settled (anchor, rest distance \[m\]) labels of the K-nearest-anchors search, in
/// order of distance.
#[derive(Clone, Copy)]
struct Labels<const K: usize> {
    settled: [(u32, f64); K],
    len: usize,
}

impl<const K: usize> Default for Labels<K> {
    fn default() -> Self {
        Labels { settled: [(0, 0.0); K], len: 0 }
    }
}

impl<const K: usize> Labels<K> {
    fn has(&self, anchor: u32) -> bool {
        self.settled[..self.len].iter().any(|&(a, _)| a == anchor)
    }

    fn push(&mut self, anchor: u32, d: f64) {
        self.settled[self.len] = (anchor, d);
        self.len += 1;
    }
}

/// The shortest distances \[m\] pushed for a particle from its last few anchors.
#[derive(Clone, Copy)]
struct Pushed([(u32, f64); PUSHED_REMEMBERED]);

/// Anchors whose shortest pushed distance a particle remembers ([`Pushed`]).
const PUSHED_REMEMBERED: usize = 4;

impl Default for Pushed {
    fn default() -> Self {
        Pushed([(u32::MAX, f64::INFINITY); PUSHED_REMEMBERED])
    }
}

impl Pushed {
    /// Whether distance `d` from `anchor` is worth a push: shorter than any pushed before from it
    /// (or from an anchor no longer remembered). Remembers it, in place of the longest entry.
    fn offer(&mut self, anchor: u32, d: f64) -> bool {
        if let Some(e) = self.0.iter_mut().find(|e| e.0 == anchor) {
            if d >= e.1 {
                return false;
            }
            e.1 = d;
            return true;
        }
        let slot = (0..PUSHED_REMEMBERED).max_by(|&a, &b| self.0[a].1.total_cmp(&self.0[b].1).then(b.cmp(&a))).unwrap_or(0);
        self.0[slot] = (anchor, d);
        true
    }
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
    /// `links` and `link_length` \[m\] describe the rest distance graph (mesh edges, optionally plus
    /// shortcuts such as hinge diagonals); `w` are the inverse masses (anchors have `w == 0`).
    /// Groups of exactly [`TETHERS_PER_PARTICLE`] tethers come first
    /// (`put_full_groups_first`); a cloth then also puts the straight ones first
    /// (`put_straight_groups_first`, which needs positions).
    pub fn build(particle_count: usize, links: &[[u32; 2]], link_length: &[f32], w: &[f32]) -> Self {
        const K: usize = TETHERS_PER_PARTICLE;
        let graph = Adjacency::new(particle_count, links, |k| link_length[k]);

        // Up to K settled (anchor, distance) labels per particle, in order of distance.
        let mut labels = vec![Labels::<K>::default(); particle_count];
        // The smallest distance pushed so far for a few (particle, anchor) pairs: a push that is
        // not shorter is skipped. That changes no label: the shorter entry pops first and either
        // settles the pair (the longer one would then be skipped) or finds the particle full.
        let mut pushed = vec![Pushed::default(); particle_count];
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
            if l.len >= K || l.has(anchor) {
                continue;
            }
            let d = f64::from_bits(d_bits);
            l.push(anchor, d);
            for &(q, len) in graph.links_of(p as usize) {
                let lq = &labels[q as usize];
                let dq = d + len as f64;
                if lq.len < K && !lq.has(anchor) && pushed[q as usize].offer(anchor, dq) {
                    heap.push(Reverse((dq.to_bits(), q, anchor)));
                }
            }
        }

        let (mut particle, mut anchor, mut geodesic_distance) = (Vec::new(), Vec::new(), Vec::new());
        for (p, l) in labels.iter().enumerate() {
            if w[p] > 0.0 {
                for &(a, d) in &l.settled[..l.len] {
                    particle.push(p as u32);
                    anchor.push(a);
                    geodesic_distance.push(d as f32);
                }
            }
        }
        // SAFETY: each particle's labels are pushed together, and only particles with w > 0 get
        // tethers, to anchors with w = 0.
        let mut t = unsafe { Self::new(particle, anchor, geodesic_distance) };
        t.put_full_groups_first();
        t
    }

    /// Tethers as given, not arranged ([`Self::full_groups_end`] 0): the particle, anchor and
    /// rest geodesic distance d_geo \[m\] of each (one of each per tether; panics otherwise), room
    /// for their row offsets reserved.
    ///
    /// # Safety
    /// Each particle's tethers are one run of consecutive tethers, and no tether's particle is any
    /// tether's anchor: the sweep runs the groups on several threads at once, each writing its
    /// particle and reading its anchors.
    pub(crate) unsafe fn new(particle: Vec<u32>, anchor: Vec<u32>, geodesic_distance: Vec<f32>) -> Self {
        let row_offsets = RowOffsets::with_capacity(particle.len());
        let t = TetherConstraints { particle, anchor, geodesic_distance, full_groups_end: 0, row_offsets };
        t.check_shape();
        t
    }

    /// Constrained (free) particle per tether, in storage order (grouped by particle).
    #[inline]
    pub fn particle(&self) -> &[u32] {
        &self.particle
    }

    /// Anchor (kinematic) particle per tether.
    #[inline]
    pub fn anchor(&self) -> &[u32] {
        &self.anchor
    }

    /// Rest geodesic distance d_geo \[m\] (before the slack factor) per tether.
    #[inline]
    pub fn geodesic_distance(&self) -> &[f32] {
        &self.geodesic_distance
    }

    /// Where the groups of exactly [`TETHERS_PER_PARTICLE`] tethers, stored first, end (0 when
    /// the tethers are not arranged so; [`Self::put_full_groups_first`]). For tests: the sweep
    /// reads the field.
    #[cfg(test)]
    pub(crate) fn full_groups_end(&self) -> usize {
        self.full_groups_end
    }

    /// The tethers' particle and anchor row offsets ([`Self::prepare_rows`]). For tests: the
    /// sweep reads the field.
    #[cfg(test)]
    pub(crate) fn row_offsets(&self) -> &RowOffsets<2> {
        &self.row_offsets
    }

    /// Change the tethers in place through `f`. Afterwards the row offsets are derived again at
    /// the next [`Self::prepare_rows`], and the arrays are checked to agree (one anchor and one
    /// distance per tether, the tethers before `full_groups_end` groups of exactly
    /// [`TETHERS_PER_PARTICLE`] tethers of one particle; panics otherwise). Unsafe because what
    /// the sweep's threads rely on is not checked: that takes a mark per particle (an
    /// allocation), and tearing edits the tethers without allocating.
    ///
    /// # Safety
    /// After `f`, each particle's tethers are one run and no tether's particle is an anchor, as
    /// for [`Self::new`].
    pub(crate) unsafe fn edit<R>(&mut self, f: impl FnOnce(TetherArrays<'_>) -> R) -> R {
        let arrays = TetherArrays {
            particle: &mut self.particle,
            anchor: &mut self.anchor,
            geodesic_distance: &mut self.geodesic_distance,
            full_groups_end: &mut self.full_groups_end,
        };
        let r = f(arrays);
        self.row_offsets.indices_changed();
        self.check_shape();
        r
    }

    /// Room for `tethers` tethers without allocating (a tearable cloth).
    pub(crate) fn reserve(&mut self, tethers: usize) {
        for v in [&mut self.particle, &mut self.anchor] {
            v.reserve(tethers.saturating_sub(v.len()));
        }
        self.geodesic_distance.reserve(tethers.saturating_sub(self.geodesic_distance.len()));
        self.row_offsets.reserve(tethers);
    }

    /// Panics unless there is one anchor and one distance per tether and the tethers before
    /// `full_groups_end` (a multiple of [`TETHERS_PER_PARTICLE`], at most the tether count) are
    /// groups of exactly that many tethers of one particle each (the tether after each group, if
    /// any, of another particle).
    fn check_shape(&self) {
        const K: usize = TETHERS_PER_PARTICLE;
        let (particle, end) = (&self.particle, self.full_groups_end);
        let n = particle.len();
        assert!(self.anchor.len() == n && self.geodesic_distance.len() == n, "one anchor and one distance per tether");
        assert!(end <= n && end.is_multiple_of(K), "full groups end at {end} of {n} tethers");
        let one_particle = |group: &[u32]| group.iter().all(|&p| p == group[0]);
        let full = particle[..end].chunks_exact(K).enumerate().all(|(g, group)| one_particle(group) && particle.get(K * (g + 1)) != Some(&group[0]));
        assert!(full, "the tethers before {end} are not groups of exactly {K} tethers of one particle");
    }

    /// On a flat rest mesh (rest positions `rest` \[m\]): each tether's distance becomes the
    /// straight rest distance where the shortest path along the links is at most
    /// [`STRAIGHT_SHORTCUT`] times longer. The links' paths overestimate a straight geodesic by up to
    /// 8 % (a path of edges and diagonals at 22.5° to the grid), and near a taut line between two
    /// pins that overestimate let a row sag centimetres; a path much longer than the straight line
    /// goes round a cut of the mesh and is kept.
    pub(crate) fn straighten(&mut self, rest: &[Vec3]) {
        for ((d, &p), &a) in self.geodesic_distance.iter_mut().zip(&self.particle).zip(&self.anchor) {
            let straight = rest[p as usize].distance(rest[a as usize]);
            if *d <= STRAIGHT_SHORTCUT * straight {
                *d = straight;
            }
        }
    }

    /// Reorder the full groups ([`TetherConstraints::full_groups_end`]) stably so that those whose
    /// particle lies, in the pose `x` \[m\], on a straight line to one of its anchors come first:
    /// |x_i − x_a| ≥ (1 − [`STRAIGHT_TOLERANCE`])·d_geo, a straight geodesic. Those are the
    /// tethers a cloth hanging from its pins pulls taut: the edge between two pins, the columns
    /// and diagonals below them. The lane-wise sweep skips a batch of groups when none of its
    /// tethers is violated; in particle order the taut ones were spread over most batches
    /// (docs/dev/performance-log.md, "2026-11-30 — 16-lane AVX-512 kernels and tether ordering").
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

    /// One Gauss–Seidel sweep; `lambda` are the multipliers λ \[N·s²\] (`f32[tether count]`), `slack`
    /// is s, `compliance` α \[m/N\] for all tethers. With
    /// `parallel`, particle groups are spread over the current rayon pool: a group moves only its
    /// own particle and reads only kinematic anchors, so the bits are the same.
    ///
    /// Tethers are stored grouped by particle, and an anchor is kinematic, so a group moves only its
    /// own particle: a rigid pair (α = 0) is put on the nearest point of its two-ball lens at once
    /// ([`kernel::project_pair`]), any other group is projected up to
    /// [`GROUP_ROUNDS`](kernel::GROUP_ROUNDS) times in a row (alternating projections onto the
    /// intersection of its balls), so a particle ends inside every tether bound. For the same
    /// reason all groups form one "colour" (they share no particle they write), which is always
    /// handed to the lane-wise path: 8 (AVX) or [`LANES`](super::lanes::LANES) groups of [`TETHERS_PER_PARTICLE`]
    /// tethers at once.
    ///
    /// # Safety
    /// Every particle and anchor index is `< x.len()` and [`Self::row_offsets`] are derived from
    /// the current tethers (both by [`Self::prepare_rows`]). That no group writes a particle
    /// another group reads or writes is kept by the type (one run per particle, no tethered
    /// particle an anchor: [`Self::build`], and the promise of [`Self::new`] and [`Self::edit`]).
    /// (`w` may have changed since the tethers were made: a group moves its particle by its current
    /// inverse mass, not at all once it is pinned, and an anchor released since is still only
    /// read.)
    // Out of line so that profilers attribute the sweep to it; once per substep.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn solve_in_bounds(&self, lambda: &mut [f32], x: &mut [SolverParticle], w: &[f32], slack: f32, compliance: f32, k: &SubstepCoefficients, fresh: bool) {
        let all = [0, self.particle.len() as u32];
        let kernel = self.kernel(w, slack, compliance, k, fresh);
        // SAFETY: the caller's contract; the kernel reads particles only through `particle`,
        // `anchor` and their row offsets, and its one colour's groups touch disjoint particles
        // (the type's invariant).
        unsafe { sweep(&kernel, x, lambda, Some(&all)) };
    }

    /// Cut the tethers (one colour of all groups) into `parts` for a team ([`ColourCut::of_sweep`]).
    pub(crate) fn cut(&self, parts: usize, cut: &mut ColourCut) {
        let k = SubstepCoefficients { inv_h2: 0.0, damping_over_h: 0.0 };
        // The cut reads the kernel's split points only (groups stay whole), not its inputs.
        let kernel = self.kernel(&[], 1.0, 0.0, &k, false);
        cut.of_sweep(&kernel, &[0, self.particle.len() as u32], 0, parts);
    }

    /// Project tethers `first .. first + lambda.len()` (whole groups), `lambda` their multipliers;
    /// the rest as [`Self::solve_in_bounds`].
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn project_range<P: Positions + ?Sized>(&self, w: &[f32], slack: f32, compliance: f32, k: &SubstepCoefficients, fresh: bool, first: usize, lambda: &mut [f32], x: &mut P) {
        self.kernel(w, slack, compliance, k, fresh).project_disjoint(first, lambda, x);
    }

    /// The projection kernel.
    fn kernel<'a>(&'a self, w: &'a [f32], slack: f32, compliance: f32, k: &'a SubstepCoefficients, fresh: bool) -> TetherSweep<'a> {
        let (particle, anchor, geodesic_distance) = (&self.particle[..], &self.anchor[..], &self.geodesic_distance[..]);
        let (full_groups_end, row_offsets) = (self.full_groups_end, self.row_offsets.as_slice());
        TetherSweep { fresh, particle, anchor, row_offsets, geodesic_distance, full_groups_end, w, slack, compliance, k }
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

    /// Whether [`Self::prepare_rows`] holds for `particle_count` without deriving anything
    /// ([`RowOffsets::ready_for`]).
    pub(crate) fn rows_ready(&self, particle_count: usize) -> bool {
        let derived = self.particle.iter().zip(&self.anchor).flat_map(|(&i, &a)| [i, a]).map(|i| i.wrapping_mul(ROW_BYTES as u32));
        self.row_offsets.ready_for(self.particle.len(), particle_count, derived)
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

    /// The stretch the anchors' positions `x` \[m\] force on the cloth: over every particle
    /// tethered to two anchors a and b at rest distances d_a and d_b along the mesh, the largest
    /// ‖x_a − x_b‖/(d_a + d_b) − 1, or 0. The cloth's shortest path between them is at least that
    /// stretched on average, whatever the solver does.
    pub(crate) fn anchor_strain(&self, x: &[Vec3]) -> f32 {
        let mut worst = 0.0f32;
        for c in 1..self.particle.len() {
            if self.particle[c] != self.particle[c - 1] {
                continue;
            }
            let (a, b) = (self.anchor[c - 1] as usize, self.anchor[c] as usize);
            let rest = self.geodesic_distance[c - 1] + self.geodesic_distance[c];
            if rest > 0.0 {
                worst = worst.max(x[a].distance(x[b]) / rest - 1.0);
            }
        }
        worst
    }
}
