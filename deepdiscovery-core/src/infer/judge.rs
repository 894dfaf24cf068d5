//! The constrained LLM judgment of Eq. 8 (paper §III.E): for borderline entities —
//! those whose symbolic promotion score u lies within [`BORDERLINE`] of κ — one
//! batched call asks, per entity, whether it is likely to be modified and whether its
//! metadata card is sufficient. A valid answer replaces the two symbolic features it
//! speaks to (`modified`, `insufficient`), u is computed again, and the file's
//! rationale says what the model judged. Entities far from κ are decided without the
//! model: it is asked only where its answer can change the view.

use super::package::PackageFile;
use crate::plugins::{LlmCaller, PROMOTION_PROMPT, numbered, numbered_prompt};

/// Distance from κ within which the model is asked.
pub const BORDERLINE: f32 = 0.15;
/// Entities judged per call at most (the best-ranked borderline ones).
pub const MAX_JUDGED: usize = 12;
/// `modified` when the model says "likely modified", and when it says not.
const JUDGED_MODIFIED: (f32, f32) = (0.95, 0.1);

/// What the model said of one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Judgment {
    likely_modified: bool,
    metadata_sufficient: bool,
}

/// Asks the model about the borderline files among `files` (in rank order) and
/// updates their promotion features, score and rationale.
pub(super) fn promotion(llm: &LlmCaller<'_>, task: &str, kappa: f32, files: &mut [PackageFile]) {
    const PURPOSE: &str = "Eq. 8 judgment";
    if !llm.use_.promotion {
        return;
    }
    let borderline: Vec<usize> = files
        .iter()
        .enumerate()
        .filter(|(_, f)| (f.promotion_score - kappa).abs() <= BORDERLINE)
        .map(|(i, _)| i)
        .take(MAX_JUDGED)
        .collect();
    if borderline.is_empty() {
        return;
    }
    let cards: Vec<String> = borderline
        .iter()
        .map(|&i| format!("path: {}\n{}", files[i].path, files[i].view.card().render()))
        .collect();
    let prompt = numbered_prompt(PROMOTION_PROMPT, llm.prompt_budget(), task, &cards);
    let Some(answer) = llm.ask(PURPOSE, &prompt) else {
        return;
    };
    let judged = numbered(answer.get("files"), borderline.len(), |v| {
        Some(Judgment {
            likely_modified: v.get("likely_modified")?.as_bool()?,
            metadata_sufficient: v.get("metadata_sufficient")?.as_bool()?,
        })
    });
    if judged.is_empty() {
        llm.unusable(PURPOSE, "no valid judgment for any file number");
        return;
    }
    let mut promoted = 0;
    for &(k, judgment) in &judged {
        let file = &mut files[borderline[k]];
        let before = file.promotion_score >= kappa;
        file.promotion.modified = if judgment.likely_modified {
            JUDGED_MODIFIED.0
        } else {
            JUDGED_MODIFIED.1
        };
        file.promotion.insufficient = if judgment.metadata_sufficient {
            0.0
        } else {
            1.0
        };
        file.promotion_score = file.promotion.score();
        let after = file.promotion_score >= kappa;
        promoted += usize::from(after && !before);
        file.rationale.push(format!(
            "the model judged it {} and its metadata {} (Eq. 8: u = {:.2})",
            if judgment.likely_modified {
                "likely modified"
            } else {
                "unlikely to be modified"
            },
            if judgment.metadata_sufficient {
                "sufficient"
            } else {
                "insufficient"
            },
            file.promotion_score
        ));
    }
    llm.note(format!(
        "Eq. 8 judgment: {} of {} borderline files judged, {promoted} newly promoted",
        judged.len(),
        borderline.len()
    ));
}
