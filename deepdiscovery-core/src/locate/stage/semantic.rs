//! The semantic evidence of the best candidates (DESIGN, "Pretrained semantics";
//! issue 46, items 4 and 5): with an embedder (the in-process transformer, or a
//! caller's), the task and the candidates' definitions are embedded, and each file
//! gets its best definition's cosine, the mean of its three best and their name. They
//! are features of the learned scorer and an explanation; `sem` stays lexical, so no
//! score changes meaning because an embedder is present.
//!
//! What is embedded is bounded by counts, never time: the first [`SEMANTIC_FILES`]
//! candidates with facts, per file its [`PER_FILE`] definitions that hold the most
//! query weight, and at most [`MAX_TOKENS`] estimated tokens in all. The choice does
//! not depend on which vectors are cached, so a warm query answers as a cold one.

use super::*;
use crate::facts::DefKind;
use crate::plugins::Embedder;
use crate::semantic::{self, DefinitionText, FileSimilarity};

/// The session's name for the candidates' definition texts.
const SEMANTIC_TEXTS_PASS: &str = "semantic-texts";
/// How many of the candidates (best first by the first scores) are embedded.
const SEMANTIC_FILES: usize = 16;
/// Definitions embedded per file at most (its module text and the three that hold
/// the most query weight).
const PER_FILE: usize = 4;
/// Estimated tokens (a token per four bytes, at most [`TOKENS_PER_TEXT`] a text) of
/// all the definitions one query embeds. The transformer runs a 128-token text in
/// about 0.05 s on one core of the development machine (release build, candle 0.11),
/// so this bounds a cold query's embedding near 1 to 2 s on two cores; a warm query
/// embeds only the texts that changed.
const MAX_TOKENS: usize = 4_096;
/// A text's estimated tokens at most: the sequence length our model is tuned on
/// (`benches/train_embedder.py`); the model cuts longer texts.
const TOKENS_PER_TEXT: usize = 128;
/// A file's best definition is named in its evidence from this cosine up.
const EXPLAINED: f32 = 0.3;

/// What the embedder says of the candidates: per file (artifact index) its
/// similarity. `Err` with a note when the embedder failed or answered garbage.
pub(super) fn semantic_evidence(
    session: &Session,
    embedder: &dyn Embedder,
    reading: &Reading,
    files: &Files<'_>,
    narrowed: &Narrowed,
    described: &Described,
) -> std::result::Result<HashMap<usize, FileSimilarity>, String> {
    let chosen = choose_texts(session, reading, files, narrowed, described);
    if chosen.is_empty() {
        return Ok(HashMap::new());
    }
    let texts: Vec<&str> = chosen
        .iter()
        .flat_map(|(_, defs)| defs.iter().map(|d| d.text.as_str()))
        .collect();
    // Through the on-disk cache when the embedder names its model.
    let on_disk = match (embedder.model_hash(), session.disk_cache()) {
        (Some(model), Some(disk)) => Some(semantic::DiskVectors {
            inner: embedder,
            disk,
            model,
        }),
        _ => None,
    };
    let embedder: &dyn Embedder = match &on_disk {
        Some(cached) => cached,
        None => embedder,
    };
    let Some((task, vectors)) = session.embeddings().embed(embedder, &reading.text, &texts) else {
        return Err("the embedder failed or answered garbage: no semantic features".into());
    };
    let mut vectors = vectors.iter();
    let mut out = HashMap::new();
    for (i, defs) in &chosen {
        let named: Vec<(&str, &[f32])> = defs
            .iter()
            .zip(vectors.by_ref())
            .map(|(d, v)| (d.qualified.as_deref().unwrap_or(&d.name), v.as_slice()))
            .collect();
        if let Some(similarity) = semantic::file_similarity(&task, named) {
            out.insert(*i, similarity);
        }
    }
    Ok(out)
}

/// The explanation of a file's semantic match, when it is worth one.
pub(super) fn explain(similarity: &FileSimilarity) -> Option<Signal> {
    (similarity.best >= EXPLAINED).then(|| {
        Signal::remark(format!(
            "semantic match: `{}` ({:.2})",
            similarity.name, similarity.best
        ))
    })
}

/// The definitions to embed, per candidate (artifact index), in candidate order.
fn choose_texts(
    session: &Session,
    reading: &Reading,
    files: &Files<'_>,
    narrowed: &Narrowed,
    described: &Described,
) -> Vec<(usize, Vec<DefinitionText>)> {
    let position: HashMap<&str, usize> = narrowed
        .facts
        .iter()
        .enumerate()
        .map(|(k, (p, _))| (p.as_str(), k))
        .collect();
    let chosen: Vec<(usize, usize)> = narrowed
        .candidates
        .iter()
        .filter_map(|&i| Some((i, *position.get(files.paths[i])?)))
        .take(SEMANTIC_FILES)
        .collect();
    let paths: Vec<&str> = chosen.iter().map(|&(i, _)| files.paths[i]).collect();
    let facts: HashMap<&str, &crate::facts::Facts> = chosen
        .iter()
        .map(|&(i, k)| (files.paths[i], narrowed.facts[k].1.as_ref()))
        .collect();
    let scan = |path: &str, content: &Content<'_>| -> Arc<Vec<DefinitionText>> {
        let Some(f) = facts.get(path) else {
            return Arc::default();
        };
        let text = String::from_utf8_lossy(content.bytes());
        Arc::new(semantic::definition_texts(path, &text, f))
    };
    let texts = session.scan_files(SEMANTIC_TEXTS_PASS, 0, &paths, &scan);
    let mut budget = MAX_TOKENS;
    let mut out = Vec::new();
    for ((i, k), defs) in chosen.into_iter().zip(texts) {
        let picked = by_query_weight(&defs, described.documents.get(k), &reading.query);
        let mut kept = Vec::new();
        for d in picked.into_iter().take(PER_FILE) {
            let tokens = (d.text.len() / 4).clamp(1, TOKENS_PER_TEXT);
            if tokens > budget {
                break;
            }
            budget -= tokens;
            kept.push(d.clone());
        }
        if !kept.is_empty() {
            out.push((i, kept));
        }
        if budget == 0 {
            break;
        }
    }
    out
}

/// A file's texts to embed in order: its module text first (when it has one), then
/// its definitions, those holding the most query weight first (the file's order
/// among equals). Without documents that match the definitions one for one (a cached
/// entry of another build), the file's order.
fn by_query_weight<'a>(
    texts: &'a [DefinitionText],
    documents: Option<&Arc<Vec<definitions::DefinitionTerms>>>,
    query: &Query,
) -> Vec<&'a DefinitionText> {
    let module = texts.first().filter(|d| d.kind == DefKind::Module);
    let defs = &texts[usize::from(module.is_some())..];
    let mut order: Vec<(f32, &DefinitionText)> = match documents {
        Some(docs) if docs.len() == defs.len() => docs
            .iter()
            .zip(defs)
            .map(|(doc, d)| (definitions::query_weight(doc, query), d))
            .collect(),
        _ => defs.iter().map(|d| (0.0, d)).collect(),
    };
    order.sort_by(|a, b| b.0.total_cmp(&a.0));
    module
        .into_iter()
        .chain(order.into_iter().map(|(_, d)| d))
        .collect()
}
