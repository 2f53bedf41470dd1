//! The world's and the colliders' settings as `docs/parameters.md` describes them. Unlike the
//! cloth's (`src/cloth/desc/table.rs`) these rows generate only the documentation: the C structs
//! and their checks are written by hand in src/ffi/world.rs, src/world.rs, src/ffi/collider_desc.rs
//! and src/collision/desc.rs, and tests/parameter_docs.rs probes every default and bound below
//! against that code, so a change on either side fails it.

use super::spec::{BLANK, Kind, Param, Value};

/// `XpbdWorldDesc`, in its order.
pub const WORLD: &[Param] = &[
    Param {
        name: "gravity",
        kind: Kind::Vec3 { min: -1.0e6, max: 1.0e6 },
        default: Value::Vec3([0.0, -9.81, 0.0]),
        unit: "m/s^2",
        doc: "Gravity, the same for every cloth of the world (a cloth adds its `external_acceleration`). \
              Y is up with the default.",
        ..BLANK
    },
    Param {
        name: "substeps",
        kind: Kind::Count { min: 1, max: 1000, zero: "" },
        default: Value::U32(10),
        doc: "Substeps per step n (substep h = dt/n) for the cloths that do not set their own.",
        choose: "Substeps vs iterations: at equal cost, more substeps make a cloth stiffer and more accurate \
                 than more iterations (Small Steps, Macklin et al. 2019), so raise substeps (cost grows in \
                 proportion) and keep 1 iteration. Start from the default at 60 Hz; raise it when a cloth \
                 stretches visibly or moves fast.",
        ..BLANK
    },
    Param {
        name: "iterations",
        kind: Kind::Count { min: 1, max: 1000, zero: "" },
        default: Value::U32(1),
        doc: "Solver iterations per substep for the cloths that do not set their own.",
        choose: "1: see `substeps`.",
        ..BLANK
    },
    Param {
        name: "thread_count",
        kind: Kind::Count { min: 0, max: 256, zero: "one per core" },
        default: Value::U32(0),
        doc: "Worker threads that step the world's cloths in parallel; 1 = only the thread that calls \
              `xpbd_world_step` (no threads are created). Results are bitwise identical for every value.",
        choose: "1 when the engine already runs one world per thread, or for a world of one small cloth.",
        ..BLANK
    },
];

/// `XpbdColliderDesc`, in its order.
pub const COLLIDER: &[Param] = &[
    Param {
        name: "kind",
        kind: Kind::Enum { rust: "ColliderKind", c: "XpbdColliderKind", variants: &["Sphere", "Capsule", "Plane", "Box", "Mesh"] },
        default: Value::U32(0),
        doc: "Shape: an `XpbdColliderKind` value. A plane is infinite, through `position`, with the local +Y \
              axis as its normal and everything below it solid. `xpbd_default_collider_desc_for(kind)` \
              gives a ready shape of each kind: a sphere of radius 0.5 m, a capsule of radius and half \
              height 0.5 m, the plane y = 0, a sharp box of half extents 0.5 m; a mesh needs its \
              `mesh_shape`.",
        ..BLANK
    },
    Param {
        name: "radius",
        kind: Kind::Real { min: f32::MIN_POSITIVE, max: 1.0e4 },
        default: Value::F32(0.0),
        unit: "m",
        doc: "Sphere and capsule: the radius. Box: the edge rounding radius (0 = sharp edges; the outer size \
              stays `half_extents`). Plane: unused.",
        range_note: "sphere, capsule; box: 0 <= m <= the smallest half extent",
        ..BLANK
    },
    Param {
        name: "half_height",
        kind: Kind::Real { min: 0.0, max: 1.0e4 },
        default: Value::F32(0.0),
        unit: "m",
        doc: "Capsule: half the length of its axis segment along the local Y axis (0 = a sphere).",
        ..BLANK
    },
    Param {
        name: "half_extents",
        kind: Kind::Vec3 { min: f32::MIN_POSITIVE, max: 1.0e4 },
        default: Value::Vec3([0.0; 3]),
        unit: "m",
        doc: "Box: half its size along the local X, Y and Z axes.",
        ..BLANK
    },
    Param {
        name: "position",
        rust: "pose.position",
        kind: Kind::Vec3 { min: -1.0e5, max: 1.0e5 },
        default: Value::Vec3([0.0; 3]),
        unit: "m",
        doc: "World position of the shape's centre (plane: a point on it).",
        ..BLANK
    },
    Param {
        name: "rotation",
        rust: "pose.rotation",
        kind: Kind::Quat { tolerance: 1.0e-3 },
        default: Value::Vec4([0.0, 0.0, 0.0, 1.0]),
        doc: "Rotation local -> world (the order of Unity's and Godot's `Quaternion(x, y, z, w)`); \
              renormalised.",
        ..BLANK
    },
    Param {
        name: "static_friction",
        kind: Kind::Real { min: 0.0, max: 100.0 },
        default: Value::F32(0.5),
        symbol: "mu_s",
        doc: "Static friction coefficient mu_s: a contact whose slip relative to the collider over a substep \
              is below mu_s times its penetration depth sticks (Macklin et al. 2014, eq. 24).",
        choose: "About 0.5 for cotton on wood or skin; 0.8 holds a tablecloth on a covered table.",
        ..BLANK
    },
    Param {
        name: "kinetic_friction",
        kind: Kind::Real { min: 0.0, max: 100.0 },
        default: Value::F32(0.4),
        symbol: "mu_k",
        doc: "Kinetic friction coefficient mu_k: a sliding contact's slip is reduced by mu_k times its \
              penetration depth per substep.",
        choose: "Usually at most `static_friction`.",
        ..BLANK
    },
    Param {
        name: "layers",
        kind: Kind::Bits,
        default: Value::U32(1),
        doc: "Collision layer bits: a cloth collides with this collider when \
              `layers & cloth collision_mask != 0`.",
        ..BLANK
    },
    Param {
        name: "mesh_shape",
        kind: Kind::Raw { c_type: "XpbdMeshShapeId" },
        default: Value::Null,
        doc: "Mesh: the mesh shape (`xpbd_mesh_shape_create`) this collider instances, a live shape of the \
              same world; its local frame is placed by `position` and `rotation`. Others: unused. Default \
              null.",
        ..BLANK
    },
];
