//! The asynchronous step and double-buffered reads (docs/design.md, "Thread contract";
//! docs/c-cpp.md, "The asynchronous step"): while a step runs, whether begun with
//! `xpbd_world_step_begin` or run by another thread's `xpbd_world_step`, the render reads of a
//! 128 × 128 cloth return the state before the step bit for bit. That they do so during the step
//! and without waiting for it is made certain by a test hook, not a timer: the finished step is
//! held before it gives the world back (`hold_world_steps`), and the reads return meanwhile.
//! `step_end` leaves the state a synchronous `xpbd_world_step` does (same state hash on a twin
//! world); calls in the wrong order get their own codes and change nothing.

mod ffi_common;

use ffi_common::{bits, c_hanging_cloth, c_positions, c_world, hanging_grid, ok, state_hash as hash};
use xpbd_cloth::ffi::*;
use xpbd_cloth::{ClothDesc, ClothHandle, ClothReads, SharedWorld, VertexLayout, World, WorldDesc};

const DT: f32 = 1.0 / 60.0;
const N: usize = 128;

/// Every render read of a cloth through the C ABI, as bytes: positions, normals, both
/// interpolated at alpha 0.375, a 32-byte-stride vertex buffer at alpha 0.625, and the bounds.
fn c_reads(cloth: XpbdClothId) -> Vec<Vec<u32>> {
    // Not read from the cloth: `xpbd_cloth_vertex_count` waits for a running step.
    let n = N * N;
    let mut reads = Vec::new();
    let mut vec3 = |f: &dyn Fn(*mut f32) -> XpbdResult| {
        let mut out = vec![[0.0f32; 3]; n];
        ok(f(out.as_mut_ptr().cast()));
        reads.push(bits(&out).concat());
    };
    // SAFETY (every call below): a buffer of exactly n 3-vectors.
    vec3(&|p| unsafe { xpbd_cloth_read_positions(cloth, p, n as u32) });
    vec3(&|p| unsafe { xpbd_cloth_read_normals(cloth, p, n as u32) });
    vec3(&|p| unsafe { xpbd_cloth_read_positions_interpolated(cloth, 0.375, p, n as u32) });
    vec3(&|p| unsafe { xpbd_cloth_read_normals_interpolated(cloth, 0.375, p, n as u32) });
    let mut buffer = vec![0u32; 8 * n];
    // SAFETY: 32 bytes per vertex, positions at 0 and normals at 16, inside the buffer.
    ok(unsafe { xpbd_cloth_write_vertices(cloth, buffer.as_mut_ptr().cast(), 32, 0, 16, n as u32, 0.625) });
    reads.push(buffer);
    let (mut lo, mut hi) = ([0.0f32; 3], [0.0f32; 3]);
    // SAFETY: two writable float[3].
    ok(unsafe { xpbd_cloth_get_bounds(cloth, lo.as_mut_ptr(), hi.as_mut_ptr()) });
    reads.push(bits(&[lo, hi]).concat());
    reads
}

/// A world of `threads` threads with a 128 × 128 hanging cloth, stepped `steps` times (so the two
/// step states of the interpolated reads differ).
fn c_scene(threads: u32, steps: u32) -> (XpbdWorldId, XpbdClothId) {
    let world = c_world(threads);
    let cloth = c_hanging_cloth(world, N);
    for _ in 0..steps {
        ok(xpbd_world_step(world, DT));
    }
    (world, cloth)
}

#[test]
fn reads_during_an_async_step_return_the_state_before_it_and_step_end_matches_a_synchronous_step() {
    for threads in [1, 2] {
        let (world, cloth) = c_scene(threads, 3);
        let (twin_world, twin) = c_scene(threads, 3);
        let before = c_reads(cloth);
        assert_eq!(before, c_reads(twin));
        let hold = hold_world_steps(world).unwrap();
        ok(xpbd_world_step_begin(world, DT));
        // The step has run and waits to give the world back: these reads happen during it, and
        // return without it (the step cannot finish before the hold is dropped).
        hold.wait_for_step();
        assert_eq!(c_reads(cloth), before, "threads {threads}: a read during the step");
        drop(hold);
        // Until step_end the reads keep the state at step_begin, whether or not the step finished.
        assert_eq!(c_reads(cloth), before, "threads {threads}: a read before step_end");
        ok(xpbd_world_step_end(world));
        ok(xpbd_world_step(twin_world, DT));
        let after = c_reads(cloth);
        assert_eq!(hash(cloth), hash(twin), "threads {threads}: step_end leaves what xpbd_world_step does");
        assert_eq!(after, c_reads(twin));
        for (k, (a, b)) in after.iter().zip(&before).enumerate() {
            assert_ne!(a, b, "threads {threads}: read {k} after the step equals the one before");
        }
        ok(xpbd_world_destroy(world));
        ok(xpbd_world_destroy(twin_world));
    }
}

#[test]
fn reads_during_another_threads_synchronous_step_return_the_state_before_it() {
    let (world, cloth) = c_scene(2, 2);
    let (twin_world, twin) = c_scene(2, 2);
    let before = c_reads(cloth);
    let hold = hold_world_steps(world).unwrap();
    let stepper = std::thread::spawn(move || xpbd_world_step(world, DT));
    hold.wait_for_step();
    assert_eq!(c_reads(cloth), before);
    drop(hold);
    assert_eq!(stepper.join().unwrap(), XpbdResult::Ok);
    ok(xpbd_world_step(twin_world, DT));
    assert_eq!(hash(cloth), hash(twin));
    assert_ne!(c_reads(cloth)[0], before[0]);
    // The same for advance when it takes a step.
    let before = c_reads(cloth);
    let hold = hold_world_steps(world).unwrap();
    let stepper = std::thread::spawn(move || {
        let (mut steps, mut alpha) = (0, 0.0);
        // SAFETY: valid out-parameters.
        (unsafe { xpbd_world_advance(world, DT * 1.5, DT, 4, &mut steps, &mut alpha) }, steps)
    });
    hold.wait_for_step();
    assert_eq!(c_reads(cloth), before);
    drop(hold);
    assert_eq!(stepper.join().unwrap(), (XpbdResult::Ok, 1));
    ok(xpbd_world_step(twin_world, DT));
    assert_eq!(hash(cloth), hash(twin));
    ok(xpbd_world_destroy(world));
    ok(xpbd_world_destroy(twin_world));
}

#[test]
fn calls_in_the_wrong_order_are_refused_with_their_codes_and_change_nothing() {
    let (world, cloth) = c_scene(1, 1);
    let h = hash(cloth);
    assert_eq!(xpbd_world_step_end(world), XpbdResult::StepNotBegun);
    for dt in [0.0, f32::NAN, -DT, 2.0, 1e-6] {
        assert_eq!(xpbd_world_step_begin(world, dt), XpbdResult::InvalidArgument, "dt {dt}");
        assert_eq!(xpbd_world_step_end(world), XpbdResult::StepNotBegun, "nothing began for dt {dt}");
    }
    assert_eq!(hash(cloth), h);
    ok(xpbd_world_step_begin(world, DT));
    assert_eq!(xpbd_world_step_begin(world, DT), XpbdResult::StepInProgress);
    assert_eq!(xpbd_world_step(world, DT), XpbdResult::StepInProgress);
    let (mut steps, mut alpha) = (7, 0.5);
    // SAFETY: valid out-parameters.
    let advance = unsafe { xpbd_world_advance(world, DT, DT, 1, &mut steps, &mut alpha) };
    assert_eq!((advance, steps, alpha), (XpbdResult::StepInProgress, 7, 0.5));
    ok(xpbd_world_step_end(world));
    assert_eq!(xpbd_world_step_end(world), XpbdResult::StepNotBegun);
    // One step happened, the refused ones none: a twin stepped twice in all has the same state.
    let (twin_world, twin) = c_scene(1, 2);
    assert_eq!(hash(cloth), hash(twin));
    let stale = world;
    ok(xpbd_world_destroy(world));
    assert_eq!(xpbd_world_step_begin(stale, DT), XpbdResult::InvalidId);
    assert_eq!(xpbd_world_step_end(stale), XpbdResult::InvalidId);
    ok(xpbd_world_destroy(twin_world));
}

#[test]
fn other_calls_wait_for_the_async_step_and_destroy_ends_it() {
    let (world, cloth) = c_scene(2, 1);
    let (twin_world, twin) = c_scene(2, 1);
    ok(xpbd_world_step_begin(world, DT));
    // A call that is not a render read waits for the step and sees the stepped world.
    ok(xpbd_world_step(twin_world, DT));
    assert_eq!(hash(cloth), hash(twin));
    // Reads still return the state at step_begin until step_end.
    assert_ne!(c_positions(cloth), c_positions(twin));
    ok(xpbd_world_step_end(world));
    assert_eq!(bits(&c_positions(cloth)), bits(&c_positions(twin)));
    // A cloth created and one destroyed inside a bracket: the new one reads live, the old id fails.
    let (positions, indices) = hanging_grid(4);
    ok(xpbd_world_step_begin(world, DT));
    let fresh = ffi_common::c_cloth(world, &positions, &indices);
    assert_eq!(bits(&c_positions(fresh)), bits(&positions));
    ok(xpbd_cloth_destroy(cloth));
    let mut out = vec![[0.0f32; 3]; N * N];
    // SAFETY: a buffer of N*N 3-vectors.
    let read = unsafe { xpbd_cloth_read_positions(cloth, out.as_mut_ptr().cast(), (N * N) as u32) };
    assert_eq!(read, XpbdResult::InvalidId);
    ok(xpbd_world_step_end(world));
    // Destroy during a bracket waits for the step and frees the world.
    ok(xpbd_world_step_begin(world, DT));
    ok(xpbd_world_destroy(world));
    assert_eq!(xpbd_world_step_end(world), XpbdResult::InvalidId);
    ok(xpbd_world_destroy(twin_world));
}

/// A 128 × 128 hanging cloth pinned at its top corners in a world of `threads` threads.
fn rust_scene(threads: u32) -> (World, ClothHandle) {
    let mut world = World::new(WorldDesc { thread_count: threads, ..WorldDesc::default() }).unwrap();
    let (positions, indices) = hanging_grid(N);
    let cloth = world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
    world.cloth_mut(cloth).unwrap().set_pinned(&[0, N as u32 - 1], None).unwrap();
    (world, cloth)
}

/// Every render read of `reads`, as bits (as `c_reads`).
fn rust_reads(reads: ClothReads<'_>) -> Vec<Vec<u32>> {
    let n = reads.vertex_count() as usize;
    let mut out = vec![[0.0f32; 3]; n];
    let mut all = Vec::new();
    let mut push = |out: &[[f32; 3]]| all.push(bits(out).concat());
    reads.read_positions(&mut out).unwrap();
    push(&out);
    reads.read_normals(&mut out).unwrap();
    push(&out);
    reads.read_positions_interpolated(0.375, &mut out).unwrap();
    push(&out);
    reads.read_normals_interpolated(0.375, &mut out).unwrap();
    push(&out);
    let mut buffer = vec![0u8; 32 * n];
    let layout = VertexLayout { stride: 32, position_offset: Some(0), normal_offset: Some(16) };
    reads.write_vertices(&mut buffer, layout, 0.625).unwrap();
    all.push(buffer.chunks(4).map(|b| u32::from_ne_bytes(b.try_into().unwrap())).collect());
    let (lo, hi) = reads.bounds();
    all.push(bits(&[lo, hi]).concat());
    all
}

#[test]
fn rust_shared_world_reads_the_copy_during_a_step_and_steps_like_world_step() {
    let (world, cloth) = rust_scene(2);
    let (mut twin, twin_cloth) = rust_scene(2);
    let shared = SharedWorld::new(world);
    // An animated pose with a simulation blend below 1: the reads blend it in, the copy too.
    let pose: Vec<[f32; 3]> = hanging_grid(N).0.iter().map(|p| [p[0], p[1], 0.05]).collect();
    let posed = |w: &mut World, c: ClothHandle| {
        let cloth = w.cloth_mut(c).unwrap();
        cloth.set_animated_pose(&pose, None).unwrap();
        let params = xpbd_cloth::ClothParams { simulation_blend: 0.75, ..*cloth.params() };
        cloth.set_params(params).unwrap();
    };
    shared.with(|w| posed(w, cloth)).unwrap();
    posed(&mut twin, twin_cloth);
    for _ in 0..2 {
        shared.step(DT).unwrap();
        twin.step(DT).unwrap();
    }
    // A new pose before the bracketed step: the copy must carry both the pose the last step ended
    // on (the interpolated reads' alpha 0 end) and the new one.
    let moved: Vec<[f32; 3]> = pose.iter().map(|p| [p[0] + 0.2, p[1], p[2]]).collect();
    shared.with(|w| w.cloth_mut(cloth).unwrap().set_animated_pose(&moved, None).unwrap()).unwrap();
    twin.cloth_mut(twin_cloth).unwrap().set_animated_pose(&moved, None).unwrap();
    let before = shared.read(cloth, rust_reads).unwrap();
    assert_eq!(before, rust_reads(twin.cloth(twin_cloth).unwrap().reads()));
    let hold = shared.hold_steps();
    shared.step_begin(DT).unwrap();
    hold.wait_for_step();
    assert!(shared.step_begun().unwrap());
    assert_eq!(shared.read(cloth, rust_reads).unwrap(), before);
    drop(hold);
    shared.step_end().unwrap();
    twin.step(DT).unwrap();
    let after = shared.read(cloth, rust_reads).unwrap();
    assert_eq!(after, rust_reads(twin.cloth(twin_cloth).unwrap().reads()));
    assert_ne!(after[0], before[0]);
    let hash = shared.with(|w| w.cloth(cloth).unwrap().state_hash()).unwrap();
    assert_eq!(hash, twin.cloth(twin_cloth).unwrap().state_hash());
    assert_eq!(shared.step_end(), Err(xpbd_cloth::ClothError::StepNotBegun));
    let world = shared.into_inner().unwrap();
    assert_eq!(world.cloth(cloth).unwrap().state_hash(), hash);
}

/// A render thread reading positions without pause while the game thread runs 60
/// `step_begin`..`step_end` brackets on a world of 2 threads: every read returns the positions of
/// a finished step (the state before the first bracket or after one of them, as a twin world
/// stepped synchronously has them), never a state in between. (How long the reads take is the
/// bench's "render reads during asynchronous steps" table.)
#[test]
fn a_render_thread_reading_through_begin_step_and_end_sees_only_finished_steps() {
    let (world, cloth) = rust_scene(2);
    let (mut twin, twin_cloth) = rust_scene(2);
    let positions = |reads: ClothReads<'_>| {
        let mut out = vec![[0.0f32; 3]; reads.vertex_count() as usize];
        reads.read_positions(&mut out).unwrap();
        bits(&out).concat()
    };
    let mut finished = vec![positions(twin.cloth(twin_cloth).unwrap().reads())];
    for _ in 0..60 {
        twin.step(DT).unwrap();
        finished.push(positions(twin.cloth(twin_cloth).unwrap().reads()));
    }
    let shared = SharedWorld::new(world);
    let done = std::sync::atomic::AtomicBool::new(false);
    let seen = std::thread::scope(|scope| {
        let reader = scope.spawn(|| {
            let mut seen = Vec::new();
            while !done.load(std::sync::atomic::Ordering::Acquire) {
                seen.push(shared.read(cloth, positions).unwrap());
            }
            seen
        });
        for _ in 0..60 {
            shared.step_begin(DT).unwrap();
            shared.step_end().unwrap();
        }
        done.store(true, std::sync::atomic::Ordering::Release);
        reader.join().unwrap()
    });
    let unknown = seen.iter().filter(|s| !finished.contains(s)).count();
    let distinct = finished.iter().filter(|f| seen.contains(f)).count();
    println!("{} reads, {distinct} of the 61 finished states seen, {unknown} unknown", seen.len());
    assert_eq!(unknown, 0, "{unknown} of {} reads returned a state no step finished with", seen.len());
    assert!(distinct > 1, "the reads saw only one state: they did not overlap the steps");
}

/// `xpbd_world_advance_begin` / `xpbd_world_advance_end` over frames of 7, 16 and 33 ms with a
/// pin target moved every frame, on worlds of 1 and 2 threads: during each bracket the reads
/// return the state at its begin bit for bit; `advance_end` writes the steps and alpha
/// `xpbd_world_advance` writes on a twin world and leaves its state hash.
#[test]
fn advance_begin_and_end_give_what_advance_gives_and_reads_keep_the_state_at_begin() {
    for threads in [1, 2] {
        let (world, cloth) = c_scene(threads, 2);
        let (twin_world, twin) = c_scene(threads, 2);
        for frame in 0..9 {
            let frame_dt = [0.007f32, 0.016, 0.033][frame % 3];
            let target = [[0.05 * frame as f32, 1.0, 0.0]];
            for c in [cloth, twin] {
                // SAFETY: one vertex and one target.
                ok(unsafe { xpbd_cloth_set_pin_targets(c, [0u32].as_ptr(), 1, target.as_ptr().cast()) });
            }
            let before = c_reads(cloth);
            ok(xpbd_world_advance_begin(world, frame_dt, DT, 4));
            assert_eq!(c_reads(cloth), before, "threads {threads}, frame {frame}: a read during the advance");
            let ((mut steps, mut alpha), (mut twin_steps, mut twin_alpha)) = ((0, 0.0), (0, 0.0));
            // SAFETY: valid out-parameters.
            ok(unsafe { xpbd_world_advance_end(world, &mut steps, &mut alpha) });
            // SAFETY: as above.
            ok(unsafe { xpbd_world_advance(twin_world, frame_dt, DT, 4, &mut twin_steps, &mut twin_alpha) });
            assert_eq!((steps, alpha.to_bits()), (twin_steps, twin_alpha.to_bits()), "threads {threads}, frame {frame}");
            assert_eq!(hash(cloth), hash(twin), "threads {threads}, frame {frame}");
            assert_eq!(c_reads(cloth), c_reads(twin));
        }
        ok(xpbd_world_destroy(world));
        ok(xpbd_world_destroy(twin_world));
    }
}

/// The advance bracket's wrong orders and bad arguments: each refused with its code, nothing
/// started or changed (a twin that took only the accepted frames has the same state and
/// accumulator); `xpbd_world_advance_end` does not end a step bracket (the step's end still does),
/// `xpbd_world_step_end` does end an advance bracket.
#[test]
fn advance_brackets_in_the_wrong_order_or_with_bad_arguments_are_refused_and_change_nothing() {
    let (world, cloth) = c_scene(1, 1);
    let (twin_world, twin) = c_scene(1, 1);
    let (mut steps, mut alpha) = (7u32, 0.5f32);
    // SAFETY (every advance_end below): valid out-parameters or NULL.
    assert_eq!(unsafe { xpbd_world_advance_end(world, &mut steps, &mut alpha) }, XpbdResult::StepNotBegun);
    assert_eq!((steps, alpha), (7, 0.5), "nothing written");
    for (frame_dt, fixed_dt, max_steps) in [(f32::NAN, DT, 4), (-0.01, DT, 4), (4000.0, DT, 4), (0.01, 0.0, 4), (0.01, f32::NAN, 4), (0.01, 2.0, 4), (0.01, DT, 0), (0.01, DT, 1001)] {
        assert_eq!(xpbd_world_advance_begin(world, frame_dt, fixed_dt, max_steps), XpbdResult::InvalidArgument, "{frame_dt} {fixed_dt} {max_steps}");
        assert_eq!(unsafe { xpbd_world_advance_end(world, std::ptr::null_mut(), std::ptr::null_mut()) }, XpbdResult::StepNotBegun);
    }
    ok(xpbd_world_advance_begin(world, 0.02, DT, 4));
    assert_eq!(xpbd_world_advance_begin(world, 0.02, DT, 4), XpbdResult::StepInProgress);
    assert_eq!(xpbd_world_step_begin(world, DT), XpbdResult::StepInProgress);
    assert_eq!(xpbd_world_step(world, DT), XpbdResult::StepInProgress);
    ok(unsafe { xpbd_world_advance_end(world, &mut steps, &mut alpha) });
    assert_eq!(steps, 1);
    // SAFETY: NULL outputs are allowed.
    ok(unsafe { xpbd_world_advance(twin_world, 0.02, DT, 4, std::ptr::null_mut(), std::ptr::null_mut()) });
    // A step bracket is not ended by advance_end; an advance bracket is ended by step_end.
    ok(xpbd_world_step_begin(world, DT));
    assert_eq!(unsafe { xpbd_world_advance_end(world, &mut steps, &mut alpha) }, XpbdResult::StepNotBegun);
    ok(xpbd_world_step_end(world));
    ok(xpbd_world_step(twin_world, DT));
    ok(xpbd_world_advance_begin(world, 0.02, DT, 4));
    ok(xpbd_world_step_end(world));
    ok(unsafe { xpbd_world_advance(twin_world, 0.02, DT, 4, std::ptr::null_mut(), std::ptr::null_mut()) });
    assert_eq!(hash(cloth), hash(twin));
    // The accumulators agree too: the next frame takes the same steps and alpha.
    ok(xpbd_world_advance_begin(world, 0.012, DT, 4));
    let (mut twin_steps, mut twin_alpha) = (0, 0.0);
    ok(unsafe { xpbd_world_advance_end(world, &mut steps, &mut alpha) });
    ok(unsafe { xpbd_world_advance(twin_world, 0.012, DT, 4, &mut twin_steps, &mut twin_alpha) });
    assert_eq!((steps, alpha.to_bits()), (twin_steps, twin_alpha.to_bits()));
    let stale = world;
    ok(xpbd_world_destroy(world));
    assert_eq!(xpbd_world_advance_begin(stale, 0.01, DT, 4), XpbdResult::InvalidId);
    assert_eq!(unsafe { xpbd_world_advance_end(stale, &mut steps, &mut alpha) }, XpbdResult::InvalidId);
    ok(xpbd_world_destroy(twin_world));
}

/// The render-overlap loop: a render thread makes 1 000 reads (positions, at a short
/// pause each, so that they fall before, during and after the brackets, and spread over at least
/// 30 frames however fast the machine is) while the game thread runs frames of 7, 16 and 33 ms on
/// a world of 2 threads, moving a pin every frame: `advance_begin`, then `advance_end`. Every read returns the positions a finished frame left
/// (as a twin world advanced synchronously through the same frames has them), never a state in
/// between; the reads see many frames. (How long they take: the bench's "render reads during
/// asynchronous steps" table.)
#[test]
fn a_thousand_render_reads_through_advance_brackets_see_only_finished_frames() {
    let small = 48;
    let scene = || {
        let mut world = World::new(WorldDesc { thread_count: 2, ..WorldDesc::default() }).unwrap();
        let (positions, indices) = hanging_grid(small);
        let cloth = world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
        world.cloth_mut(cloth).unwrap().set_pinned(&[0, small as u32 - 1], None).unwrap();
        (world, cloth)
    };
    let ((world, cloth), (mut twin, twin_cloth)) = (scene(), scene());
    let positions = |reads: ClothReads<'_>| {
        let mut out = vec![[0.0f32; 3]; reads.vertex_count() as usize];
        reads.read_positions(&mut out).unwrap();
        bits(&out).concat()
    };
    let mut finished = vec![positions(twin.cloth(twin_cloth).unwrap().reads())];
    let shared = SharedWorld::new(world);
    let reads_done = std::sync::atomic::AtomicBool::new(false);
    let frames_done = std::sync::atomic::AtomicUsize::new(0);
    let seen = std::thread::scope(|scope| {
        let reader = scope.spawn(|| {
            let seen: Vec<Vec<u32>> = (0..1000)
                .map(|k| {
                    // At most 33 reads a frame: the reads span 30 frames or more.
                    while frames_done.load(std::sync::atomic::Ordering::Acquire) < k / 33 {
                        std::thread::sleep(std::time::Duration::from_micros(50));
                    }
                    std::thread::sleep(std::time::Duration::from_micros(50));
                    shared.read(cloth, positions).unwrap()
                })
                .collect();
            reads_done.store(true, std::sync::atomic::Ordering::Release);
            seen
        });
        let mut frame = 0;
        while !reads_done.load(std::sync::atomic::Ordering::Acquire) {
            let frame_dt = [0.007f32, 0.016, 0.033][frame % 3];
            let target = [[1.0 + 0.1 * (frame as f32 * 0.1).sin(), 1.0, 0.0]];
            let pin = small as u32 - 1;
            shared.with(|w| w.cloth_mut(cloth).unwrap().set_pin_targets(&[pin], &target).unwrap()).unwrap();
            shared.advance_begin(frame_dt, DT, 4).unwrap();
            twin.cloth_mut(twin_cloth).unwrap().set_pin_targets(&[pin], &target).unwrap();
            let expected = twin.advance(frame_dt, DT, 4).unwrap();
            finished.push(positions(twin.cloth(twin_cloth).unwrap().reads()));
            assert_eq!(shared.advance_end().unwrap(), expected);
            frame += 1;
            frames_done.store(frame, std::sync::atomic::Ordering::Release);
        }
        reader.join().unwrap()
    });
    let unknown = seen.iter().filter(|s| !finished.contains(s)).count();
    let distinct = finished.iter().filter(|f| seen.contains(f)).count();
    println!("{} reads over {} frames: {distinct} finished states seen, {unknown} unknown", seen.len(), finished.len() - 1);
    assert_eq!(unknown, 0, "{unknown} of {} reads returned a state no frame finished with", seen.len());
    assert!(distinct > 10, "the reads saw only {distinct} states: they did not overlap the frames");
}
