//! Scalar and lane-wise arithmetic behind one interface, so that each projection kernel is written
//! once and runs either on one constraint (`f32`, the reference path and the sequential sweep) or
//! on [`LANES`] constraints of one colour at a time ([`Lanes`], which LLVM turns into packed SIMD
//! instructions). Every operation is an IEEE single-precision operation applied lane by lane
//! (add, sub, mul, div, sqrt, compare-and-select: no fused multiply-add, no approximate
//! reciprocal), so a lane computes exactly the bits the scalar path computes for the same
//! constraint, except which NaN a NaN result is (its sign or payload, which depends on how LLVM
//! ordered an operation's operands in each compiled kernel). Min, max and clamp are written as
//! compare-and-select in both so that they agree on whether a result is NaN.

use super::access::SolverParticle;
use std::ops::{Add, Div, Mul, Neg, Sub};

/// Constraints projected together by the 4-lane kernels: one SSE/NEON register. Where the CPU has
/// AVX, the stretch and bending sweeps take 8 at a time in one AVX register instead
/// (`lanes_avx::Lanes8`), and 16 in one AVX-512 register where it has AVX-512F
/// (`lanes_avx512::Lanes16`; the rest of a colour then as at most one 8-lane batch and one
/// partial one), a colour's remainder as one partial batch (the same bits).
///
/// Measured alternatives: 8 lanes as two SSE registers spilled the bending kernel's ~40 live
/// values; 8 lanes as `[f32; 8]` arrays gave no gain (LLVM splits arrays into scalars and
/// re-packs them); in an `__m256` they do (docs/dev/performance-log.md, "2026-11-29 — Lane
/// kernels: from arrays to SSE registers and rows").
pub(crate) const LANES: usize = 4;

/// A real number, or a batch of them.
pub(crate) trait Real:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self> + Neg<Output = Self>
{
    fn splat(v: f32) -> Self;
    fn sqrt(self) -> Self;

    /// A per-lane condition: `bool` for one number; for a batch, a compare's register of
    /// all-ones or all-zeros lanes (SSE, AVX), or `[bool; 4]` where the lanes are arrays. Kernels
    /// that combine conditions before selecting hold them as masks: held as 1.0/0.0 numbers
    /// (select 1 or 0, then test `> 0`), LLVM turned them back into masks through integer
    /// compares and conversions (docs/dev/performance-log.md, "2026-11-30 — Compare masks in the
    /// kernels; this machine's drift").
    type Mask: Copy;
    /// `self > other` per lane (ordered: false for NaN, like the scalar `>`).
    fn gt(self, other: Self) -> Self::Mask;
    /// `!(self <= other)` per lane: true for NaN, which `other.gt(self)` negated is not.
    fn nle(self, other: Self) -> Self::Mask;
    /// `if mask { then } else { otherwise }` per lane.
    fn select(mask: Self::Mask, then: Self, otherwise: Self) -> Self;
    /// `if mask { self } else { +0.0 }` per lane: `select(mask, self, splat(0.0))`, as one `and`
    /// of the bits for a batch (with `blendv` LLVM rebuilt the full mask from its sign bits
    /// through an int-to-float conversion and a compare, AVX having no 256-bit integer shift).
    fn or_zero(self, mask: Self::Mask) -> Self;
    /// `a && b` per lane.
    fn both(a: Self::Mask, b: Self::Mask) -> Self::Mask;
    /// `a || b` per lane.
    fn either(a: Self::Mask, b: Self::Mask) -> Self::Mask;
    /// Whether `mask` holds in every lane.
    fn all(mask: Self::Mask) -> bool;
    /// Whether `mask` holds in some lane.
    fn any(mask: Self::Mask) -> bool;

    /// `if self > other { then } else { otherwise }`, per lane.
    #[inline(always)]
    fn gt_select(self, other: Self, then: Self, otherwise: Self) -> Self {
        Self::select(self.gt(other), then, otherwise)
    }
    /// `if self <= other { then } else { otherwise }`, per lane (false for NaN, like the scalar
    /// `<=`, which `gt_select` with swapped branches cannot reproduce).
    #[inline(always)]
    fn le_select(self, other: Self, then: Self, otherwise: Self) -> Self {
        Self::select(self.nle(other), otherwise, then)
    }
    #[inline(always)]
    fn max(self, other: Self) -> Self {
        self.gt_select(other, self, other)
    }
    #[inline(always)]
    fn min(self, other: Self) -> Self {
        other.gt_select(self, self, other)
    }
    /// |self| with the sign bit cleared, as `f32::abs` (+0 for ±0, and NaN stays NaN): a
    /// compare-and-negate gave −0 for +0, so a lane-wise |C| of 0 differed from the scalar one.
    fn abs(self) -> Self;
}

impl Real for f32 {
    #[inline(always)]
    fn splat(v: f32) -> Self {
        v
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f32::abs(self)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
    type Mask = bool;
    #[inline(always)]
    fn gt(self, other: Self) -> bool {
        self > other
    }
    #[inline(always)]
    fn nle(self, other: Self) -> bool {
        !(self <= other)
    }
    #[inline(always)]
    fn select(mask: bool, then: Self, otherwise: Self) -> Self {
        if mask { then } else { otherwise }
    }
    #[inline(always)]
    fn or_zero(self, mask: bool) -> Self {
        if mask { self } else { 0.0 }
    }
    #[inline(always)]
    fn both(a: bool, b: bool) -> bool {
        a && b
    }
    #[inline(always)]
    fn either(a: bool, b: bool) -> bool {
        a || b
    }
    #[inline(always)]
    fn all(mask: bool) -> bool {
        mask
    }
    #[inline(always)]
    fn any(mask: bool) -> bool {
        mask
    }
}

/// [`LANES`] single-precision numbers operated on lane by lane. On x86-64 an SSE register
/// (`__m128`, SSE2 is part of the x86-64 baseline) handled with one intrinsic per operation: as a
/// `[f32; 4]` LLVM split each batch into scalars and re-packed them around every operation
/// (inserts, extracts and stack traffic made up most of the kernels' instructions). Elsewhere a
/// plain array.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lanes(LaneRegister);

#[cfg(target_arch = "x86_64")]
type LaneRegister = std::arch::x86_64::__m128;
#[cfg(not(target_arch = "x86_64"))]
type LaneRegister = [f32; LANES];

impl Lanes {
    /// The lanes `v[0..LANES]`.
    #[inline(always)]
    pub fn from_array(v: [f32; LANES]) -> Lanes {
        // SAFETY (x86-64): `[f32; 4]` and `__m128` have the same size and every bit pattern is
        // valid for both.
        #[cfg(target_arch = "x86_64")]
        return Lanes(unsafe { std::mem::transmute::<[f32; LANES], LaneRegister>(v) });
        #[cfg(not(target_arch = "x86_64"))]
        Lanes(v)
    }

    /// The lanes as an array.
    #[inline(always)]
    pub fn to_array(self) -> [f32; LANES] {
        // SAFETY: as in `from_array`.
        #[cfg(target_arch = "x86_64")]
        return unsafe { std::mem::transmute::<LaneRegister, [f32; LANES]>(self.0) };
        #[cfg(not(target_arch = "x86_64"))]
        self.0
    }

    /// The lanes as a glam vector (the same register on x86-64).
    #[inline(always)]
    pub fn to_vec4(self) -> SolverParticle {
        #[cfg(target_arch = "x86_64")]
        return SolverParticle::from(self.0);
        #[cfg(not(target_arch = "x86_64"))]
        SolverParticle::from_array(self.0)
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! The x86-64 operations: one SSE/SSE2 intrinsic each (the baseline every x86-64 CPU has;
    //! unsafe only on compilers that predate safe intrinsics, hence the allow).
    #![allow(unused_unsafe)]
    use super::Lanes;
    use std::arch::x86_64::*;

    macro_rules! lane_op {
        ($tr:ident, $f:ident, $intrinsic:ident) => {
            impl std::ops::$tr for Lanes {
                type Output = Lanes;
                #[inline(always)]
                fn $f(self, o: Lanes) -> Lanes {
                    // SAFETY: SSE is enabled on every x86-64 target.
                    Lanes(unsafe { $intrinsic(self.0, o.0) })
                }
            }
        };
    }
    lane_op!(Add, add, _mm_add_ps);
    lane_op!(Sub, sub, _mm_sub_ps);
    lane_op!(Mul, mul, _mm_mul_ps);
    lane_op!(Div, div, _mm_div_ps);

    impl std::ops::Neg for Lanes {
        type Output = Lanes;
        /// Flips the sign bit, as scalar negation does (also of NaN).
        #[inline(always)]
        fn neg(self) -> Lanes {
            // SAFETY: SSE is enabled on every x86-64 target.
            Lanes(unsafe { _mm_xor_ps(self.0, _mm_set1_ps(-0.0)) })
        }
    }

    impl super::Real for Lanes {
        #[inline(always)]
        fn splat(v: f32) -> Self {
            // SAFETY: SSE is enabled on every x86-64 target.
            Lanes(unsafe { _mm_set1_ps(v) })
        }
        #[inline(always)]
        fn abs(self) -> Self {
            // SAFETY: SSE is enabled on every x86-64 target. Clears the sign bit.
            Lanes(unsafe { _mm_andnot_ps(_mm_set1_ps(-0.0), self.0) })
        }
        #[inline(always)]
        fn sqrt(self) -> Self {
            // SAFETY: as above; correctly rounded like `f32::sqrt`.
            Lanes(unsafe { _mm_sqrt_ps(self.0) })
        }
        type Mask = LaneMask;
        #[inline(always)]
        fn gt(self, other: Self) -> LaneMask {
            // SAFETY: SSE is enabled on every x86-64 target. Ordered: false for NaN.
            LaneMask(unsafe { _mm_cmpgt_ps(self.0, other.0) })
        }
        #[inline(always)]
        fn nle(self, other: Self) -> LaneMask {
            // SAFETY: SSE is enabled on every x86-64 target. Unordered: true for NaN.
            LaneMask(unsafe { _mm_cmpnle_ps(self.0, other.0) })
        }
        #[inline(always)]
        fn select(mask: LaneMask, then: Self, otherwise: Self) -> Self {
            // SAFETY: SSE is enabled on every x86-64 target.
            Lanes(unsafe { _mm_or_ps(_mm_and_ps(mask.0, then.0), _mm_andnot_ps(mask.0, otherwise.0)) })
        }
        #[inline(always)]
        fn or_zero(self, mask: LaneMask) -> Self {
            // SAFETY: SSE is enabled on every x86-64 target. All-ones lanes keep every bit.
            Lanes(unsafe { _mm_and_ps(mask.0, self.0) })
        }
        #[inline(always)]
        fn both(a: LaneMask, b: LaneMask) -> LaneMask {
            // SAFETY: SSE is enabled on every x86-64 target.
            LaneMask(unsafe { _mm_and_ps(a.0, b.0) })
        }
        #[inline(always)]
        fn either(a: LaneMask, b: LaneMask) -> LaneMask {
            // SAFETY: SSE is enabled on every x86-64 target.
            LaneMask(unsafe { _mm_or_ps(a.0, b.0) })
        }
        #[inline(always)]
        fn all(mask: LaneMask) -> bool {
            // SAFETY: SSE is enabled on every x86-64 target.
            unsafe { _mm_movemask_ps(mask.0) == 0b1111 }
        }
        #[inline(always)]
        fn any(mask: LaneMask) -> bool {
            // SAFETY: SSE is enabled on every x86-64 target.
            unsafe { _mm_movemask_ps(mask.0) != 0 }
        }
    }

    /// A condition per lane of [`Lanes`]: all-ones or all-zeros bits (a compare's result).
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct LaneMask(__m128);

    /// The transpose of a 4 × 4 block of registers: `out[k]` lane `l` = `m[l]` lane `k`.
    #[inline(always)]
    pub(super) fn transpose4(m: [Lanes; 4]) -> [Lanes; 4] {
        // SAFETY: SSE is enabled on every x86-64 target.
        unsafe {
            let (t0, t1) = (_mm_unpacklo_ps(m[0].0, m[1].0), _mm_unpacklo_ps(m[2].0, m[3].0));
            let (t2, t3) = (_mm_unpackhi_ps(m[0].0, m[1].0), _mm_unpackhi_ps(m[2].0, m[3].0));
            [
                Lanes(_mm_movelh_ps(t0, t1)),
                Lanes(_mm_movehl_ps(t1, t0)),
                Lanes(_mm_movelh_ps(t2, t3)),
                Lanes(_mm_movehl_ps(t3, t2)),
            ]
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod portable {
    //! Plain arrays, lane by lane (LLVM vectorises them for NEON where it can).
    use super::{LANES, Lanes};

    impl Lanes {
        #[inline(always)]
        fn map2(self, o: Self, f: impl Fn(f32, f32) -> f32) -> Self {
            Lanes(std::array::from_fn(|l| f(self.0[l], o.0[l])))
        }
    }

    macro_rules! lane_op {
        ($tr:ident, $f:ident, $op:tt) => {
            impl std::ops::$tr for Lanes {
                type Output = Lanes;
                #[inline(always)]
                fn $f(self, o: Lanes) -> Lanes {
                    self.map2(o, |a, b| a $op b)
                }
            }
        };
    }
    lane_op!(Add, add, +);
    lane_op!(Sub, sub, -);
    lane_op!(Mul, mul, *);
    lane_op!(Div, div, /);

    impl std::ops::Neg for Lanes {
        type Output = Lanes;
        #[inline(always)]
        fn neg(self) -> Lanes {
            Lanes(self.0.map(|v| -v))
        }
    }

    impl super::Real for Lanes {
        #[inline(always)]
        fn splat(v: f32) -> Self {
            Lanes([v; LANES])
        }
        #[inline(always)]
        fn abs(self) -> Self {
            Lanes(self.0.map(f32::abs))
        }
        #[inline(always)]
        fn sqrt(self) -> Self {
            Lanes(self.0.map(f32::sqrt))
        }
        type Mask = [bool; LANES];
        #[inline(always)]
        fn gt(self, other: Self) -> [bool; LANES] {
            std::array::from_fn(|l| self.0[l] > other.0[l])
        }
        #[inline(always)]
        fn nle(self, other: Self) -> [bool; LANES] {
            std::array::from_fn(|l| !(self.0[l] <= other.0[l]))
        }
        #[inline(always)]
        fn select(mask: [bool; LANES], then: Self, otherwise: Self) -> Self {
            Lanes(std::array::from_fn(|l| if mask[l] { then.0[l] } else { otherwise.0[l] }))
        }
        #[inline(always)]
        fn or_zero(self, mask: [bool; LANES]) -> Self {
            Lanes(std::array::from_fn(|l| if mask[l] { self.0[l] } else { 0.0 }))
        }
        #[inline(always)]
        fn both(a: [bool; LANES], b: [bool; LANES]) -> [bool; LANES] {
            std::array::from_fn(|l| a[l] && b[l])
        }
        #[inline(always)]
        fn either(a: [bool; LANES], b: [bool; LANES]) -> [bool; LANES] {
            std::array::from_fn(|l| a[l] || b[l])
        }
        #[inline(always)]
        fn all(mask: [bool; LANES]) -> bool {
            mask.iter().all(|&m| m)
        }
        #[inline(always)]
        fn any(mask: [bool; LANES]) -> bool {
            mask.iter().any(|&m| m)
        }
    }

    /// The transpose of a 4 × 4 block: `out[k]` lane `l` = `m[l]` lane `k`.
    #[inline(always)]
    pub(super) fn transpose4(m: [Lanes; 4]) -> [Lanes; 4] {
        std::array::from_fn(|k| Lanes(std::array::from_fn(|l| m[l].0[k])))
    }
}

#[cfg(target_arch = "x86_64")]
use x86::transpose4;
#[cfg(not(target_arch = "x86_64"))]
use portable::transpose4;

/// A batch of `N` constraints' numbers, one per lane: how the lane-wise kernels, written once
/// with a const width, load, gather and scatter whatever the register ([`Lanes`]: 4 lanes, SSE
/// or arrays; `lanes_avx::Lanes8`: 8 lanes, AVX where the CPU has it).
pub(crate) trait LaneSet<const N: usize>: Real {
    /// The lanes `v[0..N]`.
    fn from_array(v: [f32; N]) -> Self;
    /// The lanes as an array.
    fn to_array(self) -> [f32; N];
    /// Rows [x, y, z, w] of `N` particles, one per lane, as lanes of x, y, z and of w.
    fn rows_to_lanes(rows: [[f32; 4]; N]) -> (V3<Self>, Self);
    /// Lane `l` of `v` as the row [x, y, z, 0], for every lane (the inverse of
    /// [`LaneSet::rows_to_lanes`] without w). Rows as glam vectors, which are registers on x86-64:
    /// as `[f32; 4]` arrays LLVM rebuilt every row from single elements before adding it to the
    /// particle (docs/dev/performance-log.md, "2026-11-30 — Fewer instructions per projection").
    #[inline(always)]
    fn lanes_to_rows(v: V3<Self>) -> [SolverParticle; N] {
        Self::lanes_and_w_to_rows(v, Self::splat(0.0))
    }
    /// Lane `l` of `v` and of `w` as the row [x, y, z, w], for every lane (the inverse of
    /// [`LaneSet::rows_to_lanes`]).
    fn lanes_and_w_to_rows(v: V3<Self>, w: Self) -> [SolverParticle; N];

    /// The lanes `v[first..first + N]`.
    #[inline(always)]
    fn load(v: &[f32], first: usize) -> Self {
        Self::from_array(v[first..first + N].try_into().expect("N values"))
    }
}

impl LaneSet<LANES> for Lanes {
    #[inline(always)]
    fn from_array(v: [f32; LANES]) -> Self {
        Lanes::from_array(v)
    }
    #[inline(always)]
    fn to_array(self) -> [f32; LANES] {
        Lanes::to_array(self)
    }
    /// A 4 × 4 transpose in registers.
    #[inline(always)]
    fn rows_to_lanes(rows: [[f32; 4]; LANES]) -> (V3<Self>, Self) {
        let [r0, r1, r2, r3] = rows;
        let rows = [Lanes::from_array(r0), Lanes::from_array(r1), Lanes::from_array(r2), Lanes::from_array(r3)];
        let [x, y, z, w] = transpose4(rows);
        (V3 { x, y, z }, w)
    }
    /// The inverse transpose, for adding corrections to particle rows without changing their w.
    #[inline(always)]
    fn lanes_and_w_to_rows(v: V3<Self>, w: Self) -> [SolverParticle; LANES] {
        let [r0, r1, r2, r3] = transpose4([v.x, v.y, v.z, w]);
        [r0.to_vec4(), r1.to_vec4(), r2.to_vec4(), r3.to_vec4()]
    }
}

/// A 3-vector of [`Real`]s (one point, or the same point of [`LANES`] constraints).
#[derive(Clone, Copy, Debug)]
pub(crate) struct V3<T> {
    pub x: T,
    pub y: T,
    pub z: T,
}

/// A glam vector as the kernels' scalar vector.
#[inline(always)]
pub(crate) fn v3(p: glam::Vec3) -> V3<f32> {
    V3 { x: p.x, y: p.y, z: p.z }
}

impl V3<f32> {
    /// Back to glam.
    #[inline(always)]
    pub fn to_vec3(self) -> glam::Vec3 {
        glam::Vec3::new(self.x, self.y, self.z)
    }
}

impl<T: Real> V3<T> {
    #[inline(always)]
    pub fn add(self, o: Self) -> Self {
        V3 { x: self.x + o.x, y: self.y + o.y, z: self.z + o.z }
    }
    #[inline(always)]
    pub fn sub(self, o: Self) -> Self {
        V3 { x: self.x - o.x, y: self.y - o.y, z: self.z - o.z }
    }
    #[inline(always)]
    pub fn scale(self, s: T) -> Self {
        V3 { x: self.x * s, y: self.y * s, z: self.z * s }
    }
    /// `self * a + o * b`, rounded after every operation.
    #[inline(always)]
    pub fn combine(self, a: T, o: Self, b: T) -> Self {
        V3 { x: self.x * a + o.x * b, y: self.y * a + o.y * b, z: self.z * a + o.z * b }
    }
    #[inline(always)]
    pub fn dot(self, o: Self) -> T {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
    /// `self` where `mask` holds, else zero (per lane). Selects only when some lane's mask is
    /// clear, which is rare: the same bits, less work.
    #[inline(always)]
    pub fn zero_unless(self, mask: T::Mask) -> Self {
        if T::all(mask) {
            return self;
        }
        V3 { x: self.x.or_zero(mask), y: self.y.or_zero(mask), z: self.z.or_zero(mask) }
    }
    #[inline(always)]
    pub fn cross(self, o: Self) -> Self {
        V3 { x: self.y * o.z - self.z * o.y, y: self.z * o.x - self.x * o.z, z: self.x * o.y - self.y * o.x }
    }
}

/// atan2(y, x) in [−π, π] to within 5·10⁻⁷ rad (two ulp of π; measured against libm),
/// branch-free so that it runs lane-wise. Octant reduction to t = min/max ∈ [0, 1], then to
/// |t'| ≤ tan(π/8) via t' = (t − 1)/(t + 1) (written as (min − max)/(min + max): one division
/// either way), then the Cephes `atanf` polynomial (S. L. Moshier, Cephes Math Library, atanf.c;
/// relative error 1.9e-7 on that interval). atan2(0, 0) = 0.
#[inline(always)]
pub(crate) fn atan2<T: Real>(y: T, x: T) -> T {
    use std::f32::consts::{FRAC_PI_2, FRAC_PI_4, PI};
    let zero = T::splat(0.0);
    let (ax, ay) = (x.abs(), y.abs());
    let (lo, hi) = (ax.min(ay), ax.max(ay));
    // t = lo/hi > tan(π/8)  ⇔  lo > tan(π/8)·hi.
    let big = T::splat(0.414_213_57) * hi;
    let num = lo.gt_select(big, lo - hi, lo);
    let den = lo.gt_select(big, lo + hi, hi).max(T::splat(f32::MIN_POSITIVE));
    let t = num / den;
    let z = t * t;
    let poly = (((T::splat(8.053_744_5e-2) * z - T::splat(1.387_768_6e-1)) * z + T::splat(1.997_771_1e-1)) * z
        - T::splat(3.333_295e-1))
        * z
        * t
        + t;
    let r = lo.gt_select(big, T::splat(FRAC_PI_4) + poly, poly);
    let r = ay.gt_select(ax, T::splat(FRAC_PI_2) - r, r);
    let r = zero.gt_select(x, T::splat(PI) - r, r);
    zero.gt_select(y, -r, r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atan2_matches_the_library_within_two_ulp_of_pi_in_every_octant() {
        let mut worst = 0.0f32;
        for k in 0..20_000 {
            let a = -3.2 + 6.4 * k as f32 / 20_000.0;
            for r in [1e-6f32, 0.3, 1.0, 7.0, 1e5] {
                let (y, x) = (r * a.sin(), r * a.cos());
                worst = worst.max((atan2(y, x) - y.atan2(x)).abs());
            }
        }
        assert!(worst < 5e-7, "worst error {worst}");
        assert_eq!(atan2(0.0f32, 0.0), 0.0);
        assert_eq!(atan2(0.0f32, -1.0), std::f32::consts::PI);
        assert_eq!(atan2(-1.0f32, 0.0), -std::f32::consts::FRAC_PI_2);
    }

    #[test]
    fn rows_and_lanes_round_trip_through_the_transpose() {
        let rows: [[f32; 4]; LANES] = std::array::from_fn(|l| std::array::from_fn(|k| (10 * l + k) as f32));
        let (p, w) = Lanes::rows_to_lanes(rows);
        for (l, row) in rows.iter().enumerate() {
            assert_eq!([p.x.to_array()[l], p.y.to_array()[l], p.z.to_array()[l], w.to_array()[l]], *row);
        }
        let back = Lanes::lanes_to_rows(p);
        for (row, back) in rows.iter().zip(back) {
            assert_eq!(back.to_array(), [row[0], row[1], row[2], 0.0]);
        }
    }

    #[test]
    fn lanes_give_the_scalar_bits() {
        let ys: [f32; LANES] = std::array::from_fn(|l| (l as f32 - 3.5) * 0.7);
        let xs: [f32; LANES] = std::array::from_fn(|l| 1.3 - l as f32 * 0.4);
        let batch = atan2(Lanes::from_array(ys), Lanes::from_array(xs)).to_array();
        let root = Lanes::from_array(xs).abs().sqrt().to_array();
        let negated = (-Lanes::from_array([0.0, f32::NAN, -1.5, f32::INFINITY])).to_array();
        for l in 0..LANES {
            assert_eq!(batch[l].to_bits(), atan2(ys[l], xs[l]).to_bits());
            assert_eq!(root[l].to_bits(), xs[l].abs().sqrt().to_bits());
        }
        let expected = [-0.0, -f32::NAN, 1.5, -f32::INFINITY];
        assert_eq!(negated.map(f32::to_bits), expected.map(f32::to_bits));
        let select = Lanes::from_array([1.0, f32::NAN, -1.0, 0.0]).gt_select(Lanes::splat(0.0), Lanes::splat(1.0), Lanes::splat(2.0));
        assert_eq!(select.to_array(), [1.0, 2.0, 2.0, 2.0], "NaN and 0 are not > 0");
        let select = Lanes::from_array([1.0, f32::NAN, -1.0, 0.0]).le_select(Lanes::splat(0.0), Lanes::splat(1.0), Lanes::splat(2.0));
        assert_eq!(select.to_array(), [2.0, 2.0, 1.0, 1.0], "NaN is not <= 0");
        let positive = |v: Lanes| Lanes::all(v.gt(Lanes::splat(0.0)));
        assert!(positive(Lanes::splat(1.0)) && !positive(Lanes::from_array([1.0, 1.0, f32::NAN, 1.0])));
        // Masks: NaN is not > anything; `both` is a lane-wise and; `all` needs every lane.
        let (a, b) = (Lanes::from_array([1.0, f32::NAN, -1.0, 2.0]), Lanes::from_array([0.0, 0.0, -2.0, 3.0]));
        let positive = a.gt(Lanes::splat(0.0));
        assert_eq!(Lanes::select(positive, a, b).to_array().map(f32::to_bits), [1.0f32, 0.0, -2.0, 2.0].map(f32::to_bits));
        assert_eq!(Lanes::select(Lanes::both(positive, a.gt(b)), Lanes::splat(1.0), Lanes::splat(0.0)).to_array(), [1.0, 0.0, 0.0, 0.0]);
        assert!(Lanes::all(Lanes::splat(1.0).gt(Lanes::splat(0.0))) && !Lanes::all(positive));
        // `nle` holds for NaN (unlike `gt` with the operands swapped); `either`, `any`.
        let above = a.nle(Lanes::splat(0.0));
        assert_eq!(Lanes::select(above, Lanes::splat(1.0), Lanes::splat(0.0)).to_array(), [1.0, 1.0, 0.0, 1.0]);
        let either = Lanes::either(a.gt(Lanes::splat(1.5)), b.gt(Lanes::splat(-1.0)));
        assert_eq!(Lanes::select(either, Lanes::splat(1.0), Lanes::splat(0.0)).to_array(), [1.0, 1.0, 0.0, 1.0]);
        assert!(Lanes::any(either) && !Lanes::any(Lanes::splat(f32::NAN).gt(Lanes::splat(0.0))));
        // `or_zero`: the kept lanes' bits (NaN, −0), +0 elsewhere, as `select(mask, x, +0)`.
        let x = Lanes::from_array([-0.0, f32::NAN, 3.0, -4.0]);
        let kept = x.or_zero(Lanes::from_array([1.0, 1.0, 0.0, f32::NAN]).gt(Lanes::splat(0.0)));
        assert_eq!(kept.to_array().map(f32::to_bits), [(-0.0f32).to_bits(), f32::NAN.to_bits(), 0, 0]);
        let scalar: [f32; LANES] = std::array::from_fn(|l| f32::select(a.to_array()[l].gt(0.0), 5.0, 6.0));
        assert_eq!(scalar, [5.0, 6.0, 6.0, 5.0]);
    }
}
