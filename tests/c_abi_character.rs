//! Character cloth through the C ABI (issue 31): the same animated scene driven through the
//! exported `xpbd_cloth_set_animated_pose` / `set_max_distances` / `set_backstops` /
//! `set_anim_drive` / skin calls steps bit for bit as through the Rust API, collider teleports
//! work, and bad input returns a specific code with nothing changed.

mod ffi_common;

use ffi_common::{bits, c_cloth, c_positions, c_world, hanging_grid, last_message, ok};
use std::ptr::null;
use xpbd_cloth::ffi::*;
use xpbd_cloth::{ClothDesc, ClothParams, World, WorldDesc};

const DT: f32 = 1.0 / 60.0;

/// The pose at step k: the rest mesh carried along x at 3 m/s.
fn pose(rest: &[[f32; 3]], k: usize) -> Vec<[f32; 3]> {
    rest.iter().map(|p| [p[0] + 3.0 * DT * k as f32, p[1], p[2]]).collect()
}

#[test]
fn an_animated_cloth_steps_the_same_bits_through_c_and_rust() {
    let n = 10;
    let (rest, indices) = hanging_grid(n);
    let v = rest.len();
    let mut d = vec![0.05f32; v];
    d[..n].fill(0.0);
    let (b, r) = (vec![0.01f32; v], vec![0.3f32; v]);
    let drive = vec![1e-3f32; v];
    let world = c_world(1);
    let cloth = c_cloth(world, &rest, &indices);
    // SAFETY: every array holds `v` elements (of 3 floats for poses) and outlives its call.
    unsafe {
        ok(xpbd_cloth_set_max_distances(cloth, d.as_ptr(), v as u32));
        ok(xpbd_cloth_set_backstops(cloth, b.as_ptr(), r.as_ptr(), v as u32));
        ok(xpbd_cloth_set_anim_drive(cloth, drive.as_ptr(), v as u32));
    }
    let mut rust = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let mut desc = ClothDesc::new(&rest, &indices);
    desc.params = ClothParams::default();
    let handle = rust.add_cloth(&desc).unwrap();
    let c = rust.cloth_mut(handle).unwrap();
    c.set_max_distances(Some(&d)).unwrap();
    c.set_backstops(Some((&b, &r))).unwrap();
    c.set_anim_drive(Some(&drive)).unwrap();
    for k in 0..60 {
        let p = pose(&rest, k);
        // SAFETY: `p` holds `v` 3-vectors.
        ok(unsafe { xpbd_cloth_set_animated_pose(cloth, p.as_ptr().cast(), null(), v as u32) });
        ok(xpbd_world_step(world, DT));
        rust.cloth_mut(handle).unwrap().set_animated_pose(&p, None).unwrap();
        rust.step(DT).unwrap();
        let mut out = vec![[0.0f32; 3]; v];
        rust.cloth(handle).unwrap().read_positions(&mut out).unwrap();
        assert_eq!(bits(&c_positions(cloth)), bits(&out), "step {k}");
    }
    let mut animated = vec![[0.0f32; 3]; v];
    // SAFETY: `animated` holds `v` 3-vectors.
    ok(unsafe { xpbd_cloth_read_animated_positions(cloth, animated.as_mut_ptr().cast(), v as u32) });
    assert_eq!(animated, pose(&rest, 59));
    ok(xpbd_world_destroy(world));
}

#[test]
fn bad_character_input_returns_its_code_and_changes_nothing() {
    let (rest, indices) = hanging_grid(4);
    let world = c_world(1);
    let cloth = c_cloth(world, &rest, &indices);
    let v = rest.len() as u32;
    let negative = vec![-1.0f32; v as usize];
    let identity = [1.0f32, 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.];
    // SAFETY: arrays hold the counts passed (or are NULL where tested).
    unsafe {
        assert_eq!(xpbd_cloth_set_max_distances(cloth, negative.as_ptr(), v), XpbdResult::InvalidArgument);
        assert_eq!(xpbd_cloth_set_max_distances(cloth, negative.as_ptr(), v - 1), XpbdResult::BufferSizeMismatch);
        assert_eq!(xpbd_cloth_set_backstops(cloth, negative.as_ptr(), null(), v), XpbdResult::NullPointer);
        assert_eq!(xpbd_cloth_set_animated_pose(cloth, null(), null(), v), XpbdResult::NullPointer);
        assert_eq!(xpbd_cloth_set_joint_matrices(cloth, identity.as_ptr(), 1), XpbdResult::InvalidArgument);
        let joints = vec![[5u32, 0, 0, 0]; v as usize];
        let weights = vec![[1.0f32, 0.0, 0.0, 0.0]; v as usize];
        let skin = XpbdSkinDesc { joint_count: 1, inverse_bind_matrices: identity.as_ptr(), joint_indices: joints.as_ptr().cast(), joint_weights: weights.as_ptr().cast() };
        assert_eq!(xpbd_cloth_set_skin(cloth, &skin), XpbdResult::InvalidArgument);
        let joints = vec![[0u32; 4]; v as usize];
        let skin = XpbdSkinDesc { joint_indices: joints.as_ptr().cast(), ..skin };
        ok(xpbd_cloth_set_skin(cloth, &skin));
        ok(xpbd_cloth_set_joint_matrices(cloth, identity.as_ptr(), 1));
        ok(xpbd_cloth_set_max_distances(cloth, vec![0.0f32; v as usize].as_ptr(), v));
        let (position, rotation) = ([f32::NAN, 0.0, 0.0], [0.0f32, 0.0, 0.0, 1.0]);
        let mut collider = XpbdColliderId::default();
        let desc = XpbdColliderDesc { radius: 0.1, position: [0.0, 5.0, 0.0], ..xpbd_default_collider_desc() };
        ok(xpbd_collider_create(world, &desc, &mut collider));
        assert_eq!(xpbd_collider_teleport(collider, position.as_ptr(), rotation.as_ptr()), XpbdResult::InvalidArgument);
        ok(xpbd_collider_teleport(collider, [50.0f32, 0.0, 0.0].as_ptr(), rotation.as_ptr()));
        let (mut p, mut q) = ([0.0f32; 3], [0.0f32; 4]);
        ok(xpbd_collider_get_pose(collider, p.as_mut_ptr(), q.as_mut_ptr()));
        assert_eq!(p, [50.0, 0.0, 0.0]);
        // The character in one call: cloth and collider 10 m along y, all or nothing.
        let up = [0.0f32, 10.0, 0.0];
        let before = c_positions(cloth);
        let other = c_world(1);
        let foreign = c_cloth(other, &rest, &indices);
        let bad = [cloth, foreign];
        assert_eq!(xpbd_world_teleport(world, bad.as_ptr(), 2, &collider, 1, up.as_ptr(), rotation.as_ptr()), XpbdResult::InvalidId);
        assert_eq!(xpbd_world_teleport(world, &cloth, 1, &collider, 1, up.as_ptr(), bad_quaternion().as_ptr()), XpbdResult::InvalidArgument);
        assert_eq!(bits(&c_positions(cloth)), bits(&before), "nothing moved");
        ok(xpbd_world_teleport(world, &cloth, 1, &collider, 1, up.as_ptr(), rotation.as_ptr()));
        ok(xpbd_collider_get_pose(collider, p.as_mut_ptr(), q.as_mut_ptr()));
        assert_eq!(p, [50.0, 10.0, 0.0]);
        assert!(c_positions(cloth).iter().zip(&before).all(|(a, b)| (a[1] - b[1] - 10.0).abs() < 1e-5));
        ok(xpbd_world_destroy(other));
        let bad_rotation = [0.0f32, 0.0, 0.0, 2.0];
        assert_eq!(xpbd_cloth_set_reference_frame(cloth, p.as_ptr(), bad_rotation.as_ptr()), XpbdResult::InvalidArgument);
        assert_eq!(xpbd_cloth_set_reference_frame(cloth, null(), rotation.as_ptr()), XpbdResult::NullPointer);
        ok(xpbd_cloth_set_reference_frame(cloth, [0.0f32; 3].as_ptr(), rotation.as_ptr()));
    }
    ok(xpbd_world_step(world, DT));
    // The teleport carried the skin's joints with the cloth: the kinematic cloth stays 10 m up.
    let up: Vec<[f32; 3]> = rest.iter().map(|p| [p[0], p[1] + 10.0, p[2]]).collect();
    assert_eq!(bits(&c_positions(cloth)), bits(&up), "skinned at the teleported bind pose");
    ok(xpbd_world_destroy(world));
}

fn bad_quaternion() -> [f32; 4] {
    [0.0, 0.0, 0.0, 2.0]
}

/// The new-user trial's spawn (issue findings 1 and 2): a skinned cape created at the origin
/// whose joint is 10 m away starts on it, so no step is unstable and it hangs there; a joint
/// matrix beyond ±1e5 m, sheared or singular returns INVALID_ARGUMENT naming the joint and
/// leaves the pose as it was.
#[test]
fn a_cape_skinned_10_m_away_starts_there_and_bad_joint_matrices_are_rejected() {
    let n = 8;
    let (rest, indices) = hanging_grid(n);
    let v = rest.len();
    let world = c_world(1);
    let cloth = c_cloth(world, &rest, &indices);
    let identity = [1.0f32, 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.];
    let (joints, weights) = (vec![[0u32; 4]; v], vec![[1.0f32, 0.0, 0.0, 0.0]; v]);
    let mut d = vec![0.1f32; v];
    (d[0], d[n - 1]) = (0.0, 0.0);
    let mut spawn = identity;
    spawn[12] = 10.0;
    let skinned: Vec<[f32; 3]> = rest.iter().map(|p| [p[0] + 10.0, p[1], p[2]]).collect();
    // SAFETY: every array holds the counts passed and outlives its call.
    unsafe {
        let skin = XpbdSkinDesc { joint_count: 1, inverse_bind_matrices: identity.as_ptr(), joint_indices: joints.as_ptr().cast(), joint_weights: weights.as_ptr().cast() };
        ok(xpbd_cloth_set_skin(cloth, &skin));
        ok(xpbd_cloth_set_max_distances(cloth, d.as_ptr(), v as u32));
        for step in 0..120 {
            ok(xpbd_cloth_set_joint_matrices(cloth, spawn.as_ptr(), 1));
            assert_eq!(xpbd_world_step(world, DT), XpbdResult::Ok, "step {step}: {}", last_message());
        }
        let x = c_positions(cloth);
        assert_eq!((x[0], x[n - 1]), (skinned[0], skinned[n - 1]), "kinematic corners on the pose");
        assert!(x.iter().zip(&skinned).all(|(x, a)| (0..3).map(|c| (x[c] - a[c]).powi(2)).sum::<f32>().sqrt() <= 0.1 + 1e-5));
        let mut bad = spawn;
        bad[12] = 1e9;
        let mut sheared = spawn;
        sheared[4] = 0.5;
        let mut flat = spawn;
        flat[10] = 0.0;
        for (m, word) in [(bad, "1e5"), (sheared, "shear"), (flat, "nonsingular")] {
            assert_eq!(xpbd_cloth_set_joint_matrices(cloth, m.as_ptr(), 1), XpbdResult::InvalidArgument);
            let message = last_message();
            assert!(message.contains("joint_matrices") && message.contains("position 0") && message.contains(word), "{message}");
        }
        let mut animated = vec![[0.0f32; 3]; v];
        ok(xpbd_cloth_read_animated_positions(cloth, animated.as_mut_ptr().cast(), v as u32));
        assert_eq!(bits(&animated), bits(&skinned), "the pose is unchanged");
        let zero = [0.0f32; 16];
        let skin = XpbdSkinDesc { joint_count: 1, inverse_bind_matrices: zero.as_ptr(), joint_indices: joints.as_ptr().cast(), joint_weights: weights.as_ptr().cast() };
        assert_eq!(xpbd_cloth_set_skin(cloth, &skin), XpbdResult::InvalidArgument);
        assert!(last_message().contains("inverse_bind_matrices"), "{}", last_message());
        ok(xpbd_cloth_set_joint_matrices(cloth, spawn.as_ptr(), 1));
    }
    ok(xpbd_world_step(world, DT));
    ok(xpbd_world_destroy(world));
}
