//! The panic boundary every export goes through (after rustls-ffi's `ffi_panic_boundary`): the
//! body runs inside `catch_unwind`, errors become a result code plus the thread's last message,
//! and a panic becomes `XPBD_RESULT_PANIC` instead of unwinding into C (which would be undefined
//! behaviour). One place to review: no export catches, formats or maps errors on its own.
//!
//! Poisoning: a world lives behind its own lock (in a `SharedWorld`). A panic while a call holds
//! that lock exclusively poisons it (std semantics), and a panic in a step, which runs with the world
//! moved out of the lock, sets the `SharedWorld`'s poisoned flag; every later call reports
//! `XPBD_RESULT_WORLD_POISONED` (see `registry`), so nothing ever runs on a half-updated world. A panic outside any world lock
//! (argument translation) touched no shared state and poisons nothing.

use super::error::{FfiError, XpbdResult, set_last_error};
use crate::fp_env::DefaultFpEnv;
use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Run the body of the export `function`: `Ok` → `XPBD_RESULT_OK`; `Err` → its code, message
/// stored as "`function`: message"; panic → `XPBD_RESULT_PANIC`.
pub(crate) fn ffi_boundary(function: &'static str, body: impl FnOnce() -> Result<(), FfiError>) -> XpbdResult {
    // The caller's floating-point mode (flush-to-zero, unmasked exceptions) does not reach the
    // solver, and comes back on return (`crate::fp_env`).
    let _fp = DefaultFpEnv::enter();
    // AssertUnwindSafe: the only shared state a panic can leave half-changed is a world, and the
    // world's lock records that (poisoning, above). The registry's own critical sections only
    // push to / pop from vectors and are recovered as they are.
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => XpbdResult::Ok,
        Ok(Err(error)) => {
            set_last_error(format!("{function}: {}", error.message));
            error.code
        }
        Err(payload) => {
            set_last_error(format!(
                "{function}: internal panic ({}); this is a bug in xpbd_cloth, please report it",
                panic_text(payload.as_ref())
            ));
            XpbdResult::Panic
        }
    }
}

/// The boundary for an export that cannot fail and so returns a value instead of a code
/// (`xpbd_last_error_message`): a panic yields `on_panic`. (`xpbd_abi_version` and the
/// `xpbd_default_*` functions only build constants and take no boundary: see the module `ffi`.)
pub(crate) fn ffi_boundary_or<T>(on_panic: T, body: impl FnOnce() -> T) -> T {
    let _fp = DefaultFpEnv::enter();
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(on_panic)
}

fn panic_text(payload: &(dyn Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "non-string payload"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::error::xpbd_last_error_message;

    fn last_message() -> String {
        let mut buf = [0 as std::ffi::c_char; 256];
        // SAFETY: buf is 256 writable bytes.
        let needed = unsafe { xpbd_last_error_message(buf.as_mut_ptr(), buf.len()) };
        let bytes: Vec<u8> = buf[..needed - 1].iter().map(|&c| c as u8).collect();
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn error_becomes_its_code_and_a_message_naming_the_function() {
        let code = ffi_boundary("xpbd_test", || Err(FfiError::new(XpbdResult::NullPointer, "`out` is NULL")));
        assert_eq!(code, XpbdResult::NullPointer);
        assert_eq!(last_message(), "xpbd_test: `out` is NULL");
    }

    #[test]
    fn panic_is_caught_and_reported_not_unwound() {
        let code = ffi_boundary("xpbd_test", || panic!("index 7 out of bounds"));
        assert_eq!(code, XpbdResult::Panic);
        assert!(last_message().starts_with("xpbd_test: internal panic (index 7 out of bounds)"));
        assert_eq!(ffi_boundary_or(42u32, || panic!("boom")), 42);
    }
}
