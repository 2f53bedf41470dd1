//! Godot collision shapes as core colliders.
//!
//! | Godot shape | core collider |
//! |---|---|
//! | `SphereShape3D { radius }` | sphere of `radius` |
//! | `CapsuleShape3D { radius, height }` along local Y; `height` is the **total** height, caps included (Godot 4) | capsule, `half_height = height/2 − radius` (the axis segment) |
//! | `BoxShape3D { size }` (full edge lengths) | box, `half_extents = size/2`, sharp edges |
//! | `WorldBoundaryShape3D { plane }`: points p with n·p = d, solid behind n | plane through n·d, local +Y turned onto n |
//! | `ConcavePolygonShape3D` (`get_faces()`), an `ArrayMesh` surface | mesh collider of a mesh shape built from [`mesh_from_faces`] / [`mesh_from_surface`], the scale baked in |
//!
//! The CollisionShape3D's global transform places the shape. Godot physics expects uniform scale
//! on shapes; a scale is still honoured here: per axis for boxes, the largest axis for sphere
//! radii, the horizontal axes for capsule radii and Y for capsule lengths.

use glam::{Affine3A, Mat3, Quat, Vec3};
use super::surface::{SurfaceError, core_triangles};
use xpbd_cloth::{ColliderDesc, ColliderKind, MeshShapeHandle, Pose};

/// The shapes the bridge understands, with their Godot property values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GodotShape {
    /// `SphereShape3D.radius` [m].
    Sphere {
        /// Radius [m].
        radius: f32,
    },
    /// `CapsuleShape3D` [m].
    Capsule {
        /// Radius [m].
        radius: f32,
        /// Total height including both caps [m].
        height: f32,
    },
    /// `BoxShape3D.size` [m].
    Box {
        /// Full edge lengths along local X, Y, Z [m].
        size: [f32; 3],
    },
    /// `WorldBoundaryShape3D.plane` = `Plane(normal, d)`.
    WorldBoundary {
        /// Plane normal (pointing out of the solid side); need not be unit length.
        normal: [f32; 3],
        /// Distance d [m] of the plane from the shape's origin along the unit normal.
        d: f32,
    },
    /// A mesh shape of the world (built from [`mesh_from_faces`] or [`mesh_from_surface`] with
    /// the CollisionShape3D's scale baked in), placed by the transform's rotation and translation.
    Mesh {
        /// The shape ([`xpbd_cloth::World::create_mesh_shape`], or `create_mesh_shape_async`
        /// for a node that should not hold the main thread while it builds).
        shape: MeshShapeHandle,
    },
}

/// Positions scaled per axis by `scale` and triangles counter-clockwise from the front (the
/// core's convention) from a `ConcavePolygonShape3D.get_faces()` array: three corners per
/// triangle in Godot's clockwise-front order. Errors: `NotTriangles` (length not a multiple of 3).
pub fn mesh_from_faces(faces: &[[f32; 3]], scale: Vec3) -> Result<(Vec<[f32; 3]>, Vec<[u32; 3]>), SurfaceError> {
    mesh_from_surface(faces, None, scale)
}

/// [`mesh_from_faces`] for an `ArrayMesh` surface: its `vertices` and `indices` (`None`: every
/// three consecutive vertices), scaled per axis by `scale` (a mirroring scale keeps the faces'
/// front). Errors: `NotTriangles`, `NegativeIndex`; ranges are the core's.
pub fn mesh_from_surface(vertices: &[[f32; 3]], indices: Option<&[i32]>, scale: Vec3) -> Result<(Vec<[f32; 3]>, Vec<[u32; 3]>), SurfaceError> {
    let mirrored = scale.x * scale.y * scale.z < 0.0;
    let triangles = core_triangles(indices, vertices.len(), mirrored)?;
    let positions = vertices.iter().map(|v| (Vec3::from_array(*v) * scale).to_array()).collect();
    Ok((positions, triangles.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect()))
}

/// A core collider description for `shape` placed by the CollisionShape3D's global transform
/// `transform`, with friction coefficients μ_s, μ_k and collision `layers`. Out-of-range values
/// (zero radius, degenerate plane normal…) are left for the core to reject
/// ([`xpbd_cloth::World::add_collider`] names the field).
pub fn collider_desc(shape: GodotShape, transform: &Affine3A, static_friction: f32, kinetic_friction: f32, layers: u32) -> ColliderDesc {
    let (scale, rotation, translation) = transform.to_scale_rotation_translation();
    let scale = scale.abs();
    if let GodotShape::Mesh { shape } = shape {
        // The scale is in the shape's positions already: only the rigid part places it.
        let pose = Pose { position: translation.to_array(), rotation: rotation.normalize().to_array() };
        return ColliderDesc { static_friction, kinetic_friction, layers, pose, ..ColliderDesc::mesh(shape) };
    }
    let pose = |position: Vec3, rotation: Quat| Pose { position: position.to_array(), rotation: rotation.normalize().to_array() };
    let base = ColliderDesc { static_friction, kinetic_friction, layers, pose: pose(translation, rotation), ..ColliderDesc::default() };
    match shape {
        GodotShape::Sphere { radius } => ColliderDesc { kind: ColliderKind::Sphere, radius: radius * scale.max_element(), ..base },
        GodotShape::Capsule { radius, height } => {
            let r = radius * scale.x.max(scale.z);
            let half_height = (0.5 * height * scale.y - r).max(0.0);
            ColliderDesc { kind: ColliderKind::Capsule, radius: r, half_height, ..base }
        }
        GodotShape::Box { size } => ColliderDesc {
            kind: ColliderKind::Box,
            radius: 0.0,
            half_extents: (Vec3::from_array(size) * 0.5 * scale).to_array(),
            ..base
        },
        GodotShape::WorldBoundary { normal, d } => {
            let n = Vec3::from_array(normal);
            let unit = n.normalize_or_zero();
            // A point of the plane in shape space; normals go to world by the inverse transpose.
            let point = transform.transform_point3(unit * d);
            let world_normal = (Mat3::from(transform.matrix3).inverse().transpose() * unit).normalize_or_zero();
            let rotation = if world_normal == Vec3::ZERO {
                Quat::from_xyzw(0.0, 0.0, 0.0, 0.0) // rejected by the core as "rotation"
            } else {
                Quat::from_rotation_arc(Vec3::Y, world_normal)
            };
            ColliderDesc { kind: ColliderKind::Plane, pose: Pose { position: point.to_array(), rotation: rotation.to_array() }, ..base }
        }
        GodotShape::Mesh { .. } => unreachable!("placed above"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xpbd_cloth::{ClothDesc, World, WorldDesc};

    /// Drop one free particle from `start` onto the collider; where it comes to rest [m].
    fn rest_point(desc: &ColliderDesc, start: [f32; 3], gravity: [f32; 3]) -> Vec3 {
        let mut world = World::new(WorldDesc { gravity, thread_count: 1, ..WorldDesc::default() }).unwrap();
        world.add_collider(desc).unwrap();
        let positions = [start];
        let cloth = world.add_cloth(&ClothDesc { inverse_masses: Some(&[1.0]), ..ClothDesc::new(&positions, &[]) }).unwrap();
        for _ in 0..240 {
            world.step(1.0 / 60.0).unwrap();
        }
        let mut out = [[0.0f32; 3]];
        world.cloth(cloth).unwrap().read_positions(&mut out).unwrap();
        Vec3::from_array(out[0])
    }

    const THICKNESS: f32 = 0.005; // ClothParams::default().collision_thickness

    /// A Godot box (clockwise-front faces, as `get_faces()` lists them) becomes a solid mesh
    /// collider: a particle dropped on it rests on its scaled top, and inside is negative.
    #[test]
    fn concave_polygon_faces_become_a_solid_mesh_collider() {
        // Corner k has bit a set when coordinate a is +0.5; quads wound clockwise from outside.
        let corner = |k: usize| [0, 1, 2].map(|a| if k >> a & 1 == 1 { 0.5 } else { -0.5 });
        let quads = [[0, 1, 3, 2], [4, 6, 7, 5], [0, 4, 5, 1], [2, 3, 7, 6], [0, 2, 6, 4], [1, 5, 7, 3]];
        let faces: Vec<[f32; 3]> =
            quads.iter().flat_map(|q| [q[0], q[1], q[2], q[0], q[2], q[3]]).map(corner).collect();
        let scale = Vec3::new(2.0, 0.4, 2.0);
        let (positions, triangles) = mesh_from_faces(&faces, scale).unwrap();
        let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
        let shape = world
            .create_mesh_shape(&xpbd_cloth::MeshShapeDesc { positions: &positions, triangles: &triangles, cell_size: 0.02, closed: true })
            .unwrap();
        let field = world.mesh_shape(shape).unwrap();
        assert!(field.distance(Vec3::ZERO).0 < 0.0, "inside is negative");
        // 5 cm below the scaled top face (y = 0.2), inside the exact band of 4 cells of 2 cm.
        let below_top = field.distance(Vec3::new(0.0, 0.15, 0.0)).0;
        assert!((below_top + 0.05).abs() < 1e-3, "{below_top}");
        let t = Affine3A::from_scale_rotation_translation(scale, Quat::IDENTITY, Vec3::new(0.0, 1.0, 0.0));
        let c = collider_desc(GodotShape::Mesh { shape }, &t, 0.5, 0.4, 1);
        assert_eq!((c.kind, c.pose.position), (ColliderKind::Mesh, [0.0, 1.0, 0.0]));
        world.add_collider(&c).unwrap();
        let positions = [[0.1f32, 2.0, 0.1]];
        let cloth = world.add_cloth(&ClothDesc { inverse_masses: Some(&[1.0]), ..ClothDesc::new(&positions, &[]) }).unwrap();
        for _ in 0..120 {
            world.step(1.0 / 60.0).unwrap();
        }
        let mut out = [[0.0f32; 3]];
        world.cloth(cloth).unwrap().read_positions(&mut out).unwrap();
        assert!((out[0][1] - (1.2 + THICKNESS)).abs() < 2e-3, "{:?}", out[0]);
        assert!(matches!(mesh_from_faces(&faces[..4], scale), Err(SurfaceError::NotTriangles { .. })));
    }

    #[test]
    fn capsule_height_is_godots_total_height() {
        let t = Affine3A::from_translation(Vec3::new(1.0, 2.0, 3.0));
        let c = collider_desc(GodotShape::Capsule { radius: 0.5, height: 2.0 }, &t, 0.5, 0.4, 1);
        assert_eq!((c.kind, c.radius, c.half_height), (ColliderKind::Capsule, 0.5, 0.5));
        assert_eq!(c.pose.position, [1.0, 2.0, 3.0]);
        // A particle dropped on the capsule's top rests on it: centre + half_height + radius.
        let top = rest_point(&c, [1.0, 5.0, 3.0], [0.0, -9.81, 0.0]);
        assert!((top.y - (2.0 + 1.0 + THICKNESS)).abs() < 1e-3, "{top}");
    }

    #[test]
    fn box_size_is_full_edge_length_and_scales_per_axis() {
        let t = Affine3A::from_scale(Vec3::new(2.0, 1.0, 0.5));
        let c = collider_desc(GodotShape::Box { size: [2.0, 1.0, 4.0] }, &t, 0.5, 0.4, 1);
        assert_eq!((c.kind, c.half_extents), (ColliderKind::Box, [2.0, 0.5, 1.0]));
        let top = rest_point(&c, [1.5, 3.0, 0.5], [0.0, -9.81, 0.0]);
        assert!((top.y - (0.5 + THICKNESS)).abs() < 1e-3, "{top}");
    }

    #[test]
    fn sphere_radius_takes_the_largest_scale_and_the_rotation_is_kept() {
        let t = Affine3A::from_scale_rotation_translation(Vec3::splat(3.0), Quat::from_rotation_z(0.3), Vec3::ZERO);
        let c = collider_desc(GodotShape::Sphere { radius: 0.25 }, &t, 0.1, 0.05, 4);
        assert!((c.radius - 0.75).abs() < 1e-6);
        assert_eq!((c.static_friction, c.kinetic_friction, c.layers), (0.1, 0.05, 4));
        let q = Quat::from_array(c.pose.rotation);
        assert!(q.angle_between(Quat::from_rotation_z(0.3)) < 1e-5);
    }

    #[test]
    fn world_boundary_keeps_particles_on_the_front_of_godots_plane() {
        // Plane(normal (0, 1, 1)/√2, d = 1) of a shape moved 2 m along +X: n·(p − (2,0,0)) ≥ d.
        let n = Vec3::new(0.0, 1.0, 1.0).normalize();
        let t = Affine3A::from_translation(Vec3::new(2.0, 0.0, 0.0));
        let c = collider_desc(GodotShape::WorldBoundary { normal: [0.0, 1.0, 1.0], d: 1.0 }, &t, 0.0, 0.0, 1);
        assert_eq!(c.kind, ColliderKind::Plane);
        let p = Vec3::from_array(c.pose.position);
        assert!((n.dot(p - Vec3::new(2.0, 0.0, 0.0)) - 1.0).abs() < 1e-6);
        assert!((Quat::from_array(c.pose.rotation) * Vec3::Y - n).length() < 1e-6);
        // Pushed against the plane (gravity into it, no friction): it stays in front, in contact.
        let rest = rest_point(&c, [2.0, 2.0, 2.0], (-n * 9.81).to_array());
        let signed = n.dot(rest - Vec3::new(2.0, 0.0, 0.0)) - 1.0;
        assert!((signed - THICKNESS).abs() < 1e-3, "signed distance {signed}");
    }

    #[test]
    fn degenerate_plane_normal_is_left_for_the_core_to_reject() {
        let c = collider_desc(GodotShape::WorldBoundary { normal: [0.0; 3], d: 0.0 }, &Affine3A::IDENTITY, 0.5, 0.4, 1);
        let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
        assert!(world.add_collider(&c).is_err());
        assert_eq!(world.collider_count(), 0);
    }
}
