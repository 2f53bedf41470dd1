//! The collider shapes behind one signed-distance interface. The four analytic shapes are convex
//! and their distance is exact (1-Lipschitz), which the swept contact test's Newton march relies
//! on; a mesh shape is neither convex nor exact away from its nodes, so its sweep sphere-traces
//! instead (see `contact.rs`).

use super::capsule::capsule_distance;
use super::cuboid::box_distance;
use super::plane::plane_distance;
use super::sphere::sphere_distance;
use super::mesh_shape::MeshShape;
use glam::Vec3;
use std::sync::Arc;

/// A shape in its collider's local frame, with validated dimensions \[m\].
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Shape {
    /// Sphere of `radius` around the origin.
    Sphere { radius: f32 },
    /// Points within `radius` of the local Y segment from −`half_height` to +`half_height`.
    Capsule { radius: f32, half_height: f32 },
    /// Half-space local y ≤ 0.
    Plane,
    /// Box of `half_extents` (outer) with edges rounded by `rounding`.
    Box { half_extents: Vec3, rounding: f32 },
    /// A triangle mesh's distance field, shared with other colliders.
    Mesh(Arc<MeshShape>),
    /// A mesh shape still building: nothing, infinitely far (its colliders are skipped by the
    /// contacts, see `Collider::active_layers`).
    PendingMesh,
}

impl Shape {
    /// Signed distance \[m\] from local point `p` to the surface (negative inside) and the unit
    /// outward normal ∇d(p).
    #[inline(always)]
    pub fn distance(&self, p: Vec3) -> (f32, Vec3) {
        match *self {
            Shape::Sphere { radius } => sphere_distance(p, radius),
            Shape::Capsule { radius, half_height } => capsule_distance(p, radius, half_height),
            Shape::Plane => plane_distance(p),
            Shape::Box { half_extents, rounding } => box_distance(p, half_extents, rounding),
            Shape::Mesh(ref mesh) => mesh.distance(p),
            Shape::PendingMesh => (f32::INFINITY, Vec3::Y),
        }
    }

    /// A lower bound \[m\] on [`Shape::distance`] at local point `p`, cheaper (no normal): the
    /// distance itself for the sphere, capsule, plane and mesh; for a box the largest per-axis excess
    /// max_k(|p_k| − b_k), the distance to the farthest of its three slabs, which is the distance
    /// beside a face and less beyond an edge or a corner (rounding only moves the surface in).
    /// The contacts' second broad phase (`contact.rs`).
    #[inline]
    pub fn distance_lower_bound(&self, p: Vec3) -> f32 {
        match *self {
            Shape::Sphere { radius } => p.length() - radius,
            Shape::Capsule { radius, half_height } => {
                (p - Vec3::new(0.0, p.y.clamp(-half_height, half_height), 0.0)).length() - radius
            }
            Shape::Plane => p.y,
            Shape::Box { half_extents, .. } => (p.abs() - half_extents).max_element(),
            Shape::Mesh(ref mesh) => mesh.distance(p).0,
            Shape::PendingMesh => f32::INFINITY,
        }
    }

    /// Radius \[m\] of a ball around the local origin that contains the shape (`None` for the
    /// unbounded plane), so that distance(p) ≥ ‖p‖ − radius: the contacts' broad phase.
    pub fn bounding_radius(&self) -> Option<f32> {
        match *self {
            Shape::Sphere { radius } => Some(radius),
            Shape::Capsule { radius, half_height } => Some(radius + half_height),
            Shape::Plane => None,
            Shape::Box { half_extents, .. } => Some(half_extents.length()),
            Shape::Mesh(ref mesh) => Some(mesh.bounding_radius()),
            Shape::PendingMesh => Some(0.0),
        }
    }

    /// True for the analytic shapes (convex, exact distance); false for a mesh.
    #[inline(always)]
    pub fn is_convex(&self) -> bool {
        !matches!(self, Shape::Mesh(_) | Shape::PendingMesh)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::Shape;
    use glam::Vec3;

    /// The bound never exceeds the distance, equals it where the docs say, and is tight beside a
    /// box's faces.
    #[test]
    fn distance_lower_bound_is_below_the_distance() {
        let shapes = [
            Shape::Sphere { radius: 0.3 },
            Shape::Capsule { radius: 0.1, half_height: 0.4 },
            Shape::Plane,
            Shape::Box { half_extents: Vec3::new(0.4, 0.05, 0.3), rounding: 0.0 },
            Shape::Box { half_extents: Vec3::new(0.4, 0.05, 0.3), rounding: 0.04 },
        ];
        for shape in &shapes {
            for p in sample_points(1.0) {
                let (bound, d) = (shape.distance_lower_bound(p), shape.distance(p).0);
                assert!(bound <= d + 1e-6, "{shape:?} at {p}: bound {bound} > distance {d}");
                if !matches!(shape, Shape::Box { .. }) {
                    assert!((bound - d).abs() <= 1e-6, "{shape:?} at {p}: {bound} vs {d}");
                }
            }
        }
        let board = Shape::Box { half_extents: Vec3::new(0.4, 0.05, 0.3), rounding: 0.04 };
        assert!((board.distance_lower_bound(Vec3::new(0.1, 0.35, -0.2)) - 0.3).abs() < 1e-6);
    }

    /// Distance and normal equal the expected ones (to 1e-6).
    pub fn assert_close((d, n): (f32, Vec3), (d_want, n_want): (f32, Vec3)) {
        assert!((d - d_want).abs() < 1e-6 && (n - n_want).length() < 1e-6, "got ({d}, {n})");
    }

    /// 600 deterministic pseudo-random points in the cube [−extent, extent]³ (a 32-bit LCG).
    pub fn sample_points(extent: f32) -> impl Iterator<Item = Vec3> {
        let mut next = crate::test_util::uniform(0x2545_f491);
        (0..600).map(move |_| Vec3::new(next(), next(), next()) * extent)
    }

    /// The normal a shape returns must be the gradient of its distance: compare with central
    /// differences (step 0.2 mm) at each point. At least 300 points must be checked, so that a
    /// filter cannot hide a broken shape.
    pub fn assert_normal_is_distance_gradient(
        points: impl Iterator<Item = Vec3>,
        distance: impl Fn(Vec3) -> (f32, Vec3),
    ) {
        let step = 2e-4f32;
        let mut checked = 0;
        for p in points {
            let (_, normal) = distance(p);
            let fd = Vec3::from_array([Vec3::X, Vec3::Y, Vec3::Z].map(|axis| {
                (distance(p + axis * step).0 - distance(p - axis * step).0) / (2.0 * step)
            }));
            assert!((fd - normal).length() < 2e-3, "at {p}: normal {normal}, finite differences {fd}");
            assert!((normal.length() - 1.0).abs() < 1e-5);
            checked += 1;
        }
        assert!(checked >= 300, "only {checked} points checked");
    }
}
