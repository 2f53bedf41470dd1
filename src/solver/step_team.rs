//! A whole step of a cloth split over threads as one team run (`constraints::team`): the motion
//! passes, the pins' moves and every substep's sweeps are colours of one [`TeamWork`], so the
//! pool's threads fork once per step instead of twice per substep.
//!
//! Why: each fork-join cost the pool's second thread about 4 µs before it joined (128² grid,
//! measured per sweep when every sweep had its own team), 20 times per step at 10 substeps, and the
//! per-particle passes could not overlap the sweeps. Within one run the team's look-ahead starts
//! a range of the next substep's motion pass as soon as the sweeps that touch its particles are
//! done.
//!
//! For steps without wind, colliders, self-collision and inter-cloth pairs (their passes run on
//! `particles.x` between the sweeps), one iteration per substep, and without stretch or bending
//! damping: damped kernels read `x_prev`, which the motion passes write, and the kernels hold it as
//! a shared slice; undamped ones are handed an empty one and never read it. Other steps take the
//! per-iteration team (`step_cloth`).

use super::motion::{Motion, Pass};
use crate::cloth::pins::Pins;
use crate::constraints::access::{Positions, SharedPositions};
use crate::constraints::team::{ColourCut, SharedSlice, TeamWork};
use glam::Vec3;

/// One step: per substep the motion pass (the prediction; from the second substep on, fused with
/// the previous substep's velocity update), the pins' move, the sweeps of one iteration
/// (`constraints`, the same kernels every substep); then the last velocity update.
pub(super) struct StepWork<'a, C> {
    /// The sweeps of one iteration (bending, stretch twice, tethers), `fresh`: their first sweep
    /// of each substep takes λ as 0.
    pub constraints: C,
    pub substeps: u32,
    pub motion: Motion,
    /// `particles.x_prev` and `particles.v` (the rows are the team's positions).
    pub x_prev: SharedSlice<'a, Vec3>,
    pub v: SharedSlice<'a, Vec3>,
    pub particles: usize,
    pub pins: &'a Pins,
}

/// What a colour of [`StepWork`] is.
enum Phase {
    Motion(Pass),
    /// The pins placed for this substep.
    Pins(u32),
    /// This colour of the iteration's sweeps.
    Sweeps(usize),
}

impl<C: TeamWork> StepWork<'_, C> {
    /// Colours per substep: the motion pass, the pins, the sweeps.
    fn per_substep(&self) -> usize {
        2 + self.constraints.colours()
    }

    fn phase(&self, colour: usize) -> Phase {
        let (substep, k) = (colour / self.per_substep(), colour % self.per_substep());
        match k {
            _ if substep == self.substeps as usize => Phase::Motion(Pass::Update),
            0 if substep == 0 => Phase::Motion(Pass::Predict),
            0 => Phase::Motion(Pass::UpdateThenPredict),
            1 => Phase::Pins(substep as u32),
            _ => Phase::Sweeps(k - 2),
        }
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
            Phase::Motion(_) => {
                let n = self.particles;
                let start = |part: usize| if part >= parts { n } else { n * part / parts / 16 * 16 };
                cut.set(parts, start, |begin, end| Some((begin as u32, (end - 1) as u32)));
            }
            // Few: all in the first part, which touches the pinned particles (sorted) alone.
            Phase::Pins(_) => {
                let pinned = &self.pins.particles;
                cut.set(parts, |part| if part == 0 { 0 } else { pinned.len() }, |begin, end| Some((pinned[begin], pinned[end - 1])));
            }
            Phase::Sweeps(colour) => self.constraints.cut(colour, parts, cut),
        }
    }

    unsafe fn project(&self, x: &mut SharedPositions<'_>, colour: usize, begin: usize, end: usize) {
        match self.phase(colour) {
            Phase::Motion(pass) => {
                assert!(end <= self.particles && self.particles == x.len());
                // SAFETY: the team hands this range out once, and nothing touching these particles
                // runs meanwhile (the caller's contract; the range's bounds are its particles).
                let (rows, x_prev, v) = unsafe { (x.rows(begin, end), self.x_prev.range(begin, end), self.v.range(begin, end)) };
                self.motion.run(pass, rows, x_prev, v);
            }
            Phase::Pins(substep) => {
                for k in begin..end {
                    let i = self.pins.particles[k] as usize;
                    assert!(i < x.len(), "pin {i} beyond the cloth");
                    x.set(i, self.pins.position(k, substep, self.substeps));
                }
            }
            // SAFETY: the caller's contract.
            Phase::Sweeps(colour) => unsafe { self.constraints.project(x, colour, begin, end) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_step_is_the_prediction_then_per_substep_pins_sweeps_and_motion_then_the_last_update() {
        let (mut x_prev, mut v) = (vec![Vec3::ZERO; 3], vec![Vec3::ZERO; 3]);
        let pins = Pins::default();
        let motion = Motion { dv: Vec3::ZERO, h: 0.1, velocity_scale: 1.0 };
        let work = StepWork { constraints: TwoColours, substeps: 3, motion, x_prev: SharedSlice::new(&mut x_prev), v: SharedSlice::new(&mut v), particles: 3, pins: &pins };
        let phases: Vec<String> = (0..work.colours())
            .map(|c| match work.phase(c) {
                Phase::Motion(pass) => format!("{pass:?}"),
                Phase::Pins(substep) => format!("pins {substep}"),
                Phase::Sweeps(colour) => format!("sweeps {colour}"),
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
