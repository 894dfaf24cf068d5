//! The in-process embedder (`semantic::transformer`) on a tiny BERT this test writes
//! itself: a folder that loads embeds, deterministically and whatever the batch; every
//! broken folder is a clear `Error::Model`, never a panic.

#![cfg(feature = "transformer")]

use std::path::Path;

use deepdiscovery_core::Error;
use deepdiscovery_core::plugins::Embedder;
use deepdiscovery_core::semantic::TransformerEmbedder;
use serde_json::json;

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

/// Writes a tiny sentence-transformers folder (WordPiece tokenizer, BERT weights, mean
/// pooling) to `dir`.
pub fn write_tiny_model(dir: &Path) {
    std::fs::create_dir_all(dir.join("1_Pooling")).unwrap();
    let mut vocab = serde_json::Map::new();
    for (k, w) in ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
        .iter()
        .chain(WORDS)
        .enumerate()
    {
        vocab.insert(w.to_string(), json!(k));
    }
    let n = vocab.len();
    let config = json!({
        "architectures": ["BertModel"], "model_type": "bert", "hidden_act": "gelu",
        "vocab_size": n, "hidden_size": HIDDEN, "num_hidden_layers": LAYERS,
        "num_attention_heads": 2, "intermediate_size": INTERMEDIATE,
        "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
        "max_position_embeddings": POSITIONS, "type_vocab_size": 2,
        "initializer_range": 0.02, "layer_norm_eps": 1e-12, "pad_token_id": 0,
    });
    std::fs::write(dir.join("config.json"), config.to_string()).unwrap();
    let special = |t: &str, id: usize| json!({"id": t, "ids": [id], "tokens": [t]});
    let tokenizer = json!({
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
    std::fs::write(dir.join("tokenizer.json"), tokenizer.to_string()).unwrap();
    std::fs::write(
        dir.join("1_Pooling/config.json"),
        json!({"word_embedding_dimension": HIDDEN, "pooling_mode_mean_tokens": true}).to_string(),
    )
    .unwrap();
    std::fs::write(
        dir.join("sentence_bert_config.json"),
        json!({"max_seq_length": 24}).to_string(),
    )
    .unwrap();
    let tensors = weights(n);
    let bytes: Vec<Vec<u8>> = tensors
        .iter()
        .map(|(_, _, v)| v.iter().flat_map(|x| x.to_le_bytes()).collect())
        .collect();
    let views: Vec<(String, safetensors::tensor::TensorView<'_>)> = tensors
        .iter()
        .zip(&bytes)
        .map(|((name, shape, _), b)| {
            let view =
                safetensors::tensor::TensorView::new(safetensors::Dtype::F32, shape.clone(), b)
                    .unwrap();
            (name.clone(), view)
        })
        .collect();
    safetensors::serialize_to_file(views, None, &dir.join("model.safetensors")).unwrap();
}

fn tiny() -> (tempfile::TempDir, TransformerEmbedder) {
    let dir = tempfile::tempdir().unwrap();
    write_tiny_model(dir.path());
    let model = TransformerEmbedder::load(dir.path()).unwrap();
    (dir, model)
}

fn refused(dir: &Path) -> String {
    match TransformerEmbedder::load(dir) {
        Err(e @ Error::Model { .. }) => e.to_string(),
        other => panic!("expected a model error, got {other:?}"),
    }
}

#[test]
fn a_tiny_model_embeds_unit_vectors_of_its_dimension() {
    let (_dir, model) = tiny();
    assert_eq!(model.dimension(), HIDDEN);
    let vectors = model
        .embed(&["the cache is slow", "parse dates", "", "zzz unknown words"])
        .unwrap();
    assert_eq!(vectors.len(), 4);
    for v in &vectors {
        assert_eq!(v.len(), HIDDEN);
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
    }
    assert_ne!(vectors[0], vectors[1], "different texts, different vectors");
}

#[test]
fn a_vector_does_not_depend_on_its_batch_and_repeats_exactly() {
    let (_dir, model) = tiny();
    let alone = model.embed(&["evict the cache when slow"]).unwrap();
    let batched = model
        .embed(&["many columns", "evict the cache when slow", "fix"])
        .unwrap();
    assert_eq!(alone[0], batched[1]);
    assert_eq!(alone, model.embed(&["evict the cache when slow"]).unwrap());
}

#[test]
fn text_past_the_sequence_length_is_cut_not_refused() {
    let (_dir, model) = tiny();
    let long = "cache ".repeat(500);
    let cut = "cache ".repeat(40);
    let v = model.embed(&[&long, &cut]).unwrap();
    assert_eq!(v[0], v[1], "both are cut to 24 tokens");
}

#[test]
fn the_model_hash_follows_the_weights() {
    let (dir, model) = tiny();
    let again = TransformerEmbedder::load(dir.path()).unwrap();
    assert_eq!(model.model_hash(), again.model_hash());
    let mut config: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir.path().join("sentence_bert_config.json")).unwrap(),
    )
    .unwrap();
    config["max_seq_length"] = json!(16);
    std::fs::write(
        dir.path().join("sentence_bert_config.json"),
        config.to_string(),
    )
    .unwrap();
    let shorter = TransformerEmbedder::load(dir.path()).unwrap();
    assert_ne!(model.model_hash(), shorter.model_hash());
}

#[test]
fn a_missing_folder_or_file_is_a_model_error() {
    let dir = tempfile::tempdir().unwrap();
    assert!(refused(&dir.path().join("nowhere")).contains("not a directory"));
    write_tiny_model(dir.path());
    for file in ["config.json", "tokenizer.json", "model.safetensors"] {
        let copy = tempfile::tempdir().unwrap();
        write_tiny_model(copy.path());
        std::fs::remove_file(copy.path().join(file)).unwrap();
        let message = refused(copy.path());
        assert!(message.contains(file), "{message}");
    }
}

#[test]
fn truncated_or_flipped_weights_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_tiny_model(dir.path());
    let weights = std::fs::read(dir.path().join("model.safetensors")).unwrap();
    for cut in [0, 4, 8, 64, weights.len() / 2, weights.len() - 1] {
        std::fs::write(dir.path().join("model.safetensors"), &weights[..cut]).unwrap();
        refused(dir.path());
    }
    // The header's length, its JSON, and a byte of it flipped.
    for at in [0, 3, 7, 8, 9, 20] {
        let mut bad = weights.clone();
        bad[at] ^= 0x5a;
        std::fs::write(dir.path().join("model.safetensors"), &bad).unwrap();
        // Either refused, or (a flipped weight value) still a working model.
        if let Ok(model) = TransformerEmbedder::load(dir.path()) {
            assert_eq!(model.embed(&["cache"]).unwrap()[0].len(), HIDDEN);
        }
    }
}

#[test]
fn a_configuration_out_of_bounds_or_of_another_shape_is_refused() {
    let cases = [
        ("hidden_size", json!(1_000_000)),
        ("num_hidden_layers", json!(0)),
        ("num_attention_heads", json!(3)),
        ("vocab_size", json!(4)),
        ("max_position_embeddings", json!(1 << 30)),
        ("hidden_size", json!(16)),
        ("hidden_act", json!("swish-ish")),
    ];
    for (field, value) in cases {
        let dir = tempfile::tempdir().unwrap();
        write_tiny_model(dir.path());
        let path = dir.path().join("config.json");
        let mut config: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        config[field] = value.clone();
        std::fs::write(&path, config.to_string()).unwrap();
        let message = refused(dir.path());
        assert!(!message.is_empty(), "{field} = {value}");
    }
}

#[test]
fn malformed_side_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_tiny_model(dir.path());
    std::fs::write(dir.path().join("tokenizer.json"), "{ not json").unwrap();
    assert!(refused(dir.path()).contains("tokenizer.json"));

    write_tiny_model(dir.path());
    std::fs::write(
        dir.path().join("1_Pooling/config.json"),
        json!({"word_embedding_dimension": 99, "pooling_mode_mean_tokens": true}).to_string(),
    )
    .unwrap();
    assert!(refused(dir.path()).contains("dimension"));

    write_tiny_model(dir.path());
    std::fs::write(
        dir.path().join("1_Pooling/config.json"),
        json!({"pooling_mode_max_tokens": true}).to_string(),
    )
    .unwrap();
    assert!(refused(dir.path()).contains("pooling"));

    write_tiny_model(dir.path());
    std::fs::write(dir.path().join("config.json"), [0xff, 0xfe, 0x00]).unwrap();
    assert!(refused(dir.path()).contains("config.json"));
}
