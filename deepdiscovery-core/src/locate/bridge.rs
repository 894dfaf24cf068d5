//! The vocabulary bridge in the Location stage: the files a task's expanded query
//! reaches, and how their score is explained.
//!
//! The model ([`Bridge`](crate::bridge::Bridge)) expands a query with the code terms
//! its words translate to; the lexical pass counts them in every file as it counts the
//! task's own terms (from the per-file index the on-disk cache keeps, so the bridge
//! costs no second pass), and `LexicalView::bridge`
//! scores a file by the BM25 of the expansion. The task's own terms are left out of
//! the expansion: BM25 already counts them, and the bridge is the evidence the words
//! miss. [`task_terms`] and [`code_terms`] are what the trainer counts, so it counts
//! exactly the tokens the pass counts.

use std::collections::HashMap;

use super::lexical::Query;
use super::tokens;

/// A file whose bridge score is at least this share of the best file's has it in its
/// explanation.
pub(crate) const EXPLAINED: f32 = 0.3;

/// The `k` files with the best bridge scores (`scores` normalized, 0 for none), best
/// first, ties by index; files in `skip` and files the bridge does not reach left out.
pub(crate) fn best_files(scores: &[f32], skip: &[bool], k: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len())
        .filter(|&i| scores[i] > 0.0 && !skip.get(i).copied().unwrap_or(false))
        .collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    order.truncate(k);
    order
}

/// The explanation of a file's bridge score from its best expansion terms (`parts`,
/// indexes into `query.expansion`): "`slow` ↔ `cache`, `memo` (learned association)",
/// each code term under the task term that lent it most.
pub(crate) fn explain(query: &Query, parts: &[(usize, f32)]) -> String {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for &(j, _) in parts {
        let Some(e) = query.expansion.get(j) else {
            continue;
        };
        let Some((q, _)) = e.sources.first() else {
            continue;
        };
        let Some((source, _)) = query.terms.get(*q as usize) else {
            continue;
        };
        match groups.iter_mut().find(|(s, _)| s == source) {
            Some((_, terms)) => terms.push(&e.term),
            None => groups.push((source, vec![&e.term])),
        }
    }
    let said: Vec<String> = groups
        .iter()
        .map(|(source, terms)| {
            let terms: Vec<String> = terms.iter().map(|t| format!("`{t}`")).collect();
            format!("`{source}` ↔ {}", terms.join(", "))
        })
        .collect();
    format!("{} (learned association)", said.join("; "))
}

/// The terms of a task text with their counts, as the Location stage's query reads
/// them: what the bridge's trainer counts on the task side.
pub fn task_terms(text: &str) -> Vec<(String, u32)> {
    let mut counts: HashMap<String, u32> = HashMap::new();
    tokens::tokenize(text, |t| *counts.entry(t).or_default() += 1);
    let mut out: Vec<(String, u32)> = counts.into_iter().collect();
    out.sort();
    out
}

/// The terms of a file with their counts, as the lexical pass counts them (its name,
/// its directories, its definition lines and its body): what the bridge's trainer
/// counts on the code side.
pub fn code_terms(path: &str, text: &str) -> Vec<(String, u32)> {
    let mut counts: HashMap<String, u32> = HashMap::new();
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    let stem = name.split('.').next().unwrap_or(name);
    for part in [stem, dir] {
        tokens::tokenize(part, |t| *counts.entry(t).or_default() += 1);
    }
    for (term, defs, body) in super::lexical::FileIndex::of(text).tokens {
        *counts.entry(term).or_default() += defs + body;
    }
    let mut out: Vec<(String, u32)> = counts.into_iter().collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trainer_reads_the_terms_the_pass_counts() {
        let task = task_terms("Export is slow when the cache is empty; slow again");
        assert!(task.contains(&("slow".to_string(), 2)));
        assert!(!task.iter().any(|(t, _)| t == "the"));
        let code = code_terms(
            "pkg/lru_cache.py",
            "def get_entry(key):\n    return CACHE[key]\n",
        );
        let terms: HashMap<String, u32> = code.into_iter().collect();
        assert_eq!(terms.get("lru"), Some(&1), "the file name counts");
        assert_eq!(terms.get("pkg"), Some(&1), "the directory counts");
        assert!(terms.get("cache").is_some_and(|&n| n >= 2));
        assert!(terms.contains_key("entry"));
    }
}
