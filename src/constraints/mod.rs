//! Cloth constraints, one file per type. Each file opens with its C(x), its gradient and the
//! paper + equation it comes from; each type stores its constraints in flat arrays and has one
//! `solve` (a Gauss–Seidel sweep) and one `residuals` (|C| for the statistics).

mod access;
pub mod bending;
pub mod colouring;
pub mod stretch;
mod sweep;
pub mod tether;

pub use bending::{BendingConstraints, dihedral_angle, dihedral_angle_and_gradient};
pub use stretch::{StretchConstraints, distance_and_gradient};
pub use tether::TetherConstraints;

/// Denominators below this are treated as zero and the projection is skipped (all particles of the
/// constraint kinematic, or a vanishing gradient).
pub(crate) const MIN_DENOMINATOR: f32 = 1e-20;

/// Per-substep constants shared by every constraint of one type.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SubstepCoefficients {
    /// Substep length h [s].
    pub h: f32,
    /// 1 / h² [1/s²], so that α̃ = α / h² is one multiply.
    pub inv_h2: f32,
    /// Constraint damping β [N·s/m or N·m·s/rad, matching the constraint's force unit].
    pub damping: f32,
}

/// XPBD Lagrange multiplier increment, Macklin, Müller & Chentanez 2016, eq. 18 with the damping
/// term of eq. 26:
///
/// Δλ = (−C − α̃·λ − γ·∇C·(x − x_prev)) / ((1 + γ)·Σ w_j |∇_j C|² + α̃),  α̃ = α/h², γ = α̃·β̃/h = α·β/h.
///
/// `weighted_grad2` is Σ w_j |∇_j C|², `grad_dot_dx` is Σ ∇_j C · (x_j − x_prev_j).
/// Returns 0 when the denominator vanishes (the constraint cannot move anything).
#[inline(always)]
pub(crate) fn xpbd_delta_lambda(
    c: f32,
    lambda: f32,
    compliance: f32,
    k: &SubstepCoefficients,
    weighted_grad2: f32,
    grad_dot_dx: f32,
) -> f32 {
    let alpha_tilde = compliance * k.inv_h2;
    let gamma = compliance * k.damping / k.h;
    let denominator = (1.0 + gamma) * weighted_grad2 + alpha_tilde;
    if denominator > MIN_DENOMINATOR {
        (-c - alpha_tilde * lambda - gamma * grad_dot_dx) / denominator
    } else {
        0.0
    }
}
