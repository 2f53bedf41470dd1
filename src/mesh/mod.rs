//! Render mesh → simulation mesh: validation, welding of split vertices, repairs (duplicate
//! triangles, winding) and topology (unique edges, bending hinges, adjacency).

pub(crate) mod adjacency;
mod orient;
mod particle_triangles;
mod topology;
mod validate;
mod weld;

pub use orient::{Repairs, repair};
pub(crate) use particle_triangles::ParticleTriangles;
pub use topology::{Hinge, MeshTopology};
pub use validate::{MAX_COORDINATE, MAX_VERTICES, is_valid_point, validate_indices, validate_lines, validate_positions, validate_triangle_areas};
pub use weld::{WeldResult, weld_by_position};
