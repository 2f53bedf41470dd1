//! Argument checks for pointers and flags, so every export reads: check → find → lock → call the
//! core → map the error. Each check returns the exact `XpbdResult` and a message naming the
//! argument. These are the only places where caller pointers become Rust references.
//!
//! Safety model: the header documents, per function, how many elements each pointer must be valid
//! for. What can be checked here is checked (NULL with a non-zero count, alignment, a length that
//! fits the address space); the rest (that the memory exists) is the caller's promise, stated as
//! the `# Safety` section of each `unsafe fn` below.

use super::error::{FfiError, XpbdResult};
use crate::out::Out;
use std::mem::MaybeUninit;
use std::ptr::NonNull;

fn null(name: &str) -> FfiError {
    FfiError::new(XpbdResult::NullPointer, format!("`{name}` is NULL"))
}

fn check_aligned<T>(ptr: *const T, name: &str) -> Result<(), FfiError> {
    if ptr.is_aligned() {
        Ok(())
    } else {
        Err(FfiError::new(XpbdResult::InvalidArgument, format!("`{name}` is not aligned to {} bytes", align_of::<T>())))
    }
}

/// `count` elements of `T` as a length that `slice::from_raw_parts` accepts (total bytes ≤
/// isize::MAX). A longer one is no call's length: `XPBD_RESULT_BUFFER_SIZE_MISMATCH`, as the
/// header's rule for lengths says.
fn checked_len<T>(count: usize, name: &str) -> Result<usize, FfiError> {
    match count.checked_mul(size_of::<T>()) {
        Some(bytes) if bytes <= isize::MAX as usize => Ok(count),
        _ => Err(FfiError::new(XpbdResult::BufferSizeMismatch, format!("`{name}`: {count} elements do not fit in memory"))),
    }
}

/// A required input struct (a descriptor): NULL → `XPBD_RESULT_NULL_POINTER`.
///
/// # Safety
/// `ptr`, when not NULL, points to a valid `T` that stays unchanged during the call.
pub(crate) unsafe fn required<'a, T>(ptr: *const T, name: &str) -> Result<&'a T, FfiError> {
    if ptr.is_null() {
        return Err(null(name));
    }
    check_aligned(ptr, name)?;
    // SAFETY: non-null and aligned; validity is the caller's promise (above).
    Ok(unsafe { &*ptr })
}

/// An input array of `count` elements: NULL is allowed only when `count` is 0.
///
/// # Safety
/// `ptr`, when not NULL, is valid for reads of `count` elements that stay unchanged during the call.
pub(crate) unsafe fn slice_in<'a, T>(ptr: *const T, count: usize, name: &str) -> Result<&'a [T], FfiError> {
    if count == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(FfiError::new(XpbdResult::NullPointer, format!("`{name}` is NULL but its count is {count}")));
    }
    check_aligned(ptr, name)?;
    let len = checked_len::<T>(count, name)?;
    // SAFETY: non-null, aligned, length within isize::MAX bytes; the caller promises `count`
    // readable elements.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// An output array of `count` elements: NULL is allowed only when `count` is 0. It may be
/// uninitialised memory, so it becomes a write-only [`Out`] over `MaybeUninit<T>` (a `&mut [T]`
/// over it would be undefined behaviour); every element is stored before the call returns
/// `XPBD_RESULT_OK`, none is read.
///
/// # Safety
/// `ptr`, when not NULL, is valid for writes of `count` elements, and no other thread uses that
/// memory during the call.
pub(crate) unsafe fn slice_out<'a, T: Copy>(ptr: *mut T, count: usize, name: &str) -> Result<Out<'a, T>, FfiError> {
    if count == 0 {
        return Ok(Out::from(&mut [] as &mut [T]));
    }
    if ptr.is_null() {
        return Err(FfiError::new(XpbdResult::NullPointer, format!("`{name}` is NULL but its count is {count}")));
    }
    check_aligned(ptr, name)?;
    let len = checked_len::<T>(count, name)?;
    // SAFETY: as `slice_in`, for writes, and the caller promises exclusive use; `MaybeUninit<T>`
    // has `T`'s layout and needs no initialised contents.
    Ok(Out::from(unsafe { std::slice::from_raw_parts_mut(ptr.cast::<MaybeUninit<T>>(), len) }))
}

/// `float[3*count]` as `count` 3-vectors (same layout: `[f32; 3]` has f32's alignment, no padding).
///
/// # Safety
/// As [`slice_in`] for `3*count` floats.
pub(crate) unsafe fn vec3_in<'a>(ptr: *const f32, count: u32, name: &str) -> Result<&'a [[f32; 3]], FfiError> {
    // SAFETY: forwarded caller promise; the cast keeps address and alignment.
    unsafe { slice_in(ptr.cast::<[f32; 3]>(), count as usize, name) }
}

/// Output `float[3*count]` as `count` 3-vectors.
///
/// # Safety
/// As [`slice_out`] for `3*count` floats.
pub(crate) unsafe fn vec3_out<'a>(ptr: *mut f32, count: u32, name: &str) -> Result<Out<'a, [f32; 3]>, FfiError> {
    // SAFETY: forwarded caller promise; the cast keeps address and alignment.
    unsafe { slice_out(ptr.cast::<[f32; 3]>(), count as usize, name) }
}

/// A required out-parameter, checked before any work so that a NULL never leaves an object
/// created but unreported. Written once, at the end, by [`OutParam::write`].
pub(crate) struct OutParam<T>(NonNull<T>);

impl<T> OutParam<T> {
    /// # Safety
    /// `ptr`, when not NULL, is valid for a write of one `T` (it may be uninitialised).
    pub unsafe fn new(ptr: *mut T, name: &str) -> Result<Self, FfiError> {
        let ptr = NonNull::new(ptr).ok_or_else(|| null(name))?;
        check_aligned(ptr.as_ptr(), name)?;
        Ok(OutParam(ptr))
    }

    pub fn write(self, value: T) {
        // SAFETY: checked non-null and aligned in `new`, whose caller promised it is writable.
        // `write` does not read or drop the old (possibly uninitialised) value.
        unsafe { self.0.as_ptr().write(value) }
    }
}

/// A C boolean field (`uint32_t`): exactly 0 or 1, so that garbage from an uninitialised
/// descriptor is reported instead of being read as "true".
pub(crate) fn flag(value: u32, name: &'static str) -> Result<bool, FfiError> {
    match value {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(FfiError::new(XpbdResult::InvalidArgument, format!("`{name}` = {value}: expected 0 or 1"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_is_accepted_only_with_a_zero_count() {
        // SAFETY: null pointers with the counts under test; nothing is dereferenced.
        unsafe {
            assert_eq!(slice_in::<u32>(std::ptr::null(), 0, "vertices").unwrap().len(), 0);
            let e = slice_in::<u32>(std::ptr::null(), 3, "vertices").unwrap_err();
            assert_eq!(
                (e.code, e.message.as_str()),
                (XpbdResult::NullPointer, "`vertices` is NULL but its count is 3")
            );
            assert_eq!(vec3_out(std::ptr::null_mut(), 2, "out").unwrap_err().code, XpbdResult::NullPointer);
        }
    }

    #[test]
    fn an_output_array_may_be_uninitialised_memory() {
        let mut m = [std::mem::MaybeUninit::<f32>::uninit(); 6];
        // SAFETY: `m` holds the 6 floats of 2 vectors and nothing else uses it.
        let mut out = unsafe { vec3_out(m.as_mut_ptr().cast(), 2, "out") }.unwrap();
        out.fill_with(|v| [v as f32, 1.0, 2.0]);
        // SAFETY: `fill_with` wrote every element (Miri reports a read of one it did not).
        let m = m.map(|f| unsafe { f.assume_init() });
        assert_eq!(m, [0.0, 1.0, 2.0, 1.0, 1.0, 2.0]);
        // SAFETY: a count of 0 with NULL is the empty array; nothing is dereferenced.
        assert!(unsafe { slice_out::<u32>(std::ptr::null_mut(), 0, "out") }.unwrap().is_empty());
    }

    #[test]
    fn misaligned_float_pointer_is_rejected() {
        let buf = [0u32; 8];
        let misaligned = (buf.as_ptr() as *const u8).wrapping_add(1).cast::<f32>();
        // SAFETY: rejected before any read.
        let e = unsafe { vec3_in(misaligned, 1, "positions") }.unwrap_err();
        assert_eq!(e.code, XpbdResult::InvalidArgument);
        assert!(e.message.contains("aligned to 4 bytes"), "{}", e.message);
    }

    #[test]
    fn flags_accept_only_zero_and_one() {
        assert_eq!(flag(0, "enable_stretch"), Ok(false));
        assert_eq!(flag(1, "enable_stretch"), Ok(true));
        assert_eq!(flag(2, "enable_stretch").unwrap_err().code, XpbdResult::InvalidArgument);
    }
}
