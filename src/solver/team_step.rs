//! A whole step of a cloth split over threads as one team run (`constraints::team`): the plan's
//! substeps ([`SUBSTEP`]) with their motion passes, the pins' moves and the sweeps as the colours
//! of one [`TeamWork`], so the pool's threads fork once per step instead of twice per substep.
//!
//! Why: each fork-join cost the pool's second thread a few microseconds before it joined, twice
//! per substep, and the per-particle passes could not overlap the sweeps; within one run the
//! team's look-ahead starts a range of the next substep's motion pass as soon as the sweeps that
//! touch its particles are done (docs/design.md, "Threads").
//!
//! For steps whose every phase can be a team's colours ([`schedule`]): no wind, colliders,
//! self-collision or inter-cloth pairs (they run on `state.x` between the sweeps), one iteration
//! per substep, and no stretch or bending damping: damped kernels read `x_prev`, which the motion
//! passes write, and the kernels hold it as a shared slice; undamped ones are handed an empty one
//! and never read it. Other steps take the sequential runner ([`super::sequential`]).

use super::iteration::IterationWork;
use super::motion::{Motion, Pass};
use super::plan::{Phase, SUBSTEP};
use super::sweeps::TeamInputs;
use super::{Parts, Step};
use crate::cloth::pins::Pins;
use crate::constraints::access::{Positions, SharedPositions};
use crate::constraints::team::{ColourCut, SharedSlice, TeamWork, run_team};
use glam::Vec3;

/// What each colour of a substep is, in the plan's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Slot {
    /// The prediction (from the second substep on, fused with the last substep's velocity update).
    Motion,
    /// The pins placed for this substep.
    Pins,
    /// The colours of the iteration's sweeps.
    Sweeps,
}

/// A substep's slots in the plan's order (at most one per phase, no allocation).
struct Schedule {
    slots: [Slot; SUBSTEP.begin.len() + 1],
    len: usize,
}

impl Schedule {
    fn push(&mut self, slot: Slot) {
        self.slots[self.len] = slot;
        self.len += 1;
    }
}

/// A substep's slots, from the plan: None when an active phase cannot be a team's colours, or the
/// velocity update does not fuse with the next prediction.
fn schedule(step: &Step) -> Option<Schedule> {
    let mut schedule = Schedule { slots: [Slot::Sweeps; SUBSTEP.begin.len() + 1], len: 0 };
    for &phase in SUBSTEP.begin.iter().filter(|&&p| step.runs(p)) {
        match phase {
            Phase::Predict => schedule.push(Slot::Motion),
            Phase::Pins => schedule.push(Slot::Pins),
            Phase::ResetLambda => {}
            _ => return None,
        }
    }
    if !SUBSTEP.iteration.iter().filter(|c| c.active(step)).all(|c| c.team().is_some()) {
        return None;
    }
    schedule.push(Slot::Sweeps);
    let end_only_update = SUBSTEP.end.iter().filter(|&&p| step.runs(p)).all(|&p| p == Phase::UpdateVelocity);
    (end_only_update && step.update_fuses_with_predict()).then_some(schedule)
}

/// Run the whole step as one team if it can be ([`schedule`], one iteration, undamped) and return
/// true; else leave the cloth as it is and return false.
pub(super) fn run(parts: &mut Parts, step: &Step) -> bool {
    if !(step.parallel && step.iterations == 1 && step.k.undamped()) {
        return false;
    }
    let Some(schedule) = schedule(step) else { return false };
    let (s, state) = (&mut *parts.scratch, &mut *parts.state);
    let inputs = TeamInputs {
        layout: parts.layout,
        config: parts.config,
        k: &step.k,
        // Undamped kernels never read `x_prev`, which the motion passes write: they get none.
        x_prev: &[],
        stretch_lambda: SharedSlice::new(&mut s.stretch_lambda),
        bend_lambda: SharedSlice::new(&mut s.bend_lambda),
        tether_lambda: SharedSlice::new(&mut s.tether_lambda),
    };
    let mut sweeps = IterationWork::new(inputs);
    for (k, constraint) in SUBSTEP.iteration.iter().enumerate().filter(|(_, c)| c.active(step)) {
        let first_of_type = !SUBSTEP.iteration[..k].iter().any(|c| c.name() == constraint.name());
        sweeps.push(constraint.team().expect("checked by the schedule"), first_of_type);
    }
    let work = StepWork {
        constraints: sweeps,
        slots: &schedule.slots[..schedule.len],
        substeps: step.substeps,
        motion: step.motion,
        x_prev: SharedSlice::new(&mut s.x_prev),
        v: SharedSlice::new(&mut state.v),
        pins: &state.pins,
    };
    // SAFETY: as for the sequential runner's teams; the motion and pin phases touch only the
    // particles of their bounds (`StepWork::cut`).
    unsafe { run_team(&work, &mut s.rows) };
    true
}

/// One step: per substep the slots of the plan (the motion pass, the pins' move, the sweeps of
/// one iteration: `constraints`, the same every substep); then the last velocity update.
pub(super) struct StepWork<'a, C> {
    /// The sweeps of one iteration (bending, stretch twice, tethers), the first of each type
    /// `fresh`: they take λ as 0.
    pub constraints: C,
    /// What each colour of a substep is, the sweeps' colours counted as one slot.
    pub slots: &'a [Slot],
    /// Substeps of the step (1..=`MAX_SUBSTEPS`).
    pub substeps: u32,
    /// The per-particle motion of a substep (gravity, h, damping).
    pub motion: Motion,
    /// `scratch.x_prev` \[m\] and `state.v` \[m/s\], `Vec3[particle count]` each; the team's
    /// rows hold the positions.
    pub x_prev: SharedSlice<'a, Vec3>,
    pub v: SharedSlice<'a, Vec3>,
    /// The cloth's pins (sorted particle indices, start and target positions).
    pub pins: &'a Pins,
}

/// What a colour of [`StepWork`] is.
enum TeamPhase {
    Motion(Pass),
    /// The pins placed for this substep.
    Pins(u32),
    /// This colour of the iteration's sweeps.
    Sweeps(usize),
}

impl<C: TeamWork> StepWork<'_, C> {
    /// Colours per substep: the slots, the sweeps' slot as many as they have.
    fn per_substep(&self) -> usize {
        self.slots.len() - 1 + self.constraints.colours()
    }

    fn phase(&self, colour: usize) -> TeamPhase {
        let (substep, mut k) = (colour / self.per_substep(), colour % self.per_substep());
        if substep == self.substeps as usize {
            return TeamPhase::Motion(Pass::Update);
        }
        for &slot in self.slots {
            let colours = if slot == Slot::Sweeps { self.constraints.colours() } else { 1 };
            if k < colours {
                return match slot {
                    Slot::Motion if substep == 0 => TeamPhase::Motion(Pass::Predict),
                    Slot::Motion => TeamPhase::Motion(Pass::UpdateThenPredict),
                    Slot::Pins => TeamPhase::Pins(substep as u32),
                    Slot::Sweeps => TeamPhase::Sweeps(k),
                };
            }
            k -= colours;
        }
        unreachable!("colour {colour} beyond the substep's slots")
    }
}

impl<C: TeamWork> TeamWork for StepWork<'_, C> {
    fn colours(&self) -> usize {
        self.substeps as usize * self.per_substep() + 1
    }

    fn cut(&self, colour: usize, parts: usize, cut: &mut ColourCut) {
        match self.phase(colour) {
            // Equal ranges of particles, rounded to the motion pass's 16-particle blocks; a range
            // touches only its own particles' rows, `x_prev` and `v`.
            TeamPhase::Motion(_) => {
                let n = self.x_prev.len();
                let start = |part: usize| if part >= parts { n } else { n * part / parts / 16 * 16 };
                cut.set(parts, start, |begin, end| Some((begin as u32, (end - 1) as u32)));
            }
            // Few: all in the first part, which touches the pinned particles (sorted) alone.
            TeamPhase::Pins(_) => {
                let pinned = &self.pins.particles;
                cut.set(parts, |part| if part == 0 { 0 } else { pinned.len() }, |begin, end| Some((pinned[begin], pinned[end - 1])));
            }
            TeamPhase::Sweeps(colour) => self.constraints.cut(colour, parts, cut),
        }
    }

    unsafe fn project(&self, x: &mut SharedPositions<'_>, colour: usize, begin: usize, end: usize) {
        match self.phase(colour) {
            TeamPhase::Motion(pass) => {
                assert!(self.x_prev.len() == x.len() && self.v.len() == x.len(), "one row, x_prev and v per particle");
                // SAFETY: the team hands this range out once, and nothing touching these particles
                // runs meanwhile (the caller's contract; the range's bounds are its particles).
                let (rows, x_prev, v) = unsafe { (x.rows(begin, end), self.x_prev.range(begin, end), self.v.range(begin, end)) };
                self.motion.run(pass, rows, x_prev, v);
            }
            TeamPhase::Pins(substep) => {
                for k in begin..end {
                    let i = self.pins.particles[k] as usize;
                    assert!(i < x.len(), "pin {i} beyond the cloth");
                    x.set(i, self.pins.position(k, substep, self.substeps));
                }
            }
            // SAFETY: the caller's contract.
            TeamPhase::Sweeps(colour) => unsafe { self.constraints.project(x, colour, begin, end) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slots of the plan's substep for a step without wind, colliders or contacts.
    const PLAN_SLOTS: [Slot; 3] = [Slot::Motion, Slot::Pins, Slot::Sweeps];

    /// Two colours of sweeps that do nothing.
    struct TwoColours;

    impl TeamWork for TwoColours {
        fn colours(&self) -> usize {
            2
        }
        fn cut(&self, _colour: usize, parts: usize, cut: &mut ColourCut) {
            cut.set(parts, |_| 0, |_, _| None);
        }
        unsafe fn project(&self, _x: &mut SharedPositions<'_>, _colour: usize, _begin: usize, _end: usize) {}
    }

    /// Pairs of neighbouring particles (i, i + 1), even i in colour 0 and odd i in colour 1, with
    /// an order-dependent nonlinear projection and exact particle bounds.
    struct NeighbourPairs {
        particles: usize,
    }

    impl NeighbourPairs {
        fn first(&self, colour: usize) -> usize {
            colour
        }
        fn pairs(&self, colour: usize) -> usize {
            (self.particles - 1 - self.first(colour)).div_ceil(2)
        }
    }

    impl TeamWork for NeighbourPairs {
        fn colours(&self) -> usize {
            2
        }
        fn cut(&self, colour: usize, parts: usize, cut: &mut ColourCut) {
            let n = self.pairs(colour);
            let first = self.first(colour);
            cut.set(parts, |part| n * part.min(parts) / parts, |begin, end| Some(((first + 2 * begin) as u32, (first + 2 * (end - 1) + 1) as u32)));
        }
        unsafe fn project(&self, x: &mut SharedPositions<'_>, colour: usize, begin: usize, end: usize) {
            for k in begin..end {
                let i = self.first(colour) + 2 * k;
                let (a, b) = (x.get(i), x.get(i + 1));
                let d = ((a.y - b.x) * 1.7).sin() * 0.01;
                x.set(i, a + Vec3::new(d, -d, 0.5 * d));
                x.set(i + 1, b - Vec3::new(d * d, d, 0.0));
            }
        }
    }

    /// A step with sweeps, pins and motion, on teams of 1, 2 and 3 members: the same bits. Under
    /// Miri (`.ci/miri-team.sh`) also a check that the motion and pin phases' shared writes do not
    /// race.
    #[test]
    fn a_step_team_gives_the_bits_of_one_member_for_any_member_count() {
        use crate::constraints::access::SolverParticle;
        use crate::constraints::team::run_team_of;
        let n = if cfg!(miri) { 60 } else { 1000 };
        let pins = Pins {
            particles: vec![0, 7, n as u32 - 3],
            start: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
            target: vec![Vec3::Z, Vec3::X * 2.0, Vec3::NEG_Y],
        };
        let step = |members: usize| {
            let mut rows: Vec<SolverParticle> = (0..n).map(|i| SolverParticle::new(i as f32 * 0.01, (i % 5) as f32, 0.0, if i % 9 == 4 { 0.0 } else { 1.0 })).collect();
            for &p in &pins.particles {
                rows[p as usize].w = 0.0;
            }
            let mut x_prev: Vec<Vec3> = rows.iter().map(|r| r.truncate()).collect();
            let mut v = vec![Vec3::new(0.1, 0.0, -0.2); n];
            let motion = Motion { dv: Vec3::new(0.0, -0.098, 0.0), h: 0.01, velocity_scale: 0.999 };
            let work = StepWork { constraints: NeighbourPairs { particles: n }, slots: &PLAN_SLOTS, substeps: 3, motion, x_prev: SharedSlice::new(&mut x_prev), v: SharedSlice::new(&mut v), pins: &pins };
            let pool = rayon::ThreadPoolBuilder::new().num_threads(members).build().unwrap();
            // SAFETY: every particle index the work uses is < n; the pairs of a colour are disjoint
            // and their bounds exact.
            pool.install(|| unsafe { run_team_of(&work, &mut rows, members) });
            let floats = rows.iter().flat_map(|r| r.to_array()).chain(x_prev.iter().chain(&v).flat_map(|q| q.to_array()));
            floats.map(f32::to_bits).collect::<Vec<u32>>()
        };
        let one = step(1);
        for members in [2, 3] {
            assert_eq!(step(members), one, "{members} members");
        }
    }

    #[test]
    fn a_step_is_the_prediction_then_per_substep_pins_sweeps_and_motion_then_the_last_update() {
        let (mut x_prev, mut v) = (vec![Vec3::ZERO; 3], vec![Vec3::ZERO; 3]);
        let pins = Pins::default();
        let motion = Motion { dv: Vec3::ZERO, h: 0.1, velocity_scale: 1.0 };
        let work = StepWork { constraints: TwoColours, slots: &PLAN_SLOTS, substeps: 3, motion, x_prev: SharedSlice::new(&mut x_prev), v: SharedSlice::new(&mut v), pins: &pins };
        let phases: Vec<String> = (0..work.colours())
            .map(|c| match work.phase(c) {
                TeamPhase::Motion(pass) => format!("{pass:?}"),
                TeamPhase::Pins(substep) => format!("pins {substep}"),
                TeamPhase::Sweeps(colour) => format!("sweeps {colour}"),
            })
            .collect();
        let expected = [
            "Predict", "pins 0", "sweeps 0", "sweeps 1",
            "UpdateThenPredict", "pins 1", "sweeps 0", "sweeps 1",
            "UpdateThenPredict", "pins 2", "sweeps 0", "sweeps 1",
            "Update",
        ];
        assert_eq!(phases, expected);
    }
}
