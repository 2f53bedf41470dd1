//! A world's worker threads: a rayon pool whose threads are joined when it is dropped.
//!
//! Dropping a `rayon::ThreadPool` only tells its threads to stop; they finish on their own a
//! little later, still running this library's code. `xpbd_world_destroy` promises that the
//! world's threads are gone when it returns, and a plugin unloaded right after (`dlclose`, an
//! editor's hot reload) must not leave a thread executing unmapped code. So the threads are
//! spawned here with their handles kept, and dropping a [`WorkerPool`] stops and joins them.
//!
//! On Linux they are plain POSIX threads rather than `std::thread`s: `std::thread::spawn` gives
//! the *spawning* thread a thread-local with a destructor (std's spawn hooks), registered with
//! glibc against this library, and glibc keeps a library mapped after `dlclose` while any thread
//! has such a destructor pending. The spawning thread is the caller's (an engine's main thread),
//! which outlives the library. Elsewhere `std::thread` is used; unloading is tested on Linux only
//! (`tests/c_abi_unload.rs`), and macOS never unmaps a library that has thread-locals anyway.
//!
//! Dropped on one of its own threads, a pool cannot wait for that thread (nor, safely, for the
//! others, which may be waiting for the job that thread is in): it tells them all to stop and
//! returns without joining. Nothing in this crate drops a world there, and no caller code runs
//! on those threads, so neither the C ABI nor the Rust API can reach that case.

/// A rayon pool plus its threads' handles. Derefs to the pool.
pub(crate) struct WorkerPool {
    // Declaration order is drop order: the pool first (its threads are told to stop), then the
    // joiner (waits for them).
    pool: rayon::ThreadPool,
    threads: Joiner,
}

/// Joins its threads when dropped, or detaches them if `detach` was set.
struct Joiner {
    threads: Vec<os_thread::Thread>,
    detach: bool,
}

impl WorkerPool {
    /// A pool of `thread_count` threads (0 = one per core, as rayon counts them) named
    /// `xpbd-cloth-<i>`, each started in the default floating-point mode (`crate::fp_env`).
    /// `None` if the system refuses a thread; the threads already started are then joined.
    pub fn new(thread_count: usize) -> Option<WorkerPool> {
        let mut threads = Vec::new();
        let built = rayon::ThreadPoolBuilder::new()
            .num_threads(thread_count)
            .thread_name(|i| format!("xpbd-cloth-{i}"))
            .start_handler(|_| crate::fp_env::set_default_fp_env())
            .spawn_handler(|thread| {
                let name = thread.name().map(str::to_owned);
                threads.push(os_thread::spawn(name, Box::new(|| thread.run()))?);
                Ok(())
            })
            .build();
        let threads = Joiner { threads, detach: false };
        // On an error rayon has already told the threads it started to stop: `threads` joins them.
        built.ok().map(|pool| WorkerPool { pool, threads })
    }
}

impl std::ops::Deref for WorkerPool {
    type Target = rayon::ThreadPool;

    fn deref(&self) -> &rayon::ThreadPool {
        &self.pool
    }
}

impl Drop for WorkerPool {
    fn drop(&mut self) {
        // On one of our own threads (see the module comment): stop them, wait for none.
        self.threads.detach = self.pool.current_thread_index().is_some();
    }
}

impl Drop for Joiner {
    fn drop(&mut self) {
        for thread in self.threads.drain(..) {
            if self.detach {
                thread.detach();
            } else {
                thread.join();
            }
        }
    }
}

/// Threads started without `std::thread` on Linux (see the module comment), with std's elsewhere.
#[cfg(target_os = "linux")]
pub(crate) mod os_thread {
    use std::ffi::{CString, c_char, c_int, c_ulong, c_void};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::{io, ptr};

    /// glibc's and musl's `pthread_t` on Linux.
    #[allow(non_camel_case_types)]
    type pthread_t = c_ulong;

    // The POSIX functions, from the C library std already links. `attr` is a `pthread_attr_t *`;
    // only NULL (default attributes) is passed.
    unsafe extern "C" {
        fn pthread_create(
            thread: *mut pthread_t,
            attr: *const c_void,
            start: extern "C" fn(*mut c_void) -> *mut c_void,
            arg: *mut c_void,
        ) -> c_int;
        fn pthread_join(thread: pthread_t, retval: *mut *mut c_void) -> c_int;
        fn pthread_detach(thread: pthread_t) -> c_int;
        fn pthread_self() -> pthread_t;
        fn pthread_setname_np(thread: pthread_t, name: *const c_char) -> c_int;
        fn setpriority(which: c_int, who: u32, prio: c_int) -> c_int;
    }

    /// Give the calling thread a low scheduling priority (nice 10, about a tenth of the share of a
    /// normal thread on a busy core; on Linux the nice value is per thread): it runs mostly on the
    /// cores the others leave, and is not starved by them. A refusal leaves it as it was.
    pub fn lower_priority() {
        // SAFETY: PRIO_PROCESS (0) with `who` 0 is the calling thread; no pointer is passed.
        unsafe { setpriority(0, 0, 10) };
    }

    /// A joinable thread; [`Thread::join`] or [`Thread::detach`] consumes it, so each happens once.
    pub struct Thread {
        thread: pthread_t,
        /// The kernel's id of the thread, written by the thread as it starts; 0 if unknown.
        tid: Arc<AtomicU32>,
    }

    /// What a new thread receives: its name, where to write its kernel id, and what it runs.
    struct Start {
        name: Option<CString>,
        tid: Arc<AtomicU32>,
        run: Box<dyn FnOnce() + Send>,
    }

    /// Start a thread named `name` (the OS keeps at most 15 bytes) that runs `run`.
    pub fn spawn(name: Option<String>, run: Box<dyn FnOnce() + Send>) -> io::Result<Thread> {
        let name = name.and_then(|n| CString::new(n).ok());
        let tid = Arc::new(AtomicU32::new(0));
        let arg = Box::into_raw(Box::new(Start { name, tid: Arc::clone(&tid), run })).cast::<c_void>();
        let mut thread: pthread_t = 0;
        // SAFETY: `thread` is writable, NULL asks for default attributes, and `arg` is a leaked
        // `Box<Start>` that `thread_start` takes back, once, on the new thread.
        let error = unsafe { pthread_create(&mut thread, ptr::null(), thread_start, arg) };
        if error != 0 {
            // SAFETY: no thread was created, so nothing else owns `arg`.
            drop(unsafe { Box::from_raw(arg.cast::<Start>()) });
            return Err(io::Error::from_raw_os_error(error));
        }
        Ok(Thread { thread, tid })
    }

    /// The new thread's entry point. A panic out of `run` would abort here (an `extern "C"`
    /// function does not unwind); rayon's worker loop never lets one out.
    extern "C" fn thread_start(arg: *mut c_void) -> *mut c_void {
        // SAFETY: `arg` is the `Box<Start>` that `spawn` leaked for this thread alone.
        let start = unsafe { Box::from_raw(arg.cast::<Start>()) };
        if let Some(name) = &start.name {
            // SAFETY: `name` is NUL-terminated and outlives the call; a name the OS refuses
            // (longer than 15 bytes) only leaves the thread unnamed.
            unsafe { pthread_setname_np(pthread_self(), name.as_ptr()) };
        }
        start.tid.store(kernel_thread_id().unwrap_or(0), Ordering::Relaxed);
        (start.run)();
        ptr::null_mut()
    }

    /// The calling thread's kernel id, from the `/proc/thread-self` link (`PID/task/TID`).
    /// `None` without procfs.
    fn kernel_thread_id() -> Option<u32> {
        let link = std::fs::read_link("/proc/thread-self").ok()?;
        link.file_name()?.to_str()?.parse().ok()
    }

    impl Thread {
        /// Wait until the thread has ended, its thread-local destructors included, and the
        /// kernel has taken it off the process's thread list (`/proc/self/task`).
        pub fn join(self) {
            // SAFETY: the thread was created joinable and `self` is consumed: joined once, never
            // detached. It cannot be the calling thread (`WorkerPool` detaches in that case).
            let error = unsafe { pthread_join(self.thread, ptr::null_mut()) };
            debug_assert_eq!(error, 0, "pthread_join");
            // The join returns once the exiting thread has left the address space (the kernel
            // clears the id the join waits on then), a few microseconds before the kernel lists
            // it no more. Wait for that as well, so that a thread count read after a destroy is
            // back where it was. The thread runs no code of ours any more; the bound only
            // matters if its id were reused meanwhile.
            let tid = self.tid.load(Ordering::Relaxed);
            if tid != 0 {
                let entry = format!("/proc/self/task/{tid}");
                for _ in 0..100_000 {
                    if std::fs::symlink_metadata(&entry).is_err() {
                        break;
                    }
                    std::thread::yield_now();
                }
            }
        }

        /// Let the thread end on its own; the system frees it then.
        pub fn detach(self) {
            // SAFETY: the thread was created joinable and `self` is consumed: detached once,
            // never joined.
            unsafe { pthread_detach(self.thread) };
        }
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) mod os_thread {
    use std::io;
    use std::thread::JoinHandle;

    /// A joinable thread; [`Thread::join`] or [`Thread::detach`] consumes it.
    pub struct Thread(JoinHandle<()>);

    /// Lower the calling thread's priority: not done here (the Linux build does it).
    pub fn lower_priority() {}

    /// Start a thread named `name` that runs `run`.
    pub fn spawn(name: Option<String>, run: Box<dyn FnOnce() + Send>) -> io::Result<Thread> {
        let mut builder = std::thread::Builder::new();
        if let Some(name) = name {
            builder = builder.name(name);
        }
        Ok(Thread(builder.spawn(run)?))
    }

    impl Thread {
        /// Wait until the thread has ended. A rayon worker never unwinds out of its loop, so
        /// there is no panic to pass on.
        pub fn join(self) {
            let _ = self.0.join();
        }

        /// Let the thread end on its own.
        pub fn detach(self) {
            drop(self.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::sync::{Arc, mpsc};

    thread_local! {
        /// A clone of the test's `Arc`, dropped by the thread-local destructors as a thread ends.
        static KEEP: RefCell<Option<Arc<()>>> = const { RefCell::new(None) };
    }

    #[test]
    fn dropping_the_pool_joins_every_thread() {
        let alive = Arc::new(());
        let pool = WorkerPool::new(3).unwrap();
        assert_eq!(pool.current_num_threads(), 3);
        pool.broadcast(|_| KEEP.with(|k| *k.borrow_mut() = Some(Arc::clone(&alive))));
        assert_eq!(Arc::strong_count(&alive), 4);
        drop(pool);
        // Each thread ran its thread-local destructors, the last thing a thread does: all ended.
        assert_eq!(Arc::strong_count(&alive), 1);
    }

    #[test]
    fn dropped_on_its_own_thread_it_returns_without_joining() {
        let pool = Arc::new(WorkerPool::new(2).unwrap());
        let (main_dropped, wait_for_main) = mpsc::channel();
        let (job_done, wait_for_job) = mpsc::channel();
        let last = Arc::clone(&pool);
        pool.spawn(move || {
            wait_for_main.recv().unwrap();
            let on_own_thread = last.current_thread_index().is_some();
            drop(last); // the last reference: the pool is dropped here, on its own thread
            job_done.send(on_own_thread).unwrap();
        });
        drop(pool);
        main_dropped.send(()).unwrap();
        // The drop returned (a join of its own thread would never return, or panic).
        assert_eq!(wait_for_job.recv(), Ok(true));
    }
}
