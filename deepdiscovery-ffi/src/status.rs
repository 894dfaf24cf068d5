//! Status codes: one per core error variant, plus the failures of the boundary itself.

use std::ffi::{c_char, c_int};

use deepdiscovery_core::Error;

/// The result of every call of the library that can fail.
///
/// The numbers are stable: a code keeps its meaning in every later version, and new
/// codes are only ever added. `DD_STATUS_OK` is 0; every other code is an error, and
/// the call's `error_out` (when not NULL) then holds a message for a human.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DdStatus {
    /// Success.
    Ok = 0,
    /// A required pointer argument was NULL.
    NullArgument = 1,
    /// A string argument was not valid UTF-8.
    InvalidUtf8 = 2,
    /// A JSON argument (session config or query options) did not parse as JSON, or
    /// was not a JSON object.
    InvalidJson = 3,
    /// A bug in the library: a panic caught at the boundary (the session stays
    /// usable for later calls), or a result that could not be serialized.
    Internal = 4,
    /// The repository root does not exist.
    RootNotFound = 10,
    /// The repository root exists but is not a directory.
    RootNotDirectory = 11,
    /// An I/O error while reading the repository.
    Io = 12,
    /// A path asked of the repository is not one of its files.
    NoSuchArtifact = 13,
    /// The task text is empty or only whitespace.
    EmptyTask = 14,
    /// A configuration value is unknown, of the wrong type, out of range or
    /// inconsistent (the message names it).
    InvalidConfig = 15,
    /// A caller-supplied relation rule does not parse or compile.
    InvalidRule = 16,
    /// A tree-sitter grammar failed to load (a build problem of the library).
    Grammar = 17,
    /// A plug-in callback (language model, embedder) failed or answered garbage.
    Plugin = 18,
    /// The model folder of `embedder_model` cannot be used (missing, truncated,
    /// corrupt, of another shape; the message names the file).
    Model = 19,
    /// An error of the core newer than this mapping; the message says what it is.
    Unknown = 99,
}

impl DdStatus {
    /// The status that stands for a core error: one distinct code per variant.
    pub(crate) fn of(error: &Error) -> DdStatus {
        match error {
            Error::RootNotFound(_) => DdStatus::RootNotFound,
            Error::RootNotDirectory(_) => DdStatus::RootNotDirectory,
            Error::Io { .. } => DdStatus::Io,
            Error::NoSuchArtifact(_) => DdStatus::NoSuchArtifact,
            Error::EmptyTask => DdStatus::EmptyTask,
            Error::InvalidConfig(_) => DdStatus::InvalidConfig,
            Error::InvalidRule { .. } => DdStatus::InvalidRule,
            Error::Grammar { .. } => DdStatus::Grammar,
            Error::Plugin { .. } => DdStatus::Plugin,
            Error::Model { .. } => DdStatus::Model,
            Error::Internal(_) => DdStatus::Internal,
            _ => DdStatus::Unknown,
        }
    }

    /// The constant's name in the C header, NUL-terminated.
    fn name(self) -> &'static str {
        match self {
            DdStatus::Ok => "DD_STATUS_OK\0",
            DdStatus::NullArgument => "DD_STATUS_NULL_ARGUMENT\0",
            DdStatus::InvalidUtf8 => "DD_STATUS_INVALID_UTF8\0",
            DdStatus::InvalidJson => "DD_STATUS_INVALID_JSON\0",
            DdStatus::Internal => "DD_STATUS_INTERNAL\0",
            DdStatus::RootNotFound => "DD_STATUS_ROOT_NOT_FOUND\0",
            DdStatus::RootNotDirectory => "DD_STATUS_ROOT_NOT_DIRECTORY\0",
            DdStatus::Io => "DD_STATUS_IO\0",
            DdStatus::NoSuchArtifact => "DD_STATUS_NO_SUCH_ARTIFACT\0",
            DdStatus::EmptyTask => "DD_STATUS_EMPTY_TASK\0",
            DdStatus::InvalidConfig => "DD_STATUS_INVALID_CONFIG\0",
            DdStatus::InvalidRule => "DD_STATUS_INVALID_RULE\0",
            DdStatus::Grammar => "DD_STATUS_GRAMMAR\0",
            DdStatus::Plugin => "DD_STATUS_PLUGIN\0",
            DdStatus::Model => "DD_STATUS_MODEL\0",
            DdStatus::Unknown => "DD_STATUS_UNKNOWN\0",
        }
    }
}

/// Every status, for tests and for `dd_status_str`.
fn all_statuses() -> [DdStatus; 16] {
    [
        DdStatus::Ok,
        DdStatus::NullArgument,
        DdStatus::InvalidUtf8,
        DdStatus::InvalidJson,
        DdStatus::Internal,
        DdStatus::RootNotFound,
        DdStatus::RootNotDirectory,
        DdStatus::Io,
        DdStatus::NoSuchArtifact,
        DdStatus::EmptyTask,
        DdStatus::InvalidConfig,
        DdStatus::InvalidRule,
        DdStatus::Grammar,
        DdStatus::Plugin,
        DdStatus::Model,
        DdStatus::Unknown,
    ]
}

/// The name of a status code as a static NUL-terminated string (`"DD_STATUS_OK"`,
/// `"DD_STATUS_EMPTY_TASK"`, ...), or `"DD_STATUS_UNKNOWN"` for a number that is no
/// status. Never NULL; never free it. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn dd_status_str(status: c_int) -> *const c_char {
    // Takes an int, not the enum: a C caller may pass any number, and an out-of-range
    // value of a Rust enum would be undefined behaviour.
    all_statuses()
        .iter()
        .find(|s| **s as c_int == status)
        .copied()
        .unwrap_or(DdStatus::Unknown)
        .name()
        .as_ptr()
        .cast()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    #[test]
    fn codes_are_distinct_and_named() {
        let mut codes: Vec<c_int> = all_statuses().iter().map(|s| *s as c_int).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), all_statuses().len());
        for status in all_statuses() {
            let name = unsafe { CStr::from_ptr(dd_status_str(status as c_int)) };
            assert!(name.to_str().unwrap().starts_with("DD_STATUS_"));
        }
        let unknown = unsafe { CStr::from_ptr(dd_status_str(12345)) };
        assert_eq!(unknown.to_str().unwrap(), "DD_STATUS_UNKNOWN");
    }

    #[test]
    fn each_core_error_has_its_own_code() {
        let errors = [
            Error::RootNotFound("x".into()),
            Error::RootNotDirectory("x".into()),
            Error::io("x", std::io::Error::other("boom")),
            Error::NoSuchArtifact("x".into()),
            Error::EmptyTask,
            Error::InvalidConfig("x".into()),
            Error::InvalidRule {
                name: "r".into(),
                message: "m".into(),
            },
            Error::Grammar {
                language: "python",
                message: "m".into(),
            },
            Error::plugin("model", "m"),
            Error::model("folder", "m"),
        ];
        let mut codes: Vec<c_int> = errors.iter().map(|e| DdStatus::of(e) as c_int).collect();
        assert!(!codes.contains(&(DdStatus::Unknown as c_int)));
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), errors.len());
    }
}
