//! A cloth's settings and what they determine per particle and per constraint: the parameters, the
//! inverse masses (free and with the pins applied), the compliances in the layout's order, and the
//! limits of the tethers and the strain limit.

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
    /// The stretch ε_c the cloth's compliance gives it under its own weight ([`compliance_strain`]).
    pub compliance_strain: f32,
    /// Tethers hold a particle within this factor times its rest geodesic of its anchors:
    /// `tether_slack`, but at least 1 + [`MIN_TETHER_SLACK`] + ε_c.
    pub tether_factor: f32,
    /// No edge longer than this factor times its rest length after an iteration: `max_stretch`,
    /// but at least 1 + ε_c; None when off.
    pub stretch_limit: Option<f32>,
    /// The self- and inter-cloth collision radius r \[m\]: `self_collision_radius`, else
    /// [`mesh_self_collision_radius`].
    pub self_collision_radius: f32,
    /// A change of compliances or limits in progress (`super::ramp`): the per-constraint arrays
    /// and limits above then hold its blend, and take it again after a relayout.
    pub ramp: Option<Box<super::ramp::Ramp>>,
}

/// The self-collision radius r \[m\] a mesh gets when none is set: half its median rest edge
/// length (the structural edge of a quad grid, whose diagonals are longer), which keeps a particle
/// from slipping through the middle of another layer's quads; `fallback` for a mesh without edges.
/// Within the radius's declared range, 1e-6..1 m.
pub fn mesh_self_collision_radius(rest_length: &[f32], fallback: f32) -> f32 {
    let r = if rest_length.is_empty() {
        fallback
    } else {
        let mut sorted = rest_length.to_vec();
        let middle = sorted.len() / 2;
        0.5 * *sorted.select_nth_unstable_by(middle, f32::total_cmp).1
    };
    r.clamp(1e-6, 1.0)
}

/// The least slack of a tether: on a flat mesh hung from pins at rest distance, the particles on
/// the straight line between them would otherwise have one position only (their tether spheres
/// touching), which the solve chases forever instead of coming to rest.
pub const MIN_TETHER_SLACK: f32 = 1e-3;

/// Standard gravity \[m/s²\], the load scale of [`compliance_strain`].
const STANDARD_GRAVITY: f32 = 9.81;

/// The stretch ε_c (a ratio) the compliance of a cloth's edges gives it under its own weight, with
/// a margin of 2: twice the mean compliance per length α/L \[1/N\] of its `edges` (rest lengths
/// `rest_length` \[m\], compliances `compliance` \[m/N\]) times its weight spread over the edges of a
/// cut through it (about √edges), its mass the sum over particles of 1/w of `w_free` \[1/kg\]. The
/// tethers and the strain limit engage beyond it, so that they catch the solver's excess stretch
/// and leave the material's: about 0.1 % for the default cotton, the whole range for a rubbery one.
pub fn compliance_strain(rest_length: &[f32], compliance: &[f32], w_free: &[f32]) -> f32 {
    let edges = rest_length.len();
    if edges == 0 {
        return 0.0;
    }
    let per_length: f64 = rest_length.iter().zip(compliance).map(|(&l, &a)| if l > 0.0 { (a / l) as f64 } else { 0.0 }).sum::<f64>() / edges as f64;
    let mass = free_mass(w_free);
    let strain = 2.0 * per_length * STANDARD_GRAVITY as f64 * mass / (edges as f64).sqrt();
    strain.min(1.0e6) as f32
}

/// Σ 1/w \[kg\] over the particles of finite mass (w > 0) of `w_free` \[1/kg\], in f64 in particle
/// order; particles given inverse mass 0 are not counted.
pub fn free_mass(w_free: &[f32]) -> f64 {
    w_free.iter().filter(|&&w| w > 0.0).map(|&w| 1.0 / w as f64).sum()
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
            stretch_compliance: Vec::with_capacity(layout.stretch.edges().len()),
            bend_compliance: Vec::with_capacity(layout.bending.hinges().len()),
            compliance_strain: 0.0,
            tether_factor: 1.0,
            stretch_limit: None,
            self_collision_radius: 0.0,
            ramp: None,
        };
        config.derive(model, layout);
        config
    }

    /// Free inverse masses and the compliances from `params` (the layout's order).
    pub fn derive(&mut self, model: &ClothModel, layout: &ConstraintLayout) {
        model.free_inverse_masses(&self.params.material, &mut self.w_free);
        self.self_collision_radius = self.params.self_collision_radius.unwrap_or_else(|| mesh_self_collision_radius(&model.constraints.rest_length, self.params.collision_thickness));
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
        self.derive_limits(layout);
        // A ramp in progress keeps blending towards these (also after a relayout).
        self.apply_ramp(layout);
    }

    /// The tethers' factor and the strain limit from `params` and the cloth's compliance.
    fn derive_limits(&mut self, layout: &ConstraintLayout) {
        let strain = compliance_strain(layout.stretch.rest_length(), &self.stretch_compliance, &self.w_free);
        self.compliance_strain = strain;
        self.tether_factor = self.params.tether_slack.max(1.0 + MIN_TETHER_SLACK + strain);
        self.stretch_limit = self.params.max_stretch.map(|s| s.max(1.0 + strain));
    }

    /// Whether `params` give the same derived values as the current ones (free inverse masses,
    /// collision radius, compliances, limits, tethers on or off): they agree bit for bit on every
    /// field [`Self::derive`] reads. Then a change of the other settings (wind, gravity, damping …)
    /// needs no pending layout in place.
    pub fn derives_the_same(&self, params: &ClothParams) -> bool {
        let bits = |p: &ClothParams| {
            // Every field of the material (a new one fails to compile here).
            let crate::material::Material { areal_density, youngs_modulus, poisson_ratio, thickness } = p.material;
            let some = |v: Option<f32>| v.map(f32::to_bits);
            (
                [areal_density, youngs_modulus, poisson_ratio, thickness, p.tether_slack, p.collision_thickness].map(f32::to_bits),
                [some(p.stretch_compliance), some(p.bend_compliance), some(p.max_stretch), some(p.self_collision_radius)],
                p.enable_tethers,
            )
        };
        bits(&self.params) == bits(params)
    }

    /// A copy with the parameters and the free inverse masses only (no per-constraint values, no
    /// `w`): what [`Self::derive_compliances`] needs.
    pub fn limits_only(&self) -> ClothConfig {
        ClothConfig {
            params: self.params,
            colouring: self.colouring,
            w_free: self.w_free.clone(),
            w: Vec::new(),
            stretch_compliance: Vec::new(),
            bend_compliance: Vec::new(),
            compliance_strain: self.compliance_strain,
            tether_factor: self.tether_factor,
            stretch_limit: self.stretch_limit,
            self_collision_radius: self.self_collision_radius,
            ramp: None,
        }
    }

    /// `w` ← `w_free`, then 0 for the `pinned` particles.
    pub fn apply_pins(&mut self, pinned: &[u32]) {
        self.w.copy_from_slice(&self.w_free);
        for &p in pinned {
            self.w[p as usize] = 0.0;
        }
    }
}
