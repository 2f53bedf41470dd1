//! Character cloth (issue 31, docs/design.md "Character cloth"): colliders and cloths teleported
//! without sweeping, and cloth driven from an animated pose (max distance, backstop, anim drive,
//! simulation blend, skinning). Every number is measured through the public Rust API.

mod common;

use common::{vertical_sheet, world_with_cloth};
use xpbd_cloth::{ClothHandle, ClothParams, ColliderDesc, Pose, World, WorldDesc};

const DT: f32 = 1.0 / 60.0;

fn one_thread() -> WorldDesc {
    WorldDesc { thread_count: 1, ..WorldDesc::default() }
}

/// The largest edge stretch max(0, |x_i − x_j|/L − 1), from the positions and rest lengths.
fn max_strain(world: &World, cloth: ClothHandle) -> f32 {
    let c = world.cloth(cloth).unwrap();
    let (s, x) = (c.stretch_constraints(), c.particle_positions());
    s.edges.iter().zip(s.rest_length).map(|(&[i, j], &l)| x[i as usize].distance(x[j as usize]) / l - 1.0).fold(0.0, f32::max)
}

/// A 1 m sheet hung from its top corners with a capsule 0.3 m behind it, after 1 s; the capsule
/// is then moved 50 m through the sheet to the far side by `mv`, one step taken: the peak
/// strain of the next 30 steps.
fn strain_after_collider_jump(mv: impl Fn(&mut World, xpbd_cloth::ColliderHandle, &Pose)) -> (f32, f32, bool) {
    let n = 21;
    let (positions, indices) = vertical_sheet(n, 1.0);
    let (mut world, cloth) = world_with_cloth(one_thread(), &positions, &indices, ClothParams::default());
    world.cloth_mut(cloth).unwrap().set_pinned(&[0, n as u32 - 1], None).unwrap();
    let desc = ColliderDesc { pose: Pose::at([0.5, -0.5, -0.3]), ..ColliderDesc::capsule(0.2, 0.3) };
    let capsule = world.add_collider(&desc).unwrap();
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    let before = max_strain(&world, cloth);
    mv(&mut world, capsule, &Pose::at([0.5, -0.5, 49.7]));
    let mut peak = 0.0f32;
    let reported = world.step(DT).is_err();
    peak = peak.max(max_strain(&world, cloth));
    for _ in 0..30 {
        world.step(DT).unwrap();
        peak = peak.max(max_strain(&world, cloth));
    }
    (before, peak, reported)
}

/// Test 7 of issue 31: a collider teleported 50 m through a hanging sheet leaves its strain as it
/// was (the capsule is never swept through it). `set_collider_pose` over the same jump would drag
/// the sheet along (99 498 % strain before the guard capped a collider's share of its bound):
/// the guard reports it and puts the sheet back, so it is never a silent wreck.
#[test]
fn a_collider_teleported_50_m_through_a_sheet_leaves_its_strain_unchanged() {
    let (before, teleported, reported) = strain_after_collider_jump(|w, c, p| w.teleport_collider(c, p).unwrap());
    assert!(!reported, "a teleport trips no guard");
    let (_, swept, reported) = strain_after_collider_jump(|w, c, p| w.set_collider_pose(c, p).unwrap());
    println!("strain before {:.3} %, after a teleport {:.3} %, after set_pose {:.3} % (reported: {reported})", before * 100.0, teleported * 100.0, swept * 100.0);
    assert!(teleported <= before.max(0.0) + 1e-3, "teleport: {teleported} (before {before})");
    assert!(teleported < 0.05);
    assert!(reported, "the set_pose jump was not reported");
    assert!(swept < 0.05, "after set_pose the sheet was left wrecked: {swept}");
}

/// A teleport's pose is the current pose at once and the target (no motion in the next step);
/// a bad pose changes nothing.
#[test]
fn a_teleported_collider_rests_at_its_new_pose() {
    let mut world = World::new(one_thread()).unwrap();
    let c = world.add_collider(&ColliderDesc::sphere(0.1)).unwrap();
    world.set_collider_pose(c, &Pose::at([1.0, 0.0, 0.0])).unwrap();
    let to = Pose::from_axis_angle([50.0, 0.0, 0.0], [0.0, 1.0, 0.0], std::f32::consts::FRAC_PI_2);
    world.teleport_collider(c, &to).unwrap();
    assert_eq!(world.collider(c).unwrap().pose(), world.collider(c).unwrap().target_pose());
    assert_eq!(world.collider(c).unwrap().pose().position, [50.0, 0.0, 0.0]);
    let bad = Pose { position: [f32::NAN, 0.0, 0.0], rotation: [0.0, 0.0, 0.0, 1.0] };
    assert!(world.teleport_collider(c, &bad).is_err());
    assert_eq!(world.collider(c).unwrap().pose().position, [50.0, 0.0, 0.0]);
}

/// Positions in render order.
fn read(world: &World, cloth: ClothHandle) -> Vec<[f32; 3]> {
    common::positions(world, cloth)
}

fn animated(world: &World, cloth: ClothHandle) -> Vec<[f32; 3]> {
    let c = world.cloth(cloth).unwrap();
    let mut out = vec![[0.0; 3]; c.vertex_count() as usize];
    c.read_animated_positions(&mut out).unwrap();
    out
}

fn distance(a: [f32; 3], b: [f32; 3]) -> f32 {
    xpbd_cloth::Vec3::from_array(a).distance(xpbd_cloth::Vec3::from_array(b))
}

/// The pose of a rigid motion at time t \[s\]: the rest mesh turned about the vertical axis through
/// (0.5, 0, 0) at `turn` rad/s and carried along x at `speed` m/s.
fn moving_pose(rest: &[[f32; 3]], t: f32, speed: f32, turn: f32) -> Vec<[f32; 3]> {
    let (s, c) = (turn * t).sin_cos();
    rest.iter().map(|p| {
        let (x, z) = (p[0] - 0.5, p[2]);
        [0.5 + c * x + s * z + speed * t, p[1], -s * x + c * z]
    }).collect()
}

/// Issue 31, tests 1 and "max distance 0 equals a pin": a sheet whose top row has max distance 0
/// on a pose moving at 10 m/s and turning 360°/s steps bit for bit as the same sheet with that
/// row pinned at the same targets, and the row reads back exactly on the pose.
#[test]
fn max_distance_zero_moves_a_vertex_bit_for_bit_as_a_pin() {
    let n = 12;
    let (rest, indices) = vertical_sheet(n, 1.0);
    let top: Vec<u32> = (0..n as u32).collect();
    let (mut world, pinned) = world_with_cloth(one_thread(), &rest, &indices, ClothParams::default());
    let mut desc = xpbd_cloth::ClothDesc::new(&rest, &indices);
    desc.params = ClothParams::default();
    let posed = world.add_cloth(&desc).unwrap();
    world.cloth_mut(pinned).unwrap().set_pinned(&top, None).unwrap();
    let mut d = vec![f32::INFINITY; rest.len()];
    top.iter().for_each(|&v| d[v as usize] = 0.0);
    let c = world.cloth_mut(posed).unwrap();
    c.set_max_distances(Some(&d)).unwrap();
    c.set_animated_pose(&rest, None).unwrap();
    let mut worst = 0.0f32;
    for step in 1..=90 {
        let pose = moving_pose(&rest, step as f32 * DT, 10.0, std::f32::consts::TAU);
        let targets: Vec<[f32; 3]> = top.iter().map(|&v| pose[v as usize]).collect();
        world.cloth_mut(pinned).unwrap().set_pin_targets(&top, &targets).unwrap();
        world.cloth_mut(posed).unwrap().set_animated_pose(&pose, None).unwrap();
        world.step(DT).unwrap();
        let (a, b) = (read(&world, pinned), read(&world, posed));
        let bits = |p: &Vec<[f32; 3]>| p.iter().flat_map(|v| v.map(f32::to_bits)).collect::<Vec<_>>();
        assert!(bits(&a) == bits(&b), "step {step}: the posed cloth left the pinned one");
        for &v in &top {
            worst = worst.max(distance(b[v as usize], pose[v as usize]));
        }
    }
    println!("max distance 0: largest distance from the pose {worst:e} m");
    assert_eq!(worst, 0.0);
}

/// Issue 31, test 2: max distance 5 cm (the top row 0) on a pose moving at 10 m/s and turning
/// 360°/s: after every step every vertex lies within 5 cm + 1e-5 m of its animated position.
#[test]
fn max_distance_holds_on_a_fast_turning_pose() {
    let n = 16;
    let (rest, indices) = vertical_sheet(n, 1.0);
    let (mut world, cloth) = world_with_cloth(one_thread(), &rest, &indices, ClothParams::default());
    let mut d = vec![0.05; rest.len()];
    d[..n].fill(0.0);
    let c = world.cloth_mut(cloth).unwrap();
    c.set_max_distances(Some(&d)).unwrap();
    c.set_animated_pose(&rest, None).unwrap();
    let (mut worst, mut strain) = (0.0f32, 0.0f32);
    for step in 1..=120 {
        let pose = moving_pose(&rest, step as f32 * DT, 10.0, std::f32::consts::TAU);
        world.cloth_mut(cloth).unwrap().set_animated_pose(&pose, None).unwrap();
        world.step(DT).unwrap();
        let (x, a) = (read(&world, cloth), animated(&world, cloth));
        worst = worst.max(x.iter().zip(&a).map(|(x, a)| distance(*x, *a)).fold(0.0, f32::max));
        strain = strain.max(max_strain(&world, cloth));
    }
    println!("max distance 5 cm: largest distance from the pose {:.6} m, peak strain {:.2} %", worst, strain * 100.0);
    assert!(worst <= 0.05 + 1e-5, "{worst}");
}

/// Issue 31, test 3: a cape (max distance 20 cm, top row kinematic) with a backstop 1 cm behind
/// a pose that runs backwards at 5 m/s into it: after every step no vertex is inside its backstop
/// sphere (to 1e-5 m).
#[test]
fn backstop_keeps_the_cape_outside_the_body() {
    let n = 16;
    let (rest, indices) = vertical_sheet(n, 1.0);
    let (mut world, cloth) = world_with_cloth(one_thread(), &rest, &indices, ClothParams::default());
    let v = rest.len();
    let mut d = vec![0.2; v];
    d[..n].fill(0.0);
    let (b, r) = (vec![0.01f32; v], vec![0.5f32; v]);
    let normals = vec![[0.0, 0.0, -1.0f32]; v]; // away from the body, which is on +z
    let c = world.cloth_mut(cloth).unwrap();
    c.set_max_distances(Some(&d)).unwrap();
    c.set_backstops(Some((&b, &r))).unwrap();
    c.set_animated_pose(&rest, Some(&normals)).unwrap();
    let mut deepest = f32::NEG_INFINITY;
    for step in 1..=120 {
        let t = step as f32 * DT;
        let pose: Vec<[f32; 3]> = rest.iter().map(|p| [p[0], p[1], p[2] - 5.0 * t]).collect();
        world.cloth_mut(cloth).unwrap().set_animated_pose(&pose, Some(&normals)).unwrap();
        world.step(DT).unwrap();
        for (x, a) in read(&world, cloth).iter().zip(&pose) {
            let centre = [a[0], a[1], a[2] + b[0] + r[0]];
            deepest = deepest.max(r[0] - distance(*x, centre));
        }
    }
    println!("backstop: deepest inside its sphere {deepest:e} m (negative: outside)");
    assert!(deepest <= 1e-5, "{deepest}");
}

/// Issue 31, test 4: one heavy triangle driven towards a resting pose with compliance α under
/// gravity settles α·m·g below it (m each corner's mass), within 1 % at 30, 60 and 144 Hz.
#[test]
fn anim_drive_hangs_alpha_m_g_below_the_pose_at_any_rate() {
    let positions = [[0.0, 0.0, 0.0], [0.1, 0.0, 0.0], [0.05, 0.0, 0.0866]];
    let indices = [0u32, 1, 2];
    let density = 100.0f32;
    let area = 0.5 * 0.1 * 0.0866;
    let m = density * area / 3.0;
    let alpha = 1e-2f32;
    let g = 9.81f32;
    for hz in [30.0f32, 60.0, 144.0] {
        let mut params = ClothParams::default();
        params.material.areal_density = density;
        params.linear_damping = 1.0;
        let (mut world, cloth) = world_with_cloth(one_thread(), &positions, &indices, params);
        let c = world.cloth_mut(cloth).unwrap();
        c.set_anim_drive(Some(&[alpha; 3])).unwrap();
        c.set_animated_pose(&positions, None).unwrap();
        for _ in 0..(10.0 * hz) as usize {
            world.step(1.0 / hz).unwrap();
        }
        let x = read(&world, cloth);
        let offset = -x.iter().map(|p| p[1]).sum::<f32>() / 3.0;
        let expected = alpha * m * g;
        println!("{hz} Hz: offset {offset:.6} m, alpha*m*g {expected:.6} m, error {:.3} %", (offset / expected - 1.0) * 100.0);
        assert!((offset / expected - 1.0).abs() < 0.01, "{hz} Hz: {offset} vs {expected}");
    }
}

/// Bad input never half-changes anything: wrong lengths, NaN, negative distances, welded copies
/// that disagree, joint matrices without a skin.
#[test]
fn bad_animation_input_is_rejected_and_changes_nothing() {
    let (rest, indices) = vertical_sheet(4, 1.0);
    let (mut world, cloth) = world_with_cloth(one_thread(), &rest, &indices, ClothParams::default());
    let c = world.cloth_mut(cloth).unwrap();
    assert!(c.set_animated_pose(&rest[1..], None).is_err());
    let mut nan = rest.clone();
    nan[3][1] = f32::NAN;
    assert!(c.set_animated_pose(&nan, None).is_err());
    assert!(c.set_max_distances(Some(&[-1.0; 16])).is_err());
    assert!(c.set_max_distances(Some(&[f32::NAN; 16])).is_err());
    assert!(c.set_anim_drive(Some(&[-1.0; 16])).is_err());
    assert!(c.set_backstops(Some((&[0.0; 16], &[-1.0; 16]))).is_err());
    assert!(c.set_joint_matrices(&[[0.0; 16]]).is_err());
    let mut out = vec![[0.0; 3]; 16];
    c.read_animated_positions(&mut out).unwrap();
    assert_eq!(out, rest, "the bind pose before any pose");
    world.step(DT).unwrap();
    assert_eq!(world.cloth(cloth).unwrap().pinned_particles().len(), 0);
}

/// Column-major 4×4 of uniform scale `s`, rotation `angle` about unit `axis`, translation `t`,
/// built entry by entry (Rodrigues), in f64.
fn srt(s: f64, axis: [f64; 3], angle: f64, t: [f64; 3]) -> [f64; 16] {
    let (sn, c) = angle.sin_cos();
    let [x, y, z] = axis;
    let r = [
        [c + x * x * (1.0 - c), x * y * (1.0 - c) - z * sn, x * z * (1.0 - c) + y * sn],
        [y * x * (1.0 - c) + z * sn, c + y * y * (1.0 - c), y * z * (1.0 - c) - x * sn],
        [z * x * (1.0 - c) - y * sn, z * y * (1.0 - c) + x * sn, c + z * z * (1.0 - c)],
    ];
    let mut m = [0.0; 16];
    for col in 0..3 {
        for row in 0..3 {
            m[col * 4 + row] = s * r[row][col];
        }
    }
    m[12..15].copy_from_slice(&t);
    m[15] = 1.0;
    m
}

fn mul(a: &[f64; 16], b: &[f64; 16]) -> [f64; 16] {
    let mut m = [0.0; 16];
    for col in 0..4 {
        for row in 0..4 {
            m[col * 4 + row] = (0..4).map(|k| a[k * 4 + row] * b[col * 4 + k]).sum();
        }
    }
    m
}

fn apply(m: &[f64; 16], p: [f64; 3]) -> [f64; 3] {
    std::array::from_fn(|row| m[row] * p[0] + m[4 + row] * p[1] + m[8 + row] * p[2] + m[12 + row])
}

/// Issue 31, test 5: the library's skinned pose equals linear blend skinning written here in
/// f64 (4 joints with unequal weights, rotation + translation + uniform scale, non-identity
/// inverse binds) to 1e-6 m, and kinematic vertices (max distance 0) read back on it.
#[test]
fn library_skinning_equals_an_independent_lbs() {
    let n = 6;
    let (rest, indices) = vertical_sheet(n, 1.0);
    let (mut world, cloth) = world_with_cloth(one_thread(), &rest, &indices, ClothParams::default());
    let axis = |a: [f64; 3]| {
        let l = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
        a.map(|c| c / l)
    };
    let binds: Vec<[f64; 16]> = (0..4).map(|j| srt(1.0, [0.0, 1.0, 0.0], 0.1 * j as f64, [-0.25 * j as f64, 0.1, 0.0])).collect();
    let worlds: Vec<[f64; 16]> = (0..4)
        .map(|j| srt(0.8 + 0.15 * j as f64, axis([1.0, 2.0 + j as f64, 0.5]), 0.4 + 0.5 * j as f64, [0.3 * j as f64, -0.2, 0.1 * j as f64]))
        .collect();
    let to_f32 = |m: &[f64; 16]| m.map(|c| c as f32);
    let joints: Vec<[u32; 4]> = (0..rest.len()).map(|i| [(i % 4) as u32, ((i + 1) % 4) as u32, ((i + 2) % 4) as u32, ((i + 3) % 4) as u32]).collect();
    let weights: Vec<[f32; 4]> = (0..rest.len()).map(|i| [0.4, 0.3, 0.2, 0.1].map(|w: f32| w + 0.01 * (i % 3) as f32)).collect();
    let skin = xpbd_cloth::SkinDesc {
        inverse_bind_matrices: &binds.iter().map(to_f32).collect::<Vec<_>>(),
        joint_indices: &joints,
        joint_weights: &weights,
    };
    let c = world.cloth_mut(cloth).unwrap();
    c.set_skin(Some(&skin)).unwrap();
    c.set_max_distances(Some(&vec![0.0; rest.len()])).unwrap();
    c.set_joint_matrices(&worlds.iter().map(to_f32).collect::<Vec<_>>()).unwrap();
    world.step(DT).unwrap();
    let (pose, x) = (animated(&world, cloth), read(&world, cloth));
    let mut worst = 0.0f64;
    for i in 0..rest.len() {
        let sum: f64 = weights[i].iter().map(|&w| w as f64).sum();
        let mut expected = [0.0f64; 3];
        for k in 0..4 {
            let j = joints[i][k] as usize;
            let p = apply(&mul(&worlds[j], &binds[j]), rest[i].map(|c| c as f64));
            for d in 0..3 {
                expected[d] += weights[i][k] as f64 / sum * p[d];
            }
        }
        for d in 0..3 {
            worst = worst.max((pose[i][d] as f64 - expected[d]).abs()).max((x[i][d] as f64 - expected[d]).abs());
        }
    }
    println!("LBS: largest difference from the f64 reference {worst:e} m");
    assert!(worst < 1e-6, "{worst}");
}

/// A 1 m cape (16², top row kinematic on the pose) worn by a frame that runs backwards along −z
/// at `speed` m/s and, at step 30, snaps round 90° about y in one step when `snap`; a torso
/// capsule in front of the cape moves with the frame. Returns (peak strain after the snap or the
/// same steps of a straight run, the smallest signed distance of a particle to the capsule).
fn worn_cape(linear: f32, angular: f32, snap: bool) -> (f32, f32) {
    let n = 16;
    let (rest, indices) = vertical_sheet(n, 1.0);
    let params = ClothParams { linear_inertia: linear, angular_inertia: angular, ..ClothParams::default() };
    let (mut world, cloth) = world_with_cloth(one_thread(), &rest, &indices, params);
    let origin = xpbd_cloth::Vec3::new(0.5, 0.0, 0.15);
    let torso_local = xpbd_cloth::Vec3::new(0.0, -0.4, 0.0);
    let capsule = world
        .add_collider(&ColliderDesc { pose: Pose::at((origin + torso_local).to_array()), ..ColliderDesc::capsule(0.1, 0.25) })
        .unwrap();
    let mut d = vec![f32::INFINITY; rest.len()];
    d[..n].fill(0.0);
    world.cloth_mut(cloth).unwrap().set_max_distances(Some(&d)).unwrap();
    let (mut peak, mut nearest) = (0.0f32, f32::INFINITY);
    for step in 0..=60 {
        let t = step as f32 * DT;
        let angle = if snap && step >= 30 { std::f32::consts::FRAC_PI_2 } else { 0.0 };
        let q = xpbd_cloth::Vec3::Y;
        let rotation = glam_quat(q, angle);
        let position = origin + xpbd_cloth::Vec3::new(0.0, 0.0, -speed_of(step) * t);
        let frame = |p: [f32; 3]| (rotate(rotation, xpbd_cloth::Vec3::from_array(p) - origin) + position).to_array();
        let pose: Vec<[f32; 3]> = rest.iter().map(|&p| frame(p)).collect();
        let c = world.cloth_mut(cloth).unwrap();
        c.set_reference_frame(position.to_array(), rotation).unwrap();
        c.set_animated_pose(&pose, None).unwrap();
        let torso = frame((origin + torso_local).to_array());
        world.set_collider_pose(capsule, &Pose { position: torso, rotation }).unwrap();
        world.step(DT).unwrap();
        if step >= 30 {
            peak = peak.max(max_strain(&world, cloth));
        }
        let collider = world.collider(capsule).unwrap();
        for x in read(&world, cloth) {
            nearest = nearest.min(collider.signed_distance(x));
        }
    }
    (peak, nearest)
}

fn speed_of(_step: usize) -> f32 {
    4.0
}

/// Unit quaternion `[x, y, z, w]` of `angle` about unit `axis`.
fn glam_quat(axis: xpbd_cloth::Vec3, angle: f32) -> [f32; 4] {
    let (s, c) = (angle / 2.0).sin_cos();
    [axis.x * s, axis.y * s, axis.z * s, c]
}

fn rotate(q: [f32; 4], v: xpbd_cloth::Vec3) -> xpbd_cloth::Vec3 {
    let u = xpbd_cloth::Vec3::new(q[0], q[1], q[2]);
    v + 2.0 * u.cross(u.cross(v) + q[3] * v)
}

/// Issue 31, test 6: with linear and angular inertia 0 the cape is carried with its character's
/// frame: a 90° snap turn stretches it no more than 1.2× a straight run does, and no particle
/// ends a step inside the torso capsule moving with the frame.
#[test]
fn a_snap_turn_in_local_space_stretches_the_cape_no_more_than_a_straight_run() {
    let (straight, _) = worn_cape(0.0, 0.0, false);
    let (snap, nearest) = worn_cape(0.0, 0.0, true);
    let (world_snap, world_nearest) = worn_cape(1.0, 1.0, true);
    println!(
        "inertia 0: straight run peak strain {:.3} %, snap turn {:.3} %, nearest to the torso {:.4} m; \
         inertia 1: snap turn {:.1} %, nearest {:.4} m",
        straight * 100.0, snap * 100.0, nearest, world_snap * 100.0, world_nearest
    );
    assert!(snap <= 1.2 * straight.max(1e-3), "snap {snap} vs straight {straight}");
    assert!(nearest >= 0.0, "a particle {nearest} m inside the torso");
}

/// `simulation_blend` 0 reads back the animated pose, 1 the simulation, 0.5 half way.
#[test]
fn simulation_blend_fades_the_read_back_between_pose_and_simulation() {
    let (rest, indices) = vertical_sheet(6, 1.0);
    let (mut world, cloth) = world_with_cloth(one_thread(), &rest, &indices, ClothParams::default());
    world.cloth_mut(cloth).unwrap().set_animated_pose(&rest, None).unwrap();
    for _ in 0..20 {
        world.step(DT).unwrap();
    }
    let simulated = read(&world, cloth);
    for (blend, expected) in [(0.0f32, rest.clone()), (0.5, rest.iter().zip(&simulated).map(|(a, x)| std::array::from_fn(|d| a[d] + 0.5 * (x[d] - a[d]))).collect())] {
        let c = world.cloth_mut(cloth).unwrap();
        c.set_params(ClothParams { simulation_blend: blend, ..*c.params() }).unwrap();
        let got = read(&world, cloth);
        let worst = got.iter().zip(&expected).map(|(a, b)| distance(*a, *b)).fold(0.0, f32::max);
        assert!(worst < 1e-6, "blend {blend}: {worst}");
    }
}

/// Every render read of one cloth: positions, normals, both interpolated at `alpha`, and the
/// positions and normals `write_vertices` puts in a buffer at `alpha`.
fn render_reads(world: &World, cloth: ClothHandle, alpha: f32) -> [Vec<[f32; 3]>; 6] {
    let c = world.cloth(cloth).unwrap();
    let n = c.vertex_count() as usize;
    let mut r: [Vec<[f32; 3]>; 6] = std::array::from_fn(|_| vec![[0.0; 3]; n]);
    c.read_positions(&mut r[0]).unwrap();
    c.read_normals(&mut r[1]).unwrap();
    c.read_positions_interpolated(alpha, &mut r[2]).unwrap();
    c.read_normals_interpolated(alpha, &mut r[3]).unwrap();
    let layout = xpbd_cloth::VertexLayout { stride: 24, position_offset: Some(0), normal_offset: Some(12) };
    let mut buffer = vec![0u8; 24 * n];
    c.write_vertices(&mut buffer, layout, alpha).unwrap();
    let floats: Vec<f32> = buffer.chunks(4).map(|b| f32::from_ne_bytes(b.try_into().unwrap())).collect();
    for (v, f) in floats.chunks(6).enumerate() {
        r[4][v] = [f[0], f[1], f[2]];
        r[5][v] = [f[3], f[4], f[5]];
    }
    r
}

fn bits(v: &[[f32; 3]]) -> Vec<[u32; 3]> {
    v.iter().map(|p| p.map(f32::to_bits)).collect()
}

/// `simulation_blend` applies to every render read alike: on a pose that moves every step, the
/// interpolated reads and the vertex buffer at alpha 1 are `read_positions` / `read_normals` bit
/// for bit, at alpha 0 what those returned after the step before, at blend 0 the pose lerped
/// between the two steps' poses, and the bounds are exactly the box of the two blended states.
#[test]
fn simulation_blend_applies_to_interpolated_reads_vertex_buffers_and_bounds() {
    let (rest, indices) = vertical_sheet(6, 1.0);
    let (mut world, cloth) = world_with_cloth(one_thread(), &rest, &indices, ClothParams::default());
    let pose_at = |k: usize| moving_pose(&rest, k as f32 * DT, 3.0, 2.0);
    for blend in [0.25f32, 0.0] {
        let c = world.cloth_mut(cloth).unwrap();
        c.set_params(ClothParams { simulation_blend: blend, ..*c.params() }).unwrap();
        let mut before = None;
        for k in 0..12 {
            world.cloth_mut(cloth).unwrap().set_animated_pose(&pose_at(k), None).unwrap();
            world.step(DT).unwrap();
            let now = render_reads(&world, cloth, 1.0);
            for i in 2..6 {
                assert_eq!(bits(&now[i]), bits(&now[i % 2]), "blend {blend}, step {k}: read {i} at alpha 1");
            }
            if let Some(before) = before.replace(now.clone()) {
                let at0 = render_reads(&world, cloth, 0.0);
                for i in 2..6 {
                    assert_eq!(bits(&at0[i]), bits(&before[i % 2]), "blend {blend}, step {k}: read {i} at alpha 0");
                }
                let all: Vec<_> = now[0].iter().chain(&before[0]).copied().collect();
                let lo = std::array::from_fn(|d| all.iter().map(|p| p[d]).fold(f32::INFINITY, f32::min));
                let hi = std::array::from_fn(|d| all.iter().map(|p| p[d]).fold(f32::NEG_INFINITY, f32::max));
                assert_eq!(world.cloth(cloth).unwrap().bounds(), (lo, hi), "blend {blend}, step {k}: bounds");
            }
            if blend == 0.0 && k > 0 {
                let half = render_reads(&world, cloth, 0.5);
                let (a, b) = (pose_at(k - 1), pose_at(k));
                for (v, p) in half[2].iter().enumerate() {
                    let mid: [f32; 3] = std::array::from_fn(|d| 0.5 * (a[v][d] + b[v][d]));
                    assert!(distance(*p, mid) < 1e-6, "blend 0, step {k}, vertex {v}: {p:?} vs the pose {mid:?}");
                }
                assert_eq!(bits(&half[4]), bits(&half[2]), "blend 0, step {k}: vertex buffer at 0.5");
            }
        }
    }
}

/// Issue 31, test 7 (respawn): a cape worn in its character's frame (inertia 0.5) with a torso
/// capsule; at step 30 the root, the cape and the capsule jump 50 m and turn 90° (the cape and
/// the capsule in one `World::teleport`): the step after, and the 20 after it, no
/// edge is stretched 5 %, and no guard trips.
#[test]
fn a_respawn_50_m_away_and_turned_90_degrees_does_not_stretch_the_cape() {
    let n = 16;
    let (rest, indices) = vertical_sheet(n, 1.0);
    let params = ClothParams { linear_inertia: 0.5, angular_inertia: 0.5, ..ClothParams::default() };
    let (mut world, cloth) = world_with_cloth(one_thread(), &rest, &indices, params);
    let origin = xpbd_cloth::Vec3::new(0.5, 0.0, 0.15);
    let torso_local = xpbd_cloth::Vec3::new(0.0, -0.4, 0.0);
    let capsule = world
        .add_collider(&ColliderDesc { pose: Pose::at((origin + torso_local).to_array()), ..ColliderDesc::capsule(0.1, 0.25) })
        .unwrap();
    let mut d = vec![f32::INFINITY; rest.len()];
    d[..n].fill(0.0);
    world.cloth_mut(cloth).unwrap().set_max_distances(Some(&d)).unwrap();
    let jump = xpbd_cloth::Vec3::new(50.0, 0.0, 0.0);
    let turn = glam_quat(xpbd_cloth::Vec3::Y, std::f32::consts::FRAC_PI_2);
    let (mut before, mut after) = (0.0f32, 0.0f32);
    for step in 0..=50 {
        let walked = xpbd_cloth::Vec3::new(0.0, 0.0, -2.0 * step as f32 * DT);
        // The root: walking along −z, and after the respawn the same walk carried by the jump.
        let (rotation, position) = if step < 30 {
            ([0.0, 0.0, 0.0, 1.0], origin + walked)
        } else {
            (turn, rotate(turn, origin + walked) + jump)
        };
        if step == 30 {
            // The relative transform from the old root to the new one: rotation `turn` about the
            // world origin, then `jump` (the walk's step between is the usual motion).
            // One call for the character; a stale handle in it first moves nothing.
            let x = read(&world, cloth);
            let stale = world.add_collider(&ColliderDesc::sphere(0.1)).unwrap();
            world.remove_collider(stale).unwrap();
            assert!(world.teleport(&[cloth], &[capsule, stale], jump.to_array(), turn).is_err());
            assert_eq!(read(&world, cloth), x, "nothing moved");
            let old = world.collider(capsule).unwrap().pose();
            world.teleport(&[cloth], &[capsule], jump.to_array(), turn).unwrap();
            let moved = rotate(turn, xpbd_cloth::Vec3::from_array(old.position)) + jump;
            let now = world.collider(capsule).unwrap().pose().position;
            assert!(distance(now, moved.to_array()) < 1e-4, "{now:?} vs {moved}");
        }
        let frame = |p: [f32; 3]| (rotate(rotation, xpbd_cloth::Vec3::from_array(p) - origin) + position).to_array();
        let pose: Vec<[f32; 3]> = rest.iter().map(|&p| frame(p)).collect();
        let c = world.cloth_mut(cloth).unwrap();
        c.set_reference_frame(position.to_array(), rotation).unwrap();
        c.set_animated_pose(&pose, None).unwrap();
        world.set_collider_pose(capsule, &Pose { position: frame((origin + torso_local).to_array()), rotation }).unwrap();
        world.step(DT).expect("no guard trips");
        let strain = max_strain(&world, cloth);
        if step < 30 { before = before.max(strain) } else { after = after.max(strain) }
    }
    println!("respawn: peak strain before {:.3} %, from the step after {:.3} %", before * 100.0, after * 100.0);
    assert!(after < 0.05, "{after}");
}

/// Nothing changes for existing users: a cloth given a moving reference frame at inertia 1 (the
/// default) steps bit for bit as one without, and an animated pose with no constraints set
/// changes no bit either.
#[test]
fn a_reference_frame_at_inertia_1_and_a_bare_pose_change_no_bit() {
    let n = 10;
    let (rest, indices) = vertical_sheet(n, 1.0);
    let (mut world, plain) = world_with_cloth(one_thread(), &rest, &indices, ClothParams::default());
    let framed = world.add_cloth(&xpbd_cloth::ClothDesc::new(&rest, &indices)).unwrap();
    for c in [plain, framed] {
        world.cloth_mut(c).unwrap().set_pinned(&[0, n as u32 - 1], None).unwrap();
    }
    for step in 0..60 {
        let turn = glam_quat(xpbd_cloth::Vec3::Y, 0.05 * step as f32);
        let c = world.cloth_mut(framed).unwrap();
        c.set_reference_frame([step as f32 * 0.1, 0.0, 0.0], turn).unwrap();
        c.set_animated_pose(&moving_pose(&rest, step as f32 * DT, 3.0, 1.0), None).unwrap();
        world.step(DT).unwrap();
        let bits = |c| read(&world, c).iter().flat_map(|v| v.map(f32::to_bits)).collect::<Vec<_>>();
        assert!(bits(plain) == bits(framed), "step {step}");
    }
}

/// The deepest a particle of a 1 m cape (16², top row kinematic on the pose) gets inside a leg
/// capsule that swings 8 cm into it and back once a second in the frame of a character running
/// along −z at 4 m/s, the leg on the −z side (the running side): signed distance \[m\], < 0 inside.
fn deepest_in_a_swinging_leg(linear: f32, angular: f32) -> f32 {
    let n = 16;
    let (rest, indices) = vertical_sheet(n, 1.0);
    let params = ClothParams { linear_inertia: linear, angular_inertia: angular, ..ClothParams::default() };
    let (mut world, cloth) = world_with_cloth(one_thread(), &rest, &indices, params);
    let (radius, clear) = (0.1, 0.1 + params.collision_thickness + 0.03);
    let leg_local = |t: f32| xpbd_cloth::Vec3::new(0.5, -0.6, -clear + 0.08 * (std::f32::consts::TAU * t).sin().max(0.0));
    let leg = world.add_collider(&ColliderDesc { pose: Pose::at(leg_local(0.0).to_array()), ..ColliderDesc::capsule(radius, 0.25) }).unwrap();
    let mut d = vec![f32::INFINITY; rest.len()];
    d[..n].fill(0.0);
    world.cloth_mut(cloth).unwrap().set_max_distances(Some(&d)).unwrap();
    let mut deepest = f32::INFINITY;
    for step in 0..=120 {
        let t = step as f32 * DT;
        let offset = xpbd_cloth::Vec3::new(0.0, 0.0, -4.0 * t);
        let pose: Vec<[f32; 3]> = rest.iter().map(|&p| (xpbd_cloth::Vec3::from_array(p) + offset).to_array()).collect();
        let c = world.cloth_mut(cloth).unwrap();
        c.set_reference_frame(offset.to_array(), [0.0, 0.0, 0.0, 1.0]).unwrap();
        c.set_animated_pose(&pose, None).unwrap();
        world.set_collider_pose(leg, &Pose::at((leg_local(t) + offset).to_array())).unwrap();
        world.step(DT).unwrap();
        let collider = world.collider(leg).unwrap();
        for x in read(&world, cloth) {
            deepest = deepest.min(collider.signed_distance(x));
        }
    }
    deepest
}

/// Issue 31, test 6, with a collider moving in the character's frame as well as with it: at
/// inertia 0 (and the 0.25 a worn skirt uses) no particle ends a step inside the swinging leg.
/// The contacts march from the particles' starts before the frame's carry; from the carried
/// starts a leg the carry had moved towards would find them inside at the start of a substep
/// and only push them out slowly.
#[test]
fn a_leg_swinging_into_cloth_carried_by_its_frame_does_not_sink_into_it() {
    for (linear, angular) in [(0.0, 0.0), (0.25, 0.0)] {
        let deepest = deepest_in_a_swinging_leg(linear, angular);
        println!("linear inertia {linear}, angular {angular}: deepest {:.2} mm", deepest * 1e3);
        assert!(deepest >= 0.0, "inertia {linear}/{angular}: a particle {:.2} mm inside the leg", -deepest * 1e3);
    }
}

/// A 1 m vertical sheet (8 × 8) with a one-joint skin (identity inverse bind), its top corners
/// kinematic (max distance 0) and 0.1 m elsewhere, and the joint's world matrix a translation
/// by `t` \[m\] (column-major).
fn skinned_sheet(t: [f32; 3]) -> (World, ClothHandle, [[f32; 16]; 1], Vec<[f32; 3]>) {
    let n = 8;
    let (rest, indices) = vertical_sheet(n, 1.0);
    let (world, cloth) = world_with_cloth(one_thread(), &rest, &indices, ClothParams::default());
    let mut world = world;
    let identity: [f32; 16] = std::array::from_fn(|k| if k % 5 == 0 { 1.0 } else { 0.0 });
    let (joints, weights) = (vec![[0u32; 4]; rest.len()], vec![[1.0f32, 0.0, 0.0, 0.0]; rest.len()]);
    let c = world.cloth_mut(cloth).unwrap();
    c.set_skin(Some(&xpbd_cloth::SkinDesc { inverse_bind_matrices: &[identity], joint_indices: &joints, joint_weights: &weights })).unwrap();
    let mut d = vec![0.1f32; rest.len()];
    (d[0], d[n - 1]) = (0.0, 0.0);
    c.set_max_distances(Some(&d)).unwrap();
    let mut moved = identity;
    moved[12..15].copy_from_slice(&t);
    (world, cloth, [moved], rest)
}

/// Issue finding 1: an engine creates a cape from bind-pose data at the origin and spawns the
/// character 10 m away. The first pose puts the cloth on it at rest (each particle exactly at its
/// skinned position, velocity 0), so every step passes the guard and the cape hangs on the
/// character: the kinematic corners on their pose, every particle within its max distance.
#[test]
fn a_worn_cloth_starts_on_its_first_pose_metres_away() {
    let t = [10.0, 0.0, -3.0];
    let (mut world, cloth, joints, rest) = skinned_sheet(t);
    world.cloth_mut(cloth).unwrap().set_joint_matrices(&joints).unwrap();
    let skinned: Vec<[f32; 3]> = rest.iter().map(|p| [p[0] + t[0], p[1] + t[1], p[2] + t[2]]).collect();
    assert_eq!(read(&world, cloth), skinned, "put on the pose before the first step");
    assert!(world.cloth(cloth).unwrap().particle_velocities().iter().all(|v| *v == xpbd_cloth::Vec3::ZERO));
    for step in 0..120 {
        world.cloth_mut(cloth).unwrap().set_joint_matrices(&joints).unwrap();
        world.step(DT).unwrap_or_else(|e| panic!("step {step}: {e}"));
    }
    let x = read(&world, cloth);
    for (k, (x, a)) in x.iter().zip(&skinned).enumerate() {
        let limit = if k == 0 || k == 7 { 0.0 } else { 0.1 + 1e-5 };
        assert!(distance(*x, *a) <= limit, "vertex {k}: {x:?} vs pose {a:?}");
    }
    // The same with a pose the engine skinned, 20 m away, and the anim drive alone.
    let (rest, indices) = vertical_sheet(8, 1.0);
    let (mut world, cloth) = world_with_cloth(one_thread(), &rest, &indices, ClothParams::default());
    let pose: Vec<[f32; 3]> = rest.iter().map(|p| [p[0] + 20.0, p[1], p[2]]).collect();
    world.cloth_mut(cloth).unwrap().set_anim_drive(Some(&vec![1e-3; rest.len()])).unwrap();
    for step in 0..60 {
        world.cloth_mut(cloth).unwrap().set_animated_pose(&pose, None).unwrap();
        world.step(DT).unwrap_or_else(|e| panic!("step {step}: {e}"));
    }
    let worst = read(&world, cloth).iter().zip(&pose).map(|(x, a)| distance(*x, *a)).fold(0.0, f32::max);
    assert!(worst < 0.01, "hangs on its pose: {worst} m");
}

/// The guard counts how far the pose pulls the particles that follow it, as it counts a pin's
/// move from its particle: a worn sheet whose free particles (max distance ∞) stayed 10 m behind
/// a pose that walked away in small steps is pulled onto it in one step when max distances of
/// 0.1 m are set, and that step passes (before, only the pose's own 6 cm move was counted).
#[test]
fn the_guard_counts_the_pull_of_the_pose_on_the_particles_that_follow_it() {
    let (rest, indices) = vertical_sheet(8, 1.0);
    let weightless = WorldDesc { gravity: [0.0; 3], ..one_thread() };
    let (mut world, cloth) = world_with_cloth(weightless, &rest, &indices, ClothParams::default());
    world.cloth_mut(cloth).unwrap().set_max_distances(Some(&vec![f32::INFINITY; rest.len()])).unwrap();
    let shifted = |dx: f32| rest.iter().map(|p| [p[0] + dx, p[1], p[2]]).collect::<Vec<_>>();
    for step in 0..=160 {
        world.cloth_mut(cloth).unwrap().set_animated_pose(&shifted(step as f32 * 0.0625), None).unwrap();
        world.step(DT).unwrap();
    }
    assert_eq!(read(&world, cloth), rest, "nothing follows a pose at max distance infinity");
    let c = world.cloth_mut(cloth).unwrap();
    c.set_max_distances(Some(&vec![0.1; rest.len()])).unwrap();
    c.set_animated_pose(&shifted(10.0), None).unwrap();
    world.step(DT).expect("the pull onto the pose is inside the guard's bound");
    let worst = read(&world, cloth).iter().zip(&shifted(10.0)).map(|(x, a)| distance(*x, *a)).fold(0.0, f32::max);
    assert!(worst <= 0.1 + 1e-5, "{worst}");
}

/// Issue finding 2: joint matrices are checked as the docs define them (finite, translation
/// within ±1e5 m, last row (0, 0, 0, 1), nonsingular, rotation · axis scale without shear), the
/// inverse bind matrices as affine and nonsingular; each error names the list and the joint, and
/// changes nothing. Real engines' matrices (f32 products of rotations and scales) pass.
#[test]
fn joint_matrices_are_validated_per_joint_and_f32_round_off_passes() {
    let (mut world, cloth, joints, rest) = skinned_sheet([0.5, 0.0, 0.0]);
    let c = world.cloth_mut(cloth).unwrap();
    c.set_joint_matrices(&joints).unwrap();
    let (hash, mut before) = (c.state_hash(), vec![[0.0; 3]; rest.len()]);
    c.read_animated_positions(&mut before).unwrap();
    let bad = |edit: &dyn Fn(&mut [f32; 16])| {
        let mut m = joints[0];
        edit(&mut m);
        m
    };
    type Edit<'a> = &'a dyn Fn(&mut [f32; 16]);
    let cases: [(Edit, &str); 6] = [
        (&|m| m[12] = 1e9, "translation"),
        (&|m| m[13] = f32::NAN, "finite"),
        (&|m| m[4] = 0.5, "shear"),
        (&|m| m[3] = 0.5, "last row"),
        (&|m| m[..12].fill(0.0), "nonsingular"),
        (&|m| m[0] = 0.0, "nonsingular"),
    ];
    for (edit, word) in cases {
        // Joint 0 of a 2-joint list would be a length error: the skin has 1 joint, so it is at 0.
        match c.set_joint_matrices(&[bad(edit)]) {
            Err(e @ xpbd_cloth::ClothError::InvalidValue { name: "joint_matrices", position: 0, .. }) => {
                assert!(e.to_string().contains(word), "{e} lacks {word:?}")
            }
            other => panic!("{word}: {other:?}"),
        }
    }
    let mut after = vec![[0.0; 3]; rest.len()];
    c.read_animated_positions(&mut after).unwrap();
    assert_eq!((c.state_hash(), after), (hash, before), "nothing changed");
    // An f32 hierarchy of 50 joints turned about different axes and scaled uniformly, the last
    // one along its own axes (what an engine composes without shear): round-off only.
    let mut m = glam::Mat4::IDENTITY;
    for k in 0..50 {
        let axis = glam::Vec3::new(1.0, k as f32, 2.0).normalize();
        let scale = if k == 49 { glam::Vec3::new(1.5, 0.5, 1.0) } else { glam::Vec3::splat(1.01) };
        m *= glam::Mat4::from_scale_rotation_translation(scale, glam::Quat::from_axis_angle(axis, 0.7), glam::Vec3::X);
    }
    c.set_joint_matrices(&[m.to_cols_array()]).expect("a real engine's matrix");
    // Inverse bind matrices: all zero (singular) and projective are rejected, naming the joint.
    let (j, w) = (vec![[1u32, 0, 0, 0]; rest.len()], vec![[1.0f32, 0.0, 0.0, 0.0]; rest.len()]);
    let identity = glam::Mat4::IDENTITY.to_cols_array();
    for bind in [[0.0; 16], bad(&|m| m[7] = 2.0)] {
        let desc = xpbd_cloth::SkinDesc { inverse_bind_matrices: &[identity, bind], joint_indices: &j, joint_weights: &w };
        let e = c.set_skin(Some(&desc)).unwrap_err();
        assert!(matches!(e, xpbd_cloth::ClothError::InvalidValue { name: "inverse_bind_matrices", position: 1, .. }), "{e:?}");
    }
}

/// Issue finding 5 (docs: a no-op `set_params` moves no particle and changes no velocity): a
/// skinned, moving sheet with kinematic corners (max distance 0), and one driven by a given pose,
/// step bit for bit as their twins when the unchanged settings are set again at step 30.
#[test]
fn a_no_op_set_params_changes_no_bit_of_a_posed_cloth() {
    for skinned in [true, false] {
        let run = |no_op: bool| {
            let (mut world, cloth, _, rest) = skinned_sheet([0.0; 3]);
            for step in 0..60 {
                let c = world.cloth_mut(cloth).unwrap();
                let t = step as f32 * 0.02;
                if skinned {
                    let mut m = glam::Mat4::from_rotation_translation(glam::Quat::from_rotation_y(t), glam::Vec3::new(t, 0.0, 0.0));
                    m.w_axis.y = 0.1 * t;
                    c.set_joint_matrices(&[m.to_cols_array()]).unwrap();
                } else {
                    c.set_animated_pose(&moving_pose(&rest, step as f32 * DT, 3.0, 1.0), None).unwrap();
                }
                if no_op && step == 30 {
                    let params = *c.params();
                    c.set_params(params).unwrap();
                }
                world.step(DT).unwrap();
            }
            let c = world.cloth(cloth).unwrap();
            (read(&world, cloth), c.state_hash())
        };
        let (plain, touched) = (run(false), run(true));
        assert_eq!(bits_of(&plain.0), bits_of(&touched.0), "positions, skinned: {skinned}");
        assert_eq!(plain.1, touched.1, "state hash (velocities too), skinned: {skinned}");
    }
}

fn bits_of(x: &[[f32; 3]]) -> Vec<[u32; 3]> {
    x.iter().map(|p| p.map(f32::to_bits)).collect()
}

/// Putting the cloth on happens once, when a pose and a limit first meet, whichever comes last:
/// a bare pose 5 m away moves nothing; the anim drive set next puts every particle that is not
/// pinned on the pose at rest, the pinned corner staying at its pin; a later pose is not snapped to.
#[test]
fn the_cloth_is_put_on_when_pose_and_limits_first_meet_pins_staying() {
    let (rest, indices) = vertical_sheet(6, 1.0);
    let (mut world, cloth) = world_with_cloth(one_thread(), &rest, &indices, ClothParams::default());
    let shifted = |dx: f32| rest.iter().map(|p| [p[0] + dx, p[1], p[2]]).collect::<Vec<_>>();
    let c = world.cloth_mut(cloth).unwrap();
    c.set_pinned(&[0], None).unwrap();
    c.set_animated_pose(&shifted(5.0), None).unwrap();
    assert_eq!(read(&world, cloth), rest, "a pose without limits moves nothing");
    world.step(DT).unwrap();
    let c = world.cloth_mut(cloth).unwrap();
    let pin = c.particle_positions()[0].to_array();
    c.set_anim_drive(Some(&vec![1e-3; rest.len()])).unwrap();
    let mut expected = shifted(5.0);
    expected[0] = pin;
    assert_eq!(read(&world, cloth), expected, "on the pose, the pinned vertex at its pin");
    assert!(world.cloth(cloth).unwrap().particle_velocities().iter().all(|v| *v == xpbd_cloth::Vec3::ZERO));
    let c = world.cloth_mut(cloth).unwrap();
    c.set_animated_pose(&shifted(5.5), None).unwrap();
    assert_eq!(read(&world, cloth), expected, "only the first meeting puts the cloth on");
}
