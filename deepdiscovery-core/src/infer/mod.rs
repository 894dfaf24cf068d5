//! The Inference stage (paper §III.D–E) and the whole of Algorithm 1:
//! `Session::discover` locates anchors, recovers the implementation path around them
//! within the budget (Eq. 7), clusters, filters and re-ranks the candidates, chooses
//! each entity's view metadata-first (Eq. 8), and serializes the context package.

pub mod card;
mod changeset;
mod completion;
mod construct;
pub mod expand;
mod judge;
pub mod package;
pub mod picture;
pub mod promote;
mod scope;

pub use scope::ScopeLimits;

use serde::Serialize;

use crate::graph::RelationFamily;
use crate::locate::{Ablation, LocateConfig, Preset};
use crate::plugins::LlmUse;
use crate::task::{Budget, Task};
use crate::{Error, Result, Session};

pub use card::{MetadataCard, TextSpan};
pub use completion::{COMPLETION_FEATURE_COUNT, COMPLETION_FEATURES};
pub use expand::{Aspect, Priority, StopReason, Via};
pub use package::{
    AnchorEntry, BudgetReport, ContextPackage, FileView, HistoryEntry, Hop, PackageFile,
    PackageRelation, RankedFile, SCHEMA_VERSION, Skipped, StageCost,
};
pub use promote::PromotionFeatures;

/// The reduced variants of the paper's Table III.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DiscoverAblation {
    /// Location only: the anchors are the context; no expansion, no re-ranking.
    pub location_only: bool,
    /// Without adaptive compression: a flat path list replaces the adaptive
    /// repository view, and s_sum (alignment with the view) is dropped.
    pub no_compression: bool,
    /// Without implicit relations: expansion follows explicit and organizational
    /// relations only.
    pub no_implicit: bool,
    /// Without metadata-first: every selected entity is materialized as full text
    /// (or its spans) while the budget lasts.
    pub no_metadata_first: bool,
    /// Without history: no co-change cue in the Location stage, no
    /// co-change links in expansion, no recent history in the package (the same
    /// result as a repository without git).
    pub no_history: bool,
}

impl DiscoverAblation {
    /// Whether relations of `family` are followed and reported under this ablation.
    pub fn follows(&self, family: RelationFamily) -> bool {
        match family {
            RelationFamily::Implicit => !self.no_implicit,
            RelationFamily::Historical => !self.no_history,
            _ => true,
        }
    }
}

/// Configuration of `discover`: the paper's parameters with its defaults.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DiscoverConfig {
    /// K_a, the number of anchors (8).
    pub anchors: usize,
    /// Eq. 6 coefficients: chosen per query (default) or fixed.
    pub preset: Preset,
    /// Eq. 6 terms switched off.
    pub location_ablation: Ablation,
    /// Γ_max: tokens, steps and the Location share.
    pub budget: Budget,
    /// τ, the expansion threshold on Priority (0.15).
    pub tau: f32,
    /// κ, the metadata-promotion threshold on u (0.62).
    pub kappa: f32,
    /// Expansion stops after this many consecutive actions that add no new artifact
    /// role and no bridge (the paper: 2).
    pub patience: usize,
    /// Table III variants.
    pub ablation: DiscoverAblation,
    /// What a configured language model is asked (environment analysis, s_sum,
    /// Eq. 8 judgments) and how many calls a query may make; ignored without a model.
    pub llm: LlmUse,
    /// Build the graph over every file of the repository instead of the query's
    /// neighbourhood (slower: every file is parsed; for comparison and for callers
    /// that want every relation of the repository).
    pub full_graph: bool,
    /// How far the query's neighbourhood grows from the anchors.
    pub scope: ScopeLimits,
    /// A stricter filter for the last step (§III.D "cluster, filter and re-rank"): a
    /// file whose final score is below this share of the best file's is left out of
    /// the package (it keeps its place in `ranked_files`), except the three best and
    /// the files the task names by path or stack frame. 0 (the default) keeps every
    /// file the expansion selected.
    ///
    /// For callers that want the files likely to change rather than the context
    /// around them: files reached through relations (a settings binding, an event
    /// handler) seldom match the task's words, so their final scores are low and a
    /// ratio cuts them first. On the development sets (`benches/results/dev-2026-12-03.md`,
    /// commit 0ec3eec), 0.4 raises the precision of the returned set from 12.6% to
    /// 15.8% (multilingual) and from 8.5% to 11.4% (SWE-bench Lite) at the same full
    /// recall; 0.5 reaches 17.5% on the multilingual set but lowers its full recall
    /// from 64.6% to 59.4%. It is off by default because the context it cuts is what
    /// the relations are followed for: at 0.4 the fixtures lose the middleware a
    /// settings binding names, the provider of an interface, the handler of an
    /// event and the endpoint that calls the function to fix.
    pub min_score_ratio: f32,
}

impl Default for DiscoverConfig {
    fn default() -> Self {
        DiscoverConfig {
            anchors: 8,
            preset: Preset::Auto,
            location_ablation: Ablation::default(),
            budget: Budget::default(),
            tau: 0.15,
            kappa: 0.62,
            patience: 2,
            ablation: DiscoverAblation::default(),
            llm: LlmUse::default(),
            full_graph: false,
            scope: ScopeLimits::default(),
            min_score_ratio: 0.0,
        }
    }
}

impl DiscoverConfig {
    /// The Location stage's part of the configuration.
    pub fn locate(&self) -> LocateConfig {
        let mut ablation = self.location_ablation;
        if self.ablation.no_compression {
            ablation.no_sum = true;
        }
        if self.ablation.no_history {
            ablation.no_history = true;
        }
        LocateConfig {
            anchors: self.anchors,
            preset: self.preset,
            ablation,
            budget: self.budget,
            llm: self.llm,
        }
    }

    /// Checks ranges.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] naming the parameter that is out of range.
    pub fn validate(&self) -> Result<()> {
        self.locate().validate()?;
        if self.patience == 0 {
            return Err(Error::InvalidConfig("patience must be at least 1".into()));
        }
        for (name, value) in [
            ("tau", self.tau),
            ("kappa", self.kappa),
            ("min_score_ratio", self.min_score_ratio),
        ] {
            if !(value.is_finite() && (0.0..=1.0).contains(&value)) {
                return Err(Error::InvalidConfig(format!(
                    "{name} must be in [0, 1], got {value}"
                )));
            }
        }
        self.scope.validate()
    }
}

/// Runs Algorithm 1 on a session (see [`Session::discover`]).
pub(crate) fn discover(
    session: &Session,
    task: &Task,
    config: &DiscoverConfig,
) -> Result<ContextPackage> {
    Ok(discover_traced(session, task, config)?.0)
}

/// Runs Algorithm 1 and returns, with the package, the feature rows of the learned
/// change-set completion's candidates (see [`Session::discover_traced`]).
pub(crate) fn discover_traced(
    session: &Session,
    task: &Task,
    config: &DiscoverConfig,
) -> Result<(ContextPackage, crate::locate::features::FeatureTable)> {
    config.validate()?;
    construct::run(session, task, config)
}

/// Algorithm 1 as queries of a [`Session`]: the session owns the repository's caches,
/// the stages decide.
impl Session {
    /// The whole of Algorithm 1 (paper §III): Location, budgeted implementation-path
    /// recovery (Eq. 7) and metadata-first context construction (Eq. 8), returned as
    /// a [`ContextPackage`](crate::infer::ContextPackage) that fits the budget.
    ///
    /// # Errors
    /// An invalid configuration, or an error of the source's listing.
    pub fn discover(
        &self,
        task: &crate::task::Task,
        config: &crate::infer::DiscoverConfig,
    ) -> Result<crate::infer::ContextPackage> {
        self.answer("discover", || crate::infer::discover(self, task, config))
    }

    /// [`Session::discover`], and with the package the feature rows of the
    /// candidates the learned change-set completion read (names in
    /// [`crate::infer::COMPLETION_FEATURES`]): the training data of `make train`
    /// (`eval_tasks --completion-features`).
    ///
    /// # Errors
    /// As [`Session::discover`].
    pub fn discover_traced(
        &self,
        task: &crate::task::Task,
        config: &crate::infer::DiscoverConfig,
    ) -> Result<(
        crate::infer::ContextPackage,
        crate::locate::features::FeatureTable,
    )> {
        self.answer("discover", || {
            crate::infer::discover_traced(self, task, config)
        })
    }
}
