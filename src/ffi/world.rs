//! World exports: create, destroy, step, gravity.

use super::args::{OutParam, required};
use super::boundary::ffi_boundary;
use super::error::{FfiError, XpbdResult};
use super::ids::{MAX_CLOTHS_PER_WORLD, XpbdClothId, XpbdWorldId, object_slot};
use super::registry::{insert_world, remove_world, with_shared, with_world, world_error};
use crate::error::{ClothError, unstable_message};
use crate::world::{World, WorldDesc};

/// Settings of a world. Get one from `xpbd_default_world_desc()` and change what you need.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct XpbdWorldDesc {
    /// Gravity in m/s^2, each component finite within +-1e6. Default (0, -9.81, 0): Y up.
    pub gravity: [f32; 3],
    /// Substeps per step n, 1..=1000 (substep h = dt/n), for cloths that do not set their own.
    /// Default 10.
    pub substeps: u32,
    /// Solver iterations per substep, 1..=1000. Default 1 (more substeps beat more iterations).
    pub iterations: u32,
    /// Worker threads that step the world's cloths in parallel, 0..=256: 0 = one per core,
    /// 1 = only the thread that calls `xpbd_world_step` (no worker threads are created; the first
    /// `xpbd_world_step_begin` starts the world's one stepping thread all the same). Results are
    /// bitwise identical for every value. Default 0.
    pub thread_count: u32,
}

impl From<WorldDesc> for XpbdWorldDesc {
    fn from(d: WorldDesc) -> Self {
        XpbdWorldDesc {
            gravity: d.gravity,
            substeps: d.substeps,
            iterations: d.iterations,
            thread_count: d.thread_count,
        }
    }
}

impl From<&XpbdWorldDesc> for WorldDesc {
    fn from(d: &XpbdWorldDesc) -> Self {
        WorldDesc { gravity: d.gravity, substeps: d.substeps, iterations: d.iterations, thread_count: d.thread_count }
    }
}

/// Default world settings: gravity (0, -9.81, 0) m/s^2, 10 substeps, 1 iteration, one thread per
/// core. Never fails. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_default_world_desc() -> XpbdWorldDesc {
    WorldDesc::default().into()
}

/// Create a world and write its id to `*out_world`.
///
/// `desc` is read during the call only. Errors: `XPBD_RESULT_NULL_POINTER` (`desc` or
/// `out_world` NULL), `XPBD_RESULT_INVALID_ARGUMENT` (a gravity component not finite or beyond
/// +-1e6 m/s^2, substeps or iterations outside 1..=1000, thread_count above 256), `XPBD_RESULT_CAPACITY_EXCEEDED`. On error
/// `*out_world` is not written and nothing is created. Thread-safe.
///
/// # Safety
/// `desc` points to a valid `XpbdWorldDesc`; `out_world` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_world_create(desc: *const XpbdWorldDesc, out_world: *mut XpbdWorldId) -> XpbdResult {
    ffi_boundary("xpbd_world_create", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let (desc, out) = unsafe { (required(desc, "desc")?, OutParam::new(out_world, "out_world")?) };
        let world = World::new(desc.into())?;
        out.write(insert_world(world)?);
        Ok(())
    })
}

/// Destroy a world and every cloth and collider in it. Their ids become invalid at once; if
/// another thread is inside a call on this world, destroy waits for that call to finish. When it
/// returns, the world's memory is freed and its worker threads have ended: joined, and on Linux
/// no longer listed in /proc/self/task. Once every world is destroyed the library keeps no thread
/// and no thread-local destructor, so `dlclose` unloads it (an editor's hot reload). May be called
/// from any thread (e.g. a garbage collector's finalizer thread), also on a poisoned world. No
/// caller code ever runs on a world's worker threads, so destroy is never called from one.
///
/// Errors: `XPBD_RESULT_INVALID_ID` (null, already destroyed, or forged id).
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_world_destroy(world: XpbdWorldId) -> XpbdResult {
    ffi_boundary("xpbd_world_destroy", || remove_world(world))
}

/// Advance every cloth of the world by one fixed step of `dt` seconds (1e-5 <= dt <= 1), each with
/// its own (or the world's) substeps; cloths run in parallel on the world's threads, and the
/// result does not depend on the thread count. Pin targets set before the call are reached at
/// the end of it.
///
/// Before its step each cloth is carried rigidly by the share of its pins' translation that its
/// `inertia_scale` leaves out; after it each cloth is checked by its explosion guard
/// (`max_particle_speed`, `unstable_recovery`).
///
/// Floating-point mode: like every function of this library that computes, the step runs in the
/// default x86-64 SSE mode (round to nearest, no flush-to-zero or denormals-are-zero, exceptions
/// masked) whatever the calling thread's mode, and gives the thread its own mode back on return,
/// so an engine's FTZ/DAZ setting changes no bit.
///
/// Errors: `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`, `XPBD_RESULT_INVALID_ARGUMENT`
/// (dt < 1e-5 s, NaN or > 1 s; nothing moves), `XPBD_RESULT_SIMULATION_UNSTABLE` (one or more cloths
/// failed their guard: every cloth has stepped, the unstable ones were put back as their
/// `unstable_recovery` says; the message names the first one's id, `xpbd_cloth_get_status` reads
/// each cloth's details), `XPBD_RESULT_STEP_IN_PROGRESS` (between `xpbd_world_step_begin` and
/// `xpbd_world_step_end`; nothing moves).
///
/// Threads: thread-safe; other calls on this world wait for the step, except the render reads
/// (`xpbd_cloth_read_positions`, `xpbd_cloth_read_normals`, their `_interpolated` forms,
/// `xpbd_cloth_write_vertices`, `xpbd_cloth_get_bounds`), which return at once with the state
/// before the step (double buffered: the step first copies it, positions and normals).
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_world_step(world: XpbdWorldId, dt: f32) -> XpbdResult {
    ffi_boundary("xpbd_world_step", || with_shared(world, |w| w.step(dt))?.map_err(|e| step_error(world, e)))
}

/// A step's error as C sees it: `SimulationUnstable` names the cloth by its id; a world destroyed
/// meanwhile is an invalid id.
pub(crate) fn step_error(world: XpbdWorldId, error: ClothError) -> FfiError {
    match error {
        ClothError::SimulationUnstable { cloth, instability, unstable_cloths } => {
            let id = object_slot(cloth.index, cloth.generation, MAX_CLOTHS_PER_WORLD)
                .map_or(0, |(index, generation)| XpbdClothId::pack(world, index, generation).id);
            let name = format!("cloth {id:#018x}");
            FfiError::new(XpbdResult::SimulationUnstable, unstable_message(&name, &instability, unstable_cloths))
        }
        other => world_error(world, other),
    }
}

/// Start `xpbd_world_step(world, dt)` on the world's own thread and return at once, so the
/// caller's thread works while the world steps; `xpbd_world_step_end` waits for it and returns its
/// result. The thread (one per world, named `xpbd-cloth-step`) is started by the first call and
/// ended by `xpbd_world_destroy`; with `thread_count` > 1 it hands the cloths to the world's
/// worker threads as `xpbd_world_step` does. If the system refuses the thread, the step runs on
/// the calling thread before this returns (the result is still returned by `step_end`).
///
/// Until `xpbd_world_step_end`: the render reads of the world's cloths
/// (`xpbd_cloth_read_positions`, `xpbd_cloth_read_normals`, their `_interpolated` forms,
/// `xpbd_cloth_write_vertices`, `xpbd_cloth_get_bounds`) return at once the state as it was when
/// this was called (also once the step has finished), bit for bit what they returned just before
/// it; every other call on the world or its cloths waits until the step has finished and then
/// works on the stepped world; `xpbd_world_step`, `xpbd_world_advance` and a second
/// `xpbd_world_step_begin` are refused; `xpbd_world_destroy` waits for the step and drops the
/// world (the result is lost).
///
/// Errors (nothing starts, nothing changes): `XPBD_RESULT_STEP_IN_PROGRESS` (a step or advance
/// begun and not ended), `XPBD_RESULT_INVALID_ARGUMENT` (dt < 1e-5 s, NaN or > 1 s), `XPBD_RESULT_INVALID_ID`,
/// `XPBD_RESULT_WORLD_POISONED`. Thread-safe; waits first for a step another thread runs.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_world_step_begin(world: XpbdWorldId, dt: f32) -> XpbdResult {
    ffi_boundary("xpbd_world_step_begin", || with_shared(world, |w| w.step_begin(dt))?.map_err(|e| step_error(world, e)))
}

/// Wait for the step `xpbd_world_step_begin` started and return what `xpbd_world_step` would have
/// returned for it: `XPBD_RESULT_OK`, or `XPBD_RESULT_SIMULATION_UNSTABLE` (every cloth stepped;
/// see `xpbd_world_step`). The state is bitwise the one `xpbd_world_step(world, dt)` leaves. From
/// its return on, reads return the stepped state. It also ends an `xpbd_world_advance_begin`
/// (without its outputs: use `xpbd_world_advance_end` for them).
///
/// Errors: `XPBD_RESULT_STEP_NOT_BEGUN` (no `xpbd_world_step_begin` since the last
/// `xpbd_world_step_end`; nothing changes), `XPBD_RESULT_PANIC` (the step panicked: a bug; the
/// world is poisoned from then on), `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`.
/// Thread-safe: any thread may end a step another thread began.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_world_step_end(world: XpbdWorldId) -> XpbdResult {
    ffi_boundary("xpbd_world_step_end", || with_shared(world, |w| w.step_end())?.map_err(|e| step_error(world, e)))
}

/// Set the world's gravity in m/s^2 (x, y, z), used from the next step on.
///
/// Errors: `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`, `XPBD_RESULT_INVALID_ARGUMENT`
/// (a component NaN, infinite or beyond +-1e6 m/s^2; gravity unchanged). Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_world_set_gravity(world: XpbdWorldId, x: f32, y: f32, z: f32) -> XpbdResult {
    ffi_boundary("xpbd_world_set_gravity", || with_world(world, |w| Ok(w.set_gravity([x, y, z])?)))
}

/// For tests, not part of the C ABI: hold every step of `world` that finishes from now on before
/// it gives the world back, until the hold is dropped (see `SharedWorld::hold_steps`). `None` for
/// an invalid id.
#[doc(hidden)]
pub fn hold_world_steps(world: XpbdWorldId) -> Option<crate::shared_world::StepHold> {
    with_shared(world, |w| w.hold_steps()).ok()
}
