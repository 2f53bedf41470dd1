//! Writing simulated positions and normals into a Godot surface's vertex buffer, in place.
//!
//! Since Godot 4.2 an uncompressed surface's vertex buffer (the one
//! `RenderingServer.mesh_surface_update_vertex_region` writes) holds all positions first
//! (`float[3]`, 12 bytes each), then per vertex the normal and tangent as octahedral-encoded
//! `uint16[2]` each (4 + 4 bytes; Godot stores a tangent whenever it stores a normal). Colours,
//! UVs, bones live in other buffers and stay untouched. The bridge asks the RenderingServer for the
//! real offsets and strides (`mesh_surface_get_format_offset`, `..._vertex_stride`,
//! `..._normal_tangent_stride`), so this module only needs them as numbers.
//!
//! Encodings are those of Godot's `Vector3::octahedron_encode` and `octahedron_tangent_encode`
//! (core/math/vector3.cpp), quantised as `servers/rendering_server.cpp` does
//! (`(uint16_t)CLAMP(x * 65535, 0, 65535)`, i.e. truncation).

use glam::{Vec2, Vec3};
use std::fmt;

/// Byte positions of the attributes this module writes, as the RenderingServer reports them for
/// a surface of `vertex_count` vertices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexLayout {
    /// Vertices in the surface.
    pub vertex_count: usize,
    /// Offset of vertex 0's position [bytes].
    pub position_offset: usize,
    /// Bytes from one position to the next.
    pub position_stride: usize,
    /// Offset of vertex 0's normal [bytes], if the surface has normals.
    pub normal_offset: Option<usize>,
    /// Offset of vertex 0's tangent [bytes], if the surface has tangents.
    pub tangent_offset: Option<usize>,
    /// Bytes from one normal (or tangent) to the next.
    pub normal_stride: usize,
    /// Length of the whole vertex buffer [bytes].
    pub buffer_len: usize,
}

/// Why a layout cannot be written safely.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// An attribute of the last vertex would end past the buffer.
    OutOfBounds {
        /// Which attribute.
        attribute: &'static str,
        /// Where its last byte would end.
        end: usize,
        /// The buffer length.
        buffer_len: usize,
    },
    /// A stride is smaller than its attribute (attributes would overlap).
    StrideTooSmall {
        /// Which attribute.
        attribute: &'static str,
        /// The stride given.
        stride: usize,
    },
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::OutOfBounds { attribute, end, buffer_len } => {
                write!(f, "vertex {attribute}s would end at byte {end}, past the {buffer_len}-byte vertex buffer")
            }
            LayoutError::StrideTooSmall { attribute, stride } => {
                write!(f, "vertex {attribute} stride {stride} is smaller than the attribute")
            }
        }
    }
}

impl std::error::Error for LayoutError {}

impl VertexLayout {
    /// The layout Godot 4.2+ gives an uncompressed 3-D surface with positions, and normals and
    /// tangents when `has_normals` (see the module doc). For tests and documentation; the bridge
    /// uses the RenderingServer's numbers.
    pub fn godot_uncompressed(vertex_count: usize, has_normals: bool) -> Self {
        let positions = 12 * vertex_count;
        VertexLayout {
            vertex_count,
            position_offset: 0,
            position_stride: 12,
            normal_offset: has_normals.then_some(positions),
            tangent_offset: has_normals.then_some(positions + 4),
            normal_stride: 8,
            buffer_len: positions + if has_normals { 8 * vertex_count } else { 0 },
        }
    }

    /// Check that every attribute of every vertex lies inside the buffer.
    pub fn validate(&self) -> Result<(), LayoutError> {
        let n = self.vertex_count;
        let check = |attribute, offset: Option<usize>, stride: usize, size: usize| {
            let Some(offset) = offset else { return Ok(()) };
            if stride < size {
                return Err(LayoutError::StrideTooSmall { attribute, stride });
            }
            let end = if n == 0 { offset } else { offset + (n - 1) * stride + size };
            if end > self.buffer_len {
                return Err(LayoutError::OutOfBounds { attribute, end, buffer_len: self.buffer_len });
            }
            Ok(())
        };
        check("position", Some(self.position_offset), self.position_stride, 12)?;
        check("normal", self.normal_offset, self.normal_stride, 4)?;
        check("tangent", self.tangent_offset, self.normal_stride, 4)
    }
}

/// Godot's `Vector3::octahedron_encode`: a unit vector to a point of [0, 1]².
pub fn octahedron_encode(n: Vec3) -> Vec2 {
    let n = n / (n.x.abs() + n.y.abs() + n.z.abs());
    let o = if n.z >= 0.0 {
        Vec2::new(n.x, n.y)
    } else {
        let sign = |v: f32| if v >= 0.0 { 1.0 } else { -1.0 };
        Vec2::new((1.0 - n.y.abs()) * sign(n.x), (1.0 - n.x.abs()) * sign(n.y))
    };
    o * 0.5 + Vec2::splat(0.5)
}

/// Godot's `Vector3::octahedron_decode` (inverse of [`octahedron_encode`]), normalised.
pub fn octahedron_decode(oct: Vec2) -> Vec3 {
    let f = oct * 2.0 - Vec2::ONE;
    let mut n = Vec3::new(f.x, f.y, 1.0 - f.x.abs() - f.y.abs());
    let t = (-n.z).clamp(0.0, 1.0);
    n.x += if n.x >= 0.0 { -t } else { t };
    n.y += if n.y >= 0.0 { -t } else { t };
    n.normalize()
}

/// Godot's `Vector3::octahedron_tangent_encode`: the tangent's octahedral point with the
/// binormal sign folded into y (upper half: sign ≥ 0).
pub fn octahedron_tangent_encode(t: Vec3, sign: f32) -> Vec2 {
    let mut res = octahedron_encode(t);
    res.y = res.y.max(1.0 / 32767.0) * 0.5 + 0.5;
    if sign < 0.0 {
        res.y = 1.0 - res.y;
    }
    res
}

/// Godot's `Vector3::octahedron_tangent_decode`: (tangent, binormal sign).
pub fn octahedron_tangent_decode(oct: Vec2) -> (Vec3, f32) {
    let y = oct.y * 2.0 - 1.0;
    let sign = if y >= 0.0 { 1.0 } else { -1.0 };
    (octahedron_decode(Vec2::new(oct.x, y.abs())), sign)
}

/// An encoded point quantised to the `uint16[2]` bytes Godot stores (little endian, as every
/// platform Godot ships on).
fn quantise(oct: Vec2) -> [u8; 4] {
    let q = |v: f32| ((v * 65535.0).clamp(0.0, 65535.0) as u16).to_le_bytes();
    let (x, y) = (q(oct.x), q(oct.y));
    [x[0], x[1], y[0], y[1]]
}

/// Read back a quantised point (for tests and diagnostics).
pub fn dequantise(bytes: [u8; 4]) -> Vec2 {
    let x = u16::from_le_bytes([bytes[0], bytes[1]]);
    let y = u16::from_le_bytes([bytes[2], bytes[3]]);
    Vec2::new(x as f32 / 65535.0, y as f32 / 65535.0)
}

/// Bytes of one normal as Godot stores it.
pub fn encode_normal(n: Vec3) -> [u8; 4] {
    quantise(octahedron_encode(n))
}

/// Bytes of one tangent with its binormal sign as Godot stores them, sanitised like Godot's
/// writer ((0, 65535) and (65535, 65535) decode alike; Godot avoids the first).
pub fn encode_tangent(t: Vec3, sign: f32) -> [u8; 4] {
    let mut b = quantise(octahedron_tangent_encode(t, sign));
    if b[..2] == [0, 0] && b[2..] == [0xff, 0xff] {
        b[..2].copy_from_slice(&[0xff, 0xff]);
    }
    b
}

/// The rest tangent made perpendicular to the new normal (one Gram–Schmidt step), so normal maps
/// keep a valid frame while the cloth bends; any perpendicular if the two have become parallel.
pub fn follow_tangent(rest_tangent: Vec3, normal: Vec3) -> Vec3 {
    let t = rest_tangent - normal * rest_tangent.dot(normal);
    t.try_normalize().unwrap_or_else(|| normal.any_orthonormal_vector())
}

/// Writes positions and normals into a preallocated vertex buffer laid out as `layout`.
#[derive(Clone, Debug)]
pub struct VertexWriter {
    layout: VertexLayout,
    /// Rest tangent (local space) and binormal sign per vertex, when the surface has tangents.
    rest_tangents: Vec<(Vec3, f32)>,
}

impl VertexWriter {
    /// A writer for `layout`; `rest_tangents` (`[x, y, z, sign] × vertex_count`, Godot's
    /// `ARRAY_TANGENT`) when the surface has them, else tangents are derived from the normals.
    /// Errors: the layout's ([`VertexLayout::validate`]).
    pub fn new(layout: VertexLayout, rest_tangents: Option<&[[f32; 4]]>) -> Result<Self, LayoutError> {
        layout.validate()?;
        let rest_tangents = match (layout.tangent_offset, rest_tangents) {
            (Some(_), Some(t)) if t.len() == layout.vertex_count => {
                t.iter().map(|t| (Vec3::new(t[0], t[1], t[2]), if t[3] < 0.0 { -1.0 } else { 1.0 })).collect()
            }
            _ => Vec::new(),
        };
        Ok(VertexWriter { layout, rest_tangents })
    }

    /// The layout written.
    pub fn layout(&self) -> &VertexLayout {
        &self.layout
    }

    /// Write `positions` [m] and unit `normals` (local space, `Vec3 × vertex_count` each) into
    /// `buffer` (`layout.buffer_len` bytes; other bytes are left as they are). Tangents follow
    /// the normals ([`follow_tangent`]). Returns the positions' bounding box (min, max) [m], for
    /// the mesh's culling box. Panics if a length disagrees with the layout (a bug in the bridge,
    /// which sizes everything from the same surface).
    pub fn write(&self, buffer: &mut [u8], positions: &[Vec3], normals: &[Vec3]) -> (Vec3, Vec3) {
        let l = &self.layout;
        assert_eq!(buffer.len(), l.buffer_len, "vertex buffer length");
        assert_eq!(positions.len(), l.vertex_count, "position count");
        assert_eq!(normals.len(), l.vertex_count, "normal count");
        let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
        for (i, (p, n)) in positions.iter().zip(normals).enumerate() {
            lo = lo.min(*p);
            hi = hi.max(*p);
            let at = l.position_offset + i * l.position_stride;
            for (k, c) in p.to_array().iter().enumerate() {
                buffer[at + 4 * k..at + 4 * k + 4].copy_from_slice(&c.to_le_bytes());
            }
            // A particle without triangles has no normal: keep any direction, not NaN.
            let n = if n.length_squared() > 0.0 { *n } else { Vec3::Y };
            if let Some(off) = l.normal_offset {
                let at = off + i * l.normal_stride;
                buffer[at..at + 4].copy_from_slice(&encode_normal(n));
            }
            if let Some(off) = l.tangent_offset {
                let (rest, sign) = self.rest_tangents.get(i).copied().unwrap_or((n.any_orthonormal_vector(), 1.0));
                let at = off + i * l.normal_stride;
                buffer[at..at + 4].copy_from_slice(&encode_tangent(follow_tangent(rest, n), sign));
            }
        }
        (lo, hi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn directions() -> Vec<Vec3> {
        let mut v = vec![Vec3::X, Vec3::Y, Vec3::Z, Vec3::NEG_X, Vec3::NEG_Y, Vec3::NEG_Z];
        for i in 0..40 {
            let (a, b) = (i as f32 * 0.77, i as f32 * 1.93);
            v.push(Vec3::new(a.cos() * b.sin(), a.sin() * b.sin(), b.cos()).normalize());
        }
        v
    }

    #[test]
    fn octahedral_normals_round_trip_through_godots_16_bit_storage() {
        for n in directions() {
            let back = octahedron_decode(dequantise(encode_normal(n)));
            // 16-bit octahedral storage resolves about 1e-4 rad. (Distances, not `angle_between`:
            // acos near 1 in f32 is only good to ~3e-4.)
            assert!((back - n).length() < 2e-4, "{n} -> {back}");
        }
    }

    #[test]
    fn octahedral_tangents_keep_direction_and_binormal_sign() {
        for t in directions() {
            for sign in [1.0, -1.0] {
                let (back, s) = octahedron_tangent_decode(dequantise(encode_tangent(t, sign)));
                assert_eq!(s, sign);
                assert!((back - t).length() < 2e-4, "{t} -> {back}");
            }
        }
    }

    #[test]
    fn known_encodings_match_godot() {
        // +Z is the octahedron's centre, −Z its corners, +Y the top edge's middle.
        assert_eq!(octahedron_encode(Vec3::Z), Vec2::new(0.5, 0.5));
        assert_eq!(octahedron_encode(Vec3::NEG_Z), Vec2::new(1.0, 1.0));
        assert_eq!(octahedron_encode(Vec3::Y), Vec2::new(0.5, 1.0));
        assert_eq!(encode_normal(Vec3::Y), [0xff, 0x7f, 0xff, 0xff]); // (32767, 65535)
    }

    #[test]
    fn writer_fills_godot_4_2_layout_and_leaves_other_bytes() {
        let layout = VertexLayout::godot_uncompressed(3, true);
        assert_eq!(layout.buffer_len, 3 * 20);
        let writer = VertexWriter::new(layout, Some(&[[1.0, 0.0, 0.0, -1.0]; 3])).unwrap();
        let mut buf = vec![0xAB; layout.buffer_len];
        let p = [Vec3::new(1.0, 2.0, 3.0), Vec3::new(-1.0, 0.5, 0.0), Vec3::new(0.0, -2.0, 4.0)];
        let n = [Vec3::Y, Vec3::new(0.0, 0.6, 0.8), Vec3::ZERO];
        let (lo, hi) = writer.write(&mut buf, &p, &n);
        assert_eq!((lo, hi), (Vec3::new(-1.0, -2.0, 0.0), Vec3::new(1.0, 2.0, 4.0)));
        let f = |at: usize| f32::from_le_bytes(buf[at..at + 4].try_into().unwrap());
        assert_eq!([f(12), f(16), f(20)], [-1.0, 0.5, 0.0]); // vertex 1's position
        let oct = |at: usize| dequantise(buf[at..at + 4].try_into().unwrap());
        assert!((octahedron_decode(oct(36 + 8)) - n[1]).length() < 2e-4); // vertex 1's normal
        assert!((octahedron_decode(oct(36 + 16)) - Vec3::Y).length() < 2e-4); // no normal -> +Y
        let (t, sign) = octahedron_tangent_decode(oct(36 + 8 + 4));
        assert_eq!(sign, -1.0);
        assert!(t.dot(n[1]).abs() < 1e-3 && (t - Vec3::X).length() < 1e-3);
    }

    #[test]
    fn writer_without_normals_writes_positions_only() {
        let layout = VertexLayout::godot_uncompressed(2, false);
        let writer = VertexWriter::new(layout, None).unwrap();
        let mut buf = vec![0u8; 24];
        writer.write(&mut buf, &[Vec3::ONE, Vec3::NEG_ONE], &[Vec3::Y, Vec3::Y]);
        assert_eq!(f32::from_le_bytes(buf[20..24].try_into().unwrap()), -1.0);
    }

    #[test]
    fn follow_tangent_is_perpendicular_to_the_new_normal() {
        let n = Vec3::new(0.0, 0.6, 0.8);
        let t = follow_tangent(Vec3::new(0.0, 0.0, 1.0), n);
        assert!(t.dot(n).abs() < 1e-6 && (t.length() - 1.0).abs() < 1e-6);
        assert!(t.z > 0.0); // keeps the rest tangent's side
        let parallel = follow_tangent(n, n);
        assert!(parallel.dot(n).abs() < 1e-6);
    }

    #[test]
    fn layouts_that_would_write_out_of_bounds_are_rejected() {
        let mut l = VertexLayout::godot_uncompressed(4, true);
        assert_eq!(l.validate(), Ok(()));
        l.buffer_len -= 1;
        assert_eq!(
            l.validate(),
            Err(LayoutError::OutOfBounds { attribute: "tangent", end: 80, buffer_len: 79 })
        );
        let l = VertexLayout { position_stride: 8, ..VertexLayout::godot_uncompressed(4, false) };
        assert_eq!(l.validate(), Err(LayoutError::StrideTooSmall { attribute: "position", stride: 8 }));
    }
}
