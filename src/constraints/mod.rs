//! Cloth constraints, one file per type. Each file opens with its C(x), its gradient and the
//! paper + equation it comes from; each type stores its constraints in flat arrays and has one
//! `solve` (a Gauss–Seidel sweep) and one `residuals` (|C| for the statistics).

pub(crate) mod access;
pub(crate) mod animated;
pub(crate) mod lanes;
pub(crate) mod layout;
pub(crate) mod strain_limit;
#[cfg(target_arch = "x86_64")]
pub(crate) mod lanes_avx;
#[cfg(target_arch = "x86_64")]
pub(crate) mod lanes_avx512;
pub mod bending;
pub mod colouring;
pub mod stretch;
mod sweep;
pub(crate) mod team;
pub mod tether;
pub(crate) mod volume;

pub use bending::{BendingConstraints, dihedral_angle};
#[cfg(test)]
pub use bending::dihedral_angle_and_gradient;
pub use stretch::StretchConstraints;
#[cfg(test)]
pub use stretch::distance_and_gradient;
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
    /// Coefficients for substep length `h` \[s\] and constraint damping β = `damping`.
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

#[cfg(test)]
mod gradient_tests;
#[cfg(test)]
pub(crate) mod test_grid;

#[cfg(test)]
mod tests {
    //! The lane-wise path of a coloured sweep against the one-at-a-time (scalar reference) path
    //! over the same constraint order: the same bits, with and without damping.

    use super::SubstepCoefficients;
    use super::access::pack_solver_particles;
    pub(super) use super::test_grid::{bits, noise};
    use super::test_grid::{Grid, grid};
    use glam::{Vec3, Vec4};

    /// A coloured 13 × 11 grid (colours of odd sizes, so every colour has a scalar
    /// remainder) with one corner pinned, and positions crumpled pseudo-randomly. With
    /// `degenerate`, also constraints the kernels must skip, in the middle of lane batches:
    /// coinciding neighbours (a zero-length edge, hinges without a normal), a triangle whose
    /// corners lie on a line (zero height) and a NaN particle (its constraints must leave the
    /// others untouched).
    fn crumpled_cloth(degenerate: bool) -> (Grid, Vec<Vec3>, Vec<Vec3>) {
        let cloth = grid(13, 11, &[0], true);
        let mut noise = noise();
        let x_prev = cloth.x.clone();
        let mut x: Vec<Vec3> = x_prev.iter().map(|p| *p + Vec3::new(noise(), noise(), noise()) * 0.08).collect();
        if degenerate {
            x[41] = x[40];
            // Triangle (70, 83, 71) of the grid (row 5, column 5; 13 particles a row): its
            // corner 83 on the line through the other two.
            x[83] = x[70].lerp(x[71], 0.5);
            x[100].y = f32::NAN;
            let flat = [70u32, 83, 71];
            let flat_hinge = |h: &[u32; 4]| flat.iter().all(|p| h.contains(p));
            let hinges: Vec<[Vec3; 4]> =
                cloth.layout.bending.hinges().iter().filter(|h| flat_hinge(h)).map(|h| h.map(|i| x[i as usize])).collect();
            assert!(!hinges.is_empty() && hinges.iter().all(|p| super::dihedral_angle(*p).is_none()), "no zero-height hinge");
        }
        (cloth, x, x_prev)
    }

    /// The constraints of a grid with their compliances and multipliers, as the sweeps take them.
    #[derive(Clone)]
    struct Swept {
        stretch: super::StretchConstraints,
        bending: super::BendingConstraints,
        stretch_compliance: Vec<f32>,
        bend_compliance: Vec<f32>,
        stretch_lambda: Vec<f32>,
        bend_lambda: Vec<f32>,
    }

    /// One bending sweep, then one stretch sweep of `c`'s constraints on one thread, after
    /// checking their particle indices (`fresh`: take λ as 0).
    fn sweep_bending_then_stretch(c: &mut Swept, x: &mut [Vec4], x_prev: &[Vec3], w: &[f32], k: &SubstepCoefficients, fresh: bool) {
        assert!(c.bending.prepare_rows(x.len()) && c.stretch.prepare_rows(x.len()));
        // SAFETY: indices checked above; the grid's colourings are valid (`colouring_is_valid`).
        unsafe {
            c.bending.solve_in_bounds(&c.bend_compliance, &mut c.bend_lambda, x, x_prev, w, k, fresh);
            c.stretch.solve_in_bounds(&c.stretch_compliance, &mut c.stretch_lambda, x, x_prev, w, k, fresh);
        }
    }

    /// Every lane width the CPU has, against one constraint at a time: with AVX-512F 16-lane
    /// batches, then at most one 8-lane batch and a partial 8-lane one; with AVX 8-lane batches,
    /// then a partial 8-lane one; the SSE kernels alone (4-lane batches, then a partial 4-lane one).
    #[test]
    fn lane_wise_coloured_sweeps_give_the_bits_of_the_scalar_sweep_over_the_same_order() {
        coloured_sweeps_match_the_scalar_sweep();
        #[cfg(target_arch = "x86_64")]
        {
            super::lanes_avx::tests::avx_only(coloured_sweeps_match_the_scalar_sweep);
            super::lanes_avx::tests::sse_only(coloured_sweeps_match_the_scalar_sweep);
        }
    }

    fn coloured_sweeps_match_the_scalar_sweep() {
        for (damping, degenerate) in [(0.0, false), (0.3, false), (0.0, true), (0.3, true)] {
            let k = SubstepCoefficients::new(1.0 / 600.0, damping);
            let (cloth, x0, x_prev) = crumpled_cloth(degenerate);
            // Colours with 8-lane batches and a partial batch of few lanes after them, and colours
            // with one of many lanes (with 4 lanes: a partial batch of 1–3 after the full ones).
            for colour_start in [cloth.layout.stretch.colour_start(), cloth.layout.bending.colour_start()] {
                let sizes: Vec<u32> = colour_start.windows(2).map(|r| r[1] - r[0]).collect();
                let tails: Vec<u32> = sizes.iter().filter(|&&n| n >= 8).map(|n| n % 8).collect();
                let (few, many) = (tails.iter().any(|t| (1..=3).contains(t)), tails.iter().any(|t| (5..=7).contains(t)));
                assert!(few && many, "colour sizes {sizes:?}");
                // And for 16 lanes: colours whose rest after the 16-lane batches is partial, and
                // colours whose rest is an 8-lane batch and a partial one.
                let tails: Vec<u32> = sizes.iter().filter(|&&n| n >= 16).map(|n| n % 16).collect();
                let (partial, eight_then_partial) = (tails.iter().any(|t| (1..8).contains(t)), tails.iter().any(|t| (9..16).contains(t)));
                assert!(partial && eight_then_partial, "colour sizes {sizes:?}");
            }
            for compliance in [0.0, 1e-4] {
                let (edges, hinges) = (cloth.layout.stretch.edges().len(), cloth.layout.bending.hinges().len());
                let swept = Swept {
                    stretch: cloth.layout.stretch.clone(),
                    bending: cloth.layout.bending.clone(),
                    stretch_compliance: vec![compliance; edges],
                    bend_compliance: vec![compliance * 10.0; hinges],
                    stretch_lambda: vec![0.0; edges],
                    bend_lambda: vec![0.0; hinges],
                };
                let w = cloth.w.clone();
                let (mut lanes, mut scalar) = (swept.clone(), swept);
                // Same order, no colour ranges: one constraint at a time.
                // SAFETY: uncoloured, which no colouring rule constrains.
                unsafe {
                    scalar.stretch.edit(|s| s.colour_start.clear());
                    scalar.bending.edit(|b| b.colour_start.clear());
                }
                let mut x_lanes = vec![Vec4::ZERO; x0.len()];
                pack_solver_particles(&x0, &w, &mut x_lanes);
                let mut x_scalar = x_lanes.clone();
                // The lane-wise side starts from stale multipliers and takes them as 0 in its
                // first sweeps (`fresh`), the scalar side from a reset: the same bits.
                lanes.stretch_lambda.fill(7.0);
                lanes.bend_lambda.fill(-3.0);
                scalar.stretch_lambda.fill(0.0);
                scalar.bend_lambda.fill(0.0);
                for sweep in 0..3 {
                    sweep_bending_then_stretch(&mut lanes, &mut x_lanes, &x_prev, &w, &k, sweep == 0);
                    sweep_bending_then_stretch(&mut scalar, &mut x_scalar, &x_prev, &w, &k, false);
                }
                assert_ne!(bits(&x_lanes), bits(&x0.iter().map(|p| p.extend(0.0)).collect::<Vec<_>>()));
                assert_eq!(bits(&x_lanes), bits(&x_scalar), "damping {damping}, compliance {compliance}, degenerate {degenerate}");
                // The NaN particle's constraints were skipped: no other particle caught it.
                let non_finite = x_lanes.iter().filter(|p| !p.is_finite()).count();
                assert_eq!(non_finite, usize::from(degenerate), "damping {damping}, compliance {compliance}");
                assert_eq!(x_lanes.iter().map(|p| p.w).collect::<Vec<_>>(), w, "the sweeps changed an inverse mass");
                let lambda_bits = |c: &Swept| {
                    (c.stretch_lambda.iter().chain(&c.bend_lambda).map(|l| l.to_bits())).collect::<Vec<_>>()
                };
                assert_eq!(lambda_bits(&lanes), lambda_bits(&scalar));
            }
        }
    }
}
