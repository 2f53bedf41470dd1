//! One Gauss–Seidel sweep over a constraint type, sequential or colour-parallel, with the same
//! projection code on both paths ([`Sweep::project_range`] is generic over [`Positions`]).

use super::access::{Positions, SharedPositions, SolverParticle};
use super::SubstepCoefficients;
use glam::Vec3;
use super::lanes::{LANES, LaneSet, Lanes};
#[cfg(target_arch = "x86_64")]
use super::lanes_avx::{Lanes8, avx_available};
#[cfg(target_arch = "x86_64")]
use super::lanes_avx512::{Lanes16, avx512_available};

/// A constraint type's projection, for [`sweep`].
pub(crate) trait Sweep: Sync {
    /// Project constraints `first .. first + lambda.len()` in storage order; `lambda` are their
    /// multipliers.
    fn project_range<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P);

    /// The same as [`Sweep::project_range`] for constraints that share no particle (part of one
    /// colour), which lets a kernel project several at once. It must give the same bits.
    #[inline(always)]
    fn project_disjoint<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
        self.project_range(first, lambda, x);
    }

    /// Whether a range may end just before constraint `c` (constraints that must run together on
    /// one thread, such as a particle's tether group, return false inside the group).
    #[inline]
    fn can_split_before(&self, _c: usize) -> bool {
        true
    }

    /// The lowest and highest index of the particles that constraints `begin..end` (`begin < end`,
    /// all of colour `colour`) read or write, or a range around them; None when unknown. The team's
    /// look-ahead relies on it (`constraints::team`): a part of a later colour starts while parts
    /// of earlier colours are unfinished only if none of those parts' bounds overlap its own. So
    /// an implementation must never return a range that misses a particle.
    #[inline]
    fn particle_bounds(&self, _colour: usize, _begin: usize, _end: usize) -> Option<(u32, u32)> {
        None
    }
}

/// A kernel by reference (the solver's [`super::team::SweepWork`]s own their kernels; the team's
/// tests share theirs).
#[cfg(test)]
impl<S: Sweep> Sweep for &S {
    #[inline(always)]
    fn project_range<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
        (**self).project_range(first, lambda, x);
    }

    #[inline(always)]
    fn project_disjoint<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
        (**self).project_disjoint(first, lambda, x);
    }

    #[inline]
    fn can_split_before(&self, c: usize) -> bool {
        (**self).can_split_before(c)
    }

    #[inline]
    fn particle_bounds(&self, colour: usize, begin: usize, end: usize) -> Option<(u32, u32)> {
        (**self).particle_bounds(colour, begin, end)
    }
}

/// Project every constraint once on this thread. Without `colour_start`, one at a time in storage
/// order. With it (`colour_count + 1` offsets of colour ranges in storage order), colour after
/// colour through [`Sweep::project_disjoint`]. Within a colour no particle is shared, so the bits do
/// not depend on the batching, nor on how a team of threads splits the colours
/// ([`super::team::run_team`]): every variant equals the one-at-a-time sweep over the same
/// (colour-sorted) order.
///
/// # Safety
/// - Every particle index the kernel passes to [`Positions`] is `< x.len()` (particles are read
///   and written without bounds checks).
/// - Each colour range touches pairwise disjoint particles: constraints in it share no particle
///   they write, and particles they only read are written by none (colourings are checked by
///   `colouring_is_valid` in the tests).
pub(crate) unsafe fn sweep<S: Sweep>(s: &S, x: &mut [SolverParticle], lambda: &mut [f32], colour_start: Option<&[u32]>) {
    // SAFETY: indices in bounds (the caller's contract); one thread walks the view.
    let mut rows = unsafe { SharedPositions::new(x) };
    let Some(colour_start) = colour_start else {
        s.project_range(0, lambda, &mut rows);
        return;
    };
    for range in colour_start.windows(2) {
        let (begin, end) = (range[0] as usize, range[1] as usize);
        s.project_disjoint(begin, &mut lambda[begin..end], &mut rows);
    }
}

/// A constraint type whose sweep kernel comes in two variants: undamped (`DAMPED = false`, β = 0:
/// ∇C·(x − x_prev) is not needed and `x_prev` is never read) and damped. The stretch and bending
/// constraints; [`solve_damped`] and [`super::team::project_coloured`] pick the variant from the
/// substep's coefficients.
pub(crate) trait DampedKernels {
    /// The kernel, borrowing the constraints' arrays.
    type Kernel<'a, const DAMPED: bool>: Sweep + Copy
    where
        Self: 'a;

    /// The kernel (`compliance`: α per constraint, `f32[constraint count]`; `x_prev` \[m\] and `w`
    /// \[1/kg\], `Vec3`/`f32[particle count]`; with `fresh` it takes λ as 0 instead of reading it)
    /// and the colour starts (`u32[colour count + 1]`, None when uncoloured).
    fn kernel<'a, const DAMPED: bool>(
        &'a self,
        compliance: &'a [f32],
        x_prev: &'a [Vec3],
        w: &'a [f32],
        k: &'a SubstepCoefficients,
        fresh: bool,
    ) -> (Self::Kernel<'a, DAMPED>, Option<&'a [u32]>);
}

/// A constraint type's colour starts as [`DampedKernels::kernel`] returns them: None when
/// uncoloured (`colour_start` empty).
#[inline]
pub(crate) fn colour_ranges(colour_start: &[u32]) -> Option<&[u32]> {
    (!colour_start.is_empty()).then_some(colour_start)
}

/// One [`sweep`] of `constraints` (compliances `compliance`, multipliers `lambda`, one per
/// constraint) with the undamped kernel when `k` has no damping, else the damped one.
///
/// # Safety
/// [`sweep`]'s contract for the kernel's particle indices and the colour starts.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn solve_damped<C: DampedKernels>(
    constraints: &C,
    compliance: &[f32],
    lambda: &mut [f32],
    x: &mut [SolverParticle],
    x_prev: &[Vec3],
    w: &[f32],
    k: &SubstepCoefficients,
    fresh: bool,
) {
    if k.undamped() {
        let (kernel, colour_start) = constraints.kernel::<false>(compliance, x_prev, w, k, fresh);
        // SAFETY: the caller's contract.
        unsafe { sweep(&kernel, x, lambda, colour_start) };
    } else {
        let (kernel, colour_start) = constraints.kernel::<true>(compliance, x_prev, w, k, fresh);
        // SAFETY: the caller's contract.
        unsafe { sweep(&kernel, x, lambda, colour_start) };
    }
}

/// A constraint type whose kernel also projects `N` constraints of one colour at once, lane-wise
/// ([`project_disjoint_lanes`]).
pub(crate) trait BatchSweep: Sweep {
    /// Project constraints `c0 .. c0 + N` (part of one colour: they share no particle), `lambda`
    /// their multipliers, with the bits of [`Sweep::project_range`].
    fn project_batch<const N: usize, L: LaneSet<N>, P: Positions + ?Sized>(&self, c0: usize, lambda: &mut [f32; N], x: &mut P);

    /// Project constraints `c0 .. c0 + lambda.len()` (fewer than `N`, part of one colour) as one
    /// `N`-lane batch, with the bits of [`Sweep::project_range`]: [`BatchSweep::project_batch`] on a
    /// copy of the sweep whose constraint arrays are those constraints, the last repeated to fill
    /// the lanes ([`padded`]).
    fn project_partial_batch<const N: usize, L: LaneSet<N>, P: Positions + ?Sized>(&self, c0: usize, lambda: &mut [f32], x: &mut P);
}

/// `v[c0 + min(l, count − 1)]` in lane `l`: the `count` values from `c0` (1 ≤ `count` ≤ `N`), the
/// last repeated. A lane holding a repeat computes exactly what the lane of the original computes
/// (every operation is lane by lane, and `all`/`any` over the lanes see one more copy of a value
/// already there), so a kernel writes the same row twice, with the same bits; the repeats' λ are
/// dropped ([`project_padded`]).
#[inline(always)]
pub(crate) fn padded<T: Copy, const N: usize>(v: &[T], c0: usize, count: usize) -> [T; N] {
    debug_assert!((1..=N).contains(&count));
    std::array::from_fn(|l| v[c0 + l.min(count - 1)])
}

/// [`BatchSweep::project_batch`] of `batch` (a sweep whose constraint arrays hold a partial batch
/// from index 0, [`padded`]) with `lambda`, the partial batch's multipliers, padded the same way;
/// their new values copied back. A generic function rather than a closure, which would be compiled
/// on its own, without AVX.
#[inline(always)]
pub(crate) fn project_padded<const N: usize, L: LaneSet<N>, S: BatchSweep, P: Positions + ?Sized>(batch: &S, lambda: &mut [f32], x: &mut P) {
    let mut lanes: [f32; N] = padded(lambda, 0, lambda.len());
    batch.project_batch::<N, L, P>(0, &mut lanes, x);
    lambda.copy_from_slice(&lanes[..lambda.len()]);
}

/// [`Sweep::project_disjoint`] for a [`BatchSweep`]: 16 constraints at a time where the CPU has
/// AVX-512F (the rest as at most one 8-lane batch and a partial one), 8 where it has AVX, else
/// [`LANES`] at a time, the remainder as one partial batch of that width. The same bits as
/// [`Sweep::project_range`] (one colour: the constraints share no particle, and every width does
/// the same IEEE operations per lane), except for the sign or payload of a NaN result: x86 returns
/// one operand's NaN, and LLVM may order the operands of an add or multiply differently in each
/// compiled kernel. So a NaN state's NaNs may differ between widths, and between builds that move
/// constraints from one width to another (docs/design.md, "Determinism contract").
#[inline(always)]
pub(crate) fn project_disjoint_lanes<S: BatchSweep, P: Positions + ?Sized>(s: &S, first: usize, lambda: &mut [f32], x: &mut P) {
    #[cfg(target_arch = "x86_64")]
    if avx512_available() {
        // SAFETY: the CPU has AVX-512F (checked above).
        return unsafe { project_disjoint_avx512(s, first, lambda, x) };
    }
    #[cfg(target_arch = "x86_64")]
    if avx_available() {
        // SAFETY: the CPU has AVX (checked above).
        return unsafe { project_disjoint_avx(s, first, lambda, x) };
    }
    project_disjoint_sse(s, first, lambda, x);
}

/// `N` constraints at a time through [`BatchSweep::project_batch`]; returns the first index and
/// the multipliers of the remainder (fewer than `N`). (`chunks_exact_mut` rather than
/// `as_chunks_mut`, which needs Rust 1.88.)
#[inline(always)]
fn project_batches<'a, const N: usize, L: LaneSet<N>, S: BatchSweep, P: Positions + ?Sized>(
    s: &S,
    first: usize,
    lambda: &'a mut [f32],
    x: &mut P,
) -> (usize, &'a mut [f32]) {
    let (batched, rest) = lambda.split_at_mut(lambda.len() / N * N);
    for (b, lambda) in batched.chunks_exact_mut(N).enumerate() {
        s.project_batch::<N, L, P>(first + b * N, lambda.try_into().expect("N multipliers"), x);
    }
    (first + batched.len(), rest)
}

/// [`LANES`] constraints at a time, the remainder as one partial batch.
#[inline(always)]
fn project_disjoint_sse<S: BatchSweep, P: Positions + ?Sized>(s: &S, first: usize, lambda: &mut [f32], x: &mut P) {
    let (first, rest) = project_batches::<LANES, Lanes, S, P>(s, first, lambda, x);
    if !rest.is_empty() {
        s.project_partial_batch::<LANES, Lanes, P>(first, rest, x);
    }
}

/// 8 constraints at a time in AVX registers, the remainder (1–7) as one partial 8-lane batch
/// ([`BatchSweep::project_partial_batch`]), not one constraint at a time, which cost small cloths
/// with short colours a noticeable share of their step (docs/dev/performance-log.md, "2026-11-30 —
/// Offsets re-read at write-back, padded colour remainders, many small cloths").
/// Generic functions, not closures, all the way down: a closure is its own function, compiled
/// without AVX, and was not inlined here.
///
/// # Safety
/// The CPU must have AVX ([`avx_available`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn project_disjoint_avx<S: BatchSweep, P: Positions + ?Sized>(s: &S, first: usize, lambda: &mut [f32], x: &mut P) {
    let (first, rest) = project_batches::<8, Lanes8, S, P>(s, first, lambda, x);
    if !rest.is_empty() {
        s.project_partial_batch::<8, Lanes8, P>(first, rest, x);
    }
}

/// 16 constraints at a time in AVX-512 registers, then the remainder (1–15) as at most one
/// 8-lane batch and one partial 8-lane batch: a partial 16-lane batch wastes up to 15 lanes, and
/// the wide palette of a cloth solved on one thread has colours of a few dozen edges. The 16 lanes
/// pay through AVX-512's 32 registers (the hinge kernel no longer spills) and a batch's fixed work
/// shared by twice the constraints (docs/dev/performance-log.md, "2026-11-30 — 16-lane AVX-512
/// kernels and tether ordering"). The same bits as 8 lanes (module docs of `lanes_avx512`).
///
/// # Safety
/// The CPU must have AVX-512F ([`avx512_available`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn project_disjoint_avx512<S: BatchSweep, P: Positions + ?Sized>(s: &S, first: usize, lambda: &mut [f32], x: &mut P) {
    let (first, rest) = project_batches::<16, Lanes16, S, P>(s, first, lambda, x);
    let (first, rest) = project_batches::<8, Lanes8, S, P>(s, first, rest, x);
    if !rest.is_empty() {
        s.project_partial_batch::<8, Lanes8, P>(first, rest, x);
    }
}
