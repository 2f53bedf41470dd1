//! What an engine's frame loop reads and writes between steps: positions and normals interpolated
//! between the last two step states, interleaved vertex buffers, bounds, and particle writes.
//!
//! Every step first copies the state it starts from into `ClothOutput::previous_x` /
//! `previous_normals` ([`Cloth::record_previous`]); a read at `alpha` returns
//! `(1 − alpha)·previous + alpha·current` per component (alpha 0 and 1 exactly the two states, and
//! the current position itself for a particle whose two states are equal).
//! Whatever moves a cloth discontinuously (teleport, snapshot restore, guard recovery) makes both
//! states the current one ([`Cloth::reset_interpolation`]), so no read draws it between two places.

use super::Cloth;
use crate::error::ClothError;
use crate::out::Out;
use glam::Vec3;

/// Where positions and normals go in an interleaved vertex buffer (all in bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexLayout {
    /// Bytes from one vertex to the next, ≥ 12.
    pub stride: usize,
    /// Byte offset of the position (3 × f32, metres) in a vertex; `None` = not written.
    pub position_offset: Option<usize>,
    /// Byte offset of the normal (3 × f32) in a vertex; `None` = not written.
    pub normal_offset: Option<usize>,
}

impl VertexLayout {
    /// The bytes `vertex_count` vertices span: `stride·(vertex_count − 1)` plus the end of the
    /// last attribute. Errors: `NoVertexAttribute` (both offsets `None`), `InvalidParameter` (a
    /// stride under 12, an attribute past the stride, overlapping attributes, a span beyond
    /// `isize::MAX`).
    pub fn span(&self, vertex_count: usize) -> Result<usize, ClothError> {
        let bad = |name, value: usize, expected| Err(ClothError::InvalidParameter { name, value: value as f64, expected });
        if self.stride < 12 {
            return bad("stride", self.stride, "at least 12 bytes per vertex (3 floats)");
        }
        let attributes = [("position_offset", self.position_offset), ("normal_offset", self.normal_offset)];
        let mut end = 0usize;
        for (name, offset) in attributes {
            if let Some(o) = offset {
                if o.checked_add(12).is_none_or(|e| e > self.stride) {
                    return bad(name, o, "an offset with offset + 12 <= stride (3 floats inside one vertex)");
                }
                end = end.max(o + 12);
            }
        }
        match (self.position_offset, self.normal_offset) {
            (None, None) => return Err(ClothError::NoVertexAttribute),
            (Some(p), Some(n)) if p.abs_diff(n) < 12 => {
                return bad("normal_offset", n, "a normal that does not overlap the position (offsets 12+ bytes apart)");
            }
            _ => {}
        }
        let span = match vertex_count {
            0 => Some(0),
            n => self.stride.checked_mul(n - 1).and_then(|s| s.checked_add(end)),
        };
        match span {
            Some(s) if s <= isize::MAX as usize => Ok(s),
            _ => bad("stride", self.stride, "a buffer that fits in memory (stride * vertex_count bytes)"),
        }
    }
}

impl Cloth {
    /// Before a step: the state it starts from becomes the previous state of the interpolation.
    /// With an animated pose, the pose the last step ended on (`start` until this step's end)
    /// becomes the previous pose, so alpha 0 draws what the reads showed after the last step.
    pub(crate) fn record_previous(&mut self) {
        self.output.previous_x.copy_from_slice(&self.state.x);
        self.output.previous_normals.copy_from_slice(&self.output.normals);
        let (a, out) = (&self.state.animation, &mut self.output);
        out.previous_pose.clear();
        out.previous_pose_normals.clear();
        if a.pose.posed() {
            // The pose of the current state: the one the last step ended on (`start`), which a
            // pose given since (`target`) does not change.
            out.previous_pose.extend_from_slice(&a.start);
            out.previous_pose_normals.extend_from_slice(&a.normal_start);
        }
    }

    /// After a discontinuous move: the previous state is the current one, so every interpolated
    /// read returns the current state until the next step.
    pub(crate) fn reset_interpolation(&mut self) {
        self.record_previous();
        self.reset_lod_time();
    }

    /// Positions \[m\] in render-vertex order (`[f32; 3] × vertex_count`) at `alpha` ∈ [0, 1]
    /// between the state before the last step (0) and after it (1): `(1 − alpha)·previous +
    /// alpha·current` per component in f32; the two states themselves at 0 and 1, and the current
    /// position wherever it equals the previous one (at 0 < alpha < 1). Before the first
    /// step, and after a teleport, snapshot restore or guard recovery, both states are the current
    /// one. With an animated pose and `simulation_blend` < 1 both states are the blended ones
    /// ([`crate::ClothReads`]), so alpha 1 is exactly [`Cloth::read_positions`].
    /// Errors: `InvalidParameter` (`alpha` NaN or outside [0, 1]), `BufferSizeMismatch`;
    /// `out` untouched on error.
    pub fn read_positions_interpolated<'o>(&self, alpha: f32, out: impl Into<Out<'o, [f32; 3]>>) -> Result<(), ClothError> {
        self.reads().read_positions_interpolated(alpha, out)
    }

    /// Normals in render-vertex order (`[f32; 3] × vertex_count`) interpolated as
    /// [`Cloth::read_positions_interpolated`]. Not renormalised: between two unit normals the
    /// length dips slightly below 1 (a shader normalises anyway), so that 0 and 1 stay exact.
    /// Errors as `read_positions_interpolated`.
    pub fn read_normals_interpolated<'o>(&self, alpha: f32, out: impl Into<Out<'o, [f32; 3]>>) -> Result<(), ClothError> {
        self.reads().read_normals_interpolated(alpha, out)
    }

    /// Write interpolated positions \[m\] and normals (as [`Cloth::read_positions_interpolated`],
    /// same bits) for every render vertex into an interleaved vertex buffer: vertex v's position
    /// goes to bytes `v·stride + position_offset ..+12` as three native-endian f32, its normal to
    /// `v·stride + normal_offset ..+12`; no other byte is touched and any alignment works.
    /// `buffer` must hold at least [`VertexLayout::span`]`(vertex_count)` bytes.
    /// Errors: `InvalidParameter` (`alpha`, or a layout [`VertexLayout::span`] rejects),
    /// `BufferSizeMismatch` (buffer shorter than the span); nothing written on error.
    pub fn write_vertices(&self, buffer: &mut [u8], layout: VertexLayout, alpha: f32) -> Result<(), ClothError> {
        self.reads().write_vertices(buffer, layout, alpha)
    }

    /// Axis-aligned box `(min, max)` \[m\] around every particle of the last two step states as read
    /// back (blended with the animated pose when `simulation_blend` < 1), so it holds every
    /// interpolated read too (up to the rounding of the interpolation, ~1e-7 relative).
    pub fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        self.reads().bounds()
    }

    /// Check a write of `len` values to render vertices `vertices` (all when `None`):
    /// `BufferSizeMismatch` for a length other than the list's (or the vertex count),
    /// `VertexOutOfRange` for an index.
    fn check_written(&self, vertices: Option<&[u32]>, len: usize) -> Result<(), ClothError> {
        let n = self.model.info.vertex_count;
        let expected = vertices.map_or(n as usize, <[u32]>::len);
        if len != expected {
            return Err(ClothError::BufferSizeMismatch { expected, got: len });
        }
        match vertices.unwrap_or(&[]).iter().position(|&v| v >= n) {
            Some(k) => Err(ClothError::VertexOutOfRange { position: k as u32, vertex: vertices.unwrap_or(&[])[k], vertex_count: n }),
            None => Ok(()),
        }
    }

    /// The particle of the k-th written value: of `vertices[k]`, or of render vertex k.
    fn written_particle(&self, vertices: Option<&[u32]>, k: usize) -> usize {
        let v = vertices.map_or(k, |list| list[k] as usize);
        self.model.particle_of_vertex[v] as usize
    }

    /// Put render vertices `vertices` (all, in render order, when `None`) at `positions` \[m\]
    /// (`[f32; 3]` per listed vertex) between steps, for engine-side effects (a mouse drag is a
    /// [`Cloth::grab`]). Velocities stay; copies of a welded vertex share a particle (the last
    /// value wins); a pinned vertex moves with its pin (current position and target). The moved
    /// vertices are drawn where they are put at every alpha until the next step; normals are
    /// recomputed.
    ///
    /// Errors: `BufferSizeMismatch` (`positions` length ≠ the list's, or ≠ vertex count for all),
    /// `VertexOutOfRange`, `InvalidValue` (a coordinate NaN, infinite or beyond ±1e5 m; the
    /// message names the list position); nothing changes on error.
    pub fn set_positions(&mut self, vertices: Option<&[u32]>, positions: &[[f32; 3]]) -> Result<(), ClothError> {
        let _change = self.begin_change();
        self.check_written(vertices, positions.len())?;
        if let Some(k) = positions.iter().position(|p| !crate::mesh::is_valid_point(p)) {
            let expected = "finite metres within +-1e5 per coordinate";
            return Err(ClothError::InvalidValue { name: "positions", position: k as u32, expected });
        }
        self.wake();
        for (k, x) in positions.iter().enumerate() {
            let (p, x) = (self.written_particle(vertices, k), Vec3::from_array(*x));
            self.state.x[p] = x;
            self.scratch.x_prev[p] = x;
            self.output.previous_x[p] = x;
            let pins = &mut self.state.pins;
            if let Ok(i) = pins.particles.binary_search(&(p as u32)) {
                (pins.start[i], pins.target[i]) = (x, x);
            }
        }
        self.remember_good_state();
        self.update_normals(false);
        Ok(())
    }

    /// Set the velocities \[m/s\] of render vertices `vertices` (all, in render order, when `None`)
    /// between steps, `[f32; 3]` per listed vertex; copies of a welded vertex share a particle
    /// (the last value wins). A pinned vertex's velocity is replaced by its pin's motion at the next
    /// step. Errors: `BufferSizeMismatch`, `VertexOutOfRange` (as [`Cloth::set_positions`]),
    /// `InvalidValue` (a NaN or infinite component, or a speed above the cloth's
    /// `max_particle_speed`, which its explosion guard would reject); nothing changes on error.
    pub fn set_velocities(&mut self, vertices: Option<&[u32]>, velocities: &[[f32; 3]]) -> Result<(), ClothError> {
        let _change = self.begin_change();
        self.check_written(vertices, velocities.len())?;
        let limit = self.config.params.max_particle_speed;
        if let Some(k) = velocities.iter().position(|v| !(Vec3::from_array(*v).length() <= limit)) {
            let expected = "finite m/s, no faster than the cloth's max_particle_speed";
            return Err(ClothError::InvalidValue { name: "velocities", position: k as u32, expected });
        }
        self.wake();
        for (k, v) in velocities.iter().enumerate() {
            let p = self.written_particle(vertices, k);
            self.state.v[p] = Vec3::from_array(*v);
        }
        self.remember_good_state();
        Ok(())
    }
}
