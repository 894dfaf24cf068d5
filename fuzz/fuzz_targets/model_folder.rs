//! The in-process embedder's reader (`semantic::TransformerEmbedder::load`): a model
//! folder is whatever a user points `embedder_model` at. Each run starts from the tiny
//! model of `semantic::tiny_model`; the first byte chooses what the rest of the input
//! becomes: one of its files whole (config, tokenizer, weights, pooling, sentence
//! config), bytes of its weights overwritten at input-chosen places, or a text to
//! embed with the sound model. Loading may fail (with `Error::Model`, never a panic);
//! a folder that loads embeds any text into a finite vector of its dimension, or says
//! it cannot (an error), and the sound model embeds every text.
#![no_main]

use std::sync::OnceLock;

use deepdiscovery_core::Error;
use deepdiscovery_core::plugins::Embedder;
use deepdiscovery_core::semantic::TransformerEmbedder;
use deepdiscovery_core::semantic::tiny_model::write_tiny_model;
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
            .map(|f| (f.to_string(), std::fs::read(dir.path().join(f)).expect("read")))
            .collect()
    })
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
    let mode = mode % 7;
    match mode {
        0..=4 => files[mode as usize].1 = rest.to_vec(),
        5 => {
            // Pairs of (offset, byte) overwrite the weights.
            let weights = &mut files[2].1;
            for pair in rest.chunks_exact(3) {
                let at = usize::from(u16::from_le_bytes([pair[0], pair[1]])) % weights.len();
                weights[at] = pair[2];
            }
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
                let v = model.embed(&[&text]).expect("the sound model embeds any text");
                assert!(v[0].iter().all(|x| x.is_finite()));
            }
            check(&model, &text);
        }
        Err(Error::Model { .. }) => assert!(mode != 6, "the sound model must load"),
        Err(other) => panic!("not a model error: {other}"),
    }
});
