//! The colours of a step's team stages projected by a team of threads: one fork-join for each run
//! of consecutive team stages (sweeps, motion passes, pins: [`TeamWork`], the solver's
//! `GroupWork`), rather than one per sweep or per colour.
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
//! Why: with a `rayon::join` tree per colour a large cloth paid a fork-join per colour, each with
//! its own wake-up and its own tail; with one team per sweep, the second thread joined each sweep
//! late and the members waited at every colour's end for the slower one (docs/dev/performance-log.md,
//! "2026-11-30 — The team of threads, positions kept in the sweep rows, the bench's first tables"
//! and "2026-11-30 — Colours in order per particle: the look-ahead, one team per iteration and
//! per step"; docs/design.md, "Splitting a cloth over threads").
//!
//! No deadlock: a member only ever waits while every part it could claim is claimed or blocked,
//! and the base colour's parts are never blocked; a claimed part is plain arithmetic with no wait
//! inside. Members that never start (their thread is busy with another cloth) leave their parts
//! to whoever is there; a member that starts after the work finished returns at once; a member
//! that panics ends the run for all ([`PoisonOnUnwind`]). Every particle's constraints run in
//! colour order and a colour's constraints share no particle, so the bits are those of the
//! sequential sweeps whatever the team size or the order in which parts are claimed. The tests
//! below also run under Miri (`.ci/miri-team.sh`), which checks the shared writes for data races.

use super::access::{SharedPositions, SolverParticle};
use super::sweep::Sweep;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

mod shared_slice;
mod work;

pub(crate) use shared_slice::SharedSlice;
pub(crate) use work::{cut_coloured, project_coloured};
#[cfg(test)]
mod test_work;
#[cfg(test)]
pub(crate) use test_work::{Chain, SweepWork};

/// Constraints (edges + hinges + tethers) below which a coloured cloth is still solved on one
/// thread, and gets the wide stretch palette (one colour per hop level from the pins), which
/// splitting would make too costly (`Cloth::stretch_palette`). On the bench a second thread slows
/// the 32² grid (or speeds it up only with the narrow palette, whose stretch residual is worse)
/// and speeds up the 64² grid, so the threshold lies between the two (docs/dev/performance-log.md,
/// "2026-11-29 — The split threshold"; docs/design.md, "Splitting a cloth over threads").
pub const PARALLEL_MIN_CONSTRAINTS: usize = 20_000;

/// Parts of each colour per team member: more parts let a member that runs ahead take work from
/// one that fell behind (preempted, slower core); each part costs a claim, a finish and a read of
/// the shared words, a few cache-line transfers. With the look-ahead a member that runs ahead
/// mostly goes on to its own parts of the next colours instead, and 3 parts were as fast as 4 or
/// 2 (docs/dev/performance-log.md, "2026-11-30 — Colours in order per particle: the look-ahead,
/// one team per iteration and per step").
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
/// threads than the machine has cores (a claimed part's thread may be waiting for a core); on as
/// many threads as cores the yields after such long waits are a small share of a step
/// (docs/dev/performance-log.md, "2026-11-30 — One team member per core").
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

/// Members of a team on a pool of `pool_threads`: one per thread, but no more than the machine has
/// cores (a member without a core of its own only makes the others wait for it:
/// docs/dev/performance-log.md, "2026-11-30 — One team member per core") and than [`MAX_MEMBERS`].
/// Which threads join changes no bit. The core count is read from the OS once per process, on the
/// first split sweep (`no_allocation` warms up before it counts); later calls read the cached
/// value.
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
pub(crate) unsafe fn run_team_of<W: TeamWork>(work: &W, x: &mut [SolverParticle], members: usize) {
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
    pub(crate) fn of_sweep<S: Sweep>(&mut self, s: &S, colour_start: &[u32], colour: usize, parts: usize) {
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

#[cfg(test)]
mod chain_tests;

#[cfg(test)]
pub(crate) mod tests;
