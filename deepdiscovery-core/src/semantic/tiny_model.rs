//! A tiny sentence-transformers folder for the tests and the fuzz target of the
//! transformer reader (a model the tests make themselves: no weights are downloaded or
//! committed). Not a model to use.

use std::path::Path;

/// Words of the tiny vocabulary (after the special tokens).
const WORDS: &[&str] = &[
    "cache",
    "evict",
    "slow",
    "columns",
    "parse",
    "date",
    "##s",
    "##ing",
    "the",
    "when",
    "is",
    "deep",
    "discovery",
    "table",
    "many",
    "fix",
];
const HIDDEN: usize = 8;
const LAYERS: usize = 1;
const INTERMEDIATE: usize = 16;
const POSITIONS: usize = 32;

/// A deterministic pseudo-random value in [-0.5, 0.5) (xorshift).
fn values(seed: &mut u64, n: usize) -> Vec<f32> {
    (0..n)
        .map(|_| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            (*seed % 1000) as f32 / 1000.0 - 0.5
        })
        .collect()
}

/// The weights of a BERT with [`HIDDEN`], [`LAYERS`], two heads, named as
/// sentence-transformers writes them.
fn weights(vocab: usize) -> Vec<(String, Vec<usize>, Vec<f32>)> {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut out = Vec::new();
    let mut add = |name: String, shape: Vec<usize>, seed: &mut u64| {
        let n = shape.iter().product();
        let v = if name.ends_with("LayerNorm.weight") {
            vec![1.0; n]
        } else {
            values(seed, n)
        };
        out.push((name, shape, v));
    };
    add(
        "embeddings.word_embeddings.weight".into(),
        vec![vocab, HIDDEN],
        &mut seed,
    );
    add(
        "embeddings.position_embeddings.weight".into(),
        vec![POSITIONS, HIDDEN],
        &mut seed,
    );
    add(
        "embeddings.token_type_embeddings.weight".into(),
        vec![2, HIDDEN],
        &mut seed,
    );
    add(
        "embeddings.LayerNorm.weight".into(),
        vec![HIDDEN],
        &mut seed,
    );
    add("embeddings.LayerNorm.bias".into(), vec![HIDDEN], &mut seed);
    for l in 0..LAYERS {
        let p = format!("encoder.layer.{l}");
        for part in ["query", "key", "value"] {
            add(
                format!("{p}.attention.self.{part}.weight"),
                vec![HIDDEN, HIDDEN],
                &mut seed,
            );
            add(
                format!("{p}.attention.self.{part}.bias"),
                vec![HIDDEN],
                &mut seed,
            );
        }
        add(
            format!("{p}.attention.output.dense.weight"),
            vec![HIDDEN, HIDDEN],
            &mut seed,
        );
        add(
            format!("{p}.attention.output.dense.bias"),
            vec![HIDDEN],
            &mut seed,
        );
        add(
            format!("{p}.attention.output.LayerNorm.weight"),
            vec![HIDDEN],
            &mut seed,
        );
        add(
            format!("{p}.attention.output.LayerNorm.bias"),
            vec![HIDDEN],
            &mut seed,
        );
        add(
            format!("{p}.intermediate.dense.weight"),
            vec![INTERMEDIATE, HIDDEN],
            &mut seed,
        );
        add(
            format!("{p}.intermediate.dense.bias"),
            vec![INTERMEDIATE],
            &mut seed,
        );
        add(
            format!("{p}.output.dense.weight"),
            vec![HIDDEN, INTERMEDIATE],
            &mut seed,
        );
        add(format!("{p}.output.dense.bias"), vec![HIDDEN], &mut seed);
        add(
            format!("{p}.output.LayerNorm.weight"),
            vec![HIDDEN],
            &mut seed,
        );
        add(
            format!("{p}.output.LayerNorm.bias"),
            vec![HIDDEN],
            &mut seed,
        );
    }
    out
}

/// Writes a tiny sentence-transformers folder (a one-layer BERT of hidden size 8 with
/// pseudo-random weights of a fixed seed, a WordPiece tokenizer of 20 tokens, mean
/// pooling, 24 tokens a text) to `dir`: for tests and fuzzing of the reader, never a
/// model to use.
#[doc(hidden)]
pub fn write_tiny_model(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join("1_Pooling"))?;
    let mut vocab = serde_json::Map::new();
    for (k, w) in ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
        .iter()
        .chain(WORDS)
        .enumerate()
    {
        vocab.insert(w.to_string(), serde_json::json!(k));
    }
    let n = vocab.len();
    let config = serde_json::json!({
        "architectures": ["BertModel"], "model_type": "bert", "hidden_act": "gelu",
        "vocab_size": n, "hidden_size": HIDDEN, "num_hidden_layers": LAYERS,
        "num_attention_heads": 2, "intermediate_size": INTERMEDIATE,
        "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
        "max_position_embeddings": POSITIONS, "type_vocab_size": 2,
        "initializer_range": 0.02, "layer_norm_eps": 1e-12, "pad_token_id": 0,
    });
    std::fs::write(dir.join("config.json"), config.to_string())?;
    let special = |t: &str, id: usize| serde_json::json!({"id": t, "ids": [id], "tokens": [t]});
    let tokenizer = serde_json::json!({
        "version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
        "normalizer": {"type": "BertNormalizer", "clean_text": true,
            "handle_chinese_chars": true, "strip_accents": null, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {"[CLS]": special("[CLS]", 2), "[SEP]": special("[SEP]", 3)}},
        "decoder": null,
        "model": {"type": "WordPiece", "unk_token": "[UNK]",
            "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
            "vocab": vocab},
    });
    std::fs::write(dir.join("tokenizer.json"), tokenizer.to_string())?;
    std::fs::write(
        dir.join("1_Pooling/config.json"),
        serde_json::json!({"word_embedding_dimension": HIDDEN, "pooling_mode_mean_tokens": true})
            .to_string(),
    )?;
    std::fs::write(
        dir.join("sentence_bert_config.json"),
        serde_json::json!({"max_seq_length": 24}).to_string(),
    )?;
    let tensors = weights(n);
    let bytes: Vec<Vec<u8>> = tensors
        .iter()
        .map(|(_, _, v)| v.iter().flat_map(|x| x.to_le_bytes()).collect())
        .collect();
    let views: Vec<(String, safetensors::tensor::TensorView<'_>)> = tensors
        .iter()
        .zip(&bytes)
        .map(|((name, shape, _), b)| {
            safetensors::tensor::TensorView::new(safetensors::Dtype::F32, shape.clone(), b)
                .map(|view| (name.clone(), view))
                .map_err(std::io::Error::other)
        })
        .collect::<std::io::Result<_>>()?;
    safetensors::serialize_to_file(views, None, &dir.join("model.safetensors"))
        .map_err(std::io::Error::other)
}

/// Writes the same tiny folder with its weights in our int8 format
/// ([`super::quantized`]), as the built-in model ships.
#[doc(hidden)]
pub fn write_tiny_int8_model(dir: &Path) -> std::io::Result<()> {
    write_tiny_model(dir)?;
    let path = dir.join("model.safetensors");
    let int8 = super::quantized::quantize(&std::fs::read(&path)?).map_err(std::io::Error::other)?;
    std::fs::write(path, int8)
}
