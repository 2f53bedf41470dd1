//! Sixteen lanes in one AVX-512 register, for the coloured sweeps on CPUs that have AVX-512F
//! (chosen at run time by [`avx512_available`]). Every operation is the IEEE single-precision
//! operation of the 8-lane, 4-lane and scalar paths (add, sub, mul, div, sqrt, compares with
//! the scalar operators' NaN rules; no FMA, no approximate reciprocal), so a constraint gets the
//! same bits whichever width projects it, and results do not depend on the CPU.
//!
//! Invariant: a [`Lanes16`] exists only after [`avx512_available`] returned true (the `unsafe`
//! blocks below rely on it). Its operations are `#[inline(always)]` so that, in the kernels, which
//! are compiled with `#[target_feature(enable = "avx512f")]`, they are compiled into the kernel
//! rather than called (a closure is compiled on its own, without AVX-512: the unit test's helper
//! closures are sound, the CPU having been checked, but slow).

#![allow(unused_unsafe)]

use super::access::SolverParticle;
use super::lanes::{LaneSet, Real, V3};
use std::arch::x86_64::*;

/// Whether this CPU has AVX-512F (std caches the answer after the first call).
#[inline]
pub(crate) fn avx512_available() -> bool {
    #[cfg(test)]
    if super::lanes_avx::tests::max_lanes() < 16 {
        return false;
    }
    std::arch::is_x86_feature_detected!("avx512f")
}

/// Sixteen single-precision numbers operated on lane by lane (see the module's invariant).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lanes16(__m512);

macro_rules! lane_op {
    ($tr:ident, $f:ident, $intrinsic:ident) => {
        impl std::ops::$tr for Lanes16 {
            type Output = Lanes16;
            #[inline(always)]
            fn $f(self, o: Lanes16) -> Lanes16 {
                // SAFETY: the CPU has AVX-512F (module invariant).
                Lanes16(unsafe { $intrinsic(self.0, o.0) })
            }
        }
    };
}
lane_op!(Add, add, _mm512_add_ps);
lane_op!(Sub, sub, _mm512_sub_ps);
lane_op!(Mul, mul, _mm512_mul_ps);
lane_op!(Div, div, _mm512_div_ps);

/// The sign bit of every lane.
#[inline(always)]
fn sign_bits() -> __m512i {
    // SAFETY: the CPU has AVX-512F (module invariant).
    unsafe { _mm512_set1_epi32(i32::MIN) }
}

impl std::ops::Neg for Lanes16 {
    type Output = Lanes16;
    /// Flips the sign bit, as scalar negation does (also of NaN).
    #[inline(always)]
    fn neg(self) -> Lanes16 {
        // SAFETY: the CPU has AVX-512F (module invariant); the float xor needs AVX-512DQ, the
        // integer one does not.
        Lanes16(unsafe { _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(self.0), sign_bits())) })
    }
}

impl Real for Lanes16 {
    #[inline(always)]
    fn splat(v: f32) -> Self {
        // SAFETY: the CPU has AVX-512F (module invariant).
        Lanes16(unsafe { _mm512_set1_ps(v) })
    }
    #[inline(always)]
    fn abs(self) -> Self {
        // SAFETY: as above. Clears the sign bit.
        Lanes16(unsafe { _mm512_castsi512_ps(_mm512_andnot_si512(sign_bits(), _mm512_castps_si512(self.0))) })
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        // SAFETY: as above; correctly rounded like `f32::sqrt`.
        Lanes16(unsafe { _mm512_sqrt_ps(self.0) })
    }
    type Mask = Lanes16Mask;
    #[inline(always)]
    fn gt(self, other: Self) -> Lanes16Mask {
        // SAFETY: the CPU has AVX-512F (module invariant). Ordered: false for NaN.
        Lanes16Mask(unsafe { _mm512_cmp_ps_mask::<_CMP_GT_OQ>(self.0, other.0) })
    }
    #[inline(always)]
    fn nle(self, other: Self) -> Lanes16Mask {
        // SAFETY: the CPU has AVX-512F (module invariant). Unordered: true for NaN.
        Lanes16Mask(unsafe { _mm512_cmp_ps_mask::<_CMP_NLE_UQ>(self.0, other.0) })
    }
    #[inline(always)]
    fn select(mask: Lanes16Mask, then: Self, otherwise: Self) -> Self {
        // SAFETY: the CPU has AVX-512F (module invariant). `then` where the mask bit is set.
        Lanes16(unsafe { _mm512_mask_blend_ps(mask.0, otherwise.0, then.0) })
    }
    #[inline(always)]
    fn or_zero(self, mask: Lanes16Mask) -> Self {
        // SAFETY: the CPU has AVX-512F (module invariant). Set lanes keep every bit, the others
        // are +0 (as the 8-lane `and` with an all-zeros lane gives).
        Lanes16(unsafe { _mm512_maskz_mov_ps(mask.0, self.0) })
    }
    #[inline(always)]
    fn both(a: Lanes16Mask, b: Lanes16Mask) -> Lanes16Mask {
        Lanes16Mask(a.0 & b.0)
    }
    #[inline(always)]
    fn either(a: Lanes16Mask, b: Lanes16Mask) -> Lanes16Mask {
        Lanes16Mask(a.0 | b.0)
    }
    #[inline(always)]
    fn all(mask: Lanes16Mask) -> bool {
        mask.0 == 0xffff
    }
    #[inline(always)]
    fn any(mask: Lanes16Mask) -> bool {
        mask.0 != 0
    }
}

/// A condition per lane of [`Lanes16`]: one bit per lane (a compare's result).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lanes16Mask(__mmask16);

impl LaneSet<16> for Lanes16 {
    #[inline(always)]
    fn from_array(v: [f32; 16]) -> Self {
        // SAFETY: the CPU has AVX-512F (module invariant); the unaligned load reads the 16 floats
        // of `v`.
        Lanes16(unsafe { _mm512_loadu_ps(v.as_ptr()) })
    }
    #[inline(always)]
    fn to_array(self) -> [f32; 16] {
        let mut v = [0.0; 16];
        // SAFETY: as above; the unaligned store writes the 16 floats of `v`.
        unsafe { _mm512_storeu_ps(v.as_mut_ptr(), self.0) };
        v
    }
    /// Row `k`, `k + 4`, `k + 8`, `k + 12` into the four 128-bit quarters of register `k`, then
    /// one 4 × 4 transpose within each quarter: lane `4q + j` of the results is row `4q + j`.
    #[inline(always)]
    fn rows_to_lanes(rows: [[f32; 4]; 16]) -> (V3<Self>, Self) {
        #[inline(always)]
        fn quad(r: [[f32; 4]; 4]) -> __m512 {
            // SAFETY: the CPU has AVX-512F (module invariant); each load reads the 4 floats of a row.
            unsafe {
                let low = _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(_mm_loadu_ps(r[0].as_ptr())), _mm_loadu_ps(r[1].as_ptr()));
                let high = _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(_mm_loadu_ps(r[2].as_ptr())), _mm_loadu_ps(r[3].as_ptr()));
                _mm512_castpd_ps(_mm512_insertf64x4::<1>(_mm512_castpd256_pd512(_mm256_castps_pd(low)), _mm256_castps_pd(high)))
            }
        }
        // Not `std::array::from_fn`: its closure is compiled on its own, without AVX-512, and the
        // intrinsics in it became calls.
        let q = |k: usize| [rows[k], rows[k + 4], rows[k + 8], rows[k + 12]];
        let m = [quad(q(0)), quad(q(1)), quad(q(2)), quad(q(3))];
        let [x, y, z, w] = transpose_quarters(m);
        (V3 { x: Lanes16(x), y: Lanes16(y), z: Lanes16(z) }, Lanes16(w))
    }
    #[inline(always)]
    fn lanes_and_w_to_rows(v: V3<Self>, w: Self) -> [SolverParticle; 16] {
        // SAFETY: the CPU has AVX-512F (module invariant).
        unsafe {
            let t = transpose_quarters([v.x.0, v.y.0, v.z.0, w.0]);
            let mut rows = [SolverParticle::ZERO; 16];
            for (k, t) in t.into_iter().enumerate() {
                rows[k] = SolverParticle::from(_mm512_castps512_ps128(t));
                rows[k + 4] = SolverParticle::from(_mm512_extractf32x4_ps::<1>(t));
                rows[k + 8] = SolverParticle::from(_mm512_extractf32x4_ps::<2>(t));
                rows[k + 12] = SolverParticle::from(_mm512_extractf32x4_ps::<3>(t));
            }
            rows
        }
    }
}

/// The 4 × 4 transpose of each 128-bit quarter of four registers (`_MM_TRANSPOSE4_PS` per quarter).
#[inline(always)]
fn transpose_quarters(m: [__m512; 4]) -> [__m512; 4] {
    // SAFETY: the CPU has AVX-512F (module invariant).
    unsafe {
        let (t0, t1) = (_mm512_unpacklo_ps(m[0], m[1]), _mm512_unpacklo_ps(m[2], m[3]));
        let (t2, t3) = (_mm512_unpackhi_ps(m[0], m[1]), _mm512_unpackhi_ps(m[2], m[3]));
        [
            _mm512_shuffle_ps::<0b01_00_01_00>(t0, t1),
            _mm512_shuffle_ps::<0b11_10_11_10>(t0, t1),
            _mm512_shuffle_ps::<0b01_00_01_00>(t2, t3),
            _mm512_shuffle_ps::<0b11_10_11_10>(t2, t3),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Transposes rows into lanes and back, and computes every operation with the scalar bits
    /// (NaN and signed zero included), in a function compiled with AVX-512F.
    #[test]
    fn sixteen_lanes_round_trip_and_give_the_scalar_bits() {
        if !avx512_available() {
            eprintln!("no AVX-512F on this CPU: the 16-lane kernels never run here");
            return;
        }
        // SAFETY: the CPU has AVX-512F (checked above).
        unsafe { check_sixteen_lanes() }
    }

    /// # Safety
    /// The CPU must have AVX-512F.
    #[target_feature(enable = "avx512f")]
    unsafe fn check_sixteen_lanes() {
        let a = [1.5, -0.0, f32::NAN, -2.25, 1e-30, f32::INFINITY, 3.0, 0.0, -1.0, 2.0, -f32::INFINITY, 1e-40, 5.0, -0.0, 7.0, 1e30];
        let b = [0.7, 0.0, 1.0, -2.25, 3e-9, 2.0, f32::NAN, -1.0, -1.0, -0.0, 4.0, 1e-40, f32::NAN, -0.0, -7.0, 1e-30];
        super::super::lanes_avx::tests::check_lane_type::<16, Lanes16>(a, b);
    }
}
