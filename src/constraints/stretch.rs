//! Stretch (edge distance) constraint on every unique mesh edge.
//!
//! C(x_i, x_j) = ‖x_i − x_j‖ − L,  ∇_i C = n,  ∇_j C = −n,  n = (x_i − x_j)/‖x_i − x_j‖
//! (Müller et al. 2006, Position Based Dynamics, §3.3 / eq. 10–11; solved with the XPBD update,
//! Macklin et al. 2016, eq. 18 and 26). Compliance α in m/N, λ in N·s², force ≈ λ/h² \[N\].
//! The kernels are tested against the formula written from the papers in `src/reference/distance.rs`.

use super::access::{ColourReach, Positions, RowOffsets, SolverParticle, column, constraint_particles, gather_rows_at, gather_vec3, row_offsets_below};
use super::sweep::{BatchSweep, DampedKernels, Sweep, colour_ranges, padded, project_disjoint_lanes, project_padded, solve_damped};
use super::lanes::{LANES, LaneSet, Lanes, Real, V3, v3};
#[cfg(target_arch = "x86_64")]
use super::lanes_avx::{Lanes8, avx_available};
use super::{MIN_DENOMINATOR, SubstepCoefficients, xpbd_delta_lambda_parts};
use glam::Vec3;

/// C and ∇_i C of one distance constraint, or `None` when the particles coincide (the gradient is
/// undefined there and the projection is skipped).
#[cfg(test)]
pub fn distance_and_gradient(xi: Vec3, xj: Vec3, rest_length: f32) -> Option<(f32, Vec3)> {
    let d = xi - xj;
    let len = d.length();
    if len > 1e-9 { Some((len - rest_length, d / len)) } else { None }
}

/// All stretch constraints of one cloth, structure-of-arrays. The fields are private because the
/// unchecked sweeps rely on them agreeing: one rest length per edge, colour offsets ascending from
/// 0 to the edge count (or none), and row offsets derived from the current edges. Every change
/// goes through [`Self::new`], [`Self::edit`] or [`Self::set_colouring`], which keep that.
#[derive(Clone, Debug, Default)]
pub struct StretchConstraints {
    /// Particle pairs `[i, j]`.
    edges: Vec<[u32; 2]>,
    /// Rest length L \[m\], one per edge.
    rest_length: Vec<f32>,
    /// Start of each colour in storage order (`colour_count + 1` offsets) when the edges are
    /// coloured for parallel sweeps (no two edges of a colour share a particle); empty otherwise.
    colour_start: Vec<u32>,
    /// Byte offsets of the edges' particle rows, derived from `edges` and checked at the top of
    /// the first step after they changed ([`Self::prepare_rows`]); what the lane-wise kernel
    /// addresses rows by. [`Self::edit`] marks them stale.
    row_offsets: RowOffsets<2>,
}

/// The arrays of [`StretchConstraints`] lent to [`StretchConstraints::edit`].
pub(crate) struct StretchArrays<'a> {
    /// Particle pairs `[i, j]`.
    pub edges: &'a mut Vec<[u32; 2]>,
    /// Rest length L \[m\] per edge.
    pub rest_length: &'a mut Vec<f32>,
    /// Colour offsets, as [`StretchConstraints::colour_start`].
    pub colour_start: &'a mut Vec<u32>,
}

/// The stretch projection for [`sweep`](super::sweep::sweep); `DAMPED` is false when β = 0.
#[derive(Clone, Copy)]
pub(crate) struct StretchSweep<'a, const DAMPED: bool> {
    /// Take λ as 0 instead of reading it (the first sweep of a substep: the multipliers need no
    /// reset before it; the sum 0 + Δλ has the bits the reset gave).
    fresh: bool,
    edges: &'a [[u32; 2]],
    /// [`RowOffsets::prepare_reach`] of `edges`: the team sweep's look-ahead bounds.
    reach: &'a ColourReach,
    row_offsets: &'a [[u32; 2]],
    rest_length: &'a [f32],
    compliance: &'a [f32],
    x_prev: &'a [Vec3],
    w: &'a [f32],
    k: &'a SubstepCoefficients,
}

/// One XPBD projection of an edge (or of several disjoint edges lane-wise) with d = x_i − x_j: returns Δλ
/// and the corrections w_i·t·d (added to x_i) and w_j·t·d (subtracted from x_j), t = Δλ/‖d‖, so that
/// the unit normal is never formed: one division per edge. Zero when the particles coincide, a
/// position is not finite, or the denominator vanishes (skipped). `dx` is
/// (x_i − x_prev_i) − (x_j − x_prev_j), read only when `DAMPED`.
#[inline(always)]
fn project_edge<T: Real, const DAMPED: bool>(
    d: V3<T>,
    dx: V3<T>,
    w: [T; 2],
    rest_length: T,
    compliance: T,
    lambda: T,
    k: &SubstepCoefficients,
) -> (T, V3<T>, V3<T>) {
    let zero = T::splat(0.0);
    let len = d.dot(d).sqrt();
    let ok = len.gt(T::splat(1e-9));
    let len = T::select(ok, len, T::splat(1.0));
    let grad_dot_dx = if DAMPED { d.dot(dx) / len } else { zero };
    let (num, den) = xpbd_delta_lambda_parts::<T, DAMPED>(len - rest_length, lambda, compliance, k, w[0] + w[1], grad_dot_dx);
    let ok = T::both(den.gt(T::splat(MIN_DENOMINATOR)), ok);
    let t = num / (den * len);
    let t = t.or_zero(ok);
    // Masked rather than multiplied by t = 0: an edge with a non-finite particle must leave the
    // other one untouched (NaN·0 is NaN), as the explosion guard relies on.
    (t * len, d.scale(w[0] * t).zero_unless(ok), d.scale(w[1] * t).zero_unless(ok))
}

impl<const DAMPED: bool> Sweep for StretchSweep<'_, DAMPED> {
    #[inline]
    fn project_range<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
        for (c, lambda) in (first..).zip(lambda) {
            let lambda_in = if self.fresh { 0.0 } else { *lambda };
            let [i, j] = self.edges[c];
            let (i, j) = (i as usize, j as usize);
            let (wi, wj) = (self.w[i], self.w[j]);
            let (xi, xj) = (x.get(i), x.get(j));
            let d = xi - xj;
            let dx = if DAMPED { (xi - self.x_prev[i]) - (xj - self.x_prev[j]) } else { Vec3::ZERO };
            let (dl, ci, cj) =
                project_edge::<f32, DAMPED>(v3(d), v3(dx), [wi, wj], self.rest_length[c], self.compliance[c], lambda_in, self.k);
            *lambda = lambda_in + dl;
            x.set(i, xi + ci.to_vec3());
            x.set(j, xj - cj.to_vec3());
        }
    }

    /// [`project_disjoint_lanes`]: 16 edges at a time where the CPU has AVX-512F (the rest as at
    /// most one 8-lane batch and one partial 8-lane batch), else 8 where it has AVX, else
    /// [`LANES`], the remainder as one partial batch.
    #[inline(always)]
    fn project_disjoint<P: Positions + ?Sized>(&self, first: usize, lambda: &mut [f32], x: &mut P) {
        project_disjoint_lanes(self, first, lambda, x);
    }

    #[inline]
    fn particle_bounds(&self, colour: usize, begin: usize, end: usize) -> Option<(u32, u32)> {
        self.reach.bounds(self.edges, colour, begin, end)
    }
}

impl<const DAMPED: bool> BatchSweep for StretchSweep<'_, DAMPED> {
    #[inline(always)]
    fn project_partial_batch<const N: usize, L: LaneSet<N>, P: Positions + ?Sized>(&self, c0: usize, lambda: &mut [f32], x: &mut P) {
        let count = lambda.len();
        let edges: [[u32; 2]; N] = padded(self.edges, c0, count);
        let row_offsets: [[u32; 2]; N] = padded(self.row_offsets, c0, count);
        let rest_length: [f32; N] = padded(self.rest_length, c0, count);
        let compliance: [f32; N] = padded(self.compliance, c0, count);
        let batch = StretchSweep { edges: &edges, row_offsets: &row_offsets, rest_length: &rest_length, compliance: &compliance, ..*self };
        project_padded::<N, L, _, P>(&batch, lambda, x);
    }

    /// Edges `c0 .. c0 + N` (of one colour) projected lane-wise, `lambda` their multipliers.
    #[inline(always)]
    fn project_batch<const N: usize, L: LaneSet<N>, P: Positions + ?Sized>(&self, c0: usize, lambda: &mut [f32; N], x: &mut P) {
        let offsets: &[[u32; 2]; N] = self.row_offsets[c0..c0 + N].try_into().expect("a batch of N edges");
        let at: [[usize; 2]; N] = constraint_particles(offsets);
        let ((xi, wi), (xj, wj)) = (gather_rows_at::<N, L, P>(x, column(&at, 0)), gather_rows_at::<N, L, P>(x, column(&at, 1)));
        let dx = if DAMPED {
            let ids: [[usize; 2]; N] = constraint_particles(&self.edges[c0..c0 + N]);
            let (prev_i, prev_j) =
                (gather_vec3::<N, L>(self.x_prev, column(&ids, 0)), gather_vec3::<N, L>(self.x_prev, column(&ids, 1)));
            xi.sub(prev_i).sub(xj.sub(prev_j))
        } else {
            xi
        };
        let lambda_in = if self.fresh { L::splat(0.0) } else { L::from_array(*lambda) };
        let (dl, ci, cj) = project_edge::<L, DAMPED>(
            xi.sub(xj),
            dx,
            [wi, wj],
            L::load(self.rest_length, c0),
            L::load(self.compliance, c0),
            lambda_in,
            self.k,
        );
        // The new rows from the lanes (w as gathered): no particle row is read a second time.
        let (ci, cj) = (L::lanes_and_w_to_rows(xi.add(ci), wi), L::lanes_and_w_to_rows(xj.sub(cj), wj));
        *lambda = (lambda_in + dl).to_array();
        // Offsets read again rather than kept from the gather, which spilled them (as for hinges,
        // `bending.rs`; docs/dev/performance-log.md, "2026-11-30 — Offsets re-read at write-back,
        // padded colour remainders, many small cloths").
        for l in 0..N {
            let [i, j] = offsets[l];
            x.set_row_at(i as usize, ci[l]);
            x.set_row_at(j as usize, cj[l]);
        }
    }
}

impl StretchConstraints {
    /// Uncoloured edges and their rest lengths \[m\] (one per edge; panics otherwise), room for
    /// their row offsets reserved.
    pub(crate) fn new(edges: Vec<[u32; 2]>, rest_length: Vec<f32>) -> Self {
        assert_eq!(edges.len(), rest_length.len(), "one rest length per edge");
        let row_offsets = RowOffsets::with_capacity(edges.len());
        StretchConstraints { edges, rest_length, colour_start: Vec::new(), row_offsets }
    }

    /// Particle pairs `[i, j]` in storage order.
    #[inline]
    pub fn edges(&self) -> &[[u32; 2]] {
        &self.edges
    }

    /// Rest length L \[m\] per edge.
    #[inline]
    pub fn rest_length(&self) -> &[f32] {
        &self.rest_length
    }

    /// Start of each colour in storage order (`colour_count + 1` offsets) when the edges are
    /// coloured for parallel sweeps (no two edges of a colour share a particle); empty otherwise.
    #[inline]
    pub fn colour_start(&self) -> &[u32] {
        &self.colour_start
    }

    /// The edges' particle row offsets and the colours' reach ([`Self::prepare_rows`]).
    #[inline]
    pub(crate) fn row_offsets(&self) -> &RowOffsets<2> {
        &self.row_offsets
    }

    /// Store the colouring `start` (as [`Self::colour_start`]; empty: uncoloured).
    ///
    /// # Safety
    /// No two edges within a colour share a particle: the team sweeps write those particles from
    /// several threads at once.
    pub(crate) unsafe fn set_colouring(&mut self, start: Vec<u32>) {
        self.colour_start = start;
        let particles = self.edges.as_flattened().iter().max().map_or(0, |&p| p as usize + 1);
        self.row_offsets.reserve_reach(self.colour_start.len(), particles);
        self.check_shape();
    }

    /// Change the edges, rest lengths or colours in place through `f`. Afterwards the row offsets
    /// are derived again at the next [`Self::prepare_rows`], and the arrays are checked to agree
    /// (one rest length per edge, colour offsets ascending from 0 to the edge count, or none;
    /// panics otherwise).
    ///
    /// # Safety
    /// No two edges within a colour share a particle after `f`, as for [`Self::set_colouring`].
    pub(crate) unsafe fn edit<R>(&mut self, f: impl FnOnce(StretchArrays<'_>) -> R) -> R {
        let r = f(StretchArrays { edges: &mut self.edges, rest_length: &mut self.rest_length, colour_start: &mut self.colour_start });
        self.row_offsets.indices_changed();
        self.check_shape();
        r
    }

    /// Room for `edges` edges and `colours` colours among `particles` particles without
    /// allocating (a tearable cloth).
    pub(crate) fn reserve(&mut self, edges: usize, colours: usize, particles: usize) {
        self.edges.reserve(edges.saturating_sub(self.edges.len()));
        self.rest_length.reserve(edges.saturating_sub(self.rest_length.len()));
        self.colour_start.reserve(colours.saturating_sub(self.colour_start.len()));
        self.row_offsets.reserve(edges);
        self.row_offsets.reserve_reach(colours, particles);
    }

    /// Panics unless there is one rest length per edge and the colour offsets ascend from 0 to the
    /// edge count (or there are none).
    fn check_shape(&self) {
        assert_eq!(self.edges.len(), self.rest_length.len(), "one rest length per edge");
        let c = &self.colour_start;
        let ascending = c.windows(2).all(|w| w[0] <= w[1]);
        assert!(c.is_empty() || (c[0] == 0 && c[c.len() - 1] as usize == self.edges.len() && ascending), "colour offsets {c:?} for {} edges", self.edges.len());
    }

    /// One Gauss–Seidel sweep over all edges in storage order. When the edges are coloured
    /// ([`StretchConstraints::colour_start`]), colour by colour, 16 edges at a time where the CPU has
    /// AVX-512F (the rest as at most one 8-lane batch and one partial one), else 8 with AVX, else
    /// 4, the colour's remainder as one partial batch. Split over threads, the same sweep runs a
    /// colour's ranges through [`super::team::project_coloured`] (the same bits).
    /// `compliance` is α \[m/N\] and `lambda` λ \[N·s²\] per edge (`f32[edge count]`). With `fresh`
    /// the multipliers are taken as 0 instead of read (the substep's first sweep of the edges: λ
    /// then needs no reset before it, and gets the bits the reset gave).
    ///
    /// # Safety
    /// Every particle index of the edges is `< x.len()` and [`Self::row_offsets`] are derived from
    /// the current edges (both by [`Self::prepare_rows`]), and
    /// [`StretchConstraints::colour_start`], if set, is a valid colouring (no two edges of a colour share a
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
        // SAFETY: the caller's contract; the kernel reads particles only through its `edges`.
        unsafe { solve_damped(self, compliance, lambda, x, x_prev, w, k, fresh) }
    }

    /// Whether every particle index of the edges is `< particle_count`; derives
    /// [`Self::row_offsets`] from the edges. At the top of every step, before the sweeps; a pass
    /// over the edges only after they changed ([`RowOffsets::prepare`]).
    pub(crate) fn prepare_rows(&mut self, particle_count: usize) -> bool {
        let edges = &self.edges;
        let checked = self.row_offsets.prepare(edges.len(), particle_count, |out| row_offsets_below(edges, particle_count, out));
        if checked {
            self.row_offsets.prepare_reach(edges, &self.colour_start, particle_count);
        }
        checked
    }

    /// |C| \[m\] of every edge at positions `x`, appended to `out`; returns [`Self::max_strain`]
    /// (the same bits), from the same edge lengths rather than a second pass. 8 edges at a time
    /// where the CPU has AVX, else [`LANES`], the remainder one at a time: lane-wise arithmetic is
    /// the scalar arithmetic per lane, and a maximum does not depend on the order (one pass per
    /// step for the statistics; docs/dev/performance-log.md, "2026-11-30 — The team of threads,
    /// positions kept in the sweep rows, the bench's first tables").
    pub(crate) fn residuals_and_max_strain(&self, x: &[Vec3], out: &mut Vec<f32>) -> f32 {
        #[cfg(target_arch = "x86_64")]
        if avx_available() {
            // SAFETY: the CPU has AVX (checked above).
            return unsafe { self.residuals_avx(x, out) };
        }
        self.residuals_lane_wise::<LANES, Lanes>(x, out)
    }

    /// [`Self::residuals_and_max_strain`] 8 edges at a time in AVX registers.
    ///
    /// # Safety
    /// The CPU must have AVX ([`avx_available`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    unsafe fn residuals_avx(&self, x: &[Vec3], out: &mut Vec<f32>) -> f32 {
        self.residuals_lane_wise::<8, Lanes8>(x, out)
    }

    /// [`Self::residuals_and_max_strain`], `N` edges at a time, the remainder one at a time.
    #[inline(always)]
    fn residuals_lane_wise<const N: usize, L: LaneSet<N>>(&self, x: &[Vec3], out: &mut Vec<f32>) -> f32 {
        let batched = self.edges.len() / N * N;
        let (edges, rest_edges) = self.edges.split_at(batched);
        let (rest_length, rest_rest_length) = self.rest_length.split_at(batched);
        let zero = L::splat(0.0);
        let mut max_strain = zero;
        for (edges, l) in edges.chunks_exact(N).zip(rest_length.chunks_exact(N)) {
            let ids: [[usize; 2]; N] = constraint_particles(edges);
            let d = gather_vec3::<N, L>(x, column(&ids, 0)).sub(gather_vec3::<N, L>(x, column(&ids, 1)));
            let (c, strain) = edge_c_and_strain(d, L::load(l, 0));
            // A NaN strain (a NaN position) never wins, as in `f32::max`: the running maximum
            // stays a number, and the result does not depend on the lane width.
            max_strain = L::select(strain.gt(max_strain), strain, max_strain);
            out.extend(c.abs().to_array());
        }
        let mut max_strain = max_strain.to_array().into_iter().fold(0.0f32, f32::max);
        out.extend(rest_edges.iter().zip(rest_rest_length).map(|(&[i, j], &l)| {
            let (c, strain) = edge_c_and_strain(v3(x[i as usize] - x[j as usize]), l);
            max_strain = max_strain.max(strain);
            c.abs()
        }));
        max_strain
    }

    /// Every edge's stretch max(0, ‖x_i − x_j‖/L − 1) at positions `x` \[m\] (0 for L = 0), appended
    /// to `out` in storage order.
    pub(crate) fn stretches(&self, x: &[Vec3], out: &mut Vec<f32>) {
        out.extend(self.edges.iter().zip(&self.rest_length).map(|(&[i, j], &l)| edge_c_and_strain(v3(x[i as usize] - x[j as usize]), l).1.max(0.0)));
    }

    /// Largest relative elongation (‖x_i − x_j‖ − L)/L over all edges, 0 if none is stretched.
    pub fn max_strain(&self, x: &[Vec3]) -> f32 {
        self.edges.iter().zip(&self.rest_length).fold(0.0f32, |m, (&[i, j], &l)| {
            m.max(edge_c_and_strain(v3(x[i as usize] - x[j as usize]), l).1)
        })
    }
}

/// C = ‖d‖ − L \[m\] of an edge (or of several, lane-wise) with d = x_i − x_j and rest length L,
/// and its strain C/L; the strain is 0 for L = 0, which leaves a running maximum (≥ 0) as it is.
#[inline(always)]
fn edge_c_and_strain<T: Real>(d: V3<T>, rest_length: T) -> (T, T) {
    let zero = T::splat(0.0);
    let c = d.dot(d).sqrt() - rest_length;
    (c, rest_length.gt_select(zero, c / rest_length, zero))
}

impl DampedKernels for StretchConstraints {
    type Kernel<'a, const DAMPED: bool> = StretchSweep<'a, DAMPED>;

    fn kernel<'a, const DAMPED: bool>(
        &'a self,
        compliance: &'a [f32],
        x_prev: &'a [Vec3],
        w: &'a [f32],
        k: &'a SubstepCoefficients,
        fresh: bool,
    ) -> (StretchSweep<'a, DAMPED>, Option<&'a [u32]>) {
        let (edges, rest_length) = (&self.edges[..], &self.rest_length[..]);
        let (row_offsets, reach) = (self.row_offsets.as_slice(), self.row_offsets.reach());
        let kernel = StretchSweep::<DAMPED> { fresh, edges, reach, row_offsets, rest_length, compliance, x_prev, w, k };
        (kernel, colour_ranges(&self.colour_start))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One pass gives the residuals |‖x_i − x_j‖ − L| and the same max strain as
    /// [`StretchConstraints::max_strain`]: (1.5 − 1)/1 = 0.5 from the stretched edge, the
    /// compressed and zero-rest-length edges do not count.
    #[test]
    fn residuals_and_max_strain_in_one_pass() {
        let x = [Vec3::ZERO, Vec3::new(1.5, 0.0, 0.0), Vec3::new(0.0, 0.5, 0.0), Vec3::new(0.0, 0.0, 2.0)];
        let stretch = StretchConstraints::new(vec![[0, 1], [0, 2], [0, 3]], vec![1.0, 1.0, 0.0]);
        let mut residuals = Vec::new();
        let max_strain = stretch.residuals_and_max_strain(&x, &mut residuals);
        assert_eq!(residuals, [0.5, 0.5, 2.0]);
        assert_eq!(max_strain, 0.5);
        assert_eq!(max_strain.to_bits(), stretch.max_strain(&x).to_bits());
    }

    /// In debug builds an edit that leaves two edges of a colour sharing a particle (0–1 and 1–2,
    /// one colour) is refused by the next preparation, before a sweep could write particle 1 from
    /// two threads; the same edges in two colours pass.
    #[cfg(debug_assertions)]
    #[test]
    fn an_edit_that_colours_two_neighbouring_edges_alike_is_refused_in_debug_builds() {
        let mut s = StretchConstraints::new(vec![[0, 1], [1, 2]], vec![1.0, 1.0]);
        // SAFETY: one edge per colour.
        unsafe { s.set_colouring(vec![0, 1, 2]) };
        assert!(s.prepare_rows(3));
        // SAFETY: deliberately broken; the preparation panics before any sweep could run.
        unsafe { s.edit(|a| *a.colour_start = vec![0, 2]) };
        let shared = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.prepare_rows(3)));
        let message = shared.expect_err("two edges of one colour share particle 1");
        let text = message.downcast_ref::<String>().map(String::as_str).unwrap_or("");
        assert!(text.contains("colour 0 share particle 1"), "{text}");
    }

    /// An edit marks the row offsets stale, so the next preparation derives them from the edited
    /// edges; arrays left out of step (a rest length short, colour offsets that do not end at the
    /// edge count) are refused.
    #[test]
    fn edits_keep_the_row_offsets_and_the_arrays_in_step() {
        let mut s = StretchConstraints::new(vec![[0, 1], [1, 2]], vec![1.0, 2.0]);
        assert!(s.prepare_rows(3));
        // SAFETY (every edit and colouring below): uncoloured, or one edge per colour.
        unsafe { s.edit(|a| a.edges.swap(0, 1)) };
        assert!(s.prepare_rows(3));
        let bytes = crate::constraints::access::ROW_BYTES as u32;
        assert_eq!(s.row_offsets().as_slice(), [[bytes, 2 * bytes], [0, bytes]]);
        let short = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { s.edit(|a| a.edges.push([0, 2])) }));
        assert!(short.is_err(), "an edge without a rest length");
        let mut t = StretchConstraints::new(vec![[0, 1], [1, 2]], vec![1.0, 2.0]);
        let open_end = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { t.set_colouring(vec![0, 1]) }));
        assert!(open_end.is_err(), "colours that stop short of the last edge");
        unsafe { t.set_colouring(vec![0, 1, 2]) };
        assert_eq!(t.colour_start(), [0, 1, 2]);
    }

    /// The lane-wise residuals and maximum strain against the scalar formulas, edge by edge, to
    /// the bit: random edges over random points (stretched and compressed, some of zero rest
    /// length, some between coinciding particles) and a remainder that is neither a multiple of
    /// 4 nor of 8; 8 lanes (where the CPU has AVX) and 4 give the same bits.
    #[test]
    fn lane_wise_residuals_have_the_scalar_bits() {
        let mut noise = super::super::tests::noise();
        let mut next = move || noise() + 0.5;
        let x: Vec<Vec3> = (0..50).map(|_| Vec3::new(next(), next(), next()) * 2.0 - Vec3::ONE).collect();
        let (mut edges, mut rest_length) = (Vec::new(), Vec::new());
        for e in 0..203u32 {
            let (i, j) = ((next() * 50.0) as u32 % 50, (next() * 50.0) as u32 % 50);
            edges.push([i, if e % 17 == 0 { i } else { j }]);
            rest_length.push(if e % 13 == 0 { 0.0 } else { next() * 2.0 });
        }
        let stretch = StretchConstraints::new(edges, rest_length);
        let scalar: Vec<u32> = stretch
            .edges()
            .iter()
            .zip(stretch.rest_length())
            .map(|(&[i, j], &l)| ((x[i as usize] - x[j as usize]).length() - l).abs().to_bits())
            .collect();
        let mut four = Vec::new();
        let max_four = stretch.residuals_lane_wise::<LANES, Lanes>(&x, &mut four);
        let mut widest = Vec::new();
        let max_widest = stretch.residuals_and_max_strain(&x, &mut widest);
        assert_eq!(four.iter().map(|c| c.to_bits()).collect::<Vec<_>>(), scalar);
        assert_eq!(widest.iter().map(|c| c.to_bits()).collect::<Vec<_>>(), scalar);
        let max = stretch.max_strain(&x);
        assert!(max > 0.5, "some edge is stretched: {max}");
        assert_eq!((max_four.to_bits(), max_widest.to_bits()), (max.to_bits(), max.to_bits()));
    }

    /// A NaN position (the guard computes the statistics of the failed state) makes its edges'
    /// strains NaN; the maximum skips them as `f32::max` does, for every lane width. Edge 0
    /// (strain 0.5), edge 8 (NaN) and edge 16 (0.01) share lane 0 for both widths: a running
    /// maximum that took the NaN lost the 0.5 and ended at 0.01.
    #[test]
    fn max_strain_skips_nan_edges_for_every_lane_width() {
        let length = |e: usize| match e {
            0 => 1.5,
            8 => f32::NAN,
            16 => 1.01,
            _ => 1.0,
        };
        let x: Vec<Vec3> = (0..24).flat_map(|e| [Vec3::new(0.0, e as f32, 0.0), Vec3::new(length(e), e as f32, 0.0)]).collect();
        let stretch = StretchConstraints {
            edges: (0..24).map(|e| [2 * e, 2 * e + 1]).collect(),
            rest_length: vec![1.0; 24],
            ..StretchConstraints::default()
        };
        let max = stretch.max_strain(&x);
        assert_eq!(max, 0.5);
        let (mut four, mut widest) = (Vec::new(), Vec::new());
        let max_four = stretch.residuals_lane_wise::<LANES, Lanes>(&x, &mut four);
        let max_widest = stretch.residuals_and_max_strain(&x, &mut widest);
        assert_eq!((max_four.to_bits(), max_widest.to_bits()), (max.to_bits(), max.to_bits()));
    }
}
