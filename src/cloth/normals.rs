//! Area-weighted particle normals, computed so that they can be split over threads without
//! changing a bit: each triangle's normal is computed once into a buffer, then each particle sums
//! the normals of its incident triangles in triangle order. That is the order (and so the rounding)
//! of the scatter-add `normal[i] += n_t` over triangles in storage order, but every particle is
//! written by exactly one task.

use super::Cloth;
pub(crate) use crate::mesh::ParticleTriangles;
use crate::parallel::chunks_mut_in_parallel;
use glam::{Vec3, Vec3A};

impl Cloth {
    /// Recompute the area-weighted particle normals from the current positions; with `parallel`,
    /// in chunks on the current rayon pool (the same bits: see the module comment).
    pub(crate) fn update_normals(&mut self, parallel: bool) {
        let x = &self.state.x;
        let triangles = &self.model.triangles;
        // |(b − a) × (c − a)| = 2·area: summing unnormalised cross products weights by area.
        let triangle_normals = |first: usize, out: &mut [Vec3A]| {
            for (n, t) in out.iter_mut().zip(&triangles[first..]) {
                let [a, b, c] = t.map(|i| Vec3A::from(x[i as usize]));
                *n = (b - a).cross(c - a);
            }
        };
        chunks_mut_in_parallel(&mut self.scratch.per_triangle, parallel, triangle_normals);
        let (incident, by_triangle) = (&self.model.particle_triangles, &self.scratch.per_triangle);
        let particle_normals = |first: usize, out: &mut [Vec3]| {
            for (k, n) in out.iter_mut().enumerate() {
                *n = incident.sum(first + k, by_triangle).normalize_or_zero().into();
            }
        };
        chunks_mut_in_parallel(&mut self.output.normals, parallel, particle_normals);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parallel::PARTICLE_CHUNK;

    /// The scatter-add the gather replaces, as the reference for the bits.
    fn scatter_normals(x: &[Vec3], triangles: &[[u32; 3]]) -> Vec<Vec3> {
        let mut normals = vec![Vec3::ZERO; x.len()];
        for t in triangles {
            let [a, b, c] = t.map(|i| x[i as usize]);
            let n = (b - a).cross(c - a);
            for &i in t {
                normals[i as usize] += n;
            }
        }
        normals.iter().map(|n| n.normalize_or_zero()).collect()
    }

    #[test]
    fn incidence_lists_each_particles_triangles_in_increasing_order() {
        // Particle 4 is in no triangle; triangle 2 names particle 3 twice.
        let triangles = [[0, 1, 2], [2, 1, 3], [3, 0, 3]];
        let inc = ParticleTriangles::build(&triangles, 5);
        assert_eq!(inc.of(0), [0, 2]);
        assert_eq!(inc.of(1), [0, 1]);
        assert_eq!(inc.of(2), [0, 1]);
        assert_eq!(inc.of(3), [1, 2, 2]);
        assert!(inc.of(4).is_empty());
    }

    /// A 70 × 70 crumpled grid cloth (more than one chunk of particles and of triangles), with
    /// pseudo-random heights so that the sums round differently in another order.
    fn crumpled_cloth() -> Cloth {
        let n = 70usize;
        let mut seed = 0x2545_f491u32;
        let mut random = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed as f32 / u32::MAX as f32
        };
        let positions: Vec<[f32; 3]> =
            (0..n * n).map(|k| [(k % n) as f32 * 0.01, random() * 0.004, (k / n) as f32 * 0.011]).collect();
        let mut indices = Vec::new();
        for r in 0..n - 1 {
            for c in 0..n - 1 {
                let i = (r * n + c) as u32;
                let n = n as u32;
                indices.extend([i, i + n, i + 1, i + 1, i + n, i + n + 1]);
            }
        }
        Cloth::new(&crate::ClothDesc::new(&positions, &indices)).unwrap()
    }

    fn bits(v: &[Vec3]) -> Vec<u32> {
        v.iter().flat_map(|n| n.to_array().map(f32::to_bits)).collect()
    }

    #[test]
    fn gathered_normals_equal_the_triangle_order_scatter_bit_for_bit_in_one_piece_and_in_parallel() {
        let mut cloth = crumpled_cloth();
        assert!(cloth.state.x.len() > 2 * PARTICLE_CHUNK, "several particle chunks");
        let expected = scatter_normals(&cloth.state.x, &cloth.model.triangles);
        assert!(expected.iter().all(|n| (n.length() - 1.0).abs() < 1e-5 && n.y.abs() > 0.5), "unit, mostly up");
        cloth.update_normals(false);
        assert_eq!(bits(&cloth.output.normals), bits(&expected), "one piece");
        cloth.output.normals.fill(Vec3::ZERO);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        pool.install(|| cloth.update_normals(true));
        assert_eq!(bits(&cloth.output.normals), bits(&expected), "in parallel");
    }
}
