//! The validation scenes of `tests/solver_validation.rs` (a single edge, a chain, a hinge, a
//! hanging cloth; and a cloth dropped on a sphere), built through the public API on one thread, at
//! 60 Hz with 10 substeps of one iteration unless a scene says otherwise.

use super::adapter::set_state;
use crate::test_util::grid;
use crate::{ClothDesc, ClothHandle, ClothParams, ColliderDesc, ColliderHandle, ColliderKind, Pose, World, WorldDesc};
use glam::{DQuat, DVec3};

/// A world with one cloth and the colliders it meets.
pub(crate) struct Scene {
    pub world: World,
    pub cloth: ClothHandle,
    pub colliders: Vec<ColliderHandle>,
    /// The fixed step \[s\].
    pub dt: f32,
}

/// The frame step of every scene \[s\].
pub(crate) const DT: f32 = 1.0 / 60.0;

/// Every constraint type off; a scene switches on what it exercises.
fn bare_params() -> ClothParams {
    // No strain limit and undamped: the oracle compares the constraints' formulas (the line scenes
    // that test damping set it).
    ClothParams { enable_stretch: false, enable_bending: false, enable_tethers: false, max_stretch: None, linear_damping: 0.0, ..ClothParams::default() }
}

fn world(gravity: [f32; 3], substeps: u32) -> World {
    world_iterating(gravity, substeps, 1)
}

fn world_iterating(gravity: [f32; 3], substeps: u32, iterations: u32) -> World {
    World::new(WorldDesc { gravity, substeps, iterations, thread_count: 1 }).unwrap()
}

/// A cloth of particles joined by `lines` only (no triangles), with inverse masses `w` \[1/kg\].
fn line_scene(positions: &[[f32; 3]], lines: &[[u32; 2]], w: &[f32], params: ClothParams) -> Scene {
    let mut world = world([0.0, -9.81, 0.0], 10);
    let mut desc = ClothDesc::new(positions, &[]);
    desc.lines = lines;
    desc.inverse_masses = Some(w);
    desc.params = params;
    let cloth = world.add_cloth(&desc).unwrap();
    Scene { world, cloth, colliders: Vec::new(), dt: DT }
}

/// A lone free particle of 1 kg thrown at `velocity` \[m/s\] under gravity, with linear damping
/// d \[1/s\]: the substep's prediction and velocity update alone.
pub(crate) fn thrown_particle(velocity: DVec3, linear_damping: f32) -> Scene {
    let mut world = world([0.0, -9.81, 0.0], 10);
    let mut desc = ClothDesc::new(&[[0.0; 3]], &[]);
    desc.inverse_masses = Some(&[1.0]);
    desc.params = ClothParams { linear_damping, ..bare_params() };
    let cloth = world.add_cloth(&desc).unwrap();
    set_state(&mut world, cloth, &[DVec3::ZERO], &[velocity]);
    Scene { world, cloth, colliders: Vec::new(), dt: DT }
}

/// `desc` with the default material but no strain limit, which the oracle does not model (the
/// limit is tested on its own in `constraints::strain_limit` and tests/strain.rs), and undamped,
/// as these scenes were recorded before the default damping.
pub(crate) fn without_strain_limit(mut desc: ClothDesc<'_>) -> ClothDesc<'_> {
    desc.params.max_stretch = None;
    desc.params.linear_damping = 0.0;
    desc
}

/// Single edge: a pinned particle at the origin and a free one of 0.5 kg 0.3 m from it, released
/// horizontally (it swings down), on an edge of compliance α \[m/N\] and damping β \[N·s/m\], with
/// linear damping d \[1/s\].
pub(crate) fn single_edge(compliance: f32, damping: f32, linear_damping: f32) -> Scene {
    let params = ClothParams {
        enable_stretch: true,
        stretch_compliance: Some(compliance),
        stretch_damping: damping,
        linear_damping,
        ..bare_params()
    };
    line_scene(&[[0.0; 3], [0.3, 0.0, 0.0]], &[[0, 1]], &[0.0, 2.0], params)
}

/// Chain: a chain of `links` links of 0.1 m, pinned at one end, particles of 50 g, released
/// horizontally, its links of compliance α \[m/N\].
pub(crate) fn chain(links: usize, compliance: f32) -> Scene {
    let positions: Vec<[f32; 3]> = (0..=links).map(|i| [0.1 * i as f32, 0.0, 0.0]).collect();
    let lines: Vec<[u32; 2]> = (0..links as u32).map(|i| [i, i + 1]).collect();
    let w: Vec<f32> = (0..=links).map(|i| if i == 0 { 0.0 } else { 20.0 }).collect();
    let params = ClothParams { enable_stretch: true, stretch_compliance: Some(compliance), ..bare_params() };
    line_scene(&positions, &lines, &w, params)
}

/// The hinge's rest pose: the shared edge on the z axis from the origin to (0, 0, 0.2), wing A's
/// tip at (0.15, 0, 0.1), wing B's tip 0.15 m from the edge, turned `psi` \[rad\] out of wing A's
/// plane.
fn hinge_positions(psi: f64) -> [DVec3; 4] {
    let tip_b = DQuat::from_rotation_z(psi) * DVec3::new(-0.15, 0.0, 0.08);
    [DVec3::new(0.15, 0.0, 0.1), tip_b, DVec3::ZERO, DVec3::new(0.0, 0.0, 0.2)]
}

/// Hinge: two triangles of unit inverse masses on a rigid edge frame (stretch α = 0), bent 0.6 rad
/// at rest, with bending compliance α \[rad/(N·m)\] and damping β \[N·m·s/rad\]; no gravity;
/// `iterations` per substep (from the second on, a projection starts from the λ of the first).
/// Released with wing B turned a further 0.3 rad and moving.
pub(crate) fn hinge(compliance: f32, damping: f32, iterations: u32) -> Scene {
    let rest = hinge_positions(0.6).map(|p| p.as_vec3().to_array());
    let mut world = world_iterating([0.0; 3], 10, iterations);
    let mut desc = ClothDesc::new(&rest, &[2, 3, 0, 3, 2, 1]);
    desc.inverse_masses = Some(&[1.0; 4]);
    desc.params = ClothParams {
        enable_stretch: true,
        enable_bending: true,
        stretch_compliance: Some(0.0),
        bend_compliance: Some(compliance),
        bend_damping: damping,
        ..bare_params()
    };
    let cloth = world.add_cloth(&desc).unwrap();
    let bent = hinge_positions(0.9);
    let v = [DVec3::new(0.0, 0.2, 0.0), DVec3::new(0.1, -0.3, 0.05), DVec3::ZERO, DVec3::new(0.0, 0.1, 0.0)];
    set_state(&mut world, cloth, &bent, &v);
    Scene { world, cloth, colliders: Vec::new(), dt: DT }
}

/// Hanging cloth: an 8 × 8 sheet of 0.5 m, hung by the two corners of one edge, with the default
/// material (stretch and bending compliances from it) and rigid tethers, coloured or not. Made as a
/// shallow trough (`dip` \[m\] deep across the pinned edge), so that the pins are closer than the
/// mesh distance between them.
pub(crate) fn hanging_cloth(colouring: bool, dip: f32) -> Scene {
    let n = 8;
    let (mut positions, indices) = grid(n, 0.5 / (n - 1) as f32, 0.0);
    for p in &mut positions {
        p[1] = -dip * (std::f32::consts::PI * p[0] / 0.5).sin();
    }
    let mut world = world([0.0, -9.81, 0.0], 10);
    let cloth = world.add_cloth(&without_strain_limit(ClothDesc::new(&positions, &indices))).unwrap();
    let c = world.cloth_mut(cloth).unwrap();
    c.set_constraint_colouring(colouring);
    c.set_pinned(&[0, n as u32 - 1], None).unwrap();
    Scene { world, cloth, colliders: Vec::new(), dt: DT }
}

/// An 8 × 8 sheet of 0.6 m, horizontal, 0.3 m above the top of a resting sphere of 0.2 m radius
/// under its middle, μ_s = 0.5, μ_k = 0.4; nothing pinned (no tethers), default contact thickness.
pub(crate) fn cloth_over_sphere() -> Scene {
    cloth_over_sphere_with(0.5, 0.4)
}

pub(crate) fn cloth_over_sphere_with(static_friction: f32, kinetic_friction: f32) -> Scene {
    let n = 8;
    let (positions, indices) = grid(n, 0.6 / (n - 1) as f32, 0.5);
    let mut world = world([0.0, -9.81, 0.0], 10);
    let cloth = world.add_cloth(&without_strain_limit(ClothDesc::new(&positions, &indices))).unwrap();
    let sphere = ColliderDesc {
        kind: ColliderKind::Sphere,
        radius: 0.2,
        pose: Pose::at([0.31, 0.0, 0.29]),
        static_friction,
        kinetic_friction,
        ..ColliderDesc::default()
    };
    let colliders = vec![world.add_collider(&sphere).unwrap()];
    Scene { world, cloth, colliders, dt: DT }
}
