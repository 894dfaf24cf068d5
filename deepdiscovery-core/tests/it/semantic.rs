//! The in-process embedder (`semantic::transformer`) on a tiny BERT this test writes
//! itself: a folder that loads embeds, deterministically and whatever the batch; every
//! broken folder is a clear `Error::Model`, never a panic.

#![cfg(feature = "transformer")]

use std::path::Path;

use deepdiscovery_core::Error;
use deepdiscovery_core::plugins::Embedder;
use deepdiscovery_core::semantic::tiny_model::{write_tiny_int8_model, write_tiny_model};
use deepdiscovery_core::semantic::{self, TransformerEmbedder, quantized};
use serde_json::json;

/// The tiny model's dimension.
const HIDDEN: usize = 8;

fn tiny() -> (tempfile::TempDir, TransformerEmbedder) {
    let dir = tempfile::tempdir().unwrap();
    write_tiny_model(dir.path()).unwrap();
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
    write_tiny_model(dir.path()).unwrap();
    for file in ["config.json", "tokenizer.json", "model.safetensors"] {
        let copy = tempfile::tempdir().unwrap();
        write_tiny_model(copy.path()).unwrap();
        std::fs::remove_file(copy.path().join(file)).unwrap();
        let message = refused(copy.path());
        assert!(message.contains(file), "{message}");
    }
}

#[test]
fn truncated_or_flipped_weights_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_tiny_model(dir.path()).unwrap();
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
        write_tiny_model(dir.path()).unwrap();
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
    write_tiny_model(dir.path()).unwrap();
    std::fs::write(dir.path().join("tokenizer.json"), "{ not json").unwrap();
    assert!(refused(dir.path()).contains("tokenizer.json"));

    write_tiny_model(dir.path()).unwrap();
    std::fs::write(
        dir.path().join("1_Pooling/config.json"),
        json!({"word_embedding_dimension": 99, "pooling_mode_mean_tokens": true}).to_string(),
    )
    .unwrap();
    assert!(refused(dir.path()).contains("dimension"));

    write_tiny_model(dir.path()).unwrap();
    std::fs::write(
        dir.path().join("1_Pooling/config.json"),
        json!({"pooling_mode_max_tokens": true}).to_string(),
    )
    .unwrap();
    assert!(refused(dir.path()).contains("pooling"));

    write_tiny_model(dir.path()).unwrap();
    std::fs::write(dir.path().join("config.json"), [0xff, 0xfe, 0x00]).unwrap();
    assert!(refused(dir.path()).contains("config.json"));
}

#[test]
fn a_weight_that_is_not_finite_is_refused() {
    // Found by the model_folder fuzz target: one byte of a weight turned its value into
    // a NaN, and every vector came out NaN.
    let dir = tempfile::tempdir().unwrap();
    write_tiny_model(dir.path()).unwrap();
    let path = dir.path().join("model.safetensors");
    let sound = std::fs::read(&path).unwrap();
    let header = u64::from_le_bytes(sound[..8].try_into().unwrap()) as usize;
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let mut weights = sound.clone();
        let at = 8 + header + 4 * 40; // a value of the word embeddings
        weights[at..at + 4].copy_from_slice(&bad.to_le_bytes());
        std::fs::write(&path, &weights).unwrap();
        let message = refused(dir.path());
        assert!(message.contains("not all finite"), "{message}");
    }
}

/// The tiny model in our int8 format, with its float twin.
fn tiny_pair() -> (tempfile::TempDir, TransformerEmbedder, TransformerEmbedder) {
    let dir = tempfile::tempdir().unwrap();
    write_tiny_model(&dir.path().join("f32")).unwrap();
    write_tiny_int8_model(&dir.path().join("int8")).unwrap();
    let float = TransformerEmbedder::load(dir.path().join("f32")).unwrap();
    let int8 = TransformerEmbedder::load(dir.path().join("int8")).unwrap();
    (dir, float, int8)
}

#[test]
fn int8_weights_embed_as_their_float_twin_does() {
    let (dir, float, int8) = tiny_pair();
    let f32_bytes = std::fs::metadata(dir.path().join("f32/model.safetensors"))
        .unwrap()
        .len();
    let int8_bytes = std::fs::metadata(dir.path().join("int8/model.safetensors"))
        .unwrap()
        .len();
    assert!(
        int8_bytes < f32_bytes,
        "{int8_bytes} bytes against {f32_bytes}"
    );
    assert_ne!(float.model_hash(), int8.model_hash());
    let texts = [
        "the cache is slow",
        "parse many dates",
        "deep discovery table",
    ];
    let a = float.embed(&texts).unwrap();
    let b = int8.embed(&texts).unwrap();
    for (x, y) in a.iter().zip(&b) {
        assert_ne!(x, y, "the weights were rounded");
        let cos: f32 = x.iter().zip(y).map(|(p, q)| p * q).sum();
        assert!(
            cos > 0.99,
            "cosine {cos} between the float and int8 vectors"
        );
    }
}

/// Rewrites the int8 model's weights with `edit` and returns the load error.
fn edited_int8(edit: impl FnOnce(&mut Vec<u8>)) -> String {
    let dir = tempfile::tempdir().unwrap();
    write_tiny_int8_model(dir.path()).unwrap();
    let path = dir.path().join("model.safetensors");
    let mut weights = std::fs::read(&path).unwrap();
    edit(&mut weights);
    std::fs::write(&path, &weights).unwrap();
    refused(dir.path())
}

/// The header of a safetensors file (its JSON) and where the data starts.
fn header(weights: &[u8]) -> (serde_json::Value, usize) {
    let n = u64::from_le_bytes(weights[..8].try_into().unwrap()) as usize;
    (serde_json::from_slice(&weights[8..8 + n]).unwrap(), 8 + n)
}

/// The weights with their header replaced (the same data after it).
fn with_header(weights: &[u8], header: &serde_json::Value) -> Vec<u8> {
    let (_, data) = self::header(weights);
    let mut text = header.to_string().into_bytes();
    while !text.len().is_multiple_of(8) {
        text.push(b' ');
    }
    let mut out = (text.len() as u64).to_le_bytes().to_vec();
    out.extend(text);
    out.extend(&weights[data..]);
    out
}

#[test]
fn an_altered_int8_file_is_refused_by_its_checksum() {
    let message = edited_int8(|w| {
        let (_, data) = header(w);
        w[data + 100] ^= 0x01;
    });
    assert!(message.contains("checksum"), "{message}");
}

#[test]
fn a_truncated_int8_file_is_refused() {
    let message = edited_int8(|w| w.truncate(w.len() - 3));
    assert!(message.contains("model.safetensors"), "{message}");
}

#[test]
fn another_version_of_the_int8_format_is_refused() {
    let message = edited_int8(|w| {
        let (mut h, _) = header(w);
        h["__metadata__"]["version"] = json!("2");
        *w = with_header(w, &h);
    });
    assert!(message.contains("version \"2\""), "{message}");
}

#[test]
fn an_int8_matrix_without_its_scale_is_refused() {
    let message = edited_int8(|w| {
        let (mut h, _) = header(w);
        let scale = "embeddings.word_embeddings.weight.scale";
        // Rename the scale (its bytes stay), and sign the file again so only the
        // pairing is wrong.
        let entry = h[scale].clone();
        h.as_object_mut().unwrap().remove(scale);
        h["embeddings.word_embeddings.weight.scales"] = entry;
        let renamed = with_header(w, &h);
        let tensors = safetensors::SafeTensors::deserialize(&renamed).unwrap();
        h["__metadata__"]["checksum"] = json!(quantized::checksum(&tensors));
        *w = with_header(w, &h);
    });
    assert!(
        message.contains("without embeddings.word_embeddings.weight.scale"),
        "{message}"
    );
}

#[test]
fn a_scale_that_is_not_finite_is_refused() {
    let message = edited_int8(|w| {
        let (h, data) = header(w);
        let at = data
            + h["embeddings.word_embeddings.weight.scale"]["data_offsets"][0]
                .as_u64()
                .unwrap() as usize;
        w[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
        let tensors = safetensors::SafeTensors::deserialize(w).unwrap();
        let mut h = h;
        h["__metadata__"]["checksum"] = json!(quantized::checksum(&tensors));
        *w = with_header(w, &h);
    });
    assert!(
        message.contains("scales of embeddings.word_embeddings.weight are not all finite"),
        "{message}"
    );
}

#[test]
fn the_builtin_name_reads_the_folder_the_environment_gives() {
    // Only this test sets the variable, and it names a folder that is not a model, so
    // no other test can pick it up and pass by it.
    let dir = tempfile::tempdir().unwrap();
    // SAFETY: no other test reads or writes this variable.
    unsafe { std::env::set_var(semantic::BUILTIN_MODEL_ENV, dir.path().join("nowhere")) };
    let loaded = semantic::load_embedder(semantic::BUILTIN_MODEL);
    unsafe { std::env::remove_var(semantic::BUILTIN_MODEL_ENV) };
    match loaded {
        Err(e @ Error::Model { .. }) => assert!(e.to_string().contains("nowhere"), "{e}"),
        Err(e) => panic!("expected a model error about the folder, got {e}"),
        Ok(_) => panic!("a folder that does not exist loaded"),
    }
}
