//! A sentence-transformers model run in-process (DESIGN, "Pretrained semantics"): a
//! BERT encoder (candle, pure Rust, CPU) with its WordPiece tokenizer, mean or CLS
//! pooling and L2 normalization, read from a folder as sentence-transformers writes
//! it:
//!
//! - `config.json`: the BERT configuration (bounded below: a hostile file is refused
//!   before it allocates);
//! - `model.safetensors`: the weights, F32, F16 or BF16, named as `BertModel`'s
//!   (with or without a `bert.` prefix), or our int8 file ([`super::quantized`]);
//! - `tokenizer.json`: the tokenizer (its padding is turned off: every text is encoded
//!   on its own, so no cosine is bent by padding);
//! - `1_Pooling/config.json` (optional, mean pooling without it) and
//!   `sentence_bert_config.json` (optional: `max_seq_length`, 256 without it).
//!
//! Loading reads every file whole, checks it and runs one forward pass, so a folder
//! that loads is one that embeds; every failure is [`Error::Model`], never a panic.
//! Each text is encoded and run alone (no batch padding), so a text's vector does not
//! depend on the texts it was asked with: the same inputs give the same output.

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use rayon::prelude::*;
use serde::Deserialize;
use tokenizers::{Tokenizer, TruncationParams};

use super::quantized;
use crate::plugins::Embedder;
use crate::{Error, Result};

/// The largest configuration or tokenizer file read (a tokenizer of a 250k-token
/// vocabulary is about 20 MB).
const MAX_CONFIG_BYTES: u64 = 64 << 20;
/// The largest weights file read (a model of ~500M F32 parameters).
const MAX_WEIGHTS_BYTES: u64 = 2 << 30;
/// Bounds on the configuration: a file beyond them is refused before any tensor is
/// built (the small models this is for are far inside them).
const MAX_HIDDEN: usize = 4096;
const MAX_LAYERS: usize = 48;
const MAX_VOCABULARY: usize = 1 << 20;
const MAX_POSITIONS: usize = 8192;
/// The sequence length used when the folder does not give one.
const DEFAULT_MAX_TOKENS: usize = 256;

/// How token vectors become one text vector (sentence-transformers' `Pooling`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// The mean of every token's vector.
    Mean,
    /// The first token's (`[CLS]`) vector.
    Cls,
}

/// An in-process sentence embedder: a BERT model with its tokenizer and pooling.
pub struct TransformerEmbedder {
    model: BertModel,
    tokenizer: Tokenizer,
    pooling: Pooling,
    dimension: usize,
    max_tokens: usize,
    hash: u64,
    folder: PathBuf,
}

impl std::fmt::Debug for TransformerEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TransformerEmbedder")
            .field("folder", &self.folder)
            .field("dimension", &self.dimension)
            .field("max_tokens", &self.max_tokens)
            .field("pooling", &self.pooling)
            .field("hash", &format_args!("{:016x}", self.hash))
            .finish()
    }
}

/// `1_Pooling/config.json`, the fields read.
#[derive(Deserialize)]
struct PoolingConfig {
    #[serde(default)]
    word_embedding_dimension: Option<usize>,
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
}

/// `sentence_bert_config.json`, the field read.
#[derive(Deserialize)]
struct SentenceConfig {
    #[serde(default)]
    max_seq_length: Option<usize>,
}

impl TransformerEmbedder {
    /// Loads the model of a sentence-transformers folder and checks it by embedding
    /// one text. A missing folder or file, a configuration out of bounds, weights of
    /// the wrong names or shapes, a tokenizer that does not parse: [`Error::Model`].
    pub fn load(folder: impl AsRef<Path>) -> Result<Self> {
        let folder = folder.as_ref();
        if !folder.is_dir() {
            return Err(Error::model(folder, "not a directory"));
        }
        let config_bytes = read_bounded(&folder.join("config.json"), MAX_CONFIG_BYTES)?;
        let config: Config = serde_json::from_slice(&config_bytes)
            .map_err(|e| Error::model(folder.join("config.json"), e.to_string()))?;
        check_config(&config).map_err(|m| Error::model(folder.join("config.json"), m))?;
        let pooling = read_pooling(folder, config.hidden_size)?;
        let max_tokens = read_max_tokens(folder, config.max_position_embeddings)?;

        let tokenizer_path = folder.join("tokenizer.json");
        let tokenizer_bytes = read_bounded(&tokenizer_path, MAX_CONFIG_BYTES)?;
        let mut tokenizer = Tokenizer::from_bytes(&tokenizer_bytes)
            .map_err(|e| Error::model(&tokenizer_path, e.to_string()))?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: max_tokens,
                ..TruncationParams::default()
            }))
            .map_err(|e| Error::model(&tokenizer_path, e.to_string()))?;
        if tokenizer.get_vocab_size(true) > config.vocab_size {
            return Err(Error::model(
                &tokenizer_path,
                format!(
                    "its vocabulary ({} tokens) is larger than the model's ({})",
                    tokenizer.get_vocab_size(true),
                    config.vocab_size
                ),
            ));
        }

        let weights_path = folder.join("model.safetensors");
        let weights = read_bounded(&weights_path, MAX_WEIGHTS_BYTES)?;
        let int8 = quantized::is_quantized(&weights);
        if !int8 {
            check_finite(&weights).map_err(|m| Error::model(&weights_path, m))?;
        }
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        for part in [&config_bytes, &tokenizer_bytes, &weights] {
            hasher.update(&(part.len() as u64).to_le_bytes());
            hasher.update(part);
        }
        hasher.update(&(max_tokens as u64).to_le_bytes());
        hasher.update(&[u8::from(pooling == Pooling::Cls)]);
        let hash = hasher.digest();

        let model = if int8 {
            // Our int8 file: checked and turned back into float32 here.
            let tensors =
                quantized::dequantize(&weights).map_err(|m| Error::model(&weights_path, m))?;
            drop(weights);
            guard(&weights_path, || {
                BertModel::load(
                    VarBuilder::from_tensors(tensors, DType::F32, &Device::Cpu),
                    &config,
                )
            })?
        } else {
            guard(&weights_path, || {
                let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &Device::Cpu)?;
                BertModel::load(vb, &config)
            })?
        };
        let embedder = TransformerEmbedder {
            model,
            tokenizer,
            pooling,
            dimension: config.hidden_size,
            max_tokens,
            hash,
            folder: folder.to_path_buf(),
        };
        // A folder that loads is one that embeds.
        embedder
            .embed_one("deepdiscovery")
            .map_err(|e| Error::model(folder, format!("a first text does not embed: {e}")))?;
        Ok(embedder)
    }

    /// A hash of everything that shapes a vector (configuration, tokenizer, weights,
    /// sequence length, pooling): the key under which vectors are cached.
    pub fn model_hash(&self) -> u64 {
        self.hash
    }

    /// The most tokens of a text that are read (the rest is cut).
    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// The folder the model was read from.
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// One text's vector: tokens, the encoder, pooling, L2 normalization.
    fn embed_one(&self, text: &str) -> Result<Vec<f32>> {
        let encoding = self
            .tokenizer
            .encode(text, true)
            .map_err(|e| Error::plugin("transformer", e.to_string()))?;
        let ids = encoding.get_ids();
        if ids.is_empty() {
            return Ok(vec![0.0; self.dimension]);
        }
        let types = encoding.get_type_ids();
        let vector = guard(&self.folder, || {
            let device = Device::Cpu;
            let ids = Tensor::new(ids, &device)?.unsqueeze(0)?;
            let types = Tensor::new(types, &device)?.unsqueeze(0)?;
            let tokens = self.model.forward(&ids, &types, None)?.squeeze(0)?;
            let pooled = match self.pooling {
                Pooling::Mean => tokens.mean(0)?,
                Pooling::Cls => tokens.get(0)?,
            };
            pooled.to_vec1::<f32>()
        })?;
        if !vector.iter().all(|x| x.is_finite()) {
            return Err(Error::plugin(
                "transformer",
                "the model gave a vector that is not finite",
            ));
        }
        Ok(normalized(vector))
    }
}

impl Embedder for TransformerEmbedder {
    fn dimension(&self) -> usize {
        self.dimension
    }

    /// Embeds each text on its own (in parallel), so a vector never depends on the
    /// batch it came in.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        texts.par_iter().map(|t| self.embed_one(t)).collect()
    }

    fn model_hash(&self) -> Option<u64> {
        Some(self.hash)
    }
}

/// `v / |v|`, or `v` when it is zero or not finite.
fn normalized(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    if norm > 0.0 && norm.is_finite() {
        for x in &mut v {
            *x = (f64::from(*x) / norm) as f32;
        }
    }
    v
}

/// Runs candle code, turning its errors and any panic inside it into
/// [`Error::Model`] about `path`.
fn guard<T>(path: &Path, body: impl FnOnce() -> candle_core::Result<T>) -> Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(Error::model(path, e.to_string())),
        Err(_) => Err(Error::model(path, "the model panicked while running")),
    }
}

/// Reads a whole file of at most `max` bytes.
fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>> {
    let meta = std::fs::metadata(path).map_err(|e| Error::model(path, e.to_string()))?;
    if !meta.is_file() {
        return Err(Error::model(path, "not a file"));
    }
    if meta.len() > max {
        return Err(Error::model(
            path,
            format!("{} bytes, more than the {max} read", meta.len()),
        ));
    }
    std::fs::read(path).map_err(|e| Error::model(path, e.to_string()))
}

/// Refuses weights that do not parse as safetensors, or whose floating-point values are
/// not all finite (a NaN or an infinity in one weight makes every vector through it
/// NaN; found by the `model_folder` fuzz target).
fn check_finite(weights: &[u8]) -> std::result::Result<(), String> {
    let tensors = safetensors::SafeTensors::deserialize(weights).map_err(|e| e.to_string())?;
    for (name, view) in tensors.iter() {
        let data = view.data();
        let finite = match view.dtype() {
            safetensors::Dtype::F32 => data
                .chunks_exact(4)
                .all(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]).is_finite()),
            // Half floats: an exponent of all ones is an infinity or a NaN.
            safetensors::Dtype::F16 => data
                .chunks_exact(2)
                .all(|b| u16::from_le_bytes([b[0], b[1]]) & 0x7c00 != 0x7c00),
            safetensors::Dtype::BF16 => data
                .chunks_exact(2)
                .all(|b| u16::from_le_bytes([b[0], b[1]]) & 0x7f80 != 0x7f80),
            safetensors::Dtype::F64 => data.chunks_exact(8).all(|b| {
                f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]).is_finite()
            }),
            _ => true,
        };
        if !finite {
            return Err(format!("the weights of {name} are not all finite"));
        }
    }
    Ok(())
}

/// Refuses a configuration out of the bounds this reader allows.
fn check_config(c: &Config) -> std::result::Result<(), String> {
    let checks = [
        (
            c.hidden_size >= 1 && c.hidden_size <= MAX_HIDDEN,
            "hidden_size",
        ),
        (
            c.num_hidden_layers >= 1 && c.num_hidden_layers <= MAX_LAYERS,
            "num_hidden_layers",
        ),
        (
            c.num_attention_heads >= 1 && c.hidden_size.is_multiple_of(c.num_attention_heads),
            "num_attention_heads (must divide hidden_size)",
        ),
        (
            c.intermediate_size >= 1 && c.intermediate_size <= 8 * MAX_HIDDEN,
            "intermediate_size",
        ),
        (
            c.vocab_size >= 1 && c.vocab_size <= MAX_VOCABULARY,
            "vocab_size",
        ),
        (
            c.max_position_embeddings >= 2 && c.max_position_embeddings <= MAX_POSITIONS,
            "max_position_embeddings",
        ),
        (
            c.type_vocab_size >= 1 && c.type_vocab_size <= 16,
            "type_vocab_size",
        ),
        (
            c.layer_norm_eps.is_finite() && c.layer_norm_eps > 0.0,
            "layer_norm_eps",
        ),
    ];
    match checks.iter().find(|(ok, _)| !ok) {
        Some((_, field)) => Err(format!("{field} is out of bounds")),
        None => Ok(()),
    }
}

/// The pooling of `1_Pooling/config.json`; mean pooling when the file is absent.
fn read_pooling(folder: &Path, hidden: usize) -> Result<Pooling> {
    let path = folder.join("1_Pooling").join("config.json");
    if !path.exists() {
        return Ok(Pooling::Mean);
    }
    let bytes = read_bounded(&path, MAX_CONFIG_BYTES)?;
    let config: PoolingConfig =
        serde_json::from_slice(&bytes).map_err(|e| Error::model(&path, e.to_string()))?;
    if config.word_embedding_dimension.is_some_and(|d| d != hidden) {
        return Err(Error::model(
            &path,
            format!("its dimension is not the model's ({hidden})"),
        ));
    }
    match (
        config.pooling_mode_mean_tokens,
        config.pooling_mode_cls_token,
        config.pooling_mode_max_tokens,
    ) {
        (true, false, false) => Ok(Pooling::Mean),
        (false, true, false) => Ok(Pooling::Cls),
        _ => Err(Error::model(
            &path,
            "only mean or CLS pooling, one of them, is read",
        )),
    }
}

/// `max_seq_length` of `sentence_bert_config.json`, at most the model's positions.
fn read_max_tokens(folder: &Path, positions: usize) -> Result<usize> {
    let path = folder.join("sentence_bert_config.json");
    let wanted = if path.exists() {
        let bytes = read_bounded(&path, MAX_CONFIG_BYTES)?;
        let config: SentenceConfig =
            serde_json::from_slice(&bytes).map_err(|e| Error::model(&path, e.to_string()))?;
        config.max_seq_length.unwrap_or(DEFAULT_MAX_TOKENS)
    } else {
        DEFAULT_MAX_TOKENS
    };
    if wanted < 2 {
        return Err(Error::model(&path, "max_seq_length is below 2"));
    }
    Ok(wanted.min(positions))
}
