//! A run of consecutive team stages of the step (motion passes, the pins' moves, team sweeps, in
//! the plan's order, across iterations and substeps) as the colours of one team run
//! (`constraints::team`): the pool's threads fork once for the whole run instead of once per
//! stage, and a member's look-ahead starts the next stage's range of its particles as soon as
//! the stages before it that touch them are done (docs/design.md, "Threads"). A team of one runs
//! the same colours in order on this thread.

use super::motion::{Motion, Pass};
use super::plan::SUBSTEP;
use super::sweeps::{TeamInputs, TeamSweep};
use crate::cloth::pins::Pins;
use crate::constraints::access::{Positions, SharedPositions};
use crate::constraints::team::{ColourCut, SharedSlice, TeamWork};
use glam::Vec3;

/// What a team stage does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TeamStage {
    /// The motion pass over every particle.
    Motion(Pass),
    /// The pins placed for the stage's substep.
    Pins,
    /// Sweep `k` of the plan's iteration ([`SUBSTEP`]); `fresh`: λ taken as 0.
    Sweep { k: usize, fresh: bool },
}

/// A team stage of a run, with the substep it belongs to and its first colour in the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    pub first_colour: u32,
    pub substep: u32,
    pub stage: TeamStage,
}

/// The colours of [`TeamStage`] `stage` (a motion pass or the pins' move is one).
pub(super) fn stage_colours(stage: TeamStage, inputs: &TeamInputs) -> usize {
    match stage {
        TeamStage::Motion(_) | TeamStage::Pins => 1,
        TeamStage::Sweep { k, .. } => team_sweep(k).colours(inputs),
    }
}

fn team_sweep(k: usize) -> &'static dyn TeamSweep {
    SUBSTEP.iteration[k].constraint.team().expect("a team stage is a team sweep")
}

/// The stages of one team run ([`Entry`], in order) and what they read and write.
pub(super) struct GroupWork<'a> {
    pub entries: &'a [Entry],
    /// All the entries' colours.
    pub colours: usize,
    pub sweeps: TeamInputs<'a>,
    /// Substeps of the step (1..=`MAX_SUBSTEPS`).
    pub substeps: u32,
    /// The per-particle motion of a substep (gravity, h, damping).
    pub motion: Motion,
    /// `scratch.x_prev` \[m\] and `state.v` \[m/s\], `Vec3[particle count]` each, when the run has
    /// motion passes (empty otherwise); the team's rows hold the positions.
    pub x_prev: SharedSlice<'a, Vec3>,
    pub v: SharedSlice<'a, Vec3>,
    /// The cloth's pins (sorted particle indices, start and target positions).
    pub pins: &'a Pins,
}

impl GroupWork<'_> {
    /// The entry team colour `colour` belongs to, and the colour within its stage.
    fn entry(&self, colour: usize) -> (Entry, usize) {
        let k = self.entries.partition_point(|e| e.first_colour as usize <= colour) - 1;
        let entry = self.entries[k];
        (entry, colour - entry.first_colour as usize)
    }
}

impl TeamWork for GroupWork<'_> {
    fn colours(&self) -> usize {
        self.colours
    }

    fn cut(&self, colour: usize, parts: usize, cut: &mut ColourCut) {
        let (entry, colour) = self.entry(colour);
        match entry.stage {
            // Equal ranges of particles, rounded to the motion pass's 16-particle blocks; a range
            // touches only its own particles' rows, `x_prev` and `v`.
            TeamStage::Motion(_) => {
                let n = self.x_prev.len();
                let start = |part: usize| if part >= parts { n } else { n * part / parts / 16 * 16 };
                cut.set(parts, start, |begin, end| Some((begin as u32, (end - 1) as u32)));
            }
            // Few: all in the first part, which touches the pinned particles (sorted) alone.
            TeamStage::Pins => {
                let pinned = &self.pins.particles;
                cut.set(parts, |part| if part == 0 { 0 } else { pinned.len() }, |begin, end| Some((pinned[begin], pinned[end - 1])));
            }
            TeamStage::Sweep { k, .. } => team_sweep(k).cut(&self.sweeps, colour, parts, cut),
        }
    }

    unsafe fn project(&self, x: &mut SharedPositions<'_>, colour: usize, begin: usize, end: usize) {
        let (entry, colour) = self.entry(colour);
        match entry.stage {
            TeamStage::Motion(pass) => {
                assert!(self.x_prev.len() == x.len() && self.v.len() == x.len(), "one row, x_prev and v per particle");
                // SAFETY: the team hands this range out once, and nothing touching these particles
                // runs meanwhile (the caller's contract; the range's bounds are its particles).
                let (rows, x_prev, v) = unsafe { (x.rows(begin, end), self.x_prev.range(begin, end), self.v.range(begin, end)) };
                self.motion.run(pass, rows, x_prev, v);
            }
            TeamStage::Pins => {
                for k in begin..end {
                    let i = self.pins.particles[k] as usize;
                    assert!(i < x.len(), "pin {i} beyond the cloth");
                    x.set(i, self.pins.position(k, entry.substep, self.substeps));
                }
            }
            // SAFETY: the caller's contract.
            TeamStage::Sweep { k, fresh } => unsafe { team_sweep(k).project(&self.sweeps, x, colour, begin, end, fresh) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cloth::Cloth;
    use crate::constraints::SubstepCoefficients;
    use crate::constraints::access::{ColourReach, SolverParticle, pack_solver_particles};
    use crate::constraints::team::run_team_of;
    use crate::solver::SweepCoefficients;
    use crate::{ClothDesc, World, WorldDesc};
    use crate::solver::motion::Motion;

    /// The bits of the rows and multipliers.
    fn bits(x: &[SolverParticle], lambda: &[&[f32]]) -> Vec<u32> {
        x.iter().flat_map(|p| p.to_array()).chain(lambda.iter().flat_map(|l| l.iter().copied())).map(f32::to_bits).collect()
    }

    /// A 72² grid cloth pinned at three corners, coloured.
    fn pinned_grid(n: usize) -> Cloth {
        let (positions, indices) = crate::test_util::grid(n, 0.1, 0.0);
        let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
        let handle = world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
        let mut cloth = world.remove_cloth(handle).unwrap();
        cloth.set_pinned(&[0, n as u32 - 1, (n * n - 1) as u32], None).unwrap();
        cloth.set_constraint_colouring(true);
        cloth.settle_layout(); // the tests below read and change the layout in place
        cloth
    }

    /// The solver's chain on a real crumpled cloth (bending, stretch twice, tethers), with and
    /// without damping, members 1, 2, 3, 8, against the sequential sweeps.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn the_solvers_chain_gives_the_sequential_bits_on_a_crumpled_cloth() {
        let n = 72;
        let mut cloth = pinned_grid(n);
        assert!(!cloth.layout.tethers.particle().is_empty());
        let mut u = crate::test_util::uniform(4242);
        let x_prev = cloth.state.x.clone();
        let xs: Vec<Vec3> = x_prev.iter().map(|p| *p + Vec3::new(u(), u(), u()) * 0.04).collect();
        let w = cloth.config.w.clone();
        let mut x0 = vec![SolverParticle::ZERO; xs.len()];
        pack_solver_particles(&xs, &w, &mut x0);
        let layout = std::sync::Arc::make_mut(&mut cloth.layout);
        assert!(layout.prepare_rows(x0.len()));
        // ColourReach on the real cloth: every non-empty colour known, bounds covering every part.
        fn check<const K: usize>(c: &[[u32; K]], start: &[u32], r: &ColourReach) {
            for (colour, w) in start.windows(2).enumerate() {
                let (b, e) = (w[0] as usize, w[1] as usize);
                for k in 0..(e - b).min(64) {
                    for l in (k + 1..=(e - b)).step_by(7) {
                        let got = r.bounds(c, colour, b + k, b + l).expect("known bounds");
                        let t = c[b + k..b + l].iter().flatten();
                        assert!(got.0 <= *t.clone().min().unwrap() && *t.max().unwrap() <= got.1);
                    }
                }
            }
        }
        check(layout.stretch.edges(), layout.stretch.colour_start(), layout.stretch.row_offsets().reach());
        check(layout.bending.hinges(), layout.bending.colour_start(), layout.bending.row_offsets().reach());
        assert!(layout.stretch.colour_start().len() > 8 && layout.bending.colour_start().len() > 8, "the cloth is coloured");
        let pool = rayon::ThreadPoolBuilder::new().num_threads(8).build().unwrap();
        let (edges, hinges, tethers) = (layout.stretch.edges().len(), layout.bending.hinges().len(), layout.tethers.particle().len());
        for damping in [0.0, 0.3] {
            for compliance in [0.0, 1e-4] {
                let k = SubstepCoefficients::new(1.0 / 600.0, damping);
                let coefficients = SweepCoefficients { stretch: k, bend: k, tether: k };
                cloth.config.stretch_compliance.fill(compliance);
                cloth.config.bend_compliance.fill(compliance * 10.0);
                cloth.config.params.tether_compliance = compliance;
                let (l, c) = (&*cloth.layout, &cloth.config);
                let (mut ls, mut lb, mut lt) = (vec![5.0; edges], vec![5.0; hinges], vec![5.0; tethers]);
                let mut xs = x0.clone();
                for it in 0..3 {
                    let fresh = it == 0;
                    unsafe {
                        l.bending.solve_in_bounds(&c.bend_compliance, &mut lb, &mut xs, &x_prev, &w, &k, fresh);
                        l.stretch.solve_in_bounds(&c.stretch_compliance, &mut ls, &mut xs, &x_prev, &w, &k, fresh);
                        l.stretch.solve_in_bounds(&c.stretch_compliance, &mut ls, &mut xs, &x_prev, &w, &k, false);
                        l.tethers.solve_in_bounds(&mut lt, &mut xs, &w, c.tether_factor, compliance, &k, fresh);
                    }
                }
                let expected = bits(&xs, &[&ls, &lb, &lt]);
                for members in [1, 2, 3, 8] {
                    for _ in 0..3 {
                        let (mut ls, mut lb, mut lt) = (vec![-2.0; edges], vec![-2.0; hinges], vec![-2.0; tethers]);
                        let mut xt = x0.clone();
                        pool.install(|| {
                            for it in 0..3 {
                                let fresh = it == 0;
                                let inputs = TeamInputs {
                                    layout: l,
                                    config: c,
                                    k: &coefficients,
                                    x_prev: &x_prev,
                                    stretch_lambda: SharedSlice::new(&mut ls),
                                    bend_lambda: SharedSlice::new(&mut lb),
                                    tether_lambda: SharedSlice::new(&mut lt),
                                };
                                // The plan's bending, stretch twice and tethers.
                                let tethers = SUBSTEP.iteration.iter().position(|s| s.constraint.name() == "tethers").unwrap();
                                let stages = [(0, fresh), (1, fresh), (2, false), (tethers, fresh)].map(|(k, fresh)| TeamStage::Sweep { k, fresh });
                                let mut entries = [Entry { first_colour: 0, substep: 0, stage: TeamStage::Pins }; 4];
                                let mut colours = 0;
                                for (entry, stage) in entries.iter_mut().zip(stages) {
                                    *entry = Entry { first_colour: colours as u32, substep: 0, stage };
                                    colours += stage_colours(stage, &inputs);
                                }
                                let pins = Pins::default();
                                let motion = Motion { dv: Vec3::ZERO, h: 1.0 / 600.0, velocity_scale: 1.0 };
                                let work = GroupWork { entries: &entries, colours, sweeps: inputs, substeps: 1, motion, x_prev: SharedSlice::new(&mut []), v: SharedSlice::new(&mut []), pins: &pins };
                                unsafe { run_team_of(&work, &mut xt, members) };
                            }
                        });
                        let got = bits(&xt, &[&ls, &lb, &lt]);
                        assert!(got == expected, "damping {damping} compliance {compliance} members {members}");
                    }
                }
            }
        }
    }
}
