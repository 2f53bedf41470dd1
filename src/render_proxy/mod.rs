//! Render proxies: simulate a coarse mesh, draw a fine one (docs/design.md, "Render proxies").
//!
//! A render proxy binds every vertex of a render mesh, given in the simulated mesh's rest frame,
//! to the simulated surface: the simulated triangle nearest to it, barycentric weights on that
//! triangle and an offset along the surface's interpolated normal, chosen so that the rest mesh is
//! given back (`bind`). Each frame it is evaluated from the cloth's render reads, so it is
//! interpolated by alpha, blended with the animated pose and drawn at the world's time exactly as
//! the cloth itself is; its normals are the render mesh's own, area-weighted from the positions
//! drawn (welded across seams), as the cloth's are from its particles (`write`). Measured against
//! weights over nearby particles, and against a Phong-rounded surface, it is the one that keeps the
//! drawn mesh on the simulated surface with normals that match it (docs/dev/performance-log.md,
//! 2026-12-06).
//!
//! The binding names simulated triangles by index and caches their corner particles. For a cloth
//! that can tear it also keeps a render triangle of each and reads the corners through the
//! cloth's render triangles at every evaluation: a cut keeps triangle indices and gives a
//! triangle new particles, so the vertices bound to either side of a cut follow their own side.

mod bind;
mod write;

use crate::cloth::model::ClothModel;
use crate::cloth::normals::ParticleTriangles;
use glam::{Vec3, Vec3A};
use std::sync::{Arc, Mutex};

pub use write::PROXY_CHUNK;

/// Default [`RenderProxyDesc::max_distance`] \[m\].
pub const DEFAULT_PROXY_MAX_DISTANCE: f32 = 0.05;

/// A render mesh to bind to a cloth's simulated surface ([`crate::World::add_render_proxy`]).
#[derive(Clone, Copy, Debug)]
pub struct RenderProxyDesc<'a> {
    /// Render vertex positions \[m\] in the rest frame of the simulated mesh (the frame its
    /// cloth was created in), `[f32; 3] × vertex_count`, each coordinate finite within ±1e5 m.
    pub positions: &'a [[f32; 3]],
    /// Triangles, `u32 × 3·triangle_count` render vertex indices (counter-clockwise = front); may
    /// be empty. The normals drawn are the render mesh's own over these triangles (a vertex of
    /// none gets the simulated surface's normal).
    pub indices: &'a [u32],
    /// Farthest a render vertex may lie from the simulated surface \[m\], > 0: a vertex farther
    /// is an error naming it (a mesh in another frame or at another scale).
    pub max_distance: f32,
}

impl<'a> RenderProxyDesc<'a> {
    /// A render mesh with the default `max_distance` ([`DEFAULT_PROXY_MAX_DISTANCE`]).
    pub fn new(positions: &'a [[f32; 3]], indices: &'a [u32]) -> Self {
        RenderProxyDesc { positions, indices, max_distance: DEFAULT_PROXY_MAX_DISTANCE }
    }
}

/// Identifies a render proxy in a [`crate::World`]: slot index + generation, like
/// [`crate::ClothHandle`]. Removing the proxy or its cloth makes it stale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RenderProxyHandle {
    /// Slot index.
    pub index: u32,
    /// Generation of the slot when the proxy was created (starts at 1; 0 is never valid).
    pub generation: u32,
}

/// One render vertex bound to the simulated surface: at weights `weights` of the corners
/// `corners` of a simulated triangle, `offset` \[m\] along the interpolated normal there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BoundVertex {
    pub corners: [u32; 3],
    pub weights: [f32; 3],
    pub offset: f32,
}

/// What binding a render mesh found; immutable, shared by the proxies of a cloth's instances.
#[derive(Clone, Debug)]
pub(crate) struct Binding {
    /// Per render vertex, in render order.
    pub vertices: Vec<BoundVertex>,
    /// For a cloth that can tear, per render vertex a render triangle of its simulated triangle
    /// and where each of the simulated triangle's corners is in it: the corners are read through
    /// the cloth's render triangles at every evaluation, so a vertex follows its own side of a
    /// cut (cuts keep triangle indices and give new particles). None for a cloth that cannot.
    pub cut_corners: Option<Vec<(u32, [u8; 3])>>,
    /// The render triangles, and each render vertex's weld group (copies at one position share
    /// their normal) with each group's triangles.
    pub render_triangles: Vec<[u32; 3]>,
    pub group_of: Vec<u32>,
    pub group_triangles: ParticleTriangles,
    /// The model it was bound to: its particle count bounds every corner.
    pub model: Arc<ClothModel>,
    /// Largest distance of a render vertex from the simulated surface at rest \[m\].
    pub max_rest_distance: f32,
}

/// Buffers of one evaluation, reused from call to call (sized at creation).
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    /// Per particle: position \[m\] and (not normalised) normal at the fraction drawn.
    pub particles: Vec<[Vec3; 2]>,
    /// Per render vertex: position drawn \[m\].
    pub positions: Vec<Vec3>,
    /// Per render triangle: twice its area times its unit normal.
    pub triangle_normals: Vec<Vec3A>,
}

/// A render mesh bound to a cloth's simulated surface (module docs): the binding, shared, and the
/// buffers its evaluation reuses (behind a lock: two threads writing one proxy at once take turns).
#[derive(Debug)]
pub struct RenderProxy {
    pub(crate) binding: Arc<Binding>,
    pub(crate) scratch: Mutex<Scratch>,
}

impl RenderProxy {
    /// A proxy with `binding` and buffers of its size.
    fn with_binding(binding: Arc<Binding>) -> RenderProxy {
        let mut particles = vec![[Vec3::ZERO; 2]; binding.model.particle_count()];
        if let Some(t) = &binding.model.tear {
            // Room for every particle cuts may add, so that a read after a cut allocates nothing.
            let most = (t.created_particles + t.max_extra) as usize;
            particles.reserve(most.saturating_sub(particles.len()));
        }
        let scratch = Scratch {
            particles,
            positions: vec![Vec3::ZERO; binding.vertices.len()],
            triangle_normals: vec![Vec3A::ZERO; binding.render_triangles.len()],
        };
        RenderProxy { binding, scratch: Mutex::new(scratch) }
    }

    /// A proxy sharing this one's binding, with buffers of its own (for an instance of its
    /// cloth).
    pub(crate) fn instance(&self) -> RenderProxy {
        RenderProxy::with_binding(Arc::clone(&self.binding))
    }

    /// Number of render vertices (the length of every proxy read and write).
    pub fn vertex_count(&self) -> u32 {
        self.binding.vertices.len() as u32
    }

    /// The largest distance \[m\] of a render vertex from the simulated surface at rest.
    pub fn max_rest_distance(&self) -> f32 {
        self.binding.max_rest_distance
    }

    /// Whether the proxy was bound to `model` (the model a cloth and its instances share).
    pub(crate) fn bound_to(&self, model: &Arc<ClothModel>) -> bool {
        Arc::ptr_eq(&self.binding.model, model)
    }
}

/// The unit normal of the triangle `x` (zero when degenerate).
#[inline]
pub(crate) fn face_normal(x: [Vec3; 3]) -> Vec3 {
    (x[1] - x[0]).cross(x[2] - x[0]).normalize_or_zero()
}

/// Σ wᵢ·aᵢ.
#[inline(always)]
pub(crate) fn weigh(w: [f32; 3], a: [Vec3; 3]) -> Vec3 {
    a[0] * w[0] + a[1] * w[1] + a[2] * w[2]
}

/// The interpolated unit normal at weights `w` of a triangle `x` with corner normals `n` (its face
/// normal where they cancel).
#[inline(always)]
pub(crate) fn interpolated_normal(w: [f32; 3], n: [Vec3; 3], x: [Vec3; 3]) -> Vec3 {
    weigh(w, n).try_normalize().unwrap_or_else(|| face_normal(x))
}
