//! `World::step` allocates nothing (docs/design.md, "Allocation"): every buffer the solver needs is
//! sized when a cloth is created or its pins change. A counting global allocator counts every
//! allocation made while the steps run on the test's own thread (the world has one thread, so the
//! whole step runs there). Counting per thread matters: the test harness's main thread may allocate
//! while the test runs (seen on a loaded CI machine: 4 allocations that were not the step's). A
//! second test steps a cloth large enough to be split over a two-thread world's pool and counts
//! what the pool's worker threads allocate, and what the calling thread does (rayon's jobs only).

mod common;

use common::{horizontal_sheet, light_stiff_params};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use xpbd_cloth::{ClothDesc, ClothParams, ColliderDesc, Material, Pose, World, WorldDesc};

/// The system allocator, counting allocations and reallocations made by a thread while its
/// `COUNTING` flag is set.
struct CountingAllocator;

thread_local! {
    // Const-initialised, no destructor: reading them never allocates, so the allocator may use
    // them. Per thread, so that tests running at once do not count each other's allocations.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}
/// Count on rayon worker threads too (only the two-thread world's pool has any).
static COUNTING_POOL: AtomicBool = AtomicBool::new(false);

/// Allocations made on rayon worker threads while `COUNTING_POOL` is set (a counter of their own:
/// the tests run at the same time).
static POOL_ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

/// Held by a test that has a world with a pool, from its creation to its drop: rayon's workers
/// allocate as they start and stop, and `COUNTING_POOL` counts every worker of the process.
static POOL_COUNTING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Count the current allocation: on this thread while it counts, else on the pool's counter if it
/// is a rayon worker and the pool is being counted.
fn count() {
    if COUNTING.try_with(Cell::get).unwrap_or(false) {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        return;
    }
    // `current_thread_index` reads a const-initialised thread-local: it never allocates.
    if COUNTING_POOL.load(Ordering::Relaxed) && rayon::current_thread_index().is_some() {
        POOL_ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: forwards every call unchanged to `System`, which upholds the `GlobalAlloc` contract.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's `alloc` contract is passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: the caller's `realloc` contract is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Allocations made by `f`.
fn allocations_during(f: impl FnOnce()) -> usize {
    ALLOCATIONS.with(|n| n.set(0));
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.with(Cell::get)
}

#[test]
fn stepping_a_pinned_cloth_with_tethers_wind_a_collider_and_self_collision_allocates_nothing() {
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let (positions, indices) = horizontal_sheet(24, 1.0, 0.0);
    let mut desc = ClothDesc::new(&positions, &indices);
    desc.params = ClothParams {
        material: Material { areal_density: 1.0, ..Material::default() },
        enable_tethers: true,
        drag_coefficient: 1.0,
        lift_coefficient: 0.5,
        wind_velocity: [2.0, 0.0, 1.0],
        // Self-collision with r = half the 4.3 cm edge: its hash and pair list are sized at creation.
        self_collision: true,
        self_collision_radius: Some(0.022),
        ..ClothParams::default()
    };
    let cloth = world.add_cloth(&desc).unwrap();
    world.cloth_mut(cloth).unwrap().set_pinned(&[0, 23], None).unwrap();
    assert!(!world.cloth(cloth).unwrap().tether_constraints().particle.is_empty());
    let sphere = world.add_collider(&ColliderDesc { pose: Pose::at([0.5, -0.5, 0.5]), ..ColliderDesc::sphere(0.3) }).unwrap();

    let allocations = allocations_during(|| {
        for frame in 0..90 {
            world.step(1.0 / 60.0).unwrap();
            // A moving collider and moving pin targets are part of every frame in an engine.
            let z = 0.5 + 0.2 * (frame as f32 * 0.1).sin();
            world.set_collider_pose(sphere, &Pose::at([0.5, -0.5, z])).unwrap();
            world.cloth_mut(cloth).unwrap().set_pin_targets(&[0], &[[0.0, 0.0, 0.01 * frame as f32]]).unwrap();
            // Settings an engine may apply every frame: colouring set to the value it has.
            let c = world.cloth_mut(cloth).unwrap();
            c.set_constraint_colouring(c.constraint_colouring());
            // The residual statistics are computed by their first read after a step: that too
            // allocates nothing.
            assert!(world.cloth(cloth).unwrap().stats().stretch.count > 0);
        }
    });
    let c = world.cloth(cloth).unwrap();
    assert!(c.stats().contact_count > 0, "the cloth never reached the sphere");
    assert!(c.stats().self_pairs_tested > 0, "self-collision found no candidate pairs");
    assert_eq!(allocations, 0, "{allocations} allocations in 90 steps");
}

#[test]
fn stepping_a_cloth_split_over_two_threads_allocates_nothing_on_the_pool_threads() {
    // 96² coloured (72 000 constraints, above `PARALLEL_MIN_CONSTRAINTS`) on a sphere: the colour
    // sweeps, the per-particle passes and the contacts all run split over the pool.
    const N: usize = 96;
    let _one_at_a_time = POOL_COUNTING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut world = World::new(WorldDesc { thread_count: 2, ..WorldDesc::default() }).unwrap();
    let (positions, indices) = horizontal_sheet(N, 1.0, 0.0);
    let mut desc = ClothDesc::new(&positions, &indices);
    desc.params = light_stiff_params();
    let cloth = world.add_cloth(&desc).unwrap();
    world.cloth_mut(cloth).unwrap().set_pinned(&[0, N as u32 - 1], None).unwrap();
    world.cloth_mut(cloth).unwrap().set_constraint_colouring(true);
    world.add_collider(&ColliderDesc { pose: Pose::at([0.5, -0.15, 0.5]), ..ColliderDesc::sphere(0.12) }).unwrap();
    for _ in 0..5 {
        world.step(1.0 / 60.0).unwrap(); // the pool's threads start and settle
    }
    // Only the workers count: the calling thread hands each step to the pool through rayon's
    // injector queue, which allocates a block per 63 jobs (once per 63 steps, rayon's and not
    // the solver's; the one-thread test above covers the calling thread).
    POOL_ALLOCATIONS.store(0, Ordering::SeqCst);
    COUNTING_POOL.store(true, Ordering::SeqCst);
    let caller = allocations_during(|| {
        for _ in 0..100 {
            world.step(1.0 / 60.0).unwrap();
        }
    });
    COUNTING_POOL.store(false, Ordering::SeqCst);
    let allocations = POOL_ALLOCATIONS.load(Ordering::SeqCst);
    assert!(world.cloth(cloth).unwrap().stats().contact_count > 0, "the cloth never reached the sphere");
    assert_eq!(allocations, 0, "{allocations} allocations on the workers in 100 steps");
    // The calling thread: the wake-up job broadcast to the workers before each step (one block
    // per step, rayon's `spawn_broadcast`) and the injector's block per 63 jobs; nothing of the
    // solver's (docs/design.md, "Allocation").
    assert!(caller <= 100 + 100 / 63 + 1, "{caller} allocations on the calling thread in 100 steps");
}

/// Level of detail (`step_interval` 4): the long steps extrapolate pin targets, the animated pose
/// and the colliders into buffers sized at the cloth's first long step, and the interpolated reads
/// follow each particle's curve; after that nothing allocates, idle world steps included.
#[test]
fn stepping_a_cloth_at_interval_four_with_moving_pins_pose_and_collider_allocates_nothing_after_its_first_long_steps() {
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let (positions, indices) = horizontal_sheet(24, 1.0, 0.0);
    let mut desc = ClothDesc::new(&positions, &indices);
    desc.params = ClothParams { step_interval: 4, ..ClothParams::default() };
    let cloth = world.add_cloth(&desc).unwrap();
    world.cloth_mut(cloth).unwrap().set_pinned(&[0, 23], None).unwrap();
    let sphere = world.add_collider(&ColliderDesc { pose: Pose::at([0.5, -0.5, 0.5]), ..ColliderDesc::sphere(0.3) }).unwrap();
    let d = vec![0.2f32; positions.len()];
    world.cloth_mut(cloth).unwrap().set_max_distances(Some(&d)).unwrap();
    let mut pose = positions.clone();
    let mut out = vec![[0.0f32; 3]; positions.len()];
    let mut frame = |world: &mut World, k: usize| {
        let x = 0.01 * k as f32;
        world.set_collider_pose(sphere, &Pose::at([0.5 + x, -0.5, 0.5])).unwrap();
        let c = world.cloth_mut(cloth).unwrap();
        c.set_pin_targets(&[0], &[[x, 0.0, 0.0]]).unwrap();
        for (p, q) in pose.iter_mut().zip(&positions) {
            *p = [q[0] + x, q[1], q[2]];
        }
        c.set_animated_pose(&pose, None).unwrap();
        world.step(1.0 / 60.0).unwrap();
        world.cloth(cloth).unwrap().read_positions_interpolated(0.5, &mut out).unwrap();
    };
    for k in 0..12 {
        frame(&mut world, k);
    }
    let allocations = allocations_during(|| {
        for k in 12..60 {
            frame(&mut world, k);
        }
    });
    assert_eq!(allocations, 0, "{allocations} allocations in 48 world steps");
}

/// Render proxies: writing a 128² proxy of a 32² cloth into an interleaved buffer allocates
/// nothing, on the calling thread of a one-thread world and on the workers of a two-thread world
/// whose pool the write is split over (the calling thread hands the passes to the pool through
/// rayon's injector queue, which allocates a block per 63 jobs: rayon's, counted by the test
/// above for the steps).
#[test]
fn writing_a_render_proxy_allocates_nothing_on_the_calling_thread_nor_on_the_pool() {
    use xpbd_cloth::VertexLayout;
    use xpbd_cloth::render_proxy::RenderProxyDesc;
    let _one_at_a_time = POOL_COUNTING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    for threads in [1, 2] {
        let mut world = World::new(WorldDesc { thread_count: threads, ..WorldDesc::default() }).unwrap();
        let (positions, indices) = horizontal_sheet(32, 1.0, 0.0);
        let cloth = world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
        world.cloth_mut(cloth).unwrap().set_pinned(&[0, 31], None).unwrap();
        let (fine, fine_indices) = horizontal_sheet(128, 1.0, 0.0);
        let proxy = world.add_render_proxy(cloth, &RenderProxyDesc::new(&fine, &fine_indices)).unwrap();
        let layout = VertexLayout { stride: 32, position_offset: Some(0), normal_offset: Some(16) };
        let mut buffer = vec![0u8; 32 * fine.len()];
        let mut out = vec![[0.0f32; 3]; fine.len()];
        world.step(1.0 / 60.0).unwrap();
        world.write_render_proxy_vertices(proxy, &mut buffer, layout, 0.5).unwrap(); // the pool's threads start
        let calls = |world: &World, buffer: &mut [u8], out: &mut [[f32; 3]]| {
            for k in 0..20 {
                world.write_render_proxy_vertices(proxy, buffer, layout, k as f32 / 20.0).unwrap();
                world.read_render_proxy_positions(proxy, &mut *out).unwrap();
            }
        };
        if threads == 1 {
            let allocations = allocations_during(|| calls(&world, &mut buffer, &mut out));
            assert_eq!(allocations, 0, "{allocations} allocations in 20 writes and reads");
        } else {
            POOL_ALLOCATIONS.store(0, Ordering::SeqCst);
            COUNTING_POOL.store(true, Ordering::SeqCst);
            calls(&world, &mut buffer, &mut out);
            COUNTING_POOL.store(false, Ordering::SeqCst);
            let allocations = POOL_ALLOCATIONS.load(Ordering::SeqCst);
            assert_eq!(allocations, 0, "{allocations} allocations on the workers in 20 writes");
        }
    }
}

/// A skinned cloth (the library skins its pose from joint matrices every step): the step carries
/// the joints' local pose from end to start in place.
#[test]
fn stepping_a_skinned_cloth_allocates_nothing() {
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let (positions, indices) = horizontal_sheet(12, 1.0, 0.0);
    let cloth = world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
    let n = positions.len();
    let identity = [1.0f32, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];
    let joints = vec![[0u32, 0, 0, 0]; n];
    let weights = vec![[1.0f32, 0.0, 0.0, 0.0]; n];
    let skin = xpbd_cloth::SkinDesc { inverse_bind_matrices: &[identity], joint_indices: &joints, joint_weights: &weights };
    let c = world.cloth_mut(cloth).unwrap();
    c.set_skin(Some(&skin)).unwrap();
    c.set_max_distances(Some(&vec![0.1; n])).unwrap();
    let frame = |world: &mut World, k: usize| {
        let mut m = identity;
        m[12] = 0.01 * k as f32;
        world.cloth_mut(cloth).unwrap().set_joint_matrices(&[m]).unwrap();
        world.step(1.0 / 60.0).unwrap();
    };
    for k in 0..5 {
        frame(&mut world, k);
    }
    let allocations = allocations_during(|| {
        for k in 5..35 {
            frame(&mut world, k);
        }
    });
    assert_eq!(allocations, 0, "{allocations} allocations in 30 skinned steps");
}

/// Tearing allocates nothing in a step, cuts included: a tearable sheet with tethers, pinned at two
/// corners, yanked apart until edges tear in several steps (its buffers were sized for its
/// `max_extra_vertices` at creation), and a closed ball under pressure on the ground.
#[test]
fn steps_that_tear_and_steps_under_pressure_allocate_nothing() {
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let (positions, indices) = horizontal_sheet(24, 1.0, 0.0);
    let mut desc = ClothDesc::new(&positions, &indices);
    desc.max_extra_vertices = 200;
    desc.params = ClothParams { enable_tethers: true, tear_strain: Some(0.2), ..ClothParams::default() };
    let cloth = world.add_cloth(&desc).unwrap();
    world.cloth_mut(cloth).unwrap().set_pinned(&[0, 23], None).unwrap();
    let (ball_positions, ball_indices) = common::icosphere(0.2, [3.0, 0.21, 0.0], 3);
    let mut ball = ClothDesc::new(&ball_positions, &ball_indices);
    ball.params.pressure = Some(1.0);
    let ball = world.add_cloth(&ball).unwrap();
    world.add_collider(&ColliderDesc { pose: Pose::at([0.0, -2.0, 0.0]), ..ColliderDesc::plane() }).unwrap();
    world.add_collider(&ColliderDesc { pose: Pose::at([3.0, 0.0, 0.0]), ..ColliderDesc::plane() }).unwrap();
    world.step(1.0 / 60.0).unwrap();
    let mut torn_steps = 0;
    let allocations = allocations_during(|| {
        for frame in 0..60 {
            let spread = 0.02 * frame as f32;
            let targets = [[-spread, 0.0, 0.0], [1.0 + spread, 0.0, 0.0]];
            world.cloth_mut(cloth).unwrap().set_pin_targets(&[0, 23], &targets).unwrap();
            world.step(1.0 / 60.0).unwrap();
            torn_steps += (world.cloth(cloth).unwrap().stats().torn_edges_last_step > 0) as u32;
            assert!(world.cloth(ball).unwrap().volume().unwrap() > 0.0);
        }
    });
    assert!(torn_steps >= 2, "tore in {torn_steps} steps");
    assert!(world.cloth(cloth).unwrap().render_counts().vertex_count > 576);
    assert_eq!(allocations, 0, "{allocations} allocations in 60 steps ({torn_steps} of them tearing)");
}

/// A tearable cloth split over a two-thread world's pool (96², above the split threshold) tears
/// without allocating on the pool's threads, where its step (and so its cuts) runs.
#[test]
fn tearing_a_cloth_split_over_two_threads_allocates_nothing_on_the_pool_threads() {
    let _one_at_a_time = POOL_COUNTING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    const N: usize = 96;
    let mut world = World::new(WorldDesc { thread_count: 2, ..WorldDesc::default() }).unwrap();
    let (positions, indices) = horizontal_sheet(N, 1.0, 0.0);
    let mut desc = ClothDesc::new(&positions, &indices);
    desc.max_extra_vertices = 600;
    desc.params = ClothParams { enable_tethers: true, tear_strain: Some(0.2), ..ClothParams::default() };
    let cloth = world.add_cloth(&desc).unwrap();
    let corners = [0, N as u32 - 1];
    world.cloth_mut(cloth).unwrap().set_pinned(&corners, None).unwrap();
    for _ in 0..5 {
        world.step(1.0 / 60.0).unwrap();
    }
    POOL_ALLOCATIONS.store(0, Ordering::SeqCst);
    COUNTING_POOL.store(true, Ordering::SeqCst);
    let mut torn = 0;
    for frame in 0..40 {
        let spread = 0.01 * frame as f32;
        world.cloth_mut(cloth).unwrap().set_pin_targets(&corners, &[[-spread, 0.0, 0.0], [1.0 + spread, 0.0, 0.0]]).unwrap();
        world.step(1.0 / 60.0).unwrap();
        torn += world.cloth(cloth).unwrap().stats().torn_edges_last_step;
    }
    COUNTING_POOL.store(false, Ordering::SeqCst);
    let allocations = POOL_ALLOCATIONS.load(Ordering::SeqCst);
    assert!(torn > 0, "nothing tore");
    assert_eq!(allocations, 0, "{allocations} allocations on the workers in 40 steps ({torn} edges torn)");
}
