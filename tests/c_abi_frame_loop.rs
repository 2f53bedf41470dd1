//! The frame loop through the C ABI (docs/c-cpp.md, "The frame loop"): `xpbd_world_advance` over
//! cycling frame times, interpolated reads against the two step states bit for bit, a teleport
//! between them, `xpbd_cloth_write_vertices` into a 32-byte-stride buffer with canaries at a
//! misaligned base, bounds, particle writes, instances, and every rejected argument with its code
//! and an unchanged state.

mod ffi_common;

use ffi_common::{bits, c_hanging_cloth, c_positions, c_world, last_message, ok, state_hash as hash};
use std::ptr::{null, null_mut};
use xpbd_cloth::ffi::*;

const FIXED: f32 = 1.0 / 60.0;

fn interpolated(cloth: XpbdClothId, alpha: f32, normals: bool) -> Vec<[f32; 3]> {
    let n = c_positions(cloth).len();
    let mut out = vec![[0.0f32; 3]; n];
    // SAFETY: a buffer of exactly n 3-vectors.
    ok(unsafe {
        match normals {
            false => xpbd_cloth_read_positions_interpolated(cloth, alpha, out.as_mut_ptr().cast(), n as u32),
            true => xpbd_cloth_read_normals_interpolated(cloth, alpha, out.as_mut_ptr().cast(), n as u32),
        }
    });
    out
}

/// The documented interpolation for 0 < t < 1.
fn lerp(a: &[[f32; 3]], b: &[[f32; 3]], t: f32) -> Vec<[f32; 3]> {
    let one = |a: &[f32; 3], b: &[f32; 3]| if a == b { *b } else { [0, 1, 2].map(|k| a[k] * (1.0 - t) + b[k] * t) };
    a.iter().zip(b).map(|(a, b)| one(a, b)).collect()
}

fn advance(world: XpbdWorldId, frame: f32, max_steps: u32) -> (u32, f32) {
    let (mut steps, mut alpha) = (u32::MAX, f32::NAN);
    // SAFETY: valid out-parameters.
    ok(unsafe { xpbd_world_advance(world, frame, FIXED, max_steps, &mut steps, &mut alpha) });
    (steps, alpha)
}

#[test]
fn advance_steps_whole_fixed_steps_and_reads_interpolate_between_the_last_two() {
    let world = c_world(1);
    let cloth = c_hanging_cloth(world, 10);
    let frames = [0.007f32, 0.016, 0.033];
    let (mut total, mut steps) = (0.0f64, 0u64);
    for frame in 0..(10.0f64 / 0.056 * 3.0) as usize {
        let dt = frames[frame % 3];
        total += dt as f64;
        let (taken, alpha) = advance(world, dt, 8);
        assert!((0.0..1.0).contains(&alpha), "alpha {alpha}");
        steps += taken as u64;
        if frame % 7 == 0 && alpha > 0.0 {
            let (p0, p1) = (interpolated(cloth, 0.0, false), interpolated(cloth, 1.0, false));
            assert_eq!(bits(&p1), bits(&c_positions(cloth)));
            assert_eq!(bits(&interpolated(cloth, alpha, false)), bits(&lerp(&p0, &p1, alpha)));
            let (n0, n1) = (interpolated(cloth, 0.0, true), interpolated(cloth, 1.0, true));
            assert_eq!(bits(&interpolated(cloth, alpha, true)), bits(&lerp(&n0, &n1, alpha)));
        }
    }
    let expected = (total / FIXED as f64).floor() as u64;
    assert!(steps.abs_diff(expected) <= 1, "{steps} steps for {total} s");
    // NULL outputs are allowed; a hitch is dropped and reported.
    // SAFETY: NULL out-parameters are documented as not wanted.
    ok(unsafe { xpbd_world_advance(world, 0.01, FIXED, 8, null_mut(), null_mut()) });
    let (taken, _) = advance(world, 1.0, 5);
    assert_eq!(taken, 5);
    let mut dropped = -1.0f32;
    // SAFETY: valid out-parameter.
    ok(unsafe { xpbd_world_last_dropped_time(world, &mut dropped) });
    assert!(dropped > 1.0 - 7.0 * FIXED && dropped < 1.0 - 4.0 * FIXED, "dropped {dropped}");
    ok(xpbd_world_reset_accumulator(world));
    assert_eq!(advance(world, 0.0, 5), (0, 0.0));
    ok(xpbd_world_destroy(world));
}

#[test]
fn advance_and_interpolated_reads_reject_bad_arguments_without_a_change() {
    let world = c_world(1);
    let cloth = c_hanging_cloth(world, 6);
    advance(world, 0.03, 4);
    let before = hash(cloth);
    let (mut steps, mut alpha) = (77u32, 7.0f32);
    for (frame, fixed, max) in [(f32::NAN, FIXED, 4), (-1.0, FIXED, 4), (0.1, 0.0, 4), (0.1, 1.5, 4), (0.1, FIXED, 0)] {
        // SAFETY: valid out-parameters.
        let r = unsafe { xpbd_world_advance(world, frame, fixed, max, &mut steps, &mut alpha) };
        assert_eq!(r, XpbdResult::InvalidArgument, "({frame}, {fixed}, {max})");
        assert!(last_message().starts_with("xpbd_world_advance: "), "{}", last_message());
    }
    assert_eq!((steps, alpha, hash(cloth)), (77, 7.0, before), "nothing written, nothing stepped");
    assert_eq!(advance(world, 0.0, 4).1, advance(world, 0.0, 4).1, "the accumulator kept its time");
    // SAFETY: NULL, short and invalid-id buffers are rejected before any write.
    unsafe {
        assert_eq!(xpbd_world_advance(XpbdWorldId::default(), 0.1, FIXED, 4, &mut steps, &mut alpha), XpbdResult::InvalidId);
        let mut out = vec![[9.0f32; 3]; 36];
        let p = out.as_mut_ptr().cast();
        for a in [-0.5, 1.5, f32::NAN] {
            assert_eq!(xpbd_cloth_read_positions_interpolated(cloth, a, p, 36), XpbdResult::InvalidArgument);
            assert_eq!(xpbd_cloth_read_normals_interpolated(cloth, a, p, 36), XpbdResult::InvalidArgument);
        }
        assert!(last_message().contains("`alpha`"), "{}", last_message());
        assert_eq!(xpbd_cloth_read_positions_interpolated(cloth, 0.5, p, 35), XpbdResult::BufferSizeMismatch);
        assert_eq!(xpbd_cloth_read_positions_interpolated(cloth, 0.5, null_mut(), 36), XpbdResult::NullPointer);
        assert!(out.iter().all(|v| *v == [9.0; 3]));
        let (mut lo, mut hi) = ([0.0f32; 3], [0.0f32; 3]);
        assert_eq!(xpbd_cloth_get_bounds(cloth, null_mut(), hi.as_mut_ptr()), XpbdResult::NullPointer);
        assert_eq!(xpbd_cloth_get_bounds(XpbdClothId::default(), lo.as_mut_ptr(), hi.as_mut_ptr()), XpbdResult::InvalidId);
    }
    ok(xpbd_world_destroy(world));
}

#[test]
fn teleport_between_steps_leaves_no_vertex_between_the_old_and_new_place() {
    let world = c_world(1);
    let cloth = c_hanging_cloth(world, 10);
    for _ in 0..20 {
        advance(world, 0.016, 4);
    }
    let old = c_positions(cloth);
    assert_ne!(bits(&interpolated(cloth, 0.0, false)), bits(&old), "the two states differ");
    // SAFETY: 3 and 4 readable floats.
    ok(unsafe { xpbd_cloth_teleport(cloth, [0.0f32, 0.0, -16.5].as_ptr(), [0.0f32, 0.0, 0.0, 1.0].as_ptr()) });
    for alpha in [0.0, 0.1, 0.5, 0.9, 1.0] {
        let drawn = interpolated(cloth, alpha, false);
        let short = drawn.iter().zip(&old).filter(|(p, o)| p[2] - o[2] != -16.5).count();
        assert_eq!(short, 0, "alpha {alpha}: {short} vertices between the old and the new place");
    }
    let (mut lo, mut hi) = ([0.0f32; 3], [0.0f32; 3]);
    // SAFETY: 3 writable floats each.
    ok(unsafe { xpbd_cloth_get_bounds(cloth, lo.as_mut_ptr(), hi.as_mut_ptr()) });
    assert!(hi[2] < -16.0 && lo[2] > -17.5, "bounds {lo:?}..{hi:?} only around the new place");
    ok(xpbd_world_destroy(world));
}

#[test]
fn write_vertices_into_a_32_byte_stride_buffer_with_canaries_at_any_alignment() {
    let world = c_world(1);
    let cloth = c_hanging_cloth(world, 9);
    let (_, alpha) = advance(world, 0.04, 4);
    assert!(alpha > 0.0);
    let n = 81usize;
    let (positions, normals) = (interpolated(cloth, alpha, false), interpolated(cloth, alpha, true));
    let stride = 32usize;
    for (misalign, po, no) in [(0usize, 0i32, 12i32), (1, 0, 12), (3, 16, 0), (2, 0, -1), (5, -1, 20)] {
        let mut buffer = vec![0xC3u8; stride * n + 16];
        // SAFETY: the buffer holds stride*n + 16 bytes from `misalign` on, more than the span.
        ok(unsafe {
            xpbd_cloth_write_vertices(cloth, buffer.as_mut_ptr().add(misalign).cast(), 32, po, no, n as u32, alpha)
        });
        let floats = |v: usize, o: i32| -> [u32; 3] {
            let at = misalign + v * stride + o as usize;
            [0, 1, 2].map(|k| f32::from_ne_bytes(buffer[at + 4 * k..at + 4 * k + 4].try_into().unwrap()).to_bits())
        };
        let mut expected_writes = vec![false; buffer.len()];
        for v in 0..n {
            for (offset, values) in [(po, &positions), (no, &normals)] {
                if offset >= 0 {
                    assert_eq!(floats(v, offset), values[v].map(f32::to_bits), "vertex {v}, offset {offset}");
                    let at = misalign + v * stride + offset as usize;
                    expected_writes[at..at + 12].fill(true);
                }
            }
        }
        let touched = (0..buffer.len()).filter(|&i| !expected_writes[i] && buffer[i] != 0xC3).count();
        assert_eq!(touched, 0, "bytes outside the attributes changed (misalign {misalign}, {po}, {no})");
    }
    // Rejected: bad stride, offsets, counts, pointers, alpha. The buffer is never touched.
    let mut buffer = vec![0xC3u8; stride * n];
    let base = buffer.as_mut_ptr().cast();
    let cases = [
        (8, 0, -1, n, alpha, XpbdResult::InvalidArgument),   // stride below one attribute
        (32, 24, 0, n, alpha, XpbdResult::InvalidArgument),  // position past the stride
        (32, 0, 8, n, alpha, XpbdResult::InvalidArgument),   // overlapping attributes
        (32, -2, 12, n, alpha, XpbdResult::InvalidArgument), // offset below -1
        (32, -1, -1, n, alpha, XpbdResult::InvalidArgument), // nothing to write
        (32, 0, 12, n, 1.5, XpbdResult::InvalidArgument),
        (32, 0, 12, n - 1, alpha, XpbdResult::BufferSizeMismatch),
    ];
    for (stride, po, no, count, a, code) in cases {
        // SAFETY: every case is rejected before a write; the buffer holds 32*n bytes anyway.
        let r = unsafe { xpbd_cloth_write_vertices(cloth, base, stride, po, no, count as u32, a) };
        assert_eq!(r, code, "stride {stride}, offsets {po}/{no}, count {count}, alpha {a}: {}", last_message());
        assert!(last_message().starts_with("xpbd_cloth_write_vertices: "));
    }
    // SAFETY: NULL is rejected.
    let r = unsafe { xpbd_cloth_write_vertices(cloth, null_mut(), 32, 0, 12, n as u32, alpha) };
    assert_eq!(r, XpbdResult::NullPointer);
    assert!(buffer.iter().all(|&b| b == 0xC3), "untouched by rejected calls");
    ok(xpbd_world_destroy(world));
}

#[test]
fn set_positions_and_velocities_write_render_vertices_and_reject_bad_input_unchanged() {
    let world = c_world(1);
    let cloth = c_hanging_cloth(world, 6);
    advance(world, 0.05, 4);
    let n = 36u32;
    // SAFETY: every array holds the counts passed (NULL where documented).
    unsafe {
        let vertices = [35u32, 7];
        let targets = [0.5f32, -0.25, 0.125, 0.3, 0.6, 0.1];
        ok(xpbd_cloth_set_positions(cloth, vertices.as_ptr(), 2, targets.as_ptr()));
        let now = c_positions(cloth);
        assert_eq!((now[35], now[7]), ([0.5, -0.25, 0.125], [0.3, 0.6, 0.1]));
        assert_eq!(interpolated(cloth, 0.5, false)[35], [0.5, -0.25, 0.125], "drawn where put");
        let all = vec![[0.0f32, 1.0, 0.0]; n as usize];
        ok(xpbd_cloth_set_velocities(cloth, null(), n, all.as_ptr().cast()));
        let before = hash(cloth);
        let bad = [f32::NAN, 0.0, 0.0];
        let cases: [(XpbdResult, XpbdResult); 5] = [
            (xpbd_cloth_set_positions(cloth, [n].as_ptr(), 1, [0.0f32; 3].as_ptr()), XpbdResult::InvalidArgument),
            (xpbd_cloth_set_positions(cloth, [1u32, 2].as_ptr(), 2, [0.0, 0.0, 0.0, f32::NAN, 0.0, 0.0].as_ptr()), XpbdResult::InvalidArgument),
            (xpbd_cloth_set_positions(cloth, null(), 3, [0.0f32; 9].as_ptr()), XpbdResult::BufferSizeMismatch),
            (xpbd_cloth_set_velocities(cloth, [1u32].as_ptr(), 1, bad.as_ptr()), XpbdResult::InvalidArgument),
            (xpbd_cloth_set_velocities(cloth, [1u32].as_ptr(), 1, null()), XpbdResult::NullPointer),
        ];
        for (k, (got, want)) in cases.into_iter().enumerate() {
            assert_eq!(got, want, "case {k}");
        }
        let far = [0.0, 0.0, 0.0, 1e6, 0.0, 0.0];
        assert_eq!(xpbd_cloth_set_positions(cloth, [1u32, 2].as_ptr(), 2, far.as_ptr()), XpbdResult::InvalidArgument);
        assert!(last_message().contains("list position 1"), "{}", last_message());
        assert_eq!(hash(cloth), before, "rejected writes changed nothing");
        let fast = [0.0f32, 0.0, 500.0];
        assert_eq!(xpbd_cloth_set_velocities(cloth, [3u32].as_ptr(), 1, fast.as_ptr()), XpbdResult::InvalidArgument);
        assert!(last_message().contains("max_particle_speed"), "{}", last_message());
        assert_eq!(xpbd_cloth_set_positions(XpbdClothId::default(), null(), 0, null()), XpbdResult::InvalidId);
    }
    ok(xpbd_world_destroy(world));
}

#[test]
fn instances_share_the_model_step_like_fresh_cloths_and_survive_their_source() {
    let world = c_world(1);
    let fresh = c_hanging_cloth(world, 12);
    let source = c_hanging_cloth(world, 12);
    let mut instance = XpbdClothId::default();
    // SAFETY: valid out-parameter.
    ok(unsafe { xpbd_cloth_create_instance(source, &mut instance) });
    for step in 0..20 {
        ok(xpbd_world_step(world, FIXED));
        assert_eq!((hash(instance), hash(source)), (hash(fresh), hash(fresh)), "step {step}");
    }
    ok(xpbd_cloth_destroy(source));
    ok(xpbd_world_step(world, FIXED));
    assert_eq!(hash(instance), hash(fresh), "the instance outlives its source");
    // SAFETY: NULL and stale ids are rejected before any write.
    unsafe {
        let mut out = XpbdClothId { id: 77 };
        assert_eq!(xpbd_cloth_create_instance(source, &mut out), XpbdResult::InvalidId);
        assert_eq!(xpbd_cloth_create_instance(instance, null_mut()), XpbdResult::NullPointer);
        assert_eq!(out.id, 77);
    }
    ok(xpbd_world_destroy(world));
}

#[test]
fn a_still_cloth_with_sleep_speed_sleeps_and_wakes_on_request() {
    let world = c_world(1);
    let cloth = c_hanging_cloth(world, 6);
    let sleeping = |c: XpbdClothId| {
        let mut s = 7u32;
        // SAFETY: valid out-parameter.
        ok(unsafe { xpbd_cloth_is_sleeping(c, &mut s) });
        s
    };
    let mut p = xpbd_default_cloth_params();
    // SAFETY: valid out- and in-parameters.
    unsafe {
        ok(xpbd_cloth_get_params(cloth, &mut p));
        assert_eq!((p.sleep_speed, p.sleep_time), (0.0, 1.0), "off by default");
        p.sleep_speed = -1.0;
        assert_eq!(xpbd_cloth_set_params(cloth, &p), XpbdResult::InvalidArgument);
        (p.sleep_speed, p.sleep_time, p.linear_damping) = (0.01, 0.25, 4.0);
        ok(xpbd_cloth_set_params(cloth, &p));
    }
    let mut steps = 0;
    while sleeping(cloth) == 0 {
        ok(xpbd_world_step(world, FIXED));
        steps += 1;
        assert!(steps < 3000, "never fell asleep");
    }
    let h = hash(cloth);
    ok(xpbd_world_step(world, FIXED));
    assert_eq!((sleeping(cloth), hash(cloth)), (1, h), "asleep, unmoved");
    ok(xpbd_cloth_wake(cloth));
    assert_eq!(sleeping(cloth), 0);
    assert_eq!(xpbd_cloth_wake(XpbdClothId::default()), XpbdResult::InvalidId);
    // SAFETY: NULL is rejected.
    assert_eq!(unsafe { xpbd_cloth_is_sleeping(cloth, null_mut()) }, XpbdResult::NullPointer);
    println!("a damped 6 x 6 cloth fell asleep after {steps} steps");
    ok(xpbd_world_destroy(world));
}
