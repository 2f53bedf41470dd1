//! One round of the strain limit ([`RoundWork`]): the round's violated edges in storage order, on
//! the stepping thread or colour by colour on a team of threads, each colour's share of them split
//! between the members. Either way the same bits.

use crate::constraints::StretchConstraints;
use crate::constraints::access::{Positions, SharedPositions};
use crate::constraints::team::{ColourCut, TeamWork};

/// The projections of one round ([`super::rounds`]): `candidates` (in storage order, so each
/// colour's are one run) projected in order. As team work, colour by colour: a colour's edges
/// share no particle, so each edge sees what the sequential round would have shown it (the
/// earlier colours' moves and none of its own colour's).
pub(super) struct RoundWork<'a> {
    pub stretch: &'a StretchConstraints,
    pub candidates: &'a [u32],
    /// An edge over `factor` + the rounds' tolerance is projected to `factor`.
    pub factor: f32,
    pub tolerance: f32,
}

impl RoundWork<'_> {
    /// Project `candidates[begin..end]` in order: each edge still over `factor` + `tolerance`
    /// when its turn comes (the earlier projections may have brought it within) is shortened to
    /// `factor` times its rest length.
    pub(super) fn project_candidates<P: Positions + ?Sized>(&self, x: &mut P, begin: usize, end: usize) {
        for &e in &self.candidates[begin..end] {
            if self.stretch.is_over(x, e as usize, self.factor + self.tolerance) {
                self.stretch.limit_edge(x, e as usize, self.factor);
            }
        }
    }

    /// The candidates of colour `colour`: `candidates[begin..end]`.
    fn of_colour(&self, colour: usize) -> (usize, usize) {
        let starts = self.stretch.colour_start();
        let at = |edge: u32| self.candidates.partition_point(|&e| e < edge);
        (at(starts[colour]), at(starts[colour + 1]))
    }
}

impl TeamWork for RoundWork<'_> {
    fn colours(&self) -> usize {
        self.stretch.colour_start().len().saturating_sub(1)
    }

    /// Equal shares of the colour's candidates; no particle bounds (a candidate list is scattered
    /// over the cloth), so a colour waits for every earlier one.
    fn cut(&self, colour: usize, parts: usize, cut: &mut ColourCut) {
        let (begin, end) = self.of_colour(colour);
        cut.set(parts, |part| begin + (end - begin) * part / parts, |_, _| None);
    }

    unsafe fn project(&self, x: &mut SharedPositions<'_>, _: usize, begin: usize, end: usize) {
        self.project_candidates(x, begin, end);
    }
}

#[cfg(test)]
mod tests {
    use super::RoundWork;
    use crate::constraints::access::{SolverParticle, pack_solver_particles};
    use crate::constraints::team::run_team_of;
    use crate::constraints::test_grid::{bits, grid, noise};
    use glam::Vec3;

    /// A 40 × 30 grid stretched by 15 % and crumpled: a round of projections on teams of 1–4
    /// members gives the bits of the sequential loop over the same candidates (which an edge's
    /// projection changes: the order matters wherever two candidates share a particle).
    #[test]
    fn a_round_on_any_team_gives_the_bits_of_the_sequential_round() {
        let cloth = grid(40, 30, &[0, 39], true);
        let stretch = &cloth.layout.stretch;
        let mut noise = noise();
        let x: Vec<Vec3> = cloth.x.iter().map(|p| *p * 1.15 + Vec3::new(noise(), noise(), noise()) * 0.03).collect();
        let mut rows = vec![SolverParticle::ZERO; x.len()];
        pack_solver_particles(&x, &cloth.w, &mut rows);
        let (factor, tolerance) = (1.1, 1e-4);
        let candidates: Vec<u32> = (0..stretch.edges().len() as u32).filter(|&e| stretch.is_over(&rows[..], e as usize, factor)).collect();
        let shared = |e: &[u32; 2]| candidates.iter().filter(|&&c| stretch.edges()[c as usize].iter().any(|p| e.contains(p))).count() > 1;
        assert!(candidates.len() > stretch.edges().len() / 2, "{} of {} over", candidates.len(), stretch.edges().len());
        assert!(candidates.iter().any(|&e| shared(&stretch.edges()[e as usize])));

        let work = RoundWork { stretch, candidates: &candidates, factor, tolerance };
        let mut sequential = rows.clone();
        work.project_candidates(&mut sequential[..], 0, candidates.len());
        assert_ne!(bits(&sequential), bits(&rows), "the round moved nothing");
        for members in 1..=4 {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(members).build().unwrap();
            let mut team = rows.clone();
            // SAFETY: the grid's edges join its particles, and its colouring is valid.
            pool.install(|| unsafe { run_team_of(&work, &mut team, members) });
            let differ = bits(&team).iter().zip(bits(&sequential)).filter(|(a, b)| **a != *b).count();
            assert_eq!(differ, 0, "{members} members: {differ} particles differ from the sequential round");
        }
    }
}
