//! Semantic evidence from a pretrained model (DESIGN, "Pretrained semantics"): what
//! the embedder reads of a definition ([`texts`]), the transformer that embeds it
//! in-process (`transformer`, behind the cargo feature of that name), and what a
//! file's definitions' vectors say of the task ([`similarity`]), and the static table
//! distilled from the model that gives the same kind of evidence with no runtime
//! ([`static_table`], tokenized by our own [`wordpiece`]).
//!
//! This sits below the stages, like `bridge` and `trees`: Location reads its features
//! as it reads any other evidence.

pub mod similarity;
pub mod static_table;
pub mod texts;
mod vectors;
pub mod wordpiece;

#[cfg(feature = "transformer")]
pub mod quantized;
#[cfg(feature = "transformer")]
#[doc(hidden)]
pub mod tiny_model;
#[cfg(feature = "transformer")]
pub mod transformer;

use std::sync::Arc;

pub use similarity::{DefinitionCosine, FileSimilarity, cosine, file_similarity, on_grid};
pub use static_table::{StaticTable, TableEmbedder};
pub use texts::{DefinitionText, MAX_TEXT_BYTES, check_texts, definition_texts};
#[cfg(feature = "transformer")]
pub use transformer::{Pooling, TransformerEmbedder};

pub(crate) use vectors::DiskVectors;

use crate::plugins::Embedder;
use crate::{Error, Result};

/// The name that selects the tuned model we ship instead of a folder.
pub const BUILTIN_MODEL: &str = "builtin";

/// The environment variable that names the built-in model's folder, for builds that
/// do not sit in a source checkout (the Python wheel passes its own copy's path).
pub const BUILTIN_MODEL_ENV: &str = "DEEPDISCOVERY_BUILTIN_MODEL";

/// Where a source checkout keeps the built-in model: the folder the Python wheel
/// ships (`python/deepdiscovery/embedder`, written by `make train-embedder`).
const CHECKOUT_MODEL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../python/deepdiscovery/embedder"
);

/// The embedder an `embedder_model` option names: a sentence-transformers folder run
/// in-process, or [`BUILTIN_MODEL`] (see [`builtin_folder`]).
///
/// # Errors
/// [`Error::Model`] for a folder that cannot be used; [`Error::InvalidConfig`] in a
/// build without the `transformer` feature, or for the built-in model when no copy of
/// it is found.
pub fn load_embedder(model: &str) -> Result<Arc<dyn Embedder>> {
    if model == BUILTIN_MODEL {
        return load_folder(&builtin_folder()?.to_string_lossy());
    }
    load_folder(model)
}

/// The folder of the built-in model: [`BUILTIN_MODEL_ENV`] when it is set, else the
/// copy in the source checkout this library was built from.
///
/// # Errors
/// [`Error::InvalidConfig`] when neither holds a model.
pub fn builtin_folder() -> Result<std::path::PathBuf> {
    if let Some(dir) = std::env::var_os(BUILTIN_MODEL_ENV).filter(|d| !d.is_empty()) {
        return Ok(dir.into());
    }
    let checkout = std::path::Path::new(CHECKOUT_MODEL);
    if checkout.join("model.safetensors").is_file() {
        return Ok(checkout.to_path_buf());
    }
    Err(Error::InvalidConfig(format!(
        "embedder_model \"builtin\": no copy of the built-in model here (the Python wheel \
         ships one; a source checkout has it in python/deepdiscovery/embedder); set \
         {BUILTIN_MODEL_ENV} to its folder, or give a sentence-transformers folder"
    )))
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
