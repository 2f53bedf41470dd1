//! Cloth constraints, one file per type. Each file opens with its C(x), its gradient and the
//! paper + equation it comes from; each type stores its constraints in flat arrays and has one
//! `solve` (a Gauss–Seidel sweep) and one `residuals` (|C| for the statistics).

mod access;
pub(crate) mod lanes;
pub mod bending;
pub mod colouring;
pub mod stretch;
mod sweep;
pub mod tether;

pub use bending::{BendingConstraints, dihedral_angle, dihedral_angle_and_gradient};
pub use stretch::{StretchConstraints, distance_and_gradient};
pub use tether::TetherConstraints;

use lanes::Real;

/// Denominators below this are treated as zero and the projection is skipped (all particles of the
/// constraint kinematic, or a vanishing gradient).
pub(crate) const MIN_DENOMINATOR: f32 = 1e-20;

/// Per-substep constants shared by every constraint of one type.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SubstepCoefficients {
    /// 1 / h² [1/s²], so that α̃ = α / h² is one multiply.
    pub inv_h2: f32,
    /// Constraint damping over the substep, β/h [N/m or N·m/rad], so that γ = α·β/h is one multiply.
    pub damping_over_h: f32,
}

impl SubstepCoefficients {
    /// Coefficients for substep length `h` [s] and constraint damping β = `damping`.
    pub fn new(h: f32, damping: f32) -> Self {
        SubstepCoefficients { inv_h2: 1.0 / (h * h), damping_over_h: damping / h }
    }

    /// Whether γ = 0 for every compliance (no damping): the kernels then skip ∇C·(x − x_prev).
    pub fn undamped(&self) -> bool {
        self.damping_over_h == 0.0
    }
}

/// XPBD Lagrange multiplier increment, Macklin, Müller & Chentanez 2016, eq. 18 with the damping
/// term of eq. 26:
///
/// Δλ = (−C − α̃·λ − γ·∇C·(x − x_prev)) / ((1 + γ)·Σ w_j |∇_j C|² + α̃),  α̃ = α/h², γ = α̃·β̃/h = α·β/h,
///
/// returned as (numerator, denominator) so that kernels can fold a further factor into the one
/// division. `weighted_grad2` is Σ w_j |∇_j C|², `grad_dot_dx` is Σ ∇_j C · (x_j − x_prev_j) (ignored
/// when `DAMPED` is false, which gives the same bits as γ = 0). A denominator not above
/// [`MIN_DENOMINATOR`] means the constraint cannot move anything: the kernels skip it.
#[inline(always)]
pub(crate) fn xpbd_delta_lambda_parts<T: Real, const DAMPED: bool>(
    c: T,
    lambda: T,
    compliance: T,
    k: &SubstepCoefficients,
    weighted_grad2: T,
    grad_dot_dx: T,
) -> (T, T) {
    let alpha_tilde = compliance * T::splat(k.inv_h2);
    if DAMPED {
        let gamma = compliance * T::splat(k.damping_over_h);
        let denominator = (T::splat(1.0) + gamma) * weighted_grad2 + alpha_tilde;
        (-c - alpha_tilde * lambda - gamma * grad_dot_dx, denominator)
    } else {
        (-c - alpha_tilde * lambda, weighted_grad2 + alpha_tilde)
    }
}
