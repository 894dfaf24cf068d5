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
//! evidence; `ranker.json`, which never saw it, scores every other query with a deep
//! history. A third, `ranker_plain.json`, is trained on the same tasks' rows without
//! their history (a shallow clone, a tarball, a plain directory): it scores the
//! queries that have none, as the change-set completion's plain model does.

use std::sync::OnceLock;

use super::features::FEATURE_NAMES;
use crate::trees::Trees;

/// The committed model.
const BUILTIN: &str = include_str!("ranker.json");
/// The committed model trained with an embedder present.
const SEMANTIC: &str = include_str!("ranker_semantic.json");

/// The committed model trained on rows without a history.
const PLAIN: &str = include_str!("ranker_plain.json");

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

/// The committed model trained without a history, read once; `None` when it does
/// not fit this build's features.
pub(crate) fn plain() -> Option<&'static Trees> {
    static MODEL: OnceLock<Option<Trees>> = OnceLock::new();
    MODEL
        .get_or_init(|| Trees::parse(PLAIN, &FEATURE_NAMES).ok())
        .as_ref()
}

/// The fuzz target's check of the trees reader on any text, against this build's
/// feature names of both kinds of rows (the Location scorer's and the definitions'):
/// it ends without a panic, the same text reads the same, and a model it accepts
/// scores rows of zeros, ones and extremes the same way twice, with a probability in
/// [0, 1] (or NaN from non-finite leaf sums, never a panic).
#[doc(hidden)]
pub fn check_model(text: &str) {
    let names: [&[&str]; 2] = [&FEATURE_NAMES, &super::DEFINITION_FEATURES];
    for names in names {
        let first = crate::trees::Trees::parse(text, names);
        let again = crate::trees::Trees::parse(text, names);
        assert_eq!(first.is_ok(), again.is_ok());
        let Ok(model) = first else {
            continue;
        };
        for fill in [0.0f32, 1.0, -1e30, 1e30, f32::NAN] {
            let row = vec![fill; names.len()];
            let (p, parts) = model.score(&row);
            assert!(p.is_nan() || (0.0..=1.0).contains(&p), "{p}");
            assert_eq!(parts.len(), names.len());
            assert_eq!(p.to_bits(), model.score(&row).0.to_bits());
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_committed_models_fit_this_build() {
        let model = super::builtin().expect("ranker.json must match FEATURE_NAMES");
        crate::trees::tests::assert_faithful(model);
        let semantic = super::semantic().expect("ranker_semantic.json must match FEATURE_NAMES");
        crate::trees::tests::assert_faithful(semantic);
        let plain = super::plain().expect("ranker_plain.json must match FEATURE_NAMES");
        crate::trees::tests::assert_faithful(plain);
    }

    #[test]
    fn the_fuzz_check_reads_the_committed_models_and_refuses_garbage() {
        super::check_model(include_str!("definitions.json"));
        super::check_model(include_str!("ranker.json"));
        super::check_model("{\"kind\":\"trees\"");
        super::check_model("not json");
        assert!(crate::trees::Trees::parse("{}", &super::FEATURE_NAMES).is_err());
    }
}
