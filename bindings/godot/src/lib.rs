//! # xpbd_cloth_godot
//!
//! The Godot 4 GDExtension bridge of xpbd_cloth: registers the `XpbdCloth3D` node (see
//! `bindings/godot/README.md`). The core crate is linked directly (no C round trip).
//!
//! [`convert`] holds the pure-Rust conversions (surface arrays, winding and normals, the vertex
//! buffer, inspector parameters, pins, collision shapes) and builds without Godot; the node itself
//! is behind the default `godot` feature.
#![warn(missing_docs)]

pub mod convert;

#[cfg(feature = "godot")]
mod node;
