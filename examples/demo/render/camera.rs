//! A pinhole camera: world point → pixel position and inverse depth.

use crate::scene::CameraSpec;
use glam::{Mat4, Vec3};

/// Points closer than this to the eye [m] are not drawn (their triangles are dropped, not clipped:
/// the scenes keep the camera well away from the cloth).
const NEAR: f32 = 0.05;

/// A projected point: pixel coordinates (x right, y down) and 1/depth [1/m], which is affine in
/// screen space and therefore interpolates exactly for the z-buffer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScreenPoint {
    pub x: f32,
    pub y: f32,
    pub inv_depth: f32,
}

#[derive(Clone, Copy, Debug)]
pub struct Camera {
    pub eye: Vec3,
    world_to_view: Mat4,
    /// Focal length [pixels].
    focal: f32,
    cx: f32,
    cy: f32,
}

impl Camera {
    pub fn new(spec: &CameraSpec, width: usize, height: usize) -> Camera {
        let eye = spec.target + spec.direction.normalize() * spec.distance;
        Camera {
            eye,
            world_to_view: Mat4::look_at_rh(eye, spec.target, Vec3::Y),
            focal: 0.5 * height as f32 / (0.5 * spec.fov_y).tan(),
            cx: 0.5 * width as f32,
            cy: 0.5 * height as f32,
        }
    }

    /// `None` for points behind the near plane.
    #[inline]
    pub fn project(&self, p: Vec3) -> Option<ScreenPoint> {
        let v = self.world_to_view.transform_point3(p);
        let depth = -v.z; // right-handed view space looks down −z
        if depth < NEAR {
            return None;
        }
        let inv_depth = 1.0 / depth;
        Some(ScreenPoint { x: self.cx + self.focal * v.x * inv_depth, y: self.cy - self.focal * v.y * inv_depth, inv_depth })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_projects_to_the_centre_and_up_is_up() {
        let spec = CameraSpec { target: Vec3::new(1.0, 2.0, 3.0), direction: Vec3::Z, distance: 4.0, fov_y: 1.0 };
        let cam = Camera::new(&spec, 200, 100);
        let c = cam.project(spec.target).unwrap();
        assert!((c.x - 100.0).abs() < 1e-4 && (c.y - 50.0).abs() < 1e-4);
        assert!((c.inv_depth - 0.25).abs() < 1e-6);
        // Half the vertical field of view above the target reaches the top edge.
        let top = cam.project(spec.target + Vec3::Y * 4.0 * 0.5f32.tan()).unwrap();
        assert!(top.y.abs() < 1e-3, "{top:?}");
        assert!(cam.project(cam.eye + Vec3::Z).is_none()); // behind the eye
    }
}
