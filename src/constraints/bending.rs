//! Dihedral bending constraint on every interior edge (hinge of two triangles).
//!
//! Hinge `[x0, x1, x2, x3]`: shared edge e = x3 − x2, triangle A = (x2, x3, x0), triangle B with
//! opposite vertex x1. Unnormalised normals n_A = e × (x0 − x2), n_B = (x1 − x2) × e.
//!
//! C(x) = wrap(φ − φ₀) with the signed dihedral angle φ = atan2((n_A × n_B)·ê, n_A·n_B),
//! wrap to (−π, π]. φ = 0 when the hinge is flat. Unlike the acos form of Müller et al. 2006
//! (PBD, §4.2 and appendix A), whose gradient is unbounded at φ = 0 (d acos/dx = −1/√(1 − x²)),
//! atan2 stays smooth through flat and through ±π. Gradient (Bridson, Marino & Fedkiw 2003,
//! "Simulation of clothing with folds and wrinkles", §4; Tamstorf & Grinspun 2013, eq. 5–6):
//!
//! ∇₀φ = −‖e‖ n_A/‖n_A‖²,  ∇₁φ = −‖e‖ n_B/‖n_B‖²,
//! ∇₂φ = −(1 − s_A)∇₀φ − (1 − s_B)∇₁φ,  ∇₃φ = −s_A∇₀φ − s_B∇₁φ,
//! s_A = (x0 − x2)·e/‖e‖², s_B = (x1 − x2)·e/‖e‖² (where the opposite vertices project onto e).
//!
//! Σ∇ = 0 by construction (translation invariance). Hinges whose edge or triangle heights vanish are
//! skipped. Compliance α in rad/(N·m); λ/h² estimates the hinge torque \[N·m\].
//! The kernels are tested against Bridson's gradient written from the paper in
//! `src/reference/dihedral.rs`.

use super::access::{ColourReach, Positions, RowOffsets, SolverParticle, column, constraint_particles, gather_rows_at, gather_vec3, row_offsets_below};
use super::sweep::{BatchSweep, DampedKernels, Sweep, colour_ranges, padded, project_disjoint_lanes, project_padded, solve_damped};
use super::lanes::{LANES, LaneSet, Lanes, Real, V3, atan2, v3};
#[cfg(target_arch = "x86_64")]
use super::lanes_avx::{Lanes8, avx_available};
use super::{MIN_DENOMINATOR, SubstepCoefficients, xpbd_delta_lambda_parts};
use glam::Vec3;
use std::f32::consts::PI;

/// Largest angle change \[rad\] one projection of a hinge may make (a trust region on the linearised
/// step). The fixed point is unchanged (at rest Δλ → 0); only large corrections are spread over
/// several substeps. Without it, the light, stiff, fine cloth of the validation tests keeps a few
/// hinges near 1 rad until one crosses ±π, where the wrapped angle's correction reverses direction
/// and the cloth explodes (docs/design.md, "Bending trust region"; the measurement:
/// docs/dev/performance-log.md, "2026-11-29 — Stability aids on the light stiff cloth").
pub(crate) const MAX_ANGLE_STEP: f32 = 0.5;

/// Heights below this fraction of the edge length make a hinge degenerate (skipped).
const MIN_RELATIVE_HEIGHT: f32 = 1e-6;

/// Signed dihedral angle φ \[rad\] in (−π, π] of a hinge, or `None` if degenerate.
#[inline(always)]
pub fn dihedral_angle(p: [Vec3; 4]) -> Option<f32> {
    dihedral_angle_and_gradient(p).map(|(phi, _)| phi)
}

/// Signed dihedral angle φ \[rad\] and its gradient with respect to the four hinge particles,
/// or `None` for a degenerate hinge (zero-length edge or zero-height triangle). The same
/// arithmetic as the solver's projection (`hinge_geometry`).
pub fn dihedral_angle_and_gradient(p: [Vec3; 4]) -> Option<(f32, [Vec3; 4])> {
    let g = hinge_geometry(p.map(v3));
    g.valid.then(|| (g.phi, g.gradient().map(|q| q.to_vec3())))
}

/// φ of one hinge (or of several hinges, lane-wise) and its gradient as two vectors and scalars:
/// ∇₀φ = a·n_A, ∇₁φ = b·n_B, and ∇₂φ, ∇₃φ combinations of those two with weights from s_A, s_B
/// (module docs). The projection works from these parts rather than four gradient vectors: the
/// weighted Σ w_q|∇_qφ|² then needs only n_A·n_B, which φ already computed, and fewer vectors stay
/// live through the 8-lane kernel, which spilled them to the stack (docs/dev/performance-log.md,
/// "2026-11-30 — Fewer instructions per projection").
struct HingeGeometry<T: Real> {
    /// Where the hinge is well defined; where it is degenerate the other fields are meaningless
    /// (finite unless the squared lengths overflow, as for coordinates near 1e19 m).
    valid: T::Mask,
    phi: T,
    n_a: V3<T>,
    n_b: V3<T>,
    /// a = −‖e‖/‖n_A‖², b = −‖e‖/‖n_B‖².
    a: T,
    b: T,
    s_a: T,
    s_b: T,
    /// |∇₀φ|² = ‖e‖²/‖n_A‖², |∇₁φ|² = ‖e‖²/‖n_B‖², ∇₀φ·∇₁φ = a·b·(n_A·n_B).
    g00: T,
    g11: T,
    g01: T,
}

impl<T: Real> HingeGeometry<T> {
    /// ∇₀φ … ∇₃φ as vectors (module docs).
    #[inline(always)]
    fn gradient(&self) -> [V3<T>; 4] {
        let one = T::splat(1.0);
        let g0 = self.n_a.scale(self.a);
        let g1 = self.n_b.scale(self.b);
        let g2 = g0.combine(self.s_a - one, g1, self.s_b - one);
        let g3 = g0.combine(-self.s_a, g1, -self.s_b);
        [g0, g1, g2, g3]
    }

    /// Σ_q w_q|∇_qφ|², expanded through |u·g0 + v·g1|² = u²|g0|² + v²|g1|² + 2uv(g0·g1) for
    /// ∇₂φ (u, v = s_A − 1, s_B − 1) and ∇₃φ (u, v = −s_A, −s_B): no vector product. For s_A, s_B in
    /// [0, 1] (opposite vertices projecting inside the edge) the terms do not cancel.
    #[inline(always)]
    fn weighted_gradient_norm2(&self, w: [T; 4]) -> T {
        let one = T::splat(1.0);
        let (ua, ub) = (self.s_a - one, self.s_b - one);
        let on_g00 = w[0] + w[2] * ua * ua + w[3] * self.s_a * self.s_a;
        let on_g11 = w[1] + w[2] * ub * ub + w[3] * self.s_b * self.s_b;
        let on_g01 = w[2] * ua * ub + w[3] * self.s_a * self.s_b;
        on_g00 * self.g00 + on_g11 * self.g11 + T::splat(2.0) * on_g01 * self.g01
    }
}

/// The module-level formulas, branch-free. (n_A × n_B)·ê is evaluated as −(e·(d₀ × d₁))·‖e‖ with
/// d₀ = x0 − x2, d₁ = x1 − x2 (expand (e × d₀) × (d₁ × e)): one cross product and no division.
#[inline(always)]
fn hinge_geometry<T: Real>(p: [V3<T>; 4]) -> HingeGeometry<T> {
    let [x0, x1, x2, x3] = p;
    let one = T::splat(1.0);
    let e = x3.sub(x2);
    let (d0, d1) = (x0.sub(x2), x1.sub(x2));
    let e_len2 = e.dot(e);
    let n_a = e.cross(d0);
    let n_b = d1.cross(e);
    let (na2, nb2) = (n_a.dot(n_a), n_b.dot(n_b));
    // ‖n‖ = height·‖e‖, so ‖n‖² > (ε·‖e‖²)² means height > ε·‖e‖.
    let m = T::splat(MIN_RELATIVE_HEIGHT) * e_len2;
    let min_n2 = m * m;
    let valid = T::both(T::both(e_len2.gt(T::splat(1e-24)), na2.gt(min_n2)), nb2.gt(min_n2));
    // Degenerate hinges divide by 1 instead, so that nothing becomes infinite.
    let safe = |v: T| T::select(valid, v, one);
    let (e_len2, na2, nb2) = (safe(e_len2), safe(na2), safe(nb2));
    let e_len = e_len2.sqrt();
    let inv_e_len2 = one / e_len2;
    let (inv_na2, inv_nb2) = (one / na2, one / nb2);
    let sin_term = -e.dot(d0.cross(d1)) * e_len;
    let cos_term = n_a.dot(n_b);
    let phi = atan2(sin_term, cos_term);
    let (a, b) = (-e_len * inv_na2, -e_len * inv_nb2);
    let s_a = d0.dot(e) * inv_e_len2;
    let s_b = d1.dot(e) * inv_e_len2;
    let (g00, g11, g01) = (e_len2 * inv_na2, e_len2 * inv_nb2, a * b * cos_term);
    HingeGeometry { valid, phi, n_a, n_b, a, b, s_a, s_b, g00, g11, g01 }
}

/// Wrap an angle difference into (−π, π] so that a hinge near ±π does not see a 2π jump.
#[inline(always)]
pub(crate) fn wrap_angle<T: Real>(a: T) -> T {
    let (pi, two_pi) = (T::splat(PI), T::splat(2.0 * PI));
    a.gt_select(pi, a - two_pi, a.gt_select(-pi, a, a + two_pi))
}

/// One XPBD projection of a hinge (or of several disjoint hinges lane-wise): returns Δλ and the
/// position corrections of the four particles, w_q·∇_qφ·Δλ ([`HingeCorrections`]; zero for a
/// degenerate hinge or a vanishing denominator, which are skipped). `dx` is x − x_prev of the
/// four particles, read only when `DAMPED`.
#[inline(always)]
fn project_hinge<T: Real, const DAMPED: bool>(
    p: [V3<T>; 4],
    dx: [V3<T>; 4],
    w: [T; 4],
    rest_angle: T,
    compliance: T,
    lambda: T,
    k: &SubstepCoefficients,
) -> (T, HingeCorrections<T>) {
    let (zero, one) = (T::splat(0.0), T::splat(1.0));
    let g = hinge_geometry(p);
    let value = wrap_angle(g.phi - rest_angle);
    let weighted_grad2 = g.weighted_gradient_norm2(w);
    // Σ_q ∇_qφ·dx_q = a·n_A·(dx₀ + (s_A − 1)dx₂ − s_A·dx₃) + b·n_B·(dx₁ + (s_B − 1)dx₂ − s_B·dx₃).
    let grad_dot_dx = if DAMPED {
        let along_a = dx[0].combine(one, dx[2], g.s_a - one).combine(one, dx[3], -g.s_a);
        let along_b = dx[1].combine(one, dx[2], g.s_b - one).combine(one, dx[3], -g.s_b);
        g.a * g.n_a.dot(along_a) + g.b * g.n_b.dot(along_b)
    } else {
        zero
    };
    let (num, den) = xpbd_delta_lambda_parts::<T, DAMPED>(value, lambda, compliance, k, weighted_grad2, grad_dot_dx);
    // Trust region |Σw|∇φ|²·Δλ| ≤ MAX_ANGLE_STEP folded into the division: Δλ = num / den clamped to
    // ±MAX_ANGLE_STEP/Σw|∇φ|² is num / max(den, |num|·Σw|∇φ|²/MAX_ANGLE_STEP).
    let limited = den.max(num.abs() * weighted_grad2 * T::splat(1.0 / MAX_ANGLE_STEP));
    let dl = num / limited;
    let ok = T::both(den.gt(T::splat(MIN_DENOMINATOR)), g.valid);
    let dl = dl.or_zero(ok);
    let corrections = HingeCorrections { n_a: g.n_a, n_b: g.n_b, da: g.a * dl, db: g.b * dl, s_a: g.s_a, s_b: g.s_b, w, ok };
    (dl, corrections)
}

/// The position corrections w_q·∇_qφ·Δλ of a projected hinge, one particle at a time, so that the
/// 8-lane kernel can write each particle back before it forms the next correction (fewer vectors
/// live at once than with all four formed first). With A = a·Δλ, B = b·Δλ, they are w₀A·n_A,
/// w₁B·n_B, w₂((s_A − 1)A·n_A + (s_B − 1)B·n_B) and −w₃(s_A·A·n_A + s_B·B·n_B).
struct HingeCorrections<T: Real> {
    n_a: V3<T>,
    n_b: V3<T>,
    da: T,
    db: T,
    s_a: T,
    s_b: T,
    w: [T; 4],
    ok: T::Mask,
}

impl<T: Real> HingeCorrections<T> {
    /// The correction of particle `q` (0..4). Masked rather than multiplied by Δλ = 0: a hinge
    /// with a non-finite particle must leave the others untouched (NaN·0 is NaN), as the
    /// explosion guard relies on.
    #[inline(always)]
    fn of(&self, q: usize) -> V3<T> {
        let one = T::splat(1.0);
        let (da, db) = (self.da, self.db);
        let c = match q {
            0 => self.n_a.scale(self.w[0] * da),
            1 => self.n_b.scale(self.w[1] * db),
            2 => self.n_a.combine(self.w[2] * ((self.s_a - one) * da), self.n_b, self.w[2] * ((self.s_b - one) * db)),
            _ => {
                let w3 = -self.w[3];
                self.n_a.combine(w3 * (self.s_a * da), self.n_b, w3 * (self.s_b * db))
            }
        };
        c.zero_unless(self.ok)
    }
}

/// All bending constraints of one cloth, structure-of-arrays. The fields are private because the
/// unchecked sweeps rely on them agreeing: one rest angle per hinge, colour offsets ascending from
/// 0 to the hinge count (or none), and row offsets derived from the current hinges. Every change
/// goes through [`Self::new`], [`Self::edit`] or [`Self::set_colouring`], which keep that.
#[derive(Clone, Debug, Default)]
pub struct BendingConstraints {
    /// Hinges `[x0, x1, x2, x3]` (see module docs).
    hinges: Vec<[u32; 4]>,
    /// Rest angle φ₀ \[rad\], one per hinge.
    rest_angle: Vec<f32>,
    /// Start of each colour in storage order (`colour_count + 1` offsets) when the hinges are
    /// coloured for parallel sweeps (no two hinges of a colour share a particle); empty otherwise.
    colour_start: Vec<u32>,
    /// Byte offsets of the hinges' particle rows, derived from `hinges` and checked at the top of
    /// the first step after they changed ([`Self::prepare_rows`]); what the lane-wise kernel
    /// addresses rows by. [`Self::edit`] marks them stale.
    row_offsets: RowOffsets<4>,
}

/// The arrays of [`BendingConstraints`] lent to [`BendingConstraints::edit`].
pub(crate) struct BendingArrays<'a> {
    /// Hinges `[x0, x1, x2, x3]`.
    pub hinges: &'a mut Vec<[u32; 4]>,
    /// Rest angle φ₀ \[rad\] per hinge.
    pub rest_angle: &'a mut Vec<f32>,
    /// Colour offsets, as [`BendingConstraints::colour_start`].
    pub colour_start: &'a mut Vec<u32>,
}

/// The bending projection for [`sweep`](super::sweep::sweep); `DAMPED` is false when β = 0.
#[derive(Clone, Copy)]
pub(crate) struct BendingSweep<'a, const DAMPED: bool> {
    /// Take λ as 0 instead of reading it (the first sweep of a substep: the multipliers need no
    /// reset before it; the sum 0 + Δλ has the bits the reset gave).
    fresh: bool,
    hinges: &'a [[u32; 4]],
    /// [`RowOffsets::prepare_reach`] of `hinges`: the team sweep's look-ahead bounds.
    reach: &'a ColourReach,
    /// [`BendingConstraints::row_offsets`].
    row_offsets: &'a [[u32; 4]],
    rest_angle: &'a [f32],
    compliance: &'a [f32],
    x_prev: &'a [Vec3],
    w: &'a [f32],
    k: &'a SubstepCoefficients,
}

impl<const DAMPED: bool> Sweep for BendingSweep<'_, DAMPED> {
    #[inline]
    fn project_range<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
        for (c, lambda) in (first..).zip(lambda) {
            let lambda_in = if self.fresh { 0.0 } else { *lambda };
            let [a, b, c2, c3] = self.hinges[c];
            let ids = [a as usize, b as usize, c2 as usize, c3 as usize];
            let mut p = [v3(Vec3::ZERO); 4];
            let mut dx = p;
            let mut w = [0.0; 4];
            for q in 0..4 {
                let v = x.get(ids[q]);
                p[q] = v3(v);
                if DAMPED {
                    dx[q] = v3(v - self.x_prev[ids[q]]);
                }
                w[q] = self.w[ids[q]];
            }
            let (dl, correction) =
                project_hinge::<f32, DAMPED>(p, dx, w, self.rest_angle[c], self.compliance[c], lambda_in, self.k);
            *lambda = lambda_in + dl;
            for (q, &id) in ids.iter().enumerate() {
                x.add(id, correction.of(q).to_vec3());
            }
        }
    }

    /// [`project_disjoint_lanes`]: 16 hinges at a time where the CPU has AVX-512F (the rest as
    /// at most one 8-lane batch and one partial 8-lane batch), else 8 where it has AVX, else
    /// [`LANES`], the remainder as one partial batch.
    #[inline(always)]
    fn project_disjoint<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
        project_disjoint_lanes(self, first, lambda, x);
    }

    #[inline]
    fn particle_bounds(&self, colour: usize, begin: usize, end: usize) -> Option<(u32, u32)> {
        self.reach.bounds(self.hinges, colour, begin, end)
    }
}

impl<const DAMPED: bool> BatchSweep for BendingSweep<'_, DAMPED> {
    #[inline(always)]
    fn project_partial_batch<const N: usize, L: LaneSet<N>, P: Positions + ?Sized>(&self, c0: usize, lambda: &mut [f32], x: &mut P) {
        let count = lambda.len();
        let hinges: [[u32; 4]; N] = padded(self.hinges, c0, count);
        let row_offsets: [[u32; 4]; N] = padded(self.row_offsets, c0, count);
        let rest_angle: [f32; N] = padded(self.rest_angle, c0, count);
        let compliance: [f32; N] = padded(self.compliance, c0, count);
        let batch = BendingSweep { hinges: &hinges, row_offsets: &row_offsets, rest_angle: &rest_angle, compliance: &compliance, ..*self };
        project_padded::<N, L, _, P>(&batch, lambda, x);
    }

    /// Hinges `c0 .. c0 + N` (of one colour) projected lane-wise, `lambda` their multipliers.
    #[inline(always)]
    fn project_batch<const N: usize, L: LaneSet<N>, P: Positions + ?Sized>(&self, c0: usize, lambda: &mut [f32; N], x: &mut P) {
        let offsets: &[[u32; 4]; N] = self.row_offsets[c0..c0 + N].try_into().expect("a batch of N hinges");
        let at: [[usize; 4]; N] = constraint_particles(offsets);
        let (g0, g1) = (gather_rows_at::<N, L, P>(x, column(&at, 0)), gather_rows_at::<N, L, P>(x, column(&at, 1)));
        let (g2, g3) = (gather_rows_at::<N, L, P>(x, column(&at, 2)), gather_rows_at::<N, L, P>(x, column(&at, 3)));
        let p = [g0.0, g1.0, g2.0, g3.0];
        let w = [g0.1, g1.1, g2.1, g3.1];
        let dx = if DAMPED {
            let ids: [[usize; 4]; N] = constraint_particles(&self.hinges[c0..c0 + N]);
            let prev = [
                gather_vec3::<N, L>(self.x_prev, column(&ids, 0)),
                gather_vec3::<N, L>(self.x_prev, column(&ids, 1)),
                gather_vec3::<N, L>(self.x_prev, column(&ids, 2)),
                gather_vec3::<N, L>(self.x_prev, column(&ids, 3)),
            ];
            [p[0].sub(prev[0]), p[1].sub(prev[1]), p[2].sub(prev[2]), p[3].sub(prev[3])]
        } else {
            p
        };
        let (rest_angle, compliance) = (L::load(self.rest_angle, c0), L::load(self.compliance, c0));
        let lambda_in = if self.fresh { L::splat(0.0) } else { L::from_array(*lambda) };
        let (dl, correction) = project_hinge::<L, DAMPED>(p, dx, w, rest_angle, compliance, lambda_in, self.k);
        *lambda = (lambda_in + dl).to_array();
        // Each particle's corrected row written back before the next one is formed, at offsets
        // read again from `offsets` (L1) rather than kept from the gather: kept, LLVM spilled most
        // of them to the stack and reloaded them (the same bits; docs/dev/performance-log.md,
        // "2026-11-30 — Offsets re-read at write-back, padded colour remainders, many small
        // cloths").
        for q in 0..4 {
            let rows = L::lanes_and_w_to_rows(p[q].add(correction.of(q)), w[q]);
            for l in 0..N {
                x.set_row_at(offsets[l][q] as usize, rows[l]);
            }
        }
    }
}

impl BendingConstraints {
    /// Uncoloured hinges and their rest angles \[rad\] (one per hinge; panics otherwise), room for
    /// their row offsets reserved.
    pub(crate) fn new(hinges: Vec<[u32; 4]>, rest_angle: Vec<f32>) -> Self {
        assert_eq!(hinges.len(), rest_angle.len(), "one rest angle per hinge");
        let row_offsets = RowOffsets::with_capacity(hinges.len());
        BendingConstraints { hinges, rest_angle, colour_start: Vec::new(), row_offsets }
    }

    /// Hinges `[x0, x1, x2, x3]` (module docs) in storage order.
    #[inline]
    pub fn hinges(&self) -> &[[u32; 4]] {
        &self.hinges
    }

    /// Rest angle φ₀ \[rad\] per hinge.
    #[inline]
    pub fn rest_angle(&self) -> &[f32] {
        &self.rest_angle
    }

    /// Start of each colour in storage order (`colour_count + 1` offsets) when the hinges are
    /// coloured for parallel sweeps (no two hinges of a colour share a particle); empty otherwise.
    #[inline]
    pub fn colour_start(&self) -> &[u32] {
        &self.colour_start
    }

    /// The hinges' particle row offsets and the colours' reach ([`Self::prepare_rows`]).
    #[inline]
    pub(crate) fn row_offsets(&self) -> &RowOffsets<4> {
        &self.row_offsets
    }

    /// Store the colouring `start` (as [`Self::colour_start`]; empty: uncoloured).
    ///
    /// # Safety
    /// No two hinges within a colour share a particle: the team sweeps write those particles from
    /// several threads at once.
    pub(crate) unsafe fn set_colouring(&mut self, start: Vec<u32>) {
        self.colour_start = start;
        let particles = self.hinges.as_flattened().iter().max().map_or(0, |&p| p as usize + 1);
        self.row_offsets.reserve_reach(self.colour_start.len(), particles);
        self.check_shape();
    }

    /// Change the hinges, rest angles or colours in place through `f`. Afterwards the row offsets
    /// are derived again at the next [`Self::prepare_rows`], and the arrays are checked to agree
    /// (one rest angle per hinge, colour offsets ascending from 0 to the hinge count, or none;
    /// panics otherwise).
    ///
    /// # Safety
    /// No two hinges within a colour share a particle after `f`, as for [`Self::set_colouring`].
    pub(crate) unsafe fn edit<R>(&mut self, f: impl FnOnce(BendingArrays<'_>) -> R) -> R {
        let r = f(BendingArrays { hinges: &mut self.hinges, rest_angle: &mut self.rest_angle, colour_start: &mut self.colour_start });
        self.row_offsets.indices_changed();
        self.check_shape();
        r
    }

    /// Room for the colours' reach among `particles` particles (a tearable cloth, whose cuts add
    /// particles that the hinges then name), so that the step after a cut allocates nothing.
    pub(crate) fn reserve_particles(&mut self, particles: usize) {
        self.row_offsets.reserve_reach(self.colour_start.len(), particles);
    }

    /// Panics unless there is one rest angle per hinge and the colour offsets ascend from 0 to the
    /// hinge count (or there are none).
    fn check_shape(&self) {
        assert_eq!(self.hinges.len(), self.rest_angle.len(), "one rest angle per hinge");
        let c = &self.colour_start;
        let ascending = c.windows(2).all(|w| w[0] <= w[1]);
        assert!(c.is_empty() || (c[0] == 0 && c[c.len() - 1] as usize == self.hinges.len() && ascending), "colour offsets {c:?} for {} hinges", self.hinges.len());
    }

    /// One Gauss–Seidel sweep over all hinges in storage order. When the hinges are coloured
    /// ([`BendingConstraints::colour_start`]), colour by colour, 16 hinges at a time where the CPU has
    /// AVX-512F (the rest as at most one 8-lane batch and one partial one), else 8 with AVX, else
    /// 4, the colour's remainder as one partial batch. Split over threads, the same sweep runs a
    /// colour's ranges through [`super::team::project_coloured`] (the same bits).
    /// With `fresh` the multipliers are taken as 0 instead of read (the substep's first sweep of
    /// the hinges: λ then needs no reset before it, and gets the bits the reset gave).
    ///
    /// # Safety
    /// Every particle index of the hinges is `< x.len()` and [`Self::row_offsets`] are derived
    /// from the current hinges (both by [`Self::prepare_rows`]), and
    /// [`BendingConstraints::colour_start`], if set, is a valid colouring (no two hinges of a colour share a
    /// particle).
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn solve_in_bounds(
        &self,
        compliance: &[f32],
        lambda: &mut [f32],
        x: &mut [SolverParticle],
        x_prev: &[Vec3],
        w: &[f32],
        k: &SubstepCoefficients,
        fresh: bool,
    ) {
        // SAFETY: the caller's contract; the kernel reads particles only through its `hinges`.
        unsafe { solve_damped(self, compliance, lambda, x, x_prev, w, k, fresh) }
    }

    /// Whether every particle index of the hinges is `< particle_count`; derives
    /// [`Self::row_offsets`] from the hinges. At the top of every step, before the sweeps; a pass
    /// over the hinges only after they changed ([`RowOffsets::prepare`]).
    pub(crate) fn prepare_rows(&mut self, particle_count: usize) -> bool {
        let hinges = &self.hinges;
        let checked = self.row_offsets.prepare(hinges.len(), particle_count, |out| row_offsets_below(hinges, particle_count, out));
        if checked {
            self.row_offsets.prepare_reach(hinges, &self.colour_start, particle_count);
        }
        checked
    }

    /// |C| \[rad\] of every hinge at positions `x` (0 for hinges that are currently degenerate),
    /// appended to `out` in storage order: 8 hinges at a time where the CPU has AVX, else
    /// [`LANES`], the remainder one at a time (the same bits: lane-wise arithmetic is the scalar
    /// arithmetic per lane). Lane-wise because the statistics evaluate every hinge once more per
    /// step (docs/dev/performance-log.md, "2026-11-30 — Fewer instructions per projection").
    pub(crate) fn residuals(&self, x: &[Vec3], out: &mut Vec<f32>) {
        #[cfg(target_arch = "x86_64")]
        if avx_available() {
            // SAFETY: the CPU has AVX (checked above).
            return unsafe { self.residuals_avx(x, out) };
        }
        self.residuals_lane_wise::<LANES, Lanes>(x, out);
    }

    /// [`Self::residuals`] 8 hinges at a time in AVX registers.
    ///
    /// # Safety
    /// The CPU must have AVX ([`avx_available`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    unsafe fn residuals_avx(&self, x: &[Vec3], out: &mut Vec<f32>) {
        self.residuals_lane_wise::<8, Lanes8>(x, out);
    }

    /// [`Self::residuals`], `N` hinges at a time, the remainder one at a time.
    #[inline(always)]
    fn residuals_lane_wise<const N: usize, L: LaneSet<N>>(&self, x: &[Vec3], out: &mut Vec<f32>) {
        let batched = self.hinges.len() / N * N;
        let (hinges, rest_hinges) = self.hinges.split_at(batched);
        let (rest_angle, rest_rest_angle) = self.rest_angle.split_at(batched);
        for (hinges, rest) in hinges.chunks_exact(N).zip(rest_angle.chunks_exact(N)) {
            let ids: [[usize; 4]; N] = constraint_particles(hinges);
            let p = [
                gather_vec3::<N, L>(x, column(&ids, 0)),
                gather_vec3::<N, L>(x, column(&ids, 1)),
                gather_vec3::<N, L>(x, column(&ids, 2)),
                gather_vec3::<N, L>(x, column(&ids, 3)),
            ];
            out.extend(hinge_abs_c(p, L::load(rest, 0)).to_array());
        }
        out.extend(rest_hinges.iter().zip(rest_rest_angle).map(|(h, &rest)| hinge_abs_c(h.map(|i| v3(x[i as usize])), rest)));
    }
}

/// |C| = |wrap(φ − φ₀)| \[rad\] of a hinge (or of several, lane-wise) at positions `p`, 0 where it
/// is degenerate.
#[inline(always)]
fn hinge_abs_c<T: Real>(p: [V3<T>; 4], rest_angle: T) -> T {
    // hinge_geometry inlined: the gradient it also computes is dead code here and dropped.
    let g = hinge_geometry(p);
    wrap_angle(g.phi - rest_angle).abs().or_zero(g.valid)
}

impl DampedKernels for BendingConstraints {
    type Kernel<'a, const DAMPED: bool> = BendingSweep<'a, DAMPED>;

    fn kernel<'a, const DAMPED: bool>(
        &'a self,
        compliance: &'a [f32],
        x_prev: &'a [Vec3],
        w: &'a [f32],
        k: &'a SubstepCoefficients,
        fresh: bool,
    ) -> (BendingSweep<'a, DAMPED>, Option<&'a [u32]>) {
        let (hinges, rest_angle) = (&self.hinges[..], &self.rest_angle[..]);
        let (row_offsets, reach) = (self.row_offsets.as_slice(), self.row_offsets.reach());
        let kernel = BendingSweep::<DAMPED> { fresh, hinges, reach, row_offsets, rest_angle, compliance, x_prev, w, k };
        (kernel, colour_ranges(&self.colour_start))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An edit marks the row offsets stale, so the next preparation derives them from the edited
    /// hinges; arrays left out of step (a rest angle short, colour offsets that do not end at the
    /// hinge count) are refused.
    #[test]
    fn edits_keep_the_row_offsets_and_the_arrays_in_step() {
        let mut b = BendingConstraints::new(vec![[0, 1, 2, 3], [4, 5, 6, 7]], vec![0.5, -0.5]);
        assert!(b.prepare_rows(8));
        // SAFETY (every edit and colouring below): uncoloured, or one hinge per colour.
        unsafe { b.edit(|a| a.hinges.swap(0, 1)) };
        assert!(b.prepare_rows(8));
        let bytes = crate::constraints::access::ROW_BYTES as u32;
        assert_eq!(b.row_offsets().as_slice(), [[4, 5, 6, 7].map(|i| i * bytes), [0, 1, 2, 3].map(|i| i * bytes)]);
        let short = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { b.edit(|a| a.hinges.push([0, 2, 4, 6])) }));
        assert!(short.is_err(), "a hinge without a rest angle");
        let mut c = BendingConstraints::new(vec![[0, 1, 2, 3], [4, 5, 6, 7]], vec![0.5, -0.5]);
        let open_end = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { c.set_colouring(vec![0, 1]) }));
        assert!(open_end.is_err(), "colours that stop short of the last hinge");
        unsafe { c.set_colouring(vec![0, 1, 2]) };
        assert_eq!(c.colour_start(), [0, 1, 2]);
    }

    /// The lane-wise residuals against the scalar formula, hinge by hinge, to the bit: random
    /// hinges over random points (some far from flat, some past ±π of their rest angle), some
    /// degenerate (a repeated corner: residual 0), and a remainder that is not a multiple of
    /// [`LANES`] or of 8; 8 lanes (where the CPU has AVX) and 4 give the same bits.
    #[test]
    fn lane_wise_residuals_have_the_scalar_bits() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 40) as f32 / (1u64 << 24) as f32
        };
        let x: Vec<Vec3> = (0..64).map(|_| Vec3::new(next(), next(), next()) * 2.0 - Vec3::ONE).collect();
        let (mut hinges, mut rest_angle) = (Vec::new(), Vec::new());
        for h in 0..203u32 {
            let pick = |k: u32| (h * 7 + k * 13) % 64;
            // Every 9th hinge repeats a corner of its shared edge (zero-height triangle).
            let hinge = if h % 9 == 0 { [pick(0), pick(1), pick(2), pick(0)] } else { [pick(0), pick(1), pick(2), pick(3)] };
            hinges.push(hinge);
            rest_angle.push((next() * 2.0 - 1.0) * PI);
        }
        let bending = BendingConstraints::new(hinges, rest_angle);
        let mut lane_wise = Vec::new();
        bending.residuals(&x, &mut lane_wise);
        assert_eq!(lane_wise.len(), bending.hinges().len());
        // Where the CPU has AVX the above took 8 at a time; the SSE path gives the same bits.
        #[cfg(target_arch = "x86_64")]
        {
            let mut four_lanes = Vec::new();
            super::super::lanes_avx::tests::sse_only(|| bending.residuals(&x, &mut four_lanes));
            assert_eq!(four_lanes.iter().map(|c| c.to_bits()).collect::<Vec<_>>(), lane_wise.iter().map(|c| c.to_bits()).collect::<Vec<_>>());
        }
        let mut degenerate = 0;
        for ((hinge, rest), got) in bending.hinges().iter().zip(bending.rest_angle()).zip(&lane_wise) {
            let want = match dihedral_angle(hinge.map(|i| x[i as usize])) {
                Some(phi) => wrap_angle(phi - rest).abs(),
                None => {
                    degenerate += 1;
                    0.0
                }
            };
            assert_eq!(got.to_bits(), want.to_bits(), "hinge {hinge:?}");
        }
        assert!(degenerate >= 20, "{degenerate} degenerate hinges");
    }
}
