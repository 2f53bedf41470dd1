//! A test hook: [`StepHold`] keeps every step that finishes while it lives from giving its world
//! back, so a test can read a cloth provably while a step is in flight (no sleeps, no timers).

use super::Inner;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

#[derive(Default)]
struct Counts {
    /// Live [`StepHold`]s.
    holds: u32,
    /// Steps waiting at the gate.
    waiting: u32,
}

/// The gate a finished step passes before it gives the world back.
#[derive(Default)]
pub(super) struct Gate {
    counts: Mutex<Counts>,
    changed: Condvar,
}

impl Gate {
    /// Return at once unless a [`StepHold`] lives; then wait until none does.
    pub fn pass(&self) {
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        if counts.holds == 0 {
            return;
        }
        counts.waiting += 1;
        self.changed.notify_all();
        while counts.holds > 0 {
            counts = self.changed.wait(counts).unwrap_or_else(PoisonError::into_inner);
        }
        counts.waiting -= 1;
    }
}

/// While it lives, a finished step of its world waits before giving the world back (from
/// [`super::SharedWorld::hold_steps`]; for tests).
pub struct StepHold {
    inner: Arc<Inner>,
}

impl StepHold {
    pub(super) fn new(inner: Arc<Inner>) -> StepHold {
        inner.gate.counts.lock().unwrap_or_else(PoisonError::into_inner).holds += 1;
        StepHold { inner }
    }

    /// Wait until a step has finished and waits at the gate: from now until this hold is
    /// dropped, the step is provably in flight for every other call.
    pub fn wait_for_step(&self) {
        let gate = &self.inner.gate;
        let mut counts = gate.counts.lock().unwrap_or_else(PoisonError::into_inner);
        while counts.waiting == 0 {
            counts = gate.changed.wait(counts).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

impl Drop for StepHold {
    fn drop(&mut self) {
        let gate = &self.inner.gate;
        gate.counts.lock().unwrap_or_else(PoisonError::into_inner).holds -= 1;
        gate.changed.notify_all();
    }
}
