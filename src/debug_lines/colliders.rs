//! Colliders as wire shapes at their current pose.

use super::{COLLIDER_COLOUR, Sink};
use crate::collision::{Collider, Shape};
use glam::{Quat, Vec3};

/// Segments of a full circle.
const SEGMENTS: u32 = 16;

/// Half the side of the square a plane is drawn as \[m\].
const PLANE_HALF_SIDE: f32 = 1.0;

/// Give `sink` the wire shape of `collider`.
pub(crate) fn collider_lines(collider: &Collider, sink: &mut Sink) {
    let pose = collider.pose();
    let (centre, q) = (Vec3::from_array(pose.position), Quat::from_array(pose.rotation));
    let at = |p: Vec3| centre + q * p;
    let [ex, ey, ez] = [q * Vec3::X, q * Vec3::Y, q * Vec3::Z];
    let c = COLLIDER_COLOUR;
    match collider.shape {
        Shape::Sphere { radius } => {
            sink.circle(centre, ex, ey, radius, SEGMENTS, c);
            sink.circle(centre, ey, ez, radius, SEGMENTS, c);
            sink.circle(centre, ez, ex, radius, SEGMENTS, c);
        }
        Shape::Capsule { radius, half_height } => {
            // Its two end circles, four lines along its sides, and the half circles of its caps.
            for end in [-1.0f32, 1.0] {
                let o = at(Vec3::Y * end * half_height);
                sink.circle(o, ez, ex, radius, SEGMENTS, c);
                for side in [ex, ez] {
                    let arc = |k: u32| {
                        let a = std::f32::consts::PI * k as f32 / (SEGMENTS / 2) as f32;
                        o + (side * a.cos() + ey * end * a.sin()) * radius
                    };
                    for k in 0..SEGMENTS / 2 {
                        sink.line(arc(k), arc(k + 1), c);
                    }
                }
            }
            for side in [ex, -ex, ez, -ez] {
                sink.line(at(-Vec3::Y * half_height) + side * radius, at(Vec3::Y * half_height) + side * radius, c);
            }
        }
        Shape::Box { half_extents, .. } => box_edges(sink, at, -half_extents, half_extents),
        Shape::Mesh(ref mesh) => {
            let (lo, hi) = mesh.bounds();
            box_edges(sink, at, Vec3::from_array(lo), Vec3::from_array(hi));
        }
        Shape::Plane => {
            // The half-space local y ≤ 0: a square in its surface, its diagonals, and its normal.
            let s = PLANE_HALF_SIDE;
            let corners = [at(Vec3::new(-s, 0.0, -s)), at(Vec3::new(s, 0.0, -s)), at(Vec3::new(s, 0.0, s)), at(Vec3::new(-s, 0.0, s))];
            for k in 0..4 {
                sink.line(corners[k], corners[(k + 1) % 4], c);
            }
            sink.line(corners[0], corners[2], c);
            sink.line(corners[1], corners[3], c);
            sink.line(centre, centre + ey * 0.5 * s, c);
        }
        Shape::PendingMesh => {}
    }
}

/// The 12 edges of the local box `lo`..`hi` placed by `at`.
fn box_edges(sink: &mut Sink, at: impl Fn(Vec3) -> Vec3, lo: Vec3, hi: Vec3) {
    let corner = |k: usize| at(Vec3::new(if k & 1 == 0 { lo.x } else { hi.x }, if k & 2 == 0 { lo.y } else { hi.y }, if k & 4 == 0 { lo.z } else { hi.z }));
    for k in 0..8 {
        for bit in [1, 2, 4] {
            if k & bit == 0 {
                sink.line(corner(k), corner(k | bit), COLLIDER_COLOUR);
            }
        }
    }
}
