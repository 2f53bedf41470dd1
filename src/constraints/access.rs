//! How a projection kernel reaches particles: in the solver's sweeps through [`SharedPositions`]
//! (no bounds checks: the step checks every constraint's particle indices once; shared by the
//! threads that project one colour at once, or walked by one), in tests also through a plain
//! slice. The kernels are generic over [`Positions`], so every path runs the same code and gives
//! the same bits.
//!
//! The sweeps work on [`SolverParticle`]s, position and inverse mass in one 16-byte row, packed
//! from the cloth's particles before the constraint sweeps of an iteration and unpacked after
//! them (`pack_solver_particles`, `unpack_solver_particles`): a lane-wise kernel then fetches a
//! particle with one aligned load and turns four of them into lanes with a 4 × 4 transpose
//! (`LaneSet::rows_to_lanes`). With 12-byte positions each lane was assembled from scalars through
//! the stack, and the vector load after those stores stalled (docs/dev/performance-log.md,
//! "2026-11-29 — Lane kernels: from arrays to SSE registers and rows").

use super::lanes::{LaneSet, V3};
use super::colouring::lowest_particle;
use glam::{Vec3, Vec4};
use std::marker::PhantomData;

/// A particle as the constraint sweeps see it: position \[m\] in x, y, z and inverse mass w \[1/kg\]
/// in the fourth component. The sweeps never change w.
pub(crate) type SolverParticle = Vec4;

/// Bytes per sweep row.
pub(crate) const ROW_BYTES: usize = std::mem::size_of::<SolverParticle>();

/// Copy positions and inverse masses into the sweeps' rows (`out.len() == x.len() == w.len()`).
pub(crate) fn pack_solver_particles(x: &[Vec3], w: &[f32], out: &mut [SolverParticle]) {
    for ((o, p), &w) in out.iter_mut().zip(x).zip(w) {
        *o = p.extend(w);
    }
}

/// Copy the sweeps' positions back (`x.len() == rows.len()`).
pub(crate) fn unpack_solver_particles(rows: &[SolverParticle], x: &mut [Vec3]) {
    for (p, r) in x.iter_mut().zip(rows) {
        *p = r.truncate();
    }
}

/// The rows at byte offsets `at` ([`row_offsets_below`], one per lane) as lanes: positions \[m\]
/// and inverse masses \[1/kg\].
#[inline(always)]
pub(crate) fn gather_rows_at<const N: usize, L: LaneSet<N>, P: Positions + ?Sized>(x: &P, at: [usize; N]) -> (V3<L>, L) {
    // A loop rather than `std::array::from_fn`, which LLVM left as a call for 16 lanes.
    let mut rows = [[0.0; 4]; N];
    for l in 0..N {
        rows[l] = x.row_at(at[l]);
    }
    L::rows_to_lanes(rows)
}

/// `v[ids[l]]` in lane `l` (positions at the substep start, for the damping terms).
#[inline(always)]
pub(crate) fn gather_vec3<const N: usize, L: LaneSet<N>>(v: &[Vec3], ids: [usize; N]) -> V3<L> {
    let mut rows = [[0.0; 4]; N];
    for l in 0..N {
        rows[l] = v[ids[l]].extend(0.0).to_array();
    }
    L::rows_to_lanes(rows).0
}

/// The particle indices of `N` constraints of `K` particles each (`constraints.len() == N`).
#[inline(always)]
pub(crate) fn constraint_particles<const N: usize, const K: usize>(constraints: &[[u32; K]]) -> [[usize; K]; N] {
    let mut ids = [[0; K]; N];
    for (ids, c) in ids.iter_mut().zip(constraints) {
        for (id, &p) in ids.iter_mut().zip(c) {
            *id = p as usize;
        }
    }
    ids
}

/// `out` ← the byte offsets of the rows of `constraints`' particles ([`ROW_BYTES`] × index, what
/// the lane-wise kernels address rows by: base + offset, where an index needs a shift first), and
/// whether every particle index is `< particle_count`: the index check the sweeps rely on, so the
/// offsets are those of checked indices ([`RowOffsets::prepare`]). An offset fits in `u32` since a
/// mesh has at most 2²⁸ vertices (`mesh::MAX_VERTICES`); the offsets of indices that fail
/// the check are meaningless, and the step stops on the check. Allocates only if `out` has less
/// capacity than `constraints.len()`.
pub(crate) fn row_offsets_below<const K: usize>(constraints: &[[u32; K]], particle_count: usize, out: &mut Vec<[u32; K]>) -> bool {
    debug_assert!(particle_count <= crate::mesh::MAX_VERTICES);
    // One pass that checks and scales, in u32 lanes without an early exit, so it vectorises (the
    // check as a separate pass over usize comparisons stayed scalar).
    let n = particle_count as u32;
    // The constraint count never changes after creation: no fill after the first step.
    out.resize(constraints.len(), [0; K]);
    let mut beyond = 0u32;
    for (out, &i) in out.as_flattened_mut().iter_mut().zip(constraints.as_flattened()) {
        *out = row_offset(i, n, &mut beyond);
    }
    beyond == 0
}

/// The byte offset of particle `i`'s row ([`ROW_BYTES`] × i), setting `beyond` when `i ≥ n`:
/// the step of [`row_offsets_below`], for constraints stored otherwise.
#[inline(always)]
pub(crate) fn row_offset(i: u32, n: u32, beyond: &mut u32) -> u32 {
    *beyond |= (i >= n) as u32;
    i.wrapping_mul(ROW_BYTES as u32)
}

/// The 12 floats of four `Vec3`s as three `Vec4`s, in order (x₀y₀z₀x₁ | y₁z₁x₂y₂ | z₂x₃y₃z₃): for
/// per-component passes over consecutive particles, which LLVM loads with three unaligned loads.
#[inline(always)]
pub(crate) fn floats_of(v: &[Vec3; 4]) -> [glam::Vec4; 3] {
    [
        glam::Vec4::new(v[0].x, v[0].y, v[0].z, v[1].x),
        glam::Vec4::new(v[1].y, v[1].z, v[2].x, v[2].y),
        glam::Vec4::new(v[2].z, v[3].x, v[3].y, v[3].z),
    ]
}

/// The byte offsets of one constraint type's particle rows (`K` per constraint), derived from its
/// particle indices and checked against the particle count, kept from step to step.
///
/// Why kept: deriving and checking every index at the top of every step was a pass over all
/// constraint indices and offsets, past the L2 cache on large cloths and on one thread even when
/// the step is split (docs/dev/performance-log.md, "2026-11-30 — Kept row offsets, AVX passes,
/// lane-wise wind, contact blocks"). The indices change only when the constraints are reordered
/// or rebuilt (pins, colouring), never during a step.
///
/// Invariant the sweeps' unchecked row accesses rely on: whoever changes the indices of a
/// constraint type in place calls [`RowOffsets::indices_changed`] (rebuilding the constraints
/// makes new, unchecked offsets). The constraint types keep their indices private and call it in
/// their `edit` and reorderings. With debug assertions every step derives the offsets again and
/// asserts that kept ones had not gone stale, so a missing call fails the tests.
#[derive(Clone, Debug, Default)]
pub(crate) struct RowOffsets<const K: usize> {
    offsets: Vec<[u32; K]>,
    /// The particle count every index was checked against; None until checked, and after the
    /// indices changed.
    checked_for: Option<usize>,
    /// The colours' particle reach, derived again after the indices or the colours changed.
    reach: ColourReach,
}

impl<const K: usize> RowOffsets<K> {
    /// Unchecked offsets with room for `constraints` constraints (no allocation at the first step).
    pub fn with_capacity(constraints: usize) -> Self {
        RowOffsets { offsets: Vec::with_capacity(constraints), checked_for: None, reach: ColourReach::default() }
    }

    /// Room for the offsets of `constraints` constraints (a tearable cloth's edges and tethers grow).
    pub fn reserve(&mut self, constraints: usize) {
        self.offsets.reserve(constraints.saturating_sub(self.offsets.len()));
    }

    /// The offsets, one `[u32; K]` per constraint (valid after [`Self::prepare`] returned true).
    #[inline(always)]
    pub fn as_slice(&self) -> &[[u32; K]] {
        &self.offsets
    }

    /// The constraints' particle indices were changed in place: check and derive again.
    pub fn indices_changed(&mut self) {
        self.checked_for = None;
    }

    /// Whether every index of the `constraints` constraints is `< particle_count`, and the offsets
    /// derived from them. Kept offsets of the same length checked against the same count are
    /// reused; otherwise `derive` writes the offsets (resizing the vector to `constraints`) and
    /// says whether every index passed ([`row_offsets_below`]).
    pub fn prepare(&mut self, constraints: usize, particle_count: usize, derive: impl FnOnce(&mut Vec<[u32; K]>) -> bool) -> bool {
        let kept = self.checked_for == Some(particle_count) && self.offsets.len() == constraints;
        if kept && !cfg!(debug_assertions) {
            return true;
        }
        if !kept {
            self.reach.current = false;
        }
        let before = kept.then(|| fingerprint(&self.offsets));
        let all_below = derive(&mut self.offsets);
        debug_assert!(
            before.is_none_or(|b| all_below && b == fingerprint(&self.offsets)),
            "constraint indices changed without RowOffsets::indices_changed"
        );
        self.checked_for = all_below.then_some(particle_count);
        all_below
    }

    /// Whether the offsets of the `constraints` constraints were derived and checked against
    /// `particle_count` since the indices last changed, without deriving anything. With debug
    /// assertions, also that the kept offsets are still those of the indices (`derived`: the
    /// offsets the indices give, in storage order, [`row_offset`] of each), which catches a change
    /// of the indices without [`Self::indices_changed`].
    pub fn ready_for(&self, constraints: usize, particle_count: usize, derived: impl Iterator<Item = u32>) -> bool {
        let ready = self.checked_for == Some(particle_count) && self.offsets.len() == constraints;
        if cfg!(debug_assertions) && ready {
            assert!(
                fingerprint_of(derived) == fingerprint(&self.offsets),
                "constraint indices changed without RowOffsets::indices_changed"
            );
        }
        ready
    }

    /// [`ColourReach`] of `constraints` (the indices these offsets were derived from, each below
    /// `particle_count`) coloured by `colour_start`, derived again only when the indices changed
    /// ([`Self::indices_changed`], or offsets derived for another count) or `colour_start`
    /// differs from the last call's. With debug assertions it panics if two constraints of a
    /// colour share a particle (the promise of `edit` and `set_colouring` that the team sweeps'
    /// `unsafe` rests on), checked once per change. Allocates only when the colour count or the
    /// particle count grows beyond what [`Self::reserve_reach`] reserved.
    pub fn prepare_reach(&mut self, constraints: &[[u32; K]], colour_start: &[u32], particle_count: usize) {
        let reach = &mut self.reach;
        if !(reach.current && reach.colour_start == colour_start) {
            reach.derive(constraints, colour_start);
            #[cfg(debug_assertions)]
            reach.assert_disjoint(constraints, colour_start, particle_count);
        }
        let _ = particle_count;
    }

    /// Room for the reach of `colour_starts` colour starts (`colour_count + 1`) and, for the
    /// debug check of [`Self::prepare_reach`], `particle_count` particles, so that the step that
    /// derives it allocates nothing: called where the colouring is set or a tearable cloth's
    /// room is reserved, outside a step.
    pub fn reserve_reach(&mut self, colour_starts: usize, particle_count: usize) {
        let reach = &mut self.reach;
        reach.colour_start.reserve(colour_starts.saturating_sub(reach.colour_start.len()));
        reach.reach.reserve(colour_starts.saturating_sub(reach.reach.len()));
        #[cfg(debug_assertions)]
        reach.seen.reserve(particle_count.div_ceil(64).saturating_sub(reach.seen.len()));
        let _ = particle_count;
    }

    /// The reach of the last [`Self::prepare_reach`] (none before it).
    pub fn reach(&self) -> &ColourReach {
        &self.reach
    }
}

/// How far the constraints of each colour reach in particle index, for the team sweep's look-ahead
/// (`constraints::team`): constraints `begin..end` of colour `c` touch only particles from the
/// lowest index of constraint `begin` to the lowest index of constraint `end − 1` plus the
/// colour's reach, when the colour is in particle order ([`super::colouring::colour_order_by_particle`]:
/// by lowest index). A colour in another order (the tethers, some test kernels) has no bound.
#[derive(Clone, Debug, Default)]
pub(crate) struct ColourReach {
    /// The colour starts it was derived for: the key it is kept by, so that a colouring changed
    /// without a call here is noticed (stale bounds would let parts that share particles run at
    /// once) rather than trusted.
    colour_start: Vec<u32>,
    /// Per colour, the largest (highest − lowest index) of its constraints, or `u32::MAX` when the
    /// colour is not sorted by lowest index.
    reach: Vec<u32>,
    /// Derived since the indices last changed.
    current: bool,
    /// With debug assertions, one bit per particle for the check that a colour's constraints
    /// share no particle (all clear between checks).
    #[cfg(debug_assertions)]
    seen: Vec<u64>,
}

impl ColourReach {
    fn derive<const K: usize>(&mut self, constraints: &[[u32; K]], colour_start: &[u32]) {
        self.colour_start.clear();
        self.colour_start.extend_from_slice(colour_start);
        self.reach.clear();
        let lowest = lowest_particle::<K>;
        for range in colour_start.windows(2) {
            let colour = constraints.get(range[0] as usize..range[1] as usize).unwrap_or(&[]);
            let sorted = colour.windows(2).all(|pair| lowest(&pair[0]) <= lowest(&pair[1]));
            let reach = colour.iter().map(|c| c.iter().copied().max().unwrap_or(0) - lowest(c)).max().unwrap_or(0);
            self.reach.push(if sorted { reach } else { u32::MAX });
        }
        self.current = true;
    }

    /// Panics if two of `constraints` within a colour of `colour_start` share a particle (or one
    /// names a particle twice); every index is below `particle_count`. Marks each colour's
    /// particles in `seen` and clears them again, so it allocates only when `particle_count`
    /// grows beyond the reserved bits.
    #[cfg(debug_assertions)]
    fn assert_disjoint<const K: usize>(&mut self, constraints: &[[u32; K]], colour_start: &[u32], particle_count: usize) {
        if colour_start.is_empty() {
            return;
        }
        let words = particle_count.div_ceil(64);
        if self.seen.len() < words {
            self.seen.resize(words, 0);
        }
        let bit = |p: u32| (p as usize / 64, 1u64 << (p % 64));
        let mut shared = None;
        for (colour, range) in colour_start.windows(2).enumerate() {
            let members = constraints.get(range[0] as usize..range[1] as usize).unwrap_or(&[]);
            for &p in members.as_flattened() {
                let (w, b) = bit(p);
                if self.seen[w] & b != 0 && shared.is_none() {
                    shared = Some((colour, p));
                }
                self.seen[w] |= b;
            }
            for &p in members.as_flattened() {
                let (w, b) = bit(p);
                self.seen[w] &= !b;
            }
        }
        if let Some((colour, p)) = shared {
            panic!("two constraints of colour {colour} share particle {p}: the team sweeps would write it from two threads");
        }
    }

    /// The lowest and highest particle index that constraints `begin..end` (`begin < end`, within
    /// colour `colour`) read or write, or a wider range; None when unknown (not derived since the
    /// indices last changed, or the colour is not in particle order). The caller passes the
    /// constraints and colour the reach was last derived for ([`RowOffsets::prepare_reach`] at the
    /// top of the step: nothing changes them during a step).
    #[inline]
    pub fn bounds<const K: usize>(&self, constraints: &[[u32; K]], colour: usize, begin: usize, end: usize) -> Option<(u32, u32)> {
        if !self.current {
            return None;
        }
        let reach = *self.reach.get(colour).filter(|&&r| r != u32::MAX)?;
        debug_assert!(begin < end && self.colour_start[colour] as usize <= begin && end <= self.colour_start[colour + 1] as usize);
        Some((lowest_particle(&constraints[begin]), lowest_particle(&constraints[end - 1]).saturating_add(reach)))
    }
}

/// An order-sensitive hash of the offsets (FNV-1a over the words), for the debug check of
/// [`RowOffsets::prepare`] without a copy (which would allocate during a step).
fn fingerprint<const K: usize>(offsets: &[[u32; K]]) -> u64 {
    fingerprint_of(offsets.as_flattened().iter().copied())
}

/// [`fingerprint`] of offsets given one at a time.
fn fingerprint_of(offsets: impl Iterator<Item = u32>) -> u64 {
    offsets.fold(0xcbf2_9ce4_8422_2325, |h, o| (h ^ o as u64).wrapping_mul(0x100_0000_01b3))
}

/// Particle `k` of each of `N` constraints (`ids` from [`constraint_particles`]), one per lane.
#[inline(always)]
pub(crate) fn column<const N: usize, const K: usize>(ids: &[[usize; K]; N], k: usize) -> [usize; N] {
    let mut column = [0; N];
    for (c, ids) in column.iter_mut().zip(ids) {
        *c = ids[k];
    }
    column
}

/// Read and update particle positions \[m\] by particle index.
pub(crate) trait Positions {
    /// Particle `i`'s row: x, y, z \[m\] and w \[1/kg\].
    fn row(&self, i: usize) -> [f32; 4];
    /// Add `d` to particle `i`'s row, component by component (`d.w` is 0, so w is unchanged).
    fn add_row(&mut self, i: usize, d: SolverParticle);
    /// Overwrite the position of particle `i` (keeping its w).
    fn set(&mut self, i: usize, x: Vec3);

    /// The row at byte offset `at` = 16·i (particle i): [`Positions::row`].
    #[inline(always)]
    fn row_at(&self, at: usize) -> [f32; 4] {
        self.row(at / ROW_BYTES)
    }
    /// [`Positions::add_row`] at byte offset `at` = 16·i.
    #[inline(always)]
    fn add_row_at(&mut self, at: usize, d: SolverParticle) {
        self.add_row(at / ROW_BYTES, d);
    }

    /// Overwrite the row at byte offset `at` = 16·i with `row` (position and w).
    #[inline(always)]
    fn set_row_at(&mut self, at: usize, row: SolverParticle) {
        let i = at / ROW_BYTES;
        self.set(i, row.truncate());
        debug_assert_eq!(self.row(i)[3].to_bits(), row.w.to_bits(), "a row's w is never changed");
    }

    /// Position of particle `i`.
    #[inline(always)]
    fn get(&self, i: usize) -> Vec3 {
        let [x, y, z, _] = self.row(i);
        Vec3::new(x, y, z)
    }
    /// x_i += d.
    #[inline(always)]
    fn add(&mut self, i: usize, d: Vec3) {
        self.add_row(i, d.extend(0.0));
    }
}

// The solver's sweeps go through `SharedPositions`; tests, and the strain limit's rounds on one
// thread, use a plain (bounds-checked) slice.
impl Positions for [SolverParticle] {
    #[inline(always)]
    fn row(&self, i: usize) -> [f32; 4] {
        self[i].to_array()
    }
    #[inline(always)]
    fn add_row(&mut self, i: usize, d: SolverParticle) {
        self[i] += d;
    }
    #[inline(always)]
    fn set(&mut self, i: usize, x: Vec3) {
        self[i] = x.extend(self[i].w);
    }
}

/// A particle array shared by the threads projecting one colour, or walked by one thread. Copies of
/// it alias the same memory; that is sound only because a colour's constraints touch pairwise
/// disjoint particles, which is part of the contract of [`SharedPositions::new`].
///
/// Indices are bounds-checked only in debug builds: the step checks every particle index of a
/// cloth's constraints once (`solver::step_cloth`) instead of at every read and write, which takes
/// a compare and a branch per particle out of the lane-wise loops (docs/design.md, "Lane-wise
/// kernels").
#[derive(Clone, Copy)]
pub(crate) struct SharedPositions<'a> {
    ptr: *mut SolverParticle,
    len: usize,
    _borrow: PhantomData<&'a mut [SolverParticle]>,
}

// SAFETY: sending or sharing the view between threads is what it is for; data races are excluded
// by the contract of `new` (no particle is reached from two threads while one of them writes it).
unsafe impl Send for SharedPositions<'_> {}
// SAFETY: as above.
unsafe impl Sync for SharedPositions<'_> {}

impl<'a> SharedPositions<'a> {
    /// View `x` for concurrent projections.
    ///
    /// # Safety
    /// - Every particle index passed to the view's methods is `< x.len()`.
    /// - While copies of the view are used from several threads, a particle that one thread writes
    ///   is neither read nor written by any other (e.g. the constraints each thread projects belong
    ///   to one colour of a valid colouring, and anchors that several of them read are never
    ///   written).
    pub unsafe fn new(x: &'a mut [SolverParticle]) -> Self {
        SharedPositions { ptr: x.as_mut_ptr(), len: x.len(), _borrow: PhantomData }
    }

    /// The row at byte offset `at` = [`ROW_BYTES`] × particle index: one addressing mode, base +
    /// offset, where an index needs a shift first (the index methods below pass 16·i).
    #[inline(always)]
    fn read_at(&self, at: usize) -> SolverParticle {
        debug_assert!(at.is_multiple_of(ROW_BYTES) && at / ROW_BYTES < self.len);
        // SAFETY: in bounds of the live borrow `'a` (row at / ROW_BYTES < len, the contract of
        // `new`), and no other thread writes that particle meanwhile (contract of `new`).
        unsafe { self.ptr.byte_add(at).read() }
    }

    #[inline(always)]
    fn write_at(&mut self, at: usize, p: SolverParticle) {
        debug_assert!(at.is_multiple_of(ROW_BYTES) && at / ROW_BYTES < self.len);
        // SAFETY: in bounds as for `read_at`, and no other thread reads or writes that particle
        // meanwhile (contract of `new`).
        unsafe { self.ptr.byte_add(at).write(p) }
    }
}

impl SharedPositions<'_> {
    /// Rows `begin..end` as a slice, for a per-particle pass over them (`solver::step_team`).
    ///
    /// # Safety
    /// No other thread reads or writes these rows while the slice lives (the contract of
    /// [`SharedPositions::new`]).
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn rows(&self, begin: usize, end: usize) -> &mut [SolverParticle] {
        assert!(begin <= end && end <= self.len);
        // SAFETY: in bounds of the live borrow (checked above); exclusive by the contract.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(begin), end - begin) }
    }

    /// Particles in the view.
    pub fn len(&self) -> usize {
        self.len
    }
}

impl Positions for SharedPositions<'_> {
    #[inline(always)]
    fn row(&self, i: usize) -> [f32; 4] {
        self.row_at(i * ROW_BYTES)
    }
    #[inline(always)]
    fn row_at(&self, at: usize) -> [f32; 4] {
        self.read_at(at).to_array()
    }
    #[inline(always)]
    fn add_row_at(&mut self, at: usize, d: SolverParticle) {
        let p = self.read_at(at) + d;
        self.write_at(at, p);
    }
    #[inline(always)]
    fn set_row_at(&mut self, at: usize, row: SolverParticle) {
        debug_assert_eq!(self.read_at(at).w.to_bits(), row.w.to_bits(), "a row's w is never changed");
        self.write_at(at, row);
    }
    #[inline(always)]
    fn add_row(&mut self, i: usize, d: SolverParticle) {
        self.add_row_at(i * ROW_BYTES, d);
    }
    #[inline(always)]
    fn set(&mut self, i: usize, x: Vec3) {
        let w = self.read_at(i * ROW_BYTES).w;
        self.write_at(i * ROW_BYTES, x.extend(w));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte-offset accessors reach the rows the indices name, on the shared view and on a
    /// plain slice alike, and the offsets come from the check that guards them: every row read,
    /// added to and overwritten at its offset, then compared with the same done by index. Small
    /// enough for Miri, which checks the raw pointer arithmetic (`byte_add`).
    #[test]
    fn rows_at_byte_offsets_are_the_indexed_rows() {
        let rows: Vec<SolverParticle> = (0..7).map(|i| SolverParticle::new(i as f32, 2.0 * i as f32, -(i as f32), 0.5 + i as f32)).collect();
        let constraints = [[6u32, 0], [3, 5], [1, 2]];
        let mut offsets = Vec::new();
        assert!(row_offsets_below(&constraints, rows.len(), &mut offsets));
        assert_eq!(offsets, [[96, 0], [48, 80], [16, 32]]);
        assert!(!row_offsets_below(&[[0u32, 7]], rows.len(), &mut offsets), "index 7 of 7 rows");
        assert!(!row_offsets_below(&[[u32::MAX, 1]], rows.len(), &mut offsets));
        let mut shared = rows.clone();
        let mut plain = rows.clone();
        {
            // SAFETY: every offset below is checked (< 7 rows); one thread.
            let mut view = unsafe { SharedPositions::new(&mut shared) };
            let d = SolverParticle::new(0.25, -0.5, 1.0, 0.0);
            for (at, i) in [(96usize, 6usize), (48, 3), (0, 0)] {
                assert_eq!(view.row_at(at), rows[i].to_array());
                assert_eq!(plain[..].row_at(at), rows[i].to_array());
                view.add_row_at(at, d);
                plain[..].add_row_at(at, d);
            }
            // A new position with the row's own w (the sweeps never change w).
            let moved = SolverParticle::new(9.0, 8.0, 7.0, rows[1].w);
            view.set_row_at(16, moved);
            plain[..].set_row_at(16, moved);
        }
        let bits = |v: &[SolverParticle]| v.iter().flat_map(|r| r.to_array().map(f32::to_bits)).collect::<Vec<_>>();
        assert_eq!(bits(&shared), bits(&plain));
        assert_ne!(bits(&shared), bits(&rows));
        assert_eq!(shared[1].truncate(), Vec3::new(9.0, 8.0, 7.0), "set at offset 16 is row 1");
    }

    /// Kept offsets whose indices changed without [`RowOffsets::indices_changed`] fail the next
    /// check in debug builds (as the CI profile runs the tests): the net under the code inside
    /// the constraint types, whose edits make the call themselves. Here for a swap that keeps
    /// every index in bounds, which the bounds check alone would not notice.
    #[test]
    #[cfg(debug_assertions)]
    fn indices_changed_without_saying_so_fail_the_next_check_in_debug_builds() {
        use std::panic::{AssertUnwindSafe, catch_unwind};
        let (n, mut constraints) = (6, vec![[0u32, 1], [2, 3], [4, 5]]);
        let mut offsets = RowOffsets::<2>::with_capacity(constraints.len());
        let prepare = |offsets: &mut RowOffsets<2>, c: &[[u32; 2]]| offsets.prepare(c.len(), n, |out| row_offsets_below(c, n, out));
        assert!(prepare(&mut offsets, &constraints));
        constraints.swap(0, 2);
        let derived: Vec<u32> = constraints.as_flattened().iter().map(|&i| i * ROW_BYTES as u32).collect();
        let ready = catch_unwind(AssertUnwindSafe(|| offsets.ready_for(constraints.len(), n, derived.iter().copied())));
        let prepared = catch_unwind(AssertUnwindSafe(|| prepare(&mut offsets, &constraints)));
        for (what, result) in [("ready_for", ready), ("prepare", prepared)] {
            let message = result.expect_err(what).downcast::<&str>().map(|m| m.to_string()).unwrap_or_default();
            assert!(message.contains("without RowOffsets::indices_changed"), "{what}: {message}");
        }
        offsets.indices_changed();
        assert!(prepare(&mut offsets, &constraints));
        assert_eq!(offsets.as_slice().as_flattened(), derived);
    }
}
