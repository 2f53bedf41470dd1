//! Scenes as plain data: which mesh, where it goes, what holds it, what it falls on, the wind, and
//! where the camera looks. The two built-in scenes use the bundled meshes in `data/`; the
//! tablecloth falls on `table.obj` as a mesh collider.

use std::f32::consts::{FRAC_PI_2, TAU};
use std::path::PathBuf;
use std::sync::Arc;
use glam::{Affine3A, Quat, Vec3};
use xpbd_cloth::{ClothParams, ColliderDesc, ColliderHandle, Material, MeshShape, MeshShapeDesc, Pose, World};

/// Fixed frame step [s]: a 60 Hz game.
pub const FRAME_DT: f32 = 1.0 / 60.0;

/// A triangle mesh collider in world space [m]: its triangles (drawn) and the library's distance
/// field of them (`field`, used for the report's penetration; the world builds its own).
#[derive(Debug, PartialEq)]
pub struct DemoMesh {
    pub positions: Vec<[f32; 3]>,
    pub triangles: Vec<[u32; 3]>,
    /// Cell of the distance field [m].
    pub cell_size: f32,
    pub field: MeshShape,
}

/// A collider shape, in world space [m]. Static in the built-in scenes.
#[derive(Clone, Debug, PartialEq)]
pub enum DemoShape {
    /// The half-space behind a plane: everything with (p − point)·normal < 0 is inside.
    Plane { point: Vec3, normal: Vec3 },
    /// An axis-aligned box.
    Box { center: Vec3, half_extents: Vec3 },
    /// A ball.
    Sphere { center: Vec3, radius: f32 },
    /// All points within `radius` of the segment a–b.
    Capsule { a: Vec3, b: Vec3, radius: f32 },
    /// A closed triangle mesh (solid inside).
    Mesh(Arc<DemoMesh>),
}

impl DemoShape {
    /// What a message calls the shape.
    pub fn noun(&self) -> &'static str {
        match self {
            DemoShape::Plane { .. } => "floor plane",
            DemoShape::Box { .. } => "box",
            DemoShape::Sphere { .. } => "ball",
            DemoShape::Capsule { .. } => "capsule",
            DemoShape::Mesh(_) => "mesh",
        }
    }
}

/// A collider of a scene: its shape and its friction coefficient μ [-].
#[derive(Clone, Debug, PartialEq)]
pub struct DemoCollider {
    pub shape: DemoShape,
    pub friction: f32,
}

impl DemoShape {
    /// Signed distance [m] from `p` to the surface: negative inside.
    pub fn signed_distance(&self, p: Vec3) -> f32 {
        match *self {
            DemoShape::Mesh(ref mesh) => mesh.field.distance(p).0,
            DemoShape::Plane { point, normal } => (p - point).dot(normal.normalize()),
            DemoShape::Box { center, half_extents } => {
                // Standard box SDF: outside distance from the clamped excess, inside the largest
                // (least negative) per-axis distance.
                let q = (p - center).abs() - half_extents;
                q.max(Vec3::ZERO).length() + q.max_element().min(0.0)
            }
            DemoShape::Sphere { center, radius } => p.distance(center) - radius,
            DemoShape::Capsule { a, b, radius } => {
                let ab = b - a;
                let t = ((p - a).dot(ab) / ab.length_squared().max(f32::MIN_POSITIVE)).clamp(0.0, 1.0);
                p.distance(a + ab * t) - radius
            }
        }
    }
}

/// Where the camera is: it looks at `target` from `distance` [m] along `direction`.
#[derive(Clone, Copy, Debug)]
pub struct CameraSpec {
    pub target: Vec3,
    pub direction: Vec3,
    pub distance: f32,
    /// Vertical field of view [rad].
    pub fov_y: f32,
}

impl CameraSpec {
    /// A camera along `direction` that keeps the box `lo..hi` in view.
    pub fn framing(lo: Vec3, hi: Vec3, direction: Vec3) -> CameraSpec {
        let fov_y = 40f32.to_radians();
        let radius = 0.5 * (hi - lo).length();
        CameraSpec { target: 0.5 * (lo + hi), direction, distance: 1.05 * radius / (0.5 * fov_y).sin(), fov_y }
    }
}

/// The flag's wind: a steady breeze with slow gusts and a sideways swirl (a perfectly steady,
/// perfectly aligned wind leaves a flat flag edge-on and still).
#[derive(Clone, Copy, Debug)]
pub struct GustyWind {
    /// Mean air velocity [m/s].
    pub mean: Vec3,
    /// Relative amplitude of the along-wind gusts [-].
    pub gust: f32,
    /// Amplitude of the sideways (z) component [m/s].
    pub swirl: f32,
}

impl GustyWind {
    /// Air velocity [m/s] at time `t` [s].
    pub fn at(&self, t: f32) -> Vec3 {
        let gust = 1.0 + self.gust * (TAU * 0.45 * t).sin();
        self.mean * gust + Vec3::Z * self.swirl * (TAU * 1.1 * t).sin()
    }
}

/// Which render vertices are pinned where they start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PinRule {
    None,
    /// Every vertex within 0.1 mm of the smallest x (the flag's hoist edge).
    MinX,
    /// Every vertex within 0.1 mm of the largest y (a ball's valve, which it hangs from).
    MaxY,
}

/// What a scene does besides stepping in its wind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Script {
    /// The scene's collider number `collider` (a ball) waits at `start` until frame `launch`, then
    /// flies at `velocity` [m/s].
    Throw { collider: usize, start: Vec3, velocity: Vec3, launch: u32 },
    /// The cloth's pressure is raised linearly from `from` to `to` over frames 0..`frames`, and
    /// its pins let go at frame `release`.
    Inflate { from: f32, to: f32, frames: u32, release: u32 },
}

impl Script {
    /// Where a thrown ball is after frame `frame` [m].
    pub fn ball_at(start: Vec3, velocity: Vec3, launch: u32, frame: u32) -> Vec3 {
        start + velocity * (frame.saturating_sub(launch) as f32 * FRAME_DT)
    }

    /// The pressure during frame `frame` of an inflation from `from` to `to` over `frames`.
    pub fn pressure_at(from: f32, to: f32, frames: u32, frame: u32) -> f32 {
        from + (to - from) * (frame as f32 / frames.max(1) as f32).min(1.0)
    }
}

/// Everything a run needs besides the command-line options.
#[derive(Clone, Debug)]
pub struct Scene {
    pub name: String,
    pub mesh_path: PathBuf,
    /// Applied to the OBJ positions before the cloth is created.
    pub placement: Affine3A,
    pub pins: PinRule,
    pub colliders: Vec<DemoCollider>,
    /// Contact thickness [m] the cloth keeps from colliders (passed on once colliders are wired).
    pub contact_thickness: f32,
    pub params: ClothParams,
    pub wind: Option<GustyWind>,
    pub frames: u32,
    pub camera: CameraSpec,
    /// Cloth colour (front face; the back face is a darker shade of it), sRGB.
    pub cloth_rgb: [u8; 3],
    /// Render vertices cuts may add (`ClothDesc::max_extra_vertices`; 0: the cloth cannot tear).
    pub max_extra_vertices: u32,
    pub script: Option<Script>,
}

/// Path of a bundled data file (the demo can run from any working directory).
pub fn data_file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data").join(name)
}

/// The bundled tablecloth (Codim-IPC, 0.7 m × 0.7 m) falling 5 cm onto `table.obj` of the same
/// source, a mesh collider, standing on the floor. Without a readable table.obj, the table is
/// approximated by boxes (top, apron, four legs).
pub fn tablecloth() -> Scene {
    let top = 0.975;
    let floor = 0.49;
    // The cloth lies as in its source scene, a third of it over the −x edge: it stays on the table
    // only if μ_s exceeds the overhanging weight over the weight on top (≈ 0.37/0.63 = 0.59): the
    // table gets cotton on a cloth-covered table, about 0.8 (docs/dev/performance-log.md,
    // "2026-11-29 — Colliders: friction, tunnelling and push-out as tested").
    let mut colliders = match table_mesh() {
        Ok(mesh) => vec![DemoCollider { shape: DemoShape::Mesh(Arc::new(mesh)), friction: 0.8 }],
        Err(_) => {
            let table_top = DemoCollider {
                friction: 0.8,
                ..box_collider(Vec3::new(0.0, top - 0.0075, 0.0), Vec3::new(0.223, 0.0075, 0.355))
            };
            let mut boxes = vec![table_top, box_collider(Vec3::new(0.0, 0.94, 0.0), Vec3::new(0.207, 0.02, 0.337))];
            for (x, z) in [(-0.186, -0.316), (-0.186, 0.316), (0.186, -0.316), (0.186, 0.316)] {
                let leg_height = 0.94 - floor;
                boxes.push(box_collider(Vec3::new(x, floor + 0.5 * leg_height, z), Vec3::new(0.019, 0.5 * leg_height, 0.019)));
            }
            boxes
        }
    };
    colliders.push(DemoCollider { shape: DemoShape::Plane { point: Vec3::Y * floor, normal: Vec3::Y }, friction: 0.6 });
    Scene {
        name: "tablecloth".into(),
        mesh_path: data_file("tablecloth.obj"),
        placement: Affine3A::from_translation(Vec3::Y * 0.05),
        pins: PinRule::None,
        colliders,
        contact_thickness: 0.003,
        params: ClothParams { deformation_damping: 0.2, ..ClothParams::default() },
        wind: None,
        frames: 240,
        camera: CameraSpec {
            target: Vec3::new(-0.12, 0.8, 0.0),
            direction: Vec3::new(-0.75, 0.6, 1.0),
            distance: 1.75,
            fov_y: 40f32.to_radians(),
        },
        cloth_rgb: [196, 64, 56],
        max_extra_vertices: 0,
        script: None,
    }
}

/// The bundled 1 m grid (PositionBasedDynamics' plane_50x50) stood upright as a flag, its hoist
/// pinned along a pole, in gusty wind.
pub fn flag() -> Scene {
    let pole_radius = 0.02;
    // The OBJ lies in y = 0 (x, z in ±0.5 m): rotate it about x into the x–y plane, hoist at x = 0,
    // top at y = 2.5 m.
    let placement =
        Affine3A::from_rotation_translation(Quat::from_rotation_x(FRAC_PI_2), Vec3::new(0.5 + pole_radius, 2.0, 0.0));
    let colliders = vec![
        DemoCollider {
            shape: DemoShape::Capsule { a: Vec3::ZERO, b: Vec3::Y * 2.6, radius: pole_radius },
            friction: 0.3,
        },
        DemoCollider { shape: DemoShape::Plane { point: Vec3::ZERO, normal: Vec3::Y }, friction: 0.6 },
    ];
    let material = Material { areal_density: 0.12, ..Material::default() };
    Scene {
        name: "flag".into(),
        mesh_path: data_file("plane_50x50.obj"),
        placement,
        pins: PinRule::MinX,
        colliders,
        contact_thickness: 0.003,
        params: ClothParams {
            material,
            drag_coefficient: 1.0,
            lift_coefficient: 0.3,
            deformation_damping: 0.05,
            ..ClothParams::default()
        },
        wind: Some(GustyWind { mean: Vec3::new(6.0, 0.0, 0.0), gust: 0.35, swirl: 1.2 }),
        frames: 240,
        camera: CameraSpec {
            target: Vec3::new(0.55, 1.75, 0.0),
            direction: Vec3::new(0.55, 0.2, 1.0),
            distance: 3.3,
            fov_y: 40f32.to_radians(),
        },
        cloth_rgb: [40, 92, 170],
        max_extra_vertices: 0,
        script: None,
    }
}

/// Any OBJ dropped onto a ball, with a floor below. Sizes follow the mesh's bounding box
/// `lo..hi` [m] so that any unit-consistent mesh gets a sensible scene.
pub fn drop_onto_ball(mesh_path: PathBuf, lo: Vec3, hi: Vec3) -> Scene {
    let size = (hi - lo).max_element().max(1e-3);
    let center = 0.5 * (lo + hi);
    let radius = 0.3 * size;
    let ball = Vec3::new(center.x, lo.y - 0.05 * size - radius, center.z);
    let floor = ball.y - radius;
    let colliders = vec![
        DemoCollider { shape: DemoShape::Sphere { center: ball, radius }, friction: 0.4 },
        DemoCollider { shape: DemoShape::Plane { point: Vec3::Y * floor, normal: Vec3::Y }, friction: 0.6 },
    ];
    let name = mesh_path.file_stem().map_or("mesh".into(), |s| s.to_string_lossy().into_owned());
    let view_lo = lo.min(ball - Vec3::splat(radius));
    Scene {
        name,
        mesh_path,
        placement: Affine3A::IDENTITY,
        pins: PinRule::None,
        colliders,
        // Within the library's 0..=1 m range, so that a large (or broken) mesh is reported for
        // what it is rather than as a bad thickness.
        contact_thickness: (0.005 * size).clamp(1e-4, 1.0),
        params: ClothParams { deformation_damping: 0.2, ..ClothParams::default() },
        wind: None,
        frames: 120,
        camera: CameraSpec::framing(view_lo, hi, Vec3::new(-0.6, 0.6, 1.0)),
        cloth_rgb: [214, 170, 60],
        max_extra_vertices: 0,
        script: None,
    }
}

/// Cell of the table's distance field [m]: a third of its 1.5 cm top, above the 3 mm contact
/// thickness.
const TABLE_CELL: f32 = 0.005;

/// `data/table.obj` with its distance field. Errors: the file cannot be read or built.
fn table_mesh() -> Result<DemoMesh, String> {
    demo_mesh("table.obj", Affine3A::IDENTITY, TABLE_CELL)
}

/// The bundled closed mesh `name` placed by `placement`, with its distance field of cells of
/// `cell_size` [m]. Errors: the file cannot be read or the field built (as text).
fn demo_mesh(name: &str, placement: Affine3A, cell_size: f32) -> Result<DemoMesh, String> {
    let mesh = crate::mesh_io::load_obj(&data_file(name))?;
    let positions: Vec<[f32; 3]> =
        mesh.positions.iter().map(|&p| placement.transform_point3(Vec3::from_array(p)).to_array()).collect();
    let triangles: Vec<[u32; 3]> = mesh.indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
    let desc = MeshShapeDesc { positions: &positions, triangles: &triangles, cell_size, closed: true };
    let field = MeshShape::build(&desc).map_err(|e| format!("{name}: {e}"))?;
    Ok(DemoMesh { positions, triangles, cell_size, field })
}

/// Scale of Keenan Crane's Spot in the cow scene: 0.8 makes it 1.35 m tall.
const COW_SCALE: f32 = 0.8;

/// The bundled 1 m grid, stretched to 1.4 m, dropped over `spot.obj` (the cow, a mesh collider)
/// standing on the floor. Without a readable spot.obj the cloth falls on the floor alone.
pub fn cow() -> Scene {
    // Spot's feet are at y = −0.737 in its file: stand it on y = 0.
    let placement = Affine3A::from_scale_rotation_translation(Vec3::splat(COW_SCALE), Quat::IDENTITY, Vec3::Y * 0.737 * COW_SCALE);
    let mut colliders: Vec<DemoCollider> =
        demo_mesh("spot.obj", placement, 0.012).map(|m| DemoCollider { shape: DemoShape::Mesh(Arc::new(m)), friction: 0.6 }).into_iter().collect();
    colliders.push(DemoCollider { shape: DemoShape::Plane { point: Vec3::ZERO, normal: Vec3::Y }, friction: 0.6 });
    Scene {
        name: "cow".into(),
        mesh_path: data_file("plane_50x50.obj"),
        placement: Affine3A::from_scale_rotation_translation(Vec3::new(1.4, 1.0, 1.4), Quat::IDENTITY, Vec3::new(0.0, 1.45, 0.15)),
        pins: PinRule::None,
        colliders,
        contact_thickness: 0.005,
        params: ClothParams { deformation_damping: 0.2, ..ClothParams::default() },
        wind: None,
        frames: 240,
        camera: CameraSpec {
            target: Vec3::new(0.0, 0.75, 0.15),
            direction: Vec3::new(-1.0, 0.55, 0.8),
            distance: 3.2,
            fov_y: 40f32.to_radians(),
        },
        cloth_rgb: [70, 140, 90],
        max_extra_vertices: 0,
        script: None,
    }
}

/// The flag in its wind, tearable: after a second a ball of 12 cm flies through it at 15 m/s and
/// tears a hole (the cloth splits where an edge stretches past the tear strain; docs/design.md,
/// "Tearing").
pub fn torn_flag() -> Scene {
    let flag = flag();
    let start = Vec3::new(0.62, 2.0, -1.2);
    let mut colliders = flag.colliders.clone();
    colliders.push(DemoCollider { shape: DemoShape::Sphere { center: start, radius: 0.12 }, friction: 0.3 });
    Scene {
        name: "torn_flag".into(),
        colliders,
        params: ClothParams { tear_strain: Some(TORN_FLAG_TEAR_STRAIN), ..flag.params },
        frames: 150,
        cloth_rgb: [200, 150, 40],
        max_extra_vertices: 2000,
        script: Some(Script::Throw { collider: 2, start, velocity: Vec3::Z * 15.0, launch: 60 }),
        ..flag
    }
}

/// Strain at which the torn flag's edges tear [-].
const TORN_FLAG_TEAR_STRAIN: f32 = 0.3;

/// A beach ball (the bundled sphere, 20 cm radius) hanging from its valve over the table,
/// inflated from a third of its volume to full, then let go onto the table (pressure: one volume
/// constraint over the closed cloth; docs/design.md, "Pressure").
pub fn beach_ball() -> Scene {
    let table = tablecloth();
    Scene {
        name: "beach_ball".into(),
        mesh_path: data_file("sphere.obj"),
        placement: Affine3A::from_scale_rotation_translation(Vec3::splat(BALL_RADIUS), Quat::IDENTITY, Vec3::new(0.0, 1.4, 0.0)),
        pins: PinRule::MaxY,
        colliders: table.colliders,
        contact_thickness: 0.003,
        params: ClothParams { pressure: Some(0.3), deformation_damping: 0.1, ..ClothParams::default() },
        wind: None,
        frames: 240,
        camera: CameraSpec {
            target: Vec3::new(0.0, 1.15, 0.0),
            direction: Vec3::new(-0.75, 0.45, 1.0),
            distance: 1.9,
            fov_y: 40f32.to_radians(),
        },
        cloth_rgb: [230, 60, 120],
        max_extra_vertices: 0,
        script: Some(Script::Inflate { from: 0.3, to: 1.0, frames: 60, release: 90 }),
    }
}

/// The beach ball's radius [m] (data/sphere.obj is a unit sphere).
const BALL_RADIUS: f32 = 0.2;

fn box_collider(center: Vec3, half_extents: Vec3) -> DemoCollider {
    DemoCollider { shape: DemoShape::Box { center, half_extents }, friction: 0.5 }
}

/// Edge rounding of box colliders [m] (the outer size stays `half_extents`).
const BOX_EDGE_ROUNDING: f32 = 0.01;

/// Register the scene's colliders with the world: the one place where the demo hands colliders
/// to the library. Returns their handles, in the scene's order.
pub fn add_colliders(world: &mut World, scene: &Scene) -> Result<Vec<ColliderHandle>, String> {
    let mut handles = Vec::with_capacity(scene.colliders.len());
    for c in &scene.colliders {
        // The demo places and sizes its colliders from the mesh (`--obj`): say so, since the user
        // never gave these values.
        let rejected = |e: xpbd_cloth::ClothError| format!("the demo's {} (placed and sized from the mesh) was rejected: {e}", c.shape.noun());
        let desc = match &c.shape {
            DemoShape::Mesh(mesh) => {
                let desc = MeshShapeDesc { positions: &mesh.positions, triangles: &mesh.triangles, cell_size: mesh.cell_size, closed: true };
                let shape = world.create_mesh_shape(&desc).map_err(rejected)?;
                ColliderDesc { static_friction: c.friction, kinetic_friction: c.friction, ..ColliderDesc::mesh(shape) }
            }
            _ => c.to_collider_desc(),
        };
        handles.push(world.add_collider(&desc).map_err(rejected)?);
    }
    Ok(handles)
}

impl DemoCollider {
    /// The library's description of this collider (static and kinetic friction both μ). Meshes:
    /// see [`add_colliders`], which builds their shape.
    pub fn to_collider_desc(&self) -> ColliderDesc {
        let at_rotation = |position: Vec3, up: Vec3| Pose {
            position: position.to_array(),
            rotation: Quat::from_rotation_arc(Vec3::Y, up.normalize()).to_array(),
        };
        let shape = match self.shape.clone() {
            // The library's plane has its normal along local +Y and is solid below it.
            DemoShape::Plane { point, normal } => ColliderDesc { pose: at_rotation(point, normal), ..ColliderDesc::plane() },
            DemoShape::Box { center, half_extents } => {
                // Real furniture has rounded edges, and on a sharp 90° edge the one-iteration solve
                // leaves the wrapped cloth far more stretched (docs/dev/performance-log.md,
                // "2026-11-29 — Colliders: friction, tunnelling and push-out as tested").
                let rounding = BOX_EDGE_ROUNDING.min(half_extents.min_element());
                ColliderDesc {
                    pose: Pose::at(center.to_array()),
                    radius: rounding,
                    ..ColliderDesc::cuboid(half_extents.to_array())
                }
            }
            DemoShape::Sphere { center, radius } => {
                ColliderDesc { pose: Pose::at(center.to_array()), ..ColliderDesc::sphere(radius) }
            }
            // The library's capsule runs along local Y.
            DemoShape::Capsule { a, b, radius } => ColliderDesc {
                pose: at_rotation(0.5 * (a + b), b - a),
                ..ColliderDesc::capsule(radius, 0.5 * a.distance(b))
            },
            DemoShape::Mesh(_) => ColliderDesc::mesh(Default::default()),
        };
        ColliderDesc { static_friction: self.friction, kinetic_friction: self.friction, ..shape }
    }
}

/// Deepest penetration [m] of any of `points` into any collider (0 when every point is outside).
pub fn max_penetration(points: &[Vec3], colliders: &[DemoCollider]) -> f32 {
    let mut deepest = 0.0f32;
    for c in colliders {
        for &p in points {
            deepest = deepest.max(-c.shape.signed_distance(p));
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_distances_match_the_geometry() {
        let bx = DemoShape::Box { center: Vec3::new(1.0, 0.0, 0.0), half_extents: Vec3::new(0.5, 0.25, 1.0) };
        assert!((bx.signed_distance(Vec3::new(1.0, 0.0, 0.0)) + 0.25).abs() < 1e-6); // centre: nearest face y
        assert!((bx.signed_distance(Vec3::new(1.0, 1.25, 0.0)) - 1.0).abs() < 1e-6); // above the top face
        assert!((bx.signed_distance(Vec3::new(2.5, 1.25, 0.0)) - 2f32.sqrt()).abs() < 1e-6); // off an edge
        let plane = DemoShape::Plane { point: Vec3::Y, normal: Vec3::Y * 2.0 };
        assert!((plane.signed_distance(Vec3::new(5.0, 0.25, -3.0)) + 0.75).abs() < 1e-6);
        let ball = DemoShape::Sphere { center: Vec3::ONE, radius: 0.5 };
        assert!((ball.signed_distance(Vec3::new(1.0, 1.0, 3.0)) - 1.5).abs() < 1e-6);
        let capsule = DemoShape::Capsule { a: Vec3::ZERO, b: Vec3::Y * 2.0, radius: 0.1 };
        assert!((capsule.signed_distance(Vec3::new(0.3, 1.0, 0.0)) - 0.2).abs() < 1e-6); // beside the shaft
        assert!((capsule.signed_distance(Vec3::new(0.0, 3.0, 0.0)) - 0.9).abs() < 1e-6); // above the cap
    }

    #[test]
    fn penetration_is_the_deepest_point_inside_any_collider() {
        let colliders = [
            DemoCollider { shape: DemoShape::Plane { point: Vec3::ZERO, normal: Vec3::Y }, friction: 0.0 },
            DemoCollider { shape: DemoShape::Sphere { center: Vec3::Y * 2.0, radius: 1.0 }, friction: 0.0 },
        ];
        let points = [Vec3::new(0.0, 0.5, 0.0), Vec3::new(0.0, -0.1, 0.0), Vec3::new(0.0, 2.3, 0.0)];
        assert!((max_penetration(&points, &colliders) - 0.7).abs() < 1e-6);
        assert_eq!(max_penetration(&points[..1], &colliders), 0.0);
    }

    #[test]
    fn the_flag_hoist_is_at_the_pole_and_the_flag_upright() {
        let s = flag();
        let hoist = s.placement.transform_point3(Vec3::new(-0.5, 0.0, 0.5));
        let fly_top = s.placement.transform_point3(Vec3::new(0.5, 0.0, -0.5));
        assert!((hoist - Vec3::new(0.02, 1.5, 0.0)).length() < 1e-6, "{hoist}");
        assert!((fly_top - Vec3::new(1.02, 2.5, 0.0)).length() < 1e-6, "{fly_top}");
    }
}
