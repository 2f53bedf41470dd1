//! The runner that executes the plan ([`SUBSTEP`]) phase by phase on the cloth's thread, with
//! three optimisations that change no bit: a substep's velocity update and the next substep's
//! prediction in one pass when nothing runs between them; the positions kept in the sweeps' rows
//! and copied to `state.x` only around the constraints that work there; and, on a cloth split over
//! threads, consecutive team sweeps of an iteration run as one team of the pool's threads.

use super::iteration::IterationWork;
use super::motion::{Pass, move_particles};
use super::plan::{Phase, SUBSTEP};
use super::sweeps::{Constraint, TeamInputs, place_pose};
use super::wind::apply_wind;
use super::{Parts, Step, SubstepInfo, from_rows, move_pins, to_rows};
use crate::constraints::team::{SharedSlice, run_team};

/// Run the step's substeps (the rows hold the positions before and after).
pub(super) fn run(parts: &mut Parts, step: &Step) {
    let fused = step.update_fuses_with_predict();
    let mut on_rows = true;
    for index in 0..step.substeps {
        let substep = SubstepInfo::new(step, index);
        let mut reset = false;
        for &phase in SUBSTEP.begin.iter().filter(|&&p| step.runs(p)) {
            match phase {
                Phase::Predict if fused && index > 0 => {} // in the last substep's fused pass
                Phase::ResetLambda => reset = true,
                _ => run_phase(phase, parts, step, &substep),
            }
        }
        for iteration in 0..step.iterations {
            run_iteration(parts, step, &substep, reset && iteration == 0, &mut on_rows);
        }
        if !on_rows {
            to_rows(&mut parts.scratch.rows, &parts.state.x, &parts.config.w, step.parallel);
            on_rows = true;
        }
        for &phase in SUBSTEP.end.iter().filter(|&&p| step.runs(p)) {
            match phase {
                Phase::UpdateVelocity if fused && index + 1 < step.substeps => {
                    move_particles(parts, step.motion, Pass::UpdateThenPredict, step.parallel);
                }
                _ => run_phase(phase, parts, step, &substep),
            }
        }
    }
}

/// One phase outside the iterations (the rows hold the positions).
fn run_phase(phase: Phase, parts: &mut Parts, step: &Step, substep: &SubstepInfo) {
    match phase {
        Phase::Wind => {
            if let Some(aero) = &step.aerodynamics {
                apply_wind(parts, aero, step.h, step.parallel);
            }
        }
        Phase::Predict => move_particles(parts, step.motion, Pass::Predict, step.parallel),
        Phase::Carry => super::frame::carry_with_frame(parts, step, substep),
        Phase::Animate => place_pose(parts, substep.index, step.substeps),
        Phase::Pins => move_pins(parts, substep.index, step.substeps),
        Phase::ResetLambda => {}
        Phase::UpdateVelocity => move_particles(parts, step.motion, Pass::Update, step.parallel),
        Phase::LimitDepenetration => {
            let max_speed = step.params.max_depenetration_speed;
            parts.scratch.contacts.limit_depenetration_speed(&mut parts.state.v, max_speed, step.parallel);
        }
    }
}

/// The plan's constraints once, in order; `reset`: the iteration's first sweep of each type
/// takes λ as 0. `on_rows` says where the positions are (the rows or `state.x`).
fn run_iteration(parts: &mut Parts, step: &Step, substep: &SubstepInfo, reset: bool, on_rows: &mut bool) {
    let list = SUBSTEP.iteration;
    let fresh = |k: usize| reset && !list[..k].iter().any(|c| c.name() == list[k].name());
    let mut k = 0;
    while k < list.len() {
        let constraint = list[k];
        if !constraint.active(step) {
            k += 1;
            continue;
        }
        if constraint.on_rows() != *on_rows {
            let (s, x, w) = (&mut *parts.scratch, &mut parts.state.x, &parts.config.w);
            if *on_rows { from_rows(&s.rows, x, step.parallel) } else { to_rows(&mut s.rows, x, w, step.parallel) }
            *on_rows = constraint.on_rows();
        }
        if step.parallel && constraint.team().is_some() {
            // This and the following active team sweeps: one team for all of them.
            let end = (k..list.len()).find(|&j| list[j].active(step) && list[j].team().is_none()).unwrap_or(list.len());
            run_team_sweeps(parts, step, (k..end).filter(|&j| list[j].active(step)).map(|j| (list[j], fresh(j))));
            k = end;
        } else {
            constraint.solve(parts, step, substep, fresh(k));
            k += 1;
        }
    }
}

/// Team sweeps (each with its `fresh`) as one run of the current pool's threads.
fn run_team_sweeps(parts: &mut Parts, step: &Step, sweeps: impl Iterator<Item = (&'static dyn Constraint, bool)>) {
    let s = &mut *parts.scratch;
    let inputs = TeamInputs {
        layout: parts.layout,
        config: parts.config,
        k: &step.k,
        x_prev: &s.x_prev,
        stretch_lambda: SharedSlice::new(&mut s.stretch_lambda),
        bend_lambda: SharedSlice::new(&mut s.bend_lambda),
        tether_lambda: SharedSlice::new(&mut s.tether_lambda),
    };
    let mut work = IterationWork::new(inputs);
    for (constraint, fresh) in sweeps {
        work.push(constraint.team().expect("a team sweep"), fresh);
    }
    // SAFETY: the layout's indices were checked for these rows (`ConstraintLayout::rows_ready`),
    // its colourings are valid and its tethers built for these inverse masses
    // (`ConstraintLayout::build`); the particle bounds of each part are derived with the row
    // offsets.
    unsafe { run_team(&work, &mut s.rows) };
}
