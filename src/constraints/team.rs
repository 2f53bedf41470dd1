//! The colours of a substep's sweeps projected by a team of threads: one fork-join for all the
//! sweeps of an iteration (bending, both stretch sweeps, tethers: [`TeamWork`], [`Chain`]), or for
//! a whole step with its motion passes and pins (`solver::step_team`), rather than one per sweep
//! or per colour.
//!
//! Each colour is cut into [`PARTS_PER_MEMBER`] parts per team member; member `m` claims its own
//! parts of every colour first (so a thread keeps the same particles, in cache, colour after
//! colour: constraints are ordered by particle within a colour), then takes the others' last
//! parts if it runs ahead. Colours are projected in order per particle, not in lockstep: a member
//! that has no part of the oldest unfinished colour (the base) left may start its own parts of
//! the next [`SLOTS`] − 1 colours whose particles no unfinished part of an earlier colour touches
//! (by the parts' particle bounds, [`Sweep::particle_bounds`]; a kernel without bounds makes its
//! colours wait for everything before them). Only when nothing is ready does it wait.
//!
//! Why: with a `rayon::join` tree per colour a 128² cloth paid about 40 fork-joins per substep
//! (18 hinge colours, 2 × 11 edge colours, the tethers), each with its own wake-up and its own
//! tail. With one team per sweep, the second thread joined each sweep 4 µs late on average, and
//! the members waited at every colour's end for the slower one (about a tenth of the samples of a
//! 128² step on two threads).
//!
//! No deadlock: a member only ever waits while every part it could claim is claimed or blocked,
//! and the base colour's parts are never blocked; a claimed part is plain arithmetic with no wait
//! inside. Members that never start (their thread is busy with another cloth) leave their parts
//! to whoever is there; a member that starts after the work finished returns at once; a member
//! that panics ends the run for all ([`PoisonOnUnwind`]). Every particle's constraints run in
//! colour order and a colour's constraints share no particle, so the bits are those of the
//! sequential sweeps whatever the team size or the order in which parts are claimed. The tests
//! below also run under Miri (`.ci/miri-team.sh`), which checks the shared writes for data races.
//! Measurements: docs/performance-log.md (third set: the team of threads; ninth and tenth sets).

use super::access::{SharedPositions, SolverParticle};
use super::SubstepCoefficients;
use super::sweep::{DampedKernels, Sweep};
use glam::Vec3;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Parts of each colour per team member: more parts let a member that runs ahead take work from
/// one that fell behind (preempted, slower core); each part costs a claim, a finish and a read of
/// the shared words, a few cache-line transfers (about 7 % of the samples of a 128² step on two
/// threads with 4 parts). With the look-ahead a member that runs ahead mostly goes on to its own
/// parts of the next colours instead: 400 steps of 128² on two threads, 8 alternating runs,
/// median 1.580 s with 4 parts, 1.570 with 3, 1.580 with 2; 64² (1000 steps) 1.10 s with 4,
/// 1.06–1.08 with 3 and 2.
const PARTS_PER_MEMBER: usize = 3;

/// Parts per colour at most: the claims of a colour are one bit each in the low half of a slot
/// word ([`Words::claimed`]).
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

/// Run `work` ([`TeamWork`]: colours in order, each split between the members) on a team of the
/// current rayon pool's threads: one fork-join for all of it.
///
/// # Safety
/// The contract of [`SharedPositions::new`] for every kernel of `work`: every particle index is
/// `< x.len()`, each colour's constraints touch pairwise disjoint particles, and
/// the bounds of [`TeamWork::cut`] never miss a particle a range reads or writes.
pub(crate) unsafe fn run_team<W: TeamWork>(work: &W, x: &mut [SolverParticle]) {
    // SAFETY: the caller's contract.
    unsafe { run_team_of(work, x, team_size(rayon::current_num_threads())) }
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

/// [`run_team`] with a team of `members` (1 ≤ members ≤ [`MAX_MEMBERS`]) on the current rayon
/// pool.
///
/// # Safety
/// As [`run_team`].
unsafe fn run_team_of<W: TeamWork>(work: &W, x: &mut [SolverParticle], members: usize) {
    assert!((1..=MAX_MEMBERS).contains(&members));
    let team = ColourTeam {
        work,
        // SAFETY: the caller's contract (indices in bounds, disjoint particles within a colour).
        x: unsafe { SharedPositions::new(x) },
        parts: members * PARTS_PER_MEMBER,
        joined: AtomicUsize::new(0),
        words: Words {
            base: AtomicUsize::new(0),
            finished: std::array::from_fn(|k| AtomicU64::new((k as u64) << 32)),
            claimed: std::array::from_fn(|k| AtomicU64::new((k as u64) << 32)),
        },
    };
    fork(&team, members);
}

/// Run `team` on `n` members: this thread and `n − 1` rayon jobs (`join` keeps its jobs on the
/// stack: no allocation). A job nobody steals is run here after the sweep, and returns at once.
fn fork<W: TeamWork>(team: &ColourTeam<W>, n: usize) {
    if n <= 1 {
        team.run();
    } else {
        rayon::join(|| team.run(), || fork(team, n - 1));
    }
}

/// What a team works through: colours in order, each a range of constraints that share no
/// particle, cut into parts that the members claim.
pub(crate) trait TeamWork: Sync {
    /// Colours, in the order they are projected.
    fn colours(&self) -> usize;

    /// Cut `colour` into `parts` parts: their constraint ranges and the particles they touch.
    fn cut(&self, colour: usize, parts: usize, cut: &mut ColourCut);

    /// Project constraints `begin..end` of `colour`.
    ///
    /// # Safety
    /// Each range of a colour is projected once, by one member, after every earlier colour's
    /// ranges that touch its particles; ranges projected at the same time touch disjoint particles
    /// (the team's claims and look-ahead).
    unsafe fn project(&self, x: &mut SharedPositions<'_>, colour: usize, begin: usize, end: usize);
}

/// A colour cut into parts ([`TeamWork::cut`]).
#[derive(Clone, Copy)]
pub(crate) struct ColourCut {
    /// Part `p` is constraints `start[p]..start[p + 1]`.
    start: [usize; MAX_PARTS + 1],
    /// The particles each part touches.
    bounds: [Bounds; MAX_PARTS],
}

impl ColourCut {
    const EMPTY: ColourCut = ColourCut { start: [0; MAX_PARTS + 1], bounds: [Bounds::Empty; MAX_PARTS] };

    /// Cut constraints `colour_start[colour]..colour_start[colour + 1]` of sweep `s` ([`part_start`]).
    fn of_sweep<S: Sweep>(&mut self, s: &S, colour_start: &[u32], colour: usize, parts: usize) {
        self.set(parts, |part| part_start(s, colour_start, parts, colour, part), |begin, end| s.particle_bounds(colour, begin, end));
    }

    /// Part `p` (of `parts`) starts at `start(p)` (`start(parts)`: the colour's end; not
    /// decreasing in `p`), and its constraints `begin..end` touch the particles `bounds(begin,
    /// end)` ([`Sweep::particle_bounds`]).
    pub(crate) fn set(&mut self, parts: usize, start: impl Fn(usize) -> usize, bounds: impl Fn(usize, usize) -> Option<(u32, u32)>) {
        for part in 0..=parts {
            self.start[part] = start(part);
        }
        for part in 0..parts {
            let (begin, end) = (self.start[part], self.start[part + 1]);
            self.bounds[part] = if begin == end { Bounds::Empty } else { bounds(begin, end).map_or(Bounds::Unknown, |(lo, hi)| Bounds::Within(lo, hi)) };
        }
    }
}

/// Colour starts of a sweep.
pub(crate) enum ColourStarts<'a> {
    /// Offsets of the colour ranges (`u32[colour count + 1]`, as `colour_start`).
    Ranges(&'a [u32]),
    /// One colour of all constraints: `[0, constraint count]` (the tethers' groups).
    All([u32; 2]),
}

impl ColourStarts<'_> {
    fn as_slice(&self) -> &[u32] {
        match self {
            ColourStarts::Ranges(starts) => starts,
            ColourStarts::All(starts) => starts,
        }
    }
}

/// A sweep kernel's colours as [`TeamWork`], `passes` times over (the stretch sweeps run twice
/// per iteration): the first pass with kernel `first`, the others with `later` (they differ in
/// whether λ is taken as 0, `fresh`).
pub(crate) struct SweepWork<'a, S> {
    first: S,
    later: S,
    passes: usize,
    colour_start: ColourStarts<'a>,
    lambda: SharedSlice<'a, f32>,
}

impl<'a, S: Sweep> SweepWork<'a, S> {
    /// `lambda`: the multipliers of every constraint (`f32[constraint count]`).
    pub(crate) fn new(first: S, later: S, passes: usize, colour_start: ColourStarts<'a>, lambda: &'a mut [f32]) -> Self {
        SweepWork { first, later, passes, colour_start, lambda: SharedSlice::new(lambda) }
    }

    fn colours_per_pass(&self) -> usize {
        self.colour_start.as_slice().len().saturating_sub(1)
    }

    /// The kernel and pass-local colour of team colour `colour`.
    fn kernel(&self, colour: usize) -> (&S, usize) {
        let n = self.colours_per_pass();
        (if colour < n { &self.first } else { &self.later }, colour % n)
    }
}

impl<S: Sweep> TeamWork for SweepWork<'_, S> {
    fn colours(&self) -> usize {
        self.passes * self.colours_per_pass()
    }

    fn cut(&self, colour: usize, parts: usize, cut: &mut ColourCut) {
        let (kernel, colour) = self.kernel(colour);
        cut.of_sweep(kernel, self.colour_start.as_slice(), colour, parts);
    }

    unsafe fn project(&self, x: &mut SharedPositions<'_>, colour: usize, begin: usize, end: usize) {
        // SAFETY: a range is projected once per pass, and ranges projected at the same time touch
        // disjoint particles, so hold different constraints (the caller's contract).
        let lambda = unsafe { self.lambda.range(begin, end) };
        self.kernel(colour).0.project_disjoint(begin, lambda, x);
    }
}

/// The sweeps of [`super::sweep::solve_damped`] (`passes` sweeps in a row, the first one `fresh`)
/// as work for a team of threads ([`run_team`], whose contract is `solve_damped`'s). The
/// constraints must be coloured (a cloth is split over threads only then): panics otherwise.
pub(crate) fn damped_team_work<'a, C: DampedKernels>(
    constraints: &'a mut C,
    x_prev: &'a [Vec3],
    w: &'a [f32],
    k: &'a SubstepCoefficients,
    passes: usize,
    fresh: bool,
) -> impl TeamWork + 'a {
    if k.undamped() {
        let (kernel, colour_start, lambda) = constraints.kernel::<false>(x_prev, w, k, fresh);
        Either::Left(SweepWork::new(kernel, C::not_fresh(kernel), passes, coloured(colour_start, lambda), lambda))
    } else {
        let (kernel, colour_start, lambda) = constraints.kernel::<true>(x_prev, w, k, fresh);
        Either::Right(SweepWork::new(kernel, C::not_fresh(kernel), passes, coloured(colour_start, lambda), lambda))
    }
}

/// The colour starts of constraints split over threads. Uncoloured, the team would skip them (no
/// colours): never so, as the solver splits only coloured cloths, and checked since the cost is
/// one comparison per step.
fn coloured<'a>(colour_start: Option<&'a [u32]>, lambda: &[f32]) -> ColourStarts<'a> {
    assert!(colour_start.is_some() || lambda.is_empty(), "uncoloured constraints split over threads");
    ColourStarts::Ranges(colour_start.unwrap_or(&[]))
}

/// Two [`TeamWork`]s one after the other: the colours of `.0`, then those of `.1` (colour `c` of
/// the chain is `.1`'s colour `c − .0.colours()` from there on).
pub(crate) struct Chain<A, B>(pub A, pub B);

impl<A: TeamWork, B: TeamWork> TeamWork for Chain<A, B> {
    fn colours(&self) -> usize {
        self.0.colours() + self.1.colours()
    }

    fn cut(&self, colour: usize, parts: usize, cut: &mut ColourCut) {
        let n = self.0.colours();
        if colour < n { self.0.cut(colour, parts, cut) } else { self.1.cut(colour - n, parts, cut) }
    }

    unsafe fn project(&self, x: &mut SharedPositions<'_>, colour: usize, begin: usize, end: usize) {
        let n = self.0.colours();
        // SAFETY: the caller's contract.
        unsafe {
            if colour < n { self.0.project(x, colour, begin, end) } else { self.1.project(x, colour - n, begin, end) }
        }
    }
}

/// Work that may be left out (no colours).
impl<W: TeamWork> TeamWork for Option<W> {
    fn colours(&self) -> usize {
        self.as_ref().map_or(0, W::colours)
    }

    fn cut(&self, colour: usize, parts: usize, cut: &mut ColourCut) {
        if let Some(w) = self {
            w.cut(colour, parts, cut);
        }
    }

    unsafe fn project(&self, x: &mut SharedPositions<'_>, colour: usize, begin: usize, end: usize) {
        if let Some(w) = self {
            // SAFETY: the caller's contract.
            unsafe { w.project(x, colour, begin, end) }
        }
    }
}

/// One of two [`TeamWork`]s (a kernel with or without damping).
pub(crate) enum Either<A, B> {
    Left(A),
    Right(B),
}

impl<A: TeamWork, B: TeamWork> TeamWork for Either<A, B> {
    fn colours(&self) -> usize {
        match self {
            Either::Left(a) => a.colours(),
            Either::Right(b) => b.colours(),
        }
    }

    fn cut(&self, colour: usize, parts: usize, cut: &mut ColourCut) {
        match self {
            Either::Left(a) => a.cut(colour, parts, cut),
            Either::Right(b) => b.cut(colour, parts, cut),
        }
    }

    unsafe fn project(&self, x: &mut SharedPositions<'_>, colour: usize, begin: usize, end: usize) {
        // SAFETY: the caller's contract.
        unsafe {
            match self {
                Either::Left(a) => a.project(x, colour, begin, end),
                Either::Right(b) => b.project(x, colour, begin, end),
            }
        }
    }
}

/// The shared progress of one team run. Aligned to cache lines, with the words the members
/// write in lines of their own ([`Words`]): the fields every part reads (`work`, `x`, `parts`)
/// would otherwise be evicted from a member's cache at every claim or finish of the other's.
#[repr(align(64))]
struct ColourTeam<'a, W> {
    work: &'a W,
    x: SharedPositions<'a>,
    /// Parts per colour, `members × PARTS_PER_MEMBER` ≤ [`MAX_PARTS`]; `fork` starts exactly
    /// `members` runs, so every member owns [`PARTS_PER_MEMBER`] of them.
    parts: usize,
    /// Members started so far: the next one's index.
    joined: AtomicUsize,
    words: Words,
}

/// The words of a [`ColourTeam`] that members write while it runs.
#[repr(align(64))]
struct Words {
    /// The oldest colour with an unfinished part (every earlier colour is finished); members claim
    /// parts of it and of the [`SLOTS`] − 1 colours after it. `usize::MAX` once poisoned
    /// ([`PoisonOnUnwind`]).
    base: AtomicUsize,
    /// Finished parts of the base colour and the ones after it, colour `c` in slot `c % SLOTS`:
    /// the colour in the high 32 bits (a slot is handed to colour `c + SLOTS` once `c` is
    /// finished), its finished parts as a bit mask in the low 32.
    finished: [AtomicU64; SLOTS],
    /// Claimed parts, slotted and tagged as `finished`.
    claimed: [AtomicU64; SLOTS],
}

/// Colours in progress at once: the base and up to `SLOTS − 1` after it (the look-ahead).
const SLOTS: usize = 4;

/// What a waiting member watches: the base colour and every slot word.
#[derive(Clone, Copy, PartialEq)]
struct Progress {
    base: usize,
    finished: [u64; SLOTS],
    claimed: [u64; SLOTS],
}

impl<W: TeamWork> ColourTeam<'_, W> {
    fn colours(&self) -> usize {
        self.work.colours()
    }

    /// Bit mask of all parts of a colour.
    fn all(&self) -> u64 {
        (1u64 << self.parts) - 1
    }

    /// One member: claim and project parts until the last colour is finished.
    fn run(&self) {
        let index = self.joined.fetch_add(1, Ordering::Relaxed);
        debug_assert!((index + 1) * PARTS_PER_MEMBER <= self.parts, "more runs than members");
        let _poison = PoisonOnUnwind(&self.words.base);
        let mut member = Member { own: ((1u64 << PARTS_PER_MEMBER) - 1) << (index * PARTS_PER_MEMBER), cuts: [ColourCut::EMPTY; SLOTS], cut_of: [usize::MAX; SLOTS] };
        loop {
            // Read before the claims: a wait below ends at any change after this point.
            let progress = self.progress();
            if progress.base >= self.colours() {
                return;
            }
            match self.claim(&progress, &mut member) {
                Some((colour, part)) => {
                    let cut = member.cut(self, colour);
                    self.project_part(colour, part, cut.start[part], cut.start[part + 1]);
                }
                None => wait_while(|| self.progress() == progress),
            }
        }
    }

    fn progress(&self) -> Progress {
        let base = self.words.base.load(Ordering::SeqCst);
        Progress {
            base,
            finished: std::array::from_fn(|k| self.words.finished[k].load(Ordering::Acquire)),
            claimed: std::array::from_fn(|k| self.words.claimed[k].load(Ordering::Acquire)),
        }
    }

    /// Claim a part, in this order: the member's own lowest unclaimed part of the base colour; its
    /// own lowest unclaimed part of a later colour in progress (nearest first) that is ready (no
    /// unfinished part of an earlier colour touches its particles, by the parts' [`Bounds`]:
    /// every particle's constraints then still run in colour order, so the bits are the
    /// sequential sweep's); the highest unclaimed part of the base (another member's last). None
    /// when nothing can be claimed now.
    ///
    /// Why the look-ahead: a member that finished its share of a colour goes on to its own
    /// particles in the next colours instead of waiting at the colour's end; only parts near a
    /// seam between two members' shares wait for the neighbour's.
    fn claim(&self, progress: &Progress, member: &mut Member) -> Option<(usize, usize)> {
        let base = progress.base;
        let lowest = |m: u64| (m != 0).then(|| m.trailing_zeros() as usize);
        if let Some(part) = self.claim_in(base, |free| lowest(free & member.own)) {
            return Some((base, part));
        }
        // Unfinished parts of colour c as read (all of them if its slot is not c's yet).
        let unfinished = |c: usize| {
            let word = progress.finished[c % SLOTS];
            if word >> 32 == c as u64 { !word & self.all() } else { self.all() }
        };
        for colour in base + 1..(base + SLOTS).min(self.colours()) {
            let mut candidates = member.own & !progress.claimed[colour % SLOTS];
            if progress.claimed[colour % SLOTS] >> 32 != colour as u64 {
                continue;
            }
            while candidates != 0 {
                let part = candidates.trailing_zeros() as usize;
                candidates &= candidates - 1;
                let bounds = member.cut(self, colour).bounds[part];
                let blocked = (base..colour).any(|earlier| {
                    let mut blockers = unfinished(earlier);
                    let cut = member.cut(self, earlier);
                    let mut blocked = false;
                    while blockers != 0 && !blocked {
                        let q = blockers.trailing_zeros() as usize;
                        blockers &= blockers - 1;
                        blocked = bounds.overlap(cut.bounds[q]);
                    }
                    blocked
                });
                if !blocked && let Some(part) = self.claim_in(colour, |free| (free & 1 << part != 0).then_some(part)) {
                    return Some((colour, part));
                }
            }
        }
        self.claim_in(base, |free| (free != 0).then(|| 63 - free.leading_zeros() as usize)).map(|part| (base, part))
    }

    /// Claim the part of `colour` that `pick` chooses among the unclaimed ones (a bit mask); None
    /// if it chooses none or the colour's slot is not (or no longer) `colour`'s.
    fn claim_in(&self, colour: usize, pick: impl Fn(u64) -> Option<usize>) -> Option<usize> {
        let slot = &self.words.claimed[colour % SLOTS];
        let mut state = slot.load(Ordering::Acquire);
        loop {
            if state >> 32 != colour as u64 {
                return None;
            }
            let part = pick(!state & self.all())?;
            match slot.compare_exchange_weak(state, state | 1 << part, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return Some(part),
                Err(now) => state = now,
            }
        }
    }

    /// Project `part` of `colour` (constraints `begin..end`); the member finishing the base
    /// colour's last part moves the base on ([`Self::advance_from`]).
    fn project_part(&self, colour: usize, part: usize, begin: usize, end: usize) {
        if begin < end {
            let mut x = self.x;
            // SAFETY: every part is claimed once, and a part starts only after the parts of
            // earlier colours whose bounds overlap its own (`claim`).
            unsafe { self.work.project(&mut x, colour, begin, end) };
        }
        // SeqCst, with the base's compare-exchange and the load in `advance_from`: either this
        // member sees the base at `colour`, or the member that moved it there sees this part
        // finished. (Release: whoever claims a part after reading this sees its positions.)
        let finished = self.words.finished[colour % SLOTS].fetch_or(1 << part, Ordering::SeqCst) | 1 << part;
        debug_assert_eq!(finished >> 32, colour as u64);
        if finished & self.all() == self.all() {
            self.advance_from(colour);
        }
    }

    /// `colour` is finished: if it is the base, move the base to the next colour and hand its slot
    /// to colour + [`SLOTS`]; repeat while the new base is finished too (its last part may have
    /// finished before it became the base). Exactly one member moves the base past each colour
    /// (the compare-exchange).
    fn advance_from(&self, mut colour: usize) {
        loop {
            if self.words.base.compare_exchange(colour, colour + 1, Ordering::SeqCst, Ordering::SeqCst).is_err() {
                return;
            }
            #[cfg(test)]
            tests::slow_handover();
            let tag = ((colour + SLOTS) as u64) << 32;
            // Finished before claimed: whoever claims a part of the new colour finds its slot ready.
            self.words.finished[colour % SLOTS].store(tag, Ordering::Release);
            self.words.claimed[colour % SLOTS].store(tag, Ordering::Release);
            colour += 1;
            if self.words.finished[colour % SLOTS].load(Ordering::SeqCst) != ((colour as u64) << 32 | self.all()) {
                return;
            }
        }
    }
}

/// The particle indices a part touches.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Bounds {
    /// No constraint.
    Empty,
    /// Only particles from the first to the second index.
    Within(u32, u32),
    /// Possibly any particle.
    Unknown,
}

impl Bounds {
    fn overlap(self, other: Bounds) -> bool {
        match (self, other) {
            (Bounds::Empty, _) | (_, Bounds::Empty) => false,
            (Bounds::Within(a0, a1), Bounds::Within(b0, b1)) => a0 <= b1 && b0 <= a1,
            _ => true,
        }
    }
}

/// A member's own state: its parts, and the cuts of the colours in progress (worked out once per
/// colour, when first needed).
struct Member {
    /// Bit mask of the member's own parts of every colour.
    own: u64,
    /// The cut of colour `cut_of[k]` in slot `k` (`usize::MAX`: none).
    cuts: [ColourCut; SLOTS],
    cut_of: [usize; SLOTS],
}

impl Member {
    fn cut<W: TeamWork>(&mut self, team: &ColourTeam<'_, W>, colour: usize) -> &ColourCut {
        let k = colour % SLOTS;
        if self.cut_of[k] != colour {
            team.work.cut(colour, team.parts, &mut self.cuts[k]);
            self.cut_of[k] = colour;
        }
        &self.cuts[k]
    }
}

/// First constraint of `part` of `colour` when each colour is cut into `parts` (`part == parts`
/// gives the colour's end), [`PARTS_PER_MEMBER`] per member: each member's even share of the
/// colour halved part by part (½, ¼, …, the last two equal), rounded down to [`PART_ALIGN`] and
/// moved forward to a point where the sweep may split. A member that runs ahead takes the
/// others' last parts, the smallest, so the members finish a colour close together: with equal
/// parts (4 per member then) the one that finished last had waited, on average, half a part
/// (1/16 of a colour on two threads) for the other.
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
struct PoisonOnUnwind<'a>(&'a AtomicUsize);

impl Drop for PoisonOnUnwind<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // Past any sweep's last colour, and no colour's compare-exchange matches it.
            self.0.store(usize::MAX, Ordering::SeqCst);
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

/// A slice handed out to a team's members as the disjoint ranges of their parts: a sweep's
/// multipliers, the particles' previous positions and velocities in the step's motion passes
/// (`solver::step_team`).
pub(crate) struct SharedSlice<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: the ranges handed out are disjoint (each part is claimed once, and a part of a later
// pass over the same elements waits for the earlier pass's: their bounds overlap), so no element
// is reached from two threads at once; `T: Send` since it is written from whichever thread
// claims it.
unsafe impl<T: Send> Sync for SharedSlice<'_, T> {}

impl<'a, T> SharedSlice<'a, T> {
    /// `slice`, borrowed for the team run, to be handed out by ranges.
    pub(crate) fn new(slice: &'a mut [T]) -> Self {
        SharedSlice { ptr: slice.as_mut_ptr(), len: slice.len(), _borrow: PhantomData }
    }

    /// Elements of the slice.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// `slice[begin..end]`.
    ///
    /// # Safety
    /// No other live reference overlaps the range (each part is claimed once).
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn range(&self, begin: usize, end: usize) -> &mut [T] {
        assert!(begin <= end && end <= self.len);
        // SAFETY: in bounds of the live borrow (checked above); exclusive by the contract.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(begin), end - begin) }
    }
}

#[cfg(test)]
mod chain_tests;

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// [`run_team_of`] for other modules' tests.
    ///
    /// # Safety
    /// As [`run_team`].
    pub(crate) unsafe fn run_team_of<W: TeamWork>(work: &W, x: &mut [SolverParticle], members: usize) {
        // SAFETY: the caller's contract.
        unsafe { super::run_team_of(work, x, members) }
    }
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
        let work = SweepWork::new(s, s, 1, ColourStarts::Ranges(colour_start), lambda);
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
            for _ in 0..200 {
                std::thread::yield_now();
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
        let mut ran_ahead = 0;
        for (threads, slow) in [(2, false), (3, false), (8, false), (2, true), (3, true)] {
            SLOW_HANDOVER.store(slow, Ordering::Relaxed);
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            for _ in 0..if cfg!(miri) { 1 } else { 20 } {
                let (mut x, mut lambda) = (x0.clone(), vec![0.0; s.0.pairs.len()]);
                pool.install(|| {
                    // SAFETY: `colour_groups` puts no particle twice in a colour; the bounds are
                    // exact.
                    unsafe { project_colours_with_members(&s, &mut x, &mut lambda, &colour_start, threads.min(MAX_MEMBERS)) };
                });
                // A part started while a part of an earlier colour had not ended.
                let mut open: Vec<usize> = Vec::new();
                for (first, start) in std::mem::take(&mut *s.1.lock().unwrap()) {
                    let colour = colour_of(first);
                    if start {
                        ran_ahead += open.iter().any(|&c| c < colour) as usize;
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
                assert_eq!(bits(&x, &lambda), sequential, "{threads} threads, slow hand-over {slow}");
            }
        }
        SLOW_HANDOVER.store(false, Ordering::Relaxed);
        // Under Miri the threads interleave too finely to rely on it.
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
}
