//! Render proxy exports: draw a fine render mesh from a coarse simulated cloth (docs/c-cpp.md,
//! "Render proxies").

use super::args::{OutParam, required, slice_in, vec3_in, vec3_out};
use super::boundary::ffi_boundary;
use super::error::{FfiError, XpbdResult};
use super::frame::vertex_layout;
use super::ids::{MAX_CLOTHS_PER_WORLD, XpbdClothId, XpbdRenderProxyId, XpbdWorldId, object_slot};
use super::registry::{cloth_handle, read_proxy_frame, with_proxy, with_world_of};
use crate::error::ClothError;
use crate::render_proxy::{DEFAULT_PROXY_MAX_DISTANCE, RenderProxyDesc, RenderProxyHandle};
use crate::world::World;
use std::mem::MaybeUninit;

/// What `xpbd_render_proxy_create` needs: a render mesh in the rest frame of the simulated
/// cloth's mesh (the frame and units its `XpbdClothDesc.positions` were given in). Get one from
/// `xpbd_default_render_proxy_desc()` and set the arrays.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct XpbdRenderProxyDesc {
    /// Render vertex positions in metres, `float[3*vertex_count]`, each coordinate finite and
    /// within +-1e5 m. Read during the call only.
    pub positions: *const f32,
    /// Number of render vertices (> 0, at most 2^28). Every read and write of the proxy takes it.
    pub vertex_count: u32,
    /// Triangles, `uint32_t[3*triangle_count]` render vertex indices, counter-clockwise = front; may
    /// be NULL when `triangle_count` is 0. The normals drawn are the render mesh's own over these
    /// triangles. Read during the call only.
    pub indices: *const u32,
    /// Number of triangles.
    pub triangle_count: u32,
    /// Farthest a render vertex may lie from the simulated surface at rest, in metres: > 0 and
    /// finite, at most 1e5. A vertex farther is `XPBD_RESULT_INVALID_MESH` naming it (a mesh in
    /// another frame or scale). Default 0.05.
    pub max_distance: f32,
}

/// An empty render proxy descriptor: NULL arrays, counts 0, `max_distance` 0.05 m. Set the
/// arrays: as it is, `xpbd_render_proxy_create` rejects it (no vertices). Never fails.
/// Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_default_render_proxy_desc() -> XpbdRenderProxyDesc {
    XpbdRenderProxyDesc {
        positions: std::ptr::null(),
        vertex_count: 0,
        indices: std::ptr::null(),
        triangle_count: 0,
        max_distance: DEFAULT_PROXY_MAX_DISTANCE,
    }
}

fn capacity_exceeded() -> FfiError {
    FfiError::new(
        XpbdResult::CapacityExceeded,
        format!("the world already has {MAX_CLOTHS_PER_WORLD} render proxies; destroy one first"),
    )
}

/// Add a render proxy to `w` (the world `world`) with `add` and return its id. Errors:
/// `CapacityExceeded` (as for cloths: 16 384 alive, or a slot beyond an id's 14 bits; the proxy
/// is removed again), and `add`'s own.
fn add_proxy_id(
    w: &mut World,
    world: XpbdWorldId,
    add: impl FnOnce(&mut World) -> Result<RenderProxyHandle, ClothError>,
) -> Result<XpbdRenderProxyId, FfiError> {
    if w.render_proxy_count() >= MAX_CLOTHS_PER_WORLD {
        return Err(capacity_exceeded());
    }
    let handle = add(w)?;
    match object_slot(handle.index, handle.generation, MAX_CLOTHS_PER_WORLD) {
        Some((index, generation)) => Ok(XpbdRenderProxyId::pack(world, index, generation)),
        None => {
            w.remove_render_proxy(handle)?;
            Err(capacity_exceeded())
        }
    }
}

/// Bind the render mesh of `desc` to the simulated surface of `sim` and write the proxy's id to
/// `*out_proxy`: each render vertex to the simulated triangle nearest to it at rest, by
/// barycentric weights and an offset along the surface's interpolated normal, so that the rest
/// mesh is given back exactly. From then on `xpbd_render_proxy_write_vertices` draws the render
/// mesh wherever the cloth is (interpolated, blended with the animated pose, at any
/// `step_interval`, as `xpbd_cloth_write_vertices` draws the cloth), with the render mesh's own
/// normals. On a cloth that can tear, each render vertex follows the side of a cut its simulated
/// triangle is on (the render mesh itself does not tear: its triangles across a cut stretch).
/// Binding searches a grid of the simulated triangles: milliseconds for a 65 536-vertex mesh
/// (docs/performance.md). Destroying the cloth destroys its proxies. Nothing is created on error
/// and `*out_proxy` is not written.
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (`desc`, `out_proxy`, `positions` NULL, or `indices` NULL
/// with `triangle_count` > 0), `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`,
/// `XPBD_RESULT_INVALID_MESH` (no vertices or more than 2^28; a NaN/Inf position or one beyond
/// +-1e5 m; an index >= `vertex_count`; a render vertex farther than `max_distance` from every
/// simulated triangle, the message naming it and its distance; a cloth without triangles),
/// `XPBD_RESULT_INVALID_ARGUMENT` (`max_distance` not in (0, 1e5] or NaN),
/// `XPBD_RESULT_CAPACITY_EXCEEDED` (16 384 proxies in the world). Thread-safe; serialised with
/// other calls on the world.
///
/// # Safety
/// `desc` points to a valid `XpbdRenderProxyDesc` whose non-NULL arrays hold the documented
/// number of elements; `out_proxy` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_render_proxy_create(
    sim: XpbdClothId,
    desc: *const XpbdRenderProxyDesc,
    out_proxy: *mut XpbdRenderProxyId,
) -> XpbdResult {
    ffi_boundary("xpbd_render_proxy_create", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let (desc, out) = unsafe { (required(desc, "desc")?, OutParam::new(out_proxy, "out_proxy")?) };
        let index_count = (desc.triangle_count as usize)
            .checked_mul(3)
            .ok_or(ClothError::MeshTooLarge { count: desc.triangle_count as usize })?;
        // SAFETY: the caller promises these arrays hold vertex_count / 3*triangle_count elements.
        let (positions, indices) = unsafe {
            (vec3_in(desc.positions, desc.vertex_count, "positions")?, slice_in(desc.indices, index_count, "indices")?)
        };
        let core = RenderProxyDesc { positions, indices, max_distance: desc.max_distance };
        let (world, index, generation) = sim.unpack()?;
        let id = with_world_of(world, "cloth", sim.id, |w| {
            let cloth = cloth_handle(w, sim, index, generation)?;
            add_proxy_id(w, world, |w| w.add_render_proxy(cloth, &core))
        })?;
        out.write(id);
        Ok(())
    })
}

/// Create a proxy of `cloth` that shares the binding of `source` (no search, only its own
/// buffers) and write its id to `*out_proxy`: `cloth` must share its mesh with `source`'s cloth
/// (be an instance of it made with `xpbd_cloth_create_instance`, or it of `cloth`, or both of a
/// third). A crowd of instanced capes binds its fine mesh once. Nothing is created on error.
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (`out_proxy`), `XPBD_RESULT_INVALID_ID` (either id, or ids of
/// two worlds), `XPBD_RESULT_WORLD_POISONED`, `XPBD_RESULT_INVALID_ARGUMENT` (`cloth` of another
/// mesh), `XPBD_RESULT_CAPACITY_EXCEEDED`. Thread-safe; serialised with other calls on the world.
///
/// # Safety
/// `out_proxy` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_render_proxy_create_instance(
    source: XpbdRenderProxyId,
    cloth: XpbdClothId,
    out_proxy: *mut XpbdRenderProxyId,
) -> XpbdResult {
    ffi_boundary("xpbd_render_proxy_create_instance", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { OutParam::new(out_proxy, "out_proxy")? };
        let (world, index, generation) = cloth.unpack()?;
        let (proxy_world, _, _) = source.unpack()?;
        if proxy_world != world {
            return Err(FfiError::new(
                XpbdResult::InvalidId,
                format!("cloth id {:#018x} and render proxy id {:#018x} are of two worlds", cloth.id, source.id),
            ));
        }
        let id = with_proxy(source, |w, source| {
            let cloth = cloth_handle(w, cloth, index, generation)?;
            add_proxy_id(w, world, |w| w.add_render_proxy_instance(source, cloth))
        })?;
        out.write(id);
        Ok(())
    })
}

/// Destroy a render proxy; its id becomes invalid (as it does when its cloth is destroyed).
/// Errors: `XPBD_RESULT_INVALID_ID` (null, already destroyed, its cloth or world destroyed, or
/// forged), `XPBD_RESULT_WORLD_POISONED`. Thread-safe (any thread); serialised with other calls on
/// its world.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_render_proxy_destroy(proxy: XpbdRenderProxyId) -> XpbdResult {
    ffi_boundary("xpbd_render_proxy_destroy", || with_proxy(proxy, |w, handle| Ok(w.remove_render_proxy(handle)?)))
}

/// Write the number of render vertices of the proxy (its desc's `vertex_count`) to `*out_count`.
/// Errors: `XPBD_RESULT_NULL_POINTER`, `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`.
/// Thread-safe; never waits for a step.
///
/// # Safety
/// `out_count` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_render_proxy_vertex_count(proxy: XpbdRenderProxyId, out_count: *mut u32) -> XpbdResult {
    ffi_boundary("xpbd_render_proxy_vertex_count", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { OutParam::new(out_count, "out_count")? };
        out.write(read_proxy_frame(proxy, |p, _, _| Ok::<u32, FfiError>(p.vertex_count()))?);
        Ok(())
    })
}

/// Write the proxy's render vertices, interpolated at `alpha` between the last two step states,
/// straight into an engine's interleaved vertex buffer, exactly as `xpbd_cloth_write_vertices`
/// does for the cloth (same `base`, `stride`, offsets and `alpha`; -1 skips an attribute; no other
/// byte touched; any alignment): positions in metres from the cloth's interpolated (and blended)
/// particles, normals the render mesh's own, area-weighted over its triangles at the positions
/// written (copies of a vertex at one position share theirs; a vertex of no triangle gets the
/// simulated surface's normal). Split over the world's threads when it has more than one and the
/// proxy more than 2048 vertices (the same bytes either way); allocates nothing.
///
/// `vertex_count`: the proxy's. The buffer spans `stride*(vertex_count-1) + (largest offset used)
/// + 12` bytes.
///
/// Errors, in the order checked: `XPBD_RESULT_NULL_POINTER` (`base` NULL), `XPBD_RESULT_INVALID_ID`,
/// `XPBD_RESULT_WORLD_POISONED`, `XPBD_RESULT_INVALID_ARGUMENT` (an offset below -1, past the
/// stride or overlapping the other, both -1), `XPBD_RESULT_BUFFER_SIZE_MISMATCH` (`vertex_count`
/// is not the proxy's), `XPBD_RESULT_INVALID_ARGUMENT` (`alpha` NaN or outside [0, 1]); nothing
/// written on error. Threads as `xpbd_cloth_write_vertices`: never waits for a step (during one it
/// writes the state before it, on the calling thread: the world's threads are stepping).
///
/// # Safety
/// `base`, when not NULL, is writable for the span above, and no other thread uses those bytes
/// during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_render_proxy_write_vertices(
    proxy: XpbdRenderProxyId,
    base: *mut std::ffi::c_void,
    stride: u32,
    position_offset: i32,
    normal_offset: i32,
    vertex_count: u32,
    alpha: f32,
) -> XpbdResult {
    ffi_boundary("xpbd_render_proxy_write_vertices", || {
        if base.is_null() {
            return Err(FfiError::new(XpbdResult::NullPointer, "`base` is NULL"));
        }
        read_proxy_frame(proxy, |p, reads, pool| {
            let layout = vertex_layout(stride, position_offset, normal_offset)?;
            let span = layout.span(vertex_count as usize)?;
            if vertex_count != p.vertex_count() {
                return Err(ClothError::BufferSizeMismatch { expected: p.vertex_count() as usize, got: vertex_count as usize });
            }
            // SAFETY: non-NULL; the caller promises `span` writable bytes used by no other
            // thread, and MaybeUninit bytes need no initialisation or alignment.
            let buffer = unsafe { std::slice::from_raw_parts_mut(base.cast::<MaybeUninit<u8>>(), span) };
            p.write_vertices_uninit(reads, buffer, layout, alpha, pool)
        })
    })
}

/// Copy the proxy's render vertex positions in metres, where its cloth is after the last step
/// (what `xpbd_cloth_read_positions` shows, carried to the render mesh), into `out`,
/// `float[3*vertex_count]` in render-vertex order. Errors: `XPBD_RESULT_NULL_POINTER` (`out` NULL
/// with vertex_count > 0), `XPBD_RESULT_BUFFER_SIZE_MISMATCH` (`vertex_count` not the proxy's),
/// `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`; `out` untouched on error. Threads as
/// `xpbd_cloth_read_positions`: never waits for a step. One thread.
///
/// # Safety
/// `out`, when not NULL, is writable for `3*vertex_count` floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_render_proxy_read_positions(proxy: XpbdRenderProxyId, out: *mut f32, vertex_count: u32) -> XpbdResult {
    ffi_boundary("xpbd_render_proxy_read_positions", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { vec3_out(out, vertex_count, "out")? };
        read_proxy_frame(proxy, |p, reads, _| p.read_positions(reads, out))
    })
}

/// Copy the proxy's render vertex normals (unit; the render mesh's own at the positions
/// `xpbd_render_proxy_read_positions` gives, as `xpbd_render_proxy_write_vertices` writes them)
/// into `out`, `float[3*vertex_count]`. Errors and threads as `xpbd_render_proxy_read_positions`.
///
/// # Safety
/// `out`, when not NULL, is writable for `3*vertex_count` floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_render_proxy_read_normals(proxy: XpbdRenderProxyId, out: *mut f32, vertex_count: u32) -> XpbdResult {
    ffi_boundary("xpbd_render_proxy_read_normals", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { vec3_out(out, vertex_count, "out")? };
        read_proxy_frame(proxy, |p, reads, _| p.read_normals(reads, out))
    })
}
