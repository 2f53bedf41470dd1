//! A [`World`] that other threads can read while it steps: the asynchronous step and advance
//! ([`SharedWorld::step_begin`] / [`SharedWorld::step_end`], [`SharedWorld::advance_begin`] /
//! [`SharedWorld::advance_end`]) and render reads that never wait for a step (docs/design.md,
//! "Thread contract").
//!
//! Double buffer: before every step the render reads of each cloth (positions and normals of the
//! last two step states, the animated pose when blended) are copied into one of two buffers the
//! `SharedWorld` owns (`ReadCopy`), the one readers do not use, and the world is moved out of the
//! lock to be stepped. A read that finds the world out, or inside a begin..end bracket, answers
//! from the buffer of the last copy; every other call waits until the step gives the world back.
//!
//! Locks: the world's slot is behind a read-write lock. Reads share it, with each other and with
//! the copy taken before a step (which only reads the world, while every other call waits for it);
//! the exclusive lock is held only for short calls: moving the world out or back, swapping the
//! buffers, and calls on the world from other threads (`with`). No lock is held across the hand-off
//! to the stepping thread or during a step, so a read waits at most for such a short call.

mod gate;
mod stepper;

pub use gate::StepHold;

use crate::cloth::ClothReads;
use crate::cloth::reads::ReadCopy;
use crate::cloth::VertexLayout;
use crate::error::ClothError;
use crate::render_proxy::{RenderProxy, RenderProxyHandle};
use crate::world::{Advance, ClothHandle, MAX_TIME_STEP, MIN_TIME_STEP, World};
use gate::Gate;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::{Arc, Condvar, Mutex, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use stepper::{Job, Stepper, Work};

/// A world behind a lock, stepped without holding it, so that the render reads of its cloths
/// ([`SharedWorld::read`]) return at once while a step runs on another thread or on the world's
/// own threads ([`SharedWorld::step_begin`]). `Sync`: share it by reference or in an `Arc`.
///
/// Which calls wait: [`SharedWorld::with`] (every call on the world or its cloths) waits while a
/// step runs; [`SharedWorld::read`] never waits for a step (only for another thread's short call
/// inside `with`). Between [`SharedWorld::step_begin`] and [`SharedWorld::step_end`] reads return
/// the state as it was at `step_begin`, even once the step has finished; after `step_end` they
/// return the stepped state.
///
/// Dropping it waits for a running step, then drops the world and joins the thread that runs
/// asynchronous steps.
///
/// ```
/// use xpbd_cloth::{ClothDesc, SharedWorld, World, WorldDesc};
/// let positions = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0]];
/// let mut world = World::new(WorldDesc::default()).unwrap();
/// let cloth = world.add_cloth(&ClothDesc::new(&positions, &[0, 2, 1, 1, 2, 3])).unwrap();
/// let world = SharedWorld::new(world);
/// world.step_begin(1.0 / 60.0).unwrap(); // returns at once; the world steps on its own thread
/// let mut out = [[0.0f32; 3]; 4];
/// world.read(cloth, |c| c.read_positions(&mut out)).unwrap().unwrap(); // the state at step_begin
/// assert_eq!(out, positions);
/// world.step_end().unwrap(); // waits; what World::step returns
/// world.read(cloth, |c| c.read_positions(&mut out)).unwrap().unwrap();
/// assert!(out[3][1] < 0.0); // fallen under gravity
/// ```
pub struct SharedWorld {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for SharedWorld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedWorld").finish_non_exhaustive()
    }
}

/// What reads answer from during a step, as it was before the step.
#[derive(Default)]
struct Copies {
    /// The render reads of every cloth, by slot index (with the full generation of the cloth they
    /// were copied from).
    cloths: Vec<Option<(u32, ReadCopy)>>,
    /// The render proxies, by slot index (with the full generation of the proxy and the cloth it
    /// draws; the binding is shared, not copied).
    proxies: Vec<Option<(u32, ClothHandle, Arc<RenderProxy>)>>,
}

/// What the stepping thread shares with the `SharedWorld`.
struct Inner {
    slot: RwLock<Slot>,
    /// Taken by a call that waits for the world to be idle before it lets the slot's lock go, and
    /// by whoever makes it idle before notifying `changed`, so that no notification is lost.
    signal: Mutex<()>,
    /// Notified whenever the world becomes idle (a step gave it back, a copy was abandoned).
    changed: Condvar,
    /// The two buffers of copies; `Slot::front` is the one reads answer from.
    copies: [RwLock<Copies>; 2],
    /// Lets a test hold a finished step before it gives the world back ([`StepHold`]).
    gate: Gate,
}

/// What the world is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Busy {
    Idle,
    /// The reads are being copied before a step (the world is only read meanwhile).
    Copying,
    /// A step has the world (moved out of the lock).
    Stepping,
}

/// A begin..end bracket: which kind, and its result once the work has finished.
enum Bracket {
    Step(Option<Result<(), ClothError>>),
    Advance(Option<Result<Advance, ClothError>>),
}

impl Bracket {
    fn finished(&self) -> bool {
        matches!(self, Bracket::Step(Some(_)) | Bracket::Advance(Some(_)))
    }
}

struct Slot {
    /// `None` while a step has it, and after [`SharedWorld::into_inner`].
    world: Option<World>,
    busy: Busy,
    /// Between a begin and its end.
    begun: Option<Bracket>,
    /// A step panicked: the world's state cannot be trusted.
    poisoned: bool,
    /// [`SharedWorld::into_inner`] or the drop has begun: every call is refused.
    closed: bool,
    /// The buffer of `Inner::copies` that reads answer from.
    front: usize,
    /// The thread of asynchronous steps, started by the first begin.
    stepper: Option<Stepper>,
}

impl Slot {
    /// The world, if the slot is usable. Errors: `InvalidHandle` (closed), `WorldPoisoned`.
    fn world_mut(&mut self) -> Result<&mut World, ClothError> {
        if self.closed {
            return Err(ClothError::InvalidHandle);
        }
        if self.poisoned {
            return Err(ClothError::WorldPoisoned);
        }
        self.world.as_mut().ok_or(ClothError::InvalidHandle)
    }
}

/// Refresh `copies` from `world`: one copy per live cloth and render proxy, none for empty slots.
fn publish(world: &World, copies: &mut Copies) {
    publish_proxies(world, &mut copies.proxies);
    let copies = &mut copies.cloths;
    for (handle, cloth) in world.cloths() {
        let i = handle.index as usize;
        if copies.len() <= i {
            copies.resize_with(i + 1, || None);
        }
        match &mut copies[i] {
            Some((generation, copy)) => {
                *generation = handle.generation;
                copy.refresh(cloth);
            }
            empty => *empty = Some((handle.generation, ReadCopy::of(cloth))),
        }
    }
    for (i, copy) in copies.iter_mut().enumerate() {
        if copy.is_some() && world.live_handle(i as u32).is_none() {
            *copy = None;
        }
    }
}

/// Refresh `copies` from `world`'s render proxies: one per live proxy (sharing its binding).
fn publish_proxies(world: &World, copies: &mut Vec<Option<(u32, ClothHandle, Arc<RenderProxy>)>>) {
    for copy in copies.iter_mut() {
        *copy = None;
    }
    for index in 0..world.proxy_slots() {
        let Some(handle) = world.live_render_proxy_handle(index) else { continue };
        let Ok(entry) = world.render_proxy_entry(handle) else { continue };
        let i = index as usize;
        if copies.len() <= i {
            copies.resize_with(i + 1, || None);
        }
        copies[i] = Some((handle.generation, entry.cloth, Arc::clone(&entry.proxy)));
    }
}

/// The message of a panic's payload.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    match (payload.downcast_ref::<&str>(), payload.downcast_ref::<String>()) {
        (Some(s), _) => (*s).to_owned(),
        (_, Some(s)) => s.clone(),
        _ => "non-string payload".to_owned(),
    }
}

impl Inner {
    /// The slot's exclusive lock. Errors: `WorldPoisoned` (a panic inside [`SharedWorld::with`]).
    fn write(&self) -> Result<RwLockWriteGuard<'_, Slot>, ClothError> {
        self.slot.write().map_err(|_| ClothError::WorldPoisoned)
    }

    /// The slot's shared lock. Errors: `WorldPoisoned`.
    fn read(&self) -> Result<RwLockReadGuard<'_, Slot>, ClothError> {
        self.slot.read().map_err(|_| ClothError::WorldPoisoned)
    }

    /// Wait until `slot` is idle (no copy, no step), letting its lock go meanwhile and taking it
    /// again with `relock`.
    fn wait_idle<'a>(
        &'a self,
        mut slot: RwLockWriteGuard<'a, Slot>,
        relock: impl Fn(&'a Inner) -> Result<RwLockWriteGuard<'a, Slot>, ClothError>,
    ) -> Result<RwLockWriteGuard<'a, Slot>, ClothError> {
        while slot.busy != Busy::Idle {
            // The signal's lock is taken before the slot's is let go: whoever makes the slot idle
            // takes it after, so its notification comes after this wait has begun.
            let signal = self.signal.lock().unwrap_or_else(PoisonError::into_inner);
            drop(slot);
            drop(self.changed.wait(signal).unwrap_or_else(PoisonError::into_inner));
            slot = relock(self)?;
        }
        Ok(slot)
    }

    /// The exclusive lock once the world is idle. Errors: `WorldPoisoned`.
    fn write_idle(&self) -> Result<RwLockWriteGuard<'_, Slot>, ClothError> {
        self.wait_idle(self.write()?, Inner::write)
    }

    /// The exclusive lock once the world is idle, whether or not it is poisoned.
    fn write_idle_anyway(&self) -> RwLockWriteGuard<'_, Slot> {
        let slot = self.write_anyway();
        self.wait_idle(slot, |inner| Ok(inner.write_anyway())).expect("relocking cannot fail")
    }

    /// The slot's exclusive lock, whether or not it is poisoned.
    fn write_anyway(&self) -> RwLockWriteGuard<'_, Slot> {
        self.slot.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// Wake the calls waiting for the world to be idle (after the slot's lock was let go).
    fn notify_idle(&self) {
        drop(self.signal.lock().unwrap_or_else(PoisonError::into_inner));
        self.changed.notify_all();
    }

    /// Copy every cloth's reads into the buffer reads do not use and move the world out for a
    /// step, `slot` being idle with a world: the copy is taken under the shared lock (reads go on
    /// meanwhile, from the live world), only the swap and the move under the exclusive one.
    fn take_for_step<'a>(&'a self, mut slot: RwLockWriteGuard<'a, Slot>) -> (RwLockWriteGuard<'a, Slot>, World) {
        slot.busy = Busy::Copying;
        let back = 1 - slot.front;
        drop(slot);
        let copied = catch_unwind(AssertUnwindSafe(|| {
            let slot = self.slot.read().unwrap_or_else(PoisonError::into_inner);
            let mut copies = self.copies[back].write().unwrap_or_else(PoisonError::into_inner);
            publish(slot.world.as_ref().expect("an idle slot has its world"), &mut copies);
        }));
        let mut slot = self.write_anyway();
        if let Err(payload) = copied {
            (slot.busy, slot.poisoned) = (Busy::Idle, true);
            drop(slot);
            self.notify_idle();
            resume_unwind(payload);
        }
        slot.front = back;
        slot.busy = Busy::Stepping;
        let world = slot.world.take().expect("an idle slot has its world");
        (slot, world)
    }

    /// A step gives the world back: after `panicked` the world is poisoned; `finished` is an
    /// asynchronous step's or advance's result, for its end.
    fn give_back(&self, world: World, panicked: bool, finished: Option<Bracket>) {
        self.gate.pass();
        // A panic inside `with` poisons the lock, not the data: the slot is consistent.
        let mut slot = self.write_anyway();
        slot.world = Some(world);
        slot.busy = Busy::Idle;
        slot.poisoned |= panicked;
        if let (Some(finished), Some(begun)) = (finished, slot.begun.as_mut()) {
            *begun = finished;
        }
        drop(slot);
        self.notify_idle();
    }
}

impl SharedWorld {
    /// Share `world`.
    pub fn new(world: World) -> SharedWorld {
        let slot = Slot { world: Some(world), busy: Busy::Idle, begun: None, poisoned: false, closed: false, front: 0, stepper: None };
        let inner = Inner {
            slot: RwLock::new(slot),
            signal: Mutex::new(()),
            changed: Condvar::new(),
            copies: [RwLock::new(Copies::default()), RwLock::new(Copies::default())],
            gate: Gate::default(),
        };
        SharedWorld { inner: Arc::new(inner) }
    }

    /// Run `f` on the world, waiting while a step runs. A panic inside `f` poisons the world.
    /// Errors: `WorldPoisoned`, `InvalidHandle` (after [`SharedWorld::into_inner`] began).
    pub fn with<T>(&self, f: impl FnOnce(&mut World) -> T) -> Result<T, ClothError> {
        let mut slot = self.inner.write_idle()?;
        Ok(f(slot.world_mut()?))
    }

    /// Run `f` on the world moved out of the lock when `will_step` says it steps (reads then answer
    /// from the copy), under the lock otherwise. Errors: as [`SharedWorld::with`], and
    /// `StepInProgress` inside a begin..end bracket.
    fn step_outside<T>(&self, will_step: impl FnOnce(&World) -> bool, f: impl FnOnce(&mut World) -> T) -> Result<T, ClothError> {
        let mut slot = self.inner.write_idle()?;
        if slot.begun.is_some() {
            return Err(ClothError::StepInProgress);
        }
        let world = slot.world_mut()?;
        if !will_step(world) {
            return Ok(f(world));
        }
        let (slot, mut world) = self.inner.take_for_step(slot);
        drop(slot);
        let outcome = catch_unwind(AssertUnwindSafe(|| f(&mut world)));
        self.inner.give_back(world, outcome.is_err(), None);
        match outcome {
            Ok(value) => Ok(value),
            Err(payload) => resume_unwind(payload),
        }
    }

    /// [`World::step`] without holding the lock: reads from other threads meanwhile return the
    /// state before the step at once. Errors: those of [`World::step`], `StepInProgress` (between
    /// a begin and its end), `WorldPoisoned`, `InvalidHandle` (closed). A panic in the step
    /// poisons the world and is passed on.
    pub fn step(&self, dt: f32) -> Result<(), ClothError> {
        self.step_outside(|_| (MIN_TIME_STEP..=MAX_TIME_STEP).contains(&dt), |w| w.step(dt))?
    }

    /// [`World::advance`] as [`SharedWorld::step`] does [`World::step`]: without the lock when it
    /// takes a step. Errors: those of [`World::advance`] and of [`SharedWorld::step`].
    pub fn advance(&self, frame_dt: f32, fixed_dt: f32, max_steps: u32) -> Result<Advance, ClothError> {
        let will_step = |w: &World| w.advance_steps(frame_dt, fixed_dt, max_steps).is_ok_and(|steps| steps > 0);
        self.step_outside(will_step, |w| w.advance(frame_dt, fixed_dt, max_steps))?
    }

    /// Start `work` on the stepping thread (started by the first call) and return at once; the
    /// checks of `valid` first. Errors: `StepInProgress`, `valid`'s, `WorldPoisoned`, `InvalidHandle`.
    fn begin(&self, work: Work, valid: impl Fn(&World) -> Result<(), ClothError>) -> Result<(), ClothError> {
        let mut slot = self.inner.write_idle()?;
        let mut tried_start = false;
        loop {
            if slot.begun.is_some() {
                return Err(ClothError::StepInProgress);
            }
            valid(slot.world_mut()?)?;
            if slot.stepper.is_some() || tried_start {
                break;
            }
            // The first call starts the thread without the lock, which reads take (a thread start
            // can take a millisecond), then checks again: another call may have come meanwhile,
            // and a thread it started wins.
            drop(slot);
            let started = Stepper::start();
            slot = self.inner.write_idle()?;
            if slot.stepper.is_none() && !slot.closed {
                slot.stepper = started;
            }
            tried_start = true;
        }
        slot.begun = Some(match work {
            Work::Step(_) => Bracket::Step(None),
            Work::Advance { .. } => Bracket::Advance(None),
        });
        let (slot, world) = self.inner.take_for_step(slot);
        let job = Job { world, work, inner: Arc::clone(&self.inner) };
        let mailbox = slot.stepper.as_ref().map(Stepper::mailbox);
        // Released before the hand-over: the woken step's threads may take both cores, and a
        // render read must not wait for this thread to be scheduled again to release the lock.
        drop(slot);
        match mailbox {
            Some(mailbox) => mailbox.run(job),
            None => job.run(),
        }
        Ok(())
    }

    /// Start [`World::step`]`(dt)` on a thread of the world's own and return at once (waiting
    /// first if another thread's step runs). Until [`SharedWorld::step_end`], reads return the
    /// state at this call and every other call waits for the step to finish. The thread is started
    /// by the first call and joined when the world is dropped; if the system refuses it, the step
    /// runs here, before this returns.
    ///
    /// Errors (nothing starts): `StepInProgress` (already begun), `InvalidTimeStep` (unless
    /// 1e-5 s ≤ dt ≤ 1 s), `WorldPoisoned`, `InvalidHandle` (closed).
    pub fn step_begin(&self, dt: f32) -> Result<(), ClothError> {
        self.begin(Work::Step(dt), |_| match (MIN_TIME_STEP..=MAX_TIME_STEP).contains(&dt) {
            true => Ok(()),
            false => Err(ClothError::InvalidTimeStep { dt }),
        })
    }

    /// Start [`World::advance`]`(frame_dt, fixed_dt, max_steps)` on the world's stepping thread
    /// and return at once, as [`SharedWorld::step_begin`] starts a step: the arguments are checked
    /// here, the accumulator and the steps are the advance's; until
    /// [`SharedWorld::advance_end`] reads return the state at this call (draw it at the `alpha`
    /// of the advance before).
    ///
    /// Errors (nothing starts): those of [`World::advance`]'s checks, `StepInProgress`,
    /// `WorldPoisoned`, `InvalidHandle` (closed).
    pub fn advance_begin(&self, frame_dt: f32, fixed_dt: f32, max_steps: u32) -> Result<(), ClothError> {
        self.begin(Work::Advance { frame_dt, fixed_dt, max_steps }, |w| w.advance_steps(frame_dt, fixed_dt, max_steps).map(drop))
    }

    /// Wait for the bracket's work to finish and take its result. `advance`: only an advance
    /// bracket is ended (a step bracket stays open: `StepNotBegun`).
    fn end(&self, advance: bool) -> Result<Bracket, ClothError> {
        let slot = self.inner.write()?;
        if slot.closed {
            return Err(ClothError::InvalidHandle);
        }
        match &slot.begun {
            None => return Err(if slot.poisoned { ClothError::WorldPoisoned } else { ClothError::StepNotBegun }),
            Some(Bracket::Step(_)) if advance => return Err(ClothError::StepNotBegun),
            Some(_) => {}
        }
        let mut slot = self.inner.wait_idle(slot, Inner::write)?;
        if slot.closed {
            return Err(ClothError::InvalidHandle); // the bracket was dropped with the world
        }
        match slot.begun.take() {
            // Another thread ended the advance and began a step meanwhile: that one stays open.
            Some(step @ Bracket::Step(_)) if advance => {
                slot.begun = Some(step);
                Err(ClothError::StepNotBegun)
            }
            Some(bracket) if bracket.finished() => Ok(bracket),
            // Another thread ended this bracket meanwhile (the work sets its result before it
            // gives the world back, so a pending bracket always has one here).
            other => {
                slot.begun = other;
                Err(ClothError::StepNotBegun)
            }
        }
    }

    /// Wait for the step [`SharedWorld::step_begin`] started (or the advance
    /// [`SharedWorld::advance_begin`] started) and return what [`World::step`] returned (for an
    /// advance: `SimulationUnstable` if a step of it failed, else `Ok`; the state is the same as
    /// a synchronous call's, bitwise). From here on reads return the stepped state. Errors:
    /// `StepNotBegun` (no begin since the last end), the step's own errors (`SimulationUnstable`),
    /// `StepPanicked` once if the step panicked (the world is poisoned), `WorldPoisoned`,
    /// `InvalidHandle` (closed).
    pub fn step_end(&self) -> Result<(), ClothError> {
        match self.end(false)? {
            Bracket::Step(Some(result)) => result,
            Bracket::Advance(Some(result)) => result.and_then(|a| a.unstable.map_or(Ok(()), Err)),
            _ => Err(ClothError::StepNotBegun),
        }
    }

    /// Wait for the advance [`SharedWorld::advance_begin`] started and return what
    /// [`World::advance`] returned (bitwise the same state). From here on reads return the
    /// stepped state: draw them at the returned `alpha`. Errors: `StepNotBegun` (no
    /// `advance_begin` since the last end; a `step_begin` bracket stays open), `StepPanicked`,
    /// `WorldPoisoned`, `InvalidHandle` (closed).
    pub fn advance_end(&self) -> Result<Advance, ClothError> {
        match self.end(true)? {
            Bracket::Advance(Some(result)) => result,
            _ => Err(ClothError::StepNotBegun),
        }
    }

    /// Whether a begin awaits its end.
    pub fn step_begun(&self) -> Result<bool, ClothError> {
        Ok(self.inner.read()?.begun.is_some())
    }

    /// Run `f` on the render reads of the cloth `handle` ([`ClothReads`]): of the live cloth when
    /// the world is idle, of the copy taken before the step while a step runs or between
    /// `step_begin` and `step_end`. Never waits for a step. Errors: `InvalidHandle` (a stale
    /// handle, or closed), `WorldPoisoned`.
    pub fn read<T>(&self, handle: ClothHandle, f: impl FnOnce(ClothReads<'_>) -> T) -> Result<T, ClothError> {
        self.read_where(handle.index, |g| g == handle.generation, f)
    }

    /// [`SharedWorld::read`] for the cloth in slot `index` whose generation `matches` (the C ABI
    /// keeps a shortened generation).
    pub(crate) fn read_where<T>(&self, index: u32, matches: impl Fn(u32) -> bool, f: impl FnOnce(ClothReads<'_>) -> T) -> Result<T, ClothError> {
        let slot = self.inner.read()?;
        if slot.closed {
            return Err(ClothError::InvalidHandle);
        }
        if slot.poisoned {
            return Err(ClothError::WorldPoisoned);
        }
        // The front buffer is written only by a copy into it, which needs the slot's exclusive
        // lock first (to swap): never while this shared lock is held.
        let copies = self.inner.copies[slot.front].read().unwrap_or_else(PoisonError::into_inner);
        let copy = match copies.cloths.get(index as usize) {
            Some(Some((generation, copy))) if matches(*generation) => Some(copy),
            _ => None,
        };
        match (slot.world.as_ref(), copy) {
            // The world is here: the handle must name a live cloth (one removed during a bracket
            // is gone); one created during the bracket has no copy and reads live.
            (Some(world), copy) => {
                let handle = world.live_handle(index).filter(|h| matches(h.generation)).ok_or(ClothError::InvalidHandle)?;
                let cloth = world.cloth(handle)?;
                match copy {
                    Some(copy) if slot.begun.is_some() => Ok(f(copy.reads())),
                    _ => Ok(f(cloth.reads())),
                }
            }
            (None, Some(copy)) => Ok(f(copy.reads())),
            (None, None) => Err(ClothError::InvalidHandle),
        }
    }

    /// Run `f` on the render proxy `handle` and the render reads of its cloth, as
    /// [`SharedWorld::read`] does for a cloth: never waits for a step. Errors: `InvalidHandle`
    /// (stale, or its cloth removed), `WorldPoisoned`.
    pub fn read_proxy<T>(&self, handle: RenderProxyHandle, f: impl FnOnce(&RenderProxy, ClothReads<'_>) -> T) -> Result<T, ClothError> {
        self.read_proxy_where(handle.index, |g| g == handle.generation, |proxy, reads, _| f(proxy, reads))
    }

    /// [`crate::World::write_render_proxy_vertices`] without waiting for a step: split over the
    /// world's threads when idle, on the calling thread from the copies taken before the step
    /// while one runs (its threads are busy). Errors: as [`SharedWorld::read_proxy`] and
    /// [`RenderProxy::write_vertices`].
    pub fn write_render_proxy_vertices(&self, handle: RenderProxyHandle, buffer: &mut [u8], layout: VertexLayout, alpha: f32) -> Result<(), ClothError> {
        let buffer = crate::Out::from(buffer).into_uninit();
        self.read_proxy_where(handle.index, |g| g == handle.generation, |proxy, reads, pool| {
            proxy.write_vertices_uninit(reads, buffer, layout, alpha, pool)
        })?
    }

    /// Run `f` on the render proxy in slot `index` whose generation `matches`, with the render
    /// reads of its cloth and the world's thread pool when idle ([`SharedWorld::read_where`] for
    /// a proxy): live when the world is idle, from the copies taken before the step while one
    /// runs or between a begin and its end (then without the pool, which steps). Never waits for
    /// a step. Errors: `InvalidHandle` (a stale proxy, one whose cloth was removed, or closed),
    /// `WorldPoisoned`.
    pub(crate) fn read_proxy_where<T>(
        &self,
        index: u32,
        matches: impl Fn(u32) -> bool,
        f: impl FnOnce(&RenderProxy, ClothReads<'_>, Option<&rayon::ThreadPool>) -> T,
    ) -> Result<T, ClothError> {
        let slot = self.inner.read()?;
        if slot.closed {
            return Err(ClothError::InvalidHandle);
        }
        if slot.poisoned {
            return Err(ClothError::WorldPoisoned);
        }
        // As in `read_where`: the front buffer is not written while this shared lock is held.
        let copies = self.inner.copies[slot.front].read().unwrap_or_else(PoisonError::into_inner);
        let copy = match copies.proxies.get(index as usize) {
            Some(Some((generation, cloth, proxy))) if matches(*generation) => Some((*cloth, proxy)),
            _ => None,
        };
        let cloth_copy = |cloth: ClothHandle| match copies.cloths.get(cloth.index as usize) {
            Some(Some((generation, c))) if *generation == cloth.generation => Some(c),
            _ => None,
        };
        if let Some(world) = slot.world.as_ref() {
            // The world is here: the proxy must be live (one removed during a bracket is gone).
            let handle = world.live_render_proxy_handle(index).filter(|h| matches(h.generation)).ok_or(ClothError::InvalidHandle)?;
            let (proxy, cloth) = world.render_proxy(handle)?;
            if slot.begun.is_some()
                && let Some(c) = copy.and_then(|(cloth, _)| cloth_copy(cloth))
            {
                return Ok(f(proxy, c.reads(), None));
            }
            let pool = if slot.begun.is_some() { None } else { world.pool() };
            return Ok(f(proxy, world.cloth(cloth)?.reads(), pool));
        }
        let (cloth, proxy) = copy.ok_or(ClothError::InvalidHandle)?;
        let c = cloth_copy(cloth).ok_or(ClothError::InvalidHandle)?;
        Ok(f(proxy, c.reads(), None))
    }

    /// Run `f` on the world whatever its state (poisoned included), waiting while a step runs;
    /// `None` once closed. For leak counts.
    pub(crate) fn inspect<T>(&self, f: impl FnOnce(&World) -> T) -> Option<T> {
        self.inner.write_idle_anyway().world.as_ref().map(f)
    }

    /// Refuse every further call, wait for a running step, join the stepping thread and return
    /// the world (`None` if already closed). Works on a poisoned world.
    pub(crate) fn close(&self) -> Option<World> {
        self.inner.write_anyway().closed = true;
        let mut slot = self.inner.write_idle_anyway();
        let (world, stepper) = (slot.world.take(), slot.stepper.take());
        slot.begun = None;
        drop(slot);
        for copies in &self.inner.copies {
            *copies.write().unwrap_or_else(PoisonError::into_inner) = Copies::default();
        }
        self.inner.notify_idle();
        drop(stepper); // joins the thread
        world
    }

    /// The world back, after waiting for a running step (a pending end's result is dropped). A
    /// world a step panicked in is returned as it is (its state cannot be trusted).
    pub fn into_inner(self) -> Option<World> {
        self.close()
    }

    /// For tests: hold every step that finishes from now on before it gives the world back,
    /// until the returned [`StepHold`] is dropped, so that a test can read provably during a step.
    #[doc(hidden)]
    pub fn hold_steps(&self) -> StepHold {
        StepHold::new(Arc::clone(&self.inner))
    }
}

impl Drop for SharedWorld {
    fn drop(&mut self) {
        drop(self.close());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cloth::ClothDesc;
    use crate::world::WorldDesc;

    fn shared_square() -> (SharedWorld, ClothHandle) {
        let positions = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0]];
        let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
        let cloth = world.add_cloth(&ClothDesc::new(&positions, &[0, 2, 1, 1, 2, 3])).unwrap();
        (SharedWorld::new(world), cloth)
    }

    #[test]
    fn a_panic_in_a_step_outside_the_lock_poisons_the_world_and_gives_it_back() {
        let (shared, cloth) = shared_square();
        shared.step(1.0 / 60.0).unwrap();
        let caught = catch_unwind(AssertUnwindSafe(|| shared.step_outside(|_| true, |_| -> () { panic!("solver bug") })));
        assert!(caught.is_err(), "the panic is passed on");
        assert_eq!(shared.with(|_| ()), Err(ClothError::WorldPoisoned));
        assert_eq!(shared.read(cloth, |r| r.vertex_count()), Err(ClothError::WorldPoisoned));
        assert_eq!(shared.step(1.0 / 60.0), Err(ClothError::WorldPoisoned));
        assert_eq!(shared.step_begin(1.0 / 60.0), Err(ClothError::WorldPoisoned));
        assert_eq!(shared.step_end(), Err(ClothError::WorldPoisoned));
        // The world came back (its memory is released by the drop), not lost with the panic.
        assert!(shared.into_inner().is_some());
    }

    #[test]
    fn reads_of_a_removed_cloth_fail_and_a_new_cloth_reads_live_inside_a_bracket() {
        let (shared, cloth) = shared_square();
        shared.step_begin(1.0 / 60.0).unwrap();
        let other = shared.with(|w| w.add_instance(cloth).unwrap()).unwrap();
        assert_eq!(shared.read(other, |r| r.vertex_count()), Ok(4));
        shared.with(|w| w.remove_cloth(cloth).unwrap()).unwrap();
        assert_eq!(shared.read(cloth, |r| r.vertex_count()), Err(ClothError::InvalidHandle));
        shared.step_end().unwrap();
        assert_eq!(shared.step_end(), Err(ClothError::StepNotBegun));
    }
}
