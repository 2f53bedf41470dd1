//! Oriented box with optionally rounded edges, centred at the collider's origin, axes along the
//! local X, Y, Z axes.
//!
//! Half extents b (outer size, rounding included) and rounding radius r ≤ min(b): the box is the
//! set of points within r of the inner box with half extents b − r. With q = |p| − (b − r)
//! (component-wise, |p| mirrored into the positive octant):
//!
//! d(p) = ‖max(q, 0)‖ + min(max(q_x, q_y, q_z), 0) − r
//!
//! (the exact Euclidean signed distance of a (rounded) box; Quílez, "distance functions", box and
//! rounded box). Gradient: outside the inner box, sign(p) ⊙ max(q, 0)/‖max(q, 0)‖; inside it, the
//! sign(p)-directed axis of the largest q_k, i.e. towards the nearest face. Inside, the gradient
//! has kinks where two faces are equally near; the first such axis (X, then Y, then Z) is taken.

use glam::Vec3;

/// Signed distance \[m\] from local point `p` to a box of `half_extents` \[m\] whose edges are rounded
/// with `rounding` \[m\] (0 = sharp), and the unit outward normal.
#[inline]
pub(crate) fn box_distance(p: Vec3, half_extents: Vec3, rounding: f32) -> (f32, Vec3) {
    let sign = p.signum();
    let q = p.abs() - (half_extents - Vec3::splat(rounding));
    let outside = q.max(Vec3::ZERO);
    let outside_len = outside.length();
    if outside_len > 0.0 {
        return (outside_len - rounding, sign * outside / outside_len);
    }
    let (inside, axis) = if q.x >= q.y && q.x >= q.z {
        (q.x, Vec3::X)
    } else if q.y >= q.z {
        (q.y, Vec3::Y)
    } else {
        (q.z, Vec3::Z)
    };
    (inside - rounding, sign * axis)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::shape::tests::{assert_close, assert_normal_is_distance_gradient, sample_points};

    const HALF: Vec3 = Vec3::new(0.4, 0.05, 0.25);

    #[test]
    fn distance_to_faces_edges_and_inside() {
        assert_close(box_distance(Vec3::new(0.0, 0.3, 0.0), HALF, 0.0), (0.25, Vec3::Y));
        assert_close(box_distance(Vec3::new(0.1, -0.02, 0.0), HALF, 0.0), (-0.03, -Vec3::Y));
        // Beyond an edge: distance to the edge line, normal away from it.
        assert_close(box_distance(Vec3::new(0.7, 0.45, 0.0), HALF, 0.0), (0.5, Vec3::new(0.6, 0.8, 0.0)));
        // Rounded: the corner region is a sphere of radius r around the inner box's corner.
        let r = 0.04;
        let corner = HALF - Vec3::splat(r);
        let diagonal = Vec3::ONE.normalize();
        assert_close(box_distance(corner + diagonal * 0.1, HALF, r), (0.06, diagonal));
        // Faces stay where the half extents say.
        assert_close(box_distance(Vec3::new(0.0, 0.05, 0.0), HALF, r), (0.0, Vec3::Y));
    }

    #[test]
    fn normal_is_finite_difference_gradient() {
        for rounding in [0.0, 0.03] {
            // Skip interior points where two faces are (nearly) equally close (the distance has a
            // kink there) and points close to the inner box's edges and corners, where the
            // distance curves sharply and the stencil may straddle face and edge regions.
            let points = sample_points(1.0).filter(|&p| {
                let q = p.abs() - (HALF - Vec3::splat(rounding));
                let mut k = q.to_array();
                k.sort_by(f32::total_cmp);
                if q.max_element() > 0.0 {
                    q.max(Vec3::ZERO).length() > 0.05
                } else {
                    k[2] - k[1] > 0.02
                }
            });
            assert_normal_is_distance_gradient(points, |p| box_distance(p, HALF, rounding));
        }
    }
}
