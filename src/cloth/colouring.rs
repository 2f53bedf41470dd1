//! Constraint colouring (on by default): stretch and bending constraints sorted into colours (no two
//! constraints of a colour share a particle) so that each colour runs in parallel on the world's
//! thread pool (DESIGN §4, issue 7).

use super::Cloth;
use crate::constraints::colouring::permute;
use crate::constraints::colouring::{anchor_hops, colour_order_by_particle, greedy_colours, wavefront_colours};
use crate::solver::PARALLEL_MIN_CONSTRAINTS;

/// Fewest edges per colour, on average, that a wider palette may leave (see
/// `Cloth::stretch_palette`): 8 batches of the 8-lane kernels, so that the partial batch each
/// colour ends with (`sweep::project_padded`) stays a small share of its work.
const MIN_EDGES_PER_COLOUR: usize = 64;

impl Cloth {
    /// Turn constraint colouring on or off (default [`crate::cloth::DEFAULT_CONSTRAINT_COLOURING`]:
    /// on). On: stretch edges are wavefront-coloured and bending hinges greedily coloured
    /// (no two constraints of a colour share a particle), each type's sweep runs
    /// colour after colour, a colour's constraints are projected 16 (with AVX-512F), 8 (with AVX) or 4 at a time by
    /// the lane-wise kernels, and in parallel on the world's thread pool when the cloth has at least
    /// [`crate::world::PARALLEL_MIN_CONSTRAINTS`] constraints and the world more than one thread.
    /// Tether groups run in parallel too. Results are bitwise identical for any thread count and
    /// from run to run, with or without colouring (a colour's constraints share no particle).
    ///
    /// It changes the Gauss–Seidel order, so not the bits of the uncoloured solve: colour by
    /// colour, and within a colour by particle index (which changes no bit there). The uncoloured sweep carries a pin's
    /// correction through the whole cloth; a coloured one only as far as the colours rise along
    /// the way. The wavefront colouring ([`crate::constraints::colouring::wavefront_colours`])
    /// gives each edge the colour after the edges that reach it from the pins where it can, so a
    /// correction crosses up to a palette's worth of edges per sweep (on a triangulated grid: 9
    /// on a cloth split over threads, whose palette is the greedy count, though its colouring
    /// takes a 10th colour where a particle has every one taken; one per hop level on a smaller
    /// one; see `Cloth::stretch_palette`) instead of the greedy colouring's arbitrary order.
    /// Recomputed when pins change. Costs allocations and a few passes over the constraints;
    /// never runs during a step. Setting the value it already has does nothing (the order would
    /// come out the same), so an engine may set it every frame.
    pub fn set_constraint_colouring(&mut self, enabled: bool) {
        if enabled == self.colouring {
            return;
        }
        let _change = self.begin_change();
        self.colouring = enabled;
        self.order_stretch_from_anchors();
        self.order_bending();
    }

    /// Whether constraint colouring is on (see [`Cloth::set_constraint_colouring`]).
    pub fn constraint_colouring(&self) -> bool {
        self.colouring
    }

    /// Sort the stretch edges (in their current, anchor-outward order, which is the wavefront
    /// colouring's priority) by wavefront colour ([`wavefront_colours`] from the particles with
    /// zero inverse mass, over [`Self::stretch_palette`] colours) and within a colour by particle
    /// ([`colour_order_by_particle`]), or drop the colour ranges when colouring is off.
    pub(crate) fn colour_stretch(&mut self) {
        self.stretch.colour_start.clear();
        if !self.colouring {
            return;
        }
        let (edges, w) = (&self.stretch.edges, &self.particles.w);
        let greedy_count = greedy_colours(edges, w.len()).iter().max().map_or(0, |&c| c + 1);
        let hop = anchor_hops(edges, w.len(), |p| w[p] == 0.0);
        let max_hop = hop.iter().copied().filter(|&h| h != u32::MAX).max().unwrap_or(0);
        let palette = self.stretch_palette(greedy_count, max_hop);
        let colours = wavefront_colours(edges, &hop, palette);
        let (order, start) = colour_order_by_particle(&colours, edges);
        self.permute_edges(&order);
        self.stretch.colour_start = start;
        self.stretch.row_offsets.reserve_reach(self.stretch.colour_start.len());
    }

    /// Colours of the wavefront edge colouring. A sweep carries a pin's correction across as many
    /// edges as the palette has colours, so with one colour per hop level (hops from the nearest
    /// anchor up to `max_hop`) a coloured sweep reaches as far as the anchor-outward order. A cloth
    /// that is split over threads (at least [`PARALLEL_MIN_CONSTRAINTS`] constraints) pays for
    /// every colour on two threads (per colour its members' claims and hand-overs; the hop levels
    /// took the 128² grid from 1.24–1.27 to 1.52–1.55 s per 300 steps), so its palette is the
    /// greedy count (`greedy_count`; the wavefront colouring goes beyond it where a particle has
    /// every colour taken: 10 colours on the 64² and 128² grids). A smaller cloth, always solved on
    /// one thread, pays per colour only the lanes' remainder, so it takes the hop levels, capped
    /// at one colour per [`MIN_EDGES_PER_COLOUR`] edges, and at least one colour above the greedy
    /// count.
    ///
    /// Measured on the light stiff cloth (two corners pinned, time-averaged p95 |C| of stretch
    /// over 1–3 s, coloured over anchor order): with greedy + 1 colours 1.04 (32²), 1.10 (40²),
    /// 1.12 (48²), 1.18 (64²); with the hop levels 0.98, 1.00, 1.00, 1.01. Bending p95 was lower
    /// than the anchor order's either way (0.45–0.89). For split cloths (frames 61–120, 52², 64²,
    /// 72², 96², 128²): greedy + 1 gave 1.102, 1.183, 1.222, 1.297, 1.364, the greedy count 1.086,
    /// 1.145, 1.183, 1.246, 1.317 with as many colours or one fewer (128²: 11 → 10; two threads,
    /// 200 steps, six alternating runs: median 0.825 → 0.802 s; one thread unchanged).
    fn stretch_palette(&self, greedy_count: u32, max_hop: u32) -> u32 {
        if self.large_enough_to_split() {
            return greedy_count;
        }
        let narrow = greedy_count + 1;
        let cap = (self.stretch.edges.len() / MIN_EDGES_PER_COLOUR) as u32;
        narrow.max((max_hop + 1).min(cap))
    }

    /// Whether the cloth has at least [`PARALLEL_MIN_CONSTRAINTS`] constraints (edges, hinges and
    /// tethers), so that a coloured cloth is split over the threads of a multi-threaded world.
    pub(crate) fn large_enough_to_split(&self) -> bool {
        self.stretch.edges.len() + self.bending.hinges.len() + self.tethers.particle.len() >= PARALLEL_MIN_CONSTRAINTS
    }

    /// Hinges in creation order, then (colouring on) sorted by greedy colour and within a colour
    /// by particle ([`colour_order_by_particle`]).
    pub(super) fn order_bending(&mut self) {
        let mut creation: Vec<u32> = (0..self.hinge_creation_index.len() as u32).collect();
        creation.sort_by_key(|&k| self.hinge_creation_index[k as usize]);
        self.permute_hinges(&creation);
        self.bending.colour_start.clear();
        if self.colouring {
            let colours = greedy_colours(&self.bending.hinges, self.particles.x.len());
            let (order, start) = colour_order_by_particle(&colours, &self.bending.hinges);
            self.permute_hinges(&order);
            self.bending.colour_start = start;
            self.bending.row_offsets.reserve_reach(self.bending.colour_start.len());
        }
    }

    fn permute_hinges(&mut self, order: &[u32]) {
        let b = &mut self.bending;
        permute(&mut b.hinges, order);
        b.row_offsets.indices_changed();
        permute(&mut b.rest_angle, order);
        permute(&mut b.compliance, order);
        permute(&mut b.lambda, order);
        permute(&mut self.hinge_adjacent_area, order);
        permute(&mut self.hinge_edge_length, order);
        permute(&mut self.hinge_creation_index, order);
    }
}
