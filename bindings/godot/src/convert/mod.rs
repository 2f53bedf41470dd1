//! Everything between Godot's data and the core that needs no Godot: plain arrays and transforms
//! in, core descriptors and vertex bytes out. Unit-tested with `cargo test --no-default-features`.

pub mod debug_lines;
pub mod limits;
pub mod params;
pub mod pins;
pub mod shapes;
pub mod skin;
pub mod surface;
pub mod torn;
pub mod vertex_buffer;
