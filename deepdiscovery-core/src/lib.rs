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
//! and revalidates them against the repository on every query, so there is no index
//! to build first and no stale answer after an edit.
//!
//! # The main flow
//!
//! Open a [`Session`] on a repository, describe the task, and ask for its context
//! package. The package lists the files the task needs, best first, each with its
//! role, a metadata card or its text, and the relations that brought it in. Here on
//! the demo repository of this project (`tests/fixtures/locate_app`, the one `make
//! demo` runs on):
//!
//! ```
//! use deepdiscovery_core::{DiscoverConfig, Session, Task};
//!
//! let repo = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/locate_app");
//! let session = Session::open(repo)?;
//! let task = Task::new(
//!     "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in `convert_currency`",
//! )?;
//! let mut config = DiscoverConfig::default();
//! config.budget.max_tokens = 4_000;
//! let package = session.discover(&task, &config)?;
//!
//! assert_eq!(package.file_paths()[0], "inventory/pricing/currency.py");
//! assert!(package.budget.used_tokens <= 4_000);
//! for file in &package.files {
//!     println!("{:.2} {} ({}): {}", file.score, file.path, file.view.name(), file.rationale.join("; "));
//! }
//! let json = package.to_json(); // the schema every binding shares
//! let prompt = package.to_markdown(); // for a prompt, within the budget
//! # assert!(json.contains("\"schema_version\"") && !prompt.is_empty());
//! # Ok::<(), deepdiscovery_core::Error>(())
//! ```
//!
//! Any [`source::RepoSource`] works: `Session::open(path)` reads a directory on disk,
//! [`MemorySource`] holds the files in memory:
//!
//! ```
//! use deepdiscovery_core::{DiscoverConfig, MemorySource, Session, Task};
//!
//! let repo = MemorySource::from_files([
//!     ("shop/payments.py", "from shop.gateways import StripeGateway\n\n\
//!         def charge(order):\n    return StripeGateway().charge(order.total)\n"),
//!     ("shop/gateways.py", "class StripeGateway:\n    def charge(self, amount):\n        \
//!         raise TimeoutError('stripe timed out')\n"),
//!     ("shop/catalog.py", "def list_products():\n    return []\n"),
//! ])?;
//! let session = Session::new(repo);
//! let task = Task::new("charge() fails with TimeoutError: stripe timed out")?;
//! let package = session.discover(&task, &DiscoverConfig::default())?;
//! let paths = package.file_paths();
//! assert!(paths.contains(&"shop/payments.py") && paths.contains(&"shop/gateways.py"));
//! # Ok::<(), deepdiscovery_core::Error>(())
//! ```
//!
//! # The stages on their own
//!
//! [`Session::locate`] runs only the Location stage (anchors with their Eq. 6 terms,
//! see [`locate`]); [`Session::graph`] gives the repository graph:
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
//!
//! # Plug-ins and errors
//!
//! A [`LanguageModel`] and an [`Embedder`] can be given to a session
//! ([`Session::with_language_model`], [`Session::with_embedder`]); without them every
//! stage is deterministic. A failing plug-in never fails a query: the stage falls
//! back to its deterministic path and the package's notes say so. Every fallible call
//! returns [`Result`] with the one [`Error`] enum.
//!
//! # Stability
//!
//! Enums that will grow (relations, roles, languages, errors, ...) are
//! `#[non_exhaustive]`; configuration structs implement `Default`, so set the fields
//! you need on a default value. The JSON of a [`ContextPackage`] carries a
//! `schema_version` that changes only on incompatible changes.
#![deny(missing_docs)]

pub mod artifact;
pub mod bridge;
pub mod cache;
mod error;
pub mod eval;
pub mod facts;
pub mod graph;
mod hashing;
pub mod infer;
pub mod locate;
mod model_bytes;
pub mod options;
pub mod plugins;
pub mod resolve;
pub mod rules;
pub mod semantic;
mod session;
pub mod source;
mod sync;
pub mod task;
mod term_store;
mod text;
mod trees;
#[doc(hidden)]
pub use locate::check_trees_model;

pub use artifact::{Language, Role};
pub use error::{Error, Result};
pub use facts::Facts;
pub use graph::{Edge, Relation, RepoGraph};
pub use infer::{ContextPackage, DiscoverAblation, DiscoverConfig};
pub use locate::{LocateConfig, Location};
pub use plugins::{Embedder, LanguageModel};
pub use session::{Session, SessionStats};
pub use source::{FsSource, History, HistoryCut, HistoryOptions, MemorySource, RepoSource};
pub use task::{Budget, Hints, Task};

/// The version of this crate (from Cargo.toml).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
