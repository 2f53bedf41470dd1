//! A Godot render surface (vertex + index arrays in the MeshInstance3D's local space) converted
//! into what the core simulates: world-space positions and triangles wound the core's way, and the
//! way back (world positions and normals into the mesh's local space).
//!
//! Winding: Godot draws the side from which a triangle's corners appear **clockwise** as its front
//! ("Godot uses clockwise winding order for front faces of triangle primitive modes", ArrayMesh and
//! SurfaceTool class reference; the ArrayMesh tutorial's upward-facing quad lists (0,0,0), (1,0,0),
//! (0,0,1), whose right-hand normal is −Y). The core orients normals by the right-hand rule:
//! counter-clockwise = front, normal (b − a) × (c − a) (`Cloth::read_normals`). So every triangle
//! `[a, b, c]` goes to the core as `[a, c, b]`. A mirroring transform (negative determinant) turns
//! the local clockwise order into a counter-clockwise one in world space, and Godot flips its face
//! culling for such instances, so then the order is kept.

use glam::{Affine3A, Mat3A, Vec3, Vec3A};
use std::fmt;

/// Why a surface cannot become a cloth (before the core's own mesh validation).
#[derive(Clone, Debug, PartialEq)]
pub enum SurfaceError {
    /// The surface has no vertices.
    NoVertices,
    /// The index array (or, without one, the vertex array) length is not a multiple of 3.
    NotTriangles {
        /// Its length.
        len: usize,
    },
    /// An index array entry is negative (Godot index arrays are `PackedInt32Array`).
    NegativeIndex {
        /// Position in the index array.
        position: usize,
        /// The value found there.
        value: i32,
    },
    /// The mesh instance's transform cannot be inverted (a zero scale), so results cannot be
    /// written back into its local space.
    SingularTransform,
}

impl fmt::Display for SurfaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SurfaceError::NoVertices => write!(f, "the mesh surface has no vertices"),
            SurfaceError::NotTriangles { len } => write!(
                f,
                "the surface's index (or vertex) count {len} is not a multiple of 3: only PRIMITIVE_TRIANGLES surfaces can be cloth"
            ),
            SurfaceError::NegativeIndex { position, value } => {
                write!(f, "index array entry {position} is negative ({value})")
            }
            SurfaceError::SingularTransform => {
                write!(f, "the mesh instance's global transform has a zero scale (not invertible)")
            }
        }
    }
}

impl std::error::Error for SurfaceError {}

/// A Godot `Transform3D` (basis `rows`, `origin` [m]) as the affine map the conversions use.
/// Godot's `Basis * v` is `(rows[0]·v, rows[1]·v, rows[2]·v)` (core/math/basis.h, `xform`), so
/// the rows are the matrix's rows (glam stores columns).
pub fn affine_from_rows(rows: [[f32; 3]; 3], origin: [f32; 3]) -> Affine3A {
    let m = glam::Mat3::from_cols_array_2d(&rows).transpose();
    Affine3A::from_mat3_translation(m, Vec3::from_array(origin))
}

/// True when `transform` mirrors (its basis has a negative determinant): local clockwise triangles
/// are then counter-clockwise in world space.
pub fn is_mirroring(transform: &Affine3A) -> bool {
    transform.matrix3.determinant() < 0.0
}

/// Triangles for the core from a Godot surface: `indices` (`i32 × 3·triangle_count`, Godot's
/// clockwise-front order) or, for a surface without an index array (`None`), every three
/// consecutive vertices of `vertex_count`. Returns `u32 × 3·triangle_count` in counter-clockwise
/// order as seen from the front in world space (`mirrored`: see [`is_mirroring`]).
/// Errors: `NotTriangles`, `NegativeIndex`. Range checks are the core's (`IndexOutOfRange`).
pub fn core_triangles(indices: Option<&[i32]>, vertex_count: usize, mirrored: bool) -> Result<Vec<u32>, SurfaceError> {
    let mut out: Vec<u32> = match indices {
        Some(idx) => {
            if let Some(position) = idx.iter().position(|&i| i < 0) {
                return Err(SurfaceError::NegativeIndex { position, value: idx[position] });
            }
            idx.iter().map(|&i| i as u32).collect()
        }
        None => (0..vertex_count as u32).collect(),
    };
    if !out.len().is_multiple_of(3) {
        return Err(SurfaceError::NotTriangles { len: out.len() });
    }
    if !mirrored {
        for tri in out.chunks_exact_mut(3) {
            tri.swap(1, 2);
        }
    }
    Ok(out)
}

/// Local vertex positions [m] (`Vector3 × vertex_count` of the surface) to world space [m].
pub fn to_world(local: &[[f32; 3]], transform: &Affine3A) -> Vec<[f32; 3]> {
    local.iter().map(|p| transform.transform_point3(Vec3::from_array(*p)).to_array()).collect()
}

/// Maps the core's world-space results back into a mesh instance's local space: points by the
/// inverse transform, normals by the transpose of the basis (normals transform with the inverse
/// transpose; going back to local space inverts that), renormalised.
#[derive(Clone, Copy, Debug)]
pub struct WorldToLocal {
    inverse: Affine3A,
    normal_matrix: Mat3A,
}

impl WorldToLocal {
    /// For a mesh instance at `transform` (local → world). Errors: `SingularTransform`.
    pub fn new(transform: &Affine3A) -> Result<Self, SurfaceError> {
        let det = transform.matrix3.determinant();
        if !(det.is_finite() && det.abs() > 1e-12) {
            return Err(SurfaceError::SingularTransform);
        }
        Ok(WorldToLocal { inverse: transform.inverse(), normal_matrix: transform.matrix3.transpose() })
    }

    /// A world point [m] in local coordinates [m].
    #[inline]
    pub fn point(&self, world: [f32; 3]) -> Vec3 {
        self.inverse.transform_point3(Vec3::from_array(world))
    }

    /// A world unit normal as a local unit normal (zero stays zero).
    #[inline]
    pub fn normal(&self, world: [f32; 3]) -> Vec3 {
        Vec3::from(self.normal_matrix * Vec3A::from_array(world)).normalize_or_zero()
    }
}

/// One rendered frame of the node: positions and normals at `alpha` (0..1) between the cloth's
/// last two step states, brought into the mesh instance's local space by `to_local`. `world_*`
/// are scratch of `vertex_count` entries; `local_*` receive the result (same length). Errors: the
/// core's (`alpha` outside [0, 1], lengths); the outputs are untouched then.
pub fn read_local_interpolated(
    cloth: &xpbd_cloth::Cloth,
    alpha: f32,
    to_local: &WorldToLocal,
    world_positions: &mut [[f32; 3]],
    world_normals: &mut [[f32; 3]],
    local_positions: &mut [Vec3],
    local_normals: &mut [Vec3],
) -> Result<(), xpbd_cloth::ClothError> {
    cloth.read_positions_interpolated(alpha, &mut *world_positions)?;
    cloth.read_normals_interpolated(alpha, &mut *world_normals)?;
    for (out, p) in local_positions.iter_mut().zip(world_positions.iter()) {
        *out = to_local.point(*p);
    }
    for (out, n) in local_normals.iter_mut().zip(world_normals.iter()) {
        *out = to_local.normal(*n);
    }
    Ok(())
}

/// [`read_local_interpolated`] for the render proxy `proxy` of `world`: its positions and normals
/// at `alpha` (the cloth's interpolation, the proxy mesh's own normals) brought into the local
/// space of the mesh instance that shows it. `bytes` is scratch of `24 × vertex_count`;
/// `local_*` receive the result. Errors: the core's; the outputs are untouched then.
pub fn read_proxy_local_interpolated(
    world: &xpbd_cloth::World,
    proxy: xpbd_cloth::RenderProxyHandle,
    alpha: f32,
    to_local: &WorldToLocal,
    bytes: &mut [u8],
    local_positions: &mut [Vec3],
    local_normals: &mut [Vec3],
) -> Result<(), xpbd_cloth::ClothError> {
    let layout = xpbd_cloth::VertexLayout { stride: 24, position_offset: Some(0), normal_offset: Some(12) };
    world.write_render_proxy_vertices(proxy, bytes, layout, alpha)?;
    let float = |b: &[u8]| f32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
    let vec3 = |b: &[u8]| [float(&b[0..4]), float(&b[4..8]), float(&b[8..12])];
    for ((p, n), v) in local_positions.iter_mut().zip(local_normals.iter_mut()).zip(bytes.chunks_exact(24)) {
        (*p, *n) = (to_local.point(vec3(&v[..12])), to_local.normal(vec3(&v[12..])));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;
    use xpbd_cloth::{ClothDesc, World, WorldDesc};

    /// Godot's ArrayMesh tutorial quad (front facing +Y, clockwise seen from above) in the
    /// surface's own arrays: four vertices, two triangles.
    const QUAD: [[f32; 3]; 4] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0]];
    const QUAD_INDICES: [i32; 6] = [0, 1, 2, 2, 1, 3];

    /// Normals the core computes for the converted surface, brought back to local space.
    fn local_normals(transform: Affine3A) -> Vec<Vec3> {
        let world = to_world(&QUAD, &transform);
        let tris = core_triangles(Some(&QUAD_INDICES), QUAD.len(), is_mirroring(&transform)).unwrap();
        let mut sim = World::new(WorldDesc { gravity: [0.0; 3], thread_count: 1, ..WorldDesc::default() }).unwrap();
        let cloth = sim.add_cloth(&ClothDesc::new(&world, &tris)).unwrap();
        sim.step(1.0 / 60.0).unwrap(); // normals are refreshed at the end of a step
        let mut normals = [[0.0f32; 3]; 4];
        sim.cloth(cloth).unwrap().read_normals(&mut normals).unwrap();
        let back = WorldToLocal::new(&transform).unwrap();
        normals.iter().map(|n| back.normal(*n)).collect()
    }

    #[test]
    fn godot_quad_front_is_plus_y_in_godot_order_and_converted_to_counter_clockwise() {
        // The tutorial's first triangle is clockwise seen from +Y: its right-hand normal is −Y.
        let [a, b, c] = [0, 1, 2].map(|i| Vec3::from_array(QUAD[i]));
        assert_eq!((b - a).cross(c - a), Vec3::NEG_Y);
        let tris = core_triangles(Some(&QUAD_INDICES), 4, false).unwrap();
        assert_eq!(tris, vec![0, 2, 1, 2, 3, 1]);
        let [a, b, c] = [tris[0], tris[1], tris[2]].map(|i| Vec3::from_array(QUAD[i as usize]));
        assert_eq!((b - a).cross(c - a), Vec3::Y);
    }

    #[test]
    fn core_normals_of_the_converted_quad_face_plus_y() {
        for n in local_normals(Affine3A::IDENTITY) {
            assert!((n - Vec3::Y).length() < 1e-6, "{n}");
        }
    }

    #[test]
    fn normals_face_the_local_front_under_rotation_scale_and_mirroring() {
        let rotated = Affine3A::from_scale_rotation_translation(
            Vec3::new(2.0, 0.5, 3.0),
            Quat::from_rotation_x(0.7) * Quat::from_rotation_z(-1.2),
            Vec3::new(3.0, -1.0, 2.0),
        );
        let mirrored = Affine3A::from_scale(Vec3::new(-1.0, 1.0, 1.0));
        assert!(!is_mirroring(&rotated));
        assert!(is_mirroring(&mirrored));
        for t in [rotated, mirrored, mirrored * rotated] {
            for n in local_normals(t) {
                assert!((n - Vec3::Y).length() < 1e-5, "{n} under {t:?}");
            }
        }
    }

    #[test]
    fn godot_basis_rows_map_like_godot() {
        // Basis(Vector3.UP, PI/2) in Godot has rows (0, 0, 1), (0, 1, 0), (−1, 0, 0): +X → −Z.
        let t = affine_from_rows([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]], [1.0, 2.0, 3.0]);
        assert_eq!(t.transform_point3(Vec3::X), Vec3::new(1.0, 2.0, 2.0));
        assert_eq!(t.transform_vector3(Vec3::Z), Vec3::X);
        let expected = Affine3A::from_rotation_translation(Quat::from_rotation_y(std::f32::consts::FRAC_PI_2), Vec3::new(1.0, 2.0, 3.0));
        assert!(t.abs_diff_eq(expected, 1e-6));
        // A shear keeps rows apart from columns: row 0 = (1, 2, 0) means x' = x + 2y.
        let shear = affine_from_rows([[1.0, 2.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], [0.0; 3]);
        assert_eq!(shear.transform_vector3(Vec3::Y), Vec3::new(2.0, 1.0, 0.0));
    }

    /// A frame drawn between two steps: alpha 0 and 1 give the two states themselves, bit for bit,
    /// in local space; alpha 0.5 their midpoint.
    #[test]
    fn interpolated_frames_lie_between_the_last_two_steps() {
        let transform = Affine3A::from_scale_rotation_translation(Vec3::new(1.5, 1.0, 0.5), Quat::from_rotation_x(0.4), Vec3::new(1.0, 2.0, 0.0));
        let local: Vec<[f32; 3]> = (0..16).map(|i| [(i % 4) as f32 * 0.2, 0.0, (i / 4) as f32 * 0.2]).collect();
        let mut godot = Vec::new();
        for r in 0..3 {
            for c in 0..3 {
                let v = r * 4 + c;
                godot.extend_from_slice(&[v, v + 1, v + 4, v + 4, v + 1, v + 5]);
            }
        }
        let tris = core_triangles(Some(&godot), 16, false).unwrap();
        let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
        let h = world.add_cloth(&ClothDesc::new(&to_world(&local, &transform), &tris)).unwrap();
        world.cloth_mut(h).unwrap().set_pinned(&[0, 3], None).unwrap();
        let back = WorldToLocal::new(&transform).unwrap();
        let (mut wp, mut wn) = (vec![[0.0; 3]; 16], vec![[0.0; 3]; 16]);
        let mut frame = |world: &World, alpha: f32| {
            let (mut lp, mut ln) = (vec![Vec3::ZERO; 16], vec![Vec3::ZERO; 16]);
            read_local_interpolated(world.cloth(h).unwrap(), alpha, &back, &mut wp, &mut wn, &mut lp, &mut ln).unwrap();
            (lp, ln)
        };
        for _ in 0..5 {
            world.step(1.0 / 60.0).unwrap();
        }
        let mut before = vec![[0.0; 3]; 16];
        world.cloth(h).unwrap().read_positions(&mut before).unwrap();
        world.step(1.0 / 60.0).unwrap();
        let mut after = vec![[0.0; 3]; 16];
        world.cloth(h).unwrap().read_positions(&mut after).unwrap();
        let (p0, _) = frame(&world, 0.0);
        let (p1, n1) = frame(&world, 1.0);
        let (half, _) = frame(&world, 0.5);
        assert!(before != after, "the cloth moved in the last step");
        for v in 0..16 {
            assert_eq!(p0[v], back.point(before[v]));
            assert_eq!(p1[v], back.point(after[v]));
            let mid = back.point(std::array::from_fn(|k| 0.5 * before[v][k] + 0.5 * after[v][k]));
            assert!((half[v] - mid).length() < 1e-6, "vertex {v}: {} vs {mid}", half[v]);
            assert!((n1[v].length() - 1.0).abs() < 1e-5, "unit local normal");
        }
        let (mut bad, mut bad_normals) = (vec![Vec3::ZERO; 16], vec![Vec3::ZERO; 16]);
        let r = read_local_interpolated(world.cloth(h).unwrap(), 1.5, &back, &mut wp, &mut wn, &mut bad, &mut bad_normals);
        assert!(r.is_err() && bad.iter().all(|p| *p == Vec3::ZERO), "alpha 1.5 refused, output untouched");
    }

    #[test]
    fn world_positions_return_to_local_space() {
        let t = Affine3A::from_scale_rotation_translation(
            Vec3::new(1.5, 1.5, -0.5),
            Quat::from_rotation_y(2.0),
            Vec3::new(-4.0, 10.0, 0.25),
        );
        let back = WorldToLocal::new(&t).unwrap();
        for (w, l) in to_world(&QUAD, &t).iter().zip(QUAD) {
            assert!((back.point(*w) - Vec3::from_array(l)).length() < 1e-5);
        }
    }

    #[test]
    fn non_indexed_surface_uses_consecutive_vertex_triples() {
        assert_eq!(core_triangles(None, 6, false).unwrap(), vec![0, 2, 1, 3, 5, 4]);
        assert_eq!(core_triangles(None, 6, true).unwrap(), vec![0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn bad_surfaces_are_named() {
        assert_eq!(core_triangles(Some(&[0, 1]), 3, false), Err(SurfaceError::NotTriangles { len: 2 }));
        assert_eq!(core_triangles(None, 4, false), Err(SurfaceError::NotTriangles { len: 4 }));
        assert_eq!(
            core_triangles(Some(&[0, 1, 2, 2, -7, 0]), 3, false),
            Err(SurfaceError::NegativeIndex { position: 4, value: -7 })
        );
        let flat = Affine3A::from_scale(Vec3::new(1.0, 0.0, 1.0));
        assert_eq!(WorldToLocal::new(&flat).err(), Some(SurfaceError::SingularTransform));
    }

    /// A proxy of the cloth's own surface on a moved and scaled instance: read back in the
    /// instance's local space, it is the surface itself at rest (whatever the transform), with
    /// the surface's normals.
    #[test]
    fn a_proxy_reads_back_in_the_instances_local_space() {
        let transform = Affine3A::from_scale_rotation_translation(Vec3::new(2.0, 1.0, 0.5), Quat::from_rotation_z(0.4), Vec3::new(1.0, 2.0, 3.0));
        let world_quad = to_world(&QUAD, &transform);
        let tris = core_triangles(Some(&QUAD_INDICES), QUAD.len(), is_mirroring(&transform)).unwrap();
        let mut sim = World::new(WorldDesc { gravity: [0.0; 3], thread_count: 1, ..WorldDesc::default() }).unwrap();
        let cloth = sim.add_cloth(&ClothDesc::new(&world_quad, &tris)).unwrap();
        let proxy = sim.add_render_proxy(cloth, &xpbd_cloth::RenderProxyDesc::new(&world_quad, &tris)).unwrap();
        sim.step(1.0 / 60.0).unwrap();
        let back = WorldToLocal::new(&transform).unwrap();
        let (mut bytes, mut p, mut n) = (vec![0u8; 24 * 4], vec![Vec3::ZERO; 4], vec![Vec3::ZERO; 4]);
        read_proxy_local_interpolated(&sim, proxy, 0.5, &back, &mut bytes, &mut p, &mut n).unwrap();
        for (got, want) in p.iter().zip(QUAD) {
            assert!(got.distance(Vec3::from_array(want)) < 1e-5, "{got} vs {want:?}");
        }
        assert_eq!(n, local_normals(transform), "the surface's normals, as the cloth's own read gives them");
        let e = read_proxy_local_interpolated(&sim, proxy, 2.0, &back, &mut bytes, &mut p, &mut n).unwrap_err();
        assert!(e.to_string().contains("alpha"), "{e}");
    }
}
