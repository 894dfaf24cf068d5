//! Safe wrappers over the C ABI for the tests.

use std::ffi::{CStr, CString, c_char};
use std::path::PathBuf;

use deepdiscovery::{DdSession, DdStatus, dd_discover, dd_locate, dd_session_open, dd_string_free};

/// The task of the README's demo.
pub const TASK: &str = "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in `convert_currency`";

/// A fixture repository of the workspace.
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(name)
}

/// A failed call: its status and message.
pub type Failed = (DdStatus, String);

/// Takes an owned string from the library and frees it.
pub fn take(ptr: *mut c_char) -> Option<String> {
    if ptr.is_null() {
        return None;
    }
    let text = unsafe { CStr::from_ptr(ptr) }.to_str().unwrap().to_owned();
    unsafe { dd_string_free(ptr) };
    Some(text)
}

/// The result of a call with an out string and an error string.
pub fn outcome(status: DdStatus, out: *mut c_char, error: *mut c_char) -> Result<String, Failed> {
    let (out, error) = (take(out), take(error));
    if status == DdStatus::Ok {
        assert!(error.is_none(), "an error message on success");
        Ok(out.expect("a result on success"))
    } else {
        assert!(out.is_none(), "a result on failure");
        Err((status, error.expect("a message on failure")))
    }
}

/// An owned session handle.
pub struct Handle(pub *mut DdSession);

impl Handle {
    pub fn open(root: &str, config: Option<&str>) -> Result<Handle, Failed> {
        let root = CString::new(root).unwrap();
        let config = config.map(|c| CString::new(c).unwrap());
        let mut session: *mut DdSession = std::ptr::null_mut();
        let mut error: *mut c_char = std::ptr::null_mut();
        let status = unsafe {
            dd_session_open(
                root.as_ptr(),
                config.as_ref().map_or(std::ptr::null(), |c| c.as_ptr()),
                &mut session,
                &mut error,
            )
        };
        let error = take(error);
        if status == DdStatus::Ok {
            assert!(error.is_none() && !session.is_null());
            Ok(Handle(session))
        } else {
            assert!(session.is_null());
            Err((status, error.expect("a message on failure")))
        }
    }

    pub fn fixture(name: &str) -> Handle {
        Handle::open(fixture(name).to_str().unwrap(), None).unwrap()
    }

    pub fn discover(&self, task: &str, options: Option<&str>) -> Result<String, Failed> {
        self.query(dd_discover, task, options)
    }

    pub fn locate(&self, task: &str, options: Option<&str>) -> Result<String, Failed> {
        self.query(dd_locate, task, options)
    }

    fn query(
        &self,
        call: unsafe extern "C" fn(
            *const DdSession,
            *const c_char,
            *const c_char,
            *mut *mut c_char,
            *mut *mut c_char,
        ) -> DdStatus,
        task: &str,
        options: Option<&str>,
    ) -> Result<String, Failed> {
        let task = CString::new(task).unwrap();
        let options = options.map(|o| CString::new(o).unwrap());
        let (mut out, mut error) = (std::ptr::null_mut(), std::ptr::null_mut());
        let status = unsafe {
            call(
                self.0,
                task.as_ptr(),
                options.as_ref().map_or(std::ptr::null(), |o| o.as_ptr()),
                &mut out,
                &mut error,
            )
        };
        outcome(status, out, error)
    }
}

// SAFETY: the library documents a session as usable from several threads at once.
unsafe impl Send for Handle {}
// SAFETY: as above.
unsafe impl Sync for Handle {}

impl Drop for Handle {
    fn drop(&mut self) {
        unsafe { deepdiscovery::dd_session_free(self.0) };
    }
}

/// The paths of a JSON array of objects with a `path`.
pub fn paths(value: &serde_json::Value) -> Vec<String> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect()
}
