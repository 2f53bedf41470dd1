//! Constraint colouring (on by default): stretch and bending constraints sorted into colours (no two
//! constraints of a colour share a particle) so that each colour runs in parallel on the world's
//! thread pool (docs/design.md, "Constraint order and colouring").

use super::Cloth;
use crate::constraints::layout::{ConstraintLayout, LayoutOptions};

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
    /// colour, and within a colour by particle index (which changes no bit there). The uncoloured
    /// sweep carries a pin's correction through the whole cloth; a coloured one only as far as the
    /// colours rise along the way. The wavefront colouring
    /// (`constraints::colouring::wavefront_colours`) gives each edge the colour after the
    /// edges that reach it from the pins where it can, so a correction crosses up to a palette's
    /// worth of edges per sweep instead of the greedy colouring's arbitrary order (the palette:
    /// docs/design.md, "Constraint order and colouring"). Recomputed when pins change. Costs
    /// allocations and a few passes over the constraints; never runs during a step. Setting the
    /// value it already has does nothing (the order would come out the same), so an engine may set
    /// it every frame. The tethers are kept as they are.
    pub fn set_constraint_colouring(&mut self, enabled: bool) {
        if enabled == self.config.colouring {
            return;
        }
        let _change = self.begin_change();
        self.settle_layout();
        self.config.colouring = enabled;
        let options = LayoutOptions { coloured: enabled, tethers: self.config.params.enable_tethers };
        let layout = ConstraintLayout::with_tethers(&self.model.constraints, &self.config.w, self.layout.tethers.clone(), options);
        self.use_layout(layout);
    }

    /// Whether constraint colouring is on (see [`Cloth::set_constraint_colouring`]).
    pub fn constraint_colouring(&self) -> bool {
        self.config.colouring
    }

    /// Whether a world with a pool of several threads splits this cloth's step over them: coloured
    /// and at least [`crate::constraints::team::PARALLEL_MIN_CONSTRAINTS`] constraints.
    pub(crate) fn splits_over_pool(&self) -> bool {
        self.config.colouring && self.layout.large_enough_to_split()
    }
}
