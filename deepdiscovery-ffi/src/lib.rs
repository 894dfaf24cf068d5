//! The C ABI of deepdiscovery (grows in the C-binding issue).
//!
//! Conventions: every function is panic-safe at the boundary; strings the library
//! returns are owned by the library unless a `_free` function says otherwise.

use std::ffi::c_char;

/// The library version as a NUL-terminated static string (never free it).
#[unsafe(no_mangle)]
pub extern "C" fn deepdiscovery_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_matches_the_core() {
        let v = unsafe { std::ffi::CStr::from_ptr(deepdiscovery_version()) };
        assert_eq!(v.to_str().unwrap(), deepdiscovery_core::VERSION);
    }
}
