//! Mesh shapes: a triangle mesh turned once into a sparse signed distance field (docs/design.md,
//! "Mesh colliders", the contract of storage, propagation, sign and limits).
//!
//! - `triangles.rs`: the mesh welded and repaired, with the pseudo-normals of its features and
//!   the report of what was found.
//! - `field.rs`: the nodes of the bricks near the surface, their nearest triangle found by
//!   seeding and closest-point propagation, their sign, the quantised storage and the coarse grid.
//! - `winding.rs`: the fast generalized winding number (Barill et al. 2018) for the sign near
//!   holes and inner faces.
//! - `build_job.rs`: the build on a thread of its own ([`crate::World::create_mesh_shape_async`]).
//!
//! Here: validation, the grid and the candidate bricks, and the query: d(p) is the trilinear
//! interpolation of the eight nodes around p, the normal its analytic gradient normalised; within
//! the band ([`BAND_CELLS`] cells) the nodes hold distances to the nearest triangle, beyond it d
//! is a lower bound with the right sign. Open meshes are two-sided (the unsigned distance).

mod build_job;
mod field;
mod triangles;
mod winding;

use crate::error::{ClothError, check_range};
pub(crate) use build_job::MeshShapeBuild;
pub(crate) use field::Progress;
use glam::Vec3;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
pub use triangles::MeshShapeReport;
use triangles::{Tri, closest_on_triangle, prepare_triangles};
use winding::Winding;

/// Cells along each edge of a brick (the unit of sparse storage).
pub const BRICK: usize = 8;
const NODES: usize = BRICK + 1;
const BRICK_NODES: usize = NODES * NODES * NODES;

/// Half-width of the exact band around the surface, in cells: every point within this many cells
/// of a triangle lies in a stored brick. Collision thicknesses should stay below it
/// (`BAND_CELLS × cell_size`).
pub const BAND_CELLS: f32 = 4.0;

/// The automatic cell size (cell_size 0) is the bounding box diagonal divided by this.
pub const AUTO_CELLS_PER_DIAGONAL: f32 = 100.0;

/// Largest memory a mesh shape may take \[bytes\] (256 MiB): a cell size that would need more is
/// refused before anything is allocated.
pub const MAX_MESH_SHAPE_BYTES: usize = 256 << 20;

/// Most triangles a mesh shape accepts (2²⁴).
pub const MAX_MESH_SHAPE_TRIANGLES: usize = 1 << 24;

/// Largest accepted cell size \[m\].
pub const MAX_CELL_SIZE: f32 = 1.0e3;

/// A triangle mesh to build a [`MeshShape`] from, in the shape's local frame \[m\].
#[derive(Clone, Copy, Debug)]
pub struct MeshShapeDesc<'a> {
    /// Vertex positions \[m\], finite within ±1e5.
    pub positions: &'a [[f32; 3]],
    /// Triangles as three vertex indices each (at least one; every index < `positions.len()`).
    /// Vertices at the same position are welded, so a mesh split at UV seams stays closed.
    pub triangles: &'a [[u32; 3]],
    /// Cell edge h \[m\]: 0 = automatic (bounding-box diagonal / [`AUTO_CELLS_PER_DIAGONAL`]);
    /// otherwise finite, 0 < h ≤ 1e3. The nodes hold the distance to the nearest triangle, trilinear between,
    /// so features smaller than about 2h are rounded off; choose h at most a third of the
    /// thinnest part of the mesh and above a quarter of the cloth's collision thickness (the band is
    /// [`BAND_CELLS`] cells).
    pub cell_size: f32,
    /// True: the mesh is a closed surface, solid inside (negative distances). False: an open
    /// surface, two-sided (unsigned distance).
    pub closed: bool,
}

/// A signed distance field built from a triangle mesh (module docs): shared by any number of
/// mesh colliders, immutable once built.
pub struct MeshShape {
    origin: Vec3,
    cell: f32,
    inv_cell: f32,
    /// Cells per axis (a multiple of [`BRICK`]), as integers and as floats.
    cells: [usize; 3],
    cells32: [u32; 3],
    size: Vec3,
    bricks: [usize; 3],
    /// Per brick (x fastest): index of its nodes in `fine`, or `EMPTY`.
    brick_slot: Vec<u32>,
    fine: Vec<i16>,
    /// Node values of the coarse grid (brick corners) \[m\].
    coarse: Vec<f32>,
    band: f32,
    /// Metres per quantisation step of `fine`.
    quantum: f32,
    /// Padding of the grid beyond the bounding box \[m\].
    pad: f32,
    closed: bool,
    radius: f32,
    /// The mesh's bounding box in its local frame \[m\].
    bounds: (Vec3, Vec3),
    triangles: usize,
    report: MeshShapeReport,
}

const EMPTY: u32 = u32::MAX;

impl std::fmt::Debug for MeshShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MeshShape")
            .field("cell_size", &self.cell)
            .field("triangles", &self.triangles)
            .field("stored_bricks", &self.stored_bricks())
            .field("closed", &self.closed)
            .finish()
    }
}

/// Shapes are compared by identity (two builds of one mesh are two shapes).
impl PartialEq for MeshShape {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

fn invalid(name: &'static str, value: f64, expected: &'static str) -> ClothError {
    ClothError::InvalidParameter { name, value, expected }
}

impl MeshShape {
    /// Build the distance field of `desc` (module docs). Runs on the calling thread's rayon pool
    /// (the global one unless called inside another), holding no lock: build off the game thread.
    /// [`crate::World::create_mesh_shape`] and the C ABI build on the world's own threads instead
    /// (on the calling thread in a world of one thread), so no thread outlives the world.
    ///
    /// Errors (nothing is allocated beyond the build's own scratch), the mesh faults a cloth mesh
    /// gets too: `NoTriangles`; `TooManyTriangles` (more than [`MAX_MESH_SHAPE_TRIANGLES`]);
    /// `MeshTooLarge` (vertices); `NonFiniteVertex` (a NaN, infinite or beyond ±1e5 m coordinate,
    /// naming the vertex); `IndexOutOfRange` (naming the triangle and the index);
    /// `NoTriangleWithArea` (every triangle has zero area). `InvalidParameter` naming `cell_size`
    /// (negative, not finite or above 1e3 m; or one whose field would exceed
    /// [`MAX_MESH_SHAPE_BYTES`]).
    pub fn build(desc: &MeshShapeDesc) -> Result<MeshShape, ClothError> {
        Self::build_on(desc, true)
    }

    /// [`Self::build`] split over the current rayon pool when `parallel`, on the calling thread
    /// alone otherwise (the same field either way: every node is computed on its own).
    pub(crate) fn build_on(desc: &MeshShapeDesc, parallel: bool) -> Result<MeshShape, ClothError> {
        Self::build_with(desc, parallel, &Progress::new())
    }

    /// [`Self::build_on`] reporting its progress in 0..=1 to `progress` (for a loading bar).
    pub(crate) fn build_with(desc: &MeshShapeDesc, parallel: bool, progress: &Progress) -> Result<MeshShape, ClothError> {
        Self::validate(desc)?;
        Self::build_validated(desc, parallel, progress)
    }

    /// [`Self::build_with`] for a `desc` that passed [`Self::validate`] (the asynchronous build
    /// checks on the caller's thread and builds on its own).
    pub(crate) fn build_validated(desc: &MeshShapeDesc, parallel: bool, progress: &Progress) -> Result<MeshShape, ClothError> {
        let count = desc.triangles.len();
        let (tris, report) = prepare_triangles(desc.positions, desc.triangles, desc.closed);
        if tris.is_empty() {
            return Err(ClothError::NoTriangleWithArea { triangles: count as u32 });
        }
        progress.set(0.05);
        let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        let mut radius = 0.0f32;
        for t in &tris {
            for v in [t.a, t.b, t.c] {
                (lo, hi, radius) = (lo.min(v), hi.max(v), radius.max(v.length()));
            }
        }
        let cell = if desc.cell_size == 0.0 { (hi - lo).length() / AUTO_CELLS_PER_DIAGONAL } else { desc.cell_size };
        let band = BAND_CELLS * cell;
        // Nodes nearer than `reach` hold their exact distance: every cell that reaches into the
        // band then has exact corners.
        let reach = band + 3f32.sqrt() * cell;
        let brick_size = cell * BRICK as f32;
        let pad = band + brick_size;
        let span = (hi - lo + Vec3::splat(2.0 * pad)) / brick_size;
        // Memory check in f64 before any allocation: brick slots and coarse nodes.
        let bricks_f = span.as_dvec3().ceil().max(glam::DVec3::ONE);
        let coarse_nodes = (bricks_f + 1.0).element_product();
        let too_big = || invalid("cell_size", cell as f64, "a cell size large enough that the distance field fits in the 256 MiB limit");
        if coarse_nodes * 8.0 > MAX_MESH_SHAPE_BYTES as f64 {
            return Err(too_big());
        }
        let bricks = [bricks_f.x as usize, bricks_f.y as usize, bricks_f.z as usize];
        let cells = bricks.map(|b| b * BRICK);
        let grid = field::Grid { origin: lo - Vec3::splat(pad), cell, bricks };
        // Candidate bricks: those whose centre is within reach + half a brick diagonal of a
        // triangle whose box they meet (so every brick with a node within reach).
        let half_diagonal = brick_size * 0.5 * 3f32.sqrt();
        let brick_count = bricks[0] * bricks[1] * bricks[2];
        let flagged: Vec<AtomicBool> = (0..brick_count).map(|_| AtomicBool::new(false)).collect();
        let flag_near = |t: &Tri| {
            let tlo = t.a.min(t.b).min(t.c) - Vec3::splat(reach);
            let thi = t.a.max(t.b).max(t.c) + Vec3::splat(reach);
            let first = ((tlo - grid.origin) / brick_size).floor().max(Vec3::ZERO).as_uvec3();
            let last = ((thi - grid.origin) / brick_size).floor().as_uvec3();
            for z in first.z as usize..=(last.z as usize).min(bricks[2] - 1) {
                for y in first.y as usize..=(last.y as usize).min(bricks[1] - 1) {
                    for x in first.x as usize..=(last.x as usize).min(bricks[0] - 1) {
                        let flag = &flagged[x + bricks[0] * (y + bricks[1] * z)];
                        if flag.load(Ordering::Relaxed) {
                            continue;
                        }
                        let centre = grid.origin + (Vec3::new(x as f32, y as f32, z as f32) + 0.5) * brick_size;
                        let (q, _) = closest_on_triangle(centre, t.a, t.b, t.c);
                        if (centre - q).length() <= reach + half_diagonal {
                            flag.store(true, Ordering::Relaxed);
                        }
                    }
                }
            }
        };
        if parallel {
            tris.par_iter().for_each(flag_near);
        } else {
            tris.iter().for_each(flag_near);
        }
        let flagged: Vec<bool> = flagged.into_iter().map(AtomicBool::into_inner).collect();
        let candidates: Vec<usize> = (0..brick_count).filter(|&b| flagged[b]).collect();
        drop(flagged);
        let bytes = candidates.len() * BRICK_NODES * 2 + brick_count * 4 + coarse_nodes as usize * 4;
        if bytes > MAX_MESH_SHAPE_BYTES {
            return Err(too_big());
        }
        let mut slot = vec![EMPTY; brick_count];
        for (k, &b) in candidates.iter().enumerate() {
            slot[b] = k as u32;
        }
        progress.set(0.1);
        let winding = desc.closed.then(|| Winding::build(&tris));
        let built = field::build(&tris, winding.as_ref(), &grid, &candidates, &slot, band, reach, parallel, progress);
        Ok(MeshShape {
            origin: grid.origin,
            cell,
            inv_cell: 1.0 / cell,
            cells,
            cells32: cells.map(|c| c as u32),
            size: Vec3::new(cells[0] as f32, cells[1] as f32, cells[2] as f32),
            bricks,
            brick_slot: built.brick_slot,
            fine: built.fine,
            coarse: built.coarse,
            band,
            quantum: built.quantum,
            pad,
            closed: desc.closed,
            radius,
            bounds: (lo, hi),
            triangles: tris.len(),
            report,
        })
    }

    /// The faults found by reading the arrays once (counts, indices, coordinates, cell size): the
    /// asynchronous build reports these at once and the rest when it ends.
    pub(crate) fn validate(desc: &MeshShapeDesc) -> Result<(), ClothError> {
        let count = desc.triangles.len();
        if count == 0 {
            return Err(ClothError::NoTriangles);
        }
        if count > MAX_MESH_SHAPE_TRIANGLES {
            return Err(ClothError::TooManyTriangles { count });
        }
        if desc.positions.len() > crate::mesh::MAX_VERTICES {
            return Err(ClothError::MeshTooLarge { count: desc.positions.len() });
        }
        // Branch-free maxima first (they vectorise: the asynchronous build's caller waits for
        // this pass), then the search for the first fault only if there is one. |c| as bits: NaN
        // and ±∞ are above every finite value's.
        let largest = desc.positions.iter().flatten().map(|c| c.to_bits() & 0x7fff_ffff).fold(0, u32::max);
        if largest > crate::mesh::MAX_COORDINATE.to_bits() {
            let v = desc.positions.iter().position(|p| !crate::mesh::is_valid_point(p)).unwrap_or(0);
            return Err(ClothError::NonFiniteVertex { vertex: v as u32 });
        }
        let n = desc.positions.len();
        let highest = desc.triangles.iter().flatten().fold(0, |m, &i| m.max(i));
        if highest as usize >= n {
            for (t, tri) in desc.triangles.iter().enumerate() {
                if let Some(&index) = tri.iter().find(|&&i| i as usize >= n) {
                    return Err(ClothError::IndexOutOfRange { triangle: t as u32, index, vertex_count: n as u32 });
                }
            }
        }
        if desc.cell_size != 0.0 {
            check_range("cell_size", desc.cell_size, f32::MIN_POSITIVE, MAX_CELL_SIZE, "0 (automatic) or 0 < m <= 1e3")?;
        }
        Ok(())
    }

    /// Signed distance \[m\] from local point `p` to the surface (negative inside a closed mesh)
    /// and the unit outward normal, the normalised gradient of the trilinear field (+Y where the
    /// gradient vanishes).
    #[inline(always)]
    pub fn distance(&self, p: Vec3) -> (f32, Vec3) {
        let g = (p - self.origin) * self.inv_cell;
        if !(g.cmpge(Vec3::ZERO).all() && g.cmple(self.size).all()) {
            return self.outside_grid(p);
        }
        let (cx, cy, cz) = (cell_of(g.x, self.cells32[0]), cell_of(g.y, self.cells32[1]), cell_of(g.z, self.cells32[2]));
        let f = g - Vec3::new(cx as f32, cy as f32, cz as f32);
        const B: u32 = BRICK as u32;
        let brick = (cx / B) as usize + self.bricks[0] * ((cy / B) as usize + self.bricks[1] * (cz / B) as usize);
        let slot = self.brick_slot[brick];
        if slot != EMPTY {
            // The brick's nodes as an array: the corner indices below are within it (l < BRICK).
            let node: &[i16; BRICK_NODES] = self.fine[slot as usize * BRICK_NODES..][..BRICK_NODES].try_into().expect("a brick's nodes");
            let (lx, ly, lz) = ((cx % B) as usize, (cy % B) as usize, (cz % B) as usize);
            let at = |x: usize, y: usize, z: usize| node[(lx + x) + NODES * ((ly + y) + NODES * (lz + z))] as f32 * self.quantum;
            let (d, grad) = trilinear(f, [at(0, 0, 0), at(1, 0, 0), at(0, 1, 0), at(1, 1, 0), at(0, 0, 1), at(1, 0, 1), at(0, 1, 1), at(1, 1, 1)]);
            return (d, (grad * self.inv_cell).normalize_or(Vec3::Y));
        }
        self.between_bricks(g)
    }

    /// [`Self::distance`] between the stored bricks: the coarse grid, at least the band away from
    /// the surface.
    #[inline(never)]
    fn between_bricks(&self, g: Vec3) -> (f32, Vec3) {
        let gc = g / BRICK as f32;
        let brick = |k: usize| cell_of(gc[k], self.bricks[k] as u32);
        let (x0, y0, z0) = (brick(0), brick(1), brick(2));
        let fc = gc - Vec3::new(x0 as f32, y0 as f32, z0 as f32);
        let (nx, ny) = (self.bricks[0] + 1, self.bricks[1] + 1);
        let (x0, y0, z0) = (x0 as usize, y0 as usize, z0 as usize);
        let at = |x: usize, y: usize, z: usize| self.coarse[(x0 + x) + nx * ((y0 + y) + ny * (z0 + z))];
        let (d, grad) = trilinear(fc, [at(0, 0, 0), at(1, 0, 0), at(0, 1, 0), at(1, 1, 0), at(0, 0, 1), at(1, 0, 1), at(0, 1, 1), at(1, 1, 1)]);
        let d = if d >= 0.0 || !self.closed { d.max(self.band) } else { d.min(-self.band) };
        (d, grad.normalize_or(Vec3::Y))
    }

    /// Outside the grid: the distance to the grid's box plus the padding (a lower bound of the
    /// distance to the mesh), normal away from the box.
    #[cold]
    fn outside_grid(&self, p: Vec3) -> (f32, Vec3) {
        let hi = self.origin + Vec3::new(self.cells[0] as f32, self.cells[1] as f32, self.cells[2] as f32) * self.cell;
        let q = p.clamp(self.origin, hi);
        let d = (p - q).length();
        (d + self.pad, (p - q).normalize_or(Vec3::Y))
    }

    /// Radius \[m\] of a ball around the local origin that contains the mesh.
    pub fn bounding_radius(&self) -> f32 {
        self.radius
    }

    /// The mesh's bounding box (min, max) in its local frame \[m\].
    pub fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        (self.bounds.0.to_array(), self.bounds.1.to_array())
    }

    /// Cell edge \[m\] (the automatic one when built with 0).
    pub fn cell_size(&self) -> f32 {
        self.cell
    }

    /// Whether it was built as a closed (solid) mesh.
    pub fn closed(&self) -> bool {
        self.closed
    }

    /// Triangles of non-zero area it was built from.
    pub fn triangle_count(&self) -> usize {
        self.triangles
    }

    /// What the build found in the mesh and repaired.
    pub fn report(&self) -> MeshShapeReport {
        self.report
    }

    /// Bricks stored (those within the band of the surface).
    pub fn stored_bricks(&self) -> usize {
        self.fine.len() / BRICK_NODES
    }

    /// Heap memory of the field \[bytes\].
    pub fn memory_bytes(&self) -> usize {
        self.fine.len() * 2 + self.brick_slot.len() * 4 + self.coarse.len() * 4 + std::mem::size_of::<Self>()
    }
}

/// The cell of grid coordinate `g` ≥ 0 among `count` cells (the last one for `g` on the far
/// face). Truncation is the floor for g ≥ 0: a float-to-int conversion, where `floor` is a libm
/// call on baseline x86-64. 32-bit: a grid has fewer than 2³¹ cells a side.
#[inline(always)]
fn cell_of(g: f32, count: u32) -> u32 {
    (g as u32).min(count - 1)
}

/// Trilinear interpolation of corner values `v` (x fastest) at fraction `f` of the cell, and its
/// gradient per cell.
#[inline(always)]
fn trilinear(f: Vec3, v: [f32; 8]) -> (f32, Vec3) {
    let (x, y, z) = (f.x, f.y, f.z);
    let c00 = v[0] + (v[1] - v[0]) * x;
    let c10 = v[2] + (v[3] - v[2]) * x;
    let c01 = v[4] + (v[5] - v[4]) * x;
    let c11 = v[6] + (v[7] - v[6]) * x;
    let c0 = c00 + (c10 - c00) * y;
    let c1 = c01 + (c11 - c01) * y;
    let d = c0 + (c1 - c0) * z;
    let dx0 = (v[1] - v[0]) * (1.0 - y) + (v[3] - v[2]) * y;
    let dx1 = (v[5] - v[4]) * (1.0 - y) + (v[7] - v[6]) * y;
    let dx = dx0 * (1.0 - z) + dx1 * z;
    let dy = (c10 - c00) * (1.0 - z) + (c11 - c01) * z;
    (d, Vec3::new(dx, dy, c1 - c0))
}

#[cfg(test)]
mod soup_tests;
#[cfg(test)]
mod tests;
