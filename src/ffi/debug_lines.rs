//! Debug lines: what the solver sees, for an engine's debug renderer (docs/c-cpp.md, "Debug
//! lines").

use super::args::{OutParam, slice_out};
use super::boundary::ffi_boundary;
use super::error::XpbdResult;
use super::ids::XpbdWorldId;
use super::registry::with_world;

/// `xpbd_world_debug_lines` flag: every edge of every cloth, coloured by its strain: green at
/// rest (and when shorter), through yellow, to red at the cloth's stretch limit (`max_stretch`, or
/// 10 % when 0).
pub const XPBD_DEBUG_EDGES: u32 = 1;
/// `xpbd_world_debug_lines` flag: every collider's wire shape at its current pose (spheres and
/// capsules as circles and lines, boxes as their 12 edges, planes as a 2 m square with diagonals
/// and normal, mesh colliders as their mesh's bounding box), orange.
pub const XPBD_DEBUG_COLLIDERS: u32 = 2;
/// `xpbd_world_debug_lines` flag: every particle touching a collider (within its collision
/// thickness + 1 mm): the collider's normal there, from the particle, a median edge long, cyan.
pub const XPBD_DEBUG_CONTACTS: u32 = 4;
/// `xpbd_world_debug_lines` flag: every pinned or kinematic (max distance 0) particle: a small
/// cross, magenta.
pub const XPBD_DEBUG_PINS: u32 = 8;
/// `xpbd_world_debug_lines` flag: every particle with a max distance d > 0 (once posed): a circle
/// of radius d about its animated position across the animated normal (grey, 12 lines), and the
/// line from the animated position to the particle, green to red as it uses d.
pub const XPBD_DEBUG_MAX_DISTANCE: u32 = 16;
/// `xpbd_world_debug_lines` flag: every particle with a backstop (once posed): the line from its
/// animated position to the backstop sphere's surface along the animated normal, and a cross
/// there, violet.
pub const XPBD_DEBUG_BACKSTOP: u32 = 32;
/// `xpbd_world_debug_lines` flag: every particle's normal, a median edge long, blue.
pub const XPBD_DEBUG_NORMALS: u32 = 64;
/// `xpbd_world_debug_lines` flags: all of them.
pub const XPBD_DEBUG_ALL: u32 = 127;

/// Write the debug lines that `flags` (XPBD_DEBUG_* or'ed) asks for, for every cloth and collider
/// of `world`: line k from (x0, y0, z0) to (x1, y1, z1) in metres at `positions[6*k .. 6*k+6]`,
/// its colour at `colors[k]` as RGBA8 (red in bits 0-7, green 8-15, blue 16-23, alpha 24-31: the
/// bytes R, G, B, A in memory on little-endian machines; alpha 255). `*out_line_count` gets the
/// full count even when it exceeds `max_lines`; the first min(count, max_lines) lines are written
/// (call with `max_lines` 0 and NULL buffers to ask for the size). Per cloth, in creation order of
/// their slots: edges, pins, max distances, backstops, normals, contacts; then every collider. A
/// cloth's lines are drawn where `xpbd_cloth_read_positions` shows it. Allocates nothing; for
/// debugging, not per-frame in shipping builds (it visits every particle and edge).
///
/// `positions`: `float[6*max_lines]`; `colors`: `uint32_t[max_lines]`; both may be NULL when
/// `max_lines` is 0. A count beyond 4 294 967 295 reads as that.
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (`out_line_count` NULL, or a buffer NULL with `max_lines` >
/// 0), `XPBD_RESULT_INVALID_ARGUMENT` (a bit of `flags` above XPBD_DEBUG_ALL),
/// `XPBD_RESULT_INVALID_ID`, `XPBD_RESULT_WORLD_POISONED`; nothing written on error. Thread-safe;
/// waits while the world steps.
///
/// # Safety
/// `positions` and `colors`, when not NULL, are writable for `6*max_lines` floats and `max_lines`
/// uint32_t; `out_line_count` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xpbd_world_debug_lines(
    world: XpbdWorldId,
    flags: u32,
    positions: *mut f32,
    colors: *mut u32,
    max_lines: u32,
    out_line_count: *mut u32,
) -> XpbdResult {
    ffi_boundary("xpbd_world_debug_lines", || {
        // SAFETY: the caller's promise in `# Safety` above; `[f32; 6]` has f32's alignment.
        let (lines, colors, out) = unsafe {
            (
                slice_out(positions.cast::<[f32; 6]>(), max_lines as usize, "positions")?,
                slice_out(colors, max_lines as usize, "colors")?,
                OutParam::new(out_line_count, "out_line_count")?,
            )
        };
        let count = with_world(world, |w| Ok(w.debug_lines(flags, lines, colors)?))?;
        out.write(u32::try_from(count).unwrap_or(u32::MAX));
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::debug_lines::*;

    /// The C names are literals (cbindgen and csbindgen copy literals only): they are the core's.
    #[test]
    fn the_c_flags_are_the_cores() {
        let c = [XPBD_DEBUG_EDGES, XPBD_DEBUG_COLLIDERS, XPBD_DEBUG_CONTACTS, XPBD_DEBUG_PINS, XPBD_DEBUG_MAX_DISTANCE, XPBD_DEBUG_BACKSTOP, XPBD_DEBUG_NORMALS, XPBD_DEBUG_ALL];
        let core = [DEBUG_EDGES, DEBUG_COLLIDERS, DEBUG_CONTACTS, DEBUG_PINS, DEBUG_MAX_DISTANCE, DEBUG_BACKSTOP, DEBUG_NORMALS, DEBUG_ALL];
        assert_eq!(c, core);
    }
}
