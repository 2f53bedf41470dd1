//! Ids through the C ABI never come back to life: a slot reused until its generation is spent is
//! retired, so an id kept from a destroyed world, cloth, collider or mesh shape is answered with
//! `XPBD_RESULT_INVALID_ID` however many objects were created after it, and never reaches a new one.

mod ffi_common;

use ffi_common::{c_cloth, c_world, ok};
use xpbd_cloth::ffi::*;

/// One triangle: the smallest cloth.
fn triangle(world: XpbdWorldId) -> XpbdClothId {
    c_cloth(world, &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], &[0, 1, 2])
}

fn vertex_count(cloth: XpbdClothId) -> XpbdResult {
    let mut n = 0;
    // SAFETY: valid out-parameter.
    unsafe { xpbd_cloth_vertex_count(cloth, &mut n) }
}

/// 65 536 cloths created one after the other in one world, each destroyed before the next (so
/// each reuses the slot the last freed, the quickest way to spend a generation): were generations
/// to wrap, the newest would carry the first one's id. The first id stays invalid, and destroying
/// it leaves the newest cloth alive.
#[test]
fn a_destroyed_cloth_id_stays_invalid_after_its_slot_is_spent() {
    let world = c_world(1);
    let first = triangle(world);
    ok(xpbd_cloth_destroy(first));
    for _ in 0..65_534 {
        ok(xpbd_cloth_destroy(triangle(world)));
    }
    let newest = triangle(world);
    assert_eq!(vertex_count(first), XpbdResult::InvalidId);
    assert_eq!(xpbd_cloth_destroy(first), XpbdResult::InvalidId);
    assert_eq!(vertex_count(newest), XpbdResult::Ok, "the stale id reached the newest cloth");
    ok(xpbd_world_destroy(world));
}

/// The same for worlds (the process-wide table): 65 536 worlds created in turn.
#[test]
fn a_destroyed_world_id_stays_invalid_after_its_slot_is_spent() {
    let first = c_world(1);
    ok(xpbd_world_destroy(first));
    for _ in 0..65_534 {
        ok(xpbd_world_destroy(c_world(1)));
    }
    let newest = c_world(1);
    assert_eq!(xpbd_world_destroy(first), XpbdResult::InvalidId);
    assert_eq!(xpbd_world_set_gravity(newest, 0.0, -9.81, 0.0), XpbdResult::Ok, "the stale id reached the newest world");
    ok(xpbd_world_destroy(newest));
}

/// Mesh shape ids keep 7 bits of generation: 128 shapes created in turn (the newest would carry
/// the first one's id if generations wrapped) keep the first id invalid and the newest alive.
#[test]
fn a_destroyed_mesh_shape_id_stays_invalid_after_its_slot_is_spent() {
    let world = c_world(1);
    let positions = [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let indices = [0u32, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3];
    let desc = XpbdMeshShapeDesc {
        positions: positions.as_ptr().cast(),
        vertex_count: 4,
        indices: indices.as_ptr(),
        triangle_count: 4,
        cell_size: 0.1,
        ..xpbd_default_mesh_shape_desc()
    };
    let create = || {
        let mut id = XpbdMeshShapeId::default();
        // SAFETY: the arrays hold the counts given; `id` is writable.
        ok(unsafe { xpbd_mesh_shape_create(world, &desc, &mut id) });
        id
    };
    let first = create();
    ok(xpbd_mesh_shape_destroy(first));
    for _ in 0..126 {
        ok(xpbd_mesh_shape_destroy(create()));
    }
    let newest = create();
    assert_eq!(xpbd_mesh_shape_destroy(first), XpbdResult::InvalidId);
    assert_eq!(xpbd_mesh_shape_destroy(newest), XpbdResult::Ok, "the stale id named another shape");
    ok(xpbd_world_destroy(world));
}
