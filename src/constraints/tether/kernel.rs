//! The tether sweep ([`TetherSweep`]): a free particle's group of tethers projected together,
//! lane-wise for groups of [`TETHERS_PER_PARTICLE`] (16, 8 or 4 groups at a time), one at a time
//! for the rest, with the same bits either way.

use super::TETHERS_PER_PARTICLE;
use crate::constraints::access::{Positions, gather_rows_at};
use crate::constraints::lanes::{LANES, LaneSet, Lanes, Real, V3, v3};
#[cfg(target_arch = "x86_64")]
use crate::constraints::lanes_avx::{Lanes8, avx_available};
use crate::constraints::sweep::Sweep;
use crate::constraints::{MIN_DENOMINATOR, SubstepCoefficients, xpbd_delta_lambda_parts};
use glam::Vec3;

/// Consecutive projections of one particle's tether group per sweep (see `solve`).
pub(crate) const GROUP_ROUNDS: usize = 3;

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

/// The tether projection for [`sweep`](crate::constraints::sweep::sweep): whole particle groups, never split.
#[derive(Clone, Copy)]
pub(super) struct TetherSweep<'a> {
    /// Zero the multipliers of a range before projecting it (the first sweep of a substep: no
    /// pass over all of them on one thread before the sweep).
    pub(super) fresh: bool,
    pub(super) particle: &'a [u32],
    pub(super) anchor: &'a [u32],
    /// [`TetherConstraints::row_offsets`](super::TetherConstraints::row_offsets).
    pub(super) row_offsets: &'a [[u32; 2]],
    pub(super) geodesic_distance: &'a [f32],
    /// [`TetherConstraints::full_groups_end`](super::TetherConstraints::full_groups_end).
    pub(super) full_groups_end: usize,
    pub(super) w: &'a [f32],
    pub(super) slack: f32,
    pub(super) compliance: f32,
    pub(super) k: &'a SubstepCoefficients,
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

    /// The full groups ([`TetherConstraints::full_groups_end`](super::TetherConstraints::full_groups_end)) 8 at a time where the CPU has AVX,
    /// else [`LANES`] (`project_groups`), the rest of them as one partial batch, the other groups
    /// one at a time: the same bits as [`Sweep::project_range`], since groups share no particle
    /// they write, so their order does not matter, and every width does the same IEEE operations
    /// per lane. Not 16 at a time where the CPU has AVX-512, as edges and hinges are: a batch
    /// runs its rounds while any lane's tethers are violated, and of 16 lanes more often one is
    /// (docs/dev/performance-log.md, "2026-11-30 — 16-lane AVX-512 kernels and tether ordering").
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
    /// The full groups ([`TetherConstraints::full_groups_end`](super::TetherConstraints::full_groups_end)) `N` at a time, the rest of them as
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
    /// cloths a share of their step (docs/dev/performance-log.md, "2026-11-30 — 16-lane AVX-512
    /// kernels and tether ordering").
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
        // Usually no tether of the batch is violated (most batches of a hanging cloth, with the
        // straight groups first: `put_straight_groups_first`): then the first round projects
        // nothing in any lane and every lane's scalar rounds stop there, which this test finds
        // without a division.
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
            // The particles' offsets read again rather than kept in `i` (as for hinges, `bending.rs`;
            // docs/dev/performance-log.md, "2026-11-30 — Offsets re-read at write-back, padded
            // colour remainders, many small cloths").
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
        // Only between two kinematic anchors, and never for a particle pinned since the tethers
        // were built (the pin holds it).
        if w[a1] != 0.0 || w[a2] != 0.0 || w[i] == 0.0 {
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
        // along a pole away from the origin folded onto its pole; docs/dev/performance-log.md,
        // "2026-11-29 — Stability aids on the light stiff cloth").
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

    /// One projection of tether `c`. Only the particle moves: anchors are kinematic when `build`
    /// chose them, and leaving them unwritten lets groups run in parallel (an anchor released
    /// since, until the layout of the new pins is in place, is still only read). Tethers are
    /// undamped (γ = 0), so x_prev is not read. Returns whether the tether was violated (and so
    /// projected).
    #[inline(always)]
    fn project<P: Positions + ?Sized>(&self, c: usize, lambda: &mut f32, x: &mut P) -> bool {
        let (i, a) = (self.particle[c] as usize, self.anchor[c] as usize);
        let (wi, wa) = (self.w[i], self.w[a]);
        let bound = self.slack * self.geodesic_distance[c];
        let (violated, new_lambda, xi) =
            project_tether(v3(x.get(i)), v3(x.get(a)), wi, wa, bound, self.compliance, *lambda, self.k);
        *lambda = new_lambda;
        x.set(i, xi.to_vec3());
        violated
    }
}
