//! Soft grabs: a particle pulled towards a moving target (a mouse drag) by a compliant attachment,
//! C = ‖x − g‖ with compliance α = 1/k for the grab's stiffness k, projected in every iteration
//! with the XPBD update (Macklin et al. 2016, eq. 18), as the anim drive is (`solver/sweeps/grabs.rs`).
//! The particle keeps its mass: the cloth pulls back on it, so a grab never stretches the cloth
//! as a pin dragged away does, and the strain limit still shortens the edges around it. Adding,
//! moving or releasing a grab changes no constraint layout: it costs the call's bookkeeping only.
//! Like a pin's, a grab's target is reached by the end of the next step, interpolated over its
//! substeps (lerp from the target of the last step), and inside `World::advance` over the frame's
//! steps (`super::drive`).

use super::Cloth;
use crate::error::ClothError;
use glam::Vec3;

/// Largest stiffness a grab takes \[N/m\] (besides infinity, a rigid attachment).
pub const MAX_GRAB_STIFFNESS: f32 = 1.0e12;

/// Grabbed particles, sorted by particle index, with their targets and compliances.
#[derive(Clone, Debug, Default)]
pub(crate) struct Grabs {
    /// Grabbed particle indices, sorted, unique.
    pub particles: Vec<u32>,
    /// Target at the start of the next step \[m\].
    pub start: Vec<Vec3>,
    /// Target reached at the end of the next step \[m\].
    pub target: Vec<Vec3>,
    /// The target given at the last `advance` (`super::drive`) \[m\].
    pub frame_from: Vec<Vec3>,
    /// Compliance α = 1/k \[m/N\] (0 for an infinite stiffness).
    pub compliance: Vec<f32>,
    /// Multiplier λ of each grab in the current substep.
    pub lambda: Vec<f32>,
}

impl Grabs {
    /// After a step: the target reached becomes the next start.
    pub fn finish_step(&mut self) {
        self.start.copy_from_slice(&self.target);
    }

    /// The largest distance a grab may pull its particle of `x` \[m\] in the next step (the
    /// explosion guard's bound): its target's move, or the particle's distance from its target.
    pub fn largest_pull(&self, x: &[Vec3]) -> f32 {
        let pulls = self.particles.iter().zip(self.start.iter().zip(&self.target));
        pulls.map(|(&p, (s, t))| s.distance(*t).max(x[p as usize].distance(*t))).fold(0.0, f32::max)
    }

    fn find(&self, particle: u32) -> Result<usize, usize> {
        self.particles.binary_search(&particle)
    }
}

/// `InvalidParameter` naming the first coordinate of `target` that is NaN, infinite or beyond
/// ±1e5 m.
fn check_target(target: [f32; 3]) -> Result<(), ClothError> {
    let m = crate::mesh::MAX_COORDINATE;
    for c in target {
        crate::error::check_range("target", c, -m, m, "finite metres within +-1e5 per coordinate")?;
    }
    Ok(())
}

impl Cloth {
    /// The particle of render vertex `vertex`, checked. Errors: `VertexArgumentOutOfRange`.
    fn grabbed_vertex_particle(&self, vertex: u32) -> Result<u32, ClothError> {
        let n = self.model.info.vertex_count;
        if vertex >= n {
            return Err(ClothError::VertexArgumentOutOfRange { name: "vertex", vertex, vertex_count: n });
        }
        Ok(self.model.particle_of_vertex[vertex as usize])
    }

    /// Grab render vertex `vertex`: pull it towards `target` \[m\] with a compliant attachment of
    /// stiffness `stiffness` \[N/m\] (module docs); `f32::INFINITY` is a rigid attachment
    /// (compliance 0) that still leaves the particle its mass. The target is reached by the end
    /// of the next step. Grabbing a grabbed vertex (or a welded copy of it) moves its target and
    /// sets its stiffness. A pinned vertex does not move while it is pinned (the pin wins). No
    /// layout is rebuilt: O(grabs).
    ///
    /// Errors: `VertexArgumentOutOfRange`, `InvalidParameter` (`target`: a coordinate NaN, infinite or
    /// beyond ±1e5 m; `stiffness` NaN, ≤ 0 or finite above [`MAX_GRAB_STIFFNESS`]); state
    /// unchanged on error.
    pub fn grab(&mut self, vertex: u32, target: [f32; 3], stiffness: f32) -> Result<(), ClothError> {
        let p = self.grabbed_vertex_particle(vertex)?;
        check_target(target)?;
        if !(stiffness > 0.0 && (stiffness <= MAX_GRAB_STIFFNESS || stiffness == f32::INFINITY)) {
            let expected = "a stiffness 0 < k <= 1e12 N/m, or infinity (rigid)";
            return Err(ClothError::InvalidParameter { name: "stiffness", value: stiffness as f64, expected });
        }
        self.wake();
        let compliance = if stiffness == f32::INFINITY { 0.0 } else { 1.0 / stiffness };
        let (target, grabs) = (Vec3::from_array(target), &mut self.state.grabs);
        match grabs.find(p) {
            Ok(i) => (grabs.target[i], grabs.compliance[i]) = (target, compliance),
            Err(i) => {
                // Pulled from where the particle is: the first step moves the target from there.
                let here = self.state.x[p as usize];
                grabs.particles.insert(i, p);
                grabs.start.insert(i, here);
                grabs.target.insert(i, target);
                grabs.frame_from.insert(i, here);
                grabs.compliance.insert(i, compliance);
                grabs.lambda.insert(i, 0.0);
            }
        }
        Ok(())
    }

    /// Move the target of the grab of render vertex `vertex` to `target` \[m\], reached by the
    /// end of the next step. Errors: `VertexArgumentOutOfRange`, `InvalidParameter` (`target`, as for
    /// [`Cloth::grab`]), `VertexNotGrabbed`; state unchanged on error.
    pub fn move_grab(&mut self, vertex: u32, target: [f32; 3]) -> Result<(), ClothError> {
        let p = self.grabbed_vertex_particle(vertex)?;
        check_target(target)?;
        let i = self.state.grabs.find(p).map_err(|_| ClothError::VertexNotGrabbed { vertex })?;
        let target = Vec3::from_array(target);
        if self.state.grabs.target[i] != target {
            self.wake();
            self.state.grabs.target[i] = target;
        }
        Ok(())
    }

    /// Release the grab of render vertex `vertex` (the particle keeps its velocity). O(grabs).
    /// Errors: `VertexArgumentOutOfRange`, `VertexNotGrabbed`; state unchanged on error.
    pub fn release(&mut self, vertex: u32) -> Result<(), ClothError> {
        let p = self.grabbed_vertex_particle(vertex)?;
        let grabs = &mut self.state.grabs;
        let i = grabs.find(p).map_err(|_| ClothError::VertexNotGrabbed { vertex })?;
        for v in [&mut grabs.start, &mut grabs.target, &mut grabs.frame_from] {
            v.remove(i);
        }
        grabs.particles.remove(i);
        grabs.compliance.remove(i);
        grabs.lambda.remove(i);
        self.wake();
        Ok(())
    }

    /// The grabbed particles, sorted (for inspection and tests).
    pub fn grabbed_particles(&self) -> &[u32] {
        &self.state.grabs.particles
    }
}
