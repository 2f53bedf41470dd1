//! Colliders through the C ABI. Each scene is written once against a small interface and run
//! twice: through the exported `xpbd_*` functions (as a C program calls them) and through the
//! Rust API. The two must agree to the bit, and the scene must do what the physics says. Measured
//! numbers are printed (`cargo test --release --test c_abi_colliders -- --nocapture`).

mod ffi_common;

use ffi_common::{bits, c_positions, c_stats, c_world, flat_grid, ok};
use xpbd_cloth::ffi::*;
use xpbd_cloth::{ClothDesc, ClothHandle, ClothParams, ClothStats, ColliderDesc, ColliderKind, Pose, World, WorldDesc};

const DT: f32 = 1.0 / 60.0;
const G: f32 = 9.81;

type Mesh = (Vec<[f32; 3]>, Vec<u32>);

/// What a scene ends with: the positions [m] in render order and the last step's statistics.
type Outcome = (Vec<[f32; 3]>, ClothStats);

/// The cloth settings the scenes change; the others keep their defaults.
#[derive(Clone, Copy, Debug)]
struct Settings {
    linear_damping: f32,
    collision_thickness: f32,
    collision_mask: u32,
}

impl Default for Settings {
    fn default() -> Self {
        let p = ClothParams::default();
        Settings {
            linear_damping: p.linear_damping,
            collision_thickness: p.collision_thickness,
            collision_mask: p.collision_mask,
        }
    }
}

/// What a scene does with one cloth and its colliders, through either API.
trait Api {
    type Collider: Copy;
    fn add_cloth(&mut self, mesh: &Mesh, settings: Settings);
    fn add_collider(&mut self, desc: &ColliderDesc) -> Self::Collider;
    fn set_pose(&mut self, collider: Self::Collider, pose: &Pose);
    fn destroy(&mut self, collider: Self::Collider);
    fn step(&mut self);
    fn positions(&self) -> Vec<[f32; 3]>;
    fn stats(&self) -> ClothStats;
}

/// The scene through the exported functions, in a single-threaded world.
struct CApi {
    world: XpbdWorldId,
    cloth: XpbdClothId,
}

impl CApi {
    fn new() -> Self {
        CApi { world: c_world(1), cloth: XpbdClothId::default() }
    }
}

impl Drop for CApi {
    fn drop(&mut self) {
        ok(xpbd_world_destroy(self.world));
    }
}

/// The C descriptor a C program would fill for `d`, field by field.
fn c_collider_desc(d: &ColliderDesc) -> XpbdColliderDesc {
    let kind = match d.kind {
        ColliderKind::Sphere => XpbdColliderKind::Sphere,
        ColliderKind::Capsule => XpbdColliderKind::Capsule,
        ColliderKind::Plane => XpbdColliderKind::Plane,
        ColliderKind::Box => XpbdColliderKind::Box,
        ColliderKind::Mesh => XpbdColliderKind::Mesh,
    };
    XpbdColliderDesc {
        kind: kind as u32,
        radius: d.radius,
        half_height: d.half_height,
        half_extents: d.half_extents,
        position: d.pose.position,
        rotation: d.pose.rotation,
        static_friction: d.static_friction,
        kinetic_friction: d.kinetic_friction,
        layers: d.layers,
        mesh_shape: XpbdMeshShapeId::default(),
    }
}

impl Api for CApi {
    type Collider = XpbdColliderId;

    fn add_cloth(&mut self, (positions, indices): &Mesh, s: Settings) {
        let desc = XpbdClothDesc {
            positions: positions.as_ptr().cast(),
            vertex_count: positions.len() as u32,
            indices: indices.as_ptr(),
            triangle_count: (indices.len() / 3) as u32,
            linear_damping: s.linear_damping,
            collision_thickness: s.collision_thickness,
            collision_mask: s.collision_mask,
            ..xpbd_default_cloth_desc()
        };
        // SAFETY: the arrays outlive the call and hold the counts passed.
        ok(unsafe { xpbd_cloth_create(self.world, &desc, &mut self.cloth) });
    }

    fn add_collider(&mut self, desc: &ColliderDesc) -> XpbdColliderId {
        let mut id = XpbdColliderId::default();
        // SAFETY: valid descriptor and out-parameter.
        ok(unsafe { xpbd_collider_create(self.world, &c_collider_desc(desc), &mut id) });
        id
    }

    fn set_pose(&mut self, collider: XpbdColliderId, pose: &Pose) {
        // SAFETY: 3 and 4 floats.
        ok(unsafe { xpbd_collider_set_pose(collider, pose.position.as_ptr(), pose.rotation.as_ptr()) });
    }

    fn destroy(&mut self, collider: XpbdColliderId) {
        ok(xpbd_collider_destroy(collider));
    }

    fn step(&mut self) {
        ok(xpbd_world_step(self.world, DT));
    }

    fn positions(&self) -> Vec<[f32; 3]> {
        c_positions(self.cloth)
    }

    fn stats(&self) -> ClothStats {
        c_stats(self.cloth)
    }
}

/// The same scene through the Rust API.
struct RustApi {
    world: World,
    cloth: Option<ClothHandle>,
}

impl RustApi {
    fn new() -> Self {
        RustApi { world: World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap(), cloth: None }
    }
}

impl Api for RustApi {
    type Collider = xpbd_cloth::ColliderHandle;

    fn add_cloth(&mut self, (positions, indices): &Mesh, s: Settings) {
        let params = ClothParams {
            linear_damping: s.linear_damping,
            collision_thickness: s.collision_thickness,
            collision_mask: s.collision_mask,
            ..ClothParams::default()
        };
        self.cloth = Some(self.world.add_cloth(&ClothDesc { params, ..ClothDesc::new(positions, indices) }).unwrap());
    }

    fn add_collider(&mut self, desc: &ColliderDesc) -> Self::Collider {
        self.world.add_collider(desc).unwrap()
    }

    fn set_pose(&mut self, collider: Self::Collider, pose: &Pose) {
        self.world.set_collider_pose(collider, pose).unwrap();
    }

    fn destroy(&mut self, collider: Self::Collider) {
        self.world.remove_collider(collider).unwrap();
    }

    fn step(&mut self) {
        self.world.step(DT).unwrap();
    }

    fn positions(&self) -> Vec<[f32; 3]> {
        let cloth = self.world.cloth(self.cloth.unwrap()).unwrap();
        let mut out = vec![[0.0; 3]; cloth.vertex_count() as usize];
        cloth.read_positions(&mut out).unwrap();
        out
    }

    fn stats(&self) -> ClothStats {
        *self.world.cloth(self.cloth.unwrap()).unwrap().stats()
    }
}

fn step_n(api: &mut impl Api, steps: usize) {
    for _ in 0..steps {
        api.step();
    }
}

fn centroid(x: &[[f32; 3]]) -> [f32; 3] {
    let sum = x.iter().fold([0.0f64; 3], |s, p| [0, 1, 2].map(|k| s[k] + p[k] as f64));
    sum.map(|c| (c / x.len() as f64) as f32)
}

/// Both APIs gave the same positions and statistics, to the bit.
fn assert_same_to_the_bit(c: &Outcome, rust: &Outcome, scene: &str) {
    assert!(bits(&c.0) == bits(&rust.0), "{scene}: C ABI and Rust API positions differ");
    assert_eq!(c.1, rust.1, "{scene}: C ABI and Rust API statistics differ");
}

const SPHERE_RADIUS: f32 = 0.3;

/// A 32 × 32 cloth (1 m) dropped from 0.3 m onto a sphere of radius 0.3 m at the origin, 2 s.
/// Non-default contact thickness (8 mm) and layers (the sphere on layer 2, the cloth's mask
/// only that bit), so the new C descriptor fields are what the scene depends on.
fn drape_on_sphere(api: &mut impl Api, settings: Settings) -> Outcome {
    api.add_collider(&ColliderDesc { layers: 0b10, ..ColliderDesc::sphere(SPHERE_RADIUS) });
    api.add_cloth(&flat_grid(32, 1.0, 2.0 * SPHERE_RADIUS), settings);
    step_n(api, 120);
    (api.positions(), api.stats())
}

#[test]
fn cloth_dropped_on_a_sphere_rests_on_it_as_through_the_rust_api() {
    // Air drag of 5/s, as in the Rust collision test: the flaps hanging off the sphere settle.
    let settings = Settings { linear_damping: 5.0, collision_thickness: 0.008, collision_mask: 0b10 };
    let c = drape_on_sphere(&mut CApi::new(), settings);
    assert_same_to_the_bit(&c, &drape_on_sphere(&mut RustApi::new(), settings), "sphere");

    let (x, stats) = c;
    let thickness = settings.collision_thickness;
    // Independent of the library's distance code: thickness − (|x| − r) is how deep a vertex is
    // inside the thickened sphere.
    let depth = |p: &[f32; 3]| thickness - ((p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt() - SPHERE_RADIUS);
    let deepest = x.iter().map(depth).fold(f32::NEG_INFINITY, f32::max);
    let top = x[16 * 32 + 16]; // the vertex nearest the sphere's top
    let lowest = x.iter().map(|p| p[1]).fold(f32::INFINITY, f32::min);
    eprintln!(
        "sphere through C, 2 s: deepest vertex {deepest:.3e} m into the thickened sphere (1 % of thickness = \
         {:.1e} m); vertex over the top {:.3e} m from the thickened surface; lowest vertex y = {lowest:.3} m; \
         contacts {}, reported max penetration {:.3e} m",
        0.01 * thickness,
        -depth(&top),
        stats.contact_count,
        stats.max_penetration
    );
    assert!(deepest <= 0.01 * thickness, "a vertex is {deepest} m inside the thickened sphere");
    assert!(stats.max_penetration <= 0.01 * thickness);
    // It rests on the sphere: the vertex over the top touches the thickened surface, many do,
    // and the flaps hang below the sphere's equator.
    assert!(depth(&top).abs() <= 0.01 * thickness, "vertex over the top is {} m off the surface", -depth(&top));
    assert!(stats.contact_count > 100, "{} contacts", stats.contact_count);
    assert!(lowest < 0.0);
}

/// The box of the Rust collision test: 1 m × 0.2 m × 1 m, top at y = 0.1 m, μ_s = 0.8, μ_k = 0.6.
fn table() -> ColliderDesc {
    ColliderDesc { static_friction: 0.8, kinetic_friction: 0.6, ..ColliderDesc::cuboid([0.5, 0.1, 0.5]) }
}

/// A 16 × 16 cloth (0.6 m) laid flat on the table top at the contact thickness, settled 0.5 s.
fn cloth_on_table<A: Api>(api: &mut A) -> A::Collider {
    let table = api.add_collider(&table());
    // Undamped, so that the fall once the table is gone is the integrator's free fall.
    api.add_cloth(&flat_grid(16, 0.6, 0.1 + ClothParams::default().collision_thickness), Settings { linear_damping: 0.0, ..Settings::default() });
    step_n(api, 30);
    table
}

/// Box x position [m] at time t [s]: uniform acceleration to 1 m/s over 0.25 s (4 m/s², below
/// μ_s·g = 7.8 m/s², so static friction can hold the cloth), then 1 m/s.
fn box_x(t: f32) -> f32 {
    const RAMP: f32 = 0.25;
    if t < RAMP { 0.5 * t * t / RAMP } else { t - 0.5 * RAMP }
}

/// The table carried along x by `set_pose` every step for 1.25 s; returns the cloth's centroid
/// motion over that time, the end positions and statistics.
fn carried_by_box(api: &mut impl Api) -> ([f32; 3], Outcome) {
    let table = cloth_on_table(api);
    let start = centroid(&api.positions());
    for k in 1..=75 {
        api.set_pose(table, &Pose::at([box_x(k as f32 * DT), 0.0, 0.0]));
        api.step();
    }
    let end = api.positions();
    let moved = centroid(&end);
    ([0, 1, 2].map(|k| moved[k] - start[k]), (end, api.stats()))
}

#[test]
fn box_moved_by_set_pose_carries_the_cloth_as_through_the_rust_api() {
    let (moved, c) = carried_by_box(&mut CApi::new());
    assert_same_to_the_bit(&c, &carried_by_box(&mut RustApi::new()).1, "moving box");
    let box_moved = box_x(75.0 * DT);
    eprintln!(
        "box moved by xpbd_collider_set_pose {box_moved:.4} m: cloth moved {:.4} m (lag {:.2e} m), vertical \
         {:.2e} m, sideways {:.2e} m; contacts {}",
        moved[0],
        box_moved - moved[0],
        moved[1],
        moved[2],
        c.1.contact_count
    );
    assert!((box_moved - moved[0]).abs() < 0.02, "the cloth lags the box by {} m", box_moved - moved[0]);
    assert!(moved[1].abs() < 1e-3 && moved[2].abs() < 1e-3, "{moved:?}");
    assert_eq!(c.1.contact_count, 256, "every vertex still lies on the box");
}

/// The cloth resting on the table, then the table destroyed and 0.5 s more. Returns the
/// positions before and after, and the end statistics.
fn table_destroyed(api: &mut impl Api) -> (Vec<[f32; 3]>, Outcome) {
    let table = cloth_on_table(api);
    let resting = api.positions();
    api.destroy(table);
    step_n(api, 30);
    (resting, (api.positions(), api.stats()))
}

#[test]
fn destroyed_collider_lets_the_resting_cloth_fall_freely() {
    let (resting, c) = table_destroyed(&mut CApi::new());
    assert_same_to_the_bit(&c, &table_destroyed(&mut RustApi::new()).1, "destroyed box");
    // Control: with the table kept, the same cloth stays where it rests.
    let mut kept = CApi::new();
    cloth_on_table(&mut kept);
    step_n(&mut kept, 30);
    let kept_drift = kept.positions().iter().zip(&resting).map(|(p, q)| (p[1] - q[1]).abs()).fold(0.0, f32::max);

    // A flat cloth at rest in free fall: nothing stretches it, so every vertex follows the
    // integrator's free fall from rest, v_k = −g·h·k, y drop after k substeps = g·h²·k(k+1)/2
    // (symplectic Euler; k = 300 substeps of h = 1/600 s).
    let (k, h) = (300.0f64, DT as f64 / 10.0);
    let free_fall = (G as f64 * h * h * k * (k + 1.0) / 2.0) as f32;
    let drops: Vec<f32> = resting.iter().zip(&c.0).map(|(p, q)| p[1] - q[1]).collect();
    let worst = drops.iter().map(|d| (d - free_fall).abs()).fold(0.0, f32::max);
    let sideways =
        resting.iter().zip(&c.0).map(|(p, q)| (p[0] - q[0]).abs().max((p[2] - q[2]).abs())).fold(0.0, f32::max);
    eprintln!(
        "table destroyed: every vertex fell {:.4}..{:.4} m in 0.5 s (integrator free fall {free_fall:.4} m, \
         worst difference {worst:.2e} m), sideways {sideways:.2e} m, contacts {}; with the table kept the \
         cloth moved {kept_drift:.2e} m",
        drops.iter().copied().fold(f32::INFINITY, f32::min),
        drops.iter().copied().fold(0.0, f32::max),
        c.1.contact_count
    );
    assert!(worst < 1e-3, "a vertex fell {worst} m more or less than free fall");
    assert_eq!(c.1.contact_count, 0);
    assert!(kept_drift < 1e-4, "with the table kept the cloth moved {kept_drift} m");
}

/// Current pose through `xpbd_collider_get_pose`.
fn c_pose(collider: XpbdColliderId) -> Pose {
    let mut pose = Pose::default();
    // SAFETY: 3 and 4 writable floats.
    ok(unsafe { xpbd_collider_get_pose(collider, pose.position.as_mut_ptr(), pose.rotation.as_mut_ptr()) });
    pose
}

#[test]
fn set_pose_is_reached_by_the_end_of_the_next_step_and_bad_poses_change_nothing() {
    let world = c_world(1);
    let desc = XpbdColliderDesc {
        kind: XpbdColliderKind::Capsule as u32,
        radius: 0.05,
        half_height: 0.2,
        position: [0.0, 1.0, 0.0],
        layers: 0b100,
        ..xpbd_default_collider_desc()
    };
    let mut capsule = XpbdColliderId::default();
    // SAFETY: valid descriptor and out-parameter.
    ok(unsafe { xpbd_collider_create(world, &desc, &mut capsule) });
    assert_eq!(c_pose(capsule), Pose::at([0.0, 1.0, 0.0]));

    // A quarter turn about z (an exact unit quaternion in f32 after renormalisation to 1e-7).
    let half = std::f32::consts::FRAC_PI_4;
    let target = Pose { position: [0.5, 1.25, -2.0], rotation: [0.0, 0.0, half.sin(), half.cos()] };
    let set = |pose: &Pose| {
        // SAFETY: 3 and 4 floats.
        unsafe { xpbd_collider_set_pose(capsule, pose.position.as_ptr(), pose.rotation.as_ptr()) }
    };
    ok(set(&target));
    assert_eq!(c_pose(capsule), Pose::at([0.0, 1.0, 0.0]), "the pose changes with the step, not before");
    // A bad pose after a good one leaves the good target in place.
    let bad_rotation = Pose { rotation: [0.0, 0.0, 0.0, 1.01], ..target };
    let nan_position = Pose { position: [f32::NAN, 0.0, 0.0], ..target };
    assert_eq!(set(&bad_rotation), XpbdResult::InvalidArgument);
    assert_eq!(set(&nan_position), XpbdResult::InvalidArgument);
    ok(xpbd_world_step(world, DT));
    let reached = c_pose(capsule);
    assert_eq!(reached.position, target.position, "reached exactly at the end of the step");
    let rotation_error = (0..4).map(|k| (reached.rotation[k] - target.rotation[k]).abs()).fold(0.0, f32::max);
    assert!(rotation_error < 1e-7, "{reached:?}");

    // The descriptor reads back as created, with the reached pose.
    let mut read = xpbd_default_collider_desc();
    // SAFETY: valid out-parameter.
    ok(unsafe { xpbd_collider_get_desc(capsule, &mut read) });
    assert_eq!(read, XpbdColliderDesc { position: reached.position, rotation: reached.rotation, ..desc });

    // Destroyed: every call reports the id, and destroying the world invalidates the others.
    ok(xpbd_collider_destroy(capsule));
    assert_eq!(set(&target), XpbdResult::InvalidId);
    assert_eq!(xpbd_collider_destroy(capsule), XpbdResult::InvalidId);
    let mut other = XpbdColliderId::default();
    // SAFETY: valid descriptor and out-parameter.
    ok(unsafe { xpbd_collider_create(world, &desc, &mut other) });
    assert_eq!(other.id & 0x7FFF_0000_0000, capsule.id & 0x7FFF_0000_0000, "the freed slot is reused");
    assert_ne!(other, capsule, "with a new generation");
    ok(xpbd_world_destroy(world));
    assert_eq!(xpbd_collider_destroy(other), XpbdResult::InvalidId);
}
