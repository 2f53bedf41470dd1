//! Welding render vertices into simulation particles.
//!
//! Game engines split vertices wherever UVs or normals are discontinuous. Simulating the split copies
//! as separate particles would tear the cloth along every seam, so vertices closer than the weld
//! tolerance become one particle. The render → particle map keeps every output in render order.

use glam::Vec3;
use std::collections::HashMap;

/// Result of [`weld_by_position`].
#[derive(Clone, Debug)]
pub struct WeldResult {
    /// `particle_of_vertex[v]` is the particle that render vertex `v` belongs to. Length = vertex count.
    pub particle_of_vertex: Vec<u32>,
    /// Rest position of each particle \[m\]: the position of its first render vertex.
    pub particle_positions: Vec<Vec3>,
    /// The first render vertex of each particle (its representative).
    pub first_vertex: Vec<u32>,
}

/// Weld vertices whose distance is at most `tolerance` \[m\]. Particles are numbered in order of their
/// first render vertex, so a mesh without duplicates keeps its vertex order exactly, and a mesh whose
/// duplicates come after their originals simulates exactly like the unsplit mesh.
///
/// `tolerance == 0` disables welding (every vertex is its own particle). Positions must already be
/// finite (see [`super::validate_positions`]). Runs in O(n) expected time with a spatial hash whose
/// cells are `tolerance` wide; a vertex joins the first earlier particle within tolerance (greedy, so
/// chains of near points do not merge transitively).
pub fn weld_by_position(positions: &[[f32; 3]], tolerance: f32) -> WeldResult {
    let n = positions.len();
    let mut particle_of_vertex = Vec::with_capacity(n);
    let mut particle_positions = Vec::with_capacity(n);
    let mut first_vertex = Vec::with_capacity(n);
    if !(tolerance > 0.0) {
        for (v, p) in positions.iter().enumerate() {
            particle_of_vertex.push(v as u32);
            particle_positions.push(Vec3::from_array(*p));
            first_vertex.push(v as u32);
        }
        return WeldResult { particle_of_vertex, particle_positions, first_vertex };
    }

    let inv_cell = 1.0 / tolerance as f64;
    // `as i64` saturates, so even absurd coordinates hash to some cell without overflow.
    let cell_of = |p: Vec3| -> [i64; 3] {
        [
            (p.x as f64 * inv_cell).floor() as i64,
            (p.y as f64 * inv_cell).floor() as i64,
            (p.z as f64 * inv_cell).floor() as i64,
        ]
    };
    // Particles per cell as an intrusive linked list: head per cell, `next` per particle.
    let mut head: HashMap<[i64; 3], u32> = HashMap::with_capacity(n);
    let mut next: Vec<u32> = Vec::with_capacity(n);
    let tol2 = tolerance * tolerance;

    for (v, p) in positions.iter().enumerate() {
        let p = Vec3::from_array(*p);
        let c = cell_of(p);
        let mut found = None;
        for dx in -1i64..=1 {
            for dy in -1i64..=1 {
                for dz in -1i64..=1 {
                    let key = [c[0].saturating_add(dx), c[1].saturating_add(dy), c[2].saturating_add(dz)];
                    let mut it = head.get(&key).copied().unwrap_or(u32::MAX);
                    while it != u32::MAX {
                        if particle_positions[it as usize].distance_squared(p) <= tol2 {
                            // Lowest particle index wins so the result does not depend on list order.
                            found = Some(found.map_or(it, |f: u32| f.min(it)));
                        }
                        it = next[it as usize];
                    }
                }
            }
        }
        match found {
            Some(particle) => particle_of_vertex.push(particle),
            None => {
                let particle = particle_positions.len() as u32;
                particle_positions.push(p);
                first_vertex.push(v as u32);
                next.push(head.get(&c).copied().unwrap_or(u32::MAX));
                head.insert(c, particle);
                particle_of_vertex.push(particle);
            }
        }
    }
    WeldResult { particle_of_vertex, particle_positions, first_vertex }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_within_tolerance_become_one_particle() {
        let p = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0 + 1e-7, 0.0, 0.0], [0.0, 0.0, 5e-7]];
        let w = weld_by_position(&p, 1e-6);
        assert_eq!(w.particle_of_vertex, vec![0, 1, 1, 0]);
        assert_eq!(w.particle_positions.len(), 2);
        assert_eq!(w.first_vertex, vec![0, 1]);
    }

    #[test]
    fn points_across_a_cell_boundary_weld() {
        // 0.0999999 and 0.1000001 sit in different cells of width 1e-3 only if the boundary is
        // between them; the 27-cell search must still find the pair.
        let p = [[0.0999999, 0.0, 0.0], [0.1000001, 0.0, 0.0], [0.2, 0.0, 0.0]];
        let w = weld_by_position(&p, 1e-3);
        assert_eq!(w.particle_of_vertex, vec![0, 0, 1]);
    }

    #[test]
    fn zero_tolerance_keeps_every_vertex() {
        let p = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]];
        let w = weld_by_position(&p, 0.0);
        assert_eq!(w.particle_of_vertex, vec![0, 1]);
    }
}
