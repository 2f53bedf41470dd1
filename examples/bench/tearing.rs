//! The cost of tearing and pressure (issue 45's targets), each against the same scene without it,
//! stepped alternately in one run: a tearable 64² cloth in which nothing tears (target ≤ 1.05×), a
//! step in which about 100 edges tear (≤ 2×), and pressure on a 2 562-vertex ball (≤ 1.1×).

use super::{DT, common, interleaved, median};
use std::time::Instant;
use xpbd_cloth::{ClothDesc, ClothParams, ColliderDesc, World, WorldDesc};

/// The bench's 64² grid (1 m, light and stiff, pinned at two corners, tethers) in a world of
/// `threads` threads, 10 substeps, hung for 60 steps; tearable (`max_extra_vertices` 1024) with
/// `tear_strain` when `tear` is given.
fn hanging_grid(threads: u32, tear: Option<(f32, u32)>) -> World {
    let mut world = World::new(WorldDesc { substeps: 10, iterations: 1, thread_count: threads, ..WorldDesc::default() }).unwrap();
    let (positions, indices) = common::horizontal_sheet(64, 1.0, 0.0);
    let mut desc = ClothDesc::new(&positions, &indices);
    desc.params = common::light_stiff_params();
    if let Some((strain, per_step)) = tear {
        desc.max_extra_vertices = 1024;
        desc.params = ClothParams { tear_strain: Some(strain), tear_max_per_step: per_step, ..desc.params };
    }
    let cloth = world.add_cloth(&desc).unwrap();
    world.cloth_mut(cloth).unwrap().set_pinned(&[0, 63], None).unwrap();
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    world
}

/// A 2 562-vertex ball of 0.2 m, 10 substeps, `threads` threads, under `pressure`: resting on the
/// ground (`ground`; without pressure it sags flat, another scene) or falling freely (it keeps its
/// shape either way: the row that measures what the volume constraint itself costs).
fn ball(threads: u32, pressure: Option<f32>, ground: bool) -> World {
    let mut world = World::new(WorldDesc { substeps: 10, iterations: 1, thread_count: threads, ..WorldDesc::default() }).unwrap();
    let (positions, indices) = common::icosphere(0.2, [0.0, 0.21, 0.0], 4);
    let mut desc = ClothDesc::new(&positions, &indices);
    desc.params.pressure = pressure;
    world.add_cloth(&desc).unwrap();
    if ground {
        world.add_collider(&ColliderDesc::plane()).unwrap();
    }
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    world
}

/// The table (module docs), at 1 thread and at `cores`.
pub fn tearing_and_pressure_cost(steps: usize, cores: u32) -> Result<(), String> {
    out!()?;
    out!("tearing and pressure, 10 substeps, against the same scene without, stepped alternately:")?;
    out!("{:<44} {:>7} {:>9} {:>9} {:>7} {:>7}", "scene", "threads", "ms without", "ms with", "ratio", "target")?;
    let mut threads_list = vec![1];
    if cores > 1 {
        threads_list.push(cores);
    }
    for &threads in &threads_list {
        // Tearable, tear strain 0.5: nothing comes near it.
        let (mut plain, mut tearable) = (hanging_grid(threads, None), hanging_grid(threads, Some((0.5, 64))));
        let (plain_s, tearable_s) = interleaved(steps, &mut plain, &mut tearable);
        let torn = tearable.cloth(tearable.live_handle(0).unwrap()).unwrap().render_counts().topology_version;
        if torn != 0 {
            return Err(format!("the tearable grid tore ({torn} cuts) where nothing should"));
        }
        row("64² tearable, nothing tears", threads, plain_s, tearable_s, "1.05×")?;

        // A step in which about 100 edges tear: from one snapshot of the hung grid, again and
        // again, the tearable grid (tear strain 0.1 %, at most 60 tears, each cutting one or two
        // edges) against the same grid not tearable, both restored before each timed step.
        let mut base = hanging_grid(threads, Some((0.5, 64)));
        let handle = base.live_handle(0).unwrap();
        let mut snapshot = vec![0u8; base.cloth(handle).unwrap().state_size()];
        base.cloth(handle).unwrap().save_state(&mut snapshot).map_err(|e| e.to_string())?;
        let tearing_params = ClothParams { tear_strain: Some(0.001), tear_max_per_step: 60, ..*base.cloth(handle).unwrap().params() };
        base.cloth_mut(handle).unwrap().set_params(tearing_params).map_err(|e| e.to_string())?;
        let mut normal = hanging_grid(threads, Some((0.5, 64)));
        let normal_handle = normal.live_handle(0).unwrap();
        let (mut with, mut without, mut cut) = (Vec::new(), Vec::new(), Vec::new());
        for k in 0..steps + 5 {
            base.cloth_mut(handle).unwrap().restore_state(&snapshot).map_err(|e| e.to_string())?;
            normal.cloth_mut(normal_handle).unwrap().restore_state(&snapshot).map_err(|e| e.to_string())?;
            let t = Instant::now();
            base.step(DT).unwrap();
            let t_with = t.elapsed().as_secs_f64();
            let t = Instant::now();
            normal.step(DT).unwrap();
            let t_without = t.elapsed().as_secs_f64();
            if k >= 5 {
                with.push(t_with);
                without.push(t_without);
                cut.push(base.cloth(handle).unwrap().stats().torn_edges_last_step as f64);
            }
        }
        let label = format!("64², a step in which {:.0} edges tear", median(cut));
        row(&label, threads, median(without), median(with), "2×")?;

        for (ground, label) in [(false, "ball of 2 562 vertices falling, pressure 1"), (true, "ball of 2 562 vertices on the ground, p. 1")] {
            let (mut off, mut on) = (ball(threads, None, ground), ball(threads, Some(1.0), ground));
            let (off_s, on_s) = interleaved(steps, &mut off, &mut on);
            row(label, threads, off_s, on_s, "1.1×")?;
        }
    }
    Ok(())
}

/// One row: `without` and `with` in seconds, their ratio and the target.
fn row(scene: &str, threads: u32, without: f64, with: f64, target: &str) -> Result<(), String> {
    out!("{:<44} {:>7} {:>9.3} {:>9.3} {:>6.3}× {:>7}", scene, threads, without * 1e3, with * 1e3, with / without, target)
}
