//! A grid cloth's constraints built as a cloth builds them, for the constraint layer's tests: the
//! rest positions, the inverse masses of the default material with the anchors at 0, the layout.

use super::layout::{ConstraintLayout, LayoutOptions, RestConstraints};
use crate::material::Material;
use crate::mesh::MeshTopology;
use glam::{Vec3, Vec4};

/// What [`grid`] builds.
pub(crate) struct Grid {
    /// Rest positions \[m\].
    pub x: Vec<Vec3>,
    /// Inverse masses \[1/kg\]: a third of each adjacent triangle's mass at 0.15 kg/m² per corner,
    /// 0 at the anchors.
    pub w: Vec<f32>,
    /// The constraints as the solver sweeps them, with tethers.
    pub layout: ConstraintLayout,
}

/// An `nx × ny` grid in the y = 0 plane, 0.1 m between neighbours, anchored at the particles
/// `anchors`, coloured or not.
pub(crate) fn grid(nx: usize, ny: usize, anchors: &[u32], coloured: bool) -> Grid {
    let x: Vec<Vec3> = (0..nx * ny).map(|k| Vec3::new((k % nx) as f32 * 0.1, 0.0, (k / nx) as f32 * 0.1)).collect();
    let mut triangles = Vec::new();
    for j in 0..ny - 1 {
        for i in 0..nx - 1 {
            let a = (j * nx + i) as u32;
            let (b, c, d) = (a + 1, a + nx as u32, a + nx as u32 + 1);
            triangles.extend_from_slice(&[[a, c, b], [b, c, d]]);
        }
    }
    let topo = MeshTopology::build(&triangles, &[], &x);
    let mut area = vec![0.0f32; x.len()];
    for (t, a) in triangles.iter().zip(&topo.triangle_area) {
        t.iter().for_each(|&p| area[p as usize] += a / 3.0);
    }
    let density = Material::default().areal_density;
    let mut w: Vec<f32> = area.iter().map(|a| 1.0 / (density * a)).collect();
    anchors.iter().for_each(|&p| w[p as usize] = 0.0);
    let rest_length: Vec<f32> = topo.edges.iter().map(|&[i, j]| x[i as usize].distance(x[j as usize])).collect();
    let rest_angle = topo.hinges.iter().map(|h| super::dihedral_angle(h.map(|i| x[i as usize])).unwrap_or(0.0)).collect();
    let (mut distance_links, mut distance_length) = (topo.edges.clone(), rest_length.clone());
    for h in &topo.hinges {
        distance_links.push([h[0], h[1]]);
        distance_length.push(x[h[0] as usize].distance(x[h[1] as usize]));
    }
    // Tethers on the links' path lengths, as on a curved mesh (the kernels' tests want tethers of
    // which some are straight and some are not).
    let positions = x.clone();
    let rest = RestConstraints { particle_count: x.len(), edges: topo.edges, rest_length, hinges: topo.hinges, rest_angle, distance_links, distance_length, positions, planar: false };
    let layout = ConstraintLayout::build(&rest, &w, &x, LayoutOptions { coloured, tethers: true });
    Grid { x, w, layout }
}

/// Pseudo-random numbers in [−0.5, 0.5) (a fixed linear congruential sequence).
pub(crate) fn noise() -> impl FnMut() -> f32 {
    // Half of [−1, 1): exact, so the same values as before the generator was shared.
    let mut uniform = crate::test_util::uniform(12345);
    move || uniform() * 0.5
}

/// The position bits of sweep rows.
pub(crate) fn bits(v: &[Vec4]) -> Vec<[u32; 3]> {
    v.iter().map(|p| p.truncate().to_array().map(f32::to_bits)).collect()
}
