//! Stretch (edge distance) constraint on every unique mesh edge.
//!
//! C(x_i, x_j) = ‖x_i − x_j‖ − L,  ∇_i C = n,  ∇_j C = −n,  n = (x_i − x_j)/‖x_i − x_j‖
//! (Müller et al. 2006, Position Based Dynamics, §3.3 / eq. 10–11; solved with the XPBD update,
//! Macklin et al. 2016, eq. 18 and 26). Compliance α in m/N, λ in N·s², force ≈ λ/h² [N].

use super::{SubstepCoefficients, xpbd_delta_lambda};
use glam::Vec3;

/// C and ∇_i C of one distance constraint, or `None` when the particles coincide (the gradient is
/// undefined there and the projection is skipped).
#[inline(always)]
pub fn distance_and_gradient(xi: Vec3, xj: Vec3, rest_length: f32) -> Option<(f32, Vec3)> {
    let d = xi - xj;
    let len = d.length();
    if len > 1e-9 { Some((len - rest_length, d / len)) } else { None }
}

/// All stretch constraints of one cloth, structure-of-arrays.
#[derive(Clone, Debug, Default)]
pub struct StretchConstraints {
    /// Particle pairs `[i, j]`.
    pub edges: Vec<[u32; 2]>,
    /// Rest length L [m].
    pub rest_length: Vec<f32>,
    /// Compliance α [m/N] per edge.
    pub compliance: Vec<f32>,
    /// Lagrange multiplier λ of the current substep [N·s²]; reset to 0 every substep.
    pub lambda: Vec<f32>,
}

impl StretchConstraints {
    /// One Gauss–Seidel sweep over all edges in storage order.
    pub(crate) fn solve(&mut self, x: &mut [Vec3], x_prev: &[Vec3], w: &[f32], k: &SubstepCoefficients) {
        for c in 0..self.edges.len() {
            let [i, j] = self.edges[c];
            let (i, j) = (i as usize, j as usize);
            let (wi, wj) = (w[i], w[j]);
            let Some((value, n)) = distance_and_gradient(x[i], x[j], self.rest_length[c]) else {
                continue;
            };
            let grad_dot_dx = n.dot((x[i] - x_prev[i]) - (x[j] - x_prev[j]));
            let dl = xpbd_delta_lambda(value, self.lambda[c], self.compliance[c], k, wi + wj, grad_dot_dx);
            self.lambda[c] += dl;
            x[i] += n * (wi * dl);
            x[j] -= n * (wj * dl);
        }
    }

    /// |C| of every edge at positions `x`, appended to `out`.
    pub(crate) fn residuals(&self, x: &[Vec3], out: &mut Vec<f32>) {
        out.extend(self.edges.iter().zip(&self.rest_length).map(|(&[i, j], &l)| {
            ((x[i as usize] - x[j as usize]).length() - l).abs()
        }));
    }

    /// Largest relative elongation (‖x_i − x_j‖ − L)/L over all edges, 0 if none is stretched.
    pub fn max_strain(&self, x: &[Vec3]) -> f32 {
        self.edges.iter().zip(&self.rest_length).fold(0.0f32, |m, (&[i, j], &l)| {
            if l > 0.0 { m.max(((x[i as usize] - x[j as usize]).length() - l) / l) } else { m }
        })
    }
}
