//! The task as a query: hint cues, the title and its emphasized terms.

use super::*;

/// Cues from the caller's hints: named paths and symbols are strong evidence.
pub(super) fn hint_cues(task: &Task) -> Vec<Cue> {
    let cue = |kind, text: &String, weight| Cue {
        kind,
        text: text.clone(),
        line: None,
        function: None,
        depth: 0,
        weight,
    };
    let hints = &task.hints;
    hints
        .paths
        .iter()
        .map(|p| cue(CueKind::Path, p, 1.0))
        .chain(hints.symbols.iter().map(|s| cue(CueKind::Symbol, s, 0.9)))
        .chain(
            hints
                .failing_tests
                .iter()
                .map(|t| cue(CueKind::TestId, t, 0.9)),
        )
        .collect()
}

/// The query of the lexical pass: the task's terms, the identifiers to find defined
/// or mentioned, and the exact strings to find.
pub(super) fn build_query(text: &str, cues: &[Cue]) -> Query {
    let mut symbols = Vec::new();
    let mut phrases = Vec::new();
    for cue in cues {
        match cue.kind {
            CueKind::ConfigKey | CueKind::Route | CueKind::CliFlag | CueKind::ErrorMessage => {
                phrases.push(cue.text.clone())
            }
            _ => symbols.extend(cue_name(cue).map(str::to_string)),
        }
    }
    let mut query = Query::new(text, symbols, phrases);
    if let Some(title) = title(text) {
        query.emphasize(title, TITLE_EMPHASIS);
    }
    query
}

/// The first line of a task that goes on after it: its title (an issue's, a commit
/// message's subject). It says what the task is about; the body adds reproduction
/// code, traces and versions that name much else.
pub(super) fn title(text: &str) -> Option<&str> {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next()?;
    lines.next().map(|_| first)
}

/// Per query term, whether the task's title (all of a one-line task) has it.
pub(super) fn title_terms(query: &Query, text: &str) -> Vec<bool> {
    let mut in_title = std::collections::HashSet::new();
    lexical::tokenize(title(text).unwrap_or(text), |t| {
        in_title.insert(t);
    });
    query
        .terms
        .iter()
        .map(|(t, _)| in_title.contains(t))
        .collect()
}

/// The files the caller's path hints name, in the hints' order: a hint that names one
/// file of the repository (the path itself, or a path ending in it) names that file;
/// a hint that names several, or none, names nothing here and stays evidence only.
pub(super) fn hinted_files(task: &Task, resolved: &[ResolvedCue]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for hint in &task.hints.paths {
        let named = resolved
            .iter()
            .filter(|r| r.cue.kind == CueKind::Path && &r.cue.text == hint)
            .find_map(|r| match r.files.as_slice() {
                [one] => Some(one),
                _ => None,
            });
        if let Some(path) = named.filter(|p| !out.contains(p)) {
            out.push(path.clone());
        }
    }
    out
}

/// Puts the files the caller named (`hinted`, in order) first in `ranked` (sorted by
/// score), each with the best score of the ranking and a signal that says why: the
/// caller's word outranks anything the task's text suggests, so a hinted file is an
/// anchor whatever the scorer thinks of it. Hinted files that are not ranked at all
/// (nothing of the task reaches them) stay out.
pub(super) fn hinted_first(ranked: &mut Vec<ScoredFile>, hinted: &[String]) {
    let Some(top) = ranked.first().map(|r| r.score) else {
        return;
    };
    let mut front = Vec::new();
    for path in hinted {
        if let Some(at) = ranked.iter().position(|r| &r.path == path) {
            let mut file = ranked.remove(at);
            file.score = file.score.max(top);
            file.signals.insert(0, "named by the caller".to_string());
            front.push(file);
        }
    }
    ranked.splice(0..0, front);
}
