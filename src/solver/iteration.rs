//! A run of consecutive team sweeps of one iteration (bending, both stretch sweeps, tethers) as
//! one team run's work: their colours one after the other, so that the pool's threads fork once
//! for all of them rather than once per sweep.

use super::sweeps::{TeamInputs, TeamSweep};
use crate::constraints::access::SharedPositions;
use crate::constraints::team::{ColourCut, TeamWork};

/// Team sweeps one iteration may chain (the plan lists fewer).
const MAX_SWEEPS: usize = 8;

/// The sweeps, each with whether it is its type's first of the substep (`fresh`: λ taken as 0).
pub(crate) struct IterationWork<'a> {
    pub inputs: TeamInputs<'a>,
    sweeps: [Option<(&'static dyn TeamSweep, bool)>; MAX_SWEEPS],
    /// Colours of the sweeps before each one, and of all (at `count`).
    first_colour: [usize; MAX_SWEEPS + 1],
    count: usize,
}

impl<'a> IterationWork<'a> {
    /// No sweeps yet.
    pub fn new(inputs: TeamInputs<'a>) -> Self {
        IterationWork { inputs, sweeps: [None; MAX_SWEEPS], first_colour: [0; MAX_SWEEPS + 1], count: 0 }
    }

    /// Append `sweep` (`fresh`: its type's first sweep of the substep).
    pub fn push(&mut self, sweep: &'static dyn TeamSweep, fresh: bool) {
        assert!(self.count < MAX_SWEEPS, "more team sweeps per iteration than {MAX_SWEEPS}");
        let colours = sweep.colours(&self.inputs);
        self.sweeps[self.count] = Some((sweep, fresh));
        self.first_colour[self.count + 1] = self.first_colour[self.count] + colours;
        self.count += 1;
    }

    /// The sweep that team colour `colour` belongs to, and the colour within it.
    fn sweep(&self, colour: usize) -> (&'static dyn TeamSweep, bool, usize) {
        let k = (0..self.count).find(|&k| colour < self.first_colour[k + 1]).expect("a colour of the work");
        let (sweep, fresh) = self.sweeps[k].expect("an appended sweep");
        (sweep, fresh, colour - self.first_colour[k])
    }
}

impl TeamWork for IterationWork<'_> {
    fn colours(&self) -> usize {
        self.first_colour[self.count]
    }

    fn cut(&self, colour: usize, parts: usize, cut: &mut ColourCut) {
        let (sweep, _, colour) = self.sweep(colour);
        sweep.cut(&self.inputs, colour, parts, cut);
    }

    unsafe fn project(&self, x: &mut SharedPositions<'_>, colour: usize, begin: usize, end: usize) {
        let (sweep, fresh, colour) = self.sweep(colour);
        // SAFETY: the caller's contract.
        unsafe { sweep.project(&self.inputs, x, colour, begin, end, fresh) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cloth::Cloth;
    use crate::constraints::SubstepCoefficients;
    use crate::constraints::access::{ColourReach, SolverParticle, pack_solver_particles};
    use crate::constraints::team::{SharedSlice, run_team_of};
    use crate::solver::SweepCoefficients;
    use crate::solver::sweeps::{Bending, Stretch, Tethers};
    use crate::{ClothDesc, World, WorldDesc};
    use glam::Vec3;

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
        assert!(!cloth.layout.tethers.particle.is_empty());
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
        check(&layout.stretch.edges, &layout.stretch.colour_start, layout.stretch.row_offsets.reach());
        check(&layout.bending.hinges, &layout.bending.colour_start, layout.bending.row_offsets.reach());
        assert!(layout.stretch.colour_start.len() > 8 && layout.bending.colour_start.len() > 8, "the cloth is coloured");
        let pool = rayon::ThreadPoolBuilder::new().num_threads(8).build().unwrap();
        let (edges, hinges, tethers) = (layout.stretch.edges.len(), layout.bending.hinges.len(), layout.tethers.particle.len());
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
                                let mut work = IterationWork::new(inputs);
                                work.push(&Bending, fresh);
                                work.push(&Stretch, fresh);
                                work.push(&Stretch, false);
                                work.push(&Tethers, fresh);
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
