//! Validation experiments: the solver reproduces analytic answers (an edge's static elongation
//! α·m·g at any Δt and substep count, docs/design.md, "Units and symbols"; residuals falling with
//! substeps, a hinge's rest angle, bounded statistics and energy of a hanging cloth).

mod common;
use common::*;
use std::f32::consts::PI;
use xpbd_cloth::{ClothDesc, ClothParams, Vec3, World, WorldDesc};

/// Parameters with every constraint type off; tests switch on what they exercise.
fn bare_params() -> ClothParams {
    ClothParams { enable_stretch: false, enable_bending: false, enable_tethers: false, ..ClothParams::default() }
}

// ---------------------------------------------------------------- 1. single edge hanging

#[test]
fn single_edge_static_elongation_equals_alpha_m_g_at_any_dt_and_substeps() {
    let (mass, alpha, rest) = (0.5f32, 2.0e-3f32, 1.0f32);
    let g = 9.81f32;
    for (dt, substeps) in [(1.0 / 30.0, 1), (1.0 / 60.0, 10), (1.0 / 120.0, 4)] {
        let positions = [[0.0, 0.0, 0.0], [0.0, -rest, 0.0]];
        let lines = [[0u32, 1]];
        let inverse_masses = [0.0, 1.0 / mass];
        let mut world = World::new(WorldDesc { substeps, ..WorldDesc::default() }).unwrap();
        let mut desc = ClothDesc::new(&positions, &[]);
        desc.lines = &lines;
        desc.inverse_masses = Some(&inverse_masses);
        desc.params = ClothParams {
            enable_stretch: true,
            stretch_compliance: Some(alpha),
            linear_damping: 4.0,
            ..bare_params()
        };
        let cloth = world.add_cloth(&desc).unwrap();
        let steps = (15.0 / dt) as usize;
        for _ in 0..steps {
            world.step(dt).unwrap();
        }
        let p = positions_of(&world, cloth);
        let elongation = (Vec3::from(p[1]) - Vec3::from(p[0])).length() - rest;
        let expected = alpha * mass * g;
        let stats = world.cloth(cloth).unwrap().stats();
        let force = -stats.stretch.min_force; // λ < 0: tension
        eprintln!("dt {dt:.4} n {substeps}: elongation {elongation:.6e} (αmg {expected:.6e}), λ/h² {force:.5} N (mg {:.5})", mass * g);
        assert!((elongation / expected - 1.0).abs() < 0.01, "elongation {elongation} vs {expected}");
        assert!((force / (mass * g) - 1.0).abs() < 0.01, "force {force} vs {}", mass * g);
        assert_eq!(stats.stretch.count, 1);
    }
}

fn positions_of(world: &World, cloth: xpbd_cloth::ClothHandle) -> Vec<[f32; 3]> {
    positions(world, cloth)
}

// ---------------------------------------------------------------- 2. particle chain

/// Max |C| of a rigid 20-particle, 1 m chain pinned at one end, released horizontally, after 2 s.
fn chain_residual(substeps: u32, iterations: u32) -> f32 {
    let n = 20usize;
    let positions: Vec<[f32; 3]> = (0..n).map(|i| [i as f32 / (n - 1) as f32, 0.0, 0.0]).collect();
    let lines: Vec<[u32; 2]> = (0..n as u32 - 1).map(|i| [i, i + 1]).collect();
    let inverse_masses: Vec<f32> = (0..n).map(|i| if i == 0 { 0.0 } else { 20.0 }).collect();
    let mut world = World::new(WorldDesc { substeps, iterations, ..WorldDesc::default() }).unwrap();
    let mut desc = ClothDesc::new(&positions, &[]);
    desc.lines = &lines;
    desc.inverse_masses = Some(&inverse_masses);
    // Without the strain limit: its anchored pass would hold the chain at max_stretch whatever the
    // substeps, and this validates the substeps' own convergence.
    desc.params = ClothParams { enable_stretch: true, stretch_compliance: Some(0.0), max_stretch: None, ..bare_params() };
    let cloth = world.add_cloth(&desc).unwrap();
    for _ in 0..120 {
        world.step(1.0 / 60.0).unwrap();
    }
    world.cloth(cloth).unwrap().stats().stretch.max_abs_c
}

#[test]
fn chain_residual_falls_as_substeps_grow_and_substeps_beat_iterations() {
    let by_substeps: Vec<f32> = [1, 2, 5, 10, 20].iter().map(|&n| chain_residual(n, 1)).collect();
    eprintln!("max |C| for substeps 1, 2, 5, 10, 20: {by_substeps:?}");
    for pair in by_substeps.windows(2) {
        assert!(pair[1] < pair[0], "residual did not fall: {by_substeps:?}");
    }
    let iterations = chain_residual(1, 20);
    eprintln!("1 substep × 20 iterations: {iterations:e}; 20 substeps × 1 iteration: {:e}", by_substeps[4]);
    assert!(by_substeps[4] < iterations);
}

// ---------------------------------------------------------------- 3. two-triangle hinge

/// A hinge on the edge x2 = origin → x3 = (1, 0, 0) with wings at `psi_a` and `psi_b` [rad] around it.
fn hinge(psi_a: f32, psi_b: f32) -> [Vec3; 4] {
    let wing = |t: f32, psi: f32, r: f32| Vec3::new(t, r * psi.sin(), r * psi.cos());
    [wing(0.35, psi_a, -1.0), wing(0.6, psi_b, 0.8), Vec3::ZERO, Vec3::X]
}

/// The signed dihedral angle φ \[rad\] of hinge `[x0, x1, x2, x3]` as the library defines it
/// (docs/design.md, "Bending constraint"): shared edge e = x3 − x2, n_A = e × (x0 − x2),
/// n_B = (x1 − x2) × e, φ = atan2((n_A × n_B)·ê, n_A·n_B).
fn dihedral_angle(p: [Vec3; 4]) -> Option<f32> {
    let e = p[3] - p[2];
    let (n_a, n_b) = (e.cross(p[0] - p[2]), (p[1] - p[2]).cross(e));
    (e.length() > 0.0 && n_a.length() > 0.0 && n_b.length() > 0.0).then(|| n_a.cross(n_b).dot(e.normalize()).atan2(n_a.dot(n_b)))
}

#[test]
fn hinge_recovers_rest_angle_after_perturbation() {
    for rest in [0.0f32, 1.0, -1.0, 3.0, -3.0] {
        let p = hinge(0.0, rest);
        let positions: Vec<[f32; 3]> = p.iter().map(|v| v.to_array()).collect();
        let indices = [2, 3, 0, 3, 2, 1];
        let params = ClothParams {
            enable_stretch: true,
            enable_bending: true,
            stretch_compliance: Some(0.0),
            bend_compliance: Some(0.05),
            bend_damping: 0.01,
            linear_damping: 3.0,
            ..bare_params()
        };
        let world_desc = WorldDesc { gravity: [0.0; 3], ..WorldDesc::default() };
        let (mut world, cloth) = world_with_cloth(world_desc, &positions, &indices, params);
        let c = world.cloth(cloth).unwrap();
        let hinge_ids = c.bending_constraints().hinges[0];
        let stored_rest = c.bending_constraints().rest_angle[0];
        assert!((stored_rest.abs() - rest.abs()).abs() < 1e-5, "rest {stored_rest} vs {rest}");
        let angle = |world: &World| {
            let x = world.cloth(cloth).unwrap().particle_positions();
            dihedral_angle(hinge_ids.map(|i| x[i as usize])).unwrap()
        };
        let wrap = |a: f32| (a + PI).rem_euclid(2.0 * PI) - PI;

        // Perturb: drive all four vertices to the hinge with wing B rotated 0.5 rad further
        // (possibly across ±π), hold one more step so it is at rest, then release it.
        let perturbed = hinge(0.0, rest + 0.5).map(|v| v.to_array());
        world.cloth_mut(cloth).unwrap().set_pinned(&[0, 1, 2, 3], Some(&perturbed)).unwrap();
        world.step(1.0 / 60.0).unwrap();
        world.step(1.0 / 60.0).unwrap();
        let disturbed = wrap(angle(&world) - stored_rest);
        assert!((disturbed.abs() - 0.5).abs() < 0.05, "perturbation {disturbed}");
        world.cloth_mut(cloth).unwrap().unpin(&[0, 1, 2, 3]).unwrap();
        for _ in 0..120 {
            world.step(1.0 / 60.0).unwrap();
        }
        let error = wrap(angle(&world) - stored_rest);
        eprintln!("rest {rest:+.1} rad: perturbed by {disturbed:+.3}, error after 2 s {error:+.2e} rad");
        assert!(error.abs() < 1e-3, "rest {rest}: error {error}");
    }
}

// ---------------------------------------------------------------- 4. hanging cloth

#[test]
fn hanging_cloth_reports_bounded_stats_and_energy_never_grows() {
    // 32 × 32, 1 m, released horizontally from its two pinned corners: it swings down and back.
    let (positions, indices) = horizontal_sheet(32, 1.0, 0.0);
    let params = ClothParams { linear_damping: 0.0, ..ClothParams::default() };
    let (mut world, cloth) = world_with_cloth(WorldDesc::default(), &positions, &indices, params);
    world.cloth_mut(cloth).unwrap().set_pinned(&[0, 31], None).unwrap();
    let g = gravity();
    let c = world.cloth(cloth).unwrap();
    let mass: f32 = c.particle_inverse_masses().iter().filter(|&&w| w > 0.0).map(|w| 1.0 / w).sum();
    let e0 = c.energy(g).total();
    // Scale of the motion: the energy released by dropping the whole cloth by its size (1 m).
    let scale = mass * g.length() * 1.0;
    let mut max_growth = f32::MIN;
    for _ in 0..600 {
        world.step(1.0 / 60.0).unwrap();
        let c = world.cloth(cloth).unwrap();
        max_growth = max_growth.max(c.energy(g).total() - e0);
        let s = c.stats();
        for t in [&s.stretch, &s.bending, &s.tether] {
            assert!(t.mean_abs_c.is_finite() && t.p95_abs_c <= t.max_abs_c && t.mean_abs_c <= t.max_abs_c);
            assert!(t.min_force.is_finite() && t.max_force.is_finite() && t.min_force <= t.max_force);
        }
        // Tether residual: the top row lies in the thin lens between the balls around both pins
        // (1 m apart, radii summing to 1 m), where alternating projections converge slowly.
        assert!(s.stretch.max_abs_c < 0.05 && s.tether.max_abs_c < 5e-3 && s.max_edge_strain < 0.5, "{s:?}");
    }
    let s = world.cloth(cloth).unwrap().stats();
    eprintln!("after 10 s: {s:#?}\nmax energy growth {max_growth:.3e} J of scale {scale:.3} J");
    assert_eq!(s.stretch.count, world.cloth(cloth).unwrap().info().edge_count);
    assert_eq!(s.bending.count, world.cloth(cloth).unwrap().info().hinge_count);
    assert_eq!(s.tether.count, 2 * (32 * 32 - 2)); // every free particle to both pins
    assert!(max_growth <= 0.01 * scale, "energy grew by {max_growth} J (scale {scale} J)");
}
