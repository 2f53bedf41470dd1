//! Self-collision (issue 8), through the public Rust API: a cloth folding over a thin capsule, a
//! cloth crumpling into a pile on a plane, and bitwise determinism over thread counts. Each test
//! prints its measured numbers (`cargo test --profile ci --test self_collision -- --nocapture`).
//!
//! Two checks are shared:
//! - closest approach: the smallest distance between two particles that are not neighbours in
//!   the sense of the solver (rest distance ≥ 2r), which must stay ≥ 1.8 r;
//! - layer crossing: every frame, each particle's signed distance to the nearest triangle of a
//!   far part of the cloth (all three corners ≥ [`FAR`] away from it at rest), taken only where
//!   the particle is within [`NEAR`] of that triangle's plane and projects inside it. If the same
//!   triangle (or one sharing a corner with it and facing the same way) is nearest in two frames
//!   running and the sign differs, the particle passed through the other layer.

mod common;

use common::grid;
use std::collections::HashMap;
use xpbd_cloth::{ClothDesc, ClothHandle, ClothParams, ColliderDesc, Pose, Vec3, World, WorldDesc};

const DT: f32 = 1.0 / 60.0;

/// Rest distance [m] beyond which a triangle counts as another layer for the crossing check.
const FAR: f32 = 0.06;

/// Distance [m] from a triangle's plane within which the crossing check follows a particle.
const NEAR: f32 = 0.02;

/// Smallest distance between particle pairs whose rest distance is at least `2r`, and that pair.
fn closest_non_neighbours(x: &[Vec3], rest: &[Vec3], r: f32) -> (f32, usize, usize) {
    let cells = Cells::new(x, 4.0 * r);
    let mut best = (f32::INFINITY, 0, 0);
    for i in 0..x.len() {
        cells.near(x[i], |j| {
            if j > i && rest[i].distance(rest[j]) >= 2.0 * r {
                let d = x[i].distance(x[j]);
                if d < best.0 {
                    best = (d, i, j);
                }
            }
        });
    }
    best
}

/// A plain hash grid for the checks (independent of the solver's).
struct Cells {
    size: f32,
    map: HashMap<[i32; 3], Vec<usize>>,
}

impl Cells {
    fn new(x: &[Vec3], size: f32) -> Self {
        let mut map: HashMap<[i32; 3], Vec<usize>> = HashMap::new();
        for (i, p) in x.iter().enumerate() {
            map.entry(Self::key(*p, size)).or_default().push(i);
        }
        Cells { size, map }
    }
    fn key(p: Vec3, size: f32) -> [i32; 3] {
        (p / size).floor().as_ivec3().to_array()
    }
    /// Every point in the 27 cells around `p` (all points within `size` of it, and more).
    fn near(&self, p: Vec3, mut f: impl FnMut(usize)) {
        let [x, y, z] = Self::key(p, self.size);
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    for &j in self.map.get(&[x + dx, y + dy, z + dz]).into_iter().flatten() {
                        f(j);
                    }
                }
            }
        }
    }
}

/// The layer-crossing check of the module docs.
struct CrossingCheck {
    rest: Vec<Vec3>,
    triangles: Vec<[usize; 3]>,
    /// Triangles around each particle.
    around: Vec<Vec<usize>>,
    /// Per particle: (triangle, its unit normal, sign) of the last frame it was followed.
    last: Vec<Option<(usize, Vec3, f32)>>,
    /// (particle, triangle, signed distance before, after) of every crossing.
    crossings: Vec<(usize, usize, f32, f32)>,
    /// Frames × particles followed (how much the check saw).
    followed: usize,
}

impl CrossingCheck {
    fn new(rest: &[Vec3], indices: &[u32]) -> Self {
        let triangles: Vec<[usize; 3]> = indices.chunks_exact(3).map(|t| [0, 1, 2].map(|k| t[k] as usize)).collect();
        let mut around = vec![Vec::new(); rest.len()];
        for (t, tri) in triangles.iter().enumerate() {
            for &p in tri {
                around[p].push(t);
            }
        }
        let n = rest.len();
        CrossingCheck { rest: rest.to_vec(), triangles, around, last: vec![None; n], crossings: Vec::new(), followed: 0 }
    }

    fn frame(&mut self, x: &[Vec3]) {
        let cells = Cells::new(x, NEAR);
        for i in 0..x.len() {
            // Nearest (by |signed distance|) far triangle that i projects into.
            let mut best: Option<(f32, usize, Vec3)> = None;
            cells.near(x[i], |j| {
                for &t in &self.around[j] {
                    let [a, b, c] = self.triangles[t];
                    if [a, b, c].iter().any(|&k| self.rest[k].distance(self.rest[i]) < FAR) {
                        continue;
                    }
                    let (e1, e2) = (x[b] - x[a], x[c] - x[a]);
                    let cross = e1.cross(e2);
                    if cross.length_squared() < 1e-14 {
                        continue;
                    }
                    let normal = cross.normalize();
                    let s = normal.dot(x[i] - x[a]);
                    if s.abs() > NEAR {
                        continue;
                    }
                    // Barycentric coordinates of the projection.
                    let q = x[i] - normal * s - x[a];
                    let (d00, d01, d11) = (e1.dot(e1), e1.dot(e2), e2.dot(e2));
                    let (d20, d21) = (q.dot(e1), q.dot(e2));
                    let den = d00 * d11 - d01 * d01;
                    let v = (d11 * d20 - d01 * d21) / den;
                    let w = (d00 * d21 - d01 * d20) / den;
                    if v < 0.0 || w < 0.0 || v + w > 1.0 {
                        continue;
                    }
                    if best.is_none_or(|(bs, _, _)| s.abs() < bs.abs()) {
                        best = Some((s, t, normal));
                    }
                }
            });
            let now = best.map(|(s, t, normal)| (t, normal, s));
            if let (Some((t0, n0, s0)), Some((t1, n1, s1))) = (self.last[i], now) {
                let shares_corner = self.triangles[t0].iter().any(|k| self.triangles[t1].contains(k));
                if (t0 == t1 || (shares_corner && n0.dot(n1) > 0.7)) && (s0 > 0.0) != (s1 > 0.0) {
                    self.crossings.push((i, t1, s0, s1));
                }
            }
            self.followed += now.is_some() as usize;
            self.last[i] = now;
        }
    }
}

/// Positions as `Vec3`.
fn vec3s(p: &[[f32; 3]]) -> Vec<Vec3> {
    p.iter().map(|&a| Vec3::from_array(a)).collect()
}

fn add_cloth(world: &mut World, positions: &[[f32; 3]], indices: &[u32], params: ClothParams) -> ClothHandle {
    let mut desc = ClothDesc::new(positions, indices);
    desc.params = params;
    world.add_cloth(&desc).unwrap()
}

/// Issue 8, test 1: a 1 m × 0.5 m cloth, 64 × 32 vertices, dropped flat across a thin horizontal
/// capsule so that its halves fold down on either side and swing into each other below it.
#[test]
fn cloth_folding_over_a_thin_capsule_keeps_its_layers_apart() {
    let r = 0.006; // ≥ 0.36 × the 15.9 mm edge length (see ClothParams::self_collision_radius)
    let (positions, indices) = grid(64, 32, 1.0, 0.5, |u, v| [u - 0.5, 0.03, v - 0.25]);
    let mut world = World::new(WorldDesc::default()).unwrap();
    let params = ClothParams { self_collision: true, self_collision_radius: Some(r), ..ClothParams::default() };
    let cloth = add_cloth(&mut world, &positions, &indices, params);
    // Capsule axis along z (local Y turned by 90° about x), radius 1 cm, 0.7 m long.
    let axis = Pose::from_axis_angle([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], std::f32::consts::FRAC_PI_2);
    world.add_collider(&ColliderDesc { pose: axis, ..ColliderDesc::capsule(0.01, 0.35) }).unwrap();

    let rest = vec3s(&positions);
    let mut crossing = CrossingCheck::new(&rest, &indices);
    let (mut closest_ever, mut most_contacts, mut most_pairs) = (f32::INFINITY, 0, 0);
    for frame in 0..180 {
        world.step(DT).unwrap();
        let c = world.cloth(cloth).unwrap();
        let x = c.particle_positions();
        crossing.frame(x);
        if frame % 10 == 9 {
            closest_ever = closest_ever.min(closest_non_neighbours(x, &rest, r).0);
        }
        most_contacts = most_contacts.max(c.stats().self_contact_count);
        most_pairs = most_pairs.max(c.stats().self_pairs_tested);
    }
    let c = world.cloth(cloth).unwrap();
    let x = c.particle_positions();
    let (closest, i, j) = closest_non_neighbours(x, &rest, r);
    let lowest = x.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
    // Spread of the two halves below the capsule, to see that they met.
    let gap_below = layer_gap(x, &rest, -0.15);
    println!(
        "fold: closest non-neighbours after 3 s {closest:.5} m = {:.3} r (particles {i}, {j}), every 10th frame \
         ≥ {closest_ever:.5} m; most self contacts {most_contacts}, most candidate pairs {most_pairs}; \
         layers 15 cm below the capsule {gap_below:.4} m apart; lowest point {lowest:.3} m; \
         crossing check followed {} particle-frames, crossings {:?}",
        closest / r,
        crossing.followed,
        &crossing.crossings[..crossing.crossings.len().min(10)],
    );
    assert!(lowest < -0.3, "the cloth did not fold down over the capsule (lowest {lowest})");
    assert!(most_contacts > 0, "the layers never touched: the test would not exercise self-collision");
    assert!(crossing.followed > 10_000, "the crossing check saw too little ({})", crossing.followed);
    assert!(closest >= 1.8 * r, "non-neighbours {closest} m apart (< 1.8 r)");
    assert!(closest_ever >= 1.8 * r, "non-neighbours {closest_ever} m apart during the fold (< 1.8 r)");
    assert!(crossing.crossings.is_empty(), "{} particle-frames crossed the other layer", crossing.crossings.len());
}

/// Mean |x difference| between the two halves' particles at height `y` (±2 cm), matched by their
/// rest z: how far apart the layers hang.
fn layer_gap(x: &[Vec3], rest: &[Vec3], y: f32) -> f32 {
    let side = |left: bool| -> Vec<f32> {
        let v: Vec<f32> = (0..x.len())
            .filter(|&k| (rest[k].x < 0.0) == left && (x[k].y - y).abs() < 0.02)
            .map(|k| x[k].x)
            .collect();
        v
    };
    let mean = |v: Vec<f32>| v.iter().sum::<f32>() / v.len().max(1) as f32;
    (mean(side(false)) - mean(side(true))).abs()
}
