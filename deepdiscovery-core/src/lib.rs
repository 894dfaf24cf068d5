//! # deepdiscovery-core
//!
//! Task-level repository context recovery, after the DeepDiscovery method: a Location
//! stage finds a few high-confidence anchor files for a task, an Inference stage
//! expands from them over a multi-relational repository graph, and a metadata-first
//! context package is returned within a budget.
//!
//! This crate is the pure core: repository access goes through [`source::RepoSource`],
//! facts come from tree-sitter ([`facts`]), and the graph of typed, rationalized
//! relations is [`graph::RepoGraph`]. A [`Session`] keeps parsed facts across queries
//! and revalidates them against the repository on every query.
//!
//! ```
//! use deepdiscovery_core::{MemorySource, Session};
//!
//! let repo = MemorySource::from_files([
//!     ("app/main.py", "from app.util import helper\n\nhelper()\n"),
//!     ("app/util.py", "def helper():\n    return 1\n"),
//! ])?;
//! let session = Session::new(repo);
//! let graph = session.graph()?;
//! let edges = graph.edges_from("app/main.py");
//! assert!(edges.iter().any(|e| e.to == "app/util.py"));
//! # Ok::<(), deepdiscovery_core::Error>(())
//! ```
#![deny(missing_docs)]

pub mod artifact;
mod error;
pub mod facts;
pub mod graph;
pub mod infer;
pub mod locate;
pub mod plugins;
pub mod resolve;
pub mod rules;
mod session;
pub mod source;
pub mod task;

pub use artifact::{Language, Role};
pub use error::{Error, Result};
pub use facts::Facts;
pub use graph::{Edge, Relation, RepoGraph};
pub use infer::{ContextPackage, DiscoverAblation, DiscoverConfig};
pub use plugins::{Embedder, LanguageModel};
pub use session::{Session, SessionStats};
pub use source::{FsSource, MemorySource, RepoSource};
pub use task::{Budget, Hints, Task};

/// The version of this crate (from Cargo.toml).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
