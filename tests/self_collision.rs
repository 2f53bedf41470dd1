//! Self-collision (docs/design.md, "Self-collision"), through the public Rust API: a cloth folding
//! over a thin capsule, a cloth crumpling into a pile on a plane, and bitwise determinism over
//! thread counts. Each test prints its measured numbers (`cargo test --profile ci --test
//! self_collision -- --nocapture`).
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
mod ffi_common;

use common::grid;
use ffi_common::{c_stats, c_world, ok};
use xpbd_cloth::ffi::*;
use std::collections::HashMap;
use xpbd_cloth::{ClothDesc, ClothHandle, ClothParams, ColliderDesc, Pose, Vec3, World, WorldDesc};

const DT: f32 = 1.0 / 60.0;

/// Rest distance [m] beyond which a triangle counts as another layer for the crossing check.
const FAR: f32 = 0.06;

/// Distance [m] from a triangle's plane within which the crossing check follows a particle
/// (1.5 × the 2r of the tests' meshes).
const NEAR: f32 = 0.03;

/// Smallest distance between particle pairs whose rest distance is at least `2r`, and that pair.
fn closest_non_neighbours(x: &[Vec3], rest: &[Vec3], r: f32) -> (f32, usize, usize) {
    closest_apart_at_rest(x, rest, 2.0 * r, 4.0 * r)
}

/// Smallest distance below `search` [m] between particle pairs at least `min_rest` apart at rest.
fn closest_apart_at_rest(x: &[Vec3], rest: &[Vec3], min_rest: f32, search: f32) -> (f32, usize, usize) {
    let cells = Cells::new(x, search);
    let mut best = (f32::INFINITY, 0, 0);
    for i in 0..x.len() {
        cells.near(x[i], |j| {
            if j > i && rest[i].distance(rest[j]) >= min_rest {
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

/// A 1 m × 0.5 m cloth, 64 × 32 vertices, dropped flat across a thin horizontal capsule so that its
/// halves fold down on either side and swing into each other below it.
#[test]
fn cloth_folding_over_a_thin_capsule_keeps_its_layers_apart() {
    let r = 0.008; // half the 15.9–16.1 mm edge length (see ClothParams::self_collision_radius)
    let (positions, indices) = grid(64, 32, 1.0, 0.5, |u, v| [u - 0.5, 0.03, v - 0.25]);
    let mut world = World::new(WorldDesc::default()).unwrap();
    // Undamped, so that the fold swings through as far as the crossing check needs.
    let params = ClothParams { self_collision: true, self_collision_radius: Some(r), deformation_damping: 0.0, ..ClothParams::default() };
    let cloth = add_cloth(&mut world, &positions, &indices, params);
    // Capsule axis along z (local Y turned by 90° about x), radius 6 mm, 0.7 m long.
    let axis = Pose::from_axis_angle([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], std::f32::consts::FRAC_PI_2);
    world.add_collider(&ColliderDesc { pose: axis, ..ColliderDesc::capsule(0.006, 0.35) }).unwrap();

    let rest = vec3s(&positions);
    let mut crossing = CrossingCheck::new(&rest, &indices);
    let (mut closest_ever, mut most_contacts, mut most_pairs) = (f32::INFINITY, 0, 0);
    let mut closest_layers = f32::INFINITY;
    for frame in 0..180 {
        world.step(DT).unwrap();
        let c = world.cloth(cloth).unwrap();
        let x = c.particle_positions();
        crossing.frame(x);
        if frame % 10 == 9 {
            closest_ever = closest_ever.min(closest_non_neighbours(x, &rest, r).0);
            closest_layers = closest_layers.min(closest_apart_at_rest(x, &rest, FAR, 4.0 * r).0);
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
         ≥ {closest_ever:.5} m, particles ≥ 6 cm apart at rest (the two layers) ≥ {closest_layers:.5} m = {:.3} r; \
         most self contacts {most_contacts}, most candidate pairs {most_pairs}; \
         layers 15 cm below the capsule {gap_below:.4} m apart; lowest point {lowest:.3} m; \
         crossing check followed {} particle-frames, crossings {:?}",
        closest / r,
        closest_layers / r,
        crossing.followed,
        &crossing.crossings[..crossing.crossings.len().min(10)],
    );
    assert!(lowest < -0.3, "the cloth did not fold down over the capsule (lowest {lowest})");
    assert!(closest_layers < 2.2 * r, "the layers never touched: the test would not exercise self-collision");
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

/// A 0.6 m square curtain, 32 × 32 vertices, in shallow pleats (1.5 cm waves along its width,
/// 1 cm along its height), leaning 15° with its lower edge 5 cm above a plane, released: it
/// buckles and collapses onto itself into a pile.
fn pleated_curtain(offset: Vec3) -> (Vec<[f32; 3]>, Vec<u32>) {
    use std::f32::consts::TAU;
    let lean = LEAN.to_radians();
    grid(32, 32, 0.6, 0.6, |u, v| {
        let up = 0.6 - v; // height along the curtain
        let z = 0.015 * (u * TAU / 0.15).sin() + 0.01 * (v * TAU / 0.2).sin();
        let (y, z) = (DROP + up * lean.cos() - z * lean.sin(), z * lean.cos() + up * lean.sin());
        (offset + Vec3::new(u - 0.3, y, z)).to_array()
    })
}

const LEAN: f32 = 3.0;
const DROP: f32 = 0.3;

/// Self-collision radius for [`pleated_curtain`]: half its 19.4 mm edges.
const CURTAIN_R: f32 = 0.0097;

fn curtain_params() -> ClothParams {
    ClothParams { self_collision: true, self_collision_radius: Some(CURTAIN_R), ..ClothParams::default() }
}

/// A cloth dropped on a plane crumples into a pile without particles of different layers
/// interpenetrating and comes to rest without jitter (kinetic energy < 1e-5 J), with no damping
/// at all: the rest comes from the contacts. Undamped, because at the default deformation damping
/// the curtain folds over as one sheet (8 cm high, its layers 5.3 r apart) instead of piling.
#[test]
fn undamped_cloth_dropped_on_a_plane_piles_up_without_crossing_or_jitter() {
    let r = CURTAIN_R;
    let (positions, indices) = pleated_curtain(Vec3::ZERO);
    let mut world = World::new(WorldDesc::default()).unwrap();
    let params = ClothParams { deformation_damping: 0.0, ..curtain_params() };
    let cloth = add_cloth(&mut world, &positions, &indices, params);
    world.add_collider(&ColliderDesc::plane()).unwrap();
    let gravity = Vec3::from_array(world.desc().gravity);

    let rest = vec3s(&positions);
    let mut crossing = CrossingCheck::new(&rest, &indices);
    let (mut closest_ever, mut most_contacts) = (f32::INFINITY, 0);
    let mut kinetic = Vec::new();
    let mut close_frames = Vec::new();
    for frame in 0..240 {
        world.step(DT).unwrap();
        let c = world.cloth(cloth).unwrap();
        crossing.frame(c.particle_positions());
        let closest = closest_non_neighbours(c.particle_positions(), &rest, r).0;
        if closest < 1.8 * r {
            close_frames.push((frame, closest / r));
        }
        closest_ever = closest_ever.min(closest);
        most_contacts = most_contacts.max(c.stats().self_contact_count);
        kinetic.push(c.energy(gravity).kinetic);
    }
    let c = world.cloth(cloth).unwrap();
    let x = c.particle_positions();
    let height = x.iter().map(|p| p.y).fold(0.0f32, f32::max);
    let lowest = x.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
    let last_second_max = kinetic[180..].iter().copied().fold(0.0f32, f32::max);
    println!(
        "pile: height {height:.4} m (lowest {lowest:.4}), closest non-neighbours over 4 s {closest_ever:.5} m = {:.3} r, \
         most self contacts {most_contacts} (at the end {}), kinetic energy at 1/2/3/4 s {:.2e}/{:.2e}/{:.2e}/{:.2e} J, \
         largest in the last second {last_second_max:.2e} J; crossing check followed {} particle-frames, crossings {:?}",
        closest_ever / r,
        c.stats().self_contact_count,
        kinetic[59],
        kinetic[119],
        kinetic[179],
        kinetic[239],
        crossing.followed,
        &crossing.crossings[..crossing.crossings.len().min(10)],
    );
    println!("pile: frames with non-neighbours closer than 1.8 r (frame, distance / r): {close_frames:?}");
    // A pile: several layers thick (each layer 2r), far below the 0.6 m curtain.
    assert!(height > 4.0 * r && height < 0.2, "not a pile: {height} m high");
    let (layers, _, _) = closest_apart_at_rest(x, &rest, FAR, 4.0 * r);
    println!("pile: particles ≥ 6 cm apart at rest lie {layers:.5} m = {:.3} r apart at the end", layers / r);
    assert!(layers < 2.2 * r, "no layers on top of each other: not a pile");
    assert!(crossing.followed > 10_000, "the crossing check saw too little ({})", crossing.followed);
    // After settling, the pile's layers are 2r apart. During the 2.4 m/s landing (frames 14–27,
    // one iteration per substep, the floor's contacts projected after self-collision) pairs are
    // squeezed closer but never through each other (docs/dev/performance-log.md, "2026-11-29 —
    // Self-collision and inter-cloth collision as tested").
    let (settled, _, _) = closest_non_neighbours(x, &rest, r);
    println!("pile: closest non-neighbours after settling {settled:.5} m = {:.3} r", settled / r);
    assert!(settled >= 1.8 * r, "non-neighbours {settled} m apart after settling (< 1.8 r)");
    assert!(closest_ever >= 1.1 * r, "non-neighbours {closest_ever} m apart during the landing (< 1.1 r)");
    assert!(crossing.crossings.is_empty(), "{} particle-frames crossed another layer", crossing.crossings.len());
    assert!(last_second_max < 1e-5, "jitter: kinetic energy up to {last_second_max} J in the last second");
}

/// The state hash of every cloth after every step of two pleated curtains dropped onto each other
/// (self- and inter-cloth collision on) over a plane, in a world of `thread_count` threads, and
/// the most inter-cloth candidate pairs of a step.
fn curtains_hashes(thread_count: u32, frames: usize) -> (Vec<Vec<u64>>, u32) {
    let mut world = World::new(WorldDesc { thread_count, ..WorldDesc::default() }).unwrap();
    let (p1, i1) = pleated_curtain(Vec3::ZERO);
    let (p2, i2) = pleated_curtain(Vec3::new(0.1, 0.0, 0.15));
    let params = ClothParams { inter_cloth_collision: true, ..curtain_params() };
    let cloths = [add_cloth(&mut world, &p1, &i1, params), add_cloth(&mut world, &p2, &i2, params)];
    let mut most_inter = 0;
    world.add_collider(&ColliderDesc::plane()).unwrap();
    let hashes = (0..frames)
        .map(|_| {
            world.step(DT).unwrap();
            most_inter = most_inter.max(world.cloth(cloths[0]).unwrap().stats().inter_cloth_pairs_tested);
            cloths.iter().map(|&c| world.cloth(c).unwrap().state_hash()).collect()
        })
        .collect();
    (hashes, most_inter)
}

/// Bitwise equal results for 1 and 2 threads with self-collision on (and inter-cloth collision,
/// whose snapshot must make the parallel cloths independent).
#[test]
fn self_collision_gives_the_same_bits_on_one_and_two_threads() {
    let (one, inter) = curtains_hashes(1, 60);
    let (two, _) = curtains_hashes(2, 60);
    let differing = one.iter().zip(&two).filter(|(a, b)| a != b).count();
    println!("determinism: {differing} of {} frames differ between 1 and 2 threads; up to {inter} inter-cloth pairs", one.len());
    assert!(inter > 0, "the curtains never came near each other");
    assert_eq!(one, two);
    assert!(one.windows(2).all(|w| w[0] != w[1]), "the scene must move every frame");
}

/// Two cloths dropped onto each other (inter-cloth collision on, self-collision off) over a plane
/// stay separated by ≥ 1.8 r. A 0.5 m sheet (26², 2 cm edges, r = 1 cm) at 5 cm and a second one
/// turned by 30° at 15 cm; the lower lands on the plane, the upper on it.
#[test]
fn two_cloths_dropped_on_each_other_stay_two_radii_apart() {
    let r = 0.01;
    let sheet = |height: f32, turn: f32| {
        let (s, c) = turn.to_radians().sin_cos();
        grid(26, 26, 0.5, 0.5, |u, v| {
            let (a, b) = (u - 0.25, v - 0.25);
            [a * c - b * s, height, a * s + b * c]
        })
    };
    let (p1, i1) = sheet(0.05, 0.0);
    let (p2, i2) = sheet(0.15, 30.0);
    let mut world = World::new(WorldDesc::default()).unwrap();
    // Undamped, the scene as recorded before the default damping (3/s); with it the closest
    // approach during the fall is 1.54 r (docs/dev/performance-log.md, "2026-12-01 — Defaults
    // under which cloth comes to rest").
    let params = ClothParams { inter_cloth_collision: true, self_collision_radius: Some(r), linear_damping: 0.0, ..ClothParams::default() };
    let lower = add_cloth(&mut world, &p1, &i1, params);
    let upper = add_cloth(&mut world, &p2, &i2, params);
    world.add_collider(&ColliderDesc::plane()).unwrap();

    let closest_between = |world: &World| {
        let (a, b) = (world.cloth(lower).unwrap().particle_positions(), world.cloth(upper).unwrap().particle_positions());
        let cells = Cells::new(a, 4.0 * r);
        let mut best = f32::INFINITY;
        for &q in b {
            cells.near(q, |k| best = best.min(a[k].distance(q)));
        }
        best
    };
    let (mut closest_ever, mut most_pairs, mut upper_below) = (f32::INFINITY, 0, 0);
    for _ in 0..120 {
        world.step(DT).unwrap();
        closest_ever = closest_ever.min(closest_between(&world));
        most_pairs = most_pairs.max(world.cloth(upper).unwrap().stats().inter_cloth_pairs_tested);
        let lowest_upper = world.cloth(upper).unwrap().particle_positions().iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
        let highest_lower = world.cloth(lower).unwrap().particle_positions().iter().map(|p| p.y).fold(0.0f32, f32::max);
        upper_below += (lowest_upper < highest_lower) as usize;
    }
    let at_end = closest_between(&world);
    let heights = [lower, upper].map(|c| {
        let x = world.cloth(c).unwrap().particle_positions();
        x.iter().map(|p| p.y).sum::<f32>() / x.len() as f32
    });
    println!(
        "two cloths: closest particles of different cloths over 2 s {closest_ever:.5} m = {:.3} r, at the end {at_end:.5} m = {:.3} r; \
         mean heights {:.4} / {:.4} m; most candidate pairs {most_pairs}; frames with an upper particle below the lower's highest {upper_below}",
        closest_ever / r,
        at_end / r,
        heights[0],
        heights[1],
    );
    assert!(at_end < 2.2 * r, "the cloths do not lie on each other ({at_end} m)");
    assert!(closest_ever >= 1.8 * r, "particles of different cloths {closest_ever} m apart (< 1.8 r)");
    assert_eq!(upper_below, 0, "a particle of the upper cloth went below the lower cloth");
}

/// The C ABI: the pile scene created through `XpbdClothDesc` (self-collision fields at its end)
/// and a C plane gives the Rust API's state to the bit and reports pairs and contacts in
/// `XpbdClothStats`; bad self-collision fields are rejected without creating a cloth.
#[test]
fn c_descriptor_fields_drive_the_same_self_collision_and_bad_values_are_rejected() {
    let (positions, indices) = pleated_curtain(Vec3::ZERO);
    let world = c_world(1);
    let desc = XpbdClothDesc {
        positions: positions.as_ptr().cast(),
        vertex_count: positions.len() as u32,
        indices: indices.as_ptr(),
        triangle_count: (indices.len() / 3) as u32,
        enable_self_collision: 1,
        self_collision_radius: CURTAIN_R,
        ..xpbd_default_cloth_desc()
    };
    assert_eq!((xpbd_default_cloth_desc().enable_self_collision, xpbd_default_cloth_desc().self_collision_radius), (0, 0.0));
    let (mut cloth, mut plane) = (XpbdClothId::default(), XpbdColliderId::default());
    let plane_desc = XpbdColliderDesc { kind: XpbdColliderKind::Plane as u32, ..xpbd_default_collider_desc() };
    // SAFETY: the arrays outlive the calls and hold the counts passed; valid out-parameters.
    unsafe {
        ok(xpbd_cloth_create(world, &desc, &mut cloth));
        ok(xpbd_collider_create(world, &plane_desc, &mut plane));
    }
    let mut rust = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let handle = add_cloth(&mut rust, &positions, &indices, curtain_params());
    rust.add_collider(&ColliderDesc::plane()).unwrap();
    for _ in 0..40 {
        ok(xpbd_world_step(world, DT));
        rust.step(DT).unwrap();
    }
    let mut from_c = 0u64;
    // SAFETY: valid out-parameter.
    ok(unsafe { xpbd_cloth_state_hash(cloth, &mut from_c) });
    let stats = c_stats(cloth);
    println!("C ABI: {} candidate pairs, {} self contacts after 40 steps", stats.self_pairs_tested, stats.self_contact_count);
    assert_eq!(from_c, rust.cloth(handle).unwrap().state_hash());
    assert_eq!(stats, *rust.cloth(handle).unwrap().stats());
    assert!(stats.self_pairs_tested > 0 && stats.self_contact_count > 0);

    for (bad, field) in [
        (XpbdClothDesc { enable_self_collision: 2, ..desc }, "enable_self_collision"),
        (XpbdClothDesc { self_collision_radius: -0.01, ..desc }, "self_collision_radius"),
        (XpbdClothDesc { self_static_friction: f32::NAN, ..desc }, "self_static_friction"),
        (XpbdClothDesc { enable_inter_cloth_collision: 7, ..desc }, "enable_inter_cloth_collision"),
    ] {
        let mut id = XpbdClothId::default();
        // SAFETY: as above.
        assert_eq!(unsafe { xpbd_cloth_create(world, &bad, &mut id) }, XpbdResult::InvalidArgument, "{field}");
        assert_eq!(id, XpbdClothId::default(), "{field}: an id was written");
        let mut message = [0u8; 512];
        // SAFETY: a buffer of the capacity passed.
        let length = unsafe { xpbd_last_error_message(message.as_mut_ptr().cast(), message.len()) };
        let text = String::from_utf8_lossy(&message[..length.min(message.len() - 1)]);
        assert!(text.contains(field), "{field}: message {text:?}");
    }
    ok(xpbd_world_destroy(world));
}

/// Whether segment `p`–`q` passes through triangle `t` (Möller & Trumbore 1997, "Fast, minimum
/// storage ray/triangle intersection", with the ray parameter limited to the segment).
fn segment_hits_triangle(p: Vec3, q: Vec3, t: [Vec3; 3]) -> bool {
    let (e1, e2, d) = (t[1] - t[0], t[2] - t[0], q - p);
    let h = d.cross(e2);
    let det = e1.dot(h);
    if det.abs() < 1e-12 {
        return false;
    }
    let s = p - t[0];
    let u = s.dot(h) / det;
    let k = s.cross(e1);
    let v = d.dot(k) / det;
    let along = e2.dot(k) / det;
    (0.0..=1.0).contains(&u) && v >= 0.0 && u + v <= 1.0 && (0.0..=1.0).contains(&along)
}

/// Pairs of triangles that share no particle and intersect (an edge of one through the other),
/// found with a grid of cells of `cell` [m] over the triangles' centroids.
fn triangle_intersections(x: &[Vec3], triangles: &[[u32; 3]], cell: f32) -> usize {
    let centroids: Vec<Vec3> = triangles.iter().map(|t| (x[t[0] as usize] + x[t[1] as usize] + x[t[2] as usize]) / 3.0).collect();
    let cells = Cells::new(&centroids, cell);
    let mut count = 0;
    for (a, ta) in triangles.iter().enumerate() {
        let pa = ta.map(|i| x[i as usize]);
        cells.near(centroids[a], |b| {
            let tb = triangles[b];
            if b <= a || ta.iter().any(|i| tb.contains(i)) {
                return;
            }
            let pb = tb.map(|i| x[i as usize]);
            let hits = (0..3).any(|k| segment_hits_triangle(pa[k], pa[(k + 1) % 3], pb) || segment_hits_triangle(pb[k], pb[(k + 1) % 3], pa));
            count += hits as usize;
        });
    }
    count
}

/// Self-collision at its default radius (half the median edge, taken from the mesh): a 0.6 m
/// sheet of 15 mm grid spacing (three times the 5 mm contact thickness, the radius the library
/// used to default to), twisted half a turn along its length and dropped 0.5 m onto the ground,
/// ends after 3 s with no two triangles passing through each other.
#[test]
fn a_twisted_cloth_dropped_at_the_default_radius_ends_without_intersections() {
    let n = 41;
    let (positions, indices) = grid(n, n, 0.6, 0.6, |u, v| {
        let angle = std::f32::consts::PI * u / 0.6;
        let across = v - 0.3;
        [u - 0.3, 0.5 + across * angle.sin(), across * angle.cos()]
    });
    let mut world = World::new(WorldDesc::default()).unwrap();
    world.add_collider(&ColliderDesc::plane()).unwrap();
    let params = ClothParams { self_collision: true, ..ClothParams::default() };
    assert_eq!(params.self_collision_radius, None, "the default radius");
    let cloth = add_cloth(&mut world, &positions, &indices, params);
    let c = world.cloth(cloth).unwrap();
    let r = c.self_collision_radius();
    let mut edges = c.stretch_constraints().rest_length.to_vec();
    edges.sort_by(f32::total_cmp);
    assert_eq!(r, 0.5 * edges[edges.len() / 2], "half the median rest edge");
    for _ in 0..180 {
        world.step(DT).unwrap();
    }
    let triangles: Vec<[u32; 3]> = indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
    let x = world.cloth(cloth).unwrap().particle_positions().to_vec();
    let crossings = triangle_intersections(&x, &triangles, 0.03);
    let lowest = x.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
    println!("twisted drop, r = {r} m: {crossings} intersecting triangle pairs after 3 s, lowest particle {lowest:.4} m");
    assert!(lowest < 0.05, "the cloth reached the ground");
    assert_eq!(crossings, 0, "{crossings} pairs of triangles pass through each other");
}

/// The strain limit's re-projection of self-collision applies no friction, as that of the
/// collider contacts: friction would read the limit's own correction as slip and cancel it. The
/// upper half of one cloth, two layers on the ground with μ_s 0.8 / μ_k 0.6 between them
/// (a parameter the scene is about), dragged at 2 m/s by its pinned far row: its step-end max
/// edge strain peaked at 20.5 % when the layers' friction cancelled the limit's correction,
/// 5.93 % without.
#[test]
fn a_sheet_dragged_over_a_high_friction_layer_of_itself_keeps_its_strain_limit() {
    let n = 26;
    let layer = |y: f32| grid(n, n, 0.5, 0.5, move |u, v| [u - 0.25, y, v - 0.25]);
    let ((lower, lower_ix), (upper, upper_ix)) = (layer(0.011), layer(0.032));
    let params = ClothParams {
        self_collision: true,
        self_collision_radius: Some(0.01),
        self_static_friction: 0.8,
        self_kinetic_friction: 0.6,
        ..ClothParams::default()
    };
    let mut world = World::new(WorldDesc::default()).unwrap();
    world.add_collider(&ColliderDesc::plane()).unwrap();
    let positions = [lower, upper].concat();
    let indices: Vec<u32> = lower_ix.iter().copied().chain(upper_ix.iter().map(|k| k + (n * n) as u32)).collect();
    let cloth = add_cloth(&mut world, &positions, &indices, params);
    for _ in 0..30 {
        world.step(DT).unwrap();
    }
    let row: Vec<u32> = (0..n).map(|i| (n * n + (n - 1) * n + i) as u32).collect();
    let start: Vec<Vec3> = row.iter().map(|&k| world.cloth(cloth).unwrap().particle_positions()[k as usize]).collect();
    world.cloth_mut(cloth).unwrap().set_pinned(&row, None).unwrap();
    let mut peak = 0.0f32;
    for k in 1..=60 {
        let targets: Vec<[f32; 3]> = start.iter().map(|s| (*s + Vec3::new(0.0, 0.02, 2.0 * k as f32 * DT)).to_array()).collect();
        world.cloth_mut(cloth).unwrap().set_pin_targets(&row, &targets).unwrap();
        world.step(DT).unwrap();
        peak = peak.max(world.cloth(cloth).unwrap().stats().max_edge_strain);
    }
    println!("dragged over a layer of itself: peak max edge strain {:.2} %", peak * 100.0);
    assert!(peak < 0.075, "{} %", peak * 100.0);
}
