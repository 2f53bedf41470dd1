//! The smallest cloth with a weld, created through the C ABI, for the ABI's unit tests.

use super::*;

/// Render vertex positions \[m\] of two triangles ([`INDICES`]); vertices 1 and 4 coincide, so
/// they weld into 4 particles.
pub(super) const POSITIONS: [[f32; 3]; 5] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0], [1.0, 0.0, 0.0]];
/// The two triangles, counter-clockwise seen from +y.
pub(super) const INDICES: [u32; 6] = [0, 2, 1, 4, 2, 3];

/// A one-thread world holding the cloth of [`POSITIONS`] at the defaults, not yet stepped.
pub(super) fn welded_pair() -> (XpbdWorldId, XpbdClothId) {
    let (mut world, mut cloth) = (XpbdWorldId::default(), XpbdClothId::default());
    let world_desc = XpbdWorldDesc { thread_count: 1, ..xpbd_default_world_desc() };
    let desc = XpbdClothDesc {
        positions: POSITIONS.as_ptr().cast(),
        vertex_count: 5,
        indices: INDICES.as_ptr(),
        triangle_count: 2,
        ..xpbd_default_cloth_desc()
    };
    // SAFETY (both): valid descriptors, arrays of the counts passed, writable outs.
    unsafe {
        assert_eq!(xpbd_world_create(&world_desc, &mut world), XpbdResult::Ok);
        assert_eq!(xpbd_cloth_create(world, &desc, &mut cloth), XpbdResult::Ok);
    }
    (world, cloth)
}
