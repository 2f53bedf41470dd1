//! [`SharedSlice`]: a slice that a team's members reach by the disjoint ranges of their parts.

use std::marker::PhantomData;

/// A slice handed out to a team's members as the disjoint ranges of their parts: a sweep's
/// multipliers, the particles' previous positions and velocities in the step's motion passes
/// (`solver::step_team`).
pub(crate) struct SharedSlice<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: the ranges handed out are disjoint (each part is claimed once, and a part of a later
// pass over the same elements waits for the earlier pass's: their bounds overlap), so no element
// is reached from two threads at once; `T: Send` since it is written from whichever thread
// claims it.
unsafe impl<T: Send> Sync for SharedSlice<'_, T> {}

impl<'a, T> SharedSlice<'a, T> {
    /// `slice`, borrowed for the team run, to be handed out by ranges.
    pub(crate) fn new(slice: &'a mut [T]) -> Self {
        SharedSlice { ptr: slice.as_mut_ptr(), len: slice.len(), _borrow: PhantomData }
    }

    /// Elements of the slice.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// `slice[begin..end]`.
    ///
    /// # Safety
    /// No other live reference overlaps the range (each part is claimed once).
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn range(&self, begin: usize, end: usize) -> &mut [T] {
        assert!(begin <= end && end <= self.len);
        // SAFETY: in bounds of the live borrow (checked above); exclusive by the contract.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(begin), end - begin) }
    }
}
