//! Scalar and lane-wise arithmetic behind one interface, so that each projection kernel is written
//! once and runs either on one constraint (`f32`, the reference path and the sequential sweep) or
//! on [`LANES`] constraints of one colour at a time ([`Lanes`], which LLVM turns into packed SIMD
//! instructions). Every operation is an IEEE single-precision operation applied lane by lane
//! (add, sub, mul, div, sqrt, compare-and-select: no fused multiply-add, no approximate
//! reciprocal), so a lane computes exactly the bits the scalar path computes for the same
//! constraint. Min, max and clamp are written as compare-and-select in both so that they agree
//! even on NaN.

use std::ops::{Add, Div, Mul, Neg, Sub};

/// Constraints projected together by the lane-wise kernels: one SSE register. With 8 (two
/// registers) the bending kernel's ~40 live values spill to the stack: callgrind counted 672 M
/// instructions in the coloured sweeps of 10 steps of the 64² bench grid against 545 M with 4.
pub(crate) const LANES: usize = 4;

/// A real number, or a batch of them.
pub(crate) trait Real:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self> + Neg<Output = Self>
{
    fn splat(v: f32) -> Self;
    fn sqrt(self) -> Self;
    /// `if self > other { then } else { otherwise }`, per lane.
    fn gt_select(self, other: Self, then: Self, otherwise: Self) -> Self;
    /// Whether every lane is > 0.
    fn all_positive(self) -> bool;

    #[inline(always)]
    fn max(self, other: Self) -> Self {
        self.gt_select(other, self, other)
    }
    #[inline(always)]
    fn min(self, other: Self) -> Self {
        other.gt_select(self, self, other)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        self.gt_select(Self::splat(0.0), self, -self)
    }
}

impl Real for f32 {
    #[inline(always)]
    fn splat(v: f32) -> Self {
        v
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
    #[inline(always)]
    fn gt_select(self, other: Self, then: Self, otherwise: Self) -> Self {
        if self > other { then } else { otherwise }
    }
    #[inline(always)]
    fn all_positive(self) -> bool {
        self > 0.0
    }
}

/// [`LANES`] single-precision numbers operated on lane by lane.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(16))]
pub(crate) struct Lanes(pub [f32; LANES]);

impl Lanes {
    #[inline(always)]
    fn map2(self, o: Self, f: impl Fn(f32, f32) -> f32) -> Self {
        let mut r = [0.0; LANES];
        for ((r, a), b) in r.iter_mut().zip(self.0).zip(o.0) {
            *r = f(a, b);
        }
        Lanes(r)
    }
}

macro_rules! lane_op {
    ($tr:ident, $f:ident, $op:tt) => {
        impl $tr for Lanes {
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

impl Neg for Lanes {
    type Output = Lanes;
    #[inline(always)]
    fn neg(self) -> Lanes {
        let mut r = self.0;
        for v in &mut r {
            *v = -*v;
        }
        Lanes(r)
    }
}

impl Real for Lanes {
    #[inline(always)]
    fn splat(v: f32) -> Self {
        Lanes([v; LANES])
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        let mut r = self.0;
        for v in &mut r {
            *v = v.sqrt();
        }
        Lanes(r)
    }
    #[inline(always)]
    fn gt_select(self, other: Self, then: Self, otherwise: Self) -> Self {
        let mut r = [0.0; LANES];
        // Indexing all five arrays alike is the form LLVM turns into compare + blend.
        #[allow(clippy::needless_range_loop)]
        for l in 0..LANES {
            r[l] = if self.0[l] > other.0[l] { then.0[l] } else { otherwise.0[l] };
        }
        Lanes(r)
    }
    #[inline(always)]
    fn all_positive(self) -> bool {
        self.0.iter().all(|&v| v > 0.0)
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

impl V3<Lanes> {
    /// Lane `l` as a glam vector (for the scatter after a lane-wise projection).
    #[inline(always)]
    pub fn lane(self, l: usize) -> glam::Vec3 {
        glam::Vec3::new(self.x.0[l], self.y.0[l], self.z.0[l])
    }
}

impl<T: Real> V3<T> {
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
    /// `self` where `flag > 0`, else zero (per lane; NaN components become zero too). Selects only
    /// when some lane's flag is not positive, which is rare: the same bits, less work.
    #[inline(always)]
    pub fn or_zero_unless(self, flag: T) -> Self {
        if flag.all_positive() {
            return self;
        }
        let zero = T::splat(0.0);
        V3 { x: flag.gt_select(zero, self.x, zero), y: flag.gt_select(zero, self.y, zero), z: flag.gt_select(zero, self.z, zero) }
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
    fn lanes_give_the_scalar_bits() {
        let ys: [f32; LANES] = std::array::from_fn(|l| (l as f32 - 3.5) * 0.7);
        let xs: [f32; LANES] = std::array::from_fn(|l| 1.3 - l as f32 * 0.4);
        let batch = atan2(Lanes(ys), Lanes(xs));
        for l in 0..LANES {
            assert_eq!(batch.0[l].to_bits(), atan2(ys[l], xs[l]).to_bits());
            assert_eq!(Lanes(xs).abs().sqrt().0[l].to_bits(), xs[l].abs().sqrt().to_bits());
        }
    }
}
