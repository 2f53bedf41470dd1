//! What a caller passes to create a collider and to move it: a plain descriptor (shape kind,
//! dimensions, pose, friction, layers) that maps one-to-one onto `XpbdColliderDesc`.

use super::shape::Shape;
use super::store::MeshShapeHandle;
use crate::error::{ClothError, check_range, check_unit_quaternion};
use glam::{Quat, Vec3};

/// Collider shape kind. Explicit values so that the C enum can mirror them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum ColliderKind {
    /// Sphere of `radius` around the collider's position.
    Sphere = 0,
    /// Capsule: the points within `radius` of the segment from −`half_height` to +`half_height`
    /// along the collider's local Y axis.
    Capsule = 1,
    /// Infinite plane through the collider's position; its normal is the local +Y axis and
    /// everything below it is solid (nothing passes through it at any speed).
    Plane = 2,
    /// Oriented box of `half_extents` along the local X, Y, Z axes, edges rounded by `radius`.
    Box = 3,
    /// A triangle mesh's signed distance field ([`crate::collision::MeshShape`], referenced by
    /// `mesh_shape`), placed by the pose.
    Mesh = 4,
}

impl TryFrom<u32> for ColliderKind {
    type Error = ClothError;

    /// The kind with this explicit value (0 sphere, 1 capsule, 2 plane, 3 box, 4 mesh), for C callers.
    /// Errors: `InvalidParameter` naming `kind`.
    fn try_from(value: u32) -> Result<Self, ClothError> {
        match value {
            0 => Ok(ColliderKind::Sphere),
            1 => Ok(ColliderKind::Capsule),
            2 => Ok(ColliderKind::Plane),
            3 => Ok(ColliderKind::Box),
            4 => Ok(ColliderKind::Mesh),
            _ => Err(ClothError::InvalidParameter {
                name: "kind",
                value: value as f64,
                expected: "0 sphere, 1 capsule, 2 plane, 3 box, 4 mesh",
            }),
        }
    }
}

/// Where a collider is: position \[m\] and rotation, a unit quaternion `[x, y, z, w]` (the order
/// of glam, Unity and Godot's `Quaternion(x, y, z, w)`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Position of the shape's centre (plane: a point on it) in world space \[m\].
    pub position: [f32; 3],
    /// Rotation from local to world as a unit quaternion `[x, y, z, w]`; `|q|` must be within
    /// 1e-3 of 1 (it is renormalised).
    pub rotation: [f32; 4],
}

impl Default for Pose {
    /// At the origin, not rotated.
    fn default() -> Self {
        Pose { position: [0.0; 3], rotation: [0.0, 0.0, 0.0, 1.0] }
    }
}

/// Largest accepted |coordinate| of a collider position \[m\]: the one bound of every world
/// coordinate ([`crate::mesh::MAX_COORDINATE`]).
pub const MAX_COLLIDER_COORDINATE: f32 = crate::mesh::MAX_COORDINATE;

impl Pose {
    /// A pose at `position` \[m\] with no rotation.
    pub fn at(position: [f32; 3]) -> Self {
        Pose { position, ..Pose::default() }
    }

    /// A pose at `position` \[m\] rotated by `angle` \[rad\] about the unit `axis` (right-handed).
    pub fn from_axis_angle(position: [f32; 3], axis: [f32; 3], angle: f32) -> Self {
        let q = Quat::from_axis_angle(Vec3::from_array(axis).normalize_or_zero(), angle);
        Pose { position, rotation: q.to_array() }
    }

    /// Check and convert: position finite within ±[`MAX_COLLIDER_COORDINATE`], rotation a unit
    /// quaternion to 1e-3. Errors: `InvalidParameter` naming `position` or `rotation`.
    pub(crate) fn validated(&self) -> Result<(Vec3, Quat), ClothError> {
        for c in self.position {
            let m = MAX_COLLIDER_COORDINATE;
            check_range("position", c, -m, m, "finite m within ±1e5")?;
        }
        let q = check_unit_quaternion("rotation", self.rotation)?;
        Ok((Vec3::from_array(self.position), q))
    }
}

/// Everything needed to create a collider (see [`crate::World::add_collider`]).
///
/// Dimensions are in metres in the collider's local frame; which fields a kind uses is listed on
/// each field, the others are ignored. Friction follows Macklin et al. 2014 (see
/// [`crate::collision`]): static coefficient μ_s, kinetic coefficient μ_k (usually μ_k ≤ μ_s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ColliderDesc {
    /// Shape kind.
    pub kind: ColliderKind,
    /// Sphere and capsule: radius \[m\] (> 0). Box: edge rounding radius \[m\] (0 = sharp edges,
    /// at most the smallest half extent; the outer size stays `half_extents`). Plane: unused.
    pub radius: f32,
    /// Capsule: half the length of its axis segment along local Y \[m\] (≥ 0; 0 = a sphere).
    pub half_height: f32,
    /// Box: half size along local X, Y, Z \[m\] (each > 0).
    pub half_extents: [f32; 3],
    /// Pose at creation (also the start of the first step's interpolation).
    pub pose: Pose,
    /// Static friction coefficient μ_s (≥ 0): a contact whose tangential slip over a substep is
    /// below μ_s × its penetration depth sticks.
    pub static_friction: f32,
    /// Kinetic friction coefficient μ_k (≥ 0): a sliding contact's slip is reduced by μ_k × its
    /// penetration depth per substep.
    pub kinetic_friction: f32,
    /// Collision layer bits of this collider; a cloth collides with it when
    /// `layers & cloth.collision_mask != 0`. Default 1.
    pub layers: u32,
    /// Mesh: the shape of the world it instances ([`crate::World::add_mesh_shape`]); its local
    /// frame is placed by `pose`. Others: unused. Default: the null handle.
    pub mesh_shape: MeshShapeHandle,
}

impl Default for ColliderDesc {
    /// No dimensions yet: every one is 0, so a dimension meant for one kind never carries over
    /// into another (a sphere's radius would be a box's edge rounding). Kind sphere, which needs
    /// a radius > 0: rejected as it is (`InvalidParameter` naming `radius`). At the origin,
    /// μ_s = 0.5, μ_k = 0.4 (cotton on wood or skin is about this), layer 1. For a shape, start
    /// from [`ColliderDesc::default_for`] or [`ColliderDesc::sphere`] and its siblings.
    fn default() -> Self {
        ColliderDesc {
            kind: ColliderKind::Sphere,
            radius: 0.0,
            half_height: 0.0,
            half_extents: [0.0; 3],
            pose: Pose::default(),
            static_friction: 0.5,
            kinetic_friction: 0.4,
            layers: 1,
            mesh_shape: MeshShapeHandle::default(),
        }
    }
}

/// Largest accepted collider dimension \[m\].
pub const MAX_COLLIDER_SIZE: f32 = 1.0e4;

impl ColliderDesc {
    /// The default shape of `kind`, at the origin with default friction and layer: a sphere of
    /// radius 0.5 m; a capsule of radius 0.5 m and half height 0.5 m (2 m tall in all, Unity's and
    /// Godot's default capsule); the plane y = 0; a sharp-edged box of half extents 0.5 m (rounding
    /// 0). The dimensions the kind does not use are 0.
    pub fn default_for(kind: ColliderKind) -> Self {
        match kind {
            ColliderKind::Sphere => ColliderDesc::sphere(0.5),
            ColliderKind::Capsule => ColliderDesc::capsule(0.5, 0.5),
            ColliderKind::Plane => ColliderDesc::plane(),
            ColliderKind::Box => ColliderDesc::cuboid([0.5; 3]),
            ColliderKind::Mesh => ColliderDesc::mesh(MeshShapeHandle::default()),
        }
    }

    /// A sphere of `radius` \[m\] at the origin, default friction and layer.
    pub fn sphere(radius: f32) -> Self {
        ColliderDesc { kind: ColliderKind::Sphere, radius, ..ColliderDesc::default() }
    }

    /// A capsule of `radius` \[m\] around the local Y segment ±`half_height` \[m\].
    pub fn capsule(radius: f32, half_height: f32) -> Self {
        ColliderDesc { kind: ColliderKind::Capsule, radius, half_height, ..ColliderDesc::default() }
    }

    /// The plane y = 0 (normal +Y, solid below) before the pose is applied.
    pub fn plane() -> Self {
        ColliderDesc { kind: ColliderKind::Plane, ..ColliderDesc::default() }
    }

    /// An instance of the mesh shape `mesh_shape`.
    pub fn mesh(mesh_shape: MeshShapeHandle) -> Self {
        ColliderDesc { kind: ColliderKind::Mesh, mesh_shape, ..ColliderDesc::default() }
    }

    /// A sharp-edged box of `half_extents` \[m\].
    pub fn cuboid(half_extents: [f32; 3]) -> Self {
        ColliderDesc { kind: ColliderKind::Box, half_extents, ..ColliderDesc::default() }
    }

    /// [`ColliderDesc::validated_with`] for the kinds without a mesh shape.
    #[cfg(test)]
    pub(crate) fn validated(&self) -> Result<(Shape, Vec3, Quat), ClothError> {
        self.validated_with(None)
    }

    /// Check every field the kind uses and the pose; return the shape and the normalised pose.
    /// `mesh` is the shape `mesh_shape` refers to (`Shape::Mesh`, or `Shape::PendingMesh` while it
    /// builds; None: none). Errors: `InvalidParameter` naming the field (`radius`, `half_height`,
    /// `half_extents`, `position`, `rotation`, `static_friction`, `kinetic_friction`; `mesh_shape`
    /// for a mesh collider without a shape).
    pub(crate) fn validated_with(&self, mesh: Option<Shape>) -> Result<(Shape, Vec3, Quat), ClothError> {
        const MAX: f32 = MAX_COLLIDER_SIZE;
        let shape = match self.kind {
            ColliderKind::Sphere => {
                check_range("radius", self.radius, f32::MIN_POSITIVE, MAX, "0 < m <= 1e4")?;
                Shape::Sphere { radius: self.radius }
            }
            ColliderKind::Capsule => {
                check_range("radius", self.radius, f32::MIN_POSITIVE, MAX, "0 < m <= 1e4")?;
                check_range("half_height", self.half_height, 0.0, MAX, "0 <= m <= 1e4")?;
                Shape::Capsule { radius: self.radius, half_height: self.half_height }
            }
            ColliderKind::Plane => Shape::Plane,
            ColliderKind::Box => {
                for h in self.half_extents {
                    check_range("half_extents", h, f32::MIN_POSITIVE, MAX, "0 < m <= 1e4 each")?;
                }
                let half_extents = Vec3::from_array(self.half_extents);
                let max_rounding = half_extents.min_element();
                let expected = "box rounding: 0 <= m <= smallest half extent";
                check_range("radius", self.radius, 0.0, max_rounding, expected)?;
                Shape::Box { half_extents, rounding: self.radius }
            }
            ColliderKind::Mesh => match mesh {
                Some(mesh @ (Shape::Mesh(_) | Shape::PendingMesh)) => mesh,
                _ => {
                    return Err(ClothError::InvalidParameter {
                        name: "mesh_shape",
                        value: self.mesh_shape.index as f64,
                        expected: "a live mesh shape of this world, built or building (not one whose build failed)",
                    });
                }
            },
        };
        check_range("static_friction", self.static_friction, 0.0, 100.0, "0 <= mu_s <= 100")?;
        check_range("kinetic_friction", self.kinetic_friction, 0.0, 100.0, "0 <= mu_k <= 100")?;
        let (position, rotation) = self.pose.validated()?;
        Ok((shape, position, rotation))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KINDS: [ColliderKind; 4] = [ColliderKind::Sphere, ColliderKind::Capsule, ColliderKind::Plane, ColliderKind::Box];

    #[test]
    fn each_kind_has_its_own_valid_defaults_and_nothing_of_the_others() {
        for kind in KINDS {
            let d = ColliderDesc::default_for(kind);
            assert_eq!(d.kind, kind);
            assert!(d.validated().is_ok(), "{kind:?}: {:?}", d.validated());
            assert_eq!((d.pose, d.static_friction, d.kinetic_friction, d.layers), (Pose::default(), 0.5, 0.4, 1));
        }
        let [sphere, capsule, plane, cuboid] = KINDS.map(ColliderDesc::default_for);
        assert_eq!((sphere.radius, sphere.half_height, sphere.half_extents), (0.5, 0.0, [0.0; 3]));
        assert_eq!((capsule.radius, capsule.half_height, capsule.half_extents), (0.5, 0.5, [0.0; 3]));
        assert_eq!((plane.radius, plane.half_height, plane.half_extents), (0.0, 0.0, [0.0; 3]));
        // A box's radius is its edge rounding: none by default.
        assert_eq!((cuboid.radius, cuboid.half_height, cuboid.half_extents), (0.0, 0.0, [0.5; 3]));
    }

    #[test]
    fn no_dimension_carries_over_when_the_kind_is_switched() {
        let named = |d: ColliderDesc| match d.validated() {
            Err(ClothError::InvalidParameter { name, value, .. }) => (name, value),
            other => panic!("{d:?} accepted: {other:?}"),
        };
        // The plain default has no dimensions: rejected for the kinds that need one.
        assert_eq!(named(ColliderDesc::default()), ("radius", 0.0));
        assert_eq!(named(ColliderDesc { kind: ColliderKind::Box, ..ColliderDesc::default() }), ("half_extents", 0.0));
        // A sphere's defaults made a box: no half extents (rather than a box silently rounded by
        // the sphere's radius); a box's made a sphere: no radius.
        let sphere = ColliderDesc::default_for(ColliderKind::Sphere);
        assert_eq!(named(ColliderDesc { kind: ColliderKind::Box, ..sphere }), ("half_extents", 0.0));
        let cuboid = ColliderDesc::default_for(ColliderKind::Box);
        assert_eq!(named(ColliderDesc { kind: ColliderKind::Sphere, ..cuboid }), ("radius", 0.0));
        assert_eq!(named(ColliderDesc { kind: ColliderKind::Capsule, ..cuboid }), ("radius", 0.0));
    }
}
