//! State snapshots into caller buffers, for rollback netcode and replays.

use super::args::{OutParam, slice_in, slice_out};
use super::boundary::ffi_boundary;
use super::error::XpbdResult;
use super::ids::XpbdClothId;
use super::registry::{read_cloth, with_cloth};

/// Write the size in bytes of a snapshot of the cloth's current state to `*out_size`:
/// 48 + 24*particles + 28*pinned particles + 40 + 8*cuts. Query it before saving: it changes when
/// the set of pinned vertices changes and when the cloth tears. Errors: `XPBD_RESULT_NULL_POINTER`, `XPBD_RESULT_INVALID_ID`,
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
/// alignment, not kept): particle positions and velocities, the pins with their positions and
/// targets, the teleport frame and the cuts a torn cloth was given (its torn mesh is those cuts
/// made again on the mesh as created), behind a versioned header with a mesh fingerprint and
/// followed by a checksum. Settings, colliders and gravity are not included.
///
/// Layout (format version 2): little-endian, no padding, the same on every platform. n is the
/// particle count (`xpbd_cloth_particle_count`; `xpbd_cloth_read_particle_map` gives each render
/// vertex's particle), P the number of pinned particles, C the number of cuts; offsets and sizes
/// in bytes:
///
/// ```text
/// offset          size  field
/// 0               8     magic "XPBDSNAP" (ASCII, no NUL)
/// 8               4     format version, u32: 2
/// 12              4     header size, u32: 48
/// 16              8     total size including the checksum, u64: 48 + 24n + 28P + 40 + 8C
/// 24              8     mesh fingerprint, u64 (a restore checks it: same mesh as created)
/// 32              4     n, u32
/// 36              4     P, u32
/// 40              8     reserved, 0
/// 48              12n   positions in m, particle order, x y z f32 each
/// 48+12n          12n   velocities in m/s, particle order, x y z f32 each
/// 48+24n          4P    pinned particle indices, u32, ascending
/// 48+24n+4P       12P   pin positions in m (where each is held now), x y z f32
/// 48+24n+16P      12P   pin targets in m (reached by the end of the next step), x y z f32
/// 48+24n+28P      16    teleport frame rotation, unit quaternion x y z w, f32
/// 48+24n+28P+16   12    teleport frame translation in m, x y z f32
/// 48+24n+28P+28   4     C, u32 (0 for a cloth that never tore)
/// 48+24n+28P+32   8C    the cuts in order: the two particles each cut, u32 each (at its time)
/// 48+24n+28P+32+8C 8    checksum, u64: FNV-1a 64 of every byte before it (offset basis
///                       0xcbf29ce484222325, prime 0x100000001b3, one byte at a time)
/// ```
///
/// Version 1 (written before tearing existed) is the same without C and the cuts; it is still read.
///
/// The teleport frame is every `xpbd_cloth_teleport` since creation composed: the rest pose now
/// lies at rotation * rest + translation.
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
/// particle map, the triangles and the rest positions as created; lines and inverse masses are not
/// compared, and must match for the result to mean anything). Bit-exact: with the same settings,
/// colliders and inputs, the steps after a restore are bitwise identical to the steps that
/// followed the save (compare `xpbd_cloth_state_hash`). Pins are set as saved. A snapshot whose
/// cuts differ from the cloth's (a rollback across a tear, or a torn cloth's snapshot into a fresh
/// one) makes the torn mesh again from its cuts: vertex count, indices, vertex sources and
/// particles are those at the save, bit for bit (the topology version grows: rebuild the engine
/// mesh); the constraint layout is then built from scratch for that mesh, so the steps after such
/// a restore agree with those after the save to rounding rather than bit for bit.
///
/// Errors: `XPBD_RESULT_NULL_POINTER` (`buf` NULL with size > 0),
/// `XPBD_RESULT_BUFFER_SIZE_MISMATCH` (`size` differs from the size recorded in the snapshot),
/// `XPBD_RESULT_INVALID_SNAPSHOT` (too short, no snapshot magic, another format version, checksum
/// mismatch, another mesh, non-finite values, cuts this cloth cannot make: it cannot tear or has
/// too few `max_extra_vertices`; the message says which), `XPBD_RESULT_INVALID_ID`,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::*;

    /// Little-endian fields of a saved buffer at the offsets the doc of `xpbd_cloth_save_state`
    /// gives.
    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }
    fn u64_at(b: &[u8], at: usize) -> u64 {
        u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
    }
    fn vec3_at(b: &[u8], at: usize) -> [f32; 3] {
        [0, 4, 8].map(|k| f32::from_bits(u32_at(b, at + k)))
    }

    #[test]
    fn saved_bytes_follow_the_documented_layout() {
        // Two triangles, 5 vertices of which two coincide: welded into n = 4 particles.
        let positions = crate::ffi::test_cloth::POSITIONS;
        let (world, cloth) = crate::ffi::test_cloth::welded_pair();
        // SAFETY (all calls below): arrays of the counts passed, writable outs.
        let pins = [3u32, 0];
        assert_eq!(unsafe { xpbd_cloth_set_pinned(cloth, pins.as_ptr(), 2, std::ptr::null()) }, XpbdResult::Ok);
        let target = [[0.0f32, 0.5, 0.0], [1.0, 0.5, 1.0]];
        let targets = unsafe { xpbd_cloth_set_pin_targets(cloth, pins.as_ptr(), 2, target.as_ptr().cast()) };
        assert_eq!(targets, XpbdResult::Ok);
        assert_eq!(xpbd_world_step(world, 1.0 / 60.0), XpbdResult::Ok);
        let mut size = 0usize;
        assert_eq!(unsafe { xpbd_cloth_state_size(cloth, &mut size) }, XpbdResult::Ok);
        let (n, p) = (4usize, 2usize);
        assert_eq!(size, 48 + 24 * n + 28 * p + 40);
        let mut b = vec![0u8; size];
        assert_eq!(unsafe { xpbd_cloth_save_state(cloth, b.as_mut_ptr().cast(), size) }, XpbdResult::Ok);

        assert_eq!(&b[0..8], b"XPBDSNAP");
        assert_eq!((u32_at(&b, 8), u32_at(&b, 12), u64_at(&b, 16)), (2, 48, size as u64));
        assert_eq!((u32_at(&b, 32), u32_at(&b, 36), u64_at(&b, 40)), (n as u32, p as u32, 0));
        // Positions in particle order: each render vertex's position is its particle's.
        let mut read = [[0.0f32; 3]; 5];
        let mut map = [0u32; 5];
        assert_eq!(unsafe { xpbd_cloth_read_positions(cloth, read.as_mut_ptr().cast(), 5) }, XpbdResult::Ok);
        assert_eq!(unsafe { xpbd_cloth_read_particle_map(cloth, map.as_mut_ptr(), 5) }, XpbdResult::Ok);
        for (vertex, &particle) in map.iter().enumerate() {
            assert_eq!(vec3_at(&b, 48 + 12 * particle as usize), read[vertex], "vertex {vertex}");
        }
        // Velocities after positions: a pinned particle moved from its rest position to its target
        // in the step, so its velocity is that displacement over 1/60 s.
        for (vertex, reached) in [(0, target[1]), (3, target[0])] {
            let v = vec3_at(&b, 48 + 12 * n + 12 * map[vertex] as usize);
            let want = [0, 1, 2].map(|k| (reached[k] - positions[vertex][k]) * 60.0);
            assert!((0..3).all(|k| (v[k] - want[k]).abs() <= 1e-4 * want[k].abs()), "vertex {vertex}: {v:?}, {want:?}");
        }
        // Pins: indices ascending, positions, then targets (reached by the step: the held positions).
        let pins_at = 48 + 24 * n;
        let pinned = [u32_at(&b, pins_at), u32_at(&b, pins_at + 4)];
        assert_eq!(pinned, [map[0], map[3]]);
        assert_eq!([vec3_at(&b, pins_at + 4 * p), vec3_at(&b, pins_at + 4 * p + 12)], [target[1], target[0]]);
        assert_eq!([vec3_at(&b, pins_at + 16 * p), vec3_at(&b, pins_at + 16 * p + 12)], [target[1], target[0]]);
        // Teleport frame: never teleported, the identity.
        let frame = pins_at + 28 * p;
        let rotation = [0, 4, 8, 12].map(|k| f32::from_bits(u32_at(&b, frame + k)));
        assert_eq!((rotation, vec3_at(&b, frame + 16)), ([0.0, 0.0, 0.0, 1.0], [0.0; 3]));
        // Cuts: none.
        assert_eq!(u32_at(&b, frame + 28), 0);
        // Checksum: FNV-1a 64 of the bytes before it.
        let fnv = b[..size - 8].iter().fold(0xcbf29ce484222325u64, |h, &x| (h ^ x as u64).wrapping_mul(0x100000001b3));
        assert_eq!(u64_at(&b, size - 8), fnv);
        assert_eq!(xpbd_world_destroy(world), XpbdResult::Ok);
    }
}
