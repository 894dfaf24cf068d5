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
use crate::model_bytes::Reader;
use crate::plugins::Embedder;
use crate::semantic::{self, DefinitionText, FileSimilarity, StaticTable};

/// The session's name for the candidates' definition texts (for an embedder).
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

/// The session's name for the candidates' definitions' vectors by the static table.
const TABLE_VECTORS_PASS: &str = "table-vectors";
/// The on-disk cache's kind of a file's static-table vectors.
const TABLE_VECTORS: &str = "table-vectors";
/// A file's stored vectors may be this many times its size (plus 4 KiB): 256 bytes a
/// definition outgrow a file of short ones, and a second process must not read the
/// file again for them.
const TABLE_ENTRY_RATIO: u64 = 4;
/// The definitions of a file the static table embeds at most (its module text first,
/// then the file's order): a file's vectors do not depend on the query, so the
/// session keeps them.
const TABLE_PER_FILE: usize = 256;
/// The static table names a file's best definition in its evidence from this cosine
/// up, when the file is among the [`TABLE_EXPLAINED_RANK`] best by it.
const TABLE_EXPLAINED: f32 = 0.5;
/// See [`TABLE_EXPLAINED`].
const TABLE_EXPLAINED_RANK: usize = 3;

/// One definition as the static table embeds it.
struct TableDefinition {
    /// Its qualified name (its name where there is none).
    qualified: Box<str>,
    /// Its name and last line: what ties it to the facts' definition.
    name: Box<str>,
    end: u32,
    /// Its unit vector, in int8 (×127).
    vector: Vec<i8>,
}

/// One file's definitions as the static table embeds them.
type TableVectors = Arc<Vec<TableDefinition>>;

/// What the static table says of the candidates: per file its similarity, and each
/// of its definitions' cosine with the task.
pub(super) type TableEvidence = (
    HashMap<usize, FileSimilarity>,
    HashMap<usize, Vec<semantic::DefinitionCosine>>,
);

/// What the static table (issue 47) says of every candidate with facts: its best
/// definition's cosine with the task, the mean of its three best, their name. Empty
/// when the table is missing or the task has no token it knows.
fn table_evidence(
    session: &Session,
    reading: &Reading,
    files: &Files<'_>,
    narrowed: &Narrowed,
) -> TableEvidence {
    let Some(embedder) = StaticTable::builtin_embedder() else {
        return Default::default();
    };
    let Some(task) = embedder.embed(&reading.text) else {
        return Default::default();
    };
    let paths: Vec<&str> = narrowed.facts.iter().map(|(p, _)| p.as_str()).collect();
    let facts: HashMap<&str, &crate::facts::Facts> = narrowed
        .facts
        .iter()
        .map(|(p, f)| (p.as_str(), f.as_ref()))
        .collect();
    let hash = embedder.table_hash();
    let scan = |path: &str, content: &Content<'_>| -> TableVectors {
        let Some(f) = facts.get(path) else {
            return Arc::default();
        };
        let compute = |bytes: &[u8]| -> Vec<TableDefinition> {
            let text = String::from_utf8_lossy(bytes);
            let texts = semantic::definition_texts(path, &text, f);
            texts
                .iter()
                .take(TABLE_PER_FILE)
                .filter_map(|d| {
                    let v = embedder.embed(&d.text)?;
                    Some(TableDefinition {
                        qualified: d.qualified.as_deref().unwrap_or(&d.name).into(),
                        name: d.name.as_str().into(),
                        end: d.span.end,
                        vector: unit_i8(&v),
                    })
                })
                .collect()
        };
        // In the on-disk cache by content, marked with the table's hash: an entry of
        // another table, or one that does not decode, is computed again.
        let stored = session.disk_cache().and_then(|_| {
            let at_most = content.size.saturating_mul(TABLE_ENTRY_RATIO) + 4096;
            session.through_disk_within(TABLE_VECTORS, content, at_most, |bytes| {
                encode_vectors(hash, &compute(bytes))
            })
        });
        Arc::new(
            stored
                .and_then(|bytes| decode_vectors(hash, &bytes))
                .unwrap_or_else(|| compute(content.bytes())),
        )
    };
    let vectors = session.scan_files(TABLE_VECTORS_PASS, embedder.table_hash(), &paths, &scan);
    let task = unit_i8(&task);
    let task: Vec<f32> = task.iter().map(|&v| f32::from(v)).collect();
    let (mut by_file, mut by_definition) = (HashMap::new(), HashMap::new());
    for (path, defs) in paths.iter().zip(vectors) {
        let Some(i) = files.by_path.index_of(path) else {
            continue;
        };
        let as_f32: Vec<Vec<f32>> = defs
            .iter()
            .map(|d| d.vector.iter().map(|&x| f32::from(x)).collect())
            .collect();
        let named = defs
            .iter()
            .zip(&as_f32)
            .map(|(d, v)| (&*d.qualified, v.as_slice()));
        if let Some(similarity) = semantic::file_similarity(&task, named) {
            by_file.insert(i, similarity);
        }
        let cosines = defs
            .iter()
            .zip(&as_f32)
            .map(|(d, v)| semantic::DefinitionCosine {
                name: d.name.clone(),
                end: d.end,
                cosine: semantic::on_grid(semantic::cosine(&task, v)),
            })
            .collect();
        by_definition.insert(i, cosines);
    }
    (by_file, by_definition)
}

/// A file's table vectors as stored: the table's hash, then per definition its
/// qualified name, name (each a u16 length and bytes), last line (u32) and vector (a
/// u16 length and bytes), little-endian.
fn encode_vectors(hash: u64, defs: &[TableDefinition]) -> Vec<u8> {
    let mut out = hash.to_le_bytes().to_vec();
    for d in defs {
        for text in [&*d.qualified, &*d.name] {
            let bytes = &text.as_bytes()[..text.len().min(usize::from(u16::MAX))];
            out.extend((bytes.len() as u16).to_le_bytes());
            out.extend(bytes);
        }
        out.extend(d.end.to_le_bytes());
        let len = d.vector.len().min(usize::from(u16::MAX));
        out.extend((len as u16).to_le_bytes());
        out.extend(d.vector[..len].iter().map(|&v| v as u8));
    }
    out
}

/// [`encode_vectors`] read back; `None` for another table's entry or bytes that do
/// not decode.
fn decode_vectors(hash: u64, bytes: &[u8]) -> Option<Vec<TableDefinition>> {
    fn text(r: &mut Reader<'_>) -> Result<Box<str>, String> {
        let len = r.u16()?;
        let bytes = r.take(usize::from(len))?;
        Ok(std::str::from_utf8(bytes)
            .map_err(|e| e.to_string())?
            .into())
    }
    let mut r = Reader::new(bytes, "stored table vectors");
    let read = |r: &mut Reader<'_>| -> Result<Vec<TableDefinition>, String> {
        if u64::from_le_bytes(r.take(8)?.try_into().map_err(|_| "hash")?) != hash {
            return Err("another table's vectors".into());
        }
        let mut out = Vec::new();
        while !r.at_end() {
            let qualified = text(r)?;
            let name = text(r)?;
            let end = r.u32()?;
            let len = r.u16()?;
            let vector = r.take(usize::from(len))?.iter().map(|&v| v as i8).collect();
            out.push(TableDefinition {
                qualified,
                name,
                end,
                vector,
            });
        }
        Ok(out)
    };
    read(&mut r).ok()
}

/// A vector as int8 of its unit vector (×127): a quarter of the memory, and a cosine
/// within about 1% of the float one (the table's own rows are int8).
fn unit_i8(v: &[f32]) -> Vec<i8> {
    let norm = v
        .iter()
        .map(|x| x * x)
        .sum::<f32>()
        .sqrt()
        .max(f32::MIN_POSITIVE);
    v.iter()
        .map(|x| (x / norm * 127.0).round().clamp(-127.0, 127.0) as i8)
        .collect()
}

/// The static table's evidence on the board, explained (nothing under the `no_sem`
/// ablation, which drops all semantic evidence).
pub(super) fn read_table(
    session: &Session,
    config: &LocateConfig,
    reading: &Reading,
    files: &Files<'_>,
    narrowed: &Narrowed,
    board: &mut Board,
) {
    if config.ablation.no_sem {
        return;
    }
    (board.table, board.table_definitions) = table_evidence(session, reading, files, narrowed);
    board.table_past = table_past(session, config, reading, files, &mut board.evidence);
    explain_table(&board.table, &board.semantic, &mut board.evidence);
}

/// What the static table says of the past changes (`past_changes::semantic`), the
/// files it lends most explained: empty without a history, or when the history or the
/// past changes are ablated.
fn table_past(
    session: &Session,
    config: &LocateConfig,
    reading: &Reading,
    files: &Files<'_>,
    evidence: &mut [Vec<Signal>],
) -> HashMap<usize, past_changes::SemanticPast> {
    if config.ablation.no_history || config.ablation.no_past_changes {
        return HashMap::new();
    }
    let (Some(embedder), Some(history)) =
        (StaticTable::builtin_embedder(), session.history_listed())
    else {
        return HashMap::new();
    };
    let Some(task) = embedder.embed(&reading.text) else {
        return HashMap::new();
    };
    let past = past_changes::semantic(&history, &task, |t| embedder.embed(t), &files.by_path);
    explain_table_past(&history, &past, evidence);
    past
}

/// A past change is named in a file's evidence from this standard score up (its
/// cosine with the task this many standard deviations above the history's mean)...
const PAST_EXPLAINED: f32 = 2.0;
/// ...when the file is among this many that the semantic past changes lend most.
const PAST_EXPLAINED_RANK: usize = 3;

/// The explanation of the semantic past changes of the files they lend most to.
fn explain_table_past(
    history: &crate::source::History,
    past: &HashMap<usize, past_changes::SemanticPast>,
    evidence: &mut [Vec<Signal>],
) {
    let mut best: Vec<(&usize, &past_changes::SemanticPast)> = past.iter().collect();
    best.sort_by(|a, b| b.1.lent.total_cmp(&a.1.lent).then(a.0.cmp(b.0)));
    for (&i, p) in best.into_iter().take(PAST_EXPLAINED_RANK) {
        if p.best >= PAST_EXPLAINED
            && let Some(said) = past_changes::explain_semantic(history, p)
        {
            evidence[i].push(Signal::semantic(said));
        }
    }
}

/// The explanation of the static table's match of the files it ranks best, when it
/// is worth one and no embedder explained the file already.
fn explain_table(
    table: &HashMap<usize, FileSimilarity>,
    embedded: &HashMap<usize, FileSimilarity>,
    evidence: &mut [Vec<Signal>],
) {
    let mut best: Vec<(&usize, &FileSimilarity)> = table.iter().collect();
    best.sort_by(|a, b| b.1.best.total_cmp(&a.1.best).then(a.0.cmp(b.0)));
    for (&i, similarity) in best.into_iter().take(TABLE_EXPLAINED_RANK) {
        if similarity.best >= TABLE_EXPLAINED && !embedded.contains_key(&i) {
            evidence[i].push(Signal::semantic(format!(
                "semantic match (static): `{}` ({:.2})",
                similarity.name, similarity.best
            )));
        }
    }
}

/// The explanation of a file's semantic match, when it is worth one.
pub(super) fn explain(similarity: &FileSimilarity) -> Option<Signal> {
    (similarity.best >= EXPLAINED).then(|| {
        Signal::semantic(format!(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_vectors_read_back_and_refuse_another_table_or_garbage() {
        let defs = vec![
            TableDefinition {
                qualified: "Cache.evict".into(),
                name: "evict".into(),
                end: 42,
                vector: vec![127, -127, 0, 5],
            },
            TableDefinition {
                qualified: "é".into(),
                name: "é".into(),
                end: 7,
                vector: vec![],
            },
        ];
        let bytes = encode_vectors(9, &defs);
        let back = decode_vectors(9, &bytes).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(
            (&*back[0].qualified, &*back[0].name, back[0].end),
            ("Cache.evict", "evict", 42)
        );
        assert_eq!(back[0].vector, defs[0].vector);
        assert_eq!(&*back[1].name, "é");
        assert!(decode_vectors(8, &bytes).is_none(), "another table");
        let first = encode_vectors(9, &defs[..1]).len();
        for n in 0..bytes.len() {
            // Every cut but at a definition's end is refused; none panics.
            let cut = decode_vectors(9, &bytes[..n]);
            assert_eq!(cut.is_some(), n == 8 || n == first, "cut at {n}");
        }
        assert!(
            decode_vectors(9, &encode_vectors(9, &[]))
                .unwrap()
                .is_empty()
        );
    }
}
