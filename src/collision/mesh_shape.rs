//! Mesh shapes: a triangle mesh turned once into a sparse signed distance field (docs/design.md,
//! "Mesh colliders").
//!
//! # Storage
//! A grid of cubic cells of edge h covers the mesh's bounding box padded by the band plus a brick.
//! It is cut into bricks of [`BRICK`]³ cells. Every brick within the band w = [`BAND_CELLS`]·h of
//! a triangle stores the exact distance at its 9³ nodes (quantised to 16 bits over
//! ±(w + brick diagonal)); the others are left out, so memory follows the surface area. A coarse
//! dense grid holds the exact distance at the brick corners (1/512 of the fine nodes) for the
//! space between: its trilinear value there is clamped to at least w in magnitude, since such a
//! point is farther than w from every triangle. Outside the grid the distance to the grid's box
//! plus the padding is returned, a lower bound of the true distance (the mesh lies inside the box
//! shrunk by the padding).
//!
//! # Distance and normal
//! d(p) is the trilinear interpolation of the eight nodes around p; the normal is its gradient,
//! normalised (the analytic derivative of the trilinear form). Node values are the exact
//! point–triangle distance (Ericson 2004, Real-Time Collision Detection, §5.1.5, closest point on
//! a triangle), found with a bounding-volume hierarchy over the triangles.
//!
//! # Sign (closed meshes)
//! The sign of a node is that of (p − q)·n with q its closest point on the mesh and n the
//! angle-weighted pseudo-normal of the feature (face, edge or vertex) q lies on (Bærentzen &
//! Aanæs 2005, Signed distance computation using the angle weighted pseudonormal, Theorem 1).
//! Where that feature touches a boundary or non-manifold edge (a hole, a crack) the pseudo-normal
//! proves nothing, so the node takes the generalized winding number instead (Jacobson, Kavan &
//! Sorkine-Hornung 2013, eq. 3, with the solid angle of van Oosterom & Strackee 1983): inside
//! when w(p) = Σ Ω_t(p)/4π > ½. So a few small holes change the sign only next to them. Open
//! meshes are two-sided: d is the unsigned distance, and the collision thickness keeps the cloth
//! off either side.

use crate::error::{ClothError, check_range};
use glam::Vec3;
use rayon::prelude::*;
use std::collections::HashMap;

/// Cells along each edge of a brick (the unit of sparse storage).
pub const BRICK: usize = 8;
const NODES: usize = BRICK + 1;
const BRICK_NODES: usize = NODES * NODES * NODES;

/// Half-width of the exact band around the surface, in cells: every point within this many cells
/// of a triangle lies in a stored brick. Collision thicknesses should stay below it
/// (`BAND_CELLS × cell_size`).
pub const BAND_CELLS: f32 = 8.0;

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
    /// otherwise finite, 0 < h ≤ 1e3. The distance is exact at the nodes and trilinear between,
    /// so features smaller than about 2h are rounded off; choose h at most a third of the
    /// thinnest part of the mesh and above half the cloth's collision thickness.
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
    /// Cells per axis (a multiple of [`BRICK`]).
    cells: [usize; 3],
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
    triangles: usize,
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

/// A triangle prepared for distance queries: corners, the pseudo-normals of its seven features
/// (0 face, 1–3 vertices a, b, c, 4–6 edges ab, bc, ca) and which of them are unreliable
/// (bit k: feature k touches a boundary or non-manifold edge).
#[derive(Clone, Copy)]
struct Tri {
    a: Vec3,
    b: Vec3,
    c: Vec3,
    normals: [Vec3; 7],
    unreliable: u8,
}

/// Closest point on triangle abc to p and the feature it lies on (Ericson 2004, §5.1.5).
#[inline]
fn closest_on_triangle(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> (Vec3, usize) {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, 1);
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return (b, 2);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return (a + ab * (d1 / (d1 - d3)), 4);
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return (c, 3);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return (a + ac * (d2 / (d2 - d6)), 6);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        return (b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6))), 5);
    }
    let denom = 1.0 / (va + vb + vc);
    (a + ab * (vb * denom) + ac * (vc * denom), 0)
}

/// Solid angle of triangle abc seen from p (van Oosterom & Strackee 1983), signed by its winding.
fn solid_angle(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> f64 {
    let (a, b, c) = ((a - p).as_dvec3(), (b - p).as_dvec3(), (c - p).as_dvec3());
    let (la, lb, lc) = (a.length(), b.length(), c.length());
    let numerator = a.dot(b.cross(c));
    let denominator = la * lb * lc + a.dot(b) * lc + a.dot(c) * lb + b.dot(c) * la;
    2.0 * numerator.atan2(denominator)
}

/// Bounding-volume hierarchy over the triangles for nearest-triangle queries: nodes hold a box
/// and either two children (the left one follows its parent) or a run of triangles.
struct Bvh {
    nodes: Vec<BvhNode>,
    order: Vec<u32>,
}

#[derive(Clone, Copy)]
struct BvhNode {
    lo: Vec3,
    hi: Vec3,
    /// Leaf: first index into `order`; inner: index of the right child.
    start: u32,
    /// Leaf: triangle count (> 0); inner: 0.
    count: u32,
}

/// Squared distance from p to the box lo..hi.
#[inline]
fn box_distance_squared(p: Vec3, lo: Vec3, hi: Vec3) -> f32 {
    let q = (lo - p).max(p - hi).max(Vec3::ZERO);
    q.length_squared()
}

impl Bvh {
    fn build(tris: &[Tri]) -> Bvh {
        let mut bvh = Bvh { nodes: Vec::with_capacity(2 * tris.len() / 2 + 1), order: (0..tris.len() as u32).collect() };
        let centroids: Vec<Vec3> = tris.iter().map(|t| (t.a + t.b + t.c) / 3.0).collect();
        bvh.split(tris, &centroids, 0, tris.len());
        bvh
    }

    fn split(&mut self, tris: &[Tri], centroids: &[Vec3], start: usize, end: usize) {
        let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        let (mut clo, mut chi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        for &t in &self.order[start..end] {
            let t_ = &tris[t as usize];
            lo = lo.min(t_.a).min(t_.b).min(t_.c);
            hi = hi.max(t_.a).max(t_.b).max(t_.c);
            clo = clo.min(centroids[t as usize]);
            chi = chi.max(centroids[t as usize]);
        }
        let node = self.nodes.len();
        self.nodes.push(BvhNode { lo, hi, start: start as u32, count: (end - start) as u32 });
        if end - start <= 4 {
            return;
        }
        let extent = chi - clo;
        let axis = if extent.x >= extent.y && extent.x >= extent.z { 0 } else if extent.y >= extent.z { 1 } else { 2 };
        let mid = (start + end) / 2;
        self.order[start..end].select_nth_unstable_by(mid - start, |&i, &j| {
            centroids[i as usize][axis].total_cmp(&centroids[j as usize][axis])
        });
        self.split(tris, centroids, start, mid);
        let right = self.nodes.len() as u32;
        self.split(tris, centroids, mid, end);
        self.nodes[node].start = right;
        self.nodes[node].count = 0;
    }

    /// The nearest triangle to p: (squared distance, triangle, closest point, feature), starting
    /// from the bound `hint` (a triangle that is close, from the previous query).
    fn nearest(&self, tris: &[Tri], p: Vec3, hint: u32) -> (f32, u32, Vec3, usize) {
        let t = &tris[hint as usize];
        let (q, f) = closest_on_triangle(p, t.a, t.b, t.c);
        let mut best = ((p - q).length_squared(), hint, q, f);
        let mut stack = [0u32; 64];
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let node = self.nodes[stack[top] as usize];
            if box_distance_squared(p, node.lo, node.hi) >= best.0 {
                continue;
            }
            if node.count > 0 {
                for &t in &self.order[node.start as usize..(node.start + node.count) as usize] {
                    let tri = &tris[t as usize];
                    let (q, f) = closest_on_triangle(p, tri.a, tri.b, tri.c);
                    let d = (p - q).length_squared();
                    if d < best.0 {
                        best = (d, t, q, f);
                    }
                }
            } else if top + 2 <= stack.len() {
                let (left, right) = (stack[top] + 1, node.start);
                let (l, r) = (self.nodes[left as usize], self.nodes[right as usize]);
                let (dl, dr) = (box_distance_squared(p, l.lo, l.hi), box_distance_squared(p, r.lo, r.hi));
                // Nearer child last, so that it is searched first.
                let (near, far) = if dl <= dr { (left, right) } else { (right, left) };
                stack[top] = far;
                stack[top + 1] = near;
                top += 2;
            }
        }
        best
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
    /// Errors (nothing is allocated beyond the build's own scratch): `InvalidParameter` naming
    /// - `triangles` (none, or more than [`MAX_MESH_SHAPE_TRIANGLES`]; value: the count),
    /// - `indices` (an index ≥ the vertex count; value: the index),
    /// - `positions` (a NaN, infinite or beyond ±1e5 m coordinate; value: the vertex),
    /// - `cell_size` (negative, not finite or above 1e3 m; or one whose field would exceed
    ///   [`MAX_MESH_SHAPE_BYTES`]; value: the cell size),
    /// - `triangles` with value 0 when every triangle has zero area.
    pub fn build(desc: &MeshShapeDesc) -> Result<MeshShape, ClothError> {
        Self::build_on(desc, true)
    }

    /// [`Self::build`] split over the current rayon pool when `parallel`, on the calling thread
    /// alone otherwise (the same field either way: every node is computed on its own).
    pub(crate) fn build_on(desc: &MeshShapeDesc, parallel: bool) -> Result<MeshShape, ClothError> {
        let count = desc.triangles.len();
        if count == 0 || count > MAX_MESH_SHAPE_TRIANGLES {
            return Err(invalid("triangles", count as f64, "1 ..= 2^24 triangles"));
        }
        let n = desc.positions.len();
        for (k, p) in desc.positions.iter().enumerate() {
            if p.iter().any(|c| !(c.abs() <= crate::mesh::MAX_COORDINATE)) {
                return Err(invalid("positions", k as f64, "finite coordinates within ±1e5 m (value: the vertex)"));
            }
        }
        for t in desc.triangles {
            for &i in t {
                if i as usize >= n {
                    return Err(invalid("indices", i as f64, "vertex indices below vertex_count"));
                }
            }
        }
        if desc.cell_size != 0.0 {
            check_range("cell_size", desc.cell_size, f32::MIN_POSITIVE, MAX_CELL_SIZE, "0 (automatic) or 0 < m <= 1e3")?;
        }
        let tris = prepare_triangles(desc.positions, desc.triangles);
        if tris.is_empty() {
            return Err(invalid("triangles", 0.0, "at least one triangle of non-zero area"));
        }
        let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        let mut radius = 0.0f32;
        for t in &tris {
            for v in [t.a, t.b, t.c] {
                (lo, hi, radius) = (lo.min(v), hi.max(v), radius.max(v.length()));
            }
        }
        let cell = if desc.cell_size == 0.0 { (hi - lo).length() / AUTO_CELLS_PER_DIAGONAL } else { desc.cell_size };
        let band = BAND_CELLS * cell;
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
        let origin = lo - Vec3::splat(pad);
        let brick_index = |b: [usize; 3]| b[0] + bricks[0] * (b[1] + bricks[1] * b[2]);
        // Bricks within the band of a triangle: those whose centre is within band + half a
        // brick diagonal of one of the triangles whose box they meet.
        let mut brick_slot = vec![EMPTY; bricks[0] * bricks[1] * bricks[2]];
        let half_diagonal = brick_size * 0.5 * 3f32.sqrt();
        for t in &tris {
            let tlo = t.a.min(t.b).min(t.c) - Vec3::splat(band);
            let thi = t.a.max(t.b).max(t.c) + Vec3::splat(band);
            let first = ((tlo - origin) / brick_size).floor().max(Vec3::ZERO).as_uvec3();
            let last = ((thi - origin) / brick_size).floor().as_uvec3();
            for z in first.z as usize..=(last.z as usize).min(bricks[2] - 1) {
                for y in first.y as usize..=(last.y as usize).min(bricks[1] - 1) {
                    for x in first.x as usize..=(last.x as usize).min(bricks[0] - 1) {
                        let slot = &mut brick_slot[brick_index([x, y, z])];
                        if *slot != EMPTY {
                            continue;
                        }
                        let centre = origin + (Vec3::new(x as f32, y as f32, z as f32) + 0.5) * brick_size;
                        let (q, _) = closest_on_triangle(centre, t.a, t.b, t.c);
                        if (centre - q).length() <= band + half_diagonal {
                            *slot = 0;
                        }
                    }
                }
            }
        }
        // Slots in brick order, so that the fine data is laid out as the bricks are.
        let mut stored = 0usize;
        for slot in brick_slot.iter_mut().filter(|s| **s != EMPTY) {
            *slot = stored as u32;
            stored += 1;
        }
        let bytes = stored * BRICK_NODES * 2 + brick_slot.len() * 4 + coarse_nodes as usize * 4;
        if bytes > MAX_MESH_SHAPE_BYTES {
            return Err(too_big());
        }
        let bvh = Bvh::build(&tris);
        let closed = desc.closed;
        let value = |p: Vec3, hint: &mut u32| -> f32 {
            let (d2, t, q, feature) = bvh.nearest(&tris, p, *hint);
            *hint = t;
            let d = d2.sqrt();
            if !closed || d == 0.0 {
                return d;
            }
            let tri = &tris[t as usize];
            let inside = if tri.unreliable & (1 << feature) != 0 {
                tris.iter().map(|t| solid_angle(p, t.a, t.b, t.c)).sum::<f64>() > 2.0 * std::f64::consts::PI
            } else {
                (p - q).dot(tri.normals[feature]) < 0.0
            };
            if inside { -d } else { d }
        };
        // Coarse nodes, one z slice per task.
        let coarse_dims = bricks.map(|b| b + 1);
        let coarse_slice = |z: usize| {
            let mut hint = 0;
            let mut slice = Vec::with_capacity(coarse_dims[0] * coarse_dims[1]);
            for y in 0..coarse_dims[1] {
                for x in 0..coarse_dims[0] {
                    let p = origin + Vec3::new(x as f32, y as f32, z as f32) * brick_size;
                    slice.push(value(p, &mut hint));
                }
            }
            slice
        };
        let coarse: Vec<f32> = if parallel {
            (0..coarse_dims[2]).into_par_iter().flat_map_iter(coarse_slice).collect()
        } else {
            (0..coarse_dims[2]).flat_map(coarse_slice).collect()
        };
        let quantum = (band + 2.0 * half_diagonal + cell) / i16::MAX as f32;
        let stored_bricks: Vec<usize> = (0..brick_slot.len()).filter(|&b| brick_slot[b] != EMPTY).collect();
        let mut fine = vec![0i16; stored * BRICK_NODES];
        let fill_brick = |(nodes, &b): (&mut [i16], &usize)| {
            let (bx, by, bz) = (b % bricks[0], b / bricks[0] % bricks[1], b / (bricks[0] * bricks[1]));
            let corner = origin + Vec3::new(bx as f32, by as f32, bz as f32) * brick_size;
            let mut hint = 0;
            for (k, node) in nodes.iter_mut().enumerate() {
                let (x, y, z) = (k % NODES, k / NODES % NODES, k / (NODES * NODES));
                let p = corner + Vec3::new(x as f32, y as f32, z as f32) * cell;
                let q = (value(p, &mut hint) / quantum).round();
                *node = q.clamp(-i16::MAX as f32, i16::MAX as f32) as i16;
            }
        };
        if parallel {
            fine.par_chunks_mut(BRICK_NODES).zip(stored_bricks.par_iter()).for_each(fill_brick);
        } else {
            fine.chunks_mut(BRICK_NODES).zip(stored_bricks.iter()).for_each(fill_brick);
        }
        debug_assert!(stored_bricks.iter().enumerate().all(|(k, &b)| brick_slot[b] as usize == k));
        Ok(MeshShape {
            origin,
            cell,
            inv_cell: 1.0 / cell,
            cells,
            bricks,
            brick_slot,
            fine,
            coarse,
            band,
            quantum,
            pad,
            closed,
            radius,
            triangles: tris.len(),
        })
    }

    /// Signed distance \[m\] from local point `p` to the surface (negative inside a closed mesh)
    /// and the unit outward normal, the normalised gradient of the trilinear field (+Y where the
    /// gradient vanishes).
    #[inline]
    pub fn distance(&self, p: Vec3) -> (f32, Vec3) {
        let g = (p - self.origin) * self.inv_cell;
        let size = Vec3::new(self.cells[0] as f32, self.cells[1] as f32, self.cells[2] as f32);
        if !(g.cmpge(Vec3::ZERO).all() && g.cmple(size).all()) {
            return self.outside_grid(p);
        }
        // g ≥ 0 here, so truncation is its floor (a float-to-int conversion, where `floor` is a
        // libm call on baseline x86-64): the cell, and its last one for g on the far face.
        let last = |g: f32, cells: usize| (g as usize).min(cells.saturating_sub(1));
        let (cx, cy, cz) = (last(g.x, self.cells[0]), last(g.y, self.cells[1]), last(g.z, self.cells[2]));
        let f = g - Vec3::new(cx as f32, cy as f32, cz as f32);
        let brick = [cx / BRICK, cy / BRICK, cz / BRICK];
        let slot = self.brick_slot[brick[0] + self.bricks[0] * (brick[1] + self.bricks[1] * brick[2])];
        if slot != EMPTY {
            let base = slot as usize * BRICK_NODES;
            let (lx, ly, lz) = (cx % BRICK, cy % BRICK, cz % BRICK);
            let at = |x: usize, y: usize, z: usize| {
                self.fine[base + (lx + x) + NODES * ((ly + y) + NODES * (lz + z))] as f32 * self.quantum
            };
            let (d, grad) = trilinear(f, [at(0, 0, 0), at(1, 0, 0), at(0, 1, 0), at(1, 1, 0), at(0, 0, 1), at(1, 0, 1), at(0, 1, 1), at(1, 1, 1)]);
            return (d, (grad * self.inv_cell).normalize_or(Vec3::Y));
        }
        // Between the bricks: the coarse grid, at least the band away from the surface.
        let gc = g / BRICK as f32;
        let cc = gc.floor().min(Vec3::new(self.bricks[0] as f32, self.bricks[1] as f32, self.bricks[2] as f32) - 1.0).max(Vec3::ZERO);
        let fc = gc - cc;
        let (nx, ny) = (self.bricks[0] + 1, self.bricks[1] + 1);
        let (x0, y0, z0) = (cc.x as usize, cc.y as usize, cc.z as usize);
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

    /// Bricks stored (those within the band of the surface).
    pub fn stored_bricks(&self) -> usize {
        self.fine.len() / BRICK_NODES
    }

    /// Heap memory of the field \[bytes\].
    pub fn memory_bytes(&self) -> usize {
        self.fine.len() * 2 + self.brick_slot.len() * 4 + self.coarse.len() * 4 + std::mem::size_of::<Self>()
    }
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

/// Weld vertices at the same position, drop zero-area triangles and compute the angle-weighted
/// pseudo-normals of every face, edge and vertex (Bærentzen & Aanæs 2005, eq. 2 for vertices;
/// an edge's is the sum of its two faces' normals), marking features on boundary, non-manifold
/// or inconsistently wound edges as unreliable.
fn prepare_triangles(positions: &[[f32; 3]], triangles: &[[u32; 3]]) -> Vec<Tri> {
    let mut weld: HashMap<[u32; 3], u32> = HashMap::with_capacity(positions.len());
    let canonical: Vec<u32> = positions
        .iter()
        .enumerate()
        .map(|(k, p)| *weld.entry(p.map(|c| (c + 0.0).to_bits())).or_insert(k as u32))
        .collect();
    let at = |i: u32| Vec3::from_array(positions[i as usize]);
    let faces: Vec<([u32; 3], Vec3)> = triangles
        .iter()
        .filter_map(|t| {
            let t = t.map(|i| canonical[i as usize]);
            let n = (at(t[1]) - at(t[0])).cross(at(t[2]) - at(t[0]));
            (t[0] != t[1] && t[1] != t[2] && t[0] != t[2] && n.length() > 0.0).then(|| (t, n.normalize()))
        })
        .filter(|(_, n)| n.is_finite())
        .collect();
    // Directed edge counts and undirected normal sums.
    let mut edges: HashMap<(u32, u32), (Vec3, u32, i32)> = HashMap::with_capacity(faces.len() * 2);
    let mut vertex_normals = vec![Vec3::ZERO; positions.len()];
    for (t, n) in &faces {
        for k in 0..3 {
            let (i, j) = (t[k], t[(k + 1) % 3]);
            let entry = edges.entry((i.min(j), i.max(j))).or_insert((Vec3::ZERO, 0, 0));
            entry.0 += *n;
            entry.1 += 1;
            entry.2 += if i < j { 1 } else { -1 };
            let (e1, e2) = (at(t[(k + 1) % 3]) - at(i), at(t[(k + 2) % 3]) - at(i));
            let angle = e1.angle_between(e2);
            vertex_normals[i as usize] += *n * if angle.is_finite() { angle } else { 0.0 };
        }
    }
    let mut vertex_unreliable = vec![false; positions.len()];
    for (&(i, j), &(_, count, balance)) in &edges {
        if count != 2 || balance != 0 {
            vertex_unreliable[i as usize] = true;
            vertex_unreliable[j as usize] = true;
        }
    }
    faces
        .iter()
        .map(|&(t, n)| {
            let mut normals = [n; 7];
            let mut unreliable = 0u8;
            for k in 0..3 {
                normals[1 + k] = vertex_normals[t[k] as usize];
                unreliable |= (vertex_unreliable[t[k] as usize] as u8) << (1 + k);
                let (i, j) = (t[k], t[(k + 1) % 3]);
                let (sum, count, balance) = edges[&(i.min(j), i.max(j))];
                normals[4 + k] = sum;
                unreliable |= ((count != 2 || balance != 0) as u8) << (4 + k);
            }
            Tri { a: at(t[0]), b: at(t[1]), c: at(t[2]), normals, unreliable }
        })
        .collect()
}

#[cfg(test)]
mod tests;
