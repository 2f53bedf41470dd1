//! Evaluating a render proxy from its cloth's render reads, in passes that each compute every
//! element from inputs no other element of the pass writes (so the bits do not depend on how a
//! pass is split over threads):
//! 1. each particle at the fraction of the cloth's last step that alpha shows (the cloth's own
//!    interpolation, blend and level of detail: `ClothReads::position_at`, `normal_at`);
//! 2. each render vertex: the weighted point of its triangle plus its offset along the normalised
//!    weighted normal;
//! 3. each render triangle's area-weighted normal;
//! 4. each render vertex's normal, the normalised sum over its weld group's triangles (the
//!    simulated surface's normal for a vertex of no triangle), written out.

use super::{Binding, RenderProxy, Scratch, interpolated_normal, weigh};
use crate::cloth::reads::{check_alpha, put_vec3};
use crate::cloth::{ClothReads, VertexLayout};
use crate::error::ClothError;
use crate::out::Out;
use glam::{Vec3, Vec3A};
use rayon::prelude::*;
use std::mem::MaybeUninit;
use std::sync::PoisonError;

/// Render vertices (or triangles, or particles) per task of a split pass: ~10 µs of work, so
/// the fork-join (~1 µs) is paid for; a 256² proxy splits each pass into 32 tasks.
pub const PROXY_CHUNK: usize = 2048;

/// `f(first, out[first .. first + len])` over `out`: in chunks of `chunk` elements on the current
/// rayon pool when `parallel` (called inside the pool's `install`), else in one piece.
fn split<T: Send>(parallel: bool, out: &mut [T], chunk: usize, f: impl Fn(usize, &mut [T]) + Sync) {
    match parallel {
        true => out.par_chunks_mut(chunk).enumerate().for_each(|(k, c)| f(k * chunk, c)),
        false => f(0, out),
    }
}

/// Render vertex `v` at its simulated triangle's particles `corners` (their positions and
/// normals in `particles`): the weighted point plus the offset along the interpolated normal.
#[inline(always)]
fn place(particles: &[[Vec3; 2]], v: &super::BoundVertex, corners: [u32; 3]) -> Vec3 {
    // Indexed one by one: `[_; 3]::map` was left as a call per element.
    let (a, b, c) = (particles[corners[0] as usize], particles[corners[1] as usize], particles[corners[2] as usize]);
    let x = [a[0], b[0], c[0]];
    let mut o = weigh(v.weights, x);
    if v.offset != 0.0 {
        o += interpolated_normal(v.weights, [a[1], b[1], c[1]], x) * v.offset;
    }
    o
}

impl Binding {
    /// The particles of render vertex `v`'s simulated triangle (`b` its binding) in the cloth
    /// read through `reads`: those bound, or for a cloth that can tear, those its render
    /// triangles name now (module docs of `render_proxy`).
    #[inline(always)]
    fn corners(&self, reads: &ClothReads, v: usize, b: &super::BoundVertex) -> [u32; 3] {
        match &self.cut_corners {
            None => b.corners,
            Some(cut) => {
                let (render_triangles, particle_of) = reads.render_topology();
                let (r, at) = cut[v];
                let tri = render_triangles[r as usize];
                [0, 1, 2].map(|k| particle_of[tri[at[k] as usize] as usize])
            }
        }
    }

    /// Passes 1 and 2 (and 3 when `normals`) into `s` at fraction `t` of the cloth's last step.
    fn evaluate(&self, s: &mut Scratch, reads: &ClothReads, t: f32, normals: bool, parallel: bool) {
        let blended = reads.blended();
        // A cut adds particles (room reserved at creation: no allocation).
        if s.particles.len() != reads.particle_count() {
            s.particles.resize(reads.particle_count(), [Vec3::ZERO; 2]);
        }
        split(parallel, &mut s.particles, PROXY_CHUNK, |first, out| {
            for (k, o) in out.iter_mut().enumerate() {
                let p = first + k;
                *o = match blended {
                    false => [reads.position_at::<false>(p, t), reads.normal_at::<false>(p, t)],
                    true => [reads.position_at::<true>(p, t), reads.normal_at::<true>(p, t)],
                };
            }
        });
        let particles = &s.particles[..];
        // Two loops: the one of a cloth that cannot tear (the common case) reads only its cached
        // corners (one loop for both was 45 % slower: docs/dev/performance-log.md, "2026-12-07 —
        // Where the contact scenes' time goes; rounds that scan less, tried").
        match self.cut_corners {
            None => split(parallel, &mut s.positions, PROXY_CHUNK, |first, out| {
                for (o, v) in out.iter_mut().zip(&self.vertices[first..]) {
                    *o = place(particles, v, v.corners);
                }
            }),
            Some(_) => split(parallel, &mut s.positions, PROXY_CHUNK, |first, out| {
                for (k, (o, v)) in out.iter_mut().zip(&self.vertices[first..]).enumerate() {
                    *o = place(particles, v, self.corners(reads, first + k, v));
                }
            }),
        }
        if normals {
            let positions = &s.positions;
            split(parallel, &mut s.triangle_normals, PROXY_CHUNK, |first, out| {
                for (o, t) in out.iter_mut().zip(&self.render_triangles[first..]) {
                    let (a, b, c) = (Vec3A::from(positions[t[0] as usize]), Vec3A::from(positions[t[1] as usize]), Vec3A::from(positions[t[2] as usize]));
                    *o = (b - a).cross(c - a);
                }
            });
        }
    }

    /// Pass 4 for render vertex `v` (after [`Binding::evaluate`] with normals, of `reads`).
    #[inline(always)]
    fn normal(&self, s: &Scratch, reads: &ClothReads, v: usize) -> Vec3 {
        let own = self.group_triangles.sum(self.group_of[v] as usize, &s.triangle_normals);
        // The positions are finite: a zero sum is the only case to catch (cheaper than
        // `try_normalize`'s finiteness tests, which were most of this pass).
        let length_squared = own.length_squared();
        match length_squared > f32::MIN_POSITIVE {
            true => Vec3::from(own / length_squared.sqrt()),
            false => {
                let b = &self.vertices[v];
                let corners = self.corners(reads, v, b);
                let (a, p, c) = (s.particles[corners[0] as usize], s.particles[corners[1] as usize], s.particles[corners[2] as usize]);
                interpolated_normal(b.weights, [a[1], p[1], c[1]], [a[0], p[0], c[0]])
            }
        }
    }
}

impl RenderProxy {
    /// `InvalidParameter` unless `reads` are of a cloth this proxy can read: one of the model it
    /// was bound to (the cloth or an instance of it).
    fn check_reads(&self, reads: &ClothReads) -> Result<(), ClothError> {
        let model = &self.binding.model;
        // A cloth that can tear keeps its triangles and its vertices as created through cuts; one
        // that cannot keeps its particles.
        let same_mesh = match &model.tear {
            Some(t) => reads.render_topology().0.len() == model.render_triangles.len() && reads.created_vertices() == t.created_vertices,
            None => reads.particle_count() == model.particle_count(),
        };
        match same_mesh {
            true => Ok(()),
            false => Err(ClothError::InvalidParameter {
                name: "cloth",
                value: reads.particle_count() as f64,
                expected: "the reads of the cloth the proxy is bound to (or of an instance of it)",
            }),
        }
    }

    fn check_out(&self, reads: &ClothReads, out: &Out<'_, [f32; 3]>) -> Result<(), ClothError> {
        self.check_reads(reads)?;
        out.check_len(self.binding.vertices.len())
    }

    /// The buffers, whoever panicked while holding them (they are rewritten by every call).
    fn scratch(&self) -> std::sync::MutexGuard<'_, Scratch> {
        self.scratch.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Positions \[m\] of the render vertices (`[f32; 3] × vertex_count`, render order) where the
    /// cloth read through `reads` is now (what its `read_positions` shows, carried to the render
    /// mesh). Errors: `BufferSizeMismatch`, `InvalidParameter` (`cloth`: reads of a cloth of
    /// another mesh); `out` untouched on error.
    pub fn read_positions<'o>(&self, reads: ClothReads<'_>, out: impl Into<Out<'o, [f32; 3]>>) -> Result<(), ClothError> {
        let mut out = out.into();
        self.check_out(&reads, &out)?;
        let mut s = self.scratch();
        self.binding.evaluate(&mut s, &reads, reads.fraction(1.0), false, false);
        out.fill_from(s.positions.iter().map(|x| x.to_array()));
        Ok(())
    }

    /// Unit normals of the render vertices (`[f32; 3] × vertex_count`): the render mesh's own,
    /// area-weighted over its triangles at the positions [`RenderProxy::read_positions`] gives
    /// (copies of a vertex at one position share theirs; a vertex of no triangle gets the
    /// simulated surface's interpolated normal). Errors as `read_positions`.
    pub fn read_normals<'o>(&self, reads: ClothReads<'_>, out: impl Into<Out<'o, [f32; 3]>>) -> Result<(), ClothError> {
        let mut out = out.into();
        self.check_out(&reads, &out)?;
        let mut s = self.scratch();
        self.binding.evaluate(&mut s, &reads, reads.fraction(1.0), true, false);
        out.fill_with(|v| self.binding.normal(&s, &reads, v).to_array());
        Ok(())
    }

    /// Write positions \[m\] and normals of every render vertex at `alpha` ∈ [0, 1] of the world's
    /// last step into an interleaved vertex buffer, as [`crate::Cloth::write_vertices`] does for
    /// the cloth itself (through `reads`: the cloth's interpolation, blend and level of detail;
    /// normals as [`RenderProxy::read_normals`] at the positions written): vertex v's position at
    /// bytes `v·stride + position_offset ..+12`, its normal at `v·stride + normal_offset ..+12`,
    /// no other byte touched, any alignment. On the calling thread; allocates nothing.
    /// Errors: `InvalidParameter` (`alpha`, a layout [`VertexLayout::span`] rejects, reads of
    /// another mesh), `BufferSizeMismatch` (shorter than the span); nothing written on error.
    pub fn write_vertices(&self, reads: ClothReads<'_>, buffer: &mut [u8], layout: VertexLayout, alpha: f32) -> Result<(), ClothError> {
        let buffer = crate::Out::from(buffer).into_uninit();
        self.write_vertices_uninit(reads, buffer, layout, alpha, None)
    }

    /// [`RenderProxy::write_vertices`] into memory that may be uninitialised, each pass split over
    /// `pool` when given (more than one thread) and the proxy has more than one chunk of vertices.
    pub(crate) fn write_vertices_uninit(
        &self,
        reads: ClothReads<'_>,
        buffer: &mut [MaybeUninit<u8>],
        layout: VertexLayout,
        alpha: f32,
        pool: Option<&rayon::ThreadPool>,
    ) -> Result<(), ClothError> {
        check_alpha(alpha)?;
        self.check_reads(&reads)?;
        let n = self.binding.vertices.len();
        let span = layout.span(n)?;
        if buffer.len() < span {
            return Err(ClothError::BufferSizeMismatch { expected: span, got: buffer.len() });
        }
        let pool = pool.filter(|p| p.current_num_threads() > 1 && n > PROXY_CHUNK);
        let mut s = self.scratch();
        let normals = layout.normal_offset.is_some();
        let binding = &*self.binding;
        let t = reads.fraction(alpha);
        let bytes_per_chunk = PROXY_CHUNK * layout.stride;
        let buffer = &mut buffer[..span];
        // Every pass inside one `install`: the pool is woken once per call.
        let all = |s: &mut Scratch, buffer: &mut [MaybeUninit<u8>], parallel: bool| {
            binding.evaluate(s, &reads, t, normals, parallel);
            let s = &*s;
            let write = |k: usize, bytes: &mut [MaybeUninit<u8>]| write_chunk(binding, s, &reads, layout, k, bytes);
            match parallel {
                true => buffer.par_chunks_mut(bytes_per_chunk).enumerate().for_each(|(k, b)| write(k, b)),
                false => buffer.chunks_mut(bytes_per_chunk).enumerate().for_each(|(k, b)| write(k, b)),
            }
        };
        let s: &mut Scratch = &mut s;
        match pool {
            Some(pool) => pool.install(|| all(s, buffer, true)),
            None => all(s, buffer, false),
        }
        Ok(())
    }
}

/// Pass 4 and the writes of the `k`-th chunk of [`PROXY_CHUNK`] vertices, whose first vertex is at
/// byte 0 of `bytes`.
fn write_chunk(binding: &Binding, s: &Scratch, reads: &ClothReads, layout: VertexLayout, k: usize, bytes: &mut [MaybeUninit<u8>]) {
    let first = k * PROXY_CHUNK;
    for v in first..binding.vertices.len().min(first + PROXY_CHUNK) {
        let base = (v - first) * layout.stride;
        if let Some(o) = layout.position_offset {
            put_vec3(bytes, base + o, s.positions[v]);
        }
        if let Some(o) = layout.normal_offset {
            put_vec3(bytes, base + o, binding.normal(s, reads, v));
        }
    }
}
