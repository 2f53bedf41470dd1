//! The tether sweep ([`TetherSweep`]): a free particle's group of tethers projected together,
//! lane-wise for groups of [`TETHERS_PER_PARTICLE`] (16, 8 or 4 groups at a time), one at a time
//! for the rest, with the same bits either way.

use super::TETHERS_PER_PARTICLE;
use crate::constraints::access::{Positions, gather_rows_at};
use crate::constraints::lanes::{LANES, LaneSet, Lanes, Real, V3, v3};
#[cfg(target_arch = "x86_64")]
use crate::constraints::lanes_avx::{Lanes8, avx_available};
#[cfg(target_arch = "x86_64")]
use crate::constraints::lanes_avx512::{Lanes16, avx512_available};
use crate::constraints::sweep::Sweep;
use crate::constraints::{MIN_DENOMINATOR, SubstepCoefficients, xpbd_delta_lambda_parts};

/// Consecutive projections of one particle's tether group per sweep (see `solve`).
pub(crate) const GROUP_ROUNDS: usize = 3;

/// The rounds of a rigid pair before [`project_pair`] puts it on its lens.
pub(crate) const PAIR_ROUNDS: usize = 1;

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

/// A particle within (1 + this)·r of an anchor counts as inside that tether's ball in
/// [`project_pair`]: the nearest point of a lens whose balls barely overlap is ill-conditioned,
/// that of one ball is not, and f32 rounding leaves a particle put on a sphere a few ulps outside.
pub(crate) const PAIR_INSIDE_TOLERANCE: f32 = 1e-6;

/// The smallest 1 − (n₁·n₂)² [`project_pair`] divides by: the multipliers of a lens whose two
/// normals are within 0.6° of opposite are those of one 0.6° wide (f32 rounding of the normals
/// would otherwise decide them).
const PAIR_MIN_GRAM: f32 = 1e-4;

/// The exact projection of a particle onto two rigid tethers (α = 0) at once: x_i at `xi`
/// \[m\], anchors at `xa`, bounds r = s·d_geo (`bound`), its inverse mass `wi` \[1/kg\], the two
/// multipliers so far (`lambda`). Returns the point q nearest x_i within both balls (the
/// minimal-displacement projection onto C₁ ≤ 0 and C₂ ≤ 0; with one particle moving, the
/// mass-weighted and the plain nearest point agree) and the multipliers after it:
/// - inside both balls (within [`PAIR_INSIDE_TOLERANCE`]): nothing changes;
/// - the nearest point of one ball, when it lies in the other: q = x_a + (x_i − x_a)·r/‖x_i − x_a‖,
///   and that tether's Δλ = −C/w, what one XPBD projection gives (Macklin et al. 2016, eq. 18);
/// - else, balls apart (pins further than the cloth allows): the point on the segment between the
///   anchors that exceeds both bounds by the same fraction, d·r₁/(r₁ + r₂) from anchor 1, and each
///   tether's Δλ = −C/w of its own violation;
/// - else the nearest point of the circle where the spheres meet (centre x_a₁ + t·u with
///   t = (d² + r₁² − r₂²)/(2d), radius √(r₁² − t²)), and the Karush–Kuhn–Tucker multipliers
///   there: q − x_i = w·(Δλ₁·n₁ + Δλ₂·n₂) with the unit normals n_s = (q − x_a_s)/r_s, solved with
///   the 2 × 2 Gram matrix [1 c; c 1], c = n₁·n₂ (1 − c² at least [`PAIR_MIN_GRAM`]), each Δλ ≤ 0
///   (a tether never pulls).
///
/// Alternating single projections approach a thin lens (the top edge of a sheet hung at its
/// corners: balls that barely overlap) only slowly; this is one pass of closed forms, lane-wise
/// with selects. The reference derives the same point from the geometry
/// (`reference::tether::nearest_point_in_two_balls`).
#[inline(always)]
pub(crate) fn project_pair<T: Real>(xi: V3<T>, xa: [V3<T>; 2], wi: T, bound: [T; 2], lambda: [T; 2]) -> (V3<T>, [T; 2]) {
    project_pair_from(pair_outside(xi, xa, wi, bound), xi, xa, wi, bound, lambda)
}

/// [`project_pair`] with its first measurement ([`pair_outside`] of the same arguments) done.
#[inline(always)]
fn project_pair_from<T: Real>(outside: PairOutside<T>, xi: V3<T>, xa: [V3<T>; 2], wi: T, bound: [T; 2], lambda: [T; 2]) -> (V3<T>, [T; 2]) {
    let (zero, one, tiny) = (T::splat(0.0), T::splat(1.0), T::splat(1e-9));
    let PairOutside { moved, d, len, tolerance } = outside;
    // The nearest point of each ball, usable when it lies in the other ball.
    let on_ball = [xa[0].add(d[0].scale(bound[0].min(len[0]) / len[0])), xa[1].add(d[1].scale(bound[1].min(len[1]) / len[1]))];
    let first = T::both(len[0].gt(tiny), not::<T>(length(on_ball[0].sub(xa[1])).gt(tolerance[1])));
    let second = T::both(len[1].gt(tiny), not::<T>(length(on_ball[1].sub(xa[0])).gt(tolerance[0])));
    // The balls apart, or meeting in a circle.
    let axis = xa[1].sub(xa[0]);
    let gap = length(axis);
    let u = axis.scale(one / gap);
    let reach = bound[0] + bound[1];
    let apart = T::both(gap.gt(tiny), not::<T>(reach.gt(gap)));
    let between = xa[0].add(u.scale(gap * bound[0] / reach));
    let t = (gap * gap + bound[0] * bound[0] - bound[1] * bound[1]) / (gap + gap);
    let rho2 = bound[0] * bound[0] - t * t;
    let centre = xa[0].add(u.scale(t));
    let e = xi.sub(centre);
    let radial = e.sub(u.scale(e.dot(u)));
    let radial_len = length(radial);
    let on_circle = centre.add(radial.scale(rho2.max(zero).sqrt() / radial_len));
    let circle = T::both(T::both(gap.gt(tiny), rho2.gt(zero)), radial_len.gt(tiny));
    // In the order of the cases above; a lane in none of them keeps its particle.
    let q = pick(apart, between, pick(circle, on_circle, xi));
    let q = pick(moved, pick(first, on_ball[0], pick(second, on_ball[1], q)), xi);
    // Multipliers: one ball's or each own violation, else the circle's KKT multipliers.
    let own = [(bound[0].min(len[0]) - len[0]) / wi, (bound[1].min(len[1]) - len[1]) / wi];
    let dx = q.sub(xi);
    let n = [q.sub(xa[0]).scale(one / bound[0]), q.sub(xa[1]).scale(one / bound[1])];
    let b = [dx.dot(n[0]) / wi, dx.dot(n[1]) / wi];
    let c = n[0].dot(n[1]);
    let gram = (one - c * c).max(T::splat(PAIR_MIN_GRAM));
    let kkt = [((b[0] - c * b[1]) / gram).min(zero), ((b[1] - c * b[0]) / gram).min(zero)];
    let on_one = T::either(first, second);
    let single = [T::select(first, own[0], zero), T::select(second, own[1], zero)];
    let delta0 = T::select(on_one, single[0], T::select(apart, own[0], T::select(circle, kkt[0], zero)));
    let delta1 = T::select(on_one, single[1], T::select(apart, own[1], T::select(circle, kkt[1], zero)));
    (q, [T::select(moved, lambda[0] + delta0, lambda[0]), T::select(moved, lambda[1] + delta1, lambda[1])])
}

/// What [`project_pair`] measures first: whether it moves the particle (outside a ball beyond
/// [`PAIR_INSIDE_TOLERANCE`], and not pinned), per lane. Where no lane is `moved`, `project_pair`
/// returns its inputs unchanged.
struct PairOutside<T: Real> {
    moved: T::Mask,
    /// x_i − x_a of each tether \[m\].
    d: [V3<T>; 2],
    /// ‖x_i − x_a‖ of each tether \[m\].
    len: [T; 2],
    /// Each ball's radius with the tolerance \[m\].
    tolerance: [T; 2],
}

/// [`PairOutside`] of a particle at `xi` (inverse mass `wi`) and its anchors at `xa`, bounds `bound`.
#[inline(always)]
fn pair_outside<T: Real>(xi: V3<T>, xa: [V3<T>; 2], wi: T, bound: [T; 2]) -> PairOutside<T> {
    let tolerance = [bound[0] * T::splat(1.0 + PAIR_INSIDE_TOLERANCE), bound[1] * T::splat(1.0 + PAIR_INSIDE_TOLERANCE)];
    let d = [xi.sub(xa[0]), xi.sub(xa[1])];
    let len = [length(d[0]), length(d[1])];
    // A particle pinned since the tethers were built (w = 0) is held by its pin, not moved here.
    let moved = T::both(T::either(len[0].gt(tolerance[0]), len[1].gt(tolerance[1])), wi.gt(T::splat(0.0)));
    PairOutside { moved, d, len, tolerance }
}

/// ‖v‖ (of each lane).
#[inline(always)]
fn length<T: Real>(v: V3<T>) -> T {
    v.dot(v).sqrt()
}

/// `!mask` (of each lane).
#[inline(always)]
fn not<T: Real>(mask: T::Mask) -> T::Mask {
    T::select(mask, T::splat(0.0), T::splat(1.0)).gt(T::splat(0.0))
}

/// `if mask { a } else { b }` (of each lane).
#[inline(always)]
fn pick<T: Real>(mask: T::Mask, a: V3<T>, b: V3<T>) -> V3<T> {
    V3 { x: T::select(mask, a.x, b.x), y: T::select(mask, a.y, b.y), z: T::select(mask, a.z, b.z) }
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

    /// The full groups ([`TetherConstraints::full_groups_end`](super::TetherConstraints::full_groups_end)) 16 at a time where the CPU has
    /// AVX-512, 8 where it has AVX, else [`LANES`] (`project_groups`), the rest of them as one
    /// partial batch, the other groups one at a time: the same bits as [`Sweep::project_range`],
    /// since groups share no particle they write, so their order does not matter, and every width
    /// does the same IEEE operations per lane (docs/dev/performance-log.md, "2026-12-07 — Where
    /// the step's time goes against e65cb3f; tethers 16 at a time").
    fn project_disjoint<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
        if self.fresh {
            // Zeroed here once; the kernel that runs (and its one-at-a-time rest through
            // `project_range`) then reads them as they are.
            lambda.fill(0.0);
            return TetherSweep { fresh: false, ..*self }.project_disjoint(first, lambda, x);
        }
        #[cfg(target_arch = "x86_64")]
        if avx512_available() {
            // SAFETY: the CPU has AVX-512F (checked above).
            return unsafe { self.project_disjoint_avx512(first, lambda, x) };
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
            self.project_groups::<N, L, P>(group_start, first, lambda, x);
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
    /// dropped. One at a time, the rest cost small
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
        /// Tethers in the widest batch (16 groups).
        const MAX_TETHERS: usize = 16 * K;
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
        batch.project_groups::<N, L, P>(0, 0, &mut lam[..N * K], x);
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

    /// [`Self::project_batched`] 16 groups at a time in AVX-512 registers.
    ///
    /// # Safety
    /// The CPU must have AVX-512F ([`avx512_available`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn project_disjoint_avx512<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
        self.project_batched::<16, Lanes16, P>(first, lambda, x);
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

    /// Project the group of tethers `start .. end` (multipliers at `lambda[c − first]`) in rounds
    /// ([`GROUP_ROUNDS`], [`PAIR_ROUNDS`] for a rigid pair), then put a rigid pair still outside a
    /// ball on the nearest point of its lens ([`project_pair`]).
    fn project_group<P: Positions + ?Sized>(&self, start: usize, end: usize, first: usize, lambda: &mut [f32], x: &mut P) {
        let pair = end - start == 2 && self.compliance == 0.0;
        for _ in 0..if pair { PAIR_ROUNDS } else { GROUP_ROUNDS } {
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
        if pair {
            let i = self.particle[start] as usize;
            let (a1, a2) = (self.anchor[start] as usize, self.anchor[start + 1] as usize);
            let bound = [self.slack * self.geodesic_distance[start], self.slack * self.geodesic_distance[start + 1]];
            let (k1, k2) = (start - first, start + 1 - first);
            let (q, l) = project_pair(v3(x.get(i)), [v3(x.get(a1)), v3(x.get(a2))], self.w[i], bound, [lambda[k1], lambda[k2]]);
            [lambda[k1], lambda[k2]] = l;
            x.set(i, q.to_vec3());
        }
    }

    /// [`project_group`](Self::project_group) for the `N` full groups of [`TETHERS_PER_PARTICLE`]
    /// tethers from tether `g0` on (group l at `g0 + K·l`): rigid pairs at once, with the same
    /// closed forms as one at a time ([`project_pair`]), else in rounds whose early exit is per
    /// batch: a round runs while any lane's previous round projected something. For a lane whose
    /// previous round projected nothing, the further rounds are exact no-ops (its particle and
    /// anchors are as they were, so its tethers are still unviolated, and `project_tether` then
    /// changes nothing), so each lane gets the bits of its own scalar rounds. Anchors are read
    /// once: kinematic, no tether moves them.
    #[inline(always)]
    fn project_groups<const N: usize, L: LaneSet<N>, P: Positions + ?Sized>(
        &self,
        g0: usize,
        first: usize,
        lambda: &mut [f32],
        x: &mut P,
    ) {
        const K: usize = TETHERS_PER_PARTICLE;
        let zero = L::splat(0.0);
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
            let pair = K == 2 && self.compliance == 0.0;
            for _ in 0..if pair { PAIR_ROUNDS } else { GROUP_ROUNDS } {
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
            // A rigid pair still outside a ball: the nearest point of its lens (a lane inside
            // both keeps its bits, so a batch with no lane outside skips it; a padded lane
            // computes those of the lane it repeats).
            if pair {
                let (anchors, bounds) = ([xa[0], xa[1]], [bound[0], bound[1]]);
                let outside = pair_outside(xi, anchors, wi, bounds);
                if L::any(outside.moved) {
                    let (q, l) = project_pair_from(outside, xi, anchors, wi, bounds, [lam[0], lam[1]]);
                    (xi, lam[0], lam[1]) = (q, l[0], l[1]);
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
