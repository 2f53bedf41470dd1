//! The engine's frame loop through the Rust API (docs/c-cpp.md, "The frame loop"): `World::advance`
//! and its accumulator, interpolated reads between the last two step states (bit for bit the lerp
//! of the two), teleports that reset the interpolation, interleaved vertex writes, bounds,
//! particle writes with their checks, and instances sharing a model.

mod common;

use common::horizontal_sheet;
use xpbd_cloth::{Cloth, ClothDesc, ClothError, ClothHandle, VertexLayout, World, WorldDesc};

const FIXED: f32 = 1.0 / 60.0;

/// A 12 × 12 horizontal sheet of 1 m at y = 0 held by its z = 0 edge, in a one-thread world.
fn hanging_world() -> (World, ClothHandle) {
    let (world, cloth, _, _) = held_sheet();
    (world, cloth)
}

/// [`hanging_world`] with the held vertices and the mesh's positions.
fn held_sheet() -> (World, ClothHandle, Vec<u32>, Vec<[f32; 3]>) {
    let (positions, indices) = horizontal_sheet(12, 1.0, 0.0);
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let cloth = world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
    let top: Vec<u32> = (0..positions.len() as u32).filter(|&v| positions[v as usize][2] <= 1e-6).collect();
    assert_eq!(top.len(), 12, "the held edge");
    world.cloth_mut(cloth).unwrap().set_pinned(&top, None).unwrap();
    (world, cloth, top, positions)
}

fn read(cloth: &Cloth, alpha: f32) -> Vec<[f32; 3]> {
    let mut out = vec![[0.0; 3]; cloth.vertex_count() as usize];
    cloth.read_positions_interpolated(alpha, &mut out).unwrap();
    out
}

fn read_normals(cloth: &Cloth, alpha: f32) -> Vec<[f32; 3]> {
    let mut out = vec![[0.0; 3]; cloth.vertex_count() as usize];
    cloth.read_normals_interpolated(alpha, &mut out).unwrap();
    out
}

fn current(cloth: &Cloth) -> Vec<[f32; 3]> {
    let mut out = vec![[0.0; 3]; cloth.vertex_count() as usize];
    cloth.read_positions(&mut out).unwrap();
    out
}

fn bits(v: &[[f32; 3]]) -> Vec<[u32; 3]> {
    v.iter().map(|p| p.map(f32::to_bits)).collect()
}

/// The documented interpolation for 0 < t < 1, written out per component: the current position
/// itself where the two states are equal.
fn lerp(a: &[[f32; 3]], b: &[[f32; 3]], t: f32) -> Vec<[f32; 3]> {
    let one = |a: &[f32; 3], b: &[f32; 3]| if a == b { *b } else { [0, 1, 2].map(|k| a[k] * (1.0 - t) + b[k] * t) };
    a.iter().zip(b).map(|(a, b)| one(a, b)).collect()
}

#[test]
fn advance_over_ten_seconds_of_7_16_33_ms_frames_takes_the_whole_steps_and_interpolates_bit_for_bit() {
    let (mut world, handle, held, rest) = held_sheet();
    let frames = [0.007f32, 0.016, 0.033];
    let mut moving_frames = 0;
    let (mut total, mut steps, mut frame) = (0.0f64, 0u64, 0usize);
    let mut before = current(world.cloth(handle).unwrap());
    let mut checked_single_steps = 0;
    while total < 10.0 {
        let dt = frames[frame % 3];
        frame += 1;
        total += dt as f64;
        // The held edge swings ±0.2 m along x at 1 Hz, so every step moves the cloth.
        let sway = 0.2 * (std::f64::consts::TAU * total).sin() as f32;
        let targets: Vec<[f32; 3]> = held.iter().map(|&v| rest[v as usize]).map(|p| [p[0] + sway, p[1], p[2]]).collect();
        world.cloth_mut(handle).unwrap().set_pin_targets(&held, &targets).unwrap();
        let a = world.advance(dt, FIXED, 8).unwrap();
        assert!((0.0..1.0).contains(&a.alpha), "alpha {} at frame {frame}", a.alpha);
        assert_eq!((a.dropped, a.unstable.clone()), (0.0, None));
        assert!(a.steps <= 2, "{} steps for one frame of {dt} s", a.steps);
        steps += a.steps as u64;
        let cloth = world.cloth(handle).unwrap();
        let (previous, now) = (read(cloth, 0.0), read(cloth, 1.0));
        assert_eq!(bits(&now), bits(&current(cloth)), "alpha 1 is the current state");
        if a.steps == 1 {
            assert_eq!(bits(&previous), bits(&before), "alpha 0 is the state before the last step");
            checked_single_steps += 1;
        }
        if a.steps > 0 && bits(&previous) != bits(&now) {
            moving_frames += 1;
        }
        if a.steps > 0 && a.alpha > 0.0 {
            assert_eq!(bits(&read(cloth, a.alpha)), bits(&lerp(&previous, &now, a.alpha)), "frame {frame}");
            let (n0, n1) = (read_normals(cloth, 0.0), read_normals(cloth, 1.0));
            assert_eq!(bits(&read_normals(cloth, a.alpha)), bits(&lerp(&n0, &n1, a.alpha)));
        }
        before = now;
    }
    let expected = (total / FIXED as f64).floor() as u64;
    assert!(steps.abs_diff(expected) <= 1, "{steps} steps for {total} s (expected {expected})");
    assert!(world.accumulated_time() < FIXED as f64);
    assert!(checked_single_steps > 200, "{checked_single_steps}");
    assert!(moving_frames > 400, "interpolated between different states in {moving_frames} frames only");
    println!("advance: {frame} frames, {total:.4} s, {steps} steps (floor {expected})");
}

#[test]
fn a_hitch_beyond_max_steps_is_dropped_in_whole_steps_and_alpha_stays_below_one() {
    let (mut world, _) = hanging_world();
    let a = world.advance(0.5, FIXED, 4).unwrap();
    assert_eq!(a.steps, 4);
    let fixed = FIXED as f64;
    let dropped_steps = a.dropped as f64 / fixed;
    assert!((dropped_steps - dropped_steps.round()).abs() < 1e-4 && dropped_steps.round() == 25.0, "{dropped_steps}");
    let left = 0.5 - 4.0 * fixed - a.dropped as f64;
    assert!((left - a.alpha as f64 * fixed).abs() < 1e-6, "{left} vs alpha {}", a.alpha);
    assert_eq!(world.last_dropped_time(), a.dropped);
    // A frame of exactly one step: one step, alpha where it was.
    let b = world.advance(FIXED, FIXED, 4).unwrap();
    assert_eq!((b.steps, b.dropped), (1, 0.0));
    assert!((b.alpha - a.alpha).abs() < 1e-4);
    // Zero frame time steps nothing; reset empties the accumulator.
    assert_eq!(world.advance(0.0, FIXED, 4).unwrap().steps, 0);
    world.reset_accumulator();
    assert_eq!(world.advance(0.0, FIXED, 4).unwrap().alpha, 0.0);
}

#[test]
fn advance_rejects_bad_arguments_and_changes_nothing() {
    let (mut world, handle) = hanging_world();
    world.advance(0.01, FIXED, 4).unwrap();
    let (acc, hash) = (world.accumulated_time(), world.cloth(handle).unwrap().state_hash());
    for (frame, fixed, max, name) in [
        (f32::NAN, FIXED, 4, Some("frame_dt")),
        (-0.001, FIXED, 4, Some("frame_dt")),
        (4000.0, FIXED, 4, Some("frame_dt")),
        (0.1, FIXED, 0, Some("max_steps")),
        (0.1, FIXED, 1001, Some("max_steps")),
        (0.1, 0.0, 4, None),
        (0.1, 2.0, 4, None),
        (0.1, f32::NAN, 4, None),
    ] {
        match (world.advance(frame, fixed, max), name) {
            (Err(ClothError::InvalidParameter { name: got, .. }), Some(want)) => assert_eq!(got, want),
            (Err(ClothError::InvalidTimeStep { .. }), None) => {}
            (other, _) => panic!("({frame}, {fixed}, {max}): {other:?}"),
        }
    }
    assert_eq!((world.accumulated_time(), world.cloth(handle).unwrap().state_hash()), (acc, hash));
    let c = world.cloth(handle).unwrap();
    let mut out = vec![[0.0; 3]; c.vertex_count() as usize];
    for alpha in [-0.01, 1.01, f32::NAN] {
        assert!(matches!(c.read_positions_interpolated(alpha, &mut out), Err(ClothError::InvalidParameter { name: "alpha", .. })));
        assert!(c.read_normals_interpolated(alpha, &mut out).is_err());
    }
    assert!(out.iter().all(|p| *p == [0.0; 3]), "untouched on error");
    let mut short = vec![[0.0; 3]; 3];
    assert!(matches!(c.read_positions_interpolated(0.5, &mut short), Err(ClothError::BufferSizeMismatch { .. })));
}

#[test]
fn after_a_teleport_every_alpha_draws_the_cloth_at_its_new_place_only() {
    let (mut world, handle) = hanging_world();
    for _ in 0..10 {
        world.advance(0.016, FIXED, 4).unwrap();
    }
    let old = current(world.cloth(handle).unwrap());
    let cloth = world.cloth_mut(handle).unwrap();
    assert_ne!(bits(&read(cloth, 0.0)), bits(&old), "moving: the two states differ before the teleport");
    cloth.teleport([16.5, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]).unwrap();
    let new = current(cloth);
    for alpha in [0.0, 0.001, 0.25, 0.5, 0.999, 1.0] {
        let drawn = read(cloth, alpha);
        assert_eq!(bits(&drawn), bits(&new), "alpha {alpha}");
        let moved = |p: &[[f32; 3]]| p.iter().zip(&old).map(|(p, o)| p[0] - o[0]).fold(f32::MAX, f32::min);
        assert_eq!(moved(&drawn), 16.5, "alpha {alpha}: a vertex drawn short of its new place");
    }
    let (lo, hi) = cloth.bounds();
    assert!(lo[0] >= 16.5 - 1e-4 && hi[0] <= 17.5 + 1e-4, "bounds {lo:?} {hi:?} hold only the new place");
    // The next step interpolates from the new place on.
    let a = world.advance(0.02, FIXED, 4).unwrap();
    assert_eq!(a.steps, 1);
    let drawn = read(world.cloth(handle).unwrap(), a.alpha);
    assert!(drawn.iter().zip(&old).all(|(p, o)| p[0] - o[0] > 16.4), "drawn from the new place on");
}

#[test]
fn write_vertices_fills_an_interleaved_buffer_with_the_packed_bits_and_touches_nothing_else() {
    let (mut world, handle) = hanging_world();
    world.advance(0.05, FIXED, 4).unwrap();
    let cloth = world.cloth(handle).unwrap();
    let n = cloth.vertex_count() as usize;
    let alpha = 0.37;
    let (positions, normals) = (read(cloth, alpha), read_normals(cloth, alpha));
    let stride = 32;
    for (position_offset, normal_offset, misalign) in [(0, 12, 0), (0, 12, 1), (20, 4, 3), (12, 0, 2)] {
        let mut buffer = vec![0xA5u8; stride * n + 8];
        let layout = VertexLayout { stride, position_offset: Some(position_offset), normal_offset: Some(normal_offset) };
        cloth.write_vertices(&mut buffer[misalign..], layout, alpha).unwrap();
        for v in 0..n {
            let at = |o: usize| {
                let b = &buffer[misalign + v * stride + o..][..12];
                [0, 1, 2].map(|k| f32::from_ne_bytes(b[4 * k..4 * k + 4].try_into().unwrap()).to_bits())
            };
            assert_eq!(at(position_offset), positions[v].map(f32::to_bits), "vertex {v}");
            assert_eq!(at(normal_offset), normals[v].map(f32::to_bits), "vertex {v}");
        }
        let written = |i: usize| {
            i >= misalign && {
                let r = (i - misalign) % stride;
                (i - misalign) / stride < n
                    && ((position_offset..position_offset + 12).contains(&r) || (normal_offset..normal_offset + 12).contains(&r))
            }
        };
        let touched = (0..buffer.len()).filter(|&i| !written(i) && buffer[i] != 0xA5).count();
        assert_eq!(touched, 0, "canary bytes changed with offsets ({position_offset}, {normal_offset})");
    }
    // Positions only, into a 12-byte stride: the packed read itself.
    let mut packed = vec![0u8; 12 * n];
    cloth.write_vertices(&mut packed, VertexLayout { stride: 12, position_offset: Some(0), normal_offset: None }, alpha).unwrap();
    let floats: Vec<u32> = packed.chunks(4).map(|b| f32::from_ne_bytes(b.try_into().unwrap()).to_bits()).collect();
    assert_eq!(floats, bits(&positions).concat());
    // Bad layouts and buffers: rejected, buffer untouched.
    let mut buffer = vec![0xA5u8; stride * n];
    for (stride, p, nrm) in [(8, Some(0), None), (32, Some(24), Some(0)), (32, Some(0), Some(8)), (32, None, None), (32, Some(usize::MAX), None)] {
        let layout = VertexLayout { stride, position_offset: p, normal_offset: nrm };
        let e = cloth.write_vertices(&mut buffer, layout, alpha).unwrap_err();
        match (p, nrm) {
            (None, None) => assert_eq!(e, ClothError::NoVertexAttribute, "{layout:?}"),
            // A stride too short for one attribute is the stride's fault, not an offset's.
            _ if stride < 12 => assert!(matches!(e, ClothError::InvalidParameter { name: "stride", .. }), "{layout:?}: {e:?}"),
            _ => assert!(matches!(e, ClothError::InvalidParameter { .. }), "{layout:?}: {e:?}"),
        }
    }
    let layout = VertexLayout { stride: 32, position_offset: Some(0), normal_offset: Some(12) };
    let e = cloth.write_vertices(&mut buffer[..stride * n - 9], layout, alpha).unwrap_err();
    assert_eq!(e, ClothError::BufferSizeMismatch { expected: stride * (n - 1) + 24, got: stride * n - 9 });
    assert!(cloth.write_vertices(&mut buffer, layout, 2.0).is_err());
    assert!(buffer.iter().all(|&b| b == 0xA5));
}

#[test]
fn bounds_hold_both_step_states() {
    let (mut world, handle) = hanging_world();
    world.advance(0.1, FIXED, 8).unwrap();
    let cloth = world.cloth(handle).unwrap();
    let all: Vec<[f32; 3]> = read(cloth, 0.0).into_iter().chain(read(cloth, 1.0)).collect();
    let (lo, hi) = cloth.bounds();
    for k in 0..3 {
        assert_eq!(lo[k], all.iter().map(|p| p[k]).fold(f32::MAX, f32::min));
        assert_eq!(hi[k], all.iter().map(|p| p[k]).fold(f32::MIN, f32::max));
    }
    assert!(hi[1] == 0.0 && lo[1] < -0.01 && hi[0] - lo[0] > 0.99, "{lo:?} {hi:?}");
}

#[test]
fn set_positions_and_velocities_write_the_listed_vertices_exactly_and_refuse_bad_input_whole() {
    let (mut world, handle) = hanging_world();
    world.advance(0.05, FIXED, 4).unwrap();
    let cloth = world.cloth_mut(handle).unwrap();
    let n = cloth.vertex_count();
    let free = n - 1; // bottom corner
    let pinned = 0; // a top-row vertex
    cloth.set_positions(Some(&[free, pinned]), &[[0.25, -0.5, 0.125], [0.0, 1.5, 0.0]]).unwrap();
    let now = current(cloth);
    assert_eq!((now[free as usize], now[pinned as usize]), ([0.25, -0.5, 0.125], [0.0, 1.5, 0.0]));
    for alpha in [0.0, 0.5] {
        assert_eq!(read(cloth, alpha)[free as usize], [0.25, -0.5, 0.125], "drawn where put at alpha {alpha}");
    }
    cloth.set_velocities(None, &vec![[0.0, 0.0, 2.0]; n as usize]).unwrap();
    assert!(cloth.particle_velocities().iter().all(|v| v.to_array() == [0.0, 0.0, 2.0]));
    world.step(FIXED).unwrap();
    let after = current(world.cloth(handle).unwrap());
    assert_eq!(after[pinned as usize], [0.0, 1.5, 0.0], "a pinned vertex stays where it was put");

    let cloth = world.cloth_mut(handle).unwrap();
    let hash = cloth.state_hash();
    let e = cloth.set_positions(Some(&[1, n]), &[[0.0; 3], [0.0; 3]]).unwrap_err();
    assert_eq!(e, ClothError::VertexOutOfRange { position: 1, vertex: n, vertex_count: n });
    let e = cloth.set_positions(Some(&[1, 2]), &[[0.0; 3], [f32::NAN, 0.0, 0.0]]).unwrap_err();
    assert!(matches!(e, ClothError::InvalidValue { name: "positions", position: 1, .. }), "{e:?}");
    assert!(e.to_string().contains("list position 1"), "{e}");
    assert!(cloth.set_positions(Some(&[1]), &[[2e5, 0.0, 0.0]]).is_err());
    assert!(matches!(cloth.set_positions(None, &[[0.0; 3]]), Err(ClothError::BufferSizeMismatch { .. })));
    assert!(matches!(cloth.set_positions(Some(&[1, 2]), &[[0.0; 3]]), Err(ClothError::BufferSizeMismatch { .. })));
    let e = cloth.set_velocities(Some(&[3]), &[[1000.0, 0.0, 0.0]]).unwrap_err();
    assert!(matches!(e, ClothError::InvalidValue { name: "velocities", position: 0, .. }), "{e:?}");
    assert!(cloth.set_velocities(Some(&[3]), &[[0.0, f32::INFINITY, 0.0]]).is_err());
    assert_eq!(cloth.state_hash(), hash, "nothing changed");
}

/// A fresh held sheet and an instance made of another fresh one, stepped together in one world.
#[test]
fn an_instance_steps_bit_for_bit_like_a_fresh_cloth_and_outlives_its_source() {
    let (mut world, fresh, held, _) = held_sheet();
    let (positions, indices) = horizontal_sheet(12, 1.0, 0.0);
    let source = world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
    world.cloth_mut(source).unwrap().set_pinned(&held, None).unwrap();
    let instance = world.add_instance(source).unwrap();
    let (f, s, i) = (world.cloth(fresh).unwrap(), world.cloth(source).unwrap(), world.cloth(instance).unwrap());
    assert!(i.shares_model_with(s) && !f.shares_model_with(s));
    assert_eq!(i.state_hash(), f.state_hash());
    for step in 0..30 {
        world.step(FIXED).unwrap();
        let hash = |h| world.cloth(h).unwrap().state_hash();
        assert_eq!((hash(instance), hash(source)), (hash(fresh), hash(fresh)), "step {step}");
    }
    // Its own pins: the instance gets its own layout, the source is unaffected.
    world.cloth_mut(instance).unwrap().unpin(&held[..6]).unwrap();
    world.remove_cloth(source).unwrap();
    for _ in 0..10 {
        world.step(FIXED).unwrap();
    }
    let i = world.cloth(instance).unwrap();
    assert_ne!(i.state_hash(), world.cloth(fresh).unwrap().state_hash(), "half released, it falls differently");
    assert!(i.particle_positions().iter().all(|x| x.is_finite()));
    // An instance of a moving cloth continues its motion, its interpolation included.
    let copy = world.add_instance(fresh).unwrap();
    let (a, b) = (world.cloth(fresh).unwrap(), world.cloth(copy).unwrap());
    assert_eq!(bits(&read(a, 0.5)), bits(&read(b, 0.5)));
    assert_eq!(b.status(), xpbd_cloth::ClothStatus::default());
    let stale = copy;
    world.remove_cloth(copy).unwrap();
    assert_eq!(world.add_instance(stale).unwrap_err(), ClothError::InvalidHandle);
}
