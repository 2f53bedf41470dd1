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

use crate::cloth::{Cloth, Particles};
use crate::parallel::chunks_mut_in_parallel;
use glam::Vec3;

/// Relative speeds below this [m/s] produce no force (no direction to push along).
const MIN_RELATIVE_SPEED: f32 = 1e-6;

/// Settings of the aerodynamic model for one step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Aerodynamics {
    /// Air velocity w [m/s].
    pub wind_velocity: Vec3,
    /// ½·ρ·C_D [kg/m³].
    pub half_rho_drag: f32,
    /// ½·ρ·C_L [kg/m³].
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

    /// Aerodynamic force [N] on the triangle with corners `x` [m] and corner velocities `v` [m/s].
    #[inline]
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
}

/// Add the aerodynamic impulse of one substep h [s] to the velocities of free particles:
/// v_i += h·w_i·Σ F/3 over the triangles around particle i. The triangles' forces are computed
/// into the cloth's preallocated per-triangle scratch first, so every triangle sees the velocities
/// the substep started with; then each particle sums its triangles' forces in triangle order (the
/// bits of a scatter-add over the triangles in storage order). Each pass writes one element per
/// triangle or particle, so with `parallel` both are split over the current rayon pool with the
/// same bits. Allocates nothing.
pub(crate) fn apply_wind(cloth: &mut Cloth, aero: &Aerodynamics, h: f32, parallel: bool) {
    // Positions from the sweep rows, which hold them during the step (see `step_cloth`).
    let (x, v) = (&cloth.sweep_rows, &cloth.particles.v);
    let triangles = &cloth.triangles;
    chunks_mut_in_parallel(&mut cloth.per_triangle, parallel, |first, forces| {
        for (f, t) in forces.iter_mut().zip(&triangles[first..]) {
            let [a, b, c] = t.map(|i| i as usize);
            *f = (aero.triangle_force([x[a], x[b], x[c]].map(|r| r.truncate()), [v[a], v[b], v[c]]) * (1.0 / 3.0)).into();
        }
    });
    let (incident, forces) = (&cloth.particle_triangles, &cloth.per_triangle);
    let Particles { v, w, .. } = &mut cloth.particles;
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
