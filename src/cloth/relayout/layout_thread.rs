//! A world's layout thread: builds the constraint layouts of pin changes (`super`) at low priority,
//! one at a time, so that they take the time the steps leave. Started by the first layout posted
//! to it, stopped and joined when the world is dropped (after the build under way, if any). It is
//! started like the world's worker threads (`crate::worker_pool::os_thread`), so a library unloaded
//! after its worlds are destroyed leaves nothing behind.

use super::PendingLayout;
use crate::worker_pool::os_thread;
use std::sync::{Arc, Condvar, Mutex, PoisonError, Weak};

/// The layouts waiting for the thread (weak: one superseded meanwhile is never built), or the
/// order to stop.
#[derive(Default)]
struct Queue {
    jobs: Vec<Weak<PendingLayout>>,
    stop: bool,
}

#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    posted: Condvar,
}

/// The thread (started on demand) and its queue. Dropping it stops and joins the thread.
#[derive(Default)]
pub(crate) struct LayoutThread {
    shared: Arc<Shared>,
    /// The thread, once started; `Err(())` if the system refused it (layouts are then built by
    /// the steps that need them).
    thread: Mutex<Option<Result<os_thread::Thread, ()>>>,
}

impl LayoutThread {
    /// Build `layout` on the thread (starting it if it is not running yet).
    pub fn build(&self, layout: Weak<PendingLayout>) {
        let mut thread = self.thread.lock().unwrap_or_else(PoisonError::into_inner);
        if thread.is_none() {
            let theirs = Arc::clone(&self.shared);
            let run = Box::new(move || run(&theirs));
            *thread = Some(os_thread::spawn(Some("xpbd-cloth-layout".to_owned()), run).map_err(drop));
        }
        if let Some(Ok(_)) = thread.as_ref() {
            self.shared.queue.lock().unwrap_or_else(PoisonError::into_inner).jobs.push(layout);
            self.shared.posted.notify_one();
        }
    }
}

/// The thread's loop: at the lowest priority, build each posted layout still wanted, until told
/// to stop.
fn run(shared: &Shared) {
    crate::fp_env::set_default_fp_env();
    os_thread::lower_priority();
    loop {
        let mut queue = shared.queue.lock().unwrap_or_else(PoisonError::into_inner);
        while queue.jobs.is_empty() && !queue.stop {
            queue = shared.posted.wait(queue).unwrap_or_else(PoisonError::into_inner);
        }
        if queue.stop {
            return;
        }
        let job = queue.jobs.remove(0);
        drop(queue);
        if let Some(pending) = job.upgrade() {
            // A panic stays here: the step that needs the layout builds it again and reports it.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pending.get();
            }));
        }
    }
}

impl Drop for LayoutThread {
    fn drop(&mut self) {
        self.shared.queue.lock().unwrap_or_else(PoisonError::into_inner).stop = true;
        self.shared.posted.notify_one();
        if let Some(Ok(thread)) = self.thread.get_mut().unwrap_or_else(PoisonError::into_inner).take() {
            thread.join();
        }
    }
}
