//! Tearing and pressure: scripted cuts, the render mesh a renderer follows as a cloth tears
//! (counts, indices, each vertex's source for its UVs), and a closed cloth's volume.

use super::args::{OutParam, slice_out};
use super::boundary::ffi_boundary;
use super::error::{FfiError, XpbdResult};
use super::ids::XpbdClothId;
use super::registry::{read_cloth, read_frame, with_cloth};

/// Cut the edge between render vertices `a` and `b` now (a scripted cut: a sword through a
/// banner is the edges along its path, one call each): the two triangles that share the edge stop
/// sharing it, and each end whose triangles no longer hang together across uncut edges is split,
/// with new render vertices where the mesh needs them (the first cut through a vertex in the
/// middle of the cloth opens nothing yet; the next one through it, or one from the border, does).
/// Cutting an edge already cut, or on the border, changes nothing and returns `XPBD_RESULT_OK`.
/// When the mesh changes, `xpbd_cloth_get_render_counts` reports a new vertex count and topology
/// version: read the indices and vertex sources again. A cloth under `pressure` leaks: its
/// `pressure` becomes 0. Changes the cloth between steps (wakes it); the next step moves it.
///
/// Errors (nothing changed): `XPBD_RESULT_INVALID_ARGUMENT` (the cloth was created with
/// `max_extra_vertices` 0; `a` or `b` >= the vertex count; `a` and `b` are not the two ends of a
/// triangle edge, or weld to one particle; the cloth is skinned by the library, `xpbd_cloth_set_skin`),
/// `XPBD_RESULT_CAPACITY_EXCEEDED` (the cut needs more vertices than are left of
/// `max_extra_vertices`; the message says how many), `XPBD_RESULT_INVALID_ID`,
/// `XPBD_RESULT_WORLD_POISONED`. Thread-safe; waits while the world steps.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_cloth_tear(cloth: XpbdClothId, a: u32, b: u32) -> XpbdResult {
    ffi_boundary("xpbd_cloth_tear", || with_cloth(cloth, |c| c.tear(a, b).map(|_| ())))
}

/// Write the render mesh's counts: `*vertex_count` (render vertices now: the count every
/// per-vertex read, write and setter takes; it grows as the cloth tears, by at most the
/// `max_extra_vertices` it was created with), `*triangle_count` (render triangles, as created) and
/// `*topology_version` (0 as created; grows with every cut and with a snapshot restore that changes
/// the mesh: when it changes, read the indices and vertex sources again and rebuild the engine's
/// mesh). Errors: `XPBD_RESULT_NULL_POINTER` (any of the three NULL), `XPBD_RESULT_INVALID_ID`,
/// `XPBD_RESULT_WORLD_POISONED`; nothing written on error. Threads as `xpbd_cloth_read_positions`:
/// never waits for a step (during one: the counts before it, which the reads during it match).
///
/// # Safety
/// Each pointer is writable for one `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_get_render_counts(
    cloth: XpbdClothId,
    vertex_count: *mut u32,
    triangle_count: *mut u32,
    topology_version: *mut u32,
) -> XpbdResult {
    ffi_boundary("xpbd_cloth_get_render_counts", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let (v, t, version) = unsafe {
            (
                OutParam::new(vertex_count, "vertex_count")?,
                OutParam::new(triangle_count, "triangle_count")?,
                OutParam::new(topology_version, "topology_version")?,
            )
        };
        let counts = read_frame(cloth, |c| Ok::<_, FfiError>(c.render_counts()))?;
        v.write(counts.vertex_count);
        t.write(counts.triangle_count);
        version.write(counts.topology_version);
        Ok(())
    })
}

/// Copy the render triangles into `out`, `uint32_t[3*triangle_count]` render vertex indices: the
/// indices the cloth was created with, where cuts have split a vertex the index of the split-off
/// copy (`xpbd_cloth_read_vertex_sources` names its original). `out` is owned by the caller, not
/// kept, only written. Errors: `XPBD_RESULT_NULL_POINTER` (`out` NULL with triangle_count > 0),
/// `XPBD_RESULT_BUFFER_SIZE_MISMATCH` (`triangle_count` differs from the cloth's; `out`
/// untouched), `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`. Threads as
/// `xpbd_cloth_read_positions` (never waits for a step).
///
/// # Safety
/// `out`, when not NULL, is writable for `3*triangle_count` uint32_t.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_read_indices(cloth: XpbdClothId, out: *mut u32, triangle_count: u32) -> XpbdResult {
    ffi_boundary("xpbd_cloth_read_indices", || {
        // SAFETY: the caller's promise in `# Safety` above; `[u32; 3]` has u32's alignment.
        let out = unsafe { slice_out(out.cast::<[u32; 3]>(), triangle_count as usize, "out")? };
        read_frame(cloth, |c| c.read_indices(out))
    })
}

/// Copy each render vertex's source into `out`, `uint32_t[vertex_count]`: the vertex (of the mesh
/// as created, `0..` its vertex count) it was split from, directly or through earlier cuts; a
/// vertex of the mesh as created is its own source. Copy UVs, colours and other attributes of a new
/// vertex from its source. Ownership, errors (`vertex_count` must be the current render vertex
/// count) and threads as `xpbd_cloth_read_indices`.
///
/// # Safety
/// `out`, when not NULL, is writable for `vertex_count` uint32_t.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_read_vertex_sources(cloth: XpbdClothId, out: *mut u32, vertex_count: u32) -> XpbdResult {
    ffi_boundary("xpbd_cloth_read_vertex_sources", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { slice_out(out, vertex_count as usize, "out")? };
        read_frame(cloth, |c| c.read_vertex_sources(out))
    })
}

/// Write the volume the cloth encloses now to `*out_m3`, in m³ (positive for a mesh wound
/// counter-clockwise seen from outside). Only for a closed, consistently wound mesh
/// (`closed` in `XpbdMeshReport`), the meshes `pressure` works on. Errors:
/// `XPBD_RESULT_NULL_POINTER`, `XPBD_RESULT_INVALID_ARGUMENT` (the mesh encloses no volume: open,
/// inconsistently wound, or torn; the message counts the open edges), `XPBD_RESULT_INVALID_ID`,
/// `XPBD_RESULT_WORLD_POISONED`; nothing written on error. Thread-safe; waits while the world steps.
///
/// # Safety
/// `out_m3` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_get_volume(cloth: XpbdClothId, out_m3: *mut f32) -> XpbdResult {
    ffi_boundary("xpbd_cloth_get_volume", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { OutParam::new(out_m3, "out_m3")? };
        out.write(read_cloth(cloth, |c| c.volume())??);
        Ok(())
    })
}
