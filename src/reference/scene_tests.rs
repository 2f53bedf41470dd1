//! The library's step against the reference step on the validation scenes: positions after
//! each step.
//!
//! Two comparisons per scene. Step by step, the reference takes the library's state before every
//! step and makes that one step: the error of one step from every state the library visits.
//! Along the trajectory, both start from the same state and run on their own, the library in f32
//! and the reference in f64, so they part by the library's rounding as the motion carries it: a
//! swinging chain or a crumpling cloth amplifies a difference of 0.1 µm to millimetres within a
//! second or two (a copy of the library started 0.1 µm away drifts as far), so trajectories are
//! compared over their first half second.
//!
//! Tolerances. One step is 10 substeps of about four sweeps, each leaving ~1e-7 m of f32 rounding
//! (the single projections of `projection_tests.rs` agree to that), which stiff constraints pass
//! along: [`STEP_TOLERANCE`]. Half a second is 300 substeps of that: [`TRAJECTORY_TOLERANCE`].
//! A cloth pressed onto a sphere by stiff edges is worse conditioned: the contacts and the edges
//! fight within each iteration, and the library's own step from a start 0.1 µm away differs by
//! tens of µm (`a_cloth_on_a_sphere_turns_rounding_into_tens_of_micrometres`): [`CONTACT_STEP_TOLERANCE`].

use super::adapter::{BENDING_MAX_ANGLE_STEP, model_of, state_of, step_library};
use super::scenes::{Scene, chain, cloth_over_sphere, hanging_cloth, hinge, single_edge, thrown_particle};
use super::substep::ReferenceCloth;
use super::tether::tether_violation;
use crate::test_util::uniform;
use glam::DVec3;

/// Allowed deviation after one step from the library's state \[m\] (module docs).
const STEP_TOLERANCE: f64 = 1e-5;

/// Allowed deviation over the first half second from a common start \[m\] (module docs).
const TRAJECTORY_TOLERANCE: f64 = 1e-4;

/// Allowed deviation after one step of a cloth pressed onto a collider \[m\] (module docs).
const CONTACT_STEP_TOLERANCE: f64 = 1e-4;

/// Steps of the trajectory comparisons: half a second at 60 Hz.
const TRAJECTORY_STEPS: usize = 30;

/// The largest distance between the library's and the reference's positions over a run \[m\], and
/// the step (1-based) where it occurred.
#[derive(Clone, Copy, Debug, Default)]
#[allow(dead_code)] // `at_step` is read by the failure messages' Debug output.
struct Deviation {
    largest: f64,
    at_step: usize,
}

impl Deviation {
    fn record(&mut self, step: usize, library: &[DVec3], reference: &[DVec3]) {
        let e = library.iter().zip(reference).map(|(a, b)| a.distance(*b)).fold(0.0, f64::max);
        assert!(e.is_finite(), "step {step}: not finite");
        if e > self.largest {
            *self = Deviation { largest: e, at_step: step };
        }
    }
}

/// `steps` steps of the scene's cloth and of a reference cloth started from its state: the
/// deviation along the trajectory and the reference cloth at the end.
fn along_the_trajectory(scene: &mut Scene, steps: usize) -> (Deviation, ReferenceCloth) {
    let model = model_of(&scene.world, scene.cloth, &scene.colliders);
    let (x, v) = state_of(&scene.world, scene.cloth);
    let mut reference = ReferenceCloth::new(model, x, v);
    let mut deviation = Deviation::default();
    for step in 1..=steps {
        step_library(&mut scene.world, scene.dt);
        reference.step(scene.dt as f64);
        deviation.record(step, &state_of(&scene.world, scene.cloth).0, &reference.x);
    }
    (deviation, reference)
}

/// `steps` steps of the scene's cloth, each also made by the reference from the library's state
/// before it: the largest deviation of one step, and the largest bending step the reference took.
fn step_by_step(scene: &mut Scene, steps: usize) -> (Deviation, f64) {
    let model = model_of(&scene.world, scene.cloth, &scene.colliders);
    let mut deviation = Deviation::default();
    let mut largest_bending_step = 0.0f64;
    for step in 1..=steps {
        let (x, v) = state_of(&scene.world, scene.cloth);
        let mut reference = ReferenceCloth::new(model.clone(), x, v);
        step_library(&mut scene.world, scene.dt);
        reference.step(scene.dt as f64);
        deviation.record(step, &state_of(&scene.world, scene.cloth).0, &reference.x);
        largest_bending_step = largest_bending_step.max(reference.largest_bending_step);
    }
    (deviation, largest_bending_step)
}

/// Both comparisons of a scene made by `make`: the trajectory's deviation over
/// [`TRAJECTORY_STEPS`] with the reference cloth at its end, and the step-by-step deviation over
/// `steps`.
fn compare(name: &str, make: impl Fn() -> Scene, steps: usize) -> (Deviation, ReferenceCloth, Deviation) {
    let (trajectory, reference) = along_the_trajectory(&mut make(), TRAJECTORY_STEPS);
    let (each, largest_bending_step) = step_by_step(&mut make(), steps);
    eprintln!("{name}: trajectory {trajectory:?}, step by step {each:?}");
    assert!(trajectory.largest <= TRAJECTORY_TOLERANCE, "{name}: the trajectory parts by {trajectory:?}");
    assert!(each.largest <= STEP_TOLERANCE, "{name}: one step deviates by {each:?}");
    // The library's trust region on bending (not in the papers) never acted.
    assert!(largest_bending_step.max(reference.largest_bending_step) < BENDING_MAX_ANGLE_STEP);
    (trajectory, reference, each)
}

/// A thrown particle under gravity and linear damping d = 5/s: the reference's path, and the
/// library's horizontal speed after 1 s is v₀·exp(−d·t), the exact decay the per-substep factor
/// exp(−d·h) compounds to at any substep count.
#[test]
fn thrown_particle_follows_the_reference_and_loses_speed_as_exp_minus_d_t() {
    let v0 = DVec3::new(3.0, 4.0, -1.0);
    compare("thrown particle", || thrown_particle(v0, 5.0), 60);
    let mut scene = thrown_particle(v0, 5.0);
    for _ in 0..60 {
        step_library(&mut scene.world, scene.dt);
    }
    let v = state_of(&scene.world, scene.cloth).1[0];
    let expected = v0.x * (-5.0f64).exp();
    assert!((v.x / expected - 1.0).abs() < 1e-5, "v_x {} vs v₀·exp(−d·t) {expected}", v.x);
}

/// The single-edge scene as a pendulum: a particle on one edge from a pin swings down for 2 s, the
/// edge rigid, compliant, compliant and damped (XPBD eq. 26), and with linear damping too.
#[test]
fn single_edge_follows_the_reference_pendulum() {
    for (compliance, damping, linear_damping) in [(0.0, 0.0, 0.0), (2e-3, 0.0, 0.0), (2e-3, 5.0, 0.0), (2e-3, 5.0, 2.0)] {
        let name = format!("edge α {compliance} β {damping} d {linear_damping}");
        let (_, reference, _) = compare(&name, || single_edge(compliance, damping, linear_damping), 120);
        assert!(reference.x[1].distance(DVec3::new(0.3, 0.0, 0.0)) > 0.2, "{name}: the particle did not swing");
    }
}

/// The chain scene: a 10-link chain released horizontally from its pin, rigid and compliant.
#[test]
fn chain_follows_the_reference_chain() {
    for compliance in [0.0, 1e-4] {
        let (_, reference, _) = compare(&format!("chain α {compliance}"), || chain(10, compliance), 120);
        assert!(reference.x[10].y < -0.3, "the chain did not fall");
    }
}

/// The hinge scene: two triangles bent past their rest angle and moving, springing back with and
/// without bending damping, with one iteration per substep and with two.
#[test]
fn hinge_follows_the_reference_hinge() {
    for (compliance, damping, iterations) in [(0.01, 0.0, 1), (0.01, 0.02, 1), (0.01, 0.0, 2)] {
        compare(&format!("hinge α {compliance} β {damping}, {iterations} iterations"), || hinge(compliance, damping, iterations), 120);
    }
}

/// The hanging-cloth scene: the 8 × 8 cloth swings down from its two pins, held by its rigid
/// tethers, in the coloured order and in the anchor-outward order. Made as a shallow trough 2 cm
/// deep: a cloth flat between its pins has particles on the straight line between them, whose two
/// rigid tether bounds merely touch, and the library and the reference alike accept any point
/// within 1e-6·r of both (the library's tolerance), a lens 1e-4 m across: there the position is the
/// rounding's.
#[test]
fn hanging_cloth_follows_the_reference_cloth() {
    for colouring in [true, false] {
        let name = format!("hanging cloth, colouring {colouring}");
        let (_, reference, _) = compare(&name, || hanging_cloth(colouring, 0.02), 120);
        assert!(reference.tether_projections > 1000, "{name}: {} tether projections", reference.tether_projections);
        // The library's cloth after the reference's 120 steps: every rigid tether holds.
        let mut scene = hanging_cloth(colouring, 0.02);
        for _ in 0..120 {
            step_library(&mut scene.world, scene.dt);
        }
        let (x, _) = state_of(&scene.world, scene.cloth);
        let model = model_of(&scene.world, scene.cloth, &[]);
        let slack = model.settings.tether_slack;
        let beyond = model.tethers.iter().map(|t| tether_violation(x[t.particle], x[t.anchor], slack * t.geodesic_distance)).fold(0.0, f64::max);
        assert!(beyond < 1e-6, "{name}: a particle {beyond} m beyond its tether");
    }
}

/// The 8 × 8 cloth falls 0.3 m onto a sphere with static and kinetic friction and drapes over
/// it: in free fall along the trajectory, then step by step through the contact for 1.5 s.
#[test]
fn cloth_falling_on_a_sphere_follows_the_reference_cloth() {
    let (fall, reference) = along_the_trajectory(&mut cloth_over_sphere(), 12);
    assert!(fall.largest <= 1e-6 && reference.contact_projections == 0, "free fall: {fall:?}");
    let mut scene = cloth_over_sphere();
    let (each, _) = step_by_step(&mut scene, 90);
    eprintln!("cloth on a sphere: free fall {fall:?}, step by step {each:?}");
    assert!(each.largest <= CONTACT_STEP_TOLERANCE, "one step deviates by {each:?}");
    let model = model_of(&scene.world, scene.cloth, &scene.colliders);
    let sphere = model.spheres[0];
    let (x, _) = state_of(&scene.world, scene.cloth);
    let touching = x.iter().filter(|p| p.distance(sphere.centre) < sphere.radius + 0.005 + 1e-4).count();
    assert!(touching >= 8, "{touching} particles rest on the sphere");
}

/// Why [`CONTACT_STEP_TOLERANCE`]: one library step of the cloth pressed onto the sphere, from
/// its state and from that state moved by up to 0.1 µm per coordinate, differs by more than
/// 10 µm in some step of the first 1.5 s, by its own rounding alone.
#[test]
fn a_cloth_on_a_sphere_turns_rounding_into_tens_of_micrometres() {
    let (mut a, mut b) = (cloth_over_sphere(), cloth_over_sphere());
    let w = model_of(&a.world, a.cloth, &a.colliders).inverse_mass;
    let mut next = uniform(99);
    let mut largest = 0.0f64;
    for _ in 0..90 {
        let (x, v) = state_of(&a.world, a.cloth);
        let nudged: Vec<DVec3> = (0..x.len())
            .map(|i| if w[i] > 0.0 { x[i] + DVec3::new(next() as f64, next() as f64, next() as f64) * 1e-7 } else { x[i] })
            .collect();
        super::adapter::set_state(&mut b.world, b.cloth, &nudged, &v);
        step_library(&mut a.world, a.dt);
        step_library(&mut b.world, b.dt);
        let (xa, xb) = (state_of(&a.world, a.cloth).0, state_of(&b.world, b.cloth).0);
        largest = largest.max(xa.iter().zip(&xb).map(|(p, q)| p.distance(*q)).fold(0.0, f64::max));
    }
    assert!(largest > 1e-5, "the library's own step differs by {largest} m");
}
