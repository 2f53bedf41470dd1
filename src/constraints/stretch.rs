//! Stretch (edge distance) constraint on every unique mesh edge.
//!
//! C(x_i, x_j) = ‖x_i − x_j‖ − L,  ∇_i C = n,  ∇_j C = −n,  n = (x_i − x_j)/‖x_i − x_j‖
//! (Müller et al. 2006, Position Based Dynamics, §3.3 / eq. 10–11; solved with the XPBD update,
//! Macklin et al. 2016, eq. 18 and 26). Compliance α in m/N, λ in N·s², force ≈ λ/h² [N].

use super::access::Positions;
use super::sweep::{Sweep, sweep};
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
    /// Start of each colour in storage order (`colour_count + 1` offsets) when the edges are
    /// coloured for parallel sweeps (no two edges of a colour share a particle); empty otherwise.
    pub colour_start: Vec<u32>,
}

/// The stretch projection for [`sweep`]; `DAMPED` is false when β = 0.
struct StretchSweep<'a, const DAMPED: bool> {
    edges: &'a [[u32; 2]],
    rest_length: &'a [f32],
    compliance: &'a [f32],
    x_prev: &'a [Vec3],
    w: &'a [f32],
    k: &'a SubstepCoefficients,
}

impl<const DAMPED: bool> Sweep for StretchSweep<'_, DAMPED> {
    #[inline]
    fn project_range<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
        for (c, lambda) in (first..).zip(lambda) {
            let [i, j] = self.edges[c];
            let (i, j) = (i as usize, j as usize);
            let (wi, wj) = (self.w[i], self.w[j]);
            let (xi, xj) = (x.get(i), x.get(j));
            let Some((value, n)) = distance_and_gradient(xi, xj, self.rest_length[c]) else {
                continue;
            };
            let grad_dot_dx = if DAMPED { n.dot((xi - self.x_prev[i]) - (xj - self.x_prev[j])) } else { 0.0 };
            let dl = xpbd_delta_lambda(value, *lambda, self.compliance[c], self.k, wi + wj, grad_dot_dx);
            *lambda += dl;
            x.set(i, xi + n * (wi * dl));
            x.set(j, xj - n * (wj * dl));
        }
    }
}

impl StretchConstraints {
    /// One Gauss–Seidel sweep over all edges in storage order; with `parallel`, colour by colour
    /// on the current rayon pool (same bits; needs [`StretchConstraints::colour_start`]).
    pub(crate) fn solve(&mut self, x: &mut [Vec3], x_prev: &[Vec3], w: &[f32], k: &SubstepCoefficients, parallel: bool) {
        let colours = (parallel && !self.colour_start.is_empty()).then_some(self.colour_start.as_slice());
        let (edges, rest_length, compliance) = (&self.edges[..], &self.rest_length[..], &self.compliance[..]);
        // Without damping γ = 0 and ∇C·(x − x_prev) is not needed: skip reading x_prev.
        if k.damping == 0.0 {
            let kernel = StretchSweep::<false> { edges, rest_length, compliance, x_prev, w, k };
            sweep(&kernel, x, &mut self.lambda, colours);
        } else {
            let kernel = StretchSweep::<true> { edges, rest_length, compliance, x_prev, w, k };
            sweep(&kernel, x, &mut self.lambda, colours);
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
