//! The reference checked on its own, before it judges the library: its gradients against central
//! differences, its static answers against the analytic ones, its geometry against brute force.

use super::Compliance;
use super::adapter::{Edge, Model, Settings};
use super::contact::{Sphere, project_sphere_contact};
use super::dihedral::{dihedral_angle, dihedral_gradient, principal_angle};
use super::distance::project_distance;
use super::substep::ReferenceCloth;
use super::tether::nearest_point_in_two_balls;
use crate::test_util::uniform;
use glam::DVec3;
use std::f64::consts::PI;

/// Random points in [−1, 1)³ from a fixed sequence.
fn points(seed: u32) -> impl FnMut() -> DVec3 {
    let mut next = uniform(seed);
    move || DVec3::new(next() as f64, next() as f64, next() as f64)
}

/// Central differences of `f` at `p` with step `eps`, per particle and axis.
fn central_differences(p: [DVec3; 4], eps: f64, f: impl Fn([DVec3; 4]) -> f64) -> [DVec3; 4] {
    std::array::from_fn(|q| {
        let along = |axis: usize| {
            let (mut plus, mut minus) = (p, p);
            plus[q][axis] += eps;
            minus[q][axis] -= eps;
            (f(plus) - f(minus)) / (2.0 * eps)
        };
        DVec3::new(along(0), along(1), along(2))
    })
}

/// A hinge with its edge on the z axis (x3 → x4 upwards), wing A in the x–z plane and wing B
/// turned `psi` \[rad\] about +z out of the flat pose: φ = ψ for ψ in (−π, π).
fn hinge_at(psi: f64) -> [DVec3; 4] {
    let b = glam::DQuat::from_rotation_z(psi) * DVec3::new(-0.4, 0.0, 0.3);
    [DVec3::new(0.5, 0.0, 0.6), b, DVec3::ZERO, DVec3::new(0.0, 0.0, 1.0)]
}

/// The hinge's gradient (docs/design.md, "Bending constraint"): Bridson's gradient is the
/// derivative of the signed angle: relative error below 1e-6 against central differences on random
/// non-degenerate hinges (f64, step 1e-6 m) away from ±π, where φ wraps; it sums to zero
/// (translation invariance).
#[test]
fn dihedral_gradient_matches_central_differences_and_sums_to_zero() {
    let mut next = points(7);
    let mut checked = 0;
    for _ in 0..500 {
        let p = [next(), next(), next(), next()];
        let (Some(phi), Some(g)) = (dihedral_angle(p), dihedral_gradient(p)) else { continue };
        if phi.abs() > 3.0 || (0..2).any(|k| (p[k] - p[2]).cross(p[3] - p[2]).length() < 0.05) {
            continue;
        }
        let fd = central_differences(p, 1e-6, |q| dihedral_angle(q).unwrap());
        let scale = g.iter().map(|v| v.length()).fold(0.0, f64::max);
        let error = (0..4).map(|q| (g[q] - fd[q]).length()).fold(0.0, f64::max) / scale;
        assert!(error < 1e-6, "relative error {error} at {p:?}");
        let sum: DVec3 = g.iter().sum();
        assert!(sum.length() < 1e-12 * scale, "Σ∇φ = {sum}");
        checked += 1;
    }
    assert!(checked > 300, "{checked} hinges checked");
}

/// The gradient is smooth through flat, where the acos form's is unbounded: at ψ = ±1e-4 rad
/// either side of flat it differs by about its second derivative times 2e-4, and matches
/// central differences there.
#[test]
fn dihedral_gradient_is_smooth_through_flat() {
    let (below, above) = (dihedral_gradient(hinge_at(-1e-4)).unwrap(), dihedral_gradient(hinge_at(1e-4)).unwrap());
    let jump = (0..4).map(|q| (above[q] - below[q]).length()).fold(0.0, f64::max);
    let size = below.iter().map(|v| v.length()).fold(0.0, f64::max);
    assert!(jump < 1e-3 * size, "gradient jumps by {jump} (size {size}) through flat");
    let fd = central_differences(hinge_at(0.0), 1e-7, |q| dihedral_angle(q).unwrap());
    let flat = dihedral_gradient(hinge_at(0.0)).unwrap();
    assert!((0..4).all(|q| (flat[q] - fd[q]).length() < 1e-6 * size));
}

/// The sign convention: wing B turned by ψ about the edge gives φ = ψ, through ±π wrapped into
/// (−π, π]; C = φ − φ₀ is the nearest difference, so a hinge 0.1 rad past π from a rest of 3 rad
/// is 0.38 rad from rest, not 5.9.
#[test]
fn signed_angle_follows_the_turn_of_the_wing_and_wraps_at_pi() {
    for psi in [-3.0, -1.0, -0.2, 0.0, 0.2, 1.0, 3.0] {
        let phi = dihedral_angle(hinge_at(psi)).unwrap();
        assert!((phi - psi).abs() < 1e-12, "ψ {psi}: φ {phi}");
    }
    let past_pi = dihedral_angle(hinge_at(PI + 0.1)).unwrap();
    assert!((past_pi - (-PI + 0.1)).abs() < 1e-12, "{past_pi}");
    assert!((principal_angle(past_pi - 3.0) - (PI + 0.1 - 3.0)).abs() < 1e-12);
    assert_eq!(principal_angle(-PI), PI);
}

/// A hinge whose triangle has no height, or whose edge has no length, has no angle: skipped.
#[test]
fn degenerate_hinges_have_no_angle() {
    let p = hinge_at(0.5);
    let on_edge = [p[2].lerp(p[3], 0.3), p[1], p[2], p[3]];
    let no_edge = [p[0], p[1], p[2], p[2]];
    for (name, h) in [("zero height", on_edge), ("zero edge", no_edge)] {
        assert!(dihedral_angle(h).is_none() && dihedral_gradient(h).is_none(), "{name}");
    }
}

/// A reference model of one edge from a pinned particle to a free one of mass `mass` \[kg\].
fn edge_model(mass: f64, compliance: f64, rest_length: f64, stretch_damping: f64, linear_damping: f64, substeps: u32) -> Model {
    let settings = Settings {
        gravity: DVec3::new(0.0, -9.81, 0.0),
        substeps,
        iterations: 1,
        stretch_damping,
        bend_damping: 0.0,
        tether_slack: 1.0,
        tether_compliance: 0.0,
        linear_damping,
        deformation_damping: 0.0,
        collision_thickness: 0.0,
        max_depenetration_speed: 0.5,
    };
    Model {
        inverse_mass: vec![0.0, 1.0 / mass],
        edges: vec![Edge { particles: [0, 1], rest_length, compliance }],
        edge_colour_start: Vec::new(),
        hinges: Vec::new(),
        hinge_colour_start: Vec::new(),
        tethers: Vec::new(),
        settings,
        spheres: Vec::new(),
    }
}

/// The single-edge validation (docs/design.md, "Units and symbols") for the reference loop:
/// a 0.5 kg particle hanging from a pin on an edge of α = 2e-3 m/N comes to rest with elongation
/// α·m·g (within 1e-4 relative after 10 s of damping), the same for any step and substep count.
#[test]
fn reference_static_elongation_equals_alpha_m_g_at_any_dt_and_substeps() {
    let (mass, alpha, rest) = (0.5, 2.0e-3, 1.0);
    for (dt, substeps) in [(1.0 / 30.0, 1), (1.0 / 60.0, 10), (1.0 / 120.0, 4)] {
        let model = edge_model(mass, alpha, rest, 2.0, 4.0, substeps);
        let x = vec![DVec3::ZERO, DVec3::new(0.0, -rest, 0.0)];
        let mut cloth = ReferenceCloth::new(model, x, vec![DVec3::ZERO; 2]);
        for _ in 0..(10.0 / dt) as usize {
            cloth.step(dt);
        }
        let elongation = cloth.x[1].length() - rest;
        let expected = alpha * mass * 9.81;
        assert!((elongation / expected - 1.0).abs() < 1e-4, "dt {dt}, n {substeps}: {elongation} vs α·m·g {expected}");
    }
}

/// XPBD's force estimate f = λ/h² of a hanging edge at rest is its weight m·g: one projection
/// of the edge at its static elongation α·m·g, after a prediction by g·h², gives λ = −m·g·h²
/// (to first order in h²·w/α̃, exactly here since the particle then lands at rest).
#[test]
fn multiplier_over_h_squared_is_the_weight_at_rest() {
    let (mass, alpha, h) = (0.5, 2.0e-3, 1.0 / 600.0);
    let at_rest = DVec3::new(0.0, -(1.0 + alpha * mass * 9.81), 0.0);
    let predicted = at_rest + DVec3::new(0.0, -9.81 * h * h, 0.0);
    let k = Compliance { alpha, beta: 0.0, h };
    let p = project_distance([DVec3::ZERO, predicted], [DVec3::ZERO, at_rest], [0.0, 1.0 / mass], 1.0, k, 0.0).unwrap();
    let force = -p.delta_lambda / (h * h);
    assert!((force / (mass * 9.81) - 1.0).abs() < 1e-9, "λ/h² = {force} N");
    assert!((predicted + p.dx[1] - at_rest).length() < 1e-12, "the particle ends at rest");
}

/// The nearest point within two balls, against brute force: no point of a fine sample of the
/// lens lies nearer, and the answer lies in both balls; particles inside are left alone.
#[test]
fn nearest_point_in_two_balls_is_nearest() {
    let mut next = points(3);
    let (a1, a2) = (DVec3::ZERO, DVec3::new(1.0, 0.0, 0.0));
    for (r1, r2) in [(0.6, 0.6), (0.9, 0.3), (0.52, 0.5), (0.5, 0.5), (0.3, 0.4)] {
        let mut sample = Vec::new();
        for _ in 0..40_000 {
            let q = next() * 1.0 + DVec3::new(0.5, 0.0, 0.0);
            if q.distance(a1) <= r1 && q.distance(a2) <= r2 {
                sample.push(q);
            }
        }
        for _ in 0..50 {
            let x = next() * 2.0 + DVec3::new(0.5, 0.0, 0.0);
            let p = nearest_point_in_two_balls(x, (a1, r1), (a2, r2), 0.0);
            if r1 + r2 <= 1.0 {
                // The balls meet at most in a point: the point between them.
                assert!((p - DVec3::new(r1 / (r1 + r2), 0.0, 0.0)).length() < 1e-12);
                continue;
            }
            assert!(p.distance(a1) <= r1 + 1e-12 && p.distance(a2) <= r2 + 1e-12, "{p} outside");
            let best = sample.iter().map(|q| q.distance(x)).fold(f64::INFINITY, f64::min);
            assert!(p.distance(x) <= best + 1e-12, "{p} at {} from {x}, a sample point at {best}", p.distance(x));
            if x.distance(a1) <= r1 && x.distance(a2) <= r2 {
                assert_eq!(p, x);
            }
        }
    }
}

/// Friction on a sphere is Coulomb's law at position level: a particle pressed onto the top
/// by gravity over a substep sticks where the slope is below atan(μ_s), and slides elsewhere with
/// its slip shortened by μ_k·depth.
#[test]
fn sphere_friction_sticks_below_the_friction_angle_and_slides_above_it() {
    let sphere = Sphere { centre: DVec3::ZERO, radius: 1.0, static_friction: 0.5, kinetic_friction: 0.4 };
    let h = 1.0 / 600.0;
    let fall = DVec3::new(0.0, -9.81 * h * h, 0.0);
    for slope in [0.2f64, 0.4, 0.6, 0.8] {
        // At rest on the sphere at polar angle `slope`, moved by gravity alone for one substep.
        let on = DVec3::new(slope.sin(), slope.cos(), 0.0);
        let x = project_sphere_contact(on + fall, on, &sphere, 0.0, 1e-6).expect("pressed into the sphere");
        let n = on;
        let depth = -fall.dot(n);
        let slip_before = (fall - n * fall.dot(n)).length();
        let slip_after = ((x - on) - n * (x - on).dot(n)).length();
        // (The contact's normal is the sphere's at the pressed-in point, which differs from `n` by
        // about slip/radius: hence the relative 1e-3.)
        if slope.tan() < 0.5 {
            assert!(slip_after < 1e-3 * slip_before, "slope {slope}: slides {slip_after} of {slip_before}");
        } else {
            let expected = slip_before - 0.4 * depth;
            assert!((slip_after - expected).abs() < 1e-3 * slip_before, "slope {slope}: {slip_after} vs {expected}");
        }
        assert!((x.length() - 1.0).abs() < 1e-9, "slope {slope}: off the sphere by {}", x.length() - 1.0);
    }
}
