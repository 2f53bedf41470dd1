//! Pins: render vertices moved kinematically to caller-given targets.
//!
//! A pinned particle has inverse mass 0 for the solver. Its target for a step is reached at the end
//! of that step; substep i of n places it at lerp(start, target, (i+1)/n), so a moved pin never
//! teleports inside a substep. A pin change takes effect at once (inverse mass 0, the target); the
//! constraint layout for the new anchors (tethers, edge order) is built off the step by the
//! world's layout thread and put in place by the fourth step after the change
//! (`super::relayout`), so neither the call nor the next step waits for it.

use super::Cloth;
use crate::error::ClothError;
use glam::Vec3;

/// Pinned particles, sorted by particle index, with the interpolation endpoints of the current step.
#[derive(Clone, Debug, Default)]
pub(crate) struct Pins {
    /// Pinned particle indices, sorted, unique.
    pub particles: Vec<u32>,
    /// Position at the start of the next step \[m\].
    pub start: Vec<Vec3>,
    /// Position to reach at the end of the next step \[m\].
    pub target: Vec<Vec3>,
    /// The target given at the last `World::advance` (`super::drive`) \[m\].
    pub frame_from: Vec<Vec3>,
}

impl Pins {
    fn find(&self, particle: u32) -> Result<usize, usize> {
        self.particles.binary_search(&particle)
    }

    /// Pin position for substep `substep` (0-based) of `substeps`. The last substep lands exactly on
    /// the target (no rounding drift between steps).
    #[inline]
    pub fn position(&self, k: usize, substep: u32, substeps: u32) -> Vec3 {
        if substep + 1 >= substeps {
            self.target[k]
        } else {
            let s = (substep + 1) as f32 / substeps as f32;
            self.start[k] + (self.target[k] - self.start[k]) * s
        }
    }

    /// Called after a step: the target reached becomes the next start.
    pub fn finish_step(&mut self) {
        self.start.copy_from_slice(&self.target);
    }
}

impl Cloth {
    /// Check render vertex indices and optional targets before any change.
    fn check_vertices(&self, vertices: &[u32], targets: Option<&[[f32; 3]]>) -> Result<(), ClothError> {
        if let Some(t) = targets {
            if t.len() != vertices.len() {
                return Err(ClothError::BufferSizeMismatch { expected: vertices.len(), got: t.len() });
            }
            if let Some(k) = t.iter().position(|p| !crate::mesh::is_valid_point(p)) {
                return Err(ClothError::NonFiniteTarget { position: k as u32 });
            }
        }
        let n = self.model.info.vertex_count;
        match vertices.iter().position(|&v| v >= n) {
            Some(k) => Err(ClothError::VertexOutOfRange { position: k as u32, vertex: vertices[k], vertex_count: n }),
            None => Ok(()),
        }
    }

    /// Pin render vertices (`u32 × count`) at `targets` \[m\] (`[f32; 3] × count`), or where they are
    /// now when `targets` is `None`. A target away from the current position is reached at the end
    /// of the next step, interpolated over its substeps. Pinning an already pinned vertex moves its
    /// target (and nothing else). Copies of a welded vertex share one particle: the last target
    /// given wins. A new pin takes effect at once; the constraint layout for the new anchors
    /// (tethers to them, edges ordered outward from them) is built by the world's layout thread
    /// (during the call for a cloth below [`crate::cloth::BACKGROUND_MIN_CONSTRAINTS`] edges and
    /// hinges, and for a cloth that has not stepped yet: it is being set up) and put in place at the start of the [`crate::cloth::LAYOUT_DELAY_STEPS`]-th step
    /// after the change (of the first step, for a cloth that has not stepped yet), which waits for
    /// it if it is not done: the same layout and the same bits whichever thread builds it and
    /// whenever. A change back to the anchors of the layout in place before then cancels it.
    ///
    /// Errors: `VertexOutOfRange`, `BufferSizeMismatch` (targets length), `NonFiniteTarget` (NaN,
    /// infinite or beyond ±1e5 m); state is unchanged on error.
    pub fn set_pinned(&mut self, vertices: &[u32], targets: Option<&[[f32; 3]]>) -> Result<(), ClothError> {
        // Nothing the residual statistics read changes here (the layout in place stays): no
        // settling; the default floating-point mode only.
        let _fp = crate::fp_env::DefaultFpEnv::enter();
        self.check_vertices(vertices, targets)?;
        self.wake();
        let state = &mut self.state;
        let mut added = false;
        for (k, &v) in vertices.iter().enumerate() {
            let p = self.model.particle_of_vertex[v as usize];
            let current = state.x[p as usize];
            let target = targets.map_or(current, |t| Vec3::from_array(t[k]));
            match state.pins.find(p) {
                Ok(i) => state.pins.target[i] = target,
                Err(i) => {
                    state.pins.particles.insert(i, p);
                    state.pins.start.insert(i, current);
                    state.pins.target.insert(i, target);
                    state.pins.frame_from.insert(i.min(state.pins.frame_from.len()), current);
                    added = true;
                }
            }
        }
        // Only new anchors change the layout (moved targets do not).
        if added {
            self.refresh_inverse_masses();
            self.relayout(self.pin_layout_delay());
        }
        Ok(())
    }

    /// Move the targets of pinned render vertices (`u32 × count`) to `targets` \[m\]
    /// (`[f32; 3] × count`), reached at the end of the next step.
    ///
    /// Errors: `VertexOutOfRange`, `BufferSizeMismatch`, `NonFiniteTarget`, `VertexNotPinned`;
    /// state is unchanged on error.
    pub fn set_pin_targets(&mut self, vertices: &[u32], targets: &[[f32; 3]]) -> Result<(), ClothError> {
        self.check_vertices(vertices, Some(targets))?;
        // Two passes (check all, then write) so an error leaves every target unchanged without
        // allocating: engines call this every frame.
        let (map, pins) = (&self.model.particle_of_vertex, &mut self.state.pins);
        if let Some(&v) = vertices.iter().find(|&&v| pins.find(map[v as usize]).is_err()) {
            return Err(ClothError::VertexNotPinned { vertex: v });
        }
        let mut moved = false;
        for (&v, t) in vertices.iter().zip(targets) {
            if let Ok(i) = pins.find(map[v as usize]) {
                moved |= pins.target[i] != Vec3::from_array(*t);
                pins.target[i] = Vec3::from_array(*t);
            }
        }
        if moved {
            self.wake(); // a pin target that moves; the same target every frame lets it sleep
        }
        Ok(())
    }

    /// Release pinned render vertices (`u32 × count`); they keep the velocity of their last pinned
    /// motion. Vertices that are not pinned are ignored. Releasing one changes the layout as
    /// [`Self::set_pinned`] does. Errors: `VertexOutOfRange` (state unchanged).
    pub fn unpin(&mut self, vertices: &[u32]) -> Result<(), ClothError> {
        // As in `set_pinned`: no settling.
        let _fp = crate::fp_env::DefaultFpEnv::enter();
        self.check_vertices(vertices, None)?;
        self.wake();
        let (map, pins) = (&self.model.particle_of_vertex, &mut self.state.pins);
        let mut removed = false;
        for &v in vertices {
            if let Ok(i) = pins.find(map[v as usize]) {
                pins.particles.remove(i);
                pins.start.remove(i);
                pins.target.remove(i);
                if i < pins.frame_from.len() {
                    pins.frame_from.remove(i);
                }
                removed = true;
            }
        }
        if removed {
            self.refresh_inverse_masses();
            self.relayout(self.pin_layout_delay());
        }
        Ok(())
    }

    /// The step whose start puts a pin change's layout in place: the first for a cloth that has
    /// not stepped yet (pins set up with it act as if it was created with them), else the
    /// [`crate::cloth::LAYOUT_DELAY_STEPS`]-th.
    fn pin_layout_delay(&self) -> u32 {
        if self.output.last_substep == 0.0 { 1 } else { super::relayout::LAYOUT_DELAY_STEPS }
    }

    /// Render vertex indices' particles that are pinned, sorted (for inspection and tests).
    pub fn pinned_particles(&self) -> &[u32] {
        &self.state.pins.particles
    }

    /// w = w_free, then 0 for pinned particles.
    pub(crate) fn refresh_inverse_masses(&mut self) {
        self.config.apply_pins(&self.state.pins.particles);
        // Particles kinematic on the animated pose (max distance 0) are anchors as pins are.
        for &p in &self.state.animation.kinematic {
            self.config.w[p as usize] = 0.0;
        }
    }
}
