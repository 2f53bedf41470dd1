//! A world's layout thread: builds the constraint layouts of pin changes (`super`) at low priority
//! (nice 10: a tenth of a core's share against the steps' threads when both want a core),
//! one at a time, so that they take the time the steps leave. Started by the first layout posted
//! to it, stopped and joined when the world is dropped (after the build under way, if any). It is
//! started like the world's worker threads (`crate::worker_pool::os_thread`), so a library unloaded
//! after its worlds are destroyed leaves nothing behind.
//!
//! No other thread waits for its work: layouts are posted through a channel (a send takes no lock
//! the receiver holds), it holds a pending layout only to take its inputs and to hand the result
//! over, and a step that needs a layout it has not delivered builds it itself
//! (`PendingLayout::get`). A thread of low priority holding something a step waits for would make
//! the step wait for the scheduler.

use super::PendingLayout;
use crate::worker_pool::os_thread;
use std::sync::mpsc::{Sender, channel};
use std::sync::{Mutex, PoisonError, Weak};

/// The running thread and the channel that posts it layouts to build.
type Running = (Sender<Weak<PendingLayout>>, os_thread::Thread);

/// The thread (started on demand) and the channel to it. Dropping it closes the channel, which
/// stops the thread, and joins it.
#[derive(Default)]
pub(crate) struct LayoutThread {
    /// The channel and the thread, once started; `None` inside if the system refused the thread
    /// (layouts are then built by the steps that need them). Taken only by the threads that post.
    started: Mutex<Option<Option<Running>>>,
}

impl LayoutThread {
    /// Build `layout` on the thread (starting it if it is not running yet). A layout superseded
    /// before the thread takes it up is never built (the thread holds it weakly).
    pub fn build(&self, layout: Weak<PendingLayout>) {
        let mut started = self.started.lock().unwrap_or_else(PoisonError::into_inner);
        let running = started.get_or_insert_with(|| {
            let (sender, receiver) = channel::<Weak<PendingLayout>>();
            let run = Box::new(move || {
                crate::fp_env::set_default_fp_env();
                os_thread::lower_priority();
                // Until the channel is closed (the world is dropped).
                while let Ok(job) = receiver.recv() {
                    // A panic stays here: the step that needs the layout builds it again and
                    // reports it there.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| super::build_in_background(&job)));
                }
            });
            os_thread::spawn(Some("xpbd-cloth-pins".to_owned()), run).ok().map(|thread| (sender, thread))
        });
        if let Some((sender, _)) = running {
            let _ = sender.send(layout);
        }
    }
}

impl Drop for LayoutThread {
    fn drop(&mut self) {
        if let Some(Some((sender, thread))) = self.started.get_mut().unwrap_or_else(PoisonError::into_inner).take() {
            drop(sender); // closes the channel: the thread ends after the build under way
            thread.join();
        }
    }
}
