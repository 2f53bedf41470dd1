//! What the solver works in during a step and keeps only for the statistics after it: the
//! substep-start positions, the sweeps' particle rows, the multipliers, the contact and pair
//! buffers. Sized when the cloth or its layout is built, so a step allocates nothing.

use crate::collision::contact::ContactScratch;
use crate::collision::inter_cloth::InterClothPairs;
use crate::collision::self_collision::SelfCollision;
use crate::constraints::access::SolverParticle;
use crate::constraints::layout::ConstraintLayout;
use glam::{Vec3, Vec3A};

/// The solver's buffers of one cloth (module docs).
#[derive(Clone, Debug)]
pub(crate) struct SolverScratch {
    /// Positions at the start of the current substep \[m\], one per particle.
    pub x_prev: Vec<Vec3>,
    /// Position and inverse mass per particle in the constraint sweeps' 16-byte rows: they hold
    /// the positions during a step (`constraints::access`).
    pub rows: Vec<SolverParticle>,
    /// Lagrange multipliers λ of the last substep, one per constraint in the layout's order:
    /// stretch and tethers \[N·s²\], bending \[N·m·s²\].
    pub stretch_lambda: Vec<f32>,
    pub bend_lambda: Vec<f32>,
    pub tether_lambda: Vec<f32>,
    /// Per-particle contact state of the current substep.
    pub contacts: ContactScratch,
    /// Self-collision broad phase: hash grid, this step's candidate pairs.
    pub self_collision: SelfCollision,
    /// Pairs with other cloths' particles for the current step (inter-cloth collision).
    pub inter_cloth: InterClothPairs,
    /// The strain limit's edge lists and visit marks.
    pub strain_limit: StrainLimitScratch,
    /// A vector per triangle: the unnormalised normals (2·area \[m²\] long), the aerodynamic forces
    /// of a substep \[N\]. 16-byte `Vec3A`s: each particle sums its triangles' vectors, one SIMD
    /// load and add each.
    pub per_triangle: Vec<Vec3A>,
    /// The animated pose of the current substep, sized when an animation is first set.
    pub animation: AnimationScratch,
    /// The volume constraint's gradient and sums, sized when pressure is switched on.
    pub volume: crate::constraints::volume::VolumeScratch,
    /// Tearing's buffers (`cloth::tear`), sized for a tearable cloth when it is created.
    pub tear: super::tear::TearWork,
}

/// The animated pose at the end of the current substep (`crate::cloth::animation`) and the anim
/// drive's multipliers.
#[derive(Clone, Debug, Default)]
pub(crate) struct AnimationScratch {
    /// Animated position a \[m\] and backstop sphere centre \[m\] per particle (the centre only
    /// with backstops set).
    pub x: Vec<Vec3A>,
    pub centre: Vec<Vec3A>,
    /// The anim drive's λ \[N·s²\] per particle, 0 at each substep's start.
    pub lambda: Vec<f32>,
}

impl AnimationScratch {
    /// Sized for `particles` (allocates only the first time).
    pub fn fit(&mut self, particles: usize) {
        self.x.resize(particles, Vec3A::ZERO);
        self.centre.resize(particles, Vec3A::ZERO);
        self.lambda.resize(particles, 0.0);
    }
}

impl SolverScratch {
    /// Buffers for `particles` particles, `triangles` triangles and `layout`'s constraints.
    pub fn new(particles: usize, triangles: usize, layout: &ConstraintLayout) -> SolverScratch {
        let mut scratch = SolverScratch {
            x_prev: vec![Vec3::ZERO; particles],
            rows: vec![SolverParticle::ZERO; particles],
            stretch_lambda: Vec::new(),
            bend_lambda: Vec::new(),
            tether_lambda: Vec::new(),
            contacts: ContactScratch::new(particles),
            self_collision: SelfCollision::default(),
            inter_cloth: InterClothPairs::default(),
            strain_limit: StrainLimitScratch::default(),
            per_triangle: vec![Vec3A::ZERO; triangles],
            animation: AnimationScratch::default(),
            volume: Default::default(),
            tear: Default::default(),
        };
        scratch.fit(layout);
        scratch
    }

    /// One multiplier per constraint of `layout`, all 0.
    fn fit(&mut self, layout: &ConstraintLayout) {
        self.strain_limit = StrainLimitScratch::sized(layout.stretch.edges().len(), self.rows.len());
        self.stretch_lambda = vec![0.0; layout.stretch.edges().len()];
        self.bend_lambda = vec![0.0; layout.bending.hinges().len()];
        self.tether_lambda = vec![0.0; layout.tethers.particle().len()];
    }
}

/// The strain limit's buffers (`solver/strain_limit.rs`), sized for every edge and particle.
#[derive(Clone, Debug, Default)]
pub(crate) struct StrainLimitScratch {
    /// The edges over the limit this round, in storage order.
    pub candidates: Vec<u32>,
    /// The second half's edges over the limit, when a scan is split over two threads.
    pub second_half: Vec<u32>,
    /// Per particle, its position \[m\] before the limit (what moved becomes velocity).
    pub before: Vec<Vec3>,
    /// The anchors (a bit per particle) the order below was made for, if `ordered`.
    pub anchors: Vec<u64>,
    pub ordered: bool,
    /// The anchors of this step, compared with `anchors`.
    pub next_anchors: Vec<u64>,
    /// Per particle, its hop distance from the nearest anchor (u32::MAX: none reaches it).
    pub level: Vec<u32>,
    /// The particles the anchors reach, anchors excluded, level by level; level k + 1's are
    /// `order[level_start[k]..level_start[k + 1]]`.
    pub order: Vec<u32>,
    pub level_start: Vec<u32>,
    /// The edges of `order[k]` to the level before, (particle, parent, edge):
    /// `parents[parent_start[k]..parent_start[k + 1]]`, in `order`.
    pub parents: Vec<(u32, u32, u32)>,
    pub parent_start: Vec<u32>,
    /// The edges within level k + 1 (each once): `siblings[sibling_start[k]..sibling_start[k + 1]]`.
    pub siblings: Vec<u32>,
    pub sibling_start: Vec<u32>,
    /// The levels' chain groups (`solver/strain_limit/chains.rs`), (particle, parent, edge) from
    /// each group's centre outward: group g is `chain[group_start[g]..group_start[g + 1]]`, level
    /// k + 1's groups are `level_groups[k]..level_groups[k + 1]`. Empty when friction holds some
    /// anchor.
    pub chain: Vec<(u32, u32, u32)>,
    pub level_groups: Vec<u32>,
    pub group_start: Vec<u32>,
    /// The chains' search: hops per particle, the (particle, edge) each was reached by, the
    /// queue, and which edges are in a chain.
    pub hops: Vec<u32>,
    pub via: Vec<(u32, u32)>,
    pub queue: Vec<u32>,
    pub in_chain: Vec<bool>,
    /// A chain group's positions \[m\] before it is followed.
    pub group_before: Vec<Vec3>,
}

impl StrainLimitScratch {
    pub(crate) fn sized(edges: usize, particles: usize) -> Self {
        let before = vec![Vec3::ZERO; particles];
        StrainLimitScratch {
            candidates: Vec::with_capacity(edges),
            second_half: Vec::with_capacity(edges),
            before,
            anchors: vec![0; particles.div_ceil(64)],
            ordered: false,
            next_anchors: vec![0; particles.div_ceil(64)],
            level: vec![u32::MAX; particles],
            order: Vec::with_capacity(particles),
            level_start: Vec::with_capacity(particles + 1),
            parents: Vec::with_capacity(edges),
            parent_start: Vec::with_capacity(particles + 1),
            siblings: Vec::with_capacity(edges),
            sibling_start: Vec::with_capacity(particles + 1),
            chain: Vec::with_capacity(particles),
            level_groups: Vec::with_capacity(particles + 1),
            group_start: Vec::with_capacity(particles + 1),
            hops: vec![0; particles],
            via: vec![(0, 0); particles],
            queue: Vec::with_capacity(particles),
            in_chain: vec![false; edges],
            group_before: Vec::with_capacity(particles),
        }
    }
}
