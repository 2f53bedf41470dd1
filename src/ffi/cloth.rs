//! Cloth exports: create/destroy, read results back, pins, settings, statistics. Every function
//! takes the cloth's id (which encodes its world) and runs under that world's lock.

use super::args::{OutParam, required, slice_in, slice_out, vec3_in, vec3_out};
use super::boundary::ffi_boundary;
use super::cloth_desc::{XpbdClothDesc, XpbdClothMaterial, XpbdClothParams};
use super::error::{FfiError, XpbdResult};
use super::ids::{MAX_CLOTHS_PER_WORLD, XpbdClothId, XpbdWorldId, object_slot};
use super::registry::{cloth_handle, read_cloth, read_frame, with_cloth, with_world, with_world_of};
use crate::cloth::ClothDesc;
use crate::error::ClothError;
use super::stats::XpbdClothStats;

fn capacity_exceeded() -> FfiError {
    FfiError::new(
        XpbdResult::CapacityExceeded,
        format!("the world already has {MAX_CLOTHS_PER_WORLD} cloths; destroy one first"),
    )
}

/// Add a cloth to `w` (the world `world`) with `add` and return its id. Errors:
/// `CapacityExceeded` when `MAX_CLOTHS_PER_WORLD` cloths are alive or the slot it got does not
/// fit an id's 14 bits (retired slots push indices up; the cloth is removed again), and `add`'s
/// own.
fn add_cloth_id(
    w: &mut crate::world::World,
    world: XpbdWorldId,
    add: impl FnOnce(&mut crate::world::World) -> Result<crate::world::ClothHandle, ClothError>,
) -> Result<XpbdClothId, FfiError> {
    if w.cloth_count() >= MAX_CLOTHS_PER_WORLD {
        return Err(capacity_exceeded());
    }
    let handle = add(w)?;
    match object_slot(handle.index, handle.generation, MAX_CLOTHS_PER_WORLD) {
        Some((index, generation)) => Ok(XpbdClothId::pack(world, index, generation)),
        None => {
            w.remove_cloth(handle)?;
            Err(capacity_exceeded())
        }
    }
}

/// Create a cloth in `world` from a render mesh and write its id to `*out_cloth`.
///
/// Everything is validated before anything is allocated; on error nothing is created and
/// `*out_cloth` is not written. The arrays `desc` points to are copied; none is kept after the
/// call. Vertices closer than `desc->weld_tolerance` become one particle; every output stays in
/// render-vertex order.
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (`desc` or `out_cloth` NULL; `positions` NULL with
/// vertex_count > 0; `indices` NULL with triangle_count > 0; `lines` NULL with line_count > 0),
/// `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`, `XPBD_RESULT_INVALID_MESH` (no
/// vertices or more than 2^28, index out of range, NaN/Inf position or one beyond +-1e5 m, degenerate triangle, line out of range or
/// joining a vertex to itself; the message names the vertex, triangle or line),
/// `XPBD_RESULT_INVALID_ARGUMENT` (a field outside its range, a flag not 0/1, a compliance set
/// while its from-material flag is 1, a negative/NaN inverse mass), `XPBD_RESULT_CAPACITY_EXCEEDED`.
/// Thread-safe; serialised with other calls on `world`.
///
/// # Safety
/// `desc` points to a valid `XpbdClothDesc` whose non-NULL arrays hold the documented number of
/// elements; `out_cloth` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_create(
    world: XpbdWorldId,
    desc: *const XpbdClothDesc,
    out_cloth: *mut XpbdClothId,
) -> XpbdResult {
    ffi_boundary("xpbd_cloth_create", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let (desc, out) = unsafe { (required(desc, "desc")?, OutParam::new(out_cloth, "out_cloth")?) };
        let params = desc.params().to_core()?;
        // SAFETY: the caller promises these arrays hold vertex_count / 3*triangle_count elements.
        // The indices are read as triangle_count triples, so a NULL array's message gives the
        // count the caller passed.
        let (positions, indices, inverse_masses, lines) = unsafe {
            let inverse_masses = match desc.inverse_masses.is_null() {
                true => None,
                false => Some(slice_in(desc.inverse_masses, desc.vertex_count as usize, "inverse_masses")?),
            };
            (
                vec3_in(desc.positions, desc.vertex_count, "positions")?,
                slice_in(desc.indices.cast::<[u32; 3]>(), desc.triangle_count as usize, "indices")?.as_flattened(),
                inverse_masses,
                slice_in(desc.lines.cast::<[u32; 2]>(), desc.line_count as usize, "lines")?,
            )
        };
        let core_desc =
            ClothDesc {
            positions,
            indices,
            lines,
            inverse_masses,
            weld_tolerance: desc.weld_tolerance,
            max_extra_vertices: desc.max_extra_vertices,
            params,
        };
        let id = with_world(world, |w| add_cloth_id(w, world, |w| w.add_cloth(&core_desc)))?;
        out.write(id);
        Ok(())
    })
}

/// Create an instance of `source` and write its id to `*out_cloth`: a new cloth in the same world
/// that shares the source's immutable model (welded mesh, rest values, constraints and their
/// order and colouring) and starts with copies of its settings, pins and current state, so it
/// steps bit for bit as the source would from here. Much cheaper than `xpbd_cloth_create` (a copy
/// of the per-particle state, no welding or constraint building); the shared model lives until
/// its last cloth is destroyed, and destroying the source does not affect the instance. Changing
/// an instance's pins gives it constraints of its own. Its guard status starts clear.
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (`out_cloth` NULL), `XPBD_RESULT_INVALID_ID`,
/// `XPBD_RESULT_WORLD_POISONED`, `XPBD_RESULT_CAPACITY_EXCEEDED`; on error nothing is created and
/// `*out_cloth` is not written. Thread-safe; serialised with other calls on the world.
///
/// # Safety
/// `out_cloth` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_create_instance(source: XpbdClothId, out_cloth: *mut XpbdClothId) -> XpbdResult {
    ffi_boundary("xpbd_cloth_create_instance", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { OutParam::new(out_cloth, "out_cloth")? };
        let (world, index, generation) = source.unpack()?;
        let id = with_world_of(world, "cloth", source.id, |w| {
            let source = cloth_handle(w, source, index, generation)?;
            add_cloth_id(w, world, |w| w.add_instance(source))
        })?;
        out.write(id);
        Ok(())
    })
}

/// Destroy a cloth; its id becomes invalid. Errors: `XPBD_RESULT_INVALID_ID` (null, already
/// destroyed, its world destroyed, or forged), `XPBD_RESULT_WORLD_POISONED`. Thread-safe (any
/// thread); serialised with other calls on its world.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_cloth_destroy(cloth: XpbdClothId) -> XpbdResult {
    ffi_boundary("xpbd_cloth_destroy", || {
        let (world, index, generation) = cloth.unpack()?;
        with_world_of(world, "cloth", cloth.id, |w| {
            let handle = cloth_handle(w, cloth, index, generation)?;
            w.remove_cloth(handle)?;
            Ok(())
        })
    })
}

/// Write the number of render vertices (the `vertex_count` the mesh was created with, and the
/// length every read needs) to `*out_count`. Errors: `XPBD_RESULT_NULL_POINTER`,
/// `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`. Thread-safe.
///
/// # Safety
/// `out_count` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_vertex_count(cloth: XpbdClothId, out_count: *mut u32) -> XpbdResult {
    ffi_boundary("xpbd_cloth_vertex_count", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { OutParam::new(out_count, "out_count")? };
        out.write(read_cloth(cloth, |c| c.vertex_count())?);
        Ok(())
    })
}

/// Write the number of simulated particles (render vertices after welding; <= vertex count) to
/// `*out_count`. Errors: `XPBD_RESULT_NULL_POINTER`, `XPBD_RESULT_INVALID_ID`,
/// `XPBD_RESULT_WORLD_POISONED`. Thread-safe.
///
/// # Safety
/// `out_count` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_particle_count(cloth: XpbdClothId, out_count: *mut u32) -> XpbdResult {
    ffi_boundary("xpbd_cloth_particle_count", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { OutParam::new(out_count, "out_count")? };
        out.write(read_cloth(cloth, |c| c.particle_count())?);
        Ok(())
    })
}

/// Copy the current positions in metres into `out`, `float[3*vertex_count]` in render-vertex
/// order (copies of a welded vertex read the same position). `out` is owned by the caller and not
/// kept; it is only written, so it may be uninitialised. A cloth at `step_interval` > 1 reads where
/// it is at the end of the world's last step, on the way through its own longer step.
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (`out` NULL with vertex_count > 0), `XPBD_RESULT_INVALID_ID`,
/// `XPBD_RESULT_WORLD_POISONED`, `XPBD_RESULT_BUFFER_SIZE_MISMATCH` (`vertex_count` differs from
/// the cloth's render vertex count; `out` untouched).
///
/// Threads: thread-safe, and never waits for a step: while the world steps (`xpbd_world_step` or
/// `xpbd_world_advance` on another thread, or between `xpbd_world_step_begin` and
/// `xpbd_world_step_end`) it returns the state before that step, bit for bit (a copy the step
/// takes first). It waits only for another thread's short call on the world.
///
/// # Safety
/// `out`, when not NULL, is writable for `3*vertex_count` floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_read_positions(cloth: XpbdClothId, out: *mut f32, vertex_count: u32) -> XpbdResult {
    ffi_boundary("xpbd_cloth_read_positions", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { vec3_out(out, vertex_count, "out")? };
        read_frame(cloth, |c| c.read_positions(out))
    })
}

/// Copy unit normals into `out`, `float[3*vertex_count]` in render-vertex order: per particle the
/// area-weighted mean of its triangles' normals (smooth across welded seams; counter-clockwise
/// winding = front), (0, 0, 0) for particles without triangles. Updated by every step and at
/// creation. Ownership, errors and threads as `xpbd_cloth_read_positions`.
///
/// # Safety
/// `out`, when not NULL, is writable for `3*vertex_count` floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_read_normals(cloth: XpbdClothId, out: *mut f32, vertex_count: u32) -> XpbdResult {
    ffi_boundary("xpbd_cloth_read_normals", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { vec3_out(out, vertex_count, "out")? };
        read_frame(cloth, |c| c.read_normals(out))
    })
}

/// Copy the render vertex -> particle map into `out`, `uint32_t[vertex_count]`: `out[v]` is the
/// particle (0..particle count) simulating render vertex `v`; welded copies share one. Fixed for
/// the cloth's lifetime. Ownership and errors as `xpbd_cloth_read_positions`. Thread-safe; waits
/// while the world steps.
///
/// # Safety
/// `out`, when not NULL, is writable for `vertex_count` uint32_t.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_read_particle_map(
    cloth: XpbdClothId,
    out: *mut u32,
    vertex_count: u32,
) -> XpbdResult {
    ffi_boundary("xpbd_cloth_read_particle_map", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let mut out = unsafe { slice_out(out, vertex_count as usize, "out")? };
        with_cloth(cloth, |c| {
            let map = c.particle_map();
            out.check_len(map.len())?;
            out.copy_from_slice(map);
            Ok::<(), ClothError>(())
        })
    })
}

/// Pin render vertices `vertices` (`uint32_t[count]`) at `targets` in metres (`float[3*count]`),
/// or where they are now when `targets` is NULL. A target away from the current position is
/// reached at the end of the next step, interpolated across its substeps (no teleport). Pinning a
/// pinned vertex moves its target; welded copies share one particle (the last target wins). Pins
/// get tethers when enabled. Arrays are read during the call only. A change of which vertices are
/// pinned takes effect at once (the vertices are held from the next step); the tethers and the
/// constraint order for the new pins are rebuilt on the world's low-priority layout thread (during
/// the call for a cloth of fewer than 1000 edges and hinges, or one that has not stepped yet) and
/// put in place at the start of the fourth step after the call (of the first step, for a cloth that
/// has not stepped), which builds them itself if that thread has not: the call returns in
/// microseconds, no step waits for the thread, and the bits are the same whatever the timing or
/// thread count. For dragging cloth with the mouse, `xpbd_cloth_grab` changes no layout at all.
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (`vertices` NULL with count > 0),
/// `XPBD_RESULT_INVALID_ARGUMENT` (a vertex index >= vertex count, a NaN/Inf target or one beyond
/// +-1e5 m; the message names the list position), `XPBD_RESULT_INVALID_ID`,
/// `XPBD_RESULT_WORLD_POISONED`. On error no pin changes. Thread-safe; serialised with the world's step.
///
/// # Safety
/// `vertices`, when not NULL, holds `count` uint32_t; `targets`, when not NULL, `3*count` floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_set_pinned(
    cloth: XpbdClothId,
    vertices: *const u32,
    count: u32,
    targets: *const f32,
) -> XpbdResult {
    ffi_boundary("xpbd_cloth_set_pinned", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let (vertices, targets) = unsafe {
            let targets = match targets.is_null() {
                true => None,
                false => Some(vec3_in(targets, count, "targets")?),
            };
            (slice_in(vertices, count as usize, "vertices")?, targets)
        };
        with_cloth(cloth, |c| c.set_pinned(vertices, targets))
    })
}

/// Move pinned render vertices `vertices` (`uint32_t[count]`) to new `targets` in metres
/// (`float[3*count]`, required), reached at the end of the next step, interpolated across its
/// substeps. Use it every frame to drive attachment points (e.g. a character's shoulders).
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (`vertices` or `targets` NULL with count > 0),
/// `XPBD_RESULT_INVALID_ARGUMENT` (index out of range, NaN/Inf target or one beyond +-1e5 m, a
/// vertex that is not pinned), `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`. On error
/// no target changes. Thread-safe.
///
/// # Safety
/// `vertices` holds `count` uint32_t and `targets` `3*count` floats (either may be NULL if count is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_set_pin_targets(
    cloth: XpbdClothId,
    vertices: *const u32,
    count: u32,
    targets: *const f32,
) -> XpbdResult {
    ffi_boundary("xpbd_cloth_set_pin_targets", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let (vertices, targets) =
            unsafe { (slice_in(vertices, count as usize, "vertices")?, vec3_in(targets, count, "targets")?) };
        with_cloth(cloth, |c| c.set_pin_targets(vertices, targets))
    })
}

/// Release pinned render vertices `vertices` (`uint32_t[count]`); they keep the velocity of their
/// last pinned motion. Vertices that are not pinned are ignored. The tethers and constraint order
/// follow as for `xpbd_cloth_set_pinned` (a release back to the pins of the layout in place before
/// it is put in place cancels the rebuild).
///
/// Errors: `XPBD_RESULT_NULL_POINTER`, `XPBD_RESULT_INVALID_ARGUMENT` (index out of range; nothing
/// released), `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`. Thread-safe.
///
/// # Safety
/// `vertices`, when not NULL, holds `count` uint32_t.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_unpin(cloth: XpbdClothId, vertices: *const u32, count: u32) -> XpbdResult {
    ffi_boundary("xpbd_cloth_unpin", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let vertices = unsafe { slice_in(vertices, count as usize, "vertices")? };
        with_cloth(cloth, |c| c.unpin(vertices))
    })
}

/// Write the cloth's current settings to `*out_params` (for read-modify-write with
/// `xpbd_cloth_set_params`). Errors: `XPBD_RESULT_NULL_POINTER`, `XPBD_RESULT_INVALID_ID`,
/// `XPBD_RESULT_WORLD_POISONED`. Thread-safe.
///
/// # Safety
/// `out_params` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_get_params(cloth: XpbdClothId, out_params: *mut XpbdClothParams) -> XpbdResult {
    ffi_boundary("xpbd_cloth_get_params", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { OutParam::new(out_params, "out_params")? };
        out.write(read_cloth(cloth, |c| XpbdClothParams::from(c.params()))?);
        Ok(())
    })
}

/// Replace all of the cloth's settings. Takes effect at the next step; no particle moves and no
/// velocity changes now (compliances, masses from density, damping and flags are re-derived, so
/// the cloth continues smoothly from its current state). A change of the stretch or bending
/// compliance (given or from the material), `tether_slack` or `max_stretch` reaches its new
/// values over 0.25 s of steps, linearly, so a stiffened cloth tightens at a steady pace instead
/// of jumping (switching `max_stretch` on or off takes effect at once).
///
/// Errors: `XPBD_RESULT_NULL_POINTER`, `XPBD_RESULT_INVALID_ARGUMENT` (a field outside its range,
/// a flag not 0/1, a compliance set while its from-material flag is 1; settings unchanged),
/// `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`. Thread-safe.
///
/// # Safety
/// `params` points to a valid `XpbdClothParams`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_set_params(cloth: XpbdClothId, params: *const XpbdClothParams) -> XpbdResult {
    ffi_boundary("xpbd_cloth_set_params", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let params = unsafe { required(params, "params")? }.to_core()?;
        with_cloth(cloth, |c| c.set_params(params))
    })
}

/// Replace the cloth's material (areal density, Young's modulus, Poisson ratio, thickness and the
/// stretch/bending compliance choice); other settings stay. Takes effect at the next step without
/// a jump, as `xpbd_cloth_set_params`. Errors and threads as `xpbd_cloth_set_params`.
///
/// # Safety
/// `material` points to a valid `XpbdClothMaterial`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_set_material(cloth: XpbdClothId, material: *const XpbdClothMaterial) -> XpbdResult {
    ffi_boundary("xpbd_cloth_set_material", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let material = unsafe { required(material, "material")? };
        with_cloth(cloth, |c| -> Result<(), FfiError> {
            let mut params = XpbdClothParams::from(c.params());
            params.set_material(material);
            Ok(c.set_params(params.to_core()?)?)
        })
    })
}

/// Write the residual statistics of the cloth's last step to `*out_stats` (all zero before the
/// first step): per constraint type the count, mean / p95 / max |C| and the force range, the
/// largest edge strain, the substeps and iterations used, and the collider contacts: how many
/// (particle, collider) pairs touch (`contact_count`) and the deepest penetration in metres into
/// the thickened surface (`max_penetration`). Errors: `XPBD_RESULT_NULL_POINTER`,
/// `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`. Thread-safe.
///
/// Cost: the step does not compute the residuals; the first call after a step does (one pass
/// over every constraint on the calling thread, about a tenth of a one-thread step), later calls
/// copy them. Teleport, pinning, parameter changes and snapshot restores between steps do not
/// change what it reports: they compute the statistics first if they are still due.
///
/// # Safety
/// `out_stats` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_get_stats(cloth: XpbdClothId, out_stats: *mut XpbdClothStats) -> XpbdResult {
    ffi_boundary("xpbd_cloth_get_stats", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { OutParam::new(out_stats, "out_stats")? };
        out.write(read_cloth(cloth, |c| XpbdClothStats::from(c.stats()))?);
        Ok(())
    })
}
