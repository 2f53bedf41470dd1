//! The one runner of the plan ([`SUBSTEP`]), for any team size: it walks the substeps' stages in
//! the plan's order and runs each consecutive run of team stages (motion passes, the pins' moves,
//! coloured sweeps, across iterations and substeps) as one team run of the pool's threads
//! ([`GroupWork`]), or in order on this thread when the cloth is not split (a team of one). The
//! stages that must be serial (wind, the frame's carry, the animated pose, the contact sweeps,
//! the depenetration limit) run on this thread between the team runs.
//!
//! Two rules change no bit: a substep's velocity update and the next substep's prediction are one
//! pass when nothing runs between them, and the positions stay in the sweeps' rows except around
//! the contact sweeps, which work on `state.x`. The motion passes join a team run only when the
//! kernels are undamped: damped kernels read `x_prev`, which the motion passes write.

use super::group::{Entry, GroupWork, TeamStage, stage_colours};
use super::motion::{Pass, move_particles};
use super::plan::{Phase, SUBSTEP};
use super::sweeps::{TeamInputs, place_pose};
use super::wind::apply_wind;
use super::{Parts, Step, SubstepInfo, from_rows, move_pins, to_rows};
use crate::constraints::team::{SharedSlice, run_team};

/// Team stages one team run holds at most (a longer run of them is cut into several: the same
/// bits, one more fork): 64 covers a 10-substep step of one iteration.
const MAX_GROUP: usize = 64;

/// What one place of a substep runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// A stage a team can run (on this thread alone when the cloth is not split).
    Team(TeamStage),
    /// The motion pass on this thread (split by particles), outside any team run.
    Motion(Pass),
    /// Sweep `k` of the plan's iteration on this thread.
    Sweep { k: usize, fresh: bool },
    /// A phase on this thread: wind, carry, the animated pose, the depenetration limit.
    Phase(Phase),
}

/// The stage at `slot` of `substep` (slots: the begin phases, the iterations' sweeps, the end
/// phases of [`SUBSTEP`]), None where nothing runs. `fused`: the velocity update and the next
/// prediction are one pass ([`Step::update_fuses_with_predict`]).
fn stage_at(step: &Step, fused: bool, substep: u32, slot: usize) -> Option<Stage> {
    let (begin, sweeps) = (SUBSTEP.begin.len(), SUBSTEP.iteration.len());
    let iteration_slots = step.iterations as usize * sweeps;
    let motion = |pass| if step.k.undamped() { Stage::Team(TeamStage::Motion(pass)) } else { Stage::Motion(pass) };
    if slot < begin {
        let phase = SUBSTEP.begin[slot];
        if !step.runs(phase) {
            return None;
        }
        return match phase {
            Phase::Predict if fused && substep > 0 => None, // in the last substep's fused pass
            Phase::Predict => Some(motion(Pass::Predict)),
            Phase::Pins => Some(Stage::Team(TeamStage::Pins)),
            Phase::ResetLambda => None, // the first iteration's first sweeps take λ as 0
            _ => Some(Stage::Phase(phase)),
        };
    }
    if slot < begin + iteration_slots {
        let (iteration, k) = ((slot - begin) / sweeps, (slot - begin) % sweeps);
        let sweep = &SUBSTEP.iteration[k];
        if !sweep.constraint.active(step) {
            return None;
        }
        let fresh = iteration == 0 && sweep.first_of_type && step.runs(Phase::ResetLambda);
        let team = sweep.constraint.team().is_some();
        return Some(if team { Stage::Team(TeamStage::Sweep { k, fresh }) } else { Stage::Sweep { k, fresh } });
    }
    let phase = SUBSTEP.end[slot - begin - iteration_slots];
    if !step.runs(phase) {
        return None;
    }
    Some(match phase {
        Phase::UpdateVelocity if fused && substep + 1 < step.substeps => motion(Pass::UpdateThenPredict),
        Phase::UpdateVelocity => motion(Pass::Update),
        _ => Stage::Phase(phase),
    })
}

/// The team stages waiting to run as one team, with their substeps.
struct Group {
    stages: [(u32, TeamStage); MAX_GROUP],
    len: usize,
}

/// Run the step's substeps (the rows hold the positions before and after).
pub(super) fn run(parts: &mut Parts, step: &Step) {
    let fused = step.update_fuses_with_predict();
    let slots = SUBSTEP.begin.len() + step.iterations as usize * SUBSTEP.iteration.len() + SUBSTEP.end.len();
    let mut group = Group { stages: [(0, TeamStage::Pins); MAX_GROUP], len: 0 };
    let mut on_rows = true;
    for substep in 0..step.substeps {
        for slot in 0..slots {
            let Some(stage) = stage_at(step, fused, substep, slot) else { continue };
            if let Stage::Team(team_stage) = stage {
                if group.len == MAX_GROUP {
                    run_group(parts, step, &mut group);
                }
                if !on_rows {
                    to_rows(&mut parts.scratch.rows, &parts.state.x, &parts.config.w, step.parallel);
                    on_rows = true;
                }
                group.stages[group.len] = (substep, team_stage);
                group.len += 1;
                continue;
            }
            run_group(parts, step, &mut group);
            let wants_rows = match stage {
                Stage::Sweep { k, .. } => SUBSTEP.iteration[k].constraint.on_rows(),
                _ => true,
            };
            if wants_rows != on_rows {
                let (s, x, w) = (&mut *parts.scratch, &mut parts.state.x, &parts.config.w);
                if on_rows { from_rows(&s.rows, x, step.parallel) } else { to_rows(&mut s.rows, x, w, step.parallel) }
                on_rows = wants_rows;
            }
            run_alone(stage, parts, step, substep);
        }
    }
    run_group(parts, step, &mut group);
    if !on_rows {
        to_rows(&mut parts.scratch.rows, &parts.state.x, &parts.config.w, step.parallel);
    }
}

/// A stage outside any team run, on this thread (the positions where it wants them).
fn run_alone(stage: Stage, parts: &mut Parts, step: &Step, substep: u32) {
    match stage {
        Stage::Team(team_stage) => run_team_stage(team_stage, parts, step, substep),
        Stage::Motion(pass) => move_particles(parts, step.motion, pass, step.parallel),
        Stage::Sweep { k, fresh } => SUBSTEP.iteration[k].constraint.solve(parts, step, &SubstepInfo::new(step, substep), fresh),
        Stage::Phase(Phase::Wind) => {
            if let Some(aero) = &step.aerodynamics {
                apply_wind(parts, aero, step.h, step.parallel);
            }
        }
        Stage::Phase(Phase::Carry) => super::frame::carry_with_frame(parts, step, &SubstepInfo::new(step, substep)),
        Stage::Phase(Phase::Animate) => place_pose(parts, substep, step.substeps),
        Stage::Phase(Phase::LimitDepenetration) => {
            let max_speed = step.params.max_depenetration_speed;
            parts.scratch.contacts.limit_depenetration_speed(&mut parts.state.v, max_speed, step.parallel);
        }
        Stage::Phase(phase) => unreachable!("{phase:?} is not a phase on its own"),
    }
}

/// A team stage on this thread alone: the code a team runs in parts, in one piece.
fn run_team_stage(stage: TeamStage, parts: &mut Parts, step: &Step, substep: u32) {
    match stage {
        TeamStage::Motion(pass) => move_particles(parts, step.motion, pass, false),
        TeamStage::Pins => move_pins(parts, substep, step.substeps),
        TeamStage::Sweep { k, fresh } => SUBSTEP.iteration[k].constraint.solve(parts, step, &SubstepInfo::new(step, substep), fresh),
    }
}

/// The waiting team stages (if any) as one team run of the pool's threads when the cloth is
/// split, else in order on this thread; the group is empty after.
fn run_group(parts: &mut Parts, step: &Step, group: &mut Group) {
    let stages = &group.stages[..group.len];
    group.len = 0;
    if stages.is_empty() {
        return;
    }
    if !step.parallel {
        for &(substep, stage) in stages {
            run_team_stage(stage, parts, step, substep);
        }
        return;
    }
    let (s, state) = (&mut *parts.scratch, &mut *parts.state);
    let with_motion = stages.iter().any(|(_, stage)| matches!(stage, TeamStage::Motion(_)));
    // Motion passes write `x_prev`; a run with them has undamped kernels, which never read it.
    let (x_prev_read, x_prev_write): (&[_], &mut [_]) = if with_motion { (&[], &mut s.x_prev) } else { (&s.x_prev, &mut []) };
    let sweeps = TeamInputs {
        layout: parts.layout,
        config: parts.config,
        k: &step.k,
        x_prev: x_prev_read,
        stretch_lambda: SharedSlice::new(&mut s.stretch_lambda),
        bend_lambda: SharedSlice::new(&mut s.bend_lambda),
        tether_lambda: SharedSlice::new(&mut s.tether_lambda),
    };
    let mut entries = [Entry { first_colour: 0, substep: 0, stage: TeamStage::Pins }; MAX_GROUP];
    let mut colours = 0;
    for (entry, &(substep, stage)) in entries.iter_mut().zip(stages) {
        *entry = Entry { first_colour: colours as u32, substep, stage };
        colours += stage_colours(stage, &sweeps);
    }
    let v: &mut [_] = if with_motion { &mut state.v } else { &mut [] };
    let work = GroupWork {
        entries: &entries[..stages.len()],
        colours,
        sweeps,
        substeps: step.substeps,
        motion: step.motion,
        x_prev: SharedSlice::new(x_prev_write),
        v: SharedSlice::new(v),
        pins: &state.pins,
    };
    // SAFETY: the layout's indices were checked for these rows (`ConstraintLayout::rows_ready`),
    // its colourings are valid and its tethers' groups touch disjoint particles (one run per
    // particle, no constrained particle an anchor: `TetherConstraints` keeps both); the particle
    // bounds of each part are derived with the row offsets, and the motion and pin stages touch
    // only the particles of their bounds (`GroupWork::cut`).
    unsafe { run_team(&work, &mut s.rows) };
}
