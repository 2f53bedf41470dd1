//! How a projection kernel reaches particle positions: through a plain slice on the sequential
//! path, or through [`SharedPositions`] when the constraints of one colour are projected by
//! several threads at once. The kernels are generic over [`Positions`], so both paths run the
//! same code and give the same bits.

use glam::Vec3;
use std::marker::PhantomData;

/// Read and update particle positions [m] by particle index.
pub(crate) trait Positions {
    /// Position of particle `i`.
    fn get(&self, i: usize) -> Vec3;
    /// Overwrite the position of particle `i`.
    fn set(&mut self, i: usize, x: Vec3);
    /// x_i += d.
    #[inline(always)]
    fn add(&mut self, i: usize, d: Vec3) {
        let x = self.get(i);
        self.set(i, x + d);
    }
}

impl Positions for [Vec3] {
    #[inline(always)]
    fn get(&self, i: usize) -> Vec3 {
        self[i]
    }
    #[inline(always)]
    fn set(&mut self, i: usize, x: Vec3) {
        self[i] = x;
    }
}

/// A position array shared by the threads projecting one colour. Copies of it alias the same
/// memory; that is sound only because a colour's constraints touch pairwise disjoint particles,
/// which is the contract of [`SharedPositions::new`]. Indices are bounds-checked.
#[derive(Clone, Copy)]
pub(crate) struct SharedPositions<'a> {
    ptr: *mut Vec3,
    len: usize,
    _borrow: PhantomData<&'a mut [Vec3]>,
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
    /// While copies of the view are used from several threads, a particle that one thread writes
    /// is neither read nor written by any other (e.g. the constraints each thread projects belong
    /// to one colour of a valid colouring, and anchors that several of them read are never written).
    pub unsafe fn new(x: &'a mut [Vec3]) -> Self {
        SharedPositions { ptr: x.as_mut_ptr(), len: x.len(), _borrow: PhantomData }
    }
}

impl Positions for SharedPositions<'_> {
    #[inline(always)]
    fn get(&self, i: usize) -> Vec3 {
        assert!(i < self.len);
        // SAFETY: in bounds (checked above) of the live borrow `'a`; no other thread writes
        // particle i meanwhile (contract of `new`).
        unsafe { self.ptr.add(i).read() }
    }
    #[inline(always)]
    fn set(&mut self, i: usize, x: Vec3) {
        assert!(i < self.len);
        // SAFETY: in bounds of the live borrow `'a`; no other thread reads or writes particle i
        // meanwhile (contract of `new`).
        unsafe { self.ptr.add(i).write(x) }
    }
}
