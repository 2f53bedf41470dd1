//! The worn pair (issue 41, target 4): the demo character's skirt and cape, skinned to its running
//! figure with their max distances, backstop and anim drive, against its 11 body capsules and the
//! floor, stepped in one world of 1 thread and in one of 2, alternately in one run. Both cloths
//! are below the split threshold, so a second thread helps only by stepping the two at once.

use super::{DT, median};
use std::time::Instant;
use xpbd_cloth::{ClothDesc, ClothHandle, ClothParams, ColliderDesc, ColliderHandle, SkinDesc, World, WorldDesc};

// The demo's character: its figure and garments, the same files (`examples/demo/character`).
#[allow(dead_code)]
#[path = "../demo/character/figure.rs"]
mod figure;
#[allow(dead_code)]
#[path = "../demo/character/garments.rs"]
mod garments;

use figure::{CAPSULES, Figure};

/// A world of `threads` threads wearing the skirt and/or the cape on `figure` (the demo's parameters:
/// a quarter of the root's translation felt, none of its turns, 5 mm contact thickness; capsule
/// friction 0.3, floor 0.6), the cloths placed on the skinned pose.
fn dressed(threads: u32, figure: &Figure, skirt: bool, cape: bool) -> Result<(World, Vec<ClothHandle>, Vec<ColliderHandle>), String> {
    let mut world = World::new(WorldDesc { thread_count: threads, ..WorldDesc::default() }).map_err(|e| e.to_string())?;
    let poses = figure.joint_poses();
    let matrices = poses.map(|p| p.matrix());
    let inverse_binds = garments::inverse_bind_matrices();
    let params = ClothParams { linear_inertia: 0.25, angular_inertia: 0.0, collision_thickness: 0.005, ..ClothParams::default() };
    let mut cloths = Vec::new();
    let worn = [skirt.then(garments::skirt), cape.then(garments::cape)];
    for g in worn.into_iter().flatten() {
        let h = world.add_cloth(&ClothDesc { params: params.clone(), ..ClothDesc::new(&g.positions, &g.indices) }).map_err(|e| e.to_string())?;
        let c = world.cloth_mut(h).map_err(|e| e.to_string())?;
        let skin = SkinDesc { inverse_bind_matrices: &inverse_binds, joint_indices: &g.joints, joint_weights: &g.weights };
        c.set_skin(Some(&skin)).map_err(|e| e.to_string())?;
        c.set_max_distances(Some(&g.max_distances)).map_err(|e| e.to_string())?;
        if let Some((b, r)) = &g.backstops {
            c.set_backstops(Some((b, r))).map_err(|e| e.to_string())?;
        }
        c.set_anim_drive(g.anim_drive.as_deref()).map_err(|e| e.to_string())?;
        let root = figure.root();
        c.set_reference_frame(root.translation.to_array(), root.rotation.to_array()).map_err(|e| e.to_string())?;
        c.set_joint_matrices(&matrices).map_err(|e| e.to_string())?;
        let mut pose = vec![[0.0f32; 3]; g.positions.len()];
        c.read_animated_positions(&mut pose).map_err(|e| e.to_string())?;
        c.set_positions(None, &pose).map_err(|e| e.to_string())?;
        cloths.push(h);
    }
    let mut capsules = Vec::new();
    for b in &CAPSULES {
        let (pose, half_length) = b.collider_pose(&poses[b.joint as usize]);
        let desc = ColliderDesc { pose, static_friction: 0.3, kinetic_friction: 0.3, ..ColliderDesc::capsule(b.radius, half_length) };
        capsules.push(world.add_collider(&desc).map_err(|e| e.to_string())?);
    }
    world.add_collider(&ColliderDesc { static_friction: 0.6, kinetic_friction: 0.6, ..ColliderDesc::plane() }).map_err(|e| e.to_string())?;
    Ok((world, cloths, capsules))
}

/// What an engine does before each step: the root as each cloth's reference frame, the joints'
/// matrices, each capsule at its joint's pose.
fn pose(world: &mut World, cloths: &[ClothHandle], capsules: &[ColliderHandle], figure: &Figure) -> Result<(), String> {
    let (root, poses) = (figure.root(), figure.joint_poses());
    let matrices = poses.map(|p| p.matrix());
    for &h in cloths {
        let c = world.cloth_mut(h).map_err(|e| e.to_string())?;
        c.set_reference_frame(root.translation.to_array(), root.rotation.to_array()).map_err(|e| e.to_string())?;
        c.set_joint_matrices(&matrices).map_err(|e| e.to_string())?;
    }
    for (&h, b) in capsules.iter().zip(&CAPSULES) {
        world.set_collider_pose(h, &b.collider_pose(&poses[b.joint as usize]).0).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// One 60 Hz frame [s]: the pace of the paced rows.
const FRAME: std::time::Duration = std::time::Duration::from_micros(16_667);

/// Seconds of each of `steps` steps of a world of `threads` threads wearing the skirt and/or
/// the cape, the figure running from the start (30 untimed steps first, the garments settling on
/// the running body); with `paced`, each step starts on a 60 Hz frame's tick, the thread sleeping
/// in between as a game's does. Also the cloths' state hashes after the run.
fn run(threads: u32, skirt: bool, cape: bool, steps: usize, paced: bool) -> Result<(Vec<f64>, Vec<u64>), String> {
    let mut figure = Figure::new();
    figure.run_blend = 1.0;
    let (mut world, cloths, capsules) = dressed(threads, &figure, skirt, cape)?;
    let mut times = Vec::with_capacity(steps);
    let mut tick = Instant::now();
    for k in 0..steps + 30 {
        figure.advance(DT);
        pose(&mut world, &cloths, &capsules, &figure)?;
        if paced {
            tick += FRAME;
            std::thread::sleep(tick.saturating_duration_since(Instant::now()));
        }
        let t = Instant::now();
        world.step(DT).map_err(|e| e.to_string())?;
        if k >= 30 {
            times.push(t.elapsed().as_secs_f64());
        }
    }
    let hashes = cloths.iter().map(|&h| world.cloth(h).map(|c| c.state_hash())).collect::<Result<_, _>>().map_err(|e| e.to_string())?;
    Ok((times, hashes))
}

/// The worn pair on 1 and on `cores` threads (skipped on one core), the figure running, over
/// [`ROUNDS`] alternating rounds: median ms per step of each world stepped back to back and paced
/// at 60 Hz, the speed-ups, each garment alone on one thread, the slower of the two stepped at
/// once in worlds of their own on two threads (the machine's ceiling for the pair: (skirt + cape
/// alone) / that), and whether the cloths' state hashes agree between the 1- and `cores`-thread
/// worlds (an error if not: a determinism bug).
pub fn worn_pair_cost(steps: usize, cores: u32) -> Result<(), String> {
    const ROUNDS: usize = 3;
    if cores < 2 {
        return Ok(());
    }
    // one, two, one paced, two paced, skirt alone, cape alone, the slower of the two at once
    let mut t = [(); 7].map(|_| Vec::new());
    let mut same = true;
    for _ in 0..ROUNDS {
        let (one, one_hashes) = run(1, true, true, steps, false)?;
        let (two, two_hashes) = run(cores, true, true, steps, false)?;
        same &= one_hashes == two_hashes;
        t[0].extend(one);
        t[1].extend(two);
        t[2].extend(run(1, true, true, steps, true)?.0);
        t[3].extend(run(cores, true, true, steps, true)?.0);
        t[4].extend(run(1, true, false, steps, false)?.0);
        t[5].extend(run(1, false, true, steps, false)?.0);
        let (skirt, cape) = std::thread::scope(|s| {
            let skirt = s.spawn(|| run(1, true, false, steps, false));
            let cape = run(1, false, true, steps, false);
            (skirt.join().expect("the skirt's thread"), cape)
        });
        t[6].push(median(skirt?.0).max(median(cape?.0)));
    }
    let [one, two, one_paced, two_paced, skirt, cape, at_once] = t.map(|t| median(t) * 1e3);
    out!()?;
    out!("worn pair: the demo's skirt and cape skinned to the running figure, 11 capsules and the floor, 10 substeps, medians over {ROUNDS} rounds:")?;
    out!("{:<24} {:>11} {:>13} {:>9}", "", "1 thread ms", format!("{cores} threads ms"), "speed-up")?;
    out!("{:<24} {:>11.3} {:>13.3} {:>8.2}×", "steps back to back", one, two, one / two)?;
    out!("{:<24} {:>11.3} {:>13.3} {:>8.2}×", "one step per 60 Hz frame", one_paced, two_paced, one_paced / two_paced)?;
    out!(
        "skirt alone {skirt:.3} ms, cape alone {cape:.3} ms; apart at once on two threads {at_once:.3} ms: machine ceiling {:.2}×; state hashes equal on 1 and {cores} threads: {}",
        (skirt + cape) / at_once,
        if same { "yes" } else { "NO" }
    )?;
    if !same {
        return Err("the worn pair's state hashes differ between 1 and 2 threads (a determinism bug)".into());
    }
    Ok(())
}
