//! A cloth's constraints in the order the solver sweeps them: the stretch edges ordered outward
//! from the anchors and wavefront-coloured, the bending hinges greedily coloured, the tethers to
//! the anchors. The order depends on the mesh, on which particles are anchors (inverse mass 0) and
//! on whether colouring is on, and on nothing else, so cloths that agree on those share one layout
//! (docs/design.md, "Constraint order and colouring").

use super::colouring::{anchor_hops, colour_order_by_particle, greedy_colours, permute, wavefront_colours};
use super::team::PARALLEL_MIN_CONSTRAINTS;
use super::{BendingConstraints, StretchConstraints, TetherConstraints};
use super::access::{ROW_BYTES, RowOffsets};
use glam::Vec3;

/// Fewest edges per colour, on average, that a wider palette may leave (see
/// [`stretch_palette`]): 8 batches of the 8-lane kernels, so that the partial batch each colour
/// ends with (`sweep::project_padded`) stays a small share of its work.
const MIN_EDGES_PER_COLOUR: usize = 64;

/// The constraints of a mesh in creation order with their rest values: what a layout is built
/// from (a cloth's model holds it).
#[derive(Clone, Debug, Default)]
pub struct RestConstraints {
    /// Simulation particles.
    pub particle_count: usize,
    /// Unique edges `[i, j]`, creation order.
    pub edges: Vec<[u32; 2]>,
    /// Rest length of each edge \[m\].
    pub rest_length: Vec<f32>,
    /// Hinges `[x0, x1, x2, x3]` of the interior edges, creation order.
    pub hinges: Vec<[u32; 4]>,
    /// Rest dihedral angle of each hinge \[rad\].
    pub rest_angle: Vec<f32>,
    /// The rest distance graph the tethers' geodesics are measured on: every edge plus the
    /// diagonal across every hinge (x0–x1), so that shortest paths cut across quads (the graph
    /// distance overestimates the true geodesic by ~3 % on a triangulated grid instead of ~8 %).
    pub distance_links: Vec<[u32; 2]>,
    /// Rest length of each link \[m\].
    pub distance_length: Vec<f32>,
    /// The particles' rest positions \[m\].
    pub positions: Vec<Vec3>,
    /// Whether the rest mesh is flat: then a straight line between two particles is their rest
    /// geodesic wherever the mesh is not cut between them ([`TetherConstraints::straighten`]).
    pub planar: bool,
}

/// What decides a layout besides the mesh.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayoutOptions {
    /// Colour the stretch and bending constraints (lane-wise kernels, split over threads).
    pub coloured: bool,
    /// Build tethers from every free particle to its nearest anchors.
    pub tethers: bool,
}

/// The constraints in sweep order (module docs). Immutable once built: the row offsets the
/// lane-wise kernels address particles by are derived and checked by [`ConstraintLayout::build`].
#[derive(Clone, Debug, Default)]
pub struct ConstraintLayout {
    /// Stretch constraints, anchor-outward, by colour when coloured.
    pub stretch: StretchConstraints,
    /// Bending constraints, creation order, by colour when coloured.
    pub bending: BendingConstraints,
    /// Tethers to the anchors, grouped by particle; empty without anchors or with tethers off.
    pub tethers: TetherConstraints,
    /// Creation index of each stored edge and hinge: where its rest data is in [`RestConstraints`].
    pub edge_creation: Vec<u32>,
    pub hinge_creation: Vec<u32>,
    /// The edges at each particle: particle `p`'s are `particle_edges[particle_edge_start[p]..
    /// particle_edge_start[p + 1]]`, in storage order.
    pub particle_edge_start: Vec<u32>,
    pub particle_edges: Vec<u32>,
    /// What it was built with.
    pub options: LayoutOptions,
    /// The anchors it was built for (particles of inverse mass 0), sorted.
    pub anchors: Vec<u32>,
    /// Particles of the mesh.
    pub particle_count: usize,
    /// The first stretch colour of the edges cuts added since the layout was built (they are
    /// coloured among themselves, after the others: `cloth::tear`); None before a cut.
    pub extra_colours_from: Option<usize>,
}

impl ConstraintLayout {
    /// The edges at particle `p` in storage order, each as (stored edge index, the edge's other
    /// particle).
    pub fn edges_at(&self, p: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        let range = self.particle_edge_start[p] as usize..self.particle_edge_start[p + 1] as usize;
        self.particle_edges[range].iter().map(move |&e| {
            let [i, j] = self.stretch.edges()[e as usize];
            (e as usize, if i as usize == p { j } else { i } as usize)
        })
    }

    /// The layout of `rest` for the anchors `w == 0` (`w`: inverse mass per particle \[1/kg\]),
    /// with the straight tethers of pose `x` \[m\] first ([`TetherConstraints::put_straight_groups_first`]).
    /// Allocates; runs when a cloth is created or its anchors or colouring change, never per step.
    pub fn build(rest: &RestConstraints, w: &[f32], x: &[Vec3], options: LayoutOptions) -> ConstraintLayout {
        Self::build_after(None, rest, w, x, options)
    }

    /// [`Self::build`], taking the bending constraints from `previous` (a layout of the same
    /// `rest`) when it was built with the same colouring: their order depends on nothing else, so
    /// the result is the same.
    pub fn build_after(previous: Option<&ConstraintLayout>, rest: &RestConstraints, w: &[f32], x: &[Vec3], options: LayoutOptions) -> ConstraintLayout {
        let tethers = if options.tethers {
            let mut tethers = TetherConstraints::build(rest.particle_count, &rest.distance_links, &rest.distance_length, w);
            if rest.planar {
                tethers.straighten(&rest.positions);
            }
            tethers.put_straight_groups_first(x);
            tethers
        } else {
            TetherConstraints::default()
        };
        Self::assemble(previous, rest, w, tethers, options)
    }

    /// The layout of `rest` for the anchors `w == 0` with `tethers` as given (built for the same
    /// anchors), for a change of colouring that keeps the tethers' order.
    pub fn with_tethers(rest: &RestConstraints, w: &[f32], tethers: TetherConstraints, options: LayoutOptions) -> ConstraintLayout {
        Self::assemble(None, rest, w, tethers, options)
    }

    /// The layout of `rest` for the anchors `w == 0` with `tethers`, the bending constraints
    /// taken from `previous` where [`Self::build_after`] may.
    fn assemble(previous: Option<&ConstraintLayout>, rest: &RestConstraints, w: &[f32], tethers: TetherConstraints, options: LayoutOptions) -> ConstraintLayout {
        let n = rest.particle_count;
        let kept_bending = previous.filter(|p| p.options.coloured == options.coloured && p.particle_count == n && p.hinge_creation.len() == rest.hinges.len());
        let mut layout = ConstraintLayout {
            stretch: StretchConstraints::new(rest.edges.clone(), rest.rest_length.clone()),
            bending: BendingConstraints::new(rest.hinges.clone(), rest.rest_angle.clone()),
            tethers,
            edge_creation: (0..rest.edges.len() as u32).collect(),
            hinge_creation: (0..rest.hinges.len() as u32).collect(),
            particle_edge_start: Vec::new(),
            particle_edges: Vec::new(),
            options,
            anchors: (0..w.len() as u32).filter(|&p| w[p as usize] == 0.0).collect(),
            particle_count: n,
            extra_colours_from: None,
        };
        layout.order_stretch_from_anchors(w);
        match kept_bending {
            Some(p) => (layout.bending, layout.hinge_creation) = (p.bending.clone(), p.hinge_creation.clone()),
            None => layout.colour_bending(),
        }
        (layout.particle_edge_start, layout.particle_edges) = incidence(layout.stretch.edges(), n);
        assert!(layout.prepare_rows(n), "a mesh constraint refers to a particle beyond {n}");
        layout
    }

    /// Whether it was built for the anchors of `w` (inverse mass per particle \[1/kg\]).
    pub fn built_for(&self, w: &[f32]) -> bool {
        let mut anchors = (0..w.len() as u32).filter(|&p| w[p as usize] == 0.0);
        self.anchors.iter().all(|&a| anchors.next() == Some(a)) && anchors.next().is_none()
    }

    /// Whether the layout has at least [`PARALLEL_MIN_CONSTRAINTS`] constraints (edges, hinges and
    /// tethers), so that a coloured cloth is split over the threads of a multi-threaded world.
    pub fn large_enough_to_split(&self) -> bool {
        self.stretch.edges().len() + self.bending.hinges().len() + self.tethers.particle().len() >= PARALLEL_MIN_CONSTRAINTS
    }

    /// Whether every constraint's particle indices were checked against `particle_count` and their
    /// row offsets derived since they last changed; derives them where not. The sweeps read rows
    /// without bounds checks and rely on this.
    pub fn prepare_rows(&mut self, particle_count: usize) -> bool {
        self.stretch.prepare_rows(particle_count) && self.bending.prepare_rows(particle_count) && self.tethers.prepare_rows(particle_count)
    }

    /// Whether [`Self::prepare_rows`] holds for `particle_count` without deriving anything (with
    /// debug assertions the kept offsets are also compared with the indices).
    pub fn rows_ready(&self, particle_count: usize) -> bool {
        ready(self.stretch.row_offsets(), self.stretch.edges(), particle_count)
            && ready(self.bending.row_offsets(), self.bending.hinges(), particle_count)
            && self.tethers.rows_ready(particle_count)
    }

    /// Order the stretch edges so that a Gauss–Seidel sweep starts at the anchors and works
    /// outwards (by the rest mesh distance of an edge's nearer particle to the nearest anchor):
    /// a correction then travels from a pin through the whole cloth in one sweep instead of one
    /// edge per sweep, which is what keeps inextensible cloth from stretching under its own
    /// weight. Ties (and a cloth without anchors) keep creation order. Coloured, the edges are then
    /// stable-sorted by colour ([`Self::colour_stretch`]).
    fn order_stretch_from_anchors(&mut self, w: &[f32]) {
        let mut distance: Vec<f32> = w.iter().map(|&w| if w == 0.0 { 0.0 } else { f32::INFINITY }).collect();
        for (&p, &d) in self.tethers.particle().iter().zip(self.tethers.geodesic_distance()) {
            distance[p as usize] = distance[p as usize].min(d);
        }
        // (distance, creation index) packed into one integer key that sorts like the pair: the
        // creation indices are unique, so the unstable sort gives the stable sort's order.
        let creation = &self.edge_creation;
        let mut keyed: Vec<u64> = self.stretch.edges().iter().zip(creation).map(|(&[i, j], &c)| {
            let d = distance[i as usize].min(distance[j as usize]);
            ((ordered_bits(d) as u64) << 32) | c as u64
        }).collect();
        keyed.sort_unstable();
        let position: Vec<u32> = {
            let mut at = vec![0u32; creation.len()];
            for (k, &c) in creation.iter().enumerate() {
                at[c as usize] = k as u32;
            }
            at
        };
        let order: Vec<u32> = keyed.iter().map(|&k| position[(k & 0xffff_ffff) as usize]).collect();
        self.permute_edges(&order);
        if self.options.coloured {
            self.colour_stretch(w);
        }
    }

    /// Sort the stretch edges (in their anchor-outward order, the wavefront colouring's priority)
    /// by wavefront colour ([`wavefront_colours`] from the anchors, over [`stretch_palette`]
    /// colours) and within a colour by particle ([`colour_order_by_particle`]).
    fn colour_stretch(&mut self, w: &[f32]) {
        let edges = self.stretch.edges();
        let greedy_count = greedy_colours(edges, w.len()).iter().max().map_or(0, |&c| c + 1);
        let hop = anchor_hops(edges, w.len(), |p| w[p] == 0.0);
        let max_hop = hop.iter().copied().filter(|&h| h != u32::MAX).max().unwrap_or(0);
        let palette = stretch_palette(self.large_enough_to_split(), edges.len(), greedy_count, max_hop);
        let colours = wavefront_colours(edges, &hop, palette);
        let (order, start) = colour_order_by_particle(&colours, edges);
        self.permute_edges(&order);
        // SAFETY: `colour_order_by_particle` stores each colour of `wavefront_colours`, whose
        // edges share no particle, as one range (`colouring_is_valid`, tested in `colouring.rs`).
        unsafe { self.stretch.set_colouring(start) };
    }

    /// Hinges in creation order; coloured, sorted by greedy colour and within a colour by particle
    /// ([`colour_order_by_particle`]).
    fn colour_bending(&mut self) {
        if !self.options.coloured {
            return;
        }
        let colours = greedy_colours(self.bending.hinges(), self.particle_count);
        let (order, start) = colour_order_by_particle(&colours, self.bending.hinges());
        let b = &mut self.bending;
        // SAFETY: uncoloured until the colouring below, which `colour_order_by_particle` stores
        // as one range per greedy colour, whose hinges share no particle (`colouring_is_valid`,
        // tested in `colouring.rs`).
        unsafe {
            b.edit(|b| {
                permute(b.hinges, &order);
                permute(b.rest_angle, &order);
            });
            b.set_colouring(start);
        }
        permute(&mut self.hinge_creation, &order);
    }

    /// Reorder the stretch constraints and their creation indices: new edge k = old edge
    /// `order[k]`, uncoloured (a colouring is of positions, which the order changes).
    fn permute_edges(&mut self, order: &[u32]) {
        // SAFETY: uncoloured afterwards, which no colouring rule constrains.
        unsafe {
            self.stretch.edit(|s| {
                permute(s.edges, order);
                permute(s.rest_length, order);
                s.colour_start.clear();
            })
        };
        permute(&mut self.edge_creation, order);
    }
}

/// `d`'s bits as an unsigned integer that orders like [`f32::total_cmp`] orders the floats.
fn ordered_bits(d: f32) -> u32 {
    let b = d.to_bits();
    if b >> 31 == 1 { !b } else { b | 0x8000_0000 }
}

/// The edges at each particle (compressed: `start[p]..start[p + 1]` of the list), in edge order.
fn incidence(edges: &[[u32; 2]], particle_count: usize) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; particle_count + 1];
    for &p in edges.iter().flatten() {
        start[p as usize + 1] += 1;
    }
    for p in 0..particle_count {
        start[p + 1] += start[p];
    }
    let mut next = start.clone();
    let mut list = vec![0u32; 2 * edges.len()];
    for (e, pair) in edges.iter().enumerate() {
        for &p in pair {
            list[next[p as usize] as usize] = e as u32;
            next[p as usize] += 1;
        }
    }
    (start, list)
}

/// [`RowOffsets::ready_for`] of constraints stored as particle index lists.
fn ready<const K: usize>(offsets: &RowOffsets<K>, constraints: &[[u32; K]], particle_count: usize) -> bool {
    let derived = constraints.as_flattened().iter().map(|i| i.wrapping_mul(ROW_BYTES as u32));
    offsets.ready_for(constraints.len(), particle_count, derived)
}

/// Colours of the wavefront edge colouring. A sweep carries a pin's correction across as many
/// edges as the palette has colours, so with one colour per hop level (hops from the nearest
/// anchor up to `max_hop`) a coloured sweep reaches as far as the anchor-outward order. A cloth
/// split over threads (`split`) pays for every colour on two threads (its members' claims and
/// hand-overs), so its palette is the greedy count (`greedy_count`; the wavefront colouring goes
/// beyond it where a particle has every colour taken). A smaller cloth, always solved on one
/// thread, pays per colour only the lanes' remainder, so it takes the hop levels, capped at one
/// colour per [`MIN_EDGES_PER_COLOUR`] of its `edges`, and at least one colour above the greedy
/// count (docs/design.md, "Stretch palette"; the measurements behind this choice:
/// docs/dev/performance-log.md, "2026-11-30 — One colour per hop level for small cloths" and
/// "2026-11-30 — Greedy-count palette for split cloths").
fn stretch_palette(split: bool, edges: usize, greedy_count: u32, max_hop: u32) -> u32 {
    if split {
        return greedy_count;
    }
    let narrow = greedy_count + 1;
    let cap = (edges / MIN_EDGES_PER_COLOUR) as u32;
    narrow.max((max_hop + 1).min(cap))
}

#[cfg(test)]
mod tests {
    use super::ordered_bits;

    /// The integer key orders floats as `f32::total_cmp` does, signed zeros and infinities included.
    #[test]
    fn ordered_bits_sort_like_total_cmp() {
        let values = [f32::NEG_INFINITY, -3.5, -1e-30, -0.0, 0.0, 1e-38, 0.25, 1.0, 7e20, f32::MAX, f32::INFINITY];
        for a in values {
            for b in values {
                assert_eq!(ordered_bits(a).cmp(&ordered_bits(b)), a.total_cmp(&b), "{a} vs {b}");
            }
        }
    }
}
