//! Collider shapes as triangle meshes for drawing.

use super::palette::Material;
use crate::scene::DemoShape;
use glam::Vec3;

/// Triangles with per-corner normals (smooth) or repeated face normals (flat), one material each.
#[derive(Clone, Debug, Default)]
pub struct Solid {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub triangles: Vec<[u32; 3]>,
    pub materials: Vec<Material>,
}

/// Around-the-axis segments of round shapes.
const SLICES: usize = 32;
/// Rings per hemisphere of round shapes.
const HALF_STACKS: usize = 8;

impl Solid {
    /// The shape as triangles. A plane becomes a checkerboard square of half-size `plane_extent`
    /// [m] with tiles of `tile` [m], centred below `focus`.
    pub fn of_shape(shape: &DemoShape, focus: Vec3, plane_extent: f32, tile: f32) -> Solid {
        let mut s = Solid::default();
        match *shape {
            DemoShape::Box { center, half_extents } => s.add_box(center, half_extents),
            DemoShape::Sphere { center, radius } => s.add_capsule(center, center, radius),
            DemoShape::Capsule { a, b, radius } => s.add_capsule(a, b, radius),
            DemoShape::Plane { point, normal } => s.add_checkerboard(point, normal, focus, plane_extent, tile),
            DemoShape::Mesh(ref mesh) => s.add_mesh(&mesh.positions, &mesh.triangles),
        }
        s
    }

    fn quad(&mut self, corners: [Vec3; 4], normal: Vec3, material: Material) {
        let base = self.positions.len() as u32;
        self.positions.extend(corners);
        self.normals.extend([normal; 4]);
        self.triangles.extend([[base, base + 1, base + 2], [base, base + 2, base + 3]]);
        self.materials.extend([material; 2]);
    }

    fn add_box(&mut self, center: Vec3, half: Vec3) {
        for axis in 0..3 {
            for sign in [-1.0f32, 1.0] {
                let mut n = Vec3::ZERO;
                n[axis] = sign;
                let (mut u, mut v) = (Vec3::ZERO, Vec3::ZERO);
                u[(axis + 1) % 3] = half[(axis + 1) % 3];
                v[(axis + 2) % 3] = half[(axis + 2) % 3];
                let c = center + n * half[axis];
                self.quad([c - u - v, c + u - v, c + u + v, c - u + v], n, Material::Collider);
            }
        }
    }

    /// All points within `radius` of segment a–b (a sphere when a = b): two hemispheres around a
    /// and b whose equators are joined by a cylinder.
    fn add_capsule(&mut self, a: Vec3, b: Vec3, radius: f32) {
        let axis = (b - a).try_normalize().unwrap_or(Vec3::Y);
        let (t1, t2) = axis.any_orthonormal_pair();
        let base = self.positions.len() as u32;
        let rings = 2 * (HALF_STACKS + 1);
        for ring in 0..rings {
            let (center, k) = if ring <= HALF_STACKS { (a, ring) } else { (b, ring - 1) };
            let latitude = -std::f32::consts::FRAC_PI_2 + k as f32 * std::f32::consts::PI / (2 * HALF_STACKS) as f32;
            for slice in 0..SLICES {
                let phi = slice as f32 * std::f32::consts::TAU / SLICES as f32;
                let n = axis * latitude.sin() + (t1 * phi.cos() + t2 * phi.sin()) * latitude.cos();
                self.positions.push(center + n * radius);
                self.normals.push(n);
            }
        }
        for ring in 0..rings as u32 - 1 {
            for slice in 0..SLICES as u32 {
                let next = (slice + 1) % SLICES as u32;
                let (p, q) = (base + ring * SLICES as u32, base + (ring + 1) * SLICES as u32);
                self.triangles.extend([[p + slice, p + next, q + next], [p + slice, q + next, q + slice]]);
                self.materials.extend([Material::Collider; 2]);
            }
        }
    }

    /// A triangle mesh with flat faces (its normals from counter-clockwise winding).
    fn add_mesh(&mut self, positions: &[[f32; 3]], triangles: &[[u32; 3]]) {
        for t in triangles {
            let [a, b, c] = t.map(|i| Vec3::from_array(positions[i as usize]));
            let Some(n) = (b - a).cross(c - a).try_normalize() else { continue };
            let base = self.positions.len() as u32;
            self.positions.extend([a, b, c]);
            self.normals.extend([n; 3]);
            self.triangles.push([base, base + 1, base + 2]);
            self.materials.push(Material::Collider);
        }
    }

    fn add_checkerboard(&mut self, point: Vec3, normal: Vec3, focus: Vec3, extent: f32, tile: f32) {
        let n = normal.normalize();
        let (u, v) = n.any_orthonormal_pair();
        // Centre below the focus, snapped to the tile grid so tiles do not depend on the focus.
        let below = focus - n * (focus - point).dot(n);
        let snap = |d: f32| (d / tile).round() * tile;
        let origin = point + u * snap((below - point).dot(u)) + v * snap((below - point).dot(v));
        let count = (extent / tile).ceil() as i32;
        for i in -count..count {
            for j in -count..count {
                let c = origin + u * (i as f32 * tile) + v * (j as f32 * tile);
                let material = if (i + j).rem_euclid(2) == 0 { Material::GroundLight } else { Material::GroundDark };
                self.quad([c, c + u * tile, c + (u + v) * tile, c + v * tile], n, material);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_vertex_lies_on_the_shape_surface() {
        let shapes = [
            DemoShape::Box { center: Vec3::new(1.0, 2.0, 3.0), half_extents: Vec3::new(0.5, 0.1, 0.2) },
            DemoShape::Sphere { center: Vec3::ONE, radius: 0.3 },
            DemoShape::Capsule { a: Vec3::ZERO, b: Vec3::new(0.0, 2.0, 1.0), radius: 0.05 },
            DemoShape::Plane { point: Vec3::Y, normal: Vec3::Y },
        ];
        for shape in &shapes {
            let solid = Solid::of_shape(shape, Vec3::ZERO, 2.0, 0.5);
            assert!(!solid.triangles.is_empty());
            for (p, n) in solid.positions.iter().zip(&solid.normals) {
                assert!(shape.signed_distance(*p).abs() < 1e-5, "{shape:?} {p}");
                assert!((n.length() - 1.0).abs() < 1e-5);
            }
        }
    }
}
