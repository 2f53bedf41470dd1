//! Robustness through the C ABI (docs/robustness.md): the explosion guard's result code, message
//! and status; teleport and its argument checks; snapshots (bitwise round trip, rejected buffers
//! with their codes).

mod ffi_common;

use ffi_common::{c_hanging_cloth, c_positions, c_world, last_message, ok, state_hash as hash};
use xpbd_cloth::ffi::*;

const DT: f32 = 1.0 / 60.0;

fn status(cloth: XpbdClothId) -> XpbdClothStatus {
    let mut s = XpbdClothStatus::default();
    // SAFETY: valid out-parameter.
    ok(unsafe { xpbd_cloth_get_status(cloth, &mut s) });
    s
}

fn set_params(cloth: XpbdClothId, change: impl FnOnce(&mut XpbdClothParams)) -> XpbdResult {
    let mut p = xpbd_default_cloth_params();
    // SAFETY: valid out- and in-parameters.
    unsafe {
        ok(xpbd_cloth_get_params(cloth, &mut p));
        change(&mut p);
        xpbd_cloth_set_params(cloth, &p)
    }
}

#[test]
fn unstable_cloth_is_reported_by_id_restored_and_the_other_cloth_steps_on() {
    let (world, reference) = (c_world(1), c_world(1));
    let (calm, wild) = (c_hanging_cloth(world, 8), c_hanging_cloth(world, 8));
    let ref_calm = c_hanging_cloth(reference, 8);
    let _ref_wild = c_hanging_cloth(reference, 8);
    for _ in 0..10 {
        ok(xpbd_world_step(world, DT));
        ok(xpbd_world_step(reference, DT));
    }
    // Free: the tethers would keep a pinned cloth within reach of its pins at any force.
    let corners = [0u32, 7];
    // SAFETY: two vertex indices.
    ok(unsafe { xpbd_cloth_unpin(wild, corners.as_ptr(), 2) });
    ok(set_params(wild, |p| p.external_acceleration = [0.0, 1.0e6, 0.0]));
    let before = hash(wild);

    assert_eq!(xpbd_world_step(world, DT), XpbdResult::SimulationUnstable);
    let message = last_message();
    println!("{message}");
    assert!(message.starts_with(&format!("xpbd_world_step: cloth {:#018x}: particle", wild.id)), "{message}");
    assert!(message.contains("restored to its last good state"), "{message}");
    ok(xpbd_world_step(reference, DT));
    assert_eq!(hash(wild), before, "not restored");
    assert_eq!(hash(calm), hash(ref_calm), "the other cloth was disturbed");

    let s = status(wild);
    assert_eq!(s.unstable_steps, 1);
    assert_eq!(s.kind, XpbdInstabilityKind::DisplacementBound as u32);
    assert_eq!(s.recovery, XpbdUnstableRecovery::LastGoodState as u32);
    assert!(s.displacement > 100.0 && s.bound > 0.0 && s.bound < 5.0, "{s:?}");
    assert_eq!(status(wild), XpbdClothStatus::default(), "reading did not clear it");
    assert_eq!(status(calm), XpbdClothStatus::default());

    // Rest-pose recovery: the vertices go back to where they were created, at rest.
    ok(set_params(wild, |p| p.unstable_recovery = XpbdUnstableRecovery::RestPose as u32));
    assert_eq!(xpbd_world_step(world, DT), XpbdResult::SimulationUnstable);
    let (created, _) = ffi_common::hanging_grid(8);
    assert_eq!(c_positions(wild), created);
    // Disabled: the step goes through (and the cloth flies off).
    ok(set_params(wild, |p| p.unstable_recovery = XpbdUnstableRecovery::Disabled as u32));
    ok(xpbd_world_step(world, DT));
    assert_eq!(status(wild).unstable_steps, 1, "only the rest-pose failure since the last read");
    // An unknown recovery value is an argument error, not undefined behaviour.
    assert_eq!(set_params(wild, |p| p.unstable_recovery = 7), XpbdResult::InvalidArgument);
    assert!(last_message().contains("`unstable_recovery` = 7"));
    ok(xpbd_world_destroy(world));
    ok(xpbd_world_destroy(reference));
}

#[test]
fn teleport_moves_without_velocity_and_rejects_bad_transforms() {
    let world = c_world(1);
    let cloth = c_hanging_cloth(world, 8);
    for _ in 0..30 {
        ok(xpbd_world_step(world, DT));
    }
    let before = c_positions(cloth);
    let h = hash(cloth);
    let identity = [0.0f32, 0.0, 0.0, 1.0];
    let null = std::ptr::null();
    // SAFETY: valid ids; pointers to 3 and 4 floats, or NULL (rejected before any read).
    unsafe {
        for (t, q) in [([f32::NAN, 0.0, 0.0], identity), ([0.0; 3], [0.0, 0.0, 0.6, 0.6]), ([0.0; 3], [0.0; 4])] {
            assert_eq!(xpbd_cloth_teleport(cloth, t.as_ptr(), q.as_ptr()), XpbdResult::InvalidArgument);
            assert_eq!(hash(cloth), h);
        }
        assert_eq!(xpbd_cloth_teleport(cloth, null, identity.as_ptr()), XpbdResult::NullPointer);
        assert_eq!(xpbd_cloth_teleport(cloth, [0.0f32; 3].as_ptr(), null), XpbdResult::NullPointer);
        assert_eq!(
            xpbd_cloth_teleport(XpbdClothId::default(), [0.0f32; 3].as_ptr(), identity.as_ptr()),
            XpbdResult::InvalidId
        );
        ok(xpbd_cloth_teleport(cloth, [100.0f32, 0.0, 0.0].as_ptr(), identity.as_ptr()));
    }
    let after = c_positions(cloth);
    for (a, b) in after.iter().zip(&before) {
        assert!((a[0] - b[0] - 100.0).abs() < 1e-4 && a[1] == b[1] && a[2] == b[2]);
    }
    ok(xpbd_world_step(world, DT));
    let strain = ffi_common::c_stats(cloth).max_edge_strain;
    assert!(strain < 0.05, "{strain}");
    ok(xpbd_world_destroy(world));
}

fn save(cloth: XpbdClothId) -> Vec<u8> {
    let mut size = 0usize;
    // SAFETY: valid out-parameter and a buffer of `size` bytes.
    unsafe {
        ok(xpbd_cloth_state_size(cloth, &mut size));
        let mut buf = vec![0u8; size];
        ok(xpbd_cloth_save_state(cloth, buf.as_mut_ptr().cast(), size));
        buf
    }
}

fn restore(cloth: XpbdClothId, buf: &[u8]) -> XpbdResult {
    // SAFETY: `buf` is readable for its length.
    unsafe { xpbd_cloth_restore_state(cloth, buf.as_ptr().cast(), buf.len()) }
}

#[test]
fn snapshot_round_trip_is_bitwise_and_bad_buffers_get_their_codes() {
    let world = c_world(0);
    let cloth = c_hanging_cloth(world, 12);
    for _ in 0..20 {
        ok(xpbd_world_step(world, DT));
    }
    let snapshot = save(cloth);
    let run = |steps| {
        (0..steps)
            .map(|_| {
                ok(xpbd_world_step(world, DT));
                hash(cloth)
            })
            .collect::<Vec<_>>()
    };
    let first = run(25);
    ok(restore(cloth, &snapshot));
    assert_eq!(run(25), first);

    let h = hash(cloth);
    let mut corrupted = snapshot.clone();
    corrupted[100] ^= 1;
    let other_world = c_world(1);
    let other_mesh = save(c_hanging_cloth(other_world, 9));
    for (buf, code, words) in [
        (&corrupted[..], XpbdResult::InvalidSnapshot, "checksum"),
        (&other_mesh[..], XpbdResult::InvalidSnapshot, "another mesh"),
        (&snapshot[..snapshot.len() - 8], XpbdResult::BufferSizeMismatch, "buffer passed"),
        (&[0u8; 128][..], XpbdResult::InvalidSnapshot, "magic"),
        (&[0u8; 64][..], XpbdResult::InvalidSnapshot, "shorter than any snapshot"),
    ] {
        assert_eq!(restore(cloth, buf), code);
        let message = last_message();
        assert!(
            message.starts_with("xpbd_cloth_restore_state: snapshot rejected") && message.contains(words),
            "{message}"
        );
        assert_eq!(hash(cloth), h);
    }
    // SAFETY: NULL with a non-zero size is rejected before any access; the size is checked before
    // anything is written.
    unsafe {
        assert_eq!(xpbd_cloth_restore_state(cloth, std::ptr::null(), 10), XpbdResult::NullPointer);
        let mut small = [0u8; 16];
        assert_eq!(xpbd_cloth_save_state(cloth, small.as_mut_ptr().cast(), 16), XpbdResult::BufferSizeMismatch);
        // A size no buffer can have (beyond isize::MAX bytes) is a length mismatch too, refused
        // before any slice is made over it.
        let huge = isize::MAX as usize + 1;
        assert_eq!(xpbd_cloth_save_state(cloth, small.as_mut_ptr().cast(), huge), XpbdResult::BufferSizeMismatch);
        assert!(last_message().contains("do not fit in memory"), "{}", last_message());
        assert_eq!(xpbd_cloth_restore_state(cloth, small.as_ptr().cast(), huge), XpbdResult::BufferSizeMismatch);
    }
    ok(xpbd_world_destroy(world));
    ok(xpbd_world_destroy(other_world));
}
