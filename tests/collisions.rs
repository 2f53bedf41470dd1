//! Colliders with friction (docs/design.md, "Collider contacts and friction"), through the public
//! Rust API. Each test prints its measured numbers (`cargo test --release --test collisions --
//! --nocapture`).

mod common;

use xpbd_cloth::{ClothDesc, ClothHandle, ClothParams, ColliderDesc, Pose, Vec3, World, WorldDesc};

const DT: f32 = 1.0 / 60.0;
const G: f32 = 9.81;

/// An n × n vertex grid of side `size` [m] centred at `centre`, spanned by the unit axes `u` and
/// `v` (its normal is u × v).
fn grid(n: usize, size: f32, centre: Vec3, u: Vec3, v: Vec3) -> (Vec<[f32; 3]>, Vec<u32>) {
    let mut positions = Vec::with_capacity(n * n);
    for j in 0..n {
        for i in 0..n {
            let (s, t) = (i as f32 / (n - 1) as f32 - 0.5, j as f32 / (n - 1) as f32 - 0.5);
            positions.push((centre + u * (s * size) + v * (t * size)).to_array());
        }
    }
    let mut indices = Vec::new();
    for j in 0..n - 1 {
        for i in 0..n - 1 {
            let a = (j * n + i) as u32;
            let (b, c, d) = (a + 1, a + n as u32, a + n as u32 + 1);
            indices.extend_from_slice(&[a, b, c, b, d, c]);
        }
    }
    (positions, indices)
}

/// The defaults without velocity damping: these scenes compare with undamped mechanics (Coulomb
/// friction, free fall, a launch speed); the default damping is tested in tests/rest.rs.
fn undamped() -> ClothParams {
    ClothParams { linear_damping: 0.0, ..ClothParams::default() }
}

fn add_cloth(world: &mut World, mesh: &(Vec<[f32; 3]>, Vec<u32>), params: ClothParams) -> ClothHandle {
    world.add_cloth(&ClothDesc { params, ..ClothDesc::new(&mesh.0, &mesh.1) }).unwrap()
}

fn positions(world: &World, cloth: ClothHandle) -> Vec<Vec3> {
    world.cloth(cloth).unwrap().particle_positions().to_vec()
}

fn centroid(x: &[Vec3]) -> Vec3 {
    x.iter().copied().sum::<Vec3>() / x.len() as f32
}

fn max_speed(world: &World, cloth: ClothHandle) -> f32 {
    world.cloth(cloth).unwrap().particle_velocities().iter().map(|v| v.length()).fold(0.0, f32::max)
}

fn kinetic_energy(world: &World, cloth: ClothHandle) -> f32 {
    world.cloth(cloth).unwrap().energy(Vec3::new(0.0, -G, 0.0)).kinetic
}

#[test]
fn cloth_dropped_on_a_sphere_comes_to_rest_without_jitter() {
    let mut world = World::new(WorldDesc::default()).unwrap();
    let radius = 0.3;
    let sphere = world.add_collider(&ColliderDesc::sphere(radius)).unwrap();
    // 32 × 32 vertices, 1 m, 0.3 m above the top of the sphere (centre at the origin).
    let mesh = grid(32, 1.0, Vec3::new(0.0, 2.0 * radius, 0.0), Vec3::X, Vec3::Z);
    // Air drag of 5/s: the model has no internal fabric damping, so without it the flaps hanging
    // off the sphere would keep swinging for many seconds. Contact jitter would still show: it
    // re-injects energy every substep.
    let params = ClothParams { linear_damping: 5.0, ..ClothParams::default() };
    let cloth = add_cloth(&mut world, &mesh, params);
    let thickness = world.cloth(cloth).unwrap().params().collision_thickness;

    for _ in 0..180 {
        world.step(DT).unwrap();
    }
    let (mut max_kinetic, mut max_penetration, mut max_reported) = (0.0f32, 0.0f32, 0.0f32);
    for _ in 0..60 {
        world.step(DT).unwrap();
        max_kinetic = max_kinetic.max(kinetic_energy(&world, cloth));
        for x in positions(&world, cloth) {
            // Independent of the library's distance code: |x − c| − r − thickness.
            max_penetration = max_penetration.max(thickness - (x.length() - radius));
        }
        max_reported = max_reported.max(world.cloth(cloth).unwrap().stats().max_penetration);
    }
    let stats = *world.cloth(cloth).unwrap().stats();
    let lowest = positions(&world, cloth).iter().map(|x| x.y).fold(f32::INFINITY, f32::min);
    eprintln!(
        "rest on sphere, 3..4 s: max kinetic energy {max_kinetic:.3e} J, max penetration {max_penetration:.3e} m \
         (reported {max_reported:.3e} m, thickness {thickness} m), contacts {}, lowest particle y = {lowest:.3} m",
        stats.contact_count
    );
    assert!(max_kinetic < 1e-6, "kinetic energy {max_kinetic} J after 3 s");
    assert!(max_penetration <= 0.01 * thickness, "penetration {max_penetration} m");
    assert!(max_reported <= 0.01 * thickness);
    assert!(stats.contact_count > 100, "the cloth lies on the sphere: {} contacts", stats.contact_count);
    assert!(world.collider(sphere).unwrap().signed_distance([0.0, 0.3, 0.0]).abs() < 1e-6);
}

/// Centroid displacement [m] after 2 s of a 0.5 m cloth laid flat (at the contact thickness) on a
/// plane tilted 20° about z, with friction (μ_s, μ_k); also returns the downhill unit vector.
fn slide_on_tilted_plane(static_friction: f32, kinetic_friction: f32) -> (Vec3, Vec3) {
    let mut world = World::new(WorldDesc::default()).unwrap();
    let tilt = 20f32.to_radians();
    let pose = Pose::from_axis_angle([0.0; 3], [0.0, 0.0, 1.0], tilt);
    let plane = ColliderDesc { pose, static_friction, kinetic_friction, ..ColliderDesc::plane() };
    world.add_collider(&plane).unwrap();
    let rotation = glam::Quat::from_array(pose.rotation);
    let (along, normal, across) = (rotation * Vec3::X, rotation * Vec3::Y, rotation * Vec3::Z);
    let thickness = ClothParams::default().collision_thickness;
    let mesh = grid(16, 0.5, normal * thickness, across, along);
    let cloth = add_cloth(&mut world, &mesh, undamped());
    let start = centroid(&positions(&world, cloth));
    for _ in 0..120 {
        world.step(DT).unwrap();
    }
    (centroid(&positions(&world, cloth)) - start, -along)
}

#[test]
fn static_friction_holds_cloth_on_a_20_degree_slope_and_low_friction_lets_it_slide() {
    let tilt = 20f32.to_radians();
    let (held, _) = slide_on_tilted_plane(0.5, 0.4);
    let (slid, downhill) = slide_on_tilted_plane(0.1, 0.1);
    // Coulomb: a = g (sin θ − μ_k cos θ), s = a t² / 2 over t = 2 s.
    let expected = 0.5 * G * (tilt.sin() - 0.1 * tilt.cos()) * 4.0;
    let along = slid.dot(downhill);
    eprintln!(
        "20° slope: μ_s = 0.5 drift {:.3e} m; μ = 0.1 slid {along:.4} m downhill (Coulomb {expected:.4} m, \
         ratio {:.4}), off the slope direction {:.2e} m",
        held.length(),
        along / expected,
        (slid - downhill * along).length()
    );
    assert!(held.length() < 1e-3, "drifted {} m", held.length());
    assert!(along > 0.1);
    assert!((along / expected - 1.0).abs() < 0.01, "slid {along} m, Coulomb says {expected} m");
}

#[test]
fn fast_cloth_and_fast_sphere_do_not_tunnel() {
    // (a) A 0.2 m cloth thrown at 20 m/s at a 1 cm board, 60 Hz × 4 substeps: 8.3 cm per substep.
    let mut world = World::new(WorldDesc { substeps: 4, ..WorldDesc::default() }).unwrap();
    let half_thickness_of_board = 0.005;
    world.add_collider(&ColliderDesc::cuboid([0.5, 0.5, half_thickness_of_board])).unwrap();
    let mesh = grid(8, 0.2, Vec3::new(0.0, 0.2, -0.5), Vec3::X, Vec3::Y);
    let speed = 20.0;
    // The throw: a uniform push that reaches 20 m/s within the first step, then none.
    let throw = ClothParams { external_acceleration: [0.0, 0.0, speed / DT], ..undamped() };
    let cloth = add_cloth(&mut world, &mesh, throw);
    world.step(DT).unwrap();
    let launch_speed = max_speed(&world, cloth);
    world.cloth_mut(cloth).unwrap().set_params(undamped()).unwrap();
    let thickness = ClothParams::default().collision_thickness;
    let near_face = -(half_thickness_of_board + thickness);
    let mut deepest = f32::NEG_INFINITY;
    for _ in 0..30 {
        world.step(DT).unwrap();
        deepest = deepest.max(positions(&world, cloth).iter().map(|x| x.z).fold(f32::NEG_INFINITY, f32::max));
    }
    eprintln!(
        "board: launched at {launch_speed:.2} m/s ({:.1} cm per substep past a 1 cm board), deepest particle \
         z = {deepest:.5} m (near contact surface at {near_face} m)",
        launch_speed * DT / 4.0 * 100.0
    );
    assert!((launch_speed - speed).abs() < 0.01 * speed);
    assert!(deepest <= near_face + 1e-5, "a particle reached z = {deepest} m");

    // (b) A 5 cm sphere (radius 2.5 cm) crossing a hanging curtain at 30 m/s. Stepped at 240 Hz
    // with one substep, the same 12.5 cm per substep as 60 Hz × 4, so that every substep can be
    // checked from outside: in the ball's frame, no particle's motion over a substep may come
    // closer to its centre than its radius. Particles are what collides, so the curtain is finer
    // than the ball: 51 × 51 vertices on 0.5 m (1 cm), top row pinned.
    let dt = 1.0 / 240.0;
    let mut world = World::new(WorldDesc { substeps: 1, ..WorldDesc::default() }).unwrap();
    let n = 51;
    let mesh = grid(n, 0.5, Vec3::new(0.0, 0.75, 0.0), Vec3::X, Vec3::Y);
    let cloth = add_cloth(&mut world, &mesh, ClothParams::default());
    let top_row: Vec<u32> = (n * (n - 1)..n * n).map(|i| i as u32).collect();
    world.cloth_mut(cloth).unwrap().set_pinned(&top_row, None).unwrap();
    let radius = 0.025;
    let path = |z: f32| Vec3::new(0.0, 0.6, z);
    let ball = ColliderDesc { pose: Pose::at(path(-0.25).to_array()), ..ColliderDesc::sphere(radius) };
    let ball = world.add_collider(&ball).unwrap();
    for _ in 0..120 {
        world.step(dt).unwrap();
    }
    let (mut closest, mut strain) = (f32::INFINITY, 0.0f32);
    let mut centre = path(-0.25);
    for step in 1..=4 {
        let next = path(-0.25 + 0.125 * step as f32); // 30 m/s, stops at z = 0.25 m
        let before = positions(&world, cloth);
        world.set_collider_pose(ball, &Pose::at(next.to_array())).unwrap();
        world.step(dt).unwrap();
        for (a, b) in before.iter().zip(positions(&world, cloth)) {
            // Closest approach of the particle's substep chord, relative to the ball, to its centre.
            let (p, q) = (*a - centre, b - next);
            let t = if (q - p).length_squared() > 0.0 { (-p.dot(q - p) / (q - p).length_squared()).clamp(0.0, 1.0) } else { 0.0 };
            closest = closest.min((p + (q - p) * t).length());
        }
        strain = strain.max(world.cloth(cloth).unwrap().stats().max_edge_strain);
        centre = next;
    }
    let x = positions(&world, cloth);
    let ahead = x.iter().filter(|p| p.z >= centre.z + radius).count();
    let front = x.iter().map(|p| p.z).fold(f32::NEG_INFINITY, f32::max);
    let behind = x.iter().filter(|p| (p.x - centre.x).hypot(p.y - centre.y) < radius && p.z < centre.z).count();
    eprintln!(
        "sphere at 30 m/s: closest particle chord to the ball's centre {closest:.4} m (radius {radius} m); \
         {ahead} particles carried ahead of it, front at z = {front:.4} m (ball at {:.3} m); {behind} back in \
         its shadow behind it; max edge strain while it passed {:.0} %",
        centre.z,
        strain * 100.0
    );
    assert!(closest >= radius, "a particle passed through the ball");
    assert!(ahead >= 1 && front >= centre.z + radius, "the ball pushed the cloth ahead of it");
}

#[test]
fn box_moving_at_1_m_per_s_carries_the_cloth_lying_on_it() {
    let run = |ramp_time: f32| {
        let mut world = World::new(WorldDesc::default()).unwrap();
        let desc = ColliderDesc { static_friction: 0.8, kinetic_friction: 0.6, ..ColliderDesc::cuboid([0.5, 0.1, 0.5]) };
        let table = world.add_collider(&desc).unwrap();
        let thickness = ClothParams::default().collision_thickness;
        let mesh = grid(16, 0.6, Vec3::new(0.0, 0.1 + thickness, 0.0), Vec3::X, Vec3::Z);
        let cloth = add_cloth(&mut world, &mesh, undamped());
        for _ in 0..30 {
            world.step(DT).unwrap();
        }
        let start = centroid(&positions(&world, cloth));
        // Accelerate uniformly to 1 m/s over `ramp_time` (0 = at once), then 1 s at 1 m/s.
        let box_x = |t: f32| if t < ramp_time { 0.5 * t * t / ramp_time } else { t - 0.5 * ramp_time };
        let steps = ((ramp_time + 1.0) / DT).round() as usize;
        for k in 1..=steps {
            world.set_collider_pose(table, &Pose::at([box_x(k as f32 * DT), 0.0, 0.0])).unwrap();
            world.step(DT).unwrap();
        }
        let moved = centroid(&positions(&world, cloth)) - start;
        let box_moved = box_x(steps as f32 * DT);
        let speed = world.cloth(cloth).unwrap().particle_velocities().iter().map(|v| v.x).sum::<f32>() / 256.0;
        (box_moved - moved.x, moved, speed)
    };
    // 0.25 s ramp: 4 m/s² < μ_s·g = 7.85 m/s², so static friction holds the cloth.
    let (lag, moved, speed) = run(0.25);
    // At once: Coulomb says the cloth slips v²/(2 μ_k g) before it moves with the box.
    let (slip, _, _) = run(0.0);
    let coulomb_slip = 1.0 / (2.0 * 0.6 * G);
    eprintln!(
        "moving box: cloth lags the box by {lag:.4} m after moving {:.3} m, speed {speed:.4} m/s, vertical \
         drift {:.2e} m; box started at once: slip {slip:.4} m (Coulomb v²/(2 μ_k g) = {coulomb_slip:.4} m)",
        moved.x, moved.y
    );
    assert!(lag.abs() < 0.02, "cloth lags the box by {lag} m");
    assert!((speed - 1.0).abs() < 0.01);
    assert!((slip / coulomb_slip - 1.0).abs() < 0.1, "slip {slip} m vs Coulomb {coulomb_slip} m");
}

#[test]
fn cloth_spawned_half_inside_a_sphere_is_pushed_out_slowly() {
    let mut world = World::new(WorldDesc::default()).unwrap();
    let radius = 0.3;
    let sphere = world.add_collider(&ColliderDesc::sphere(radius)).unwrap();
    // 0.5 m cloth 0.2 m above the centre: a disc of radius 0.226 m of it starts inside.
    let mesh = grid(24, 0.5, Vec3::new(0.0, 0.2, 0.0), Vec3::X, Vec3::Z);
    let cloth = add_cloth(&mut world, &mesh, ClothParams::default());
    let params = *world.cloth(cloth).unwrap().params();
    let thickness = params.collision_thickness;
    let gap = |x: Vec3| x.length() - radius - thickness;
    let start = positions(&world, cloth);
    let inside_at_start = start.iter().filter(|x| gap(**x) < 0.0).count();
    let (mut fastest, mut steps_to_get_out) = (0.0f32, None);
    for step in 1..=180 {
        world.step(DT).unwrap();
        fastest = fastest.max(max_speed(&world, cloth));
        let worst = positions(&world, cloth).iter().map(|x| gap(*x)).fold(f32::INFINITY, f32::min);
        if worst >= -0.01 * thickness && steps_to_get_out.is_none() {
            steps_to_get_out = Some(step);
        }
    }
    let end_gap = positions(&world, cloth).iter().map(|x| gap(*x)).fold(f32::INFINITY, f32::min);
    eprintln!(
        "spawned inside: {inside_at_start} of {} particles inside at start (deepest {:.3} m), all out after {:?} \
         steps, fastest particle {fastest:.3} m/s (push-out bound {} m/s), final min gap {end_gap:.2e} m",
        start.len(),
        -start.iter().map(|x| gap(*x)).fold(f32::INFINITY, f32::min),
        steps_to_get_out,
        params.max_depenetration_speed
    );
    assert!(inside_at_start * 2 >= start.len(), "at least half starts inside");
    assert!(fastest < 5.0, "a particle reached {fastest} m/s");
    assert!(end_gap >= -0.01 * thickness, "a particle is still {} m inside", -end_gap);
    assert!(world.collider(sphere).unwrap().signed_distance([0.0, 0.12, 0.0]) < 0.0);
}

#[test]
fn tablecloth_drapes_over_a_box_table_top() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/tablecloth.obj");
    let (positions, indices) = common::load_obj(std::path::Path::new(path)).unwrap();
    // Lift it 2 cm above the table top it was modelled on, so that it is dropped.
    let rest: Vec<[f32; 3]> = positions.iter().map(|p| [p[0], p[1] + 0.02, p[2]]).collect();
    // The table top of the same scene (table.obj): x ±0.2229 m, z ±0.3545 m, y 0.9630..0.9746 m.
    let (top, half) = (0.9746f32, Vec3::new(0.2229, 0.0058, 0.3545));
    let centre = Vec3::new(0.0, top - half.y, 0.0);
    let mut world = World::new(WorldDesc::default()).unwrap();
    // A third of the cloth overhangs the −x edge: it stays on the table if μ_s exceeds the
    // overhanging weight over the weight on top (≈ 0.37/0.63 = 0.59); cotton on a cloth-covered
    // wooden table is about 0.8.
    let table = ColliderDesc {
        pose: Pose::at(centre.to_array()),
        static_friction: 0.8,
        kinetic_friction: 0.6,
        ..ColliderDesc::cuboid(half.to_array())
    };
    world.add_collider(&table).unwrap();
    let cloth = world.add_cloth(&ClothDesc::new(&rest, &indices)).unwrap();
    let thickness = world.cloth(cloth).unwrap().params().collision_thickness;
    for _ in 0..150 {
        world.step(DT).unwrap();
    }
    let c = world.cloth(cloth).unwrap();
    let mut x = vec![[0.0f32; 3]; rest.len()];
    c.read_positions(&mut x).unwrap();
    let x: Vec<Vec3> = x.into_iter().map(Vec3::from_array).collect();
    // Independent of the library: signed distance to the sharp box, minus the thickness.
    let gap = |p: Vec3| {
        let q = (p - centre).abs() - half;
        q.max(Vec3::ZERO).length() + q.max_element().min(0.0) - thickness
    };
    let inside = x.iter().filter(|p| ((**p - centre).abs() - half).max_element() < 0.0).count();
    let min_gap = x.iter().map(|p| gap(*p)).fold(f32::INFINITY, f32::min);
    // Vertices that started well beyond the edge, and well inside the top.
    let hanging: Vec<f32> = (0..x.len()).filter(|&v| rest[v][0] < -half.x - 0.05).map(|v| top - x[v].y).collect();
    let mut on_top: Vec<f32> = (0..x.len())
        .filter(|&v| rest[v][0].abs() < 0.15 && rest[v][2].abs() < 0.3)
        .map(|v| x[v].y - top)
        .collect();
    on_top.sort_by(f32::total_cmp);
    let least_drop = hanging.iter().copied().fold(f32::INFINITY, f32::min);
    let deepest = hanging.iter().copied().fold(0.0, f32::max);
    let stats = c.stats();
    eprintln!(
        "tablecloth ({} vertices): {inside} inside the box, min gap {min_gap:.2e} m; {} overhanging vertices hang \
         {least_drop:.3}..{deepest:.3} m below the top; {} over the top at height {:.4}..{:.4} m (median {:.4}, \
         thickness {thickness}); contacts {}, reported max penetration {:.2e} m, max edge strain {:.1} %",
        x.len(),
        hanging.len(),
        on_top.len(),
        on_top[0],
        on_top[on_top.len() - 1],
        on_top[on_top.len() / 2],
        stats.contact_count,
        stats.max_penetration,
        stats.max_edge_strain * 100.0
    );
    assert_eq!(inside, 0);
    assert!(min_gap >= -0.01 * thickness, "a vertex is {} m inside the thickened table", -min_gap);
    assert!(hanging.len() > 1000 && least_drop > 0.03, "the overhang hangs over the edge");
    assert!(deepest > 0.2);
    assert!((on_top[on_top.len() / 2] - thickness).abs() < 1e-4, "the cloth lies on the table top");
    assert!(on_top[0] >= 0.99 * thickness && on_top[on_top.len() - 1] < 0.02);
}

#[test]
fn cloth_ignores_colliders_outside_its_collision_mask() {
    let mut world = World::new(WorldDesc::default()).unwrap();
    let shelf = ColliderDesc { layers: 0b10, ..ColliderDesc::cuboid([0.5, 0.05, 0.5]) };
    world.add_collider(&shelf).unwrap();
    let mesh = grid(12, 0.4, Vec3::new(0.0, 0.2, 0.0), Vec3::X, Vec3::Z);
    let ignoring = add_cloth(&mut world, &mesh, ClothParams { collision_mask: 0b01, ..undamped() });
    let colliding = add_cloth(&mut world, &mesh, ClothParams { collision_mask: 0b11, ..undamped() });
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    let fell = centroid(&positions(&world, ignoring)).y;
    let rests = centroid(&positions(&world, colliding)).y;
    let thickness = ClothParams::default().collision_thickness;
    eprintln!(
        "layer mask: excluded cloth at y = {fell:.3} m (free fall: {:.3} m), colliding cloth at y = {rests:.4} m \
         (top + thickness = {:.4} m), contacts {} vs {}",
        0.2 - 0.5 * G,
        0.05 + thickness,
        world.cloth(ignoring).unwrap().stats().contact_count,
        world.cloth(colliding).unwrap().stats().contact_count
    );
    let free_fall = 0.2 - 0.5 * G * 1.0;
    assert!((fell / free_fall - 1.0).abs() < 0.02, "the masked-out cloth falls freely through the shelf");
    assert!((rests - (0.05 + thickness)).abs() < 1e-3);
    assert_eq!(world.cloth(ignoring).unwrap().stats().contact_count, 0);
}

/// A slowly turning collider holds a particle far from its axis at the contact thickness. The
/// broad phase bounds how far the collider's surface can move within a substep, and its bound on
/// the turn once rounded to 0 for 3e-4 rad per substep (0.02 rad/s at 60 Hz): the turning surface
/// then reached particles 10 m out that were skipped, and they ended 1 mm inside the 5 mm
/// thickness. Plane, long box and long capsule, each turning about the z axis through its centre,
/// a lone particle 10 m out resting above it.
#[test]
fn a_slowly_turning_collider_keeps_far_particles_at_the_thickness() {
    use std::f32::consts::FRAC_PI_2;
    let params = ClothParams::default();
    let thickness = params.collision_thickness;
    // (collider, base angle about z, local surface height above the particle's side, distance).
    let capsule_gap = |p: Vec3| Vec3::new(p.x, 0.0, p.z).length() - 0.05;
    type Surface<'a> = (ColliderDesc, f32, f32, &'a dyn Fn(Vec3) -> f32);
    let shapes: [Surface; 3] = [
        (ColliderDesc::plane(), 0.0, 0.0, &|p: Vec3| p.y),
        (ColliderDesc::cuboid([10.5, 0.05, 1.0]), 0.0, 0.05, &|p: Vec3| p.y - 0.05),
        // The capsule's axis is its local y: turned by π/2 it lies along −x.
        (ColliderDesc::capsule(0.05, 10.5), FRAC_PI_2, 0.05, &capsule_gap),
    ];
    for (desc, base, top, gap_of_local) in shapes {
        let mut world = World::new(WorldDesc { substeps: 1, iterations: 1, thread_count: 1, ..WorldDesc::default() }).unwrap();
        let pose = |a: f32| Pose::from_axis_angle([0.0; 3], [0.0, 0.0, 1.0], base + a);
        let collider = world.add_collider(&ColliderDesc { pose: pose(0.0), ..desc }).unwrap();
        let cloth = world.add_cloth(&ClothDesc { params, ..ClothDesc::new(&[[10.0, top + 0.01, 0.0]], &[]) }).unwrap();
        for k in 0..6 {
            let angle = 0.02 * (k + 1) as f32 * DT;
            world.set_collider_pose(collider, &pose(angle)).unwrap();
            world.step(DT).unwrap();
            let q = glam::Quat::from_axis_angle(glam::Vec3::Z, base + angle);
            let local = q.conjugate() * positions(&world, cloth)[0];
            let gap = gap_of_local(local) - thickness;
            assert!(gap > -1e-5, "{desc:?}, step {k}: gap {gap} m below the thickness");
        }
    }
}

/// A 1 m × 10 cm strip whose edges (`n` vertices along it) are longer than a horizontal capsule's
/// diameter, dropped across it `offset` m off centre: the highest particle's height and the
/// strip's mean x after `seconds` s, and the fewest contacts reported at a step end after 1 s.
fn strip_over_a_rod(n: usize, radius: f32, offset: f32, seconds: f32) -> (f32, f32, u32) {
    let mut world = World::new(WorldDesc::default()).unwrap();
    let (start, indices) = common::grid(n, 6, 1.0, 0.1, |u, v| [u - 0.5 + offset, 1.0 + radius + 0.01, v - 0.05]);
    let cloth = world.add_cloth(&ClothDesc::new(&start, &indices)).unwrap();
    let axis = Pose::from_axis_angle([0.0, 1.0, 0.0], [1.0, 0.0, 0.0], std::f32::consts::FRAC_PI_2);
    world.add_collider(&ColliderDesc { pose: axis, ..ColliderDesc::capsule(radius, 0.5) }).unwrap();
    let mut fewest = u32::MAX;
    for step in 0..(seconds / DT) as usize {
        world.step(DT).unwrap();
        if step >= 60 {
            fewest = fewest.min(world.cloth(cloth).unwrap().stats().contact_count);
        }
    }
    let x = positions(&world, cloth);
    (x.iter().map(|p| p.y).fold(f32::MIN, f32::max), centroid(&x).x, fewest)
}

/// Thin colliders hold cloth by its edges: a strip with 4 cm edges hung 5 cm off centre over a
/// 1 cm capsule (2 cm across, the particles straddle it) stays on it for 10 s at the defaults
/// (friction holds the heavier side: capstan ratio e^{μπ} = 4.8 against 0.55/0.45), and one
/// over a 5 mm capsule does not fall through; both report contacts at every step end after the
/// first second. With particle contacts alone the first slid off and the second fell through.
#[test]
fn a_strip_with_edges_longer_than_a_thin_capsule_stays_on_it() {
    for (n, radius, offset) in [(26, 0.01, 0.05), (26, 0.005, 0.0), (11, 0.01, 0.1)] {
        let (top, mean_x, fewest) = strip_over_a_rod(n, radius, offset, 10.0);
        println!("strip of {n} over a {radius} m capsule, {offset} m off centre: highest point {top:.4} m, mean x {mean_x:+.4} m, fewest contacts {fewest}");
        assert!((top - 1.0).abs() < radius + 0.03, "{n}, {radius}, {offset}: fell to {top}");
        assert!(mean_x.abs() < 0.12, "{n}, {radius}, {offset}: slid to {mean_x}");
        assert!(fewest > 0, "{n}, {radius}, {offset}: no contact reported");
    }
}
