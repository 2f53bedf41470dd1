//! Unique edges, bending hinges and triangle areas of a welded triangle mesh.

use glam::Vec3;
use std::collections::HashMap;

/// Two triangles sharing an interior edge, as the bending constraint needs them.
///
/// `[x0, x1, x2, x3]`: `x2 → x3` is the shared edge in the winding order of the first triangle
/// `(x2, x3, x0)`, `x0` is that triangle's opposite vertex and `x1` the other triangle's.
/// The signed dihedral angle (see `constraints::bending`) does not depend on the second
/// triangle's winding, so inconsistently wound meshes still get a well-defined hinge.
pub type Hinge = [u32; 4];

/// Topology of a welded mesh in particle indices.
#[derive(Clone, Debug, Default)]
pub struct MeshTopology {
    /// Unique edges `[i, j]` with `i < j`, in order of first appearance in the triangle list.
    pub edges: Vec<[u32; 2]>,
    /// Sum of the rest areas of the triangles adjacent to each edge \[m²\] (parallel to `edges`).
    pub edge_adjacent_area: Vec<f32>,
    /// One hinge per interior (exactly two-triangle) edge. Non-manifold edges (3+ triangles) keep
    /// their stretch constraint but get no hinge: there is no single dihedral angle to preserve.
    pub hinges: Vec<Hinge>,
    /// Edge index of each hinge (parallel to `hinges`).
    pub hinge_edge: Vec<u32>,
    /// Number of edges with three or more triangles.
    pub non_manifold_edges: u32,
    /// Number of edges with exactly one triangle.
    pub boundary_edges: u32,
    /// Number of edges with exactly two triangles (each has a hinge unless the two triangles
    /// have the same opposite corner).
    pub two_triangle_edges: u32,
    /// Rest area of each triangle \[m²\].
    pub triangle_area: Vec<f32>,
}

impl MeshTopology {
    /// Build the topology of `triangles` (particle indices, already validated) at rest positions
    /// `rest`. `lines` are extra edges (ropes, strands) appended after the triangle edges unless a
    /// triangle already has them; they have no adjacent area and no hinge.
    pub fn build(triangles: &[[u32; 3]], lines: &[[u32; 2]], rest: &[Vec3]) -> MeshTopology {
        let mut edge_index: HashMap<(u32, u32), u32> = HashMap::with_capacity(triangles.len() * 2);
        let mut edges = Vec::with_capacity(triangles.len() * 3 / 2 + 3);
        // Per edge: first two adjacent (triangle, directed start vertex) and the total count.
        let mut adjacent: Vec<([(u32, u32); 2], u32)> = Vec::with_capacity(edges.capacity());
        let triangle_area: Vec<f32> = triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| rest[i as usize]);
                0.5 * (b - a).cross(c - a).length()
            })
            .collect();

        for (t, tri) in triangles.iter().enumerate() {
            for k in 0..3 {
                let (a, b) = (tri[k], tri[(k + 1) % 3]);
                let key = (a.min(b), a.max(b));
                let e = *edge_index.entry(key).or_insert_with(|| {
                    edges.push([key.0, key.1]);
                    adjacent.push(([(u32::MAX, u32::MAX); 2], 0));
                    (edges.len() - 1) as u32
                });
                let slot = &mut adjacent[e as usize];
                if (slot.1 as usize) < 2 {
                    slot.0[slot.1 as usize] = (t as u32, a);
                }
                slot.1 += 1;
            }
        }

        for &[a, b] in lines {
            let key = (a.min(b), a.max(b));
            edge_index.entry(key).or_insert_with(|| {
                edges.push([key.0, key.1]);
                adjacent.push(([(u32::MAX, u32::MAX); 2], 0));
                (edges.len() - 1) as u32
            });
        }

        let mut hinges = Vec::new();
        let mut hinge_edge = Vec::new();
        let mut non_manifold_edges = 0;
        let mut boundary_edges = 0;
        let mut two_triangle_edges = 0;
        let mut edge_adjacent_area = vec![0.0f32; edges.len()];
        for (e, (adj, count)) in adjacent.iter().enumerate() {
            match count {
                0 => {}
                1 => boundary_edges += 1,
                2 => {
                    two_triangle_edges += 1;
                    let (ta, start) = adj[0];
                    let (tb, _) = adj[1];
                    let tri_a = triangles[ta as usize];
                    let k = tri_a.iter().position(|&v| v == start).unwrap_or(0);
                    let (x2, x3, x0) = (tri_a[k], tri_a[(k + 1) % 3], tri_a[(k + 2) % 3]);
                    let tri_b = triangles[tb as usize];
                    let x1 = tri_b.iter().copied().find(|&v| v != x2 && v != x3).unwrap_or(x0);
                    if x1 != x0 {
                        hinges.push([x0, x1, x2, x3]);
                        hinge_edge.push(e as u32);
                    }
                }
                _ => non_manifold_edges += 1,
            }
        }
        for (t, tri) in triangles.iter().enumerate() {
            for k in 0..3 {
                let (a, b) = (tri[k], tri[(k + 1) % 3]);
                let e = edge_index[&(a.min(b), a.max(b))];
                edge_adjacent_area[e as usize] += triangle_area[t];
            }
        }
        MeshTopology {
            edges,
            edge_adjacent_area,
            hinges,
            hinge_edge,
            non_manifold_edges,
            boundary_edges,
            two_triangle_edges,
            triangle_area,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_triangles_have_five_edges_and_one_hinge() {
        let rest = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(1.0, 1.0, 0.0)];
        let tris = [[0, 1, 2], [2, 1, 3]];
        let topo = MeshTopology::build(&tris, &[], &rest);
        assert_eq!(topo.edges.len(), 5);
        assert_eq!(topo.boundary_edges, 4);
        assert_eq!(topo.hinges, vec![[0, 3, 1, 2]]);
        let shared = topo.hinge_edge[0] as usize;
        assert_eq!(topo.edges[shared], [1, 2]);
        assert!((topo.edge_adjacent_area[shared] - 1.0).abs() < 1e-6);
    }

    #[test]
    fn non_manifold_edge_gets_no_hinge() {
        let rest = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::NEG_Y, Vec3::Z];
        let tris = [[0, 1, 2], [1, 0, 3], [0, 1, 4]];
        let topo = MeshTopology::build(&tris, &[], &rest);
        assert_eq!(topo.non_manifold_edges, 1);
        assert!(topo.hinges.is_empty());
    }
}
