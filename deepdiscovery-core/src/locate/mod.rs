//! The Location stage (paper §III.C): environment-aware analysis, adaptive repository
//! compression and anchor scoring (Eq. 6).
//!
//! `Session::locate` reads the repository as it is now: a cheap lexical pass over
//! every text file narrows the candidates, and only the candidates get tree-sitter
//! facts (no index is built first).

mod archive;
mod assist;
pub mod bridge;
mod counterparts;
pub mod cues;
mod definitions;
pub mod environment;
mod evidence;
pub mod features;
pub mod history;
mod index_codec;
pub(crate) mod lexical;
mod past_changes;
mod path_words;
mod ranker;
mod report;
mod score;
mod stage;
mod table_scan;
pub mod task_type;
mod template;
mod tokens;
pub mod view;
mod where_to_look;

use std::collections::HashMap;

use serde::Serialize;

use crate::artifact::Role;
use crate::plugins::{LlmCaller, LlmUsage, LlmUse};
use crate::task::Budget;
use crate::{Error, Result, Session};

pub use cues::{Cue, CueKind, ResolvedCue};
#[doc(hidden)]
pub use definitions::check_documents;
pub use environment::Environment;
pub use features::{FEATURE_NAMES, FeatureTable};
#[doc(hidden)]
pub use path_words::check_path_words;
#[doc(hidden)]
pub use ranker::check_model as check_trees_model;
pub(crate) use stage::cue_symbol;
pub use task_type::TaskType;
pub use view::{Granularity, RepoView};
pub use where_to_look::{DEFINITION_FEATURES, DefinitionRow, RankedDefinition, definition_names};

/// Switches that turn off one term of Eq. 6 each, to measure its contribution.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Ablation {
    /// Drop s_sem (BM25 / embedding similarity).
    pub no_sem: bool,
    /// Drop s_sum (alignment with the compressed view).
    pub no_sum: bool,
    /// Drop s_rule (rule templates and resolved cues).
    pub no_rule: bool,
    /// Drop π (the role prior).
    pub no_prior: bool,
    /// Ignore the repository's history: no co-change or past-change cue in s_rule
    /// (see `locate::history`).
    pub no_history: bool,
    /// No past-change cue in s_rule (past commits whose messages match the task; see
    /// `locate::past_changes`), the co-change cue kept.
    pub no_past_changes: bool,
    /// No vocabulary bridge: the query is not expanded into the code terms its words
    /// translate to (`locate::bridge`).
    pub no_bridge: bool,
}

/// The coefficients α, β, γ, δ of Eq. 6.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Weights {
    /// α, weight of s_sem.
    pub sem: f32,
    /// β, weight of s_sum.
    pub sum: f32,
    /// γ, weight of s_rule.
    pub rule: f32,
    /// δ, weight of π.
    pub prior: f32,
}

/// Which preset of coefficients to use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub enum Preset {
    /// The learned scorer ([`Scorer::Learned`], `ranker.json`) re-ranks the best
    /// candidates of [`Preset::Paper`]: Eq. 6's terms, taken apart, with weights
    /// learned from data. With a term of Eq. 6 ablated ([`Ablation`]), Eq. 6 alone, as
    /// `Paper`: the ablation measures Eq. 6.
    #[default]
    Auto,
    /// Eq. 6 with coefficients chosen per query from repository scale and
    /// localization ambiguity (the paper's presets, hand-set): the ablation of the
    /// learned scorer.
    Paper,
    /// Fixed coefficients of Eq. 6.
    Fixed(Weights),
}

/// What ordered the candidates of a Location.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scorer {
    /// Eq. 6 with the coefficients of [`Location::weights`].
    #[default]
    Eq6,
    /// The learned scorer: each candidate's score is the probability it reads from
    /// the candidate's features; files beyond the candidates keep Eq. 6's order below
    /// them.
    Learned,
}

/// Configuration of the Location stage.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LocateConfig {
    /// K_a: how many anchors to select (paper default 8).
    pub anchors: usize,
    /// Coefficient preset.
    pub preset: Preset,
    /// Terms switched off.
    pub ablation: Ablation,
    /// The budget; the Location stage uses its Γ_loc share for the repository view.
    pub budget: Budget,
    /// What a configured language model is asked (environment analysis, s_sum) and
    /// how often; ignored without a model.
    pub llm: LlmUse,
}

impl Default for LocateConfig {
    fn default() -> Self {
        LocateConfig {
            anchors: 8,
            preset: Preset::Auto,
            ablation: Ablation::default(),
            budget: Budget::default(),
            llm: LlmUse::default(),
        }
    }
}

impl LocateConfig {
    /// Checks ranges.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] for zero anchors, negative weights or a bad budget.
    pub fn validate(&self) -> Result<()> {
        if self.anchors == 0 {
            return Err(Error::InvalidConfig(
                "anchors (K_a) must be positive".into(),
            ));
        }
        if let Preset::Fixed(w) = self.preset
            && [w.sem, w.sum, w.rule, w.prior]
                .iter()
                .any(|x| !x.is_finite() || *x < 0.0)
        {
            return Err(Error::InvalidConfig(
                "Eq. 6 weights must be finite and non-negative".into(),
            ));
        }
        self.budget.validate()
    }
}

/// The four normalized terms of Eq. 6 for one file, each in [0, 1].
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Terms {
    /// s̃_sem.
    pub sem: f32,
    /// s̃_sum.
    pub sum: f32,
    /// s̃_rule.
    pub rule: f32,
    /// π(role | q).
    pub prior: f32,
}

/// One scored candidate file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoredFile {
    /// Repository-relative path.
    pub path: String,
    /// Score_loc of Eq. 6.
    pub score: f32,
    /// Artifact role.
    pub role: Role,
    /// The terms that make the score.
    pub terms: Terms,
    /// What matched: resolved cues, rule templates, best lexical terms.
    pub signals: Vec<String>,
}

/// What the Location stage returns.
#[derive(Debug, Clone, Serialize)]
pub struct Location {
    /// The top-K_a candidates: the task anchors Ĥ.
    pub anchors: Vec<ScoredFile>,
    /// Every scored candidate, best first (anchors included), ties broken by path.
    pub ranked: Vec<ScoredFile>,
    /// The inferred environment.
    pub environment: Environment,
    /// The inferred task type and its confidence.
    pub task_type: (TaskType, f32),
    /// Cues of the task resolved against the repository.
    pub cues: Vec<ResolvedCue>,
    /// What ordered the candidates.
    pub scorer: Scorer,
    /// The coefficients of Eq. 6 (the learned scorer reads Eq. 6's score too).
    pub weights: Weights,
    /// The compressed repository view (adaptive compression), within Γ_loc.
    pub view: RepoView,
    /// Where to look inside the best files: the functions, methods and classes the
    /// task most likely concerns, best first, each with why (at most
    /// 20).
    pub definitions: Vec<RankedDefinition>,
    /// Files read lexically, files parsed with tree-sitter, wall time in ms.
    pub cost: LocateCost,
    /// What did not go as planned and what was done instead (a plug-in that failed,
    /// a fallback taken).
    pub notes: Vec<String>,
    /// Constraints the change must respect, as the language model read them from the
    /// task (empty without a model).
    pub constraints: Vec<String>,
    /// What the language model did in this stage (`None` without a model).
    pub llm: Option<LlmUsage>,
    /// The candidates given full tree-sitter facts (the narrowing), sorted.
    pub parsed: Vec<String>,
    /// The features of the candidates that the learned scorer read (or would have
    /// read, under another preset), best first by Eq. 6: what `eval_tasks
    /// --features` dumps for training.
    #[serde(skip)]
    pub features: FeatureTable,
    /// The feature rows of every definition [`Location::definitions`] ranked (the
    /// training data of its model, `eval_tasks --locate --features`).
    #[serde(skip)]
    pub definition_rows: Vec<DefinitionRow>,
    /// Per file read by the lexical pass, the hashes of the identifiers it writes
    /// ([`lexical::FileStats::words`]): where the graph's scope looks for names. A
    /// file that writes none is left out.
    #[serde(skip)]
    pub(crate) words: std::sync::Arc<crate::hashing::ContentMap<String, std::sync::Arc<[u32]>>>,
    /// Per file among the best [`MATCHED_FILES`] ranked, the task's terms it matches
    /// (indices into the query's terms) with their BM25F contributions: what the
    /// change-set completion reads to see which of the task's words the context
    /// leaves unexplained.
    #[serde(skip)]
    pub(crate) matched: HashMap<String, Vec<(usize, f32)>>,
    /// The learned scorer's probability of each candidate it read (empty under
    /// Eq. 6): what the change-set completion reads.
    #[serde(skip)]
    pub(crate) probability: HashMap<String, f32>,
    /// How many terms the task's query has.
    #[serde(skip)]
    pub(crate) query_terms: usize,
    /// Per candidate whose definitions match the task, the name of the one that
    /// matches best (`locate::definitions`): its span goes first in the file's view.
    #[serde(skip)]
    pub(crate) described: HashMap<String, String>,
    /// Per candidate, the evidence beyond the task's words that the change-set
    /// completion reads: its best definition's match and its past-change strength.
    #[serde(skip)]
    pub(crate) beyond_words: HashMap<String, BeyondWords>,
    /// Whether an embedder's similarity was part of the evidence: then the models
    /// trained with an embedder present ranked the candidates and complete the change
    /// set.
    #[serde(skip)]
    pub(crate) semantic: bool,
}

/// Evidence of a candidate that is not a word it shares with the task.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct BeyondWords {
    /// Its best definition's BM25 over the best of all candidates' definitions
    /// (`locate::definitions`).
    pub definition: f32,
    /// The strength of the past commits whose messages match the task and that
    /// changed it (`locate::past_changes`).
    pub past_change: f32,
    /// Its BM25 of the task's expansion by the vocabulary bridge over the best
    /// file's (`locate::bridge`).
    pub bridge: f32,
    /// Its best definition's cosine with the task by an embedder (`semantic`; 0
    /// without one, or when it was not embedded).
    pub semantic: f32,
    /// Its best definition's cosine with the task by the static table
    /// (`semantic::static_table`; 0 when the file has no facts).
    pub table: f32,
    /// What the past changes whose messages the static table finds close to the task
    /// lend it (`past_changes::semantic`; 0 without a history).
    pub table_past: f32,
}

/// The ranked files whose matched terms [`Location`] keeps.
pub(crate) const MATCHED_FILES: usize = 128;

impl Location {
    /// A plain-text explanation of the anchors: each term's contribution to Eq. 6 and
    /// the signals that matched.
    pub fn explain(&self) -> String {
        let w = self.weights;
        let mut out = String::new();
        for (rank, a) in self.anchors.iter().enumerate() {
            let t = a.terms;
            let eq6 = w.sem * t.sem + w.sum * t.sum + w.rule * t.rule + w.prior * t.prior;
            let head = match self.scorer {
                Scorer::Eq6 => format!("score {:.3} =", a.score),
                Scorer::Learned => format!("learned score {:.3}; Eq. 6 {eq6:.3} =", a.score),
            };
            out.push_str(&format!(
                "{}. {} [{}] {head} sem {:.3} + sum {:.3} + rule {:.3} + prior {:.3}\n",
                rank + 1,
                a.path,
                a.role,
                w.sem * t.sem,
                w.sum * t.sum,
                w.rule * t.rule,
                w.prior * t.prior
            ));
            for s in &a.signals {
                out.push_str("   - ");
                out.push_str(s);
                out.push('\n');
            }
        }
        out
    }
}

/// What the Location stage spent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct LocateCost {
    /// Files read for the lexical pass.
    pub files_read: usize,
    /// Files given full tree-sitter facts.
    pub files_parsed: usize,
    /// Wall time in milliseconds.
    pub millis: f64,
    /// Of which ranking the definitions ([`Location::definitions`]) took, in
    /// milliseconds (reported, never a bound).
    pub definitions_millis: f64,
}

/// Runs the Location stage on a session (see [`crate::Session::locate`]).
pub(crate) fn locate(
    session: &crate::Session,
    task: &crate::task::Task,
    config: &LocateConfig,
) -> Result<Location> {
    let caller = session
        .language_model()
        .map(|model| LlmCaller::new(model, config.llm));
    let mut location = stage::run(session, task, config, caller.as_ref())?;
    location.llm = caller.map(|c| c.usage());
    Ok(location)
}

/// Runs the Location stage with the query's language-model caller (shared with the
/// Inference stage by `discover`).
pub(crate) fn locate_with(
    session: &crate::Session,
    task: &crate::task::Task,
    config: &LocateConfig,
    llm: Option<&LlmCaller<'_>>,
) -> Result<Location> {
    stage::run(session, task, config, llm)
}

/// The Location stage as a query of a [`Session`]: the session owns the repository's
/// caches, the stage decides (the stage never calls back into the query methods).
impl Session {
    /// The Location stage of paper §III.C: ranked task anchors with explanations.
    ///
    /// # Errors
    /// An invalid configuration, or an error of the source's listing.
    pub fn locate(
        &self,
        task: &crate::task::Task,
        config: &crate::locate::LocateConfig,
    ) -> Result<crate::locate::Location> {
        self.answer("locate", || crate::locate::locate(self, task, config))
    }
}
