//! Reading results back in render-vertex order, and energy for diagnostics.

use super::Cloth;
use crate::error::ClothError;
use glam::Vec3;

/// Mechanical energy of a cloth \[J\] (see [`Cloth::energy`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Energy {
    /// Σ ½ m v² over free particles \[J\].
    pub kinetic: f32,
    /// −Σ m g·x over free particles \[J\] (zero at the origin).
    pub gravitational: f32,
    /// Elastic energy of the enabled stretch and bending constraints \[J\], in complementary form
    /// from the last substep's multipliers: Σ ½·α·(λ/h²)² (force f = λ/h², Macklin et al. 2016 §4).
    /// It equals the primal ½·C²/α when the solve has converged and, unlike it, is not inflated by
    /// the residual a one-iteration sweep leaves on stiff constraints. Rigid (α = 0) constraints
    /// store no energy; 0 before the first step.
    pub elastic: f32,
}

impl Energy {
    /// kinetic + gravitational + elastic \[J\].
    pub fn total(&self) -> f32 {
        self.kinetic + self.gravitational + self.elastic
    }
}

impl Cloth {
    /// Copy positions \[m\] in render-vertex order into `out` (`[f32; 3] × vertex_count`).
    /// Copies of a welded vertex read the same position. Errors: `BufferSizeMismatch`.
    pub fn read_positions(&self, out: &mut [[f32; 3]]) -> Result<(), ClothError> {
        self.gather(&self.particles.x, out)
    }

    /// Copy unit normals in render-vertex order into `out` (`[f32; 3] × vertex_count`): per particle,
    /// the area-weighted average of the adjacent triangle normals (so smooth across welded seams),
    /// oriented by the triangles' winding (counter-clockwise = front). Particles without triangles
    /// read (0, 0, 0). Updated at the end of every step. Errors: `BufferSizeMismatch`.
    pub fn read_normals(&self, out: &mut [[f32; 3]]) -> Result<(), ClothError> {
        self.gather(&self.normals, out)
    }

    fn gather(&self, per_particle: &[Vec3], out: &mut [[f32; 3]]) -> Result<(), ClothError> {
        if out.len() != self.particle_of_vertex.len() {
            return Err(ClothError::BufferSizeMismatch { expected: self.particle_of_vertex.len(), got: out.len() });
        }
        for (o, &p) in out.iter_mut().zip(&self.particle_of_vertex) {
            *o = per_particle[p as usize].to_array();
        }
        Ok(())
    }

    /// Kinetic, gravitational and elastic energy for gravity `gravity` \[m/s²\] (the world's gravity
    /// plus this cloth's external acceleration if that should count as a potential).
    pub fn energy(&self, gravity: Vec3) -> Energy {
        let _fp = crate::fp_env::DefaultFpEnv::enter(); // whatever the caller's mode
        let p = &self.particles;
        let mut e = Energy::default();
        for i in 0..p.x.len() {
            if p.w[i] > 0.0 {
                let m = 1.0 / p.w[i];
                e.kinetic += 0.5 * m * p.v[i].length_squared();
                e.gravitational -= m * gravity.dot(p.x[i]);
            }
        }
        if self.last_substep > 0.0 {
            let inv_h2 = 1.0 / (self.last_substep * self.last_substep);
            let complementary = |lambda: &[f32], compliance: &[f32]| -> f32 {
                lambda.iter().zip(compliance).map(|(l, a)| 0.5 * a * (l * inv_h2).powi(2)).sum()
            };
            if self.params.enable_stretch {
                e.elastic += complementary(&self.stretch.lambda, &self.stretch.compliance);
            }
            if self.params.enable_bending {
                e.elastic += complementary(&self.bending.lambda, &self.bending.compliance);
            }
        }
        e
    }
}
