//! Colliders: sphere, capsule, infinite plane and (rounded) box, each with a pose, a friction
//! pair and collision layers. They live in the [`crate::World`] and every cloth of the world
//! collides with those whose layers intersect its `collision_mask`.
//!
//! - Mesh shapes: `mesh_shape.rs` turns a triangle mesh into a sparse signed distance field,
//!   shared by mesh colliders.
//! - Shapes: one file each with its signed distance d and outward normal ∇d (`sphere.rs`,
//!   `capsule.rs`, `plane.rs`, `cuboid.rs`), behind one interface in `shape.rs`.
//! - Motion: `store.rs` keeps each collider's pose at the end of the last step and its target for
//!   the next; substeps see the pose interpolated between them (lerp + slerp).
//! - Contact and friction: `contact.rs` — the inequality C = d − thickness ≥ 0, the march of each
//!   particle's substep motion that stops fast particles at thin shapes, the bounded push-out of
//!   particles that start inside, and Macklin et al. 2014 position-level static/kinetic friction
//!   relative to the collider's own motion.
//! - Self-collision: `self_collision.rs` — particle–particle inequality ‖x_i − x_j‖ ≥ 2r inside a
//!   cloth with the same friction model, candidate pairs found once per step by the hash grid of
//!   `spatial_hash.rs`.
//! - Inter-cloth collision: `inter_cloth.rs` — the same inequality between particles of different
//!   cloths of a world, against a snapshot of the others taken before the (parallel) step.

mod capsule;
pub(crate) mod contact;
pub(crate) mod edge_contact;
mod cuboid;
mod desc;
pub(crate) mod mesh_shape;
pub(crate) mod inter_cloth;
mod plane;
pub(crate) mod self_collision;
pub(crate) mod shape;
mod spatial_hash;
mod sphere;
mod store;

pub use contact::{MAX_SWEEP_STEPS, SWEEP_TOLERANCE, TOUCHING_FRACTION};
pub use self_collision::SELF_TOUCHING_FRACTION;
pub use desc::{ColliderDesc, ColliderKind, MAX_COLLIDER_COORDINATE, MAX_COLLIDER_SIZE, Pose};
pub use mesh_shape::{AUTO_CELLS_PER_DIAGONAL, BAND_CELLS, BRICK, MAX_CELL_SIZE, MAX_MESH_SHAPE_BYTES, MAX_MESH_SHAPE_TRIANGLES, MeshShape, MeshShapeDesc, MeshShapeReport};
pub(crate) use mesh_shape::MeshShapeBuild;
pub(crate) use shape::Shape;
pub use store::{Collider, ColliderHandle, MeshShapeHandle};
pub(crate) use store::{Carry, ColliderStore, SubstepWindow};
