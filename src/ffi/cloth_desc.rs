//! The C descriptors of a cloth and their translation to the core's `ClothDesc`/`ClothParams`.
//!
//! The structs `XpbdClothDesc`, `XpbdClothParams` and `XpbdClothMaterial`, their doc comments and
//! their translation are generated from the parameter table (src/cloth/desc/table.rs) into
//! `cloth_desc/generated.rs`; this file holds the rules of the C encoding they use, the enum of
//! `unstable_recovery` and the exports.
//!
//! Material vs explicit compliance: each of stretch and bending has a compliance field and a
//! `*_compliance_from_material` flag (`uint32_t`, 0 or 1, default 1).
//! - flag 1: the compliance is derived per element from Young's modulus, Poisson ratio and
//!   thickness, and the compliance field must be 0 (anything else is `XPBD_RESULT_INVALID_ARGUMENT`,
//!   so a compliance set without clearing the flag is reported instead of silently ignored);
//! - flag 0: the compliance field is used for every element and must be inside its range (0 =
//!   rigid).
//!
//! No sentinel value: a negative or NaN compliance is always an error.

mod generated;

pub use generated::{XpbdClothDesc, XpbdClothMaterial, XpbdClothParams};

use super::args::flag;
use super::error::{FfiError, XpbdResult};
use crate::cloth::{ClothParams, UnstableRecovery};
use crate::material::Material;

/// What the explosion guard does with a cloth whose step failed its check (the values of
/// `XpbdClothDesc.unstable_recovery`). Fixed forever; new values are only appended.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum XpbdUnstableRecovery {
    /// Put back the positions, velocities and pin positions the cloth had before the failed step
    /// (the end of the last step that passed). Pin targets stay as set. A second failure in a row
    /// with no call that changes the cloth in between puts back the rest pose instead (the same
    /// step would fail at every retry), reported as `XPBD_UNSTABLE_RECOVERY_REST_POSE`.
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

/// An enum field (`name`) whose value is none of the enum's.
fn unknown_value(name: &'static str, value: u32, expected: &'static str) -> FfiError {
    FfiError::new(XpbdResult::InvalidArgument, format!("`{name}` = {value}: expected {expected}"))
}

/// An optional value: 0 is no valid value of such a field, so it can mean "derived" (`None`)
/// without hiding a mistake; a negative or NaN value reaches the core's range check.
fn optional_from_c(value: f32) -> Option<f32> {
    (value != 0.0).then_some(value)
}

/// The rule of the module comment for one (compliance, from-material flag) pair. The value itself
/// is range-checked by the core.
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

/// A field of a C struct found by name (`field_mut` of the generated structs), for the tests
/// that go through the parameter table.
#[cfg(test)]
#[derive(Debug)]
pub(crate) enum FieldMut<'a> {
    F32(&'a mut f32),
    U32(&'a mut u32),
    Vec3(&'a mut [f32; 3]),
}

/// Default cloth settings: every field at the default its doc comment gives (light cotton,
/// compliances from the material, stretch, bending and tethers on, only deformation damped
/// (`deformation_damping`; no linear or constraint damping), the world's substeps and iterations). Never fails. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_default_cloth_params() -> XpbdClothParams {
    XpbdClothParams::from(&ClothParams::default())
}

/// Default material: the material fields of `xpbd_default_cloth_params()`. Never fails.
/// Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_default_cloth_material() -> XpbdClothMaterial {
    XpbdClothMaterial::from(&xpbd_default_cloth_params())
}

/// A cloth descriptor with no mesh (NULL pointers, zero counts), the default weld tolerance and
/// the settings of `xpbd_default_cloth_params()`. Set `positions`, `vertex_count`, `indices`,
/// `triangle_count` and pass it to `xpbd_cloth_create`. Never fails. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_default_cloth_desc() -> XpbdClothDesc {
    XpbdClothDesc::with_params(&xpbd_default_cloth_params())
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
            max_stretch: Some(1.2),
            sleep_speed: Some(0.02),
            sleep_time: 0.75,
            simulation_blend: 0.5,
            linear_inertia: 0.25,
            angular_inertia: 0.75,
            deformation_damping: 1.25,
            step_interval: 3,
            tear_strain: Some(0.4),
            tear_max_per_step: 17,
            pressure: Some(1.5),
            volume_compliance: 2e-6,
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
