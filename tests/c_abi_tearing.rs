//! Tearing and pressure through the C ABI: a scripted cut followed as an engine follows it (render
//! counts, indices, vertex sources, the vertex buffer), pressure and the volume, the statistics'
//! torn edges, and every bad input of the new calls (NULL, a bad vertex, two vertices that are no
//! edge, a cloth that cannot tear, an open mesh, stale ids) with its code, a message naming the
//! call, and nothing changed.

mod ffi_common;

use ffi_common::{c_positions, c_world, hanging_grid, last_message, ok, state_hash};
use std::ptr::{null, null_mut};
use xpbd_cloth::ffi::*;

/// A tearable `n × n` hanging grid (`max_extra_vertices` = `extra`), pinned at its top corners.
fn tearable(world: XpbdWorldId, n: usize, extra: u32, params: impl FnOnce(&mut XpbdClothDesc)) -> XpbdClothId {
    let (positions, indices) = hanging_grid(n);
    let mut desc = XpbdClothDesc {
        positions: positions.as_ptr().cast(),
        vertex_count: positions.len() as u32,
        indices: indices.as_ptr(),
        triangle_count: (indices.len() / 3) as u32,
        max_extra_vertices: extra,
        ..xpbd_default_cloth_desc()
    };
    params(&mut desc);
    let mut cloth = XpbdClothId::default();
    // SAFETY: the descriptor's arrays hold the counts it gives; `cloth` is writable.
    ok(unsafe { xpbd_cloth_create(world, &desc, &mut cloth) });
    let pins = [0u32, n as u32 - 1];
    // SAFETY: two pins.
    ok(unsafe { xpbd_cloth_set_pinned(cloth, pins.as_ptr(), 2, null()) });
    cloth
}

/// (vertex count, triangle count, topology version).
fn counts(cloth: XpbdClothId) -> (u32, u32, u32) {
    let (mut v, mut t, mut version) = (0, 0, 0);
    // SAFETY: three writable u32.
    ok(unsafe { xpbd_cloth_get_render_counts(cloth, &mut v, &mut t, &mut version) });
    (v, t, version)
}

/// The render indices and vertex sources now.
fn mesh(cloth: XpbdClothId) -> (Vec<u32>, Vec<u32>) {
    let (v, t, _) = counts(cloth);
    let (mut indices, mut sources) = (vec![0u32; 3 * t as usize], vec![0u32; v as usize]);
    // SAFETY: arrays of the counts passed.
    unsafe {
        ok(xpbd_cloth_read_indices(cloth, indices.as_mut_ptr(), t));
        ok(xpbd_cloth_read_vertex_sources(cloth, sources.as_mut_ptr(), v));
    }
    (indices, sources)
}

/// Assert `result` is `code` and the thread's message names every one of `words`.
fn refused(result: XpbdResult, code: XpbdResult, words: &[&str]) {
    let message = last_message();
    assert_eq!(result, code, "{message}");
    for w in words {
        assert!(message.contains(w), "{message:?} lacks {w:?}");
    }
}

/// A cut across a hanging grid, followed as an engine follows it: the vertex count grows, the
/// version counts the cuts, the indices reference the new vertices where the cut runs and their
/// sources name the originals, and every per-vertex call takes the new count (the old one is
/// `BUFFER_SIZE_MISMATCH`); the two halves part: the lower one falls away from the pins.
#[test]
fn a_scripted_cut_is_followed_through_counts_indices_and_sources() {
    let n = 10usize;
    let world = c_world(1);
    let cloth = tearable(world, n, 64, |_| {});
    let (created_indices, _) = mesh(cloth);
    assert_eq!(counts(cloth), (100, 162, 0));
    for i in 0..n as u32 - 1 {
        ok(xpbd_cloth_tear(cloth, 40 + i, 41 + i));
    }
    let (v, t, version) = counts(cloth);
    assert_eq!((v, t, version), (110, 162, 9), "one copy of each of the row's 10 vertices");
    let (indices, sources) = mesh(cloth);
    for (k, (&now, &created)) in indices.iter().zip(&created_indices).enumerate() {
        assert_eq!(sources[now as usize], created, "corner {k}");
    }
    assert_eq!(&sources[..100], (0..100).collect::<Vec<u32>>().as_slice());
    // The old count is refused by every per-vertex call; the new one works.
    let mut out = vec![0.0f32; 3 * 100];
    // SAFETY: `out` holds 300 floats.
    refused(unsafe { xpbd_cloth_read_positions(cloth, out.as_mut_ptr(), 100) }, XpbdResult::BufferSizeMismatch, &["xpbd_cloth_read_positions", "110"]);
    let mut stride_buffer = vec![0u8; 24 * 110];
    // SAFETY: the buffer spans 110 vertices of 24 bytes.
    ok(unsafe { xpbd_cloth_write_vertices(cloth, stride_buffer.as_mut_ptr().cast(), 24, 0, 12, 110, 1.0) });
    let distances = vec![f32::INFINITY; 100];
    // SAFETY: 100 floats.
    refused(unsafe { xpbd_cloth_set_max_distances(cloth, distances.as_ptr(), 100) }, XpbdResult::BufferSizeMismatch, &["xpbd_cloth_set_max_distances"]);
    for _ in 0..30 {
        ok(xpbd_world_step(world, 1.0 / 60.0));
    }
    let positions = c_positions(cloth);
    let lowest_top = (0..40).map(|k| positions[k][1]).fold(f32::MAX, f32::min);
    let highest_bottom = (50..100).map(|k| positions[k][1]).fold(f32::MIN, f32::max);
    assert!(highest_bottom < lowest_top - 0.5, "the lower half fell away: {highest_bottom} vs {lowest_top}");
    ok(xpbd_world_destroy(world));
}

/// Strain tearing through the C ABI: the statistics count the torn edges of the step that tore.
#[test]
fn the_statistics_count_the_edges_a_step_tore() {
    let world = c_world(1);
    let cloth = tearable(world, 12, 200, |d| d.tear_strain = 0.2);
    let mut stats = XpbdClothStats::default();
    let (mut torn, mut steps) = (0, 0);
    while torn == 0 && steps < 60 {
        // Pull the corners apart faster than the sheet can follow.
        let targets = [-0.02 * steps as f32, 1.0, 0.0, 1.0 + 0.02 * steps as f32, 1.0, 0.0];
        let pins = [0u32, 11];
        // SAFETY: two pins and six floats.
        ok(unsafe { xpbd_cloth_set_pin_targets(cloth, pins.as_ptr(), 2, targets.as_ptr()) });
        ok(xpbd_world_step(world, 1.0 / 60.0));
        // SAFETY: a writable stats struct.
        ok(unsafe { xpbd_cloth_get_stats(cloth, &mut stats) });
        torn = stats.torn_edges_last_step;
        steps += 1;
    }
    assert!(torn > 0, "nothing tore in {steps} steps");
    assert_eq!(counts(cloth).2, torn, "the version counts every cut");
    ok(xpbd_world_step(world, 1.0 / 60.0));
    // SAFETY: as above.
    ok(unsafe { xpbd_cloth_get_stats(cloth, &mut stats) });
    ok(xpbd_world_destroy(world));
}

/// Every new call refuses bad input with its code and a message naming the call and the argument,
/// and changes nothing.
#[test]
fn bad_input_to_the_tearing_and_pressure_calls_is_refused_and_changes_nothing() {
    let world = c_world(1);
    let cloth = tearable(world, 6, 4, |_| {});
    let before = (state_hash(cloth), counts(cloth), mesh(cloth));
    let unchanged = || (state_hash(cloth), counts(cloth), mesh(cloth));
    // Vertices out of range, equal, or not an edge.
    refused(xpbd_cloth_tear(cloth, 36, 0), XpbdResult::InvalidArgument, &["xpbd_cloth_tear", "`a` = 36 is out of range", "below 36"]);
    refused(xpbd_cloth_tear(cloth, 0, u32::MAX), XpbdResult::InvalidArgument, &["`b` = 4294967295"]);
    refused(xpbd_cloth_tear(cloth, 7, 7), XpbdResult::InvalidArgument, &["7 and 7 are not the two ends of a triangle edge"]);
    refused(xpbd_cloth_tear(cloth, 0, 14), XpbdResult::InvalidArgument, &["0 and 14 are not the two ends"]);
    assert_eq!(unchanged(), before);
    // Out of reserved vertices: a cut across the grid needs 6 (one per vertex of the row), 4 are
    // reserved: the fifth edge, which splits both its ends, needs 2 where none are left.
    for a in 12..16 {
        ok(xpbd_cloth_tear(cloth, a, a + 1));
    }
    let at_capacity = unchanged();
    assert_eq!(at_capacity.1.0, 40);
    refused(xpbd_cloth_tear(cloth, 16, 17), XpbdResult::CapacityExceeded, &["xpbd_cloth_tear", "needs up to 2", "only 0 of the cloth's max_extra_vertices"]);
    assert_eq!(unchanged(), at_capacity);
    // NULL outputs and wrong lengths.
    let (mut v, mut t) = (0u32, 0u32);
    // SAFETY: NULL pointers are refused before any write; the others are writable.
    unsafe {
        refused(xpbd_cloth_get_render_counts(cloth, &mut v, &mut t, null_mut()), XpbdResult::NullPointer, &["xpbd_cloth_get_render_counts", "`topology_version`"]);
        refused(xpbd_cloth_get_render_counts(cloth, null_mut(), &mut t, &mut v), XpbdResult::NullPointer, &["`vertex_count`"]);
        refused(xpbd_cloth_read_indices(cloth, null_mut(), 50), XpbdResult::NullPointer, &["xpbd_cloth_read_indices", "`out`"]);
        let mut short = vec![0u32; 3 * 49];
        refused(xpbd_cloth_read_indices(cloth, short.as_mut_ptr(), 49), XpbdResult::BufferSizeMismatch, &["expected 50, got 49"]);
        refused(xpbd_cloth_read_vertex_sources(cloth, null_mut(), 3), XpbdResult::NullPointer, &["xpbd_cloth_read_vertex_sources"]);
        let mut sources = vec![0u32; 36];
        refused(xpbd_cloth_read_vertex_sources(cloth, sources.as_mut_ptr(), 36), XpbdResult::BufferSizeMismatch, &["expected 40, got 36"]);
        let mut volume = 0.0f32;
        refused(xpbd_cloth_get_volume(cloth, null_mut()), XpbdResult::NullPointer, &["xpbd_cloth_get_volume", "`out_m3`"]);
        refused(xpbd_cloth_get_volume(cloth, &mut volume), XpbdResult::InvalidArgument, &["the volume needs a closed", "boundary edge"]);
        assert_eq!(volume, 0.0, "nothing written");
    }
    assert_eq!(unchanged(), at_capacity);
    // A cloth that cannot tear.
    let plain = tearable(world, 4, 0, |_| {});
    refused(xpbd_cloth_tear(plain, 0, 1), XpbdResult::InvalidArgument, &["max_extra_vertices = 0"]);
    // Pressure on an open mesh: refused, the settings unchanged.
    let mut params = xpbd_default_cloth_params();
    // SAFETY: a writable params struct.
    ok(unsafe { xpbd_cloth_get_params(plain, &mut params) });
    let wanted = XpbdClothParams { pressure: 1.0, ..params };
    // SAFETY: a valid params struct.
    refused(unsafe { xpbd_cloth_set_params(plain, &wanted) }, XpbdResult::InvalidArgument, &["xpbd_cloth_set_params", "`pressure` = 1 needs a closed", "12 boundary edge"]);
    let mut after = xpbd_default_cloth_params();
    // SAFETY: as above.
    ok(unsafe { xpbd_cloth_get_params(plain, &mut after) });
    assert_eq!(after.pressure, 0.0);
    // Stale ids: a destroyed cloth, and a cloth of a destroyed world.
    ok(xpbd_cloth_destroy(plain));
    refused(xpbd_cloth_tear(plain, 0, 1), XpbdResult::InvalidId, &["xpbd_cloth_tear"]);
    // SAFETY: writable outputs.
    unsafe {
        refused(xpbd_cloth_get_render_counts(plain, &mut v, &mut t, &mut t), XpbdResult::InvalidId, &["xpbd_cloth_get_render_counts"]);
        let mut volume = 0.0;
        refused(xpbd_cloth_get_volume(plain, &mut volume), XpbdResult::InvalidId, &["xpbd_cloth_get_volume"]);
    }
    ok(xpbd_world_destroy(world));
    refused(xpbd_cloth_tear(cloth, 0, 1), XpbdResult::InvalidId, &["xpbd_cloth_tear"]);
    let mut indices = vec![0u32; 150];
    // SAFETY: 150 writable u32.
    refused(unsafe { xpbd_cloth_read_indices(cloth, indices.as_mut_ptr(), 50) }, XpbdResult::InvalidId, &["xpbd_cloth_read_indices"]);
    refused(unsafe { xpbd_cloth_read_vertex_sources(cloth, indices.as_mut_ptr(), 40) }, XpbdResult::InvalidId, &["xpbd_cloth_read_vertex_sources"]);
}

/// A closed cloth through the C ABI: the mesh report says it is closed, `xpbd_cloth_get_volume`
/// gives its volume, pressure holds it, a cut opens it (report, volume refused, pressure 0).
#[test]
fn pressure_and_the_volume_through_the_c_abi() {
    // An octahedron of 1 m radius: volume 4/3 m³.
    let positions: [[f32; 3]; 6] = [[1.0, 2.0, 0.0], [-1.0, 2.0, 0.0], [0.0, 3.0, 0.0], [0.0, 1.0, 0.0], [0.0, 2.0, 1.0], [0.0, 2.0, -1.0]];
    let indices: [u32; 24] = [0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5];
    let world = c_world(1);
    let desc = XpbdClothDesc {
        positions: positions.as_ptr().cast(),
        vertex_count: 6,
        indices: indices.as_ptr(),
        triangle_count: 8,
        max_extra_vertices: 8,
        pressure: 1.0,
        ..xpbd_default_cloth_desc()
    };
    let mut cloth = XpbdClothId::default();
    let mut report = XpbdMeshReport::default();
    let mut volume = 0.0f32;
    // SAFETY: valid descriptor and outputs.
    unsafe {
        ok(xpbd_cloth_create(world, &desc, &mut cloth));
        ok(xpbd_cloth_get_mesh_report(cloth, &mut report));
        ok(xpbd_cloth_get_volume(cloth, &mut volume));
    }
    assert_eq!(report.closed, 1);
    assert!((volume - 4.0 / 3.0).abs() < 1e-6, "{volume}");
    for _ in 0..30 {
        ok(xpbd_world_step(world, 1.0 / 60.0));
    }
    // SAFETY: as above.
    ok(unsafe { xpbd_cloth_get_volume(cloth, &mut volume) });
    assert!((volume / (4.0 / 3.0) - 1.0).abs() < 0.01, "held: {volume}");
    ok(xpbd_cloth_tear(cloth, 0, 2));
    let mut params = xpbd_default_cloth_params();
    // SAFETY: as above.
    unsafe {
        ok(xpbd_cloth_get_mesh_report(cloth, &mut report));
        ok(xpbd_cloth_get_params(cloth, &mut params));
        refused(xpbd_cloth_get_volume(cloth, &mut volume), XpbdResult::InvalidArgument, &["2 boundary edge"]);
    }
    assert_eq!((report.closed, report.boundary_edges, params.pressure), (0, 2, 0.0));
    ok(xpbd_world_destroy(world));
}
