//! The XPBD multiplier update shared by every reference constraint (Macklin, Müller & Chentanez
//! 2016, "XPBD: Position-Based Simulation of Compliant Constrained Dynamics").

use glam::DVec3;

/// A constraint's compliance α, its damping β and the substep h \[s\] it is solved in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Compliance {
    /// α, inverse stiffness in the constraint's SI units (m/N for a distance).
    pub alpha: f64,
    /// β, constraint damping (N·s/m for a distance); only acts where α > 0.
    pub beta: f64,
    /// Substep length h \[s\].
    pub h: f64,
}

/// What one projection of an `N`-particle constraint changes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Projection<const N: usize> {
    /// Δλ, added to the constraint's multiplier.
    pub delta_lambda: f64,
    /// Δx_k = w_k·∇_k C·Δλ of each particle \[m\].
    pub dx: [DVec3; N],
    /// Σ_k w_k |∇_k C|², the denominator's mass term.
    pub weighted_gradient_norm2: f64,
}

/// XPBD eq. 18 with the damping term of eq. 26:
///
/// Δλ = (−C − α̃·λ − γ·∇C·(x − xⁿ)) / ((1 + γ)·∇C M⁻¹ ∇Cᵀ + α̃),  α̃ = α/h²,  γ = α̃·β̃/h with β̃ = h²·β.
///
/// `c` is C(x), `lambda` the multiplier so far in this substep, `weighted_gradient_norm2` is
/// ∇C M⁻¹ ∇Cᵀ = Σ w_k |∇_k C|² and `gradient_dot_motion` is Σ ∇_k C·(x_k − xⁿ_k), xⁿ the
/// positions at the substep's start. `None` when the denominator is not positive (nothing can
/// move: every particle kinematic and α = 0) or not a number.
pub(crate) fn delta_lambda(c: f64, lambda: f64, k: Compliance, weighted_gradient_norm2: f64, gradient_dot_motion: f64) -> Option<f64> {
    let alpha_tilde = k.alpha / (k.h * k.h);
    let beta_tilde = k.h * k.h * k.beta;
    let gamma = alpha_tilde * beta_tilde / k.h;
    let denominator = (1.0 + gamma) * weighted_gradient_norm2 + alpha_tilde;
    if !(denominator > 0.0) {
        return None;
    }
    Some((-c - alpha_tilde * lambda - gamma * gradient_dot_motion) / denominator)
}
