//! The volume constraint of a closed cloth (pressure): Müller, Heidelberger, Hennix & Ratcliff
//! 2007, "Position Based Dynamics", §4.4 (closed meshes, "overpressure"), projected with the XPBD
//! update (Macklin, Müller & Chentanez 2016, eq. 18):
//!
//! ```text
//! C(x) = s·V(x) − p·|V₀|,   V(x) = Σ_t (x_a − o)·((x_b − o) × (x_c − o)) / 6
//! ∇ᵢC = s·gᵢ,   gᵢ = Σ_{t ∋ i} (x_b − x_a) × (x_c − x_a) / 6 = Σ_{t ∋ i} A_t·n_t / 3
//! ```
//!
//! over the triangles t = (a, b, c) of the mesh, with o any fixed point (V does not depend on it
//! when the mesh is closed), s = ±1 the sign of the rest volume V₀ (+1 when the triangles are wound
//! outward), p the pressure (the target volume as a multiple of the rest volume). The gradient is
//! each triangle's area-weighted normal over 3, summed per particle: for a closed mesh that is
//! exactly ∂V/∂xᵢ (the terms that depend on xᵢ itself cancel around its closed fan), and since V is
//! homogeneous of degree 3 in x − o, V = Σᵢ (xᵢ − o)·gᵢ / 3 (Euler's theorem), so one pass over the
//! particles gives the gradient, the volume and the denominator Σ wᵢ|gᵢ|² together.
//!
//! It is one constraint over every particle: no colouring, one multiplier λ \[Pa·s²\] (λ/h² is the
//! pressure difference the constraint holds, in Pa), compliance α \[m³/Pa\]. One projection
//! changes the volume by at most [`TRUST_REGION`] of its target. The passes split over
//! the current rayon pool by fixed chunks of [`PARTICLE_CHUNK`], and the sums are taken per chunk
//! and then over the chunks in order, so the bits do not depend on the thread count.

use super::SubstepCoefficients;
use super::access::SolverParticle;
use crate::mesh::ParticleTriangles;
use crate::parallel::{PARTICLE_CHUNK, chunks_mut_in_parallel};
use glam::{Vec3, Vec3A, Vec4};
use rayon::prelude::*;

/// The largest volume change one projection makes, as a fraction of the target volume (the trust
/// region of the projection, folded into Δλ). At rest and under ordinary loads the corrections are
/// far smaller, so it changes nothing there; a target the cloth cannot reach (a pressure its stretch
/// does not allow) would otherwise push every particle out by up to a radius per substep, only for
/// the stretch constraints to pull it back: velocities of hundreds of m/s that launch the cloth.
/// A pressure raised from 1 to 2 at once is reached over about 8 projections (a step at the
/// default 10 substeps); 2 % was too small: with compliant stretch each iteration's stretch sweeps
/// take more than it back, and the ball settled at 1.33 of its rest volume instead of 2.
pub(crate) const TRUST_REGION: f64 = 0.1;

/// What one volume projection needs besides the positions.
pub(crate) struct VolumeConstraint<'a> {
    /// The simulated triangles (particle indices) and each particle's triangles.
    pub triangles: &'a [[u32; 3]],
    pub incident: &'a ParticleTriangles,
    /// Target s·p·|V₀| \[m³\] and the winding sign s (±1).
    pub target: f64,
    pub sign: f32,
    /// Compliance α \[m³/Pa\].
    pub compliance: f32,
}

/// The buffers of the volume projection, sized when pressure is switched on.
#[derive(Clone, Debug, Default)]
pub(crate) struct VolumeScratch {
    /// gᵢ (xyz) per particle, and in w the particle's share of the sums: written by the gradient
    /// pass, read by the update.
    pub gradient: Vec<Vec4>,
    /// Per chunk of [`PARTICLE_CHUNK`] particles: Σ (xᵢ − o)·gᵢ and Σ wᵢ|gᵢ|².
    pub partials: Vec<[f64; 2]>,
    /// The multiplier λ of the current substep \[Pa·s²\].
    pub lambda: f32,
}

impl VolumeScratch {
    /// Sized for `particles` particles (allocates only when it grows).
    pub fn fit(&mut self, particles: usize) {
        self.gradient.resize(particles, Vec4::ZERO);
        self.partials.resize(particles.div_ceil(PARTICLE_CHUNK), [0.0; 2]);
    }
}

/// The cross product (x_b − x_a) × (x_c − x_a) \[m²\] (twice the area-weighted normal) of every
/// triangle into `per_triangle`, from the rows.
fn triangle_normals(rows: &[SolverParticle], triangles: &[[u32; 3]], per_triangle: &mut [Vec3A], parallel: bool) {
    chunks_mut_in_parallel(per_triangle, parallel, |first, out| {
        for (n, t) in out.iter_mut().zip(&triangles[first..]) {
            let [a, b, c] = t.map(|i| Vec3A::from(rows[i as usize].truncate()));
            *n = (b - a).cross(c - a);
        }
    });
}

impl VolumeConstraint<'_> {
    /// The enclosed volume V \[m³\] of `rows` (the sum of a fresh gradient pass).
    #[cfg(test)]
    pub fn volume(&self, rows: &[SolverParticle], per_triangle: &mut [Vec3A], scratch: &mut VolumeScratch) -> f64 {
        triangle_normals(rows, self.triangles, per_triangle, false);
        let (v, _) = self.gradients(rows, per_triangle, scratch, false);
        v
    }

    /// One projection (XPBD eq. 18) of the positions in `rows` (xyz, w in the fourth lane):
    /// λ takes Δλ = (−C − α̃·λ) / (Σ wᵢ|∇ᵢC|² + α̃) and every particle moves by wᵢ·∇ᵢC·Δλ.
    /// `fresh`: the substep's first projection (λ = 0). `per_triangle`: a buffer of one vector per
    /// triangle. Skipped when the denominator vanishes (every particle kinematic). Allocates nothing.
    pub fn project(&self, rows: &mut [SolverParticle], per_triangle: &mut [Vec3A], scratch: &mut VolumeScratch, k: &SubstepCoefficients, fresh: bool, parallel: bool) {
        if fresh {
            scratch.lambda = 0.0;
        }
        triangle_normals(rows, self.triangles, per_triangle, parallel);
        let (volume, weighted) = self.gradients(rows, per_triangle, scratch, parallel);
        let c = (self.sign as f64 * volume - self.target) as f32;
        let alpha_tilde = self.compliance * k.inv_h2;
        let denominator = weighted as f32 + alpha_tilde;
        if !(denominator > super::MIN_DENOMINATOR) || !c.is_finite() {
            return;
        }
        // First order, the projection changes the volume by Δλ·Σ wᵢ|gᵢ|²: at most the trust region.
        let bound = (TRUST_REGION * self.target.abs() / weighted) as f32;
        let delta = ((-c - alpha_tilde * scratch.lambda) / denominator).clamp(-bound, bound);
        scratch.lambda += delta;
        let scale = self.sign * delta;
        let gradient = &scratch.gradient;
        chunks_mut_in_parallel(rows, parallel, |first, out| {
            for (row, g) in out.iter_mut().zip(&gradient[first..]) {
                // x += w·s·g·Δλ; the row's w (fourth lane) is unchanged.
                let step = g.truncate() * (row.w * scale);
                *row += step.extend(0.0);
            }
        });
    }

    /// gᵢ for every particle into `scratch.gradient`, and (V, Σ wᵢ|gᵢ|²) summed per chunk, then
    /// over the chunks in order.
    fn gradients(&self, rows: &[SolverParticle], per_triangle: &[Vec3A], scratch: &mut VolumeScratch, parallel: bool) -> (f64, f64) {
        let origin: Vec3 = self.triangles.first().map_or(Vec3::ZERO, |t| rows[t[0] as usize].truncate());
        let incident = self.incident;
        let pass = |first: usize, (out, partial): (&mut [Vec4], &mut [f64; 2])| {
            let (mut volume, mut weighted) = (0.0f64, 0.0f64);
            for (k, g) in out.iter_mut().enumerate() {
                let i = first + k;
                let gi = Vec3::from(incident.sum(i, per_triangle)) * (1.0 / 6.0);
                let row = rows[i];
                let share = (row.truncate() - origin).dot(gi);
                volume += share as f64;
                weighted += (row.w * gi.length_squared()) as f64;
                *g = gi.extend(share);
            }
            *partial = [volume, weighted];
        };
        let chunks = scratch.gradient.len().div_ceil(PARTICLE_CHUNK);
        let (gradient, partials) = (&mut scratch.gradient, &mut scratch.partials[..chunks]);
        if parallel {
            gradient.par_chunks_mut(PARTICLE_CHUNK).zip(partials.par_iter_mut()).enumerate().for_each(|(k, c)| pass(k * PARTICLE_CHUNK, c));
        } else {
            gradient.chunks_mut(PARTICLE_CHUNK).zip(partials.iter_mut()).enumerate().for_each(|(k, c)| pass(k * PARTICLE_CHUNK, c));
        }
        let (volume, weighted) = partials.iter().fold((0.0, 0.0), |(v, w), p| (v + p[0], w + p[1]));
        (volume / 3.0, weighted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A closed octahedron of "radius" r around `centre`, outward winding.
    fn octahedron(r: f32, centre: Vec3) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let x = [Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z].map(|d| centre + d * r).to_vec();
        let t = vec![[0, 2, 4], [2, 1, 4], [1, 3, 4], [3, 0, 4], [2, 0, 5], [1, 2, 5], [3, 1, 5], [0, 3, 5]];
        (x, t)
    }

    fn rows_of(x: &[Vec3], w: f32) -> Vec<SolverParticle> {
        x.iter().map(|p| p.extend(w)).collect()
    }

    /// V of the octahedron is 4r³/3, wherever it is, and the gradient is ∂V/∂xᵢ: central finite
    /// differences of V agree.
    #[test]
    fn the_volume_and_its_gradient_match_the_octahedron_and_finite_differences() {
        let (x, t) = octahedron(0.5, Vec3::new(3.0, -2.0, 1.0));
        let incident = ParticleTriangles::build(&t, x.len());
        let c = VolumeConstraint { triangles: &t, incident: &incident, target: 0.0, sign: 1.0, compliance: 0.0 };
        let mut scratch = VolumeScratch::default();
        scratch.fit(x.len());
        let mut per_triangle = vec![Vec3A::ZERO; t.len()];
        let v = c.volume(&rows_of(&x, 1.0), &mut per_triangle, &mut scratch);
        assert!((v - 4.0 * 0.125 / 3.0).abs() < 1e-6, "{v}");
        let g: Vec<Vec3> = scratch.gradient.iter().map(|g| g.truncate()).collect();
        let h = 1e-3;
        for i in 0..x.len() {
            for axis in 0..3 {
                let mut d = Vec3::ZERO;
                d[axis] = h;
                let mut plus = x.clone();
                plus[i] += d;
                let mut minus = x.clone();
                minus[i] -= d;
                let fd = (c.volume(&rows_of(&plus, 1.0), &mut per_triangle, &mut scratch) - c.volume(&rows_of(&minus, 1.0), &mut per_triangle, &mut scratch)) / (2.0 * h as f64);
                assert!((fd - g[i][axis] as f64).abs() < 1e-4, "particle {i} axis {axis}: {fd} vs {}", g[i][axis]);
            }
        }
    }

    /// One rigid projection moves the volume to its target to first order; the result does not
    /// depend on whether the passes split over threads.
    #[test]
    fn a_rigid_projection_reaches_the_target_volume_and_the_same_bits_in_parallel() {
        let (x, t) = octahedron(1.0, Vec3::ZERO);
        let incident = ParticleTriangles::build(&t, x.len());
        let rest = 4.0 / 3.0;
        let c = VolumeConstraint { triangles: &t, incident: &incident, target: 1.01 * rest, sign: 1.0, compliance: 0.0 };
        let k = SubstepCoefficients::new(1.0 / 600.0, 0.0);
        let mut scratch = VolumeScratch::default();
        scratch.fit(x.len());
        let mut per_triangle = vec![Vec3A::ZERO; t.len()];
        let mut rows = rows_of(&x, 2.0);
        c.project(&mut rows, &mut per_triangle, &mut scratch, &k, true, false);
        let v = c.volume(&rows, &mut per_triangle, &mut scratch);
        assert!((v / rest - 1.01).abs() < 1e-4, "{}", v / rest);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let mut parallel = rows_of(&x, 2.0);
        let mut s2 = VolumeScratch::default();
        s2.fit(x.len());
        pool.install(|| c.project(&mut parallel, &mut per_triangle, &mut s2, &k, true, true));
        let bits = |r: &[SolverParticle]| r.iter().flat_map(|p| p.to_array().map(f32::to_bits)).collect::<Vec<_>>();
        assert_eq!(bits(&rows), bits(&parallel));
    }
}
