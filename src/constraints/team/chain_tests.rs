//! Team runs of chained sweeps against the sequential sweeps: adversarial colourings (tiny,
//! empty, single, unsorted colours, constraints that reach across every particle), every kind of
//! particle bounds (none, exact, too wide, [`ColourReach`]), several passes over one colour,
//! members that never join (the solver's own chain of sweeps on a real cloth is tested in
//! `solver::iteration`). Contributed by a review of the look-ahead; too slow for Miri, which runs
//! the tests in `tests.rs`.

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
    reach.prepare_reach(&pairs, start, particles as usize);
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
                                    Chain(SweepWork::new(&a, &a, pa, &start_a, &mut la), None::<SweepWork<'_, &AdversarialPairs>>),
                                    Some(SweepWork::new(&b, &b, pb, &start_b, &mut lb)),
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
