//! Mesh shape exports: build a triangle mesh's signed distance field once, share it by any number
//! of mesh colliders of its world, query it, destroy it (docs/c-cpp.md, "Mesh colliders").

use super::args::{OutParam, required, slice_in, vec3_in};
use super::boundary::ffi_boundary;
use super::error::{FfiError, XpbdResult};
use super::ids::{MAX_MESH_SHAPES_PER_WORLD, XpbdMeshShapeId, XpbdWorldId, mesh_shape_generation};
use super::registry::{with_world, with_world_of};
use crate::collision::{MeshShapeDesc, MeshShapeHandle};
use crate::world::World;
use glam::Vec3;

/// What `xpbd_mesh_shape_create` and `xpbd_mesh_shape_create_async` need: a triangle mesh in the shape's local frame (metres).
/// Get one from `xpbd_default_mesh_shape_desc()` and set the arrays.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct XpbdMeshShapeDesc {
    /// `vertex_count * 3` floats: x, y, z of each vertex in metres (finite, within +-1e5).
    /// Vertices at the same position are welded. Read during the call only.
    pub positions: *const f32,
    /// Number of vertices.
    pub vertex_count: u32,
    /// `triangle_count * 3` vertex indices (each < `vertex_count`). Read during the call only.
    pub indices: *const u32,
    /// Number of triangles (at least 1; at most 2^24).
    pub triangle_count: u32,
    /// Edge of the distance field's cells in metres: 0 = automatic (the bounding-box diagonal /
    /// 100); otherwise 0 < h <= 1e3. Distances are those to the nearest triangle at the cell corners (within
    /// about a millimetre at 2 cm cells, docs/design.md) and trilinear in
    /// between, so features thinner than about 2 cells are rounded off; the exact band reaches
    /// 4 cells from the surface, so keep cloth collision thicknesses below 4 cells. A cell size
    /// whose field would need more than 256 MiB is refused. Negative or not finite: an error.
    pub cell_size: f32,
    /// 1: a closed surface, solid inside (negative distances; a few small holes are tolerated).
    /// 0: an open surface (a terrain patch, a sheet), two-sided, kept off by the cloth's
    /// collision thickness on both sides. Other values: `XPBD_RESULT_INVALID_ARGUMENT`.
    /// Default 1.
    pub closed: u32,
}

/// An empty mesh shape descriptor: NULL arrays, counts 0, `cell_size` 0 (automatic), `closed` 1.
/// Set the arrays: as it is, `xpbd_mesh_shape_create` rejects it (no triangles). Never fails.
/// Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_default_mesh_shape_desc() -> XpbdMeshShapeDesc {
    XpbdMeshShapeDesc {
        positions: std::ptr::null(),
        vertex_count: 0,
        indices: std::ptr::null(),
        triangle_count: 0,
        cell_size: 0.0,
        closed: 1,
    }
}

pub(crate) fn capacity_exceeded() -> FfiError {
    FfiError::new(
        XpbdResult::CapacityExceeded,
        format!("the world already has {MAX_MESH_SHAPES_PER_WORLD} mesh shapes; destroy one first"),
    )
}


/// Build a signed distance field from the triangle mesh in `desc` and add it to `world` as a
/// shape that mesh colliders (`XPBD_COLLIDER_KIND_MESH`, `mesh_shape`) instance; write its id to
/// `*out_shape`. The call returns when the build has ended, a time that follows the surface area
/// over the cell size squared (on 2 cores a 10 000-triangle torus at 1 cm 0.17 s, a
/// 200 000-triangle sphere of radius 0.5 m at 5 mm 2 s; docs/performance.md): in a game, build with
/// `xpbd_mesh_shape_create_async` instead. The build runs on the world's threads before the
/// world's lock is taken, so other threads may step the world meanwhile. Nothing is created on
/// error and `*out_shape` is not written.
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (`desc`, `out_shape`, or an array NULL with a non-zero
/// count), `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`, `XPBD_RESULT_INVALID_MESH`
/// (no triangles or more than 2^24; more than 2^28 vertices; an index >= `vertex_count`, naming the triangle; a NaN/Inf
/// position or one beyond +-1e5 m, naming the vertex; only zero-area triangles),
/// `XPBD_RESULT_INVALID_ARGUMENT` (`cell_size` negative, not finite, above 1e3 m or so small that
/// the field would need more than 256 MiB; `closed` not 0 or 1), `XPBD_RESULT_CAPACITY_EXCEEDED`
/// (256 shapes in the world). The message names the field, triangle or vertex. Thread-safe.
///
/// # Safety
/// `desc` points to a valid `XpbdMeshShapeDesc` whose arrays hold the counts it gives;
/// `out_shape` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_mesh_shape_create(
    world: XpbdWorldId,
    desc: *const XpbdMeshShapeDesc,
    out_shape: *mut XpbdMeshShapeId,
) -> XpbdResult {
    ffi_boundary("xpbd_mesh_shape_create", || {
        // SAFETY: the caller's promise in `# Safety` above (the arrays hold their counts).
        let (desc, out) = unsafe { (required(desc, "desc")?, OutParam::new(out_shape, "out_shape")?) };
        // SAFETY: as above.
        let shape_desc = unsafe { core_desc(desc)? };
        // Fail fast on a bad world before the build.
        let pool = with_world(world, |w| if w.mesh_shape_count() >= MAX_MESH_SHAPES_PER_WORLD { Err(capacity_exceeded()) } else { Ok(w.mesh_shape_pool()) })?;
        // Built without the world's lock, on the world's own threads (joined when it is destroyed)
        // or on this one: never on rayon's global pool, whose threads would outlive every world.
        let shape = World::build_mesh_shape_on(pool, &shape_desc).map_err(FfiError::from)?;
        let id = add_checked(world, |w| w.add_mesh_shape(shape))?;
        out.write(id);
        Ok(())
    })
}

/// The core's description of `desc` (arrays borrowed). Errors: `NullPointer` (an array NULL with
/// a non-zero count), `InvalidArgument` (`closed` not 0 or 1).
///
/// # Safety
/// `desc`'s arrays hold the counts it gives.
pub(crate) unsafe fn core_desc(desc: &XpbdMeshShapeDesc) -> Result<MeshShapeDesc<'_>, FfiError> {
    // SAFETY: the caller's promise.
    let positions = unsafe { vec3_in(desc.positions, desc.vertex_count, "positions")? };
    // SAFETY: as above; `[u32; 3]` has u32's alignment and `triangle_count * 3` indices are promised.
    let indices = unsafe { slice_in(desc.indices.cast::<[u32; 3]>(), desc.triangle_count as usize, "indices")? };
    let closed = match desc.closed {
        0 => false,
        1 => true,
        other => return Err(FfiError::new(XpbdResult::InvalidArgument, format!("`closed` = {other}: expected 0 or 1"))),
    };
    Ok(MeshShapeDesc { positions, triangles: indices, cell_size: desc.cell_size, closed })
}

/// Add a shape to `world` with `add` (under its lock) unless the world holds its maximum; its id.
pub(crate) fn add_checked(world: XpbdWorldId, add: impl FnOnce(&mut World) -> MeshShapeHandle) -> Result<XpbdMeshShapeId, FfiError> {
    with_world(world, |w| {
        if w.mesh_shape_count() >= MAX_MESH_SHAPES_PER_WORLD {
            return Err(capacity_exceeded());
        }
        let handle = add(w);
        if handle.index as usize >= MAX_MESH_SHAPES_PER_WORLD {
            w.remove_mesh_shape(handle)?;
            return Err(capacity_exceeded());
        }
        Ok(XpbdMeshShapeId::pack(world, handle.index, handle.generation))
    })
}

/// The full handle of the live shape `id` refers to in `world`. Errors: `InvalidId`.
pub(crate) fn mesh_shape_handle(world: &World, id: XpbdMeshShapeId) -> Result<MeshShapeHandle, FfiError> {
    let (_, index, generation) = id.unpack()?;
    match world.live_mesh_shape_handle(index as u32) {
        Some(h) if mesh_shape_generation(h.generation) == generation => Ok(h),
        _ => Err(super::ids::invalid("mesh shape", id.id)),
    }
}

/// Run `f` on the world of mesh shape `id` and the shape's handle, under the world's lock.
pub(crate) fn with_mesh_shape<T>(id: XpbdMeshShapeId, f: impl FnOnce(&mut World, MeshShapeHandle) -> Result<T, FfiError>) -> Result<T, FfiError> {
    let (world, ..) = id.unpack()?;
    with_world_of(world, "mesh shape", id.id, |w| {
        let handle = mesh_shape_handle(w, id)?;
        f(w, handle)
    })
}

/// Destroy a mesh shape; its id becomes invalid. Refused while a collider uses it:
/// `XPBD_RESULT_INVALID_ARGUMENT`, the message saying how many colliders use it (destroy those
/// colliders first; the shape stays). Errors also: `XPBD_RESULT_INVALID_ID` (null, destroyed, its world destroyed, another
/// kind of id, forged), `XPBD_RESULT_WORLD_POISONED`. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_mesh_shape_destroy(shape: XpbdMeshShapeId) -> XpbdResult {
    ffi_boundary("xpbd_mesh_shape_destroy", || with_mesh_shape(shape, |w, handle| Ok(w.remove_mesh_shape(handle)?)))
}

/// Signed distance in metres from `point` (`float[3]`, the shape's local frame, metres) to the
/// shape's surface, negative inside a closed mesh, written to `*distance`; the unit outward
/// normal (the gradient of the distance) to `normal` (`float[3]`). The distance is the field the
/// contacts use: the distance to the nearest triangle at its cell corners, trilinear between, and outside the band (4 cells) a
/// lower bound. For tests and engine queries.
///
/// Errors: `XPBD_RESULT_NULL_POINTER`, `XPBD_RESULT_INVALID_ARGUMENT` (`point` not finite),
/// `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`, `XPBD_RESULT_NOT_READY` (an
/// asynchronous build still running; after a failed build, the build's error). Thread-safe.
///
/// # Safety
/// `point` holds 3 floats; `distance` is writable; `normal` is writable for 3 floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_mesh_shape_distance(
    shape: XpbdMeshShapeId,
    point: *const f32,
    distance: *mut f32,
    normal: *mut f32,
) -> XpbdResult {
    ffi_boundary("xpbd_mesh_shape_distance", || {
        // SAFETY: the caller's promise in `# Safety` above; `[f32; 3]` has f32's alignment.
        let (point, out_distance, out_normal) = unsafe {
            (
                *required(point.cast::<[f32; 3]>(), "point")?,
                OutParam::new(distance, "distance")?,
                OutParam::new(normal.cast::<[f32; 3]>(), "normal")?,
            )
        };
        if point.iter().any(|c| !c.is_finite()) {
            return Err(FfiError::new(XpbdResult::InvalidArgument, "`point` has a NaN or infinite coordinate"));
        }
        let (d, n) = with_mesh_shape(shape, |w, handle| Ok(w.mesh_shape(handle)?.distance(Vec3::from_array(point))))?;
        out_distance.write(d);
        out_normal.write(n.to_array());
        Ok(())
    })
}
