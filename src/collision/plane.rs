//! Infinite plane through the collider's origin with outward normal local +Y: everything below
//! it (local y < 0) is solid, so nothing can pass through it at any speed.
//!
//! d(p) = p_y,  ∇d = (0, 1, 0).

use glam::Vec3;

/// Signed distance \[m\] from local point `p` to the plane y = 0 (solid below), and its normal.
#[inline]
pub(crate) fn plane_distance(p: Vec3) -> (f32, Vec3) {
    (p.y, Vec3::Y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::shape::tests::{assert_close, assert_normal_is_distance_gradient, sample_points};

    #[test]
    fn distance_is_height() {
        assert_close(plane_distance(Vec3::new(3.0, -0.25, 7.0)), (-0.25, Vec3::Y));
    }

    #[test]
    fn normal_is_finite_difference_gradient() {
        assert_normal_is_distance_gradient(sample_points(1.0), plane_distance);
    }
}
