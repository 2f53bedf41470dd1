//! Team runs of chained sweeps against the sequential sweeps: adversarial colourings (tiny,
//! empty, single, unsorted colours, constraints that reach across every particle), every kind of
//! particle bounds (none, exact, too wide, [`ColourReach`]), several passes over one colour,
//! members that never join; and the solver's own chain (bending, stretch twice, tethers) on a
//! crumpled cloth with damping and stale multipliers. Contributed by a review of the look-ahead;
//! too slow for Miri, which runs the tests in `tests.rs`.

use super::tests::lcg;
use super::*;
use crate::constraints::access::{Positions, RowOffsets};
use std::sync::atomic::AtomicU32;

/// Pairs with the team tests' nonlinear, order-dependent projection (`project_pairs`); checks
/// that no particle is touched by two parts at once. `mode(colour)` picks the bounds: 0 none, 1 exact, 2 widened, 3 ColourReach.
struct AdversarialPairs {
    pairs: Vec<[u32; 2]>,
    reach: RowOffsets<2>,
    mode: fn(usize) -> u8,
    busy: Vec<AtomicU32>,
    overlaps: AtomicU32,
}

impl Sweep for AdversarialPairs {
    fn project_range<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
        super::tests::project_pairs(&self.pairs, first, lambda, x);
    }
    fn project_disjoint<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
        let range = first..first + lambda.len();
        for c in range.clone() {
            for p in self.pairs[c] {
                if self.busy[p as usize].fetch_add(1, Ordering::SeqCst) != 0 {
                    self.overlaps.fetch_add(1, Ordering::SeqCst);
                }
            }
        }
        std::thread::yield_now();
        self.project_range(first, lambda, x);
        for c in range {
            for p in self.pairs[c] {
                self.busy[p as usize].fetch_sub(1, Ordering::SeqCst);
            }
        }
    }
    fn particle_bounds(&self, colour: usize, begin: usize, end: usize) -> Option<(u32, u32)> {
        let touched = self.pairs[begin..end].iter().flatten();
        let exact = (*touched.clone().min().unwrap(), *touched.max().unwrap());
        match (self.mode)(colour) {
            0 => None,
            1 => Some(exact),
            2 => Some((exact.0.saturating_sub(3), exact.1.saturating_add(1 << 20))),
            _ => {
                let b = self.reach.reach().bounds(&self.pairs, colour, begin, end);
                if let Some((lo, hi)) = b {
                    assert!(lo <= exact.0 && exact.1 <= hi, "ColourReach under-approximates");
                }
                b
            }
        }
    }
}

/// A colouring: `sizes[c]` pairs per colour (0 allowed), pairs of nearby (`span`) particles,
/// disjoint within a colour, sorted by lowest index within a colour if `sorted`.
fn colouring(seed: u64, particles: u32, span: u32, sizes: &[usize], sorted: bool) -> (Vec<[u32; 2]>, Vec<u32>) {
    let mut next = lcg(seed);
    let mut pairs = Vec::new();
    let mut start = vec![0u32];
    for &n in sizes {
        let mut used = std::collections::HashSet::new();
        let mut colour = Vec::new();
        let mut tries = 0;
        while colour.len() < n && tries < 100_000 {
            tries += 1;
            let a = next(particles - span);
            let b = a + 1 + next(span - 1);
            let p = if next(2) == 0 { [a, b] } else { [b, a] };
            if used.contains(&a) || used.contains(&b) {
                continue;
            }
            used.insert(a);
            used.insert(b);
            colour.push(p);
        }
        if sorted {
            colour.sort_by_key(|p| *p.iter().min().unwrap());
        }
        pairs.extend(colour);
        start.push(pairs.len() as u32);
    }
    (pairs, start)
}

/// [`AdversarialPairs`] with the reach of their colouring derived.
fn adversarial(pairs: Vec<[u32; 2]>, start: &[u32], particles: u32, mode: fn(usize) -> u8) -> AdversarialPairs {
    let mut reach = RowOffsets::<2>::with_capacity(0);
    reach.prepare_reach(&pairs, start);
    AdversarialPairs { pairs, reach, mode, busy: (0..particles).map(|_| AtomicU32::new(0)).collect(), overlaps: AtomicU32::new(0) }
}

/// `passes` sweeps of `s` over its colours, one constraint at a time.
fn sequential(s: &AdversarialPairs, start: &[u32], passes: usize, x: &mut [SolverParticle], lambda: &mut [f32]) {
    for _ in 0..passes {
        for r in start.windows(2) {
            let (b, e) = (r[0] as usize, r[1] as usize);
            s.project_range(b, &mut lambda[b..e], &mut x[..]);
        }
    }
}

/// The bits of the rows and multipliers.
fn bits(x: &[SolverParticle], lambda: &[&[f32]]) -> Vec<u32> {
    x.iter().flat_map(|p| p.to_array()).chain(lambda.iter().flat_map(|l| l.iter().copied())).map(f32::to_bits).collect()
}

#[test]
#[cfg_attr(miri, ignore)]
fn adversarial_colourings_in_chains_give_the_sequential_bits_for_any_member_count() {
    const P: u32 = 3000;
    let x0: Vec<SolverParticle> = (0..P).map(|i| SolverParticle::new(i as f32 * 0.001, (i % 7) as f32, (i % 13) as f32 * 0.1, 1.0)).collect();
    let mut next = lcg(99);
    let tiny: Vec<usize> = (0..150).map(|_| next(6) as usize).collect();
    let mixed: Vec<usize> = (0..40).map(|k| if k % 5 == 0 { 0 } else if k % 7 == 0 { 600 } else { next(200) as usize }).collect();
    let one = vec![700usize];
    let two = vec![500usize, 0, 450];
    let big = vec![900usize; 6];
    // Per scenario, for sweeps A and B: colour sizes, sorted by particle, particle span of a
    // pair, passes.
    type Sweeps<'a> = (&'a [usize], bool, u32, usize, &'a [usize], bool, u32, usize);
    let scenarios: Vec<Sweeps> = vec![
        (&tiny, true, 20, 2, &one, true, 40, 3),
        (&mixed, true, 60, 2, &two, true, 8, 4),
        (&one, true, 30, 5, &tiny, true, 2999, 1),
        (&big, true, 2999, 2, &mixed, false, 50, 2),
        (&two, true, 5, 3, &big, true, 10, 2),
        (&mixed, false, 30, 1, &one, false, 30, 2),
    ];
    let modes: [fn(usize) -> u8; 4] = [|_| 3, |c| (c % 4) as u8, |c| if c % 5 == 2 { 0 } else { 1 }, |_| 1];
    let pool = rayon::ThreadPoolBuilder::new().num_threads(8).build().unwrap();
    let small_pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut runs = 0;
    for (si, &(sa, soa, spa, pa, sb, sob, spb, pb)) in scenarios.iter().enumerate() {
        for (mi, &mode) in modes.iter().enumerate() {
            let (pairs_a, start_a) = colouring(si as u64 * 7 + 1, P, spa, sa, soa);
            let (pairs_b, start_b) = colouring(si as u64 * 7 + 2, P, spb, sb, sob);
            let a = adversarial(pairs_a, &start_a, P, mode);
            let b = adversarial(pairs_b, &start_b, P, mode);
            let (mut x, mut la, mut lb) = (x0.clone(), vec![0.0f32; a.pairs.len()], vec![0.0f32; b.pairs.len()]);
            for _ in 0..2 {
                sequential(&a, &start_a, pa, &mut x, &mut la);
                sequential(&b, &start_b, pb, &mut x, &mut lb);
            }
            let expected = bits(&x, &[&la, &lb]);
            for members in [1, 2, 3, 8] {
                for p in [&pool, &small_pool] {
                    for _ in 0..3 {
                        let (mut x, mut la, mut lb) = (x0.clone(), vec![0.0f32; a.pairs.len()], vec![0.0f32; b.pairs.len()]);
                        p.install(|| {
                            for _ in 0..2 {
                                let work = Chain(
                                    Chain(SweepWork::new(&a, &a, pa, ColourStarts::Ranges(&start_a), &mut la), None::<SweepWork<'_, &AdversarialPairs>>),
                                    Some(SweepWork::new(&b, &b, pb, ColourStarts::Ranges(&start_b), &mut lb)),
                                );
                                // SAFETY: indices < P, colours disjoint, bounds exact or wider.
                                unsafe { run_team_of(&work, &mut x, members) };
                            }
                        });
                        runs += 1;
                        assert_eq!(a.overlaps.load(Ordering::SeqCst) + b.overlaps.load(Ordering::SeqCst), 0, "scenario {si} mode {mi} members {members}: concurrent overlap");
                        assert!(bits(&x, &[&la, &lb]) == expected, "scenario {si} mode {mi} members {members}: bits differ");
                    }
                }
            }
        }
    }
    assert_eq!(runs, 6 * 4 * 4 * 2 * 3, "team runs compared");
}

/// The solver's chain on a real crumpled cloth (bending, stretch twice, tethers), with and
/// without damping, members 1, 2, 3, 8, against the sequential sweeps.
#[test]
#[cfg_attr(miri, ignore)]
fn the_solvers_chain_gives_the_sequential_bits_on_a_crumpled_cloth() {
    use crate::constraints::SubstepCoefficients;
    use crate::constraints::access::pack_solver_particles;
    use glam::Vec3;
    let n = 72;
    let mut cloth = crate::constraints::tests::grid_cloth(n, n);
    cloth.set_pinned(&[0, n as u32 - 1, (n * n - 1) as u32], None).unwrap();
    cloth.set_constraint_colouring(true);
    assert!(!cloth.tethers.particle.is_empty());
    let mut u = crate::test_util::uniform(4242);
    let x_prev = cloth.particles.x.clone();
    let xs: Vec<Vec3> = x_prev.iter().map(|p| *p + Vec3::new(u(), u(), u()) * 0.04).collect();
    let w = cloth.particles.w.clone();
    let mut x0 = vec![SolverParticle::ZERO; xs.len()];
    pack_solver_particles(&xs, &w, &mut x0);
    assert!(cloth.bending.prepare_rows(x0.len()) && cloth.stretch.prepare_rows(x0.len()) && cloth.tethers.prepare_rows(x0.len()));
    // ColourReach on the real cloth: every non-empty colour known, bounds covering every part.
    fn check<const K: usize>(c: &[[u32; K]], start: &[u32], r: &crate::constraints::access::ColourReach) {
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
    check(&cloth.stretch.edges, &cloth.stretch.colour_start, cloth.stretch.row_offsets.reach());
    check(&cloth.bending.hinges, &cloth.bending.colour_start, cloth.bending.row_offsets.reach());
    assert!(cloth.stretch.colour_start.len() > 8 && cloth.bending.colour_start.len() > 8, "the cloth is coloured");
    let pool = rayon::ThreadPoolBuilder::new().num_threads(8).build().unwrap();
    for damping in [0.0, 0.3] {
        for compliance in [0.0, 1e-4] {
            let k = SubstepCoefficients::new(1.0 / 600.0, damping);
            cloth.stretch.compliance.fill(compliance);
            cloth.bending.compliance.fill(compliance * 10.0);
            let mut seq = cloth.clone();
            seq.stretch.lambda.fill(5.0);
            seq.bending.lambda.fill(5.0);
            seq.tethers.lambda.fill(5.0);
            let mut xs = x0.clone();
            for it in 0..3 {
                let fresh = it == 0;
                unsafe {
                    seq.bending.solve_in_bounds(&mut xs, &x_prev, &w, &k, fresh);
                    seq.stretch.solve_in_bounds(&mut xs, &x_prev, &w, &k, fresh);
                    seq.stretch.solve_in_bounds(&mut xs, &x_prev, &w, &k, false);
                    seq.tethers.solve_in_bounds(&mut xs, &w, 1.0, compliance, &k, fresh);
                }
            }
            let expected = bits(&xs, &[&seq.stretch.lambda, &seq.bending.lambda, &seq.tethers.lambda]);
            for members in [1, 2, 3, 8] {
                for _ in 0..3 {
                    let mut team = cloth.clone();
                    team.stretch.lambda.fill(-2.0);
                    team.bending.lambda.fill(-2.0);
                    team.tethers.lambda.fill(-2.0);
                    let mut xt = x0.clone();
                    pool.install(|| {
                        for it in 0..3 {
                            let fresh = it == 0;
                            let b = Some(team.bending.team_work(&x_prev, &w, &k, fresh));
                            let s = Some(team.stretch.team_work(&x_prev, &w, &k, 2, fresh));
                            let t = Some(team.tethers.team_work(&w, 1.0, compliance, &k, fresh));
                            unsafe { run_team_of(&Chain(Chain(b, s), t), &mut xt, members) };
                        }
                    });
                    let got = bits(&xt, &[&team.stretch.lambda, &team.bending.lambda, &team.tethers.lambda]);
                    assert!(got == expected, "damping {damping} compliance {compliance} members {members}");
                }
            }
        }
    }
}
