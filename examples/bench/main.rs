//! Solver benchmark: per scene, substep count and thread count, the median wall time of one 60 Hz
//! step and the time per constraint projection, next to a plain scalar single-threaded
//! Gauss–Seidel loop over the same constraints (`reference.rs`) timed in the same run, so the
//! speed-up is a ratio on the same machine under the same load. What each table means and the
//! current numbers: docs/performance.md.
//!
//! `cargo run --release --example bench [-- --steps N] [-- --only 32|64|128|tablecloth] [-- --svg FILE]`
//! (`--svg`: the 10-substep rows as a bar chart, `plot.rs`; `--table NAME`: just that table,
//! `--table tearing` the tearing and pressure table)
//!
//! `-- --only SCENE --row reference|anchor|colour [--substeps N] [--threads T]` steps just that one
//! configuration `--steps` times without timing or warm-up, for an instruction count that does not
//! depend on the machine's load: `valgrind --tool=callgrind target/release/examples/bench ...`.
//! `--substeps` and `--threads` apply to that mode only. Options are parsed by clap: a bad value
//! prints the usage error and exits with status 2.
//!
//! Rows: the anchor-ordered sweep (colouring off: one constraint at a time) on one thread;
//! the coloured sweep (`Cloth::set_constraint_colouring`: the default; lane-wise kernels) on one thread and on
//! all cores. The state hash after the run shows that the coloured runs agree to the bit
//! whatever the thread count. A second table measures two cores: one cloth on 1 and on 2 threads
//! against two independent 1-thread cloths stepped at once (what the machine gives two jobs that
//! share nothing). Then many small cloths in one world, as an engine with many characters steps
//! them (16 grids of 16² with the 64² grid, 64 with 128²), on 1 and 2 threads, with a check that
//! every cloth's state hash is the same on both (the bench fails otherwise), and the demo character's
//! skirt and cape worn while it runs, on 1 and 2 threads (`worn.rs`). A table times the strain
//! limit (`max_stretch`) off and on, and one the character cloth (a 1 225-vertex cape pinned, or
//! skinned by 4 joints with max distance and backstop, the joints translating or also turning,
//! or with its max distances changed every step), and one the asynchronous step: a `SharedWorld`
//! step (which copies positions and normals for the double-buffered reads) against a plain one,
//! and a read idle, during an asynchronous step, and a call that waits for the step. These rows run without self-collision; a last table times the 64²
//! grid and the tablecloth with self-collision off and on (radius half the mean edge
//! length, as recommended), one thread, 10 substeps, with the candidate pairs and contacts of the
//! last step. With the 64² grid, a table (`tearing.rs`) times tearing and pressure against the same
//! scenes without them.
//!
//! Projections are counted as docs/performance.md defines them: constraints × substeps ×
//! iterations, the constraints being hinges + edges + tethers. The solver's second stretch sweep
//! (docs/design.md, "Two stretch sweeps per iteration") and the re-projections of a particle's
//! tether group (up to 3) are not counted, nor are collider contacts; so the time per projection is
//! the time per constraint and iteration. Earlier runs counted both stretch sweeps
//! (docs/dev/performance-log.md, "2026-12-01 — Projections counted per constraint"). The reference
//! does the same sweeps as the library (both stretch sweeps, one projection per tether, no
//! colliders).

// The test meshes and settings, so that the bench measures exactly the validated scenes.
#[path = "../../tests/common/mod.rs"]
mod common;
mod plot;
mod reference;

use clap::{Arg, ArgMatches, Command, value_parser};
use reference::Reference;
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;
use xpbd_cloth::{ClothDesc, ClothParams, ColliderDesc, World, WorldDesc};

/// `println!` that returns an error instead of panicking when stdout is closed or full
/// (`bench | head -1`, `bench > /dev/full`).
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout(), $($arg)*).map_err(|e| format!("writing to standard output: {e}"))
    }};
}

mod tearing;
mod worn;

const DT: f32 = 1.0 / 60.0;
const GRAVITY: [f32; 3] = [0.0, -9.81, 0.0];

#[derive(Clone)]
struct Scene {
    /// What `--only` calls it: "32", "64", "128" or "tablecloth".
    key: String,
    name: String,
    positions: Vec<[f32; 3]>,
    indices: Vec<u32>,
    /// Render vertices pinned where they start.
    pins: Vec<u32>,
    /// The table top under the tablecloth.
    collider: Option<ColliderDesc>,
}

/// `n × n` vertices, 1 m × 1 m, horizontal at y = 0 (the light stiff cloth of the validation tests);
/// vertices 0 and n − 1 are the corners that get pinned.
fn grid(n: usize) -> Scene {
    let (positions, indices) = common::horizontal_sheet(n, 1.0, 0.0);
    Scene { key: n.to_string(), name: format!("grid {n}²"), positions, indices, pins: vec![0, n as u32 - 1], collider: None }
}

/// data/tablecloth.obj (14 161 vertices) resting on a table top, no pins (so no tethers).
fn tablecloth() -> Result<Scene, String> {
    let common::TableclothScene { positions, indices, table } = common::tablecloth_on_its_table()?;
    Ok(Scene { key: "tablecloth".into(), name: "tablecloth".into(), positions, indices, pins: vec![], collider: Some(table) })
}

/// The scenes `--only` selects (all four without it), in table order.
fn scenes(only: Option<&str>) -> Result<Vec<Scene>, String> {
    let keys = ["32", "64", "128", "tablecloth"];
    keys.iter()
        .filter(|&&k| only.is_none_or(|o| o == k))
        .map(|&k| if k == "tablecloth" { tablecloth() } else { Ok(grid(k.parse().expect("grid size"))) })
        .collect()
}

fn command() -> Command {
    Command::new("bench")
        .about("Time xpbd_cloth's solver per scene, substep and thread count against a scalar reference loop")
        .arg(
            Arg::new("steps")
                .long("steps")
                .value_name("N")
                .value_parser(value_parser!(u32).range(0..=100_000))
                .allow_negative_numbers(true)
                .default_value("40")
                .help("Timed steps per configuration, at least 1 (with --row: steps, untimed; 0 for a baseline)"),
        )
        .arg(
            Arg::new("only")
                .long("only")
                .value_name("SCENE")
                .value_parser(["32", "64", "128", "tablecloth"])
                .help("One scene: the 32², 64² or 128² grid, or the tablecloth"),
        )
        .arg(
            Arg::new("row")
                .long("row")
                .value_parser(["reference", "anchor", "colour"])
                .requires("only")
                .help("Step one configuration of --only without timing (for callgrind)"),
        )
        .arg(
            Arg::new("substeps")
                .long("substeps")
                // "-1" as a value (a range error), not as an unknown option.
                .allow_negative_numbers(true)
                .value_parser(value_parser!(u32).range(1..=1000))
                .default_value("10")
                .requires("row")
                .help("Substeps per step, with --row"),
        )
        .arg(
            Arg::new("threads")
                .long("threads")
                // "-1" as a value (a range error), not as an unknown option.
                .allow_negative_numbers(true)
                .value_parser(value_parser!(u32).range(0..=256))
                .default_value("1")
                .requires("row")
                .help("Worker threads (0 = all cores), with --row"),
        )
        .arg(
            Arg::new("table")
                .long("table")
                .value_name("TABLE")
                .value_parser(["reads", "edits", "skeleton", "render-proxy", "level-of-detail", "strain-limit", "tearing", "worn", "two-core"])
                .conflicts_with_all(["row", "svg"])
                .help("Only one table: render reads during asynchronous steps and advances, pin and grab edits, a shared skeleton's cost, render proxies, level of detail, the strain limit (of the --only scene or all), tearing and pressure, the worn pair (the demo's skirt and cape on 1 and 2 threads), or two cores (the grids of --only on 1 and 2 threads, back to back and paced at 60 Hz)"),
        )
        .arg(
            Arg::new("svg")
                .long("svg")
                .value_name("FILE")
                .value_parser(value_parser!(std::path::PathBuf))
                .conflicts_with("row")
                .help("Also write the 10-substep rows (ns per projection) as a bar chart to FILE"),
        )
}

fn world(scene: &Scene, substeps: u32, thread_count: u32, colouring: bool) -> World {
    world_with(scene, substeps, thread_count, colouring, None)
}

/// [`world`] with self-collision of radius `self_collision` [m] (`None`: off).
fn world_with(scene: &Scene, substeps: u32, thread_count: u32, colouring: bool, self_collision: Option<f32>) -> World {
    let mut world = World::new(WorldDesc { substeps, iterations: 1, thread_count, ..WorldDesc::default() }).unwrap();
    let mut desc = ClothDesc::new(&scene.positions, &scene.indices);
    desc.params = ClothParams {
        self_collision: self_collision.is_some(),
        self_collision_radius: self_collision,
        ..common::light_stiff_params()
    };
    let cloth = world.add_cloth(&desc).unwrap();
    if !scene.pins.is_empty() {
        world.cloth_mut(cloth).unwrap().set_pinned(&scene.pins, None).unwrap();
    }
    world.cloth_mut(cloth).unwrap().set_constraint_colouring(colouring);
    if let Some(c) = &scene.collider {
        world.add_collider(c).unwrap();
    }
    world
}

/// Median seconds per step of `a` and `b`, stepped alternately (`steps` timed after 10 untimed), so
/// that both see the same machine load (docs/performance.md, "Running the bench").
fn interleaved(steps: usize, a: &mut World, b: &mut World) -> (f64, f64) {
    let (mut a_t, mut b_t) = (Vec::new(), Vec::new());
    for k in 0..steps + 10 {
        let t = Instant::now();
        a.step(DT).unwrap();
        let t_a = t.elapsed().as_secs_f64();
        let t = Instant::now();
        b.step(DT).unwrap();
        if k >= 10 {
            a_t.push(t_a);
            b_t.push(t.elapsed().as_secs_f64());
        }
    }
    (median(a_t), median(b_t))
}

/// The strain limit's cost: every scene without it (`max_stretch` off) and with the default, one
/// thread, 10 substeps, coloured; with the largest edge strain and the 99th percentile each ends
/// with. Then what that cost buys: the limit at 10 substeps against no limit at 10, 20 and 40
/// substeps, ms per step and the largest edge strain over the steps.
fn strain_limit_cost(scenes: &[Scene], steps: usize) -> Result<(), String> {
    out!()?;
    out!("strain limit (max_stretch) off and at its default, 10 substeps, 1 thread, coloured:")?;
    out!("{:<11} {:>8} {:>9} {:>7} {:>12} {:>11}", "scene", "ms off", "ms on", "ratio", "max % off/on", "p99 % off/on")?;
    for scene in scenes {
        let mut on = world(scene, 10, 1, true);
        let mut off = world(scene, 10, 1, true);
        let handle = off.live_handle(0).unwrap();
        let params = ClothParams { max_stretch: None, ..*off.cloth(handle).unwrap().params() };
        off.cloth_mut(handle).unwrap().set_params(params).map_err(|e| e.to_string())?;
        let (off_s, on_s) = interleaved(steps, &mut off, &mut on);
        let stats = |w: &World| *w.cloth(w.live_handle(0).unwrap()).unwrap().stats();
        let (a, b) = (stats(&off), stats(&on));
        out!(
            "{:<11} {:>8.2} {:>9.2} {:>6.2}× {:>5.1} / {:>4.1} {:>5.2} / {:>4.2}",
            scene.name,
            off_s * 1e3,
            on_s * 1e3,
            on_s / off_s,
            a.max_edge_strain * 100.0,
            b.max_edge_strain * 100.0,
            a.strain_p99 * 100.0,
            b.strain_p99 * 100.0
        )?;
    }
    out!()?;
    out!("what the strain limit's cost buys: the limit at 10 substeps against none at 10, 20 and 40 (1 thread, coloured, {steps} steps after 10):")?;
    out!("{:<11} {:>9} {:>9} {:>10} {:>10}", "scene", "substeps", "limit", "ms/step", "peak max %")?;
    for scene in scenes {
        for (substeps, limit) in [(10, true), (10, false), (20, false), (40, false)] {
            let mut w = world(scene, substeps, 1, true);
            let handle = w.live_handle(0).unwrap();
            if !limit {
                let params = ClothParams { max_stretch: None, ..*w.cloth(handle).unwrap().params() };
                w.cloth_mut(handle).unwrap().set_params(params).map_err(|e| e.to_string())?;
            }
            let (mut times, mut peak) = (Vec::new(), 0.0f32);
            for k in 0..steps + 10 {
                let t = Instant::now();
                w.step(DT).unwrap();
                if k >= 10 {
                    times.push(t.elapsed().as_secs_f64());
                }
                peak = peak.max(w.cloth(handle).unwrap().stats().max_edge_strain);
            }
            let on = if limit { "on" } else { "off" };
            out!("{:<11} {:>9} {:>9} {:>10.2} {:>10.1}", scene.name, substeps, on, median(times) * 1e3, peak * 100.0)?;
        }
    }
    Ok(())
}

/// What the engine's frame loop costs besides the step: packed reads of positions and normals,
/// the same floats interpolated into a 32-byte-stride vertex buffer, the bounds, pinning or
/// releasing one vertex in a world of two threads (the call; "layout": the call and the wait for
/// the constraint layout it rebuilds in a pool job, which the next step would wait for; "1
/// thread": pinning in a one-thread world, which builds the layout at once), and creating a cloth
/// against creating an instance of it (50 of each, in one world); then the reads again with an
/// animated pose and `simulation_blend` 0.5 ("blend 0.5").
fn frame_loop_cost(scenes: &[Scene], steps: usize) -> Result<(), String> {
    out!()?;
    out!("frame loop, after 10 steps: ms per call (1 thread; pin 1, unpin 1 and layout with 2)")?;
    out!(
        "{:<11} {:>9} {:>13} {:>8} {:>10} {:>8} {:>8} {:>8} {:>9} {:>8} {:>9}",
        "scene", "vertices", "packed reads", "write 32", "bounds", "pin 1", "unpin 1", "layout", "1 thread", "create", "instance"
    )?;
    for scene in scenes {
        let mut w = world(scene, 10, 1, true);
        for _ in 0..10 {
            let _ = w.step(DT);
        }
        let handle = w.live_handle(0).unwrap();
        let cloth = w.cloth_mut(handle).unwrap();
        let n = cloth.vertex_count() as usize;
        let (mut positions, mut normals) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
        let packed = time(steps, 3, || {
            cloth.read_positions(&mut positions).unwrap();
            cloth.read_normals(&mut normals).unwrap();
        });
        let mut buffer = vec![0u8; 32 * n];
        let layout = xpbd_cloth::VertexLayout { stride: 32, position_offset: Some(0), normal_offset: Some(12) };
        let write = time(steps, 3, || cloth.write_vertices(&mut buffer, layout, 0.5).unwrap());
        let bounds = time(steps, 3, || {
            std::hint::black_box(cloth.bounds());
        });
        let free = (0..n as u32).find(|v| !scene.pins.contains(v)).unwrap_or(0);
        // This one-thread world builds a pin change's layout at once; a world with a pool (two
        // threads) in a job, which the views below wait for.
        let (_, _, at_once) = pin_costs(cloth, free, steps)?;
        let mut pooled = world(scene, 10, 2, true);
        for _ in 0..10 {
            let _ = pooled.step(DT);
        }
        let pooled_cloth = pooled.live_handle(0).unwrap();
        let (pin, unpin, layout) = pin_costs(pooled.cloth_mut(pooled_cloth).unwrap(), free, steps)?;
        let desc = ClothDesc { params: common::light_stiff_params(), ..ClothDesc::new(&scene.positions, &scene.indices) };
        let count = 50.min(steps.max(1) * 10);
        let create = time(count, 0, || {
            w.add_cloth(&desc).unwrap();
        });
        let instance = time(count, 0, || {
            w.add_instance(handle).unwrap();
        });
        out!(
            "{:<11} {:>9} {:>13.3} {:>8.3} {:>10.4} {:>8.3} {:>8.3} {:>8.2} {:>9.2} {:>8.2} {:>9.3}",
            scene.name,
            n,
            packed * 1e3,
            write * 1e3,
            bounds * 1e3,
            pin * 1e3,
            unpin * 1e3,
            layout * 1e3,
            at_once * 1e3,
            create * 1e3,
            instance * 1e3
        )?;
        // The same reads with an animated pose and simulation_blend 0.5, which blend each step
        // state with its pose.
        let cloth = w.cloth_mut(handle).unwrap();
        let mut pose = vec![[0.0f32; 3]; n];
        cloth.read_positions(&mut pose).unwrap();
        cloth.set_animated_pose(&pose, None).unwrap();
        cloth.set_params(ClothParams { simulation_blend: 0.5, ..*cloth.params() }).unwrap();
        let _ = w.step(DT);
        let cloth = w.cloth(handle).unwrap();
        let packed = time(steps, 3, || {
            cloth.read_positions(&mut positions).unwrap();
            cloth.read_normals(&mut normals).unwrap();
        });
        let interleaved = xpbd_cloth::VertexLayout { stride: 32, position_offset: Some(0), normal_offset: Some(12) };
        let write = time(steps, 3, || cloth.write_vertices(&mut buffer, interleaved, 0.5).unwrap());
        let bounds = time(steps, 3, || {
            std::hint::black_box(cloth.bounds());
        });
        out!("{:<11} {:>9} {:>13.3} {:>8.3} {:>10.4}", " blend 0.5", n, packed * 1e3, write * 1e3, bounds * 1e3)?;
    }
    Ok(())
}

/// The asynchronous step and the double-buffered reads (`SharedWorld`, what the C ABI holds per
/// world), 10 substeps, 1 thread, coloured: a plain `World::step` and a `SharedWorld::step` (which
/// first copies each cloth's positions and normals for the reads) in alternation, their difference
/// being the copy's cost (within the noise of a loaded machine), and how long `step_begin` takes to
/// return (the copy plus the hand-over to the stepping thread: the caller's whole cost of a step);
/// then a packed read of positions and normals when idle, during an
/// asynchronous step (between `step_begin` and `step_end`, answered from the copy), and a call
/// that waits for the step (`with`, as every read did before) issued at the same moment.
fn async_step_cost(scenes: &[Scene], steps: usize) -> Result<(), String> {
    out!()?;
    out!("asynchronous step and double-buffered reads, 10 substeps, 1 thread, coloured: medians")?;
    out!(
        "{:<11} {:>9} {:>8} {:>10} {:>9} {:>9} {:>10} {:>12} {:>12}",
        "scene", "vertices", "step ms", "shared ms", "extra µs", "begin µs", "read idle", "read in step", "wait in step"
    )?;
    for scene in scenes {
        let mut plain = world(scene, 10, 1, true);
        let shared = xpbd_cloth::SharedWorld::new(world(scene, 10, 1, true));
        let handle = plain.live_handle(0).unwrap();
        let (mut plain_t, mut shared_t) = (Vec::new(), Vec::new());
        for k in 0..steps + 10 {
            let t = Instant::now();
            plain.step(DT).unwrap();
            let t_plain = t.elapsed().as_secs_f64();
            let t = Instant::now();
            shared.step(DT).unwrap();
            if k >= 10 {
                plain_t.push(t_plain);
                shared_t.push(t.elapsed().as_secs_f64());
            }
        }
        let shared_hash = shared.with(|w| w.cloth(handle).unwrap().state_hash()).map_err(|e| e.to_string())?;
        if shared_hash != plain.cloth(handle).unwrap().state_hash() {
            return Err(format!("{}: SharedWorld::step and World::step disagree (a bug)", scene.name));
        }
        let n = plain.cloth(handle).unwrap().vertex_count() as usize;
        let (mut positions, mut normals) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
        let mut read = || {
            shared
                .read(handle, |r| {
                    r.read_positions(&mut positions).unwrap();
                    r.read_normals(&mut normals).unwrap();
                })
                .unwrap()
        };
        let idle = time(steps, 3, &mut read);
        let (mut begin, mut in_step, mut waiting) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..steps {
            let t = Instant::now();
            shared.step_begin(DT).unwrap();
            begin.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            read();
            in_step.push(t.elapsed().as_secs_f64());
            shared.step_end().unwrap();
            shared.step_begin(DT).unwrap();
            let t = Instant::now();
            std::hint::black_box(shared.with(|w| w.cloth(handle).unwrap().state_hash()).unwrap());
            waiting.push(t.elapsed().as_secs_f64());
            shared.step_end().unwrap();
        }
        let (plain_s, shared_s) = (median(plain_t), median(shared_t));
        out!(
            "{:<11} {:>9} {:>8.2} {:>10.2} {:>9.0} {:>9.0} {:>7.3} ms {:>9.3} ms {:>9.3} ms",
            scene.name,
            n,
            plain_s * 1e3,
            shared_s * 1e3,
            (shared_s - plain_s) * 1e6,
            median(begin) * 1e6,
            idle * 1e3,
            median(in_step) * 1e3,
            median(waiting) * 1e3
        )?;
    }
    Ok(())
}

/// Render reads from another thread overlapping the asynchronous steps (`SharedWorld` of 1 and 2
/// threads; with 1 the reader has a core of its own, so a slow read there waited): a reader
/// thread reads positions and normals without pause while this thread runs `steps`
/// `step_begin`..`step_end` brackets ("step" rows), or 1 000 reads, 50 µs apart, while this
/// thread runs the render-overlap frame loop, frames of 7, 16 and 33 ms in turn, a pin moved each
/// frame, `advance_begin`..`advance_end` ("advance" rows); the reads' median, 99th percentile and
/// longest time, and how many took over 0.5 ms, split by what the reader's thread did meanwhile
/// (its context switches, `getrusage(RUSAGE_THREAD)`): "blocked" ones gave up the core themselves
/// (waited for a lock), "preempted" ones were only taken off it by the scheduler.
fn render_thread_reads(scenes: &[Scene], steps: usize) -> Result<(), String> {
    use std::sync::atomic::{AtomicBool, Ordering};
    out!()?;
    out!("render reads during asynchronous steps and advances, 10 substeps, coloured")?;
    out!(
        "{:<11} {:>9} {:>7} {:>8} {:>8} {:>10} {:>10} {:>10} {:>9} {:>8} {:>10}",
        "scene", "vertices", "threads", "loop", "reads", "median µs", "p99 µs", "max µs", "> 0.5 ms", "blocked", "preempted"
    )?;
    for (scene, threads, advance) in scenes.iter().flat_map(|s| [(s, 1, false), (s, 2, false), (s, 1, true), (s, 2, true)]) {
        let shared = xpbd_cloth::SharedWorld::new(world(scene, 10, threads, true));
        let handle = shared.with(|w| w.live_handle(0).unwrap()).map_err(|e| e.to_string())?;
        let n = shared.read(handle, |r| r.vertex_count() as usize).map_err(|e| e.to_string())?;
        let pin = scene.pins.first().copied();
        let home = shared.read(handle, |r| {
            let mut out = vec![[0.0f32; 3]; n];
            r.read_positions(&mut out).unwrap();
            pin.map(|p| out[p as usize])
        });
        let home = home.map_err(|e| e.to_string())?;
        let done = AtomicBool::new(false);
        let times = std::thread::scope(|scope| {
            let reader = scope.spawn(|| {
                let (mut positions, mut normals) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
                let mut times = Vec::new();
                while !done.load(Ordering::Acquire) && (!advance || times.len() < 1000) {
                    if advance {
                        std::thread::sleep(std::time::Duration::from_micros(50));
                    }
                    let switches = context_switches();
                    let t = Instant::now();
                    shared
                        .read(handle, |r| {
                            r.read_positions(&mut positions).unwrap();
                            r.read_normals(&mut normals).unwrap();
                        })
                        .unwrap();
                    let elapsed = t.elapsed().as_secs_f64();
                    let after = context_switches();
                    times.push((elapsed, after.0 > switches.0, after.1 > switches.1));
                }
                done.store(true, Ordering::Release);
                times
            });
            let mut frame = 0;
            while !done.load(Ordering::Acquire) && (advance || frame < steps) {
                if advance {
                    if let (Some(pin), Some(home)) = (pin, home) {
                        let target = [home[0] + 0.05 * (frame as f32 * 0.2).sin(), home[1], home[2]];
                        shared.with(|w| w.cloth_mut(handle).unwrap().set_pin_targets(&[pin], &[target]).unwrap()).unwrap();
                    }
                    shared.advance_begin([0.007, 0.016, 0.033][frame % 3], DT, 4).unwrap();
                    shared.advance_end().unwrap();
                } else {
                    shared.step_begin(DT).unwrap();
                    shared.step_end().unwrap();
                }
                frame += 1;
            }
            done.store(true, Ordering::Release);
            reader.join().unwrap()
        });
        let slow: Vec<_> = times.iter().filter(|t| t.0 > 0.5e-3).collect();
        let blocked = slow.iter().filter(|t| t.1).count();
        let preempted = slow.iter().filter(|t| !t.1 && t.2).count();
        let mut times: Vec<f64> = times.iter().map(|t| t.0).collect();
        times.sort_by(f64::total_cmp);
        let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize] * 1e6;
        let kind = if advance { "advance" } else { "step" };
        out!(
            "{:<11} {:>9} {:>7} {:>8} {:>8} {:>10.1} {:>10.1} {:>10.1} {:>9} {:>8} {:>10}",
            scene.name, n, threads, kind, times.len(), at(0.5), at(0.99), at(1.0), slow.len(), blocked, preempted
        )?;
    }
    Ok(())
}

/// Pin and grab edits (issue 43): a vertical 32² and 96² sheet of 1 m hanging from its top
/// corners, 10 substeps, in worlds of 1 and 2 threads, after 10 steps. Per edit kind, the median
/// time of the call and the median of what the five steps after it cost beyond the five steps
/// that follow them (which have the edit's physics, not its cost): the step right after, and the
/// largest of the five (a pin's layout is put in place by the fourth); the edits alternate (pin
/// the vertex next to a corner pin where it is, then unpin it; grab it where it is, rigidly, then
/// release it: each barely changes how the sheet hangs, so the steps after show the edit's own
/// cost, not a new equilibrium's), each followed by ten steps. The steps follow each other at once, as in the other tables (the layout thread, at the
/// lowest priority, then competes with a 2-thread world's step for the cores), and in the "60 Hz"
/// rows one per 1/60 s, as a game steps them (it builds in the time the steps leave).
fn edit_costs(steps: usize) -> Result<(), String> {
    out!()?;
    out!("pin and grab edits: ms per call, and ms beyond the settled steps of the next step / the worst of the next 5")?;
    out!(
        "{:<10} {:>7} {:>8} {:>8} {:>9} {:>9} {:>8}",
        "grid", "threads", "step ms", "edit", "call ms", "next ms", "worst 5"
    )?;
    for (n, threads, paced) in [(32usize, 1u32, false), (32, 2, false), (96, 1, false), (96, 2, false), (96, 1, true), (96, 2, true)] {
        let (positions, indices) = common::vertical_sheet(n, 1.0);
        let mut w = World::new(WorldDesc { thread_count: threads, ..WorldDesc::default() }).unwrap();
        let h = w.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
        w.cloth_mut(h).unwrap().set_pinned(&[0, n as u32 - 1], None).map_err(|e| e.to_string())?;
        for _ in 0..10 {
            w.step(DT).map_err(|e| e.to_string())?;
        }
        // Next to a corner pin: pinning it, or grabbing it where it is, barely changes how the sheet
        // hangs, so what the steps after cost beyond the settled ones is the edit's own cost.
        let middle = 1u32;
        let plain = median(step_durations(&mut w, steps.max(5)));
        let reps = steps.clamp(3, 20);
        type Edit<'a> = &'a dyn Fn(&mut xpbd_cloth::Cloth, bool);
        let kinds: [([&str; 2], Edit); 2] = [
            (["pin", "unpin"], &|c, on| if on { c.set_pinned(&[middle], None).unwrap() } else { c.unpin(&[middle]).unwrap() }),
            (["grab", "release"], &|c, on| {
                if on {
                    let x = c.particle_positions()[middle as usize];
                    c.grab(middle, x.to_array(), f32::INFINITY).unwrap();
                } else {
                    c.release(middle).unwrap();
                }
            }),
        ];
        for (labels, edit) in kinds {
            // (call, next step, worst of 3) per rep, for the edit on and then off.
            let mut times = [[Vec::new(), Vec::new(), Vec::new()], [Vec::new(), Vec::new(), Vec::new()]];
            for _ in 0..reps {
                for (state, t3) in [true, false].into_iter().zip(times.iter_mut()) {
                    let t = Instant::now();
                    edit(w.cloth_mut(h).unwrap(), state);
                    t3[0].push(t.elapsed().as_secs_f64());
                    // Against the steps after them, which have the edit's physics but not its cost.
                    let after: Vec<f64> = (0..10)
                        .map(|_| {
                            let t = Instant::now();
                            w.step(DT).unwrap();
                            let s = t.elapsed().as_secs_f64();
                            if paced {
                                std::thread::sleep(std::time::Duration::from_secs_f64((DT as f64 - s).max(0.0)));
                            }
                            s
                        })
                        .collect();
                    let settled = median(after[5..].to_vec());
                    t3[1].push(after[0] - settled);
                    t3[2].push(after[..5].iter().copied().fold(0.0, f64::max) - settled);
                }
            }
            for (label, [call, next, worst]) in labels.into_iter().zip(times) {
                let grid = format!("{n}²{}", if paced { " 60 Hz" } else { "" });
                out!(
                    "{:<10} {:>7} {:>8.2} {:>8} {:>9.3} {:>9.3} {:>8.3}",
                    grid, threads, plain * 1e3, label, median(call) * 1e3, median(next) * 1e3, median(worst) * 1e3
                )?;
            }
        }
    }
    Ok(())
}

/// A character's cape and skirt receive the same joint matrices (issue 43): what giving them to
/// each cloth costs. Two worn cloths (a 30 × 18 cape and a 36 × 20 skirt, 4 joints and weights a
/// vertex out of 30 joints), 10 substeps, one thread: the median time of `set_joint_matrices` on
/// each per frame (the matrices checked, decomposed and the pose skinned), against the median step
/// of the world.
fn skeleton_cost(steps: usize) -> Result<(), String> {
    let joints_total = 30u32;
    let mut w = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let mut cloths = Vec::new();
    for (nx, ny) in [(30usize, 18usize), (36, 20)] {
        let (positions, indices) = common::grid(nx, ny, 1.0, 0.6, |u, v| [u, -v, 0.0]);
        let h = w.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
        let v = positions.len();
        let binds = vec![glam_like_translation(0.0); joints_total as usize];
        let joints: Vec<[u32; 4]> = (0..v as u32).map(|i| [i % joints_total, (i + 1) % joints_total, (i + 7) % joints_total, (i + 13) % joints_total]).collect();
        let weights = vec![[0.4f32, 0.3, 0.2, 0.1]; v];
        let c = w.cloth_mut(h).unwrap();
        c.set_skin(Some(&xpbd_cloth::SkinDesc { inverse_bind_matrices: &binds, joint_indices: &joints, joint_weights: &weights })).map_err(|e| e.to_string())?;
        let mut d = vec![0.1f32; v];
        d[..nx].fill(0.0);
        c.set_max_distances(Some(&d)).map_err(|e| e.to_string())?;
        cloths.push((h, v));
    }
    let (mut give, mut step) = (vec![Vec::new(); cloths.len()], Vec::new());
    for k in 0..steps + 10 {
        let matrices: Vec<[f32; 16]> = (0..joints_total).map(|j| glam_like_translation(0.2 * (k as f32 * DT * 3.0 + j as f32).sin())).collect();
        for (i, &(h, _)) in cloths.iter().enumerate() {
            let t = Instant::now();
            w.cloth_mut(h).unwrap().set_joint_matrices(&matrices).map_err(|e| e.to_string())?;
            if k >= 10 {
                give[i].push(t.elapsed().as_secs_f64());
            }
        }
        let t = Instant::now();
        w.step(DT).map_err(|e| e.to_string())?;
        if k >= 10 {
            step.push(t.elapsed().as_secs_f64());
        }
    }
    out!()?;
    out!("joint matrices given to each of two worn cloths ({joints_total} joints, 4 per vertex), 10 substeps, 1 thread: medians")?;
    out!("{:<8} {:>9} {:>14} {:>10}", "cloth", "vertices", "set joints ms", "% of step")?;
    let step = median(step);
    for (name, (times, &(_, v))) in ["cape", "skirt"].iter().zip(give.into_iter().zip(&cloths)) {
        let t = median(times);
        out!("{:<8} {:>9} {:>14.4} {:>9.2} %", name, v, t * 1e3, 100.0 * t / step)?;
    }
    out!("{:<8} {:>9} {:>14.3}", "step", "", step * 1e3)?;
    Ok(())
}

/// The calling thread's (voluntary, involuntary) context switches so far: a thread that blocks
/// (on a lock) gives up its core voluntarily; one the scheduler takes it from, involuntarily.
/// (0, 0) where `getrusage(RUSAGE_THREAD)` is not available.
fn context_switches() -> (i64, i64) {
    #[cfg(target_os = "linux")]
    {
        /// `struct rusage` on 64-bit Linux: two `timeval`s, then 14 `long`s ending with
        /// `ru_nvcsw` and `ru_nivcsw`.
        #[repr(C)]
        struct Rusage {
            times: [i64; 4],
            counts: [i64; 14],
        }
        unsafe extern "C" {
            fn getrusage(who: std::ffi::c_int, usage: *mut Rusage) -> std::ffi::c_int;
        }
        let mut usage = Rusage { times: [0; 4], counts: [0; 14] };
        // SAFETY: RUSAGE_THREAD (1) fills the struct, which has the C layout above.
        if unsafe { getrusage(1, &mut usage) } == 0 {
            return (usage.counts[12], usage.counts[13]);
        }
    }
    (0, 0)
}

/// Median seconds of pinning vertex `free` of `cloth`, of releasing it (the calls only), and of
/// pinning it and waiting for the layout it rebuilds (the call and a view, which waits for it).
fn pin_costs(cloth: &mut xpbd_cloth::Cloth, free: u32, steps: usize) -> Result<(f64, f64, f64), String> {
    let (mut pin, mut unpin, mut layout) = (Vec::new(), Vec::new(), Vec::new());
    let built = |cloth: &xpbd_cloth::Cloth| std::hint::black_box(cloth.tether_constraints().particle.len());
    for _ in 0..steps.clamp(1, 5) {
        let t = Instant::now();
        cloth.set_pinned(&[free], None).map_err(|e| e.to_string())?;
        pin.push(t.elapsed().as_secs_f64());
        built(cloth);
        let t = Instant::now();
        cloth.unpin(&[free]).map_err(|e| e.to_string())?;
        unpin.push(t.elapsed().as_secs_f64());
        built(cloth);
        let t = Instant::now();
        cloth.set_pinned(&[free], None).map_err(|e| e.to_string())?;
        built(cloth);
        layout.push(t.elapsed().as_secs_f64());
        cloth.unpin(&[free]).map_err(|e| e.to_string())?;
        built(cloth);
    }
    Ok((median(pin), median(unpin), median(layout)))
}

/// Fifty damped 8 × 8 flags held by two corners (the scene of tests/sleeping.rs): the world's step
/// with sleeping off against the same world once every flag sleeps.
fn sleeping_cost(steps: usize) -> Result<(), String> {
    let flags = |sleep: bool| {
        let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
        let (rest, indices) = common::vertical_sheet(8, 0.5);
        for k in 0..50 {
            let positions: Vec<[f32; 3]> = rest.iter().map(|p| [p[0] + k as f32, p[1], p[1] * -0.3]).collect();
            let params =
                ClothParams { linear_damping: 2.0, sleep_speed: sleep.then_some(0.005), sleep_time: 0.5, ..ClothParams::default() };
            let h = world.add_cloth(&ClothDesc { params, ..ClothDesc::new(&positions, &indices) }).unwrap();
            world.cloth_mut(h).unwrap().set_pinned(&[0, 7], None).unwrap();
        }
        world
    };
    let (mut awake, mut sleeping) = (flags(false), flags(true));
    let mut settle = 0;
    while (0..50).any(|i| sleeping.live_handle(i).is_some_and(|h| !sleeping.cloth(h).unwrap().is_sleeping())) {
        sleeping.step(DT).map_err(|e| e.to_string())?;
        awake.step(DT).map_err(|e| e.to_string())?;
        settle += 1;
        if settle > 3000 {
            return Err("the flags did not fall asleep in 50 s".into());
        }
    }
    let (awake_s, asleep_s) = interleaved(steps, &mut awake, &mut sleeping);
    out!()?;
    out!("sleeping: 50 flags of 8 x 8, 10 substeps, 1 thread, after {settle} steps (all asleep)")?;
    out!("{:>12} {:>13} {:>7}", "awake ms", "asleep ms", "ratio")?;
    out!("{:>12.3} {:>13.4} {:>6.2} %", awake_s * 1e3, asleep_s * 1e3, 100.0 * asleep_s / awake_s)?;
    Ok(())
}

/// The character cloth's cost (issue 31, test 8): a 1 m cape of 35 × 35 vertices, 10 substeps,
/// one thread, its top row carried sideways: pinned and moved by `set_pin_targets` (the
/// baseline); skinned by the library (4 joints, 4 unequal weights per vertex, joint matrices per
/// step) with max distance (top row 0, else 10 cm) and a backstop on every vertex; the same with
/// the joints also turning about the vertical (up to 0.5 rad, 1.5 rad/s); the same with every max
/// distance changed every step; and the pose passed in by the engine instead of skinned
/// (`set_animated_pose` per step, normals computed).
fn character_cost(steps: usize) -> Result<(), String> {
    let n = 35;
    let (positions, indices) = common::vertical_sheet(n, 1.0);
    let v = positions.len();
    let top: Vec<u32> = (0..n as u32).collect();
    let make = || {
        let mut w = World::new(WorldDesc { thread_count: 1, substeps: 10, ..WorldDesc::default() }).unwrap();
        let c = w.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
        (w, c)
    };
    let translation = |k: usize| 0.3 * (k as f32 * DT * 3.0).sin();
    let joint = |k: usize, j: usize| glam_like_translation(translation(k) * (1.0 + 0.1 * j as f32));
    let turning_joint = |k: usize, j: usize| {
        let mut m = joint(k, j);
        let (s, c) = (0.5 * (k as f32 * DT * 3.0).sin() * (1.0 + 0.1 * j as f32)).sin_cos();
        (m[0], m[2], m[8], m[10]) = (c, -s, s, c);
        m
    };
    let (mut pinned, pc) = make();
    pinned.cloth_mut(pc).unwrap().set_pinned(&top, None).map_err(|e| e.to_string())?;
    let inverse_binds = vec![glam_like_translation(0.0); 4];
    let joints = vec![[0u32, 1, 2, 3]; v];
    let weights = vec![[0.4f32, 0.3, 0.2, 0.1]; v];
    let mut d = vec![0.1f32; v];
    d[..n].fill(0.0);
    let (backstop_distance, backstop_radius) = (vec![0.01f32; v], vec![0.5f32; v]);
    let skinned_world = || -> Result<(World, xpbd_cloth::ClothHandle), String> {
        let (mut w, h) = make();
        let c = w.cloth_mut(h).unwrap();
        let skin = xpbd_cloth::SkinDesc { inverse_bind_matrices: &inverse_binds, joint_indices: &joints, joint_weights: &weights };
        c.set_skin(Some(&skin)).map_err(|e| e.to_string())?;
        c.set_max_distances(Some(&d)).map_err(|e| e.to_string())?;
        c.set_backstops(Some((&backstop_distance, &backstop_radius))).map_err(|e| e.to_string())?;
        Ok((w, h))
    };
    let (mut skinned, sc) = skinned_world()?;
    let (mut changing, _) = skinned_world()?;
    let (mut turning, _) = skinned_world()?;
    let (mut given, gc) = skinned_world()?;
    given.cloth_mut(gc).unwrap().set_skin(None).map_err(|e| e.to_string())?;
    let mut t_given = Vec::new();
    let (mut t_pin, mut t_skin, mut t_change, mut t_turn) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut d2 = d.clone();
    for k in 0..steps + 10 {
        let targets: Vec<[f32; 3]> = top.iter().map(|&i| {
            let p = positions[i as usize];
            [p[0] + translation(k), p[1], p[2]]
        }).collect();
        let matrices: Vec<[f32; 16]> = (0..4).map(|j| joint(k, j)).collect();
        let t = Instant::now();
        pinned.cloth_mut(pc).unwrap().set_pin_targets(&top, &targets).unwrap();
        pinned.step(DT).unwrap();
        let a = t.elapsed().as_secs_f64();
        let t = Instant::now();
        skinned.cloth_mut(sc).unwrap().set_joint_matrices(&matrices).unwrap();
        skinned.step(DT).unwrap();
        let b = t.elapsed().as_secs_f64();
        let turned: Vec<[f32; 16]> = (0..4).map(|j| turning_joint(k, j)).collect();
        let t = Instant::now();
        turning.cloth_mut(sc).unwrap().set_joint_matrices(&turned).unwrap();
        turning.step(DT).unwrap();
        let r = t.elapsed().as_secs_f64();
        for x in d2[n..].iter_mut() {
            *x = 0.1 + 0.01 * (k % 3) as f32;
        }
        let t = Instant::now();
        let c = changing.cloth_mut(sc).unwrap();
        c.set_max_distances(Some(&d2)).unwrap();
        c.set_joint_matrices(&matrices).unwrap();
        changing.step(DT).unwrap();
        let c3 = t.elapsed().as_secs_f64();
        let pose: Vec<[f32; 3]> = positions.iter().map(|p| [p[0] + translation(k), p[1], p[2]]).collect();
        let t = Instant::now();
        given.cloth_mut(gc).unwrap().set_animated_pose(&pose, None).unwrap();
        given.step(DT).unwrap();
        let g = t.elapsed().as_secs_f64();
        if k >= 10 {
            t_given.push(g);
            t_pin.push(a);
            t_skin.push(b);
            t_change.push(c3);
            t_turn.push(r);
        }
    }
    let (a, b, c) = (median(t_pin), median(t_skin), median(t_change));
    out!()?;
    out!("character cloth, 35² cape (1 225 vertices), 10 substeps, 1 thread, colour order:")?;
    out!("{:<44} {:>8} {:>7}", "row", "ms/step", "ratio")?;
    out!("{:<44} {:>8.3} {:>6.2}×", "top row pinned (set_pin_targets per step)", a * 1e3, 1.0)?;
    out!("{:<44} {:>8.3} {:>6.2}×", "skinned 4 joints + max distance + backstop", b * 1e3, b / a)?;
    let r = median(t_turn);
    out!("{:<44} {:>8.3} {:>6.2}×", "  the same, joints turning", r * 1e3, r / a)?;
    out!("{:<44} {:>8.3} {:>6.2}×", "  and every max distance changed per step", c * 1e3, c / a)?;
    let g = median(t_given);
    out!("{:<44} {:>8.3} {:>6.2}×", "pose given per step + max distance + backstop", g * 1e3, g / a)?;
    Ok(())
}

/// Render proxies (issue 46): a 64² flag after 1 s in wind drawing a 256² mesh of the same
/// surface (65 536 vertices): binding it, and writing it (positions and normals, 32-byte stride,
/// alpha 0.5) on 1 and 2 threads; the target is 0.5 ms at 2 threads.
fn render_proxy_cost(steps: usize) -> Result<(), String> {
    out!()?;
    out!("render proxy: a 64² flag drawing a 256² mesh (65 536 vertices), medians in ms")?;
    out!("{:<8} {:>8} {:>13} {:>15} {:>14} {:>16}", "threads", "bind", "write x + n", "write x only", "read x", "cloth write 4096")?;
    for threads in [1, 2] {
        let mut w = World::new(WorldDesc { thread_count: threads, ..WorldDesc::default() }).map_err(|e| e.to_string())?;
        let (p, i) = common::grid(64, 64, 1.0, 1.0, |u, v| [u, 2.0 - v, 0.0]);
        let params = ClothParams { drag_coefficient: 1.0, lift_coefficient: 0.3, wind_velocity: [6.0, 0.0, 1.0], ..ClothParams::default() };
        let cloth = w.add_cloth(&ClothDesc { params, ..ClothDesc::new(&p, &i) }).map_err(|e| e.to_string())?;
        let hoist: Vec<u32> = (0..64).map(|r| r * 64).collect();
        w.cloth_mut(cloth).and_then(|c| c.set_pinned(&hoist, None)).map_err(|e| e.to_string())?;
        for _ in 0..60 {
            w.step(DT).map_err(|e| e.to_string())?;
        }
        let (rp, ri) = common::grid(256, 256, 1.0, 1.0, |u, v| [u, 2.0 - v, 0.0]);
        let desc = xpbd_cloth::RenderProxyDesc::new(&rp, &ri);
        let bind = median(durations(steps.min(10), 1, || {
            let h = w.add_render_proxy(cloth, &desc).unwrap();
            w.remove_render_proxy(h).unwrap();
        }));
        let proxy = w.add_render_proxy(cloth, &desc).map_err(|e| e.to_string())?;
        let mut buffer = vec![0u8; 32 * rp.len()];
        let both = xpbd_cloth::VertexLayout { stride: 32, position_offset: Some(0), normal_offset: Some(16) };
        let only = xpbd_cloth::VertexLayout { normal_offset: None, ..both };
        let write = median(durations(steps * 5, 10, || w.write_render_proxy_vertices(proxy, &mut buffer, both, 0.5).unwrap()));
        let positions = median(durations(steps * 5, 10, || w.write_render_proxy_vertices(proxy, &mut buffer, only, 0.5).unwrap()));
        let mut out = vec![[0.0f32; 3]; rp.len()];
        let read = median(durations(steps * 5, 10, || w.read_render_proxy_positions(proxy, &mut out).unwrap()));
        let c = w.cloth(cloth).map_err(|e| e.to_string())?;
        let mut own = vec![0u8; 32 * p.len()];
        let cloth_write = median(durations(steps * 5, 10, || c.write_vertices(&mut own, both, 0.5).unwrap()));
        out!("{:<8} {:>8.2} {:>13.3} {:>15.3} {:>14.3} {:>16.4}", threads, bind * 1e3, write * 1e3, positions * 1e3, read * 1e3, cloth_write * 1e3)?;
    }
    Ok(())
}

/// Level of detail (issue 46): 64 flags of 32² in wind, each world step of 1/60 s, at
/// `step_interval` 1 and 4 (the world spreads the interval-4 flags over its steps); median ms per
/// world step (the mean over whole cycles of 4) and the ratio (target ≤ 0.3×), on 1 and 2
/// threads.
fn level_of_detail_cost(steps: usize) -> Result<(), String> {
    out!()?;
    out!("level of detail: 64 flags of 32² in wind, ms per world step (mean of whole cycles of 4), step_interval 1 and 4")?;
    out!("{:<8} {:>12} {:>12} {:>8}", "threads", "interval 1", "interval 4", "ratio")?;
    for threads in [1, 2] {
        let mut per_interval = [0.0f64; 2];
        for (k, interval) in [1u32, 4].into_iter().enumerate() {
            let mut w = World::new(WorldDesc { thread_count: threads, ..WorldDesc::default() }).map_err(|e| e.to_string())?;
            let (p, i) = common::grid(32, 32, 1.0, 1.0, |u, v| [u, 2.0 - v, 0.0]);
            for f in 0..64 {
                let params = ClothParams {
                    drag_coefficient: 1.0,
                    lift_coefficient: 0.3,
                    wind_velocity: [6.0, 0.0, 1.0],
                    step_interval: interval,
                    ..ClothParams::default()
                };
                let placed: Vec<[f32; 3]> = p.iter().map(|q| [q[0], q[1], q[2] + 2.0 * f as f32]).collect();
                let c = w.add_cloth(&ClothDesc { params, ..ClothDesc::new(&placed, &i) }).map_err(|e| e.to_string())?;
                let hoist: Vec<u32> = (0..32).map(|r| r * 32).collect();
                w.cloth_mut(c).and_then(|c| c.set_pinned(&hoist, None)).map_err(|e| e.to_string())?;
            }
            // The mean over whole cycles of 4 world steps (every interval-4 flag steps once in
            // each), after the first steps that bring the flags to their slots.
            let d = durations(steps.div_ceil(4) * 4, 12, || w.step(DT).unwrap());
            per_interval[k] = d.iter().sum::<f64>() / d.len() as f64;
        }
        out!("{:<8} {:>12.2} {:>12.2} {:>7.2}×", threads, per_interval[0] * 1e3, per_interval[1] * 1e3, per_interval[1] / per_interval[0])?;
    }
    Ok(())
}

/// A column-major translation along x by `x` m.
fn glam_like_translation(x: f32) -> [f32; 16] {
    [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, x, 0.0, 0.0, 1.0]
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Seconds of each of `steps` calls of `f`, after `warmup` untimed calls.
fn durations(steps: usize, warmup: usize, mut f: impl FnMut()) -> Vec<f64> {
    for _ in 0..warmup {
        f();
    }
    (0..steps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect()
}

/// A torus about +Y (ring radius `r0`, tube radius `r1`), `nu` × `nv` quads: 2·nu·nv triangles.
fn torus_mesh(r0: f32, r1: f32, nu: usize, nv: usize) -> (Vec<[f32; 3]>, Vec<[u32; 3]>) {
    let tau = std::f32::consts::TAU;
    let positions = (0..nu * nv)
        .map(|k| {
            let (u, v) = ((k / nv) as f32 / nu as f32 * tau, (k % nv) as f32 / nv as f32 * tau);
            [(r0 + r1 * v.cos()) * u.cos(), r1 * v.sin(), (r0 + r1 * v.cos()) * u.sin()]
        })
        .collect();
    let at = |i: usize, j: usize| ((i % nu) * nv + j % nv) as u32;
    let triangles = (0..nu * nv).flat_map(|k| {
        let (i, j) = (k / nv, k % nv);
        [[at(i, j), at(i, j + 1), at(i + 1, j + 1)], [at(i, j), at(i + 1, j + 1), at(i + 1, j)]]
    });
    (positions, triangles.collect())
}

/// A UV sphere of radius `r`, `nu` segments around and `nv` rings: 2·nu·(nv − 1) triangles.
fn uv_sphere_mesh(r: f32, nu: usize, nv: usize) -> (Vec<[f32; 3]>, Vec<[u32; 3]>) {
    let pi = std::f32::consts::PI;
    let mut positions = vec![[0.0, r, 0.0], [0.0, -r, 0.0]];
    for j in 1..nv {
        let polar = j as f32 / nv as f32 * pi;
        for i in 0..nu {
            let a = i as f32 / nu as f32 * 2.0 * pi;
            positions.push([r * polar.sin() * a.cos(), r * polar.cos(), r * polar.sin() * a.sin()]);
        }
    }
    let ring = |j: usize, i: usize| (2 + (j - 1) * nu + i % nu) as u32;
    let mut triangles = Vec::new();
    for i in 0..nu {
        triangles.push([0, ring(1, i + 1), ring(1, i)]);
        triangles.push([1, ring(nv - 1, i), ring(nv - 1, i + 1)]);
        for j in 1..nv - 1 {
            triangles.push([ring(j, i), ring(j, i + 1), ring(j + 1, i + 1)]);
            triangles.push([ring(j, i), ring(j + 1, i + 1), ring(j + 1, i)]);
        }
    }
    (positions, triangles)
}

/// Mesh shapes: build time (one build, after one untimed) and memory of the bundled meshes at the
/// automatic cell size and at 5 mm, and of the two targets (a 10 000-triangle torus at
/// 1 cm, a 200 000-triangle sphere at 5 mm) in worlds of 1 and 2 threads, with how long
/// `create_mesh_shape_async` holds the caller; then the tablecloth stepped on table.obj as a mesh
/// collider (5 mm cells) against the bench's box table top, alternately.
fn mesh_shapes(scenes: &[Scene], steps: usize) -> Result<(), String> {
    use xpbd_cloth::{MeshShapeDesc, MeshShapeStatus};
    out!()?;
    out!("mesh shapes (signed distance fields), one build each after an untimed one; async call = time create_mesh_shape_async holds the caller:")?;
    out!("{:<11} {:>7} {:>8} {:>8} {:>9} {:>8} {:>10} {:>14}", "mesh", "tris", "cell mm", "threads", "build ms", "bricks", "memory KiB", "async call ms")?;
    let load = |name: &str| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data").join(name);
        common::load_obj(&path).map(|(p, i)| (p, i.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect::<Vec<[u32; 3]>>()))
    };
    let mut cases = Vec::new();
    for name in ["sphere.obj", "spot.obj", "table.obj"] {
        let mesh = load(name)?;
        for cell_size in [0.0, 0.005] {
            cases.push((name, mesh.clone(), cell_size, 2));
        }
    }
    let (torus, sphere) = (torus_mesh(0.3, 0.1, 100, 50), uv_sphere_mesh(0.5, 400, 251));
    for threads in [1, 2] {
        cases.push(("torus", torus.clone(), 0.01, threads));
        cases.push(("uv sphere", sphere.clone(), 0.005, threads));
    }
    for (name, (positions, triangles), cell_size, threads) in cases {
        let desc = MeshShapeDesc { positions: &positions, triangles: &triangles, cell_size, closed: true };
        let mut world = World::new(WorldDesc { thread_count: threads, ..WorldDesc::default() }).map_err(|e| e.to_string())?;
        world.create_mesh_shape(&desc).map_err(|e| e.to_string())?;
        let t = Instant::now();
        let handle = world.create_mesh_shape(&desc).map_err(|e| e.to_string())?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let pending = world.create_mesh_shape_async(&desc).map_err(|e| e.to_string())?;
        let call_ms = t.elapsed().as_secs_f64() * 1e3;
        while let MeshShapeStatus::Building { .. } = world.mesh_shape_status(pending).map_err(|e| e.to_string())? {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let shape = world.mesh_shape(handle).map_err(|e| e.to_string())?;
        out!(
            "{:<11} {:>7} {:>8.2} {:>8} {:>9.1} {:>8} {:>10.0} {:>14.3}",
            name,
            shape.triangle_count(),
            shape.cell_size() * 1e3,
            threads,
            ms,
            shape.stored_bricks(),
            shape.memory_bytes() as f64 / 1024.0,
            call_ms
        )?;
    }
    let Some(scene) = scenes.iter().find(|s| s.key == "tablecloth") else { return Ok(()) };
    let (positions, triangles) = load("table.obj")?;
    let table = scene.collider.expect("the tablecloth lies on a table");
    let grid_scene = grid(128);
    out!()?;
    out!("the tablecloth on the box table top and on table.obj (mesh collider, 5 mm cells), the 128² grid, 10 substeps, coloured, stepped in turn:")?;
    out!("{:<8} {:>7} {:>13} {:>14} {:>13} {:>16}", "threads", "box ms", "table.obj ms", "table ns/proj", "grid ns/proj", "table.obj/grid")?;
    for threads in [1, 2] {
        let mut boxes = world(scene, 10, threads, true);
        let mut mesh = world(&Scene { collider: None, ..scene.clone() }, 10, threads, true);
        let shape = mesh
            .create_mesh_shape(&MeshShapeDesc { positions: &positions, triangles: &triangles, cell_size: 0.005, closed: true })
            .map_err(|e| e.to_string())?;
        mesh.add_collider(&ColliderDesc { static_friction: table.static_friction, kinetic_friction: table.kinetic_friction, ..ColliderDesc::mesh(shape) })
            .map_err(|e| e.to_string())?;
        let mut grid_world = world(&grid_scene, 10, threads, true);
        let mut worlds = [&mut boxes, &mut mesh, &mut grid_world];
        let mut times: [Vec<f64>; 3] = Default::default();
        for k in 0..steps + 10 {
            for (w, t) in worlds.iter_mut().zip(&mut times) {
                let start = Instant::now();
                w.step(DT).unwrap();
                if k >= 10 {
                    t.push(start.elapsed().as_secs_f64());
                }
            }
        }
        let [box_s, mesh_s, grid_s] = times.map(median);
        let ns_per_projection = |w: &World, s: f64| {
            let (_, cloth) = w.cloths().next().expect("one cloth");
            s * 1e9 / (projections_per_iteration(cloth) * 10) as f64
        };
        let (table_ns, grid_ns) = (ns_per_projection(&mesh, mesh_s), ns_per_projection(&grid_world, grid_s));
        out!("{:<8} {:>7.2} {:>13.2} {:>14.1} {:>13.1} {:>15.2}×", threads, box_s * 1e3, mesh_s * 1e3, table_ns, grid_ns, table_ns / grid_ns)?;
    }
    Ok(())
}

/// Median seconds per call of `f` over `steps` calls after `warmup` calls.
fn time(steps: usize, warmup: usize, f: impl FnMut()) -> f64 {
    median(durations(steps, warmup, f))
}

/// Seconds of each of `steps` steps of `w` after 10 warm-up steps (the tables' step times).
fn step_durations(w: &mut World, steps: usize) -> Vec<f64> {
    durations(steps, 10, || w.step(DT).unwrap())
}

/// Constraint projections of one iteration of `cloth`'s solve as docs/performance.md counts them:
/// its constraints (hinges, edges, tethers), each once (see the module docs).
fn projections_per_iteration(cloth: &xpbd_cloth::Cloth) -> usize {
    cloth.bending_constraints().hinges.len() + cloth.stretch_constraints().edges.len() + cloth.tether_constraints().particle.len()
}

/// Many small cloths in one world, as an engine with many characters steps them: `count` grids
/// of `n²` vertices (each the grid scene's cloth, side by side 2 m apart, corners pinned), stepped by
/// a 1-thread and a 2-thread world in alternation, `ROUNDS` times, medians of all steps. The world
/// steps its cloths in parallel, one cloth per task; cloths this small are below
/// `PARALLEL_MIN_CONSTRAINTS`, so none is split over threads. 16 × 16² has the particle count of
/// the 64² grid, 64 × 16² that of 128². The last column compares every cloth's state hash
/// between the two worlds after the same steps; false if any differs.
fn many_cloths(scenes: &[Scene], steps: usize) -> Result<bool, String> {
    const ROUNDS: usize = 3;
    const N: usize = 16;
    let counts: Vec<usize> = scenes
        .iter()
        .filter_map(|s| match s.key.as_str() {
            "64" => Some(16),
            "128" => Some(64),
            _ => None,
        })
        .collect();
    if counts.is_empty() {
        return Ok(true);
    }
    out!()?;
    out!("many cloths in one world, coloured, 10 substeps, medians over {ROUNDS} alternating rounds of {steps} steps:")?;
    out!(
        "{:<11} {:>9} {:>12} {:>8} {:>12} {:>8} {:>9} {:>7}",
        "cloths", "proj/step", "1 thread ms", "ns/proj", "2 threads ms", "ns/proj", "speed-up", "hashes"
    )?;
    let single = grid(N);
    let world_of = |count: usize, threads: u32| {
        let mut w = World::new(WorldDesc { substeps: 10, iterations: 1, thread_count: threads, ..WorldDesc::default() }).unwrap();
        for k in 0..count {
            let positions: Vec<[f32; 3]> = single.positions.iter().map(|&[x, y, z]| [x + 2.0 * k as f32, y, z]).collect();
            let desc = ClothDesc { params: common::light_stiff_params(), ..ClothDesc::new(&positions, &single.indices) };
            let cloth = w.add_cloth(&desc).unwrap();
            w.cloth_mut(cloth).unwrap().set_pinned(&single.pins, None).unwrap();
        }
        w
    };
    let mut all_same = true;
    for count in counts {
        let (mut one, mut two) = (Vec::new(), Vec::new());
        let mut same = true;
        for _ in 0..ROUNDS {
            let (mut a, mut b) = (world_of(count, 1), world_of(count, 2));
            one.extend(step_durations(&mut a, steps));
            two.extend(step_durations(&mut b, steps));
            let hashes = |w: &World| (0..count).map(|k| w.cloth(w.live_handle(k as u32).unwrap()).unwrap().state_hash()).collect::<Vec<_>>();
            same &= hashes(&a) == hashes(&b);
        }
        let probe = world_of(1, 1);
        let cloth = probe.cloth(probe.live_handle(0).unwrap()).unwrap();
        let projections = (count * projections_per_iteration(cloth) * 10) as f64;
        let (one, two) = (median(one), median(two));
        out!(
            "{:<11} {:>9} {:>12.2} {:>8.2} {:>12.2} {:>8.2} {:>8.2}× {:>7}",
            format!("{count} × {N}²"),
            projections,
            one * 1e3,
            one * 1e9 / projections,
            two * 1e3,
            two * 1e9 / projections,
            one / two,
            if same { "same" } else { "DIFFER" }
        )?;
        all_same &= same;
    }
    Ok(all_same)
}

/// What two threads give one cloth against what the machine gives two independent jobs: the
/// coloured grids at 10 substeps, stepped (a) by a 1-thread world, (b) by a 2-thread world, and
/// (c) as two 1-thread worlds stepped at the same time on two threads (no shared data). If (c)
/// takes longer per step than (a), the two cores are not independent (shared caches, memory,
/// host SMT, clocks), and 2·t(a)/t(c) is the most any split of one cloth over two threads can
/// gain on this machine. The three run in alternation, `ROUNDS` times, medians of all steps.
/// "best rounds" divides (a)'s fastest round by (b)'s fastest (each round's median step): on a
/// shared machine whole rounds slow down, and each configuration's fastest round is the nearest
/// to what it gives when nothing else runs. Last, (a) and (b) once more with one step per 60 Hz
/// frame and the thread asleep in between (as a game steps: the pool idles between steps).
fn two_core_ceiling(scenes: &[Scene], steps: usize) -> Result<(), String> {
    const ROUNDS: usize = 3;
    let scenes: Vec<&Scene> = scenes.iter().filter(|s| s.key == "64" || s.key == "128").collect();
    if scenes.is_empty() {
        return Ok(());
    }
    out!()?;
    out!("two cores, coloured, 10 substeps, medians over {ROUNDS} alternating rounds of {steps} steps:")?;
    out!(
        "{:<11} {:>12} {:>12} {:>9} {:>11} {:>23} {:>17} {:>25}",
        "scene", "1 thread ms", "2 threads ms", "speed-up", "best rounds", "two 1-thread at once ms", "machine ceiling", "paced 1 / 2 threads ms"
    )?;
    for scene in scenes {
        let (mut one, mut two, mut pair, mut one_paced, mut two_paced) = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut best_one, mut best_two) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..ROUNDS {
            let (one_round, two_round) = (step_durations(&mut world(scene, 10, 1, true), steps), step_durations(&mut world(scene, 10, 2, true), steps));
            best_one = best_one.min(median(one_round.clone()));
            best_two = best_two.min(median(two_round.clone()));
            one.extend(one_round);
            two.extend(two_round);
            let (mut a, mut b) = (world(scene, 10, 1, true), world(scene, 10, 1, true));
            let (ta, tb) = std::thread::scope(|s| {
                let ta = s.spawn(move || step_durations(&mut a, steps));
                let tb = step_durations(&mut b, steps);
                (ta.join().unwrap(), tb)
            });
            pair.extend(ta.into_iter().chain(tb));
            one_paced.extend(paced_step_durations(&mut world(scene, 10, 1, true), steps));
            two_paced.extend(paced_step_durations(&mut world(scene, 10, 2, true), steps));
        }
        let (one, two, pair, one_paced, two_paced) = (median(one), median(two), median(pair), median(one_paced), median(two_paced));
        out!(
            "{:<11} {:>12.2} {:>12.2} {:>8.2}× {:>10.2}× {:>23.2} {:>16.2}× {:>8.2} / {:>5.2} ({:.2}×)",
            scene.name,
            one * 1e3,
            two * 1e3,
            one / two,
            best_one / best_two,
            pair * 1e3,
            2.0 * one / pair,
            one_paced * 1e3,
            two_paced * 1e3,
            one_paced / two_paced
        )?;
    }
    Ok(())
}

/// The ticks of 60 Hz frames from its creation on: [`Pace::wait`] sleeps until the next one, as a
/// game's thread between the steps of a world it steps once per frame (the pool idles meanwhile).
struct Pace(Instant);

impl Pace {
    /// One 60 Hz frame.
    const FRAME: std::time::Duration = std::time::Duration::from_micros(16_667);

    fn new() -> Pace {
        Pace(Instant::now())
    }

    /// Sleep until the next frame's tick (at once if it has passed).
    fn wait(&mut self) {
        self.0 += Self::FRAME;
        std::thread::sleep(self.0.saturating_duration_since(Instant::now()));
    }
}

/// Seconds of each of `steps` steps of `w` after 10 warm-up steps, each step started on a 60 Hz
/// frame's tick ([`Pace`]).
fn paced_step_durations(w: &mut World, steps: usize) -> Vec<f64> {
    let mut pace = Pace::new();
    let mut times = Vec::with_capacity(steps);
    for k in 0..steps + 10 {
        pace.wait();
        let t = Instant::now();
        w.step(DT).unwrap();
        if k >= 10 {
            times.push(t.elapsed().as_secs_f64());
        }
    }
    times
}

/// `steps` untimed steps of one configuration (for instruction counting).
fn count_one(scene: &Scene, substeps: u32, threads: u32, row: &str, steps: usize) -> Result<(), String> {
    let mut w = world(scene, substeps, threads, row == "colour");
    if row == "reference" {
        let mut reference = Reference::from_cloth(w.cloth(w.live_handle(0).unwrap()).unwrap(), GRAVITY);
        (0..steps).for_each(|_| reference.step(DT, substeps));
        out!("{} reference: checksum {}", scene.name, reference.checksum())?;
    } else {
        (0..steps).for_each(|_| w.step(DT).unwrap());
        out!("{} {row}: state hash {:x}", scene.name, w.cloth(w.live_handle(0).unwrap()).unwrap().state_hash())?;
    }
    Ok(())
}

fn main() -> ExitCode {
    let args = command().get_matches();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            // Not `eprintln!`, which panics when stderr is closed or full.
            let _ = writeln!(std::io::stderr(), "error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &ArgMatches) -> Result<(), String> {
    let steps = *args.get_one::<u32>("steps").expect("default") as usize;
    if steps == 0 && !args.contains_id("row") {
        // A median of no steps: usage error like clap's own (status 2).
        command().error(clap::error::ErrorKind::ValueValidation, "--steps 0 only with --row (the tables need a step to time)").exit();
    }
    if let Some(path) = args.get_one::<std::path::PathBuf>("svg") {
        // Before the minutes of timing, not after them: a file that cannot be written is a bad value.
        // Opened without truncating, so that an interrupted run leaves an existing chart as it
        // was, and a file this check created is removed again (the chart is written at the end).
        let existed = path.exists();
        if let Err(e) = std::fs::OpenOptions::new().write(true).create(true).truncate(false).open(path) {
            command().error(clap::error::ErrorKind::ValueValidation, format!("--svg {}: {e}", path.display())).exit();
        }
        if !existed {
            let _ = std::fs::remove_file(path);
        }
    }
    let only = args.get_one::<String>("only").map(String::as_str);
    let scenes = scenes(only)?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
    if let Some(table) = args.get_one::<String>("table") {
        if table == "two-core" && only.is_some_and(|s| s != "64" && s != "128") {
            command().error(clap::error::ErrorKind::ArgumentConflict, "--table two-core covers the 64² and 128² grids: --only 64 or 128").exit();
        }
        if table == "worn" && only.is_some() {
            command().error(clap::error::ErrorKind::ArgumentConflict, "--table worn steps the demo's garments, not the scenes of --only").exit();
        }
        return match table.as_str() {
            "reads" => render_thread_reads(&scenes, steps),
            "edits" => edit_costs(steps),
            "render-proxy" => render_proxy_cost(steps),
            "level-of-detail" => level_of_detail_cost(steps),
            "strain-limit" => strain_limit_cost(&scenes, steps),
            "tearing" => tearing::tearing_and_pressure_cost(steps, cores),
            "two-core" => two_core_ceiling(&scenes, steps),
            "worn" => worn::worn_pair_cost(steps, cores),
            _ => skeleton_cost(steps),
        };
    }
    if let Some(row) = args.get_one::<String>("row") {
        let substeps = *args.get_one::<u32>("substeps").expect("default");
        let threads = *args.get_one::<u32>("threads").expect("default");
        return count_one(&scenes[0], substeps, threads, row, steps);
    }
    // (threads, colouring): the anchor-ordered sweep, then the coloured one (the default)
    // sequentially and on all cores.
    let mut runs = vec![(1, false), (1, true)];
    if cores > 1 {
        runs.push((cores, true));
    }

    out!("{steps} timed steps after 10 warm-up steps of 1/60 s; medians. {cores} cores.")?;
    out!(
        "{:<11} {:>4} {:>7} {:>6} {:>9} {:>8} {:>10} {:>9} {:>10} {:>8} {:>17}",
        "scene", "sub", "threads", "order", "proj/step", "ms/step", "ns/proj", "ref ms", "ref ns/pr", "speed-up", "state hash"
    )?;
    let mut bars = Vec::new();
    for scene in &scenes {
        for substeps in [5, 10] {
            let probe = world(scene, substeps, 1, false);
            let cloth = probe.cloth(probe.live_handle(0).unwrap()).unwrap();
            let projections = (projections_per_iteration(cloth) * substeps as usize) as f64;
            let mut reference = Reference::from_cloth(cloth, GRAVITY);
            let ref_s = time(steps, 10, || reference.step(DT, substeps));
            std::hint::black_box(reference.checksum());
            let mut bar = |label: String, seconds: f64| {
                if substeps == 10 {
                    bars.push(plot::Bar { scene: scene.name.clone(), label, ns: seconds * 1e9 / projections });
                }
            };
            bar("scalar reference".into(), ref_s);
            for &(threads, colouring) in &runs {
                let mut w = world(scene, substeps, threads, colouring);
                let s = time(steps, 10, || w.step(DT).unwrap());
                let order = if colouring { "coloured" } else { "anchor order" };
                bar(format!("{order}, {threads} thread{}", if threads > 1 { "s" } else { "" }), s);
                out!(
                    "{:<11} {:>4} {:>7} {:>6} {:>9} {:>8.2} {:>10.2} {:>9.2} {:>10.2} {:>7.2}× {:>17x}",
                    scene.name,
                    substeps,
                    threads,
                    if colouring { "colour" } else { "anchor" },
                    projections,
                    s * 1e3,
                    s * 1e9 / projections,
                    ref_s * 1e3,
                    ref_s * 1e9 / projections,
                    ref_s / s,
                    w.cloth(w.live_handle(0).unwrap()).unwrap().state_hash()
                )?;
            }
        }
    }

    if let Some(path) = args.get_one::<std::path::PathBuf>("svg") {
        let title = format!("ns per constraint projection, 10 substeps, 1 iteration ({cores} cores; lower is faster)");
        std::fs::write(path, plot::bar_chart_svg(&title, &bars)).map_err(|e| format!("{}: {e}", path.display()))?;
        out!("wrote {}", path.display())?;
    }
    if cores > 1 {
        two_core_ceiling(&scenes, steps)?;
        if !many_cloths(&scenes, steps)? {
            return Err("a cloth's state hash differs between the 1- and 2-thread worlds (a determinism bug)".into());
        }
        worn::worn_pair_cost(steps, cores)?;
    }

    strain_limit_cost(&scenes, steps)?;
    frame_loop_cost(&scenes, steps)?;
    async_step_cost(&scenes, steps)?;
    render_thread_reads(&scenes, steps)?;
    sleeping_cost(steps)?;
    if scenes.iter().any(|s| s.key == "tablecloth") {
        mesh_shapes(&scenes, steps)?;
    }
    character_cost(steps)?;
    render_proxy_cost(steps)?;
    level_of_detail_cost(steps)?;
    if scenes.iter().any(|s| s.key == "64") {
        tearing::tearing_and_pressure_cost(steps, cores)?;
    }
    let with_self_collision: Vec<&Scene> = scenes.iter().filter(|s| s.key == "64" || s.key == "tablecloth").collect();
    if with_self_collision.is_empty() {
        return Ok(());
    }
    out!()?;
    out!("self-collision, radius half the mean edge length, 10 substeps, 1 thread, anchor order:")?;
    out!(
        "{:<11} {:>8} {:>10} {:>9} {:>7} {:>11} {:>9}",
        "scene", "r mm", "ms off", "ms on", "ratio", "pairs/step", "contacts"
    )?;
    for scene in with_self_collision {
        let mut off = world_with(scene, 10, 1, false, None);
        let edges = off.cloth(off.live_handle(0).unwrap()).unwrap().stretch_constraints();
        let radius = 0.5 * edges.rest_length.iter().sum::<f32>() / edges.rest_length.len() as f32;
        let mut on = world_with(scene, 10, 1, false, Some(radius));
        let (off_s, on_s) = interleaved(steps, &mut off, &mut on);
        let stats = *on.cloth(on.live_handle(0).unwrap()).unwrap().stats();
        out!(
            "{:<11} {:>8.2} {:>10.2} {:>9.2} {:>6.2}× {:>11} {:>9}",
            scene.name,
            radius * 1e3,
            off_s * 1e3,
            on_s * 1e3,
            on_s / off_s,
            stats.self_pairs_tested,
            stats.self_contact_count
        )?;
    }
    Ok(())
}
