//! The in-process embedder's reader (`semantic::TransformerEmbedder::load`): a model
//! folder is whatever a user points `embedder_model` at. Each run starts from the tiny
//! model of `semantic::tiny_model`; the first byte chooses what the rest of the input
//! becomes: one of its files whole (config, tokenizer, weights, pooling, sentence
//! config), bytes of its weights overwritten at input-chosen places, a text to embed
//! with the sound model, or the same for the int8 weights we ship
//! (`semantic::quantized`): the file whole, or bytes overwritten and the file signed
//! again (its checksum recomputed, so the reader's other checks are reached). Loading may fail (with `Error::Model`, never a panic);
//! a folder that loads embeds any text into a finite vector of its dimension, or says
//! it cannot (an error), and the sound model embeds every text.
#![no_main]

use std::sync::OnceLock;

use deepdiscovery_core::Error;
use deepdiscovery_core::plugins::Embedder;
use deepdiscovery_core::semantic::tiny_model::{write_tiny_int8_model, write_tiny_model};
use deepdiscovery_core::semantic::{TransformerEmbedder, quantized};
use libfuzzer_sys::fuzz_target;

const FILES: [&str; 5] = [
    "config.json",
    "tokenizer.json",
    "model.safetensors",
    "1_Pooling/config.json",
    "sentence_bert_config.json",
];

/// The sound tiny model's files, read once.
fn sound() -> &'static Vec<(String, Vec<u8>)> {
    static FILES_READ: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    FILES_READ.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        write_tiny_model(dir.path()).expect("the tiny model writes");
        FILES
            .iter()
            .map(|f| {
                (
                    f.to_string(),
                    std::fs::read(dir.path().join(f)).expect("read"),
                )
            })
            .collect()
    })
}

/// The sound tiny model's int8 weights, read once.
fn sound_int8() -> &'static Vec<u8> {
    static WEIGHTS: OnceLock<Vec<u8>> = OnceLock::new();
    WEIGHTS.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        write_tiny_int8_model(dir.path()).expect("the tiny int8 model writes");
        std::fs::read(dir.path().join("model.safetensors")).expect("read")
    })
}

/// Pairs of (offset, byte) of `edits` overwrite `bytes`.
fn overwrite(bytes: &mut [u8], edits: &[u8]) {
    for pair in edits.chunks_exact(3) {
        let at = usize::from(u16::from_le_bytes([pair[0], pair[1]])) % bytes.len();
        bytes[at] = pair[2];
    }
}

/// The weights with the checksum of their metadata recomputed (as they are when they
/// still parse), so that a run reaches the checks after it.
fn signed_again(weights: Vec<u8>) -> Vec<u8> {
    let Ok(tensors) = safetensors::SafeTensors::deserialize(&weights) else {
        return weights;
    };
    let sum = quantized::checksum(&tensors);
    let n = u64::from_le_bytes(weights[..8].try_into().expect("8 bytes")) as usize;
    let Ok(mut header) = serde_json::from_slice::<serde_json::Value>(&weights[8..8 + n]) else {
        return weights;
    };
    let Some(meta) = header
        .get_mut("__metadata__")
        .and_then(serde_json::Value::as_object_mut)
    else {
        return weights;
    };
    meta.insert("checksum".into(), serde_json::Value::String(sum));
    let mut text = header.to_string().into_bytes();
    while !text.len().is_multiple_of(8) {
        text.push(b' ');
    }
    let mut out = (text.len() as u64).to_le_bytes().to_vec();
    out.extend(text);
    out.extend(&weights[8 + n..]);
    out
}

/// A loaded model answers every text with a finite vector of its dimension, or with
/// an error (finite weights can still overflow on some text); never a NaN.
fn check(model: &TransformerEmbedder, text: &str) {
    let Ok(vectors) = model.embed(&[text, "cache"]) else {
        return;
    };
    assert_eq!(vectors.len(), 2);
    for v in vectors {
        assert_eq!(v.len(), model.dimension());
        assert!(v.iter().all(|x| x.is_finite()), "{v:?}");
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::create_dir_all(dir.path().join("1_Pooling")).expect("mkdir");
    let mut files = sound().clone();
    let mode = mode % 9;
    match mode {
        0..=4 => files[mode as usize].1 = rest.to_vec(),
        5 => overwrite(&mut files[2].1, rest),
        7 => files[2].1 = rest.to_vec(),
        8 => {
            let mut weights = sound_int8().clone();
            overwrite(&mut weights, rest);
            files[2].1 = signed_again(weights);
        }
        _ => {}
    }
    for (name, bytes) in &files {
        std::fs::write(dir.path().join(name), bytes).expect("write");
    }
    match TransformerEmbedder::load(dir.path()) {
        Ok(model) => {
            let text = if mode == 6 {
                String::from_utf8_lossy(rest).into_owned()
            } else {
                "the cache is slow".to_string()
            };
            if mode == 6 {
                let v = model
                    .embed(&[&text])
                    .expect("the sound model embeds any text");
                assert!(v[0].iter().all(|x| x.is_finite()));
            }
            check(&model, &text);
        }
        Err(Error::Model { .. }) => assert!(mode != 6, "the sound model must load"),
        Err(other) => panic!("not a model error: {other}"),
    }
});
