//! The learned scorer of the Location stage: Eq. 6's weights learned from data.
//!
//! Eq. 6 combines four normalized terms with hand-set coefficients. The learned
//! scorer reads the same evidence taken apart ([`super::features`]: BM25 per field,
//! each channel of s_rule, the role prior, Eq. 6's own score) and combines it with
//! gradient-boosted regression trees ([`crate::trees`]) on the log-odds that a
//! candidate is a file the change touches. The trees are trained offline by `make
//! train` (`benches/train_ranker.py`) on mined and development tasks, and committed
//! as `ranker.json`.
//!
//! A second model, `ranker_semantic.json`, is trained on the same kind of rows with an
//! embedder present (issue 46, item 5): it also reads the semantic features
//! (`emb_best`, `emb_top3`, `emb_rank`). It scores a query whose candidates have that
//! evidence; `ranker.json`, which never saw it, scores every other query.

use std::sync::OnceLock;

use super::features::FEATURE_NAMES;
use crate::trees::Trees;

/// The committed model.
const BUILTIN: &str = include_str!("ranker.json");
/// The committed model trained with an embedder present.
const SEMANTIC: &str = include_str!("ranker_semantic.json");

/// The committed model, read once; `None` when it does not fit this build's
/// features (then the Location stage keeps Eq. 6's hand weights).
pub(crate) fn builtin() -> Option<&'static Trees> {
    static MODEL: OnceLock<Option<Trees>> = OnceLock::new();
    MODEL
        .get_or_init(|| Trees::parse(BUILTIN, &FEATURE_NAMES).ok())
        .as_ref()
}

/// The committed model trained with an embedder present, read once; `None` when it
/// does not fit this build's features.
pub(crate) fn semantic() -> Option<&'static Trees> {
    static MODEL: OnceLock<Option<Trees>> = OnceLock::new();
    MODEL
        .get_or_init(|| Trees::parse(SEMANTIC, &FEATURE_NAMES).ok())
        .as_ref()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_committed_models_fit_this_build() {
        let model = super::builtin().expect("ranker.json must match FEATURE_NAMES");
        crate::trees::tests::assert_faithful(model);
        let semantic = super::semantic().expect("ranker_semantic.json must match FEATURE_NAMES");
        crate::trees::tests::assert_faithful(semantic);
    }
}
