//! The step loop: Small Steps XPBD (Macklin et al. 2019) for one cloth. The whole algorithm is
//! `step_cloth`, top to bottom; each constraint type's sweep lives with its constraint.

mod wind;

use crate::cloth::Cloth;
use crate::constraints::SubstepCoefficients;
use crate::stats::{ClothStats, ConstraintStats};
use glam::Vec3;
use wind::{Aerodynamics, apply_wind};

/// World-level settings a cloth step needs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StepContext {
    /// Gravity [m/s²].
    pub gravity: Vec3,
    /// Default substeps per step.
    pub substeps: u32,
    /// Default iterations per substep.
    pub iterations: u32,
}

/// Advance `cloth` by one fixed step `dt` [s] (already validated: 0 < dt ≤ 1).
///
/// Per substep h = dt/n (DESIGN §2): aerodynamic forces (if enabled), predict, λ = 0, k Gauss–Seidel sweeps (stretch, bending, then
/// tethers last so that the hard length limit holds when the substep ends), velocity update,
/// linear damping. Then pins advance, normals and statistics are refreshed. Allocates nothing.
pub(crate) fn step_cloth(cloth: &mut Cloth, dt: f32, ctx: &StepContext) {
    let params = cloth.params;
    let substeps = if params.substeps > 0 { params.substeps } else { ctx.substeps };
    let iterations = if params.iterations > 0 { params.iterations } else { ctx.iterations };
    let h = dt / substeps as f32;
    let acceleration = ctx.gravity + Vec3::from_array(params.external_acceleration);
    let velocity_scale = (-params.linear_damping * h).exp();
    let coefficients = |damping| SubstepCoefficients { h, inv_h2: 1.0 / (h * h), damping };
    let stretch_k = coefficients(params.stretch_damping);
    let bend_k = coefficients(params.bend_damping);
    let tether_k = coefficients(0.0);
    let aerodynamics = Aerodynamics::from_params(&params);

    for substep in 0..substeps {
        if let Some(aero) = &aerodynamics {
            apply_wind(cloth, aero, h);
        }
        predict(cloth, acceleration, h, substep, substeps);

        cloth.stretch.lambda.fill(0.0);
        cloth.bending.lambda.fill(0.0);
        cloth.tethers.lambda.fill(0.0);
        let p = &mut cloth.particles;
        for _ in 0..iterations {
            if params.enable_stretch {
                cloth.stretch.solve(&mut p.x, &p.x_prev, &p.w, &stretch_k);
            }
            if params.enable_bending {
                cloth.bending.solve(&mut p.x, &p.x_prev, &p.w, &bend_k);
            }
            if params.enable_tethers {
                let (slack, alpha) = (params.tether_slack, params.tether_compliance);
                cloth.tethers.solve(&mut p.x, &p.x_prev, &p.w, slack, alpha, &tether_k);
            }
        }

        update_velocities(cloth, h, velocity_scale);
    }
    cloth.pins.finish_step();
    cloth.update_normals();
    update_stats(cloth, h, substeps, iterations);
}

/// Symplectic Euler prediction for free particles; pinned particles move to their target for this
/// substep; particles with zero inverse mass that are not pinned stay where they are.
fn predict(cloth: &mut Cloth, acceleration: Vec3, h: f32, substep: u32, substeps: u32) {
    let p = &mut cloth.particles;
    for i in 0..p.x.len() {
        p.x_prev[i] = p.x[i];
        if p.w[i] > 0.0 {
            p.v[i] += acceleration * h;
            p.x[i] += p.v[i] * h;
        }
    }
    for (k, &i) in cloth.pins.particles.iter().enumerate() {
        p.x[i as usize] = cloth.pins.position(k, substep, substeps);
    }
}

/// v = (x − x_prev)/h for every particle (pinned ones get their kinematic velocity), then linear
/// damping on free particles.
fn update_velocities(cloth: &mut Cloth, h: f32, velocity_scale: f32) {
    let p = &mut cloth.particles;
    let inv_h = 1.0 / h;
    for i in 0..p.x.len() {
        p.v[i] = (p.x[i] - p.x_prev[i]) * inv_h;
        if p.w[i] > 0.0 {
            p.v[i] *= velocity_scale;
        }
    }
}

fn update_stats(cloth: &mut Cloth, h: f32, substeps: u32, iterations: u32) {
    let params = cloth.params;
    let x = &cloth.particles.x;
    let inv_h2 = 1.0 / (h * h);
    let buf = &mut cloth.scratch.abs_c;
    let mut stats = ClothStats { substeps, iterations, ..ClothStats::default() };
    if params.enable_stretch {
        buf.clear();
        cloth.stretch.residuals(x, buf);
        stats.stretch = ConstraintStats::summarise(buf, &cloth.stretch.lambda, inv_h2);
    }
    if params.enable_bending {
        buf.clear();
        cloth.bending.residuals(x, buf);
        stats.bending = ConstraintStats::summarise(buf, &cloth.bending.lambda, inv_h2);
    }
    if params.enable_tethers {
        buf.clear();
        cloth.tethers.residuals(x, params.tether_slack, buf);
        stats.tether = ConstraintStats::summarise(buf, &cloth.tethers.lambda, inv_h2);
    }
    stats.max_edge_strain = cloth.stretch.max_strain(x);
    cloth.stats = stats;
}
