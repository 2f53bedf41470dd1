//! The render reads of a cloth (positions, normals, both interpolated, interleaved vertex buffers,
//! bounds) over one view of the data they need, [`ClothReads`], so that a live cloth and the copy a
//! [`crate::SharedWorld`] keeps for readers during a step give the same bits by construction.

use super::Cloth;
use super::lod::Lod;
use super::tear::RenderCounts;
use crate::error::{ClothError, check_range};
use crate::out::Out;
use glam::Vec3;
use std::mem::MaybeUninit;

/// What the render reads see of one cloth: borrowed from the live cloth ([`Cloth::reads`]) or from
/// the copy of it taken before a step ([`crate::SharedWorld::read`]). Every read of it returns the
/// same bits as the [`Cloth`] method of the same name on the cloth it was taken from.
///
/// With an animated pose and `simulation_blend` b < 1 every read is blended: each of the two step
/// states is blended with its own pose (a + b·(x − a); normals lerped and normalised), and the
/// interpolated reads lerp between the two blended states, so alpha 1 is exactly `read_positions`
/// and alpha 0 exactly what it returned after the step before.
///
/// A cloth at `step_interval` N > 1 whose last step spanned L world steps, j world steps ago,
/// reads at the fraction (j + alpha)/L of that step (`read_positions`: (j + 1)/L), which is the
/// world's own time (`super::lod`); at N = 1 every read is as described above, bit for bit.
#[derive(Clone, Copy, Debug)]
pub struct ClothReads<'a> {
    /// Render vertex → particle, `vertex_count` entries.
    map: &'a [u32],
    /// Positions \[m\] per particle after the last step and before it.
    x: &'a [Vec3],
    previous_x: &'a [Vec3],
    /// Unit normals per particle after the last step and before it.
    normals: &'a [Vec3],
    previous_normals: &'a [Vec3],
    /// The simulation blend, when posed and b < 1.
    blend: Option<Blend<'a>>,
    /// (world steps since the last step, its span in world steps): level of detail (`super::lod`).
    time: (u32, u32),
    /// The particles' velocities at both ends of a step that spanned more than one world step.
    tangents: Option<Tangents<'a>>,
    /// The render triangles (render vertex indices).
    triangles: &'a [[u32; 3]],
    /// Render vertices as created; the vertex as created of each one a cut added after them.
    created_vertices: u32,
    sources: &'a [u32],
    /// Grows with every cut ([`RenderCounts::topology_version`]).
    topology_version: u32,
}

/// The velocities \[m/s\] per particle before and after the last step, and its length \[s\]: the
/// reads of a step over several world steps follow each particle's cubic Hermite curve between its
/// two states (positions and velocities), so the motion drawn has no kink where two long steps
/// meet, nor where the cloth's `step_interval` changes (`super::lod`).
#[derive(Clone, Copy, Debug)]
struct Tangents<'a> {
    previous_v: &'a [Vec3],
    v: &'a [Vec3],
    duration: f32,
}

impl Tangents<'_> {
    /// Particle `p`'s tangents (velocity × duration) for the chord `chord` \[m\], each no longer
    /// than twice the chord, so that a particle stopped within the step (by a collider) is not
    /// drawn far past where it stopped.
    #[inline(always)]
    fn of(&self, p: usize, chord: Vec3) -> (Vec3, Vec3) {
        let limit = 2.0 * chord.length();
        let clamp = |m: Vec3| m.clamp_length_max(limit);
        (clamp(self.previous_v[p] * self.duration), clamp(self.v[p] * self.duration))
    }
}

/// The cubic Hermite curve from `x0` (tangent `m0`) to `x1` (tangent `m1`) at `t` ∈ [0, 1]: `x0`
/// and `x1` themselves at 0 and 1.
#[inline(always)]
fn hermite(x0: Vec3, x1: Vec3, m0: Vec3, m1: Vec3, t: f32) -> Vec3 {
    let (t2, t3) = (t * t, t * t * t);
    x0 * (2.0 * t3 - 3.0 * t2 + 1.0) + m0 * (t3 - 2.0 * t2 + t) + x1 * (3.0 * t2 - 2.0 * t3) + m1 * (t3 - t2)
}

/// The simulation blend b and the animated poses the two step states are blended with.
#[derive(Clone, Copy, Debug)]
struct Blend<'a> {
    b: f32,
    /// Animated positions \[m\] and normals per particle of the current state.
    pose: &'a [Vec3],
    pose_normals: &'a [Vec3],
    /// Those of the previous state (the current pose when the cloth was not posed then).
    previous_pose: &'a [Vec3],
    previous_pose_normals: &'a [Vec3],
}

impl<'a> Blend<'a> {
    /// Borrow the blend of pose `pose` and previous pose `previous` (positions, normals); an empty
    /// previous pose (not posed before the last step) is the current one.
    fn new(b: f32, pose: (&'a [Vec3], &'a [Vec3]), previous: (&'a [Vec3], &'a [Vec3])) -> Blend<'a> {
        let previous = if previous.0.len() == pose.0.len() { previous } else { pose };
        Blend { b, pose: pose.0, pose_normals: pose.1, previous_pose: previous.0, previous_pose_normals: previous.1 }
    }

    fn position(&self, a: Vec3, x: Vec3) -> Vec3 {
        a + (x - a) * self.b
    }

    fn normal(&self, a: Vec3, n: Vec3) -> Vec3 {
        a.lerp(n, self.b).normalize_or_zero()
    }
}

/// `(1 − t)·a + t·b`, with t = 0 and t = 1 returning `a` and `b` themselves (−0.0 included), and
/// `b` wherever `a == b` (a particle at rest, or reset, is drawn exactly where it is).
#[inline]
fn lerp(a: Vec3, b: Vec3, t: f32) -> Vec3 {
    if t == 0.0 {
        a
    } else if t == 1.0 || a == b {
        b
    } else {
        a * (1.0 - t) + b * t
    }
}

/// Write `v` as three native-endian f32 into the 12 bytes of `buffer` at `at` (any alignment).
#[inline(always)]
pub(crate) fn put_vec3(buffer: &mut [MaybeUninit<u8>], at: usize, v: Vec3) {
    let bytes = v.to_array().map(f32::to_ne_bytes);
    for (d, s) in buffer[at..at + 12].iter_mut().zip(bytes.as_flattened()) {
        d.write(*s);
    }
}

pub(crate) fn check_alpha(alpha: f32) -> Result<(), ClothError> {
    check_range("alpha", alpha, 0.0, 1.0, "0 <= alpha <= 1 (0 = previous step, 1 = last step)")
}

impl<'a> ClothReads<'a> {
    /// Number of render vertices (the length of every render-order read).
    pub fn vertex_count(&self) -> u32 {
        self.map.len() as u32
    }

    /// As [`Cloth::render_counts`].
    pub fn render_counts(&self) -> RenderCounts {
        RenderCounts { vertex_count: self.map.len() as u32, triangle_count: self.triangles.len() as u32, topology_version: self.topology_version }
    }

    /// As [`Cloth::read_indices`].
    pub fn read_indices<'o>(&self, out: impl Into<Out<'o, [u32; 3]>>) -> Result<(), ClothError> {
        let mut out = out.into();
        out.check_len(self.triangles.len())?;
        out.copy_from_slice(self.triangles);
        Ok(())
    }

    /// As [`Cloth::read_vertex_sources`].
    pub fn read_vertex_sources<'o>(&self, out: impl Into<Out<'o, u32>>) -> Result<(), ClothError> {
        let mut out = out.into();
        out.check_len(self.map.len())?;
        let created = (self.created_vertices as usize).min(out.len());
        out.sub(0..created).fill_with(|v| v as u32);
        let added = out.len() - created;
        out.sub(created..out.len()).copy_from_slice(&self.sources[..added]);
        Ok(())
    }

    /// Particle `p`'s position \[m\] as read back after the last step (`current`) or before it;
    /// `B`: whether the blend applies (a constant, so the unblended reads compile without it).
    #[inline(always)]
    fn position<const B: bool>(&self, p: usize, current: bool) -> Vec3 {
        let x = if current { self.x[p] } else { self.previous_x[p] };
        match &self.blend {
            Some(bl) if B => bl.position(if current { bl.pose[p] } else { bl.previous_pose[p] }, x),
            _ => x,
        }
    }

    /// Particle `p`'s normal as read back after the last step (`current`) or before it.
    #[inline(always)]
    fn normal<const B: bool>(&self, p: usize, current: bool) -> Vec3 {
        let n = if current { self.normals[p] } else { self.previous_normals[p] };
        match &self.blend {
            Some(bl) if B => bl.normal(if current { bl.pose_normals[p] } else { bl.previous_pose_normals[p] }, n),
            _ => n,
        }
    }

    /// Particle `p`'s position \[m\] at the fraction `t` of the last step: between the two states
    /// read back, on its Hermite curve after a step over several world steps (blended with the
    /// pose lerped between the two poses).
    #[inline(always)]
    pub(crate) fn position_at<const B: bool>(&self, p: usize, t: f32) -> Vec3 {
        let Some(tangents) = &self.tangents else {
            return lerp(self.position::<B>(p, false), self.position::<B>(p, true), t);
        };
        let (x0, x1) = (self.previous_x[p], self.x[p]);
        let (m0, m1) = tangents.of(p, x1 - x0);
        let x = if t == 0.0 { x0 } else if t == 1.0 { x1 } else { hermite(x0, x1, m0, m1, t) };
        match &self.blend {
            Some(bl) if B => bl.position(lerp(bl.previous_pose[p], bl.pose[p], t), x),
            _ => x,
        }
    }

    /// Particle `p`'s position \[m\] at the fraction `t` of the last step, blended or not as the
    /// reads are ([`ClothReads::position_at`] without the choice at compile time).
    pub(crate) fn particle_position(&self, p: usize, t: f32) -> Vec3 {
        match self.blend {
            None => self.position_at::<false>(p, t),
            Some(_) => self.position_at::<true>(p, t),
        }
    }

    /// Particle `p`'s unit normal at the fraction `t` of the last step.
    pub(crate) fn particle_normal(&self, p: usize, t: f32) -> Vec3 {
        match self.blend {
            None => self.normal_at::<false>(p, t),
            Some(_) => self.normal_at::<true>(p, t),
        }
        .normalize_or_zero()
    }

    /// Particle `p`'s normal at the fraction `t` of the last step (lerped, not renormalised).
    #[inline(always)]
    pub(crate) fn normal_at<const B: bool>(&self, p: usize, t: f32) -> Vec3 {
        lerp(self.normal::<B>(p, false), self.normal::<B>(p, true), t)
    }

    /// `f` per render vertex into `out` (its particle's value), after checking the length.
    #[inline(always)]
    fn fill(&self, mut out: Out<'_, [f32; 3]>, f: impl Fn(usize) -> Vec3) -> Result<(), ClothError> {
        out.check_len(self.map.len())?;
        out.fill_from(self.map.iter().map(|&p| f(p as usize).to_array()));
        Ok(())
    }

    /// Number of simulation particles.
    pub(crate) fn particle_count(&self) -> usize {
        self.x.len()
    }

    /// Render triangles now (render vertex indices, the cuts' new vertices included) and each
    /// render vertex's particle: where a render proxy of a tearable cloth reads its corners.
    pub(crate) fn render_topology(&self) -> (&[[u32; 3]], &[u32]) {
        (self.triangles, self.map)
    }

    /// Render vertices as created (before any cut).
    pub(crate) fn created_vertices(&self) -> u32 {
        self.created_vertices
    }

    /// Whether the reads are blended with the animated pose (`simulation_blend` < 1, posed).
    pub(crate) fn blended(&self) -> bool {
        self.blend.is_some()
    }

    /// The fraction of the last step that `alpha` of the current world step shows (`alpha` itself
    /// when the cloth steps every world step).
    #[inline]
    pub(crate) fn fraction(&self, alpha: f32) -> f32 {
        Lod::fraction(self.time.0, self.time.1, alpha)
    }

    /// The fraction of the last step the end of the current world step shows, when it is not the
    /// last step's end (a cloth between the steps of its `step_interval`).
    #[inline]
    fn current_fraction(&self) -> Option<f32> {
        Some(self.fraction(1.0)).filter(|&f| f < 1.0)
    }

    /// As [`Cloth::read_positions`].
    pub fn read_positions<'o>(&self, out: impl Into<Out<'o, [f32; 3]>>) -> Result<(), ClothError> {
        let out = out.into();
        match (self.blend, self.current_fraction()) {
            (_, Some(f)) => self.positions_at(f, out),
            (None, None) => self.fill(out, |p| self.position::<false>(p, true)),
            (Some(_), None) => self.fill(out, |p| self.position::<true>(p, true)),
        }
    }

    /// As [`Cloth::read_normals`].
    pub fn read_normals<'o>(&self, out: impl Into<Out<'o, [f32; 3]>>) -> Result<(), ClothError> {
        let out = out.into();
        match (self.blend, self.current_fraction()) {
            (_, Some(f)) => self.normals_at(f, out),
            (None, None) => self.fill(out, |p| self.normal::<false>(p, true)),
            (Some(_), None) => self.fill(out, |p| self.normal::<true>(p, true)),
        }
    }

    /// As [`Cloth::read_positions_interpolated`].
    pub fn read_positions_interpolated<'o>(&self, alpha: f32, out: impl Into<Out<'o, [f32; 3]>>) -> Result<(), ClothError> {
        check_alpha(alpha)?;
        self.positions_at(self.fraction(alpha), out.into())
    }

    /// Positions at the fraction `alpha` of the last step.
    fn positions_at(&self, alpha: f32, out: Out<'_, [f32; 3]>) -> Result<(), ClothError> {
        match self.blend {
            None => self.fill(out, |p| self.position_at::<false>(p, alpha)),
            Some(_) => self.fill(out, |p| self.position_at::<true>(p, alpha)),
        }
    }

    /// As [`Cloth::read_normals_interpolated`].
    pub fn read_normals_interpolated<'o>(&self, alpha: f32, out: impl Into<Out<'o, [f32; 3]>>) -> Result<(), ClothError> {
        check_alpha(alpha)?;
        self.normals_at(self.fraction(alpha), out.into())
    }

    /// Normals at the fraction `alpha` of the last step.
    fn normals_at(&self, alpha: f32, out: Out<'_, [f32; 3]>) -> Result<(), ClothError> {
        match self.blend {
            None => self.fill(out, |p| self.normal_at::<false>(p, alpha)),
            Some(_) => self.fill(out, |p| self.normal_at::<true>(p, alpha)),
        }
    }

    /// As [`Cloth::write_vertices`].
    pub fn write_vertices(&self, buffer: &mut [u8], layout: super::VertexLayout, alpha: f32) -> Result<(), ClothError> {
        let buffer = crate::Out::from(buffer).into_uninit();
        self.write_vertices_uninit(buffer, layout, alpha)
    }

    /// [`ClothReads::write_vertices`] into memory that may be uninitialised (the C ABI's engine
    /// buffers).
    pub(crate) fn write_vertices_uninit(
        &self,
        buffer: &mut [MaybeUninit<u8>],
        layout: super::VertexLayout,
        alpha: f32,
    ) -> Result<(), ClothError> {
        check_alpha(alpha)?;
        let span = layout.span(self.map.len())?;
        if buffer.len() < span {
            return Err(ClothError::BufferSizeMismatch { expected: span, got: buffer.len() });
        }
        let alpha = self.fraction(alpha);
        match self.blend {
            None => self.write_interleaved::<false>(buffer, layout, alpha),
            Some(_) => self.write_interleaved::<true>(buffer, layout, alpha),
        }
        Ok(())
    }

    /// The writes of [`ClothReads::write_vertices_uninit`] once checked, blended when `B`.
    fn write_interleaved<const B: bool>(&self, buffer: &mut [MaybeUninit<u8>], layout: super::VertexLayout, alpha: f32) {
        let put = put_vec3;
        for (k, &p) in self.map.iter().enumerate() {
            let (p, base) = (p as usize, k * layout.stride);
            if let Some(o) = layout.position_offset {
                put(buffer, base + o, self.position_at::<B>(p, alpha));
            }
            if let Some(o) = layout.normal_offset {
                put(buffer, base + o, self.normal_at::<B>(p, alpha));
            }
        }
    }

    /// As [`Cloth::bounds`].
    pub fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        fn box_of(all: impl Iterator<Item = Vec3>) -> (Vec3, Vec3) {
            all.fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)))
        }
        let (mut lo, mut hi) = match self.blend {
            None => box_of(self.x.iter().chain(self.previous_x).copied()),
            Some(_) => box_of((0..self.x.len()).flat_map(|p| [self.position::<true>(p, true), self.position::<true>(p, false)])),
        };
        if let Some(t) = &self.tangents {
            // A Hermite curve leaves its chord by at most 4/27 of each tangent.
            let bulge = (0..self.x.len())
                .map(|p| {
                    let (m0, m1) = t.of(p, self.x[p] - self.previous_x[p]);
                    m0.length() + m1.length()
                })
                .fold(0.0f32, f32::max);
            (lo, hi) = (lo - Vec3::splat(4.0 / 27.0 * bulge), hi + Vec3::splat(4.0 / 27.0 * bulge));
        }
        (lo.to_array(), hi.to_array())
    }
}

/// An owned copy of what [`ClothReads`] sees of a cloth, refreshed before each step of a
/// [`crate::SharedWorld`]; its buffers are reused from step to step. It holds no reference to the
/// cloth's model, which a cut during the step changes in place.
#[derive(Debug)]
pub(crate) struct ReadCopy {
    /// The render topology (copied again when its stamp changes: a cut or a restore).
    topology_stamp: u64,
    map: Vec<u32>,
    triangles: Vec<[u32; 3]>,
    created_vertices: u32,
    sources: Vec<u32>,
    topology_version: u32,
    x: Vec<Vec3>,
    previous_x: Vec<Vec3>,
    normals: Vec<Vec3>,
    previous_normals: Vec<Vec3>,
    /// The blend b, and the animated positions and normals of both states when b applies (else
    /// empty).
    blend: Option<f32>,
    pose: Vec<Vec3>,
    pose_normals: Vec<Vec3>,
    previous_pose: Vec<Vec3>,
    previous_pose_normals: Vec<Vec3>,
    /// Level of detail: (world steps since the last step, its span), and after a step over more
    /// than one world step the velocities at its ends and its length \[s\].
    time: (u32, u32),
    v: Vec<Vec3>,
    previous_v: Vec<Vec3>,
    duration: Option<f32>,
}

/// Make `dst` a copy of `src`, reusing its allocation when it is large enough.
fn copy_into(dst: &mut Vec<Vec3>, src: &[Vec3]) {
    dst.clear();
    dst.extend_from_slice(src);
}

impl ReadCopy {
    /// A copy of `cloth`'s reads.
    pub fn of(cloth: &Cloth) -> ReadCopy {
        let mut copy = ReadCopy {
            topology_stamp: 0,
            map: Vec::new(),
            triangles: Vec::new(),
            created_vertices: 0,
            sources: Vec::new(),
            topology_version: 0,
            x: Vec::new(),
            previous_x: Vec::new(),
            normals: Vec::new(),
            previous_normals: Vec::new(),
            blend: None,
            pose: Vec::new(),
            pose_normals: Vec::new(),
            previous_pose: Vec::new(),
            previous_pose_normals: Vec::new(),
            time: (0, 1),
            v: Vec::new(),
            previous_v: Vec::new(),
            duration: None,
        };
        copy.refresh(cloth);
        copy
    }

    /// Copy `cloth`'s reads into this copy's buffers.
    pub fn refresh(&mut self, cloth: &Cloth) {
        let m = &cloth.model;
        if self.topology_stamp != m.topology_stamp {
            self.topology_stamp = m.topology_stamp;
            let (created, sources, version) = cloth.vertex_sources();
            self.map.clear();
            self.map.extend_from_slice(&m.particle_of_vertex);
            self.triangles.clear();
            self.triangles.extend_from_slice(&m.render_triangles);
            self.sources.clear();
            self.sources.extend_from_slice(sources);
            (self.created_vertices, self.topology_version) = (created, version);
            if let Some(t) = &m.tear {
                // Room for every vertex the cloth may add, so that copies after cuts reuse it.
                let vertices = t.created_vertices as usize + t.max_extra as usize;
                self.map.reserve(vertices.saturating_sub(self.map.len()));
                self.sources.reserve(t.max_extra as usize - self.sources.len().min(t.max_extra as usize));
                let particles = t.created_particles as usize + t.max_extra as usize;
                for v in [&mut self.x, &mut self.previous_x, &mut self.normals, &mut self.previous_normals] {
                    v.reserve(particles.saturating_sub(v.len()));
                }
            }
        }
        copy_into(&mut self.x, &cloth.state.x);
        copy_into(&mut self.previous_x, &cloth.output.previous_x);
        copy_into(&mut self.normals, &cloth.output.normals);
        copy_into(&mut self.previous_normals, &cloth.output.previous_normals);
        self.blend = cloth.blend();
        self.time = cloth.lod_time();
        self.duration = cloth.lod_tangents().map(|(previous_v, v, duration)| {
            copy_into(&mut self.previous_v, previous_v);
            copy_into(&mut self.v, v);
            duration
        });
        if self.blend.is_some() {
            copy_into(&mut self.pose, &cloth.state.animation.start);
            copy_into(&mut self.pose_normals, &cloth.state.animation.normal_start);
            copy_into(&mut self.previous_pose, &cloth.output.previous_pose);
            copy_into(&mut self.previous_pose_normals, &cloth.output.previous_pose_normals);
        }
    }

    /// The reads of the copied cloth.
    pub fn reads(&self) -> ClothReads<'_> {
        ClothReads {
            map: &self.map,
            triangles: &self.triangles,
            created_vertices: self.created_vertices,
            sources: &self.sources,
            topology_version: self.topology_version,
            x: &self.x,
            previous_x: &self.previous_x,
            normals: &self.normals,
            previous_normals: &self.previous_normals,
            blend: self.blend.map(|b| {
                Blend::new(b, (&self.pose, &self.pose_normals), (&self.previous_pose, &self.previous_pose_normals))
            }),
            time: self.time,
            tangents: self.duration.map(|duration| Tangents { previous_v: &self.previous_v, v: &self.v, duration }),
        }
    }
}

impl Cloth {
    /// The render reads of this cloth's current state (see [`ClothReads`]).
    pub fn reads(&self) -> ClothReads<'_> {
        let (a, out) = (&self.state.animation, &self.output);
        let (created_vertices, sources, topology_version) = self.vertex_sources();
        ClothReads {
            map: &self.model.particle_of_vertex,
            triangles: &self.model.render_triangles,
            created_vertices,
            sources,
            topology_version,
            x: &self.state.x,
            previous_x: &self.output.previous_x,
            normals: &self.output.normals,
            previous_normals: &self.output.previous_normals,
            blend: self.blend().map(|b| {
                Blend::new(b, (&a.start, &a.normal_start), (&out.previous_pose, &out.previous_pose_normals))
            }),
            time: self.lod_time(),
            tangents: self.lod_tangents().map(|(previous_v, v, duration)| Tangents { previous_v, v, duration }),
        }
    }
}

impl Cloth {
    /// (render vertices as created, the source of each later one, topology version).
    fn vertex_sources(&self) -> (u32, &[u32], u32) {
        match &self.model.tear {
            Some(t) => (t.created_vertices, &t.vertex_source, t.version),
            None => (self.model.particle_of_vertex.len() as u32, &[], 0),
        }
    }
}
