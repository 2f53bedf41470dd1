//! Sphere of radius r centred at the collider's origin.
//!
//! d(p) = ‖p‖ − r,  ∇d(p) = p/‖p‖ (exact Euclidean signed distance, negative inside).
//! At the centre the gradient is undefined; +Y (local up) is returned so that a particle spawned
//! exactly there leaves in a fixed, documented direction.

use glam::Vec3;

/// Signed distance \[m\] from local point `p` to a sphere of `radius` \[m\], and the unit outward
/// normal (the gradient of the distance).
#[inline]
pub(crate) fn sphere_distance(p: Vec3, radius: f32) -> (f32, Vec3) {
    let len = p.length();
    let normal = if len > 0.0 { p / len } else { Vec3::Y };
    (len - radius, normal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::shape::tests::{assert_close, assert_normal_is_distance_gradient, sample_points};

    #[test]
    fn distance_is_radial_gap() {
        assert_close(sphere_distance(Vec3::new(0.0, 0.0, 2.0), 0.5), (1.5, Vec3::Z));
        assert_close(sphere_distance(Vec3::new(-0.1, 0.0, 0.0), 0.5), (-0.4, -Vec3::X));
        assert_close(sphere_distance(Vec3::ZERO, 0.5), (-0.5, Vec3::Y));
    }

    #[test]
    fn normal_is_finite_difference_gradient() {
        let points = sample_points(1.0).filter(|p| p.length() > 0.05);
        assert_normal_is_distance_gradient(points, |p| sphere_distance(p, 0.3));
    }
}
