//! Stress (docs/robustness.md, "Testing the C ABI"): 8 threads hammer 8 worlds of their own plus
//! one shared world through the C ABI — create, pin, step (also asynchronously, reading inside
//! the bracket), read, move colliders, destroy — while thread 0 keeps replacing the shared world
//! under the others. Checks: no error except the expected `XPBD_RESULT_INVALID_ID` on a shared
//! world that was just replaced and, on the shared world, `XPBD_RESULT_STEP_IN_PROGRESS` (another
//! thread's bracket is open) and `XPBD_RESULT_STEP_NOT_BEGUN` (another thread ended ours); every
//! read sees a whole state, no deadlock (the workers finish within a generous bound), and no leak:
//! live counts return to zero and the bytes held through the global allocator return to their
//! level before the test.
//!
//! Runs `XPBD_STRESS_SECONDS` seconds (default 2; the documented long run is 20:
//! `XPBD_STRESS_SECONDS=20 cargo test --profile ci --test abi_stress -- --nocapture`).
//! One test in its own binary: the live counts and the allocator are process-wide.

mod ffi_common;

use ffi_common::hanging_grid;
use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::{Duration, Instant};
use xpbd_cloth::ffi::*;

/// The system allocator, counting the bytes currently allocated through it.
struct LiveBytes;

static LIVE_BYTES: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call unchanged to `System`, which upholds the `GlobalAlloc` contract;
// the counter is only arithmetic on the side.
unsafe impl GlobalAlloc for LiveBytes {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's `alloc` contract is passed on.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE_BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `System.alloc` with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's `realloc` contract is passed on.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE_BYTES.fetch_add(new_size, Ordering::Relaxed);
            LIVE_BYTES.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: LiveBytes = LiveBytes;

const THREADS: usize = 8;
const DT: f32 = 1.0 / 60.0;

/// The id of the current shared world (thread 0 replaces it: create new, publish, destroy old).
static SHARED: AtomicU64 = AtomicU64::new(0);

/// Calls made, by (function, result code as its `int32_t` value).
type Tally = BTreeMap<(&'static str, i32), u64>;

struct Worker {
    tally: Tally,
    /// Unexpected results, with their message.
    errors: Vec<String>,
}

impl Worker {
    /// Record `got` from `function`; `allowed` lists the acceptable error codes besides OK.
    fn check(&mut self, function: &'static str, got: XpbdResult, allowed: &[XpbdResult]) -> bool {
        *self.tally.entry((function, got as i32)).or_default() += 1;
        if got != XpbdResult::Ok && !allowed.contains(&got) && self.errors.len() < 20 {
            self.errors.push(format!("{function} -> {got:?}: {}", last_error()));
        }
        got == XpbdResult::Ok
    }

    /// The codes a call on an object in the shared world may return: `INVALID_ID` only once the
    /// world it was created in is no longer the published one (thread 0 publishes the new world
    /// before destroying the old, so a call that failed on a destroyed world sees it replaced).
    fn shared_allowed(world: XpbdWorldId) -> &'static [XpbdResult] {
        match SHARED.load(Ordering::SeqCst) == world.id {
            true => &[],
            false => &[XpbdResult::InvalidId],
        }
    }
}

fn last_error() -> String {
    let mut buf = vec![0 as std::ffi::c_char; 512];
    // SAFETY: buf holds 512 writable bytes; the library NUL-terminates within them.
    unsafe {
        xpbd_last_error_message(buf.as_mut_ptr(), buf.len());
        std::ffi::CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned()
    }
}

fn create_world(w: &mut Worker, thread_count: u32) -> XpbdWorldId {
    let desc = XpbdWorldDesc { thread_count, substeps: 4, ..xpbd_default_world_desc() };
    let mut id = XpbdWorldId::default();
    // SAFETY: valid descriptor and out-parameter.
    w.check("xpbd_world_create", unsafe { xpbd_world_create(&desc, &mut id) }, &[]);
    id
}

/// An n × n hanging cloth in `world`, its top corners fixed from creation on (inverse mass 0: in
/// the shared world other threads may step between two calls of this one) and its top row
/// pinned where it is; `allowed(world)` lists the errors acceptable once a call has returned.
/// `None` when creation failed so.
fn create_cloth(
    w: &mut Worker,
    world: XpbdWorldId,
    n: usize,
    allowed: fn(XpbdWorldId) -> &'static [XpbdResult],
) -> Option<XpbdClothId> {
    let (positions, indices) = hanging_grid(n);
    let mut inverse_masses = vec![1.0f32; n * n];
    (inverse_masses[0], inverse_masses[n - 1]) = (0.0, 0.0);
    let desc = XpbdClothDesc {
        positions: positions.as_ptr().cast(),
        vertex_count: positions.len() as u32,
        indices: indices.as_ptr(),
        triangle_count: (indices.len() / 3) as u32,
        inverse_masses: inverse_masses.as_ptr(),
        ..xpbd_default_cloth_desc()
    };
    let mut id = XpbdClothId::default();
    // SAFETY: the arrays hold the counts in `desc`; valid out-parameter.
    if !w.check("xpbd_cloth_create", unsafe { xpbd_cloth_create(world, &desc, &mut id) }, allowed(world)) {
        return None;
    }
    let top_row: Vec<u32> = (1..n as u32 - 1).collect();
    // SAFETY: `top_row.len()` vertex indices, NULL targets.
    let got = unsafe { xpbd_cloth_set_pinned(id, top_row.as_ptr(), top_row.len() as u32, std::ptr::null()) };
    w.check("xpbd_cloth_set_pinned", got, allowed(world));
    Some(id)
}

/// Read positions and check that the state is whole: finite, and the top corners (fixed since
/// creation) exactly in place.
fn read_and_check(w: &mut Worker, cloth: XpbdClothId, n: usize, allowed: fn(XpbdWorldId) -> &'static [XpbdResult]) {
    let world = XpbdWorldId { id: cloth.id & 0xFFFF_FFFF }; // the low 32 bits of a cloth id
    let mut out = vec![[f32::NAN; 3]; n * n];
    // SAFETY: `out` holds n*n 3-vectors.
    let got = unsafe { xpbd_cloth_read_positions(cloth, out.as_mut_ptr().cast(), (n * n) as u32) };
    if w.check("xpbd_cloth_read_positions", got, allowed(world)) {
        let finite = out.iter().flatten().all(|c| c.is_finite());
        if !finite || out[0] != [0.0, 1.0, 0.0] || out[n - 1] != [1.0, 1.0, 0.0] {
            w.errors.push(format!(
                "torn or diverged state in a cloth of world {:#x}: corners {:?} {:?}, finite {finite}",
                world.id,
                out[0],
                out[n - 1]
            ));
        }
    }
}

fn work(index: usize, deadline: Instant) -> Worker {
    let mut w = Worker { tally: Tally::new(), errors: Vec::new() };
    let own = create_world(&mut w, if index == 0 { 2 } else { 1 });
    let mut own_cloths: Vec<(XpbdClothId, usize)> = Vec::new();
    let mut round = 0usize;
    while Instant::now() < deadline {
        round += 1;
        let n = 4 + (index + round) % 5;
        // Own world: keep up to three cloths, create one, step, read all, destroy the oldest.
        if let Some(c) = create_cloth(&mut w, own, n, |_| &[]) {
            own_cloths.push((c, n));
        }
        let mut sphere = XpbdColliderId::default();
        let desc = XpbdColliderDesc { position: [0.5, 0.3, 0.2], radius: 0.2, ..xpbd_default_collider_desc() };
        // SAFETY: valid descriptor and out-parameter.
        w.check("xpbd_collider_create", unsafe { xpbd_collider_create(own, &desc, &mut sphere) }, &[]);
        for k in 0..3 {
            let (p, q) = ([0.5, 0.3, 0.2 - 0.1 * k as f32], [0.0, 0.0, 0.0, 1.0]);
            // SAFETY: 3 and 4 floats.
            w.check("xpbd_collider_set_pose", unsafe { xpbd_collider_set_pose(sphere, p.as_ptr(), q.as_ptr()) }, &[]);
            if k == 1 {
                // An asynchronous step: the reads in between answer from the copy at once.
                w.check("xpbd_world_step_begin", xpbd_world_step_begin(own, DT), &[]);
                for &(c, n) in &own_cloths {
                    read_and_check(&mut w, c, n, |_| &[]);
                }
                w.check("xpbd_world_step_end", xpbd_world_step_end(own), &[]);
            } else {
                w.check("xpbd_world_step", xpbd_world_step(own, DT), &[]);
            }
        }
        for &(c, n) in &own_cloths {
            read_and_check(&mut w, c, n, |_| &[]);
        }
        w.check("xpbd_collider_destroy", xpbd_collider_destroy(sphere), &[]);
        if own_cloths.len() > 3 {
            let (c, _) = own_cloths.remove(0);
            w.check("xpbd_cloth_destroy", xpbd_cloth_destroy(c), &[]);
        }

        // Shared world: thread 0 replaces it every 8th round; every thread adds a cloth, steps
        // the whole world, reads its cloth and destroys it.
        if index == 0 && round.is_multiple_of(8) {
            let new = create_world(&mut w, 1);
            let old = XpbdWorldId { id: SHARED.swap(new.id, Ordering::SeqCst) };
            w.check("xpbd_world_destroy", xpbd_world_destroy(old), &[]);
        }
        let shared = XpbdWorldId { id: SHARED.load(Ordering::SeqCst) };
        let n = 4;
        if let Some(c) = create_cloth(&mut w, shared, n, Worker::shared_allowed) {
            // Another thread may be inside a step_begin..step_end bracket of the shared world
            // (refusing steps) or may end this thread's bracket first.
            // The codes allowed besides those, decided after the call (as `shared_allowed`).
            let or_replaced = |world, code| match Worker::shared_allowed(world).is_empty() {
                true => vec![code],
                false => vec![XpbdResult::InvalidId, code],
            };
            if round.is_multiple_of(2) {
                let got = xpbd_world_step(shared, DT);
                w.check("xpbd_world_step", got, &or_replaced(shared, XpbdResult::StepInProgress));
                read_and_check(&mut w, c, n, Worker::shared_allowed);
            } else {
                let got = xpbd_world_step_begin(shared, DT);
                w.check("xpbd_world_step_begin", got, &or_replaced(shared, XpbdResult::StepInProgress));
                read_and_check(&mut w, c, n, Worker::shared_allowed);
                let got = xpbd_world_step_end(shared);
                w.check("xpbd_world_step_end", got, &or_replaced(shared, XpbdResult::StepNotBegun));
            }
            w.check("xpbd_cloth_destroy", xpbd_cloth_destroy(c), Worker::shared_allowed(shared));
        }
    }
    w.check("xpbd_world_destroy", xpbd_world_destroy(own), &[]);
    // Its cloths went with it: their ids are now rejected.
    for (c, _) in own_cloths {
        w.check("xpbd_cloth_destroy (after its world)", xpbd_cloth_destroy(c), &[XpbdResult::InvalidId]);
    }
    w
}

fn live_counts() -> [u32; 3] {
    let mut n = [u32::MAX; 3];
    let [a, b, c] = &mut n;
    // SAFETY: valid out-parameters.
    let codes = unsafe { [xpbd_live_world_count(a), xpbd_live_cloth_count(b), xpbd_live_collider_count(c)] };
    assert_eq!(codes, [XpbdResult::Ok; 3]);
    n
}

#[test]
fn eight_threads_on_own_and_shared_worlds_finish_without_error_deadlock_or_leak() {
    let seconds: f64 = std::env::var("XPBD_STRESS_SECONDS").map_or(2.0, |s| s.parse().expect("XPBD_STRESS_SECONDS"));
    assert_eq!(live_counts(), [0; 3]);
    let bytes_before = LIVE_BYTES.load(Ordering::SeqCst);

    let mut main = Worker { tally: Tally::new(), errors: Vec::new() };
    SHARED.store(create_world(&mut main, 1).id, Ordering::SeqCst);
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let (done_tx, done_rx) = mpsc::channel();
    let results = Arc::new(Mutex::new(Vec::new()));
    let mut handles = Vec::new();
    for index in 0..THREADS {
        let (done_tx, results) = (done_tx.clone(), Arc::clone(&results));
        handles.push(thread::spawn(move || {
            let w = work(index, deadline);
            results.lock().unwrap().push(w);
            done_tx.send(()).unwrap();
        }));
    }
    // A deadlock shows as workers that never report: fail instead of hanging the suite.
    let bound = Duration::from_secs_f64(seconds + 60.0);
    for finished in 0..THREADS {
        let waited = done_rx.recv_timeout(bound);
        assert!(waited.is_ok(), "deadlock: only {finished} of {THREADS} workers finished within {bound:?}");
    }
    // All have reported: joining returns at once and releases their thread-local state.
    handles.into_iter().for_each(|h| h.join().expect("worker"));
    main.check("xpbd_world_destroy", xpbd_world_destroy(XpbdWorldId { id: SHARED.load(Ordering::SeqCst) }), &[]);

    let workers = std::mem::take(&mut *results.lock().unwrap());
    let mut tally = main.tally;
    let mut errors = main.errors;
    for w in workers {
        for (key, count) in w.tally {
            *tally.entry(key).or_default() += count;
        }
        errors.extend(w.errors);
    }
    let total: u64 = tally.values().sum();
    let expected_rejections: u64 =
        tally.iter().filter(|((_, code), _)| *code == XpbdResult::InvalidId as i32).map(|(_, n)| n).sum();
    let steps: u64 = tally.iter().filter(|((f, c), _)| *f == "xpbd_world_step" && *c == 0).map(|(_, n)| n).sum();
    println!(
        "{seconds} s, {THREADS} threads: {total} calls, {steps} successful steps, {expected_rejections} INVALID_ID"
    );
    for ((function, code), n) in &tally {
        println!("  {function:<40} result {code}: {n}");
    }
    assert!(errors.is_empty(), "unexpected results:\n{}", errors.join("\n"));
    assert!(steps >= THREADS as u64 * 4, "only {steps} steps: the workers did not run");

    assert_eq!(live_counts(), [0; 3], "objects alive after every world was destroyed");
    // Bytes still held once the test's own bookkeeping is gone: the library's world table keeps
    // one small slot per world that was ever alive at once, plus its free list; a leaked cloth
    // alone is kilobytes, and the run creates thousands.
    drop((tally, errors, results, done_rx, done_tx));
    let bytes_after = LIVE_BYTES.load(Ordering::SeqCst);
    let grown = bytes_after as i64 - bytes_before as i64;
    println!("heap: {bytes_before} bytes before, {bytes_after} after ({grown:+})");
    assert!(grown < 32 * 1024, "{grown} bytes more allocated after the run than before it");
}
