//! The step loop: Small Steps XPBD (Macklin et al. 2019) for one cloth. The whole algorithm is
//! `step_cloth`, top to bottom; each constraint type's sweep lives with its constraint.

mod motion;
mod step_team;
mod wind;

use crate::cloth::Cloth;
use crate::collision::contact::{ContactSettings, contact_summary};
use crate::collision::inter_cloth::InterClothSnapshot;
use crate::collision::self_collision::SelfCollisionSettings;
use crate::collision::{ColliderStore, SubstepWindow};
use crate::cloth::ClothParams;
use crate::constraints::team::TeamWork;
use crate::constraints::{BendingConstraints, StretchConstraints, SubstepCoefficients, TetherConstraints};
use crate::constraints::access::{SolverParticle, pack_solver_particles, unpack_solver_particles};
use crate::constraints::team::{Chain, SharedSlice, run_team};
use crate::parallel::chunks_mut_in_parallel;
use crate::stats::ClothStats;
use glam::Vec3;
use motion::{Motion, Pass, move_particles};
use step_team::StepWork;
use wind::{Aerodynamics, apply_wind};

/// Stretch sweeps per iteration: two, a cheaper way to a low stretch residual than more substeps.
/// Measured with the tenth set's build (docs/performance-log.md) on the light, stiff cloth of the validation tests (1 kg,
/// stretch α = 0, bending α = 1e-5, two corners pinned, 60 Hz, one thread, 600 steps; p95 stretch
/// |C| averaged over the frames after the first second): at 10 substeps two sweeps leave 7.0e-4 m
/// on the 64² grid and 1.05e-3 m on the 128² grid, one sweep 1.17e-3 and 1.58e-3. One sweep needs
/// about 14 substeps on both grids to do as well as two at 10; a substep with one sweep is about
/// 80 % of the work of one with two, so that is about 14 % more work. Stretch is a third of the
/// work of an iteration, so this also costs far less than a second iteration.
///
/// When two were chosen, one sweep blew the 128² cloth up within five frames (edge strain above
/// 20 000 %, hinges flipped, and neither 40 substeps, symmetric sweeps nor tethers first fixed
/// it). With the tenth set's build it stays finite with one sweep: the worst edge strain from 1 to
/// 10 s is 129 % with one sweep and 124 % with two (46 % and 48 % at 10 s).
///
/// DESIGN §2 projects each constraint once per iteration; this is the one place the solver does
/// more, for the quality one sweep loses on real input. Measured in the eleventh set with one
/// sweep: a 64² step takes 1.33 ms instead of 1.63 (one thread), but the tablecloth demo's edges
/// wrapped round the table's rounded edge reach 88.6 % strain in 12 frames (61 % with two;
/// `tests/demo.rs` bounds it at 75 %), a cloth dropped on a plane with self-collision no longer
/// piles up in layers, and the inertia-scale test's strains lose their order
/// (`tests/self_collision.rs`, `tests/robustness.rs`).
const STRETCH_SWEEPS: usize = 2;

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

/// Constraints (edges + hinges + tethers) below which a coloured cloth is still solved on one
/// thread, and gets the wide stretch palette (one colour per hop level from the pins), which
/// splitting would make too costly (`Cloth::stretch_palette`). Measured with `examples/bench`
/// built with the threshold at 0 (2-core machine, load ≈ 1, medians of 3 runs, speed-up over the
/// same run's scalar reference). With a `rayon::join` tree per colour the 32² grid (7 810
/// constraints) lost with a second thread (1.97 → 1.73× at 5 substeps, 1.91 → 1.76× at 10) and
/// the 64² grid (32 002) gained (2.04 → 2.62×, 2.43 → 2.71×). With the team sweep (one fork-join
/// per sweep, `constraints::team`) the 32² grid gains too (1.35–1.40 → 1.11 ms per step at 10
/// substeps), but only with the narrow palette, whose stretch residual is 6 % worse than the wide
/// one's (time-averaged p95, `tests/colouring.rs`): the threshold stays between the two grids.
pub const PARALLEL_MIN_CONSTRAINTS: usize = 20_000;

/// Advance `cloth` by one fixed step `dt` \[s\] (already validated: 1e-5 ≤ dt ≤ 1).
///
/// Per substep h = dt/n (DESIGN §2): aerodynamic forces (if enabled), predict, λ = 0, k Gauss–Seidel
/// iterations (bending, then [`STRETCH_SWEEPS`] stretch sweeps ordered outward from the pins
/// within each colour of [`Cloth::set_constraint_colouring`],
/// tethers so that the hard length limit holds, then self-collision pairs (found once per step,
/// before the substeps: `collision/self_collision.rs`), then collider contacts with friction last so that
/// no step ends inside a collider; colliders at their pose interpolated for this substep), velocity
/// update (speed-limiting particles being pushed out of a collider), linear damping. Then pins
/// advance, normals and the step's counts (contacts, penetration, pairs) are refreshed; the
/// residual statistics are computed when first read (`Cloth::stats`). Positions
/// live in the sweep rows during the step; without wind and colliders a substep's velocity update
/// and the next prediction are one pass. Allocates
/// nothing. With the `parallel` flag below, the colour sweeps (one team of the pool's threads per
/// iteration, `constraints::team`, or per step with the motion passes and pins when nothing else
/// runs between them, `step_team`), the per-particle passes (wind, prediction, copies into the
/// sweep rows and back, collider contacts, velocity update, normals) run split over the current
/// rayon pool, each in a way that cannot change a bit; self-collision, inter-cloth pairs and the
/// end-of-step contact summary stay on the cloth's thread.
pub(crate) fn step_cloth(cloth: &mut Cloth, dt: f32, ctx: &StepContext) {
    let params = cloth.params;
    let substeps = if params.substeps > 0 { params.substeps } else { ctx.substeps };
    let iterations = if params.iterations > 0 { params.iterations } else { ctx.iterations };
    let h = dt / substeps as f32;
    let acceleration = ctx.gravity + Vec3::from_array(params.external_acceleration);
    let velocity_scale = (-params.linear_damping * h).exp();
    let k = SweepCoefficients {
        stretch: SubstepCoefficients::new(h, params.stretch_damping),
        bend: SubstepCoefficients::new(h, params.bend_damping),
        tether: SubstepCoefficients::new(h, 0.0),
    };
    let contact = ContactSettings {
        thickness: params.collision_thickness,
        mask: params.collision_mask,
        max_depenetration: params.max_depenetration_speed * h,
    };
    let collide = params.collision_mask != 0 && ctx.colliders.len() > 0;
    let aerodynamics = Aerodynamics::from_params(&params);
    let parallel = cloth.colouring && ctx.parallel && cloth.large_enough_to_split();
    let self_contact = SelfCollisionSettings::from_params(&params);
    cloth.self_collision.begin_step(&cloth.particles.x, &cloth.particles.v, &cloth.particles.w, dt, self_contact);
    let inter_cloth = ctx.inter_cloth.filter(|_| params.inter_cloth_collision);
    let pair_settings = SelfCollisionSettings::of(&params);
    cloth.inter_cloth.begin_step(inter_cloth, cloth.world_key, &cloth.particles, pair_settings.radius, dt);
    // A constraint type switched off has no first sweep to overwrite its λ (see `fresh` below):
    // it reads 0, as after a reset (`Cloth::energy` and the statistics read λ).
    if !params.enable_stretch {
        cloth.stretch.lambda.fill(0.0);
    }
    if !params.enable_bending {
        cloth.bending.lambda.fill(0.0);
    }
    if !params.enable_tethers {
        cloth.tethers.lambda.fill(0.0);
    }
    // Once per step rather than at every particle a sweep reads or writes (the sweeps' particle
    // rows are not bounds-checked): the substeps change the constraints' λ, never their particles.
    // The byte offsets of the rows, which the lane-wise kernels address them by, are derived from
    // the checked indices at the same time, and both are kept until the indices change
    // (`RowOffsets`): a step whose constraints did not change since the last one does no pass.
    let particle_count = cloth.sweep_rows.len();
    assert!(
        cloth.stretch.prepare_rows(particle_count)
            && cloth.bending.prepare_rows(particle_count)
            && cloth.tethers.prepare_rows(particle_count),
        "a constraint refers to a particle beyond {particle_count}"
    );

    // The sweeps' rows hold the positions for the whole step: packed once here, unpacked into
    // `particles.x` at its end and around the passes that work on `particles.x` (self-collision,
    // inter-cloth pairs, colliders). Prediction, wind and the velocity update read and write the
    // rows, so a step without those passes copies the positions twice instead of twice per
    // iteration (each copy a pass over the particles and, split, a fork-join).
    let x_passes = self_contact.is_some() || inter_cloth.is_some() || collide;
    to_rows(&mut cloth.sweep_rows, &cloth.particles.x, &cloth.particles.w, parallel);
    let motion = Motion { dv: acceleration * h, h, velocity_scale };
    // Without wind and colliders nothing runs between one substep's velocity update and the next
    // substep's prediction, and one pass does both (per particle the same operations in the same
    // order: the same bits, one pass and, split, one fork-join fewer per substep).
    let fused = aerodynamics.is_none() && !collide;
    // A cloth split over threads whose step is nothing but motion passes, pins and one iteration
    // of undamped sweeps per substep: the whole step as one team run (`step_team`), one fork-join
    // instead of two per substep. The same operations per particle in the same order: the same
    // bits as the loop below.
    let whole_step = parallel && fused && !x_passes && iterations == 1 && k.undamped();
    if whole_step {
        let p = &mut cloth.particles;
        let constraints = (&mut cloth.bending, &mut cloth.stretch, &mut cloth.tethers);
        let work = StepWork {
            // Undamped kernels never read `x_prev`, which the motion passes write: they get none.
            constraints: iteration_sweeps(constraints, &[], &p.w, &params, &k, true),
            substeps,
            motion,
            x_prev: SharedSlice::new(&mut p.x_prev),
            v: SharedSlice::new(&mut p.v),
            pins: &cloth.pins,
        };
        // SAFETY: as for the per-iteration team below; the motion and pin phases touch only the
        // particles of their bounds (`step_team`).
        unsafe { run_team(&work, &mut cloth.sweep_rows) };
    } else {
        for substep in 0..substeps {
            if substep == 0 || !fused {
                if let Some(aero) = &aerodynamics {
                    apply_wind(cloth, aero, h, parallel);
                }
                move_particles(cloth, motion, Pass::Predict, parallel);
                move_pins(cloth, substep, substeps);
            }
            let window = SubstepWindow::new(substep, substeps);
            if collide {
                cloth.contacts.begin_substep();
            }

            // The multipliers are not reset here: the first sweep of each type in the substep takes λ
            // as 0 (`fresh`), which spares passes over them on the cloth's thread (perf, 128² on two
            // threads: the stretch and bending resets were 1.7 % of the samples, the tethers' 0.5 %,
            // all on one thread while the other waited).
            let p = &mut cloth.particles;
            let rows = &mut cloth.sweep_rows;
            for iteration in 0..iterations {
                let fresh = iteration == 0;
                if parallel {
                    // One team for the iteration's sweeps rather than one fork-join per sweep: on the
                    // 128² grid the second thread joined each sweep 4 µs after it began, on average.
                    let constraints = (&mut cloth.bending, &mut cloth.stretch, &mut cloth.tethers);
                    let work = iteration_sweeps(constraints, &p.x_prev, &p.w, &params, &k, fresh);
                    // SAFETY: indices checked at the top of the step; colourings are valid
                    // (`Cloth::set_constraint_colouring`); tethers are rebuilt whenever pins change w
                    // (`Cloth::set_pinned`); particle bounds derived with the row offsets.
                    unsafe { run_team(&work, rows) };
                } else {
                    if params.enable_bending {
                        // SAFETY: indices checked at the top of the step; colourings are valid
                        // (`Cloth::set_constraint_colouring`).
                        unsafe { cloth.bending.solve_in_bounds(rows, &p.x_prev, &p.w, &k.bend, fresh) };
                    }
                    if params.enable_stretch {
                        for sweep in 0..STRETCH_SWEEPS {
                            // SAFETY: as for bending.
                            unsafe { cloth.stretch.solve_in_bounds(rows, &p.x_prev, &p.w, &k.stretch, fresh && sweep == 0) };
                        }
                    }
                    if params.enable_tethers {
                        let (slack, alpha) = (params.tether_slack, params.tether_compliance);
                        // SAFETY: indices checked at the top of the step; tethers are rebuilt whenever
                        // pins change w (`Cloth::set_pinned`).
                        unsafe { cloth.tethers.solve_in_bounds(rows, &p.w, slack, alpha, &k.tether, fresh) };
                    }
                }
                if !x_passes {
                    continue;
                }
                from_rows(rows, &mut p.x, parallel);
                if let Some(settings) = &self_contact {
                    cloth.self_collision.solve(&mut p.x, &p.x_prev, &p.w, settings);
                }
                if let Some(snapshot) = inter_cloth {
                    let span = (substep as f32 * h, (substep + 1) as f32 * h);
                    cloth.inter_cloth.solve(snapshot, p, &pair_settings, span);
                }
                if collide {
                    cloth.contacts.solve(&mut p.x, &p.x_prev, &p.w, ctx.colliders, window, &contact, parallel);
                }
                to_rows(rows, &p.x, &p.w, parallel);
            }

            if fused && substep + 1 < substeps {
                move_particles(cloth, motion, Pass::UpdateThenPredict, parallel);
                move_pins(cloth, substep + 1, substeps);
                continue;
            }
            move_particles(cloth, motion, Pass::Update, parallel);
            if collide {
                let max_speed = params.max_depenetration_speed;
                cloth.contacts.limit_depenetration_speed(&mut cloth.particles.v, max_speed, parallel);
            }
        }
    }
    from_rows(&cloth.sweep_rows, &mut cloth.particles.x, parallel);
    cloth.pins.finish_step();
    cloth.last_substep = h;
    cloth.update_normals(parallel);
    cloth.stats = ClothStats { substeps, iterations, ..ClothStats::default() };
    if collide {
        let p = &cloth.particles;
        let (count, max_penetration) = contact_summary(&p.x, &p.w, ctx.colliders, &contact);
        (cloth.stats.contact_count, cloth.stats.max_penetration) = (count, max_penetration);
    }
    if let Some(settings) = &self_contact {
        cloth.stats.self_pairs_tested = cloth.self_collision.pairs().len() as u32;
        cloth.stats.self_contact_count = cloth.self_collision.contact_count(&cloth.particles.x, settings.radius);
    }
    cloth.stats.inter_cloth_pairs_tested = cloth.inter_cloth.len() as u32;
    // The residual statistics are computed when first read (`Cloth::stats`).
    cloth.residuals_due();
}

/// The substep coefficients of each constraint type's sweeps (stretch and bending damping; the
/// tethers have none).
struct SweepCoefficients {
    stretch: SubstepCoefficients,
    bend: SubstepCoefficients,
    tether: SubstepCoefficients,
}

impl SweepCoefficients {
    /// Neither stretch nor bending is damped: their kernels never read `x_prev`.
    fn undamped(&self) -> bool {
        self.stretch.undamped() && self.bend.undamped()
    }
}

/// One iteration's sweeps as the work of one team run: bending, [`STRETCH_SWEEPS`] stretch sweeps
/// and the tethers, in that order, a type switched off in `params` left out; the first sweep of
/// each type takes λ as 0 when `fresh`. `x_prev` \[m\] (`Vec3[particle count]`) is what damped kernels
/// read: a step team hands undamped kernels an empty slice. `w`: inverse masses \[1/kg\].
fn iteration_sweeps<'a>(
    (bending, stretch, tethers): (&'a mut BendingConstraints, &'a mut StretchConstraints, &'a mut TetherConstraints),
    x_prev: &'a [Vec3],
    w: &'a [f32],
    params: &ClothParams,
    k: &'a SweepCoefficients,
    fresh: bool,
) -> impl TeamWork + 'a {
    let (slack, alpha) = (params.tether_slack, params.tether_compliance);
    let bending = params.enable_bending.then(|| bending.team_work(x_prev, w, &k.bend, fresh));
    let stretch = params.enable_stretch.then(|| stretch.team_work(x_prev, w, &k.stretch, STRETCH_SWEEPS, fresh));
    let tethers = params.enable_tethers.then(|| tethers.team_work(w, slack, alpha, &k.tether, fresh));
    Chain(Chain(bending, stretch), tethers)
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
fn move_pins(cloth: &mut Cloth, substep: u32, substeps: u32) {
    for (k, &i) in cloth.pins.particles.iter().enumerate() {
        let row = &mut cloth.sweep_rows[i as usize];
        *row = cloth.pins.position(k, substep, substeps).extend(row.w);
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
            // Changed in place, as the code that reorders constraints does: with the call that
            // code makes (the kept offsets of the step above are then checked again).
            match kind {
                "stretch" => {
                    cloth.stretch.edges[7][1] = beyond;
                    cloth.stretch.row_offsets.indices_changed();
                }
                "bending" => {
                    cloth.bending.hinges[7][2] = beyond;
                    cloth.bending.row_offsets.indices_changed();
                }
                _ => {
                    *cloth.tethers.anchor.last_mut().unwrap() = beyond;
                    cloth.tethers.row_offsets.indices_changed();
                }
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

    /// The row offsets are kept from step to step (`RowOffsets`); code that changes constraint
    /// indices in place without saying so is caught by the debug check of the next step (with
    /// debug assertions, as the CI profile runs the tests), here for a swap that keeps every
    /// index in bounds, which the bounds check alone would not notice.
    #[test]
    #[cfg(debug_assertions)]
    fn indices_changed_without_saying_so_fail_the_next_step_in_debug_builds() {
        let n = 8;
        let (positions, indices) = grid(n, 0.1, 0.0);
        for kind in ["stretch", "bending", "tether"] {
            let mut world = World::new(WorldDesc::default()).unwrap();
            let handle = world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
            world.cloth_mut(handle).unwrap().set_pinned(&[0, n as u32 - 1], None).unwrap();
            world.step(1.0 / 60.0).expect("a step before the indices change");
            let cloth = world.cloth_mut(handle).unwrap();
            match kind {
                "stretch" => cloth.stretch.edges.swap(0, 5),
                "bending" => cloth.bending.hinges.swap(1, 9),
                _ => cloth.tethers.particle.swap(0, 7),
            }
            let result = catch_unwind(AssertUnwindSafe(|| world.step(1.0 / 60.0)));
            let message = result.expect_err(kind).downcast::<&str>().map(|m| m.to_string()).unwrap_or_default();
            assert!(message.contains("without RowOffsets::indices_changed"), "{kind}: {message}");
        }
    }
}
