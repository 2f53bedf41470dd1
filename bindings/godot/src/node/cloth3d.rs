//! `XpbdCloth3D`: a Node3D that simulates the first surface of a MeshInstance3D as cloth, free
//! or worn (driven by a Skeleton3D's skinned pose within per-vertex max distances and backstops).

use super::colliders::{ColliderSettings, ColliderSync};
use super::skeleton_link::SkeletonLink;
use super::surface_link::{SurfaceArrays, SurfaceLink, read_first_surface, torn_surface};
use super::to_affine;
use crate::convert::debug_lines::DebugLines;
use crate::convert::limits::{self, LimitSource};
use crate::convert::params::{InspectorParams, recovery_from_index, recovery_index};
use crate::convert::pins::{self, AnchoredPin, ColorChannel};
use crate::convert::surface::{WorldToLocal, core_triangles, is_mirroring, read_local_interpolated, read_proxy_local_interpolated, to_world};
use crate::convert::torn::godot_indices;
use glam::Vec3;
use godot::builtin::{Array, Color, NodePath, PackedFloat32Array, PackedInt32Array, StringName, VarDictionary, Vector3};
use godot::classes::base_material_3d::{Flags as MaterialFlags, ShadingMode};
use godot::classes::mesh::PrimitiveType;
use godot::classes::{Engine, INode3D, ImmediateMesh, Mesh, MeshInstance3D, Node3D, ProjectSettings, Skeleton3D, StandardMaterial3D};
use godot::global::godot_error;
use godot::obj::{Base, Gd, NewAlloc, NewGd, Singleton, WithBaseField};
use godot::prelude::{GodotClass, godot_api};
use xpbd_cloth::{Cloth, ClothDesc, ClothHandle, ClothParams, RenderProxyDesc, RenderProxyHandle, World, WorldDesc};

/// Simulates the first surface of a MeshInstance3D as cloth (XPBD, Macklin et al. 2016, with
/// Small Steps, Macklin et al. 2019), stepped with the physics tick and drawn every frame
/// interpolated between the last two ticks. Add it next to the mesh, set `mesh_instance`, choose
/// pins, and put the colliders' bodies in `collider_group`. Under a Skeleton3D (or with
/// `skeleton` set) the cloth is worn: it follows the mesh's skinned pose within max distances.
#[derive(GodotClass)]
#[class(base = Node3D)]
pub struct XpbdCloth3D {
    /// The MeshInstance3D whose first surface becomes the cloth. It gets its own runtime copy
    /// of the mesh (the resource on disk and other instances stay untouched).
    #[export(node_path = ("MeshInstance3D"))]
    mesh_instance: NodePath,
    /// Vertices closer than this [m] are simulated as one particle (seams split by UVs or normals).
    #[export(range = (0.0, 0.01, 0.000001, or_greater, suffix = "m"))]
    weld_tolerance: f32,

    /// Pin the vertices whose colour channel is at least `pin_color_threshold`.
    #[export_group(name = "Pins", prefix = "pin_")]
    #[export]
    pin_by_color: bool,
    /// Which vertex colour channel marks pinned vertices.
    #[export(enum = (Red = 0, Green = 1, Blue = 2, Alpha = 3))]
    pin_color_channel: i64,
    /// Channel value from which a vertex is pinned (colours are 0–1).
    #[export(range = (0.0, 1.0, 0.01))]
    pin_color_threshold: f32,
    /// Vertex indices of the surface to pin (render order).
    #[export]
    pin_vertices: PackedInt32Array,
    /// Node3Ds that each hold the vertex nearest to them (at start), and carry it when they move
    /// or turn. Colour and list pins follow the mesh instance instead.
    #[export]
    pin_nodes: Array<NodePath>,

    /// Mass per unit area of the fabric.
    #[export_group(name = "Material", prefix = "")]
    #[export(range = (0.01, 2.0, 0.01, or_greater, suffix = "kg/m²"))]
    areal_density: f32,
    /// Young's modulus E of the fabric (stretch stiffness, and bending with the thickness).
    #[export(range = (0.1, 100.0, 0.1, or_greater, suffix = "MPa"))]
    youngs_modulus: f32,
    /// Poisson ratio ν.
    #[export(range = (0.0, 0.49, 0.01))]
    poisson_ratio: f32,
    /// Fabric thickness t (bending stiffness grows with t³; not the collision distance).
    #[export(range = (0.01, 5.0, 0.01, or_greater, suffix = "mm"))]
    thickness: f32,
    /// Stretch compliance α (inverse stiffness); negative = derived from the material.
    #[export(range = (-1.0, 0.001, 0.0000001, or_greater, suffix = "m/N"))]
    stretch_compliance: f32,
    /// Bending compliance α; negative = derived from the material.
    #[export(range = (-1.0, 10.0, 0.0001, or_greater, suffix = "rad/(N·m)"))]
    bend_compliance: f32,
    /// Stretch constraint damping β (XPBD eq. 26).
    #[export(range = (0.0, 1.0, 0.0001, or_greater, suffix = "N·s/m"))]
    stretch_damping: f32,
    /// Bending constraint damping β (XPBD eq. 26).
    #[export(range = (0.0, 1.0, 0.0001, or_greater, suffix = "N·m·s/rad"))]
    bend_damping: f32,
    /// Velocity damping of all motion: v ← v·exp(−d·h) per substep (0 by default).
    #[export(range = (0.0, 10.0, 0.01, or_greater, suffix = "1/s"))]
    linear_damping: f32,
    /// Damping of the velocity relative to the cloth's rigid motion (keeps momentum).
    #[export(range = (0.0, 10.0, 0.01, or_greater, suffix = "1/s"))]
    deformation_damping: f32,
    /// Bending constraints on.
    #[export]
    enable_bending: bool,
    /// Tethers (long-range attachments to the pins) on: keep pinned cloth from over-stretching.
    #[export]
    enable_tethers: bool,
    /// A particle may move up to this factor × its rest mesh distance from its pin.
    #[export(range = (1.0, 2.0, 0.01, or_greater))]
    tether_slack: f32,
    /// Strain limit: no edge ends a step longer than this ratio × its rest length; 0 = off.
    #[export(range = (0.0, 2.0, 0.01, or_greater))]
    max_stretch: f32,

    /// Air velocity (world space); needs a drag or lift coefficient.
    #[export_group(name = "Wind", prefix = "")]
    #[export]
    wind_velocity: Vector3,
    /// Aerodynamic drag coefficient C_D (≈ 1 for a plate facing the flow).
    #[export(range = (0.0, 5.0, 0.01))]
    drag_coefficient: f32,
    /// Aerodynamic lift coefficient C_L (≈ 0.2–0.5 for cloth).
    #[export(range = (0.0, 5.0, 0.01))]
    lift_coefficient: f32,
    /// Air density ρ.
    #[export(range = (0.0, 5.0, 0.001, suffix = "kg/m³"))]
    air_density: f32,

    /// Substeps per physics tick: the main quality knob (Small Steps).
    #[export_group(name = "Solver", prefix = "")]
    #[export(range = (1.0, 100.0, 1.0, or_greater))]
    substeps: u32,
    /// Solver iterations per substep (1 is right with enough substeps).
    #[export(range = (1.0, 10.0, 1.0, or_greater))]
    iterations: u32,
    /// Worker threads of this cloth's world (0 = all cores).
    #[export(range = (0.0, 64.0, 1.0))]
    threads: u32,

    /// Bodies in this group lend their CollisionShape3D children (sphere, capsule, box, world
    /// boundary) to the cloth as colliders, moving with them.
    #[export_group(name = "Collisions", prefix = "")]
    #[export]
    collider_group: StringName,
    /// Distance kept between the cloth and every collider surface.
    #[export(range = (0.0, 0.1, 0.0001, or_greater, suffix = "m"))]
    collision_thickness: f32,
    /// Static friction coefficient μ_s of the colliders.
    #[export(range = (0.0, 2.0, 0.01, or_greater))]
    static_friction: f32,
    /// Kinetic friction coefficient μ_k of the colliders.
    #[export(range = (0.0, 2.0, 0.01, or_greater))]
    kinetic_friction: f32,
    /// Collision layers of this cloth's colliders.
    #[export(flags_3d_physics)]
    collider_layers: u32,
    /// Which collider layers the cloth collides with.
    #[export(flags_3d_physics)]
    collision_mask: u32,
    /// Keep the cloth's own layers apart (folds, a cape on itself); friction between them.
    #[export]
    self_collision: bool,
    /// Self-collision particle radius r (particles kept 2r apart); 0 = half the mesh's median edge length.
    /// About half the mesh's edge length; 2r below the smallest gap between layers at rest.
    #[export(range = (0.0, 0.1, 0.0001, or_greater, suffix = "m"))]
    self_collision_radius: f32,
    /// Static friction coefficient μ_s between touching parts of the cloth.
    #[export(range = (0.0, 2.0, 0.01, or_greater))]
    self_static_friction: f32,
    /// Kinetic friction coefficient μ_k between touching parts of the cloth.
    #[export(range = (0.0, 2.0, 0.01, or_greater))]
    self_kinetic_friction: f32,

    /// Fraction of its pins' translation the cloth feels: 1 = fully physical (it swings behind
    /// them), 0 = carried along (a cape that does not stream out when its character dashes).
    #[export_group(name = "Robustness", prefix = "")]
    #[export(range = (0.0, 1.0, 0.01))]
    inertia_scale: f32,
    /// Explosion guard: a step in which a particle moves farther than this speed allows (plus
    /// pin and collider moves and twice the cloth's size) counts as unstable.
    #[export(range = (0.001, 1000.0, 0.1, or_greater, suffix = "m/s"))]
    max_particle_speed: f32,
    /// What the explosion guard does with an unstable cloth.
    #[export(enum = (LastGoodState = 0, RestPose = 1, Disabled = 2))]
    unstable_recovery: i64,

    /// Let the cloth tear: edges stretched beyond `tear_strain` break, and `tear()` cuts it. The
    /// surface gains vertices where it tears; the node rebuilds it (UVs and colours follow).
    #[export_group(name = "Tearing and pressure", prefix = "")]
    #[export]
    tearable: bool,
    /// Vertices reserved for cuts (buffers are sized once for them); 0 = as many as the surface has.
    #[export(range = (0.0, 100000.0, 1.0, or_greater))]
    max_extra_vertices: i64,
    /// An edge longer than (1 + tear strain) × its rest length tears; 0 = only scripted cuts.
    #[export(range = (0.0, 5.0, 0.01, or_greater))]
    tear_strain: f32,
    /// A closed surface (a ball, a cushion) holds this multiple of its rest volume; 0 = off.
    /// A tear lets the air out.
    #[export(range = (0.0, 10.0, 0.01, or_greater))]
    pressure: f32,
    /// Compliance of the enclosed air: 0 holds the volume exactly.
    #[export(range = (0.0, 0.001, 0.0000001, or_greater, suffix = "m³/Pa"))]
    volume_compliance: f32,

    /// The Skeleton3D whose skinned pose the cloth follows (the surface's ARRAY_BONES /
    /// ARRAY_WEIGHTS and the mesh instance's Skin). Empty: this node's parent if it is a
    /// Skeleton3D and the surface is skinned, else none (free cloth).
    #[export_group(name = "Worn cloth", prefix = "")]
    #[export(node_path = ("Skeleton3D"))]
    skeleton: NodePath,
    /// Max distance: how far each vertex may leave its skinned position (0 = moves with the skin).
    #[export(enum = (None = 0, VertexColor = 1, Array = 2))]
    max_distance_source: i64,
    /// Vertex colour channel holding the max distance (0–1 × `max_distance_scale`).
    #[export(enum = (Red = 0, Green = 1, Blue = 2, Alpha = 3))]
    max_distance_channel: i64,
    /// Max distance of a channel value of 1.
    #[export(range = (0.0, 1.0, 0.001, or_greater, suffix = "m"))]
    max_distance_scale: f32,
    /// Max distance [m] per surface vertex (Array source).
    #[export]
    max_distances: PackedFloat32Array,
    /// Backstop: each vertex stays outside a sphere of `backstop_radius` whose surface lies the
    /// backstop distance behind its skinned position, so cloth never passes behind the body.
    #[export(enum = (None = 0, VertexColor = 1, Array = 2))]
    backstop_source: i64,
    /// Vertex colour channel holding the backstop distance (0–1 × `backstop_scale`).
    #[export(enum = (Red = 0, Green = 1, Blue = 2, Alpha = 3))]
    backstop_channel: i64,
    /// Backstop distance of a channel value of 1.
    #[export(range = (0.0, 0.5, 0.001, or_greater, suffix = "m"))]
    backstop_scale: f32,
    /// Backstop distance [m] per surface vertex (Array source).
    #[export]
    backstop_distances: PackedFloat32Array,
    /// Backstop sphere radius (every vertex): large against a flat body, about a limb's radius on a limb.
    #[export(range = (0.0, 2.0, 0.001, or_greater, suffix = "m"))]
    backstop_radius: f32,
    /// Pull every vertex towards its skinned position (an XPBD soft attachment of `anim_drive_compliance`).
    #[export]
    anim_drive: bool,
    /// Anim drive compliance α: a particle of mass m under gravity g hangs α·m·g below its pose.
    #[export(range = (0.0, 1.0, 0.00001, or_greater, suffix = "m/N"))]
    anim_drive_compliance: f32,
    /// Fraction of the skeleton's translation the cloth feels: 1 = plain physics, 0 = running does
    /// not stream the cloth out.
    #[export(range = (0.0, 1.0, 0.01))]
    linear_inertia: f32,
    /// Fraction of the skeleton's rotation the cloth feels: 0 = a snap turn carries it round.
    #[export(range = (0.0, 1.0, 0.01))]
    angular_inertia: f32,

    /// Level of detail: step once every this many physics ticks, over that many ticks of time, at
    /// about 1/N of the cost (1 = every tick); drawn smoothly at every frame. 2–4 for cloth in
    /// the distance; may change at any time without a jump.
    #[export_group(name = "Level of detail", prefix = "")]
    #[export(range = (1.0, 16.0, 1.0))]
    step_interval: u32,
    /// A MeshInstance3D whose first surface (a finer mesh of the same surface) is drawn bound to
    /// the simulated one, a render proxy; hide `mesh_instance` to show only it. Empty: none.
    #[export(node_path = ("MeshInstance3D"))]
    render_mesh_instance: NodePath,
    /// Farthest a vertex of the render mesh may lie from the simulated surface.
    #[export(range = (0.0001, 0.5, 0.0001, or_greater, suffix = "m"))]
    render_max_distance: f32,

    /// Debug lines drawn with an ImmediateMesh while running: edges coloured by strain (green at
    /// rest, red at the stretch limit), colliders, contacts, pins, max distances, backstops, normals.
    #[export_group(name = "Debug", prefix = "")]
    #[export(flags = (Edges = 1, Colliders = 2, Contacts = 4, Pins = 8, MaxDistance = 16, Backstop = 32, Normals = 64))]
    debug_lines: u32,

    sim: Option<Simulation>,
    base: Base<Node3D>,
}

/// What exists while the node is in the tree and set up.
struct Simulation {
    world: World,
    cloth: ClothHandle,
    instance: Gd<MeshInstance3D>,
    /// The mesh the instance had before it got its runtime copy; given back on reset and exit.
    source: Gd<Mesh>,
    surface: SurfaceLink,
    /// Pins held in the mesh instance's frame (colour and list pins).
    mesh_pins: Vec<AnchoredPin>,
    /// Pins held by attached nodes.
    node_pins: Vec<(Gd<Node3D>, AnchoredPin)>,
    /// Scratch for `set_pin_targets`: pinned vertices and their targets [m], same order.
    pin_vertices: Vec<u32>,
    pin_targets: Vec<[f32; 3]>,
    colliders: ColliderSync,
    applied: InspectorParams,
    /// Linear and angular inertia as last given to the core.
    inertia: (f32, f32),
    /// The skeleton of a worn cloth.
    skeleton: Option<SkeletonLink>,
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    /// The render mesh drawn bound to the cloth, if any.
    proxy: Option<ProxyLink>,
    /// The debug lines' mesh, made the first time they are asked for.
    debug: Option<DebugDraw>,
    /// The surface as read at setup (a torn cloth's surface is rebuilt from it) and the core's
    /// topology version the instance's surface shows.
    original: SurfaceArrays,
    mirrored: bool,
    topology_version: u32,
}

/// A render proxy and the MeshInstance3D that shows it.
struct ProxyLink {
    handle: RenderProxyHandle,
    instance: Gd<MeshInstance3D>,
    /// Its mesh before the runtime copy; given back on reset and exit.
    source: Gd<Mesh>,
    surface: SurfaceLink,
    /// Scratch of the interleaved positions and normals, 24 bytes per vertex.
    bytes: Vec<u8>,
}

/// The debug lines drawn by a top-level child (world space) with an unshaded vertex-colour material.
struct DebugDraw {
    node: Gd<MeshInstance3D>,
    mesh: Gd<ImmediateMesh>,
    material: Gd<StandardMaterial3D>,
    lines: DebugLines,
}

impl XpbdCloth3D {
    /// The inspector's settings. Errors: an `unstable_recovery` outside 0–2 (set from a script).
    fn inspector_params(&self) -> Result<InspectorParams, String> {
        let unstable_recovery = recovery_from_index(self.unstable_recovery).ok_or("unstable_recovery must be 0–2")?;
        Ok(InspectorParams {
            areal_density: self.areal_density,
            youngs_modulus_mpa: self.youngs_modulus,
            poisson_ratio: self.poisson_ratio,
            thickness_mm: self.thickness,
            stretch_compliance: self.stretch_compliance,
            bend_compliance: self.bend_compliance,
            stretch_damping: self.stretch_damping,
            bend_damping: self.bend_damping,
            linear_damping: self.linear_damping,
            deformation_damping: self.deformation_damping,
            tether_slack: self.tether_slack,
            max_stretch: self.max_stretch,
            enable_bending: self.enable_bending,
            enable_tethers: self.enable_tethers,
            wind_velocity: [self.wind_velocity.x as f32, self.wind_velocity.y as f32, self.wind_velocity.z as f32],
            drag_coefficient: self.drag_coefficient,
            lift_coefficient: self.lift_coefficient,
            air_density: self.air_density,
            substeps: self.substeps,
            iterations: self.iterations,
            collision_thickness: self.collision_thickness,
            collision_mask: self.collision_mask,
            self_collision: self.self_collision,
            self_collision_radius: self.self_collision_radius,
            self_static_friction: self.self_static_friction,
            self_kinetic_friction: self.self_kinetic_friction,
            inertia_scale: self.inertia_scale,
            max_particle_speed: self.max_particle_speed,
            unstable_recovery,
            step_interval: self.step_interval,
            tear_strain: self.tear_strain,
            tear_max_per_step: ClothParams::default().tear_max_per_step,
            pressure: self.pressure,
            volume_compliance: self.volume_compliance,
        })
    }

    fn show_params(&mut self, p: &InspectorParams) {
        self.areal_density = p.areal_density;
        self.youngs_modulus = p.youngs_modulus_mpa;
        self.poisson_ratio = p.poisson_ratio;
        self.thickness = p.thickness_mm;
        self.stretch_compliance = p.stretch_compliance;
        self.bend_compliance = p.bend_compliance;
        self.stretch_damping = p.stretch_damping;
        self.bend_damping = p.bend_damping;
        self.linear_damping = p.linear_damping;
        self.deformation_damping = p.deformation_damping;
        self.tether_slack = p.tether_slack;
        self.max_stretch = p.max_stretch;
        self.enable_bending = p.enable_bending;
        self.enable_tethers = p.enable_tethers;
        let w = p.wind_velocity;
        self.wind_velocity = Vector3::new(w[0] as _, w[1] as _, w[2] as _);
        self.drag_coefficient = p.drag_coefficient;
        self.lift_coefficient = p.lift_coefficient;
        self.air_density = p.air_density;
        self.substeps = p.substeps;
        self.iterations = p.iterations;
        self.collision_thickness = p.collision_thickness;
        self.collision_mask = p.collision_mask;
        self.self_collision = p.self_collision;
        self.self_collision_radius = p.self_collision_radius;
        self.self_static_friction = p.self_static_friction;
        self.self_kinetic_friction = p.self_kinetic_friction;
        self.inertia_scale = p.inertia_scale;
        self.max_particle_speed = p.max_particle_speed;
        self.unstable_recovery = recovery_index(p.unstable_recovery);
        self.step_interval = p.step_interval;
        self.tear_strain = p.tear_strain;
        self.pressure = p.pressure;
        self.volume_compliance = p.volume_compliance;
    }

    fn collider_settings(&self) -> ColliderSettings {
        ColliderSettings {
            static_friction: self.static_friction,
            kinetic_friction: self.kinetic_friction,
            layers: self.collider_layers,
        }
    }

    /// Project gravity [m/s²] (physics/3d/default_gravity × default_gravity_vector).
    fn project_gravity() -> [f32; 3] {
        let settings = ProjectSettings::singleton();
        let g = settings.get_setting("physics/3d/default_gravity").try_to::<f32>().unwrap_or(9.8);
        let dir = settings.get_setting("physics/3d/default_gravity_vector").try_to::<Vector3>().unwrap_or(Vector3::new(0.0, -1.0, 0.0));
        [dir.x as f32 * g, dir.y as f32 * g, dir.z as f32 * g]
    }

    /// Build the simulation from the mesh instance, pins and settings. Errors: a message naming
    /// what is wrong (missing mesh, bad surface, bad pin, invalid parameter, the core's mesh
    /// validation); nothing is changed on error.
    fn build(&self) -> Result<Simulation, String> {
        let node = self.base().get_node_or_null(&self.mesh_instance).ok_or("mesh_instance is not set or not found")?;
        let mut instance = node.try_cast::<MeshInstance3D>().map_err(|_| "mesh_instance is not a MeshInstance3D")?;
        let source = instance.get_mesh().ok_or("the MeshInstance3D has no mesh")?;
        let surface = read_first_surface(&source)?;
        let transform = to_affine(&instance.get_global_transform());
        // Results go back into the instance's local space: its transform must be invertible.
        WorldToLocal::new(&transform).map_err(|e| e.to_string())?;
        let world_positions = to_world(&surface.positions, &transform);
        let indices = core_triangles(surface.indices.as_deref(), surface.positions.len(), is_mirroring(&transform))
            .map_err(|e| e.to_string())?;

        let skeleton = self.find_skeleton(surface.bones.is_some())?;
        let inspector = self.inspector_params()?;
        let mut params = inspector.to_params(&ClothParams::default());
        (params.linear_inertia, params.angular_inertia) = (self.linear_inertia, self.angular_inertia);
        params.validate().map_err(|e| e.to_string())?;
        let threads = self.threads;
        let mut world = World::new(WorldDesc { gravity: Self::project_gravity(), thread_count: threads, ..WorldDesc::default() })
            .map_err(|e| e.to_string())?;
        let extra = match (self.tearable, self.max_extra_vertices) {
            (false, _) => 0,
            (true, k) if k > 0 => u32::try_from(k).map_err(|_| "max_extra_vertices is too large")?,
            (true, _) => surface.positions.len() as u32,
        };
        let desc = ClothDesc {
            weld_tolerance: self.weld_tolerance,
            max_extra_vertices: extra,
            params,
            ..ClothDesc::new(&world_positions, &indices)
        };
        let cloth = world.add_cloth(&desc).map_err(|e| format!("the mesh cannot be cloth: {e}"))?;

        // Pins: colour channel and list in the mesh instance's frame, nodes in their own.
        let n = surface.positions.len();
        let mut mesh_pinned = pins::by_list(&self.pin_vertices.as_slice().iter().map(|&v| v as i64).collect::<Vec<_>>(), n)
            .map_err(|e| e.to_string())?;
        if self.pin_by_color {
            let channel = ColorChannel::from_index(self.pin_color_channel).ok_or("pin_color_channel must be 0–3")?;
            let colors = surface.colors.as_deref().ok_or("pin_by_color is on but the surface has no vertex colours")?;
            mesh_pinned.extend(pins::by_color(colors, channel, self.pin_color_threshold));
        }
        let mesh_pins: Vec<AnchoredPin> = pins::merge(mesh_pinned)
            .into_iter()
            .filter_map(|v| AnchoredPin::attach(v, Vec3::from_array(world_positions[v as usize]), &transform))
            .collect();
        let mut node_pins = Vec::new();
        for path in self.pin_nodes.iter_shared() {
            let anchor = self
                .base()
                .get_node_or_null(&path)
                .and_then(|n| n.try_cast::<Node3D>().ok())
                .ok_or_else(|| format!("pin node {path} is not a Node3D in the tree"))?;
            let at = anchor.get_global_position();
            let at = Vec3::new(at.x as f32, at.y as f32, at.z as f32);
            let vertex = pins::nearest_vertex(&world_positions, at).ok_or("the surface has no vertices")?;
            let xform = to_affine(&anchor.get_global_transform());
            let pin = AnchoredPin::attach(vertex, Vec3::from_array(world_positions[vertex as usize]), &xform)
                .ok_or_else(|| format!("pin node {path} has a zero scale"))?;
            node_pins.push((anchor, pin));
        }
        let pin_vertices: Vec<u32> =
            mesh_pins.iter().map(|p| p.vertex).chain(node_pins.iter().map(|(_, p)| p.vertex)).collect();
        let pin_targets: Vec<[f32; 3]> = pin_vertices.iter().map(|&v| world_positions[v as usize]).collect();
        if !pin_vertices.is_empty() {
            world.cloth_mut(cloth).and_then(|c| c.set_pinned(&pin_vertices, None)).map_err(|e| e.to_string())?;
        }

        let skeleton = match skeleton {
            Some(skeleton) => {
                let c = world.cloth_mut(cloth).map_err(|e| e.to_string())?;
                let mut link = SkeletonLink::attach(skeleton, &instance, &surface, transform, c)?;
                self.apply_limits(c, &surface)?;
                link.send(c)?;
                // Start on the skinned pose: the character is rarely in its bind pose.
                let mut pose = vec![[0.0; 3]; n];
                c.read_animated_positions(&mut pose).map_err(|e| e.to_string())?;
                c.set_positions(None, &pose).map_err(|e| e.to_string())?;
                Some(link)
            }
            None => None,
        };

        let proxy = self.attach_proxy(&mut world, cloth)?;
        let surface_link = SurfaceLink::attach(&mut instance, &source, &surface, skeleton.is_some())?;
        if let Some(link) = &skeleton {
            link.unskin(&mut instance);
        }
        Ok(Simulation {
            world,
            cloth,
            instance,
            source,
            surface: surface_link,
            mesh_pins,
            node_pins,
            pin_vertices,
            pin_targets,
            colliders: ColliderSync::default(),
            applied: inspector,
            inertia: (self.linear_inertia, self.angular_inertia),
            skeleton,
            positions: vec![[0.0; 3]; n],
            normals: vec![[0.0; 3]; n],
            proxy,
            debug: None,
            original: surface,
            mirrored: is_mirroring(&transform),
            topology_version: 0,
        })
    }

    /// The render proxy of `render_mesh_instance`, if set: its first surface in world space bound
    /// to the cloth (created in world space too). Errors: a readable message.
    fn attach_proxy(&self, world: &mut World, cloth: ClothHandle) -> Result<Option<ProxyLink>, String> {
        if self.render_mesh_instance.is_empty() {
            return Ok(None);
        }
        let node = self.base().get_node_or_null(&self.render_mesh_instance).ok_or("render_mesh_instance is set but not found")?;
        let mut instance = node.try_cast::<MeshInstance3D>().map_err(|_| "render_mesh_instance is not a MeshInstance3D")?;
        let source = instance.get_mesh().ok_or("the render MeshInstance3D has no mesh")?;
        let surface = read_first_surface(&source)?;
        let transform = to_affine(&instance.get_global_transform());
        WorldToLocal::new(&transform).map_err(|e| e.to_string())?;
        let positions = to_world(&surface.positions, &transform);
        let indices = core_triangles(surface.indices.as_deref(), surface.positions.len(), is_mirroring(&transform)).map_err(|e| e.to_string())?;
        let desc = RenderProxyDesc { max_distance: self.render_max_distance, ..RenderProxyDesc::new(&positions, &indices) };
        let handle = world.add_render_proxy(cloth, &desc).map_err(|e| format!("the render mesh cannot be drawn from the cloth: {e}"))?;
        let surface_link = SurfaceLink::attach(&mut instance, &source, &surface, false)?;
        Ok(Some(ProxyLink { handle, instance, source, surface: surface_link, bytes: vec![0; 24 * positions.len()] }))
    }

    /// Draw the debug lines `flags` asks for (the first time, make the child that shows them);
    /// with no flag, hide it.
    fn draw_debug_lines(&mut self, flags: u32) -> Result<(), String> {
        let parent = self.base().clone().upcast::<godot::classes::Node>();
        let Some(sim) = self.sim.as_mut() else { return Ok(()) };
        if flags == 0 {
            if let Some(d) = sim.debug.as_mut() {
                d.node.set_visible(false);
            }
            return Ok(());
        }
        let d = match sim.debug.as_mut() {
            Some(d) => d,
            None => sim.debug.insert(DebugDraw::new(parent)),
        };
        d.node.set_visible(true);
        let count = d.lines.read(&sim.world, flags).map_err(|e| e.to_string())?;
        d.mesh.clear_surfaces();
        if count == 0 {
            return Ok(());
        }
        d.mesh.surface_begin_ex(PrimitiveType::LINES).material(&d.material).done();
        for k in 0..count {
            let (a, b, c) = d.lines.line(k);
            d.mesh.surface_set_color(Color::from_rgba(c[0], c[1], c[2], c[3]));
            d.mesh.surface_add_vertex(Vector3::new(a[0] as _, a[1] as _, a[2] as _));
            d.mesh.surface_add_vertex(Vector3::new(b[0] as _, b[1] as _, b[2] as _));
        }
        d.mesh.surface_end();
        Ok(())
    }

    /// The Skeleton3D of a worn cloth: `skeleton` if set (an error if it is not a Skeleton3D),
    /// else the parent if it is one and the surface is skinned (`skinned`), else none.
    fn find_skeleton(&self, skinned: bool) -> Result<Option<Gd<Skeleton3D>>, String> {
        if !self.skeleton.is_empty() {
            let node = self.base().get_node_or_null(&self.skeleton).ok_or("skeleton is set but not found")?;
            return node.try_cast::<Skeleton3D>().map(Some).map_err(|_| "skeleton is not a Skeleton3D".into());
        }
        Ok(self.base().get_parent().and_then(|p| p.try_cast::<Skeleton3D>().ok()).filter(|_| skinned))
    }

    /// Max distances, backstops and anim drive of a worn cloth from the inspector (colour channel
    /// × scale or arrays; welded copies take their first copy's value). Errors: a readable message.
    fn apply_limits(&self, cloth: &mut Cloth, surface: &SurfaceArrays) -> Result<(), String> {
        let n = surface.positions.len();
        let map = cloth.particle_map().to_vec();
        let limit = |source: i64, channel: i64, scale: f32, array: &PackedFloat32Array, what: &str| -> Result<Option<Vec<f32>>, String> {
            let source = LimitSource::from_inspector(source, channel, scale, array.as_slice()).ok_or(format!("{what}: source must be 0–2 and channel 0–3"))?;
            let mut values = limits::per_vertex(source, surface.colors.as_deref(), n).map_err(|e| format!("{what}: {e}"))?;
            if let Some(v) = values.as_mut() {
                limits::unify_welded(&map, v);
            }
            Ok(values)
        };
        let max = limit(self.max_distance_source, self.max_distance_channel, self.max_distance_scale, &self.max_distances, "max distances")?;
        cloth.set_max_distances(max.as_deref()).map_err(|e| e.to_string())?;
        let backstop = limit(self.backstop_source, self.backstop_channel, self.backstop_scale, &self.backstop_distances, "backstop distances")?;
        let radii = backstop.as_ref().map(|b| vec![self.backstop_radius; b.len()]);
        cloth.set_backstops(backstop.as_deref().zip(radii.as_deref())).map_err(|e| e.to_string())?;
        if self.anim_drive {
            cloth.set_anim_drive(Some(&vec![self.anim_drive_compliance; n])).map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// One physics tick: inspector changes, collider poses, pin targets, bones, then the step.
    fn tick(&mut self, delta: f32) -> Result<(), String> {
        let params = self.inspector_params()?;
        let inertia = (self.linear_inertia, self.angular_inertia);
        let settings = self.collider_settings();
        let group = self.collider_group.clone();
        let root = self.base().clone().upcast::<godot::classes::Node>();
        let Some(sim) = self.sim.as_mut() else { return Ok(()) };
        if !sim.instance.is_instance_valid() {
            return Err("the MeshInstance3D was freed".into());
        }
        if params != sim.applied {
            let core = params.to_params(sim.world.cloth(sim.cloth).map_err(|e| e.to_string())?.params());
            sim.world.cloth_mut(sim.cloth).and_then(|c| c.set_params(core)).map_err(|e| e.to_string())?;
            sim.applied = params;
        }
        if inertia != sim.inertia {
            let cloth = sim.world.cloth_mut(sim.cloth).map_err(|e| e.to_string())?;
            let core = ClothParams { linear_inertia: inertia.0, angular_inertia: inertia.1, ..*cloth.params() };
            cloth.set_params(core).map_err(|e| e.to_string())?;
            sim.inertia = inertia;
        }
        sim.colliders.update(&mut sim.world, &root, &group, settings);
        if !sim.pin_vertices.is_empty() {
            let mesh_xform = to_affine(&sim.instance.get_global_transform());
            let mut k = 0;
            for pin in &sim.mesh_pins {
                sim.pin_targets[k] = pin.target(&mesh_xform);
                k += 1;
            }
            for (anchor, pin) in &sim.node_pins {
                if anchor.is_instance_valid() {
                    sim.pin_targets[k] = pin.target(&to_affine(&anchor.get_global_transform()));
                }
                k += 1;
            }
            let cloth = sim.world.cloth_mut(sim.cloth).map_err(|e| e.to_string())?;
            cloth.set_pin_targets(&sim.pin_vertices, &sim.pin_targets).map_err(|e| e.to_string())?;
        }
        if let Some(link) = sim.skeleton.as_mut() {
            link.send(sim.world.cloth_mut(sim.cloth).map_err(|e| e.to_string())?)?;
        }
        sim.world.step(delta).map_err(|e| e.to_string())?;
        Ok(())
    }

    /// Write positions and normals at `alpha` between the last two ticks (Godot's physics
    /// interpolation fraction) into the mesh instance's surface, so a frame drawn between ticks
    /// does not judder. The core's `write_vertices` does not fit here: Godot wants local-space
    /// positions and octahedral normals ([`crate::convert::vertex_buffer`]).
    fn write_back(sim: &mut Simulation, alpha: f32) -> Result<(), String> {
        if !sim.instance.is_instance_valid() {
            return Err("the MeshInstance3D was freed".into());
        }
        let cloth = sim.world.cloth(sim.cloth).map_err(|e| e.to_string())?;
        if cloth.render_counts().topology_version != sim.topology_version {
            Self::rebuild_surface(sim)?;
        }
        let cloth = sim.world.cloth(sim.cloth).map_err(|e| e.to_string())?;
        let to_local = WorldToLocal::new(&to_affine(&sim.instance.get_global_transform())).map_err(|e| e.to_string())?;
        let (positions, normals) = sim.surface.scratch();
        read_local_interpolated(cloth, alpha, &to_local, &mut sim.positions, &mut sim.normals, positions, normals).map_err(|e| e.to_string())?;
        sim.surface.upload();
        if let Some(proxy) = sim.proxy.as_mut() {
            if !proxy.instance.is_instance_valid() {
                return Err("the render MeshInstance3D was freed".into());
            }
            let to_local = WorldToLocal::new(&to_affine(&proxy.instance.get_global_transform())).map_err(|e| e.to_string())?;
            let (positions, normals) = proxy.surface.scratch();
            read_proxy_local_interpolated(&sim.world, proxy.handle, alpha, &to_local, &mut proxy.bytes, positions, normals).map_err(|e| e.to_string())?;
            proxy.surface.upload();
        }
        Ok(())
    }

    /// The cloth tore: give the instance a surface of the core's vertex count and triangles, each
    /// per-vertex array taken from the vertex each new vertex was split from
    /// ([`crate::convert::torn`]).
    fn rebuild_surface(sim: &mut Simulation) -> Result<(), String> {
        let cloth = sim.world.cloth(sim.cloth).map_err(|e| e.to_string())?;
        let counts = cloth.render_counts();
        let mut triangles = vec![[0u32; 3]; counts.triangle_count as usize];
        let mut sources = vec![0u32; counts.vertex_count as usize];
        cloth.read_indices(&mut triangles).map_err(|e| e.to_string())?;
        cloth.read_vertex_sources(&mut sources).map_err(|e| e.to_string())?;
        let torn = torn_surface(&sim.original, &sources, &godot_indices(&triangles, sim.mirrored))?;
        sim.surface = SurfaceLink::attach(&mut sim.instance, &sim.source, &torn, sim.skeleton.is_some())?;
        let n = sources.len();
        sim.positions.resize(n, [0.0; 3]);
        sim.normals.resize(n, [0.0; 3]);
        sim.topology_version = counts.topology_version;
        Ok(())
    }

    /// Report `err` once and stop simulating (the mesh keeps its last shape).
    fn fail(&mut self, what: &str, err: String) {
        godot_error!("XpbdCloth3D '{}': {what}: {err}", self.base().get_name());
        self.sim = None;
    }

    /// Stop simulating and give the mesh instance its original mesh back.
    fn release(&mut self) {
        let Some(mut sim) = self.sim.take() else { return };
        if sim.instance.is_instance_valid() {
            sim.instance.set_mesh(&sim.source);
            if let Some(link) = &sim.skeleton {
                link.restore(&mut sim.instance);
            }
        }
        if let Some(mut proxy) = sim.proxy.take()
            && proxy.instance.is_instance_valid()
        {
            proxy.instance.set_mesh(&proxy.source);
        }
        if let Some(d) = sim.debug.take()
            && d.node.is_instance_valid()
        {
            d.node.free();
        }
    }

    /// (Re)build from the mesh's rest shape; errors are reported and leave the node idle.
    fn start(&mut self) {
        self.release();
        match self.build() {
            Ok(sim) => self.sim = Some(sim),
            Err(e) => self.fail("setup failed", e),
        }
    }
}

impl DebugDraw {
    /// A top-level child of `parent` (so its vertices are in world space) showing an empty
    /// ImmediateMesh with an unshaded material that takes the vertex colours.
    fn new(mut parent: Gd<godot::classes::Node>) -> DebugDraw {
        let mesh = ImmediateMesh::new_gd();
        let mut material = StandardMaterial3D::new_gd();
        material.set_shading_mode(ShadingMode::UNSHADED);
        material.set_flag(MaterialFlags::ALBEDO_FROM_VERTEX_COLOR, true);
        let mut node = MeshInstance3D::new_alloc();
        node.set_as_top_level(true);
        node.set_mesh(&mesh);
        parent.add_child(&node);
        DebugDraw { node, mesh, material, lines: DebugLines::default() }
    }
}

#[godot_api]
impl INode3D for XpbdCloth3D {
    fn init(base: Base<Node3D>) -> Self {
        let mut node = XpbdCloth3D {
            mesh_instance: NodePath::default(),
            weld_tolerance: 1.0e-6,
            pin_by_color: false,
            pin_color_channel: 0,
            pin_color_threshold: 0.5,
            pin_vertices: PackedInt32Array::new(),
            pin_nodes: Array::new(),
            areal_density: 0.0,
            youngs_modulus: 0.0,
            poisson_ratio: 0.0,
            thickness: 0.0,
            stretch_compliance: 0.0,
            bend_compliance: 0.0,
            stretch_damping: 0.0,
            bend_damping: 0.0,
            linear_damping: 0.0,
            deformation_damping: 0.0,
            enable_bending: true,
            enable_tethers: true,
            tether_slack: 1.0,
            max_stretch: 0.0,
            wind_velocity: Vector3::ZERO,
            drag_coefficient: 0.0,
            lift_coefficient: 0.0,
            air_density: 0.0,
            substeps: 0,
            iterations: 0,
            threads: 1,
            collider_group: StringName::from("xpbd_colliders"),
            collision_thickness: 0.0,
            static_friction: 0.5,
            kinetic_friction: 0.4,
            collider_layers: 1,
            collision_mask: 0,
            self_collision: false,
            self_collision_radius: 0.0,
            self_static_friction: 0.0,
            self_kinetic_friction: 0.0,
            inertia_scale: 0.0,
            max_particle_speed: 0.0,
            unstable_recovery: 0,
            tearable: false,
            max_extra_vertices: 0,
            tear_strain: 0.5,
            pressure: 0.0,
            volume_compliance: 0.0,
            skeleton: NodePath::default(),
            max_distance_source: 0,
            max_distance_channel: 1,
            max_distance_scale: 0.1,
            max_distances: PackedFloat32Array::new(),
            backstop_source: 0,
            backstop_channel: 2,
            backstop_scale: 0.02,
            backstop_distances: PackedFloat32Array::new(),
            backstop_radius: 0.5,
            anim_drive: false,
            anim_drive_compliance: 1.0e-3,
            linear_inertia: 1.0,
            angular_inertia: 1.0,
            step_interval: 1,
            render_mesh_instance: NodePath::default(),
            render_max_distance: xpbd_cloth::render_proxy::DEFAULT_PROXY_MAX_DISTANCE,
            debug_lines: 0,
            sim: None,
            base,
        };
        // Material and solver defaults are the core's, so a new node behaves like a new cloth.
        node.show_params(&InspectorParams::default());
        node.tear_strain = 0.5; // used once `tearable` is on (0 would tear only where cut)
        node
    }

    fn ready(&mut self) {
        self.start();
    }

    fn physics_process(&mut self, delta: f64) {
        if let Err(e) = self.tick(delta as f32) {
            self.fail("step failed", e);
        }
    }

    fn process(&mut self, _delta: f64) {
        let Some(sim) = self.sim.as_mut() else { return };
        let fraction = Engine::singleton().get_physics_interpolation_fraction() as f32;
        let alpha = if fraction.is_finite() { fraction.clamp(0.0, 1.0) } else { 1.0 };
        if let Err(e) = Self::write_back(sim, alpha) {
            self.fail("writing the mesh failed", e);
            return;
        }
        let flags = self.debug_lines;
        if let Err(e) = self.draw_debug_lines(flags) {
            self.fail("drawing the debug lines failed", e);
        }
    }

    fn exit_tree(&mut self) {
        self.release();
        // `_ready` runs once per node; ask for it again so a re-added node starts anew.
        self.base_mut().request_ready();
    }
}

#[godot_api]
impl XpbdCloth3D {
    /// Rebuild the cloth from the mesh's rest shape and the current pins and settings.
    #[func]
    fn reset(&mut self) {
        self.start();
    }

    /// Simulation particles after welding (0 before setup or after an error).
    #[func]
    fn get_particle_count(&self) -> i64 {
        self.sim.as_ref().and_then(|s| s.world.cloth(s.cloth).ok()).map_or(0, |c| c.particle_count() as i64)
    }

    /// Cut the cloth between surface vertices `a` and `b` now (a tearable cloth: `tearable` on):
    /// the two triangles that share the edge are separated; the surface is rebuilt at the next
    /// frame. Returns whether the mesh changed; false also when the cut is refused (the reason is
    /// printed: not tearable, not an edge, out of reserved vertices).
    #[func]
    fn tear(&mut self, a: i64, b: i64) -> bool {
        let Some(sim) = self.sim.as_mut() else { return false };
        let (Ok(a), Ok(b)) = (u32::try_from(a), u32::try_from(b)) else {
            godot_error!("XpbdCloth3D.tear: vertices {a} and {b} must not be negative");
            return false;
        };
        match sim.world.cloth_mut(sim.cloth).map_err(|e| e.to_string()).and_then(|c| c.tear(a, b).map_err(|e| e.to_string())) {
            Ok(changed) => changed,
            Err(e) => {
                godot_error!("XpbdCloth3D.tear: {e}");
                false
            }
        }
    }

    /// The volume the closed surface encloses now [m³]; -1 when it encloses none (open, or torn).
    #[func]
    fn get_volume(&self) -> f64 {
        self.sim.as_ref().and_then(|s| s.world.cloth(s.cloth).ok()).and_then(|c| c.volume().ok()).map_or(-1.0, f64::from)
    }

    /// Colliders currently mirrored from `collider_group`.
    #[func]
    fn get_collider_count(&self) -> i64 {
        self.sim.as_ref().map_or(0, |s| s.colliders.len() as i64)
    }

    /// Numbers of the last step, to tune with: `max_edge_strain` (largest relative elongation
    /// (L − L₀)/L₀ of any edge), `stretch_max_abs_c` [m] and `bend_max_abs_c` [rad] (largest
    /// residual of each constraint type), `contact_count` ((particle, collider) pairs touching),
    /// `max_penetration` [m]. Empty before setup or after an error.
    #[func]
    fn get_stats(&self) -> VarDictionary {
        let mut d = VarDictionary::new();
        if let Some(stats) = self.sim.as_ref().and_then(|s| s.world.cloth(s.cloth).ok()).map(|c| c.stats()) {
            d.set("max_edge_strain", stats.max_edge_strain);
            d.set("stretch_max_abs_c", stats.stretch.max_abs_c);
            d.set("bend_max_abs_c", stats.bending.max_abs_c);
            d.set("contact_count", stats.contact_count as i64);
            d.set("max_penetration", stats.max_penetration);
            d.set("torn_edges_last_step", stats.torn_edges_last_step as i64);
        }
        d
    }
}
