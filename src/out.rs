//! [`Out`]: a write-only output array, so one read function fills a Rust slice and the C ABI's
//! caller memory alike. That memory may be uninitialised, and a `&mut [T]` over uninitialised
//! memory is undefined behaviour even when nothing reads it; `&mut [MaybeUninit<T>]` is not.

use crate::error::ClothError;
use std::mem::MaybeUninit;
use std::ops::Range;

/// An output array of `len()` elements that the library only writes: none is read, and a
/// successful read function writes every element it documents. Made from `&mut [T]`,
/// `&mut Vec<T>` (its current length), `&mut [T; N]` or `&mut [MaybeUninit<T>]` (memory that may
/// be uninitialised), so `cloth.read_positions(&mut positions)` reads as before. Read functions
/// check the length first and write nothing when it is wrong.
///
/// A `&mut` binding that is used again afterwards is lent as `&mut *binding` (a generic argument
/// moves it, where a `&mut [T]` parameter reborrowed it). A `Vec` gives its length, not its
/// capacity: for uninitialised room use `v.spare_capacity_mut()` and then `v.set_len`.
///
/// ```
/// # use xpbd_cloth::{ClothDesc, World, WorldDesc};
/// let positions = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
/// let mut world = World::new(WorldDesc::default()).unwrap();
/// let handle = world.add_cloth(&ClothDesc::new(&positions, &[0, 1, 2])).unwrap();
/// let cloth = world.cloth(handle).unwrap();
/// let mut out = vec![[0.0f32; 3]; 3];
/// let reuse = &mut out;
/// cloth.read_positions(&mut *reuse).unwrap(); // lent, so `reuse` is still usable
/// cloth.read_normals(reuse).unwrap();
/// let mut room: Vec<[f32; 3]> = Vec::with_capacity(3);
/// cloth.read_positions(&mut room.spare_capacity_mut()[..3]).unwrap();
/// // SAFETY: the read succeeded, so it wrote all 3 elements.
/// unsafe { room.set_len(3) };
/// assert_eq!(room[1], [1.0, 0.0, 0.0]);
/// ```
///
/// `T: Copy` (plain numbers and arrays of them): an overwritten element needs no drop.
pub struct Out<'a, T: Copy>(&'a mut [MaybeUninit<T>]);

impl<'a, T: Copy> Out<'a, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `Ok` when it holds `expected` elements, else `BufferSizeMismatch` (checked before any write).
    pub(crate) fn check_len(&self, expected: usize) -> Result<(), ClothError> {
        match self.0.len() == expected {
            true => Ok(()),
            false => Err(ClothError::BufferSizeMismatch { expected, got: self.0.len() }),
        }
    }

    /// The elements as memory that may be uninitialised, for the writers that address bytes (the
    /// interleaved vertex writers take `&mut [u8]` and write through this; the one cast from
    /// `&mut [T]` stays in `From`).
    pub(crate) fn into_uninit(self) -> &'a mut [MaybeUninit<T>] {
        self.0
    }

    /// Store `value` at `i`. Panics when `i >= len()`, as indexing does.
    #[inline]
    pub fn set(&mut self, i: usize, value: T) {
        self.0[i].write(value);
    }

    /// Store `f(i)` at every index `i` in order.
    #[inline]
    pub fn fill_with(&mut self, mut f: impl FnMut(usize) -> T) {
        for (i, o) in self.0.iter_mut().enumerate() {
            o.write(f(i));
        }
    }

    /// Store the items of `values` in order (exactly `len()` of them; panics otherwise).
    #[inline]
    pub fn fill_from(&mut self, values: impl ExactSizeIterator<Item = T>) {
        assert_eq!(values.len(), self.0.len(), "Out::fill_from: lengths differ");
        for (o, v) in self.0.iter_mut().zip(values) {
            o.write(v);
        }
    }

    /// Store `src` (of exactly `len()` elements; panics otherwise, as `slice::copy_from_slice`).
    pub fn copy_from_slice(&mut self, src: &[T]) {
        assert_eq!(src.len(), self.0.len(), "Out::copy_from_slice: lengths differ");
        for (o, &s) in self.0.iter_mut().zip(src) {
            o.write(s);
        }
    }

    /// The elements in `range`, as an `Out` borrowed from this one. Panics out of bounds.
    pub fn sub(&mut self, range: Range<usize>) -> Out<'_, T> {
        Out(&mut self.0[range])
    }
}

impl<T: Copy> std::fmt::Debug for Out<'_, T> {
    /// The length only: the contents are write-only.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Out").field("len", &self.0.len()).finish()
    }
}

impl<'a, T: Copy> From<&'a mut [MaybeUninit<T>]> for Out<'a, T> {
    fn from(s: &'a mut [MaybeUninit<T>]) -> Self {
        Out(s)
    }
}

impl<'a, T: Copy> From<&'a mut [T]> for Out<'a, T> {
    fn from(s: &'a mut [T]) -> Self {
        // SAFETY: `[T]` and `[MaybeUninit<T>]` have the same layout. `s` stays initialised: the
        // field is private and every method stores a whole `T` (none stores `MaybeUninit::uninit`
        // or hands out the `MaybeUninit` slice).
        Out(unsafe { &mut *(s as *mut [T] as *mut [MaybeUninit<T>]) })
    }
}

impl<'a, T: Copy> From<&'a mut Vec<T>> for Out<'a, T> {
    fn from(v: &'a mut Vec<T>) -> Self {
        Out::from(v.as_mut_slice())
    }
}

impl<'a, T: Copy, const N: usize> From<&'a mut [T; N]> for Out<'a, T> {
    fn from(a: &'a mut [T; N]) -> Self {
        Out::from(a.as_mut_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_reach_the_slice_and_only_the_range() {
        let mut v = vec![0u32; 5];
        let mut out = Out::from(&mut v);
        out.set(0, 7);
        out.sub(2..4).copy_from_slice(&[8, 9]);
        assert_eq!(v, [7, 0, 8, 9, 0]);
        Out::from(&mut v).fill_with(|i| i as u32 * 10);
        assert_eq!(v, [0, 10, 20, 30, 40]);
    }

    #[test]
    fn fills_uninitialised_memory() {
        let mut m = [MaybeUninit::<[f32; 3]>::uninit(); 3];
        Out::from(&mut m[..]).fill_with(|i| [i as f32; 3]);
        // SAFETY: every element was written by `fill_with` above.
        let m = m.map(|e| unsafe { e.assume_init() });
        assert_eq!(m, [[0.0; 3], [1.0; 3], [2.0; 3]]);
    }

    #[test]
    #[should_panic(expected = "lengths differ")]
    fn copy_of_another_length_panics() {
        Out::from(&mut [0u8; 2]).copy_from_slice(&[1]);
    }
}
