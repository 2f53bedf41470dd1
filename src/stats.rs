//! Residual statistics of every step: honest numbers on how well the constraints are
//! satisfied, per constraint type.

/// Statistics of one constraint type after a step.
///
/// |C| is evaluated at the positions the step ends with (after the velocity update), in the
/// constraint's own unit (m for stretch and tethers, rad for bending). λ/h² is the XPBD force
/// estimate (Macklin et al. 2016, §4: f = ∇C·λ/h²) of the last substep: N for stretch and tethers,
/// N·m for bending. Negative λ means tension (the constraint pulls its particles together).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ConstraintStats {
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
pub struct ClothStats {
    /// Edge distance constraints: |C| in m, forces in N.
    pub stretch: ConstraintStats,
    /// Dihedral bending constraints: |C| in rad, torques in N·m.
    pub bending: ConstraintStats,
    /// Tethers: |C| = distance beyond the allowed length in m, forces in N.
    pub tether: ConstraintStats,
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
    /// The median of the edges' stretch max(0, ‖x_i − x_j‖/L − 1) at the end of the step (nearest rank).
    pub strain_p50: f32,
    /// Its 95th percentile.
    pub strain_p95: f32,
    /// Its 99th percentile (its maximum is `max_edge_strain`).
    pub strain_p99: f32,
    /// The stretch the pins (and other anchors: kinematic vertices) force on the cloth, as a
    /// strain: over every particle tethered to two anchors a and b at rest distances d_a and d_b
    /// along the mesh, the largest ‖x_a − x_b‖/(d_a + d_b) − 1, or 0. A hard pin dragged away
    /// from the others shows here: the cloth between them is at least that stretched on average,
    /// beyond what any solver or `max_stretch` can remove. Read from the tethers in place, so 0
    /// with `enable_tethers` off.
    pub pin_strain: f32,
    /// Edges cut by the last step's tearing (`tear_strain`): each over-strained edge that tore
    /// opened the cloth across it, cutting one or two edges at one of its ends; 0 without tearing.
    pub torn_edges_last_step: u32,
}

impl ConstraintStats {
    /// Summarise `abs_c` (reordered in place) and the multipliers `lambda` of the last substep.
    pub(crate) fn summarise(abs_c: &mut [f32], lambda: &[f32], inv_h2: f32) -> ConstraintStats {
        let count = abs_c.len();
        if count == 0 {
            return ConstraintStats::default();
        }
        let sum = sum_in_four_lanes(abs_c);
        // Nearest-rank percentile: the smallest value with at least 95 % of values at or below it.
        let rank = ((0.95 * count as f64).ceil() as usize).clamp(1, count) - 1;
        // Ordered by the bits without the sign: for |C| ≥ 0 the order of the values (and −0 as
        // +0, NaN above ∞), and an integer key is cheaper to compare than `total_cmp`
        // (docs/dev/performance-log.md, "2026-11-30 — Fewer instructions per projection").
        let key = |c: &f32| c.to_bits() & 0x7fff_ffff;
        let (_, p95, above) = abs_c.select_nth_unstable_by_key(rank, key);
        // The largest value is the p95 or above it: 5 % of the values to scan instead of all. In
        // the selection's order, so a NaN residual (a cloth that blew up within this step, before
        // its guard runs) shows as the maximum rather than being skipped.
        let max = above.iter().fold(*p95, |m, c| if key(c) > key(&m) { *c } else { m });
        let (min_l, max_l) = min_max_in_four_lanes(lambda);
        ConstraintStats {
            count: count as u32,
            mean_abs_c: (sum / count as f64) as f32,
            p95_abs_c: *p95,
            max_abs_c: max,
            min_force: if lambda.is_empty() { 0.0 } else { min_l * inv_h2 },
            max_force: if lambda.is_empty() { 0.0 } else { max_l * inv_h2 },
        }
    }
}

/// The nearest-rank `q`-quantiles (0 < q ≤ 1, ascending) of `values` (reordered in place),
/// NaN counted above every number; zeros for no values.
pub(crate) fn quantiles<const K: usize>(values: &mut [f32], q: [f64; K]) -> [f32; K] {
    let n = values.len();
    let mut out = [0.0; K];
    if n == 0 {
        return out;
    }
    // As in `ConstraintStats::summarise`: values ≥ 0, ordered by their bits without the sign.
    let key = |c: &f32| c.to_bits() & 0x7fff_ffff;
    let mut done = 0;
    for (k, q) in q.into_iter().enumerate() {
        let rank = ((q * n as f64).ceil() as usize).clamp(1, n) - 1;
        // Each selection in the part above the last: the ranks ascend.
        let (_, nth, _) = values[done..].select_nth_unstable_by_key(rank - done, key);
        out[k] = *nth;
        done = rank;
    }
    out
}

/// Σ v in f64, accumulated in four interleaved partial sums (element k into sum k mod 4, then
/// (s0 + s1) + (s2 + s3)): one running sum is a chain of dependent additions, one element per
/// addition latency; four chains overlap. A fixed order, so the same bits on every run and thread.
fn sum_in_four_lanes(v: &[f32]) -> f64 {
    let mut s = [0.0f64; 4];
    let chunks = v.chunks_exact(4);
    let rest = chunks.remainder();
    for c in chunks {
        for (s, &c) in s.iter_mut().zip(c) {
            *s += c as f64;
        }
    }
    for (k, &r) in rest.iter().enumerate() {
        s[k] += r as f64;
    }
    (s[0] + s[1]) + (s[2] + s[3])
}

/// (min, max) of `v`, (∞, −∞) if empty; NaN is skipped, as by `f32::min`/`max`. Four interleaved
/// running extremes written as compare-and-select, which is what `minps`/`maxps` compute, so
/// LLVM keeps them in one register each (a single running `f32::min`/`max` stayed scalar).
fn min_max_in_four_lanes(v: &[f32]) -> (f32, f32) {
    let (mut lo, mut hi) = ([f32::INFINITY; 4], [f32::NEG_INFINITY; 4]);
    let mut take = |k: usize, x: f32| {
        lo[k] = if x < lo[k] { x } else { lo[k] };
        hi[k] = if x > hi[k] { x } else { hi[k] };
    };
    let chunks = v.chunks_exact(4);
    let rest = chunks.remainder();
    for c in chunks {
        for (k, &x) in c.iter().enumerate() {
            take(k, x);
        }
    }
    for (k, &x) in rest.iter().enumerate() {
        take(k, x);
    }
    (lo.into_iter().fold(f32::INFINITY, f32::min), hi.into_iter().fold(f32::NEG_INFINITY, f32::max))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nearest-rank quantiles: of 1..=100 the 50th, 95th and 99th values, whatever the order.
    #[test]
    fn quantiles_of_known_values() {
        let mut v: Vec<f32> = (1..=100).map(|i| ((i * 37) % 101) as f32).collect();
        assert_eq!(quantiles(&mut v, [0.5, 0.95, 0.99]), [50.0, 95.0, 99.0]);
        assert_eq!(quantiles(&mut [], [0.5, 0.99]), [0.0, 0.0]);
        assert_eq!(quantiles(&mut [3.0], [0.5, 0.99]), [3.0, 3.0]);
    }

    #[test]
    fn percentile_and_mean_of_known_values() {
        let mut c: Vec<f32> = (1..=100).rev().map(|i| i as f32).collect();
        let s = ConstraintStats::summarise(&mut c, &[-2.0, 3.0], 0.5);
        assert_eq!(s.count, 100);
        assert_eq!(s.p95_abs_c, 95.0);
        assert_eq!(s.max_abs_c, 100.0);
        assert!((s.mean_abs_c - 50.5).abs() < 1e-6);
        assert_eq!((s.min_force, s.max_force), (-1.0, 1.5));
    }

    /// The maximum found above the p95 is the maximum of all values, wherever it is, and the
    /// four-lane sum is the exact sum for values whose sums f64 represents exactly.
    #[test]
    fn maximum_and_sum_of_shuffled_values() {
        for n in [1usize, 2, 3, 5, 19, 20, 21, 100, 1001] {
            for peak in [0, n / 2, n - 1] {
                let mut c: Vec<f32> = (0..n).map(|i| ((i * 37) % n) as f32 * 0.25).collect();
                c[peak] = 1.0e6;
                let exact: f64 = c.iter().map(|&v| v as f64).sum();
                let s = ConstraintStats::summarise(&mut c, &[], 1.0);
                assert_eq!(s.max_abs_c, 1.0e6, "n = {n}, peak at {peak}");
                assert_eq!(s.mean_abs_c, (exact / n as f64) as f32, "n = {n}");
                assert_eq!((s.min_force, s.max_force), (0.0, 0.0));
            }
            let lambda: Vec<f32> = (0..n).map(|i| ((i * 37) % n) as f32 - 3.0).collect();
            let mut with_nan = lambda.clone();
            with_nan.push(f32::NAN);
            let s = ConstraintStats::summarise(&mut [0.0], &with_nan, 2.0);
            assert_eq!((s.min_force, s.max_force), (-6.0, 2.0 * (n as f32 - 4.0)), "n = {n}");
        }
    }
}
