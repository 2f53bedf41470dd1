//! The material and solver settings the inspector shows, in the units a Godot user thinks in, and
//! their exact meaning in the core's SI [`ClothParams`].
//!
//! Units differ from the core only where SI numbers would be unreadable in an inspector field:
//! Young's modulus in MPa (cloth: 1–100 MPa), fabric thickness in mm. Compliances stay SI. A
//! negative compliance means "derive it from the material" (the core's `None`), since an
//! inspector field cannot be empty; likewise a self-collision radius of 0 means "the collision
//! thickness" (the core's `None`).

use xpbd_cloth::{ClothParams, Material, UnstableRecovery};

/// Pascals per megapascal.
const PA_PER_MPA: f32 = 1.0e6;
/// Millimetres per metre.
const MM_PER_M: f32 = 1.0e3;

/// Cloth settings as the `XpbdCloth3D` node exposes them (one field per inspector property).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InspectorParams {
    /// Areal density [kg/m²] (cotton shirting ≈ 0.1–0.2, denim ≈ 0.4).
    pub areal_density: f32,
    /// Young's modulus E [MPa].
    pub youngs_modulus_mpa: f32,
    /// Poisson ratio ν [-], 0 ≤ ν < 0.5.
    pub poisson_ratio: f32,
    /// Fabric thickness t [mm] (bending stiffness grows with t³).
    pub thickness_mm: f32,
    /// Stretch compliance α [m/N]; < 0: derived per edge from the material.
    pub stretch_compliance: f32,
    /// Bending compliance α [rad/(N·m)]; < 0: derived per hinge from the material.
    pub bend_compliance: f32,
    /// Stretch damping β [N·s/m].
    pub stretch_damping: f32,
    /// Bending damping β [N·m·s/rad].
    pub bend_damping: f32,
    /// Linear velocity damping [1/s] (damps all motion; 0 by default).
    pub linear_damping: f32,
    /// Deformation damping [1/s]: velocity relative to the cloth's rigid motion.
    pub deformation_damping: f32,
    /// Tether slack factor s ≥ 1.
    pub tether_slack: f32,
    /// Strain limit: no edge longer than this ratio × its rest length at the end of a step
    /// (1–100); 0 = off.
    pub max_stretch: f32,
    /// Bending constraints on.
    pub enable_bending: bool,
    /// Tethers (long-range attachments to pins) on.
    pub enable_tethers: bool,
    /// Air velocity [m/s] (world space).
    pub wind_velocity: [f32; 3],
    /// Aerodynamic drag coefficient C_D [-].
    pub drag_coefficient: f32,
    /// Aerodynamic lift coefficient C_L [-].
    pub lift_coefficient: f32,
    /// Air density ρ [kg/m³].
    pub air_density: f32,
    /// Substeps per physics tick (h = tick / substeps).
    pub substeps: u32,
    /// Solver iterations per substep.
    pub iterations: u32,
    /// Contact thickness [m] kept between the cloth and every collider.
    pub collision_thickness: f32,
    /// Collision layers (bit mask) whose colliders this cloth collides with.
    pub collision_mask: u32,
    /// Self-collision on: particles kept 2r apart (r = `self_collision_radius`).
    pub self_collision: bool,
    /// Self-collision particle radius r [m]; ≤ 0: half the mesh's median edge length.
    pub self_collision_radius: f32,
    /// Static friction coefficient μ_s between touching parts of the cloth [-].
    pub self_static_friction: f32,
    /// Kinetic friction coefficient μ_k between touching parts of the cloth [-].
    pub self_kinetic_friction: f32,
    /// Inertia scale s [-], 0..=1: the fraction of its pins' translation the cloth feels.
    pub inertia_scale: f32,
    /// Explosion guard: largest plausible particle speed v_max [m/s].
    pub max_particle_speed: f32,
    /// What the explosion guard does with an unstable cloth.
    pub unstable_recovery: UnstableRecovery,
    /// Level of detail: the cloth steps once every this many physics ticks (1..=16), over that
    /// many ticks of time.
    pub step_interval: u32,
    /// Tearing: an edge longer than (1 + this) × its rest length tears [-]; 0 = only scripted
    /// cuts. Only for a cloth created tearable (`max_extra_vertices` > 0, a creation setting).
    pub tear_strain: f32,
    /// Over-strained edges that may tear in one step.
    pub tear_max_per_step: u32,
    /// Pressure of a closed cloth: its volume held at this multiple of the rest volume [-]; 0 = off.
    pub pressure: f32,
    /// Compliance of the enclosed air [m³/Pa]; 0 = the volume held exactly.
    pub volume_compliance: f32,
}

/// The recoveries in inspector order (the index of each is its C ABI value).
const RECOVERIES: [UnstableRecovery; 3] =
    [UnstableRecovery::LastGoodState, UnstableRecovery::RestPose, UnstableRecovery::Disabled];

/// The recovery with this inspector index (0 last good state, 1 rest pose, 2 disabled), `None`
/// otherwise.
pub fn recovery_from_index(index: i64) -> Option<UnstableRecovery> {
    RECOVERIES.get(usize::try_from(index).ok()?).copied()
}

/// The inspector index of `recovery` (inverse of [`recovery_from_index`]).
pub fn recovery_index(recovery: UnstableRecovery) -> i64 {
    RECOVERIES.iter().position(|&r| r == recovery).map_or(0, |i| i as i64)
}

impl Default for InspectorParams {
    /// The core's defaults ([`ClothParams::default`]) with 10 substeps and 1 iteration (the core
    /// world's defaults), so a new node behaves like a new core cloth.
    fn default() -> Self {
        let mut p = InspectorParams::from_params(&ClothParams::default());
        p.substeps = 10;
        p.iterations = 1;
        p
    }
}

/// Negative in the inspector ⇔ `None` (derived from the material) in the core.
fn optional(value: f32) -> Option<f32> {
    (value >= 0.0).then_some(value)
}

/// 0 (or less) in the inspector ⇔ `None` (derived from the mesh) in the core.
fn optional_radius(value: f32) -> Option<f32> {
    (value > 0.0).then_some(value)
}

impl InspectorParams {
    /// The core settings these properties mean. Fields the inspector does not show (external
    /// acceleration, enable_stretch, tether compliance, depenetration speed, inter-cloth
    /// collision: each node has its own world) keep `base`'s values.
    /// Validation is the core's ([`ClothParams::validate`]), which names the failing field.
    pub fn to_params(&self, base: &ClothParams) -> ClothParams {
        ClothParams {
            material: Material {
                areal_density: self.areal_density,
                youngs_modulus: self.youngs_modulus_mpa * PA_PER_MPA,
                poisson_ratio: self.poisson_ratio,
                thickness: self.thickness_mm / MM_PER_M,
            },
            stretch_compliance: optional(self.stretch_compliance),
            bend_compliance: optional(self.bend_compliance),
            stretch_damping: self.stretch_damping,
            bend_damping: self.bend_damping,
            linear_damping: self.linear_damping,
            deformation_damping: self.deformation_damping,
            tether_slack: self.tether_slack,
            max_stretch: (self.max_stretch > 0.0).then_some(self.max_stretch),
            enable_bending: self.enable_bending,
            enable_tethers: self.enable_tethers,
            wind_velocity: self.wind_velocity,
            drag_coefficient: self.drag_coefficient,
            lift_coefficient: self.lift_coefficient,
            air_density: self.air_density,
            substeps: self.substeps,
            iterations: self.iterations,
            collision_thickness: self.collision_thickness,
            collision_mask: self.collision_mask,
            self_collision: self.self_collision,
            self_collision_radius: optional_radius(self.self_collision_radius),
            self_static_friction: self.self_static_friction,
            self_kinetic_friction: self.self_kinetic_friction,
            inertia_scale: self.inertia_scale,
            max_particle_speed: self.max_particle_speed,
            unstable_recovery: self.unstable_recovery,
            step_interval: self.step_interval,
            tear_strain: (self.tear_strain > 0.0).then_some(self.tear_strain),
            tear_max_per_step: self.tear_max_per_step,
            pressure: (self.pressure > 0.0).then_some(self.pressure),
            volume_compliance: self.volume_compliance,
            ..*base
        }
    }

    /// The inspector values showing `params`.
    pub fn from_params(params: &ClothParams) -> Self {
        let m = &params.material;
        InspectorParams {
            areal_density: m.areal_density,
            youngs_modulus_mpa: m.youngs_modulus / PA_PER_MPA,
            poisson_ratio: m.poisson_ratio,
            thickness_mm: m.thickness * MM_PER_M,
            stretch_compliance: params.stretch_compliance.unwrap_or(-1.0),
            bend_compliance: params.bend_compliance.unwrap_or(-1.0),
            stretch_damping: params.stretch_damping,
            bend_damping: params.bend_damping,
            linear_damping: params.linear_damping,
            deformation_damping: params.deformation_damping,
            tether_slack: params.tether_slack,
            max_stretch: params.max_stretch.unwrap_or(0.0),
            enable_bending: params.enable_bending,
            enable_tethers: params.enable_tethers,
            wind_velocity: params.wind_velocity,
            drag_coefficient: params.drag_coefficient,
            lift_coefficient: params.lift_coefficient,
            air_density: params.air_density,
            substeps: params.substeps,
            iterations: params.iterations,
            collision_thickness: params.collision_thickness,
            collision_mask: params.collision_mask,
            self_collision: params.self_collision,
            self_collision_radius: params.self_collision_radius.unwrap_or(0.0),
            self_static_friction: params.self_static_friction,
            self_kinetic_friction: params.self_kinetic_friction,
            inertia_scale: params.inertia_scale,
            max_particle_speed: params.max_particle_speed,
            unstable_recovery: params.unstable_recovery,
            step_interval: params.step_interval,
            tear_strain: params.tear_strain.unwrap_or(0.0),
            tear_max_per_step: params.tear_max_per_step,
            pressure: params.pressure.unwrap_or(0.0),
            volume_compliance: params.volume_compliance,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() <= 1e-6 * a.abs().max(b.abs())
    }

    #[test]
    fn inspector_units_are_mpa_and_mm() {
        let p = InspectorParams { youngs_modulus_mpa: 5.0, thickness_mm: 0.5, ..InspectorParams::default() };
        let core = p.to_params(&ClothParams::default());
        assert_eq!(core.material.youngs_modulus, 5.0e6);
        assert!(close(core.material.thickness, 5.0e-4));
        // The defaults show the core's material: 5 MPa, 0.5 mm, 0.15 kg/m².
        let d = InspectorParams::default();
        assert_eq!((d.youngs_modulus_mpa, d.areal_density), (5.0, 0.15));
        assert!(close(d.thickness_mm, 0.5));
    }

    #[test]
    fn negative_compliance_means_derived_from_the_material() {
        let derived = InspectorParams { stretch_compliance: -1.0, bend_compliance: -0.5, ..InspectorParams::default() };
        let core = derived.to_params(&ClothParams::default());
        assert_eq!((core.stretch_compliance, core.bend_compliance), (None, None));
        let set = InspectorParams { stretch_compliance: 0.0, bend_compliance: 2e-3, ..derived };
        let core = set.to_params(&ClothParams::default());
        assert_eq!((core.stretch_compliance, core.bend_compliance), (Some(0.0), Some(2e-3)));
    }

    #[test]
    fn core_params_round_trip_through_the_inspector() {
        let base = ClothParams::default();
        let varied = ClothParams {
            material: Material { areal_density: 0.4, youngs_modulus: 12.5e6, poisson_ratio: 0.2, thickness: 1.2e-3 },
            stretch_compliance: Some(1e-7),
            bend_compliance: None,
            stretch_damping: 0.01,
            bend_damping: 0.002,
            linear_damping: 0.1,
            deformation_damping: 0.7,
            tether_slack: 1.05,
            max_stretch: Some(1.2),
            enable_bending: false,
            enable_tethers: false,
            wind_velocity: [3.0, 0.0, -1.0],
            drag_coefficient: 1.0,
            lift_coefficient: 0.3,
            air_density: 1.2,
            substeps: 16,
            iterations: 2,
            collision_thickness: 0.01,
            collision_mask: 0b101,
            self_collision: true,
            self_collision_radius: Some(0.02),
            self_static_friction: 0.8,
            self_kinetic_friction: 0.6,
            inertia_scale: 0.25,
            max_particle_speed: 40.0,
            unstable_recovery: UnstableRecovery::RestPose,
            step_interval: 4,
            tear_strain: Some(0.4),
            tear_max_per_step: 12,
            pressure: Some(1.5),
            volume_compliance: 1e-6,
            ..base
        };
        for p in [base, varied] {
            let back = InspectorParams::from_params(&p).to_params(&base);
            // Unit conversions (MPa, mm) may move the last bit; everything else is exact.
            assert!(close(back.material.youngs_modulus, p.material.youngs_modulus));
            assert!(close(back.material.thickness, p.material.thickness));
            let exact = |q: ClothParams| ClothParams { material: Material { youngs_modulus: 1.0, thickness: 1.0, ..q.material }, ..q };
            assert_eq!(exact(back), exact(p));
            assert_eq!(back.validate(), Ok(()));
        }
    }

    #[test]
    fn fields_the_inspector_does_not_show_keep_the_base_values() {
        let base = ClothParams {
            external_acceleration: [0.0, 0.0, 2.0],
            tether_compliance: 1e-5,
            inter_cloth_collision: true,
            ..ClothParams::default()
        };
        let core = InspectorParams::default().to_params(&base);
        assert_eq!((core.external_acceleration, core.tether_compliance), ([0.0, 0.0, 2.0], 1e-5));
        assert!(core.inter_cloth_collision);
    }

    #[test]
    fn zero_self_collision_radius_means_derived_from_the_mesh() {
        let d = InspectorParams::default();
        assert_eq!((d.self_collision, d.self_collision_radius), (false, 0.0));
        let on = InspectorParams { self_collision: true, self_collision_radius: 0.0, ..d };
        assert_eq!(on.to_params(&ClothParams::default()).self_collision_radius, None);
        let set = InspectorParams { self_collision_radius: 0.01, ..on };
        let core = set.to_params(&ClothParams::default());
        assert_eq!((core.self_collision, core.self_collision_radius), (true, Some(0.01)));
        assert_eq!(core.validate(), Ok(()));
    }

    #[test]
    fn step_interval_reaches_the_core_and_is_range_checked_there() {
        assert_eq!(InspectorParams::default().step_interval, 1);
        let far = InspectorParams { step_interval: 4, ..InspectorParams::default() };
        assert_eq!(far.to_params(&ClothParams::default()).step_interval, 4);
        let bad = InspectorParams { step_interval: 0, ..far };
        let err = bad.to_params(&ClothParams::default()).validate().unwrap_err().to_string();
        assert!(err.contains("step_interval"), "{err}");
    }

    #[test]
    fn recovery_indices_are_the_c_abi_values() {
        // XpbdUnstableRecovery: 0 last good state, 1 rest pose, 2 disabled.
        assert_eq!(recovery_from_index(0), Some(UnstableRecovery::LastGoodState));
        assert_eq!(recovery_from_index(1), Some(UnstableRecovery::RestPose));
        assert_eq!(recovery_from_index(2), Some(UnstableRecovery::Disabled));
        assert_eq!((recovery_from_index(3), recovery_from_index(-1)), (None, None));
        for i in 0..3 {
            assert_eq!(recovery_index(recovery_from_index(i).unwrap()), i);
        }
    }

    #[test]
    fn out_of_range_robustness_settings_are_named_by_the_core() {
        let bad_scale = InspectorParams { inertia_scale: 1.5, ..InspectorParams::default() };
        let err = bad_scale.to_params(&ClothParams::default()).validate().unwrap_err().to_string();
        assert!(err.contains("inertia_scale"), "{err}");
        let bad_speed = InspectorParams { max_particle_speed: 0.0, ..InspectorParams::default() };
        let err = bad_speed.to_params(&ClothParams::default()).validate().unwrap_err().to_string();
        assert!(err.contains("max_particle_speed"), "{err}");
    }
}

#[cfg(test)]
mod tearing_and_pressure {
    use super::*;

    /// 0 in the inspector is the core's `None` for the tear strain and the pressure (off).
    #[test]
    fn zero_tear_strain_and_pressure_mean_off() {
        let d = InspectorParams::default();
        assert_eq!((d.tear_strain, d.pressure, d.volume_compliance, d.tear_max_per_step), (0.0, 0.0, 0.0, 64));
        let core = d.to_params(&ClothParams::default());
        assert_eq!((core.tear_strain, core.pressure), (None, None));
        let on = InspectorParams { tear_strain: 0.3, pressure: 2.0, volume_compliance: 1e-5, ..d };
        let core = on.to_params(&ClothParams::default());
        assert_eq!((core.tear_strain, core.pressure, core.volume_compliance), (Some(0.3), Some(2.0), 1e-5));
        assert_eq!(core.validate(), Ok(()));
    }
}
