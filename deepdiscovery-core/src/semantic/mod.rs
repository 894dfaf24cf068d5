//! Semantic evidence from a pretrained model (DESIGN, "Pretrained semantics"): what
//! the embedder reads of a definition ([`texts`]), the transformer that embeds it
//! in-process (`transformer`, behind the cargo feature of that name), and the
//! features a file gets from the similarity of its definitions to the task.
//!
//! This sits below the stages, like `bridge` and `trees`: Location reads its features
//! as it reads any other evidence.

pub mod texts;

pub use texts::{DefinitionText, MAX_TEXT_BYTES, definition_texts};
