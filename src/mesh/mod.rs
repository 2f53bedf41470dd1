//! Render mesh → simulation mesh: validation, welding of split vertices, and topology
//! (unique edges, bending hinges, adjacency).

pub(crate) mod adjacency;
mod topology;
mod validate;
mod weld;

pub use topology::{Hinge, MeshTopology};
pub use validate::{MAX_COORDINATE, MAX_VERTICES, is_valid_point, validate_indices, validate_lines, validate_positions, validate_triangle_areas};
pub use weld::{WeldResult, weld_by_position};
