//! The world and collider rows of docs/parameters.md (declared in build/doc_tables.rs) against
//! the code they describe: every C field has a row, in the struct's order; every default is the
//! C default; every bound is accepted and the values just outside it are rejected through the C
//! API, with a message naming the field. The cloth rows need no such test: the cloth's structs,
//! defaults and checks are generated from its table (src/cloth/desc/table_tests.rs tests them).

#[allow(dead_code)]
#[path = "../src/cloth/desc/spec.rs"]
mod spec;
#[path = "../build/doc_tables.rs"]
mod doc_tables;

use doc_tables::{COLLIDER, WORLD};
use spec::{Kind, Param, Value};
use xpbd_cloth::WorldDesc;
use xpbd_cloth::ffi::*;

/// A C field found by name.
enum Field<'a> {
    F32(&'a mut f32),
    U32(&'a mut u32),
    Vec3(&'a mut [f32; 3]),
    Vec4(&'a mut [f32; 4]),
    /// A mesh shape id: no probes (its checks need a live shape; tests/mesh_colliders.rs).
    MeshShape(&'a mut XpbdMeshShapeId),
}

impl Field<'_> {
    fn address(&self) -> usize {
        match self {
            Field::F32(f) => &raw const **f as usize,
            Field::U32(f) => &raw const **f as usize,
            Field::Vec3(f) => &raw const **f as usize,
            Field::Vec4(f) => &raw const **f as usize,
            Field::MeshShape(f) => &raw const **f as usize,
        }
    }

    fn value(&self) -> Value {
        match self {
            Field::F32(f) => Value::F32(**f),
            Field::U32(f) => Value::U32(**f),
            Field::Vec3(f) => Value::Vec3(**f),
            Field::Vec4(f) => Value::Vec4(**f),
            Field::MeshShape(f) if f.id == 0 => Value::Null,
            Field::MeshShape(f) => Value::U32(f.id as u32),
        }
    }

    /// Set the field (one component of a vector: the others keep theirs).
    fn set(self, value: Value, component: usize) {
        match (self, value) {
            (Field::F32(f), Value::F32(v)) => *f = v,
            (Field::U32(f), Value::U32(v)) => *f = v,
            (Field::Vec3(f), Value::F32(v)) => f[component] = v,
            (Field::Vec4(f), Value::F32(v)) => f[component] = v,
            (_, value) => panic!("{value:?} does not fit the field"),
        }
    }
}

fn world_field<'a>(d: &'a mut XpbdWorldDesc, name: &str) -> Field<'a> {
    match name {
        "gravity" => Field::Vec3(&mut d.gravity),
        "substeps" => Field::U32(&mut d.substeps),
        "iterations" => Field::U32(&mut d.iterations),
        "thread_count" => Field::U32(&mut d.thread_count),
        _ => panic!("XpbdWorldDesc has no field `{name}`"),
    }
}

fn collider_field<'a>(d: &'a mut XpbdColliderDesc, name: &str) -> Field<'a> {
    match name {
        "kind" => Field::U32(&mut d.kind),
        "radius" => Field::F32(&mut d.radius),
        "half_height" => Field::F32(&mut d.half_height),
        "half_extents" => Field::Vec3(&mut d.half_extents),
        "position" => Field::Vec3(&mut d.position),
        "rotation" => Field::Vec4(&mut d.rotation),
        "static_friction" => Field::F32(&mut d.static_friction),
        "kinetic_friction" => Field::F32(&mut d.kinetic_friction),
        "layers" => Field::U32(&mut d.layers),
        "mesh_shape" => Field::MeshShape(&mut d.mesh_shape),
        _ => panic!("XpbdColliderDesc has no field `{name}`"),
    }
}

fn c_size(p: &Param) -> usize {
    match p.c_type() {
        "f32" | "u32" => 4,
        "[f32; 3]" => 12,
        "[f32; 4]" => 16,
        "XpbdMeshShapeId" => 8,
        other => panic!("`{}`: unexpected C type {other}", p.name),
    }
}

/// The rows cover the struct exactly: each row's field lies where the rows before it end, and the
/// rows end where the struct does. A C field without a row, or rows out of order, fail here.
fn assert_rows_cover<T>(rows: &[Param], desc: &mut T, field: impl for<'a> Fn(&'a mut T, &str) -> Field<'a>) {
    let base = &raw const *desc as usize;
    let mut offset = 0;
    for p in rows {
        assert_eq!(field(desc, p.name).address() - base, offset, "`{}` is not where the rows before it end", p.name);
        offset += c_size(p);
    }
    assert_eq!(offset, size_of::<T>(), "the struct has fields without a row");
}

/// Values with the component they probe.
type Probes = Vec<(Value, usize)>;

/// Values at the row's bounds (accepted) and just outside them (rejected), per component.
fn probes(p: &Param) -> (Probes, Probes) {
    let components = match p.kind {
        Kind::Vec3 { .. } => 3,
        _ => 1,
    };
    let mut inside = Vec::new();
    let mut outside = Vec::new();
    for c in 0..components {
        match p.kind {
            Kind::Real { min, max } | Kind::Vec3 { min, max } => {
                inside.extend([min, max].map(|v| (Value::F32(v), c)));
                outside.extend([min.next_down(), max.next_up(), f32::NAN].map(|v| (Value::F32(v), c)));
            }
            Kind::Count { min, max, .. } => {
                inside.extend([min, max].map(|v| (Value::U32(v), c)));
                outside.push((Value::U32(max + 1), c));
                if min > 0 {
                    outside.push((Value::U32(min - 1), c));
                }
            }
            Kind::Enum { variants, .. } => {
                inside.extend((0..variants.len() as u32).map(|v| (Value::U32(v), c)));
                outside.extend([variants.len() as u32, u32::MAX].map(|v| (Value::U32(v), c)));
            }
            Kind::Bits => inside.extend([0, 0x5555_5555, u32::MAX].map(|v| (Value::U32(v), c))),
            // The length of (0, 0, 0, w) is |w|.
            Kind::Quat { tolerance } => {
                inside.extend([1.0 - tolerance / 2.0, 1.0 + tolerance / 2.0].map(|w| (Value::F32(w), 3)));
                outside.extend([1.0 - 2.0 * tolerance, 1.0 + 2.0 * tolerance, f32::NAN].map(|w| (Value::F32(w), 3)));
            }
            _ => panic!("`{}`: no probe for {:?}", p.name, p.kind),
        }
    }
    (inside, outside)
}

#[test]
fn the_world_rows_are_the_world_desc() {
    let mut desc = xpbd_default_world_desc();
    assert_rows_cover(WORLD, &mut desc, world_field);
    assert_eq!(WorldDesc::from(&desc), WorldDesc::default());
    for p in WORLD {
        assert_eq!(world_field(&mut desc, p.name).value(), p.default, "default of `{}`", p.name);
        let (inside, outside) = probes(p);
        for (value, component) in inside {
            let mut d = xpbd_default_world_desc();
            world_field(&mut d, p.name).set(value, component);
            // What `xpbd_world_create` checks, without starting up to 256 threads per probe.
            assert_eq!(WorldDesc::from(&d).validate(), Ok(()), "`{}` = {value:?}", p.name);
        }
        for (value, component) in outside {
            let mut d = xpbd_default_world_desc();
            world_field(&mut d, p.name).set(value, component);
            let error = WorldDesc::from(&d).validate().expect_err(&format!("`{}` = {value:?} accepted", p.name));
            assert!(error.to_string().contains(&format!("`{}`", p.name)), "{error}");
        }
    }
}

fn last_message() -> String {
    let mut buf = [0 as std::ffi::c_char; 512];
    // SAFETY: `buf` is writable for its length.
    unsafe { xpbd_last_error_message(buf.as_mut_ptr(), buf.len()) };
    // SAFETY: the library NUL-terminates what it writes.
    unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned()
}

/// `xpbd_collider_create`'s answer to `desc`: Ok, or the error message. A created collider is
/// destroyed again.
fn create_collider(world: XpbdWorldId, desc: &XpbdColliderDesc) -> Result<(), String> {
    let mut id = XpbdColliderId { id: 0 };
    // SAFETY: `desc` and `id` are valid for the call.
    match unsafe { xpbd_collider_create(world, desc, &mut id) } {
        XpbdResult::Ok => {
            assert_eq!(xpbd_collider_destroy(id), XpbdResult::Ok);
            Ok(())
        }
        XpbdResult::InvalidArgument => Err(last_message()),
        other => panic!("{other:?}: {}", last_message()),
    }
}

/// The default shape of the kind that uses field `name` (`xpbd_default_collider_desc_for`).
fn collider_using(name: &str) -> XpbdColliderDesc {
    let kind = match name {
        "half_height" => XpbdColliderKind::Capsule,
        "half_extents" => XpbdColliderKind::Box,
        _ => XpbdColliderKind::Sphere,
    };
    xpbd_default_collider_desc_for(kind as u32)
}

#[test]
fn the_collider_rows_are_the_collider_desc() {
    let mut desc = xpbd_default_collider_desc();
    assert_rows_cover(COLLIDER, &mut desc, collider_field);
    let mut world = XpbdWorldId { id: 0 };
    let world_desc = XpbdWorldDesc { thread_count: 1, ..xpbd_default_world_desc() };
    // SAFETY: both point to valid values for the call.
    assert_eq!(unsafe { xpbd_world_create(&world_desc, &mut world) }, XpbdResult::Ok);
    for p in COLLIDER {
        assert_eq!(collider_field(&mut desc, p.name).value(), p.default, "default of `{}`", p.name);
        if matches!(p.kind, Kind::Raw { .. }) {
            continue;
        }
        let (inside, outside) = probes(p);
        for (value, component) in inside {
            // A mesh collider needs a mesh shape: tests/mesh_colliders.rs creates them.
            if (p.name, value) == ("kind", Value::U32(XpbdColliderKind::Mesh as u32)) {
                continue;
            }
            // Every kind, with the dimensions of its own defaults.
            let mut d = match (p.name, value) {
                ("kind", Value::U32(kind)) => xpbd_default_collider_desc_for(kind),
                _ => collider_using(p.name),
            };
            collider_field(&mut d, p.name).set(value, component);
            assert_eq!(create_collider(world, &d), Ok(()), "`{}` = {value:?}", p.name);
        }
        for (value, component) in outside {
            let mut d = collider_using(p.name);
            collider_field(&mut d, p.name).set(value, component);
            let message = create_collider(world, &d).expect_err(&format!("`{}` = {value:?} accepted", p.name));
            assert!(message.contains(&format!("`{}`", p.name)), "{message}");
        }
    }
    // The range note of `radius`: a box's rounding is at most its smallest half extent.
    let rounded = XpbdColliderDesc { half_extents: [0.5, 0.25, 0.375], ..collider_using("half_extents") };
    for (radius, valid) in [(0.0, true), (0.25, true), (0.25f32.next_up(), false), (1e-6, true), (-1e-6, false)] {
        let result = create_collider(world, &XpbdColliderDesc { radius, ..rounded });
        assert_eq!(result.is_ok(), valid, "box rounding {radius}: {result:?}");
    }
    assert_eq!(xpbd_world_destroy(world), XpbdResult::Ok);
}
