//! A small software renderer for the demo's pictures: pinhole camera, z-buffer, Lambert shading
//! (Gouraud on the cloth, two-sided with a darker back face), colliders drawn as solids, a
//! checkerboard for ground planes, and shadows of everything above a ground plane.
//!
//! Written here because no lean, maintained crate rasterises triangles into an image without a
//! GPU or a large dependency tree; it is ~400 lines and only serves the pictures.

pub mod camera;
pub mod font;
pub mod palette;
mod raster;
mod shapes;

pub use raster::Canvas;

use crate::scene::{CameraSpec, DemoCollider, DemoShape, Scene};
use camera::{Camera, ScreenPoint};
use glam::Vec3;
use palette::Material;
use shapes::Solid;

/// Shade of ground in shadow [0, 1] (palette: 0 = ambient only).
const SHADOW_SHADE: f32 = 0.1;

/// Draws one scene at one resolution. The colliders and their shadows are drawn once into
/// `background` (a scene whose colliders move makes a renderer per picture); each frame copies it
/// and adds the cloth.
pub struct Renderer {
    camera: Camera,
    /// Unit vector towards the light.
    light: Vec3,
    /// Ground planes (point, unit normal) that receive shadows.
    planes: Vec<(Vec3, Vec3)>,
    background: Canvas,
}

impl Renderer {
    pub fn new(scene: &Scene, width: usize, height: usize) -> Renderer {
        Renderer::for_view(&scene.camera, &scene.colliders, width, height)
    }

    /// A renderer of `colliders` seen from `view`: for scenes whose camera or colliders move, one
    /// per picture.
    pub fn for_view(view: &CameraSpec, colliders: &[DemoCollider], width: usize, height: usize) -> Renderer {
        let camera = Camera::new(view, width, height);
        let towards_eye = view.direction.normalize();
        let right = Vec3::Y.cross(towards_eye).normalize_or_zero();
        // Key light from above, a little to the right of and in front of the cloth.
        let light = (towards_eye + Vec3::Y * 1.5 + right * 0.5).normalize();
        let planes = colliders
            .iter()
            .filter_map(|c| match c.shape {
                DemoShape::Plane { point, normal } => Some((point, normal.normalize())),
                _ => None,
            })
            .collect();
        let mut renderer = Renderer { camera, light, planes, background: Canvas::new(width, height) };

        // Checkerboard tiles of a round size near a tenth of the viewing distance.
        let distance = view.distance;
        let tile = 10f32.powf(distance.log10().floor()) / 4.0;
        let solids: Vec<(bool, Solid)> = colliders
            .iter()
            .map(|c| {
                let is_plane = matches!(c.shape, DemoShape::Plane { .. });
                (is_plane, Solid::of_shape(&c.shape, view.target, 2.0 * distance, tile))
            })
            .collect();
        let mut background = renderer.background.clone();
        for (_, solid) in &solids {
            renderer.draw_solid(&mut background, solid);
        }
        for (_, solid) in solids.iter().filter(|(is_plane, _)| !is_plane) {
            for t in &solid.triangles {
                renderer.draw_shadow(&mut background, t.map(|i| solid.positions[i as usize]));
            }
        }
        renderer.background = background;
        renderer
    }

    /// The scene with the cloth at `positions` [m] (render order), unit `normals`, triangles
    /// `indices` (`3·t` render vertex indices).
    pub fn draw(&self, positions: &[[f32; 3]], normals: &[[f32; 3]], indices: &[u32]) -> Canvas {
        self.draw_onto(self.background.clone(), positions, normals, indices)
    }

    /// The background alone (colliders and ground).
    pub fn background(&self) -> Canvas {
        self.background.clone()
    }

    /// Where `p` [m] lands in the picture, if in front of the camera.
    pub fn project_point(&self, p: Vec3) -> Option<camera::ScreenPoint> {
        self.camera.project(p)
    }

    /// `canvas` with one more cloth drawn into it (as [`Renderer::draw`]).
    pub fn draw_onto(&self, mut canvas: Canvas, positions: &[[f32; 3]], normals: &[[f32; 3]], indices: &[u32]) -> Canvas {
        let corner = |i: u32| Vec3::from_array(positions[i as usize]);
        for t in indices.chunks_exact(3) {
            self.draw_shadow(&mut canvas, [corner(t[0]), corner(t[1]), corner(t[2])]);
        }
        for t in indices.chunks_exact(3) {
            let p = [corner(t[0]), corner(t[1]), corner(t[2])];
            let Some(screen) = self.project(p) else { continue };
            // Which side the camera sees decides the colour and which way the normals point.
            let front = (p[1] - p[0]).cross(p[2] - p[0]).dot(self.camera.eye - p[0]) >= 0.0;
            let (material, sign) = if front { (Material::ClothFront, 1.0) } else { (Material::ClothBack, -1.0) };
            let shade = [0, 1, 2].map(|k| self.lambert(Vec3::from_array(normals[t[k] as usize]) * sign));
            canvas.fill_triangle(screen, shade, material);
        }
        canvas
    }

    fn draw_solid(&self, canvas: &mut Canvas, solid: &Solid) {
        for (t, &material) in solid.triangles.iter().zip(&solid.materials) {
            let p = t.map(|i| solid.positions[i as usize]);
            if let Some(screen) = self.project(p) {
                canvas.fill_triangle(screen, t.map(|i| self.lambert(solid.normals[i as usize])), material);
            }
        }
    }

    /// Darken every ground plane where the triangle `p` [m] blocks the light: project the triangle
    /// along the light onto the plane and darken what it covers there.
    fn draw_shadow(&self, canvas: &mut Canvas, p: [Vec3; 3]) {
        for &(point, normal) in &self.planes {
            let n_dot_l = normal.dot(self.light);
            let heights = p.map(|q| (q - point).dot(normal));
            if n_dot_l < 0.05 || heights.iter().any(|&h| h < 0.0) {
                continue;
            }
            let on_plane = [0, 1, 2].map(|k| p[k] - self.light * (heights[k] / n_dot_l));
            if let Some(screen) = self.project(on_plane) {
                canvas.shadow_triangle(screen, SHADOW_SHADE);
            }
        }
    }

    fn project(&self, p: [Vec3; 3]) -> Option<[ScreenPoint; 3]> {
        Some([self.camera.project(p[0])?, self.camera.project(p[1])?, self.camera.project(p[2])?])
    }

    /// Diffuse factor max(0, n·l) of a unit normal.
    fn lambert(&self, n: Vec3) -> f32 {
        n.dot(self.light).max(0.0)
    }
}
