//! Mesh shapes built off the calling thread, for a loading screen: start, poll, read what the
//! build found in the mesh (docs/c-cpp.md, "Mesh colliders").

use super::args::{OutParam, required};
use super::boundary::ffi_boundary;
use super::error::{FfiError, XpbdResult};
use super::ids::{XpbdMeshShapeId, XpbdWorldId};
use super::mesh_shape::{XpbdMeshShapeDesc, add_checked, core_desc, with_mesh_shape};
use super::registry::with_world;
use crate::collision::{MeshShapeBuild, MeshShapeReport};
use crate::world::MeshShapeStatus;

/// Start building the mesh shape of `desc` on a thread of its own (split over as many threads as
/// the world has) and write its id to `*out_shape` at once. The call copies the arrays (they may
/// be freed when it returns) and checks them once: 0.7–1 ms for 200 000 triangles, up to 2 ms
/// when the copy lands on fresh pages (docs/performance.md). Poll
/// `xpbd_mesh_shape_is_ready` (and `xpbd_mesh_shape_progress` for a loading bar). Mesh colliders
/// may use the id at once: they touch nothing until the build has ended, and collide
/// from the first step that starts after the build has ended (so in a replay, wait for `xpbd_mesh_shape_is_ready` before
/// stepping: when a build ends depends on the machine). Each build has a thread and, in a world
/// of several threads, a pool of as many; they compete with the world's own threads for cores. Destroying the shape (or its world) stops the build at its next check and
/// waits for it (the build stops between its stages and propagation rounds: up to a few hundred
/// milliseconds for a big mesh). Nothing is created on error and `*out_shape` is not written.
///
/// Errors now: those of `xpbd_mesh_shape_create` that reading the arrays finds
/// (`XPBD_RESULT_NULL_POINTER`, `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`,
/// `XPBD_RESULT_INVALID_MESH` for counts, indices and positions, `XPBD_RESULT_INVALID_ARGUMENT`
/// for `cell_size` out of range and `closed`, `XPBD_RESULT_CAPACITY_EXCEEDED`). The rest (only
/// zero-area triangles, a field over 256 MiB) come from `xpbd_mesh_shape_is_ready` when the build
/// ends. Thread-safe.
///
/// # Safety
/// `desc` points to a valid `XpbdMeshShapeDesc` whose arrays hold the counts it gives;
/// `out_shape` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_mesh_shape_create_async(
    world: XpbdWorldId,
    desc: *const XpbdMeshShapeDesc,
    out_shape: *mut XpbdMeshShapeId,
) -> XpbdResult {
    ffi_boundary("xpbd_mesh_shape_create_async", || {
        // SAFETY: the caller's promise in `# Safety` above (the arrays hold their counts).
        let (desc, out) = unsafe { (required(desc, "desc")?, OutParam::new(out_shape, "out_shape")?) };
        // SAFETY: as above.
        let shape_desc = unsafe { core_desc(desc)? };
        // Checked and copied before the world's lock is taken; the world only gets the running build.
        let threads = with_world(world, |w| Ok(w.mesh_shape_threads()))?;
        let build = MeshShapeBuild::start(&shape_desc, threads).map_err(FfiError::from)?;
        let id = add_checked(world, |w| w.add_mesh_shape_build(build))?;
        out.write(id);
        Ok(())
    })
}

/// Write 1 to `*ready` if the shape is built (from `xpbd_mesh_shape_create`, or an asynchronous
/// build that has ended), 0 while it builds. A build that has ended is taken in by this call or
/// by the next step, whichever comes first; its colliders collide from the first step that starts after the build has ended.
/// It waits for the world as any call on the world's objects does (docs/c-cpp.md, "Threads"):
/// poll it between steps, not during one.
///
/// Errors: `XPBD_RESULT_NULL_POINTER`, `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`; and,
/// once an asynchronous build has failed, the error `xpbd_mesh_shape_create` would have returned
/// (`XPBD_RESULT_INVALID_MESH`: only zero-area triangles; `XPBD_RESULT_INVALID_ARGUMENT`: a field
/// over 256 MiB) with its message, every time it is asked, `*ready` not written. Such a shape
/// never collides, and new colliders on it are refused (`XPBD_RESULT_INVALID_ARGUMENT` naming
/// `mesh_shape`): destroy its colliders and it. Thread-safe.
///
/// # Safety
/// `ready` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_mesh_shape_is_ready(shape: XpbdMeshShapeId, ready: *mut u32) -> XpbdResult {
    ffi_boundary("xpbd_mesh_shape_is_ready", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { OutParam::new(ready, "ready")? };
        let status = with_mesh_shape(shape, |w, handle| Ok(w.mesh_shape_status(handle)?))?;
        match status {
            MeshShapeStatus::Ready => out.write(1),
            MeshShapeStatus::Building { .. } => out.write(0),
            MeshShapeStatus::Failed(error) => return Err(error.into()),
        }
        Ok(())
    })
}

/// Write the build's progress in 0..=1 to `*progress` (for a loading bar): 1 once it has ended,
/// successfully or not (`xpbd_mesh_shape_is_ready` says which). Errors: `XPBD_RESULT_NULL_POINTER`,
/// `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`. Thread-safe.
///
/// # Safety
/// `progress` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_mesh_shape_progress(shape: XpbdMeshShapeId, progress: *mut f32) -> XpbdResult {
    ffi_boundary("xpbd_mesh_shape_progress", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { OutParam::new(progress, "progress")? };
        let status = with_mesh_shape(shape, |w, handle| Ok(w.mesh_shape_status(handle)?))?;
        out.write(match status {
            MeshShapeStatus::Building { progress } => progress,
            MeshShapeStatus::Ready | MeshShapeStatus::Failed(_) => 1.0,
        });
        Ok(())
    })
}

/// What building a mesh shape found in the mesh and repaired. Where the mesh has holes, inner
/// faces or touching parts, the sign comes from the generalized winding number (docs/design.md,
/// "Mesh colliders"), so a closed mesh stays solid inside.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct XpbdMeshShapeReport {
    /// Vertices merged into an earlier one at the same position (UV seams, split normals).
    pub welded_vertices: u32,
    /// Triangles dropped for zero area (two corners at one position, or collinear).
    pub degenerate_triangles: u32,
    /// Triangles dropped because an earlier one has the same three corners (either winding).
    pub duplicate_triangles: u32,
    /// Triangles whose winding was reversed to agree with their neighbours (or, for a closed mesh
    /// wound inward, every triangle).
    pub flipped_triangles: u32,
    /// Edges of one triangle only after the repairs (holes, open borders).
    pub boundary_edges: u32,
    /// Edges of three or more triangles after the repairs (inner faces, touching parts).
    pub non_manifold_edges: u32,
    /// Triangles kept (of non-zero area, not duplicates).
    pub triangle_count: u32,
}

/// Write what the build of `shape` found in its mesh to `*out_report`.
///
/// Errors: `XPBD_RESULT_NULL_POINTER`, `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`,
/// `XPBD_RESULT_NOT_READY` while it builds; after a failed build, the build's error. Thread-safe.
///
/// # Safety
/// `out_report` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_mesh_shape_get_report(shape: XpbdMeshShapeId, out_report: *mut XpbdMeshShapeReport) -> XpbdResult {
    ffi_boundary("xpbd_mesh_shape_get_report", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { OutParam::new(out_report, "out_report")? };
        let (report, triangles) = with_mesh_shape(shape, |w, handle| {
            let shape = w.mesh_shape(handle)?;
            Ok((shape.report(), shape.triangle_count()))
        })?;
        let MeshShapeReport { welded_vertices, degenerate_triangles, duplicate_triangles, flipped_triangles, boundary_edges, non_manifold_edges } = report;
        out.write(XpbdMeshShapeReport {
            welded_vertices,
            degenerate_triangles,
            duplicate_triangles,
            flipped_triangles,
            boundary_edges,
            non_manifold_edges,
            triangle_count: triangles as u32,
        });
        Ok(())
    })
}
