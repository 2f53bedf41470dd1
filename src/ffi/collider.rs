//! Collider exports: create, move, read back, destroy. A collider lives in a world and is shared
//! by every cloth of that world whose `collision_mask` intersects its `layers`; its id encodes
//! the world, and every call runs under that world's lock.

use super::args::{OutParam, required};
use super::boundary::ffi_boundary;
use super::collider_desc::XpbdColliderDesc;
use super::error::{FfiError, XpbdResult};
use super::ids::{MAX_PER_WORLD, XpbdColliderId, XpbdWorldId, object_slot};
use super::mesh_shape::mesh_shape_handle;
use super::registry::{with_collider, with_world};
use crate::collision::Pose;

fn capacity_exceeded() -> FfiError {
    FfiError::new(
        XpbdResult::CapacityExceeded,
        format!("the world already has {MAX_PER_WORLD} colliders; destroy one first"),
    )
}

/// Create a collider in `world` and write its id to `*out_collider`. It rests at `desc->position`
/// / `desc->rotation` until moved with `xpbd_collider_set_pose`, and every cloth of the world whose
/// `collision_mask` shares a bit with `desc->layers` collides with it from the next step on.
///
/// Everything is validated first; on error nothing is created and `*out_collider` is not
/// written. `desc` is read during the call only.
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (`desc` or `out_collider` NULL), `XPBD_RESULT_INVALID_ID`,
/// `XPBD_RESULT_WORLD_POISONED`, `XPBD_RESULT_INVALID_ARGUMENT` (unknown `kind`; a dimension the
/// kind uses that is NaN, <= 0 or above 1e4 m (box rounding: above the smallest half extent); a
/// NaN/Inf position or one beyond +-1e5 m; a rotation that is not a unit quaternion; friction
/// outside 0..=100; a mesh collider whose `mesh_shape` is not a live shape of `world`; the
/// message names the field), `XPBD_RESULT_CAPACITY_EXCEEDED`. Thread-safe;
/// serialised with other calls on `world`.
///
/// # Safety
/// `desc` points to a valid `XpbdColliderDesc`; `out_collider` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_collider_create(
    world: XpbdWorldId,
    desc: *const XpbdColliderDesc,
    out_collider: *mut XpbdColliderId,
) -> XpbdResult {
    ffi_boundary("xpbd_collider_create", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let (desc, out) = unsafe { (required(desc, "desc")?, OutParam::new(out_collider, "out_collider")?) };
        let mut core_desc = desc.to_core()?;
        let is_mesh = core_desc.kind == crate::collision::ColliderKind::Mesh;
        // A null shape id, or one of another world, is a bad field whatever the world: checked
        // before the world is looked up, as an unknown kind is.
        let bad_shape = || {
            FfiError::new(
                XpbdResult::InvalidArgument,
                format!("`mesh_shape` {:#018x} is not a live mesh shape of this world", desc.mesh_shape.id),
            )
        };
        if is_mesh && !desc.mesh_shape.unpack().is_ok_and(|(shape_world, ..)| shape_world == world) {
            return Err(bad_shape());
        }
        let id = with_world(world, |w| {
            if is_mesh {
                core_desc.mesh_shape = mesh_shape_handle(w, desc.mesh_shape).map_err(|_| bad_shape())?;
                if let crate::world::MeshShapeStatus::Failed(why) = w.mesh_shape_status(core_desc.mesh_shape)? {
                    return Err(FfiError::new(
                        XpbdResult::InvalidArgument,
                        format!("`mesh_shape` {:#018x} failed to build ({why}): it can take no collider", desc.mesh_shape.id),
                    ));
                }
            }
            // Below MAX_PER_WORLD live colliders; a retired slot can still push the index past an
            // id's 15 bits, then the collider is removed again.
            if w.collider_count() >= MAX_PER_WORLD {
                return Err(capacity_exceeded());
            }
            let handle = w.add_collider(&core_desc)?;
            match object_slot(handle.index, handle.generation, MAX_PER_WORLD) {
                Some((index, generation)) => Ok(XpbdColliderId::pack(world, index, generation)),
                None => {
                    w.remove_collider(handle)?;
                    Err(capacity_exceeded())
                }
            }
        })?;
        out.write(id);
        Ok(())
    })
}

/// Set the pose the collider reaches by the end of the next `xpbd_world_step`: `position` in
/// metres (`float[3]`, finite, each within +-1e5) and `rotation` local -> world as a unit
/// quaternion (`float[4]`, x, y, z, w; length 1 +- 1e-3, renormalised). Every substep of that
/// step sees the collider interpolated from its current pose (position linearly, rotation along
/// the shortest arc), and friction acts relative to that motion, so a moving collider carries
/// the cloth lying on it instead of teleporting under it. Calling it again before the step
/// replaces the target; call it every frame to drive a collider from an animated bone or body.
/// Both arrays are read during the call only.
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (`position` or `rotation` NULL),
/// `XPBD_RESULT_INVALID_ARGUMENT` (NaN/Inf or out-of-range position, non-unit or non-finite
/// rotation; the target is unchanged), `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`.
/// Thread-safe; serialised with the world's step.
///
/// # Safety
/// `position` holds 3 floats and `rotation` 4 floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_collider_set_pose(
    collider: XpbdColliderId,
    position: *const f32,
    rotation: *const f32,
) -> XpbdResult {
    ffi_boundary("xpbd_collider_set_pose", || {
        // SAFETY: the caller's promise in `# Safety` above; `[f32; N]` has f32's alignment.
        let pose = unsafe {
            Pose {
                position: *required(position.cast::<[f32; 3]>(), "position")?,
                rotation: *required(rotation.cast::<[f32; 4]>(), "rotation")?,
            }
        };
        with_collider(collider, |w, handle| Ok(w.set_collider_pose(handle, &pose)?))
    })
}

/// Move the collider to a pose at once: `position` in metres (`float[3]`, finite, each within
/// +-1e5) and `rotation` local -> world as a unit quaternion (`float[4]`, x, y, z, w; length
/// 1 +- 1e-3, renormalised). Its current pose and its target both become this pose, so the next
/// `xpbd_world_step` sees it resting there: nothing is swept between the old and the new pose
/// (a respawn through a cape does not tear it), friction carries nothing, and the explosion guard
/// does not count the jump. A cloth it lands inside is pushed out at most
/// `max_depenetration_speed`; teleport the cloth with it (`xpbd_cloth_teleport`) to keep them
/// together. Both arrays are read during the call only.
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (`position` or `rotation` NULL),
/// `XPBD_RESULT_INVALID_ARGUMENT` (NaN/Inf or out-of-range position, non-unit or non-finite
/// rotation; the pose is unchanged), `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`.
/// Thread-safe; serialised with the world's step.
///
/// # Safety
/// `position` holds 3 floats and `rotation` 4 floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_collider_teleport(
    collider: XpbdColliderId,
    position: *const f32,
    rotation: *const f32,
) -> XpbdResult {
    ffi_boundary("xpbd_collider_teleport", || {
        // SAFETY: the caller's promise in `# Safety` above; `[f32; N]` has f32's alignment.
        let pose = unsafe {
            Pose {
                position: *required(position.cast::<[f32; 3]>(), "position")?,
                rotation: *required(rotation.cast::<[f32; 4]>(), "rotation")?,
            }
        };
        with_collider(collider, |w, handle| Ok(w.teleport_collider(handle, &pose)?))
    })
}

/// Write the collider's current pose: `out_position` (`float[3]`, metres) and `out_rotation`
/// (`float[4]`, unit quaternion x, y, z, w). Current means reached at the end of the last step
/// (the creation pose before the first step): a pose passed to `xpbd_collider_set_pose` shows
/// here once the next `xpbd_world_step` has returned.
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (either pointer NULL; nothing written),
/// `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`. Thread-safe.
///
/// # Safety
/// `out_position` is writable for 3 floats and `out_rotation` for 4.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_collider_get_pose(
    collider: XpbdColliderId,
    out_position: *mut f32,
    out_rotation: *mut f32,
) -> XpbdResult {
    ffi_boundary("xpbd_collider_get_pose", || {
        // SAFETY: the caller's promise in `# Safety` above; `[f32; N]` has f32's alignment.
        let (out_position, out_rotation) = unsafe {
            (
                OutParam::new(out_position.cast::<[f32; 3]>(), "out_position")?,
                OutParam::new(out_rotation.cast::<[f32; 4]>(), "out_rotation")?,
            )
        };
        let pose = with_collider(collider, |w, handle| Ok(w.collider(handle)?.pose()))?;
        out_position.write(pose.position);
        out_rotation.write(pose.rotation);
        Ok(())
    })
}

/// Write the descriptor the collider was created with to `*out_desc`, its `position` and
/// `rotation` replaced by the current pose (as `xpbd_collider_get_pose`). Errors:
/// `XPBD_RESULT_NULL_POINTER`, `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`. Thread-safe.
///
/// # Safety
/// `out_desc` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_collider_get_desc(
    collider: XpbdColliderId,
    out_desc: *mut XpbdColliderDesc,
) -> XpbdResult {
    ffi_boundary("xpbd_collider_get_desc", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { OutParam::new(out_desc, "out_desc")? };
        let (world, ..) = collider.unpack()?;
        out.write(with_collider(collider, |w, handle| {
            let desc = w.collider(handle)?.desc();
            let mut c = XpbdColliderDesc::from(&desc);
            if desc.kind == crate::collision::ColliderKind::Mesh {
                let shape = desc.mesh_shape;
                c.mesh_shape = super::ids::XpbdMeshShapeId::pack(world, shape.index, shape.generation);
            }
            Ok(c)
        })?);
        Ok(())
    })
}

/// Destroy a collider; its id becomes invalid and cloths stop colliding with it from the next
/// step (what rested on it falls). Errors: `XPBD_RESULT_INVALID_ID` (null, already destroyed, its
/// world destroyed, a cloth id, or forged), `XPBD_RESULT_WORLD_POISONED`. Thread-safe (any
/// thread); serialised with other calls on its world.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_collider_destroy(collider: XpbdColliderId) -> XpbdResult {
    ffi_boundary("xpbd_collider_destroy", || {
        with_collider(collider, |w, handle| {
            w.remove_collider(handle)?;
            Ok(())
        })
    })
}
