//! What a step leaves for the caller (normals, statistics), reading results back in render-vertex
//! order, and energy for diagnostics.

use super::Cloth;
use super::residuals::LazyResiduals;
use crate::error::ClothError;
use crate::out::Out;
use crate::stats::ClothStats;
use glam::Vec3;

/// The outputs of the last step.
#[derive(Clone, Debug)]
pub(crate) struct ClothOutput {
    /// Area-weighted unit normal per particle, refreshed at the end of every step.
    pub normals: Vec<Vec3>,
    /// The statistics the last step produced itself: substeps, iterations, contact and pair
    /// counts (the residual fields stay zero here; [`Cloth::stats`] adds them when first read).
    pub stats: ClothStats,
    /// The last step's residual statistics, computed when first read (`residuals`).
    pub residuals: LazyResiduals,
    /// Substep length h \[s\] of the last step (0 before the first).
    pub last_substep: f32,
    /// Positions \[m\] and normals per particle before the last step: the other end of the
    /// interpolated reads (`super::frame`).
    pub previous_x: Vec<Vec3>,
    pub previous_normals: Vec<Vec3>,
    /// The animated positions \[m\] and normals the state before the last step was blended with
    /// (`simulation_blend`), when posed then (else empty): the pose end of the blended
    /// interpolated reads.
    pub previous_pose: Vec<Vec3>,
    pub previous_pose_normals: Vec<Vec3>,
    /// Velocities \[m/s\] per particle before the last step, when it spanned more than one world
    /// step (level of detail, `super::lod`; empty until then).
    pub previous_v: Vec<Vec3>,
}

impl ClothOutput {
    /// Before the first step, with room for `residuals` residuals of one constraint type.
    pub fn new(particles: usize, residuals: usize) -> ClothOutput {
        ClothOutput {
            normals: vec![Vec3::ZERO; particles],
            stats: ClothStats::default(),
            residuals: LazyResiduals::with_capacity(residuals),
            last_substep: 0.0,
            previous_x: vec![Vec3::ZERO; particles],
            previous_normals: vec![Vec3::ZERO; particles],
            previous_pose: Vec::new(),
            previous_pose_normals: Vec::new(),
            previous_v: Vec::new(),
        }
    }
}

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
    ///
    /// With an animated pose and `simulation_blend` b < 1, each reads a + b·(x − a), a the
    /// animated position (docs/design.md, "Character cloth"). At `step_interval` > 1 it reads the
    /// cloth at the end of the world's last step, which may lie inside the cloth's last step
    /// ([`crate::ClothReads`]); [`Cloth::particle_positions`] is the state itself.
    pub fn read_positions<'o>(&self, out: impl Into<Out<'o, [f32; 3]>>) -> Result<(), ClothError> {
        self.reads().read_positions(out)
    }

    /// The simulation blend when the read-back is blended with the animated pose.
    pub(crate) fn blend(&self) -> Option<f32> {
        let b = self.config.params.simulation_blend;
        (self.state.animation.pose.posed() && b < 1.0).then_some(b)
    }

    /// Copy unit normals in render-vertex order into `out` (`[f32; 3] × vertex_count`): per particle,
    /// the area-weighted average of the adjacent triangle normals (so smooth across welded seams),
    /// oriented by the triangles' winding (counter-clockwise = front). Particles without triangles
    /// read (0, 0, 0). Updated at the end of every step. Errors: `BufferSizeMismatch`.
    /// Blended with the animated normals as the positions are (normalised).
    pub fn read_normals<'o>(&self, out: impl Into<Out<'o, [f32; 3]>>) -> Result<(), ClothError> {
        self.reads().read_normals(out)
    }

    pub(crate) fn gather(&self, per_particle: &[Vec3], mut out: Out<'_, [f32; 3]>) -> Result<(), ClothError> {
        let map = &self.model.particle_of_vertex;
        out.check_len(map.len())?;
        out.fill_from(map.iter().map(|&p| per_particle[p as usize].to_array()));
        Ok(())
    }

    /// Kinetic, gravitational and elastic energy for gravity `gravity` \[m/s²\] (the world's gravity
    /// plus this cloth's external acceleration if that should count as a potential).
    pub fn energy(&self, gravity: Vec3) -> Energy {
        let _fp = crate::fp_env::DefaultFpEnv::enter(); // whatever the caller's mode
        let (p, w) = (&self.state, &self.config.w);
        let mut e = Energy::default();
        for ((x, v), &w) in p.x.iter().zip(&p.v).zip(w) {
            if w > 0.0 {
                let m = 1.0 / w;
                e.kinetic += 0.5 * m * v.length_squared();
                e.gravitational -= m * gravity.dot(*x);
            }
        }
        let h = self.output.last_substep;
        if h > 0.0 {
            let inv_h2 = 1.0 / (h * h);
            let complementary = |lambda: &[f32], compliance: &[f32]| -> f32 {
                lambda.iter().zip(compliance).map(|(l, a)| 0.5 * a * (l * inv_h2).powi(2)).sum()
            };
            let (params, now) = (&self.config.params, self.in_effect());
            if params.enable_stretch {
                e.elastic += complementary(now.stretch_lambda, &now.config.stretch_compliance);
            }
            if params.enable_bending {
                e.elastic += complementary(now.bend_lambda, &now.config.bend_compliance);
            }
        }
        e
    }
}
