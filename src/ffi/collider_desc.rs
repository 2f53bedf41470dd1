//! The C descriptor of a collider and its translation to the core's `ColliderDesc`. The pose is
//! spelled out as `position` and `rotation` (the two halves of the core's `Pose`), so a C caller
//! fills plain arrays.

use super::error::FfiError;
use super::ids::XpbdMeshShapeId;
use crate::collision::{ColliderDesc, ColliderKind, MeshShapeHandle, Pose};

/// Collider shape: the values of `XpbdColliderDesc.kind`. Fixed forever; new shapes are only
/// appended.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum XpbdColliderKind {
    /// Sphere of `radius` around `position`.
    Sphere = 0,
    /// Capsule: the points within `radius` of the segment from -`half_height` to +`half_height`
    /// along the collider's local Y axis.
    Capsule = 1,
    /// Infinite plane through `position` whose normal is the local +Y axis; everything below it
    /// is solid (nothing passes through it at any speed).
    Plane = 2,
    /// Oriented box of `half_extents` along the local X, Y, Z axes, edges rounded by `radius`.
    Box = 3,
    /// An instance of the mesh shape `mesh_shape` (`xpbd_mesh_shape_create` or `_create_async`: a
    /// shape still building touches nothing until its build ends), its local frame
    /// placed by `position` and `rotation`.
    Mesh = 4,
}

impl From<ColliderKind> for XpbdColliderKind {
    fn from(kind: ColliderKind) -> Self {
        match kind {
            ColliderKind::Sphere => XpbdColliderKind::Sphere,
            ColliderKind::Capsule => XpbdColliderKind::Capsule,
            ColliderKind::Plane => XpbdColliderKind::Plane,
            ColliderKind::Box => XpbdColliderKind::Box,
            ColliderKind::Mesh => XpbdColliderKind::Mesh,
        }
    }
}

/// Everything `xpbd_collider_create` needs. Get one from `xpbd_default_collider_desc_for(kind)`
/// (that kind's default shape at the origin), then set its dimensions and the pose. Dimensions
/// are in metres in the collider's local frame; each field says which kinds use it, the others
/// ignore it. Change the kind of a descriptor only together with every dimension the new kind
/// uses: `radius` means a size for a sphere or capsule but the edge rounding of a box. New fields
/// are only ever added with defaults there.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct XpbdColliderDesc {
    /// Shape: an `XpbdColliderKind` value (0 sphere, 1 capsule, 2 plane, 3 box, 4 mesh). A `uint32_t`, so
    /// that any other value is reported (`XPBD_RESULT_INVALID_ARGUMENT`) instead of being
    /// undefined. Default `XPBD_COLLIDER_KIND_SPHERE`.
    pub kind: u32,
    /// Sphere and capsule: radius in metres (0 < r <= 1e4). Box: edge rounding radius in metres
    /// (0 = sharp edges, at most the smallest half extent; the outer size stays `half_extents`).
    /// Plane: unused. Default: 0.5 for a sphere or capsule, 0 for a box or plane.
    pub radius: f32,
    /// Capsule: half the length of its axis segment along local Y in metres (0..=1e4; 0 = a
    /// sphere). Others: unused. Default: 0.5 for a capsule, otherwise 0.
    pub half_height: f32,
    /// Box: half size along local X, Y, Z in metres (each 0 < h <= 1e4). Others: unused.
    /// Default: (0.5, 0.5, 0.5) for a box, otherwise 0.
    pub half_extents: [f32; 3],
    /// World position of the shape's centre (plane: a point on it) in metres, finite, each
    /// coordinate within +-1e5. Default (0, 0, 0).
    pub position: [f32; 3],
    /// Rotation local -> world as a unit quaternion (x, y, z, w) (the order of Unity's and
    /// Godot's `Quaternion(x, y, z, w)`); its length must be 1 +- 1e-3 (it is renormalised).
    /// Default (0, 0, 0, 1): not rotated.
    pub rotation: [f32; 4],
    /// Static friction coefficient mu_s (0..=100): a contact whose slip relative to the collider
    /// over a substep is below mu_s times its penetration depth sticks (Macklin et al. 2014,
    /// Unified Particle Physics, eq. 24). Default 0.5.
    pub static_friction: f32,
    /// Kinetic friction coefficient mu_k (0..=100, usually <= mu_s): a sliding contact's slip is
    /// reduced by mu_k times its penetration depth per substep. Default 0.4.
    pub kinetic_friction: f32,
    /// Collision layer bits: a cloth collides with this collider when
    /// `layers & cloth collision_mask != 0`. Default 1.
    pub layers: u32,
    /// Mesh: the mesh shape this collider instances, a live shape of the same world (else
    /// `XPBD_RESULT_INVALID_ARGUMENT` naming `mesh_shape`). Others: unused. Default null.
    pub mesh_shape: XpbdMeshShapeId,
}

impl From<&ColliderDesc> for XpbdColliderDesc {
    fn from(d: &ColliderDesc) -> Self {
        XpbdColliderDesc {
            kind: XpbdColliderKind::from(d.kind) as u32,
            radius: d.radius,
            half_height: d.half_height,
            half_extents: d.half_extents,
            position: d.pose.position,
            rotation: d.pose.rotation,
            static_friction: d.static_friction,
            kinetic_friction: d.kinetic_friction,
            layers: d.layers,
            // The world is not known here: the exports that write a descriptor set the id.
            mesh_shape: XpbdMeshShapeId::default(),
        }
    }
}

impl XpbdColliderDesc {
    /// Translate to the core, checking the one thing only the C side can get wrong: a `kind`
    /// outside the enum. Dimensions, pose and friction are checked by the core when the collider
    /// is added.
    pub(crate) fn to_core(self) -> Result<ColliderDesc, FfiError> {
        Ok(ColliderDesc {
            kind: ColliderKind::try_from(self.kind)?,
            radius: self.radius,
            half_height: self.half_height,
            half_extents: self.half_extents,
            pose: Pose { position: self.position, rotation: self.rotation },
            static_friction: self.static_friction,
            kinetic_friction: self.kinetic_friction,
            layers: self.layers,
            // Resolved under the world's lock by `xpbd_collider_create`.
            mesh_shape: MeshShapeHandle::default(),
        })
    }
}

/// A collider descriptor with no dimensions: kind sphere with `radius`, `half_height` and
/// `half_extents` all 0, at the origin, not rotated, mu_s = 0.5, mu_k = 0.4, layer 1. Set the
/// dimensions of the kind you choose: as it is, `xpbd_collider_create` rejects it
/// (`XPBD_RESULT_INVALID_ARGUMENT` naming `radius`), so no dimension meant for one kind ever
/// carries over into another. `xpbd_default_collider_desc_for(kind)` gives a ready shape.
/// Never fails. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_default_collider_desc() -> XpbdColliderDesc {
    XpbdColliderDesc::from(&ColliderDesc::default())
}

/// The default collider of `kind` (an `XpbdColliderKind` value), at the origin, not rotated,
/// mu_s = 0.5, mu_k = 0.4, layer 1:
/// - `XPBD_COLLIDER_KIND_SPHERE`: radius 0.5 m;
/// - `XPBD_COLLIDER_KIND_CAPSULE`: radius 0.5 m, half height 0.5 m (2 m tall in all);
/// - `XPBD_COLLIDER_KIND_PLANE`: the plane y = 0, solid below;
/// - `XPBD_COLLIDER_KIND_BOX`: half extents (0.5, 0.5, 0.5) m, sharp edges (radius 0);
/// - `XPBD_COLLIDER_KIND_MESH`: no shape yet (`mesh_shape` null: set it).
///
/// The dimensions the kind does not use are 0. An unknown `kind` is kept, with no dimensions,
/// so that `xpbd_collider_create` reports it (`XPBD_RESULT_INVALID_ARGUMENT` naming `kind`).
/// Never fails. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_default_collider_desc_for(kind: u32) -> XpbdColliderDesc {
    match ColliderKind::try_from(kind) {
        Ok(kind) => XpbdColliderDesc::from(&ColliderDesc::default_for(kind)),
        Err(_) => XpbdColliderDesc { kind, ..xpbd_default_collider_desc() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::error::XpbdResult;

    #[test]
    fn collider_desc_round_trips_through_c_exactly() {
        let core = ColliderDesc {
            radius: 0.01,
            half_height: 0.25,
            half_extents: [0.1, 0.2, 0.3],
            pose: Pose::from_axis_angle([1.0, -2.0, 3.0], [0.0, 1.0, 0.0], 0.5),
            static_friction: 0.9,
            kinetic_friction: 0.7,
            layers: 0b1010,
            ..ColliderDesc::cuboid([0.1, 0.2, 0.3])
        };
        for kind in [ColliderKind::Sphere, ColliderKind::Capsule, ColliderKind::Plane, ColliderKind::Box] {
            let core = ColliderDesc { kind, ..core };
            let c = XpbdColliderDesc::from(&core);
            assert_eq!(c.kind, kind as u32, "the C values are the core's");
            assert_eq!(c.to_core(), Ok(core));
        }
        assert_eq!(xpbd_default_collider_desc().to_core(), Ok(ColliderDesc::default()));
    }

    #[test]
    fn unknown_kind_is_an_invalid_argument_naming_the_field() {
        for kind in [5, 7, u32::MAX] {
            let e = XpbdColliderDesc { kind, ..xpbd_default_collider_desc() }.to_core().unwrap_err();
            assert_eq!(e.code, XpbdResult::InvalidArgument);
            assert!(e.message.contains("`kind`"), "{}", e.message);
            // The per-kind default keeps an unknown kind for creation to report.
            let d = xpbd_default_collider_desc_for(kind);
            assert_eq!(d, XpbdColliderDesc { kind, ..xpbd_default_collider_desc() });
            assert_eq!(d.to_core().unwrap_err().code, XpbdResult::InvalidArgument);
        }
    }

    #[test]
    fn per_kind_defaults_are_the_cores() {
        for kind in [ColliderKind::Sphere, ColliderKind::Capsule, ColliderKind::Plane, ColliderKind::Box] {
            assert_eq!(xpbd_default_collider_desc_for(kind as u32).to_core(), Ok(ColliderDesc::default_for(kind)));
        }
        let cuboid = xpbd_default_collider_desc_for(XpbdColliderKind::Box as u32);
        assert_eq!((cuboid.radius, cuboid.half_extents), (0.0, [0.5; 3]));
    }
}
