//! Tests of the parameter table: the generated files are fresh, and the defaults, ranges and
//! translations the C API and the core apply are the ones the table declares, row by row.

use super::spec::{Kind, Param, Place, Value};
use super::table::{CLOTH, MATERIAL, MAX_COMPLIANCE};
use super::{ClothDesc, ClothParams, DEFAULT_SELF_COLLISION, DEFAULT_WELD_TOLERANCE};
use crate::ffi::cloth_desc::FieldMut;
use crate::ffi::{
    XpbdClothDesc, XpbdClothMaterial, XpbdClothParams, XpbdUnstableRecovery, xpbd_default_cloth_desc,
    xpbd_default_cloth_material, xpbd_default_cloth_params,
};
use crate::material::Material;

#[test]
fn generated_files_match_the_parameter_table() {
    for (generated, committed) in [
        (include_str!(concat!(env!("OUT_DIR"), "/cloth_desc_core.rs")), "src/cloth/desc/generated.rs"),
        (include_str!(concat!(env!("OUT_DIR"), "/cloth_desc_ffi.rs")), "src/ffi/cloth_desc/generated.rs"),
        (include_str!(concat!(env!("OUT_DIR"), "/parameters.md")), "docs/parameters.md"),
    ] {
        let path = format!("{}/{committed}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{committed}: {e}"));
        assert!(
            text == generated,
            "{committed} is stale: the parameter table changed. Run `cargo build` outside CI (build.rs \
             rewrites it) and commit the result."
        );
    }
}

fn row(name: &str) -> &'static Param {
    CLOTH.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("no row `{name}`"))
}

fn settings() -> impl Iterator<Item = &'static Param> {
    CLOTH.iter().filter(|p| p.place == Place::Settings)
}

/// What `xpbd_cloth_set_params` makes of `params`: the core's settings, or the message of the
/// first rule they break (the C encoding's, then the core's).
fn apply(params: XpbdClothParams) -> Result<ClothParams, String> {
    let core = params.to_core().map_err(|e| e.message)?;
    core.validate().map_err(|e| e.to_string())?;
    Ok(core)
}

/// Settings in which every row's value is used: compliances explicit, a drag coefficient for the
/// wind.
fn probe_base() -> XpbdClothParams {
    let mut p = xpbd_default_cloth_params();
    p.stretch_compliance_from_material = 0;
    p.bend_compliance_from_material = 0;
    p.drag_coefficient = 1.0;
    p
}

/// `params` with the field `name` set to `value` (every component for a vector).
fn with(mut params: XpbdClothParams, name: &str, value: Value) -> XpbdClothParams {
    match (params.field_mut(name).unwrap_or_else(|| panic!("no C field `{name}`")), value) {
        (FieldMut::F32(f), Value::F32(v)) => *f = v,
        (FieldMut::U32(f), Value::U32(v)) => *f = v,
        (FieldMut::Vec3(f), Value::Vec3(v)) => *f = v,
        (FieldMut::Vec3(f), Value::F32(v)) => *f = [0.0, v, 0.0],
        (field, value) => panic!("`{name}`: {value:?} does not fit {field:?}"),
    }
    params
}

fn value_of(field: FieldMut<'_>) -> Value {
    match field {
        FieldMut::F32(f) => Value::F32(*f),
        FieldMut::U32(f) => Value::U32(*f),
        FieldMut::Vec3(f) => Value::Vec3(*f),
    }
}

/// The values a row accepts at its bounds and the ones just outside, as the C struct holds them.
fn bounds(p: &Param) -> (Vec<Value>, Vec<Value>) {
    let reals = |min: f32, max: f32| {
        let inside = vec![Value::F32(min), Value::F32(max)];
        let outside = [min.next_down(), max.next_up(), f32::NAN, f32::NEG_INFINITY].map(Value::F32).to_vec();
        (inside, outside)
    };
    match p.kind {
        Kind::Real { min, max } | Kind::Vec3 { min, max } | Kind::Override { min, max, .. } => reals(min, max),
        Kind::Optional { min, max, .. } => {
            let (mut inside, outside) = reals(min, max);
            inside.push(Value::F32(0.0));
            (inside, outside)
        }
        Kind::Count { min, max, .. } => {
            let mut outside = vec![Value::U32(max + 1)];
            if min > 0 {
                outside.push(Value::U32(min - 1));
            }
            (vec![Value::U32(min), Value::U32(max)], outside)
        }
        Kind::Flag | Kind::OverrideFlag { .. } => (vec![Value::U32(0), Value::U32(1)], vec![Value::U32(2), Value::U32(u32::MAX)]),
        Kind::Enum { variants, .. } => {
            let n = variants.len() as u32;
            ((0..n).map(Value::U32).collect(), vec![Value::U32(n), Value::U32(u32::MAX)])
        }
        Kind::Bits => (vec![Value::U32(0), Value::U32(0x5555_5555), Value::U32(u32::MAX)], vec![]),
        Kind::Quat { .. } | Kind::Raw { .. } => (vec![], vec![]),
    }
}

#[test]
fn every_setting_accepts_its_declared_range_and_rejects_what_lies_outside_naming_itself() {
    for p in settings() {
        let (inside, outside) = bounds(p);
        for value in inside {
            let params = with(probe_base(), p.name, value);
            assert!(apply(params).is_ok(), "`{}` = {value:?} rejected: {:?}", p.name, apply(params));
        }
        for value in outside {
            let message = apply(with(probe_base(), p.name, value)).expect_err(&format!("`{}` = {value:?} accepted", p.name));
            assert!(message.contains(&format!("`{}` = ", p.name)), "{message}");
            assert!(message.contains(&p.expected()), "`{}`: {message} does not say {}", p.name, p.expected());
        }
    }
    // The from-material rule: a compliance set while its flag is 1 is reported, not ignored.
    for p in settings() {
        if let Kind::Override { flag, .. } = p.kind {
            let params = with(with(probe_base(), flag, Value::U32(1)), p.name, Value::F32(1e-6));
            let message = apply(params).unwrap_err();
            assert!(message.contains(&format!("`{}` = 0.000001 is ignored while `{flag}` = 1", p.name)), "{message}");
        }
    }
}

#[test]
fn the_c_defaults_and_the_core_defaults_are_the_declared_ones() {
    let mut desc = xpbd_default_cloth_desc();
    let mut params = xpbd_default_cloth_params();
    let mut material = xpbd_default_cloth_material();
    for p in CLOTH.iter().filter(|p| !matches!(p.kind, Kind::Raw { c_type } if c_type.starts_with('*'))) {
        let declared = p.default;
        assert_eq!(value_of(desc.field_mut(p.name).unwrap()), declared, "XpbdClothDesc.{}", p.name);
        if p.place == Place::Settings {
            assert_eq!(value_of(params.field_mut(p.name).unwrap()), declared, "XpbdClothParams.{}", p.name);
        }
        if MATERIAL.contains(&p.name) {
            assert_eq!(value_of(material.field_mut(p.name).unwrap()), declared, "XpbdClothMaterial.{}", p.name);
        }
    }
    assert!(desc.positions.is_null() && desc.indices.is_null() && desc.inverse_masses.is_null() && desc.lines.is_null());
    assert_eq!(params.to_core(), Ok(ClothParams::default()));
    // The material module keeps its own defaults and ranges (`Material::default`, `validate`):
    // they must be the declared ones.
    assert_eq!(ClothParams::default().material, Material::default());
    assert_eq!(Value::F32(DEFAULT_WELD_TOLERANCE), row("weld_tolerance").default);
    assert_eq!(Value::U32(DEFAULT_SELF_COLLISION as u32), row("enable_self_collision").default);
    assert_eq!(MAX_COMPLIANCE, crate::material::MAX_COMPLIANCE);
}

#[test]
fn material_validate_applies_the_declared_material_ranges() {
    for name in ["areal_density", "youngs_modulus", "poisson_ratio", "thickness"] {
        let Kind::Real { min, max } = row(name).kind else { panic!("`{name}` is not a real") };
        let material = |v: f32| {
            let mut m = Material::default();
            *match name {
                "areal_density" => &mut m.areal_density,
                "youngs_modulus" => &mut m.youngs_modulus,
                "poisson_ratio" => &mut m.poisson_ratio,
                _ => &mut m.thickness,
            } = v;
            m
        };
        for v in [min, max] {
            assert_eq!(material(v).validate(), Ok(()), "`{name}` = {v}");
        }
        for v in [min.next_down(), max.next_up(), f32::NAN] {
            assert!(material(v).validate().is_err(), "`{name}` = {v} accepted");
        }
    }
}

/// A valid value of row `p` that is not its default.
fn other_value(p: &Param) -> Value {
    let lerp = |min: f32, max: f32, t: f32| if max == f32::MAX { min + 2.5 * t } else { min + (max - min) * t };
    match p.kind {
        Kind::Real { min, max } | Kind::Optional { min, max, .. } | Kind::Override { min, max, .. } => {
            Value::F32(lerp(min, max, 0.375))
        }
        Kind::Vec3 { min, max } => Value::Vec3([lerp(min, max, 0.375), lerp(min, max, 0.625), lerp(min, max, 0.25)]),
        Kind::Count { min, max, .. } => Value::U32((min + max) / 2),
        Kind::Bits => Value::U32(0x0F0F_0F0F),
        Kind::Flag => Value::U32(matches!(p.default, Value::U32(0)) as u32),
        Kind::OverrideFlag { .. } => Value::U32(0),
        Kind::Enum { variants, .. } => match p.default {
            Value::U32(v) => Value::U32((v + 1) % variants.len() as u32),
            _ => unreachable!(),
        },
        Kind::Quat { .. } | Kind::Raw { .. } => p.default,
    }
}

#[test]
fn every_setting_survives_c_core_c_and_the_desc_and_material_copies() {
    let mut changed = xpbd_default_cloth_params();
    for p in settings() {
        changed = with(changed, p.name, other_value(p));
        assert_ne!(value_of(changed.field_mut(p.name).unwrap()), p.default, "`{}` kept its default", p.name);
    }
    let core = apply(changed).expect("every changed value is valid");
    assert_eq!(XpbdClothParams::from(&core), changed);
    assert_eq!(XpbdClothDesc::with_params(&changed).params(), changed);

    let mut params = xpbd_default_cloth_params();
    params.set_material(&XpbdClothMaterial::from(&changed));
    let mut default = xpbd_default_cloth_params();
    for p in settings() {
        let expected = if MATERIAL.contains(&p.name) { &mut changed } else { &mut default };
        assert_eq!(value_of(params.field_mut(p.name).unwrap()), value_of(expected.field_mut(p.name).unwrap()), "{}", p.name);
    }
}

#[test]
fn enum_values_are_the_declared_order_of_the_variants() {
    let Kind::Enum { variants, .. } = row("unstable_recovery").kind else { panic!("not an enum") };
    for (i, name) in variants.iter().enumerate() {
        let core = with(xpbd_default_cloth_params(), "unstable_recovery", Value::U32(i as u32)).to_core().unwrap();
        assert_eq!(format!("{:?}", core.unstable_recovery), *name);
        assert_eq!(XpbdUnstableRecovery::from(core.unstable_recovery) as u32, i as u32, "the C enum's value of {name}");
    }
}

#[test]
fn creating_a_cloth_applies_the_declared_weld_tolerance_range() {
    let Kind::Real { min, max } = row("weld_tolerance").kind else { panic!("not a real") };
    let positions = [[0.0, 0.0, 0.0], [10.0, 0.0, 0.0], [0.0, 10.0, 0.0]];
    let mut world = crate::World::new(crate::WorldDesc { thread_count: 1, ..crate::WorldDesc::default() }).unwrap();
    for (weld, valid) in [(min, true), (max, true), (min.next_down(), false), (max.next_up(), false), (f32::NAN, false)] {
        let desc = ClothDesc { weld_tolerance: weld, ..ClothDesc::new(&positions, &[0, 1, 2]) };
        assert_eq!(desc.validate().is_ok(), valid, "weld_tolerance {weld}");
        // Cloth creation checks it itself (src/cloth/create.rs): the same values must pass.
        let created = world.add_cloth(&desc);
        assert_eq!(created.is_ok(), valid, "weld_tolerance {weld}: {created:?}");
        if let Err(e) = created {
            assert!(e.to_string().contains("`weld_tolerance`"), "{e}");
        }
    }
}

/// The radius derived from the mesh is half the median rest edge, within the declared range even for
/// degenerate inputs (no edges with a zero thickness, kilometre edges).
#[test]
fn a_derived_self_collision_radius_is_half_the_mean_edge_and_a_declared_radius() {
    use crate::cloth::config::mesh_self_collision_radius;
    let Kind::Optional { min, max, .. } = row("self_collision_radius").kind else { panic!("not optional") };
    assert_eq!(mesh_self_collision_radius(&[0.03, 0.01, 0.02, 0.5, 0.02], 0.005), 0.01);
    assert_eq!(mesh_self_collision_radius(&[], 0.005), 0.005);
    assert_eq!(mesh_self_collision_radius(&[], 0.0), min);
    assert_eq!(mesh_self_collision_radius(&[1e3], 0.0), max);
    let on = ClothParams { self_collision: true, self_collision_radius: None, collision_thickness: 0.0, ..ClothParams::default() };
    assert_eq!(on.validate(), Ok(()), "no thickness is needed to derive the radius");
}

#[test]
fn the_table_is_consistent() {
    for (i, p) in CLOTH.iter().enumerate() {
        assert!(CLOTH[..i].iter().all(|q| q.name != p.name), "`{}` twice", p.name);
        for text in [p.name, p.rust, p.unit, p.symbol, p.doc, p.choose, p.rust_doc, p.range_note] {
            assert!(text.is_ascii(), "`{}`: the C header is ASCII: {text}", p.name);
        }
        match p.kind {
            Kind::Override { flag, .. } => assert_eq!(row(flag).kind, Kind::OverrideFlag { value: p.name }),
            Kind::OverrideFlag { value } => assert!(matches!(row(value).kind, Kind::Override { flag, .. } if flag == p.name)),
            Kind::Real { .. } | Kind::Optional { .. } => {
                assert!(!p.unit.is_empty() || !p.symbol.is_empty(), "`{}`: a range needs a unit or a symbol", p.name)
            }
            _ => {}
        }
        assert_eq!(p.place == Place::Mesh, matches!(p.kind, Kind::Raw { .. }), "`{}`", p.name);
    }
    for name in MATERIAL {
        assert_eq!(row(name).place, Place::Settings, "`{name}`");
    }
}
