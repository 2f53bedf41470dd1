//! Which render vertices are pinned, and where their targets are each tick.
//!
//! Three sources, combined: a vertex-colour channel above a threshold, an explicit vertex list,
//! and attached Node3Ds (each holds the vertex nearest to it). Every pin is an [`AnchoredPin`]:
//! a vertex fixed in the frame of some node (the mesh instance itself for colour and list pins, the
//! attached node for node pins), so that moving or rotating that node carries the pin along.

use glam::{Affine3A, Vec3};
use std::fmt;

/// A colour channel of Godot's `ARRAY_COLOR` (`Color`, each channel in [0, 1]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChannel {
    /// Red.
    Red = 0,
    /// Green.
    Green = 1,
    /// Blue.
    Blue = 2,
    /// Alpha.
    Alpha = 3,
}

impl ColorChannel {
    /// The channel with this inspector index (0 red … 3 alpha), `None` otherwise.
    pub fn from_index(index: i64) -> Option<Self> {
        [ColorChannel::Red, ColorChannel::Green, ColorChannel::Blue, ColorChannel::Alpha].get(usize::try_from(index).ok()?).copied()
    }
}

/// A pin list entry that names no vertex of the surface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PinIndexError {
    /// Position in the list.
    pub position: usize,
    /// The value found there.
    pub value: i64,
    /// Vertices in the surface.
    pub vertex_count: usize,
}

impl fmt::Display for PinIndexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "pinned_vertices[{}] = {} is not a vertex of the surface (0..{})",
            self.position, self.value, self.vertex_count
        )
    }
}

impl std::error::Error for PinIndexError {}

/// Vertices whose `channel` is at least `threshold` in `colors` (`[r, g, b, a] × vertex_count`).
/// A threshold above 1 selects nothing (colours are in [0, 1]), so it also switches this off.
pub fn by_color(colors: &[[f32; 4]], channel: ColorChannel, threshold: f32) -> Vec<u32> {
    (0..colors.len() as u32).filter(|&v| colors[v as usize][channel as usize] >= threshold).collect()
}

/// The explicit list checked against `vertex_count`. Errors: the first entry out of range.
pub fn by_list(list: &[i64], vertex_count: usize) -> Result<Vec<u32>, PinIndexError> {
    list.iter()
        .enumerate()
        .map(|(position, &value)| match u32::try_from(value) {
            Ok(v) if (v as usize) < vertex_count => Ok(v),
            _ => Err(PinIndexError { position, value, vertex_count }),
        })
        .collect()
}

/// The vertex of `positions` [m] nearest to `point` [m] (lowest index on ties); `None` if empty.
pub fn nearest_vertex(positions: &[[f32; 3]], point: Vec3) -> Option<u32> {
    let d = |v: &[f32; 3]| Vec3::from_array(*v).distance_squared(point);
    (0..positions.len() as u32).min_by(|&a, &b| d(&positions[a as usize]).total_cmp(&d(&positions[b as usize])))
}

/// Sorted, without repeats: a vertex selected twice is pinned once.
pub fn merge(mut vertices: Vec<u32>) -> Vec<u32> {
    vertices.sort_unstable();
    vertices.dedup();
    vertices
}

/// A render vertex held at a fixed point of a node's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnchoredPin {
    /// Render vertex index.
    pub vertex: u32,
    /// The vertex's position in the anchor node's local frame [m].
    pub local: Vec3,
}

impl AnchoredPin {
    /// Pin `vertex`, now at `world` [m], to a node now at `anchor` (local → world).
    /// `None` when the anchor's transform cannot be inverted (zero scale).
    pub fn attach(vertex: u32, world: Vec3, anchor: &Affine3A) -> Option<Self> {
        let det = anchor.matrix3.determinant();
        (det.is_finite() && det != 0.0).then(|| AnchoredPin { vertex, local: anchor.inverse().transform_point3(world) })
    }

    /// Where the vertex must be [m] when the anchor is at `anchor`.
    pub fn target(&self, anchor: &Affine3A) -> [f32; 3] {
        anchor.transform_point3(self.local).to_array()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;
    use std::f32::consts::FRAC_PI_2;

    #[test]
    fn colour_channel_threshold_selects_painted_vertices() {
        let colors = [[1.0, 0.0, 0.0, 1.0], [0.2, 0.9, 0.0, 1.0], [0.5, 0.5, 0.0, 0.0], [0.49, 0.0, 0.0, 1.0]];
        assert_eq!(by_color(&colors, ColorChannel::Red, 0.5), vec![0, 2]);
        assert_eq!(by_color(&colors, ColorChannel::Green, 0.5), vec![1, 2]);
        assert_eq!(by_color(&colors, ColorChannel::Alpha, 0.5), vec![0, 1, 3]);
        assert_eq!(by_color(&colors, ColorChannel::Red, 1.01), Vec::<u32>::new());
        assert_eq!(ColorChannel::from_index(2), Some(ColorChannel::Blue));
        assert_eq!(ColorChannel::from_index(4), None);
        assert_eq!(ColorChannel::from_index(-1), None);
    }

    #[test]
    fn list_entries_outside_the_surface_are_named() {
        assert_eq!(by_list(&[3, 0, 3], 4), Ok(vec![3, 0, 3]));
        assert_eq!(by_list(&[0, 4], 4), Err(PinIndexError { position: 1, value: 4, vertex_count: 4 }));
        assert_eq!(by_list(&[-1], 4), Err(PinIndexError { position: 0, value: -1, vertex_count: 4 }));
        assert_eq!(merge(vec![3, 0, 3, 1]), vec![0, 1, 3]);
    }

    #[test]
    fn nearest_vertex_to_an_attached_node() {
        let p = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0]];
        assert_eq!(nearest_vertex(&p, Vec3::new(0.9, 0.3, 0.8)), Some(3));
        assert_eq!(nearest_vertex(&p, Vec3::new(0.5, 0.0, -5.0)), Some(0)); // tie: lowest index
        assert_eq!(nearest_vertex(&[], Vec3::ZERO), None);
    }

    #[test]
    fn anchored_pin_follows_its_node_rotation_and_translation() {
        let anchor = Affine3A::from_translation(Vec3::new(0.0, 2.0, 0.0));
        let pin = AnchoredPin::attach(7, Vec3::new(1.0, 2.0, 0.0), &anchor).unwrap();
        assert_eq!(pin.local, Vec3::X);
        assert_eq!(pin.target(&anchor), [1.0, 2.0, 0.0]);
        // Quarter turn about +Y (right-handed): local +X goes to world −Z.
        let turned = Affine3A::from_rotation_translation(Quat::from_rotation_y(FRAC_PI_2), Vec3::new(5.0, 2.0, 0.0));
        let t = Vec3::from_array(pin.target(&turned));
        assert!((t - Vec3::new(5.0, 2.0, -1.0)).length() < 1e-6, "{t}");
        assert_eq!(AnchoredPin::attach(0, Vec3::ZERO, &Affine3A::from_scale(Vec3::ZERO)), None);
    }
}
