//! Semantic evidence from a pretrained model (DESIGN, "Pretrained semantics"): what
//! the embedder reads of a definition ([`texts`]), the transformer that embeds it
//! in-process (`transformer`, behind the cargo feature of that name), and what a
//! file's definitions' vectors say of the task ([`similarity`]).
//!
//! This sits below the stages, like `bridge` and `trees`: Location reads its features
//! as it reads any other evidence.

pub mod similarity;
pub mod texts;
mod vectors;

#[cfg(feature = "transformer")]
#[doc(hidden)]
pub mod tiny_model;
#[cfg(feature = "transformer")]
pub mod transformer;

use std::sync::Arc;

pub use similarity::{FileSimilarity, cosine, file_similarity};
pub use texts::{DefinitionText, MAX_TEXT_BYTES, check_texts, definition_texts};
#[cfg(feature = "transformer")]
pub use transformer::{Pooling, TransformerEmbedder};

pub(crate) use vectors::DiskVectors;

use crate::plugins::Embedder;
use crate::{Error, Result};

/// The name that selects the tuned model we ship instead of a folder.
pub const BUILTIN_MODEL: &str = "builtin";

/// The embedder an `embedder_model` option names: a sentence-transformers folder run
/// in-process, or [`BUILTIN_MODEL`].
///
/// # Errors
/// [`Error::Model`] for a folder that cannot be used; [`Error::InvalidConfig`] in a
/// build without the `transformer` feature, or for the built-in model while none is
/// shipped.
pub fn load_embedder(model: &str) -> Result<Arc<dyn Embedder>> {
    if model == BUILTIN_MODEL {
        return Err(Error::InvalidConfig(
            "embedder_model \"builtin\": this build ships no tuned model yet; give a \
             sentence-transformers folder"
                .to_string(),
        ));
    }
    load_folder(model)
}

#[cfg(feature = "transformer")]
fn load_folder(model: &str) -> Result<Arc<dyn Embedder>> {
    Ok(Arc::new(TransformerEmbedder::load(model)?))
}

#[cfg(not(feature = "transformer"))]
fn load_folder(model: &str) -> Result<Arc<dyn Embedder>> {
    Err(Error::InvalidConfig(format!(
        "embedder_model {model:?}: this build runs no transformer (build deepdiscovery-core \
         with the `transformer` feature)"
    )))
}
