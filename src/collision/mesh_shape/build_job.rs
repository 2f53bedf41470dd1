//! A mesh shape built on a thread of its own, so that the caller (a game thread, a loading
//! screen) returns at once and polls for the result and a progress fraction.

use super::{MeshShape, MeshShapeDesc, Progress};
use crate::error::ClothError;
use crate::worker_pool::{WorkerPool, os_thread};
use std::sync::{Arc, Mutex};

/// What the build thread shares with its owner.
struct Shared {
    progress: Progress,
    result: Mutex<Option<Result<MeshShape, ClothError>>>,
}

/// A running (or finished) build. Dropping it asks the build to stop at its next check and waits
/// for its thread, so no build outlives its world.
pub(crate) struct MeshShapeBuild {
    shared: Arc<Shared>,
    thread: Option<os_thread::Thread>,
}

impl MeshShapeBuild {
    /// Check what reading the arrays finds ([`MeshShape::validate`]), copy them and start the
    /// build on a new thread, split over `threads` threads of a pool of its own (1: that thread
    /// alone). If no thread can be started the build runs here. Errors: those of
    /// [`MeshShape::validate`]; the others come from [`Self::take`].
    pub fn start(desc: &MeshShapeDesc, threads: usize) -> Result<MeshShapeBuild, ClothError> {
        MeshShape::validate(desc)?;
        // Shared, so that the job can be cloned for the fallback without copying the mesh again.
        let input = Arc::new((desc.positions.to_vec(), desc.triangles.to_vec()));
        let (cell_size, closed) = (desc.cell_size, desc.closed);
        let shared = Arc::new(Shared { progress: Progress::new(), result: Mutex::new(None) });
        let job = {
            let shared = shared.clone();
            move || {
                crate::fp_env::set_default_fp_env();
                let desc = MeshShapeDesc { positions: &input.0, triangles: &input.1, cell_size, closed };
                let pool = if threads > 1 { WorkerPool::new(threads) } else { None };
                let built = match &pool {
                    Some(pool) => pool.install(|| MeshShape::build_validated(&desc, true, &shared.progress)),
                    None => MeshShape::build_validated(&desc, false, &shared.progress),
                };
                shared.progress.set(1.0);
                *shared.result.lock().unwrap_or_else(|e| e.into_inner()) = Some(built);
            }
        };
        let thread = match os_thread::spawn(Some("xpbd-cloth-mesh-shape".into()), Box::new(job.clone())) {
            Ok(thread) => Some(thread),
            Err(_) => {
                job();
                None
            }
        };
        Ok(MeshShapeBuild { shared, thread })
    }

    /// Build progress in 0..=1 (1 once finished, successfully or not).
    pub fn progress(&self) -> f32 {
        self.shared.progress.get()
    }

    /// The result once the build has ended (its thread joined), `None` while it runs; the result
    /// is handed out once.
    pub fn take(&mut self) -> Option<Result<MeshShape, ClothError>> {
        let result = self.shared.result.lock().unwrap_or_else(|e| e.into_inner()).take()?;
        if let Some(thread) = self.thread.take() {
            thread.join();
        }
        Some(result)
    }
}

#[cfg(test)]
impl MeshShapeBuild {
    /// A build that runs until [`Self::finish`] gives its result: lets tests step a world while a
    /// shape is pending, deterministically.
    pub fn held() -> MeshShapeBuild {
        MeshShapeBuild { shared: Arc::new(Shared { progress: Progress::new(), result: Mutex::new(None) }), thread: None }
    }

    /// End a [`Self::held`] build with `result`.
    pub fn finish(&self, result: Result<MeshShape, ClothError>) {
        *self.shared.result.lock().unwrap() = Some(result);
    }

    /// Another handle on the same build, for [`Self::finish`] after the world took the first.
    pub fn handle(&self) -> MeshShapeBuild {
        MeshShapeBuild { shared: self.shared.clone(), thread: None }
    }
}

impl Drop for MeshShapeBuild {
    fn drop(&mut self) {
        self.shared.progress.cancel();
        if let Some(thread) = self.thread.take() {
            thread.join();
        }
    }
}
