//! Every field of a cloth's C descriptor, declared once. `build.rs` generates from this table
//! the C structs `XpbdClothDesc`, `XpbdClothParams` and `XpbdClothMaterial` with their doc
//! comments, their translation to and from the core's `ClothParams`, `ClothParams` itself with its
//! defaults and range checks, and the cloth section of `docs/parameters.md`; the generated files
//! are committed and a test fails when one is stale.
//!
//! Adding a parameter is one entry here, appended at the end (C layouts only grow at the end;
//! bump `XPBD_ABI_VERSION`), for example
//!
//! ```text
//! Param { name: "sleep_speed", kind: Kind::Real { min: 0.0, max: 1.0e3 }, default: Value::F32(0.0),
//!         unit: "m/s", doc: "Below this speed for `sleep_time` a cloth stops stepping.", ..BLANK },
//! ```
//!
//! plus the core code that uses `ClothParams::sleep_speed`; then build (outside CI the build
//! rewrites the generated files) and commit them. The tests in `table_tests.rs` cover a new row by
//! themselves; only the older hand-listed round trip `params_round_trip_through_c_exactly`
//! (src/ffi/cloth_desc.rs) names every field of `ClothParams` and needs it added.
//!
//! Rows are in the order of `XpbdClothDesc`; `XpbdClothParams` has the `Settings` rows in the same
//! order, `XpbdClothMaterial` the rows of [`MATERIAL`]. Texts are ASCII (they reach the C header).

use super::spec::{BLANK, Kind, Param, Place, Value};

/// Upper bound on substeps and iterations: beyond this a step would take seconds, which is a bug
/// in the caller, not a setting.
pub const MAX_SUBSTEPS: u32 = 1000;

/// Largest `step_interval`: a cloth steps at least once every this many world steps (at 60 Hz,
/// 16 steps is a quarter of a second, beyond which a far cloth is better frozen or hidden).
pub const MAX_STEP_INTERVAL: u32 = 16;

/// Largest compliance accepted, m/N or rad/(N*m): `crate::material::MAX_COMPLIANCE`, which says
/// why (a test keeps the two equal).
pub const MAX_COMPLIANCE: f32 = 1.0e20;

/// The doc comment of `XpbdClothDesc`.
pub const DESC_DOC: &str = "Everything `xpbd_cloth_create` needs. Get one from `xpbd_default_cloth_desc()`, \
    then set the mesh and the fields you want to change; new fields are only ever added with defaults there.";

/// The doc comment of `XpbdClothParams`.
pub const PARAMS_DOC: &str = "The settings of a cloth that may change after creation: the same fields, \
    meanings, ranges and defaults as in `XpbdClothDesc`. Read with `xpbd_cloth_get_params`, change, \
    write with `xpbd_cloth_set_params`.";

/// The doc comment of `XpbdClothMaterial`.
pub const MATERIAL_DOC: &str = "What a cloth is made of: masses and compliances. `xpbd_cloth_set_material` \
    replaces these fields and leaves the other settings as they are. Same meanings and rules as in \
    `XpbdClothDesc`.";

/// The fields of `XpbdClothMaterial`, in its order.
pub const MATERIAL: [&str; 8] = [
    "areal_density",
    "youngs_modulus",
    "poisson_ratio",
    "thickness",
    "stretch_compliance",
    "bend_compliance",
    "stretch_compliance_from_material",
    "bend_compliance_from_material",
];

/// The doc comment of the core's `ClothParams`.
pub const CLOTH_PARAMS_DOC: &str = "Settings of a cloth that may change after creation (see \
    [`crate::Cloth::set_params`]). Compliance alpha is inverse stiffness in SI units: 0 = rigid. \
    Each field's unit, range and default are declared once, in `src/cloth/desc/table.rs`; a value \
    outside its range makes [`ClothParams::validate`] fail with `ClothError::InvalidParameter`.";

/// Rust-only sub-structs of `ClothParams`: (field, type, doc). A row whose `rust` path starts with
/// "field." is that field of the sub-struct.
pub const GROUPS: [(&str, &str, &str); 1] = [(
    "material",
    "Material",
    "Material: the areal density gives the particle masses when no inverse masses are given; Young's \
     modulus, Poisson ratio and thickness give the compliances left at `None`.",
)];

/// The table.
pub const CLOTH: &[Param] = &[
    Param {
        name: "positions",
        place: Place::Mesh,
        kind: Kind::Raw { c_type: "*const f32" },
        default: Value::Null,
        doc: "Render vertex positions in metres, `float[3*vertex_count]` (x, y, z per vertex), each \
              coordinate finite and within +-1e5 m. Copied during `xpbd_cloth_create`, not kept.",
        ..BLANK
    },
    Param {
        name: "vertex_count",
        place: Place::Mesh,
        kind: Kind::Raw { c_type: "u32" },
        doc: "Number of render vertices (> 0, at most 2^28 = 268 435 456).",
        ..BLANK
    },
    Param {
        name: "indices",
        place: Place::Mesh,
        kind: Kind::Raw { c_type: "*const u32" },
        default: Value::Null,
        doc: "Triangle list, `uint32_t[3*triangle_count]` render vertex indices, counter-clockwise = \
              front face. May be NULL when `triangle_count` is 0 (free particles). Copied, not kept.",
        ..BLANK
    },
    Param {
        name: "triangle_count",
        place: Place::Mesh,
        kind: Kind::Raw { c_type: "u32" },
        doc: "Number of triangles.",
        ..BLANK
    },
    Param {
        name: "inverse_masses",
        place: Place::Mesh,
        kind: Kind::Raw { c_type: "*const f32" },
        default: Value::Null,
        doc: "Optional inverse mass per render vertex in 1/kg, `float[vertex_count]`; 0 = fixed in place. \
              NULL: masses come from `areal_density` (a third of each adjacent triangle's mass per corner). \
              Copies of a welded vertex: the first copy's value, or 0 if any copy is 0. Copied, not kept.",
        ..BLANK
    },
    Param {
        name: "areal_density",
        rust: "material.areal_density",
        kind: Kind::Real { min: f32::MIN_POSITIVE, max: 1.0e6 },
        default: Value::F32(0.15),
        unit: "kg/m^2",
        doc: "Mass per unit area. Gives the particle masses when the cloth is created without \
              `inverse_masses` (a third of each adjacent triangle's mass per corner).",
        choose: "Light cotton 0.1-0.2, denim about 0.4. At equal compliance a heavier cloth stretches \
                 more under its own weight, and wind moves it less.",
        ..BLANK
    },
    Param {
        name: "stretch_compliance",
        kind: Kind::Override { min: 0.0, max: MAX_COMPLIANCE, flag: "stretch_compliance_from_material" },
        default: Value::F32(0.0),
        unit: "m/N",
        doc: "Stretch compliance alpha (inverse stiffness) of every edge and line; 0 = inextensible.",
        choose: "Prefer deriving it from the material: that keeps the stiffness of the sheet the same at \
                 any mesh resolution. An explicit alpha is per edge, whatever its length; the default material \
                 gives about 1/(E*t) = 4e-4 m/N on the axis edges of a regular grid.",
        ..BLANK
    },
    Param {
        name: "bend_compliance",
        kind: Kind::Override { min: 0.0, max: MAX_COMPLIANCE, flag: "bend_compliance_from_material" },
        default: Value::F32(0.0),
        unit: "rad/(N*m)",
        doc: "Bending compliance alpha of every hinge (interior edge); 0 = rigid.",
        choose: "Prefer deriving it from the material: the flexural rigidity D = E*t^3/(12(1-nu^2)) grows with the \
                 thickness cubed. The default material gives about 1/(3*D) = 5.8e3 rad/(N*m) on the axis \
                 edges of a regular grid; smaller is stiffer.",
        ..BLANK
    },
    Param {
        name: "weld_tolerance",
        place: Place::Creation,
        kind: Kind::Real { min: 0.0, max: 1.0 },
        default: Value::F32(1.0e-6),
        unit: "m",
        doc: "Vertices closer than this become one simulated particle, so the splits an engine makes at \
              UV seams do not tear the cloth; 0 disables welding.",
        choose: "Far below any real edge length and far above the float noise of exported duplicate \
                 positions: the default suits meshes in metres.",
        ..BLANK
    },
    Param {
        name: "stretch_compliance_from_material",
        kind: Kind::OverrideFlag { value: "stretch_compliance" },
        default: Value::U32(1),
        doc: "1: derive each edge's stretch compliance from the material (edge stiffness E*t*area/L^2, \
              Van Gelder 1998). 0: use `stretch_compliance`.",
        ..BLANK
    },
    Param {
        name: "bend_compliance_from_material",
        kind: Kind::OverrideFlag { value: "bend_compliance" },
        default: Value::U32(1),
        doc: "1: derive each hinge's bending compliance from the material (Discrete Shells, Grinspun et al. \
              2003, with flexural rigidity D = E*t^3/(12(1-nu^2))). 0: use `bend_compliance`.",
        ..BLANK
    },
    Param {
        name: "youngs_modulus",
        rust: "material.youngs_modulus",
        kind: Kind::Real { min: f32::MIN_POSITIVE, max: 1.0e15 },
        default: Value::F32(5.0e6),
        unit: "Pa",
        doc: "Young's modulus E of the fabric; drives the derived stretch (E*t) and bending (E*t^3) \
              stiffness.",
        choose: "Both derived stiffnesses grow with E; `thickness` changes bending far more (t^3) than \
                 stretch (t).",
        ..BLANK
    },
    Param {
        name: "poisson_ratio",
        rust: "material.poisson_ratio",
        kind: Kind::Real { min: 0.0, max: 0.499 },
        default: Value::F32(0.3),
        symbol: "nu",
        doc: "Poisson ratio nu. Only enters the flexural rigidity D (edge springs cannot represent it).",
        ..BLANK
    },
    Param {
        name: "thickness",
        rust: "material.thickness",
        kind: Kind::Real { min: f32::MIN_POSITIVE, max: 1.0 },
        default: Value::F32(5.0e-4),
        unit: "m",
        doc: "Fabric thickness t for the derived compliances; not a collision distance (that is \
              `collision_thickness`).",
        choose: "The quickest way to make a cloth drape softer or stiffer: bending stiffness grows with t^3.",
        ..BLANK
    },
    Param {
        name: "tether_compliance",
        kind: Kind::Real { min: 0.0, max: MAX_COMPLIANCE },
        default: Value::F32(0.0),
        unit: "m/N",
        doc: "Tether compliance alpha.",
        choose: "Usually 0: tethers are hard length limits.",
        ..BLANK
    },
    Param {
        name: "tether_slack",
        kind: Kind::Real { min: 1.0, max: 1.0e3 },
        default: Value::F32(1.0),
        symbol: "s",
        doc: "Tether slack factor s: a particle may move up to s times its rest mesh distance from the \
              nearest pin.",
        choose: "1 lets no particle get farther from the pins than in the rest mesh; slightly above 1 \
                 leaves some stretch to the stretch constraints.",
        ..BLANK
    },
    Param {
        name: "stretch_damping",
        kind: Kind::Real { min: 0.0, max: f32::MAX },
        default: Value::F32(0.0),
        unit: "N*s/m",
        doc: "Stretch constraint damping beta (XPBD eq. 26). No effect where alpha = 0.",
        ..BLANK
    },
    Param {
        name: "bend_damping",
        kind: Kind::Real { min: 0.0, max: f32::MAX },
        default: Value::F32(0.0),
        unit: "N*m*s/rad",
        doc: "Bending constraint damping beta (XPBD eq. 26). No effect where alpha = 0.",
        ..BLANK
    },
    Param {
        name: "linear_damping",
        kind: Kind::Real { min: 0.0, max: f32::MAX },
        default: Value::F32(0.0),
        unit: "1/s",
        doc: "Linear velocity damping d: v *= exp(-d*h) per substep, the exact solution of dv/dt = -d*v, \
              so it means the same at any step and substep length. It damps all motion, free fall, sliding \
              and swinging included: a free cloth falls at most g/d. Off by default; rest comes from \
              contacts, friction, `deformation_damping` and sleeping.",
        choose: "0 (the default) for physical motion; 1-3 to stand in for thick air or a viscous medium. \
                 To calm a cloth without slowing its fall use `deformation_damping`; for air use the \
                 aerodynamic drag, which damps only motion relative to the air.",
        ..BLANK
    },
    Param {
        name: "enable_stretch",
        kind: Kind::Flag,
        default: Value::U32(1),
        doc: "Enable the edge stretch constraints.",
        ..BLANK
    },
    Param {
        name: "enable_bending",
        kind: Kind::Flag,
        default: Value::U32(1),
        doc: "Enable the dihedral bending constraints.",
        ..BLANK
    },
    Param {
        name: "enable_tethers",
        kind: Kind::Flag,
        default: Value::U32(1),
        doc: "Enable tethers (long-range attachments, Kim et al. 2012) to the pinned vertices.",
        ..BLANK
    },
    Param {
        name: "external_acceleration",
        kind: Kind::Vec3 { min: -1.0e6, max: 1.0e6 },
        default: Value::Vec3([0.0; 3]),
        unit: "m/s^2",
        doc: "Extra uniform acceleration added to the world's gravity for this cloth.",
        choose: "A uniform acceleration only leans a cloth sideways; for wind that flutters use \
                 `wind_velocity` with a drag or lift coefficient.",
        ..BLANK
    },
    Param {
        name: "substeps",
        kind: Kind::Count { min: 0, max: MAX_SUBSTEPS, zero: "the world's" },
        default: Value::U32(0),
        doc: "Substeps per step for this cloth (substep h = dt/n).",
        choose: "Leave at 0 unless this cloth needs more than the others of its world; see the world's \
                 `substeps`.",
        ..BLANK
    },
    Param {
        name: "iterations",
        kind: Kind::Count { min: 0, max: MAX_SUBSTEPS, zero: "the world's" },
        default: Value::U32(0),
        doc: "Solver iterations per substep for this cloth.",
        choose: "Leave at 0 and prefer substeps (see the world's `iterations`).",
        ..BLANK
    },
    Param {
        name: "collision_thickness",
        kind: Kind::Real { min: 0.0, max: 1.0 },
        default: Value::F32(0.005),
        unit: "m",
        doc: "Contact thickness: particles are kept at least this far from every collider's surface \
              (contact C = signed distance - thickness >= 0). Not the fabric `thickness`.",
        choose: "A few millimetres keeps the cloth visibly off what it lies on.",
        ..BLANK
    },
    Param {
        name: "collision_mask",
        kind: Kind::Bits,
        default: Value::U32(u32::MAX),
        doc: "Collision layers this cloth collides with: a collider counts when \
              `collider layers & collision_mask != 0`; 0 = no collisions.",
        ..BLANK
    },
    Param {
        name: "max_depenetration_speed",
        kind: Kind::Real { min: 1.0e-6, max: 1.0e3 },
        default: Value::F32(0.5),
        unit: "m/s",
        doc: "Largest speed at which a particle that starts a substep inside a collider (spawned inside, or \
              a collider moved onto it) is pushed out, so an overlap does not launch the cloth. The cloth \
              around an overlap moves a few times faster while it rearranges.",
        choose: "Raise it if cloth spawned inside a body takes too long to come out; lower it if it pops out.",
        rust_doc: "See [`crate::collision`].",
        ..BLANK
    },
    Param {
        name: "wind_velocity",
        kind: Kind::Vec3 { min: -1.0e4, max: 1.0e4 },
        default: Value::Vec3([0.0; 3]),
        unit: "m/s",
        doc: "Air velocity for the aerodynamic forces: per-triangle drag and lift from the triangle's \
              velocity relative to the air (Keckeisen et al. 2004). Must stay (0, 0, 0) while \
              `drag_coefficient` and `lift_coefficient` are both 0 (else the wind would do nothing).",
        rust_doc: "See `solver/wind.rs`.",
        ..BLANK
    },
    Param {
        name: "drag_coefficient",
        kind: Kind::Real { min: 0.0, max: 100.0 },
        default: Value::F32(0.0),
        symbol: "C_D",
        doc: "Aerodynamic drag coefficient C_D. Aerodynamics is off, at no cost, while both \
              coefficients are 0.",
        choose: "About 1 for a flat plate facing the flow.",
        ..BLANK
    },
    Param {
        name: "lift_coefficient",
        kind: Kind::Real { min: 0.0, max: 100.0 },
        default: Value::F32(0.0),
        symbol: "C_L",
        doc: "Aerodynamic lift coefficient C_L: force perpendicular to the flow.",
        choose: "About 0.2-0.5 for cloth.",
        ..BLANK
    },
    Param {
        name: "air_density",
        kind: Kind::Real { min: 0.0, max: 1.0e4 },
        default: Value::F32(1.225),
        unit: "kg/m^3",
        doc: "Air density rho for the aerodynamic forces.",
        choose: "The default is sea level at 15 degrees C.",
        ..BLANK
    },
    Param {
        name: "lines",
        place: Place::Mesh,
        kind: Kind::Raw { c_type: "*const u32" },
        default: Value::Null,
        doc: "Optional extra distance constraints between render vertex pairs (ropes, tassels, strands), \
              `uint32_t[2*line_count]`; NULL when `line_count` is 0. They behave like triangle edges \
              without area: no bending, rigid unless `stretch_compliance_from_material` is 0 and \
              `stretch_compliance` > 0. Copied, not kept. Default NULL.",
        ..BLANK
    },
    Param {
        name: "line_count",
        place: Place::Mesh,
        kind: Kind::Raw { c_type: "u32" },
        doc: "Number of lines (pairs in `lines`). Default 0.",
        ..BLANK
    },
    Param {
        name: "inertia_scale",
        kind: Kind::Real { min: 0.0, max: 1.0 },
        default: Value::F32(1.0),
        symbol: "s",
        doc: "Inertia scale s: the fraction of its pins' translation the cloth feels. Before each step the \
              cloth (free vertices and the pins' current positions) is moved rigidly by (1 - s) times the \
              mean translation of the pinned vertices over that step (target - start), without changing \
              any velocity; the pins travel the rest over the step's substeps. 1: plain physics, the \
              cloth lags and swings behind its pins; 0: the pins' translation carries the cloth along \
              and only their rotation and relative motion are simulated. No effect without pins.",
        choose: "Below 1 (down to 0) for a cape or coat that should not stream out when its character \
                 dashes.",
        rust_doc: "See [`crate::cloth::inertia`].",
        ..BLANK
    },
    Param {
        name: "max_particle_speed",
        kind: Kind::Real { min: 1.0e-3, max: 1.0e6 },
        default: Value::F32(100.0),
        unit: "m/s",
        doc: "Explosion guard: the largest plausible particle speed v_max. After every step a cloth with a \
              NaN/infinite position or velocity, or a vertex that moved farther than d_pins + d_colliders \
              + 2*L + v_max*dt (d_pins: the largest pin move of the step; d_colliders: the largest \
              collider move of the step, rotation not counted, at most v_max*dt, so a collider jump that \
              drags the cloth is reported; L: the diagonal of the rest pose's bounding \
              box; all in metres), is unstable: see `unstable_recovery`.",
        choose: "Above the fastest real motion; the default is above the terminal speed of any cloth.",
        rust_doc: "See [`crate::cloth::guard`].",
        ..BLANK
    },
    Param {
        name: "unstable_recovery",
        kind: Kind::Enum {
            rust: "UnstableRecovery",
            c: "XpbdUnstableRecovery",
            variants: &["LastGoodState", "RestPose", "Disabled"],
        },
        default: Value::U32(0),
        doc: "What the explosion guard does with an unstable cloth: put back its last good state or its \
              rest pose, or no check at all (and no cost).",
        ..BLANK
    },
    Param {
        name: "enable_self_collision",
        rust: "self_collision",
        kind: Kind::Flag,
        default: Value::U32(0),
        doc: "Self-collision: particles of the cloth kept at least 2r apart (r = `self_collision_radius`) \
              except pairs already closer than 2r in the mesh as created; friction between the touching \
              layers (Macklin et al. 2014).",
        choose: "Off by default: one layer of worn or draped cloth does not need its per-step hash \
                 and pairs. Turn it on for cloth that folds onto itself; the radius comes from the mesh.",
        rust_doc: "See [`crate::collision`], `self_collision.rs`.",
        ..BLANK
    },
    Param {
        name: "self_collision_radius",
        kind: Kind::Optional { min: 1.0e-6, max: 1.0, zero: "half the median rest edge length" },
        default: Value::F32(0.0),
        unit: "m",
        doc: "Self-collision particle radius r.",
        choose: "Leave 0: half the median edge length s keeps particles from slipping through the holes \
                 between the particles of another layer (below 0.36*s the middle of a quad is open). Set it \
                 for meshes of very uneven edges; 2r must stay below the smallest gap between layers of \
                 the rest mesh.",
        ..BLANK
    },
    Param {
        name: "self_static_friction",
        kind: Kind::Real { min: 0.0, max: 100.0 },
        default: Value::F32(0.5),
        symbol: "mu_s",
        doc: "Static friction coefficient mu_s between touching parts of the cloth (the model of collider \
              contacts, Macklin et al. 2014).",
        ..BLANK
    },
    Param {
        name: "self_kinetic_friction",
        kind: Kind::Real { min: 0.0, max: 100.0 },
        default: Value::F32(0.4),
        symbol: "mu_k",
        doc: "Kinetic friction coefficient mu_k between touching parts of the cloth.",
        choose: "Usually at most `self_static_friction`.",
        ..BLANK
    },
    Param {
        name: "enable_inter_cloth_collision",
        rust: "inter_cloth_collision",
        kind: Kind::Flag,
        default: Value::U32(0),
        doc: "Collide with the other cloths of the world that also have this on: particles kept r_a + r_b \
              apart (each cloth's `self_collision_radius`) with each cloth's self friction; independent \
              of `enable_self_collision`.",
        rust_doc: "See `collision/inter_cloth.rs`.",
        ..BLANK
    },
    Param {
        name: "max_stretch",
        kind: Kind::Optional { min: 1.0, max: 100.0, zero: "no stretch limit" },
        default: Value::F32(1.025),
        symbol: "s",
        doc: "Stretch limit s: at the end of every step, edges longer than s times their rest length are \
              shortened to it (Provot 1995): one pass outward from the anchors (pins, and particles a \
              collider's static friction holds) moves each particle to within the limit of its neighbours \
              nearer an anchor, then rounds over the edges still violated (up to 8, 8 more while one is \
              over twice the limit's strain), up to three times (twelve in a step in which a cloth that cannot tear \
              touches a collider, while an edge is over eight times the limit's strain), each followed by the tethers and the \
              contacts (colliders and self-collision without friction), which win where they disagree; velocities only lose \
              what it corrects. Never below 1 plus the stretch the cloth's own compliance gives it under its weight, \
              so the limit removes the solver's excess stretch and leaves the material's.",
        choose: "1.025 keeps woven cloth (1 to 3 % under its own weight) from stretching like rubber at the \
                 default budget; raise it (or 0) \
                 for knits and elastic fabrics whose compliance should stretch them further.",
        ..BLANK
    },
    Param {
        name: "sleep_speed",
        kind: Kind::Optional { min: 1.0e-6, max: 100.0, zero: "never sleep" },
        default: Value::F32(0.0),
        unit: "m/s",
        doc: "Sleeping: a cloth whose fastest particle stays below this speed for `sleep_time` stops \
              stepping (a check per step, nothing else) until something that could move it wakes it. The \
              whole list: a pin target, animated pose, joint matrix, reference frame or grab target that \
              changes (the same one given again every frame does not wake it); pinning or unpinning; a \
              grab or its release; max distances, backstops, anim drive or a skin set; a collider moving, \
              created, destroyed or teleported within reach of it (where it leaves and where it lands); a \
              change of the world's gravity; a parameter or material change; a teleport; a snapshot \
              restore; a particle write; an instance made from it (both wake); `xpbd_cloth_wake`.",
        choose: "A few mm/s (0.005) for flags and curtains that settle; above the slowest motion that \
                 must go on (a cloth creeping over a table edge).",
        rust_doc: "See [`crate::World::step`].",
        ..BLANK
    },
    Param {
        name: "sleep_time",
        kind: Kind::Real { min: 0.0, max: 3600.0 },
        default: Value::F32(1.0),
        unit: "s",
        doc: "How long the fastest particle must stay below `sleep_speed` before the cloth sleeps.",
        ..BLANK
    },
    Param {
        name: "simulation_blend",
        kind: Kind::Real { min: 0.0, max: 1.0 },
        default: Value::F32(1.0),
        symbol: "b",
        doc: "Blend b between the animated pose and the simulation in what is read back: positions \
              a + b*(x - a) and normals likewise (normalised), for fading cloth in and out (LOD, cut-scenes); \
              every render read (interpolated, vertex buffers, bounds too) blends each step state with its own pose. \
              The simulation itself is unchanged. No effect until the cloth has an animated pose \
              (xpbd_cloth_set_animated_pose, or a skin and joint matrices).",
        ..BLANK
    },
    Param {
        name: "linear_inertia",
        kind: Kind::Real { min: 0.0, max: 1.0 },
        default: Value::F32(1.0),
        symbol: "s_lin",
        doc: "Linear inertia: the fraction of the reference frame's translation (xpbd_cloth_set_reference_frame) \
              the free particles feel. Each substep they are carried by (1 - linear_inertia) of the frame's \
              translation over it, positions and substep start together, so no velocity is added. 1: plain \
              world-space physics; 0: the cloth moves with the frame as in local space. No effect without a \
              reference frame.",
        choose: "Low (0 to 0.3) for capes and skirts of fast characters; 1 for cloth not worn.",
        ..BLANK
    },
    Param {
        name: "angular_inertia",
        kind: Kind::Real { min: 0.0, max: 1.0 },
        default: Value::F32(1.0),
        symbol: "s_ang",
        doc: "Angular inertia: the fraction of the reference frame's rotation the free particles feel; each \
              substep they (and their velocities) are turned about the frame's origin by (1 - angular_inertia) \
              of its rotation over it (slerp). 1: plain physics; 0: a snap turn carries the cloth round with \
              the character.",
        ..BLANK
    },
    Param {
        name: "deformation_damping",
        kind: Kind::Real { min: 0.0, max: f32::MAX },
        default: Value::F32(3.0),
        unit: "1/s",
        doc: "Deformation damping d: once per step every free particle's velocity moves toward the cloth's rigid \
              motion v_cm + omega x r (fitted to the free particles' linear and angular momentum) by the fraction \
              1 - exp(-d*dt) (Mueller et al. 2007, Position Based Dynamics, sec. 3.5, as a rate). It keeps linear \
              and angular momentum, so free fall, sliding, swinging about pins and spinning are exact; it damps \
              only the cloth's motion relative to itself (flapping, ripples, the sway of draped flaps), standing \
              in for the fabric's internal friction, which the constraints do not model.",
        choose: "Keep the default for worn and draped cloth; 0.5-1 for a livelier flag; 0 for none.",
        ..BLANK
    },
    Param {
        name: "step_interval",
        kind: Kind::Count { min: 1, max: MAX_STEP_INTERVAL, zero: "" },
        default: Value::U32(1),
        symbol: "N",
        doc: "Level of detail: the cloth steps once every N world steps, each time over N fixed steps of time \
              with its own substeps, so it costs about 1/N. The world spreads the cloths of one N evenly over \
              its steps (about 1/N of them step in each). A step covers the world steps from the current one on: \
              its pin targets, animated pose, reference frame and colliders go on moving as over their last \
              world step (a moving character is followed without lag; teleport for jumps). Every render read \
              shows the world's own time, on each vertex's curve between its two step states (positions and \
              velocities), so the motion drawn stays smooth. A change takes effect at the cloth's next step; the \
              step length at most doubles or halves from one step to the next, so nothing jumps.",
        choose: "1 for cloth near the camera; 2-4 for cloth in the distance, up to 16 for a crowd far away. \
                 A long step is a larger time step for the solver: check the look at the distance it is used from.",
        rust_doc: "See [`crate::World::step`] and `cloth/lod.rs`.",
        ..BLANK
    },
    Param {
        name: "max_extra_vertices",
        place: Place::Creation,
        kind: Kind::Count { min: 0, max: 1 << 28, zero: "the cloth cannot tear" },
        default: Value::U32(0),
        doc: "Render vertices (and simulation particles) reserved for cuts: a cut duplicates the vertices \
              along the torn edge, and every buffer that grows with them is sized once, at creation, for this \
              many more, so neither the step nor the engine's vertex buffers reallocate. When they are used \
              up the cloth stops tearing (`xpbd_cloth_tear` returns `XPBD_RESULT_CAPACITY_EXCEEDED`). Cuts \
              cannot give a cloth more vertices than its triangles have corners (3 * `triangle_count`), so \
              no more room than that is reserved: a larger value costs no memory.",
        choose: "About the vertex count of the longest tears you expect: a cut across a grid of n columns \
                 needs about 2n. Engines allocate their vertex buffers for `vertex_count + max_extra_vertices`.",
        rust_doc: "See [`crate::cloth::tear`].",
        ..BLANK
    },
    Param {
        name: "tear_strain",
        kind: Kind::Optional { min: 1.0e-3, max: 1.0e3, zero: "never tears" },
        default: Value::F32(0.0),
        symbol: "eps_t",
        doc: "Tearing: an edge still longer than (1 + tear_strain) times its rest length after a step's \
              substeps and the strain limit (`max_stretch`) tears: the cloth opens across the edge at one of \
              its ends (the particle there is split between the edge's two triangles and the rest of its \
              triangles), the more strained edges first. Only for a cloth created with `max_extra_vertices` > 0.",
        choose: "Above the strain the cloth reaches in normal use (`max_stretch` - 1 and impacts): 0.3-1 for \
                 fabric that rips when yanked, more for one that only tears when cut.",
        ..BLANK
    },
    Param {
        name: "tear_max_per_step",
        kind: Kind::Count { min: 1, max: 1 << 20, zero: "" },
        default: Value::U32(64),
        doc: "At most this many over-strained edges tear in one step (the most strained first), which \
              bounds a step's work; the rest tear in the steps after if they stay over `tear_strain`.",
        choose: "The default lets a fast sphere punch through a flag in one or two steps; raise it for \
                 explosions that should shred a cloth at once.",
        ..BLANK
    },
    Param {
        name: "pressure",
        kind: Kind::Optional { min: 1.0e-3, max: 1.0e3, zero: "off" },
        default: Value::F32(0.0),
        symbol: "p",
        doc: "Closed cloth (balloons, cushions, inflatables): the volume the cloth encloses is held at \
              `pressure` times its rest volume by one XPBD constraint C = V - p*V0 (Mueller et al. 2007, sec. \
              4.4, in XPBD form), projected after the stretch sweeps of every iteration. Only for a closed, \
              consistently wound mesh (`closed` in the mesh report): otherwise `xpbd_cloth_set_params` and \
              `xpbd_cloth_create` return `XPBD_RESULT_INVALID_ARGUMENT`. A tear opens the cloth and sets it \
              back to 0 (it leaks).",
        choose: "1 keeps a ball or cushion at its modelled volume under load; above 1 inflates it as far as \
                 its stretch compliance and `max_stretch` allow (set `max_stretch` to 0 for a balloon).",
        ..BLANK
    },
    Param {
        name: "volume_compliance",
        kind: Kind::Real { min: 0.0, max: MAX_COMPLIANCE },
        default: Value::F32(0.0),
        unit: "m^3/Pa",
        doc: "Compliance alpha of the volume constraint: 0 holds the volume exactly; larger values let the \
              enclosed air compress (a squeeze of force F over area A changes the volume by about \
              alpha*F/A).",
        choose: "0 for a taut ball; 1e-6 to 1e-4 for a soft cushion of about a litre.",
        ..BLANK
    },
];
