//! Teleport: move a cloth by a rigid transform without adding velocity.

use super::args::required;
use super::boundary::ffi_boundary;
use super::error::{FfiError, XpbdResult};
use super::args::slice_in;
use super::ids::{XpbdClothId, XpbdColliderId, XpbdWorldId, invalid};
use super::registry::{cloth_handle, collider_handle, with_cloth, with_world};

/// Move the whole cloth by a rigid transform between steps, without adding velocity: every vertex
/// x becomes R*x + t (R the rotation `rotation` about the world origin, then the translation
/// `translation`), and so do the pins' current positions and targets and the rest pose used by
/// `XPBD_UNSTABLE_RECOVERY_REST_POSE`; velocities are rotated with the cloth. The next step
/// behaves as if the cloth had always been there (a respawn or a long dash does not stretch a cape
/// across the map). To carry a cloth from an engine pose A to pose B pass the relative transform
/// B*A^-1: rotation q_B*q_A^-1, translation p_B - R*p_A.
///
/// `translation`: `float[3]` in metres, each component finite within +-1e5. `rotation`:
/// `float[4]`, a unit quaternion (x, y, z, w) of length 1 +- 1e-3 (renormalised); (0, 0, 0, 1) =
/// no rotation.
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (`translation` or `rotation` NULL),
/// `XPBD_RESULT_INVALID_ARGUMENT` (a NaN, infinite or too large translation, one that would move
/// a vertex beyond +-1e5 m in any coordinate, a rotation that is not a unit quaternion; nothing
/// moves), `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`.
/// Thread-safe; serialised with the world's step.
///
/// # Safety
/// `translation` points to 3 readable floats and `rotation` to 4.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_teleport(
    cloth: XpbdClothId,
    translation: *const f32,
    rotation: *const f32,
) -> XpbdResult {
    ffi_boundary("xpbd_cloth_teleport", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let (translation, rotation) =
            unsafe { (fixed::<3>(translation, "translation")?, fixed::<4>(rotation, "rotation")?) };
        with_cloth(cloth, |c| c.teleport(translation, rotation))
    })
}

/// Teleport a character in one call: every cloth of `cloths` (`XpbdClothId[cloth_count]`) as
/// `xpbd_cloth_teleport` and every collider of `colliders` (`XpbdColliderId[collider_count]`)
/// as `xpbd_collider_teleport` to its pose moved by the same rigid transform x -> R*x + t
/// (`translation` `float[3]` metres, `rotation` `float[4]` unit quaternion x, y, z, w), all or
/// nothing: a respawn moves the cape, the skirt and the body's colliders together without a sweep
/// or a guard trip. Pass the relative transform of the character's root, B*A^-1.
///
/// Errors: `XPBD_RESULT_NULL_POINTER`, `XPBD_RESULT_INVALID_ID` (`world`, or an id that is not a
/// live object of `world`), `XPBD_RESULT_INVALID_ARGUMENT` (as `xpbd_cloth_teleport`, a
/// collider moved beyond +-1e5 m, or an id listed twice in `cloths` or in `colliders`, which
/// would move it twice: the message names its second list position); nothing moves on error. `XPBD_RESULT_WORLD_POISONED`.
/// Thread-safe; serialised with the world's step.
///
/// # Safety
/// `cloths` holds `cloth_count` ids and `colliders` `collider_count` (either NULL when its count
/// is 0); `translation` 3 floats, `rotation` 4.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_world_teleport(
    world: XpbdWorldId,
    cloths: *const XpbdClothId,
    cloth_count: u32,
    colliders: *const XpbdColliderId,
    collider_count: u32,
    translation: *const f32,
    rotation: *const f32,
) -> XpbdResult {
    ffi_boundary("xpbd_world_teleport", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let (cloths, colliders, translation, rotation) = unsafe {
            (
                slice_in(cloths, cloth_count as usize, "cloths")?,
                slice_in(colliders, collider_count as usize, "colliders")?,
                fixed::<3>(translation, "translation")?,
                fixed::<4>(rotation, "rotation")?,
            )
        };
        with_world(world, |w| {
            let mut cloth_handles = Vec::with_capacity(cloths.len());
            for &id in cloths {
                let (owner, index, generation) = id.unpack()?;
                if owner.id != world.id {
                    return Err(invalid("cloth", id.id));
                }
                cloth_handles.push(cloth_handle(w, id, index, generation)?);
            }
            let mut collider_handles = Vec::with_capacity(colliders.len());
            for &id in colliders {
                let (owner, index, generation) = id.unpack()?;
                if owner.id != world.id {
                    return Err(invalid("collider", id.id));
                }
                collider_handles.push(collider_handle(w, id, index, generation)?);
            }
            Ok(w.teleport(&cloth_handles, &collider_handles, translation, rotation)?)
        })
    })
}

/// A required `float[N]` argument, copied.
///
/// # Safety
/// `ptr`, when not NULL, points to `N` readable floats.
unsafe fn fixed<const N: usize>(ptr: *const f32, name: &str) -> Result<[f32; N], FfiError> {
    // SAFETY: forwarded caller promise; `[f32; N]` has f32's alignment, which `required` checks.
    Ok(*unsafe { required(ptr.cast::<[f32; N]>(), name)? })
}
