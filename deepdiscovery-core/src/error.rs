//! The one error type of the core.
//!
//! Every fallible public function returns [`Result`]. Bindings map each variant to
//! a Python exception class and a stable C status code, so keep variants meaningful
//! to a caller: what went wrong, and on which path.

use std::path::PathBuf;

/// Everything that can go wrong in `deepdiscovery-core`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The repository root does not exist.
    #[error("repository root not found: {}", .0.display())]
    RootNotFound(PathBuf),
    /// The repository root exists but is not a directory.
    #[error("repository root is not a directory: {}", .0.display())]
    RootNotDirectory(PathBuf),
    /// An I/O error while reading a path of the repository.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The path that could not be read.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A path asked of a source is not one of its artifacts (or escapes the root).
    #[error("no such artifact in the repository: {0}")]
    NoSuchArtifact(String),
    /// The task given to a query is empty or only whitespace.
    #[error("the task text is empty")]
    EmptyTask,
    /// A configuration value is out of range or inconsistent.
    #[error("invalid configuration: {0}")]
    InvalidConfig(String),
    /// A user-supplied rule or query could not be compiled.
    #[error("invalid rule {name}: {message}")]
    InvalidRule {
        /// The rule's name.
        name: String,
        /// Why it was rejected.
        message: String,
    },
    /// A caller-supplied plug-in (language model, embedder) failed or answered with
    /// something unusable. Stages record it as a note and fall back to their
    /// deterministic path; it reaches the caller only from direct plug-in calls.
    #[error("plug-in {plugin} failed: {message}")]
    Plugin {
        /// The plug-in's name (the model's name, or `"embedder"`).
        plugin: String,
        /// What went wrong, in the plug-in's words where it gave any.
        message: String,
    },
    /// A bug: a stage panicked. The query is abandoned and the session stays usable
    /// (its caches are only ever replaced whole); the host process is never taken
    /// down. Please report it with the message.
    #[error("internal error (a bug in deepdiscovery, please report it): {0}")]
    Internal(String),
    /// A model folder (an embedder's weights, tokenizer or configuration) cannot be
    /// used: missing, truncated, corrupt, of a shape this build does not read.
    #[error("model at {} cannot be used: {message}", path.display())]
    Model {
        /// The folder or file that was refused.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// A tree-sitter grammar or query failed to load (a build problem, not a user error).
    #[error("grammar for {language} failed to load: {message}")]
    Grammar {
        /// The language whose grammar or query failed.
        language: &'static str,
        /// What tree-sitter said.
        message: String,
    },
}

/// `Result` with the core [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Runs one public entry point of the core: a panic anywhere inside it (a stage, a
/// rayon worker it waits for) becomes [`Error::Internal`] instead of unwinding into
/// the caller, which may be a Python interpreter or a C program.
///
/// In debug builds, the environment variable `DEEPDISCOVERY_FAULT` set to `entry`'s
/// name (`discover`, `locate`, `graph`) makes the entry point panic, so that the
/// bindings' tests can force a panic through each boundary. Release builds have no
/// such switch.
pub(crate) fn guarded<T>(entry: &str, body: impl FnOnce() -> Result<T>) -> Result<T> {
    let run = || {
        #[cfg(debug_assertions)]
        if std::env::var("DEEPDISCOVERY_FAULT").is_ok_and(|v| v == entry) {
            panic!("fault injected into {entry} (DEEPDISCOVERY_FAULT)");
        }
        body()
    };
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".to_string());
        Err(Error::Internal(format!("{entry}: {what}")))
    })
}

impl Error {
    /// Wraps an I/O error with the path it happened on.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// A model that cannot be used, with its path and what is wrong.
    pub fn model(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Error::Model {
            path: path.into(),
            message: message.into(),
        }
    }

    /// A plug-in failure with the plug-in's name and what it said.
    pub fn plugin(plugin: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Plugin {
            plugin: plugin.into(),
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_inside_an_entry_point_is_an_internal_error() {
        let out: Result<()> = guarded("discover", || panic!("index out of bounds"));
        match out {
            Err(Error::Internal(message)) => {
                assert_eq!(message, "discover: index out of bounds");
            }
            other => panic!("expected an internal error, got {other:?}"),
        }
        let formatted: Result<()> = guarded("locate", || panic!("bad {}", 42));
        assert!(
            formatted.unwrap_err().to_string().contains(
                "internal error (a bug in deepdiscovery, please report it): locate: bad 42"
            )
        );
        // Errors and answers pass through untouched.
        assert!(matches!(
            guarded("graph", || Err::<(), _>(Error::EmptyTask)),
            Err(Error::EmptyTask)
        ));
        assert_eq!(guarded("graph", || Ok(7)).unwrap(), 7);
    }
}
