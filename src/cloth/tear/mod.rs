//! Tearing: cloth that rips when overstretched or cut (docs/design.md, "Tearing").
//!
//! A cloth created with `max_extra_vertices` > 0 can tear. The one operation is a *cut* of an
//! edge (`topology::crack`): the triangles that share it stop sharing it, and each end particle
//! whose triangles no longer hang together is split in two, with new render vertices where the
//! engine's mesh needs them. Two ways to cut:
//!
//! - [`Cloth::tear`] (`xpbd_cloth_tear`) cuts the edge between two render vertices now: a sword
//!   cut is the edges along its path, one call each.
//! - With `tear_strain` set, the step's `Tear` stage (after the substeps and the strain limit:
//!   `solver/plan.rs`) finds the edges still longer than (1 + tear_strain)·L and tears the most
//!   strained first, at most `tear_max_per_step`: each opens the cloth across the edge at one of
//!   its ends (`stage`), so the crack runs across the pull, as woven cloth tears across its
//!   broken threads.
//!
//! After a batch of cuts (one call, or one stage) the cloth repairs only what the cuts touched
//! (`patch`, `grow`): the new particles' buffers, the moved and added edges and their colours,
//! the hinges across cut edges, the edges at each particle, the tethers (searched again:
//! `tethers`), the masses, and the strain limit's anchored order. Everything was sized for
//! `max_extra_vertices` when the cloth was created, so tearing allocates nothing. Cuts run in a
//! fixed order on one thread, so the result is the same at any thread count.
//!
//! The engine follows the render mesh through [`Cloth::render_counts`] (the topology version grows
//! with every cut), [`Cloth::read_indices`] and [`Cloth::read_vertex_sources`] (each render vertex's
//! vertex as created, to copy its UVs).

mod grow;
mod patch;
mod stage;
mod tethers;
pub(crate) mod topology;
pub(crate) mod work;

pub(crate) use topology::TearTopology;
pub(crate) use work::TearWork;

use super::Cloth;
use crate::error::ClothError;
use crate::out::Out;
use std::sync::Arc;

/// The tethers' distance graph of `model` again: its edges, then the diagonal across each hinge
/// (as creation builds it, `ClothModel::build`).
fn rebuild_distance_links(model: &mut super::model::ClothModel) {
    let c = &mut model.constraints;
    c.distance_links.clear();
    c.distance_links.extend_from_slice(&c.edges);
    c.distance_length.clear();
    c.distance_length.extend_from_slice(&c.rest_length);
    for h in &c.hinges {
        c.distance_links.push([h[0], h[1]]);
        c.distance_length.push(c.positions[h[0] as usize].distance(c.positions[h[1] as usize]));
    }
}

/// Room for a tearable cloth of `limits` in a layout built after a pin change and what goes with
/// it (multipliers, strain limit buffers, compliances), where it is built (`cloth::relayout`).
pub(crate) fn reserve_relaid(
    layout: &mut crate::constraints::layout::ConstraintLayout,
    stretch_lambda: &mut Vec<f32>,
    tether_lambda: &mut Vec<f32>,
    strain_limit: &mut super::scratch::StrainLimitScratch,
    stretch_compliance: &mut Vec<f32>,
    limits: &work::TearLimits,
) {
    grow::reserve_layout(layout, limits);
    grow::reserve_strain_limit(strain_limit, limits);
    work::reserve(stretch_lambda, limits.edges);
    work::reserve(stretch_compliance, limits.edges);
    work::reserve(tether_lambda, limits.tethers);
}

/// The render mesh's counts (see [`Cloth::render_counts`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RenderCounts {
    /// Render vertices now: the length of every per-vertex read, write and setter.
    pub vertex_count: u32,
    /// Render triangles (as created: cuts add none).
    pub triangle_count: u32,
    /// Grows by one with every cut that changes the mesh; 0 as created.
    pub topology_version: u32,
}

impl Cloth {
    /// Whether the cloth can tear (created with `max_extra_vertices` > 0).
    pub fn can_tear(&self) -> bool {
        self.model.tear.is_some()
    }

    /// Render vertices the cloth may still add by cuts (0 for a cloth that cannot tear).
    pub fn extra_vertices_left(&self) -> u32 {
        let m = &self.model;
        m.tear.as_ref().map_or(0, |t| {
            let (vertices, particles) = t.room(m.particle_of_vertex.len(), m.rest.len());
            vertices.min(particles)
        })
    }

    /// Cut the edge between render vertices `a` and `b` now (a scripted cut): the triangles that
    /// share it are separated and the particles at its ends are split where their triangles no
    /// longer hang together (docs/design.md, "Tearing"). Returns whether the mesh changed (false:
    /// the edge was already cut, or is on the boundary). The render vertex count, indices and
    /// topology version change with it ([`Cloth::render_counts`]).
    ///
    /// Errors (the cloth unchanged): `NotTearable` (created with `max_extra_vertices` 0),
    /// `TearOfSkinnedCloth`, `VertexArgumentOutOfRange` (`a` or `b`), `NotAnEdge` (a and b
    /// are not the ends of a triangle edge, or weld to one particle), `TearCapacityExceeded`.
    pub fn tear(&mut self, a: u32, b: u32) -> Result<bool, ClothError> {
        let _change = self.begin_change();
        if self.model.tear.is_none() {
            return Err(ClothError::NotTearable);
        }
        if self.state.animation.skin.is_some() {
            return Err(ClothError::TearOfSkinnedCloth);
        }
        let vertex_count = self.model.info.vertex_count;
        for (name, v) in [("a", a), ("b", b)] {
            if v >= vertex_count {
                return Err(ClothError::VertexArgumentOutOfRange { name, vertex: v, vertex_count });
            }
        }
        let (p, q) = (self.model.particle_of_vertex[a as usize], self.model.particle_of_vertex[b as usize]);
        if p == q {
            return Err(ClothError::NotAnEdge { a, b });
        }
        self.settle_layout();
        self.own_topology();
        let (particles, edges) = (self.model.rest.len(), self.model.constraints.edges.len());
        let model = Arc::get_mut(&mut self.model).expect("owned above");
        let crack = topology::crack(model, &mut self.scratch.tear, p, q, [a, b])?;
        if crack.changed {
            self.finish_tearing(particles, edges, false);
            self.wake();
        }
        Ok(crack.changed)
    }

    /// The render mesh's counts and topology version (what a renderer sizes its buffers by).
    pub fn render_counts(&self) -> RenderCounts {
        self.reads().render_counts()
    }

    /// Copy the render triangles into `out` (`[u32; 3] × triangle_count`, render vertex
    /// indices): the indices as created, with the vertices cuts added where the mesh was cut.
    /// Errors: `BufferSizeMismatch` (`out` untouched).
    pub fn read_indices<'o>(&self, out: impl Into<Out<'o, [u32; 3]>>) -> Result<(), ClothError> {
        self.reads().read_indices(out)
    }

    /// Copy each render vertex's vertex as created into `out` (`u32 × vertex_count`): itself for a
    /// vertex of the mesh as created, the one it was split from (directly or through earlier cuts)
    /// for a vertex a cut added, so that an engine copies its UVs and other attributes.
    /// Errors: `BufferSizeMismatch` (`out` untouched).
    pub fn read_vertex_sources<'o>(&self, out: impl Into<Out<'o, u32>>) -> Result<(), ClothError> {
        self.reads().read_vertex_sources(out)
    }

    /// The cuts applied since creation, as the pairs of particles they cut at their time.
    pub fn cuts(&self) -> &[[u32; 2]] {
        self.model.tear.as_ref().map_or(&[], |t| &t.log)
    }

    /// The mesh as created with `cuts` (pairs of particles, as [`Cloth::cuts`] lists them) made
    /// again in order: the mesh the cloth had after them, bit for bit. None when the cloth cannot
    /// tear, or a cut does not fit the mesh or the room left. Allocates (a snapshot restore).
    pub(crate) fn replay_cuts(&self, cuts: &[[u32; 2]]) -> Option<super::model::ClothModel> {
        let created = self.model.tear.as_ref()?.created.as_ref()?;
        let mut model = (**created).clone();
        model.tear.as_mut()?.created = Some(Arc::clone(created));
        let mut work = TearWork::default();
        if let Some(limits) = self.tear_limits() {
            work.reserve(&limits);
        }
        let n = model.rest.len() as u32;
        for &[p, q] in cuts {
            let count = model.rest.len() as u32;
            if p >= count || q >= count || p == q {
                return None;
            }
            match topology::crack(&mut model, &mut work, p, q, [p, q]) {
                Ok(c) if c.changed => {}
                _ => return None,
            }
        }
        TearTopology::compact_hinges(&mut model, &mut work.hinge_remap);
        let count = model.rest.len();
        model.particle_triangles.rebuild(&model.triangles, count);
        let t = model.tear.as_mut()?;
        t.rows_cover = count as u32;
        t.version = self.model.tear.as_ref()?.version + 1;
        rebuild_distance_links(&mut model);
        model.topology_stamp = super::model::next_topology_stamp();
        debug_assert!(model.rest.len() as u32 >= n);
        Some(model)
    }

    /// Make `model` (the same mesh with other cuts: [`Self::replay_cuts`]) the cloth's: its
    /// per-particle buffers follow (each particle a cut made starting from its ancestor as created,
    /// positions to be set by the caller), then its masses and a constraint layout built for it.
    pub(crate) fn install_topology(&mut self, model: super::model::ClothModel) {
        let created = self.model.tear.as_ref().map_or(0, |t| t.created_particles as usize);
        self.truncate_particles(created);
        self.model = Arc::new(model);
        self.grow_particles(created);
        let material = self.config.params.material;
        self.model.free_inverse_masses(&material, &mut self.config.w_free);
        self.config.ramp = None;
        if !self.cuts().is_empty() {
            self.config.params.pressure = None; // a torn cloth holds no air
        }
    }

    /// Build the constraint layout for the mesh, anchors and colouring now, from scratch (nothing
    /// kept from the layout in place, which belongs to another mesh), with multipliers at 0; now,
    /// on this thread (after [`Self::install_topology`]).
    pub(crate) fn rebuild_layout_from_scratch(&mut self) {
        let options = crate::constraints::layout::LayoutOptions { coloured: self.config.colouring, tethers: self.config.params.enable_tethers };
        let layout = crate::constraints::layout::ConstraintLayout::build(&self.model.constraints, &self.config.w, &self.state.x, options);
        let n = self.model.rest.len();
        let relaid = super::relayout::Relaid::new(&self.model, layout, self.config.limits_only(), None, n, self.tear_limits().as_ref());
        self.install(relaid);
        if self.config.params.self_collision {
            self.scratch.self_collision.prepare(n);
        }
        self.reserve_for_tearing();
    }

    /// Make the model and the layout this cloth's own (an instance shares them until it tears),
    /// with their room reserved again if they had to be copied.
    fn own_topology(&mut self) {
        let shared = Arc::get_mut(&mut self.model).is_none() || Arc::get_mut(&mut self.layout).is_none();
        if shared {
            Arc::make_mut(&mut self.model);
            Arc::make_mut(&mut self.layout);
            self.reserve_for_tearing();
        }
    }

    /// After a batch of cuts that found the cloth with `particles` particles and `edges` edges:
    /// drop the cut hinges, list each particle's triangles again, grow the per-particle buffers,
    /// derive the masses, repair the layout, search the tethers again, derive the compliances.
    /// `in_step`: the positions are in the sweeps' rows (the step's `Tear` stage).
    fn finish_tearing(&mut self, particles: usize, edges: usize, in_step: bool) {
        let model = Arc::get_mut(&mut self.model).expect("owned by the cloth");
        model.topology_stamp = super::model::next_topology_stamp();
        let work = &mut self.scratch.tear;
        TearTopology::compact_hinges(model, &mut work.hinge_remap);
        let n = model.rest.len();
        model.particle_triangles.rebuild(&model.triangles, n);
        if let Some(t) = &mut model.tear {
            t.rows_cover = n as u32;
        }
        rebuild_distance_links(model);
        self.grow_particles(particles);
        debug_assert!(self.state.x.len() == n && self.scratch.rows.len() == n && self.config.w.len() == n, "{} {} {} {n}", self.state.x.len(), self.scratch.rows.len(), self.config.w.len());
        let material = self.config.params.material;
        self.model.free_inverse_masses(&material, &mut self.config.w_free);
        self.refresh_inverse_masses();
        // A stiffness ramp blends per constraint of the mesh as it was: it ends here.
        self.config.ramp = None;
        if self.config.params.pressure.is_some() {
            self.config.params.pressure = None; // the cloth is open: it leaks
        }
        let Cloth { model, layout, config, state, scratch, .. } = self;
        let layout = Arc::get_mut(layout).expect("owned by the cloth");
        patch::repair_layout(layout, model, &mut scratch.tear, edges, &mut scratch.stretch_lambda, &mut scratch.bend_lambda);
        if layout.options.tethers {
            let (rows, x) = (&scratch.rows, &state.x);
            let c = &model.constraints;
            let at = |p: usize| if in_step { rows[p].truncate() } else { x[p] };
            tethers::rebuild(&mut layout.tethers, &mut scratch.tear, n, &c.distance_links, &c.distance_length, &config.w, &c.positions, c.planar, at);
        }
        scratch.tether_lambda.clear();
        scratch.tether_lambda.resize(layout.tethers.particle().len(), 0.0);
        config.derive_compliances(model, layout);
        assert!(layout.prepare_rows(n), "a constraint refers to a particle beyond {n} after a cut");
        if in_step {
            for (row, &w) in scratch.rows.iter_mut().zip(&config.w) {
                row.w = w;
            }
        }
    }
}
#[cfg(test)]
mod tests;
