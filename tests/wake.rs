//! A sleeping cloth wakes for every change of what it feels (docs/design.md, "Sleeping"): a
//! collider created, destroyed or teleported within its reach, a change of gravity, an instance
//! made from it; and then moves as an awake cloth would. A collider created far away leaves it
//! asleep. Sleeping is on in these tests (it is off by default); nothing else is changed.

mod common;

use xpbd_cloth::{ClothDesc, ClothHandle, ClothParams, ColliderDesc, ColliderHandle, Pose, Vec3, World, WorldDesc};

const DT: f32 = 1.0 / 60.0;

/// The top of the box the cloth lies on \[m\].
const TOP: f32 = 0.2;

/// A 0.4 m sheet lying on a 1 m box (top at y = `TOP`), asleep.
fn sleeping_on_a_box() -> (World, ClothHandle, ColliderHandle) {
    let mut world = World::new(WorldDesc::default()).unwrap();
    let box_pose = Pose::at([0.0, TOP - 0.1, 0.0]);
    let table = world.add_collider(&ColliderDesc { pose: box_pose, ..ColliderDesc::cuboid([0.5, 0.1, 0.5]) }).unwrap();
    let (positions, indices) = common::horizontal_sheet(11, 0.4, TOP + 0.02);
    let positions: Vec<[f32; 3]> = positions.iter().map(|p| [p[0] - 0.2, p[1], p[2] - 0.2]).collect();
    let params = ClothParams { sleep_speed: Some(0.01), sleep_time: 0.25, ..ClothParams::default() };
    let cloth = world.add_cloth(&ClothDesc { params, ..ClothDesc::new(&positions, &indices) }).unwrap();
    for _ in 0..300 {
        world.step(DT).unwrap();
        if world.cloth(cloth).unwrap().is_sleeping() {
            return (world, cloth, table);
        }
    }
    panic!("the cloth did not fall asleep on the box within 5 s");
}

fn lowest(world: &World, cloth: ClothHandle) -> f32 {
    world.cloth(cloth).unwrap().particle_positions().iter().map(|p| p.y).fold(f32::INFINITY, f32::min)
}

/// After 1 s awake, every particle at least half the collision thickness outside the sphere of
/// `radius` at `centre` \[m\] (it rests at the full thickness).
fn pushed_out_of_sphere_after_1_s(world: &mut World, cloth: ClothHandle, centre: Vec3, radius: f32) {
    step_awake(world, cloth, 1.0);
    let c = world.cloth(cloth).unwrap();
    let depth = c.particle_positions().iter().map(|p| radius - p.distance(centre)).fold(f32::MIN, f32::max);
    let thickness = c.params().collision_thickness;
    assert!(depth <= -0.5 * thickness, "a particle {depth} m inside the sphere after 1 s");
}

/// Step `seconds`; the cloth is awake after the first step.
fn step_awake(world: &mut World, cloth: ClothHandle, seconds: f32) {
    for k in 0..(seconds / DT).round() as usize {
        world.step(DT).unwrap();
        if k == 0 {
            assert!(!world.cloth(cloth).unwrap().is_sleeping(), "asleep after the first step");
        }
    }
}

#[test]
fn destroying_the_box_a_cloth_sleeps_on_lets_it_fall() {
    let (mut world, cloth, table) = sleeping_on_a_box();
    world.remove_collider(table).unwrap();
    assert!(!world.cloth(cloth).unwrap().is_sleeping());
    step_awake(&mut world, cloth, 0.5);
    // Free fall for 0.5 s: g·t²/2 = 1.23 m.
    let y = lowest(&world, cloth);
    assert!(y < TOP - 1.0, "lowest particle at {y} m after 0.5 s without the box");
}

#[test]
fn a_sphere_teleported_into_a_sleeping_cloth_wakes_it_and_is_pushed_out_of() {
    let (mut world, cloth, _) = sleeping_on_a_box();
    let (radius, far) = (0.1, Vec3::new(10.0, TOP, 0.0));
    let sphere = world.add_collider(&ColliderDesc { pose: Pose::at(far.to_array()), ..ColliderDesc::sphere(radius) }).unwrap();
    world.step(DT).unwrap();
    assert!(world.cloth(cloth).unwrap().is_sleeping(), "a sphere 10 m away woke the cloth");
    let centre = Vec3::new(0.0, TOP + 0.05, 0.0);
    world.teleport_collider(sphere, &Pose::at(centre.to_array())).unwrap();
    pushed_out_of_sphere_after_1_s(&mut world, cloth, centre, radius);
}

#[test]
fn a_collider_created_inside_a_sleeping_cloth_wakes_it_and_one_far_away_does_not() {
    let (mut world, cloth, _) = sleeping_on_a_box();
    world.add_collider(&ColliderDesc { pose: Pose::at([20.0, 0.0, 0.0]), ..ColliderDesc::sphere(0.5) }).unwrap();
    assert!(world.cloth(cloth).unwrap().is_sleeping(), "a sphere 20 m away woke the cloth");
    let (radius, centre) = (0.08, Vec3::new(0.05, TOP, 0.0));
    world.add_collider(&ColliderDesc { pose: Pose::at(centre.to_array()), ..ColliderDesc::sphere(radius) }).unwrap();
    pushed_out_of_sphere_after_1_s(&mut world, cloth, centre, radius);
}

#[test]
fn changing_gravity_wakes_a_sleeping_cloth_and_it_falls_the_new_way() {
    let (mut world, cloth, _) = sleeping_on_a_box();
    let before = lowest(&world, cloth);
    world.set_gravity(world.desc().gravity).unwrap();
    assert!(world.cloth(cloth).unwrap().is_sleeping(), "the same gravity again woke the cloth");
    world.set_gravity([0.0, 9.81, 0.0]).unwrap();
    step_awake(&mut world, cloth, 0.5);
    // Up at g for 0.5 s: 1.23 m above where it lay.
    let y = lowest(&world, cloth);
    assert!(y > before + 1.0, "lowest particle {before} → {y} m under upward gravity");
}

#[test]
fn an_instance_of_a_sleeping_cloth_starts_awake_and_so_does_its_source() {
    let (mut world, cloth, _) = sleeping_on_a_box();
    let instance = world.add_instance(cloth).unwrap();
    assert!(!world.cloth(instance).unwrap().is_sleeping() && !world.cloth(cloth).unwrap().is_sleeping());
    // The two are the same cloth at the same place: they step to the same bits.
    world.step(DT).unwrap();
    assert_eq!(world.cloth(instance).unwrap().state_hash(), world.cloth(cloth).unwrap().state_hash());
}

/// What drives a cloth wakes it when it moves and leaves it asleep when the engine gives the same
/// again every frame: the animated pose, joint matrices, the reference frame, a grab's target; a
/// grab's release wakes it too.
#[test]
fn a_moving_pose_joints_frame_or_grab_wake_a_sleeping_cloth_and_the_same_ones_do_not() {
    type Drive = fn(&mut xpbd_cloth::Cloth, &[[f32; 3]], f32);
    let identity = |x: f32| {
        let mut m = [0.0f32; 16];
        (m[0], m[5], m[10], m[15], m[12]) = (1.0, 1.0, 1.0, 1.0, x);
        m
    };
    let cases: [(&str, Drive, Option<Drive>); 4] = [
        ("pose", |c, rest, dx| c.set_animated_pose(&rest.iter().map(|p| [p[0] + dx, p[1], p[2]]).collect::<Vec<_>>(), None).unwrap(), None),
        ("joints", |c, _, dx| c.set_joint_matrices(&[{ let mut m = [0.0f32; 16]; (m[0], m[5], m[10], m[15], m[12]) = (1.0, 1.0, 1.0, 1.0, dx); m }]).unwrap(), None),
        ("frame", |c, _, dx| c.set_reference_frame([dx, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]).unwrap(), None),
        ("grab", |c, _, dx| match c.grabbed_particles().is_empty() {
            true => c.grab(60, [dx, TOP + 0.05, 0.0], 100.0).unwrap(),
            false => c.move_grab(60, [dx, TOP + 0.05, 0.0]).unwrap(),
        }, Some(|c, _, _| c.release(60).unwrap())),
    ];
    for (name, drive, undo) in cases {
        let (mut world, cloth, _) = sleeping_on_a_box();
        let rest: Vec<[f32; 3]> = world.cloth(cloth).unwrap().particle_positions().iter().map(|p| p.to_array()).collect();
        let c = world.cloth_mut(cloth).unwrap();
        if name == "joints" {
            let n = rest.len();
            let skin = xpbd_cloth::SkinDesc { inverse_bind_matrices: &[identity(0.0)], joint_indices: &vec![[0; 4]; n], joint_weights: &vec![[1.0, 0.0, 0.0, 0.0]; n] };
            c.set_skin(Some(&skin)).unwrap();
        }
        // The first one is taken as it is; then the cloth falls asleep again under it.
        drive(c, &rest, 0.0);
        for _ in 0..120 {
            world.step(DT).unwrap();
        }
        assert!(world.cloth(cloth).unwrap().is_sleeping(), "{name}: asleep again under an unmoving drive");
        drive(world.cloth_mut(cloth).unwrap(), &rest, 0.0);
        assert!(world.cloth(cloth).unwrap().is_sleeping(), "{name}: the same again leaves it asleep");
        drive(world.cloth_mut(cloth).unwrap(), &rest, 0.05);
        assert!(!world.cloth(cloth).unwrap().is_sleeping(), "{name}: moved, it wakes");
        if let Some(undo) = undo {
            for _ in 0..120 {
                world.step(DT).unwrap();
            }
            undo(world.cloth_mut(cloth).unwrap(), &rest, 0.0);
            assert!(!world.cloth(cloth).unwrap().is_sleeping(), "{name}: released, it wakes");
        }
    }
}
