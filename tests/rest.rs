//! Cloth comes to rest at the library's defaults (no linear damping; `deformation_damping` 3/s
//! and friction, docs/parameters.md): real fabric settles within seconds through its internal
//! friction and the contacts', so a cloth dropped on colliders must too, without the caller
//! choosing a damping. Each scene measures, over its last second, the RMS
//! particle speed, the largest move of a particle in one step, and the deepest penetration of a
//! collider, from the positions themselves.

mod common;

use xpbd_cloth::{ClothDesc, ClothHandle, ClothParams, ColliderDesc, Pose, Vec3, World, WorldDesc};

const DT: f32 = 1.0 / 60.0;

/// A 1 m cloth of 21 × 21 vertices, horizontal at height `y`, centred over x = `x`.
fn cloth_at(world: &mut World, x: f32, y: f32) -> ClothHandle {
    let (positions, indices) = common::horizontal_sheet(21, 1.0, y);
    let positions: Vec<[f32; 3]> = positions.iter().map(|p| [p[0] - 0.5 + x, p[1], p[2] - 0.5]).collect();
    world.add_cloth(&ClothDesc { params: ClothParams::default(), ..ClothDesc::new(&positions, &indices) }).unwrap()
}

struct Rest {
    rms_speed: f32,
    largest_step_move: f32,
    deepest: f32,
}

/// Step `world` for `seconds`, measuring the last second; `depth(x)` is how far `x` is inside a
/// collider (≤ 0 outside), computed by the test.
fn settle(world: &mut World, cloth: ClothHandle, seconds: f32, depth: impl Fn(Vec3) -> f32) -> Rest {
    let steps = (seconds / DT).round() as usize;
    let mut rest = Rest { rms_speed: 0.0, largest_step_move: 0.0, deepest: f32::MIN };
    for step in 0..steps {
        let before = world.cloth(cloth).unwrap().particle_positions().to_vec();
        world.step(DT).unwrap();
        if step + 60 < steps {
            continue;
        }
        let c = world.cloth(cloth).unwrap();
        let x = c.particle_positions();
        rest.largest_step_move = x.iter().zip(&before).map(|(a, b)| a.distance(*b)).fold(rest.largest_step_move, f32::max);
        rest.deepest = x.iter().map(|&p| depth(p)).fold(rest.deepest, f32::max);
        let v = c.particle_velocities();
        rest.rms_speed = (v.iter().map(|v| v.length_squared()).sum::<f32>() / v.len() as f32).sqrt();
    }
    rest
}

fn thickness(world: &World, cloth: ClothHandle) -> f32 {
    world.cloth(cloth).unwrap().params().collision_thickness
}

fn check(name: &str, rest: &Rest, thickness: f32) {
    println!(
        "{name}: RMS speed {:.2e} m/s, largest move in a step {:.2e} m, deepest {:.2e} m (thickness {thickness} m)",
        rest.rms_speed, rest.largest_step_move, rest.deepest
    );
    assert!(rest.rms_speed < 1e-3, "{name}: RMS speed {} m/s", rest.rms_speed);
    assert!(rest.largest_step_move < 1e-4, "{name}: a particle moved {} m in one step", rest.largest_step_move);
    assert!(rest.deepest <= 0.5 * thickness, "{name}: {} m inside a collider", rest.deepest);
}

fn sphere_depth(centre: Vec3, radius: f32) -> impl Fn(Vec3) -> f32 {
    move |x| radius - x.distance(centre)
}

/// Dropped from 0.2 m onto a sphere (r 0.3 m, friction 0.5) standing on a ground plane: the flaps
/// fall to the ground and the whole cloth rests after 5 s.
#[test]
fn a_cloth_dropped_on_a_sphere_over_the_ground_comes_to_rest() {
    let mut world = World::new(WorldDesc::default()).unwrap();
    let centre = Vec3::new(0.0, 0.3, 0.0);
    let friction = ColliderDesc { static_friction: 0.5, kinetic_friction: 0.5, ..ColliderDesc::sphere(0.3) };
    world.add_collider(&ColliderDesc { pose: Pose::at(centre.to_array()), ..friction }).unwrap();
    world.add_collider(&ColliderDesc { static_friction: 0.5, kinetic_friction: 0.5, ..ColliderDesc::plane() }).unwrap();
    let cloth = cloth_at(&mut world, 0.0, 0.8);
    let t = thickness(&world, cloth);
    let sphere = sphere_depth(centre, 0.3);
    let rest = settle(&mut world, cloth, 5.0, |x| sphere(x).max(-x.y));
    check("sphere over the ground", &rest, t);
}

/// Stretched over two spheres (r 0.2 m, 0.6 m apart, friction 0.5), no ground: rests after 5 s.
#[test]
fn a_cloth_over_two_spheres_comes_to_rest() {
    let mut world = World::new(WorldDesc::default()).unwrap();
    let centres = [Vec3::new(-0.3, 0.0, 0.0), Vec3::new(0.3, 0.0, 0.0)];
    for c in centres {
        let desc = ColliderDesc { static_friction: 0.5, kinetic_friction: 0.5, pose: Pose::at(c.to_array()), ..ColliderDesc::sphere(0.2) };
        world.add_collider(&desc).unwrap();
    }
    let cloth = cloth_at(&mut world, 0.0, 0.3);
    let t = thickness(&world, cloth);
    let (a, b) = (sphere_depth(centres[0], 0.2), sphere_depth(centres[1], 0.2));
    let rest = settle(&mut world, cloth, 5.0, |x| a(x).max(b(x)));
    check("two spheres", &rest, t);
}

/// Spawned with its middle inside a sphere (centre 5 cm below the cloth, r 0.3 m): pushed out at
/// the bounded depenetration speed, it drapes and rests below 1 mm/s after 4 s.
#[test]
fn a_cloth_spawned_inside_a_sphere_comes_to_rest() {
    let mut world = World::new(WorldDesc::default()).unwrap();
    let centre = Vec3::new(0.0, -0.05, 0.0);
    let desc = ColliderDesc { static_friction: 0.5, kinetic_friction: 0.5, pose: Pose::at(centre.to_array()), ..ColliderDesc::sphere(0.3) };
    world.add_collider(&desc).unwrap();
    let cloth = cloth_at(&mut world, 0.0, 0.0);
    let t = thickness(&world, cloth);
    let sphere = sphere_depth(centre, 0.3);
    let rest = settle(&mut world, cloth, 4.0, sphere);
    println!("spawned inside: RMS speed {:.2e} m/s, deepest {:.2e} m", rest.rms_speed, rest.deepest);
    assert!(rest.rms_speed < 1e-3, "RMS speed {} m/s after 4 s", rest.rms_speed);
    assert!(rest.deepest <= 0.5 * t, "{} m inside the sphere after 4 s", rest.deepest);
}

/// The sphere scene at the colliders' default friction (0.5 static, 0.4 kinetic), no ground.
#[test]
fn a_cloth_dropped_on_a_sphere_at_the_default_friction_comes_to_rest() {
    let mut world = World::new(WorldDesc::default()).unwrap();
    let centre = Vec3::ZERO;
    world.add_collider(&ColliderDesc::sphere(0.3)).unwrap();
    let cloth = cloth_at(&mut world, 0.0, 0.5);
    let t = thickness(&world, cloth);
    let rest = settle(&mut world, cloth, 5.0, sphere_depth(centre, 0.3));
    check("sphere, default friction", &rest, t);
}
