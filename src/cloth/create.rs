//! Creating a cloth and changing its settings: validate everything, then build the model, the
//! layout and the per-element settings. Nothing is allocated for the cloth before all input checks
//! have passed.

use super::config::ClothConfig;
use super::guard::Guard;
use super::model::ClothModel;
use super::output::ClothOutput;
use super::relayout::{Previous, Relaid};
use super::scratch::SolverScratch;
use super::state::ClothState;
use super::{Cloth, ClothDesc, ClothParams, UnstableRecovery};
use crate::constraints::layout::{ConstraintLayout, LayoutOptions};
use crate::constraints::tether::TETHERS_PER_PARTICLE;
use crate::error::ClothError;
use std::sync::Arc;

/// Whether a new cloth's constraints are coloured (see [`Cloth::set_constraint_colouring`]). On:
/// the sweeps use the lane-wise kernels and large cloths split each colour over the world's
/// threads, and on the light stiff validation cloth of 48² the coloured order leaves lower
/// residuals than the anchor order (tests/colouring.rs; cloths split over threads keep a higher
/// stretch residual: docs/design.md, "Stretch palette"). It was off while the greedy edge colouring
/// carried a pin's motion into the cloth one colour per edge per sweep, and the strain after a pin
/// jump no longer grew with the inertia scale (tests/robustness.rs); the wavefront edge colouring
/// restores that (docs/dev/performance-log.md, "2026-11-29 — Colouring on by default: greedy
/// against wavefront colours").
pub const DEFAULT_CONSTRAINT_COLOURING: bool = true;

impl Cloth {
    /// Validate `desc` and build the cloth. Errors: every [`ClothError`] mesh variant, with the
    /// offending vertex or triangle; `InvalidParameter` for descriptor fields.
    pub(crate) fn new(desc: &ClothDesc) -> Result<Cloth, ClothError> {
        desc.validate()?;
        let model = ClothModel::build(desc)?;
        if let (Some(p), false) = (desc.params.pressure, model.closed) {
            let closure = super::pressure::closure(&model.triangles);
            return Err(ClothError::NotClosed { field: "pressure", value: p, closure });
        }
        let n = model.particle_count();
        let state = ClothState::at_rest(&model.rest);
        // The layout needs the anchors (particles given inverse mass 0), the compliances the layout.
        let mut w_free = vec![0.0; n];
        model.free_inverse_masses(&desc.params.material, &mut w_free);
        let options = LayoutOptions { coloured: DEFAULT_CONSTRAINT_COLOURING, tethers: desc.params.enable_tethers };
        let layout = ConstraintLayout::build(&model.constraints, &w_free, &state.x, options);
        let config = ClothConfig::new(&model, &layout, desc.params, DEFAULT_CONSTRAINT_COLOURING);
        let residuals = layout.stretch.edges().len().max(n * TETHERS_PER_PARTICLE).max(layout.bending.hinges().len());
        let mut cloth = Cloth {
            scratch: SolverScratch::new(n, model.triangles.len(), &layout),
            output: ClothOutput::new(n, residuals),
            guard: Guard::new(&state.x),
            state,
            config,
            layout: Arc::new(layout),
            model: Arc::new(model),
            sleep: Default::default(),
            world_key: 0,
            pending: Default::default(),
            lod: Default::default(),
            drive: Default::default(),
        };
        cloth.config.apply_pins(&[]);
        if desc.params.self_collision {
            cloth.scratch.self_collision.prepare(n); // allocate outside the step
        }
        if desc.params.pressure.is_some() {
            cloth.scratch.volume.fit(n);
        }
        cloth.reserve_for_tearing();
        cloth.update_normals(false);
        cloth.reset_interpolation();
        Ok(cloth)
    }

    /// Change the settings; takes effect at the next step, without moving any particle. A change
    /// of the stretch or bending compliance, the tethers' slack or the strain limit reaches its
    /// new values over 0.25 s of steps, linearly, so a stiffened cloth tightens at a steady pace
    /// instead of jumping. Errors: `InvalidParameter` naming the field (state unchanged).
    pub fn set_params(&mut self, params: ClothParams) -> Result<(), ClothError> {
        let _change = self.begin_change();
        params.validate()?;
        if let Some(p) = params.pressure {
            self.check_closed("pressure", p)?;
        }
        if !self.config.derives_the_same(&params) {
            // The compliances and limits are stored in the layout's order: the pending one first.
            self.settle_layout();
        }
        self.wake();
        if self.config.params.unstable_recovery == UnstableRecovery::Disabled {
            // The guard kept no state while disabled: it starts from the current one.
            self.remember_good_state();
        }
        let tethers_changed = params.enable_tethers != self.config.params.enable_tethers;
        let before = super::ramp::RampValues::of(&self.config, &self.layout);
        self.config.ramp = None; // the new ramp starts from `before`, the blend so far
        self.config.params = params;
        self.config.derive(&self.model, &self.layout);
        self.config.start_ramp(before, &self.layout);
        self.refresh_inverse_masses(); // pins and particles kinematic on the pose at 0
        if params.self_collision {
            self.scratch.self_collision.prepare(self.model.particle_count()); // allocate outside the step
        }
        if params.pressure.is_some() {
            self.scratch.volume.fit(self.model.particle_count());
        }
        if tethers_changed {
            self.relayout(1);
        }
        self.reserve_for_tearing();
        Ok(())
    }

    /// Make `layout` the cloth's, with the multipliers and compliances in its order.
    pub(crate) fn use_layout(&mut self, layout: ConstraintLayout) {
        let s = &self.scratch;
        let previous = Previous { layout: &self.layout, stretch_lambda: &s.stretch_lambda, bend_lambda: &s.bend_lambda };
        let relaid = Relaid::new(&self.model, layout, self.config.limits_only(), Some(previous), s.rows.len(), self.tear_limits().as_ref());
        self.install(relaid);
    }
}
