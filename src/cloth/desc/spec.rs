//! What a parameter declaration is: one row of the tables in `table.rs` (cloth) and
//! `build/doc_tables.rs` (world, collider), and the texts every generated place shares (range,
//! default, unit).
//!
//! This file is compiled three times: into the crate, into `build.rs` (which generates the C
//! structs, conversions, defaults, range checks and `docs/parameters.md` from the tables) and into
//! `tests/parameter_docs.rs`. It therefore names nothing outside itself.

/// One parameter, declared once.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    /// The C field name, which is also the name every error message reports.
    pub name: &'static str,
    /// Path of the field in the Rust struct (`ClothParams`, `ClothDesc`, `WorldDesc`,
    /// `ColliderDesc`) when it differs from `name`: "material.areal_density", "self_collision".
    pub rust: &'static str,
    /// Which structs hold it.
    pub place: Place,
    /// Its C type, its Rust type, the translation between them and what is valid.
    pub kind: Kind,
    /// The default, as the C struct holds it.
    pub default: Value,
    /// SI unit in ASCII ("kg/m^2", "rad/(N*m)"); empty when dimensionless.
    pub unit: &'static str,
    /// The quantity's symbol, used in the range of a dimensionless value ("nu", "C_D").
    pub symbol: &'static str,
    /// What it means, in one or two sentences (no unit, range or default: those are generated).
    pub doc: &'static str,
    /// How to choose a value, where that needs saying; empty otherwise.
    pub choose: &'static str,
    /// A sentence for the Rust docs only (intra-doc links); empty otherwise.
    pub rust_doc: &'static str,
    /// Said after the range where the checked range alone would mislead (kind-dependent fields).
    pub range_note: &'static str,
}

/// The row every declaration starts from (`..BLANK`), so a row names only what it uses.
pub const BLANK: Param = Param {
    name: "",
    rust: "",
    place: Place::Settings,
    kind: Kind::Bits,
    default: Value::U32(0),
    unit: "",
    symbol: "",
    doc: "",
    choose: "",
    rust_doc: "",
    range_note: "",
};

/// Which structs a cloth field is part of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// A setting that may change after creation: `XpbdClothDesc`, `XpbdClothParams`, `ClothParams`.
    Settings,
    /// A setting fixed at creation: `XpbdClothDesc` and `ClothDesc`.
    Creation,
    /// A mesh input of `XpbdClothDesc` (pointer or count), translated by hand in `xpbd_cloth_create`.
    Mesh,
}

/// The C and Rust types of a field, how one becomes the other, and what is valid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// `float` = `f32`, finite and within `[min, max]`. `min` = `f32::MIN_POSITIVE` reads "> 0",
    /// `max` = `f32::MAX` reads "no upper bound".
    Real { min: f32, max: f32 },
    /// `float[3]` = `[f32; 3]`, each component as `Real`.
    Vec3 { min: f32, max: f32 },
    /// `uint32_t` = `u32` within `min..=max`; `zero` says what 0 means, if anything.
    Count { min: u32, max: u32, zero: &'static str },
    /// `uint32_t` = `u32` bit mask: every value is valid.
    Bits,
    /// `uint32_t` 0 or 1 = `bool`.
    Flag,
    /// `float` = `Option<f32>`: 0 is `None` (which means `zero`), anything else is checked as `Real`.
    Optional { min: f32, max: f32, zero: &'static str },
    /// `float` = `Option<f32>` together with the flag field `flag`: flag 1 is `None` (derived
    /// from the material) and needs the value 0; flag 0 uses the value, checked as `Real`.
    Override { min: f32, max: f32, flag: &'static str },
    /// The flag half of an `Override`: no Rust field of its own.
    OverrideFlag { value: &'static str },
    /// `uint32_t` = the Rust enum `rust`, value i = `variants[i]` (also the variant of the C enum `c`).
    Enum { rust: &'static str, c: &'static str, variants: &'static [&'static str] },
    /// `float[4]` unit quaternion (x, y, z, w), length within `tolerance` of 1.
    Quat { tolerance: f32 },
    /// A mesh input, C type as Rust spells it (`*const f32`); checked where it is read.
    Raw { c_type: &'static str },
}

/// A value as the C struct holds it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    F32(f32),
    U32(u32),
    Vec3([f32; 3]),
    Vec4([f32; 4]),
    Null,
}

impl Param {
    /// The Rust field path (`rust`, else `name`).
    pub fn rust_path(&self) -> &'static str {
        if self.rust.is_empty() { self.name } else { self.rust }
    }

    /// The C type as Rust spells it in a `#[repr(C)]` struct.
    pub fn c_type(&self) -> &'static str {
        match self.kind {
            Kind::Real { .. } | Kind::Optional { .. } | Kind::Override { .. } => "f32",
            Kind::Vec3 { .. } => "[f32; 3]",
            Kind::Quat { .. } => "[f32; 4]",
            Kind::Count { .. } | Kind::Bits | Kind::Flag | Kind::OverrideFlag { .. } | Kind::Enum { .. } => "u32",
            Kind::Raw { c_type } => c_type,
        }
    }

    /// The Rust type of the field, or `None` for the fields that have none of their own.
    pub fn rust_type(&self) -> Option<&'static str> {
        match self.kind {
            Kind::Real { .. } => Some("f32"),
            Kind::Vec3 { .. } => Some("[f32; 3]"),
            Kind::Quat { .. } => Some("[f32; 4]"),
            Kind::Count { .. } | Kind::Bits => Some("u32"),
            Kind::Flag => Some("bool"),
            Kind::Optional { .. } | Kind::Override { .. } => Some("Option<f32>"),
            Kind::Enum { rust, .. } => Some(rust),
            Kind::OverrideFlag { .. } | Kind::Raw { .. } => None,
        }
    }

    /// The checked bounds of a float field (`Real`, `Vec3`, `Optional`, `Override`).
    pub fn real_bounds(&self) -> Option<(f32, f32)> {
        match self.kind {
            Kind::Real { min, max } | Kind::Vec3 { min, max } => Some((min, max)),
            Kind::Optional { min, max, .. } | Kind::Override { min, max, .. } => Some((min, max)),
            _ => None,
        }
    }

    /// What the range of a dimensioned value is written in: its unit, else its symbol, else "x".
    fn variable(&self) -> &'static str {
        match (self.unit, self.symbol) {
            ("", "") => "x",
            ("", symbol) => symbol,
            (unit, _) => unit,
        }
    }

    /// What a check accepts, as the error message says it: "0 <= m/N <= 1e20", "1..=1000".
    /// For `Optional` and `Override` this is the range of a value that is used.
    pub fn expected(&self) -> String {
        match self.kind {
            Kind::Real { min, max } | Kind::Optional { min, max, .. } | Kind::Override { min, max, .. } => {
                real_range(min, max, self.variable())
            }
            Kind::Vec3 { min, max } => format!("{} each", real_range(min, max, self.variable())),
            Kind::Count { min, max, zero: "" } => format!("{min}..={max}"),
            Kind::Count { min, max, zero } => format!("{min}..={max} (0 = {zero})"),
            Kind::Bits => "any".to_string(),
            Kind::Flag | Kind::OverrideFlag { .. } => "0 or 1".to_string(),
            Kind::Enum { variants, .. } => enum_values(variants),
            Kind::Quat { tolerance } => {
                format!("unit quaternion (x, y, z, w), 1 - {t} <= |q| <= 1 + {t}", t = num(tolerance))
            }
            Kind::Raw { .. } => String::new(),
        }
    }

    /// The valid values as the documentation lists them: `expected` plus what 0 means for an
    /// `Optional`, and the range note.
    pub fn range_text(&self) -> String {
        let range = match self.kind {
            Kind::Optional { zero, .. } => format!("0 (= {zero}) or {}", self.expected()),
            _ => self.expected(),
        };
        if self.range_note.is_empty() { range } else { format!("{range} ({})", self.range_note) }
    }

    /// The default as C sees it: "0.15", "(0, -9.81, 0)", "0xFFFFFFFF", "0 (last good state)".
    pub fn default_text(&self) -> String {
        match (self.kind, self.default) {
            (Kind::Bits, Value::U32(v)) if v > 0xFFFF => format!("{v:#X}").replace("0X", "0x"),
            (Kind::Enum { variants, .. }, Value::U32(v)) => format!("{v} ({})", words(variants[v as usize])),
            (Kind::Optional { zero, .. }, Value::F32(0.0)) => format!("0 (= {zero})"),
            (_, value) => value_text(value),
        }
    }

    /// The default as Rust sees it (`None`, `true`, `UnstableRecovery::LastGoodState`, numbers).
    pub fn rust_default_text(&self) -> String {
        match (self.kind, self.default) {
            (Kind::Flag, Value::U32(v)) => (v == 1).to_string(),
            (Kind::Optional { .. }, Value::F32(0.0)) => "None".to_string(),
            (Kind::Enum { rust, variants, .. }, Value::U32(v)) => format!("{rust}::{}", variants[v as usize]),
            _ => self.default_text(),
        }
    }
}

/// "0 <= m/N <= 1e20", "0 < kg/m^2 <= 1e6", "N*s/m >= 0".
fn real_range(min: f32, max: f32, var: &str) -> String {
    match (min == f32::MIN_POSITIVE, max == f32::MAX) {
        (true, true) => format!("{var} > 0"),
        (true, false) => format!("0 < {var} <= {}", num(max)),
        (false, true) => format!("{var} >= {}", num(min)),
        (false, false) => format!("{} <= {var} <= {}", num(min), num(max)),
    }
}

/// "0 (last good state), 1 (rest pose) or 2 (disabled)".
pub fn enum_values(variants: &[&str]) -> String {
    let items: Vec<String> = variants.iter().enumerate().map(|(i, v)| format!("{i} ({})", words(v))).collect();
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => items.join(""),
    }
}

/// `LastGoodState` → "last good state".
pub fn words(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push(' ');
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// A value in the documentation's notation.
pub fn value_text(value: Value) -> String {
    let list = |v: &[f32]| format!("({})", v.iter().map(|&c| num(c)).collect::<Vec<_>>().join(", "));
    match value {
        Value::F32(v) => num(v),
        Value::U32(v) => v.to_string(),
        Value::Vec3(v) => list(&v),
        Value::Vec4(v) => list(&v),
        Value::Null => "NULL".to_string(),
    }
}

/// A number as people write it: plain between 1e-3 and 1e4 ("0.15", "1000"), else with an
/// exponent ("1e20", "5e-4"). Always the exact `f32` when read back.
pub fn num(v: f32) -> String {
    if v == 0.0 {
        return "0".to_string();
    }
    let text = if (1e-3..1e4).contains(&v.abs()) { format!("{v}") } else { format!("{v:e}") };
    debug_assert_eq!(text.parse::<f32>(), Ok(v));
    text
}
