//! Binding a render mesh to the simulated surface: for each render vertex the nearest simulated
//! triangle (a uniform grid of the triangles, searched in growing shells of cells), then the
//! point of that triangle whose interpolated normal passes through the vertex (a few fixed-point
//! rounds from the nearest point), so that barycentric weights plus an offset along the
//! interpolated normal give the vertex back at rest.

use super::{Binding, BoundVertex, RenderProxy, RenderProxyDesc, interpolated_normal, weigh};
use crate::cloth::animation::area_weighted_normals;
use crate::cloth::model::ClothModel;
use crate::cloth::normals::ParticleTriangles;
use crate::error::{ClothError, check_range};
use crate::mesh::{MAX_COORDINATE, validate_indices, validate_positions};
use glam::{IVec3, Vec3};
use std::sync::Arc;

/// Fixed-point rounds that move a vertex's foot point to where the interpolated normal passes
/// through it (each round gains about the offset times the normal's curvature: after four, far
/// below float precision for offsets up to an edge length).
const FOOT_ROUNDS: usize = 4;

/// Most cells of the grid: beyond, the cells grow (a mesh spread thin over a large box).
const MAX_GRID_CELLS: f32 = (1 << 22) as f32;

/// Most (cell, triangle) pairs the grid lists (or 8 per triangle, if more): beyond, the cells grow.
const MAX_GRID_PAIRS: f64 = (1 << 24) as f64;

/// The simulated triangles in a uniform grid of cells over their bounding box: each triangle
/// listed in every cell its bounding box touches (cells in a dense array: no hashing per query).
struct TriangleGrid {
    /// Cell side \[m\] and its inverse.
    cell: f32,
    inv_cell: f32,
    /// The first and the last cell of the box, and cells per axis.
    lo: IVec3,
    hi: IVec3,
    dims: IVec3,
    /// Per cell (x fastest): its range of `items`, `start[c] .. start[c + 1]`.
    start: Vec<u32>,
    items: Vec<u32>,
    /// Per triangle: a ball around it (centre of its box, radius), for a cheap lower bound.
    balls: Vec<(Vec3, f32)>,
}

impl TriangleGrid {
    fn new(x: &[Vec3], triangles: &[[u32; 3]]) -> TriangleGrid {
        let corners = |t: &[u32; 3]| [x[t[0] as usize], x[t[1] as usize], x[t[2] as usize]];
        let (mut box_lo, mut box_hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        let mut size = 0.0f32;
        for t in triangles {
            let [a, b, c] = corners(t);
            let (lo, hi) = (a.min(b).min(c), a.max(b).max(c));
            (box_lo, box_hi, size) = (box_lo.min(lo), box_hi.max(hi), size + (hi - lo).max_element());
        }
        // Cells about the mean triangle's size (a few triangles per cell), fewer if too many.
        let extent = (box_hi - box_lo).max(Vec3::splat(1e-6));
        let mut cell = (size / triangles.len() as f32).max(1e-4);
        let count = |cell: f32| (extent / cell + 1.0).floor().element_product();
        if count(cell) > MAX_GRID_CELLS {
            cell *= (count(cell) / MAX_GRID_CELLS).cbrt() * 1.01;
        }
        // A few triangles far larger than the mean (a mesh of mixed sizes) would be listed in
        // very many cells: grow the cells until the (cell, triangle) pairs fit.
        let pairs = |cell: f32| -> f64 {
            triangles
                .iter()
                .map(|t| {
                    let [a, b, c] = corners(t);
                    let span = ((a.max(b).max(c) / cell).floor() - (a.min(b).min(c) / cell).floor() + 1.0).as_dvec3();
                    span.element_product()
                })
                .sum()
        };
        while pairs(cell) > MAX_GRID_PAIRS.max(8.0 * triangles.len() as f64) {
            cell *= 2.0;
        }
        let inv_cell = 1.0 / cell;
        let key = |p: Vec3| (p * inv_cell).floor().as_ivec3();
        let (lo, hi) = (key(box_lo), key(box_hi));
        let dims = hi - lo + 1;
        let index = |c: IVec3| ((c.z - lo.z) * dims.y + (c.y - lo.y)) as usize * dims.x as usize + (c.x - lo.x) as usize;
        // Counting sort of (cell, triangle) pairs by cell, triangles in increasing order in each.
        let cells = dims.x as usize * dims.y as usize * dims.z as usize;
        let mut start = vec![0u32; cells + 1];
        let each_cell = |t: &[u32; 3], f: &mut dyn FnMut(usize)| {
            let [a, b, c] = corners(t);
            let (from, to) = (key(a.min(b).min(c)), key(a.max(b).max(c)));
            for k in from.z..=to.z {
                for j in from.y..=to.y {
                    for i in from.x..=to.x {
                        f(index(IVec3::new(i, j, k)));
                    }
                }
            }
        };
        for t in triangles {
            each_cell(t, &mut |c| start[c + 1] += 1);
        }
        for c in 0..cells {
            start[c + 1] += start[c];
        }
        let mut next = start.clone();
        let mut items = vec![0u32; start[cells] as usize];
        for (k, t) in triangles.iter().enumerate() {
            each_cell(t, &mut |c| {
                items[next[c] as usize] = k as u32;
                next[c] += 1;
            });
        }
        let balls = triangles
            .iter()
            .map(|t| {
                let [a, b, c] = corners(t);
                let centre = 0.5 * (a.min(b).min(c) + a.max(b).max(c));
                (centre, a.distance(centre).max(b.distance(centre)).max(c.distance(centre)))
            })
            .collect();
        TriangleGrid { cell, inv_cell, lo, hi, dims, start, items, balls }
    }

    /// The triangles listed in cell `c` (inside the grid).
    #[inline]
    fn in_cell(&self, c: IVec3) -> &[u32] {
        let d = c - self.lo;
        let i = (d.z * self.dims.y + d.y) as usize * self.dims.x as usize + d.x as usize;
        &self.items[self.start[i] as usize..self.start[i + 1] as usize]
    }

    /// The triangle nearest to `p` within `max_distance` \[m\] (the lowest index of equally near
    /// ones): (triangle, its nearest point's barycentric weights, distance). `None` when none is
    /// that near.
    fn nearest(&self, p: Vec3, x: &[Vec3], triangles: &[[u32; 3]], max_distance: f32) -> Option<(u32, [f32; 3], f32)> {
        // Distance to the occupied cells' box: no triangle is nearer.
        let (box_lo, box_hi) = (self.lo.as_vec3() * self.cell, (self.hi + 1).as_vec3() * self.cell);
        if p.clamp(box_lo, box_hi).distance(p) > max_distance {
            return None;
        }
        let centre = (p * self.inv_cell).floor().as_ivec3().clamp(self.lo - 1, self.hi + 1);
        let mut best: Option<(u32, [f32; 3], f32)> = None;
        for k in 0i32.. {
            // Cells at Chebyshev distance k from the centre cell lie at least (k − 1) cells away.
            let reach = (k - 1).max(0) as f32 * self.cell;
            if best.is_some_and(|b| b.2 <= reach) || reach > max_distance {
                break;
            }
            let (a, b) = ((centre - k).max(self.lo), (centre + k).min(self.hi));
            for i in a.x..=b.x {
                for j in a.y..=b.y {
                    for l in a.z..=b.z {
                        let c = IVec3::new(i, j, l);
                        if (c - centre).abs().max_element() != k {
                            continue; // inside the shell: visited before
                        }
                        for &t in self.in_cell(c) {
                            let (centre, radius) = self.balls[t as usize];
                            if best.is_some_and(|b| p.distance(centre) - radius > b.2) {
                                continue; // farther than the nearest found, whatever its shape
                            }
                            let [c0, c1, c2] = triangles[t as usize];
                            let (w, d) = nearest_on_triangle(p, [x[c0 as usize], x[c1 as usize], x[c2 as usize]]);
                            let better = match best {
                                None => true,
                                Some((bt, _, bd)) => d < bd || (d == bd && t < bt),
                            };
                            if better {
                                best = Some((t, w, d));
                            }
                        }
                    }
                }
            }
            if (centre - k).cmple(self.lo).all() && (centre + k).cmpge(self.hi).all() {
                break; // every occupied cell visited
            }
        }
        best.filter(|b| b.2 <= max_distance)
    }
}

/// The point of triangle `x` nearest to `p`: its barycentric weights and distance \[m\] (Ericson,
/// Real-Time Collision Detection, 2005, §5.1.5).
fn nearest_on_triangle(p: Vec3, x: [Vec3; 3]) -> ([f32; 3], f32) {
    let [a, b, c] = x;
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let at = |w: [f32; 3]| (w, (a * w[0] + b * w[1] + c * w[2]).distance(p));
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return at([1.0, 0.0, 0.0]);
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return at([0.0, 1.0, 0.0]);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return at([1.0 - v, v, 0.0]);
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return at([0.0, 0.0, 1.0]);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return at([1.0 - w, 0.0, w]);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return at([0.0, 1.0 - w, w]);
    }
    let denom = 1.0 / (va + vb + vc);
    let (v, w) = (vb * denom, vc * denom);
    at([1.0 - v - w, v, w])
}

/// Barycentric weights of `q` projected onto the plane of triangle `x` (not clamped: outside the
/// triangle some are negative). `None` for a degenerate triangle.
fn plane_weights(q: Vec3, x: [Vec3; 3]) -> Option<[f32; 3]> {
    let (e1, e2, d) = (x[1] - x[0], x[2] - x[0], q - x[0]);
    let (d00, d01, d11) = (e1.dot(e1), e1.dot(e2), e2.dot(e2));
    let (d20, d21) = (d.dot(e1), d.dot(e2));
    let det = d00 * d11 - d01 * d01;
    if !(det > f32::MIN_POSITIVE) {
        return None;
    }
    let v = (d11 * d20 - d01 * d21) / det;
    let w = (d00 * d21 - d01 * d20) / det;
    Some([1.0 - v - w, v, w])
}

/// Vertices at one position (the same coordinates to the bit: the copies an engine splits a
/// mesh into at UV seams and hard edges) as one group, numbered in order of their first vertex:
/// (group of each vertex, number of groups). Sorting, not hashing: O(n log n).
fn groups_at_one_position(positions: &[[f32; 3]]) -> (Vec<u32>, usize) {
    let key = |v: usize| positions[v].map(|c| if c == 0.0 { 0 } else { c.to_bits() }); // −0 is 0
    let mut order: Vec<u32> = (0..positions.len() as u32).collect();
    order.sort_unstable_by_key(|&v| (key(v as usize), v));
    // The first vertex of each run of equal keys names the run.
    let mut first = vec![0u32; positions.len()];
    for (k, &v) in order.iter().enumerate() {
        first[v as usize] = match k {
            0 => v,
            _ if key(order[k - 1] as usize) == key(v as usize) => first[order[k - 1] as usize],
            _ => v,
        };
    }
    let mut group_of = vec![u32::MAX; positions.len()];
    let mut groups = 0u32;
    for v in 0..positions.len() {
        let f = first[v] as usize;
        if group_of[f] == u32::MAX {
            group_of[f] = groups;
            groups += 1;
        }
        group_of[v] = group_of[f];
    }
    (group_of, groups as usize)
}

impl RenderProxy {
    /// Bind the render mesh of `desc` to the rest surface of `model` (module docs). Nothing is
    /// kept of `desc`'s arrays.
    ///
    /// Errors: `InvalidParameter` (`max_distance` not finite or not in (0, 1e5] m); `EmptyMesh`,
    /// `MeshTooLarge`, `NonFiniteVertex`, `IndexCountNotMultipleOfThree`, `IndexOutOfRange` as for
    /// a cloth's mesh; `ProxyVertexTooFar` naming the first render vertex farther than
    /// `max_distance` from every simulated triangle (every vertex, for a cloth without triangles).
    pub(crate) fn bind(model: &Arc<ClothModel>, desc: &RenderProxyDesc) -> Result<RenderProxy, ClothError> {
        check_range("max_distance", desc.max_distance, f32::MIN_POSITIVE, MAX_COORDINATE, "a distance > 0 m, at most 1e5")?;
        validate_positions(desc.positions)?;
        validate_indices(desc.indices, desc.positions.len())?;
        let (x, triangles) = (&model.rest, &model.triangles);
        let too_far = |vertex: usize, distance: f32| ClothError::ProxyVertexTooFar {
            vertex: vertex as u32,
            distance,
            max_distance: desc.max_distance,
        };
        if triangles.is_empty() {
            return Err(too_far(0, f32::INFINITY));
        }
        let mut rest_normals = vec![Vec3::ZERO; x.len()];
        area_weighted_normals(x, triangles, &mut rest_normals);
        let grid = TriangleGrid::new(x, triangles);
        let mut vertices = Vec::with_capacity(desc.positions.len());
        let mut bound_triangles = Vec::with_capacity(desc.positions.len());
        let mut max_rest_distance = 0.0f32;
        for (v, p) in desc.positions.iter().enumerate() {
            let p = Vec3::from_array(*p);
            let Some((t, mut w, distance)) = grid.nearest(p, x, triangles, desc.max_distance) else {
                // How far it is, for the message (a search without the bound).
                let d = triangles.iter().map(|t| nearest_on_triangle(p, t.map(|i| x[i as usize])).1).fold(f32::INFINITY, f32::min);
                return Err(too_far(v, d));
            };
            max_rest_distance = max_rest_distance.max(distance);
            let corners = triangles[t as usize];
            let (cx, cn) = (corners.map(|i| x[i as usize]), corners.map(|i| rest_normals[i as usize]));
            // The foot point whose interpolated normal passes through p.
            for _ in 0..FOOT_ROUNDS {
                let n = interpolated_normal(w, cn, cx);
                match plane_weights(p - n * (p - weigh(w, cx)).dot(n), cx) {
                    Some(next) => w = next,
                    None => break,
                }
            }
            let offset = (p - weigh(w, cx)).dot(interpolated_normal(w, cn, cx));
            vertices.push(BoundVertex { corners, weights: w, offset });
            bound_triangles.push(t);
        }
        // The render mesh's own normals: per group of its vertices at one position, over the
        // group's triangles.
        let (group_of, groups) = groups_at_one_position(desc.positions);
        let render_triangles: Vec<[u32; 3]> = desc.indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
        let grouped: Vec<[u32; 3]> = render_triangles.iter().map(|t| t.map(|v| group_of[v as usize])).collect();
        let cut_corners = model.tear.as_ref().map(|tear| {
            bound_triangles
                .iter()
                .map(|&t| {
                    let r = tear.render_triangle_of(t).expect("every simulated triangle has a render triangle");
                    let particles = model.render_triangles[r as usize].map(|v| model.particle_of_vertex[v as usize]);
                    let at = |p: u32| particles.iter().position(|&q| q == p).expect("the render triangle has the simulated one's particles") as u8;
                    (r, model.triangles[t as usize].map(at))
                })
                .collect()
        });
        let binding = Binding {
            vertices,
            cut_corners,
            group_triangles: ParticleTriangles::build(&grouped, groups),
            render_triangles,
            group_of,
            model: Arc::clone(model),
            max_rest_distance,
        };
        Ok(RenderProxy::with_binding(Arc::new(binding)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertices_at_one_position_form_one_group_numbered_by_first_appearance() {
        let p = [[0.0, 1.0, 2.0], [5.0, 0.0, 0.0], [0.0, 1.0, 2.0], [-0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [5.0, 0.0, 1e-7]];
        assert_eq!(groups_at_one_position(&p), (vec![0, 1, 0, 2, 2, 3], 4));
    }

    #[test]
    fn the_nearest_point_of_a_triangle_is_found_in_each_of_its_seven_regions() {
        let x = [Vec3::ZERO, Vec3::X, Vec3::Y];
        let cases = [
            (Vec3::new(0.25, 0.25, 1.0), [0.5, 0.25, 0.25], 1.0),  // inside, above
            (Vec3::new(-1.0, -1.0, 0.0), [1.0, 0.0, 0.0], 2f32.sqrt()), // corner a
            (Vec3::new(2.0, -1.0, 0.0), [0.0, 1.0, 0.0], 2f32.sqrt()),  // corner b
            (Vec3::new(0.5, -1.0, 0.0), [0.5, 0.5, 0.0], 1.0),  // edge ab
            (Vec3::new(-1.0, 0.5, 0.0), [0.5, 0.0, 0.5], 1.0),  // edge ac
            (Vec3::new(1.0, 1.0, 0.0), [0.0, 0.5, 0.5], 0.5f32.sqrt()), // edge bc
        ];
        for (p, w, d) in cases {
            let (got, dist) = nearest_on_triangle(p, x);
            assert!((0..3).all(|k| (got[k] - w[k]).abs() < 1e-6), "{p}: {got:?}");
            assert!((dist - d).abs() < 1e-6, "{p}: {dist}");
        }
    }

    /// One huge triangle among tiny ones does not list itself in millions of cells: the cells grow
    /// until the pairs fit, and the search still finds the nearest triangle.
    #[test]
    fn a_huge_triangle_among_tiny_ones_grows_the_cells() {
        let mut x = vec![Vec3::new(-500.0, 0.0, -500.0), Vec3::new(500.0, 0.0, -500.0), Vec3::new(0.0, 0.0, 500.0)];
        let mut triangles = vec![[0u32, 1, 2]];
        for k in 0..1000u32 {
            let o = Vec3::new(k as f32 * 0.01, 1.0, 0.0);
            x.extend([o, o + Vec3::X * 0.005, o + Vec3::Z * 0.005]);
            triangles.push([3 * k + 3, 3 * k + 4, 3 * k + 5]);
        }
        let grid = TriangleGrid::new(&x, &triangles);
        assert!(grid.items.len() as f64 <= MAX_GRID_PAIRS, "{} pairs", grid.items.len());
        let (t, _, d) = grid.nearest(Vec3::new(3.0, 0.4, 0.0), &x, &triangles, 10.0).unwrap();
        assert_eq!(t, 0, "the big triangle, 0.4 m below (the tiny ones are 0.6 m above)");
        assert!((d - 0.4).abs() < 1e-6, "{d}");
    }

    /// The grid's shell search finds what a search of every triangle finds, for points on, near
    /// and away from a bumpy sheet of many cells.
    #[test]
    fn the_grid_finds_the_nearest_triangle_a_full_search_finds() {
        let n = 20;
        let x: Vec<Vec3> = (0..n * n).map(|k| Vec3::new((k % n) as f32 * 0.1, 0.03 * ((k * 7919) % 13) as f32 / 13.0, (k / n) as f32 * 0.1)).collect();
        let mut triangles = Vec::new();
        for r in 0..n - 1 {
            for c in 0..n - 1 {
                let i = (r * n + c) as u32;
                triangles.push([i, i + n as u32, i + 1]);
                triangles.push([i + 1, i + n as u32, i + n as u32 + 1]);
            }
        }
        let grid = TriangleGrid::new(&x, &triangles);
        let mut seed = 12345u32;
        let mut random = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed as f32 / u32::MAX as f32
        };
        for _ in 0..500 {
            let p = Vec3::new(random() * 2.4 - 0.2, random() * 0.6 - 0.3, random() * 2.4 - 0.2);
            let full = (0..triangles.len())
                .map(|t| (t as u32, nearest_on_triangle(p, triangles[t].map(|i| x[i as usize])).1))
                .fold((u32::MAX, f32::INFINITY), |b, c| if c.1 < b.1 { c } else { b });
            let found = grid.nearest(p, &x, &triangles, 10.0).unwrap();
            assert_eq!(found.2, full.1, "{p}");
            assert!(grid.nearest(p, &x, &triangles, full.1 * 0.99).is_none() || full.1 == 0.0, "{p}: nothing within 99 % of it");
        }
    }
}
