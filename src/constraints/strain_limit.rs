//! Strain limit: the hard inequality ‖x_i − x_j‖ ≤ s·L on every edge (Provot 1995, "Deformation
//! constraints in a mass-spring model to describe rigid cloth behavior", §5: the edges stretched
//! beyond a critical deformation rate are shortened to it, iteratively), with s the cloth's
//! stretch limit ([`crate::ClothParams::max_stretch`]).
//!
//! C(x) = ‖x_i − x_j‖ − s·L ≤ 0, ∇_i C = n = (x_i − x_j)/‖x_i − x_j‖, ∇_j C = −n; projected with
//! α = 0 (XPBD eq. 18 with α̃ = 0): x_i −= w_i/(w_i + w_j)·C·n, x_j += w_j/(w_i + w_j)·C·n, only
//! while violated, so it never pulls and an edge within its limit keeps what its compliance gives.
//! Finding the violated edges is a lane-wise pass over all of them ([`StretchConstraints::over_limit`]);
//! projecting them is per edge ([`StretchConstraints::limit_edge`]), since few are violated at
//! once. The solver's rounds over the violated edges and their neighbours:
//! `solver/strain_limit.rs`. Tested against the reference distance projection
//! (`src/reference/distance.rs`) with rest length s·L and α = 0.

use super::StretchConstraints;
use super::access::{Positions, SharedPositions, SolverParticle, column, constraint_particles, gather_rows_at};
use super::lanes::{LANES, LaneSet, Lanes};
#[cfg(target_arch = "x86_64")]
use super::lanes_avx::{Lanes8, avx_available};
#[cfg(target_arch = "x86_64")]
use super::lanes_avx512::{Lanes16, avx512_available};

impl StretchConstraints {
    /// Append to `out`, in storage order, the index of every edge longer than `factor` times its
    /// rest length at the positions of `rows` (factor ≥ 1). 16, 8 or [`LANES`] edges at a time,
    /// the rest one at a time. With `split`, the second half of the edges is scanned on another
    /// thread of the current rayon pool into `split` and appended: the same list. Allocates only
    /// when `out` or `split` has less room than the edges.
    ///
    /// # Safety
    /// The row offsets are derived from the current edges for `rows.len()` particles
    /// ([`Self::prepare_rows`]).
    pub(crate) unsafe fn over_limit(&self, rows: &mut [SolverParticle], factor: f32, out: &mut Vec<u32>, split: Option<&mut Vec<u32>>) {
        // SAFETY: the caller's contract (indices in bounds); the view is only read, by both halves.
        let x = unsafe { SharedPositions::new(rows) };
        let n = self.edges().len();
        match split {
            Some(second) => {
                // A multiple of every lane width, so each half batches as the whole would.
                let mid = n / 2 / 16 * 16;
                second.clear();
                rayon::join(|| self.over_limit_in(&x, factor, 0..mid, out), || self.over_limit_in(&x, factor, mid..n, second));
                out.extend_from_slice(second);
            }
            None => self.over_limit_in(&x, factor, 0..n, out),
        }
    }

    /// [`Self::over_limit`] for the edges of `range` (its start a multiple of 16), with the widest
    /// lanes the CPU has.
    fn over_limit_in(&self, x: &SharedPositions<'_>, factor: f32, range: std::ops::Range<usize>, out: &mut Vec<u32>) {
        #[cfg(target_arch = "x86_64")]
        if avx512_available() {
            // SAFETY: the CPU has AVX-512F (checked above).
            return unsafe { self.over_limit_avx512(x, factor, range, out) };
        }
        #[cfg(target_arch = "x86_64")]
        if avx_available() {
            // SAFETY: the CPU has AVX (checked above).
            return unsafe { self.over_limit_avx(x, factor, range, out) };
        }
        self.over_limit_lane_wise::<LANES, Lanes>(x, factor, range, out);
    }

    /// [`Self::over_limit_in`] 16 edges at a time.
    ///
    /// # Safety
    /// The CPU must have AVX-512F.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn over_limit_avx512(&self, x: &SharedPositions<'_>, factor: f32, range: std::ops::Range<usize>, out: &mut Vec<u32>) {
        self.over_limit_lane_wise::<16, Lanes16>(x, factor, range, out);
    }

    /// [`Self::over_limit_in`] 8 edges at a time.
    ///
    /// # Safety
    /// The CPU must have AVX.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    unsafe fn over_limit_avx(&self, x: &SharedPositions<'_>, factor: f32, range: std::ops::Range<usize>, out: &mut Vec<u32>) {
        self.over_limit_lane_wise::<8, Lanes8>(x, factor, range, out);
    }

    /// [`Self::over_limit_in`] `N` edges at a time: ‖d‖² > (s·L)² lane by lane (no square root).
    #[inline(always)]
    fn over_limit_lane_wise<const N: usize, L: LaneSet<N>>(&self, x: &SharedPositions<'_>, factor: f32, range: std::ops::Range<usize>, out: &mut Vec<u32>) {
        use crate::constraints::access::Positions;
        let offsets = self.row_offsets().as_slice();
        let batched = range.start + (range.end - range.start) / N * N;
        let (one, zero) = (L::splat(1.0), L::splat(0.0));
        for c0 in (range.start..batched).step_by(N) {
            let batch: &[[u32; 2]; N] = offsets[c0..c0 + N].try_into().expect("a batch of N edges");
            let at: [[usize; 2]; N] = constraint_particles(batch);
            let ((xi, _), (xj, _)) = (gather_rows_at::<N, L, _>(x, column(&at, 0)), gather_rows_at::<N, L, _>(x, column(&at, 1)));
            let d = xi.sub(xj);
            let limit = L::load(self.rest_length(), c0) * L::splat(factor);
            let over = d.dot(d).gt(limit * limit);
            if L::any(over) {
                for (l, flag) in L::select(over, one, zero).to_array().into_iter().enumerate() {
                    if flag != 0.0 {
                        out.push((c0 + l) as u32);
                    }
                }
            }
        }
        for e in batched..range.end {
            let [i, j] = self.edges()[e];
            let d = x.get(i as usize) - x.get(j as usize);
            let limit = self.rest_length()[e] * factor;
            if d.length_squared() > limit * limit {
                out.push(e as u32);
            }
        }
    }

    /// Whether edge `e` is longer than `factor` times its rest length at the positions of `rows`
    /// (the test of [`Self::over_limit`], one edge).
    #[inline]
    pub(crate) fn is_over<P: Positions + ?Sized>(&self, x: &P, e: usize, factor: f32) -> bool {
        let [i, j] = self.edges()[e];
        let d = x.get(i as usize) - x.get(j as usize);
        let limit = self.rest_length()[e] * factor;
        d.length_squared() > limit * limit
    }

    /// Shorten edge `e` to `factor` times its rest length if it is longer, moving its particles of
    /// `x` in proportion to their inverse masses (module docs). Returns whether it moved them
    /// (not when within the limit, both kinematic, coinciding or not finite).
    pub(crate) fn limit_edge<P: Positions + ?Sized>(&self, x: &mut P, e: usize, factor: f32) -> bool {
        let [i, j] = self.edges()[e].map(|p| p as usize);
        let (xi, xj) = (SolverParticle::from_array(x.row(i)), SolverParticle::from_array(x.row(j)));
        let (wi, wj) = (xi.w, xj.w);
        let d = xi.truncate() - xj.truncate();
        let len = d.length();
        let c = len - factor * self.rest_length()[e];
        let w = wi + wj;
        if !(c > 0.0 && w > 0.0 && len.is_finite()) {
            return false;
        }
        let t = c / (len * w);
        x.set(i, xi.truncate() - d * (wi * t));
        x.set(j, xj.truncate() + d * (wj * t));
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    /// Random edges over random rows (stretched, compressed, pinned ends, coinciding particles),
    /// more than a batch of every width with a remainder: the lane-wise pass finds exactly the
    /// edges the scalar inequality calls violated, for every lane width, in one piece and split
    /// in halves over a pool of two threads.
    #[test]
    fn the_lane_wise_pass_finds_exactly_the_edges_over_their_limit() {
        let mut u = crate::test_util::uniform(77);
        let mut rows: Vec<SolverParticle> = (0..60).map(|k| Vec3::new(u(), u(), u()).extend(if k % 7 == 0 { 0.0 } else { 1.0 })).collect();
        rows[5] = rows[4];
        let (mut edges, mut rest_length) = (Vec::new(), Vec::new());
        for e in 0..203u32 {
            let (i, j) = (e % 60, (e * 7 + 3) % 60);
            edges.push([i, if i == j { (j + 1) % 60 } else { j }]);
            rest_length.push(0.3 + 0.5 * (u() + 1.0));
        }
        edges.push([4, 5]);
        rest_length.push(0.1);
        let mut s = StretchConstraints::new(edges, rest_length);
        assert!(s.prepare_rows(rows.len()));
        let factor = 1.1;
        let expected: Vec<u32> = (0..s.edges().len() as u32)
            .filter(|&e| {
                let [i, j] = s.edges()[e as usize];
                let d = rows[i as usize].truncate() - rows[j as usize].truncate();
                d.length() > factor * s.rest_length()[e as usize]
            })
            .collect();
        assert!(expected.len() > 20 && expected.len() < s.edges().len() - 20, "{} of {}", expected.len(), s.edges().len());
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let mut check = || {
            let (mut found, mut split, mut second) = (Vec::new(), Vec::new(), Vec::new());
            // SAFETY: the row offsets were derived for these rows above.
            unsafe { s.over_limit(&mut rows, factor, &mut found, None) };
            assert_eq!(found, expected);
            // SAFETY: as above.
            pool.install(|| unsafe { s.over_limit(&mut rows, factor, &mut split, Some(&mut second)) });
            assert_eq!(split, expected, "split in halves");
        };
        check();
        #[cfg(target_arch = "x86_64")]
        {
            crate::constraints::lanes_avx::tests::avx_only(&mut check);
            crate::constraints::lanes_avx::tests::sse_only(&mut check);
        }
    }

    /// An edge stretched to 2 L with one end pinned is shortened to exactly s·L by moving the free
    /// end alone; one within its limit, or with both ends pinned, is left as it is.
    #[test]
    fn a_violated_edge_is_shortened_to_its_limit_by_inverse_mass() {
        let s = StretchConstraints::new(vec![[0, 1], [1, 2], [3, 4]], vec![1.0, 1.0, 1.0]);
        let mut rows = vec![
            Vec3::ZERO.extend(0.0),
            Vec3::new(2.0, 0.0, 0.0).extend(1.0),
            Vec3::new(2.0, 1.05, 0.0).extend(1.0),
            Vec3::ZERO.extend(0.0),
            Vec3::new(0.0, 3.0, 0.0).extend(0.0),
        ];
        let before = rows.clone();
        assert!(!s.limit_edge(&mut rows[..], 1, 1.1), "1.05 L is within 1.1 L");
        assert!(!s.limit_edge(&mut rows[..], 2, 1.1), "both ends kinematic");
        assert_eq!(rows, before);
        assert!(s.limit_edge(&mut rows[..], 0, 1.1));
        assert_eq!(rows[0].truncate(), Vec3::ZERO);
        assert!((rows[1].truncate() - Vec3::new(1.1, 0.0, 0.0)).length() < 1e-6, "{}", rows[1]);
        // Two free ends of equal inverse mass share the correction: 3 L → 1.1 L, 0.95 L each.
        rows[3].w = 1.0;
        rows[4].w = 1.0;
        assert!(s.limit_edge(&mut rows[..], 2, 1.1));
        assert!((rows[3].y - 0.95).abs() < 1e-6 && (rows[4].y - 2.05).abs() < 1e-6, "{} {}", rows[3], rows[4]);
    }

    /// Random violated edges between particles of random inverse masses: one limit projection
    /// moves both ends as the reference's hard distance projection (f64, α = 0, λ = 0, rest length
    /// s·L) does, and leaves the edge at s·L.
    #[test]
    fn a_limit_projection_is_the_reference_distance_projection_to_s_times_l() {
        use crate::reference::distance::project_distance;
        use crate::reference::xpbd::Compliance;
        let mut u = crate::test_util::uniform(19);
        let factor = 1.03;
        for _ in 0..1000 {
            let (a, b) = (Vec3::new(u(), u(), u()), Vec3::new(u(), u(), u()));
            let (wa, wb) = (if u() < -0.6 { 0.0 } else { u() + 1.5 }, u() + 1.5);
            let s = StretchConstraints::new(vec![[0, 1]], vec![a.distance(b) / (factor * (2.1 + u()))]);
            let mut rows = [a.extend(wa), b.extend(wb)];
            assert!(s.limit_edge(&mut rows[..], 0, factor));
            let x = [a.as_dvec3(), b.as_dvec3()];
            let k = Compliance { alpha: 0.0, beta: 0.0, h: 1.0 / 600.0 };
            let p = project_distance(x, x, [wa as f64, wb as f64], (factor * s.rest_length()[0]) as f64, k, 0.0).unwrap();
            for (row, (x, dx)) in rows.iter().zip(x.iter().zip(p.dx)) {
                assert!((row.truncate().as_dvec3() - (x + dx)).length() < 1e-5, "{row} against {}", x + dx);
            }
            let length = rows[0].truncate().distance(rows[1].truncate());
            assert!((length / (factor * s.rest_length()[0]) - 1.0).abs() < 1e-5);
        }
    }
}
