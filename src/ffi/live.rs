//! Leak diagnostics: how many objects are alive in the process. Garbage-collected bindings (C#)
//! use them to prove that objects they never disposed were released by their finalizers.

use super::args::OutParam;
use super::boundary::ffi_boundary;
use super::error::XpbdResult;
use super::registry::live_counts;

/// Write the number of live worlds (created and not yet destroyed) in this process to
/// `*out_count`. Meant for leak checks in tests and editor tooling, not for per-frame use.
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (`out_count` NULL). Thread-safe; the count is a snapshot
/// that other threads may change right after.
///
/// # Safety
/// `out_count` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_live_world_count(out_count: *mut u32) -> XpbdResult {
    ffi_boundary("xpbd_live_world_count", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { OutParam::new(out_count, "out_count")? };
        out.write(live_counts().worlds);
        Ok(())
    })
}

/// Write the number of live cloths in all live worlds of this process to `*out_count`
/// (destroying a world releases its cloths, so they stop counting). Meant for leak checks.
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (`out_count` NULL). Thread-safe; waits while a world steps
/// (each world is counted under its lock); a snapshot that other threads may change right after.
///
/// # Safety
/// `out_count` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_live_cloth_count(out_count: *mut u32) -> XpbdResult {
    ffi_boundary("xpbd_live_cloth_count", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { OutParam::new(out_count, "out_count")? };
        out.write(live_counts().cloths);
        Ok(())
    })
}

/// Write the number of live colliders in all live worlds of this process to `*out_count`
/// (destroying a world releases its colliders). Meant for leak checks. Errors and threads as
/// `xpbd_live_cloth_count`.
///
/// # Safety
/// `out_count` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_live_collider_count(out_count: *mut u32) -> XpbdResult {
    ffi_boundary("xpbd_live_collider_count", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { OutParam::new(out_count, "out_count")? };
        out.write(live_counts().colliders);
        Ok(())
    })
}

/// Write the number of live mesh shapes in all live worlds of this process to `*out_count`
/// (destroying a world releases its shapes). Meant for leak checks. Errors and threads as
/// `xpbd_live_cloth_count`.
///
/// # Safety
/// `out_count` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_live_mesh_shape_count(out_count: *mut u32) -> XpbdResult {
    ffi_boundary("xpbd_live_mesh_shape_count", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { OutParam::new(out_count, "out_count")? };
        out.write(live_counts().mesh_shapes);
        Ok(())
    })
}

/// Write the number of live render proxies in all live worlds of this process to `*out_count`
/// (destroying a cloth or its world releases its proxies). Meant for leak checks. Errors and
/// threads as `xpbd_live_cloth_count`.
///
/// # Safety
/// `out_count` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_live_render_proxy_count(out_count: *mut u32) -> XpbdResult {
    ffi_boundary("xpbd_live_render_proxy_count", || {
        // SAFETY: the caller's promise in `# Safety` above.
        let out = unsafe { OutParam::new(out_count, "out_count")? };
        out.write(live_counts().render_proxies);
        Ok(())
    })
}
