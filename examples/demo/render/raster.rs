//! A z-buffered triangle rasteriser into palette indices, with Gouraud-interpolated shade.

use super::camera::ScreenPoint;
use super::palette::{self, Material};

/// A picture in palette indices plus its depth buffer (1/depth, 0 = nothing drawn yet).
#[derive(Clone, Debug)]
pub struct Canvas {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<u8>,
    inv_depth: Vec<f32>,
}

impl Canvas {
    /// An empty sky, lighter towards the bottom.
    pub fn new(width: usize, height: usize) -> Canvas {
        let mut pixels = vec![0u8; width * height];
        for (y, row) in pixels.chunks_exact_mut(width).enumerate() {
            row.fill(palette::index(Material::Sky, y as f32 / height as f32));
        }
        Canvas { width, height, pixels, inv_depth: vec![0.0; width * height] }
    }

    /// Fill the triangle `p` with `material`, shade interpolated from the corner shades `s` (each in
    /// [0, 1]). Either winding; pixels are covered when their centre is inside and nearer than what
    /// is already there.
    pub fn fill_triangle(&mut self, p: [ScreenPoint; 3], s: [f32; 3], material: Material) {
        for_each_covered(p, self.width, self.height, |i, b| {
            let inv_depth = b[0] * p[0].inv_depth + b[1] * p[1].inv_depth + b[2] * p[2].inv_depth;
            if inv_depth > self.inv_depth[i] {
                self.inv_depth[i] = inv_depth;
                self.pixels[i] = palette::index(material, b[0] * s[0] + b[1] * s[1] + b[2] * s[2]);
            }
        });
    }

    /// 1/depth of what is drawn at pixel `i` (0: nothing).
    pub fn inv_depth_at(&self, i: usize) -> f32 {
        self.inv_depth[i]
    }

    /// Darken the ground under the triangle `p` (a shadow already projected onto a ground plane) to
    /// shade `s`. Only ground pixels change, and to a fixed shade, so overlapping shadow triangles
    /// do not darken twice.
    pub fn shadow_triangle(&mut self, p: [ScreenPoint; 3], s: f32) {
        let ground = [Material::GroundLight, Material::GroundDark];
        for_each_covered(p, self.width, self.height, |i, _| {
            let pixel = self.pixels[i];
            if let Some(&m) = ground.iter().find(|&&m| pixel / palette::LEVELS == m as u8) {
                self.pixels[i] = palette::index(m, s);
            }
        });
    }
}

/// Call `f(pixel index, barycentric weights)` for every pixel whose centre is inside `p`.
#[inline]
fn for_each_covered(p: [ScreenPoint; 3], width: usize, height: usize, mut f: impl FnMut(usize, [f32; 3])) {
    let area = edge(p[0], p[1], p[2].x, p[2].y);
    if area.abs() < 1e-8 || !area.is_finite() {
        return;
    }
    let inv_area = 1.0 / area;
    let min_x = p.iter().map(|q| q.x).fold(f32::INFINITY, f32::min).floor().max(0.0) as usize;
    let min_y = p.iter().map(|q| q.y).fold(f32::INFINITY, f32::min).floor().max(0.0) as usize;
    let max_x = p.iter().map(|q| q.x).fold(f32::NEG_INFINITY, f32::max).ceil().min(width as f32) as usize;
    let max_y = p.iter().map(|q| q.y).fold(f32::NEG_INFINITY, f32::max).ceil().min(height as f32) as usize;
    for y in min_y..max_y {
        let py = y as f32 + 0.5;
        for x in min_x..max_x {
            let px = x as f32 + 0.5;
            // Barycentric weights; all ≥ 0 inside for either winding after dividing by the area.
            let b0 = edge(p[1], p[2], px, py) * inv_area;
            let b1 = edge(p[2], p[0], px, py) * inv_area;
            let b2 = 1.0 - b0 - b1;
            if b0 >= 0.0 && b1 >= 0.0 && b2 >= 0.0 {
                f(y * width + x, [b0, b1, b2]);
            }
        }
    }
}

/// Twice the signed area of (a, b, (x, y)).
#[inline]
fn edge(a: ScreenPoint, b: ScreenPoint, x: f32, y: f32) -> f32 {
    (b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(x: f32, y: f32, inv_depth: f32) -> ScreenPoint {
        ScreenPoint { x, y, inv_depth }
    }

    #[test]
    fn a_triangle_covers_the_pixel_centres_inside_it() {
        let mut c = Canvas::new(40, 40);
        // Legs of 40.2 px: no pixel centre lies exactly on the hypotenuse.
        c.fill_triangle([pt(0.0, 0.0, 1.0), pt(40.2, 0.0, 1.0), pt(0.0, 40.2, 1.0)], [1.0; 3], Material::Collider);
        let lit = palette::index(Material::Collider, 1.0);
        let covered = c.pixels.iter().filter(|&&p| p == lit).count();
        // Centres (x + ½, y + ½) with x + y + 1 < 40.2, i.e. x + y ≤ 39: 40 + 39 + … + 1 = 820.
        assert_eq!(covered, 820);
        assert_eq!(c.pixels[39 * 40], lit);
        assert_ne!(c.pixels[39 * 40 + 39], lit);
    }

    #[test]
    fn the_nearer_triangle_wins_in_either_drawing_order() {
        let square = |c: &mut Canvas, inv_depth: f32, m: Material| {
            c.fill_triangle([pt(0.0, 0.0, inv_depth), pt(8.0, 0.0, inv_depth), pt(0.0, 8.0, inv_depth)], [0.5; 3], m);
        };
        for near_first in [true, false] {
            let mut c = Canvas::new(8, 8);
            if near_first {
                square(&mut c, 0.5, Material::ClothFront);
                square(&mut c, 0.25, Material::Collider);
            } else {
                square(&mut c, 0.25, Material::Collider);
                square(&mut c, 0.5, Material::ClothFront);
            }
            assert_eq!(c.pixels[0], palette::index(Material::ClothFront, 0.5));
        }
    }
}
