//! A cloth's settings and what they determine per particle and per constraint: the parameters, the
//! inverse masses (free and with the pins applied) and the compliances in the layout's order.

use super::ClothParams;
use super::model::ClothModel;
use crate::constraints::layout::ConstraintLayout;

/// Settings and their per-element consequences (module docs).
#[derive(Clone, Debug)]
pub(crate) struct ClothConfig {
    /// The settings as the caller gave them (validated).
    pub params: ClothParams,
    /// Constraint colouring on (see [`super::Cloth::set_constraint_colouring`]).
    pub colouring: bool,
    /// Inverse mass of each particle when not pinned \[1/kg\].
    pub w_free: Vec<f32>,
    /// Inverse masses the solver uses \[1/kg\]: `w_free` with pinned particles at 0.
    pub w: Vec<f32>,
    /// Stretch compliance α \[m/N\] per edge, in the layout's order.
    pub stretch_compliance: Vec<f32>,
    /// Bending compliance α \[rad/(N·m)\] per hinge, in the layout's order.
    pub bend_compliance: Vec<f32>,
}

impl ClothConfig {
    /// The masses and compliances of validated `params` for `model`, in `layout`'s order (pins
    /// not applied to `w` yet).
    pub fn new(model: &ClothModel, layout: &ConstraintLayout, params: ClothParams, colouring: bool) -> ClothConfig {
        let n = model.particle_count();
        let mut config = ClothConfig {
            params,
            colouring,
            w_free: vec![0.0; n],
            w: vec![0.0; n],
            stretch_compliance: Vec::with_capacity(layout.stretch.edges.len()),
            bend_compliance: Vec::with_capacity(layout.bending.hinges.len()),
        };
        config.derive(model, layout);
        config
    }

    /// Free inverse masses and the compliances from `params` (the layout's order).
    pub fn derive(&mut self, model: &ClothModel, layout: &ConstraintLayout) {
        model.free_inverse_masses(&self.params.material, &mut self.w_free);
        self.derive_compliances(model, layout);
    }

    /// The compliances from `params`, one per constraint of `layout` in its order (again after the
    /// order changed: new pins or colouring). Explicit ones as given, the others from the material.
    pub fn derive_compliances(&mut self, model: &ClothModel, layout: &ConstraintLayout) {
        let m = self.params.material;
        let (stretch, bend) = (self.params.stretch_compliance, self.params.bend_compliance);
        self.stretch_compliance.clear();
        self.stretch_compliance.extend(layout.edge_creation.iter().map(|&e| stretch.unwrap_or_else(|| model.edge_compliance(&m, e as usize))));
        self.bend_compliance.clear();
        self.bend_compliance.extend(layout.hinge_creation.iter().map(|&h| bend.unwrap_or_else(|| model.hinge_compliance(&m, h as usize))));
    }

    /// `w` ← `w_free`, then 0 for the `pinned` particles.
    pub fn apply_pins(&mut self, pinned: &[u32]) {
        self.w.copy_from_slice(&self.w_free);
        for &p in pinned {
            self.w[p as usize] = 0.0;
        }
    }
}
