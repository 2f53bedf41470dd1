//! Debug lines: what the solver sees, as coloured line segments an engine draws with its own
//! debug renderer (docs/design.md, "Debug lines"). [`crate::World::debug_lines`] writes them into
//! caller buffers and returns how many there are in all, so a caller whose buffer was too small
//! learns the size it needs.
//!
//! Per cloth, in slot order: its edges, pins, max distances, backstops, normals and contacts (as
//! the flags ask); then every collider's wire shape. Cloth lines are drawn where the cloth's
//! `read_positions` shows it (interpolated inside a long step of level of detail, blended with the
//! animated pose when `simulation_blend` < 1).

mod cloth;
mod colliders;

pub(crate) use cloth::cloth_lines;
pub(crate) use colliders::collider_lines;

use crate::out::Out;
use glam::Vec3;

/// Every edge (stretch constraint) of every cloth, coloured by its strain: green at rest (and
/// when shorter), through yellow, to red at the cloth's stretch limit (`max_stretch`, or 10 %
/// when the cloth has none).
pub const DEBUG_EDGES: u32 = 1 << 0;
/// Every collider as a wire shape at its current pose: spheres and capsules as circles and lines,
/// boxes as their edges, planes as a 2 m square with its normal, mesh colliders as their mesh's
/// bounding box.
pub const DEBUG_COLLIDERS: u32 = 1 << 1;
/// Every particle touching a collider (within its collision thickness + 1 mm): the collider's
/// normal there, from the particle.
pub const DEBUG_CONTACTS: u32 = 1 << 2;
/// Every pinned (or kinematic) particle: a small cross.
pub const DEBUG_PINS: u32 = 1 << 3;
/// Every particle with a max distance d > 0 from its animated position a: a circle of radius d
/// about a across the animated normal, and the line from a to the particle coloured by how much of
/// d it uses (green → red).
pub const DEBUG_MAX_DISTANCE: u32 = 1 << 4;
/// Every particle with a backstop: the line from its animated position to the backstop sphere's
/// surface along the animated normal, and a cross on that surface.
pub const DEBUG_BACKSTOP: u32 = 1 << 5;
/// Every particle's normal, a median edge long.
pub const DEBUG_NORMALS: u32 = 1 << 6;
/// All of the above.
pub const DEBUG_ALL: u32 = (1 << 7) - 1;

/// An RGBA8 colour packed as red in bits 0–7, green 8–15, blue 16–23, alpha 24–31 (the bytes
/// R, G, B, A in memory on a little-endian machine).
pub const fn rgba(r: u8, g: u8, b: u8, a: u8) -> u32 {
    r as u32 | (g as u32) << 8 | (b as u32) << 16 | (a as u32) << 24
}

/// Colliders' wire shapes.
pub const COLLIDER_COLOUR: u32 = rgba(255, 170, 0, 255);
/// Contact normals.
pub const CONTACT_COLOUR: u32 = rgba(0, 200, 255, 255);
/// Pin crosses.
pub const PIN_COLOUR: u32 = rgba(255, 0, 255, 255);
/// Max-distance circles.
pub const MAX_DISTANCE_COLOUR: u32 = rgba(200, 200, 200, 255);
/// Backstop lines and crosses.
pub const BACKSTOP_COLOUR: u32 = rgba(120, 80, 255, 255);
/// Particle normals.
pub const NORMAL_COLOUR: u32 = rgba(60, 90, 255, 255);

/// The colour of a use `s` of a limit: green at 0 (and below), yellow at ½, red at 1 (and above).
pub fn strain_colour(s: f32) -> u32 {
    let s = if s.is_nan() { 1.0 } else { s.clamp(0.0, 1.0) };
    let r = (2.0 * s).min(1.0);
    let g = (2.0 * (1.0 - s)).min(1.0);
    rgba((r * 255.0).round() as u8, (g * 255.0).round() as u8, 0, 255)
}

/// Where the lines go: the first `lines.len()` are written, every one is counted.
pub(crate) struct Sink<'a> {
    lines: Out<'a, [f32; 6]>,
    colors: Out<'a, u32>,
    count: usize,
}

impl<'a> Sink<'a> {
    /// A sink writing into `lines` and `colors` (of one length).
    pub fn new(lines: Out<'a, [f32; 6]>, colors: Out<'a, u32>) -> Sink<'a> {
        debug_assert_eq!(lines.len(), colors.len());
        Sink { lines, colors, count: 0 }
    }

    /// How many lines were given.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The line from `a` to `b` \[m\] in `color`.
    #[inline]
    pub fn line(&mut self, a: Vec3, b: Vec3, color: u32) {
        if self.count < self.lines.len() {
            self.lines.set(self.count, [a.x, a.y, a.z, b.x, b.y, b.z]);
            self.colors.set(self.count, color);
        }
        self.count += 1;
    }

    /// A circle of `radius` \[m\] about `centre` in the plane of the unit vectors `u`, `v`, as
    /// `segments` lines.
    pub fn circle(&mut self, centre: Vec3, u: Vec3, v: Vec3, radius: f32, segments: u32, color: u32) {
        let at = |k: u32| {
            let a = std::f32::consts::TAU * k as f32 / segments as f32;
            centre + (u * a.cos() + v * a.sin()) * radius
        };
        for k in 0..segments {
            self.line(at(k), at(k + 1), color);
        }
    }

    /// A cross of three lines of half-length `size` \[m\] along `axes` through `centre`.
    pub fn cross(&mut self, centre: Vec3, axes: [Vec3; 3], size: f32, color: u32) {
        for a in axes {
            self.line(centre - a * size, centre + a * size, color);
        }
    }
}

/// Two unit vectors orthogonal to the unit vector `n` and to each other.
pub(crate) fn across(n: Vec3) -> (Vec3, Vec3) {
    let u = n.any_orthonormal_vector();
    (u, n.cross(u))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strain_colours_run_from_green_through_yellow_to_red() {
        assert_eq!(strain_colour(0.0), rgba(0, 255, 0, 255));
        assert_eq!(strain_colour(-0.3), rgba(0, 255, 0, 255));
        assert_eq!(strain_colour(0.5), rgba(255, 255, 0, 255));
        assert_eq!(strain_colour(1.0), rgba(255, 0, 0, 255));
        assert_eq!(strain_colour(7.0), rgba(255, 0, 0, 255));
        assert_eq!(strain_colour(0.25), rgba(128, 255, 0, 255));
        assert_eq!(rgba(1, 2, 3, 4).to_le_bytes(), [1, 2, 3, 4]);
    }

    #[test]
    fn a_full_sink_counts_on_and_keeps_what_fitted() {
        let (mut lines, mut colors) = ([[0.0f32; 6]; 2], [0u32; 2]);
        let mut sink = Sink::new(Out::from(&mut lines), Out::from(&mut colors));
        sink.circle(Vec3::ZERO, Vec3::X, Vec3::Y, 1.0, 4, 7);
        assert_eq!(sink.count(), 4);
        assert_eq!(colors, [7, 7]);
        let start = |l: [f32; 6]| Vec3::new(l[0], l[1], l[2]);
        assert!(start(lines[0]).distance(Vec3::X) < 1e-6 && start(lines[1]).distance(Vec3::Y) < 1e-6);
    }
}
