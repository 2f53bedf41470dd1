//! Constraints of one particle relative to its animated pose a (docs/design.md, "Character
//! cloth"): the anim drive (soft, XPBD), the max distance and the backstop (hard inequalities).
//! Each moves only the particle: the pose is kinematic.

use super::access::SolverParticle;
use super::lanes::{LANES, LaneSet, Lanes, V3};
#[cfg(target_arch = "x86_64")]
use super::lanes_avx::{Lanes8, avx_available};
use glam::{Vec3, Vec3A};

/// Anim drive: C = ‖x − a‖ with compliance α \[m/N\], projected with the XPBD update (Macklin,
/// Müller & Chentanez 2016, eq. 18) for one particle of inverse mass `w` \[1/kg\] against the
/// kinematic pose: Δλ = (−C − α̃·λ)/(w + α̃), α̃ = α/h², x += w·n·Δλ, n = (x − a)/‖x − a‖.
/// `alpha_tilde` is α/h²; returns the new λ \[N·s²\]. Skipped (λ unchanged) at C = 0, where the
/// gradient is undefined and nothing needs to move.
#[inline]
pub(crate) fn drive(x: &mut Vec3, a: Vec3, w: f32, alpha_tilde: f32, lambda: f32) -> f32 {
    let d = *x - a;
    let c = d.length();
    let denominator = w + alpha_tilde;
    if !(c > 0.0) || !(denominator > 1e-20) {
        return lambda;
    }
    let n = d / c;
    let dl = (-c - alpha_tilde * lambda) / denominator;
    *x += n * (w * dl);
    lambda + dl
}

/// Max distance: ‖x − a‖ ≤ `d` \[m\], hard (α = 0, so the XPBD update is the projection onto the
/// ball). Returns whether x moved.
#[inline]
pub(crate) fn max_distance(x: &mut Vec3A, a: Vec3A, d: f32) -> bool {
    let offset = *x - a;
    let length_sq = offset.length_squared();
    if !(length_sq > d * d) {
        return false;
    }
    let length = length_sq.sqrt();
    // a + offset·(d/‖offset‖) can round to just outside the ball; pulling by a relative 1e-6
    // more keeps the bound exact in f32 at any distance from the origin that matters.
    *x = a + offset * (d / length * (1.0 - 1e-6));
    true
}

/// The backstop sphere's centre a − (b + r)·n for animated position `a` \[m\], unit normal `n`,
/// backstop distance `b` \[m\] behind it and radius `r` \[m\].
#[inline]
pub(crate) fn backstop_centre(a: Vec3A, n: Vec3A, b: f32, r: f32) -> Vec3A {
    a - n * (b + r)
}

/// Backstop: the particle stays outside the sphere of radius `r` \[m\] centred at `centre`
/// ([`backstop_centre`]): C = r − ‖x − c‖ ≤ 0, projected to the sphere's surface (along `n`, the
/// animated normal, when x is at its centre). Returns whether x moved.
#[inline]
pub(crate) fn backstop(x: &mut Vec3A, centre: Vec3A, r: f32, n: Vec3A) -> bool {
    let offset = *x - centre;
    let length_sq = offset.length_squared();
    if !(length_sq < r * r) {
        return false;
    }
    let length = length_sq.sqrt();
    let direction = if length > 0.0 { offset / length } else { n };
    *x = centre + direction * (r * (1.0 + 1e-6));
    true
}

/// The hard limits of every particle for one pass, per particle (each slice as long as the rows,
/// or empty where that limit is off).
pub(crate) struct Limits<'a> {
    /// Animated positions a \[m\].
    pub pose: &'a [Vec3A],
    /// Max distances d \[m\] (∞: none).
    pub max_distance: &'a [f32],
    /// Backstop sphere centres \[m\] ([`backstop_centre`]), radii r \[m\] (0: none) and the
    /// direction out of a sphere for a particle at its centre (unit).
    pub centres: &'a [Vec3A],
    pub radius: &'a [f32],
    pub normals: &'a [Vec3],
}

impl Limits<'_> {
    /// Each free particle of `rows` (w > 0): its max distance, then its backstop; returns whether
    /// any particle moved. The particles that need either are found a register of lanes at a
    /// time, with the very comparisons of the scalar projections (the same dot product order), so
    /// the same particles move, by the same bits, whatever the register width.
    pub(crate) fn project(&self, rows: &mut [SolverParticle]) -> bool {
        if self.max_distance.is_empty() && self.radius.is_empty() {
            return false;
        }
        #[cfg(target_arch = "x86_64")]
        if avx_available() {
            // SAFETY: the CPU has AVX (checked above).
            return unsafe { self.project_avx(rows) };
        }
        self.project_lane_wise::<LANES, Lanes>(rows)
    }

    /// [`Self::project`] 8 particles at a time.
    ///
    /// # Safety
    /// The CPU must have AVX.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    unsafe fn project_avx(&self, rows: &mut [SolverParticle]) -> bool {
        self.project_lane_wise::<8, Lanes8>(rows)
    }

    /// [`Self::project`] with `N` lanes: ‖x − a‖² > d² or ‖x − c‖² < r² flags a particle, which
    /// [`Self::project_one`] then projects (it checks again, so a flag only saves work).
    #[inline(always)]
    fn project_lane_wise<const N: usize, L: LaneSet<N>>(&self, rows: &mut [SolverParticle]) -> bool {
        let n = rows.len();
        let batched = n / N * N;
        let (one, zero) = (L::splat(1.0), L::splat(0.0));
        let mut moved = false;
        for first in (0..batched).step_by(N) {
            let x = lanes_of::<N, L>(&rows[first..first + N]);
            let mut flagged = zero.gt(zero);
            if !self.max_distance.is_empty() {
                let offset = x.sub(lanes_of::<N, L>(&self.pose[first..first + N]));
                let d = L::load(self.max_distance, first);
                flagged = L::either(flagged, offset.dot(offset).gt(d * d));
            }
            if !self.radius.is_empty() {
                let offset = x.sub(lanes_of::<N, L>(&self.centres[first..first + N]));
                let r = L::load(self.radius, first);
                flagged = L::either(flagged, (r * r).gt(offset.dot(offset)));
            }
            if L::any(flagged) {
                for (l, flag) in L::select(flagged, one, zero).to_array().into_iter().enumerate() {
                    if flag != 0.0 {
                        moved |= self.project_one(rows, first + l);
                    }
                }
            }
        }
        for i in batched..n {
            moved |= self.project_one(rows, i);
        }
        moved
    }

    /// Particle `i`'s max distance, then its backstop, if it is free; whether it moved.
    #[inline]
    fn project_one(&self, rows: &mut [SolverParticle], i: usize) -> bool {
        let row = &mut rows[i];
        if row.w == 0.0 {
            return false;
        }
        let mut x = Vec3A::from_vec4(*row);
        let mut moved = self.max_distance.get(i).is_some_and(|&d| max_distance(&mut x, self.pose[i], d));
        if let Some(&r) = self.radius.get(i).filter(|&&r| r > 0.0) {
            moved |= backstop(&mut x, self.centres[i], r, self.normals[i].into());
        }
        if moved {
            *row = x.extend(row.w);
        }
        moved
    }
}

/// A 16-byte vector's four numbers (x, y, z and w or padding).
struct Vec4Bits([f32; 4]);

impl From<SolverParticle> for Vec4Bits {
    #[inline(always)]
    fn from(v: SolverParticle) -> Vec4Bits {
        Vec4Bits(v.to_array())
    }
}

impl From<Vec3A> for Vec4Bits {
    #[inline(always)]
    fn from(v: Vec3A) -> Vec4Bits {
        Vec4Bits(v.extend(0.0).to_array())
    }
}

/// The `N` vectors `v` (rows or `Vec3A`s: 16 bytes, x, y, z first) as lanes of x, y and z.
#[inline(always)]
fn lanes_of<const N: usize, L: LaneSet<N>>(v: &[impl Copy + Into<Vec4Bits>]) -> V3<L> {
    let v: &[_; N] = v.try_into().expect("N vectors");
    let mut rows = [[0.0; 4]; N];
    for l in 0..N {
        rows[l] = v[l].into().0;
    }
    L::rows_to_lanes(rows).0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The drive, iterated on a particle pulled by gravity at substep h, settles at the XPBD
    /// static offset α·m·g below the pose (the force λ/h² balances the weight).
    #[test]
    fn the_drive_holds_a_hanging_particle_at_alpha_m_g() {
        let (alpha, m, g, h) = (1e-3f32, 0.2f32, 9.81f32, 1.0 / 600.0);
        let a = Vec3::ZERO;
        let (mut x, mut v) = (a, Vec3::ZERO);
        for _ in 0..20_000 {
            let prev = x;
            v.y -= g * h;
            x += v * h;
            drive(&mut x, a, 1.0 / m, alpha / (h * h), 0.0);
            v = (x - prev) / h;
        }
        let expected = alpha * m * g;
        assert!(((-x.y) / expected - 1.0).abs() < 1e-2, "{} vs {expected}", -x.y);
    }

    #[test]
    fn max_distance_and_backstop_project_onto_their_spheres() {
        let a = Vec3A::new(10.0, 2.0, -3.0);
        let mut x = a + Vec3A::new(0.3, -0.4, 0.0);
        assert!(max_distance(&mut x, a, 0.05));
        assert!(x.distance(a) <= 0.05 + 1e-7, "{}", x.distance(a));
        assert!(!max_distance(&mut x, a, 0.05));
        let n = Vec3A::Y;
        let (b, r) = (0.01, 0.5);
        let centre = backstop_centre(a, n, b, r);
        assert_eq!(centre, a - Vec3A::new(0.0, b + r, 0.0));
        let mut inside = a - Vec3A::new(0.0, 0.2, 0.0);
        assert!(backstop(&mut inside, centre, r, n));
        assert!(inside.distance(centre) >= r);
        let mut outside = a + Vec3A::new(0.0, 0.1, 0.0);
        assert!(!backstop(&mut outside, centre, r, n));
        let mut at_centre = centre;
        assert!(backstop(&mut at_centre, centre, r, n));
        assert!((at_centre - (centre + n * r)).length() < 1e-5);
    }

    /// NaN positions and a zero distance never produce NaN from a finite pose.
    #[test]
    fn degenerate_inputs_stay_finite() {
        let a = Vec3::ONE;
        let mut x = a;
        assert_eq!(drive(&mut x, a, 1.0, 0.0, 0.0), 0.0);
        let (a, mut x) = (Vec3A::from(a), Vec3A::from(x));
        assert!(!max_distance(&mut x, a, 0.0));
        let mut y = a + Vec3A::X;
        assert!(max_distance(&mut y, a, 0.0));
        assert!(y.is_finite());
    }

    /// The lane-wise limit pass (4 lanes, and 8 where the CPU has AVX) moves the same particles by
    /// the same bits as projecting every particle one by one, with either limit alone or both: 203
    /// particles (no multiple of a width), about a third beyond their max distance, a third inside
    /// their backstop, every tenth kinematic. Afterwards every free particle is within its max
    /// distance (both limits: before the backstop's last word) or outside its backstop.
    #[test]
    fn lane_wise_limits_move_the_same_particles_by_the_same_bits_as_one_by_one() {
        let n = 203;
        let mut seed = 12345u32;
        let mut random = move || {
            seed = seed.wrapping_mul(1664525).wrapping_add(1013904223);
            (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5
        };
        let mut v3 = || Vec3A::new(random(), random(), random());
        let pose: Vec<Vec3A> = (0..n).map(|i| Vec3A::new(i as f32 * 0.01, 1.0, 0.0) + v3() * 0.1).collect();
        let normals: Vec<Vec3> = (0..n).map(|_| Vec3::from(v3() + Vec3A::Z).normalize()).collect();
        let (b, r) = (0.01, 0.2);
        let centres: Vec<Vec3A> = pose.iter().zip(&normals).map(|(&a, &n)| backstop_centre(a, n.into(), b, r)).collect();
        let d = vec![0.05f32; n];
        let radius = vec![r; n];
        let rows: Vec<SolverParticle> = (0..n)
            .map(|i| {
                let w = if i % 10 == 0 { 0.0 } else { 1.0 };
                (pose[i] + v3() * 0.12 - Vec3A::from(normals[i]) * 0.03).extend(w)
            })
            .collect();
        let bits = |rows: &[SolverParticle]| rows.iter().flat_map(|r| r.to_array().map(f32::to_bits)).collect::<Vec<_>>();
        for (max, back) in [(true, true), (true, false), (false, true)] {
            let limits = Limits {
                pose: &pose,
                max_distance: if max { &d } else { &[] },
                centres: &centres,
                radius: if back { &radius } else { &[] },
                normals: &normals,
            };
            let mut one_by_one = rows.clone();
            let moved: usize = (0..n).filter(|&i| limits.project_one(&mut one_by_one, i)).count();
            assert!(moved > n / 4, "{moved} of {n} moved: the case tests little");
            let mut four = rows.clone();
            assert!(limits.project_lane_wise::<LANES, Lanes>(&mut four));
            assert!(bits(&four) == bits(&one_by_one), "4 lanes differ ({max}, {back})");
            #[cfg(target_arch = "x86_64")]
            if avx_available() {
                let mut eight = rows.clone();
                // SAFETY: the CPU has AVX (checked above).
                assert!(unsafe { limits.project_avx(&mut eight) });
                assert!(bits(&eight) == bits(&one_by_one), "8 lanes differ ({max}, {back})");
            }
            for (i, row) in one_by_one.iter().enumerate().filter(|(_, row)| row.w != 0.0) {
                let x = Vec3A::from_vec4(*row);
                if back {
                    assert!(x.distance(centres[i]) >= r * (1.0 - 1e-6), "particle {i} inside its backstop");
                } else {
                    assert!(x.distance(pose[i]) <= 0.05 * (1.0 + 1e-6), "particle {i} beyond its max distance");
                }
            }
            for i in (0..n).step_by(10) {
                assert!(one_by_one[i] == rows[i], "kinematic particle {i} moved");
            }
        }
    }
}
