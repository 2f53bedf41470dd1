//! Single projections: the library's sweeps (its lane-wise kernels where the constraints form one
//! colour, its one-at-a-time path where they are uncoloured) against the reference functions,
//! constraint by constraint on random configurations, on every lane width of this CPU, with the
//! degenerate cases the kernels must skip mixed in.
//!
//! Tolerances: the library computes in f32 (ε = 1.2e-7) on coordinates of about 1 m, the
//! reference in f64 on the same f32 inputs, so a result differs by the library's rounding: a few
//! ulp of the largest coordinate, ~1e-7 m, magnified where C is a small difference of lengths
//! (‖d‖ − L loses the digits of ‖d‖) and, for hinges, by the 1/height of the gradient and the
//! library's polynomial atan2 (5e-7 rad), and for a rigid tether pair by the thinness of its lens.
//! Positions are allowed [`POSITION_TOLERANCE`], 8 ulp of 1 m, a hinge's scaled by its edge over
//! its height and a rigid pair's by [`lens_condition`]; multipliers the λ that moves a particle by
//! that much, |Δλ|·Σw|∇C|² (for hinges 1e-5 rad of angle).

use super::adapter::{
    BENDING_MAX_ANGLE_STEP, Edge, Hinge, Particles, Tether, library_bending_sweep, library_contact_pass, library_stretch_sweep,
    library_tether_sweep, model_of, on_every_lane_width, TETHER_MIN_GRAM,
};
use super::contact::{Sphere, project_sphere_contact};
use super::dihedral::project_dihedral;
use super::distance::project_distance;
use super::substep::{bending_sweep, stretch_sweep, tether_sweep};
use super::{Compliance, adapter};
use crate::test_util::uniform;
use crate::{ClothDesc, ClothParams, ColliderDesc, ColliderKind, Pose, World, WorldDesc};
use glam::{DVec3, Vec3};

/// Allowed difference of a position after one projection or sweep \[m\] (module docs).
const POSITION_TOLERANCE: f64 = 1e-6;

/// Substep of the projections \[s\]: 60 Hz with 10 substeps.
const H: f32 = 1.0 / 600.0;

fn d(v: Vec3) -> DVec3 {
    v.as_dvec3()
}

/// Largest |a − b| over two position lists \[m\], NaN where exactly one of them is not finite.
fn largest_difference(a: &[Vec3], b: &[DVec3]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(a, b)| match (a.is_finite(), b.is_finite()) {
            (true, true) => (d(*a) - *b).length(),
            (false, false) => 0.0,
            _ => f64::NAN,
        })
        .fold(0.0, |m, e| if e.is_nan() || m.is_nan() { f64::NAN } else { m.max(e) })
}

/// `n` random particles in f32: positions in [−1, 1)³, a substep's motion of up to 2 cm since
/// x_prev, inverse masses in [0.2, 3) 1/kg.
fn random_particles(n: usize, seed: u32) -> Particles {
    let mut next = uniform(seed);
    let mut v3 = move |s: f32| Vec3::new(next(), next(), next()) * s;
    let x: Vec<Vec3> = (0..n).map(|_| v3(1.0)).collect();
    let x_prev = x.iter().map(|&p| p - v3(0.02)).collect();
    let w = (0..n).map(|_| 1.6 + v3(1.4).x).collect();
    Particles { x, x_prev, w }
}

/// The reference's view of f32 particles.
fn reference_of(p: &Particles) -> (Vec<DVec3>, Vec<DVec3>, Vec<f64>) {
    (p.x.iter().map(|&v| d(v)).collect(), p.x_prev.iter().map(|&v| d(v)).collect(), p.w.iter().map(|&w| w as f64).collect())
}

/// Random disjoint edges (2k, 2k + 1) over `p`, stretched and compressed by up to 30 %, of
/// compliances from rigid to soft; and degenerate ones, which both sides must skip: coinciding
/// particles, two kinematic particles with α = 0 (no denominator), a NaN particle.
fn random_edges(p: &mut Particles, seed: u32) -> Vec<Edge> {
    let mut next = uniform(seed);
    let n = p.x.len() / 2;
    let mut edges = Vec::new();
    for k in 0..n {
        let (i, j) = (2 * k, 2 * k + 1);
        let length = p.x[i].distance(p.x[j]) as f64;
        let compliance = [0.0, 1e-7, 1e-5, 1e-3][k % 4];
        edges.push(Edge { particles: [i, j], rest_length: (length * (1.0 + 0.3 * next() as f64)) as f32 as f64, compliance });
        match k {
            5 => p.x[j] = p.x[i],
            11 => (p.w[i], p.w[j], edges[k].compliance) = (0.0, 0.0, 0.0),
            17 => p.x[i].y = f32::NAN,
            _ => {}
        }
    }
    edges
}

/// 77 random edges (a colour of four 16-lane batches and a partial one; with fewer lanes, other
/// remainders), undamped and damped, from λ = 0 and from λ of an earlier sweep: every edge's
/// positions and λ after the library's sweep match the reference projection.
#[test]
fn stretch_projections_match_xpbd_eq_18_and_26_on_random_edges() {
    for (damping, seed) in [(0.0, 1), (0.8, 2), (40.0, 3)] {
        let mut p = random_particles(154, seed);
        let edges = random_edges(&mut p, seed + 10);
        let mut next = uniform(seed + 20);
        let lambda0: Vec<f64> = (0..edges.len()).map(|k| if k % 3 == 0 { 0.0 } else { (next() * 1e-4) as f64 }).collect();
        let (x, x_prev, w) = reference_of(&p);
        let mut expected = x.clone();
        let mut expected_lambda = lambda0.clone();
        let mut skipped = 0;
        for (k, e) in edges.iter().enumerate() {
            let [i, j] = e.particles;
            let c = Compliance { alpha: e.compliance, beta: damping as f64, h: H as f64 };
            match project_distance([x[i], x[j]], [x_prev[i], x_prev[j]], [w[i], w[j]], e.rest_length, c, lambda0[k]) {
                Some(pr) => {
                    expected[i] += pr.dx[0];
                    expected[j] += pr.dx[1];
                    expected_lambda[k] += pr.delta_lambda;
                }
                None => skipped += 1,
            }
        }
        assert_eq!(skipped, 3, "the coinciding, the kinematic and the NaN edge are skipped");
        let weights: Vec<f64> = edges.iter().map(|e| w[e.particles[0]] + w[e.particles[1]]).collect();
        for colour_start in [vec![0, edges.len()], vec![]] {
            on_every_lane_width(|width| {
                let mut lib = p.clone();
                let mut lambda = lambda0.clone();
                library_stretch_sweep(&edges, &colour_start, &mut lambda, &mut lib, H, damping);
                let error = largest_difference(&lib.x, &expected);
                let lambda_error = lambda_errors(&weights, &lambda, &expected_lambda);
                let order = if colour_start.is_empty() { "one at a time" } else { "one colour" };
                eprintln!("stretch β {damping}, {order} ({width}): positions {error:.2e} m, λ {lambda_error:.2e} m");
                assert!(error <= POSITION_TOLERANCE, "β {damping}, {width}: positions differ by {error} m");
                assert!(lambda_error <= POSITION_TOLERANCE, "β {damping}, {width}: λ differs by {lambda_error} m of motion");
            });
        }
    }
}

/// Largest |λ_lib − λ_ref|·Σw|∇C|² over constraints \[m\]: a multiplier's error as the motion it
/// makes (0 where both are NaN).
fn lambda_errors(weighted_gradient_norm2: &[f64], lib: &[f64], reference: &[f64]) -> f64 {
    (0..lib.len())
        .map(|k| if lib[k].is_nan() && reference[k].is_nan() { 0.0 } else { (lib[k] - reference[k]).abs() * weighted_gradient_norm2[k] })
        .fold(0.0, |m, e| if e.is_nan() || m.is_nan() { f64::NAN } else { m.max(e) })
}

/// Random disjoint hinges (4k .. 4k + 3: wing tips, then the edge) over `p`, of random rest
/// angles and compliances; and degenerate ones both sides must skip: a wing tip on the edge's
/// line (zero height), an edge of zero length, a NaN particle, four kinematic particles with
/// α = 0.
fn random_hinges(p: &mut Particles, seed: u32) -> Vec<Hinge> {
    let mut next = uniform(seed);
    let n = p.x.len() / 4;
    let mut hinges = Vec::new();
    for k in 0..n {
        let ids = [4 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3];
        let compliance = [0.0, 1e-6, 1e-4, 1e-2][k % 4];
        let rest_angle = (next() * std::f32::consts::PI) as f64;
        hinges.push(Hinge { particles: ids, rest_angle, compliance });
        match k {
            5 => p.x[ids[0]] = p.x[ids[2]].lerp(p.x[ids[3]], 0.3),
            11 => p.x[ids[3]] = p.x[ids[2]],
            17 => p.x[ids[1]].z = f32::NAN,
            23 => {
                ids.iter().for_each(|&i| p.w[i] = 0.0);
                hinges[k].compliance = 0.0;
            }
            _ => {}
        }
    }
    hinges
}

/// The largest position error of a hinge's projection a test allows \[m\]: [`POSITION_TOLERANCE`]
/// times the hinge's condition, its edge length over its lower triangle height (f32 rounding of
/// the normals and of the angle grows as 1/height, as the gradient does).
fn hinge_tolerance(x: [DVec3; 4]) -> f64 {
    let e = x[3] - x[2];
    let height = |tip: DVec3| (tip - x[2]).cross(e).length() / e.length();
    POSITION_TOLERANCE * (e.length() / height(x[0]).min(height(x[1]))).max(1.0)
}

/// 77 random hinges, undamped and damped, from λ = 0 and from an earlier λ: positions and λ after
/// the library's bending sweep match the reference projection (Bridson's gradient, XPBD eq. 18
/// and 26), with the library's documented trust region (|Σw|∇φ|²·Δλ| ≤ 0.5 rad, not in the
/// papers) applied to the reference's Δλ where it binds, which it does for some of them.
#[test]
fn bending_projections_match_xpbd_with_the_bridson_gradient_on_random_hinges() {
    for (damping, seed) in [(0.0, 4), (0.05, 5), (3.0, 6)] {
        let mut p = random_particles(308, seed);
        let hinges = random_hinges(&mut p, seed + 10);
        let mut next = uniform(seed + 20);
        let lambda0: Vec<f64> = (0..hinges.len()).map(|k| if k % 3 == 0 { 0.0 } else { (next() * 1e-6) as f64 }).collect();
        let (x, x_prev, w) = reference_of(&p);
        let mut expected = x.clone();
        let mut expected_lambda = lambda0.clone();
        let mut weights = vec![0.0; hinges.len()];
        let (mut skipped, mut limited) = (0, 0);
        for (k, hinge) in hinges.iter().enumerate() {
            let ids = hinge.particles;
            let c = Compliance { alpha: hinge.compliance, beta: damping as f64, h: H as f64 };
            let Some(pr) = project_dihedral(ids.map(|i| x[i]), ids.map(|i| x_prev[i]), ids.map(|i| w[i]), hinge.rest_angle, c, lambda0[k]) else {
                skipped += 1;
                continue;
            };
            let bound = BENDING_MAX_ANGLE_STEP / pr.weighted_gradient_norm2;
            let dl = pr.delta_lambda.clamp(-bound, bound);
            limited += usize::from(dl != pr.delta_lambda);
            for (q, &i) in ids.iter().enumerate() {
                expected[i] += pr.dx[q] * (dl / pr.delta_lambda);
            }
            expected_lambda[k] += dl;
            weights[k] = pr.weighted_gradient_norm2;
        }
        assert_eq!(skipped, 4, "the flat, the edgeless, the NaN and the kinematic hinge are skipped");
        assert!(limited > 5 && limited < hinges.len() * 3 / 4, "{limited} hinges limited by the trust region");
        for colour_start in [vec![0, hinges.len()], vec![]] {
            on_every_lane_width(|width| {
                let mut lib = p.clone();
                let mut lambda = lambda0.clone();
                library_bending_sweep(&hinges, &colour_start, &mut lambda, &mut lib, H, damping);
                // Each hinge's error over its own tolerance.
                let worst = hinges
                    .iter()
                    .map(|hinge| {
                        let ids = hinge.particles;
                        let error = largest_difference(&ids.map(|i| lib.x[i]), &ids.map(|i| expected[i]));
                        if error == 0.0 { 0.0 } else { error / hinge_tolerance(ids.map(|i| x[i])) }
                    })
                    .fold(0.0, |m: f64, e| if e.is_nan() || m.is_nan() { f64::NAN } else { m.max(e) });
                let lambda_error = lambda_errors(&weights, &lambda, &expected_lambda);
                let order = if colour_start.is_empty() { "one at a time" } else { "one colour" };
                eprintln!("bending β {damping}, {order} ({width}): positions {worst:.3} of the tolerance, λ {lambda_error:.2e} rad");
                assert!(worst <= 1.0, "β {damping}, {width}: positions {worst} × their tolerance");
                assert!(lambda_error <= 1e-5, "β {damping}, {width}: λ differs by {lambda_error} rad of angle");
            });
        }
    }
}

/// How much the rim of the lens of two balls (centre, radius) magnifies an error of their radii:
/// r/ρ for the rim's radius ρ, which shrinks to 0 as the balls come apart (1 when they do not
/// overlap, or one holds the other). The library rounds each bound s·d to f32; a particle finished
/// on the rim moves by that rounding times this.
fn lens_condition((a1, r1): (DVec3, f64), (a2, r2): (DVec3, f64)) -> f64 {
    let d = a1.distance(a2);
    let t = (d * d + r1 * r1 - r2 * r2) / (2.0 * d);
    let rho2 = r1 * r1 - t * t;
    if d >= r1 + r2 || rho2 <= 0.0 { 1.0 } else { (r1.max(r2) / rho2.sqrt()).max(1.0) }
}

/// Tethers of random free particles to two kinematic anchors (particles 0 and 1), in groups of
/// two (rigid pairs are finished on their lens) and of one, violated or not, rigid and compliant,
/// with slack: the library's tether sweep (its lane-wise groups, then the rest one at a time)
/// against the reference's rounds of Kim et al.'s projection. A particle on its anchor (no
/// direction) is left alone by both.
#[test]
fn tether_sweeps_match_the_long_range_attachment_projection() {
    let mut next = uniform(31);
    for (compliance, slack) in [(0.0f32, 1.0f32), (0.0, 1.1), (1e-4, 1.0)] {
        let mut p = random_particles(90, 30);
        p.w[0] = 0.0;
        p.w[1] = 0.0;
        let mut tethers = Vec::new();
        for i in 2..p.x.len() {
            let anchors: &[usize] = if i % 5 == 0 { &[1] } else { &[0, 1] };
            for &a in anchors {
                let distance = p.x[i].distance(p.x[a]) as f64;
                let geodesic_distance = (distance * (0.85 + 0.3 * next() as f64) / slack as f64) as f32 as f64;
                tethers.push(Tether { particle: i, anchor: a, geodesic_distance });
            }
        }
        // Particle 10 has one tether, to anchor 1: it sits on it.
        p.x[10] = p.x[1];
        let (mut x, _, w) = reference_of(&p);
        let mut expected_lambda = vec![0.0; tethers.len()];
        tether_sweep(&tethers, &mut expected_lambda, &mut x, &w, H as f64, slack as f64, compliance as f64);
        let projected = expected_lambda.iter().filter(|&&l| l != 0.0).count();
        assert!(projected > tethers.len() / 3 && projected < tethers.len(), "{projected} of {} tethers projected", tethers.len());
        on_every_lane_width(|width| {
            let mut lib = p.clone();
            let mut lambda = vec![0.0; tethers.len()];
            library_tether_sweep(&tethers, &mut lambda, &mut lib, H, slack, compliance);
            // Each particle's error over its tolerance: a rigid pair's lens scales it.
            let error = (2..p.x.len())
                .map(|i| {
                    let group: Vec<&Tether> = tethers.iter().filter(|t| t.particle == i).collect();
                    let condition = match group[..] {
                        [t1, t2] if compliance == 0.0 => {
                            let ball = |t: &Tether| (x[t.anchor], slack as f64 * t.geodesic_distance);
                            lens_condition(ball(t1), ball(t2))
                        }
                        _ => 1.0,
                    };
                    (d(lib.x[i]) - x[i]).length() / (POSITION_TOLERANCE * condition)
                })
                .fold(0.0, f64::max);
            // w·Δλ of a pair on its lens's rim is its move over the rim's Gram determinant, so the
            // position tolerance scales by the lens condition over that determinant.
            let lambda_error = (0..tethers.len())
                .map(|c| {
                    let t = &tethers[c];
                    let pair: Vec<&Tether> = tethers.iter().filter(|u| u.particle == t.particle).collect();
                    let condition = match pair[..] {
                        [t1, t2] if compliance == 0.0 => {
                            let ball = |t: &Tether| (x[t.anchor], slack as f64 * t.geodesic_distance);
                            let (n1, n2) = ((x[t.particle] - x[t1.anchor]).normalize(), (x[t.particle] - x[t2.anchor]).normalize());
                            lens_condition(ball(t1), ball(t2)) / (1.0 - n1.dot(n2).powi(2)).max(TETHER_MIN_GRAM)
                        }
                        _ => 1.0,
                    };
                    lambda_errors(&[w[t.particle]], &lambda[c..=c], &expected_lambda[c..=c]) / (POSITION_TOLERANCE * condition)
                })
                .fold(0.0, f64::max);
            eprintln!("tethers α {compliance}, s {slack} ({width}): positions {error:.3}, λ {lambda_error:.3} of their tolerance");
            assert!(error <= 1.0, "α {compliance}, s {slack}, {width}: positions {error} × their tolerance");
            assert!(lambda_error <= 1.0, "α {compliance}, s {slack}, {width}: λ differs by {lambda_error} × its tolerance");
            assert_eq!(lib.x[10], p.x[1], "the particle on its anchor moved");
        });
    }
}

/// Particles meeting a resting sphere from every side: starting on its thickened surface (or
/// within the push-out band under it) and moving in, starting outside and entering within the
/// substep (the contact plane at the entry point), or passing by; with no friction, sticking and
/// sliding friction, and μ_k > μ_s. The library's contact pass (its march to the surface) against
/// the closed-form reference, particle by particle.
#[test]
fn sphere_contacts_match_the_contact_plane_and_macklin_friction() {
    let (centre, radius, thickness) = (Vec3::new(0.1, -0.2, 0.05), 0.5f32, 0.005f32);
    let mut next = uniform(41);
    let mut unit = move || Vec3::new(next(), next(), next()).normalize();
    let mut next = uniform(42);
    let (mut x, mut x_prev) = (Vec::new(), Vec::new());
    for k in 0..400 {
        let n = unit();
        let start_gap = [0.0, -4e-4, 2e-3, 0.02, 0.05][k % 5];
        let start = centre + n * (radius + thickness + start_gap);
        let inward = n * (0.04 * next().abs() + 0.002);
        let tangential = (unit() - n * unit().dot(n)) * 0.03 * next();
        x_prev.push(start);
        x.push(start - inward + tangential);
    }
    let w = vec![1.0; x.len()];
    let particles = Particles { x, x_prev, w };
    let (x, x_prev, _) = reference_of(&particles);
    let max_depenetration_speed = 0.5;
    for (static_friction, kinetic_friction) in [(0.0, 0.0), (0.5, 0.4), (1.5, 1.2), (0.3, 0.6)] {
        let desc = ColliderDesc {
            kind: ColliderKind::Sphere,
            radius,
            pose: Pose::at(centre.to_array()),
            static_friction,
            kinetic_friction,
            ..ColliderDesc::default()
        };
        let sphere = Sphere { centre: d(centre), radius: radius as f64, static_friction: static_friction as f64, kinetic_friction: kinetic_friction as f64 };
        let expected: Vec<DVec3> = (0..x.len())
            .map(|i| project_sphere_contact(x[i], x_prev[i], &sphere, thickness as f64, adapter::CONTACT_TOUCHING).unwrap_or(x[i]))
            .collect();
        let moved = (0..x.len()).filter(|&i| expected[i] != x[i]).count();
        assert!(moved > 200 && moved < x.len(), "{moved} particles in contact");
        let mut lib = particles.clone();
        library_contact_pass(&mut lib, &desc, thickness, H, max_depenetration_speed);
        let error = largest_difference(&lib.x, &expected);
        eprintln!("contacts μ_s {static_friction}, μ_k {kinetic_friction}: positions {error:.2e} m");
        assert!(error <= POSITION_TOLERANCE, "μ_s {static_friction}, μ_k {kinetic_friction}: positions differ by {error} m");
    }
}

/// A 13 × 13 grid cloth pinned at a corner, crumpled: one bending sweep and two stretch sweeps
/// of the library over its stored (coloured) constraints, through the lane-wise kernels colour by
/// colour, against the reference sweeps over the same order, damped and undamped. Crumpled by
/// up to 1 cm, so that no hinge reaches the library's trust region.
#[test]
fn coloured_cloth_sweeps_match_the_reference_sweeps_in_storage_order() {
    let (positions, indices) = crate::test_util::grid(13, 0.1, 0.0);
    for (stretch, bend, damping) in [(0.0, 0.0, 0.0), (1e-4, 1e-3, 0.0), (1e-4, 1e-3, 0.3)] {
        let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
        let mut desc = ClothDesc::new(&positions, &indices);
        desc.params = ClothParams { stretch_compliance: Some(stretch), bend_compliance: Some(bend), max_stretch: None, ..ClothParams::default() };
        let cloth = world.add_cloth(&desc).unwrap();
        world.cloth_mut(cloth).unwrap().set_pinned(&[0], None).unwrap();
        let model = model_of(&world, cloth, &[]);
        assert!(model.edge_colour_start.len() > 3 && model.hinge_colour_start.len() > 3, "coloured");
        let mut noise = uniform(51);
        let x_prev: Vec<Vec3> = positions.iter().map(|&p| Vec3::from_array(p)).collect();
        let x = x_prev.iter().zip(&model.inverse_mass).map(|(&p, &w)| if w == 0.0 { p } else { p + Vec3::new(noise(), noise(), noise()) * 0.01 }).collect();
        let w = model.inverse_mass.iter().map(|&w| w as f32).collect();
        let p = Particles { x, x_prev, w };
        let (mut rx, rx_prev, rw) = reference_of(&p);
        let (mut l_edges, mut l_hinges) = (vec![0.0; model.edges.len()], vec![0.0; model.hinges.len()]);
        let largest_step = bending_sweep(&model.hinges, &mut l_hinges, &mut rx, &rx_prev, &rw, H as f64, damping as f64);
        assert!(largest_step < BENDING_MAX_ANGLE_STEP, "a hinge steps {largest_step} rad");
        for _ in 0..2 {
            stretch_sweep(&model.edges, &mut l_edges, &mut rx, &rx_prev, &rw, H as f64, damping as f64);
        }
        on_every_lane_width(|width| {
            let mut lib = p.clone();
            let (mut edges_lambda, mut hinges_lambda) = (vec![0.0; model.edges.len()], vec![0.0; model.hinges.len()]);
            library_bending_sweep(&model.hinges, &model.hinge_colour_start, &mut hinges_lambda, &mut lib, H, damping);
            for _ in 0..2 {
                library_stretch_sweep(&model.edges, &model.edge_colour_start, &mut edges_lambda, &mut lib, H, damping);
            }
            let error = largest_difference(&lib.x, &rx);
            eprintln!("cloth α {stretch}/{bend}, β {damping} ({width}): positions {error:.2e} m");
            assert!(error <= POSITION_TOLERANCE, "α {stretch}/{bend}, β {damping}, {width}: positions differ by {error} m");
        });
    }
}
