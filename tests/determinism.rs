//! Bitwise determinism (docs/design.md, "Determinism contract"): the state hash of a scene is the
//! same from run to run and for any world thread count, and the C export returns what the Rust API
//! returns.

mod common;
mod ffi_common;

use common::{horizontal_sheet, light_stiff_params, vertical_sheet};
#[cfg(target_arch = "x86_64")]
use ffi_common::c_cloth;
use ffi_common::{c_hanging_cloth, c_world, hanging_grid, ok};
use xpbd_cloth::ffi::*;
#[cfg(target_arch = "x86_64")]
use xpbd_cloth::{ClothParams, Material};
use xpbd_cloth::{ClothDesc, ColliderDesc, Pose, World, WorldDesc};

/// A light stiff horizontal n × n sheet of 1 m with tethers, pinned at its two corners of one edge.
fn add_light_sheet(world: &mut World, n: usize) -> xpbd_cloth::ClothHandle {
    let (p, i) = horizontal_sheet(n, 1.0, 0.0);
    let mut desc = ClothDesc::new(&p, &i);
    desc.params = light_stiff_params();
    let c = world.add_cloth(&desc).unwrap();
    world.cloth_mut(c).unwrap().set_pinned(&[0, n as u32 - 1], None).unwrap();
    c
}

/// Two cloths (a light stiff sheet pinned at two corners with tethers, and a hanging sheet with
/// default settings) over a sphere, stepped `steps` frames at 60 Hz in a world with
/// `thread_count` threads. Returns the state hash of each cloth after every step.
fn scene_hashes(thread_count: u32, steps: usize) -> Vec<[u64; 2]> {
    let mut world = World::new(WorldDesc { thread_count, ..WorldDesc::default() }).unwrap();
    let a = add_light_sheet(&mut world, 24);
    let (p2, i2) = vertical_sheet(16, 0.5);
    let b = world.add_cloth(&ClothDesc::new(&p2, &i2)).unwrap();
    world.cloth_mut(b).unwrap().set_pinned(&[0], None).unwrap();
    world.add_collider(&ColliderDesc { pose: Pose::at([0.5, -0.6, 0.5]), ..ColliderDesc::sphere(0.3) }).unwrap();
    (0..steps)
        .map(|_| {
            world.step(1.0 / 60.0).unwrap();
            [a, b].map(|h| world.cloth(h).unwrap().state_hash())
        })
        .collect()
}

#[test]
fn two_runs_give_the_same_hash_after_every_step() {
    let first = scene_hashes(1, 40);
    assert_eq!(first, scene_hashes(1, 40));
    // The hash follows the motion: every step of the falling cloth changes it.
    assert!(first.windows(2).all(|w| w[0][0] != w[1][0] && w[0][1] != w[1][1]));
}

#[test]
fn one_two_and_eight_threads_give_the_same_hash_after_every_step() {
    let one = scene_hashes(1, 40);
    assert_eq!(one, scene_hashes(2, 40), "2 threads");
    assert_eq!(one, scene_hashes(8, 40), "8 threads");
}

/// State hashes after each of `steps` steps of a 64² sheet (above `PARALLEL_MIN_CONSTRAINTS`, so
/// split over the threads of a multi-threaded world: one team per iteration, parts of later colours
/// started early) pinned at two corners, with `iterations` per substep; pins moved every step, and
/// changed half-way (tethers rebuilt), when asked.
fn split_sheet_hashes(threads: u32, params: xpbd_cloth::ClothParams, iterations: u32, move_pins: bool, change_pins: bool) -> Vec<u64> {
    split_sheet_hashes_with(threads, params, iterations, move_pins, change_pins, false)
}

/// [`split_sheet_hashes`], with a sphere under the sheet when `collider` (serial contact stages
/// between the team runs of every iteration).
fn split_sheet_hashes_with(threads: u32, params: xpbd_cloth::ClothParams, iterations: u32, move_pins: bool, change_pins: bool, collider: bool) -> Vec<u64> {
    let (n, steps) = (64, 30);
    let mut world = World::new(WorldDesc { thread_count: threads, iterations, ..WorldDesc::default() }).unwrap();
    if collider {
        world.add_collider(&ColliderDesc { pose: Pose::at([0.5, -0.3, 0.5]), ..ColliderDesc::sphere(0.3) }).unwrap();
    }
    let (p, i) = horizontal_sheet(n, 1.0, 0.0);
    let mut desc = ClothDesc::new(&p, &i);
    desc.params = params;
    let c = world.add_cloth(&desc).unwrap();
    let pins = [0u32, n as u32 - 1];
    world.cloth_mut(c).unwrap().set_pinned(&pins, None).unwrap();
    (0..steps)
        .map(|step| {
            if move_pins {
                let t = step as f32 * 0.02;
                let targets = [[t.sin() * 0.3, 0.1 * t, 0.0], [1.0 + 0.2 * t.cos(), 0.0, 0.1 * t]];
                world.cloth_mut(c).unwrap().set_pin_targets(&pins, &targets).unwrap();
            }
            if change_pins && step == steps / 2 {
                world.cloth_mut(c).unwrap().set_pinned(&[0, (n * n - 1) as u32, 17], None).unwrap();
            }
            world.step(1.0 / 60.0).unwrap();
            world.cloth(c).unwrap().state_hash()
        })
        .collect()
}

/// A cloth split over threads: the same hash after every step on 1, 2 and 8 threads, undamped and
/// damped, with 1 to 3 iterations, without tethers or bending, with moving and changed pins.
#[test]
fn a_cloth_split_over_threads_gives_the_same_hash_on_one_two_and_eight_threads() {
    use xpbd_cloth::ClothParams;
    let light = light_stiff_params();
    let damped = ClothParams { stretch_compliance: Some(1e-6), bend_compliance: Some(1e-3), stretch_damping: 0.5, bend_damping: 0.02, ..light };
    let cases = [
        ("light stiff", light, 1, false, false),
        ("damped, 3 iterations, pins moved", damped, 3, true, false),
        ("no tethers, 2 iterations, pins changed", ClothParams { enable_tethers: false, ..damped }, 2, true, true),
        ("no bending, pins changed", ClothParams { enable_bending: false, ..light }, 1, false, true),
        ("defaults, 2 iterations", ClothParams::default(), 2, true, false),
    ];
    for (name, params, iterations, moved, changed) in cases {
        let one = split_sheet_hashes(1, params, iterations, moved, changed);
        assert!(one.windows(2).all(|w| w[0] != w[1]), "{name}: the cloth stopped moving");
        for threads in [2, 8] {
            assert_eq!(one, split_sheet_hashes(threads, params, iterations, moved, changed), "{name}: {threads} threads");
        }
    }
}

/// Serial stages between the team runs (wind before each prediction, collider contacts after
/// each iteration's sweeps, the depenetration limit after each velocity update): the same hash on
/// 1, 2 and 8 threads, undamped and damped, with 1 and 2 iterations.
#[test]
fn a_split_cloth_in_wind_over_a_collider_gives_the_same_hash_on_one_two_and_eight_threads() {
    use xpbd_cloth::ClothParams;
    let windy = ClothParams { wind_velocity: [3.0, 0.0, 1.0], drag_coefficient: 0.8, lift_coefficient: 0.3, ..ClothParams::default() };
    let damped = ClothParams { stretch_damping: 0.5, bend_damping: 0.02, ..windy };
    for (name, params, iterations) in [("wind", windy, 1), ("wind, damped, 2 iterations", damped, 2)] {
        let one = split_sheet_hashes_with(1, params, iterations, true, false, true);
        assert!(one.windows(2).all(|w| w[0] != w[1]), "{name}: the cloth stopped moving");
        for threads in [2, 8] {
            assert_eq!(one, split_sheet_hashes_with(threads, params, iterations, true, false, true), "{name}: {threads} threads");
        }
    }
}

/// Without wind and colliders a step keeps the positions in the sweeps' rows and runs each
/// substep's velocity update and the next substep's prediction as one pass; with a collider the
/// positions go back to the particles around the contact pass and the two run apart. A collider
/// nowhere near the cloth (no contact, no depenetration limit) must change no bit, on one thread
/// and split over two (a 50² sheet has enough constraints to be split), with moving pins.
#[test]
fn a_collider_nowhere_near_the_cloth_changes_no_bit() {
    for thread_count in [1, 2] {
        let hashes = |far_collider: bool| {
            let mut world = World::new(WorldDesc { thread_count, ..WorldDesc::default() }).unwrap();
            let c = add_light_sheet(&mut world, 50);
            if far_collider {
                world.add_collider(&ColliderDesc { pose: Pose::at([0.0, 50.0, 0.0]), ..ColliderDesc::sphere(0.5) }).unwrap();
            }
            (0..12)
                .map(|k| {
                    // Pins moving within each step, so a pin placed for the wrong substep shows.
                    let x = 0.01 * k as f32;
                    world.cloth_mut(c).unwrap().set_pin_targets(&[0, 49], &[[x, 0.0, 0.0], [1.0 + x, 0.0, 0.0]]).unwrap();
                    world.step(1.0 / 60.0).unwrap();
                    world.cloth(c).unwrap().state_hash()
                })
                .collect::<Vec<u64>>()
        };
        assert_eq!(hashes(false), hashes(true), "{thread_count} thread(s)");
    }
}

#[test]
fn hash_sees_a_single_bit_of_a_single_particle() {
    let (positions, indices) = vertical_sheet(8, 1.0);
    let mut moved = positions.clone();
    moved[37][2] = f32::from_bits(moved[37][2].to_bits() ^ 1); // 0.0 → the smallest subnormal
    let hash = |p: &[[f32; 3]]| {
        let mut world = World::new(WorldDesc::default()).unwrap();
        let c = world.add_cloth(&ClothDesc::new(p, &indices)).unwrap();
        world.cloth(c).unwrap().state_hash()
    };
    assert_ne!(hash(&positions), hash(&moved));
    assert_eq!(hash(&positions), hash(&positions.clone()));
}

/// The FNV-1a definition in the docs, evaluated independently on the state the API reports.
#[test]
fn hash_is_fnv1a_over_positions_then_velocities() {
    let mut world = World::new(WorldDesc::default()).unwrap();
    let (positions, indices) = vertical_sheet(6, 1.0);
    let c = world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
    world.cloth_mut(c).unwrap().set_pinned(&[0], None).unwrap();
    world.step(1.0 / 60.0).unwrap();
    let cloth = world.cloth(c).unwrap();
    let mut h: u64 = 0xcbf29ce484222325;
    for v in cloth.particle_positions().iter().chain(cloth.particle_velocities()) {
        for f in v.to_array() {
            for byte in f.to_bits().to_le_bytes() {
                h ^= byte as u64;
                h = h.wrapping_mul(0x100000001b3);
            }
        }
    }
    assert_eq!(cloth.state_hash(), h);
}

#[test]
fn c_export_returns_the_rust_hash_and_rejects_bad_arguments() {
    let n = 12;
    let world = c_world(2);
    let cloth = c_hanging_cloth(world, n);
    for _ in 0..10 {
        ok(xpbd_world_step(world, 1.0 / 60.0));
    }
    let mut from_c = 0u64;
    // SAFETY: valid out-parameter.
    ok(unsafe { xpbd_cloth_state_hash(cloth, &mut from_c) });

    let (positions, indices) = hanging_grid(n);
    let mut rust = World::new(WorldDesc { thread_count: 2, ..WorldDesc::default() }).unwrap();
    let h = rust.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
    rust.cloth_mut(h).unwrap().set_pinned(&[0, n as u32 - 1], None).unwrap();
    for _ in 0..10 {
        rust.step(1.0 / 60.0).unwrap();
    }
    assert_eq!(from_c, rust.cloth(h).unwrap().state_hash());

    // SAFETY: a NULL out-parameter is reported, not written; a destroyed id is rejected.
    unsafe {
        assert_eq!(xpbd_cloth_state_hash(cloth, std::ptr::null_mut()), XpbdResult::NullPointer);
        ok(xpbd_cloth_destroy(cloth));
        let mut untouched = 7u64;
        assert_eq!(xpbd_cloth_state_hash(cloth, &mut untouched), XpbdResult::InvalidId);
        assert_eq!(untouched, 7);
    }
    ok(xpbd_world_destroy(world));
}

/// The SSE control register of the calling thread (x86-64), for setting an engine's
/// floating-point mode in the tests below.
#[cfg(target_arch = "x86_64")]
mod mxcsr {
    /// Flush-to-zero (bit 15) and denormals-are-zero (bit 6): what engines turn on for speed.
    pub const FTZ_DAZ: u32 = 1 << 15 | 1 << 6;
    /// Everything but the six sticky exception flags.
    pub const CONTROL: u32 = !0x3F;

    pub fn read() -> u32 {
        let mut value = 0u32;
        // SAFETY: `stmxcsr` stores MXCSR into the local `value` and touches nothing else.
        unsafe { std::arch::asm!("stmxcsr [{}]", in(reg) &mut value, options(nostack, preserves_flags)) };
        value
    }

    pub fn write(value: u32) {
        // SAFETY: `ldmxcsr` loads MXCSR from the local `value`, a value read from MXCSR with
        // defined control bits added (no reserved bit set).
        unsafe { std::arch::asm!("ldmxcsr [{}]", in(reg) &value, options(nostack, preserves_flags, readonly)) };
    }
}

/// An engine thread with flush-to-zero and denormals-are-zero on gets the bits of the default mode,
/// on one thread, split over a pool (whose threads the world creates from that thread, so they
/// would inherit its mode) and through the C ABI, and its mode back after each call. The scene
/// makes the mode matter: gravity so weak that the velocity one substep adds (g·h ≈ 1.7e−39 m/s)
/// is subnormal, which flush-to-zero drops, leaving the cloth at rest.
#[test]
#[cfg(target_arch = "x86_64")]
fn a_caller_in_flush_to_zero_mode_gets_the_bits_of_the_default_mode_on_any_thread_count() {
    let gravity = [0.0, -1.0e-36, 0.0];
    let (positions, indices) = horizontal_sheet(64, 1.0, 0.0); // coloured and split on a pool
    let saved = mxcsr::read();
    let in_mode = |ftz: bool, f: &mut dyn FnMut()| {
        mxcsr::write(if ftz { saved | mxcsr::FTZ_DAZ } else { saved });
        f();
        let after = mxcsr::read();
        mxcsr::write(saved);
        let expected = if ftz { saved | mxcsr::FTZ_DAZ } else { saved };
        assert_eq!(after & mxcsr::CONTROL, expected & mxcsr::CONTROL, "the caller's mode is given back");
    };
    let rust_run = |threads: u32, ftz: bool| {
        let (mut hash, mut v) = (0, 0.0);
        in_mode(ftz, &mut || {
            let mut world = World::new(WorldDesc { thread_count: threads, gravity, ..WorldDesc::default() }).unwrap();
            let c = world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
            world.step(1.0 / 60.0).unwrap();
            let cloth = world.cloth(c).unwrap();
            (hash, v) = (cloth.state_hash(), cloth.particle_velocities()[100].y);
        });
        (hash, v)
    };
    let (reference, v) = rust_run(1, false);
    assert!(v < 0.0, "the subnormal velocity increments add up to {v:e} m/s");
    // The mode is real: a subnormal product is flushed in it.
    in_mode(true, &mut || assert_eq!(std::hint::black_box(1.0e-36f32) * std::hint::black_box(1.0e-3f32), 0.0));
    for threads in [1, 2, 0] {
        for ftz in [false, true] {
            assert_eq!(rust_run(threads, ftz).0, reference, "{threads} threads, flush-to-zero {ftz}");
        }
    }
    let mut from_c = 0u64;
    in_mode(true, &mut || {
        let world = c_world(2);
        ok(xpbd_world_set_gravity(world, gravity[0], gravity[1], gravity[2]));
        let cloth = c_cloth(world, &positions, &indices);
        ok(xpbd_world_step(world, 1.0 / 60.0));
        // SAFETY: valid out-parameter.
        ok(unsafe { xpbd_cloth_state_hash(cloth, &mut from_c) });
        ok(xpbd_world_destroy(world));
    });
    assert_eq!(from_c, reference, "through the C ABI, flush-to-zero on the caller's thread");
}

/// An engine that steps a world from a job of its own rayon pool: while the step waits for the
/// world's pool, rayon lets the engine's thread run the engine's other jobs, and those compute in
/// the engine's mode, not the library's.
#[test]
#[cfg(target_arch = "x86_64")]
fn engine_jobs_run_while_a_step_waits_keep_the_engines_mode() {
    let engine = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .start_handler(|_| mxcsr::write(mxcsr::read() | mxcsr::FTZ_DAZ))
        .build()
        .unwrap();
    let (positions, indices) = horizontal_sheet(64, 1.0, 0.0); // split over the world's pool
    let mut world = World::new(WorldDesc { thread_count: 2, ..WorldDesc::default() }).unwrap();
    world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
    for _ in 0..5 {
        let (stepped, mode_of_other_job) = engine.install(|| rayon::join(|| world.step(1.0 / 60.0), mxcsr::read));
        stepped.unwrap();
        assert_eq!(mode_of_other_job & mxcsr::FTZ_DAZ, mxcsr::FTZ_DAZ, "{mode_of_other_job:#x}");
    }
}

/// A caller with floating-point exceptions unmasked (as engines' debug builds do) is not trapped by
/// the library's arithmetic. The scene raises underflow (the subnormal g·h of the test above),
/// and a legal but extreme material (Young's modulus and thickness the smallest normal floats,
/// whose compliance is capped at 1e20) is set, stepped, read and teleported with invalid,
/// divide-by-zero, overflow and underflow unmasked: without the default mode the step dies with
/// SIGFPE (and `set_params` traps too, unless it runs in the default mode).
#[test]
#[cfg(target_arch = "x86_64")]
fn unmasked_exceptions_in_the_caller_do_not_trap_in_the_library() {
    // Invalid, zero-divide, overflow and underflow unmasked (bits 7, 9, 10, 11).
    const UNMASKED: u32 = 0x1F80 & !(1 << 7 | 1 << 9 | 1 << 10 | 1 << 11);
    let (positions, indices) = horizontal_sheet(8, 1.0, 0.0);
    let gravity = [0.0, -1.0e-36, 0.0];
    let mut world = World::new(WorldDesc { thread_count: 2, gravity, ..WorldDesc::default() }).unwrap();
    let c = world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
    let material = Material { youngs_modulus: f32::MIN_POSITIVE, thickness: f32::MIN_POSITIVE, ..Material::default() };
    let params = ClothParams { material, stretch_compliance: None, bend_compliance: None, ..ClothParams::default() };
    let saved = mxcsr::read();
    mxcsr::write(UNMASKED);
    let stepped = world.step(1.0 / 60.0);
    let set = world.cloth_mut(c).unwrap().set_params(params);
    // Stepped through the compliance's 0.25 s ramp to the capped value.
    let stepped_again = (0..16).try_for_each(|_| world.step(1.0 / 60.0));
    let stats = *world.cloth(c).unwrap().stats();
    let moved = world.cloth_mut(c).unwrap().teleport([1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]);
    let after = mxcsr::read();
    mxcsr::write(saved);
    (stepped.and(set).and(stepped_again).and(moved)).unwrap();
    assert_eq!(after & mxcsr::CONTROL, UNMASKED & mxcsr::CONTROL);
    assert!(stats.stretch.count > 0 && stats.stretch.max_abs_c.is_finite(), "{stats:?}");
    let alpha = world.cloth(c).unwrap().stretch_constraints().compliance[0];
    assert_eq!(alpha, xpbd_cloth::material::MAX_COMPLIANCE, "the limp material's compliance is capped");
}

/// A cloth that tears (split over threads, yanked apart at its pinned corners until strain tears
/// it, after a scripted cut) and a closed ball under pressure (split too) in one world: the same
/// hashes after every step, and the same torn mesh, on 1, 2 and 8 threads.
#[test]
fn tearing_and_pressure_give_the_same_hash_on_one_two_and_eight_threads() {
    let run = |threads: u32| {
        let mut world = World::new(WorldDesc { thread_count: threads, ..WorldDesc::default() }).unwrap();
        let n = 96u32;
        let (positions, indices) = common::horizontal_sheet(n as usize, 1.0, 0.0);
        let mut desc = ClothDesc::new(&positions, &indices);
        desc.max_extra_vertices = 300;
        desc.params.tear_strain = Some(0.2);
        let sheet = world.add_cloth(&desc).unwrap();
        world.cloth_mut(sheet).unwrap().set_pinned(&[0, n - 1], None).unwrap();
        for i in 30..50 {
            world.cloth_mut(sheet).unwrap().tear(48 * n + i, 48 * n + i + 1).unwrap();
        }
        let (ball_positions, ball_indices) = common::icosphere(0.2, [3.0, 0.5, 0.0], 5);
        let mut ball = ClothDesc::new(&ball_positions, &ball_indices);
        ball.params.pressure = Some(1.3);
        let ball = world.add_cloth(&ball).unwrap();
        world.add_collider(&xpbd_cloth::ColliderDesc { pose: xpbd_cloth::Pose::at([3.0, 0.0, 0.0]), ..xpbd_cloth::ColliderDesc::plane() }).unwrap();
        let mut hashes = Vec::new();
        for frame in 0..30 {
            let spread = 0.01 * frame as f32;
            world.cloth_mut(sheet).unwrap().set_pin_targets(&[0, n - 1], &[[-spread, 0.0, 0.0], [1.0 + spread, 0.0, 0.0]]).unwrap();
            world.step(1.0 / 60.0).unwrap();
            hashes.push([world.cloth(sheet).unwrap().state_hash(), world.cloth(ball).unwrap().state_hash()]);
        }
        let counts = world.cloth(sheet).unwrap().render_counts();
        (hashes, counts)
    };
    let one = run(1);
    assert!(one.1.topology_version > 20, "strain tore it too: {:?}", one.1);
    for threads in [2, 8] {
        assert!(run(threads) == one, "{threads} threads");
    }
}
