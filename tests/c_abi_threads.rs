//! The C ABI's thread contract and live settings, exercised through the exported functions:
//! different worlds run in parallel, calls on one world serialise, destroy works from any thread,
//! and a material change takes effect at the next step without a jump.

mod ffi_common;

use ffi_common::{bits, c_hanging_cloth, c_positions, c_stats, c_world, ok};
use std::sync::Barrier;
use std::sync::atomic::{AtomicU32, Ordering};
use std::thread;
use xpbd_cloth::ffi::*;

const DT: f32 = 1.0 / 60.0;

fn step_n(world: XpbdWorldId, n: u32) {
    for _ in 0..n {
        ok(xpbd_world_step(world, DT));
    }
}

/// Positions of a 16 × 16 hanging cloth after `steps` steps in a fresh world.
fn serial_reference(steps: u32) -> Vec<[u32; 3]> {
    let world = c_world(1);
    let cloth = c_hanging_cloth(world, 16);
    step_n(world, steps);
    let result = bits(&c_positions(cloth));
    ok(xpbd_world_destroy(world));
    result
}

#[test]
fn different_worlds_step_in_parallel_with_the_serial_result() {
    let reference = serial_reference(40);
    let barrier = Barrier::new(3);
    let results: Vec<_> = thread::scope(|s| {
        let handles: Vec<_> = (0..3)
            .map(|_| {
                s.spawn(|| {
                    let world = c_world(1);
                    let cloth = c_hanging_cloth(world, 16);
                    barrier.wait(); // all three step at the same time
                    step_n(world, 40);
                    let result = bits(&c_positions(cloth));
                    ok(xpbd_world_destroy(world));
                    result
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for r in results {
        assert!(r == reference, "a world stepped beside others differs from the serial run");
    }
}

#[test]
fn calls_on_one_world_serialise() {
    // Two threads each step the same world 20 times while a third keeps reading it. Steps are
    // identical, so if calls are serialised the result is exactly 40 serial steps, and every
    // read sees a whole state (finite, the pinned corners in place).
    let reference = serial_reference(40);
    let world = c_world(1);
    let cloth = c_hanging_cloth(world, 16);
    let steps_done = AtomicU32::new(0);
    thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                for _ in 0..20 {
                    ok(xpbd_world_step(world, DT));
                    steps_done.fetch_add(1, Ordering::SeqCst);
                }
            });
        }
        s.spawn(|| {
            while steps_done.load(Ordering::SeqCst) < 40 {
                let p = c_positions(cloth);
                assert!(p.iter().flatten().all(|c| c.is_finite()));
                assert_eq!((p[0], p[15]), ([0.0, 1.0, 0.0], [1.0, 1.0, 0.0]));
            }
        });
    });
    assert!(bits(&c_positions(cloth)) == reference, "concurrent steps on one world were not serialised");
    ok(xpbd_world_destroy(world));
}

#[test]
fn destroy_from_another_thread_while_stepping_invalidates_ids() {
    let world = c_world(0); // with its own worker threads, released by destroy
    let cloth = c_hanging_cloth(world, 16);
    let steps_done = AtomicU32::new(0);
    let stepper_saw = thread::scope(|s| {
        let stepper = s.spawn(|| {
            loop {
                let r = xpbd_world_step(world, DT);
                if r != XpbdResult::Ok {
                    return r;
                }
                steps_done.fetch_add(1, Ordering::SeqCst);
            }
        });
        // A finalizer-like thread destroys the world while the stepper is still going.
        s.spawn(|| {
            while steps_done.load(Ordering::SeqCst) < 3 {
                thread::yield_now();
            }
            ok(xpbd_world_destroy(world));
        });
        stepper.join().unwrap()
    });
    assert_eq!(stepper_saw, XpbdResult::InvalidId);
    let mut count = 0;
    // SAFETY: valid out-parameter.
    assert_eq!(unsafe { xpbd_cloth_vertex_count(cloth, &mut count) }, XpbdResult::InvalidId);
    assert_eq!(xpbd_world_destroy(world), XpbdResult::InvalidId);
}

#[test]
fn set_material_takes_effect_at_the_next_step_without_a_jump() {
    let (soft, control) = (c_world(1), c_world(1));
    let (cloth, control_cloth) = (c_hanging_cloth(soft, 16), c_hanging_cloth(control, 16));
    step_n(soft, 119);
    step_n(control, 120);
    let before = c_positions(cloth);
    step_n(soft, 1);
    let settled = c_positions(cloth);
    let last_motion = max_distance(&before, &settled);

    // A hundred times softer fabric (lower Young's modulus → larger derived compliances).
    let material = XpbdClothMaterial { youngs_modulus: 5.0e4, ..xpbd_default_cloth_material() };
    let mut params = xpbd_default_cloth_params();
    // SAFETY: valid pointers for the duration of the calls.
    unsafe {
        ok(xpbd_cloth_set_material(cloth, &material));
        ok(xpbd_cloth_get_params(cloth, &mut params));
    }
    assert_eq!(params.youngs_modulus, 5.0e4);
    assert_eq!(params.stretch_compliance_from_material, 1);
    assert!(bits(&c_positions(cloth)) == bits(&settled), "setting the material moved particles");

    // The next step moves no particle further than free fall from the last step's velocity
    // would: v·dt + g·dt² (no jump), ...
    step_n(soft, 1);
    let after = c_positions(cloth);
    let bound = last_motion + 9.81 * DT * DT;
    assert!(max_distance(&settled, &after) <= bound * 1.01, "{} > {bound}", max_distance(&settled, &after));
    // ... and the softer cloth does stretch more than the unchanged one.
    step_n(soft, 59);
    step_n(control, 60);
    let strain = |c| c_stats(c).max_edge_strain;
    assert!(strain(cloth) > 2.0 * strain(control_cloth), "{} vs {}", strain(cloth), strain(control_cloth));
    ok(xpbd_world_destroy(soft));
    ok(xpbd_world_destroy(control));
}

fn max_distance(a: &[[f32; 3]], b: &[[f32; 3]]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(p, q)| ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt())
        .fold(0.0, f32::max)
}
