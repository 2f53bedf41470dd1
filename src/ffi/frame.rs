//! The engine's frame loop: fixed steps with an accumulator, interpolated reads between the last
//! two step states, interleaved vertex buffers, bounds, particle writes (docs/c-cpp.md, "The frame
//! loop").

use super::args::{OutParam, slice_in, vec3_in, vec3_out};
use super::boundary::ffi_boundary;
use super::error::{FfiError, XpbdResult};
use super::ids::{XpbdClothId, XpbdWorldId};
use super::registry::{read_cloth, read_frame, with_cloth, with_shared, with_world};
use super::world::step_error;
use crate::cloth::VertexLayout;
use crate::error::ClothError;
use std::mem::MaybeUninit;

/// Advance the world by one rendered frame of `frame_dt` seconds in fixed steps of `fixed_dt`
/// seconds. The world keeps an accumulator: `frame_dt` is added to it, and while it holds a whole
/// step, `xpbd_world_step(world, fixed_dt)` runs and takes `fixed_dt` out, at most `max_steps`
/// times. Whole steps still left after `max_steps` (a long hitch) are dropped, so the simulation
/// never spirals behind; `*steps_taken == max_steps` tells the engine, and
/// `xpbd_world_last_dropped_time` says how many seconds. `*alpha` = what is left / `fixed_dt`, in
/// [0, 1): pass it to the interpolated reads and `xpbd_cloth_write_vertices` to draw the frame
/// between the last two step states. `fixed_dt` may change between calls.
///
/// `frame_dt`: 0..=3600 s. `fixed_dt`: 1e-5..=1 s. `max_steps`: 1..=1000. `steps_taken`,
/// `alpha`: written when not NULL.
///
/// Per-step drive: the targets set since the last call (pin and grab targets, the animated pose or
/// joint matrices, the reference frame, collider poses) are taken as the values at this frame's
/// time, and the previous call's as the values at the previous frame's. The frame's k-th of n steps
/// ends `left + (n - k)*fixed_dt` seconds before the frame's time (`left` = `*alpha * fixed_dt`,
/// what the accumulator keeps), so it is given every target at u = 1 - (left + (n - k)*fixed_dt)
/// / frame_dt of the way between the two (positions lerped, rotations slerped, joints by
/// translation, rotation and scale): a target moved once per frame moves the cloth at an even
/// speed at any frame rate, and the frame's last step ends at the time the interpolated reads
/// draw at `alpha` one fixed step later. After the call the targets are the given ones again.
/// Time dropped by a hitch is taken from the frame's start. A step outside advance
/// (`xpbd_world_step`), a teleport, a snapshot restore or a worn cloth put on its pose makes the
/// next frame start from where the last step ended. Every read between two calls sees a finished
/// step's state.
///
/// Threads: as `xpbd_world_step` (render reads from other threads return the state before the
/// call at once while it steps); refused with `XPBD_RESULT_STEP_IN_PROGRESS` between a
/// `xpbd_world_step_begin` or `xpbd_world_advance_begin` and its end.
///
/// Errors: `XPBD_RESULT_INVALID_ARGUMENT` (`frame_dt`, `fixed_dt` or `max_steps` out of range,
/// NaN; nothing changes, nothing written), `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`,
/// `XPBD_RESULT_SIMULATION_UNSTABLE` (a cloth failed its explosion guard in one of the steps; as
/// for `xpbd_world_step` the steps all ran and `*steps_taken` and `*alpha` are written).
/// Thread-safe; serialised with other calls on `world`.
///
/// # Safety
/// `steps_taken` and `alpha`, when not NULL, are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_world_advance(
    world: XpbdWorldId,
    frame_dt: f32,
    fixed_dt: f32,
    max_steps: u32,
    steps_taken: *mut u32,
    alpha: *mut f32,
) -> XpbdResult {
    ffi_boundary("xpbd_world_advance", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let steps_out = unsafe { optional_out(steps_taken, "steps_taken")? };
        // SAFETY: as above.
        let alpha_out = unsafe { optional_out(alpha, "alpha")? };
        let report = with_shared(world, |w| w.advance(frame_dt, fixed_dt, max_steps))?.map_err(|e| step_error(world, e))?;
        if let Some(out) = steps_out {
            out.write(report.steps);
        }
        if let Some(out) = alpha_out {
            out.write(report.alpha);
        }
        match report.unstable {
            Some(e) => Err(step_error(world, e)),
            None => Ok(()),
        }
    })
}

/// `xpbd_world_advance(world, frame_dt, fixed_dt, max_steps, ...)` on the world's own thread,
/// returning at once: the render-overlap loop. The caller's thread draws the frame (from the
/// reads, which return the state as it was at this call, bit for bit) while the world advances;
/// `xpbd_world_advance_end` waits for it and returns its outputs. Frame N's loop: set frame N's
/// targets, `xpbd_world_advance_begin`, draw with the `alpha` of frame N − 1's
/// `xpbd_world_advance_end` (the reads still show the state it returned), then
/// `xpbd_world_advance_end` for frame N's `alpha`. The thread and what waits are as for
/// `xpbd_world_step_begin`; the accumulator and the per-step drive are `xpbd_world_advance`'s,
/// and the state after `xpbd_world_advance_end` is bitwise the one `xpbd_world_advance` leaves.
///
/// Errors (nothing starts, nothing changes): `XPBD_RESULT_INVALID_ARGUMENT` (`frame_dt`,
/// `fixed_dt` or `max_steps` out of range or NaN, as for `xpbd_world_advance`),
/// `XPBD_RESULT_STEP_IN_PROGRESS` (a step or advance was begun and not ended),
/// `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_world_advance_begin(world: XpbdWorldId, frame_dt: f32, fixed_dt: f32, max_steps: u32) -> XpbdResult {
    ffi_boundary("xpbd_world_advance_begin", || {
        with_shared(world, |w| w.advance_begin(frame_dt, fixed_dt, max_steps))?.map_err(|e| step_error(world, e))
    })
}

/// Wait for the advance `xpbd_world_advance_begin` started and write what `xpbd_world_advance`
/// writes: `*steps_taken` and `*alpha` (each when not NULL). From its return on, reads return the
/// advanced state; draw it at `*alpha`.
///
/// Errors: `XPBD_RESULT_SIMULATION_UNSTABLE` (as for `xpbd_world_advance`: every step ran, the
/// outputs are written), `XPBD_RESULT_STEP_NOT_BEGUN` (no `xpbd_world_advance_begin` since the last
/// end; an `xpbd_world_step_begin` is not ended by this and stays begun; nothing written),
/// `XPBD_RESULT_PANIC` (the advance panicked: a bug; the world is poisoned from then on),
/// `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`. Thread-safe: any thread may end an
/// advance another thread began.
///
/// # Safety
/// `steps_taken` and `alpha`, when not NULL, are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_world_advance_end(world: XpbdWorldId, steps_taken: *mut u32, alpha: *mut f32) -> XpbdResult {
    ffi_boundary("xpbd_world_advance_end", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let steps_out = unsafe { optional_out(steps_taken, "steps_taken")? };
        // SAFETY: as above.
        let alpha_out = unsafe { optional_out(alpha, "alpha")? };
        let report = with_shared(world, |w| w.advance_end())?.map_err(|e| step_error(world, e))?;
        if let Some(out) = steps_out {
            out.write(report.steps);
        }
        if let Some(out) = alpha_out {
            out.write(report.alpha);
        }
        match report.unstable {
            Some(e) => Err(step_error(world, e)),
            None => Ok(()),
        }
    })
}

/// An out-parameter that may be NULL (not wanted).
///
/// # Safety
/// As `OutParam::new` when `ptr` is not NULL.
unsafe fn optional_out<T>(ptr: *mut T, name: &str) -> Result<Option<OutParam<T>>, FfiError> {
    match ptr.is_null() {
        true => Ok(None),
        // SAFETY: forwarded caller promise.
        false => Ok(Some(unsafe { OutParam::new(ptr, name)? })),
    }
}

/// Write the seconds the last `xpbd_world_advance` dropped (whole fixed steps beyond its
/// `max_steps`; 0 normally and before the first call) to `*out_seconds`. Errors:
/// `XPBD_RESULT_NULL_POINTER`, `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`.
/// Thread-safe.
///
/// # Safety
/// `out_seconds` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_world_last_dropped_time(world: XpbdWorldId, out_seconds: *mut f32) -> XpbdResult {
    ffi_boundary("xpbd_world_last_dropped_time", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { OutParam::new(out_seconds, "out_seconds")? };
        out.write(with_world(world, |w| Ok(w.last_dropped_time()))?);
        Ok(())
    })
}

/// Empty the accumulator of `xpbd_world_advance` (after a level load or a pause, so the next
/// frame does not catch up). Errors: `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`.
/// Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_world_reset_accumulator(world: XpbdWorldId) -> XpbdResult {
    ffi_boundary("xpbd_world_reset_accumulator", || {
        with_world(world, |w| {
            w.reset_accumulator();
            Ok(())
        })
    })
}

/// Copy positions in metres at `alpha` between the last two step states into `out`,
/// `float[3*vertex_count]` in render-vertex order: alpha 0 = before the last step, 1 = after it
/// (what `xpbd_cloth_read_positions` returns), in between `(1 - alpha)*previous + alpha*current`
/// per component in float, and the current position itself for a vertex whose two states are
/// equal. Before the first step, and after a teleport, a snapshot restore or a
/// guard recovery, both states are the current one, so a cloth is never drawn between two
/// places. `alpha` normally comes from `xpbd_world_advance`. With an animated pose and
/// `simulation_blend` < 1 both states are blended with their own pose first, as every render read
/// is (alpha 1 is still exactly what `xpbd_cloth_read_positions` returns).
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (`out` NULL with vertex_count > 0),
/// `XPBD_RESULT_INVALID_ARGUMENT` (`alpha` NaN or outside [0, 1]), `XPBD_RESULT_BUFFER_SIZE_MISMATCH`
/// (`vertex_count` is not the cloth's), `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`;
/// `out` untouched on error. Threads as `xpbd_cloth_read_positions`: never waits for a step
/// (during one it reads the two states before it).
///
/// # Safety
/// `out`, when not NULL, is writable for `3*vertex_count` floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_read_positions_interpolated(
    cloth: XpbdClothId,
    alpha: f32,
    out: *mut f32,
    vertex_count: u32,
) -> XpbdResult {
    ffi_boundary("xpbd_cloth_read_positions_interpolated", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { vec3_out(out, vertex_count, "out")? };
        read_frame(cloth, |c| c.read_positions_interpolated(alpha, out))
    })
}

/// Copy normals at `alpha` between the last two step states into `out`, `float[3*vertex_count]`
/// in render-vertex order, interpolated as `xpbd_cloth_read_positions_interpolated` and not
/// renormalised (between two unit normals the length dips slightly below 1; a shader normalises
/// anyway). Errors and threads as `xpbd_cloth_read_positions_interpolated`.
///
/// # Safety
/// `out`, when not NULL, is writable for `3*vertex_count` floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_read_normals_interpolated(
    cloth: XpbdClothId,
    alpha: f32,
    out: *mut f32,
    vertex_count: u32,
) -> XpbdResult {
    ffi_boundary("xpbd_cloth_read_normals_interpolated", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { vec3_out(out, vertex_count, "out")? };
        read_frame(cloth, |c| c.read_normals_interpolated(alpha, out))
    })
}

/// Write interpolated positions (metres) and normals, the bits
/// `xpbd_cloth_read_positions_interpolated` / `xpbd_cloth_read_normals_interpolated` return at
/// `alpha`, straight into an engine's interleaved vertex buffer: render vertex v's position goes
/// to the 12 bytes at `(char*)base + v*stride + position_offset` as three native floats, its normal
/// to `... + normal_offset`. Any other byte (UVs, colours, padding) is not touched, and `base`
/// needs no alignment. An offset of -1 skips that attribute.
///
/// `stride`: bytes per vertex. `position_offset`, `normal_offset`: -1 or 0..=stride-12, at least
/// one not -1, the two at least 12 bytes apart. `vertex_count`: the cloth's render vertex count.
/// The buffer spans `stride*(vertex_count-1) + (largest offset used) + 12` bytes.
///
/// Errors, in the order checked: `XPBD_RESULT_NULL_POINTER` (`base` NULL), `XPBD_RESULT_INVALID_ID`,
/// `XPBD_RESULT_WORLD_POISONED`, `XPBD_RESULT_INVALID_ARGUMENT` (an offset below -1, past the
/// stride or overlapping the other, both -1), `XPBD_RESULT_BUFFER_SIZE_MISMATCH` (`vertex_count` is
/// not the cloth's), `XPBD_RESULT_INVALID_ARGUMENT` (`alpha` NaN or outside [0, 1]); nothing
/// written on error. Threads as `xpbd_cloth_read_positions`: never waits for a step (during one
/// it writes the two states before it).
///
/// # Safety
/// `base`, when not NULL, is writable for the span above, and no other thread uses those bytes
/// during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_write_vertices(
    cloth: XpbdClothId,
    base: *mut std::ffi::c_void,
    stride: u32,
    position_offset: i32,
    normal_offset: i32,
    vertex_count: u32,
    alpha: f32,
) -> XpbdResult {
    ffi_boundary("xpbd_cloth_write_vertices", || {
        if base.is_null() {
            return Err(FfiError::new(XpbdResult::NullPointer, "`base` is NULL"));
        }
        read_frame(cloth, |c| {
            let layout = vertex_layout(stride, position_offset, normal_offset)?;
            let span = layout.span(vertex_count as usize)?;
            let n = c.vertex_count();
            if vertex_count != n {
                return Err(ClothError::BufferSizeMismatch { expected: n as usize, got: vertex_count as usize });
            }
            // SAFETY: non-NULL; the caller promises `span` writable bytes used by no other
            // thread, and MaybeUninit bytes need no initialisation or alignment.
            let buffer = unsafe { std::slice::from_raw_parts_mut(base.cast::<MaybeUninit<u8>>(), span) };
            c.write_vertices_uninit(buffer, layout, alpha)
        })
    })
}

/// The layout of a vertex buffer as the C calls take it (offset -1: skip the attribute). Errors:
/// `InvalidParameter` naming an offset below -1.
pub(crate) fn vertex_layout(stride: u32, position_offset: i32, normal_offset: i32) -> Result<VertexLayout, ClothError> {
    let offset = |value: i32, name: &'static str| match value {
        -1 => Ok(None),
        v if v >= 0 => Ok(Some(v as usize)),
        v => Err(ClothError::InvalidParameter { name, value: v as f64, expected: "-1 (skip) or a byte offset >= 0" }),
    };
    Ok(VertexLayout {
        stride: stride as usize,
        position_offset: offset(position_offset, "position_offset")?,
        normal_offset: offset(normal_offset, "normal_offset")?,
    })
}

/// Write the axis-aligned box around the cloth in metres to `min3` and `max3` (`float[3]` each):
/// every particle of the last two step states as read back (blended with the animated pose when
/// `simulation_blend` < 1), so it holds every interpolated read too (for culling). Errors: `XPBD_RESULT_NULL_POINTER`, `XPBD_RESULT_INVALID_ID`,
/// `XPBD_RESULT_WORLD_POISONED`; nothing written on error. Threads as `xpbd_cloth_read_positions`:
/// never waits for a step (during one: the box of the two states before it).
///
/// # Safety
/// `min3` and `max3` are each writable for 3 floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_get_bounds(cloth: XpbdClothId, min3: *mut f32, max3: *mut f32) -> XpbdResult {
    ffi_boundary("xpbd_cloth_get_bounds", || {
        // SAFETY: the caller's promise in `# Safety` above; `[f32; 3]` has f32's alignment.
        let (lo, hi) = unsafe {
            (OutParam::new(min3.cast::<[f32; 3]>(), "min3")?, OutParam::new(max3.cast::<[f32; 3]>(), "max3")?)
        };
        let (min, max) = read_frame(cloth, |c| Ok::<_, FfiError>(c.bounds()))?;
        lo.write(min);
        hi.write(max);
        Ok(())
    })
}

/// Put render vertices at new positions in metres between steps (engine-side effects; to drag one
/// with the mouse, `xpbd_cloth_grab` it): `vertices` (`uint32_t[count]`) at `positions`
/// (`float[3*count]`), or, with `vertices` NULL, every vertex in render order (then `count` must
/// be the vertex count). Velocities stay (see
/// `xpbd_cloth_set_velocities`); welded copies share a particle (the last value wins); a pinned
/// vertex moves with its pin (its current position and target). The moved vertices are drawn
/// where they are put at every alpha until the next step; normals are recomputed.
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (`positions` NULL with count > 0),
/// `XPBD_RESULT_BUFFER_SIZE_MISMATCH` (`vertices` NULL and `count` not the vertex count),
/// `XPBD_RESULT_INVALID_ARGUMENT` (a vertex index out of range, a NaN, infinite or beyond +-1e5 m
/// coordinate; the message names the list position), `XPBD_RESULT_INVALID_ID`,
/// `XPBD_RESULT_WORLD_POISONED`. On error nothing changes. Thread-safe; serialised with the step.
///
/// # Safety
/// `vertices`, when not NULL, holds `count` uint32_t; `positions`, when not NULL, `3*count` floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_set_positions(
    cloth: XpbdClothId,
    vertices: *const u32,
    count: u32,
    positions: *const f32,
) -> XpbdResult {
    ffi_boundary("xpbd_cloth_set_positions", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let (vertices, values) = unsafe { particle_write(vertices, count, positions, "positions")? };
        with_cloth(cloth, |c| c.set_positions(vertices, values))
    })
}

/// Set render vertices' velocities in m/s between steps: `vertices` (`uint32_t[count]`) to
/// `velocities` (`float[3*count]`), or, with `vertices` NULL, every vertex in render order (then
/// `count` must be the vertex count). Welded copies share a particle (the last value wins); a
/// pinned vertex's velocity is replaced by its pin's motion at the next step.
///
/// Errors: as `xpbd_cloth_set_positions`, with `XPBD_RESULT_INVALID_ARGUMENT` for a NaN or
/// infinite component or a speed above the cloth's `max_particle_speed` (which its explosion guard
/// would reject). On error nothing changes. Thread-safe; serialised with the step.
///
/// # Safety
/// `vertices`, when not NULL, holds `count` uint32_t; `velocities`, when not NULL, `3*count` floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_set_velocities(
    cloth: XpbdClothId,
    vertices: *const u32,
    count: u32,
    velocities: *const f32,
) -> XpbdResult {
    ffi_boundary("xpbd_cloth_set_velocities", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let (vertices, values) = unsafe { particle_write(vertices, count, velocities, "velocities")? };
        with_cloth(cloth, |c| c.set_velocities(vertices, values))
    })
}

/// A particle write's vertex list (`None` = all) and its `count` 3-vectors.
type ParticleWrite<'a> = (Option<&'a [u32]>, &'a [[f32; 3]]);

/// The arguments of a particle write: the vertex list (`None` = all) and `count` 3-vectors.
///
/// # Safety
/// As `slice_in` for `count` uint32_t (`vertices`) and `3*count` floats (`values`).
unsafe fn particle_write<'a>(
    vertices: *const u32,
    count: u32,
    values: *const f32,
    name: &str,
) -> Result<ParticleWrite<'a>, FfiError> {
    // SAFETY: forwarded caller promise.
    let list = match vertices.is_null() {
        true => None,
        false => Some(unsafe { slice_in(vertices, count as usize, "vertices")? }),
    };
    // SAFETY: forwarded caller promise.
    Ok((list, unsafe { vec3_in(values, count, name)? }))
}

/// Wake a sleeping cloth (see `sleep_speed`): it steps again from the next step on, and its count
/// towards sleep restarts. Harmless on an awake cloth. The events that wake it by themselves are
/// listed at `sleep_speed`. Errors:
/// `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_cloth_wake(cloth: XpbdClothId) -> XpbdResult {
    ffi_boundary("xpbd_cloth_wake", || {
        with_cloth(cloth, |c| {
            c.wake();
            Ok::<(), FfiError>(())
        })
    })
}

/// Write 1 to `*out` if the cloth sleeps (the steps skip it), else 0. Errors:
/// `XPBD_RESULT_NULL_POINTER`, `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`. Thread-safe.
///
/// # Safety
/// `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_is_sleeping(cloth: XpbdClothId, out: *mut u32) -> XpbdResult {
    ffi_boundary("xpbd_cloth_is_sleeping", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { OutParam::new(out, "out")? };
        out.write(read_cloth(cloth, |c| c.is_sleeping() as u32)?);
        Ok(())
    })
}
