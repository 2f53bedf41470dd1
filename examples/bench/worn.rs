//! The worn pair (issue 41, target 4): the demo character's skirt and cape, skinned to its running
//! figure with their max distances, backstop and anim drive, against its 11 body capsules and the
//! floor (the demo's own dressing, `examples/demo/character/dress.rs`), stepped in one world of 1
//! thread and in one of all cores, alternately in one run. Both cloths are below the split
//! threshold, so a second thread helps only by stepping the two at once.

use super::{DT, Pace, median};
use std::time::Instant;
use xpbd_cloth::{ClothHandle, ColliderDesc, ColliderHandle, World, WorldDesc};

// The demo's character: its figure, garments and dressing, the same files.
#[allow(dead_code)]
#[path = "../demo/character/figure.rs"]
mod figure;
#[allow(dead_code)]
#[path = "../demo/character/garments.rs"]
mod garments;
#[path = "../demo/character/dress.rs"]
mod dress;

use figure::Figure;

/// A world of `threads` threads wearing the skirt and/or the cape on `figure` as the demo dresses
/// it, with the body's capsules and the floor.
fn dressed(threads: u32, figure: &Figure, skirt: bool, cape: bool) -> Result<(World, Vec<ClothHandle>, Vec<ColliderHandle>), String> {
    let mut world = World::new(WorldDesc { thread_count: threads, ..WorldDesc::default() }).map_err(|e| e.to_string())?;
    let poses = figure.joint_poses();
    let inverse_binds = garments::inverse_bind_matrices();
    let worn = [skirt.then(garments::skirt), cape.then(garments::cape)];
    let cloths = worn.iter().flatten().map(|g| dress::wear(&mut world, g, &inverse_binds, figure, &poses)).collect::<Result<_, _>>().map_err(|e| e.to_string())?;
    let capsules = dress::add_body(&mut world, &poses).map_err(|e| e.to_string())?;
    let floor = ColliderDesc { static_friction: dress::FLOOR_FRICTION, kinetic_friction: dress::FLOOR_FRICTION, ..ColliderDesc::plane() };
    world.add_collider(&floor).map_err(|e| e.to_string())?;
    Ok((world, cloths, capsules))
}

/// Seconds of each of `steps` steps of a world of `threads` threads wearing the skirt and/or
/// the cape, the figure running from the start (30 untimed steps first, the garments settling on
/// the running body); with `paced`, each step starts on a 60 Hz frame's tick, the thread sleeping
/// in between as a game's does. Also the cloths' state hashes after the run.
fn run(threads: u32, skirt: bool, cape: bool, steps: usize, paced: bool) -> Result<(Vec<f64>, Vec<u64>), String> {
    let mut figure = Figure::new();
    figure.run_blend = 1.0;
    let (mut world, cloths, capsules) = dressed(threads, &figure, skirt, cape)?;
    let mut times = Vec::with_capacity(steps);
    let mut pace = Pace::new();
    for k in 0..steps + 30 {
        figure.advance(DT);
        dress::pose_the_world(&mut world, &cloths, &capsules, &figure.root(), &figure.joint_poses()).map_err(|e| e.to_string())?;
        if paced {
            pace.wait();
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
