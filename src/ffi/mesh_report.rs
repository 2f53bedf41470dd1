//! What a cloth's creation made of its mesh (`xpbd_cloth_get_mesh_report`) and its masses
//! (`xpbd_cloth_read_vertex_masses`).

use super::args::{OutParam, slice_out};
use super::boundary::ffi_boundary;
use super::error::XpbdResult;
use super::ids::XpbdClothId;
use super::registry::{read_cloth, with_cloth};
use crate::cloth::MeshInfo;

/// What the library made of a cloth's render mesh at creation (counts after welding), and its
/// mass. `total_mass` follows material and mass changes; a tearable cloth's counts (vertices,
/// particles, edges, boundary edges, hinges) and `closed` follow its cuts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct XpbdMeshReport {
    /// Render vertices passed in.
    pub vertex_count: u32,
    /// Simulation particles after welding.
    pub particle_count: u32,
    /// Render vertices welded with another (sharing a particle): UV seams, hard-normal splits.
    pub welded_vertices: u32,
    /// Triangles simulated (after dropping duplicates).
    pub triangle_count: u32,
    /// Triangles dropped because an earlier one has the same three particles (a double-sided
    /// mesh): their area is counted once into the masses.
    pub duplicate_triangles: u32,
    /// Edges between two triangles wound in the same direction along it, in the mesh as given.
    pub inconsistent_winding_edges: u32,
    /// Triangles whose winding was reversed so that each orientable part has one front side (the
    /// winding of most of its triangles).
    pub flipped_triangles: u32,
    /// Unique edges (= stretch constraints).
    pub edge_count: u32,
    /// Edges with one triangle.
    pub boundary_edges: u32,
    /// Edges with three or more triangles in the mesh as given: stretch only, no bending (unless
    /// dropping duplicate triangles left two).
    pub non_manifold_edges: u32,
    /// Bending hinges (interior edges of two triangles).
    pub hinge_count: u32,
    /// Interior edges without a hinge: non-manifold edges and edges whose two triangles have the
    /// same opposite corner.
    pub skipped_hinges: u32,
    /// Particles used by no triangle (free, or held only by lines).
    pub isolated_particles: u32,
    /// Total mass in kg: the sum over particles of 1/w (pinned ones included; particles given
    /// inverse mass 0 are infinitely heavy and not counted).
    pub total_mass: f32,
    /// 1 when the simulated triangles enclose a volume (no boundary or non-manifold edge, every edge
    /// run in opposite directions by its two triangles): `pressure` may be set and
    /// `xpbd_cloth_get_volume` answers. 0 for an open mesh, and after a tear.
    pub closed: u32,
}

impl XpbdMeshReport {
    fn new(info: MeshInfo, total_mass: f32) -> Self {
        XpbdMeshReport {
            vertex_count: info.vertex_count,
            particle_count: info.particle_count,
            welded_vertices: info.welded_vertices,
            triangle_count: info.triangle_count,
            duplicate_triangles: info.duplicate_triangles,
            inconsistent_winding_edges: info.inconsistent_winding_edges,
            flipped_triangles: info.flipped_triangles,
            edge_count: info.edge_count,
            boundary_edges: info.boundary_edges,
            non_manifold_edges: info.non_manifold_edges,
            hinge_count: info.hinge_count,
            skipped_hinges: info.skipped_hinges,
            isolated_particles: info.isolated_particles,
            total_mass,
            closed: info.closed as u32,
        }
    }
}

/// Write what creation made of the cloth's mesh to `*out_report` (`XpbdMeshReport`): welded
/// vertices, duplicate triangles dropped, inconsistent winding found and triangles flipped,
/// non-manifold edges and hinges skipped, and the total mass in kg. Errors:
/// `XPBD_RESULT_NULL_POINTER`, `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`.
/// Thread-safe; waits while the world steps.
///
/// # Safety
/// `out_report` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_get_mesh_report(cloth: XpbdClothId, out_report: *mut XpbdMeshReport) -> XpbdResult {
    ffi_boundary("xpbd_cloth_get_mesh_report", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { OutParam::new(out_report, "out_report")? };
        out.write(read_cloth(cloth, |c| XpbdMeshReport::new(c.info(), c.total_mass()))?);
        Ok(())
    })
}

/// Copy each render vertex's mass in kg into `out`, `float[vertex_count]` in render order: its
/// particle's mass 1/w (welded copies read the same value; INFINITY for particles given inverse
/// mass 0). Pinning does not change a mass. Errors: `XPBD_RESULT_NULL_POINTER` (`out` NULL with
/// vertex_count > 0), `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`,
/// `XPBD_RESULT_BUFFER_SIZE_MISMATCH` (`vertex_count` differs from the cloth's render vertex
/// count; `out` untouched). Thread-safe; waits while the world steps.
///
/// # Safety
/// `out`, when not NULL, is writable for `vertex_count` floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_read_vertex_masses(cloth: XpbdClothId, out: *mut f32, vertex_count: u32) -> XpbdResult {
    ffi_boundary("xpbd_cloth_read_vertex_masses", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { slice_out(out, vertex_count as usize, "out")? };
        with_cloth(cloth, |c| c.read_vertex_masses(out))
    })
}
