//! The per-particle buffers of a cloth grown by the particles a batch of cuts made (each starts as
//! a copy of the particle it was split from), and the room reserved for them when a tearable
//! cloth is made, so that neither allocates in a step.

use super::super::Cloth;
use super::super::scratch::StrainLimitScratch;
use super::work::{TearLimits, reserve};
use crate::constraints::layout::ConstraintLayout;
use crate::constraints::tether::TETHERS_PER_PARTICLE;

/// Append to `v` a copy of entry `parents[k]` for each k, if `v` is per particle (holds `from`
/// entries); leave it alone otherwise (an optional buffer that is empty).
fn grow<T: Copy>(v: &mut Vec<T>, parents: &[u32], from: usize) {
    if v.len() == from {
        for &p in parents {
            v.push(v[p as usize]);
        }
    }
}

impl Cloth {
    /// The largest counts a tearable cloth's buffers must hold (None: it cannot tear).
    pub(crate) fn tear_limits(&self) -> Option<TearLimits> {
        let t = self.model.tear.as_ref()?;
        let extra = t.max_extra as usize;
        let particles = t.created_particles as usize + extra;
        let fan = (0..self.model.rest.len()).map(|p| self.model.particle_triangles.of(p).len()).max().unwrap_or(0);
        Some(TearLimits {
            particles,
            vertices: t.created_vertices as usize + extra,
            edges: self.model.constraints.edges.len() + 2 * extra,
            hinges: self.model.constraints.hinges.len().max(t.hinge_triangles.len()),
            fan,
            tethers: TETHERS_PER_PARTICLE * particles,
        })
    }

    /// Give every buffer a cut may grow the room for the cloth's `max_extra_vertices` (when
    /// created, copied, and after its layout or settings were built again); nothing for a cloth
    /// that cannot tear. The model and the layout only where this cloth holds them alone (a shared
    /// one is copied, and given its room, at the first cut).
    pub(crate) fn reserve_for_tearing(&mut self) {
        let Some(l) = self.tear_limits() else { return };
        let (n, e) = (l.particles, l.edges);
        if let Some(model) = std::sync::Arc::get_mut(&mut self.model) {
            reserve(&mut model.particle_of_vertex, l.vertices);
            reserve(&mut model.rest, n);
            reserve(&mut model.particle_area, n);
            if let Some(w) = &mut model.given_inverse_masses {
                reserve(w, n);
            }
            let c = &mut model.constraints;
            reserve(&mut c.positions, n);
            reserve(&mut c.edges, e);
            reserve(&mut c.rest_length, e);
            reserve(&mut c.distance_links, e + l.hinges);
            reserve(&mut c.distance_length, e + l.hinges);
            reserve(&mut model.edge_adjacent_area, e);
            model.particle_triangles.reserve_particles(n);
            if let Some(t) = &mut model.tear {
                reserve(&mut t.vertex_source, l.vertices);
                reserve(&mut t.particle_parent, n);
                reserve(&mut t.edge_hinge, e);
                let more = e.saturating_sub(t.edge_index.len());
                t.edge_index.reserve(more);
                reserve(&mut t.log, e);
            }
        }
        if let Some(layout) = std::sync::Arc::get_mut(&mut self.layout) {
            reserve_layout(layout, &l);
        }
        let config = &mut self.config;
        for v in [&mut config.w, &mut config.w_free] {
            reserve(v, n);
        }
        reserve(&mut config.stretch_compliance, e);
        let state = &mut self.state;
        for v in [&mut state.x, &mut state.v] {
            reserve(v, n);
        }
        let a = &mut state.animation;
        for v in [&mut a.start, &mut a.target, &mut a.normal_start, &mut a.normal_target] {
            if !v.is_empty() {
                reserve(v, n);
            }
        }
        let s = &mut self.scratch;
        reserve(&mut s.x_prev, n);
        reserve(&mut s.rows, n);
        reserve(&mut s.stretch_lambda, e);
        reserve(&mut s.tether_lambda, l.tethers);
        s.contacts.reserve(n);
        if self.config.params.self_collision {
            s.self_collision.reserve(self.model.rest.len(), n);
        }
        reserve_strain_limit(&mut s.strain_limit, &l);
        s.tear.reserve(&l);
        let o = &mut self.output;
        for v in [&mut o.normals, &mut o.previous_x, &mut o.previous_normals] {
            reserve(v, n);
        }
        o.residuals.reserve(e.max(l.tethers));
        self.guard.reserve(n);
    }

    /// Drop the per-particle state of particles `n..` (before a snapshot's mesh, with other cuts,
    /// is put in place: [`Cloth::install_topology`]).
    pub(crate) fn truncate_particles(&mut self, n: usize) {
        let state = &mut self.state;
        state.x.truncate(n);
        state.v.truncate(n);
        let a = &mut state.animation;
        for v in [&mut a.start, &mut a.target, &mut a.normal_start, &mut a.normal_target] {
            v.truncate(n);
        }
        for v in [&mut a.max_distance, &mut a.backstop_distance, &mut a.backstop_radius, &mut a.drive_compliance] {
            v.truncate(n);
        }
        a.kinematic.retain(|&p| (p as usize) < n);
        let s = &mut self.scratch;
        s.x_prev.truncate(n);
        s.rows.truncate(n);
        s.contacts.truncate(n);
        let an = &mut s.animation;
        an.x.truncate(n);
        an.centre.truncate(n);
        an.lambda.truncate(n);
        let sl = &mut s.strain_limit;
        sl.before.truncate(n);
        sl.level.truncate(n);
        sl.ordered = false;
        let c = &mut self.config;
        c.w.truncate(n);
        c.w_free.truncate(n);
        let o = &mut self.output;
        for v in [&mut o.normals, &mut o.previous_x, &mut o.previous_normals, &mut o.previous_pose, &mut o.previous_pose_normals] {
            v.truncate(n);
        }
        self.guard.truncate(n);
    }

    /// After a batch of cuts made particles `from..` (each a copy of its parent): grow every
    /// per-particle buffer to them. `in_step`: the positions are in the sweeps' rows.
    pub(crate) fn grow_particles(&mut self, from: usize) {
        let topo = self.model.tear.as_ref().expect("a tearable cloth");
        let first = from - topo.created_particles as usize;
        let parents = &topo.particle_parent[first..];
        let state = &mut self.state;
        grow(&mut state.x, parents, from);
        grow(&mut state.v, parents, from);
        let a = &mut state.animation;
        for v in [&mut a.start, &mut a.target, &mut a.normal_start, &mut a.normal_target] {
            grow(v, parents, from);
        }
        for v in [&mut a.max_distance, &mut a.backstop_distance, &mut a.backstop_radius, &mut a.drive_compliance] {
            grow(v, parents, from);
        }
        for (k, &p) in parents.iter().enumerate() {
            if a.kinematic.binary_search(&p).is_ok() {
                a.kinematic.push((from + k) as u32);
            }
        }
        let s = &mut self.scratch;
        grow(&mut s.x_prev, parents, from);
        grow(&mut s.rows, parents, from);
        s.contacts.grow(parents);
        let n = from + parents.len();
        s.self_collision.prepare_if_on(n);
        let an = &mut s.animation;
        grow(&mut an.x, parents, from);
        grow(&mut an.centre, parents, from);
        grow(&mut an.lambda, parents, from);
        let sl = &mut s.strain_limit;
        grow(&mut sl.before, parents, from);
        grow(&mut sl.level, parents, from);
        sl.anchors.resize(n.div_ceil(64), 0);
        sl.next_anchors.resize(n.div_ceil(64), 0);
        sl.ordered = false;
        let c = &mut self.config;
        grow(&mut c.w, parents, from);
        grow(&mut c.w_free, parents, from);
        let o = &mut self.output;
        for v in [&mut o.normals, &mut o.previous_x, &mut o.previous_normals, &mut o.previous_pose, &mut o.previous_pose_normals] {
            grow(v, parents, from);
        }
        self.guard.grow(parents);
    }
}

/// Room in `layout` for a tearable cloth of `l`: its edges, the colours cuts add, the edges at each
/// particle, the tethers.
pub(crate) fn reserve_layout(layout: &mut ConstraintLayout, l: &TearLimits) {
    let (n, e) = (l.particles, l.edges);
    let colours = layout.stretch.colour_start().len() + EXTRA_COLOURS;
    layout.stretch.reserve(e, colours, n);
    layout.bending.reserve_particles(n);
    reserve(&mut layout.edge_creation, e);
    reserve(&mut layout.particle_edge_start, n + 1);
    reserve(&mut layout.particle_edges, 2 * e);
    layout.tethers.reserve(l.tethers);
}

/// Room in the strain limit's buffers for a tearable cloth of `l`.
pub(crate) fn reserve_strain_limit(sl: &mut StrainLimitScratch, l: &TearLimits) {
    let (n, e) = (l.particles, l.edges);
    for v in [&mut sl.candidates, &mut sl.second_half, &mut sl.siblings] {
        reserve(v, e);
    }
    reserve(&mut sl.parents, e);
    reserve(&mut sl.before, n);
    reserve(&mut sl.level, n);
    for v in [&mut sl.order, &mut sl.level_start, &mut sl.parent_start, &mut sl.sibling_start] {
        reserve(v, n + 1);
    }
    for v in [&mut sl.anchors, &mut sl.next_anchors] {
        reserve(v, n.div_ceil(64));
    }
    for v in [&mut sl.level_groups, &mut sl.group_start] {
        reserve(v, n + 1);
    }
    for v in [&mut sl.hops, &mut sl.queue] {
        reserve(v, n);
    }
    reserve(&mut sl.chain, n);
    reserve(&mut sl.via, n);
    reserve(&mut sl.group_before, n);
    reserve(&mut sl.in_chain, e);
}

/// Stretch colours the cuts of a cloth may add at most before the colouring's 64 extra colours
/// overflow into one colour per edge (`patch`), with a margin.
const EXTRA_COLOURS: usize = 66;
