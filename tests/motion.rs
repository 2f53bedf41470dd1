//! Motion at the defaults is physical: nothing damps rigid motion (`linear_damping` 0, and the
//! default `deformation_damping` keeps linear and angular momentum), so a cloth falls, slides and
//! spins as the analytic answers say. Every test here runs at the default parameters.

mod common;

use xpbd_cloth::{ClothDesc, ClothHandle, ClothParams, ColliderDesc, Pose, Vec3, World, WorldDesc};

const DT: f32 = 1.0 / 60.0;

fn world() -> World {
    World::new(WorldDesc::default()).unwrap()
}

/// A horizontal 21 × 21 sheet of side `size` m at the defaults, centred on `centre`.
fn sheet(world: &mut World, size: f32, centre: Vec3) -> ClothHandle {
    let (positions, indices) = common::horizontal_sheet(21, size, 0.0);
    let positions: Vec<[f32; 3]> = positions.iter().map(|p| (Vec3::from_array(*p) + centre - Vec3::new(size, 0.0, size) * 0.5).to_array()).collect();
    world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap()
}

/// Free fall for 2 s: every particle on the substep integrator's own ballistic answer, v += h·g
/// then x += h·v per substep (semi-implicit Euler), within 1 mm.
#[test]
fn a_free_cloth_falls_as_semi_implicit_euler_says_within_1_mm_after_2_s() {
    let mut world = world();
    let cloth = sheet(&mut world, 1.0, Vec3::new(0.0, 10.0, 0.0));
    let start = world.cloth(cloth).unwrap().particle_positions().to_vec();
    let g = Vec3::from_array(world.desc().gravity).as_dvec3();
    let substeps = world.desc().substeps;
    let steps = (2.0 / DT).round() as usize;
    let h = DT as f64 / substeps as f64;
    let (mut drop, mut v) = (glam::DVec3::ZERO, glam::DVec3::ZERO);
    for _ in 0..steps {
        world.step(DT).unwrap();
        for _ in 0..substeps {
            v += h * g;
            drop += h * v;
        }
    }
    let x = world.cloth(cloth).unwrap().particle_positions();
    let worst = x.iter().zip(&start).map(|(x, s)| (x.as_dvec3() - (s.as_dvec3() + drop)).length()).fold(0.0, f64::max);
    println!("free fall: {:.3} m in 2 s, worst particle {:.2e} m off", drop.length(), worst);
    assert!(worst < 1e-3, "a particle ends {worst} m from the ballistic answer");
}

/// A 0.5 m sheet on a 20° slope (a plane turned about Z) of friction μ (static = kinetic): the
/// sheet's centre of mass over the last 0.5 s of 1.5 s, fitted by least squares to
/// s(t) = s₀ + v₀t + at²/2 along the slope. Returns a and the final speed.
fn slide(mu: f32) -> (f64, f64) {
    let theta = 20f32.to_radians();
    let mut world = world();
    let plane = ColliderDesc { static_friction: mu, kinetic_friction: mu, pose: Pose::from_axis_angle([0.0; 3], [0.0, 0.0, 1.0], theta), ..ColliderDesc::plane() };
    world.add_collider(&plane).unwrap();
    let (positions, indices) = common::horizontal_sheet(21, 0.5, 0.0);
    let thickness = ClothParams::default().collision_thickness;
    // Lie on the slope at the contact thickness: rotate the sheet with the plane.
    let rotation = glam::Quat::from_axis_angle(Vec3::Z, theta);
    let positions: Vec<[f32; 3]> =
        positions.iter().map(|p| (rotation * (Vec3::from_array(*p) - Vec3::new(0.25, 0.0, 0.25) + Vec3::Y * thickness)).to_array()).collect();
    let cloth = world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
    let down = rotation * Vec3::NEG_X; // down the slope
    let mut samples = Vec::new();
    let steps = (1.5 / DT).round() as usize;
    for k in 1..=steps {
        world.step(DT).unwrap();
        if k * 3 > steps * 2 {
            let x = world.cloth(cloth).unwrap().particle_positions();
            let centre = x.iter().map(|p| p.as_dvec3()).sum::<glam::DVec3>() / x.len() as f64;
            samples.push((k as f64 * DT as f64, centre.dot(down.as_dvec3())));
        }
    }
    // Least squares of s = c0 + c1 t + c2 t² through the samples (normal equations, 3 × 3).
    let mut m = glam::DMat3::ZERO;
    let mut b = glam::DVec3::ZERO;
    for &(t, s) in &samples {
        let row = glam::DVec3::new(1.0, t, t * t);
        m += glam::DMat3::from_cols(row * row.x, row * row.y, row * row.z);
        b += row * s;
    }
    let c = m.inverse() * b;
    let v = world.cloth(cloth).unwrap().particle_velocities();
    let speed = (v.iter().map(|v| v.as_dvec3()).sum::<glam::DVec3>() / v.len() as f64).length();
    (2.0 * c.z, speed)
}

/// On a 20° slope the sheet accelerates at g(sin θ − μ cos θ) within 2 % for μ 0 and 0.2, and
/// with μ 0.5 (tan 20° = 0.36 < 0.5) it stays put.
#[test]
fn a_sheet_slides_down_a_slope_at_the_coulomb_acceleration_and_sticks_above_the_friction_angle() {
    let (g, theta) = (9.81f64, 20f64.to_radians());
    for mu in [0.0f32, 0.2] {
        let expected = g * (theta.sin() - mu as f64 * theta.cos());
        let (a, _) = slide(mu);
        println!("μ {mu}: a = {a:.4} m/s², Coulomb {expected:.4} m/s²");
        assert!((a - expected).abs() < 0.02 * expected, "μ {mu}: a = {a} m/s², Coulomb {expected} m/s²");
    }
    let (a, speed) = slide(0.5);
    println!("μ 0.5: a = {a:.2e} m/s², speed after 1.5 s {speed:.2e} m/s");
    assert!(speed < 1e-3, "μ 0.5: the sheet moves at {speed} m/s");
}

/// Linear and angular momentum of the free particles about their centre of mass.
fn angular_momentum(world: &World, cloth: ClothHandle) -> glam::DVec3 {
    let c = world.cloth(cloth).unwrap();
    let (x, v, w) = (c.particle_positions(), c.particle_velocities(), c.particle_inverse_masses());
    let mass: f64 = w.iter().map(|&w| 1.0 / w as f64).sum();
    let centre = x.iter().zip(w).map(|(x, &w)| x.as_dvec3() / w as f64).sum::<glam::DVec3>() / mass;
    x.iter().zip(v).zip(w).map(|((x, v), &w)| (x.as_dvec3() - centre).cross(v.as_dvec3()) / w as f64).sum()
}

/// The angular momentum about the centre of mass after 1 s of a 0.8 m sheet spinning in its
/// plane at `turns` per second and falling free, with `params`; and at the start.
fn spin(turns: f32, params: ClothParams) -> (glam::DVec3, glam::DVec3) {
    spin_at(turns, params, 20.0, false)
}

/// [`spin`] with the sheet at height `height` \[m\], over a ground plane at 0 when `ground`.
fn spin_at(turns: f32, params: ClothParams, height: f32, ground: bool) -> (glam::DVec3, glam::DVec3) {
    let mut world = world();
    if ground {
        world.add_collider(&ColliderDesc::plane()).unwrap();
    }
    let centre = Vec3::new(0.0, height, 0.0);
    let (positions, indices) = common::horizontal_sheet(21, 0.8, 0.0);
    let positions: Vec<[f32; 3]> = positions.iter().map(|p| (Vec3::from_array(*p) + centre - Vec3::new(0.4, 0.0, 0.4)).to_array()).collect();
    let cloth = world.add_cloth(&ClothDesc { params, ..ClothDesc::new(&positions, &indices) }).unwrap();
    let omega = Vec3::new(0.0, turns * std::f32::consts::TAU, 0.0);
    let c = world.cloth_mut(cloth).unwrap();
    let v: Vec<[f32; 3]> = c.particle_positions().iter().map(|&x| omega.cross(x - centre).to_array()).collect();
    c.set_velocities(None, &v).unwrap();
    let l0 = angular_momentum(&world, cloth);
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    (l0, angular_momentum(&world, cloth))
}

/// A free sheet spinning at half a turn, one turn and two turns per second keeps its angular
/// momentum within 1 % over 1 s, and the default damping takes none of it (the same sheet with
/// every damping off ends within 0.05 % of L₀ of it). The substeps' projections onto the edge
/// lengths lose some at a rate of about ω²h (at two turns a second, 18.8 % in 1 s); nothing outside
/// a free cloth exerts a torque about its centre of mass, so each step gives it back
/// (docs/design.md, "Angular momentum of a free cloth").
#[test]
fn a_spinning_free_cloth_keeps_its_angular_momentum_and_the_default_damping_takes_none_of_it() {
    for turns in [0.5, 1.0, 2.0] {
        let (l0, l1) = spin(turns, ClothParams::default());
        let (_, undamped) = spin(turns, ClothParams { deformation_damping: 0.0, ..ClothParams::default() });
        let (change, damping_share) = ((l1 - l0).length() / l0.length(), (l1 - undamped).length() / l0.length());
        println!("spin at {turns} turns/s: L {:.5} → {:.5} kg·m²/s ({:.3} %), undamped {:.5} ({:.4} % of L₀ apart)", l0.y, l1.y, change * 100.0, undamped.y, damping_share * 100.0);
        assert!(change < 0.01, "{turns} turns/s: angular momentum changed by {:.2} %", change * 100.0);
        assert!(damping_share < 5e-4, "{turns} turns/s: the damping changed L by {:.4} % of L₀", damping_share * 100.0);
    }
    // Spinning on the ground, friction takes the spin: nothing gives it back.
    let (l0, l1) = spin_at(1.0, ClothParams::default(), 0.006, true);
    println!("spin on the ground: L {:.5} → {:.5} kg·m²/s", l0.y, l1.y);
    assert!(l1.length() < 0.5 * l0.length(), "the ground's friction left L at {} of {}", l1.length(), l0.length());
}

/// The peak edge strain over 3 s of a 1 m 51² sheet of areal density `density` \[kg/m²\] and
/// zero stretch compliance hung from its top row.
fn hanging_peak_strain(density: f32) -> f32 {
    let mut world = world();
    let (positions, indices) = common::vertical_sheet(51, 1.0);
    let mut params = ClothParams { stretch_compliance: Some(0.0), ..ClothParams::default() };
    params.material.areal_density = density;
    let cloth = world.add_cloth(&ClothDesc { params, ..ClothDesc::new(&positions, &indices) }).unwrap();
    world.cloth_mut(cloth).unwrap().set_pinned(&(0..51).collect::<Vec<u32>>(), None).unwrap();
    let mut peak = 0.0f32;
    for _ in 0..180 {
        world.step(DT).unwrap();
        peak = peak.max(world.cloth(cloth).unwrap().stats().max_edge_strain);
    }
    peak
}

/// A 1 kg and a 1000 kg sheet (areal density 1 and 1000 kg/m²) of zero stretch compliance hung
/// from their top rows peak within 0.5 strain points of each other, below 3 %: only mass ratios
/// enter a projection of an inextensible edge. (At the material's compliance the 1000 kg sheet
/// stretches as such a load stretches 0.5 mm cotton: that is the material, not the solver.)
#[test]
fn a_1000_kg_sheet_of_zero_stretch_compliance_hangs_with_the_strain_of_a_1_kg_sheet() {
    let (light, heavy) = (hanging_peak_strain(1.0), hanging_peak_strain(1000.0));
    println!("hanging 51²: peak strain 1 kg {:.2} %, 1000 kg {:.2} %", light * 100.0, heavy * 100.0);
    assert!(light < 0.03 && heavy < 0.03, "peaks {light} and {heavy}");
    assert!((light - heavy).abs() < 0.005, "peaks {light} and {heavy}");
}

/// The largest particle move \[m\] in one step of a 1 m 21² sheet hung from its two top corners
/// and at rest after 6 s, before and (over the next second) after its stretch compliance changes
/// from the material's to `to`; and the compliance of every edge after 1, 7 and 16 steps of
/// 1/60 s (the largest and smallest of each).
fn moves_after_stiffness_change(to: f32) -> (f32, f32, Vec<(f32, f32)>) {
    let mut world = world();
    let (positions, indices) = common::vertical_sheet(21, 1.0);
    let cloth = world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
    world.cloth_mut(cloth).unwrap().set_pinned(&[0, 20], None).unwrap();
    for _ in 0..360 {
        world.step(DT).unwrap();
    }
    let largest_move = |world: &mut World| {
        let before = world.cloth(cloth).unwrap().particle_positions().to_vec();
        world.step(DT).unwrap();
        let after = world.cloth(cloth).unwrap().particle_positions();
        before.iter().zip(after).map(|(a, b)| a.distance(*b)).fold(0.0f32, f32::max)
    };
    let at_rest = largest_move(&mut world);
    let c = world.cloth_mut(cloth).unwrap();
    let params = ClothParams { stretch_compliance: Some(to), ..*c.params() };
    c.set_params(params).unwrap();
    let (mut after, mut compliances) = (0.0f32, Vec::new());
    for step in 1..=60 {
        after = after.max(largest_move(&mut world));
        if [1, 7, 16].contains(&step) {
            let a = &world.cloth(cloth).unwrap().stretch_constraints().compliance;
            compliances.push((a.iter().copied().fold(f32::INFINITY, f32::min), a.iter().copied().fold(0.0, f32::max)));
        }
    }
    (at_rest, after, compliances)
}

/// A stiffness change moves nothing by itself: set on a cloth at rest, the new compliance takes
/// effect over 0.25 s (every edge's compliance between the old and the new one after one and
/// seven steps, the new one exactly after sixteen), and no step moves a particle by 1 mm (at once,
/// the tethers and the strain limit snapped to their new bounds: 4.3 mm in one step).
#[test]
fn a_stiffness_change_on_a_hanging_cloth_at_rest_moves_no_particle_1_mm_in_a_step() {
    for to in [1e-6, 0.0, 1e-3] {
        let (at_rest, moved, compliances) = moves_after_stiffness_change(to);
        println!("stretch compliance → {to}: largest move in a step {:.3} mm at rest, {:.3} mm after; compliances {compliances:?}", at_rest * 1e3, moved * 1e3);
        assert!(at_rest < 1e-4, "{to}: not at rest ({at_rest} m)");
        assert!(moved < 1e-3, "{to}: {moved} m in a step");
        let [first, middle, last] = [compliances[0], compliances[1], compliances[2]];
        assert!(first.0 != to && first.1 != to && middle.0 != to && middle.1 != to, "{to}: reached before the ramp's end: {compliances:?}");
        assert_eq!(last, (to, to), "{to}: the new compliance after 0.25 s");
    }
}
