//! Eight lanes in one AVX register, for the coloured sweeps on CPUs that have AVX (chosen at run
//! time by [`avx_available`]; x86-64's baseline is SSE2, which [`Lanes`](super::lanes::Lanes)
//! uses). Every operation is the IEEE single-precision operation of the 4-lane and scalar paths
//! (add, sub, mul, div, sqrt, compares with the scalar operators' NaN rules; no FMA, no
//! approximate reciprocal), so a
//! constraint gets the same bits whichever width projects it, and results do not depend on the CPU.
//!
//! Invariant: a [`Lanes8`] exists only inside functions compiled with
//! `#[target_feature(enable = "avx")]` (or `"avx512f"`, which implies it) that run after
//! [`avx_available`] (or `lanes_avx512::avx512_available`) returned true. Its operations are
//! `#[inline(always)]` so that they are compiled into those functions (with AVX); the `unsafe`
//! blocks below rely on that invariant.

#![allow(unused_unsafe)]

use super::access::SolverParticle;
use super::lanes::{LaneSet, Real, V3};
use std::arch::x86_64::*;

/// Whether this CPU has AVX (std caches the answer after the first call).
#[inline]
pub(crate) fn avx_available() -> bool {
    #[cfg(test)]
    if tests::max_lanes() < 8 {
        return false;
    }
    std::arch::is_x86_feature_detected!("avx")
}

/// Eight single-precision numbers operated on lane by lane (see the module's invariant).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lanes8(__m256);

macro_rules! lane_op {
    ($tr:ident, $f:ident, $intrinsic:ident) => {
        impl std::ops::$tr for Lanes8 {
            type Output = Lanes8;
            #[inline(always)]
            fn $f(self, o: Lanes8) -> Lanes8 {
                // SAFETY: the CPU has AVX (module invariant).
                Lanes8(unsafe { $intrinsic(self.0, o.0) })
            }
        }
    };
}
lane_op!(Add, add, _mm256_add_ps);
lane_op!(Sub, sub, _mm256_sub_ps);
lane_op!(Mul, mul, _mm256_mul_ps);
lane_op!(Div, div, _mm256_div_ps);

impl std::ops::Neg for Lanes8 {
    type Output = Lanes8;
    /// Flips the sign bit, as scalar negation does (also of NaN).
    #[inline(always)]
    fn neg(self) -> Lanes8 {
        // SAFETY: the CPU has AVX (module invariant).
        Lanes8(unsafe { _mm256_xor_ps(self.0, _mm256_set1_ps(-0.0)) })
    }
}

impl Real for Lanes8 {
    #[inline(always)]
    fn splat(v: f32) -> Self {
        // SAFETY: the CPU has AVX (module invariant).
        Lanes8(unsafe { _mm256_set1_ps(v) })
    }
    #[inline(always)]
    fn abs(self) -> Self {
        // SAFETY: as above. Clears the sign bit.
        Lanes8(unsafe { _mm256_andnot_ps(_mm256_set1_ps(-0.0), self.0) })
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        // SAFETY: as above; correctly rounded like `f32::sqrt`.
        Lanes8(unsafe { _mm256_sqrt_ps(self.0) })
    }
    type Mask = Lanes8Mask;
    #[inline(always)]
    fn gt(self, other: Self) -> Lanes8Mask {
        // SAFETY: the CPU has AVX (module invariant). Ordered: false for NaN.
        Lanes8Mask(unsafe { _mm256_cmp_ps::<_CMP_GT_OQ>(self.0, other.0) })
    }
    #[inline(always)]
    fn nle(self, other: Self) -> Lanes8Mask {
        // SAFETY: the CPU has AVX (module invariant). Unordered: true for NaN.
        Lanes8Mask(unsafe { _mm256_cmp_ps::<_CMP_NLE_UQ>(self.0, other.0) })
    }
    #[inline(always)]
    fn select(mask: Lanes8Mask, then: Self, otherwise: Self) -> Self {
        // SAFETY: the CPU has AVX (module invariant). `blendv` takes `then` where the mask's sign
        // bit is set: every bit of a compare's all-ones lanes.
        Lanes8(unsafe { _mm256_blendv_ps(otherwise.0, then.0, mask.0) })
    }
    #[inline(always)]
    fn or_zero(self, mask: Lanes8Mask) -> Self {
        // SAFETY: the CPU has AVX (module invariant). All-ones lanes keep every bit.
        Lanes8(unsafe { _mm256_and_ps(mask.0, self.0) })
    }
    #[inline(always)]
    fn both(a: Lanes8Mask, b: Lanes8Mask) -> Lanes8Mask {
        // SAFETY: the CPU has AVX (module invariant).
        Lanes8Mask(unsafe { _mm256_and_ps(a.0, b.0) })
    }
    #[inline(always)]
    fn either(a: Lanes8Mask, b: Lanes8Mask) -> Lanes8Mask {
        // SAFETY: the CPU has AVX (module invariant).
        Lanes8Mask(unsafe { _mm256_or_ps(a.0, b.0) })
    }
    #[inline(always)]
    fn all(mask: Lanes8Mask) -> bool {
        // SAFETY: the CPU has AVX (module invariant).
        unsafe { _mm256_movemask_ps(mask.0) == 0xff }
    }
    #[inline(always)]
    fn any(mask: Lanes8Mask) -> bool {
        // SAFETY: the CPU has AVX (module invariant).
        unsafe { _mm256_movemask_ps(mask.0) != 0 }
    }
}

/// A condition per lane of [`Lanes8`]: all-ones or all-zeros bits (a compare's result).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lanes8Mask(__m256);

impl LaneSet<8> for Lanes8 {
    #[inline(always)]
    fn from_array(v: [f32; 8]) -> Self {
        // SAFETY: the CPU has AVX (module invariant); the unaligned load reads the 8 floats of `v`.
        Lanes8(unsafe { _mm256_loadu_ps(v.as_ptr()) })
    }
    #[inline(always)]
    fn to_array(self) -> [f32; 8] {
        let mut v = [0.0; 8];
        // SAFETY: as above; the unaligned store writes the 8 floats of `v`.
        unsafe { _mm256_storeu_ps(v.as_mut_ptr(), self.0) };
        v
    }
    /// Rows 0–3 go to the low 128-bit halves and rows 4–7 to the high ones, then one 4 × 4
    /// transpose within each half (AVX's unpack/shuffle work per half).
    #[inline(always)]
    fn rows_to_lanes(rows: [[f32; 4]; 8]) -> (V3<Self>, Self) {
        /// Row `k` in the low half, row `k + 4` in the high half.
        #[inline(always)]
        fn pair(low: [f32; 4], high: [f32; 4]) -> __m256 {
            // SAFETY: the CPU has AVX (module invariant); each load reads the 4 floats of a row.
            unsafe { _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(_mm_loadu_ps(low.as_ptr())), _mm_loadu_ps(high.as_ptr())) }
        }
        let m = [pair(rows[0], rows[4]), pair(rows[1], rows[5]), pair(rows[2], rows[6]), pair(rows[3], rows[7])];
        let [x, y, z, w] = transpose_halves(m);
        (V3 { x: Lanes8(x), y: Lanes8(y), z: Lanes8(z) }, Lanes8(w))
    }
    #[inline(always)]
    fn lanes_and_w_to_rows(v: V3<Self>, w: Self) -> [SolverParticle; 8] {
        // SAFETY: the CPU has AVX (module invariant).
        unsafe {
            let t = transpose_halves([v.x.0, v.y.0, v.z.0, w.0]);
            let mut rows = [SolverParticle::ZERO; 8];
            for (k, t) in t.into_iter().enumerate() {
                rows[k] = SolverParticle::from(_mm256_castps256_ps128(t));
                rows[k + 4] = SolverParticle::from(_mm256_extractf128_ps::<1>(t));
            }
            rows
        }
    }
}

/// The 4 × 4 transpose of each 128-bit half of four registers (`_MM_TRANSPOSE4_PS` per half).
#[inline(always)]
fn transpose_halves(m: [__m256; 4]) -> [__m256; 4] {
    // SAFETY: the CPU has AVX (module invariant).
    unsafe {
        let (t0, t1) = (_mm256_unpacklo_ps(m[0], m[1]), _mm256_unpacklo_ps(m[2], m[3]));
        let (t2, t3) = (_mm256_unpackhi_ps(m[0], m[1]), _mm256_unpackhi_ps(m[2], m[3]));
        [
            _mm256_shuffle_ps::<0b01_00_01_00>(t0, t1),
            _mm256_shuffle_ps::<0b11_10_11_10>(t0, t1),
            _mm256_shuffle_ps::<0b01_00_01_00>(t2, t3),
            _mm256_shuffle_ps::<0b11_10_11_10>(t2, t3),
        ]
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        /// The widest lane type the kernels may take on this thread, so that tests can run the
        /// narrower kernels on a machine that has wider ones ([`avx_available`] and
        /// `lanes_avx512::avx512_available` answer false above it).
        static MAX_LANES: Cell<usize> = const { Cell::new(usize::MAX) };
    }

    /// `f()` with the kernels on this thread (not a world's pool threads) limited to `lanes`.
    fn with_max_lanes<R>(lanes: usize, f: impl FnOnce() -> R) -> R {
        let before = MAX_LANES.with(|max| max.replace(lanes));
        let r = f();
        MAX_LANES.with(|max| max.set(before));
        r
    }

    /// `f()` on the SSE kernels (4 lanes) on a machine with AVX or AVX-512.
    pub(crate) fn sse_only<R>(f: impl FnOnce() -> R) -> R {
        with_max_lanes(4, f)
    }

    /// `f()` on the AVX kernels (8 lanes) on a machine with AVX-512.
    pub(crate) fn avx_only<R>(f: impl FnOnce() -> R) -> R {
        with_max_lanes(8, f)
    }

    /// The widest lane type allowed on this thread ([`sse_only`], [`avx_only`]).
    pub(crate) fn max_lanes() -> usize {
        MAX_LANES.with(|max| max.get())
    }

    /// The hooks narrow the widths the kernels choose, nest, and end with their closure.
    #[test]
    fn width_hooks_limit_the_kernels_on_this_thread() {
        use super::super::lanes_avx512::avx512_available;
        let (avx, avx512) = (avx_available(), avx512_available());
        avx_only(|| {
            assert!(!avx512_available());
            assert_eq!(avx_available(), avx);
            sse_only(|| assert!(!avx_available() && !avx512_available()));
            assert_eq!(avx_available(), avx, "the inner hook's end restores the outer one");
        });
        assert_eq!((avx_available(), avx512_available()), (avx, avx512));
    }

    /// Transposes rows into lanes and back, and computes every operation with the scalar bits
    /// (NaN and signed zero included), in a function compiled with AVX.
    #[test]
    fn eight_lanes_round_trip_and_give_the_scalar_bits() {
        if !avx_available() {
            eprintln!("no AVX on this CPU: the 8-lane kernels never run here");
            return;
        }
        // SAFETY: the CPU has AVX (checked above).
        unsafe { check_eight_lanes() }
    }

    /// # Safety
    /// The CPU must have AVX.
    #[target_feature(enable = "avx")]
    unsafe fn check_eight_lanes() {
        let a = [1.5, -0.0, f32::NAN, -2.25, 1e-30, f32::INFINITY, 3.0, 0.0];
        let b = [0.7, 0.0, 1.0, -2.25, 3e-9, 2.0, f32::NAN, -1.0];
        check_lane_type::<8, Lanes8>(a, b);
    }

    /// For a lane type `L` of `N` lanes (called where the CPU has its instructions): rows turned
    /// into lanes and back, every operation on lanes `a` and `b` against the scalar operation lane
    /// by lane (bit for bit: NaN and signed zero included), and the masks' `all` and `any` with
    /// one odd lane at either end and either side of the middle.
    #[inline(always)]
    pub(crate) fn check_lane_type<const N: usize, L: LaneSet<N>>(a: [f32; N], b: [f32; N]) {
        let rows: [[f32; 4]; N] = std::array::from_fn(|l| std::array::from_fn(|k| (10 * l + k) as f32));
        let (p, w) = L::rows_to_lanes(rows);
        for (l, row) in rows.iter().enumerate() {
            assert_eq!([p.x.to_array()[l], p.y.to_array()[l], p.z.to_array()[l], w.to_array()[l]], *row);
        }
        for (row, back) in rows.iter().zip(L::lanes_to_rows(p)) {
            assert_eq!(back.to_array(), [row[0], row[1], row[2], 0.0]);
        }
        // Through black_box, so that the hardware computes both sides (constant folding may
        // give a NaN another sign than the CPU does).
        let (la, lb) = (L::from_array(std::hint::black_box(a)), L::from_array(std::hint::black_box(b)));
        type Case<L> = (L, fn(f32, f32) -> f32);
        let ops: [Case<L>; 13] = [
            (la + lb, |x, y| x + y),
            (la - lb, |x, y| x - y),
            (la * lb, |x, y| x * y),
            (la / lb, |x, y| x / y),
            (-la, |x, _| -x),
            (la.abs().sqrt(), |x, _| Real::abs(x).sqrt()),
            (la.gt_select(lb, la, lb), |x, y| if x > y { x } else { y }),
            (la.le_select(lb, la, lb), |x, y| if x <= y { x } else { y }),
            (la.min(lb), |x, y| if y > x { x } else { y }),
            (L::select(L::both(la.gt(lb), lb.gt(L::splat(0.0))), la, lb), |x, y| if x > y && y > 0.0 { x } else { y }),
            (la.or_zero(lb.gt(L::splat(0.0))), |x, y| if y > 0.0 { x } else { 0.0 }),
            (L::select(la.nle(lb), la, lb), |x, y| if !(x <= y) { x } else { y }),
            (L::select(L::either(la.gt(lb), lb.nle(la)), la, lb), |x, y| if x > y || !(y <= x) { x } else { y }),
        ];
        for (k, (lanes, scalar)) in ops.into_iter().enumerate() {
            let want: [u32; N] = std::array::from_fn(|l| scalar(a[l], b[l]).to_bits());
            assert_eq!(lanes.to_array().map(f32::to_bits), want, "operation {k}");
        }
        let positive = |v: L| L::all(v.gt(L::splat(0.0)));
        assert!(positive(L::splat(1.0)));
        for l in [0, N / 2 - 1, N / 2, N - 1] {
            let ones_but = |v: f32| L::from_array(std::array::from_fn(|k| if k == l { v } else { 1.0 }));
            assert!(!positive(ones_but(f32::NAN)) && !positive(ones_but(0.0)), "lane {l}");
            let zeros_but = L::from_array(std::array::from_fn(|k| if k == l { f32::NAN } else { 0.0 }));
            assert!(L::any(zeros_but.nle(L::splat(0.0))), "lane {l}");
            assert!(!L::any(zeros_but.gt(L::splat(0.0))), "lane {l}");
        }
    }
}
