//! The C descriptors of a cloth and their translation to the core's `ClothDesc`/`ClothParams`.
//!
//! Material vs explicit compliance: each of stretch and bending has a compliance field and a
//! `*_compliance_from_material` flag (`uint32_t`, 0 or 1, default 1).
//! - flag 1: the compliance is derived per element from Young's modulus, Poisson ratio and
//!   thickness, and the compliance field must be 0 (anything else is `XPBD_RESULT_INVALID_ARGUMENT`,
//!   so a compliance set without clearing the flag is reported instead of silently ignored);
//! - flag 0: the compliance field is used for every element and must be >= 0 (0 = rigid) and
//!   <= 1e20 (a larger one overflowed the solver's alpha/h^2; derived compliances are capped there
//!   too).
//!
//! No sentinel value: a negative or NaN compliance is always an error.

use super::args::flag;
use super::error::{FfiError, XpbdResult};
use crate::cloth::{ClothParams, DEFAULT_WELD_TOLERANCE, UnstableRecovery};
use crate::material::Material;

/// Everything `xpbd_cloth_create` needs. Get one from `xpbd_default_cloth_desc()`, then set the
/// mesh and the fields you want to change; new fields are only ever added with defaults there.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct XpbdClothDesc {
    /// Render vertex positions in metres, `float[3*vertex_count]` (x, y, z per vertex), each
    /// coordinate finite and within +-1e5 m. Copied during `xpbd_cloth_create`, not kept.
    pub positions: *const f32,
    /// Number of render vertices (> 0, at most 2^28 = 268 435 456).
    pub vertex_count: u32,
    /// Triangle list, `uint32_t[3*triangle_count]` render vertex indices, counter-clockwise =
    /// front face. May be NULL when `triangle_count` is 0 (free particles). Copied, not kept.
    pub indices: *const u32,
    /// Number of triangles.
    pub triangle_count: u32,
    /// Optional inverse mass per render vertex in 1/kg, `float[vertex_count]`; 0 = fixed in place.
    /// NULL: masses come from `areal_density` (a third of each adjacent triangle's mass per corner).
    /// Copies of a welded vertex: the first copy's value, or 0 if any copy is 0. Copied, not kept.
    pub inverse_masses: *const f32,
    /// Mass per unit area in kg/m^2 (> 0). Default 0.15 (light cotton).
    pub areal_density: f32,
    /// Stretch compliance alpha in m/N (0..=1e20, 0 = inextensible) for every edge. Used only when
    /// `stretch_compliance_from_material` is 0; must be 0 otherwise. Default 0.
    pub stretch_compliance: f32,
    /// Bending compliance alpha in rad/(N*m) (0..=1e20, 0 = rigid) for every interior edge. Used only
    /// when `bend_compliance_from_material` is 0; must be 0 otherwise. Default 0.
    pub bend_compliance: f32,
    /// Vertices closer than this (metres, 0..=1) become one simulated particle, so UV-seam splits
    /// do not tear the cloth; 0 disables welding. Default 1e-6.
    pub weld_tolerance: f32,
    /// 1 (default): derive each edge's stretch compliance from the material (E*t*area/L^2 edge
    /// stiffness, Van Gelder 1998). 0: use `stretch_compliance`.
    pub stretch_compliance_from_material: u32,
    /// 1 (default): derive each hinge's bending compliance from the material (Discrete Shells,
    /// Grinspun et al. 2003, with flexural rigidity D = E*t^3/(12(1-nu^2))). 0: use `bend_compliance`.
    pub bend_compliance_from_material: u32,
    /// Young's modulus E of the fabric in Pa (> 0). Default 5e6.
    pub youngs_modulus: f32,
    /// Poisson ratio nu, in [0, 0.5). Default 0.3.
    pub poisson_ratio: f32,
    /// Fabric thickness t in metres (> 0; not a collision distance). Default 5e-4.
    pub thickness: f32,
    /// Tether compliance in m/N (0..=1e20; usually 0: tethers are hard length limits). Default 0.
    pub tether_compliance: f32,
    /// Tether slack factor s in [1, 1000]: a particle may move up to s times its rest mesh
    /// distance from the nearest pin. Default 1.
    pub tether_slack: f32,
    /// Stretch constraint damping beta in N*s/m (>= 0; XPBD eq. 26). Default 0.
    pub stretch_damping: f32,
    /// Bending constraint damping beta in N*m*s/rad (>= 0). Default 0.
    pub bend_damping: f32,
    /// Linear velocity damping d in 1/s (>= 0): v *= exp(-d*h) per substep. Default 0.
    pub linear_damping: f32,
    /// 1 (default) / 0: enable the edge stretch constraints.
    pub enable_stretch: u32,
    /// 1 (default) / 0: enable the dihedral bending constraints.
    pub enable_bending: u32,
    /// 1 (default) / 0: enable tethers (long-range attachments, Kim et al. 2012) to pinned vertices.
    pub enable_tethers: u32,
    /// Extra uniform acceleration in m/s^2 added to the world's gravity for this cloth (e.g. a
    /// steady wind), finite. Default (0, 0, 0).
    pub external_acceleration: [f32; 3],
    /// Substeps per step for this cloth, 0..=1000; 0 (default) = the world's setting.
    pub substeps: u32,
    /// Solver iterations per substep, 0..=1000; 0 (default) = the world's setting.
    pub iterations: u32,
    /// Contact thickness in metres (0..=1): particles are kept at least this far from every
    /// collider's surface (contact C = signed distance - thickness >= 0). Not the fabric
    /// `thickness` of the material. Default 0.005.
    pub collision_thickness: f32,
    /// Collision layers this cloth collides with: a collider counts when
    /// `collider layers & collision_mask != 0`. Default 0xFFFFFFFF (all); 0 = no collisions.
    pub collision_mask: u32,
    /// Largest speed in m/s (0 < v <= 1000) at which a particle that starts a substep inside a
    /// collider (spawned inside, or a collider moved onto it) is pushed out, so an overlap does
    /// not launch the cloth. The cloth around an overlap moves a few times faster while it
    /// rearranges. Default 0.5.
    pub max_depenetration_speed: f32,
    /// Air velocity in m/s (finite, each within +-1e4) for the aerodynamic forces: per-triangle
    /// drag and lift from the triangle's velocity relative to the air (Keckeisen et al. 2004).
    /// Must stay (0, 0, 0) while `drag_coefficient` and `lift_coefficient` are both 0 (else the
    /// wind would do nothing: `XPBD_RESULT_INVALID_ARGUMENT`). Default (0, 0, 0): still air.
    pub wind_velocity: [f32; 3],
    /// Aerodynamic drag coefficient C_D (dimensionless, 0..=100; about 1 for a flat plate facing
    /// the flow). Aerodynamics is off, at no cost, while both coefficients are 0. Default 0.
    pub drag_coefficient: f32,
    /// Aerodynamic lift coefficient C_L (dimensionless, 0..=100; about 0.2-0.5 for cloth), force
    /// perpendicular to the flow. Default 0.
    pub lift_coefficient: f32,
    /// Air density rho in kg/m^3 (0..=1e4) for the aerodynamic forces. Default 1.225 (sea level,
    /// 15 degrees C).
    pub air_density: f32,
    /// Optional extra distance constraints between render vertex pairs (ropes, tassels, strands),
    /// `uint32_t[2*line_count]`; NULL when `line_count` is 0. They behave like triangle edges
    /// without area: no bending, rigid unless `stretch_compliance_from_material` is 0 and
    /// `stretch_compliance` > 0. Copied, not kept. Default NULL.
    pub lines: *const u32,
    /// Number of lines (pairs in `lines`). Default 0.
    pub line_count: u32,
    /// Inertia scale s in [0, 1]: the fraction of its pins' translation the cloth feels. Before
    /// each step the cloth (free vertices and the pins' current positions) is moved rigidly by
    /// (1 - s) times the mean translation of the pinned vertices over that step (target - start),
    /// without changing any velocity; the pins travel the rest over the step's substeps. 1
    /// (default): plain physics, the cloth lags and swings behind its pins; 0: the pins'
    /// translation carries the cloth along and only their rotation and relative motion are
    /// simulated (a cape that does not stream out when its character dashes). No effect without
    /// pins.
    pub inertia_scale: f32,
    /// Explosion guard: the largest plausible particle speed v_max in m/s (0.001..=1e6). After
    /// every step a cloth with a NaN/infinite position or velocity, or a vertex that moved farther
    /// than d_pins + d_colliders + 2*L + v_max*dt (d_pins: the largest pin move of the step;
    /// d_colliders: the largest collider move of the step, rotation not counted; L: the diagonal
    /// of the rest pose's bounding box; all in metres), is unstable: see `unstable_recovery`.
    /// Default 100.
    pub max_particle_speed: f32,
    /// What the explosion guard does with an unstable cloth: an `XpbdUnstableRecovery` value
    /// (0 last good state, 1 rest pose, 2 disabled). A `uint32_t` so that any other value is
    /// reported (`XPBD_RESULT_INVALID_ARGUMENT`). Default `XPBD_UNSTABLE_RECOVERY_LAST_GOOD_STATE`.
    pub unstable_recovery: u32,
    /// 1 / 0: self-collision, particles of the cloth kept at least 2r apart (r =
    /// `self_collision_radius`) except pairs already closer than 2r in the mesh as created;
    /// friction between the touching layers (Macklin et al. 2014). Default 0 (off: set a radius
    /// suited to the mesh, about half its edge length, when turning it on).
    pub enable_self_collision: u32,
    /// Self-collision particle radius r in metres: 0 (default) = `collision_thickness`, else
    /// 1e-6..=1. For a mesh of edge length s, r = 0.5*s keeps particles from slipping through the
    /// holes between the particles of another layer (below 0.36*s the middle of a quad is open);
    /// 2r must stay below the smallest gap between layers of the rest mesh.
    pub self_collision_radius: f32,
    /// Static friction coefficient mu_s between touching parts of the cloth (0..=100). Default 0.5.
    pub self_static_friction: f32,
    /// Kinetic friction coefficient mu_k between touching parts of the cloth (0..=100). Default 0.4.
    pub self_kinetic_friction: f32,
    /// 1 / 0: collide with the other cloths of the world that also have this on, particles kept
    /// r_a + r_b apart (each cloth's `self_collision_radius`) with each cloth's self friction;
    /// independent of `enable_self_collision`. Default 0.
    pub enable_inter_cloth_collision: u32,
}

/// What the explosion guard does with a cloth whose step failed its check (the values of
/// `XpbdClothDesc.unstable_recovery`). Fixed forever; new values are only appended.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum XpbdUnstableRecovery {
    /// Put back the positions, velocities and pin positions the cloth had before the failed step
    /// (the end of the last step that passed). Pin targets stay as set.
    LastGoodState = 0,
    /// Put every free vertex back at its creation position (moved by every teleport since) with
    /// zero velocity; pinned vertices stay at their pins.
    RestPose = 1,
    /// No check (and no cost): the cloth keeps what the step produced.
    Disabled = 2,
}

impl From<UnstableRecovery> for XpbdUnstableRecovery {
    fn from(r: UnstableRecovery) -> Self {
        match r {
            UnstableRecovery::LastGoodState => XpbdUnstableRecovery::LastGoodState,
            UnstableRecovery::RestPose => XpbdUnstableRecovery::RestPose,
            UnstableRecovery::Disabled => XpbdUnstableRecovery::Disabled,
        }
    }
}

/// The `unstable_recovery` field of a descriptor: 0, 1 or 2.
fn recovery_from_c(value: u32) -> Result<UnstableRecovery, FfiError> {
    match value {
        0 => Ok(UnstableRecovery::LastGoodState),
        1 => Ok(UnstableRecovery::RestPose),
        2 => Ok(UnstableRecovery::Disabled),
        _ => Err(FfiError::new(
            XpbdResult::InvalidArgument,
            format!("`unstable_recovery` = {value}: expected 0 (last good state), 1 (rest pose) or 2 (disabled)"),
        )),
    }
}

/// The settings of a cloth that may change after creation: the same fields, meanings, ranges and
/// defaults as in `XpbdClothDesc`. Read with `xpbd_cloth_get_params`, change, write with
/// `xpbd_cloth_set_params`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct XpbdClothParams {
    /// Mass per unit area in kg/m^2 (> 0); sets the masses when the cloth was created without
    /// `inverse_masses`.
    pub areal_density: f32,
    /// Stretch compliance in m/N; see `XpbdClothDesc`.
    pub stretch_compliance: f32,
    /// Bending compliance in rad/(N*m); see `XpbdClothDesc`.
    pub bend_compliance: f32,
    /// 1 / 0: derive the stretch compliance from the material / use `stretch_compliance`.
    pub stretch_compliance_from_material: u32,
    /// 1 / 0: derive the bending compliance from the material / use `bend_compliance`.
    pub bend_compliance_from_material: u32,
    /// Young's modulus in Pa (> 0).
    pub youngs_modulus: f32,
    /// Poisson ratio in [0, 0.5).
    pub poisson_ratio: f32,
    /// Fabric thickness in metres (> 0).
    pub thickness: f32,
    /// Tether compliance in m/N (0..=1e20).
    pub tether_compliance: f32,
    /// Tether slack factor in [1, 1000].
    pub tether_slack: f32,
    /// Stretch damping in N*s/m (>= 0).
    pub stretch_damping: f32,
    /// Bending damping in N*m*s/rad (>= 0).
    pub bend_damping: f32,
    /// Linear velocity damping in 1/s (>= 0).
    pub linear_damping: f32,
    /// 1 / 0: stretch constraints on / off.
    pub enable_stretch: u32,
    /// 1 / 0: bending constraints on / off.
    pub enable_bending: u32,
    /// 1 / 0: tethers on / off.
    pub enable_tethers: u32,
    /// Extra acceleration in m/s^2 (e.g. wind), added to gravity.
    pub external_acceleration: [f32; 3],
    /// Substeps per step, 0..=1000 (0 = the world's).
    pub substeps: u32,
    /// Iterations per substep, 0..=1000 (0 = the world's).
    pub iterations: u32,
    /// Contact thickness in metres (0..=1), kept from every collider's surface.
    pub collision_thickness: f32,
    /// Collision layers this cloth collides with (`collider layers & collision_mask != 0`).
    pub collision_mask: u32,
    /// Largest push-out speed in m/s (0 < v <= 1000) of particles that start inside a collider.
    pub max_depenetration_speed: f32,
    /// Air velocity in m/s; (0, 0, 0) unless a drag or lift coefficient is > 0.
    pub wind_velocity: [f32; 3],
    /// Aerodynamic drag coefficient C_D (0..=100; 0 with C_L = 0: aerodynamics off).
    pub drag_coefficient: f32,
    /// Aerodynamic lift coefficient C_L (0..=100).
    pub lift_coefficient: f32,
    /// Air density in kg/m^3 (0..=1e4).
    pub air_density: f32,
    /// Inertia scale in [0, 1]; see `XpbdClothDesc`.
    pub inertia_scale: f32,
    /// Explosion guard's largest plausible particle speed in m/s (0.001..=1e6).
    pub max_particle_speed: f32,
    /// An `XpbdUnstableRecovery` value (0, 1, 2).
    pub unstable_recovery: u32,
    /// 1 / 0: self-collision on / off.
    pub enable_self_collision: u32,
    /// Self-collision radius in metres; 0 = `collision_thickness`.
    pub self_collision_radius: f32,
    /// Static friction coefficient between touching parts of the cloth (0..=100).
    pub self_static_friction: f32,
    /// Kinetic friction coefficient between touching parts of the cloth (0..=100).
    pub self_kinetic_friction: f32,
    /// 1 / 0: inter-cloth collision on / off.
    pub enable_inter_cloth_collision: u32,
}

/// What a cloth is made of: masses and compliances. `xpbd_cloth_set_material` replaces these
/// fields and leaves the other settings as they are. Same meanings and rules as in `XpbdClothDesc`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct XpbdClothMaterial {
    /// Mass per unit area in kg/m^2 (> 0).
    pub areal_density: f32,
    /// Young's modulus in Pa (> 0).
    pub youngs_modulus: f32,
    /// Poisson ratio in [0, 0.5).
    pub poisson_ratio: f32,
    /// Fabric thickness in metres (> 0).
    pub thickness: f32,
    /// Stretch compliance in m/N (>= 0); must be 0 while `stretch_compliance_from_material` is 1.
    pub stretch_compliance: f32,
    /// Bending compliance in rad/(N*m) (>= 0); must be 0 while `bend_compliance_from_material` is 1.
    pub bend_compliance: f32,
    /// 1 (default) / 0: derive the stretch compliance from the material / use `stretch_compliance`.
    pub stretch_compliance_from_material: u32,
    /// 1 (default) / 0: derive the bending compliance from the material / use `bend_compliance`.
    pub bend_compliance_from_material: u32,
}

/// (compliance, from_material flag) for the C side.
fn compliance_to_c(core: Option<f32>) -> (f32, u32) {
    match core {
        None => (0.0, 1),
        Some(alpha) => (alpha, 0),
    }
}

/// The rule of the module comment. The value itself is range-checked by the core.
fn compliance_from_c(
    value: f32,
    from_material: u32,
    name: &'static str,
    flag_name: &'static str,
) -> Result<Option<f32>, FfiError> {
    if !flag(from_material, flag_name)? {
        return Ok(Some(value));
    }
    if value != 0.0 {
        return Err(FfiError::new(
            XpbdResult::InvalidArgument,
            format!(
                "`{name}` = {value} is ignored while `{flag_name}` = 1: set `{flag_name}` = 0 to use it, \
                 or `{name}` = 0 to derive it from the material"
            ),
        ));
    }
    Ok(None)
}

impl From<&ClothParams> for XpbdClothParams {
    fn from(p: &ClothParams) -> Self {
        let (stretch_compliance, stretch_compliance_from_material) = compliance_to_c(p.stretch_compliance);
        let (bend_compliance, bend_compliance_from_material) = compliance_to_c(p.bend_compliance);
        XpbdClothParams {
            areal_density: p.material.areal_density,
            stretch_compliance,
            bend_compliance,
            stretch_compliance_from_material,
            bend_compliance_from_material,
            youngs_modulus: p.material.youngs_modulus,
            poisson_ratio: p.material.poisson_ratio,
            thickness: p.material.thickness,
            tether_compliance: p.tether_compliance,
            tether_slack: p.tether_slack,
            stretch_damping: p.stretch_damping,
            bend_damping: p.bend_damping,
            linear_damping: p.linear_damping,
            enable_stretch: p.enable_stretch as u32,
            enable_bending: p.enable_bending as u32,
            enable_tethers: p.enable_tethers as u32,
            external_acceleration: p.external_acceleration,
            substeps: p.substeps,
            iterations: p.iterations,
            collision_thickness: p.collision_thickness,
            collision_mask: p.collision_mask,
            max_depenetration_speed: p.max_depenetration_speed,
            wind_velocity: p.wind_velocity,
            drag_coefficient: p.drag_coefficient,
            lift_coefficient: p.lift_coefficient,
            air_density: p.air_density,
            inertia_scale: p.inertia_scale,
            max_particle_speed: p.max_particle_speed,
            unstable_recovery: XpbdUnstableRecovery::from(p.unstable_recovery) as u32,
            enable_self_collision: p.self_collision as u32,
            self_collision_radius: p.self_collision_radius.unwrap_or(0.0),
            self_static_friction: p.self_static_friction,
            self_kinetic_friction: p.self_kinetic_friction,
            enable_inter_cloth_collision: p.inter_cloth_collision as u32,
        }
    }
}

impl XpbdClothParams {
    /// Translate to the core, checking what only the C side can get wrong (flags that are not
    /// 0/1, a compliance set while its from-material flag is on). Numeric ranges are the core's
    /// `ClothParams::validate`.
    pub(crate) fn to_core(self) -> Result<ClothParams, FfiError> {
        Ok(ClothParams {
            material: Material {
                areal_density: self.areal_density,
                youngs_modulus: self.youngs_modulus,
                poisson_ratio: self.poisson_ratio,
                thickness: self.thickness,
            },
            stretch_compliance: compliance_from_c(
                self.stretch_compliance,
                self.stretch_compliance_from_material,
                "stretch_compliance",
                "stretch_compliance_from_material",
            )?,
            bend_compliance: compliance_from_c(
                self.bend_compliance,
                self.bend_compliance_from_material,
                "bend_compliance",
                "bend_compliance_from_material",
            )?,
            tether_compliance: self.tether_compliance,
            stretch_damping: self.stretch_damping,
            bend_damping: self.bend_damping,
            tether_slack: self.tether_slack,
            linear_damping: self.linear_damping,
            enable_stretch: flag(self.enable_stretch, "enable_stretch")?,
            enable_bending: flag(self.enable_bending, "enable_bending")?,
            enable_tethers: flag(self.enable_tethers, "enable_tethers")?,
            external_acceleration: self.external_acceleration,
            wind_velocity: self.wind_velocity,
            drag_coefficient: self.drag_coefficient,
            lift_coefficient: self.lift_coefficient,
            air_density: self.air_density,
            substeps: self.substeps,
            iterations: self.iterations,
            collision_thickness: self.collision_thickness,
            collision_mask: self.collision_mask,
            max_depenetration_speed: self.max_depenetration_speed,
            inertia_scale: self.inertia_scale,
            max_particle_speed: self.max_particle_speed,
            unstable_recovery: recovery_from_c(self.unstable_recovery)?,
            self_collision: flag(self.enable_self_collision, "enable_self_collision")?,
            // 0 is no valid radius, so it can mean "derive from collision_thickness" without
            // hiding a mistake; a negative or NaN radius reaches the core's range check.
            self_collision_radius: (self.self_collision_radius != 0.0).then_some(self.self_collision_radius),
            self_static_friction: self.self_static_friction,
            self_kinetic_friction: self.self_kinetic_friction,
            inter_cloth_collision: flag(self.enable_inter_cloth_collision, "enable_inter_cloth_collision")?,
        })
    }

    /// Replace the material fields with `m`'s.
    pub(crate) fn set_material(&mut self, m: &XpbdClothMaterial) {
        self.areal_density = m.areal_density;
        self.youngs_modulus = m.youngs_modulus;
        self.poisson_ratio = m.poisson_ratio;
        self.thickness = m.thickness;
        self.stretch_compliance = m.stretch_compliance;
        self.bend_compliance = m.bend_compliance;
        self.stretch_compliance_from_material = m.stretch_compliance_from_material;
        self.bend_compliance_from_material = m.bend_compliance_from_material;
    }
}

impl XpbdClothDesc {
    /// The changeable settings part of the descriptor.
    pub(crate) fn params(&self) -> XpbdClothParams {
        XpbdClothParams {
            areal_density: self.areal_density,
            stretch_compliance: self.stretch_compliance,
            bend_compliance: self.bend_compliance,
            stretch_compliance_from_material: self.stretch_compliance_from_material,
            bend_compliance_from_material: self.bend_compliance_from_material,
            youngs_modulus: self.youngs_modulus,
            poisson_ratio: self.poisson_ratio,
            thickness: self.thickness,
            tether_compliance: self.tether_compliance,
            tether_slack: self.tether_slack,
            stretch_damping: self.stretch_damping,
            bend_damping: self.bend_damping,
            linear_damping: self.linear_damping,
            enable_stretch: self.enable_stretch,
            enable_bending: self.enable_bending,
            enable_tethers: self.enable_tethers,
            external_acceleration: self.external_acceleration,
            substeps: self.substeps,
            iterations: self.iterations,
            collision_thickness: self.collision_thickness,
            collision_mask: self.collision_mask,
            max_depenetration_speed: self.max_depenetration_speed,
            wind_velocity: self.wind_velocity,
            drag_coefficient: self.drag_coefficient,
            lift_coefficient: self.lift_coefficient,
            air_density: self.air_density,
            inertia_scale: self.inertia_scale,
            max_particle_speed: self.max_particle_speed,
            unstable_recovery: self.unstable_recovery,
            enable_self_collision: self.enable_self_collision,
            self_collision_radius: self.self_collision_radius,
            self_static_friction: self.self_static_friction,
            self_kinetic_friction: self.self_kinetic_friction,
            enable_inter_cloth_collision: self.enable_inter_cloth_collision,
        }
    }
}

/// Default cloth settings (light cotton: 0.15 kg/m^2, E = 5 MPa, nu = 0.3, t = 0.5 mm; compliances
/// from the material; stretch, bending and tethers on; no damping; world substeps/iterations).
/// Never fails. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_default_cloth_params() -> XpbdClothParams {
    XpbdClothParams::from(&ClothParams::default())
}

/// Default material: the material fields of `xpbd_default_cloth_params()`. Never fails.
/// Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_default_cloth_material() -> XpbdClothMaterial {
    let p = xpbd_default_cloth_params();
    XpbdClothMaterial {
        areal_density: p.areal_density,
        youngs_modulus: p.youngs_modulus,
        poisson_ratio: p.poisson_ratio,
        thickness: p.thickness,
        stretch_compliance: p.stretch_compliance,
        bend_compliance: p.bend_compliance,
        stretch_compliance_from_material: p.stretch_compliance_from_material,
        bend_compliance_from_material: p.bend_compliance_from_material,
    }
}

/// A cloth descriptor with no mesh (NULL pointers, zero counts), weld tolerance 1e-6 m and the
/// settings of `xpbd_default_cloth_params()`. Set `positions`, `vertex_count`, `indices`,
/// `triangle_count` and pass it to `xpbd_cloth_create`. Never fails. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_default_cloth_desc() -> XpbdClothDesc {
    let p = xpbd_default_cloth_params();
    XpbdClothDesc {
        positions: std::ptr::null(),
        vertex_count: 0,
        indices: std::ptr::null(),
        triangle_count: 0,
        inverse_masses: std::ptr::null(),
        areal_density: p.areal_density,
        stretch_compliance: p.stretch_compliance,
        bend_compliance: p.bend_compliance,
        weld_tolerance: DEFAULT_WELD_TOLERANCE,
        stretch_compliance_from_material: p.stretch_compliance_from_material,
        bend_compliance_from_material: p.bend_compliance_from_material,
        youngs_modulus: p.youngs_modulus,
        poisson_ratio: p.poisson_ratio,
        thickness: p.thickness,
        tether_compliance: p.tether_compliance,
        tether_slack: p.tether_slack,
        stretch_damping: p.stretch_damping,
        bend_damping: p.bend_damping,
        linear_damping: p.linear_damping,
        enable_stretch: p.enable_stretch,
        enable_bending: p.enable_bending,
        enable_tethers: p.enable_tethers,
        external_acceleration: p.external_acceleration,
        substeps: p.substeps,
        iterations: p.iterations,
        collision_thickness: p.collision_thickness,
        collision_mask: p.collision_mask,
        max_depenetration_speed: p.max_depenetration_speed,
        wind_velocity: p.wind_velocity,
        drag_coefficient: p.drag_coefficient,
        lift_coefficient: p.lift_coefficient,
        air_density: p.air_density,
        lines: std::ptr::null(),
        line_count: 0,
        inertia_scale: p.inertia_scale,
        max_particle_speed: p.max_particle_speed,
        unstable_recovery: p.unstable_recovery,
        enable_self_collision: p.enable_self_collision,
        self_collision_radius: p.self_collision_radius,
        self_static_friction: p.self_static_friction,
        self_kinetic_friction: p.self_kinetic_friction,
        enable_inter_cloth_collision: p.enable_inter_cloth_collision,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_round_trip_through_c_exactly() {
        // Every field away from its default, so that a field the translation drops or swaps
        // shows up here.
        let core = ClothParams {
            material: Material { areal_density: 0.3, youngs_modulus: 2e6, poisson_ratio: 0.2, thickness: 1e-3 },
            stretch_compliance: Some(1.5e-7),
            bend_compliance: None,
            tether_compliance: 1e-8,
            stretch_damping: 0.25,
            bend_damping: 0.125,
            tether_slack: 1.5,
            linear_damping: 0.75,
            enable_stretch: false,
            enable_bending: false,
            enable_tethers: false,
            external_acceleration: [0.5, 0.0, -2.0],
            wind_velocity: [3.0, -0.5, 1.25],
            drag_coefficient: 1.1,
            lift_coefficient: 0.3,
            air_density: 1.2,
            substeps: 7,
            iterations: 3,
            collision_thickness: 0.0125,
            collision_mask: 0b1011,
            max_depenetration_speed: 2.5,
            inertia_scale: 0.25,
            max_particle_speed: 40.0,
            unstable_recovery: UnstableRecovery::RestPose,
            self_collision: !crate::cloth::DEFAULT_SELF_COLLISION,
            self_collision_radius: Some(0.0075),
            self_static_friction: 0.7,
            self_kinetic_friction: 0.6,
            inter_cloth_collision: true,
        };
        assert_eq!(core.validate(), Ok(()));
        let c = XpbdClothParams::from(&core);
        assert_eq!((c.stretch_compliance, c.stretch_compliance_from_material), (1.5e-7, 0));
        assert_eq!((c.bend_compliance, c.bend_compliance_from_material), (0.0, 1));
        assert_eq!(c.to_core(), Ok(core));
        assert_eq!(xpbd_default_cloth_desc().params().to_core(), Ok(ClothParams::default()));
    }

    #[test]
    fn compliance_set_while_derived_from_material_is_rejected_not_ignored() {
        let mut c = xpbd_default_cloth_params();
        c.stretch_compliance = 1e-6;
        let e = c.to_core().unwrap_err();
        assert_eq!(e.code, XpbdResult::InvalidArgument);
        assert!(e.message.contains("`stretch_compliance_from_material` = 1"), "{}", e.message);
        c.stretch_compliance_from_material = 0;
        assert_eq!(c.to_core().unwrap().stretch_compliance, Some(1e-6));
        // A negative compliance is an error with either flag (no sentinel values).
        c.stretch_compliance = -1.0;
        assert!(c.to_core().unwrap().validate().is_err());
        c.stretch_compliance_from_material = 1;
        assert_eq!(c.to_core().unwrap_err().code, XpbdResult::InvalidArgument);
    }
}
