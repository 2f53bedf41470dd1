//! The statistics of a cloth's last step as the C ABI lays them out (`xpbd_cloth_get_stats`).

use crate::stats::{ClothStats, ConstraintStats};

/// Statistics of one constraint type after a step.
///
/// |C| is evaluated at the positions the step ends with (after the velocity update), in the
/// constraint's own unit (m for stretch and tethers, rad for bending). λ/h² is the XPBD force
/// estimate (Macklin et al. 2016, §4: f = ∇C·λ/h²) of the last substep: N for stretch and tethers,
/// N·m for bending. Negative λ means tension (the constraint pulls its particles together).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct XpbdConstraintStats {
    /// Number of active constraints of this type (0 when the type is disabled).
    pub count: u32,
    /// Mean |C|.
    pub mean_abs_c: f32,
    /// 95th percentile of |C| (nearest-rank).
    pub p95_abs_c: f32,
    /// Largest |C|.
    pub max_abs_c: f32,
    /// Smallest λ/h² of the last substep.
    pub min_force: f32,
    /// Largest λ/h² of the last substep.
    pub max_force: f32,
}

/// Statistics of one cloth after its last step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct XpbdClothStats {
    /// Edge distance constraints: |C| in m, forces in N.
    pub stretch: XpbdConstraintStats,
    /// Dihedral bending constraints: |C| in rad, torques in N·m.
    pub bending: XpbdConstraintStats,
    /// Tethers: |C| = distance beyond the allowed length in m, forces in N.
    pub tether: XpbdConstraintStats,
    /// Largest relative edge elongation (‖x_i − x_j‖ − L)/L; 0 when no edge is stretched.
    pub max_edge_strain: f32,
    /// Substeps used by the last step.
    pub substeps: u32,
    /// Iterations per substep used by the last step.
    pub iterations: u32,
    /// (Free particle, collider) pairs touching at the end of the step: gap to the thickened
    /// surface at most 1 % of the collision thickness (+ 1 µm), colliders at their end pose; plus
    /// the edges touching a thin sphere or capsule (radius + thickness shorter than the cloth's
    /// longest edge) between their particles, where the edge itself is held.
    pub contact_count: u32,
    /// Largest penetration max(0, thickness − d) (m) of a free particle into a collider it
    /// collides with, or of an edge's point into a thin sphere or capsule, at the end of the
    /// step; 0 without contacts.
    pub max_penetration: f32,
    /// Self-collision candidate pairs the broad phase found for the last step (each tested in
    /// every iteration of every substep); 0 with self-collision off.
    pub self_pairs_tested: u32,
    /// Self-collision pairs touching at the end of the step: distance at most 2r·1.01.
    pub self_contact_count: u32,
    /// Inter-cloth candidate pairs (this cloth's particle, another cloth's particle) of the last
    /// step; 0 with inter-cloth collision off.
    pub inter_cloth_pairs_tested: u32,
    /// The median of the edges' stretch max(0, |x_i - x_j|/L - 1) at the end of the step (nearest rank).
    pub strain_p50: f32,
    /// Its 95th percentile.
    pub strain_p95: f32,
    /// Its 99th percentile (its maximum is `max_edge_strain`).
    pub strain_p99: f32,
    /// The stretch the pins (and kinematic vertices) force on the cloth, as a strain: over every
    /// particle tethered to two anchors a and b at rest distances d_a and d_b along the mesh, the
    /// largest |x_a - x_b|/(d_a + d_b) - 1, or 0. A hard pin dragged away from the others shows
    /// here: the cloth between them is at least that stretched on average, beyond what the solver
    /// or `max_stretch` can remove (grab with `xpbd_cloth_grab` instead). 0 with `enable_tethers` off.
    pub pin_strain: f32,
    /// Edges cut by the last step's tearing (`tear_strain`): each over-strained edge that tore
    /// opened the cloth across it, cutting one or two edges at one of its ends; 0 without tearing.
    pub torn_edges_last_step: u32,
}

impl From<&ConstraintStats> for XpbdConstraintStats {
    fn from(s: &ConstraintStats) -> Self {
        XpbdConstraintStats {
            count: s.count,
            mean_abs_c: s.mean_abs_c,
            p95_abs_c: s.p95_abs_c,
            max_abs_c: s.max_abs_c,
            min_force: s.min_force,
            max_force: s.max_force,
        }
    }
}

impl From<&ClothStats> for XpbdClothStats {
    fn from(s: &ClothStats) -> Self {
        XpbdClothStats {
            stretch: (&s.stretch).into(),
            bending: (&s.bending).into(),
            tether: (&s.tether).into(),
            max_edge_strain: s.max_edge_strain,
            substeps: s.substeps,
            iterations: s.iterations,
            contact_count: s.contact_count,
            max_penetration: s.max_penetration,
            self_pairs_tested: s.self_pairs_tested,
            self_contact_count: s.self_contact_count,
            inter_cloth_pairs_tested: s.inter_cloth_pairs_tested,
            strain_p50: s.strain_p50,
            strain_p95: s.strain_p95,
            strain_p99: s.strain_p99,
            pin_strain: s.pin_strain,
            torn_edges_last_step: s.torn_edges_last_step,
        }
    }
}
