//! The character's clothes as generated meshes in the bind pose, with what an engine would author
//! for them: skin weights (4 joints per vertex), max distances (0 where the garment is sewn to the
//! body, growing towards the hem), the cape's backstop and the skirt's anim drive.

use super::figure::{Figure, Joint};
use glam::Vec3;

/// A garment: its mesh in the bind pose [m], skin binding and per-vertex limits (render order).
#[derive(Clone, Debug)]
pub struct Garment {
    pub name: &'static str,
    pub positions: Vec<[f32; 3]>,
    /// `3·t` vertex indices, counter-clockwise seen from outside the body.
    pub indices: Vec<u32>,
    pub joints: Vec<[u32; 4]>,
    pub weights: Vec<[f32; 4]>,
    /// Max distance d [m] per vertex.
    pub max_distances: Vec<f32>,
    /// Backstop distance b and radius r [m] per vertex, if any.
    pub backstops: Option<(Vec<f32>, Vec<f32>)>,
    /// Anim drive compliance α [m/N] per vertex, if any.
    pub anim_drive: Option<Vec<f32>>,
}

/// Areal density of both garments [kg/m²] (the library's default material).
pub const AREAL_DENSITY: f32 = 0.15;

/// Skirt: rings from the waistband (just above the hips capsule) to the hem above the knees.
const SKIRT_COLUMNS: usize = 48;
const SKIRT_ROWS: usize = 14;
const WAIST_HEIGHT: f32 = 1.04;
const HEM_HEIGHT: f32 = 0.6;
/// Half-axes (x, z) of the waistband and of the hem [m].
const WAIST: (f32, f32) = (0.23, 0.18);
const HEM: (f32, f32) = (0.38, 0.35);
/// The hem may leave its skinned place by this much [m]; the waistband is sewn on (0).
const SKIRT_HEM_MAX_DISTANCE: f32 = 0.2;
/// Share of the legs in the hem's skin weights (the rest is the pelvis).
const SKIRT_LEG_WEIGHT: f32 = 0.7;
/// The anim drive lets a vertex hang this far below its skinned place under gravity [m]:
/// α = sag / (m·g) with m the vertex's lumped mass.
const SKIRT_DRIVE_SAG: f32 = 0.03;

/// Cape: a trapezoid from the shoulder line down to the back of the knees, behind the torso.
const CAPE_COLUMNS: usize = 17;
const CAPE_ROWS: usize = 30;
const CAPE_TOP: f32 = 1.52;
const CAPE_LENGTH: f32 = 0.9;
/// Half-widths at the shoulders and at the hem [m].
const CAPE_HALF_WIDTH: (f32, f32) = (0.2, 0.3);
/// Depth behind the body's centre line at the shoulders and at the hem [m] (the torso is 0.14 m
/// deep, the hips 0.12 m).
const CAPE_BEHIND: (f32, f32) = (0.2, 0.24);
const CAPE_HEM_MAX_DISTANCE: f32 = 0.3;
/// Backstop: the cape may come this much closer to the body than its skinned place [m], checked
/// against a sphere of this radius [m].
const CAPE_BACKSTOP_DISTANCE: f32 = 0.02;
const CAPE_BACKSTOP_RADIUS: f32 = 0.5;
/// Share of the pelvis in the hem's skin weights (the rest is the spine).
const CAPE_PELVIS_WEIGHT: f32 = 0.6;

/// Inverse bind matrices of the figure's joints (column-major), shared by both garments.
pub fn inverse_bind_matrices() -> Vec<[f32; 16]> {
    Figure::bind_poses().iter().map(|p| p.inverse().matrix()).collect()
}

/// Joint slots of a vertex skinned to `a`, `b`, `c` with weights `wa`, `wb`, `wc`.
fn skin4(a: Joint, wa: f32, b: Joint, wb: f32, c: Joint, wc: f32) -> ([u32; 4], [f32; 4]) {
    ([a as u32, b as u32, c as u32, 0], [wa, wb, wc, 0.0])
}

/// The skirt: a closed band of `SKIRT_COLUMNS` × (`SKIRT_ROWS` + 1) vertices, flaring from the
/// waist to the hem; skinned to the pelvis at the waist and more and more to the thighs on its side
/// towards the hem, with a gentle anim drive.
pub fn skirt() -> Garment {
    let mut g = empty("skirt");
    for row in 0..=SKIRT_ROWS {
        let t = row as f32 / SKIRT_ROWS as f32;
        let (rx, rz) = (WAIST.0 + (HEM.0 - WAIST.0) * t, WAIST.1 + (HEM.1 - WAIST.1) * t);
        let y = WAIST_HEIGHT + (HEM_HEIGHT - WAIST_HEIGHT) * t;
        for column in 0..SKIRT_COLUMNS {
            let theta = std::f32::consts::TAU * column as f32 / SKIRT_COLUMNS as f32;
            let (s, c) = theta.sin_cos();
            g.positions.push([rx * s, y, rz * c]);
            // +x is the figure's left.
            let legs = SKIRT_LEG_WEIGHT * t;
            let (j, w) = skin4(Joint::Pelvis, 1.0 - legs, Joint::UpperLegLeft, legs * 0.5 * (1.0 + s), Joint::UpperLegRight, legs * 0.5 * (1.0 - s));
            g.joints.push(j);
            g.weights.push(w);
            g.max_distances.push(SKIRT_HEM_MAX_DISTANCE * t.powf(1.5));
        }
    }
    let v = |row: usize, column: usize| (row * SKIRT_COLUMNS + column % SKIRT_COLUMNS) as u32;
    for row in 0..SKIRT_ROWS {
        for column in 0..SKIRT_COLUMNS {
            let (a, b, c, d) = (v(row, column), v(row, column + 1), v(row + 1, column), v(row + 1, column + 1));
            // Column +1 runs anticlockwise seen from above, rows downwards: (c − a) × (b − a) points out.
            g.indices.extend([a, c, b, b, c, d]);
        }
    }
    let masses = lumped_masses(&g.positions, &g.indices);
    g.anim_drive = Some(masses.iter().map(|m| SKIRT_DRIVE_SAG / (m * 9.81)).collect());
    g
}

/// The cape: a grid of `CAPE_COLUMNS` × `CAPE_ROWS + 1` vertices hanging behind the torso, its top
/// row sewn to the shoulder line; skinned to the spine at the top and partly to the pelvis towards
/// the hem; a backstop keeps it from passing behind its skinned place into the body.
pub fn cape() -> Garment {
    let mut g = empty("cape");
    for row in 0..=CAPE_ROWS {
        let t = row as f32 / CAPE_ROWS as f32;
        let half_width = CAPE_HALF_WIDTH.0 + (CAPE_HALF_WIDTH.1 - CAPE_HALF_WIDTH.0) * t;
        let z = -(CAPE_BEHIND.0 + (CAPE_BEHIND.1 - CAPE_BEHIND.0) * t);
        for column in 0..CAPE_COLUMNS {
            let s = 2.0 * column as f32 / (CAPE_COLUMNS - 1) as f32 - 1.0;
            g.positions.push([half_width * s, CAPE_TOP - CAPE_LENGTH * t, z]);
            let pelvis = CAPE_PELVIS_WEIGHT * t;
            let (j, w) = skin4(Joint::Spine, 1.0 - pelvis, Joint::Pelvis, pelvis, Joint::Spine, 0.0);
            g.joints.push(j);
            g.weights.push(w);
            g.max_distances.push(CAPE_HEM_MAX_DISTANCE * t.powf(1.3));
        }
    }
    let v = |row: usize, column: usize| (row * CAPE_COLUMNS + column) as u32;
    for row in 0..CAPE_ROWS {
        for column in 0..CAPE_COLUMNS - 1 {
            let (a, b, c, d) = (v(row, column), v(row, column + 1), v(row + 1, column), v(row + 1, column + 1));
            // (b − a) × (c − a) = x̂ × (−ŷ) = −ẑ: the front faces away from the body.
            g.indices.extend([a, b, c, b, d, c]);
        }
    }
    let n = g.positions.len();
    g.backstops = Some((vec![CAPE_BACKSTOP_DISTANCE; n], vec![CAPE_BACKSTOP_RADIUS; n]));
    g
}

fn empty(name: &'static str) -> Garment {
    Garment {
        name,
        positions: Vec::new(),
        indices: Vec::new(),
        joints: Vec::new(),
        weights: Vec::new(),
        max_distances: Vec::new(),
        backstops: None,
        anim_drive: None,
    }
}

/// Per vertex a third of the area of its triangles times [`AREAL_DENSITY`] [kg].
fn lumped_masses(positions: &[[f32; 3]], indices: &[u32]) -> Vec<f32> {
    let mut m = vec![0.0f32; positions.len()];
    for t in indices.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| Vec3::from_array(positions[i as usize]));
        let third = AREAL_DENSITY * 0.5 * (b - a).cross(c - a).length() / 3.0;
        for &i in t {
            m[i as usize] += third;
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::super::figure::{CAPSULES, JOINT_COUNT};
    use super::*;

    /// Area-weighted normal at each vertex of a garment in the bind pose.
    fn normals(g: &Garment) -> Vec<Vec3> {
        let mut n = vec![Vec3::ZERO; g.positions.len()];
        for t in g.indices.chunks_exact(3) {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| Vec3::from_array(g.positions[i as usize]));
            for &i in t {
                n[i as usize] += (b - a).cross(c - a);
            }
        }
        n.iter().map(|v| v.normalize()).collect()
    }

    #[test]
    fn garments_face_away_from_the_body_and_clear_every_capsule() {
        // The figure's first pose (its gait at phase 0), against which the garments start.
        let first = Figure::new().joint_poses();
        for g in [skirt(), cape()] {
            for (p, n) in g.positions.iter().zip(normals(&g)) {
                let p = Vec3::from_array(*p);
                let outward = Vec3::new(p.x, 0.0, p.z);
                assert!(n.dot(outward) > 0.0, "{}: normal {n} at {p}", g.name);
                for c in &CAPSULES {
                    let (a, b) = c.ends(&first[c.joint as usize]);
                    let ab = b - a;
                    let t = ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0);
                    assert!(p.distance(a + ab * t) > c.radius + 0.01, "{}: {p} within 1 cm of {:?}", g.name, c.joint);
                }
            }
            for (w, j) in g.weights.iter().zip(&g.joints) {
                assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-6 && w.iter().all(|&w| w >= 0.0));
                assert!(j.iter().all(|&j| (j as usize) < JOINT_COUNT));
            }
            // Sewn on where the garment starts, free towards the hem.
            assert_eq!(g.max_distances[0], 0.0);
            assert!(*g.max_distances.last().unwrap() >= 0.2);
        }
    }
}
