//! The one place the oracle touches the library: what it reads of a cloth (constraints in storage
//! and colour order, settings, state), the library's own sweeps and contact pass run on given
//! positions, and the constants of the library's solver order that are not public.
//!
//! When the cloth, the solver or the constraints are restructured, re-point these functions and
//! constants; nothing else in `src/reference` names a library internal.

use super::contact::Sphere;
use crate::collision::contact::{ContactScratch, ContactSettings};
use crate::collision::{ColliderDesc, ColliderHandle, ColliderKind, ColliderStore, SubstepWindow};
use crate::constraints::access::{pack_solver_particles, unpack_solver_particles};
use crate::constraints::{BendingConstraints, StretchConstraints, SubstepCoefficients, TetherConstraints};
use crate::{ClothHandle, World};
use glam::{DVec3, Vec3, Vec4};

// ---------------------------------------------------------------- the solver's order

/// Stretch sweeps per iteration (the plan lists the stretch constraints twice, `solver::plan`).
pub(crate) const STRETCH_SWEEPS: usize = 2;

/// Rounds of one particle's tether group per sweep, stopping early after a round that projected
/// nothing (`constraints::tether::kernel::GROUP_ROUNDS`).
pub(crate) const TETHER_GROUP_ROUNDS: usize = crate::constraints::tether::kernel::GROUP_ROUNDS;

/// The same for a particle's two rigid tethers, before it is put on their lens
/// (`constraints::tether::kernel::PAIR_ROUNDS`).
pub(crate) const TETHER_PAIR_ROUNDS: usize = crate::constraints::tether::kernel::PAIR_ROUNDS;

/// A particle within (1 + this)·r of a rigid tether's anchor counts as inside its bound when the
/// library projects a rigid pair (`constraints::tether::kernel::PAIR_INSIDE_TOLERANCE`).
pub(crate) const TETHER_INSIDE_TOLERANCE: f64 = crate::constraints::tether::kernel::PAIR_INSIDE_TOLERANCE as f64;

/// The floor of 1 − (n₁·n₂)² in a rigid pair's multipliers (`constraints::tether::kernel`'s
/// `PAIR_MIN_GRAM`, a literal there).
pub(crate) const TETHER_MIN_GRAM: f64 = 1e-4;

/// The library's trust region on one bending projection: |Σ w|∇φ|²·Δλ| ≤ this \[rad\]
/// (`constraints::bending::MAX_ANGLE_STEP`). Not in the papers; the oracle only checks
/// that a scene never reaches it, or applies it where a test states so.
pub(crate) const BENDING_MAX_ANGLE_STEP: f64 = crate::constraints::bending::MAX_ANGLE_STEP as f64;

/// A particle that starts a substep this close to a collider's thickened surface \[m\] counts as
/// touching it (the library's march tolerance).
pub(crate) const CONTACT_TOUCHING: f64 = crate::collision::SWEEP_TOLERANCE as f64;

// ---------------------------------------------------------------- a cloth as the oracle sees it

/// A stretch constraint: particles, rest length L \[m\], compliance α \[m/N\].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Edge {
    pub particles: [usize; 2],
    pub rest_length: f64,
    pub compliance: f64,
}

/// A bending hinge in Bridson's order (wing tips x1, x2, then the shared edge x3 → x4, see
/// `dihedral.rs`): rest angle φ₀ \[rad\], compliance α \[rad/(N·m)\].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hinge {
    pub particles: [usize; 4],
    pub rest_angle: f64,
    pub compliance: f64,
}

/// A tether of `particle` to the kinematic `anchor`, rest mesh distance d \[m\] (before the slack).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tether {
    pub particle: usize,
    pub anchor: usize,
    pub geodesic_distance: f64,
}

/// The settings of one cloth's step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Settings {
    /// Gravity plus the cloth's external acceleration \[m/s²\].
    pub gravity: DVec3,
    pub substeps: u32,
    pub iterations: u32,
    /// β of stretch \[N·s/m\] and bending \[N·m·s/rad\].
    pub stretch_damping: f64,
    pub bend_damping: f64,
    /// s and α \[m/N\] of every tether.
    pub tether_slack: f64,
    pub tether_compliance: f64,
    /// d \[1/s\].
    pub linear_damping: f64,
    /// Deformation damping d \[1/s\], once per step.
    pub deformation_damping: f64,
    /// Contact thickness \[m\] and the push-out speed \[m/s\] whose band the oracle does not model.
    pub collision_thickness: f64,
    pub max_depenetration_speed: f64,
}

/// Everything the reference loop needs of a cloth: constraints in the library's storage order
/// (constraints of a type switched off left out), colour ranges, inverse masses, settings, the
/// sphere colliders it meets (in the world's order).
#[derive(Clone, Debug)]
pub(crate) struct Model {
    pub inverse_mass: Vec<f64>,
    pub edges: Vec<Edge>,
    /// Colour starts of the edges (`colour count + 1` offsets; empty when uncoloured).
    pub edge_colour_start: Vec<usize>,
    pub hinges: Vec<Hinge>,
    pub hinge_colour_start: Vec<usize>,
    /// Grouped by particle: a group is a run of one particle's tethers.
    pub tethers: Vec<Tether>,
    pub settings: Settings,
    pub spheres: Vec<Sphere>,
}

/// The model of `cloth` in `world`, which collides with the sphere colliders `colliders`.
pub(crate) fn model_of(world: &World, cloth: ClothHandle, colliders: &[ColliderHandle]) -> Model {
    let c = world.cloth(cloth).expect("a live cloth");
    let p = c.params();
    let (s, b, t) = (c.stretch_constraints(), c.bending_constraints(), c.tether_constraints());
    let edges = (0..s.edges.len())
        .map(|e| Edge {
            particles: s.edges[e].map(|i| i as usize),
            rest_length: s.rest_length[e] as f64,
            compliance: s.compliance[e] as f64,
        })
        .filter(|_| p.enable_stretch)
        .collect();
    // The library's hinge [x0, x1, x2, x3] is (tip A, tip B, edge start, edge end): Bridson's order.
    let hinges = (0..b.hinges.len())
        .map(|h| Hinge {
            particles: b.hinges[h].map(|i| i as usize),
            rest_angle: b.rest_angle[h] as f64,
            compliance: b.compliance[h] as f64,
        })
        .filter(|_| p.enable_bending)
        .collect();
    let tethers = (0..t.particle.len())
        .map(|k| Tether {
            particle: t.particle[k] as usize,
            anchor: t.anchor[k] as usize,
            geodesic_distance: t.geodesic_distance[k] as f64,
        })
        .filter(|_| p.enable_tethers)
        .collect();
    let desc = world.desc();
    let gravity = Vec3::from_array(desc.gravity).as_dvec3() + Vec3::from_array(p.external_acceleration).as_dvec3();
    let settings = Settings {
        gravity,
        substeps: if p.substeps > 0 { p.substeps } else { desc.substeps },
        iterations: if p.iterations > 0 { p.iterations } else { desc.iterations },
        stretch_damping: p.stretch_damping as f64,
        bend_damping: p.bend_damping as f64,
        tether_slack: c.config.tether_factor as f64,
        tether_compliance: p.tether_compliance as f64,
        linear_damping: p.linear_damping as f64,
        deformation_damping: p.deformation_damping as f64,
        collision_thickness: p.collision_thickness as f64,
        max_depenetration_speed: p.max_depenetration_speed as f64,
    };
    assert!(!p.self_collision && !p.inter_cloth_collision, "the oracle has no self- or inter-cloth collision");
    assert!(p.drag_coefficient == 0.0 && p.lift_coefficient == 0.0, "the oracle has no aerodynamics");
    assert!(p.inertia_scale == 1.0, "the oracle has no inertia scale");
    assert!(c.config.stretch_limit.is_none(), "the oracle has no strain limit");
    assert!(c.state.pins.start == c.state.pins.target, "the oracle's pins rest");
    assert_eq!(colliders.len(), world.collider_count(), "the oracle meets every collider of the world");
    let spheres = colliders
        .iter()
        .map(|&h| world.collider(h).expect("a live collider").desc())
        .filter(|d| d.layers & p.collision_mask != 0)
        .map(|d| sphere_of(&d))
        .collect();
    Model {
        inverse_mass: c.particle_inverse_masses().iter().map(|&w| w as f64).collect(),
        edges,
        edge_colour_start: s.colour_start.iter().map(|&k| k as usize).collect(),
        hinges,
        hinge_colour_start: b.colour_start.iter().map(|&k| k as usize).collect(),
        tethers,
        settings,
        spheres,
    }
}

/// A resting, unrotated sphere collider as the oracle sees it.
fn sphere_of(d: &ColliderDesc) -> Sphere {
    assert_eq!(d.kind, ColliderKind::Sphere, "the oracle knows sphere colliders only");
    assert_eq!(d.pose.rotation, [0.0, 0.0, 0.0, 1.0], "the oracle's spheres are not rotated");
    Sphere {
        centre: Vec3::from_array(d.pose.position).as_dvec3(),
        radius: d.radius as f64,
        static_friction: d.static_friction as f64,
        kinetic_friction: d.kinetic_friction as f64,
    }
}

/// The particles' positions x \[m\] and velocities v \[m/s\] of `cloth`, in particle order.
pub(crate) fn state_of(world: &World, cloth: ClothHandle) -> (Vec<DVec3>, Vec<DVec3>) {
    let c = world.cloth(cloth).expect("a live cloth");
    let x = c.particle_positions().iter().map(|p| p.as_dvec3()).collect();
    let v = c.particle_velocities().iter().map(|p| p.as_dvec3()).collect();
    (x, v)
}

/// Put the particles of `cloth` at `x` \[m\] with velocities `v` \[m/s\] (rounded to f32), as a
/// state the next step starts from. Pinned particles must stay where their pins hold them.
pub(crate) fn set_state(world: &mut World, cloth: ClothHandle, x: &[DVec3], v: &[DVec3]) {
    let c = world.cloth_mut(cloth).expect("a live cloth");
    for &i in &c.state.pins.particles {
        assert_eq!(x[i as usize].as_vec3(), c.state.x[i as usize], "pinned particle {i} moved");
    }
    c.state.x.iter_mut().zip(x).for_each(|(p, x)| *p = x.as_vec3());
    c.state.v.iter_mut().zip(v).for_each(|(p, v)| *p = v.as_vec3());
    c.remember_good_state();
}

/// The library's step of every cloth of `world` by `dt` \[s\].
pub(crate) fn step_library(world: &mut World, dt: f32) {
    world.step(dt).expect("a stable step");
}

// ---------------------------------------------------------------- the library's sweeps on given positions

/// Positions in f32 as the library's sweeps take them: x \[m\], x at the substep's start, w \[1/kg\].
#[derive(Clone, Debug)]
pub(crate) struct Particles {
    pub x: Vec<Vec3>,
    pub x_prev: Vec<Vec3>,
    pub w: Vec<f32>,
}

/// Run `sweep` on the library's sweep rows of `p` and write the positions back.
fn on_rows(p: &mut Particles, sweep: impl FnOnce(&mut [Vec4])) {
    let mut rows = vec![Vec4::ZERO; p.x.len()];
    pack_solver_particles(&p.x, &p.w, &mut rows);
    sweep(&mut rows);
    unpack_solver_particles(&rows, &mut p.x);
}

/// Whether no two constraints of a colour share a particle (the sweeps' safety contract).
fn colouring_is_valid<const K: usize>(constraints: &[[u32; K]], colour_start: &[u32]) -> bool {
    colour_start.windows(2).all(|r| {
        let mut seen: Vec<u32> = constraints[r[0] as usize..r[1] as usize].iter().flatten().copied().collect();
        let n = seen.len();
        seen.sort_unstable();
        seen.dedup();
        seen.len() == n
    })
}

/// One library stretch sweep of `edges` in their order, colour by colour through the lane-wise
/// kernels when `colour_start` is given, over `p` in a substep of `h` \[s\] with damping β
/// `damping`; `lambda` are the edges' multipliers, read and updated.
pub(crate) fn library_stretch_sweep(edges: &[Edge], colour_start: &[usize], lambda: &mut [f64], p: &mut Particles, h: f32, damping: f32) {
    let mut s = StretchConstraints::new(edges.iter().map(|e| e.particles.map(|i| i as u32)).collect(), edges.iter().map(|e| e.rest_length as f32).collect());
    let colour_start: Vec<u32> = colour_start.iter().map(|&k| k as u32).collect();
    assert!(colouring_is_valid(s.edges(), &colour_start));
    // SAFETY: checked valid just above.
    unsafe { s.set_colouring(colour_start) };
    let compliance: Vec<f32> = edges.iter().map(|e| e.compliance as f32).collect();
    let mut lambda32: Vec<f32> = lambda.iter().map(|&l| l as f32).collect();
    assert!(s.prepare_rows(p.x.len()));
    let k = SubstepCoefficients::new(h, damping);
    let (x_prev, w) = (p.x_prev.clone(), p.w.clone());
    // SAFETY: indices checked and colouring validated above.
    on_rows(p, |rows| unsafe { s.solve_in_bounds(&compliance, &mut lambda32, rows, &x_prev, &w, &k, false) });
    lambda.iter_mut().zip(&lambda32).for_each(|(l, &s)| *l = s as f64);
}

/// One library bending sweep of `hinges`, as [`library_stretch_sweep`] for edges.
pub(crate) fn library_bending_sweep(hinges: &[Hinge], colour_start: &[usize], lambda: &mut [f64], p: &mut Particles, h: f32, damping: f32) {
    let mut b = BendingConstraints::new(hinges.iter().map(|e| e.particles.map(|i| i as u32)).collect(), hinges.iter().map(|e| e.rest_angle as f32).collect());
    let colour_start: Vec<u32> = colour_start.iter().map(|&k| k as u32).collect();
    assert!(colouring_is_valid(b.hinges(), &colour_start));
    // SAFETY: checked valid just above.
    unsafe { b.set_colouring(colour_start) };
    let compliance: Vec<f32> = hinges.iter().map(|e| e.compliance as f32).collect();
    let mut lambda32: Vec<f32> = lambda.iter().map(|&l| l as f32).collect();
    assert!(b.prepare_rows(p.x.len()));
    let k = SubstepCoefficients::new(h, damping);
    let (x_prev, w) = (p.x_prev.clone(), p.w.clone());
    // SAFETY: indices checked and colouring validated above.
    on_rows(p, |rows| unsafe { b.solve_in_bounds(&compliance, &mut lambda32, rows, &x_prev, &w, &k, false) });
    lambda.iter_mut().zip(&lambda32).for_each(|(l, &s)| *l = s as f64);
}

/// One library tether sweep of `tethers` (grouped by particle, anchors kinematic in `p.w`), the
/// full groups first as the library stores them, with slack s and compliance α \[m/N\]; `lambda`
/// read and updated in the order of `tethers`.
pub(crate) fn library_tether_sweep(tethers: &[Tether], lambda: &mut [f64], p: &mut Particles, h: f32, slack: f32, compliance: f32) {
    assert!(tethers.iter().all(|t| p.w[t.anchor] == 0.0 && p.w[t.particle] > 0.0), "anchors kinematic, particles free");
    // Grouped by particle: no particle starts two runs of tethers.
    let mut runs: Vec<usize> = tethers.chunk_by(|a, b| a.particle == b.particle).map(|group| group[0].particle).collect();
    let groups = runs.len();
    runs.sort_unstable();
    runs.dedup();
    assert_eq!(runs.len(), groups, "tethers grouped by particle");
    let particle: Vec<u32> = tethers.iter().map(|t| t.particle as u32).collect();
    let anchor: Vec<u32> = tethers.iter().map(|t| t.anchor as u32).collect();
    // SAFETY: one run per particle and no particle an anchor (w > 0 and w = 0), checked above.
    let mut t = unsafe { TetherConstraints::new(particle, anchor, tethers.iter().map(|t| t.geodesic_distance as f32).collect()) };
    // λ travels with its tether: carried through the reordering as a tether's key.
    let lambda_of: Vec<((u32, u32), f32)> = t.particle().iter().copied().zip(t.anchor().iter().copied()).zip(lambda.iter().map(|&l| l as f32)).collect();
    // Remember where each tether goes, to hand λ back in the caller's order.
    let before: Vec<(u32, u32)> = t.particle().iter().copied().zip(t.anchor().iter().copied()).collect();
    t.put_full_groups_first();
    let mut lambda32: Vec<f32> = (0..t.particle().len())
        .map(|k| lambda_of.iter().find(|(key, _)| *key == (t.particle()[k], t.anchor()[k])).expect("the same tethers").1)
        .collect();
    assert!(t.prepare_rows(p.x.len()));
    let k = SubstepCoefficients::new(h, 0.0);
    let w = p.w.clone();
    // SAFETY: indices checked above; anchors are kinematic and particles free in `w`.
    on_rows(p, |rows| unsafe { t.solve_in_bounds(&mut lambda32, rows, &w, slack, compliance, &k, false) });
    for (l, key) in lambda.iter_mut().zip(&before) {
        let k = (0..t.particle().len()).find(|&k| (t.particle()[k], t.anchor()[k]) == *key).expect("the same tethers");
        *l = lambda32[k] as f64;
    }
}

/// One library contact pass of particles `p` against the resting collider `desc`, for a cloth of
/// contact thickness `thickness` \[m\] in a substep of `h` \[s\] with push-out speed
/// `max_depenetration_speed` \[m/s\] (the first substep of a step: the collider at its pose).
pub(crate) fn library_contact_pass(p: &mut Particles, desc: &ColliderDesc, thickness: f32, h: f32, max_depenetration_speed: f32) {
    let mut store = ColliderStore::default();
    store.add(desc).expect("a valid collider");
    let mut scratch = ContactScratch::new(p.x.len());
    scratch.begin_substep();
    let settings = ContactSettings { thickness, mask: u32::MAX, max_depenetration: max_depenetration_speed * h };
    scratch.solve(&mut p.x, &p.x_prev, &p.w, &store, SubstepWindow::new(0, 1), None, &settings, crate::collision::contact::Friction::On, false);
}

/// `f` once on each lane width the kernels can take on this CPU: the widest (16 lanes with
/// AVX-512F), then at most 8 (AVX), then 4 (SSE); `f` gets the width's name.
pub(crate) fn on_every_lane_width(mut f: impl FnMut(&str)) {
    f("widest lanes");
    #[cfg(target_arch = "x86_64")]
    {
        use crate::constraints::lanes_avx::tests::{avx_only, sse_only};
        avx_only(|| f("8 lanes"));
        sse_only(|| f("4 lanes"));
    }
}
