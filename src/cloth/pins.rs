//! Pins: render vertices moved kinematically to caller-given targets.
//!
//! A pinned particle has inverse mass 0 for the solver. Its target for a step is reached at the end
//! of that step; substep i of n places it at lerp(start, target, (i+1)/n), so a moved pin never
//! teleports inside a substep. Changing pins rebuilds the tethers (allocation, not per step).

use super::Cloth;
use crate::constraints::TetherConstraints;
use crate::constraints::colouring::permute;
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
        let n = self.info.vertex_count;
        match vertices.iter().position(|&v| v >= n) {
            Some(k) => Err(ClothError::VertexOutOfRange { position: k as u32, vertex: vertices[k], vertex_count: n }),
            None => Ok(()),
        }
    }

    /// Pin render vertices (`u32 × count`) at `targets` \[m\] (`[f32; 3] × count`), or where they are
    /// now when `targets` is `None`. A target away from the current position is reached at the end
    /// of the next step, interpolated over its substeps. Pinning an already pinned vertex moves its
    /// target. Copies of a welded vertex share one particle: the last target given wins.
    ///
    /// Errors: `VertexOutOfRange`, `BufferSizeMismatch` (targets length), `NonFiniteTarget` (NaN,
    /// infinite or beyond ±1e5 m); state is unchanged on error.
    pub fn set_pinned(&mut self, vertices: &[u32], targets: Option<&[[f32; 3]]>) -> Result<(), ClothError> {
        let _change = self.begin_change();
        self.check_vertices(vertices, targets)?;
        for (k, &v) in vertices.iter().enumerate() {
            let p = self.particle_of_vertex[v as usize];
            let current = self.particles.x[p as usize];
            let target = targets.map_or(current, |t| Vec3::from_array(t[k]));
            match self.pins.find(p) {
                Ok(i) => self.pins.target[i] = target,
                Err(i) => {
                    self.pins.particles.insert(i, p);
                    self.pins.start.insert(i, current);
                    self.pins.target.insert(i, target);
                }
            }
        }
        self.refresh_inverse_masses();
        self.rebuild_tethers();
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
        let slot = |v: u32| self.pins.find(self.particle_of_vertex[v as usize]);
        if let Some(&v) = vertices.iter().find(|&&v| slot(v).is_err()) {
            return Err(ClothError::VertexNotPinned { vertex: v });
        }
        for (&v, t) in vertices.iter().zip(targets) {
            if let Ok(i) = self.pins.find(self.particle_of_vertex[v as usize]) {
                self.pins.target[i] = Vec3::from_array(*t);
            }
        }
        Ok(())
    }

    /// Release pinned render vertices (`u32 × count`); they keep the velocity of their last pinned
    /// motion. Vertices that are not pinned are ignored. Errors: `VertexOutOfRange` (state unchanged).
    pub fn unpin(&mut self, vertices: &[u32]) -> Result<(), ClothError> {
        let _change = self.begin_change();
        self.check_vertices(vertices, None)?;
        for &v in vertices {
            if let Ok(i) = self.pins.find(self.particle_of_vertex[v as usize]) {
                self.pins.particles.remove(i);
                self.pins.start.remove(i);
                self.pins.target.remove(i);
            }
        }
        self.refresh_inverse_masses();
        self.rebuild_tethers();
        Ok(())
    }

    /// Render vertex indices' particles that are pinned, sorted (for inspection and tests).
    pub fn pinned_particles(&self) -> &[u32] {
        &self.pins.particles
    }

    /// w = w_free, then 0 for pinned particles.
    pub(crate) fn refresh_inverse_masses(&mut self) {
        self.particles.w.copy_from_slice(&self.particles.w_free);
        for &p in &self.pins.particles {
            self.particles.w[p as usize] = 0.0;
        }
    }

    /// Reorder the stretch constraints so that a Gauss–Seidel sweep starts at the anchors and works
    /// outwards (by the rest mesh distance of an edge's nearer particle to the nearest anchor).
    /// A correction then travels from a pin through the whole cloth in one sweep instead of one
    /// edge per sweep, which is what keeps inextensible cloth from stretching under its own weight.
    /// Without anchors the creation order is kept. Ties keep creation order, so deterministic and
    /// independent of earlier pin changes. With colouring on, the
    /// edges are then stable-sorted by colour (see [`Cloth::set_constraint_colouring`]).
    pub(crate) fn order_stretch_from_anchors(&mut self) {
        let mut distance: Vec<f32> = self.particles.w.iter().map(|&w| if w == 0.0 { 0.0 } else { f32::INFINITY }).collect();
        for (&p, &d) in self.tethers.particle.iter().zip(&self.tethers.geodesic_distance) {
            distance[p as usize] = distance[p as usize].min(d);
        }
        let key = |e: usize| {
            let [i, j] = self.stretch.edges[e];
            distance[i as usize].min(distance[j as usize])
        };
        let mut order: Vec<u32> = (0..self.stretch.edges.len() as u32).collect();
        // Ties (equally distant edges) in creation order, so the order depends on the current pins
        // only, not on the order of earlier pin changes or colouring switches.
        let creation = &self.edge_creation_index;
        order.sort_by(|&a, &b| {
            let (a, b) = (a as usize, b as usize);
            key(a).total_cmp(&key(b)).then(creation[a].cmp(&creation[b]))
        });
        self.permute_edges(&order);
        self.colour_stretch();
    }

    /// Reorder the stretch constraints and the per-edge rest data: new edge k = old edge `order[k]`.
    pub(super) fn permute_edges(&mut self, order: &[u32]) {
        let s = &mut self.stretch;
        permute(&mut s.edges, order);
        s.row_offsets.indices_changed();
        permute(&mut s.rest_length, order);
        permute(&mut s.compliance, order);
        permute(&mut s.lambda, order);
        permute(&mut self.edge_adjacent_area, order);
        permute(&mut self.edge_creation_index, order);
    }

    /// Tethers from every kinematic particle (pinned or zero inverse mass), if enabled.
    pub(crate) fn rebuild_tethers(&mut self) {
        self.tethers = if self.params.enable_tethers {
            let mut tethers = TetherConstraints::build(
                self.particles.x.len(),
                &self.distance_graph.0,
                &self.distance_graph.1,
                &self.particles.w,
            );
            tethers.put_straight_groups_first(&self.particles.x);
            tethers
        } else {
            TetherConstraints::default()
        };
        self.order_stretch_from_anchors();
    }
}

