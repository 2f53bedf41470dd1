//! One simulated cloth, in parts that change at different rates: the immutable [`ClothModel`]
//! (welded mesh, rest values) and `ConstraintLayout` (constraints in sweep order), both shared
//! behind `Arc`; the settings (`config`); the simulation state (`state`: what a snapshot and the
//! state hash cover); the solver's scratch (`scratch`); the outputs (normals, statistics) and the
//! explosion guard.

pub(crate) mod animation;
mod colouring;
pub(crate) mod config;
mod create;
mod desc;
mod drive;
mod frame;
pub mod guard;
pub(crate) mod grabs;
pub mod inertia;
mod inspect;
pub(crate) mod lod;
mod mass;
pub(crate) mod model;
pub(crate) mod normals;
mod output;
pub mod pressure;
pub(crate) mod reads;
pub(crate) mod pins;
mod ramp;
pub(crate) use relayout::layout_thread::LayoutThread;
mod relayout;
mod residuals;
pub(crate) mod scratch;
mod sleep;
pub mod skin;
pub mod snapshot;
pub mod tear;
pub(crate) mod state;
mod state_hash;
mod teleport;

pub use create::DEFAULT_CONSTRAINT_COLOURING;
pub use relayout::{BACKGROUND_MIN_CONSTRAINTS, LAYOUT_DELAY_STEPS};
pub use frame::VertexLayout;
pub use grabs::MAX_GRAB_STIFFNESS;
pub use desc::{ClothDesc, ClothParams, DEFAULT_MAX_EXTRA_VERTICES, DEFAULT_SELF_COLLISION, DEFAULT_WELD_TOLERANCE, MAX_STEP_INTERVAL, MAX_SUBSTEPS};
pub use guard::{ClothStatus, Instability, InstabilityKind, UnstableRecovery};
pub use inspect::{BendingView, StretchView, TetherView};
pub use model::{ClothModel, ISOLATED_PARTICLE_MASS};
pub use output::Energy;
pub use reads::ClothReads;
pub use snapshot::{SNAPSHOT_VERSION, SnapshotProblem};
pub use tear::RenderCounts;
pub use pressure::Closure;
pub use teleport::MAX_TELEPORT_TRANSLATION;

use crate::constraints::layout::ConstraintLayout;
use config::ClothConfig;
use glam::Vec3;
use output::ClothOutput;
use scratch::SolverScratch;
use state::ClothState;
use std::sync::Arc;

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
    /// Edges with three or more triangles in the mesh as given (stretch only, no bending, unless
    /// dropping duplicate triangles left two).
    pub non_manifold_edges: u32,
    /// Particles not used by any triangle: free particles, or held only by `ClothDesc::lines`.
    pub isolated_particles: u32,
    /// Render vertices welded with another (sharing a particle): UV seams, hard-normal splits.
    pub welded_vertices: u32,
    /// Triangles dropped because an earlier one has the same three particles (a double-sided
    /// mesh): their area is counted once.
    pub duplicate_triangles: u32,
    /// Edges between two triangles wound in the same direction along it, in the mesh as given.
    pub inconsistent_winding_edges: u32,
    /// Triangles whose winding was reversed so that each orientable part has one front side (the
    /// winding of most of its triangles). `triangle_count` and the normals are after this.
    pub flipped_triangles: u32,
    /// Interior edges without a bending hinge: non-manifold edges (3+ triangles) and edges whose
    /// two triangles have the same opposite corner.
    pub skipped_hinges: u32,
    /// The simulated triangles enclose a volume (no boundary or non-manifold edge, the winding
    /// consistent): `pressure` may be set. False after a tear.
    pub closed: bool,
}

/// A simulated cloth. Create it through [`crate::World::add_cloth`].
#[derive(Clone, Debug)]
pub struct Cloth {
    /// The welded mesh and its rest values.
    pub(crate) model: Arc<ClothModel>,
    /// The constraints in sweep order, for the current pins and colouring.
    pub(crate) layout: Arc<ConstraintLayout>,
    /// Settings, inverse masses, compliances.
    pub(crate) config: ClothConfig,
    /// Positions, velocities, pins, rest frame.
    pub(crate) state: ClothState,
    /// The solver's buffers.
    pub(crate) scratch: SolverScratch,
    /// Normals and statistics of the last step.
    pub(crate) output: ClothOutput,
    /// Explosion guard: last good state, status (see [`guard`]).
    pub(crate) guard: guard::Guard,
    /// Sleeping (`sleep`): how long it has been still, whether it sleeps.
    pub(crate) sleep: sleep::Sleep,
    /// The cloth's slot in its world (tells its own particles apart in the inter-cloth snapshot).
    pub(crate) world_key: u32,
    /// The layout for anchors changed since the last step, being built (`relayout`).
    pub(crate) pending: relayout::PendingSlot,
    /// Level of detail: where the state lies in time, in world steps (`lod`).
    pub(crate) lod: lod::Lod,
    /// The targets of the frames of `World::advance`, interpolated per step (`drive`).
    pub(crate) drive: drive::Drive,
}

impl Cloth {
    /// Mesh facts (counts after welding).
    pub fn info(&self) -> MeshInfo {
        self.model.info
    }

    /// Current settings.
    pub fn params(&self) -> &ClothParams {
        &self.config.params
    }

    /// The self- and inter-cloth collision radius r \[m\] in use: `self_collision_radius`, or when
    /// that is 0 (None) half the mesh's median rest edge length.
    pub fn self_collision_radius(&self) -> f32 {
        self.config.self_collision_radius
    }

    /// Whether this cloth and `other` share one immutable model (one is an instance of the other,
    /// see [`crate::World::add_instance`], or both of a third).
    pub fn shares_model_with(&self, other: &Cloth) -> bool {
        Arc::ptr_eq(&self.model, &other.model)
    }

    /// Number of render vertices (the length of every render-order output).
    pub fn vertex_count(&self) -> u32 {
        self.model.info.vertex_count
    }

    /// Number of simulation particles after welding.
    pub fn particle_count(&self) -> u32 {
        self.model.info.particle_count
    }

    /// Render vertex → particle map, `u32 × vertex_count`.
    pub fn particle_map(&self) -> &[u32] {
        &self.model.particle_of_vertex
    }

    /// Particle positions \[m\] in particle order, `particle_count` entries.
    pub fn particle_positions(&self) -> &[Vec3] {
        &self.state.x
    }

    /// Particle velocities \[m/s\] in particle order, `particle_count` entries.
    pub fn particle_velocities(&self) -> &[Vec3] {
        &self.state.v
    }

    /// Particle inverse masses \[1/kg\] in particle order as the solver uses them (0 while pinned).
    pub fn particle_inverse_masses(&self) -> &[f32] {
        &self.config.w
    }
}
