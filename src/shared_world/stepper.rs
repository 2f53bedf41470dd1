//! The thread that runs a [`super::SharedWorld`]'s asynchronous steps: one per world, started by
//! its first `step_begin`, waiting for one job at a time, joined when the world is dropped. It is
//! started like the world's worker threads (`crate::worker_pool::os_thread`), so a library unloaded
//! after its worlds are destroyed leaves nothing behind.

use super::{Bracket, Inner, panic_text};
use crate::error::ClothError;
use crate::world::World;
use crate::worker_pool::os_thread;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

/// What an asynchronous job does with the world.
#[derive(Clone, Copy, Debug)]
pub(super) enum Work {
    /// [`World::step`] of this length \[s\].
    Step(f32),
    /// [`World::advance`] with these arguments.
    Advance { frame_dt: f32, fixed_dt: f32, max_steps: u32 },
}

/// One asynchronous job: the world moved out of its lock, what to do with it, and where to give
/// the world back.
pub(super) struct Job {
    pub world: World,
    pub work: Work,
    pub inner: Arc<Inner>,
}

impl Job {
    /// Do the work and give the world back with the result; a panic becomes `StepPanicked` and
    /// poisons the world.
    pub fn run(self) {
        let Job { mut world, work, inner } = self;
        let panicked = |payload: Box<dyn std::any::Any + Send>| ClothError::StepPanicked { message: panic_text(payload.as_ref()) };
        let (finished, failed) = match work {
            Work::Step(dt) => {
                let outcome = catch_unwind(AssertUnwindSafe(|| world.step(dt)));
                let failed = outcome.is_err();
                (Bracket::Step(Some(outcome.unwrap_or_else(|p| Err(panicked(p))))), failed)
            }
            Work::Advance { frame_dt, fixed_dt, max_steps } => {
                let outcome = catch_unwind(AssertUnwindSafe(|| world.advance(frame_dt, fixed_dt, max_steps)));
                let failed = outcome.is_err();
                (Bracket::Advance(Some(outcome.unwrap_or_else(|p| Err(panicked(p))))), failed)
            }
        };
        inner.give_back(world, failed, Some(finished));
    }
}

/// The job waiting for the thread, or the order to stop.
#[derive(Default)]
struct Posted {
    job: Option<Job>,
    stop: bool,
}

#[derive(Default)]
struct Shared {
    mailbox: Mutex<Posted>,
    posted: Condvar,
}

/// The thread and its mailbox. Dropping it stops and joins the thread (after its current job).
pub(super) struct Stepper {
    shared: Arc<Shared>,
    thread: Option<os_thread::Thread>,
}

impl Stepper {
    /// Start the thread, named `xpbd-cloth-step`. `None` if the system refuses it.
    pub fn start() -> Option<Stepper> {
        let shared = Arc::new(Shared::default());
        let theirs = Arc::clone(&shared);
        let run = Box::new(move || {
            crate::fp_env::set_default_fp_env();
            loop {
                let mut mailbox = theirs.mailbox.lock().unwrap_or_else(PoisonError::into_inner);
                while mailbox.job.is_none() && !mailbox.stop {
                    mailbox = theirs.posted.wait(mailbox).unwrap_or_else(PoisonError::into_inner);
                }
                let Some(job) = mailbox.job.take() else { return };
                drop(mailbox);
                job.run();
            }
        });
        let thread = os_thread::spawn(Some("xpbd-cloth-step".to_owned()), run).ok()?;
        Some(Stepper { shared, thread: Some(thread) })
    }

    /// Where jobs for the thread are posted, to hand one over without holding the world's lock.
    pub fn mailbox(&self) -> Mailbox {
        Mailbox(Arc::clone(&self.shared))
    }
}

/// A [`Stepper`]'s mailbox. Posting to it after the stepper was dropped is impossible in
/// practice: the stepper is dropped only once no step has the world (`SharedWorld::close`),
/// and a posted job is a step that has it.
pub(super) struct Mailbox(Arc<Shared>);

impl Mailbox {
    /// Hand `job` to the thread. The caller posts one job at a time (`step_begin` is refused
    /// until the last one has given the world back and been ended).
    pub fn run(&self, job: Job) {
        self.0.mailbox.lock().unwrap_or_else(PoisonError::into_inner).job = Some(job);
        self.0.posted.notify_one();
    }
}

impl Drop for Stepper {
    fn drop(&mut self) {
        self.shared.mailbox.lock().unwrap_or_else(PoisonError::into_inner).stop = true;
        self.shared.posted.notify_one();
        if let Some(thread) = self.thread.take() {
            thread.join();
        }
    }
}
