//! Character cloth (issue 31, docs/design.md "Character cloth"): colliders and cloths teleported
//! without sweeping, and cloth driven from an animated pose (max distance, backstop, anim drive,
//! simulation blend, skinning). Every number is measured through the public Rust API.

mod common;

use common::{vertical_sheet, world_with_cloth};
use xpbd_cloth::{ClothHandle, ClothParams, ColliderDesc, Pose, World, WorldDesc};

const DT: f32 = 1.0 / 60.0;

fn one_thread() -> WorldDesc {
    WorldDesc { thread_count: 1, ..WorldDesc::default() }
}

/// The largest edge stretch max(0, |x_i − x_j|/L − 1), from the positions and rest lengths.
fn max_strain(world: &World, cloth: ClothHandle) -> f32 {
    let c = world.cloth(cloth).unwrap();
    let (s, x) = (c.stretch_constraints(), c.particle_positions());
    s.edges.iter().zip(s.rest_length).map(|(&[i, j], &l)| x[i as usize].distance(x[j as usize]) / l - 1.0).fold(0.0, f32::max)
}

/// A 1 m sheet hung from its top corners with a capsule 0.3 m behind it, after 1 s; the capsule
/// is then moved 50 m through the sheet to the far side by `mv`, one step taken: the peak
/// strain of the next 30 steps.
fn strain_after_collider_jump(mv: impl Fn(&mut World, xpbd_cloth::ColliderHandle, &Pose)) -> (f32, f32) {
    let n = 21;
    let (positions, indices) = vertical_sheet(n, 1.0);
    let (mut world, cloth) = world_with_cloth(one_thread(), &positions, &indices, ClothParams::default());
    world.cloth_mut(cloth).unwrap().set_pinned(&[0, n as u32 - 1], None).unwrap();
    let desc = ColliderDesc { pose: Pose::at([0.5, -0.5, -0.3]), ..ColliderDesc::capsule(0.2, 0.3) };
    let capsule = world.add_collider(&desc).unwrap();
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    let before = max_strain(&world, cloth);
    mv(&mut world, capsule, &Pose::at([0.5, -0.5, 49.7]));
    let mut peak = 0.0f32;
    for _ in 0..30 {
        let _ = world.step(DT);
        peak = peak.max(max_strain(&world, cloth));
    }
    (before, peak)
}

/// Test 7 of issue 31: a collider teleported 50 m through a hanging sheet leaves its strain as it
/// was (the capsule is never swept through it), where `set_collider_pose` over the same jump
/// drags the sheet along.
#[test]
fn a_collider_teleported_50_m_through_a_sheet_leaves_its_strain_unchanged() {
    let (before, teleported) = strain_after_collider_jump(|w, c, p| w.teleport_collider(c, p).unwrap());
    let (_, swept) = strain_after_collider_jump(|w, c, p| w.set_collider_pose(c, p).unwrap());
    println!("strain before {:.3} %, after a teleport {:.3} %, after set_pose {:.1} %", before * 100.0, teleported * 100.0, swept * 100.0);
    assert!(teleported <= before.max(0.0) + 1e-3, "teleport: {teleported} (before {before})");
    assert!(teleported < 0.05);
}

/// A teleport's pose is the current pose at once and the target (no motion in the next step);
/// a bad pose changes nothing.
#[test]
fn a_teleported_collider_rests_at_its_new_pose() {
    let mut world = World::new(one_thread()).unwrap();
    let c = world.add_collider(&ColliderDesc::sphere(0.1)).unwrap();
    world.set_collider_pose(c, &Pose::at([1.0, 0.0, 0.0])).unwrap();
    let to = Pose::from_axis_angle([50.0, 0.0, 0.0], [0.0, 1.0, 0.0], std::f32::consts::FRAC_PI_2);
    world.teleport_collider(c, &to).unwrap();
    assert_eq!(world.collider(c).unwrap().pose(), world.collider(c).unwrap().target_pose());
    assert_eq!(world.collider(c).unwrap().pose().position, [50.0, 0.0, 0.0]);
    let bad = Pose { position: [f32::NAN, 0.0, 0.0], rotation: [0.0, 0.0, 0.0, 1.0] };
    assert!(world.teleport_collider(c, &bad).is_err());
    assert_eq!(world.collider(c).unwrap().pose().position, [50.0, 0.0, 0.0]);
}
