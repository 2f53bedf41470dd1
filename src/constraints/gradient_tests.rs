//! The constraints' analytic gradients against central differences (docs/design.md, "Bending
//! constraint" and "Stretch constraint"): the signed dihedral angle's away from degenerate hinges
//! and through flat, Σ∇ = 0, and the edge distance's.

use super::{dihedral_angle, dihedral_angle_and_gradient, distance_and_gradient};
use glam::Vec3;
use std::f32::consts::PI;

/// A hinge on the edge x2 = origin → x3 = (1, 0, 0) with wings at `psi_a` and `psi_b` \[rad\] around it.
fn hinge(psi_a: f32, psi_b: f32) -> [Vec3; 4] {
    let wing = |t: f32, psi: f32, r: f32| Vec3::new(t, r * psi.sin(), r * psi.cos());
    [wing(0.35, psi_a, -1.0), wing(0.6, psi_b, 0.8), Vec3::ZERO, Vec3::X]
}

/// Deterministic pseudo-random numbers in [−1, 1).
fn lcg(state: &mut u64) -> f32 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    ((*state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
}

/// Relative error of an analytic gradient against central differences of `f`.
fn gradient_error(p: &[Vec3], analytic: &[Vec3], f: impl Fn(&[Vec3]) -> f32) -> f32 {
    let eps = 2e-3f32;
    let (mut err2, mut norm2) = (0.0f32, 0.0f32);
    for i in 0..p.len() {
        for axis in 0..3 {
            let mut plus = p.to_vec();
            let mut minus = p.to_vec();
            plus[i][axis] += eps;
            minus[i][axis] -= eps;
            let fd = (f(&plus) - f(&minus)) / (2.0 * eps);
            err2 += (fd - analytic[i][axis]).powi(2);
            norm2 += analytic[i][axis].powi(2);
        }
    }
    (err2 / norm2).sqrt()
}

#[test]
fn dihedral_gradient_matches_central_differences_and_sums_to_zero() {
    let mut rng = 7u64;
    let mut checked = 0;
    for _ in 0..200 {
        let mut p = hinge(lcg(&mut rng) * 3.0, lcg(&mut rng) * 3.0);
        for q in &mut p {
            *q += Vec3::new(lcg(&mut rng), lcg(&mut rng), lcg(&mut rng)) * 0.3;
        }
        let Some((phi, grad)) = dihedral_angle_and_gradient(p) else { continue };
        // Stay away from the ±π branch cut, where the angle itself jumps by 2π.
        if phi.abs() > PI - 0.05 {
            continue;
        }
        let err = gradient_error(&p, &grad, |q| dihedral_angle([q[0], q[1], q[2], q[3]]).unwrap());
        assert!(err < 1e-3, "relative gradient error {err} at φ = {phi}");
        let sum: Vec3 = grad.iter().copied().sum();
        let scale = grad.iter().map(|g| g.length()).fold(0.0, f32::max);
        assert!(sum.length() < 1e-5 * scale, "Σ∇φ = {sum}");
        checked += 1;
    }
    assert!(checked > 150, "too few hinges checked: {checked}");
}

#[test]
fn dihedral_gradient_is_smooth_through_flat() {
    // The acos form has an unbounded gradient at φ = 0; the atan2 form must not.
    let flat = hinge(0.0, 0.0);
    let (phi, grad) = dihedral_angle_and_gradient(flat).unwrap();
    assert!(phi.abs() < 1e-6);
    assert!(grad.iter().all(|g| g.is_finite() && g.length() < 10.0));
    let err = gradient_error(&flat, &grad, |q| dihedral_angle([q[0], q[1], q[2], q[3]]).unwrap());
    assert!(err < 1e-3, "relative gradient error {err} at flat");
}

#[test]
fn stretch_gradient_matches_central_differences() {
    let (xi, xj) = (Vec3::new(0.3, -0.2, 0.9), Vec3::new(-0.4, 0.5, 0.1));
    let (_, n) = distance_and_gradient(xi, xj, 0.7).unwrap();
    let f = |q: &[Vec3]| distance_and_gradient(q[0], q[1], 0.7).unwrap().0;
    let err = gradient_error(&[xi, xj], &[n, -n], f);
    assert!(err < 1e-3, "relative gradient error {err}");
}
