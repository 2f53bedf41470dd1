//! State snapshots into caller buffers, for rollback netcode and replays.

use super::args::{OutParam, slice_in, slice_out};
use super::boundary::ffi_boundary;
use super::error::XpbdResult;
use super::ids::XpbdClothId;
use super::registry::{read_cloth, with_cloth};

/// Write the size in bytes of a snapshot of the cloth's current state to `*out_size`:
/// 48 + 24*particles + 28*pinned particles + 36. Query it before saving: it changes when the set
/// of pinned vertices changes. Errors: `XPBD_RESULT_NULL_POINTER`, `XPBD_RESULT_INVALID_ID`,
/// `XPBD_RESULT_WORLD_POISONED`. Thread-safe.
///
/// # Safety
/// `out_size` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_state_size(cloth: XpbdClothId, out_size: *mut usize) -> XpbdResult {
    ffi_boundary("xpbd_cloth_state_size", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { OutParam::new(out_size, "out_size")? };
        out.write(read_cloth(cloth, |c| c.state_size())?);
        Ok(())
    })
}

/// Save the cloth's dynamic state into `buf` (`uint8_t[size]`, owned by the caller, any
/// alignment, not kept): vertex positions and velocities, pins with their positions and targets,
/// the teleport frame; a versioned header with a mesh fingerprint, and a checksum. Settings,
/// colliders and gravity are not included. The format is little-endian and the same on every
/// platform (documented in the README, "Snapshots").
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (`buf` NULL with size > 0), `XPBD_RESULT_BUFFER_SIZE_MISMATCH`
/// (`size` differs from `xpbd_cloth_state_size`; nothing written), `XPBD_RESULT_INVALID_ID`,
/// `XPBD_RESULT_WORLD_POISONED`. Thread-safe.
///
/// # Safety
/// `buf`, when not NULL, is writable for `size` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_save_state(
    cloth: XpbdClothId,
    buf: *mut core::ffi::c_void,
    size: usize,
) -> XpbdResult {
    ffi_boundary("xpbd_cloth_save_state", || {
        // SAFETY: the caller's promise in `# Safety` above (u8 has alignment 1).
        let buf = unsafe { slice_out(buf.cast::<u8>(), size, "buf")? };
        with_cloth(cloth, |c| c.save_state(buf))
    })
}

/// Restore a state saved by `xpbd_cloth_save_state` from this cloth or any cloth created from the
/// same mesh (same vertices, indices and weld tolerance: the check compares the render-vertex to
/// particle map, the triangles and the rest positions; lines and inverse masses are not compared,
/// and must match for the result to mean anything). Bit-exact: with the same settings,
/// colliders and inputs, the steps after a restore are bitwise identical to the steps that
/// followed the save (compare `xpbd_cloth_state_hash`). Pins are set as saved.
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (`buf` NULL with size > 0),
/// `XPBD_RESULT_BUFFER_SIZE_MISMATCH` (`size` differs from the size recorded in the snapshot),
/// `XPBD_RESULT_INVALID_SNAPSHOT` (too short, no snapshot magic, another format version, checksum
/// mismatch, another mesh, non-finite values; the message says which), `XPBD_RESULT_INVALID_ID`,
/// `XPBD_RESULT_WORLD_POISONED`. The cloth is unchanged on error. Thread-safe.
///
/// # Safety
/// `buf`, when not NULL, is readable for `size` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_cloth_restore_state(
    cloth: XpbdClothId,
    buf: *const core::ffi::c_void,
    size: usize,
) -> XpbdResult {
    ffi_boundary("xpbd_cloth_restore_state", || {
        // SAFETY: the caller's promise in `# Safety` above (u8 has alignment 1).
        let buf = unsafe { slice_in(buf.cast::<u8>(), size, "buf")? };
        with_cloth(cloth, |c| c.restore_state(buf))
    })
}
