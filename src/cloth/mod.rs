//! One simulated cloth: its immutable model (welded topology, rest values), its constraints and its
//! mutable state (particle positions, velocities, pins).

mod colouring;
mod create;
mod desc;
pub mod guard;
pub mod inertia;
mod normals;
mod output;
pub(crate) mod pins;
mod residuals;
pub mod snapshot;
mod state_hash;
mod teleport;

pub use create::DEFAULT_CONSTRAINT_COLOURING;
pub use desc::{ClothDesc, ClothParams, DEFAULT_SELF_COLLISION, DEFAULT_WELD_TOLERANCE, MAX_SUBSTEPS};
pub use guard::{ClothStatus, Instability, InstabilityKind, UnstableRecovery};
pub use output::Energy;
pub use snapshot::{SNAPSHOT_VERSION, SnapshotProblem};
pub use teleport::MAX_TELEPORT_TRANSLATION;
pub(crate) use normals::ParticleTriangles;
pub(crate) use pins::Pins;

use crate::collision::contact::ContactScratch;
use crate::collision::inter_cloth::InterClothPairs;
use crate::collision::self_collision::SelfCollision;
use crate::constraints::{BendingConstraints, StretchConstraints, TetherConstraints};
use crate::stats::ClothStats;
use glam::Vec3;

/// Mesh facts found while creating a cloth, for reports and debugging.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MeshInfo {
    /// Render vertices passed in.
    pub vertex_count: u32,
    /// Simulation particles after welding.
    pub particle_count: u32,
    /// Triangles.
    pub triangle_count: u32,
    /// Unique edges (= stretch constraints).
    pub edge_count: u32,
    /// Interior edges with a bending hinge.
    pub hinge_count: u32,
    /// Edges with one triangle.
    pub boundary_edges: u32,
    /// Edges with three or more triangles (stretch only, no bending).
    pub non_manifold_edges: u32,
    /// Particles not used by any triangle: free particles, or held only by `ClothDesc::lines`.
    pub isolated_particles: u32,
}

/// Particle state, structure-of-arrays, indexed by particle.
#[derive(Clone, Debug, Default)]
pub(crate) struct Particles {
    /// Positions x \[m\].
    pub x: Vec<Vec3>,
    /// Positions at the start of the current substep \[m\].
    pub x_prev: Vec<Vec3>,
    /// Velocities v \[m/s\].
    pub v: Vec<Vec3>,
    /// Inverse masses w \[1/kg\] used by the solver (0 while pinned).
    pub w: Vec<f32>,
    /// Inverse masses when not pinned \[1/kg\].
    pub w_free: Vec<f32>,
}

/// A simulated cloth. Create it through [`crate::World::add_cloth`].
#[derive(Clone, Debug)]
pub struct Cloth {
    pub(crate) info: MeshInfo,
    /// Render vertex → particle.
    pub(crate) particle_of_vertex: Vec<u32>,
    /// Triangles in particle indices (for normals and wind).
    pub(crate) triangles: Vec<[u32; 3]>,
    /// Rest data kept to re-derive compliances when the material changes.
    pub(crate) edge_adjacent_area: Vec<f32>,
    pub(crate) hinge_adjacent_area: Vec<f32>,
    pub(crate) hinge_edge_length: Vec<f32>,
    /// Creation index of each stored edge (edges are re-sorted when pins or colouring change).
    pub(crate) edge_creation_index: Vec<u32>,
    /// Creation index of each stored hinge (hinges are re-sorted when colouring is switched).
    pub(crate) hinge_creation_index: Vec<u32>,
    /// Rest mesh distance graph for tethers: every edge plus the diagonal across every hinge
    /// (x0–x1), with rest lengths \[m\]. The diagonals let shortest paths cut across quads, so the
    /// graph distance overestimates the true geodesic by ~3 % on a triangulated grid instead of ~8 %.
    pub(crate) distance_graph: (Vec<[u32; 2]>, Vec<f32>),
    /// Particle masses from areal density (used when no inverse masses were given).
    pub(crate) masses_from_density: bool,
    pub(crate) particle_area: Vec<f32>,

    pub(crate) particles: Particles,
    pub(crate) pins: Pins,
    pub(crate) stretch: StretchConstraints,
    pub(crate) bending: BendingConstraints,
    pub(crate) tethers: TetherConstraints,
    pub(crate) params: ClothParams,
    /// Constraint colouring for parallel sweeps (see [`Cloth::set_constraint_colouring`]).
    pub(crate) colouring: bool,
    /// Per-particle contact state of the current substep.
    pub(crate) contacts: ContactScratch,
    /// Self-collision broad phase: rest positions, hash grid, this step's candidate pairs.
    pub(crate) self_collision: SelfCollision,
    /// Pairs with other cloths' particles for the current step (inter-cloth collision).
    pub(crate) inter_cloth: InterClothPairs,
    /// The cloth's slot in its world (tells its own particles apart in the inter-cloth snapshot).
    pub(crate) world_key: u32,

    /// Area-weighted unit normal per particle, refreshed at the end of every step.
    pub(crate) normals: Vec<Vec3>,
    /// Position and inverse mass per particle in the constraint sweeps' 16-byte rows, packed before
    /// and unpacked after the sweeps of every iteration (`constraints::access`; no allocation).
    pub(crate) sweep_rows: Vec<crate::constraints::access::SolverParticle>,
    /// Each particle's triangles, for summing normals per particle (see [`normals`]).
    pub(crate) particle_triangles: ParticleTriangles,
    /// A vector per triangle, scratch reused without allocation: the unnormalised normals of
    /// [`Cloth::update_normals`] (2·area \[m²\] long), the aerodynamic forces of a substep \[N\].
    /// 16-byte `Vec3A`s: each particle sums its triangles' vectors, one SIMD load and add each
    /// (as 12-byte `Vec3`s, three scalar loads and adds).
    pub(crate) per_triangle: Vec<glam::Vec3A>,
    /// The statistics the last step produced itself: substeps, iterations, contact and pair
    /// counts (the residual fields stay zero here; [`Cloth::stats`] adds them when first read).
    pub(crate) stats: ClothStats,
    /// The last step's residual statistics, computed when first read ([`residuals`]).
    pub(crate) residuals: residuals::LazyResiduals,
    /// Substep length h \[s\] of the last step (0 before the first).
    pub(crate) last_substep: f32,
    /// Explosion guard: last good state, rest pose, status (see [`guard`]).
    pub(crate) guard: guard::Guard,
    /// Identifies the mesh in snapshots (see [`snapshot`]).
    pub(crate) mesh_fingerprint: u64,
}

impl Cloth {
    /// Mesh facts (counts after welding).
    pub fn info(&self) -> MeshInfo {
        self.info
    }

    /// Current settings.
    pub fn params(&self) -> &ClothParams {
        &self.params
    }

    /// Number of render vertices (the length of every render-order output).
    pub fn vertex_count(&self) -> u32 {
        self.info.vertex_count
    }

    /// Number of simulation particles after welding.
    pub fn particle_count(&self) -> u32 {
        self.info.particle_count
    }

    /// Render vertex → particle map, `u32 × vertex_count`.
    pub fn particle_map(&self) -> &[u32] {
        &self.particle_of_vertex
    }

    /// Particle positions \[m\] in particle order, `particle_count` entries.
    pub fn particle_positions(&self) -> &[Vec3] {
        &self.particles.x
    }

    /// Particle velocities \[m/s\] in particle order, `particle_count` entries.
    pub fn particle_velocities(&self) -> &[Vec3] {
        &self.particles.v
    }

    /// Particle inverse masses \[1/kg\] in particle order as the solver uses them (0 while pinned).
    pub fn particle_inverse_masses(&self) -> &[f32] {
        &self.particles.w
    }

    /// The stretch constraints (edges, rest lengths, compliances, last λ).
    pub fn stretch_constraints(&self) -> &StretchConstraints {
        &self.stretch
    }

    /// The bending constraints (hinges, rest angles, compliances, last λ).
    pub fn bending_constraints(&self) -> &BendingConstraints {
        &self.bending
    }

    /// The tethers (particle, anchor, rest geodesic distance, last λ); empty without pins.
    pub fn tether_constraints(&self) -> &TetherConstraints {
        &self.tethers
    }
}
