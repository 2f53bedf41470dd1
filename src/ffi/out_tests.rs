//! Every C read writes its whole output array and reads none of it, so engines may pass
//! uninitialised memory (`slice_out` makes it a write-only `Out`): each read into a buffer of
//! poison bytes gives what it gives into a zeroed one (`Out` and `slice_out` themselves run under
//! Miri, `.ci/miri.sh`). A read refused for its length leaves the array as it was.

use super::*;
use std::mem::MaybeUninit;

/// The welded pair of triangles (`test_cloth`: 5 render vertices, 4 particles), stepped once with
/// one corner pinned so that positions, normals and velocities are not the rest values.
fn stepped_cloth() -> (XpbdWorldId, XpbdClothId) {
    let (world, cloth) = super::test_cloth::welded_pair();
    let pinned = [0u32];
    // SAFETY: an array of the count passed; NULL targets (pin where it is).
    assert_eq!(unsafe { xpbd_cloth_set_pinned(cloth, pinned.as_ptr(), 1, std::ptr::null()) }, XpbdResult::Ok);
    assert_eq!(xpbd_world_step(world, 1.0 / 60.0), XpbdResult::Ok);
    (world, cloth)
}

/// `read(ptr, n)` into `n` elements of poison bytes (0xA5, handed over as `MaybeUninit`) and into
/// `n` zeroed ones: both must succeed and agree element for element, so an element the read left
/// unwritten shows as poison.
fn agrees_poisoned_and_zeroed<T: Copy + Default + PartialEq + std::fmt::Debug>(what: &str, n: usize, read: impl Fn(*mut T, usize) -> XpbdResult) {
    let mut poisoned = vec![MaybeUninit::<T>::uninit(); n];
    // SAFETY: `n` elements of `T` fit in `poisoned`; every bit pattern is a valid f32, u32 or u8
    // (the element types of the reads below), so the bytes make initialised `T`s.
    unsafe { poisoned.as_mut_ptr().write_bytes(0xA5, n) };
    assert_eq!(read(poisoned.as_mut_ptr().cast(), n), XpbdResult::Ok, "{what}");
    // SAFETY: initialised with poison above (and maybe overwritten by the read).
    let poisoned: Vec<T> = poisoned.into_iter().map(|e| unsafe { e.assume_init() }).collect();
    let mut zeroed = vec![T::default(); n];
    assert_eq!(read(zeroed.as_mut_ptr(), n), XpbdResult::Ok, "{what}");
    assert_eq!(poisoned, zeroed, "{what}");
}

#[test]
fn every_read_fills_uninitialised_memory() {
    let (world, cloth) = stepped_cloth();
    let mut size = 0usize;
    // SAFETY (every call below): `ptr` is valid for the `n` elements of the type the function
    // documents (3 floats per vertex, 3 indices per triangle, bytes for the state); outs writable.
    unsafe {
        assert_eq!(xpbd_cloth_state_size(cloth, &mut size), XpbdResult::Ok);
        agrees_poisoned_and_zeroed::<[f32; 3]>("positions", 5, |p, n| xpbd_cloth_read_positions(cloth, p.cast(), n as u32));
        agrees_poisoned_and_zeroed::<[f32; 3]>("normals", 5, |p, n| xpbd_cloth_read_normals(cloth, p.cast(), n as u32));
        agrees_poisoned_and_zeroed::<[f32; 3]>("positions at 0.5", 5, |p, n| {
            xpbd_cloth_read_positions_interpolated(cloth, 0.5, p.cast(), n as u32)
        });
        agrees_poisoned_and_zeroed::<[f32; 3]>("normals at 0.5", 5, |p, n| xpbd_cloth_read_normals_interpolated(cloth, 0.5, p.cast(), n as u32));
        agrees_poisoned_and_zeroed::<[f32; 3]>("animated", 5, |p, n| xpbd_cloth_read_animated_positions(cloth, p.cast(), n as u32));
        agrees_poisoned_and_zeroed::<[f32; 3]>("animated normals", 5, |p, n| xpbd_cloth_read_animated_normals(cloth, p.cast(), n as u32));
        agrees_poisoned_and_zeroed::<u32>("particle map", 5, |p, n| xpbd_cloth_read_particle_map(cloth, p, n as u32));
        agrees_poisoned_and_zeroed::<f32>("masses", 5, |p, n| xpbd_cloth_read_vertex_masses(cloth, p, n as u32));
        agrees_poisoned_and_zeroed::<[u32; 3]>("indices", 2, |p, n| xpbd_cloth_read_indices(cloth, p.cast(), n as u32));
        agrees_poisoned_and_zeroed::<u32>("vertex sources", 5, |p, n| xpbd_cloth_read_vertex_sources(cloth, p, n as u32));
        agrees_poisoned_and_zeroed::<u8>("state", size, |p, n| xpbd_cloth_save_state(cloth, p.cast(), n));
        let mut total = 0u32;
        let edges = crate::debug_lines::DEBUG_EDGES;
        assert_eq!(xpbd_world_debug_lines(world, edges, std::ptr::null_mut(), std::ptr::null_mut(), 0, &mut total), XpbdResult::Ok);
        assert!(total >= 5, "{total} edge lines");
        let lines = |p: *mut [f32; 6], n| {
            let mut colors = vec![0xA5A5_A5A5u32; n];
            let mut count = 0;
            let r = xpbd_world_debug_lines(world, edges, p.cast(), colors.as_mut_ptr(), n as u32, &mut count);
            assert_eq!(count as usize, n);
            assert!(!colors.contains(&0xA5A5_A5A5), "a colour left unwritten");
            r
        };
        agrees_poisoned_and_zeroed::<[f32; 6]>("debug lines", total as usize, lines);
    }
    assert_eq!(xpbd_world_destroy(world), XpbdResult::Ok);
}

#[test]
fn a_read_of_the_wrong_length_leaves_the_array_as_it_was() {
    let (world, cloth) = stepped_cloth();
    let mut out = [[7.0f32; 3]; 6];
    // SAFETY: `out` holds the 6 vertices passed.
    let r = unsafe { xpbd_cloth_read_positions(cloth, out.as_mut_ptr().cast(), 6) };
    assert_eq!((r, out), (XpbdResult::BufferSizeMismatch, [[7.0; 3]; 6]));
    let mut bytes = [9u8; 3];
    // SAFETY: `bytes` holds the 3 bytes passed.
    let r = unsafe { xpbd_cloth_save_state(cloth, bytes.as_mut_ptr().cast(), 3) };
    assert_eq!((r, bytes), (XpbdResult::BufferSizeMismatch, [9; 3]));
    assert_eq!(xpbd_world_destroy(world), XpbdResult::Ok);
}
