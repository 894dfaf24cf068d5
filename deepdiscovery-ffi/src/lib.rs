//! The C ABI of deepdiscovery: an opaque session handle, `dd_discover` and
//! `dd_locate` returning JSON, `dd_package_svg` drawing a package, plug-in callbacks,
//! and status codes. The header
//! `include/deepdiscovery.h` is generated from this crate by cbindgen; see
//! `include/README.md` for linking and the conventions in full.
//!
//! Conventions (after rustls-ffi):
//! - every entry point returns a [`DdStatus`] (0 is success), runs inside a panic
//!   boundary, and rejects NULL pointers and strings that are not UTF-8 with a status;
//! - every out-parameter that is not NULL is written on every return: the result on
//!   success and NULL on failure; `*error_out` is NULL on success and an owned
//!   message on failure (nothing is kept in global or thread-local state);
//! - every string the library returns is owned by the caller and freed with
//!   [`dd_string_free`]; the session with [`dd_session_free`]; both accept NULL;
//! - the binding holds no logic: options are read into the core's configuration
//!   types and everything else is `deepdiscovery-core`.
#![deny(missing_docs)]

mod boundary;
mod picture;
mod plugins;
mod session;
mod status;

use std::ffi::c_char;

pub use picture::dd_package_svg;
pub use plugins::{DdEmbedFn, DdLlmCompleteFn};
pub use session::{
    DdSession, dd_discover, dd_discover_markdown, dd_locate, dd_session_free, dd_session_open,
    dd_session_set_embedder, dd_session_set_llm,
};
pub use status::{DdStatus, dd_status_str};

/// The library version (`"MAJOR.MINOR.PATCH"`) as a static NUL-terminated string:
/// the version of the Rust crates it was built from. Never NULL; never free it. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn dd_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// The `schema_version` of the context package JSON that `dd_discover` returns.
/// It changes only when the package's JSON changes incompatibly. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn dd_schema_version() -> u32 {
    deepdiscovery_core::infer::SCHEMA_VERSION
}

/// Releases a string the library returned (a result or an error message). NULL is
/// allowed and does nothing. Never pass a string from anywhere else, and never free
/// one twice.
///
/// # Safety
/// `s` is NULL or a string returned by this library and not yet released.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dd_string_free(s: *mut c_char) {
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: the caller's contract.
        unsafe { boundary::free_c_string(s) }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_matches_the_core() {
        let v = unsafe { std::ffi::CStr::from_ptr(dd_version()) };
        assert_eq!(v.to_str().unwrap(), deepdiscovery_core::VERSION);
        assert_eq!(
            dd_schema_version(),
            deepdiscovery_core::infer::SCHEMA_VERSION
        );
    }
}
