//! Sleeping (docs/c-cpp.md, "Sleeping"): fifty settling flags fall asleep, give the same state
//! hashes as with sleeping off until the first one sleeps, stay asleep for an unchanged pin target
//! and a far collider, and wake one by one for a moved pin, a near collider or a wake call.

mod common;

use common::vertical_sheet;
use xpbd_cloth::{ClothDesc, ClothHandle, ClothParams, ColliderDesc, Pose, World, WorldDesc};

const DT: f32 = 1.0 / 60.0;
const FLAGS: usize = 50;

/// Fifty 8 × 8 flags of 0.5 m, 1 m apart along x, each held by its two top corners, damped so
/// that they settle; sleeping at 5 mm/s for 0.5 s when `sleep`.
fn flags(sleep: bool) -> (World, Vec<ClothHandle>) {
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let (rest, indices) = vertical_sheet(8, 0.5);
    let handles = (0..FLAGS)
        .map(|k| {
            // A slight tilt out of the plane, so that each flag swings before it settles.
            let positions: Vec<[f32; 3]> = rest.iter().map(|p| [p[0] + k as f32, p[1], p[1] * -0.3]).collect();
            let mut desc = ClothDesc::new(&positions, &indices);
            desc.params = ClothParams {
                linear_damping: 2.0,
                sleep_speed: sleep.then_some(0.005),
                sleep_time: 0.5,
                ..ClothParams::default()
            };
            let h = world.add_cloth(&desc).unwrap();
            world.cloth_mut(h).unwrap().set_pinned(&[0, 7], None).unwrap();
            h
        })
        .collect();
    (world, handles)
}

fn asleep(world: &World, handles: &[ClothHandle]) -> usize {
    handles.iter().filter(|&&h| world.cloth(h).unwrap().is_sleeping()).count()
}

fn hashes(world: &World, handles: &[ClothHandle]) -> Vec<u64> {
    handles.iter().map(|&h| world.cloth(h).unwrap().state_hash()).collect()
}

#[test]
fn settled_flags_sleep_after_the_same_steps_as_without_sleeping_and_wake_one_by_one() {
    let (mut sleeping, a) = flags(true);
    let (mut awake, b) = flags(false);
    let mut first_asleep = None;
    for step in 0..1500 {
        sleeping.step(DT).unwrap();
        awake.step(DT).unwrap();
        if first_asleep.is_none() {
            assert_eq!(hashes(&sleeping, &a), hashes(&awake, &b), "step {step}: sleeping on changed a state");
            if asleep(&sleeping, &a) > 0 {
                first_asleep = Some(step);
            }
        }
        if asleep(&sleeping, &a) == FLAGS {
            println!("first flag asleep after {} steps, all {FLAGS} after {} steps", first_asleep.unwrap() + 1, step + 1);
            break;
        }
    }
    assert_eq!(asleep(&sleeping, &a), FLAGS, "every flag settled and sleeps");
    assert_eq!(asleep(&awake, &b), 0, "off by default");
    let settled = hashes(&sleeping, &a);
    for _ in 0..30 {
        sleeping.step(DT).unwrap();
    }
    assert_eq!(hashes(&sleeping, &a), settled, "a sleeping flag does not move");
    let c = sleeping.cloth(a[3]).unwrap();
    let n = c.vertex_count() as usize;
    let (mut now, mut drawn) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    c.read_positions(&mut now).unwrap();
    c.read_positions_interpolated(0.5, &mut drawn).unwrap();
    assert_eq!(now, drawn, "drawn where it sleeps");

    // The same pin targets every frame: still asleep. A moved one: that flag only wakes.
    let here = |w: &World, h: ClothHandle, v: usize| {
        let mut p = vec![[0.0; 3]; 64];
        w.cloth(h).unwrap().read_positions(&mut p).unwrap();
        p[v]
    };
    for &h in &a {
        let targets = [here(&sleeping, h, 0), here(&sleeping, h, 7)];
        sleeping.cloth_mut(h).unwrap().set_pin_targets(&[0, 7], &targets).unwrap();
    }
    sleeping.step(DT).unwrap();
    assert_eq!(asleep(&sleeping, &a), FLAGS, "unchanged pin targets wake nothing");
    let mut moved = here(&sleeping, a[10], 0);
    moved[2] += 0.1;
    sleeping.cloth_mut(a[10]).unwrap().set_pin_targets(&[0], &[moved]).unwrap();
    sleeping.step(DT).unwrap();
    let now = hashes(&sleeping, &a);
    assert!(!sleeping.cloth(a[10]).unwrap().is_sleeping() && now[10] != settled[10], "the moved flag wakes and moves");
    assert_eq!(asleep(&sleeping, &a), FLAGS - 1);
    assert!((0..FLAGS).filter(|&k| k != 10).all(|k| now[k] == settled[k]), "the others sleep on, unmoved");

    // A collider moving far from every flag wakes none; one moving into flag 20 wakes it only.
    let ball = sleeping.add_collider(&ColliderDesc { pose: Pose::at([0.0, 50.0, 0.0]), ..ColliderDesc::sphere(0.2) }).unwrap();
    sleeping.set_collider_pose(ball, &Pose::at([1.0, 50.0, 0.0])).unwrap();
    sleeping.step(DT).unwrap();
    assert_eq!(asleep(&sleeping, &a), FLAGS - 1, "a far collider wakes nothing");
    sleeping.set_collider_pose(ball, &Pose::at([20.25, 5.0, 0.1])).unwrap();
    sleeping.step(DT).unwrap();
    assert_eq!(asleep(&sleeping, &a), FLAGS - 1, "a collider passing far above wakes nothing");
    sleeping.set_collider_pose(ball, &Pose::at([20.25, -0.25, 0.1])).unwrap();
    sleeping.step(DT).unwrap();
    assert!(!sleeping.cloth(a[20]).unwrap().is_sleeping(), "the collider reaching flag 20 wakes it");
    assert_eq!(asleep(&sleeping, &a), FLAGS - 2);

    // Wake on request; a still flag falls asleep again after sleep_time.
    sleeping.cloth_mut(a[30]).unwrap().wake();
    assert!(!sleeping.cloth(a[30]).unwrap().is_sleeping());
    for _ in 0..40 {
        sleeping.step(DT).unwrap();
    }
    assert!(sleeping.cloth(a[30]).unwrap().is_sleeping(), "asleep again after 0.67 s still");
}
