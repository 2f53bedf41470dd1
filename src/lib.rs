//! # xpbd_cloth
//!
//! Cloth simulation with Extended Position Based Dynamics (XPBD, Macklin, Müller & Chentanez 2016)
//! and Small Steps (Macklin et al. 2019), built to be embedded in game engines through a C ABI.
//!
//! ```
//! use xpbd_cloth::{World, WorldDesc, ClothDesc};
//! // A 1 m square of two triangles, pinned at one corner.
//! let positions = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0]];
//! let indices = [0, 2, 1, 1, 2, 3];
//! let mut world = World::new(WorldDesc::default()).unwrap();
//! let cloth = world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
//! world.cloth_mut(cloth).unwrap().set_pinned(&[0], None).unwrap();
//! for _ in 0..30 {
//!     world.step(1.0 / 60.0).unwrap(); // half a second: the sheet swings down like a pendulum
//! }
//! let mut out = [[0.0f32; 3]; 4];
//! world.cloth(cloth).unwrap().read_positions(&mut out).unwrap();
//! assert_eq!(out[0], [0.0, 0.0, 0.0]); // the pinned corner stays
//! assert!(out[3][1] < -0.5); // the free corner has swung down
//! ```
//!
//! Units are SI throughout: metres, seconds, kilograms; compliance α is inverse stiffness
//! (m/N for distances, rad/(N·m) for bending angles).
#![warn(missing_docs)]
// `!(x > 0.0)` and the like are how this crate rejects NaN together with out-of-range values.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

pub mod cloth;
pub mod collision;
pub mod debug_lines;
pub(crate) mod constraints;
pub mod error;
pub mod ffi;
mod fp_env;
mod handle;
pub mod material;
pub mod mesh;
mod out;
mod parallel;
pub mod render_proxy;
#[cfg(test)]
mod reference;
mod slot_map;
mod solver;
pub mod stats;
#[cfg(test)]
mod test_util;
pub mod world;
pub mod shared_world;
mod worker_pool;

pub use cloth::{
    Closure, Cloth, ClothDesc, ClothParams, ClothReads, ClothStatus, Energy, Instability, InstabilityKind, MeshInfo, RenderCounts,
    SnapshotProblem, UnstableRecovery, VertexLayout,
};
pub use collision::{Collider, ColliderDesc, ColliderHandle, ColliderKind, MeshShape, MeshShapeDesc, MeshShapeHandle, MeshShapeReport, Pose};
pub use cloth::skin::SkinDesc;
pub use error::ClothError;
pub use glam::Vec3;
pub use material::Material;
pub use out::Out;
pub use render_proxy::{RenderProxy, RenderProxyDesc, RenderProxyHandle};
pub use stats::{ClothStats, ConstraintStats};
pub use world::{Advance, ClothHandle, MeshShapeStatus, World, WorldDesc};
pub use shared_world::SharedWorld;
