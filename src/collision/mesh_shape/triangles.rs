//! Triangles prepared for distance and sign queries: welded, repaired (duplicates dropped, winding
//! made consistent, a closed mesh turned outward), with the angle-weighted pseudo-normals of their
//! features and which features cannot be trusted for the sign.

use glam::Vec3;

/// A triangle prepared for distance queries: corners, the pseudo-normals of its seven features
/// (0 face, 1–3 vertices a, b, c, 4–6 edges ab, bc, ca) and which of them are unreliable
/// (bit k: feature k touches a boundary or non-manifold edge; the face is unreliable when one of
/// its edges is).
#[derive(Clone, Copy)]
pub(super) struct Tri {
    pub a: Vec3,
    pub b: Vec3,
    pub c: Vec3,
    pub normals: [Vec3; 7],
    pub unreliable: u8,
}

/// What building a mesh shape found in the mesh and repaired (the sign near the faults comes
/// from the generalized winding number, module docs of `mesh_shape`); each count is documented
/// once, on the C ABI's [`crate::ffi::XpbdMeshShapeReport`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MeshShapeReport {
    /// [`crate::ffi::XpbdMeshShapeReport::welded_vertices`].
    pub welded_vertices: u32,
    /// [`crate::ffi::XpbdMeshShapeReport::degenerate_triangles`].
    pub degenerate_triangles: u32,
    /// [`crate::ffi::XpbdMeshShapeReport::duplicate_triangles`].
    pub duplicate_triangles: u32,
    /// [`crate::ffi::XpbdMeshShapeReport::flipped_triangles`].
    pub flipped_triangles: u32,
    /// [`crate::ffi::XpbdMeshShapeReport::boundary_edges`].
    pub boundary_edges: u32,
    /// [`crate::ffi::XpbdMeshShapeReport::non_manifold_edges`].
    pub non_manifold_edges: u32,
}

/// Closest point on triangle abc to p and the feature it lies on (Ericson 2004, Real-Time
/// Collision Detection, §5.1.5).
#[inline]
pub(super) fn closest_on_triangle(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> (Vec3, usize) {
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
pub(super) fn solid_angle(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> f64 {
    let (a, b, c) = ((a - p).as_dvec3(), (b - p).as_dvec3(), (c - p).as_dvec3());
    let (la, lb, lc) = (a.length(), b.length(), c.length());
    let numerator = a.dot(b.cross(c));
    let denominator = la * lb * lc + a.dot(b) * lc + a.dot(c) * lb + b.dot(c) * la;
    2.0 * numerator.atan2(denominator)
}

/// Weld vertices at the same position, drop zero-area and duplicate triangles, make the winding
/// consistent ([`crate::mesh::repair`]; a closed mesh of negative volume is turned outward) and
/// compute the angle-weighted pseudo-normals of every face, edge and vertex (Bærentzen & Aanæs
/// 2005, eq. 2 for vertices; an edge's is the sum of its two faces' normals), marking features on
/// boundary or non-manifold edges as unreliable.
pub(super) fn prepare_triangles(positions: &[[f32; 3]], triangles: &[[u32; 3]], closed: bool) -> (Vec<Tri>, MeshShapeReport) {
    let mut report = MeshShapeReport::default();
    // Weld: vertices sorted by their coordinates' bits (−0 as +0); each takes the first of its run.
    let mut by_position: Vec<([u32; 3], u32)> = positions.iter().enumerate().map(|(k, p)| (p.map(|c| (c + 0.0).to_bits()), k as u32)).collect();
    by_position.sort_unstable();
    let mut canonical = vec![0u32; positions.len()];
    for run in by_position.chunk_by(|a, b| a.0 == b.0) {
        for &(_, k) in run {
            canonical[k as usize] = run[0].1;
        }
        report.welded_vertices += run.len() as u32 - 1;
    }
    drop(by_position);
    let at = |i: u32| Vec3::from_array(positions[i as usize]);
    let mut faces: Vec<[u32; 3]> = triangles
        .iter()
        .map(|t| t.map(|i| canonical[i as usize]))
        .filter(|t| {
            let n = (at(t[1]) - at(t[0])).cross(at(t[2]) - at(t[0]));
            t[0] != t[1] && t[1] != t[2] && t[0] != t[2] && n.length() > 0.0 && n.normalize().is_finite()
        })
        .collect();
    report.degenerate_triangles = (triangles.len() - faces.len()) as u32;
    let repairs = crate::mesh::repair(&mut faces);
    report.duplicate_triangles = repairs.duplicate_triangles;
    report.flipped_triangles = repairs.flipped_triangles;
    let volume: f64 = faces.iter().map(|t| at(t[0]).as_dvec3().dot(at(t[1]).as_dvec3().cross(at(t[2]).as_dvec3()))).sum();
    if closed && volume < 0.0 {
        faces.iter_mut().for_each(|t| t.swap(1, 2));
        report.flipped_triangles = faces.len() as u32 - report.flipped_triangles;
    }
    let normal = |t: &[u32; 3]| (at(t[1]) - at(t[0])).cross(at(t[2]) - at(t[0])).normalize();
    let normals: Vec<Vec3> = faces.iter().map(normal).collect();
    // Undirected edges, sorted: (low << 32 | high, triangle, runs low → high).
    let mut uses: Vec<(u64, u32, bool)> = Vec::with_capacity(faces.len() * 3);
    let mut vertex_normals = vec![Vec3::ZERO; positions.len()];
    for (f, t) in faces.iter().enumerate() {
        for k in 0..3 {
            let (i, j) = (t[k], t[(k + 1) % 3]);
            uses.push((((i.min(j) as u64) << 32) | i.max(j) as u64, f as u32, i < j));
            let (e1, e2) = (at(t[(k + 1) % 3]) - at(i), at(t[(k + 2) % 3]) - at(i));
            let angle = e1.angle_between(e2);
            vertex_normals[i as usize] += normals[f] * if angle.is_finite() { angle } else { 0.0 };
        }
    }
    uses.sort_unstable();
    // Per face and edge slot k (edge t[k] → t[k+1]): the edge's pseudo-normal and whether it is
    // a boundary, non-manifold or inconsistently wound edge.
    let mut edge_normal = vec![[Vec3::ZERO; 3]; faces.len()];
    let mut edge_bad = vec![0u8; faces.len()];
    let mut vertex_unreliable = vec![false; positions.len()];
    for edge in uses.chunk_by(|a, b| a.0 == b.0) {
        let count = edge.len();
        let balance: i32 = edge.iter().map(|u| if u.2 { 1 } else { -1 }).sum();
        report.boundary_edges += (count == 1) as u32;
        report.non_manifold_edges += (count > 2) as u32;
        let bad = count != 2 || balance != 0;
        let sum: Vec3 = edge.iter().map(|u| normals[u.1 as usize]).sum();
        let (i, j) = ((edge[0].0 >> 32) as u32, edge[0].0 as u32);
        if bad {
            vertex_unreliable[i as usize] = true;
            vertex_unreliable[j as usize] = true;
        }
        for u in edge {
            let t = &faces[u.1 as usize];
            let k = (0..3).find(|&k| (t[k].min(t[(k + 1) % 3]), t[k].max(t[(k + 1) % 3])) == (i, j)).expect("the edge is the face's");
            edge_normal[u.1 as usize][k] = sum;
            edge_bad[u.1 as usize] |= (bad as u8) << k;
        }
    }
    drop(uses);
    let tris = faces
        .iter()
        .enumerate()
        .map(|(f, t)| {
            let mut normals = [normals[f]; 7];
            let mut unreliable = edge_bad[f] << 4;
            for k in 0..3 {
                normals[1 + k] = vertex_normals[t[k] as usize];
                unreliable |= (vertex_unreliable[t[k] as usize] as u8) << (1 + k);
                normals[4 + k] = edge_normal[f][k];
            }
            // A face with a bad edge is an inner face, a hole's rim or a touching part: the side
            // its normal points to says nothing about inside.
            if unreliable & 0b111_0000 != 0 {
                unreliable |= 1;
            }
            Tri { a: at(t[0]), b: at(t[1]), c: at(t[2]), normals, unreliable }
        })
        .collect();
    (tris, report)
}
