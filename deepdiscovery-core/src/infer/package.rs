//! The context package Ĉ (Algorithm 1, line 16): one versioned schema, serialized as
//! JSON for programs and rendered as Markdown for a prompt.

use serde::Serialize;

use super::card::{MetadataCard, TextSpan};
use super::expand::{Priority, StopReason, Via};
use super::promote::PromotionFeatures;
use crate::artifact::{Language, Role};
use crate::graph::Relation;
use crate::locate::{Environment, RankedDefinition, RepoView, TaskType};
use crate::plugins::LlmUsage;
use crate::source::SkipStats;
use crate::task::estimate_tokens;

/// The version of the package schema. It changes when a field is removed or changes
/// meaning; added fields keep it.
pub const SCHEMA_VERSION: u32 = 1;

/// What the context package holds for one file.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum FileView {
    /// The metadata card m(e) only.
    Metadata {
        /// The card.
        card: MetadataCard,
    },
    /// The whole text (promoted, and it fit).
    FullText {
        /// The card (kept for its structure).
        card: MetadataCard,
        /// The file's text.
        text: String,
    },
    /// The promoted spans (promoted, but the whole file did not fit).
    Spans {
        /// The card.
        card: MetadataCard,
        /// The spans of the definitions on the path.
        spans: Vec<TextSpan>,
    },
}

impl FileView {
    /// The card of the view.
    pub fn card(&self) -> &MetadataCard {
        match self {
            FileView::Metadata { card }
            | FileView::FullText { card, .. }
            | FileView::Spans { card, .. } => card,
        }
    }

    /// A short name of the view: `metadata`, `full_text` or `spans`.
    pub fn name(&self) -> &'static str {
        match self {
            FileView::Metadata { .. } => "metadata",
            FileView::FullText { .. } => "full_text",
            FileView::Spans { .. } => "spans",
        }
    }
}

/// One hop of the relation path that brought a file into the context.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hop {
    /// The context file the hop starts from.
    pub from: String,
    /// The file it reached.
    pub to: String,
    /// What it followed.
    pub via: Via,
    /// Confidence of the link.
    pub confidence: f32,
    /// The link's rationale (which rule, which name, which line).
    pub rationale: String,
}

/// One selected file of the package.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PackageFile {
    /// Repository-relative path.
    pub path: String,
    /// Final score after clustering and re-ranking, in [0, 1].
    pub score: f32,
    /// Artifact role.
    pub role: Role,
    /// Language.
    pub language: Language,
    /// True when the file is one of the task anchors.
    pub anchor: bool,
    /// The anchor whose cluster the file belongs to.
    pub anchor_of_cluster: String,
    /// The relation path from an anchor to the file (empty for anchors).
    pub path_from_anchor: Vec<Hop>,
    /// Why it was included, one line per reason.
    pub rationale: Vec<String>,
    /// Eq. 7 priority of the action that added it (none for anchors).
    pub priority: Option<Priority>,
    /// Eq. 8 promotion features and u.
    pub promotion: PromotionFeatures,
    /// u(e | q, C_t).
    pub promotion_score: f32,
    /// The view given: metadata, full text or spans.
    pub view: FileView,
    /// Estimated tokens of this file's rendering.
    pub tokens: usize,
}

/// One anchor as the Location stage scored it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnchorEntry {
    /// Repository-relative path.
    pub path: String,
    /// Score_loc of Eq. 6.
    pub score: f32,
    /// What matched.
    pub signals: Vec<String>,
}

/// A relation between two selected files.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PackageRelation {
    /// Source path.
    pub from: String,
    /// Target path.
    pub to: String,
    /// Relation kind.
    pub relation: Relation,
    /// Confidence.
    pub confidence: f32,
    /// Why the relation exists.
    pub rationale: String,
}

/// A considered file in the final order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankedFile {
    /// Repository-relative path.
    pub path: String,
    /// Its score: the final score for anchors; the normalized Location score (at
    /// most the final score) for files expansion added and for the rest.
    pub score: f32,
    /// True when the file is in `files`.
    pub selected: bool,
}

/// Time and work of one stage.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageCost {
    /// `location`, `graph`, `expansion`, `construction`.
    pub stage: String,
    /// Wall time in milliseconds.
    pub millis: f64,
}

/// The budget accounting.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BudgetReport {
    /// Γ_max in tokens: the rendered package never exceeds it.
    pub max_tokens: usize,
    /// Estimated tokens of the Markdown rendering.
    pub used_tokens: usize,
    /// Γ_loc: tokens given to the repository view.
    pub location_tokens: usize,
    /// Step budget.
    pub max_steps: usize,
    /// Expansion actions taken.
    pub steps: usize,
    /// Why expansion stopped.
    pub stop: StopReason,
    /// Files read for the lexical pass.
    pub files_read: usize,
    /// Files whose tree-sitter facts the query used: the Location stage's best
    /// candidates and the graph's scope (parsed now or reused from the session).
    pub files_parsed: usize,
    /// Wall time per stage: `location`, `scope` (growing the graph's neighbourhood),
    /// `graph`, `expansion`, `construction`.
    pub stages: Vec<StageCost>,
    /// What the language model did: calls, tokens, time and what its answers changed
    /// (`None` without a model).
    pub llm: Option<LlmUsage>,
}

/// What was left out and why.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Skipped {
    /// Files the source did not offer or could not be read (binary, too large…).
    pub unreadable: SkipStats,
    /// Selected files that did not fit the token budget, best first.
    pub over_budget: Vec<String>,
    /// Files the filter dropped: weak anchors that nothing connects, files expansion
    /// reached that added no missing aspect or bridge (and that no type relation,
    /// implicit binding or use of a task symbol ties to the context), and files below
    /// `min_score_ratio` of the best.
    pub filtered: Vec<String>,
}

/// The structured task context Ĉ.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContextPackage {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The library version that made it.
    pub library_version: String,
    /// The task text.
    pub task: String,
    /// The inferred task type.
    pub task_type: TaskType,
    /// Confidence of the task type.
    pub task_type_confidence: f32,
    /// The inferred environment.
    pub environment: Environment,
    /// Constraints the change must respect, as the language model read them from the
    /// task (empty without a model).
    pub constraints: Vec<String>,
    /// Where to look inside the files: the functions, methods and classes the task
    /// most likely concerns, best first, each with why (the Location stage's
    /// [`crate::locate::RankedDefinition`]s).
    pub definitions: Vec<RankedDefinition>,
    /// The selected files, ranked.
    pub files: Vec<PackageFile>,
    /// The task anchors Ĥ.
    pub anchors: Vec<AnchorEntry>,
    /// Relations among the selected files.
    pub relations: Vec<PackageRelation>,
    /// The compressed repository view.
    pub repository_view: RepoView,
    /// Every considered file, the likeliest to need a change first (`selected` marks
    /// the files of `files`).
    pub ranked_files: Vec<RankedFile>,
    /// What was left out.
    pub skipped: Skipped,
    /// The budget accounting.
    pub budget: BudgetReport,
    /// The historical description: the latest commits before HEAD that changed
    /// selected files, newest first (empty without a history).
    pub recent_history: Vec<HistoryEntry>,
    /// Fallbacks taken and other remarks.
    pub notes: Vec<String>,
}

/// One commit of the package's historical description.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryEntry {
    /// The commit id, abbreviated to 12 hexadecimal digits.
    pub commit: String,
    /// Days from the commit to HEAD.
    pub days_before_head: f32,
    /// Its author.
    pub author: String,
    /// The first line of its message.
    pub subject: String,
    /// The selected files it changed, in package order.
    pub files: Vec<String>,
}

/// Longest task excerpt rendered in Markdown.
const TASK_EXCERPT_CHARS: usize = 1_200;
/// Definitions rendered in Markdown's "Where to look" at most.
const MAX_RENDERED_DEFINITIONS: usize = 8;
/// Relations rendered in Markdown at most.
const MAX_RENDERED_RELATIONS: usize = 40;

impl ContextPackage {
    /// The package as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }

    /// The paths of the selected files, in rank order.
    pub fn file_paths(&self) -> Vec<&str> {
        self.files.iter().map(|f| f.path.as_str()).collect()
    }

    /// The package rendered as Markdown for a prompt; within `budget.max_tokens`. A
    /// picture of the files and their relations ([`ContextPackage::to_mermaid`]) ends
    /// it when it fits in the budget too: GitHub and notebooks draw it.
    pub fn to_markdown(&self) -> String {
        let mut out = self.render_head();
        for (rank, file) in self.files.iter().enumerate() {
            out.push_str(&render_file(rank + 1, file));
        }
        out.push_str(&self.render_tail());
        if !self.files.is_empty() {
            let picture = format!("## Picture\n\n```mermaid\n{}```\n", self.to_mermaid());
            if estimate_tokens(&out) + estimate_tokens(&picture) <= self.budget.max_tokens {
                out.push_str(&picture);
            }
        }
        out
    }

    /// The files of the package (anchors drawn apart) and the relations among them as
    /// a Mermaid flowchart, best file first: the same files and relations as the SVG
    /// ([`super::picture::Drawing`]). Labels are escaped (no quote, backtick, angle
    /// bracket or line break of a path reaches the diagram's syntax).
    pub fn to_mermaid(&self) -> String {
        let drawing = super::picture::Drawing::of(self);
        let mut out = String::from("flowchart LR\n");
        for (k, file) in drawing.files.iter().enumerate() {
            let label = mermaid_label(&format!("{}\n{}", file.path, file.role));
            out.push_str(&format!("  f{}[\"{label}\"]\n", k + 1));
        }
        for r in &drawing.relations {
            out.push_str(&format!(
                "  f{} -->|{}| f{}\n",
                r.from + 1,
                r.kind,
                r.to + 1
            ));
        }
        let anchors: Vec<String> = drawing
            .files
            .iter()
            .enumerate()
            .filter(|(_, f)| f.anchor)
            .map(|(k, _)| format!("f{}", k + 1))
            .collect();
        if !anchors.is_empty() {
            out.push_str("  classDef anchor stroke-width:3px\n");
            out.push_str(&format!("  class {} anchor\n", anchors.join(",")));
        }
        out
    }

    /// The package as a standalone SVG picture of its files and the relations among
    /// them (see [`super::picture`]): what the Python binding shows in a notebook.
    pub fn to_svg(&self) -> String {
        super::picture::svg(&serde_json::to_value(self).unwrap_or_default())
    }

    /// Everything before the files: task, environment, anchors, repository view.
    pub(crate) fn render_head(&self) -> String {
        let mut out = String::from("# Task context\n\n## Task\n\n");
        let task: String = self.task.chars().take(TASK_EXCERPT_CHARS).collect();
        out.push_str(task.trim());
        if self.task.chars().count() > TASK_EXCERPT_CHARS {
            out.push_str(" …");
        }
        out.push_str(&format!(
            "\n\nTask type: {:?} ({:.2}).",
            self.task_type, self.task_type_confidence
        ));
        let languages: Vec<String> = self
            .environment
            .languages
            .iter()
            .take(4)
            .map(|(l, share)| format!("{l} {:.0}%", share * 100.0))
            .collect();
        if !languages.is_empty() {
            out.push_str(&format!(" Languages: {}.", languages.join(", ")));
        }
        let frameworks: Vec<&str> = self
            .environment
            .frameworks
            .iter()
            .map(|f| f.name.as_str())
            .collect();
        if !frameworks.is_empty() {
            out.push_str(&format!(" Frameworks: {}.", frameworks.join(", ")));
        }
        out.push_str("\n\n");
        if !self.constraints.is_empty() {
            out.push_str("Constraints:\n");
            for c in &self.constraints {
                out.push_str(&format!("- {c}\n"));
            }
            out.push('\n');
        }
        out.push_str(&self.render_definitions());
        if !self.repository_view.text.is_empty() {
            out.push_str("## Repository view\n\n```text\n");
            out.push_str(&self.repository_view.text);
            if !self.repository_view.text.ends_with('\n') {
                out.push('\n');
            }
            out.push_str("```\n\n");
        }
        out.push_str("## Files\n\n");
        out
    }

    /// "Where to look": the best definitions with evidence of their own, each with its
    /// lines and its first reason (empty when there is none).
    fn render_definitions(&self) -> String {
        if self.definitions.iter().all(|d| d.why.is_empty()) {
            return String::new();
        }
        let mut out = String::from("## Where to look\n\n");
        // Those with evidence of their own: a definition listed for its file's rank alone
        // is not worth a prompt's tokens.
        let shown = self.definitions.iter().filter(|d| !d.why.is_empty());
        for d in shown.take(MAX_RENDERED_DEFINITIONS) {
            out.push_str(&format!(
                "- `{}` `{}` (lines {}–{})",
                d.path, d.name, d.span.start, d.span.end
            ));
            if let Some(why) = d.why.first() {
                out.push_str(&format!(": {why}"));
            }
            out.push('\n');
        }
        out.push('\n');
        out
    }

    /// Everything after the files: relations, recent history and what was left out.
    pub(crate) fn render_tail(&self) -> String {
        let mut out = String::new();
        if !self.relations.is_empty() {
            out.push_str("## Relations\n\n");
            for r in self.relations.iter().take(MAX_RENDERED_RELATIONS) {
                out.push_str(&format!(
                    "- `{}` —{}→ `{}`\n",
                    r.from,
                    r.relation.name(),
                    r.to
                ));
            }
            if self.relations.len() > MAX_RENDERED_RELATIONS {
                out.push_str(&format!(
                    "- … {} more\n",
                    self.relations.len() - MAX_RENDERED_RELATIONS
                ));
            }
            out.push('\n');
        }
        if !self.recent_history.is_empty() {
            out.push_str("## Recent history\n\n");
            for h in &self.recent_history {
                let files: Vec<String> = h.files.iter().map(|f| format!("`{f}`")).collect();
                out.push_str(&format!(
                    "- {} ({:.0} days before HEAD, {}): {} — {}\n",
                    h.commit,
                    h.days_before_head,
                    h.author,
                    h.subject,
                    files.join(", ")
                ));
            }
            out.push('\n');
        }
        if !self.skipped.over_budget.is_empty() {
            out.push_str(&format!(
                "Left out for the budget: {}\n",
                self.skipped.over_budget.len()
            ));
        }
        out
    }
}

/// A Mermaid node label: the text with every character the diagram's syntax or the
/// surrounding Markdown fence could read escaped as a Mermaid entity code, and line
/// breaks as `<br>`.
fn mermaid_label(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("<br>"),
            '#' => out.push_str("#35;"),
            '"' => out.push_str("#quot;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '`' => out.push_str("#96;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// One file's Markdown section.
pub(crate) fn render_file(rank: usize, file: &PackageFile) -> String {
    let card = file.view.card();
    let mut out = format!(
        "### {rank}. `{}` — {} · score {:.2}{}\n\n",
        file.path,
        file.role,
        file.score,
        if file.anchor { " · anchor" } else { "" }
    );
    for reason in &file.rationale {
        out.push_str(&format!("> {reason}\n"));
    }
    if !file.rationale.is_empty() {
        out.push('\n');
    }
    out.push_str(&card.render());
    match &file.view {
        FileView::Metadata { .. } => {}
        FileView::FullText { text, .. } => {
            let fence = fence_for(text);
            out.push_str(&format!(
                "\n{fence}{}\n{}\n{fence}\n",
                fence_language(card.language),
                text.trim_end()
            ));
        }
        FileView::Spans { spans, .. } => {
            for span in spans {
                let fence = fence_for(&span.text);
                out.push_str(&format!(
                    "\nLines {}–{} ({}):\n{fence}{}\n{}\n{fence}\n",
                    span.start,
                    span.end,
                    span.label,
                    fence_language(card.language),
                    span.text.trim_end()
                ));
            }
        }
    }
    out.push('\n');
    out
}

/// Estimated tokens of one file's section.
pub(crate) fn file_tokens(rank: usize, file: &PackageFile) -> usize {
    estimate_tokens(&render_file(rank, file))
}

/// A backtick fence longer than any backtick run in `text`, so the block cannot be
/// closed early by the file's own Markdown.
fn fence_for(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat(longest.max(2) + 1)
}

/// The info string of a fenced code block.
fn fence_language(language: Language) -> String {
    if language.is_code() {
        language.name().to_lowercase()
    } else {
        String::new()
    }
}
