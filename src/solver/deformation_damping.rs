//! Deformation damping (Müller et al. 2007, "Position Based Dynamics", §3.5): once per step each
//! free particle's velocity moves toward the cloth's rigid motion, v_cm + ω × r_i, by the
//! fraction 1 − exp(−d·Δt), the exact decay of dv/dt = −d·(v − v_rigid) over the step. The rigid
//! motion is fitted to the free particles' linear and angular momentum, which the damping
//! therefore keeps (Σ m Δv = 0, Σ m r × Δv = 0): free fall, sliding and spinning stay exact and
//! only the cloth's motion relative to itself is damped.

use crate::constraints::access::SolverParticle;
use glam::{DMat3, DVec3, Vec3};

/// The free particles' (w > 0) rigid motion: centre of mass, its velocity and the angular
/// velocity about it, in f64 (sums over every particle of a cloth; translated to the first free
/// particle so that a cloth far from the origin loses nothing).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RigidMotion {
    pub centre: DVec3,
    pub velocity: DVec3,
    pub angular_velocity: DVec3,
    /// Angular momentum L about the centre of mass \[kg·m²/s\] and the inertia tensor I there
    /// \[kg·m²\] (ω = I⁻¹·L).
    pub angular_momentum: DVec3,
    pub inertia: DMat3,
}

impl RigidMotion {
    /// The rigid motion of the free particles of `rows` (positions and w) moving at `v` \[m/s\];
    /// None when no particle is free or some free particle is not finite.
    pub fn fit(rows: &[SolverParticle], v: &[Vec3]) -> Option<RigidMotion> {
        Self::fit_of(rows.iter().map(|r| (r.truncate(), r.w)), v)
    }

    /// [`Self::fit`] of positions and inverse masses given one by one (`(x, w)` per particle).
    pub fn fit_of(particles: impl Iterator<Item = (Vec3, f32)> + Clone, v: &[Vec3]) -> Option<RigidMotion> {
        let origin = particles.clone().find(|&(_, w)| w > 0.0)?.0.as_dvec3();
        // Σ m, Σ m r, Σ m v, Σ m r × v, Σ m r rᵀ about `origin`, then moved to the centre of
        // mass (parallel axis theorem).
        let (mut mass, mut moment, mut momentum, mut angular, mut second) = (0.0, DVec3::ZERO, DVec3::ZERO, DVec3::ZERO, DMat3::ZERO);
        for ((x, w), v) in particles.zip(v) {
            if w <= 0.0 {
                continue;
            }
            let m = 1.0 / w as f64;
            let (r, v) = (x.as_dvec3() - origin, v.as_dvec3());
            mass += m;
            moment += m * r;
            momentum += m * v;
            angular += m * r.cross(v);
            second += DMat3::from_cols(r * (m * r.x), r * (m * r.y), r * (m * r.z));
        }
        let c = moment / mass;
        let velocity = momentum / mass;
        let angular = angular - mass * c.cross(velocity);
        let second = second - DMat3::from_cols(c * (mass * c.x), c * (mass * c.y), c * (mass * c.z));
        // Inertia tensor I = tr(S)·1 − S of the second moment S; a cloth on a line (or a single
        // particle) has a singular I, whose null direction a tiny multiple of 1 keeps finite (ω
        // along it moves no particle).
        let trace = second.x_axis.x + second.y_axis.y + second.z_axis.z;
        let inertia = DMat3::from_diagonal(DVec3::splat(trace * (1.0 + 1e-12) + f64::MIN_POSITIVE)) - second;
        let angular_velocity = if trace > 0.0 { inertia.inverse() * angular } else { DVec3::ZERO };
        let fit = RigidMotion { centre: origin + c, velocity, angular_velocity, angular_momentum: angular, inertia };
        // A non-finite particle would spread to every velocity; the step guard names it instead.
        (fit.centre.is_finite() && fit.velocity.is_finite() && fit.angular_velocity.is_finite()).then_some(fit)
    }

    /// The angular momentum L of the free particles (`(x, w)` per particle) moving at `v` about
    /// their centre of mass \[kg·m²/s\], as [`Self::fit`] computes it (the same sums, without the
    /// inertia tensor); None when no particle is free or L is not finite.
    pub fn angular_momentum_of(particles: impl Iterator<Item = (Vec3, f32)> + Clone, v: &[Vec3]) -> Option<DVec3> {
        let origin = particles.clone().find(|&(_, w)| w > 0.0)?.0.as_dvec3();
        let (mut mass, mut moment, mut momentum, mut angular) = (0.0, DVec3::ZERO, DVec3::ZERO, DVec3::ZERO);
        for ((x, w), v) in particles.zip(v) {
            if w <= 0.0 {
                continue;
            }
            let m = 1.0 / w as f64;
            let (r, v) = (x.as_dvec3() - origin, v.as_dvec3());
            mass += m;
            moment += m * r;
            momentum += m * v;
            angular += m * r.cross(v);
        }
        let c = moment / mass;
        let angular = angular - mass * c.cross(momentum / mass);
        angular.is_finite().then_some(angular)
    }

    /// The rigid motion's velocity at `x` \[m/s\].
    pub fn velocity_at(&self, x: DVec3) -> DVec3 {
        self.velocity + self.angular_velocity.cross(x - self.centre)
    }
}

/// Damp the free particles' velocities `v` \[m/s\] relative to their rigid motion at rate `d`
/// \[1/s\] over a step of `dt` \[s\] (positions in `rows`).
pub(crate) fn damp_deformation(rows: &[SolverParticle], v: &mut [Vec3], d: f32, dt: f32) {
    let Some(rigid) = RigidMotion::fit(rows, v) else { return };
    let fraction = -(-(d as f64) * dt as f64).exp_m1();
    for (row, v) in rows.iter().zip(v.iter_mut()) {
        if row.w > 0.0 {
            let target = rigid.velocity_at(row.truncate().as_dvec3());
            *v = (v.as_dvec3() + (target - v.as_dvec3()) * fraction).as_vec3();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(x: &[Vec3], w: &[f32]) -> Vec<SolverParticle> {
        x.iter().zip(w).map(|(x, &w)| x.extend(w)).collect()
    }

    /// A small irregular cloud of particles of unequal masses, one pinned.
    fn cloud() -> (Vec<Vec3>, Vec<f32>) {
        let x: Vec<Vec3> = (0..40).map(|i| Vec3::new((i as f32 * 0.37).sin(), (i as f32 * 0.11).cos() * 0.5, (i % 7) as f32 * 0.1)).collect();
        let w: Vec<f32> = (0..40).map(|i| if i == 3 { 0.0 } else { 0.5 + (i % 5) as f32 }).collect();
        (x, w)
    }

    /// A rigid motion (translation + rotation) is left as it is, bit for bit up to f32 rounding.
    #[test]
    fn a_rigid_motion_is_not_damped() {
        let (x, w) = cloud();
        let (lin, ang) = (Vec3::new(0.3, -2.0, 1.0), Vec3::new(0.5, 1.5, -0.7));
        let centre = Vec3::new(0.2, 0.1, 0.3);
        let v0: Vec<Vec3> = x.iter().map(|&x| lin + ang.cross(x - centre)).collect();
        let mut v = v0.clone();
        damp_deformation(&rows(&x, &w), &mut v, 50.0, 0.1);
        for (i, (a, b)) in v.iter().zip(&v0).enumerate() {
            assert!(a.distance(*b) < 1e-5, "particle {i}: {a} against {b}");
        }
    }

    /// Any velocities: linear and angular momentum of the free particles are kept, the pinned
    /// particle's velocity is untouched, and at a very high rate every free particle ends on
    /// the rigid fit, which the test computes independently by least squares (the rigid motion
    /// minimising Σ m |v − (a + ω × r)|² is the momentum fit).
    #[test]
    fn momentum_is_kept_and_the_limit_is_the_least_squares_rigid_motion() {
        let (x, w) = cloud();
        let v0: Vec<Vec3> = (0..x.len()).map(|i| Vec3::new((i as f32 * 1.3).sin(), (i as f32 * 0.7).cos(), (i as f32 * 2.1).sin() * 0.4)).collect();
        let momenta = |v: &[Vec3]| {
            let (mut p, mut l) = (DVec3::ZERO, DVec3::ZERO);
            for ((x, v), &w) in x.iter().zip(v).zip(&w) {
                if w > 0.0 {
                    p += v.as_dvec3() / w as f64;
                    l += x.as_dvec3().cross(v.as_dvec3()) / w as f64;
                }
            }
            (p, l)
        };
        let mut v = v0.clone();
        damp_deformation(&rows(&x, &w), &mut v, 3.0, 1.0 / 60.0);
        let ((p0, l0), (p1, l1)) = (momenta(&v0), momenta(&v));
        assert!((p1 - p0).length() < 1e-5 && (l1 - l0).length() < 1e-5, "p {p0} → {p1}, L {l0} → {l1}");
        assert_eq!(v[3], v0[3], "the pinned particle");
        assert!(v.iter().zip(&v0).any(|(a, b)| a.distance(*b) > 1e-3), "something was damped");

        // The high-rate limit against a least-squares fit by gradient descent on (a, ω).
        let mut fully = v0.clone();
        damp_deformation(&rows(&x, &w), &mut fully, 1e6, 1.0);
        let (mut a, mut omega) = (DVec3::ZERO, DVec3::ZERO);
        let free: Vec<usize> = (0..x.len()).filter(|&i| w[i] > 0.0).collect();
        for _ in 0..20000 {
            let (mut ga, mut go) = (DVec3::ZERO, DVec3::ZERO);
            for &i in &free {
                let (r, m) = (x[i].as_dvec3(), 1.0 / w[i] as f64);
                let e = a + omega.cross(r) - v0[i].as_dvec3();
                ga += m * e;
                go += m * r.cross(e);
            }
            a -= ga * 0.02;
            omega -= go * 0.02;
        }
        for &i in &free {
            let fit = (a + omega.cross(x[i].as_dvec3())).as_vec3();
            assert!(fully[i].distance(fit) < 1e-4, "particle {i}: {} against the fit {fit}", fully[i]);
        }
    }

    /// Particles on a line: the inertia tensor is singular, the fit stays finite and still keeps
    /// a rotation about the line's normal.
    #[test]
    fn particles_on_a_line_stay_finite() {
        let x: Vec<Vec3> = (0..10).map(|i| Vec3::new(i as f32 * 0.1, 0.0, 0.0)).collect();
        let w = vec![1.0; 10];
        let spin = Vec3::new(0.0, 2.0, 0.0);
        let v0: Vec<Vec3> = x.iter().map(|&x| spin.cross(x - Vec3::new(0.45, 0.0, 0.0))).collect();
        let mut v = v0.clone();
        damp_deformation(&rows(&x, &w), &mut v, 10.0, 0.1);
        for (a, b) in v.iter().zip(&v0) {
            assert!(a.is_finite() && a.distance(*b) < 1e-5, "{a} against {b}");
        }
        let mut single = vec![Vec3::X];
        damp_deformation(&rows(&[Vec3::ZERO], &[1.0]), &mut single, 10.0, 0.1);
        assert_eq!(single[0], Vec3::X);
    }
}
