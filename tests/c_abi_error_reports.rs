//! What a C caller is told when a call is refused: one code per kind of mistake (a wrong array
//! length is `BUFFER_SIZE_MISMATCH` for every array, reads and writes alike), messages that name
//! the real problem and the object the caller passed, and `xpbd_world_teleport` refusing an id
//! listed twice with nothing moved.

mod ffi_common;

use ffi_common::{bits, c_cloth, c_positions, c_world, hanging_grid, last_message, ok, state_hash as hash};
use std::ptr::null;
use xpbd_cloth::ffi::*;

/// Assert `result` is `code` and the thread's message contains every one of `words`.
fn refused(result: XpbdResult, code: XpbdResult, words: &[&str]) {
    let message = last_message();
    assert_eq!(result, code, "{message}");
    for w in words {
        assert!(message.contains(w), "{message:?} lacks {w:?}");
    }
}

#[test]
fn teleport_refuses_a_cloth_or_collider_listed_twice_and_moves_nothing() {
    let (rest, indices) = hanging_grid(4);
    let world = c_world(1);
    let (cloth, other) = (c_cloth(world, &rest, &indices), c_cloth(world, &rest, &indices));
    let mut collider = XpbdColliderId::default();
    let desc = XpbdColliderDesc { radius: 0.1, position: [0.0, 5.0, 0.0], ..xpbd_default_collider_desc() };
    let (up, rotation) = ([0.0f32, 10.0, 0.0], [0.0f32, 0.0, 0.0, 1.0]);
    let before = (bits(&c_positions(cloth)), hash(cloth), hash(other));
    let pose = |c| {
        let (mut p, mut q) = ([0.0f32; 3], [0.0f32; 4]);
        // SAFETY: 3 and 4 writable floats.
        ok(unsafe { xpbd_collider_get_pose(c, p.as_mut_ptr(), q.as_mut_ptr()) });
        p
    };
    // SAFETY: every array holds the count passed and outlives its call.
    unsafe {
        ok(xpbd_collider_create(world, &desc, &mut collider));
        let cloths = [cloth, other, cloth];
        let r = xpbd_world_teleport(world, cloths.as_ptr(), 3, &collider, 1, up.as_ptr(), rotation.as_ptr());
        refused(r, XpbdResult::InvalidArgument, &["xpbd_world_teleport", "`cloths` at list position 2", "listed earlier"]);
        let colliders = [collider, collider];
        let r = xpbd_world_teleport(world, &cloth, 1, colliders.as_ptr(), 2, up.as_ptr(), rotation.as_ptr());
        refused(r, XpbdResult::InvalidArgument, &["`colliders` at list position 1"]);
        assert_eq!((bits(&c_positions(cloth)), hash(cloth), hash(other)), before, "no cloth moved");
        assert_eq!(pose(collider), [0.0, 5.0, 0.0], "the collider did not move");
        // Each once: each moves once, 10 m.
        let cloths = [cloth, other];
        ok(xpbd_world_teleport(world, cloths.as_ptr(), 2, &collider, 1, up.as_ptr(), rotation.as_ptr()));
    }
    assert_eq!(pose(collider), [0.0, 15.0, 0.0]);
    for c in [cloth, other] {
        let moved = c_positions(c).iter().zip(&rest).map(|(a, b)| (a[1] - b[1] - 10.0).abs()).fold(0.0, f32::max);
        assert!(moved < 1e-5, "moved by 10 m once: off by {moved}");
    }
    ok(xpbd_world_destroy(world));
}

/// Every per-vertex or per-joint array of the wrong length is `BUFFER_SIZE_MISMATCH`, as for
/// `xpbd_cloth_read_positions`; a NULL array with count 0 clears.
#[test]
fn a_wrong_array_length_is_a_buffer_size_mismatch_for_every_character_call() {
    let (rest, indices) = hanging_grid(4);
    let world = c_world(1);
    let cloth = c_cloth(world, &rest, &indices);
    let v = rest.len() as u32;
    let values = vec![0.1f32; v as usize];
    let mut out = vec![[0.0f32; 3]; v as usize];
    let identity = [1.0f32, 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.];
    let mismatch = XpbdResult::BufferSizeMismatch;
    // SAFETY: every array holds at least the count passed.
    unsafe {
        refused(xpbd_cloth_read_positions(cloth, out.as_mut_ptr().cast(), v - 1), mismatch, &[]);
        refused(xpbd_cloth_set_max_distances(cloth, values.as_ptr(), v - 1), mismatch, &["`vertex_count` is 15, the cloth has 16"]);
        refused(xpbd_cloth_set_anim_drive(cloth, values.as_ptr(), v - 1), mismatch, &["`vertex_count`"]);
        refused(xpbd_cloth_set_backstops(cloth, values.as_ptr(), values.as_ptr(), v - 1), mismatch, &["`vertex_count`"]);
        refused(xpbd_cloth_set_animated_pose(cloth, rest.as_ptr().cast(), null(), v - 1), mismatch, &[]);
        refused(xpbd_cloth_read_animated_positions(cloth, out.as_mut_ptr().cast(), v - 1), mismatch, &[]);
        let joints = vec![[0u32; 4]; v as usize];
        let weights = vec![[1.0f32, 0.0, 0.0, 0.0]; v as usize];
        let skin = XpbdSkinDesc { joint_count: 1, inverse_bind_matrices: identity.as_ptr(), joint_indices: joints.as_ptr().cast(), joint_weights: weights.as_ptr().cast() };
        ok(xpbd_cloth_set_skin(cloth, &skin));
        let two = [identity, identity];
        refused(xpbd_cloth_set_joint_matrices(cloth, two.as_ptr().cast(), 2), mismatch, &[]);
        // NULL clears, with the count 0 or the cloth's; any other count is still a mismatch.
        ok(xpbd_cloth_set_max_distances(cloth, values.as_ptr(), v));
        ok(xpbd_cloth_set_max_distances(cloth, null(), 0));
        ok(xpbd_cloth_set_max_distances(cloth, null(), v));
        ok(xpbd_cloth_set_anim_drive(cloth, null(), 0));
        ok(xpbd_cloth_set_backstops(cloth, null(), null(), 0));
        refused(xpbd_cloth_set_max_distances(cloth, null(), 3), mismatch, &[]);
    }
    ok(xpbd_world_destroy(world));
}

#[test]
fn messages_name_the_real_problem() {
    let (rest, indices) = hanging_grid(4);
    let world = c_world(1);
    let cloth = c_cloth(world, &rest, &indices);
    let v = rest.len() as u32;
    let mut vb = vec![0.0f32; 8 * v as usize];
    let mut out = vec![[0.0f32; 3]; v as usize];
    // SAFETY: every array holds at least the count passed.
    unsafe {
        let r = xpbd_cloth_write_vertices(cloth, vb.as_mut_ptr().cast(), 32, -1, -1, v, 0.0);
        refused(r, XpbdResult::InvalidArgument, &["both `position_offset` and `normal_offset` are skipped (-1)"]);
        assert!(!last_message().contains("= 0"), "{}", last_message());
        // f32 values print as f32.
        let r = xpbd_cloth_read_positions_interpolated(cloth, -0.1, out.as_mut_ptr().cast(), v);
        refused(r, XpbdResult::InvalidArgument, &["`alpha` = -0.1 is invalid"]);
        // Gravity states the limit it checks.
        refused(xpbd_world_set_gravity(world, 0.0, 1e7, 0.0), XpbdResult::InvalidArgument, &["`gravity` = 10000000", "within ±1e6"]);
        let desc = XpbdWorldDesc { gravity: [0.0, -1e7, 0.0], ..xpbd_default_world_desc() };
        let mut w = XpbdWorldId::default();
        refused(xpbd_world_create(&desc, &mut w), XpbdResult::InvalidArgument, &["within ±1e6"]);
    }
    // A NULL array's message gives the count the caller passed (triangles, not indices).
    let cd = XpbdClothDesc { positions: rest.as_ptr().cast(), vertex_count: v, indices: null(), triangle_count: 4, ..xpbd_default_cloth_desc() };
    let mut other = XpbdClothId::default();
    // SAFETY: `positions` holds `v` vertices; `indices` is NULL, which the call must refuse.
    unsafe { refused(xpbd_cloth_create(world, &cd, &mut other), XpbdResult::NullPointer, &["`indices` is NULL but its count is 4"]) };
    assert_eq!(other, XpbdClothId::default(), "a refused create writes no id");
    // A cloth call after its world was destroyed names the cloth.
    ok(xpbd_world_destroy(world));
    let stale = format!("cloth id {:#018x} is stale: its world", cloth.id);
    let mut count = 0u32;
    // SAFETY: valid out-parameters and buffers.
    unsafe {
        refused(xpbd_cloth_vertex_count(cloth, &mut count), XpbdResult::InvalidId, &[&stale]);
        refused(xpbd_cloth_read_positions(cloth, out.as_mut_ptr().cast(), v), XpbdResult::InvalidId, &[&stale]);
        refused(xpbd_cloth_set_max_distances(cloth, null(), 0), XpbdResult::InvalidId, &[&stale]);
        let mut instance = XpbdClothId::default();
        refused(xpbd_cloth_create_instance(cloth, &mut instance), XpbdResult::InvalidId, &[&stale]);
    }
    refused(xpbd_cloth_destroy(cloth), XpbdResult::InvalidId, &[&stale]);
}
