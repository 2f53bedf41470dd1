//! The colours of one sweep projected by a team of threads with one fork-join per sweep rather
//! than one per colour.
//!
//! Each colour is cut into [`PARTS_PER_MEMBER`] parts per team member; member `m` claims its own
//! parts of every colour first (so a thread keeps the same particles, in cache, colour after
//! colour: constraints are ordered by particle within a colour), then takes the others' last
//! parts if it runs ahead. A member that has nothing left to claim in a colour waits until every
//! part of it is finished, then moves to the next colour. Claims and the colour in progress share
//! one atomic word, so a late claim can never land in the next colour.
//!
//! Why: with a `rayon::join` tree per colour a 128² cloth paid about 40 fork-joins per substep
//! (18 hinge colours, 2 × 11 edge colours, the tethers), each with its own wake-up and its own
//! tail, and the two threads took different pieces of consecutive colours.
//!
//! No deadlock: a member only ever waits for parts another member has *claimed*, and a claimed part
//! is plain arithmetic with no wait inside. Members that never start (their thread is busy with
//! another cloth) leave their parts to whoever is there; a member that starts after the sweep
//! finished returns at once; a member that panics ends the sweep for all ([`PoisonOnUnwind`]).
//! Since a colour's constraints share no particle, the bits are those of the sequential sweep
//! whatever the team size or the order in which parts are claimed. The tests below also run under
//! Miri (`.ci/miri-team.sh`), which checks the shared writes for data races. Measurements: README,
//! Performance, "Two cores".

use super::access::{SharedPositions, SolverParticle};
use super::sweep::Sweep;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Parts of each colour per team member: more parts let a member that runs ahead take work from
/// one that fell behind (preempted, slower core); each part costs one atomic claim.
const PARTS_PER_MEMBER: usize = 4;

/// Parts per colour at most: the claims of a colour are one bit each in the low half of
/// [`ColourTeam::state`].
const MAX_PARTS: usize = 32;

/// Members per team at most.
const MAX_MEMBERS: usize = MAX_PARTS / PARTS_PER_MEMBER;

/// Part boundaries are rounded down to this many constraints from the colour's start, so that a
/// part's lane-wise batches (16, 8 or 4 constraints) are those of the whole colour and only the
/// colour's last part has a remainder (a partial batch, `sweep::project_padded`). Which batches a
/// part takes changes no bit, only how many lanes are wasted on padding.
const PART_ALIGN: usize = 16;

/// Spins before a waiting member starts yielding its core: it matters when the pool has more
/// threads than the machine has cores (a claimed part's thread may be waiting for a core); on two
/// threads of two cores perf counts 1.6 % of the samples in yields after such long waits.
const SPINS_BEFORE_YIELD: u32 = 1 << 12;

/// Project the colours of `colour_start` (offsets of colour ranges, as in [`super::sweep::sweep`])
/// in order, each colour's parts spread over the current rayon pool.
///
/// # Safety
/// The contract of [`SharedPositions::new`]: every particle index the kernel uses is
/// `< x.len()`, and each colour range touches pairwise disjoint particles (constraints of one
/// colour share no particle they write, and particles they only read are written by none).
pub(crate) unsafe fn project_colours_as_team<S: Sweep>(s: &S, x: &mut [SolverParticle], lambda: &mut [f32], colour_start: &[u32]) {
    // SAFETY: the caller's contract.
    unsafe { project_colours_with_members(s, x, lambda, colour_start, team_size(rayon::current_num_threads())) }
}

/// Members of a team on a pool of `pool_threads`: one per thread, but no more than the machine
/// has cores (a member without a core of its own only makes the others wait for it: 100 steps of
/// the 128² grid on a pool of 8 threads on 2 cores took 2.40–2.56 s with 8 members and 1.39–1.65 s
/// with 2, on 64 threads 2.23–2.61 and 1.85 s) and than [`MAX_MEMBERS`]. Which threads join
/// changes no bit. The core count is read from the OS once per process, on the first split sweep
/// (`no_allocation` warms up before it counts); later calls read the cached value.
fn team_size(pool_threads: usize) -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let cores = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    pool_threads.min(cores).clamp(1, MAX_MEMBERS)
}

/// [`project_colours_as_team`] with a team of `members` (1 ≤ members ≤ [`MAX_MEMBERS`]) on the
/// current rayon pool.
///
/// # Safety
/// As [`project_colours_as_team`].
unsafe fn project_colours_with_members<S: Sweep>(
    s: &S,
    x: &mut [SolverParticle],
    lambda: &mut [f32],
    colour_start: &[u32],
    members: usize,
) {
    assert!((1..=MAX_MEMBERS).contains(&members));
    let team = ColourTeam {
        s,
        colour_start,
        // SAFETY: the caller's contract (indices in bounds, disjoint particles within a colour).
        x: unsafe { SharedPositions::new(x) },
        lambda: SharedMultipliers { ptr: lambda.as_mut_ptr(), len: lambda.len(), _borrow: PhantomData },
        parts: members * PARTS_PER_MEMBER,
        state: AtomicU64::new(0),
        finished: AtomicUsize::new(0),
        joined: AtomicUsize::new(0),
    };
    fork(&team, members);
}

/// Run `team` on `n` members: this thread and `n − 1` rayon jobs (`join` keeps its jobs on the
/// stack: no allocation). A job nobody steals is run here after the sweep, and returns at once.
fn fork<S: Sweep>(team: &ColourTeam<S>, n: usize) {
    if n <= 1 {
        team.run();
    } else {
        rayon::join(|| team.run(), || fork(team, n - 1));
    }
}

/// The shared progress of one sweep.
struct ColourTeam<'a, S> {
    s: &'a S,
    colour_start: &'a [u32],
    x: SharedPositions<'a>,
    lambda: SharedMultipliers<'a>,
    /// Parts per colour, `members × PARTS_PER_MEMBER` ≤ [`MAX_PARTS`]; `fork` starts exactly
    /// `members` runs, so every member owns [`PARTS_PER_MEMBER`] of them.
    parts: usize,
    /// The colour in progress in the high 32 bits, its claimed parts as a bit mask in the low 32.
    state: AtomicU64,
    /// Parts finished so far, over all colours (colour c is complete at `(c + 1) × parts`).
    finished: AtomicUsize,
    /// Members started so far: the next one's index.
    joined: AtomicUsize,
}

impl<S: Sweep> ColourTeam<'_, S> {
    fn colours(&self) -> usize {
        self.colour_start.len() - 1
    }

    /// One member: claim and project parts until the last colour is complete.
    fn run(&self) {
        let member = self.joined.fetch_add(1, Ordering::Relaxed);
        debug_assert!((member + 1) * PARTS_PER_MEMBER <= self.parts, "more runs than members");
        let _poison = PoisonOnUnwind(&self.state);
        loop {
            let state = self.state.load(Ordering::Acquire);
            let colour = (state >> 32) as usize;
            if colour >= self.colours() {
                return;
            }
            match self.claim(state, member) {
                Some((colour, part)) => self.project_part(colour, part),
                None => wait_while(|| (self.state.load(Ordering::Acquire) >> 32) as usize == colour),
            }
        }
    }

    /// Claim a part of the colour in progress: `member`'s own lowest unclaimed part, else the
    /// highest unclaimed part of the colour (another member's last). None once every part of the
    /// colour is claimed (or the colour has moved on).
    fn claim(&self, mut state: u64, member: usize) -> Option<(usize, usize)> {
        let all = (1u64 << self.parts) - 1;
        let own = ((1u64 << PARTS_PER_MEMBER) - 1) << (member * PARTS_PER_MEMBER);
        let colour = state >> 32;
        loop {
            let free = !state & all;
            if free == 0 {
                return None;
            }
            let part = if free & own != 0 { (free & own).trailing_zeros() } else { 63 - free.leading_zeros() };
            match self.state.compare_exchange_weak(state, state | 1 << part, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return Some((colour as usize, part as usize)),
                Err(now) if now >> 32 == colour => state = now,
                Err(_) => return None,
            }
        }
    }

    /// Project `part` of `colour`; the member finishing the colour's last part opens the next
    /// colour (Release: the next colour's members see every position this colour wrote).
    fn project_part(&self, colour: usize, part: usize) {
        let (begin, end) = (self.part_start(colour, part), self.part_start(colour, part + 1));
        if begin < end {
            let mut x = self.x;
            // SAFETY: every part is claimed once per sweep, and parts are disjoint ranges.
            let lambda = unsafe { self.lambda.range(begin, end) };
            self.s.project_disjoint(begin, lambda, &mut x);
        }
        let finished = self.finished.fetch_add(1, Ordering::AcqRel) + 1;
        if finished == (colour + 1) * self.parts {
            // `fetch_max` rather than `store`: a poisoned state ([`PoisonOnUnwind`]) stays so.
            self.state.fetch_max(((colour + 1) as u64) << 32, Ordering::Release);
        }
    }

    fn part_start(&self, colour: usize, part: usize) -> usize {
        part_start(self.s, self.colour_start, self.parts, colour, part)
    }
}

/// First constraint of `part` of `colour` when each colour is cut into `parts` (`part == parts`
/// gives the colour's end), [`PARTS_PER_MEMBER`] per member: each member's even share of the
/// colour halved part by part (½, ¼, …, the last two equal), rounded down to [`PART_ALIGN`] and
/// moved forward to a point where the sweep may split. A member that runs ahead takes the
/// others' last parts, the smallest, so the members finish a colour close together: with equal
/// parts the one that finished last had waited, on average, half a part (1/16 of a colour on two
/// threads) for the other.
fn part_start<S: Sweep>(s: &S, colour_start: &[u32], parts: usize, colour: usize, part: usize) -> usize {
    let (begin, end) = (colour_start[colour] as usize, colour_start[colour + 1] as usize);
    if part >= parts {
        return end;
    }
    let (members, member, k) = (parts / PARTS_PER_MEMBER, part / PARTS_PER_MEMBER, part % PARTS_PER_MEMBER);
    let share_start = |m: usize| (end - begin) * m / members;
    let share = share_start(member + 1) - share_start(member);
    let offset = share_start(member) + (share - (share >> k));
    let mut start = begin + offset / PART_ALIGN * PART_ALIGN;
    while start > begin && start < end && !s.can_split_before(start) {
        start += 1;
    }
    start
}

/// Ends the sweep for every member if this one unwinds (a panic in a kernel): its claimed part
/// would never finish, and the others would wait for it for ever. They return at once instead, and
/// the panic reaches the caller through `rayon::join` (and the C boundary's `catch_unwind`) rather
/// than hanging the step.
struct PoisonOnUnwind<'a>(&'a AtomicU64);

impl Drop for PoisonOnUnwind<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // Colour u32::MAX is past any sweep's last colour.
            self.0.store(u64::MAX, Ordering::Release);
        }
    }
}

/// Spin while `busy()` holds, yielding the core after [`SPINS_BEFORE_YIELD`] spins.
fn wait_while(busy: impl Fn() -> bool) {
    let mut spins = 0u32;
    while busy() {
        if spins < SPINS_BEFORE_YIELD {
            spins += 1;
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

/// The sweep's multipliers, handed out as the disjoint ranges of claimed parts.
struct SharedMultipliers<'a> {
    ptr: *mut f32,
    len: usize,
    _borrow: PhantomData<&'a mut [f32]>,
}

// SAFETY: the ranges handed out are disjoint (each part is claimed once), so no element is reached
// from two threads.
unsafe impl Sync for SharedMultipliers<'_> {}

impl SharedMultipliers<'_> {
    /// `lambda[begin..end]`.
    ///
    /// # Safety
    /// No other live reference overlaps the range (each part is claimed once per sweep).
    #[allow(clippy::mut_from_ref)]
    unsafe fn range(&self, begin: usize, end: usize) -> &mut [f32] {
        assert!(begin <= end && end <= self.len);
        // SAFETY: in bounds of the live borrow (checked above); exclusive by the contract.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(begin), end - begin) }
    }
}

#[cfg(test)]
mod tests {
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

    impl Sweep for PairSweep {
        fn project_range<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
            for (c, lambda) in (first..).zip(lambda) {
                let [i, j] = self.pairs[c].map(|p| p as usize);
                let (a, b) = (x.get(i), x.get(j));
                let d = (a.x * 1.3 - b.y + *lambda).sin() * 0.1 + a.z * b.x * 0.01;
                x.add_row(i, SolverParticle::new(d, -d * 0.5, 0.25 * d * d, 0.0));
                x.add_row(j, SolverParticle::new(-d, d * d, 0.5 * d, 0.0));
                *lambda += d;
            }
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

    /// Particles and pairs of [`scene`] (fewer under Miri, which runs the tests ~1000× slower).
    const PARTICLES: u32 = if cfg!(miri) { 300 } else { 4_000 };
    const PAIRS: usize = if cfg!(miri) { 240 } else { 9_000 };

    /// [`PAIRS`] / 3 groups of three pairs among [`PARTICLES`] particles, pairs within a group
    /// disjoint.
    fn scene() -> (PairSweep, Vec<u32>, Vec<SolverParticle>) {
        let mut seed = 7u64;
        let mut next = |n: u32| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 33) % n as u64) as u32
        };
        let mut pairs = Vec::new();
        while pairs.len() < PAIRS {
            let p: [u32; 6] = std::array::from_fn(|_| next(PARTICLES));
            let mut sorted = p;
            sorted.sort_unstable();
            if sorted.windows(2).all(|w| w[0] != w[1]) {
                pairs.extend([[p[0], p[1]], [p[2], p[3]], [p[4], p[5]]]);
            }
        }
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
}
