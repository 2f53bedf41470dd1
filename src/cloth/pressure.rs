//! Pressure for closed cloth (balloons, cushions, inflatables): which meshes enclose a volume, the
//! volume they enclose, and the checks that keep `pressure` to them. The constraint itself is
//! `crate::constraints::volume`; the step projects it after the stretch sweeps
//! (`solver/sweeps/volume.rs`).

use super::Cloth;
use crate::error::ClothError;
use glam::Vec3;

/// How far a triangle mesh is from enclosing a volume: edges with one triangle, edges with three or
/// more, and edges whose two triangles run it the same way (inconsistent winding).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Closure {
    /// Edges used by one triangle (holes, cuts, the rim of an open sheet).
    pub boundary_edges: u32,
    /// Edges used by three or more triangles.
    pub non_manifold_edges: u32,
    /// Edges of two triangles that run it in the same direction.
    pub same_way_edges: u32,
}

impl Closure {
    /// The mesh encloses a volume: none of the three.
    pub fn is_closed(&self) -> bool {
        *self == Closure::default()
    }
}

/// The [`Closure`] of `triangles` (particle indices): each undirected edge's uses, by one sort of
/// the directed edges.
pub fn closure(triangles: &[[u32; 3]]) -> Closure {
    closure_with_cuts(triangles, &[])
}

/// [`closure`] of a torn mesh: an edge cut by a tear (bit k of `cut[t]` for the edge (t\[k\],
/// t\[k + 1\]) of triangle t; `cut` empty: none) is open on each of its sides, whether or not the
/// cut has split its ends apart yet.
pub(crate) fn closure_with_cuts(triangles: &[[u32; 3]], cut: &[u8]) -> Closure {
    let mut uses: Vec<(u64, bool, bool)> = triangles
        .iter()
        .enumerate()
        .flat_map(|(t, tri)| (0..3).map(move |k| (t, tri[k], tri[(k + 1) % 3], k)))
        .map(|(t, a, b, k)| (((a.min(b) as u64) << 32) | a.max(b) as u64, a < b, cut.get(t).is_some_and(|c| c & (1 << k) != 0)))
        .collect();
    uses.sort_unstable();
    let mut c = Closure::default();
    for edge in uses.chunk_by(|a, b| a.0 == b.0) {
        match edge {
            sides if sides.iter().any(|u| u.2) => c.boundary_edges += sides.len() as u32,
            [_] => c.boundary_edges += 1,
            [a, b] if a.1 == b.1 => c.same_way_edges += 1,
            [_, _] => {}
            _ => c.non_manifold_edges += 1,
        }
    }
    c
}

/// Whether `triangles` enclose a volume (at least one triangle, [`Closure::is_closed`]).
pub fn is_closed(triangles: &[[u32; 3]]) -> bool {
    !triangles.is_empty() && closure(triangles).is_closed()
}

/// The signed volume \[m³\] `triangles` enclose at positions `x` \[m\]: Σ (a − o)·((b − o) × (c − o))/6
/// over the triangles, o the first triangle's first corner, summed in f64 in triangle order
/// (positive when the triangles are wound outward, counter-clockwise seen from outside).
pub fn enclosed_volume(x: &[Vec3], triangles: &[[u32; 3]]) -> f64 {
    let Some(first) = triangles.first() else { return 0.0 };
    let o = x[first[0] as usize].as_dvec3();
    triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| x[i as usize].as_dvec3() - o);
            a.dot(b.cross(c)) / 6.0
        })
        .sum()
}

impl Cloth {
    /// The volume \[m³\] the cloth encloses now, positive for a mesh wound outward (as
    /// [`enclosed_volume`]). Errors: `NotClosed` for a mesh that encloses none (an open sheet, or a
    /// closed one after a tear).
    pub fn volume(&self) -> Result<f32, ClothError> {
        let _fp = crate::fp_env::DefaultFpEnv::enter();
        self.check_closed("volume", 0.0)?;
        Ok(enclosed_volume(&self.state.x, &self.model.triangles) as f32)
    }

    /// The volume the cloth enclosed as created \[m³\] (0 when it encloses none).
    pub fn rest_volume(&self) -> f32 {
        self.model.rest_volume.abs()
    }

    /// `NotClosed` naming `field` = `value` unless the cloth's mesh encloses a volume.
    pub(crate) fn check_closed(&self, field: &'static str, value: f32) -> Result<(), ClothError> {
        match self.model.closed {
            true => Ok(()),
            false => {
                let cut = self.model.tear.as_ref().map_or(&[][..], |t| &t.cut);
                Err(ClothError::NotClosed { field, value, closure: closure_with_cuts(&self.model.triangles, cut) })
            }
        }
    }

    /// (target p·|V₀| \[m³\], winding sign s) of the volume constraint, None without pressure. With
    /// a strain limit s_max the target is at most s_max³·|V₀|: no edge may stretch further, so the
    /// cloth cannot enclose more, and a target beyond it would only make the volume and the limit
    /// fight (`crate::constraints::volume`).
    pub(crate) fn volume_target(&self) -> Option<(f64, f32)> {
        let p = self.config.params.pressure?;
        let reachable = self.config.stretch_limit.map_or(f32::INFINITY, |s| s * s * s);
        let v0 = self.model.rest_volume;
        let sign = if v0 < 0.0 { -1.0 } else { 1.0 };
        Some((p.min(reachable) as f64 * v0.abs() as f64, sign))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cube of two triangles per face wound outward is closed and encloses its volume; with a
    /// face removed it has 4 boundary edges; with one triangle flipped, 3 edges run the same way.
    #[test]
    fn a_cube_is_closed_and_encloses_its_volume() {
        let x: Vec<Vec3> = (0..8).map(|k| Vec3::new((k & 1) as f32, ((k >> 1) & 1) as f32, ((k >> 2) & 1) as f32) * 2.0).collect();
        let faces = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
        let mut t: Vec<[u32; 3]> = faces.iter().flat_map(|f| [[f[0], f[1], f[2]], [f[0], f[2], f[3]]]).collect();
        assert!(is_closed(&t));
        assert!((enclosed_volume(&x, &t) - 8.0).abs() < 1e-9, "{}", enclosed_volume(&x, &t));
        t[0] = [t[0][0], t[0][2], t[0][1]];
        assert_eq!(closure(&t), Closure { boundary_edges: 0, non_manifold_edges: 0, same_way_edges: 3 });
        t[0] = [t[0][0], t[0][2], t[0][1]];
        let open = &t[2..];
        assert_eq!(closure(open).boundary_edges, 4);
        assert!(!is_closed(open) && !is_closed(&[]));
    }
}
