//! Aerodynamic drag and lift on every triangle, from its velocity relative to the air.
//!
//! The per-triangle model of Keckeisen, Kimmerle, Thomaszewski & Wacker 2004, "Modelling Effects of
//! Wind Fields in Cloth Animations" (Journal of WSCG 12, §3), which game cloth solvers use in the
//! same form (a drag and a lift coefficient per cloth). For a triangle of area A with particle
//! velocities v₁, v₂, v₃ in air moving at `wind_velocity` w:
//!
//! v_rel = (v₁ + v₂ + v₃)/3 − w,  u = v_rel/|v_rel|,  n = unit normal flipped so that c = n·u ≥ 0,
//!
//! F_drag = −½·ρ·C_D·A·|v_rel|²·c · u                   (opposes the motion through the air)
//! F_lift =  ½·ρ·C_L·A·|v_rel|²·c · ((n × u) × u)       (perpendicular to u, = c·u − n)
//!
//! c = cos of the angle between the normal and the flow: a triangle facing the flow gets full drag
//! and no lift, one seen edge-on gets neither. Each corner receives a third of F. The force is
//! explicit (from the velocities at the start of the substep), which is stable while the drag
//! relaxation rate ρ·C_D·|v_rel|/(2·areal density) is well below 1/h.

use super::Parts;
use crate::constraints::access::{SolverParticle, column, constraint_particles, gather_vec3};
use crate::constraints::lanes::{LANES, LaneSet, Lanes, Real, V3, v3};
#[cfg(target_arch = "x86_64")]
use crate::constraints::lanes_avx::{Lanes8, avx_available};
use crate::parallel::chunks_mut_in_parallel;
use glam::{Vec3, Vec3A};

/// Relative speeds below this \[m/s\] produce no force (no direction to push along).
const MIN_RELATIVE_SPEED: f32 = 1e-6;

/// Settings of the aerodynamic model for one step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Aerodynamics {
    /// Air velocity w \[m/s\].
    pub wind_velocity: Vec3,
    /// ½·ρ·C_D \[kg/m³\].
    pub half_rho_drag: f32,
    /// ½·ρ·C_L \[kg/m³\].
    pub half_rho_lift: f32,
}

impl Aerodynamics {
    /// `None` when both coefficients are zero: the model is off and costs nothing.
    pub fn from_params(params: &crate::ClothParams) -> Option<Aerodynamics> {
        if params.drag_coefficient == 0.0 && params.lift_coefficient == 0.0 {
            return None;
        }
        Some(Aerodynamics {
            wind_velocity: Vec3::from_array(params.wind_velocity),
            half_rho_drag: 0.5 * params.air_density * params.drag_coefficient,
            half_rho_lift: 0.5 * params.air_density * params.lift_coefficient,
        })
    }

    /// Aerodynamic force \[N\] on the triangle with corners `x` \[m\] and corner velocities `v` [m/s]:
    /// the model as written in the module docs, the reference the lane-wise
    /// [`Self::triangle_force_of`] that the step runs is tested against bit for bit.
    #[cfg(test)]
    pub fn triangle_force(&self, x: [Vec3; 3], v: [Vec3; 3]) -> Vec3 {
        let v_rel = (v[0] + v[1] + v[2]) * (1.0 / 3.0) - self.wind_velocity;
        let speed = v_rel.length();
        let cross = (x[1] - x[0]).cross(x[2] - x[0]); // |cross| = 2·area
        let double_area = cross.length();
        if speed < MIN_RELATIVE_SPEED || double_area <= 0.0 {
            return Vec3::ZERO;
        }
        let u = v_rel / speed;
        let mut n = cross / double_area;
        let mut c = n.dot(u);
        if c < 0.0 {
            n = -n;
            c = -c;
        }
        // ½ρ·C·A·|v_rel|²·c with A = double_area/2.
        let scale = 0.5 * double_area * speed * speed * c;
        let drag = -u * (self.half_rho_drag * scale);
        let lift = (u * c - n) * (self.half_rho_lift * scale);
        drag + lift
    }

    /// `Self::triangle_force` (test builds) of one triangle (`T = f32`) or of several lane-wise, branch-free:
    /// the same IEEE operations in the same order per lane, so the same bits (the unit test
    /// compares them); the two early returns become selects of zero.
    #[inline(always)]
    fn triangle_force_of<T: Real>(&self, x: [V3<T>; 3], v: [V3<T>; 3]) -> V3<T> {
        let zero = T::splat(0.0);
        let wind = self.wind_velocity;
        let wind = V3 { x: T::splat(wind.x), y: T::splat(wind.y), z: T::splat(wind.z) };
        let v_rel = v[0].add(v[1]).add(v[2]).scale(T::splat(1.0 / 3.0)).sub(wind);
        let speed = v_rel.dot(v_rel).sqrt();
        let cross = x[1].sub(x[0]).cross(x[2].sub(x[0]));
        let double_area = cross.dot(cross).sqrt();
        let u = V3 { x: v_rel.x / speed, y: v_rel.y / speed, z: v_rel.z / speed };
        let n = V3 { x: cross.x / double_area, y: cross.y / double_area, z: cross.z / double_area };
        let c = n.dot(u);
        // if c < 0 { n = −n; c = −c } (false for NaN, as the scalar `<`).
        let flip = |a: T| zero.gt_select(c, -a, a);
        let (n, c) = (V3 { x: flip(n.x), y: flip(n.y), z: flip(n.z) }, flip(c));
        let scale = T::splat(0.5) * double_area * speed * speed * c;
        let minus_u = V3 { x: -u.x, y: -u.y, z: -u.z };
        let drag = minus_u.scale(T::splat(self.half_rho_drag) * scale);
        let lift = u.scale(c).sub(n).scale(T::splat(self.half_rho_lift) * scale);
        let force = drag.add(lift);
        // The early returns: zero when speed < MIN_RELATIVE_SPEED or double_area ≤ 0.
        let kept = |f: T| T::splat(MIN_RELATIVE_SPEED).gt_select(speed, zero, double_area.le_select(zero, zero, f));
        V3 { x: kept(force.x), y: kept(force.y), z: kept(force.z) }
    }

    /// A third of the force on each of `triangles` (corners' positions in `rows` \[m\], velocities
    /// `v` \[m/s\]) into `out`: `N` triangles at a time, the rest one at a time.
    #[inline(always)]
    fn third_forces<const N: usize, L: LaneSet<N>>(&self, rows: &[SolverParticle], v: &[Vec3], triangles: &[[u32; 3]], out: &mut [Vec3A]) {
        let batches = out.len() / N;
        let (batched, rest) = out.split_at_mut(batches * N);
        for (out, triangles) in batched.chunks_exact_mut(N).zip(triangles.chunks_exact(N)) {
            let ids: [[usize; 3]; N] = constraint_particles(triangles);
            let x = [corner_rows::<N, L>(rows, column(&ids, 0)), corner_rows::<N, L>(rows, column(&ids, 1)), corner_rows::<N, L>(rows, column(&ids, 2))];
            let v = [
                gather_vec3::<N, L>(v, column(&ids, 0)),
                gather_vec3::<N, L>(v, column(&ids, 1)),
                gather_vec3::<N, L>(v, column(&ids, 2)),
            ];
            let third = self.triangle_force_of(x, v).scale(L::splat(1.0 / 3.0));
            for (out, row) in out.iter_mut().zip(L::lanes_to_rows(third)) {
                *out = Vec3A::from_vec4(row);
            }
        }
        for (out, t) in rest.iter_mut().zip(&triangles[batches * N..]) {
            let [a, b, c] = t.map(|i| i as usize);
            let x = [rows[a], rows[b], rows[c]].map(|r| v3(r.truncate()));
            *out = self.triangle_force_of(x, [v3(v[a]), v3(v[b]), v3(v[c])]).scale(1.0 / 3.0).to_vec3().into();
        }
    }

    /// [`Self::third_forces`] 8 at a time in AVX registers.
    ///
    /// # Safety
    /// The CPU must have AVX ([`avx_available`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    unsafe fn third_forces_avx(&self, rows: &[SolverParticle], v: &[Vec3], triangles: &[[u32; 3]], out: &mut [Vec3A]) {
        self.third_forces::<8, Lanes8>(rows, v, triangles, out);
    }

    /// [`Self::third_forces`], 8 at a time where the CPU has AVX, else [`LANES`].
    fn third_forces_lane_wise(&self, rows: &[SolverParticle], v: &[Vec3], triangles: &[[u32; 3]], out: &mut [Vec3A]) {
        #[cfg(target_arch = "x86_64")]
        if avx_available() {
            // SAFETY: the CPU has AVX (checked above).
            return unsafe { self.third_forces_avx(rows, v, triangles, out) };
        }
        self.third_forces::<LANES, Lanes>(rows, v, triangles, out);
    }
}

/// The positions of particles `ids` (one per lane) from their sweep rows.
#[inline(always)]
fn corner_rows<const N: usize, L: LaneSet<N>>(rows: &[SolverParticle], ids: [usize; N]) -> V3<L> {
    let mut r = [[0.0; 4]; N];
    for (r, i) in r.iter_mut().zip(ids) {
        *r = rows[i].to_array();
    }
    L::rows_to_lanes(r).0
}

/// Add the aerodynamic impulse of one substep h \[s\] to the velocities of free particles:
/// v_i += h·w_i·Σ F/3 over the triangles around particle i. The triangles' forces are computed into
/// the cloth's preallocated per-triangle scratch first, so every triangle sees the velocities the
/// substep started with, 8 triangles at a time where the CPU has AVX, else 4
/// ([`Aerodynamics::triangle_force_of`], the bits of the one-at-a-time model;
/// docs/dev/performance-log.md, "2026-11-30 — Kept row offsets, AVX passes, lane-wise wind, contact
/// blocks"); then each particle sums its triangles' forces in triangle order (the bits of a
/// scatter-add over the triangles in storage order). Each pass writes one element per triangle or
/// particle, so with `parallel` both are split over the current rayon pool with the same bits.
/// Allocates nothing.
pub(crate) fn apply_wind(parts: &mut Parts, aero: &Aerodynamics, h: f32, parallel: bool) {
    // Positions from the sweep rows, which hold them during the step (see `step_cloth`).
    let (s, model) = (&mut *parts.scratch, parts.model);
    let (x, v) = (&s.rows, &parts.state.v);
    let triangles = &model.triangles;
    chunks_mut_in_parallel(&mut s.per_triangle, parallel, |first, forces| {
        aero.third_forces_lane_wise(x, v, &triangles[first..], forces);
    });
    let (incident, forces, w) = (&model.particle_triangles, &s.per_triangle, &parts.config.w);
    let v = &mut parts.state.v;
    chunks_mut_in_parallel(v, parallel, |first, v| {
        for (k, v) in v.iter_mut().enumerate() {
            *v += Vec3::from(incident.sum(first + k, forces)) * (h * w[first + k]);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    const AIR: f32 = 1.225;

    fn model(wind: Vec3, drag: f32, lift: f32) -> Aerodynamics {
        Aerodynamics { wind_velocity: wind, half_rho_drag: 0.5 * AIR * drag, half_rho_lift: 0.5 * AIR * lift }
    }

    /// The lane-wise forces (8 lanes where the CPU has AVX, 4, and one at a time for the
    /// remainder) against the reference `triangle_force`, bit for bit: random triangles and
    /// velocities, some degenerate (a repeated corner: zero area), some moving with the air (zero
    /// relative speed), both sides facing the flow, 203 triangles so that every path runs.
    #[test]
    fn lane_wise_forces_have_the_bits_of_the_reference() {
        let mut next = crate::test_util::uniform(0x2545_f491);
        let wind = Vec3::new(3.0, 0.5, -1.0);
        let aero = model(wind, 1.1, 0.6);
        let x: Vec<Vec3> = (0..40).map(|_| Vec3::new(next(), next(), next())).collect();
        let rows: Vec<SolverParticle> = x.iter().map(|p| p.extend(0.5 + next().abs())).collect();
        let v: Vec<Vec3> = (0..40).map(|k| if k % 7 == 0 { wind } else { Vec3::new(next(), next(), next()) * 4.0 }).collect();
        let pick = |t: u32, k: u32| (t * 11 + k * 17 + t / 5) % 40;
        let triangles: Vec<[u32; 3]> =
            (0..203u32).map(|t| if t % 9 == 0 { [pick(t, 0), pick(t, 1), pick(t, 0)] } else { [pick(t, 0), pick(t, 1), pick(t, 2)] }).collect();
        let mut lane_wise = vec![Vec3A::ZERO; triangles.len()];
        aero.third_forces_lane_wise(&rows, &v, &triangles, &mut lane_wise);
        let mut four_lanes = vec![Vec3A::ZERO; triangles.len()];
        #[cfg(target_arch = "x86_64")]
        crate::constraints::lanes_avx::tests::sse_only(|| aero.third_forces_lane_wise(&rows, &v, &triangles, &mut four_lanes));
        #[cfg(not(target_arch = "x86_64"))]
        aero.third_forces_lane_wise(&rows, &v, &triangles, &mut four_lanes);
        let bits = |f: Vec3A| f.to_array().map(f32::to_bits);
        let (mut zero, mut pushed) = (0, 0);
        for (k, t) in triangles.iter().enumerate() {
            let [a, b, c] = t.map(|i| i as usize);
            let want = Vec3A::from(aero.triangle_force([x[a], x[b], x[c]], [v[a], v[b], v[c]]) * (1.0 / 3.0));
            assert_eq!(bits(lane_wise[k]), bits(want), "triangle {k} {t:?}");
            assert_eq!(bits(four_lanes[k]), bits(want), "triangle {k} {t:?}, 4 lanes");
            if want == Vec3A::ZERO { zero += 1 } else { pushed += 1 }
        }
        assert!(zero >= 22 && pushed >= 150, "{zero} without force, {pushed} with");
    }

    /// A right triangle of area ½ m² in the plane with normal `normal` (x-y plane rotated).
    fn triangle(normal: Vec3) -> [Vec3; 3] {
        let a = normal.any_orthonormal_vector();
        let b = normal.cross(a);
        [Vec3::ZERO, a, b]
    }

    #[test]
    fn triangle_facing_the_wind_is_pushed_downwind_by_half_rho_cd_a_v_squared() {
        let wind = Vec3::new(5.0, 0.0, 0.0);
        let aero = model(wind, 1.2, 0.4);
        let at_rest = [Vec3::ZERO; 3];
        let f = aero.triangle_force(triangle(Vec3::X), at_rest);
        // Drag ½·ρ·C_D·A·|w|² along the wind, lift zero (flow along the normal).
        let expected = 0.5 * AIR * 1.2 * 0.5 * 25.0;
        assert!((f.x - expected).abs() < 1e-4 * expected, "{f:?} vs {expected}");
        assert!(f.y.abs() < 1e-5 && f.z.abs() < 1e-5, "{f:?}");
        // The winding does not matter: the back face is pushed the same way.
        let [p, q, r] = triangle(Vec3::X);
        assert!((aero.triangle_force([p, r, q], at_rest) - f).length() < 1e-5);
    }

    #[test]
    fn triangle_edge_on_to_the_wind_feels_nothing() {
        let aero = model(Vec3::new(5.0, 0.0, 0.0), 1.2, 0.4);
        let f = aero.triangle_force(triangle(Vec3::Y), [Vec3::ZERO; 3]);
        assert!(f.length() < 1e-6, "{f:?}");
    }

    #[test]
    fn moving_with_the_wind_feels_nothing_and_lift_is_perpendicular_to_the_flow() {
        let wind = Vec3::new(3.0, 0.0, 1.0);
        let aero = model(wind, 1.0, 0.5);
        let tilted = triangle(Vec3::new(1.0, 1.0, 0.3).normalize());
        assert_eq!(aero.triangle_force(tilted, [wind; 3]), Vec3::ZERO);
        let lift_only = model(wind, 0.0, 0.5).triangle_force(tilted, [Vec3::ZERO; 3]);
        assert!(lift_only.length() > 0.1);
        assert!(lift_only.dot(wind).abs() < 1e-5 * lift_only.length() * wind.length());
    }
}
