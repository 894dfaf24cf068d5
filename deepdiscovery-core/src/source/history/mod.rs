//! The repository's own history: the commits that are ancestors of the checked-out
//! one, each with the paths it changed and its message (paper Figure 1, "Repo
//! Evolution").
//!
//! Only ancestors of HEAD are ever read — never other branches, `--all` or reflogs:
//! history after the commit a task was written against would leak its answer.
//!
//! How much is read is bounded by work — a number of commits and a number of bytes
//! of git's output — never by a clock: the same checkout gives the same history, and
//! so the same package, on an idle machine, a loaded one or a slow file system. The
//! one time bound ([`HistoryOptions::max_seconds`]) is a guard against a git that
//! never answers: when it is reached no history is used at all, and the package
//! says so.

mod git;
mod log;

use serde::{Deserialize, Serialize};

pub(crate) use git::{extend_git_history, git_head, read_git_history};
#[doc(hidden)]
pub use log::check_log_window;

/// How much history to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct HistoryOptions {
    /// At most this many commits, newest first (default 2,000).
    pub max_commits: usize,
    /// At most this many bytes of git's log (messages and changed paths; default 16
    /// MiB): a history of huge messages or huge commits stops here.
    pub max_bytes: u64,
    /// Commits changing more files than this are skipped: mass renames, vendoring,
    /// formatting sweeps say nothing about which files belong together (default 50).
    pub max_files_per_commit: usize,
    /// A guard, not a bound: a `git` that has not finished after this many seconds
    /// (default 600) is stopped and the query goes on without history, with a note
    /// in the package. Never reached by a working git within the bounds above.
    pub max_seconds: u64,
}

impl Default for HistoryOptions {
    fn default() -> Self {
        HistoryOptions {
            max_commits: 2_000,
            max_bytes: 16 << 20,
            max_files_per_commit: 50,
            max_seconds: 600,
        }
    }
}

/// One commit: who, when, what it says, and which paths it changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Commit {
    /// The commit id (hexadecimal object name).
    pub id: String,
    /// Committer time, in seconds since the Unix epoch.
    pub time: i64,
    /// Author name (after the repository's mailmap).
    pub author: String,
    /// The first line of the commit message.
    pub subject: String,
    /// The rest of the message (its body), trimmed, at most 1 KiB.
    #[serde(default)]
    pub message: String,
    /// Changed paths relative to the source's root, `/`-separated, sorted, each under
    /// its newest name (a file renamed later is listed by the name it has at HEAD).
    pub paths: Vec<String>,
}

/// Which bound stopped reading a history before its first commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HistoryCut {
    /// [`HistoryOptions::max_commits`]: older commits were not read.
    Commits,
    /// [`HistoryOptions::max_bytes`]: older commits were not read.
    Bytes,
    /// [`HistoryOptions::max_seconds`]: git did not finish in time, and nothing of
    /// what it printed is used (a history cut by a clock would differ between
    /// machines).
    Time,
}

/// One record of the window read: its size in git's output and whether it is one
/// of [`History::commits`] (else it was a large commit, left out). Kept so that a
/// later HEAD can extend the window exactly as a fresh read would cut it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Mark {
    bytes: u32,
    kept: bool,
}

/// The commits that are ancestors of HEAD, newest first.
///
/// [`FsSource`](super::FsSource) reads it with the `git` command-line program found on
/// PATH rather than a git library crate. A library (gix, or git2 with its bundled
/// libgit2) would add hundreds of crates or a C build to every build of the core, the
/// Python wheel and the C library, for a feature that is optional by design; the CLI
/// costs nothing to build, is present wherever a work tree is, and reads every
/// repository layout git itself reads (packs, alternates, worktrees, partial clones).
/// Its run-time cost is a few process spawns when HEAD moves and one `git rev-parse`
/// per query. Without git, or outside a work tree, there is simply no history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct History {
    /// The id of the checked-out commit the history was read from.
    pub head: String,
    /// Committer time of HEAD, in seconds since the Unix epoch.
    pub head_time: i64,
    /// Commits, newest first (merges and skipped commits left out).
    pub commits: Vec<Commit>,
    /// Commits left out for changing more than
    /// [`HistoryOptions::max_files_per_commit`] files.
    pub skipped_large: usize,
    /// The bound that stopped reading before the first commit, if any.
    pub cut: Option<HistoryCut>,
    /// Every record of the window, newest first (see [`Mark`]).
    #[serde(default)]
    marks: Vec<Mark>,
}

impl History {
    /// Commits from which a history says what changes together: fewer (a shallow
    /// clone) say nothing, and the models that read the history are not used on them.
    pub const DEEP_COMMITS: usize = 30;

    /// Whether the history holds at least [`History::DEEP_COMMITS`] commits.
    pub fn is_deep(&self) -> bool {
        self.commits.len() >= Self::DEEP_COMMITS
    }

    /// A history of `commits` (newest first) read from `head`, whole. For sources
    /// that read their history themselves.
    pub fn new(head: String, head_time: i64, commits: Vec<Commit>) -> History {
        let marks = commits
            .iter()
            .map(|_| Mark {
                bytes: 0,
                kept: true,
            })
            .collect();
        History {
            head,
            head_time,
            commits,
            skipped_large: 0,
            cut: None,
            marks,
        }
    }

    /// A one-line note saying how the history was cut short, for the package; `None`
    /// when it was read to the first commit.
    pub fn cut_note(&self, options: &HistoryOptions) -> Option<String> {
        Some(match self.cut? {
            HistoryCut::Commits => format!(
                "history: the newest {} commits were read (history.max_commits); older ones \
                 are not used",
                options.max_commits
            ),
            HistoryCut::Bytes => format!(
                "history: reading stopped after {} commits at history.max_bytes ({} bytes of \
                 log); older ones are not used",
                self.commits.len() + self.skipped_large,
                options.max_bytes
            ),
            HistoryCut::Time => format!(
                "history: git did not finish within history.max_seconds ({} s); no history \
                 was used",
                options.max_seconds
            ),
        })
    }
}

/// Whether `id` is a full hexadecimal object name (SHA-1 or SHA-256).
pub(crate) fn is_object_id(id: &str) -> bool {
    matches!(id.len(), 40 | 64) && id.bytes().all(|b| b.is_ascii_hexdigit())
}
