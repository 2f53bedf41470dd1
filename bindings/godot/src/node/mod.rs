//! The Godot side: the GDExtension entry point and the `XpbdCloth3D` node. Everything here is
//! translation (Godot objects ↔ plain arrays) around [`crate::convert`] and the core.

// Godot's `real` is f32 in standard builds and f64 with the `double-precision` feature: the
// `as f32` casts are needed in the second case and no-ops in the first.
#![allow(clippy::unnecessary_cast)]

mod cloth3d;
mod colliders;
mod skeleton_link;
mod surface_link;

use crate::convert::surface::affine_from_rows;
use godot::builtin::Transform3D;
use godot::prelude::{ExtensionLibrary, gdextension};

/// The extension library; Godot finds it through `entry_symbol = "gdext_rust_init"` in
/// `xpbd_cloth.gdextension`.
struct XpbdClothExtension;

// SAFETY: the `gdextension` macro emits the one `gdext_rust_init` entry point Godot calls; no
// other code in this library defines it.
#[gdextension]
unsafe impl ExtensionLibrary for XpbdClothExtension {}

/// A Godot transform as the glam affine map the conversions use ([`affine_from_rows`]).
fn to_affine(t: &Transform3D) -> glam::Affine3A {
    let v = |v: godot::builtin::Vector3| [v.x as f32, v.y as f32, v.z as f32];
    affine_from_rows(t.basis.rows.map(v), v(t.origin))
}
