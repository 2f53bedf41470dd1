//! Per-particle (and per-triangle) passes split over the current rayon pool. Each element is
//! computed by the same code from inputs no other element writes, so the result has the same bits
//! whether the pass runs in one piece or in chunks on any number of threads.

use rayon::prelude::*;

/// Elements per rayon task in a split pass. A per-particle pass costs a few ns per element, so a
/// task of this size (~10 µs) amortises the fork-join (~1 µs); a 128² cloth (16 384 particles)
/// splits into 8 tasks, enough to balance two threads.
pub(crate) const PARTICLE_CHUNK: usize = 2048;

/// `f(first, out[first .. first + len])` over `out`: in one call, or with `parallel` in chunks of
/// [`PARTICLE_CHUNK`] on the current rayon pool (no allocation: rayon splits with `join`, whose
/// jobs live on the stack). `f` must compute each element from its index alone.
pub(crate) fn chunks_mut_in_parallel<T: Send>(out: &mut [T], parallel: bool, f: impl Fn(usize, &mut [T]) + Sync) {
    if parallel {
        out.par_chunks_mut(PARTICLE_CHUNK).enumerate().for_each(|(k, chunk)| f(k * PARTICLE_CHUNK, chunk));
    } else {
        f(0, out);
    }
}
