//! The step loop: Small Steps XPBD (Macklin et al. 2019) for one cloth. What a substep does is
//! declared once, in [`plan::SUBSTEP`]; [`step_cloth`] prepares the step, has the one runner
//! ([`runner`]) execute the substeps for any team size, and leaves the outputs.

mod angular_momentum;
mod deformation_damping;
mod frame;
mod group;
mod motion;
mod plan;
mod runner;
mod strain_limit;
mod sweeps;
mod wind;

pub use crate::constraints::team::PARALLEL_MIN_CONSTRAINTS;

use crate::cloth::config::ClothConfig;
use crate::cloth::model::ClothModel;
use crate::cloth::scratch::SolverScratch;
use crate::cloth::state::ClothState;
use crate::cloth::{Cloth, ClothParams};
use crate::collision::contact::{ContactSettings, Friction, contact_summary};
use crate::collision::edge_contact::EdgeContacts;
use crate::collision::inter_cloth::InterClothSnapshot;
use crate::collision::self_collision::SelfCollisionSettings;
use crate::collision::{ColliderStore, SubstepWindow};
use crate::constraints::SubstepCoefficients;
use crate::constraints::access::{SolverParticle, pack_solver_particles, unpack_solver_particles};
use crate::constraints::layout::ConstraintLayout;
use crate::parallel::chunks_mut_in_parallel;
use crate::stats::ClothStats;
use glam::Vec3;
use motion::Motion;
use wind::Aerodynamics;

/// World-level settings and shared state a cloth step needs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StepContext<'a> {
    /// Gravity \[m/s²\].
    pub gravity: Vec3,
    /// Default substeps per step.
    pub substeps: u32,
    /// Default iterations per substep.
    pub iterations: u32,
    /// The world's colliders, each moving from its start pose to its target over the step.
    pub colliders: &'a ColliderStore,
    /// The step runs on the world's thread pool of more than one thread: coloured cloths of at
    /// least [`PARALLEL_MIN_CONSTRAINTS`] constraints project each colour in parallel, and split
    /// their per-particle passes (wind, prediction, sweep rows, collider contacts, velocities,
    /// normals) over the pool too, so that little of the step stays on one thread (Amdahl).
    pub parallel: bool,
    /// The particles of the world's cloths with inter-cloth collision at the step's start, when
    /// at least two take part.
    pub inter_cloth: Option<&'a InterClothSnapshot>,
}

/// What the phases of one cloth's step read and write.
pub(crate) struct Parts<'a> {
    pub model: &'a ClothModel,
    pub layout: &'a ConstraintLayout,
    pub config: &'a ClothConfig,
    pub state: &'a mut ClothState,
    pub scratch: &'a mut SolverScratch,
}

/// One cloth's step, set up once before its substeps: the settings every phase reads.
pub(crate) struct Step<'a> {
    pub ctx: &'a StepContext<'a>,
    pub params: ClothParams,
    pub substeps: u32,
    pub iterations: u32,
    /// Substep length h = Δt/n \[s\].
    pub h: f32,
    pub k: SweepCoefficients,
    pub motion: Motion,
    /// The aerodynamic model, None when both its coefficients are 0.
    pub aerodynamics: Option<Aerodynamics>,
    pub contact: ContactSettings,
    /// The cloth collides with at least one of the world's colliders' layers.
    pub collide: bool,
    /// Self-collision's settings, None when it is off.
    pub self_contact: Option<SelfCollisionSettings>,
    /// The radius and friction of inter-cloth pairs.
    pub pairs: SelfCollisionSettings,
    /// The other cloths' particles, None unless this cloth and another take part.
    pub inter_cloth: Option<&'a InterClothSnapshot>,
    /// Split the cloth's sweeps and per-particle passes over the world's pool.
    pub parallel: bool,
    /// The stretch limit factor (`ClothConfig::stretch_limit`), None when off.
    pub stretch_limit: Option<f32>,
    /// The cloth has an animated pose (`crate::cloth::animation`), and constraints relative to it.
    pub animate: bool,
    pub animation_constraints: bool,
    /// The cloth has soft grabs (`crate::cloth::grabs`).
    pub grabbed: bool,
    /// (linear, angular) inertia when the cloth has a reference frame and either is below 1.
    pub carry: Option<(f32, f32)>,
    /// The volume constraint's (target s·p·|V₀| \[m³\], winding sign s) when `pressure` is set.
    pub volume: Option<(f64, f32)>,
    /// Edges may tear in this step (`tear_strain` set on a tearable cloth).
    pub tear: bool,
}

impl<'a> Step<'a> {
    fn new(cloth: &Cloth, dt: f32, ctx: &'a StepContext<'a>) -> Step<'a> {
        let params = cloth.config.params;
        let substeps = if params.substeps > 0 { params.substeps } else { ctx.substeps };
        let iterations = if params.iterations > 0 { params.iterations } else { ctx.iterations };
        let h = dt / substeps as f32;
        let acceleration = ctx.gravity + Vec3::from_array(params.external_acceleration);
        let velocity_scale = (-params.linear_damping * h).exp();
        let pairs = SelfCollisionSettings {
            radius: cloth.config.self_collision_radius,
            friction: (params.self_static_friction, params.self_kinetic_friction),
        };
        Step {
            ctx,
            params,
            substeps,
            iterations,
            h,
            k: SweepCoefficients {
                stretch: SubstepCoefficients::new(h, params.stretch_damping),
                bend: SubstepCoefficients::new(h, params.bend_damping),
                tether: SubstepCoefficients::new(h, 0.0),
            },
            motion: Motion { dv: acceleration * h, h, velocity_scale },
            aerodynamics: Aerodynamics::from_params(&params),
            contact: ContactSettings {
                thickness: params.collision_thickness,
                mask: params.collision_mask,
                max_depenetration: params.max_depenetration_speed * h,
            },
            collide: params.collision_mask != 0 && ctx.colliders.len() > 0,
            self_contact: params.self_collision.then_some(pairs),
            pairs,
            inter_cloth: ctx.inter_cloth.filter(|_| params.inter_cloth_collision),
            parallel: ctx.parallel && cloth.splits_over_pool(),
            stretch_limit: cloth.config.stretch_limit,
            animate: cloth.state.animation.pose.posed(),
            animation_constraints: cloth.state.animation.constrains(),
            grabbed: !cloth.state.grabs.particles.is_empty(),
            carry: cloth.state.animation.frame.and((params.linear_inertia < 1.0 || params.angular_inertia < 1.0).then_some((params.linear_inertia, params.angular_inertia))),
            volume: cloth.volume_target(),
            tear: params.tear_strain.is_some() && cloth.can_tear(),
        }
    }
}

/// Where a substep lies in its step.
pub(crate) struct SubstepInfo {
    /// The colliders' poses over the substep.
    pub window: SubstepWindow,
    /// Start and end of the substep \[s after the step's start\].
    pub span: (f32, f32),
    /// Whether its collider and self-collision sweeps apply friction: on in the substeps, off in
    /// the strain limit's re-projection, whose own correction is no slip for friction to cancel.
    /// Inter-cloth pairs always apply theirs (the reason: `sweeps/inter_cloth.rs`).
    pub friction: Friction,
}

impl SubstepInfo {
    fn new(step: &Step, index: u32) -> SubstepInfo {
        let span = (index as f32 * step.h, (index + 1) as f32 * step.h);
        SubstepInfo { window: SubstepWindow::new(index, step.substeps), span, friction: Friction::On }
    }
}

/// Advance `cloth` by one fixed step `dt` \[s\] (already validated: 1e-5 ≤ dt ≤ 1): the contact
/// pairs' broad phases once, then the plan's substeps ([`plan::SUBSTEP`]), then the pins' start
/// positions, the normals and the step's counts (the residual statistics are computed when first
/// read, `Cloth::stats`). Allocates nothing. Positions live in the sweeps' rows during the step.
pub(crate) fn step_cloth(cloth: &mut Cloth, dt: f32, ctx: &StepContext) {
    cloth.layout_for_step();
    cloth.config.advance_ramp(dt, &cloth.layout);
    let step = Step::new(cloth, dt, ctx);
    // The sweeps' particle rows are not bounds-checked: the layout's indices were checked when it
    // was built (a layout changed in place is checked again here).
    let particle_count = cloth.scratch.rows.len();
    if !cloth.layout.rows_ready(particle_count) {
        let checked = std::sync::Arc::make_mut(&mut cloth.layout).prepare_rows(particle_count);
        assert!(checked, "a constraint refers to a particle beyond {particle_count}");
    }
    let angular_start = {
        let key = cloth.world_key;
        let mut parts = parts_of(cloth);
        let touched_before = parts.scratch.contacts.touched_in_step();
        begin_step(&mut parts, &step, key, dt);
        let angular_start = angular_momentum::at_start(&step, &parts.state.x, &parts.state.v, &parts.config.w, touched_before);
        to_rows(&mut parts.scratch.rows, &parts.state.x, &parts.config.w, step.parallel);
        runner::run(&mut parts, &step);
        angular_start
    };
    for &phase in plan::AFTER_SUBSTEPS {
        match phase {
            // Cuts change the mesh and the layout: the whole cloth, between the other phases.
            plan::StepPhase::Tear => tear(cloth, &step),
            plan::StepPhase::StrainLimit => strain_limit::limit_strain(&mut parts_of(cloth), &step),
            plan::StepPhase::AnimationLimits => strain_limit::limit_animation(&mut parts_of(cloth), &step),
            plan::StepPhase::DampDeformation if step.params.deformation_damping > 0.0 => {
                let parts = parts_of(cloth);
                deformation_damping::damp_deformation(&parts.scratch.rows, &mut parts.state.v, step.params.deformation_damping, dt);
            }
            plan::StepPhase::DampDeformation => {}
            plan::StepPhase::KeepAngularMomentum => angular_momentum::keep(&mut parts_of(cloth), angular_start),
        }
    }
    from_rows(&cloth.scratch.rows, &mut cloth.state.x, step.parallel);
    finish_step(cloth, &step);
}

/// Rounds of the `Tear` stage at most: each tears the edges over `tear_strain` whose ends no tear
/// of the round split, then the strain limit releases what tore before the next round measures
/// again (a row of edges pulled apart tears across in one step).
const TEAR_ROUNDS: u32 = 4;

/// The `Tear` stage (`plan::StepPhase::Tear`): rounds of tearing, each followed by the strain
/// limit over the torn mesh (one round without a strain limit: nothing would release what tore).
fn tear(cloth: &mut Cloth, step: &Step) {
    (cloth.scratch.tear.torn_last_step, cloth.scratch.tear.tears_this_step) = (0, 0);
    if !step.tear {
        return;
    }
    let rounds = if step.stretch_limit.is_some() { TEAR_ROUNDS } else { 1 };
    for _ in 0..rounds {
        if !cloth.tear_by_strain(step.parallel) {
            break;
        }
        if step.stretch_limit.is_some() {
            strain_limit::limit_strain(&mut parts_of(cloth), step);
        }
    }
}

/// What the phases of `cloth`'s step read and write.
fn parts_of(cloth: &mut Cloth) -> Parts<'_> {
    let Cloth { model, layout, config, state, scratch, .. } = cloth;
    Parts { model, layout, config, state, scratch }
}


/// Before the substeps: the candidate pairs of self-collision and inter-cloth collision (once per
/// step), and λ = 0 for constraint types switched off (they have no first sweep to overwrite it:
/// `Cloth::energy` and the statistics read λ).
fn begin_step(parts: &mut Parts, step: &Step, world_key: u32, dt: f32) {
    let (state, w, rest, s) = (&*parts.state, &parts.config.w, &parts.model.rest, &mut *parts.scratch);
    s.contacts.begin_step();
    s.self_collision.begin_step(&state.x, &state.v, w, rest, dt, step.self_contact);
    s.inter_cloth.begin_step(step.inter_cloth, world_key, &state.x, &state.v, w, step.pairs.radius, dt);
    let (model, c) = (parts.model, &step.contact);
    s.contacts.edges.clear();
    if step.collide && EdgeContacts::needed(step.ctx.colliders, c.mask, c.thickness, model.longest_edge) {
        // How far a particle can travel in the step: its speed now and the step's acceleration,
        // twice over for what the constraints add.
        let speed = state.v.iter().fold(0.0f32, |m, v| m.max(v.length()));
        let travel = 2.0 * (speed + step.motion.dv.length() / step.h * dt) * dt;
        let stretch = &parts.layout.stretch;
        s.contacts.edges.begin_step(&state.x, w, stretch.edges(), model.longest_edge, step.ctx.colliders, c.mask, c.thickness, travel);
    }
    let p = &step.params;
    for (on, lambda) in [(p.enable_stretch, &mut s.stretch_lambda), (p.enable_bending, &mut s.bend_lambda), (p.enable_tethers, &mut s.tether_lambda)] {
        if !on {
            lambda.fill(0.0);
        }
    }
}

/// After the substeps: the pins' targets become the next start, the normals and the step's counts.
fn finish_step(cloth: &mut Cloth, step: &Step) {
    cloth.finish_inputs();
    cloth.output.last_substep = step.h;
    cloth.update_normals(step.parallel);
    let mut stats = ClothStats { substeps: step.substeps, iterations: step.iterations, ..ClothStats::default() };
    let (x, w, s) = (&cloth.state.x, &cloth.config.w, &cloth.scratch);
    if step.collide {
        let edges = (&s.contacts.edges, cloth.layout.stretch.edges(), cloth.model.longest_edge);
        (stats.contact_count, stats.max_penetration) = contact_summary(x, w, step.ctx.colliders, &step.contact, Some(edges));
    }
    if let Some(settings) = &step.self_contact {
        stats.self_pairs_tested = s.self_collision.pairs().len() as u32;
        stats.self_contact_count = s.self_collision.contact_count(x, settings.radius);
    }
    stats.inter_cloth_pairs_tested = s.inter_cloth.len() as u32;
    stats.torn_edges_last_step = s.tear.torn_last_step;
    cloth.output.stats = stats;
    // The residual statistics are computed when first read (`Cloth::stats`).
    cloth.residuals_due();
}

/// The substep coefficients of each constraint type's sweeps (stretch and bending damping; the
/// tethers have none).
pub(crate) struct SweepCoefficients {
    pub stretch: SubstepCoefficients,
    pub bend: SubstepCoefficients,
    pub tether: SubstepCoefficients,
}

impl SweepCoefficients {
    /// Neither stretch nor bending is damped: their kernels never read `x_prev`.
    fn undamped(&self) -> bool {
        self.stretch.undamped() && self.bend.undamped()
    }
}

/// Positions `x` \[m\] and inverse masses `w` into the sweep rows (all of one length).
fn to_rows(rows: &mut [SolverParticle], x: &[Vec3], w: &[f32], parallel: bool) {
    chunks_mut_in_parallel(rows, parallel, |first, rows| {
        let range = first..first + rows.len();
        pack_solver_particles(&x[range.clone()], &w[range], rows);
    });
}

/// The sweep rows' positions back into `x` \[m\].
fn from_rows(rows: &[SolverParticle], x: &mut [Vec3], parallel: bool) {
    chunks_mut_in_parallel(x, parallel, |first, x| {
        unpack_solver_particles(&rows[first..first + x.len()], x);
    });
}

/// Pinned particles to their targets for `substep` of `substeps` (after the prediction, `Motion::predict`).
fn move_pins(parts: &mut Parts, substep: u32, substeps: u32) {
    let (pins, rows) = (&parts.state.pins, &mut parts.scratch.rows);
    for (k, &i) in pins.particles.iter().enumerate() {
        let row = &mut rows[i as usize];
        *row = pins.position(k, substep, substeps).extend(row.w);
    }
}

#[cfg(test)]
mod tests {
    use crate::test_util::grid;
    use crate::{ClothDesc, World, WorldDesc};
    use std::panic::{AssertUnwindSafe, catch_unwind};

    /// The sweeps read and write particle rows without bounds checks, relying on the check at the
    /// top of the step: a constraint that refers to a particle beyond the cloth (impossible through
    /// the public API, so planted here) stops the step with a panic before any particle moves,
    /// on one thread and split over a pool (64² is above `PARALLEL_MIN_CONSTRAINTS`).
    #[test]
    fn a_constraint_beyond_the_particles_stops_the_step_before_anything_moves() {
        let n = 64;
        let (positions, indices) = grid(n, 0.02, 0.0);
        for (threads, kind) in [(1, "stretch"), (2, "bending"), (2, "tether")] {
            let mut world = World::new(WorldDesc { thread_count: threads, ..WorldDesc::default() }).unwrap();
            let handle = world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
            let cloth = world.cloth_mut(handle).unwrap();
            cloth.set_pinned(&[0, n as u32 - 1], None).unwrap();
            let beyond = (n * n) as u32;
            world.step(1.0 / 60.0).expect("a step before the index changes");
            let cloth = world.cloth_mut(handle).unwrap();
            // Changed in place through the edit the code that reorders constraints uses, which
            // marks the kept offsets of the step above stale (they are then checked again).
            let layout = std::sync::Arc::get_mut(&mut cloth.layout).expect("the cloth's own layout");
            match kind {
                // SAFETY: `beyond` is in no other edge, so every colour stays disjoint.
                "stretch" => unsafe { layout.stretch.edit(|s| s.edges[7][1] = beyond) },
                // SAFETY: `beyond` is in no other hinge, so every colour stays disjoint.
                "bending" => unsafe { layout.bending.edit(|b| b.hinges[7][2] = beyond) },
                // SAFETY: `beyond` is no tether's particle, and the groups stay as they were.
                _ => unsafe { layout.tethers.edit(|t| *t.anchor.last_mut().unwrap() = beyond) },
            }
            let before: Vec<[u32; 3]> = cloth.particle_positions().iter().map(|p| p.to_array().map(f32::to_bits)).collect();
            let result = catch_unwind(AssertUnwindSafe(|| world.step(1.0 / 60.0)));
            let message = result.expect_err(kind).downcast::<String>().map(|m| *m).unwrap_or_default();
            assert!(message.contains(&format!("a constraint refers to a particle beyond {beyond}")), "{kind}: {message}");
            let cloth = world.cloth_mut(handle).unwrap();
            let after: Vec<[u32; 3]> = cloth.particle_positions().iter().map(|p| p.to_array().map(f32::to_bits)).collect();
            assert!(before == after, "{kind}: particles moved");
        }
    }
}
