//! The reference: a plain scalar, single-threaded Gauss–Seidel XPBD loop over the same constraints
//! as the library's solver (copied out of a created cloth), written the way a textbook or a first
//! implementation would: array-of-structs `[f32; 3]`, bounds-checked indexing, every per-constraint
//! quantity recomputed in the loop. The bench times it in the same run as the library, so the
//! speed-up is a ratio measured on the same machine under the same load.
//!
//! Per substep (docs/design.md, "Substep order"): predict, λ = 0, one bending sweep, two stretch
//! sweeps, one tether sweep (one projection per tether, no exact pair finish), v = (x − x_prev)/h.
//! No colliders, no wind.

use xpbd_cloth::Cloth;

type V3 = [f32; 3];

fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn add_scaled(a: &mut V3, b: V3, s: f32) {
    for k in 0..3 {
        a[k] += b[k] * s;
    }
}
fn dot(a: V3, b: V3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: V3, b: V3) -> V3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
fn scale(a: V3, s: f32) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}

/// The constraint data and particle state of one cloth, in plain arrays.
pub struct Reference {
    x: Vec<V3>,
    x_prev: Vec<V3>,
    v: Vec<V3>,
    w: Vec<f32>,
    edges: Vec<([u32; 2], f32, f32)>,
    hinges: Vec<([u32; 4], f32, f32)>,
    tethers: Vec<(u32, u32, f32)>,
    lambda_stretch: Vec<f32>,
    lambda_bend: Vec<f32>,
    lambda_tether: Vec<f32>,
    slack: f32,
    gravity: V3,
}

impl Reference {
    /// Copy the state and constraints of `cloth` (pinned particles stay where they are).
    pub fn from_cloth(cloth: &Cloth, gravity: V3) -> Reference {
        let s = cloth.stretch_constraints();
        let b = cloth.bending_constraints();
        let t = cloth.tether_constraints();
        let x: Vec<V3> = cloth.particle_positions().iter().map(|p| p.to_array()).collect();
        Reference {
            x_prev: x.clone(),
            v: vec![[0.0; 3]; x.len()],
            x,
            w: cloth.particle_inverse_masses().to_vec(),
            edges: (0..s.edges.len()).map(|c| (s.edges[c], s.rest_length[c], s.compliance[c])).collect(),
            hinges: (0..b.hinges.len()).map(|c| (b.hinges[c], b.rest_angle[c], b.compliance[c])).collect(),
            tethers: (0..t.particle.len()).map(|c| (t.particle[c], t.anchor[c], t.geodesic_distance[c])).collect(),
            lambda_stretch: vec![0.0; s.edges.len()],
            lambda_bend: vec![0.0; b.hinges.len()],
            lambda_tether: vec![0.0; t.particle.len()],
            slack: cloth.params().tether_slack,
            gravity,
        }
    }

    /// One frame of `dt` [s] in `substeps` substeps of one iteration each.
    pub fn step(&mut self, dt: f32, substeps: u32) {
        let h = dt / substeps as f32;
        for _ in 0..substeps {
            for i in 0..self.x.len() {
                self.x_prev[i] = self.x[i];
                if self.w[i] > 0.0 {
                    let g = self.gravity;
                    add_scaled(&mut self.v[i], g, h);
                    let v = self.v[i];
                    add_scaled(&mut self.x[i], v, h);
                }
            }
            self.lambda_stretch.fill(0.0);
            self.lambda_bend.fill(0.0);
            self.lambda_tether.fill(0.0);
            self.bending_sweep(h);
            self.stretch_sweep(h);
            self.stretch_sweep(h);
            self.tether_sweep(h);
            for i in 0..self.x.len() {
                self.v[i] = scale(sub(self.x[i], self.x_prev[i]), 1.0 / h);
            }
        }
    }

    /// Distance projection between particles i and j towards `target` length; `unilateral` skips it
    /// while shorter (tethers).
    #[allow(clippy::too_many_arguments)]
    fn project_distance(&mut self, i: usize, j: usize, target: f32, alpha: f32, lambda: &mut f32, h: f32, unilateral: bool) {
        let d = sub(self.x[i], self.x[j]);
        let len = dot(d, d).sqrt();
        if len <= 1e-9 {
            return;
        }
        let c = len - target;
        if unilateral && c <= 0.0 {
            return;
        }
        let n = scale(d, 1.0 / len);
        let alpha_tilde = alpha / (h * h);
        let denominator = self.w[i] + self.w[j] + alpha_tilde;
        if denominator <= 1e-20 {
            return;
        }
        let dl = (-c - alpha_tilde * *lambda) / denominator;
        *lambda += dl;
        let (wi, wj) = (self.w[i], self.w[j]);
        add_scaled(&mut self.x[i], n, wi * dl);
        add_scaled(&mut self.x[j], n, -wj * dl);
    }

    fn stretch_sweep(&mut self, h: f32) {
        for c in 0..self.edges.len() {
            let ([i, j], rest, alpha) = self.edges[c];
            let mut lambda = self.lambda_stretch[c];
            self.project_distance(i as usize, j as usize, rest, alpha, &mut lambda, h, false);
            self.lambda_stretch[c] = lambda;
        }
    }

    fn tether_sweep(&mut self, h: f32) {
        for c in 0..self.tethers.len() {
            let (i, a, d) = self.tethers[c];
            let mut lambda = self.lambda_tether[c];
            self.project_distance(i as usize, a as usize, self.slack * d, 0.0, &mut lambda, h, true);
            self.lambda_tether[c] = lambda;
        }
    }

    /// The signed-dihedral-angle hinge of `xpbd_cloth::constraints::bending`, without its trust region.
    fn bending_sweep(&mut self, h: f32) {
        for c in 0..self.hinges.len() {
            let (ids, rest, alpha) = self.hinges[c];
            let ids = ids.map(|i| i as usize);
            let [x0, x1, x2, x3] = ids.map(|i| self.x[i]);
            let e = sub(x3, x2);
            let e_len2 = dot(e, e);
            let n_a = cross(e, sub(x0, x2));
            let n_b = cross(sub(x1, x2), e);
            let (na2, nb2) = (dot(n_a, n_a), dot(n_b, n_b));
            if e_len2 < 1e-24 || na2 < 1e-24 || nb2 < 1e-24 {
                continue;
            }
            let e_len = e_len2.sqrt();
            let phi = (dot(cross(n_a, n_b), e) / e_len).atan2(dot(n_a, n_b));
            let mut value = phi - rest;
            if value > std::f32::consts::PI {
                value -= 2.0 * std::f32::consts::PI;
            } else if value <= -std::f32::consts::PI {
                value += 2.0 * std::f32::consts::PI;
            }
            let g0 = scale(n_a, -e_len / na2);
            let g1 = scale(n_b, -e_len / nb2);
            let s_a = dot(sub(x0, x2), e) / e_len2;
            let s_b = dot(sub(x1, x2), e) / e_len2;
            let g2 = sub(scale(g0, -(1.0 - s_a)), scale(g1, 1.0 - s_b));
            let g3 = sub(scale(g0, -s_a), scale(g1, s_b));
            let grad = [g0, g1, g2, g3];
            let mut weighted_grad2 = 0.0;
            for q in 0..4 {
                weighted_grad2 += self.w[ids[q]] * dot(grad[q], grad[q]);
            }
            let alpha_tilde = alpha / (h * h);
            let denominator = weighted_grad2 + alpha_tilde;
            if denominator <= 1e-20 {
                continue;
            }
            let dl = (-value - alpha_tilde * self.lambda_bend[c]) / denominator;
            self.lambda_bend[c] += dl;
            for q in 0..4 {
                let wq = self.w[ids[q]];
                add_scaled(&mut self.x[ids[q]], grad[q], wq * dl);
            }
        }
    }

    /// Sum of all coordinates (keeps the optimiser from discarding the work; printed nowhere).
    pub fn checksum(&self) -> f32 {
        self.x.iter().map(|p| p[0] + p[1] + p[2]).sum()
    }
}
