//! Grabbing cloth (docs/c-cpp.md, "Grabbing cloth"): a soft grab (`Cloth::grab`, `move_grab`,
//! `release`; `xpbd_cloth_grab`, `xpbd_cloth_grab_move`, `xpbd_cloth_release`) dragged 15 cm
//! follows its target within 2 cm without stretching the cloth past its stretch limit, costs
//! nothing to add or remove, and keeps the bits equal at every thread count; a hard pin dragged
//! away from the others reports the stretch it forces (`ClothStats::pin_strain`); bad input
//! through the C ABI gets its own code and changes nothing.

mod common;
mod ffi_common;

use common::vertical_sheet;
use ffi_common::{c_cloth, c_world, last_message, ok, state_hash};
use xpbd_cloth::ffi::*;
use xpbd_cloth::{ClothDesc, ClothHandle, Vec3, World, WorldDesc};

const DT: f32 = 1.0 / 60.0;
/// How far the grab is dragged \[m\].
const DRAG: f32 = 0.15;
/// The grabs' stiffness \[N/m\]: a 1 m² sheet of the default material weighs about 2 N, which
/// the grab holds within 2 mm.
const STIFFNESS: f32 = 1000.0;
/// Where the grab is dragged: out of the hanging sheet's plane and up, as a mouse lifts cloth
/// towards the viewer (within the cloth's reach: a sheet hanging from its corners is taut towards
/// them, so a drag straight out of its plane would pull it beyond its rest lengths).
const TOWARDS: Vec3 = Vec3::new(0.0, 0.6, 0.8);

/// A vertical `n × n` sheet of 1 m in a world of `threads` threads, hanging from its top corners,
/// settled for 1 s; the vertex in the middle of its bottom half.
fn hanging(n: usize, threads: u32) -> (World, ClothHandle, u32) {
    let (positions, indices) = vertical_sheet(n, 1.0);
    let mut world = World::new(WorldDesc { thread_count: threads, ..WorldDesc::default() }).unwrap();
    let cloth = world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
    world.cloth_mut(cloth).unwrap().set_pinned(&[0, n as u32 - 1], None).unwrap();
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    (world, cloth, (3 * n / 4 * n + n / 2) as u32)
}

/// Drag `vertex` DRAG m `towards` over 0.5 s and hold it for 0.5 s, by a soft grab or a `hard`
/// pin: per step, the distance from the vertex to its target, the largest strain of the edges
/// within 10 cm of it, and the cloth's largest edge strain.
fn drag(world: &mut World, cloth: ClothHandle, vertex: u32, towards: Vec3, hard: bool) -> Vec<(f32, f32, f32)> {
    let start = world.cloth(cloth).unwrap().particle_positions()[vertex as usize];
    (1..=60)
        .map(|k| {
            let target = start + towards * DRAG * (k as f32 / 30.0).min(1.0);
            let c = world.cloth_mut(cloth).unwrap();
            match (hard, k) {
                (true, 1) => c.set_pinned(&[vertex], Some(&[target.to_array()])).unwrap(),
                (true, _) => c.set_pin_targets(&[vertex], &[target.to_array()]).unwrap(),
                (false, 1) => c.grab(vertex, target.to_array(), STIFFNESS).unwrap(),
                (false, _) => c.move_grab(vertex, target.to_array()).unwrap(),
            }
            world.step(DT).unwrap();
            let c = world.cloth(cloth).unwrap();
            let (x, edges) = (c.particle_positions(), c.stretch_constraints());
            let grabbed = x[vertex as usize];
            let near = edges.edges.iter().zip(edges.rest_length).filter(|(e, _)| x[e[0] as usize].distance(grabbed) <= 0.1);
            let near = near.map(|(&[i, j], &l)| x[i as usize].distance(x[j as usize]) / l - 1.0).fold(0.0, f32::max);
            (grabbed.distance(target), near, c.stats().max_edge_strain)
        })
        .collect()
}

/// The largest (gap to the target, strain within 10 cm, strain anywhere) over the steps.
fn worst(steps: &[(f32, f32, f32)]) -> (f32, f32, f32) {
    steps.iter().fold((0.0, 0.0, 0.0), |w, s| (w.0.max(s.0), w.1.max(s.1), w.2.max(s.2)))
}

/// The test 4: on 32² and 96² sheets, a soft grab dragged 15 cm within the cloth's reach
/// ([`TOWARDS`]) stays within 2 cm of its target at every step. On 32² no edge ends a step beyond
/// the stretch limit (`max_stretch` 1.025: 2.5 %, and the limit's own tolerance, 0.2 percentage
/// points). On 96² the edges around the grab stay below the limit's "severe" bound 1 + 2·(s − 1)
/// (5 %): the limit's rounds do not bring a 96² cloth in motion all the way back in one step,
/// grabbed or not (its largest strain anywhere is printed).
#[test]
fn a_soft_grab_dragged_15_cm_follows_within_2_cm_inside_the_stretch_limit() {
    for n in [32, 96] {
        let (mut world, cloth, vertex) = hanging(n, 2);
        let limit = world.cloth(cloth).unwrap().params().max_stretch.unwrap() - 1.0;
        let (gap, near, strain) = worst(&drag(&mut world, cloth, vertex, TOWARDS, false));
        println!("{n}²: grab within {:.2} mm of its target; largest edge strain {:.3} % within 10 cm of it, {:.3} % anywhere", gap * 1e3, near * 1e2, strain * 1e2);
        assert!(gap < 0.02, "{n}²: the grab trails its target by {gap} m");
        match n {
            32 => assert!(strain <= limit + 0.002 + 1e-5, "{n}²: an edge ends a step at strain {strain} (limit {limit})"),
            _ => assert!(near <= 2.0 * limit, "{n}²: an edge near the grab ends a step at strain {near} (limit {limit})"),
        }
    }
}

/// Dragged 15 cm straight out of the hanging sheet's plane, beyond its reach (taut towards its
/// corners, it would have to stretch): a hard pin tears the cloth around it (the issue measured
/// 246 % on 32² and 346 % on 96²), a soft grab yields instead, trailing its target, and keeps the
/// edges around it below three times the stretch limit's strain (7.5 %), 20 times less than the
/// pin.
#[test]
fn dragged_beyond_the_cloths_reach_a_pin_tears_it_and_a_soft_grab_yields() {
    for n in [32, 96] {
        let (mut world, cloth, vertex) = hanging(n, 2);
        let limit = world.cloth(cloth).unwrap().params().max_stretch.unwrap() - 1.0;
        let (gap, near, strain) = worst(&drag(&mut world, cloth, vertex, Vec3::Z, false));
        let (mut pinned, cloth, vertex) = hanging(n, 2);
        let (_, pin_near, pin_strain) = worst(&drag(&mut pinned, cloth, vertex, Vec3::Z, true));
        println!(
            "{n}²: grab trails by {:.1} mm, strain {:.2} % near it ({:.2} % anywhere); a hard pin {:.1} % near it ({:.1} % anywhere)",
            gap * 1e3, near * 1e2, strain * 1e2, pin_near * 1e2, pin_strain * 1e2
        );
        assert!(near <= 3.0 * limit, "{n}²: the grab stretches the edges around it to {near}");
        assert!(pin_near > 20.0 * near, "{n}²: a dragged pin stretches {pin_near}, the grab {near}");
    }
}

/// A hard pin dragged away from the others reports the stretch it forces: the bottom middle vertex
/// of a 1 m sheet hanging from its top corners, pinned and pulled 15 cm down. On the straight line
/// from a top corner (rest distance √1.25 m along the flat mesh) the pins are then
/// √(0.25 + 1.15²) m apart: `pin_strain` = √1.5725/√1.25 − 1 = 12.2 %, within 0.5 % of the
/// strain; before the drag it is below 0.2 %.
#[test]
fn a_hard_pin_dragged_away_reports_the_stretch_it_forces() {
    let n = 33;
    let (mut world, cloth, _) = hanging(n, 1);
    let bottom = ((n - 1) * n + n / 2) as u32;
    let start = world.cloth(cloth).unwrap().particle_positions()[bottom as usize];
    world.cloth_mut(cloth).unwrap().set_pinned(&[bottom], Some(&[[0.5, -1.0, 0.0]])).unwrap();
    for _ in 0..30 {
        world.step(DT).unwrap();
    }
    let before = world.cloth(cloth).unwrap().stats().pin_strain;
    assert!(before < 2e-3, "pinned at its rest place: {before}");
    for k in 1..=30 {
        let y = -1.0 - DRAG * k as f32 / 30.0;
        world.cloth_mut(cloth).unwrap().set_pin_targets(&[bottom], &[[0.5, y, 0.0]]).unwrap();
        world.step(DT).unwrap();
    }
    let stats = *world.cloth(cloth).unwrap().stats();
    let expected = (0.25f32 + 1.15 * 1.15).sqrt() / 1.25f32.sqrt() - 1.0;
    println!("pin_strain {:.4} (expected {expected:.4}), max edge strain {:.4}; the pin started at {start}", stats.pin_strain, stats.max_edge_strain);
    assert!((stats.pin_strain - expected).abs() < 5e-3, "pin_strain {} against {expected}", stats.pin_strain);
    assert!(stats.max_edge_strain >= stats.pin_strain, "the cloth between the pins is at least that stretched");
}

/// Adding and removing a grab before a step changes no bit; a grabbed cloth steps with the same
/// bits in worlds of 1, 2 and 8 threads (96²: split over the threads).
#[test]
fn grabs_cost_nothing_when_released_and_keep_the_bits_at_every_thread_count() {
    let hashes = |threads: u32, round_trip: bool| {
        let (mut world, cloth, vertex) = hanging(96, threads);
        let c = world.cloth_mut(cloth).unwrap();
        if round_trip {
            c.grab(vertex, [0.5, -0.5, 0.3], 50.0).unwrap();
            c.grab(10, [0.1, 0.0, 0.0], f32::INFINITY).unwrap();
            c.release(vertex).unwrap();
            c.release(10).unwrap();
        }
        let mut out = Vec::new();
        for k in 0..20 {
            if k == 5 {
                let c = world.cloth_mut(cloth).unwrap();
                c.grab(vertex, [0.6, -0.7, 0.2], STIFFNESS).unwrap();
                c.grab(2000, [0.2, -0.3, -0.1], f32::INFINITY).unwrap();
            }
            if k == 15 {
                world.cloth_mut(cloth).unwrap().release(2000).unwrap();
            }
            world.step(DT).unwrap();
            out.push(world.cloth(cloth).unwrap().state_hash());
        }
        out
    };
    let reference = hashes(1, false);
    assert_eq!(hashes(1, true), reference, "a grab and release before a step change nothing");
    assert_eq!(hashes(2, false), reference);
    assert_eq!(hashes(8, true), reference);
    assert_ne!(reference[4], reference[5]);
}

/// Bad input to the grab calls through the C ABI: each gets its own code, a message naming the
/// function and what was wrong, and changes nothing (the state hash of the steps after is that of
/// a cloth never called so).
#[test]
fn bad_grab_calls_through_the_c_abi_get_their_codes_and_change_nothing() {
    let (positions, indices) = vertical_sheet(12, 1.0);
    let scene = || {
        let world = c_world(1);
        let cloth = c_cloth(world, &positions, &indices);
        // SAFETY: two vertices, no targets.
        ok(unsafe { xpbd_cloth_set_pinned(cloth, [0u32, 11].as_ptr(), 2, std::ptr::null()) });
        ok(xpbd_world_step(world, DT));
        (world, cloth)
    };
    let ((world, cloth), (twin_world, twin)) = (scene(), scene());
    let target = [0.5f32, -0.5, 0.2];
    let message = last_message;
    let expect = |result: XpbdResult, code: XpbdResult, words: &[&str]| {
        assert_eq!(result, code, "{}", message());
        let text = message();
        for w in words {
            assert!(text.contains(w), "{text:?} should name {w:?}");
        }
    };
    // SAFETY (every call below): `target` is 3 floats or NULL where NULL is the point.
    unsafe {
        expect(xpbd_cloth_grab(cloth, 5, std::ptr::null(), 100.0), XpbdResult::NullPointer, &["xpbd_cloth_grab", "target"]);
        expect(xpbd_cloth_grab(cloth, 144, target.as_ptr(), 100.0), XpbdResult::InvalidArgument, &["xpbd_cloth_grab", "`vertex` = 144 is out of range", "below 144"]);
        for bad in [f32::NAN, f32::INFINITY, 2e5] {
            expect(xpbd_cloth_grab(cloth, 5, [0.0, bad, 0.0].as_ptr(), 100.0), XpbdResult::InvalidArgument, &["target"]);
        }
        for k in [0.0, -1.0, f32::NAN, 2e12, f32::NEG_INFINITY] {
            expect(xpbd_cloth_grab(cloth, 5, target.as_ptr(), k), XpbdResult::InvalidArgument, &["stiffness"]);
        }
        expect(xpbd_cloth_grab_move(cloth, 5, target.as_ptr()), XpbdResult::NotGrabbed, &["xpbd_cloth_grab_move", "vertex 5"]);
        expect(xpbd_cloth_release(cloth, 5), XpbdResult::NotGrabbed, &["xpbd_cloth_release", "vertex 5"]);
        expect(xpbd_cloth_release(cloth, 1000), XpbdResult::InvalidArgument, &["1000"]);
        expect(xpbd_cloth_grab(XpbdClothId::default(), 5, target.as_ptr(), 100.0), XpbdResult::InvalidId, &["xpbd_cloth_grab"]);
        // A grab, moved and released: released twice is refused the second time.
        ok(xpbd_cloth_grab(cloth, 5, target.as_ptr(), 100.0));
        expect(xpbd_cloth_grab_move(cloth, 5, std::ptr::null()), XpbdResult::NullPointer, &["target"]);
        expect(xpbd_cloth_grab_move(cloth, 5, [f32::NAN, 0.0, 0.0].as_ptr()), XpbdResult::InvalidArgument, &["target"]);
        ok(xpbd_cloth_grab_move(cloth, 5, [0.4, -0.4, 0.1].as_ptr()));
        ok(xpbd_cloth_release(cloth, 5));
        expect(xpbd_cloth_release(cloth, 5), XpbdResult::NotGrabbed, &["not grabbed"]);
    }
    for _ in 0..10 {
        ok(xpbd_world_step(world, DT));
        ok(xpbd_world_step(twin_world, DT));
    }
    assert_eq!(state_hash(cloth), state_hash(twin), "the refused calls and the round trip changed nothing");
    let stale = cloth;
    ok(xpbd_cloth_destroy(cloth));
    // SAFETY: as above.
    unsafe {
        expect(xpbd_cloth_grab(stale, 5, target.as_ptr(), 100.0), XpbdResult::InvalidId, &["xpbd_cloth_grab"]);
    }
    expect(xpbd_cloth_release(stale, 5), XpbdResult::InvalidId, &["xpbd_cloth_release"]);
    ok(xpbd_world_destroy(world));
    ok(xpbd_world_destroy(twin_world));
}
