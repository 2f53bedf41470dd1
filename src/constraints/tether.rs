//! Tethers (long-range attachments), Kim, Chentanez & Müller 2012, "Long Range Attachments — A
//! Method to Simulate Inextensible Clothing in Computer Games", §3–4.
//!
//! Each free particle i that is connected through the mesh to a kinematic (pinned) particle a gets
//! one inequality constraint to the anchor a nearest to it along the mesh:
//!
//! C(x) = ‖x_i − x_a‖ − s·d_geo(i, a) ≤ 0,  ∇_i C = n = (x_i − x_a)/‖x_i − x_a‖
//!
//! where d_geo is the rest shortest-path distance along mesh edges (an upper bound of the geodesic
//! distance) and s ≥ 1 the slack factor. It is projected only while violated, so it never pulls a
//! particle towards its anchor; it only stops the chain of edges from stretching beyond what a
//! one-pass Gauss–Seidel sweep can recover, which is what keeps light, stiff, fine cloth stable.

use super::{SubstepCoefficients, xpbd_delta_lambda};
use glam::Vec3;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// All tethers of one cloth, structure-of-arrays.
#[derive(Clone, Debug, Default)]
pub struct TetherConstraints {
    /// Constrained (free) particle.
    pub particle: Vec<u32>,
    /// Anchor (kinematic) particle.
    pub anchor: Vec<u32>,
    /// Rest geodesic distance d_geo [m] (before the slack factor).
    pub geodesic_distance: Vec<f32>,
    /// Lagrange multiplier λ of the current substep [N·s²].
    pub lambda: Vec<f32>,
}

impl TetherConstraints {
    /// Rebuild the tethers for the current set of kinematic particles (`w == 0`), by multi-source
    /// Dijkstra over the edge graph with rest lengths. Particles not connected to any anchor get
    /// no tether. Runs when pins change, never per step.
    pub fn build(particle_count: usize, edges: &[[u32; 2]], rest_length: &[f32], w: &[f32]) -> Self {
        // CSR adjacency.
        let mut start = vec![0u32; particle_count + 1];
        for &[i, j] in edges {
            start[i as usize + 1] += 1;
            start[j as usize + 1] += 1;
        }
        for k in 0..particle_count {
            start[k + 1] += start[k];
        }
        let mut fill = start.clone();
        let mut neighbour = vec![(0u32, 0.0f32); edges.len() * 2];
        for (&[i, j], &l) in edges.iter().zip(rest_length) {
            neighbour[fill[i as usize] as usize] = (j, l);
            fill[i as usize] += 1;
            neighbour[fill[j as usize] as usize] = (i, l);
            fill[j as usize] += 1;
        }

        let mut dist = vec![f64::INFINITY; particle_count];
        let mut source = vec![u32::MAX; particle_count];
        // Heap of (distance bits, particle): f64 bits of non-negative numbers order like the numbers;
        // ties broken by particle index, so the result is deterministic.
        let mut heap = BinaryHeap::new();
        for p in 0..particle_count {
            if w[p] == 0.0 {
                dist[p] = 0.0;
                source[p] = p as u32;
                heap.push(Reverse((0u64, p as u32)));
            }
        }
        while let Some(Reverse((d_bits, p))) = heap.pop() {
            let d = f64::from_bits(d_bits);
            if d > dist[p as usize] {
                continue;
            }
            for &(q, l) in &neighbour[start[p as usize] as usize..start[p as usize + 1] as usize] {
                let nd = d + l as f64;
                if nd < dist[q as usize] {
                    dist[q as usize] = nd;
                    source[q as usize] = source[p as usize];
                    heap.push(Reverse((nd.to_bits(), q)));
                }
            }
        }

        let mut t = TetherConstraints::default();
        for p in 0..particle_count {
            if w[p] > 0.0 && source[p] != u32::MAX {
                t.particle.push(p as u32);
                t.anchor.push(source[p]);
                t.geodesic_distance.push(dist[p] as f32);
            }
        }
        t.lambda = vec![0.0; t.particle.len()];
        t
    }

    /// One Gauss–Seidel sweep; `slack` is s, `compliance` α [m/N] for all tethers.
    pub(crate) fn solve(
        &mut self,
        x: &mut [Vec3],
        x_prev: &[Vec3],
        w: &[f32],
        slack: f32,
        compliance: f32,
        k: &SubstepCoefficients,
    ) {
        for c in 0..self.particle.len() {
            let (i, a) = (self.particle[c] as usize, self.anchor[c] as usize);
            let d = x[i] - x[a];
            let len = d.length();
            let value = len - slack * self.geodesic_distance[c];
            if value <= 0.0 || len <= 1e-9 {
                continue;
            }
            let n = d / len;
            let (wi, wa) = (w[i], w[a]);
            let grad_dot_dx = n.dot((x[i] - x_prev[i]) - (x[a] - x_prev[a]));
            let dl = xpbd_delta_lambda(value, self.lambda[c], compliance, k, wi + wa, grad_dot_dx);
            self.lambda[c] += dl;
            x[i] += n * (wi * dl);
            x[a] -= n * (wa * dl);
        }
    }

    /// max(0, C) of every tether at positions `x`.
    pub(crate) fn residuals(&self, x: &[Vec3], slack: f32, out: &mut Vec<f32>) {
        out.extend((0..self.particle.len()).map(|c| {
            let (i, a) = (self.particle[c] as usize, self.anchor[c] as usize);
            ((x[i] - x[a]).length() - slack * self.geodesic_distance[c]).max(0.0)
        }));
    }
}
