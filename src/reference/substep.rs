//! The reference step: Small Steps XPBD (Macklin et al. 2019, Algorithm 1) over one cloth, each
//! substep predict, λ = 0, then per iteration the bending hinges, the stretch edges swept
//! [`STRETCH_SWEEPS`] times, the tethers and the collider contacts, then the velocity update;
//! every type's constraints in the library's storage order (colour by colour where coloured: a
//! colour's constraints share no particle, so one at a time in that order gives what the library's
//! lane-wise batches give). The order is the library's, so that a comparison is of the formulas,
//! not of two Gauss–Seidel orders.

use super::adapter::{CONTACT_TOUCHING, Edge, Hinge, Model, STRETCH_SWEEPS, TETHER_GROUP_ROUNDS, TETHER_INSIDE_TOLERANCE, TETHER_MIN_GRAM, TETHER_PAIR_ROUNDS, Tether};
use super::contact::project_sphere_contact;
use super::dihedral::project_dihedral;
use super::distance::project_distance;
use super::motion::{angular_momentum, damp_deformation, predict, restore_angular_momentum, update_velocity};
use super::tether::{nearest_point_in_two_balls, project_tether, two_ball_multipliers};
use super::Compliance;
use glam::DVec3;

/// One stretch sweep of `edges` in their order over positions `x` \[m\] (`x_prev` at the substep's
/// start, inverse masses `w`) in a substep of `h` \[s\] with damping β = `damping`; `lambda` the
/// edges' multipliers.
pub(crate) fn stretch_sweep(edges: &[Edge], lambda: &mut [f64], x: &mut [DVec3], x_prev: &[DVec3], w: &[f64], h: f64, damping: f64) {
    for (e, lambda) in edges.iter().zip(lambda) {
        let [i, j] = e.particles;
        let k = Compliance { alpha: e.compliance, beta: damping, h };
        if let Some(p) = project_distance([x[i], x[j]], [x_prev[i], x_prev[j]], [w[i], w[j]], e.rest_length, k, *lambda) {
            *lambda += p.delta_lambda;
            x[i] += p.dx[0];
            x[j] += p.dx[1];
        }
    }
}

/// One bending sweep of `hinges`, as [`stretch_sweep`]; returns the largest linearised angle step
/// |Σ w|∇φ|²·Δλ| \[rad\] of its projections (the quantity the library's trust region bounds).
pub(crate) fn bending_sweep(hinges: &[Hinge], lambda: &mut [f64], x: &mut [DVec3], x_prev: &[DVec3], w: &[f64], h: f64, damping: f64) -> f64 {
    let mut largest_step = 0.0f64;
    for (hinge, lambda) in hinges.iter().zip(lambda) {
        let ids = hinge.particles;
        let k = Compliance { alpha: hinge.compliance, beta: damping, h };
        let p = project_dihedral(ids.map(|i| x[i]), ids.map(|i| x_prev[i]), ids.map(|i| w[i]), hinge.rest_angle, k, *lambda);
        if let Some(p) = p {
            largest_step = largest_step.max((p.weighted_gradient_norm2 * p.delta_lambda).abs());
            *lambda += p.delta_lambda;
            for (q, &i) in ids.iter().enumerate() {
                x[i] += p.dx[q];
            }
        }
    }
    largest_step
}

/// One tether sweep: each particle's group (a run of its tethers) projected in up to
/// [`TETHER_GROUP_ROUNDS`] rounds ([`TETHER_PAIR_ROUNDS`] for two rigid tethers), until a round finds
/// none violated; a particle held by exactly two rigid tethers (α = 0) is then put at the nearest
/// point within both bounds (within [`TETHER_INSIDE_TOLERANCE`] of them, see
/// [`nearest_point_in_two_balls`]), its multipliers changed by [`two_ball_multipliers`]. Bounds are
/// `slack`·d; `compliance` α \[m/N\] for all. Returns how many projections moved a particle.
pub(crate) fn tether_sweep(tethers: &[Tether], lambda: &mut [f64], x: &mut [DVec3], w: &[f64], h: f64, slack: f64, compliance: f64) -> usize {
    let k = Compliance { alpha: compliance, beta: 0.0, h };
    let mut projections = 0;
    let mut start = 0;
    while start < tethers.len() {
        let i = tethers[start].particle;
        let end = start + tethers[start..].iter().take_while(|t| t.particle == i).count();
        let pair = end - start == 2 && compliance == 0.0;
        for _ in 0..if pair { TETHER_PAIR_ROUNDS } else { TETHER_GROUP_ROUNDS } {
            let mut projected = false;
            for c in start..end {
                let t = &tethers[c];
                if let Some(p) = project_tether(x[i], x[t.anchor], w[i], slack * t.geodesic_distance, k, lambda[c]) {
                    lambda[c] += p.delta_lambda;
                    x[i] += p.dx[0];
                    projected = true;
                    projections += 1;
                }
            }
            if !projected {
                break;
            }
        }
        if pair {
            let ball = |t: &Tether| (x[t.anchor], slack * t.geodesic_distance);
            let (b1, b2) = (ball(&tethers[start]), ball(&tethers[start + 1]));
            let q = nearest_point_in_two_balls(x[i], b1, b2, TETHER_INSIDE_TOLERANCE);
            let dl = two_ball_multipliers(x[i], q, b1, b2, w[i], TETHER_INSIDE_TOLERANCE, TETHER_MIN_GRAM);
            lambda[start] += dl[0];
            lambda[start + 1] += dl[1];
            x[i] = q;
        }
        start = end;
    }
    projections
}

/// A cloth stepped by the reference: the library's model and the reference's own state.
#[derive(Clone, Debug)]
pub(crate) struct ReferenceCloth {
    pub model: Model,
    /// Positions \[m\] and velocities \[m/s\] per particle.
    pub x: Vec<DVec3>,
    pub v: Vec<DVec3>,
    /// The largest linearised bending angle step of any projection so far \[rad\].
    pub largest_bending_step: f64,
    /// Tether projections and contact projections so far.
    pub tether_projections: usize,
    pub contact_projections: usize,
    x_prev: Vec<DVec3>,
    lambda_stretch: Vec<f64>,
    lambda_bending: Vec<f64>,
    lambda_tether: Vec<f64>,
}

impl ReferenceCloth {
    /// A reference cloth of `model` at positions `x` \[m\] with velocities `v` \[m/s\].
    pub fn new(model: Model, x: Vec<DVec3>, v: Vec<DVec3>) -> Self {
        let (e, h, t) = (model.edges.len(), model.hinges.len(), model.tethers.len());
        ReferenceCloth {
            x_prev: x.clone(),
            x,
            v,
            largest_bending_step: 0.0,
            tether_projections: 0,
            contact_projections: 0,
            lambda_stretch: vec![0.0; e],
            lambda_bending: vec![0.0; h],
            lambda_tether: vec![0.0; t],
            model,
        }
    }

    /// One step of `dt` \[s\]: the model's substeps of h = dt/n each, then the deformation damping
    /// and a free cloth's angular momentum restored.
    pub fn step(&mut self, dt: f64) {
        let (n, w) = (self.model.settings.substeps, &self.model.inverse_mass);
        // A free cloth (no kinematic particle, no linear damping) keeps its angular momentum over a
        // step in which no contact moved it: nothing outside exerts a torque about its centre.
        let free = w.iter().all(|&w| w > 0.0) && self.model.settings.linear_damping == 0.0;
        let (l0, contacts_before) = (free.then(|| angular_momentum(&self.x, &self.v, w)).flatten(), self.contact_projections);
        for _ in 0..n {
            self.substep(dt / n as f64);
        }
        let w = &self.model.inverse_mass;
        damp_deformation(&self.x, &mut self.v, w, self.model.settings.deformation_damping, dt);
        if let Some(l0) = l0.filter(|_| self.contact_projections == contacts_before) {
            restore_angular_momentum(&self.x, &mut self.v, w, l0);
        }
    }

    fn substep(&mut self, h: f64) {
        let s = self.model.settings;
        let w = &self.model.inverse_mass;
        for (((x, x_prev), v), &w) in self.x.iter_mut().zip(&mut self.x_prev).zip(&mut self.v).zip(w) {
            *x_prev = *x;
            (*x, *v) = predict(*x, *v, w, s.gravity, h);
        }
        // Small Steps: every multiplier starts each substep at 0 (no warm start).
        self.lambda_stretch.fill(0.0);
        self.lambda_bending.fill(0.0);
        self.lambda_tether.fill(0.0);
        for _ in 0..s.iterations {
            let (x, x_prev) = (&mut self.x, &self.x_prev);
            let step = bending_sweep(&self.model.hinges, &mut self.lambda_bending, x, x_prev, w, h, s.bend_damping);
            self.largest_bending_step = self.largest_bending_step.max(step);
            for _ in 0..STRETCH_SWEEPS {
                stretch_sweep(&self.model.edges, &mut self.lambda_stretch, x, x_prev, w, h, s.stretch_damping);
            }
            self.tether_projections += tether_sweep(&self.model.tethers, &mut self.lambda_tether, x, w, h, s.tether_slack, s.tether_compliance);
            self.contact_projections += contacts(&self.model, x, x_prev, h);
        }
        for (((v, &x), &x_prev), &w) in self.v.iter_mut().zip(&self.x).zip(&self.x_prev).zip(w) {
            *v = update_velocity(x, x_prev, w, h, s.linear_damping);
        }
    }
}

/// Every sphere's contacts of `model` with every free particle at `x` \[m\] (`x_prev` at the
/// substep's start), sphere by sphere, particle by particle, in a substep of `h` \[s\]. Returns how
/// many moved a particle.
pub(crate) fn contacts(model: &Model, x: &mut [DVec3], x_prev: &[DVec3], h: f64) -> usize {
    let s = model.settings;
    let mut projections = 0;
    let band = s.max_depenetration_speed * h;
    for sphere in &model.spheres {
        for i in 0..x.len() {
            if model.inverse_mass[i] == 0.0 {
                continue;
            }
            let start_gap = x_prev[i].distance(sphere.centre) - sphere.radius - s.collision_thickness;
            assert!(start_gap >= -band, "particle {i} starts {start_gap} m inside: the oracle has no push-out");
            if let Some(p) = project_sphere_contact(x[i], x_prev[i], sphere, s.collision_thickness, CONTACT_TOUCHING) {
                x[i] = p;
                projections += 1;
            }
        }
    }
    projections
}
