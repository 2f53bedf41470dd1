//! Capsule: the points within radius r of the segment from (0, −H, 0) to (0, H, 0) in the
//! collider's local frame (H = half height; H = 0 is a sphere).
//!
//! With s(p) = (0, clamp(p_y, −H, H), 0), the closest point of the segment:
//! d(p) = ‖p − s(p)‖ − r,  ∇d(p) = (p − s(p))/‖p − s(p)‖ (exact signed distance; the clamp keeps
//! the gradient continuous where the cylinder meets the caps). On the axis itself the gradient is
//! undefined; +X (local) is returned, a fixed, documented escape direction.

use glam::Vec3;

/// Signed distance \[m\] from local point `p` to a capsule of `radius` \[m\] around the local Y
/// segment of half length `half_height` \[m\], and the unit outward normal.
#[inline]
pub(crate) fn capsule_distance(p: Vec3, radius: f32, half_height: f32) -> (f32, Vec3) {
    let on_axis = Vec3::new(0.0, p.y.clamp(-half_height, half_height), 0.0);
    let d = p - on_axis;
    let len = d.length();
    let normal = if len > 0.0 { d / len } else { Vec3::X };
    (len - radius, normal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::shape::tests::{assert_close, assert_normal_is_distance_gradient, sample_points};

    #[test]
    fn distance_to_side_and_caps() {
        // Beside the cylinder part: radial gap. Above the top cap: gap to the cap's sphere.
        assert_close(capsule_distance(Vec3::new(0.5, 0.2, 0.0), 0.1, 0.4), (0.4, Vec3::X));
        assert_close(capsule_distance(Vec3::new(0.0, 1.0, 0.0), 0.1, 0.4), (0.5, Vec3::Y));
        // Below the bottom cap: ‖(0.3, −0.4)‖ − 0.1 from the segment's end (0, −0.4, 0).
        assert_close(capsule_distance(Vec3::new(0.3, -0.8, 0.0), 0.1, 0.4), (0.4, Vec3::new(0.6, -0.8, 0.0)));
        assert_close(capsule_distance(Vec3::new(0.0, 0.3, 0.0), 0.1, 0.4), (-0.1, Vec3::X));
    }

    #[test]
    fn normal_is_finite_difference_gradient() {
        // Skip the axis segment, where the distance has a kink.
        let points = sample_points(1.0).filter(|p| Vec3::new(p.x, 0.0, p.z).length() > 0.05);
        assert_normal_is_distance_gradient(points, |p| capsule_distance(p, 0.2, 0.35));
    }
}
