//! Soft grabs: a render vertex pulled towards a moving target (a mouse drag) by a compliant
//! attachment, added and removed without rebuilding anything (docs/c-cpp.md, "Grabbing cloth").

use super::args::required;
use super::boundary::ffi_boundary;
use super::error::XpbdResult;
use super::ids::XpbdClothId;
use super::registry::with_cloth;

/// Largest grab stiffness in N/m besides INFINITY (a rigid attachment).
pub const XPBD_MAX_GRAB_STIFFNESS: f32 = 1.0e12;

/// Grab render vertex `vertex`: pull it towards `target` (`float[3]`, metres) with a compliant
/// attachment of `stiffness` N/m, C = |x - target| with compliance 1/stiffness, projected every
/// iteration with the XPBD update (Macklin et al. 2016, eq. 18), so it means the same at any
/// time step and substep count. The vertex keeps its mass: the cloth pulls back, so a grab does
/// not stretch the cloth the way a pin dragged away does, and the stretch limit (`max_stretch`)
/// still shortens the edges around it; the vertex trails the target by about the force the cloth
/// resists with divided by `stiffness`. `INFINITY` is a rigid attachment (compliance 0) that still
/// leaves the vertex its mass. The target is reached by the end of the next step, interpolated
/// over its substeps (and by `xpbd_world_advance` over the frame's steps, like a pin target).
/// Grabbing a grabbed vertex (or a welded copy of it) moves its target and sets its stiffness. A
/// pinned vertex stays with its pin while pinned. Adding or releasing a grab rebuilds nothing: it
/// costs the call only (a microsecond), and no step after it pays for it. Wakes a sleeping cloth.
///
/// A mouse drag: `xpbd_cloth_grab` on button down (the picked vertex, the point under the
/// cursor), `xpbd_cloth_grab_move` every frame, `xpbd_cloth_release` on button up.
///
/// Errors (nothing changes): `XPBD_RESULT_NULL_POINTER` (`target`),
/// `XPBD_RESULT_INVALID_ARGUMENT` (`vertex` out of range; a `target` coordinate NaN, infinite or
/// beyond +-1e5 m; `stiffness` NaN, <= 0 or finite above `XPBD_MAX_GRAB_STIFFNESS`),
/// `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`. Thread-safe; waits for a running step.
///
/// # Safety
/// `target` points to 3 readable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_grab(cloth: XpbdClothId, vertex: u32, target: *const f32, stiffness: f32) -> XpbdResult {
    ffi_boundary("xpbd_cloth_grab", || {
        // SAFETY: the caller's promise in `# Safety` above; `[f32; 3]` has f32's alignment.
        let target = *unsafe { required(target.cast::<[f32; 3]>(), "target")? };
        with_cloth(cloth, |c| c.grab(vertex, target, stiffness))
    })
}

/// Move the target of the grab of render vertex `vertex` to `target` (`float[3]`, metres), reached
/// by the end of the next step. Call it every frame of a drag; the same target again changes
/// nothing (a grabbed cloth may then fall asleep).
///
/// Errors (nothing changes): `XPBD_RESULT_NULL_POINTER` (`target`), `XPBD_RESULT_INVALID_ARGUMENT`
/// (`vertex` out of range; a `target` coordinate NaN, infinite or beyond +-1e5 m),
/// `XPBD_RESULT_NOT_GRABBED` (`vertex` is not grabbed), `XPBD_RESULT_INVALID_ID`,
/// `XPBD_RESULT_WORLD_POISONED`. Thread-safe; waits for a running step.
///
/// # Safety
/// `target` points to 3 readable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_grab_move(cloth: XpbdClothId, vertex: u32, target: *const f32) -> XpbdResult {
    ffi_boundary("xpbd_cloth_grab_move", || {
        // SAFETY: the caller's promise in `# Safety` above; `[f32; 3]` has f32's alignment.
        let target = *unsafe { required(target.cast::<[f32; 3]>(), "target")? };
        with_cloth(cloth, |c| c.move_grab(vertex, target))
    })
}

/// Release the grab of render vertex `vertex`; it keeps its velocity. Rebuilds nothing.
///
/// Errors (nothing changes): `XPBD_RESULT_INVALID_ARGUMENT` (`vertex` out of range),
/// `XPBD_RESULT_NOT_GRABBED` (`vertex` is not grabbed, or was released already),
/// `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`. Thread-safe; waits for a running step.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_cloth_release(cloth: XpbdClothId, vertex: u32) -> XpbdResult {
    ffi_boundary("xpbd_cloth_release", || with_cloth(cloth, |c| c.release(vertex)))
}

#[cfg(test)]
mod tests {
    use super::XPBD_MAX_GRAB_STIFFNESS;

    #[test]
    fn the_c_limit_is_the_core_limit() {
        assert_eq!(XPBD_MAX_GRAB_STIFFNESS, crate::cloth::MAX_GRAB_STIFFNESS);
    }
}
