//! The boundary between C and Rust: the panic guard every entry point runs in,
//! argument checks, and the strings handed to C.

use std::any::Any;
use std::ffi::{CStr, CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

use deepdiscovery_core::options::{OptionsError, OptionsErrorKind};

use crate::status::DdStatus;

/// Why a call failed: its status code and a message for a human.
#[derive(Debug)]
pub(crate) struct Failure {
    /// The code returned to C.
    pub status: DdStatus,
    /// The message written to `error_out`.
    pub message: String,
}

impl Failure {
    /// A failure with its code and message.
    pub fn new(status: DdStatus, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
        }
    }

    /// A required pointer that was NULL.
    pub fn null(name: &str) -> Failure {
        Failure::new(DdStatus::NullArgument, format!("{name} is NULL"))
    }

    /// A caught panic, with its message when it has one.
    fn panic(payload: &(dyn Any + Send)) -> Failure {
        let what = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("no message");
        Failure::new(
            DdStatus::Internal,
            format!("internal error (a bug in deepdiscovery, please report it): {what}"),
        )
    }
}

impl From<OptionsError> for Failure {
    fn from(error: OptionsError) -> Failure {
        let status = match error.kind {
            OptionsErrorKind::NotJson => DdStatus::InvalidJson,
            _ => DdStatus::InvalidConfig,
        };
        Failure::new(status, format!("invalid configuration: {}", error.message))
    }
}

impl From<deepdiscovery_core::Error> for Failure {
    fn from(error: deepdiscovery_core::Error) -> Failure {
        Failure::new(DdStatus::of(&error), error.to_string())
    }
}

/// Runs the body of an entry point: clears `*error_out`, catches any panic, and on
/// failure writes an owned message to `*error_out` and returns its status.
///
/// # Safety
/// `error_out` is NULL or valid for a write of one pointer.
pub(crate) unsafe fn guard(
    error_out: *mut *mut c_char,
    body: impl FnOnce() -> Result<(), Failure>,
) -> DdStatus {
    // SAFETY: the caller's contract on `error_out`.
    unsafe { write_out(error_out, std::ptr::null_mut()) };
    let failure = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => return DdStatus::Ok,
        Ok(Err(failure)) => failure,
        Err(payload) => Failure::panic(payload.as_ref()),
    };
    if !error_out.is_null() {
        // SAFETY: as above. The message is only allocated when someone takes it.
        unsafe { error_out.write(to_c_string(failure.message)) };
    }
    failure.status
}

/// Writes `value` through `out` when `out` is not NULL.
///
/// # Safety
/// `out` is NULL or valid for a write of one `T`.
pub(crate) unsafe fn write_out<T>(out: *mut T, value: T) {
    if !out.is_null() {
        // SAFETY: not NULL, and valid by the caller's contract.
        unsafe { out.write(value) };
    }
}

/// Checks a required out-parameter and sets it to NULL until there is a result.
///
/// # Safety
/// `out` is NULL or valid for a write of one pointer.
pub(crate) unsafe fn required_out<T>(out: *mut *mut T, name: &str) -> Result<*mut *mut T, Failure> {
    if out.is_null() {
        return Err(Failure::null(name));
    }
    // SAFETY: not NULL, and valid by the caller's contract.
    unsafe { out.write(std::ptr::null_mut()) };
    Ok(out)
}

/// A required string argument, checked for NULL and UTF-8.
///
/// # Safety
/// `ptr` is NULL or points to a NUL-terminated string valid for the call.
pub(crate) unsafe fn str_arg<'a>(ptr: *const c_char, name: &str) -> Result<&'a str, Failure> {
    // SAFETY: the caller's contract.
    unsafe { optional_str_arg(ptr, name) }?.ok_or_else(|| Failure::null(name))
}

/// An optional string argument (NULL allowed), checked for UTF-8.
///
/// # Safety
/// `ptr` is NULL or points to a NUL-terminated string valid for the call.
pub(crate) unsafe fn optional_str_arg<'a>(
    ptr: *const c_char,
    name: &str,
) -> Result<Option<&'a str>, Failure> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: not NULL and NUL-terminated by the caller's contract.
    let bytes = unsafe { CStr::from_ptr(ptr) };
    bytes.to_str().map(Some).map_err(|e| {
        Failure::new(
            DdStatus::InvalidUtf8,
            format!(
                "{name} is not valid UTF-8 (invalid byte at offset {})",
                e.valid_up_to()
            ),
        )
    })
}

/// A string for C, owned by the caller and freed with `dd_string_free`. A NUL
/// inside the text (which JSON never has) is written as `\0` so that nothing after
/// it is lost.
pub(crate) fn to_c_string(text: String) -> *mut c_char {
    let text = if text.contains('\0') {
        text.replace('\0', "\\0")
    } else {
        text
    };
    CString::new(text).unwrap_or_default().into_raw()
}

/// Frees a string made by [`to_c_string`].
///
/// # Safety
/// `ptr` is NULL or came from [`to_c_string`] and was not freed yet.
pub(crate) unsafe fn free_c_string(ptr: *mut c_char) {
    if !ptr.is_null() {
        // SAFETY: made by `CString::into_raw`, freed once, by the caller's contract.
        drop(unsafe { CString::from_raw(ptr) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_a_status_and_a_message() {
        let mut error: *mut c_char = std::ptr::null_mut();
        let status = unsafe { guard(&mut error, || panic!("boom")) };
        assert_eq!(status, DdStatus::Internal);
        let message = unsafe { CStr::from_ptr(error) }
            .to_str()
            .unwrap()
            .to_owned();
        assert!(message.contains("boom"), "{message}");
        unsafe { free_c_string(error) };
    }

    #[test]
    fn success_clears_the_error_out_parameter() {
        let mut error: *mut c_char = std::ptr::dangling_mut::<c_char>();
        let status = unsafe { guard(&mut error, || Ok(())) };
        assert_eq!(status, DdStatus::Ok);
        assert!(error.is_null());
    }

    #[test]
    fn invalid_utf8_is_an_error() {
        let bytes = b"caf\xe9\0";
        let err = unsafe { str_arg(bytes.as_ptr().cast(), "task") }.unwrap_err();
        assert_eq!(err.status, DdStatus::InvalidUtf8);
        assert!(err.message.contains("offset 3"), "{}", err.message);
    }

    #[test]
    fn interior_nul_is_kept_visible() {
        let ptr = to_c_string("a\0b".to_string());
        let text = unsafe { CStr::from_ptr(ptr) }.to_str().unwrap().to_owned();
        assert_eq!(text, "a\\0b");
        unsafe { free_c_string(ptr) };
    }
}
