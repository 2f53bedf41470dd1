use super::*;
use crate::constraints::access::Positions;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;

/// Pairs of particles coloured greedily (sizes from 0 to thousands, so some parts are empty
/// and some colours have a single constraint), with a nonlinear projection whose result
/// depends on the order of any two constraints that share a particle. Constraints are grouped
/// in threes that must not be split (like a particle's tethers); the kernel checks it.
struct PairSweep {
    pairs: Vec<[u32; 2]>,
    threads_seen: Mutex<Vec<Option<usize>>>,
}

/// Project `pairs[first..]` one at a time with multipliers `lambda`: a nonlinear update whose
/// result depends on the order of any two pairs that share a particle.
pub(crate) fn project_pairs<P: Positions + ?Sized>(pairs: &[[u32; 2]], first: usize, lambda: &mut [f32], x: &mut P) {
    for (c, lambda) in (first..).zip(lambda) {
        let [i, j] = pairs[c].map(|p| p as usize);
        let (a, b) = (x.get(i), x.get(j));
        let d = (a.x * 1.3 - b.y + *lambda).sin() * 0.1 + a.z * b.x * 0.01;
        x.add_row(i, SolverParticle::new(d, -d * 0.5, 0.25 * d * d, 0.0));
        x.add_row(j, SolverParticle::new(-d, d * d, 0.5 * d, 0.0));
        *lambda += d;
    }
}

impl Sweep for PairSweep {
    fn project_range<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
        project_pairs(&self.pairs, first, lambda, x);
    }

    fn project_disjoint<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
        assert!(self.can_split_before(first), "a part starts inside a group: {first}");
        self.threads_seen.lock().unwrap().push(rayon::current_thread_index());
        self.project_range(first, lambda, x);
    }

    fn can_split_before(&self, c: usize) -> bool {
        c.is_multiple_of(3)
    }
}

/// One sweep of `s` by a team of `members`.
///
/// # Safety
/// As [`run_team`].
unsafe fn project_colours_with_members<S: Sweep>(s: &S, x: &mut [SolverParticle], lambda: &mut [f32], colour_start: &[u32], members: usize) {
    let work = SweepWork::new(s, s, 1, colour_start, lambda);
    // SAFETY: the caller's contract.
    unsafe { run_team_of(&work, x, members) }
}

/// `colour_start` of `pairs` sorted by colour (in place), each colour a multiple of 3 long
/// except the last, whose groups of three pairs are disjoint.
fn colour_groups(pairs: &mut Vec<[u32; 2]>) -> Vec<u32> {
    let groups: Vec<[[u32; 2]; 3]> = pairs.chunks_exact(3).map(|g| [g[0], g[1], g[2]]).collect();
    // Per colour: its groups and the particles they use.
    type Colour = (Vec<[[u32; 2]; 3]>, std::collections::HashSet<u32>);
    let mut colours: Vec<Colour> = Vec::new();
    for g in groups {
        let particles: Vec<u32> = g.iter().flatten().copied().collect();
        match colours.iter_mut().find(|(_, used)| particles.iter().all(|p| !used.contains(p))) {
            Some((members, used)) => {
                members.push(g);
                used.extend(particles);
            }
            None => colours.push((vec![g], particles.into_iter().collect())),
        }
    }
    pairs.clear();
    let mut start = vec![0];
    for (members, _) in colours {
        pairs.extend(members.iter().flatten());
        start.push(pairs.len() as u32);
    }
    start.push(pairs.len() as u32); // an empty colour at the end
    start
}

/// A seeded generator of integers below `n` (a 64-bit linear congruential generator: the same
/// draws on every run and platform).
pub(super) fn lcg(seed: u64) -> impl FnMut(u32) -> u32 {
    let mut s = seed;
    move |n| {
        s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((s >> 33) % n as u64) as u32
    }
}

/// [`PAIRS`] pairs in groups of three that share no particle: each group's six particles from
/// `draw`, drawn again until they are distinct.
fn disjoint_triples(mut draw: impl FnMut() -> [u32; 6]) -> Vec<[u32; 2]> {
    let mut pairs = Vec::new();
    while pairs.len() < PAIRS {
        let p = draw();
        let mut sorted = p;
        sorted.sort_unstable();
        if sorted.windows(2).all(|w| w[0] != w[1]) {
            pairs.extend([[p[0], p[1]], [p[2], p[3]], [p[4], p[5]]]);
        }
    }
    pairs
}

/// Particles and pairs of [`scene`] (fewer under Miri, which runs the tests ~1000× slower).
const PARTICLES: u32 = if cfg!(miri) { 300 } else { 4_000 };
const PAIRS: usize = if cfg!(miri) { 240 } else { 9_000 };

/// [`PAIRS`] / 3 groups of three pairs among [`PARTICLES`] particles, pairs within a group
/// disjoint.
fn scene() -> (PairSweep, Vec<u32>, Vec<SolverParticle>) {
    let mut next = lcg(7);
    let mut pairs = disjoint_triples(|| std::array::from_fn(|_| next(PARTICLES)));
    let colour_start = colour_groups(&mut pairs);
    let x = (0..PARTICLES).map(|i| SolverParticle::new(i as f32 * 0.001, (i % 7) as f32, (i % 13) as f32 * 0.1, 1.0)).collect();
    (PairSweep { pairs, threads_seen: Mutex::new(Vec::new()) }, colour_start, x)
}

fn bits(x: &[SolverParticle], lambda: &[f32]) -> Vec<u32> {
    x.iter().flat_map(|p| p.to_array()).chain(lambda.iter().copied()).map(f32::to_bits).collect()
}

/// Run `test` on its own thread and fail if it has not finished within a minute (what these
/// tests guard against is a team waiting for ever), or with its panic.
fn within_a_minute(test: fn()) {
    if cfg!(miri) {
        // Miri's clock runs with the interpreted instructions: a minute passes too soon.
        return test();
    }
    let (done, finished) = std::sync::mpsc::channel();
    let runner = std::thread::spawn(move || {
        test();
        done.send(()).unwrap();
    });
    match finished.recv_timeout(std::time::Duration::from_secs(60)) {
        Ok(()) => runner.join().unwrap(),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            std::panic::resume_unwind(runner.join().expect_err("the test panicked"))
        }
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("the team sweep hung (> 60 s)"),
    }
}

/// Three sweeps by a team on a pool of `threads`, from the scene's start.
fn team_sweeps(threads: usize) -> (Vec<u32>, PairSweep) {
    let (s, colour_start, mut x) = scene();
    let mut lambda = vec![0.0; s.pairs.len()];
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| {
        for _ in 0..3 {
            // SAFETY: `colour_groups` puts no particle twice in a colour.
            unsafe { project_colours_with_members(&s, &mut x, &mut lambda, &colour_start, threads.min(MAX_MEMBERS)) };
        }
    });
    (bits(&x, &lambda), s)
}

#[test]
fn team_sweeps_give_the_bits_of_the_sequential_sweep_for_any_pool_size() {
    let (s, colour_start, mut x) = scene();
    let sizes: Vec<u32> = colour_start.windows(2).map(|r| r[1] - r[0]).collect();
    let large = PAIRS as u32 / 12;
    assert!(sizes.len() > 5 && sizes.contains(&0) && sizes.iter().any(|&n| n > large), "colour sizes {sizes:?}");
    assert!(sizes.iter().any(|&n| n > 0 && n < 3 * MAX_PARTS as u32), "a colour with empty parts: {sizes:?}");
    let mut lambda = vec![0.0; s.pairs.len()];
    for _ in 0..3 {
        s.project_range(0, &mut lambda, &mut x[..]);
    }
    let sequential = bits(&x, &lambda);
    let pools: &[usize] = if cfg!(miri) { &[1, 2, 3] } else { &[1, 2, 3, 8, 16] };
    for &threads in pools {
        let (team, s) = team_sweeps(threads);
        assert_eq!(team, sequential, "{threads} threads");
        // Every non-empty part of every colour was projected once per sweep.
        let parts = threads.min(MAX_MEMBERS) * PARTS_PER_MEMBER;
        let non_empty = (0..colour_start.len() - 1)
            .flat_map(|c| (0..parts).map(move |p| (c, p)))
            .filter(|&(c, p)| part_start(&s, &colour_start, parts, c, p) < part_start(&s, &colour_start, parts, c, p + 1))
            .count();
        assert_eq!(s.threads_seen.lock().unwrap().len(), 3 * non_empty, "{threads} threads");
    }
}

/// [`PairSweep`] over pairs of nearby particles, each colour sorted by lowest particle, with
/// exact [`Sweep::particle_bounds`]: the look-ahead starts parts of the next colour early.
/// While set, the member that moves the base on waits before it hands the finished colour's
/// slot on, so that the others see the new base with the slot still tagged with the old
/// colour (a window that is otherwise a few instructions wide).
static SLOW_HANDOVER: AtomicBool = AtomicBool::new(false);

pub(super) fn slow_handover() {
    if SLOW_HANDOVER.load(Ordering::Relaxed) {
        // A spin, not yields: on a loaded machine each yield can give a whole time slice away.
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_micros(20) {
            std::hint::spin_loop();
        }
    }
}

/// Records the start and end of every part it projects (its first constraint, and whether it
/// is the start).
struct LocalPairs(PairSweep, Mutex<Vec<(usize, bool)>>);

impl Sweep for LocalPairs {
    fn project_range<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
        self.0.project_range(first, lambda, x);
    }
    fn project_disjoint<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
        self.1.lock().unwrap().push((first, true));
        self.0.project_disjoint(first, lambda, x);
        self.1.lock().unwrap().push((first, false));
    }
    fn can_split_before(&self, c: usize) -> bool {
        self.0.can_split_before(c)
    }
    fn particle_bounds(&self, _colour: usize, begin: usize, end: usize) -> Option<(u32, u32)> {
        let touched = self.0.pairs[begin..end].iter().flatten();
        Some((*touched.clone().min().unwrap(), *touched.max().unwrap()))
    }
}

#[test]
fn look_ahead_gives_the_bits_of_the_sequential_sweep() {
    let (mut s, _, x0) = scene();
    // Pairs of particles at most 40 apart, in groups of three disjoint pairs.
    let mut next = lcg(11);
    let mut pairs = disjoint_triples(|| {
        let base = next(PARTICLES - 40);
        std::array::from_fn(|_| base + next(40))
    });
    let colour_start = colour_groups(&mut pairs);
    // Groups sorted by lowest particle within each colour.
    for range in colour_start.windows(2) {
        let colour = &mut pairs[range[0] as usize..range[1] as usize];
        let mut groups: Vec<[[u32; 2]; 3]> = colour.chunks_exact(3).map(|g| [g[0], g[1], g[2]]).collect();
        groups.sort_by_key(|g| *g.iter().flatten().min().unwrap());
        colour[..groups.len() * 3].copy_from_slice(groups.as_flattened());
    }
    s.pairs = pairs;
    let s = LocalPairs(s, Mutex::new(Vec::new()));
    let (mut x, mut lambda) = (x0.clone(), vec![0.0; s.0.pairs.len()]);
    for _ in 0..3 {
        s.project_range(0, &mut lambda, &mut x[..]);
    }
    let sequential = bits(&x, &lambda);
    let colour_of = |c: usize| colour_start.partition_point(|&start| start as usize <= c) - 1;
    // One team run from `x0`, then two more: the bits of the sequential sweep, and whether a part
    // started while a part of an earlier colour had not ended.
    let run = |threads: usize| -> bool {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let (mut x, mut lambda) = (x0.clone(), vec![0.0; s.0.pairs.len()]);
        pool.install(|| {
            // SAFETY: `colour_groups` puts no particle twice in a colour; the bounds are exact.
            unsafe { project_colours_with_members(&s, &mut x, &mut lambda, &colour_start, threads.min(MAX_MEMBERS)) };
        });
        let (mut open, mut ran_ahead): (Vec<usize>, bool) = (Vec::new(), false);
        for (first, start) in std::mem::take(&mut *s.1.lock().unwrap()) {
            let colour = colour_of(first);
            if start {
                ran_ahead |= open.iter().any(|&c| c < colour);
                open.push(colour);
            } else {
                open.remove(open.iter().position(|&c| c == colour).unwrap());
            }
        }
        pool.install(|| {
            for _ in 0..2 {
                // SAFETY: as above.
                unsafe { project_colours_with_members(&s, &mut x, &mut lambda, &colour_start, threads.min(MAX_MEMBERS)) };
            }
        });
        s.1.lock().unwrap().clear();
        assert_eq!(bits(&x, &lambda), sequential, "{threads} threads, slow hand-over {}", SLOW_HANDOVER.load(Ordering::Relaxed));
        ran_ahead
    };
    let mut ran_ahead = 0;
    for (threads, slow) in [(2, false), (3, false), (8, false), (2, true), (3, true)] {
        SLOW_HANDOVER.store(slow, Ordering::Relaxed);
        for _ in 0..if cfg!(miri) { 1 } else { 20 } {
            ran_ahead += run(threads) as usize;
        }
    }
    SLOW_HANDOVER.store(false, Ordering::Relaxed);
    // Whether a member runs ahead is up to the scheduler: on a loaded machine (the test suite's
    // other threads) the 100 runs above may all be serial in effect, so run more until one does.
    for _ in 0..if cfg!(miri) { 0 } else { 2000 } {
        if ran_ahead > 0 {
            break;
        }
        ran_ahead += run(2) as usize;
    }
    assert!(cfg!(miri) || ran_ahead > 0, "no part ever started before an earlier colour ended");
}

#[test]
fn parts_tile_each_colour_and_halve_within_a_members_share() {
    /// Splits anywhere, so that part boundaries are exactly the aligned shares.
    struct Anywhere;
    impl Sweep for Anywhere {
        fn project_range<P: Positions + ?Sized>(&self, _: usize, _: &mut [f32], _: &mut P) {}
    }
    for members in 1..=MAX_MEMBERS {
        let parts = members * PARTS_PER_MEMBER;
        for len in [0u32, 1, 7, 8, 100, 1000, 4096, 10_007] {
            let colour_start = [5, 5 + len];
            let start = |p| part_start(&Anywhere, &colour_start, parts, 0, p);
            assert_eq!((start(0), start(parts)), (5, 5 + len as usize));
            for p in 0..parts {
                assert!(start(p) <= start(p + 1), "{members} members, {len}: part {p}");
                assert_eq!((start(p) - 5) % PART_ALIGN, 0, "{members} members, {len}: part {p}");
            }
            // Within a member's share each part is about half of what is left (up to the
            // alignment): ½, ¼, …, and the last two equal.
            let share = len as usize / members;
            if share >= 64 * PART_ALIGN {
                for m in 0..members {
                    let size = |k: usize| start(m * PARTS_PER_MEMBER + k + 1) - start(m * PARTS_PER_MEMBER + k);
                    for k in 0..PARTS_PER_MEMBER {
                        let expected = share >> (k + 1).min(PARTS_PER_MEMBER - 1);
                        assert!(size(k).abs_diff(expected) <= 2 * PART_ALIGN, "{members}, {len}: member {m} part {k}");
                    }
                }
            }
        }
    }
}

#[test]
fn both_threads_of_a_two_thread_pool_take_parts() {
    // Practically always on the first try; a thread slow to wake may miss one sweep, and on a
    // machine busy with other work (the other tests, a Miri run) it missed 20 tries once.
    let shared = (0..500).any(|_| {
        let seen = team_sweeps(2).1.threads_seen.into_inner().unwrap();
        seen.contains(&Some(0)) && seen.contains(&Some(1))
    });
    assert!(shared, "one thread projected every part of 500 × 3 sweeps");
}

#[test]
fn a_member_whose_thread_is_busy_is_not_waited_for() {
    // The pool's other thread spins outside the team until the sweep is over: the team's
    // second member (a job on the sweeping thread's deque) can only run after it. Waiting for
    // that member would hang; the sweeping thread must claim every part itself.
    within_a_minute(a_member_whose_thread_is_busy_is_not_waited_for_body);
}

fn a_member_whose_thread_is_busy_is_not_waited_for_body() {
    let (s, colour_start, mut x) = scene();
    let mut lambda = vec![0.0; s.pairs.len()];
    let (mut x_alone, mut lambda_alone) = (x.clone(), lambda.clone());
    s.project_range(0, &mut lambda_alone, &mut x_alone[..]);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let swept = AtomicBool::new(false);
    pool.install(|| {
        rayon::join(
            || wait_while(|| !swept.load(Ordering::Acquire)),
            || {
                // SAFETY: `colour_groups` puts no particle twice in a colour.
                unsafe { project_colours_with_members(&s, &mut x, &mut lambda, &colour_start, 2) };
                swept.store(true, Ordering::Release);
            },
        )
    });
    assert_eq!(bits(&x, &lambda), bits(&x_alone, &lambda_alone));
    let seen = s.threads_seen.into_inner().unwrap();
    let first = seen[0];
    assert!(seen.iter().all(|&t| t == first), "parts projected on {seen:?}");
}

#[test]
fn a_panic_in_a_part_reaches_the_caller_instead_of_hanging_the_team() {
    within_a_minute(a_panic_in_a_part_reaches_the_caller_body);
}

fn a_panic_in_a_part_reaches_the_caller_body() {
    /// [`PairSweep`] that panics at one constraint of a colour in the middle.
    struct Panicking(PairSweep, usize);
    impl Sweep for Panicking {
        fn project_range<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
            assert!(!(first..first + lambda.len()).contains(&self.1), "injected panic");
            self.0.project_range(first, lambda, x);
        }
        fn can_split_before(&self, c: usize) -> bool {
            self.0.can_split_before(c)
        }
    }
    let (s, colour_start, mut x) = scene();
    let mut lambda = vec![0.0; s.pairs.len()];
    let target = colour_start[3] as usize + 5;
    let s = Panicking(s, target);
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // SAFETY: `colour_groups` puts no particle twice in a colour.
            pool.install(|| unsafe { project_colours_with_members(&s, &mut x, &mut lambda, &colour_start, threads) })
        }));
        let message = result.expect_err("the kernel's panic");
        assert_eq!(message.downcast_ref::<&str>(), Some(&"injected panic"), "{threads} threads");
    }
}
