//! Render proxies, debug lines and level of detail through the C ABI (issue 46): each call gives
//! what the Rust API gives, and every bad argument (NULL, NaN, wrong counts, stale and wrong-kind
//! ids) gets its specific code, a message naming the function and argument, and no change.

mod ffi_common;

use ffi_common::{c_cloth, c_hanging_cloth, c_positions, c_world, hanging_grid, last_message, ok, state_hash};
use std::ptr::{null, null_mut};
use xpbd_cloth::ffi::*;

/// A proxy of `cloth` from the n × n hanging grid (the same surface as `c_hanging_cloth`).
fn c_proxy(cloth: XpbdClothId, n: usize) -> (XpbdRenderProxyId, Vec<[f32; 3]>, Vec<u32>) {
    let (positions, indices) = hanging_grid(n);
    let desc = XpbdRenderProxyDesc {
        positions: positions.as_ptr().cast(),
        vertex_count: positions.len() as u32,
        indices: indices.as_ptr(),
        triangle_count: (indices.len() / 3) as u32,
        ..xpbd_default_render_proxy_desc()
    };
    let mut proxy = XpbdRenderProxyId::default();
    // SAFETY: the arrays outlive the call and hold the counts passed; valid out-parameter.
    ok(unsafe { xpbd_render_proxy_create(cloth, &desc, &mut proxy) });
    (proxy, positions, indices)
}

fn proxy_positions(proxy: XpbdRenderProxyId, n: usize) -> Vec<[f32; 3]> {
    let mut out = vec![[0.0f32; 3]; n];
    // SAFETY: a buffer of exactly n 3-vectors.
    ok(unsafe { xpbd_render_proxy_read_positions(proxy, out.as_mut_ptr().cast(), n as u32) });
    out
}

#[test]
fn a_proxy_through_c_draws_what_the_rust_api_draws_and_dies_with_its_cloth() {
    let world = c_world(2);
    let cloth = c_hanging_cloth(world, 16);
    let (proxy, rest, _) = c_proxy(cloth, 40);
    let mut count = 0;
    // SAFETY: valid out-parameter.
    ok(unsafe { xpbd_render_proxy_vertex_count(proxy, &mut count) });
    assert_eq!(count, 1600);
    // At rest the proxy gives its mesh back.
    let at_rest = proxy_positions(proxy, 1600);
    let worst = at_rest.iter().zip(&rest).map(|(a, b)| (0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f32::max)).fold(0.0, f32::max);
    assert!(worst < 1e-6, "{worst}");
    for _ in 0..30 {
        ok(xpbd_world_step(world, 1.0 / 60.0));
    }
    // The proxy of a 40² mesh over the same square as the 16² cloth: its corner vertices are the
    // cloth's (pinned and free).
    let (drawn, cloth_now) = (proxy_positions(proxy, 1600), c_positions(cloth));
    for (p, c) in [(0, 0), (39, 15), (1560, 240), (1599, 255)] {
        let d = (0..3).map(|k| (drawn[p][k] - cloth_now[c][k]).abs()).fold(0.0, f32::max);
        assert!(d < 1e-5, "proxy vertex {p} vs cloth vertex {c}: {d}");
    }
    // The strided write, normals included, against the reads; bytes between untouched.
    let mut buffer = vec![0xCCu8; 1 + 1600 * 28];
    // SAFETY: base + span inside the buffer (span = 28 * 1599 + 24 <= 28 * 1600).
    ok(unsafe { xpbd_render_proxy_write_vertices(proxy, buffer.as_mut_ptr().add(1).cast(), 28, 0, 12, 1600, 1.0) });
    let mut normals = vec![[0.0f32; 3]; 1600];
    // SAFETY: a buffer of exactly 1600 3-vectors.
    ok(unsafe { xpbd_render_proxy_read_normals(proxy, normals.as_mut_ptr().cast(), 1600) });
    let float = |at: usize| f32::from_ne_bytes(buffer[at..at + 4].try_into().unwrap());
    for v in [0usize, 777, 1599] {
        let base = 1 + 28 * v;
        assert_eq!([float(base), float(base + 4), float(base + 8)], drawn[v]);
        assert_eq!([float(base + 12), float(base + 16), float(base + 20)], normals[v]);
        assert!(buffer[base + 24..base + 28].iter().all(|&b| b == 0xCC) || v == 1599);
    }
    assert_eq!(buffer[0], 0xCC);
    let mut live = 0;
    // SAFETY: valid out-parameter.
    ok(unsafe { xpbd_live_render_proxy_count(&mut live) });
    assert!(live >= 1);
    // Destroying the cloth makes the proxy's id stale.
    ok(xpbd_cloth_destroy(cloth));
    let mut out = vec![[0.0f32; 3]; 1600];
    // SAFETY: a buffer of exactly 1600 3-vectors.
    let code = unsafe { xpbd_render_proxy_read_positions(proxy, out.as_mut_ptr().cast(), 1600) };
    assert_eq!(code, XpbdResult::InvalidId);
    assert!(last_message().starts_with("xpbd_render_proxy_read_positions: render proxy id"), "{}", last_message());
    assert_eq!(xpbd_render_proxy_destroy(proxy), XpbdResult::InvalidId);
    ok(xpbd_world_destroy(world));
}

#[test]
fn bad_proxy_arguments_get_their_codes_and_change_nothing() {
    let world = c_world(1);
    let cloth = c_hanging_cloth(world, 8);
    let (positions, indices) = hanging_grid(20);
    let desc = XpbdRenderProxyDesc {
        positions: positions.as_ptr().cast(),
        vertex_count: 400,
        indices: indices.as_ptr(),
        triangle_count: (indices.len() / 3) as u32,
        ..xpbd_default_render_proxy_desc()
    };
    let mut proxy = XpbdRenderProxyId { id: 0xDEAD };
    let create = |d: &XpbdRenderProxyDesc, out: *mut XpbdRenderProxyId| {
        // SAFETY: the arrays of `d` outlive the call; `out` is valid or NULL under test.
        unsafe { xpbd_render_proxy_create(cloth, d, out) }
    };
    let mut far = positions.clone();
    far[123][2] = 0.2;
    let mut nan = positions.clone();
    nan[7][1] = f32::NAN;
    let bad_index = [0u32, 1, 400];
    let cases: Vec<(XpbdRenderProxyDesc, XpbdResult, &str)> = vec![
        (XpbdRenderProxyDesc { positions: null(), ..desc }, XpbdResult::NullPointer, "`positions` is NULL"),
        (XpbdRenderProxyDesc { indices: null(), ..desc }, XpbdResult::NullPointer, "`indices` is NULL"),
        (XpbdRenderProxyDesc { vertex_count: 0, triangle_count: 0, ..desc }, XpbdResult::InvalidMesh, "no vertices"),
        (XpbdRenderProxyDesc { positions: far.as_ptr().cast(), ..desc }, XpbdResult::InvalidMesh, "render vertex 123 lies 0.2"),
        (XpbdRenderProxyDesc { positions: nan.as_ptr().cast(), ..desc }, XpbdResult::InvalidMesh, "vertex 7"),
        (XpbdRenderProxyDesc { indices: bad_index.as_ptr(), triangle_count: 1, ..desc }, XpbdResult::InvalidMesh, "vertex 400"),
        (XpbdRenderProxyDesc { max_distance: f32::NAN, ..desc }, XpbdResult::InvalidArgument, "`max_distance` = NaN"),
        (XpbdRenderProxyDesc { max_distance: 0.0, ..desc }, XpbdResult::InvalidArgument, "`max_distance` = 0"),
    ];
    for (d, code, says) in cases {
        assert_eq!(create(&d, &mut proxy), code, "{says}");
        let message = last_message();
        assert!(message.starts_with("xpbd_render_proxy_create: ") && message.contains(says), "{message}");
        assert_eq!(proxy.id, 0xDEAD, "out not written");
    }
    assert_eq!(create(&desc, null_mut()), XpbdResult::NullPointer);
    // SAFETY: NULL descriptor under test.
    assert_eq!(unsafe { xpbd_render_proxy_create(cloth, null(), &mut proxy) }, XpbdResult::NullPointer);
    // Null and wrong-kind ids.
    // SAFETY: valid out-parameter; ids under test.
    unsafe {
        assert_eq!(xpbd_render_proxy_create(XpbdClothId::default(), &desc, &mut proxy), XpbdResult::InvalidId);
        assert_eq!(xpbd_render_proxy_create(XpbdClothId { id: cloth.id | 1 << 46 }, &desc, &mut proxy), XpbdResult::InvalidId);
    }
    let (good, _, _) = c_proxy(cloth, 20);
    let as_cloth = XpbdClothId { id: good.id };
    let mut count = 0;
    // SAFETY: valid out-parameters; a proxy id passed as a cloth's and the other way round.
    unsafe {
        assert_eq!(xpbd_cloth_vertex_count(as_cloth, &mut count), XpbdResult::InvalidId);
        assert_eq!(xpbd_render_proxy_vertex_count(XpbdRenderProxyId { id: cloth.id }, &mut count), XpbdResult::InvalidId);
        assert_eq!(xpbd_render_proxy_vertex_count(good, null_mut()), XpbdResult::NullPointer);
    }
    // Reads and writes: wrong counts, NULL, NaN alpha, bad layouts.
    let mut out = vec![[0.5f32; 3]; 400];
    let mut buffer = vec![0xABu8; 400 * 24];
    // SAFETY: buffers hold what the calls are told (or less, where the count under test is wrong
    // and refused before any write).
    unsafe {
        assert_eq!(xpbd_render_proxy_read_positions(good, out.as_mut_ptr().cast(), 399), XpbdResult::BufferSizeMismatch);
        assert_eq!(xpbd_render_proxy_read_normals(good, null_mut(), 400), XpbdResult::NullPointer);
        let write = |stride, p, n, count, alpha, base: *mut u8| xpbd_render_proxy_write_vertices(good, base.cast(), stride, p, n, count, alpha);
        let base = buffer.as_mut_ptr();
        assert_eq!(write(24, 0, 12, 400, 0.5, null_mut()), XpbdResult::NullPointer);
        assert_eq!(write(24, 0, 12, 401, 0.5, base), XpbdResult::BufferSizeMismatch);
        assert_eq!(write(24, 0, 12, 400, f32::NAN, base), XpbdResult::InvalidArgument);
        assert!(last_message().contains("`alpha`"), "{}", last_message());
        assert_eq!(write(24, 0, 12, 400, 1.5, base), XpbdResult::InvalidArgument);
        assert_eq!(write(24, -1, -1, 400, 0.5, base), XpbdResult::InvalidArgument);
        assert_eq!(write(24, 0, 8, 400, 0.5, base), XpbdResult::InvalidArgument);
        assert_eq!(write(24, -2, 12, 400, 0.5, base), XpbdResult::InvalidArgument);
        assert_eq!(write(20, 0, 12, 400, 0.5, base), XpbdResult::InvalidArgument);
    }
    assert!(out.iter().all(|p| *p == [0.5; 3]) && buffer.iter().all(|&b| b == 0xAB), "nothing written");
    // Instances: a cloth of another mesh is refused, an instance of the cloth accepted.
    let (other_p, other_i) = hanging_grid(5);
    let other = c_cloth(world, &other_p, &other_i);
    let mut instance = XpbdClothId::default();
    let mut shared = XpbdRenderProxyId { id: 0xBEEF };
    // SAFETY: valid out-parameters.
    unsafe {
        assert_eq!(xpbd_render_proxy_create_instance(good, other, &mut shared), XpbdResult::InvalidArgument);
        assert_eq!(shared.id, 0xBEEF);
        ok(xpbd_cloth_create_instance(cloth, &mut instance));
        ok(xpbd_render_proxy_create_instance(good, instance, &mut shared));
    }
    assert_eq!(proxy_positions(shared, 400), proxy_positions(good, 400));
    ok(xpbd_render_proxy_destroy(good));
    assert_eq!(xpbd_render_proxy_destroy(good), XpbdResult::InvalidId);
    proxy_positions(shared, 400); // its binding lives on with the instance's proxy
    ok(xpbd_world_destroy(world));
}

#[test]
fn debug_lines_through_c_count_fully_and_fill_what_fits() {
    let world = c_world(1);
    let (p, i) = hanging_grid(32);
    let cloth = c_cloth(world, &p, &i);
    let pins = [0u32, 31];
    // SAFETY: the array holds 2 indices.
    ok(unsafe { xpbd_cloth_set_pinned(cloth, pins.as_ptr(), 2, null()) });
    let mut total = 0u32;
    // SAFETY: NULL buffers with max_lines 0; valid out-parameter.
    ok(unsafe { xpbd_world_debug_lines(world, XPBD_DEBUG_EDGES | XPBD_DEBUG_PINS, null_mut(), null_mut(), 0, &mut total) });
    assert_eq!(total, 2945 + 6);
    let (mut lines, mut colors) = (vec![-1.0f32; 6 * 100], vec![0u32; 100]);
    let mut count = 0;
    // SAFETY: buffers of 100 lines.
    ok(unsafe { xpbd_world_debug_lines(world, XPBD_DEBUG_EDGES, lines.as_mut_ptr(), colors.as_mut_ptr(), 100, &mut count) });
    assert_eq!(count, 2945, "the full count, beyond max_lines");
    assert!(colors.iter().all(|&c| c == 0xFF00_FF00), "at rest: green, alpha 255 (bytes R G B A = 0 255 0 255)");
    assert!(lines.iter().all(|v| v.is_finite() && *v != -1.0));
    // Bad arguments: nothing written.
    colors.fill(7);
    count = 99;
    // SAFETY: buffers as above, or NULL under test.
    unsafe {
        assert_eq!(xpbd_world_debug_lines(world, XPBD_DEBUG_EDGES, null_mut(), colors.as_mut_ptr(), 100, &mut count), XpbdResult::NullPointer);
        assert_eq!(xpbd_world_debug_lines(world, XPBD_DEBUG_EDGES, lines.as_mut_ptr(), colors.as_mut_ptr(), 100, null_mut()), XpbdResult::NullPointer);
        assert_eq!(xpbd_world_debug_lines(world, 1 << 9, lines.as_mut_ptr(), colors.as_mut_ptr(), 100, &mut count), XpbdResult::InvalidArgument);
        assert!(last_message().contains("`flags` = 512"), "{}", last_message());
        assert_eq!(xpbd_world_debug_lines(XpbdWorldId::default(), 1, null_mut(), null_mut(), 0, &mut count), XpbdResult::InvalidId);
    }
    assert!(colors.iter().all(|&c| c == 7) && count == 99);
    ok(xpbd_world_destroy(world));
}

#[test]
fn step_interval_through_c_is_range_checked_and_steps_the_cloth_every_nth_world_step() {
    let world = c_world(1);
    let cloth = c_hanging_cloth(world, 10);
    let mut params = xpbd_default_cloth_params();
    // SAFETY: valid out-parameter.
    ok(unsafe { xpbd_cloth_get_params(cloth, &mut params) });
    assert_eq!(params.step_interval, 1);
    for bad in [0u32, 17] {
        params.step_interval = bad;
        // SAFETY: valid descriptor.
        assert_eq!(unsafe { xpbd_cloth_set_params(cloth, &params) }, XpbdResult::InvalidArgument);
        assert!(last_message().contains("`step_interval`"), "{}", last_message());
    }
    params.step_interval = 4;
    // SAFETY: valid descriptor.
    ok(unsafe { xpbd_cloth_set_params(cloth, &params) });
    // From its first steps at 4 (a span of 1 or 2, then aligned), it steps in one world step of 4.
    for _ in 0..8 {
        ok(xpbd_world_step(world, 1.0 / 60.0));
    }
    let mut changed = 0;
    for _ in 0..16 {
        let before = state_hash(cloth);
        ok(xpbd_world_step(world, 1.0 / 60.0));
        changed += (state_hash(cloth) != before) as u32;
    }
    assert_eq!(changed, 4, "4 steps in 16 world steps");
    ok(xpbd_world_destroy(world));
}
