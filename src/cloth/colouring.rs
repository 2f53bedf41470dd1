//! Opt-in constraint colouring: stretch and bending constraints sorted into colours (no two
//! constraints of a colour share a particle) so that each colour runs in parallel on the world's
//! thread pool (DESIGN §4, issue 7).

use super::Cloth;
use super::pins::permute;
use crate::constraints::colouring::{colour_order, greedy_colours};

impl Cloth {
    /// Turn constraint colouring on or off (default [`crate::cloth::DEFAULT_CONSTRAINT_COLOURING`]:
    /// off). On: stretch edges and bending hinges are greedily coloured, each type's sweep runs
    /// colour after colour, a colour's constraints are projected 4 at a time by the lane-wise
    /// kernels, and in parallel on the world's thread pool when the cloth has at least
    /// [`crate::world::PARALLEL_MIN_CONSTRAINTS`] constraints and the world more than one thread.
    /// Tether groups run in parallel too. Results are bitwise identical for any thread count and
    /// from run to run, with or without colouring (a colour's constraints share no particle).
    ///
    /// It changes the Gauss–Seidel order, so not the bits of the uncoloured solve: the edges keep
    /// their anchor-outward order only within each colour, so a pin's correction travels one
    /// colour per edge instead of through the whole cloth in one sweep. Edges are coloured in
    /// anchor-outward order (greedy), so low colours start at the pins. Costs an allocation and a
    /// pass over the constraints; never runs during a step.
    pub fn set_constraint_colouring(&mut self, enabled: bool) {
        self.colouring = enabled;
        self.order_stretch_from_anchors();
        self.order_bending();
    }

    /// Whether constraint colouring is on (see [`Cloth::set_constraint_colouring`]).
    pub fn constraint_colouring(&self) -> bool {
        self.colouring
    }

    /// Stable-sort the stretch edges by greedy colour (in their current order), or drop the
    /// colour ranges when colouring is off.
    pub(crate) fn colour_stretch(&mut self) {
        self.stretch.colour_start.clear();
        if !self.colouring {
            return;
        }
        let colours = greedy_colours(&self.stretch.edges, self.particles.x.len());
        let (order, start) = colour_order(&colours);
        self.permute_edges(&order);
        self.stretch.colour_start = start;
    }

    /// Hinges in creation order, then (colouring on) stable-sorted by greedy colour.
    pub(super) fn order_bending(&mut self) {
        let mut creation: Vec<u32> = (0..self.hinge_creation_index.len() as u32).collect();
        creation.sort_by_key(|&k| self.hinge_creation_index[k as usize]);
        self.permute_hinges(&creation);
        self.bending.colour_start.clear();
        if self.colouring {
            let colours = greedy_colours(&self.bending.hinges, self.particles.x.len());
            let (order, start) = colour_order(&colours);
            self.permute_hinges(&order);
            self.bending.colour_start = start;
        }
    }

    fn permute_hinges(&mut self, order: &[u32]) {
        let b = &mut self.bending;
        permute(&mut b.hinges, order);
        permute(&mut b.rest_angle, order);
        permute(&mut b.compliance, order);
        permute(&mut b.lambda, order);
        permute(&mut self.hinge_adjacent_area, order);
        permute(&mut self.hinge_edge_length, order);
        permute(&mut self.hinge_creation_index, order);
    }
}
