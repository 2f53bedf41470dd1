//! `xpbd_live_world_count` / `xpbd_live_cloth_count` / `xpbd_live_collider_count` count exactly
//! what is alive. One test in its own binary (its own process), so no other test's objects are
//! counted.

mod ffi_common;

use ffi_common::{c_hanging_cloth, c_world, ok};
use xpbd_cloth::ffi::*;

/// (worlds, cloths, colliders) alive in this process.
fn counts() -> (u32, u32, u32) {
    let (mut worlds, mut cloths, mut colliders) = (u32::MAX, u32::MAX, u32::MAX);
    // SAFETY: valid out-parameters.
    unsafe {
        ok(xpbd_live_world_count(&mut worlds));
        ok(xpbd_live_cloth_count(&mut cloths));
        ok(xpbd_live_collider_count(&mut colliders));
    }
    (worlds, cloths, colliders)
}

fn c_sphere(world: XpbdWorldId) -> XpbdColliderId {
    let mut id = XpbdColliderId::default();
    // SAFETY: valid descriptor and out-parameter.
    ok(unsafe { xpbd_collider_create(world, &xpbd_default_collider_desc_for(XpbdColliderKind::Sphere as u32), &mut id) });
    id
}

#[test]
fn live_counts_follow_creation_and_destruction() {
    assert_eq!(counts(), (0, 0, 0));
    let (a, b) = (c_world(1), c_world(1));
    let cloths = [c_hanging_cloth(a, 4), c_hanging_cloth(a, 4), c_hanging_cloth(b, 4)];
    let colliders = [c_sphere(a), c_sphere(b), c_sphere(b)];
    assert_eq!(counts(), (2, 3, 3));
    ok(xpbd_cloth_destroy(cloths[0]));
    ok(xpbd_collider_destroy(colliders[1]));
    assert_eq!(counts(), (2, 2, 2));
    // Destroying a world releases its cloths and colliders; a failed (double) destroy changes
    // nothing.
    ok(xpbd_world_destroy(a));
    assert_eq!(xpbd_world_destroy(a), XpbdResult::InvalidId);
    assert_eq!(xpbd_collider_destroy(colliders[1]), XpbdResult::InvalidId);
    assert_eq!(counts(), (1, 1, 1));
    ok(xpbd_world_destroy(b));
    assert_eq!(counts(), (0, 0, 0));
    // SAFETY: a NULL out-parameter is reported, not written.
    unsafe {
        assert_eq!(xpbd_live_world_count(std::ptr::null_mut()), XpbdResult::NullPointer);
        assert_eq!(xpbd_live_cloth_count(std::ptr::null_mut()), XpbdResult::NullPointer);
        assert_eq!(xpbd_live_collider_count(std::ptr::null_mut()), XpbdResult::NullPointer);
    }
}
