//! The LLM-assisted parts of the Location stage (paper §III.C), each one constrained
//! prompt with fixed output fields, validated, and recorded:
//!
//! - **Environment-aware analysis**: the task type, the modules in scope and the
//!   constraints the change must respect. A valid task type replaces the pattern
//!   classifier's with confidence [`JUDGED_TYPE_CONFIDENCE`]; module names must be
//!   modules of the repository; constraints are kept as text.
//! - **s_sum of Eq. 6**: the alignment of the task with the metadata views of the top
//!   [`SUMMARY_CANDIDATES`] candidates, in one batched call, a score in [0, 1] per
//!   candidate number. Only numbers that were asked for count.

use super::environment::Environment;
use super::task_type::TaskType;
use crate::plugins::{
    ENVIRONMENT_PROMPT, LlmCaller, SUMMARY_PROMPT, TASK_SHARE, data_block, numbered,
    numbered_prompt, render, unit_number,
};

/// Candidates whose alignment the model scores (one call).
pub const SUMMARY_CANDIDATES: usize = 20;
/// Confidence given to a task type the model chose.
pub const JUDGED_TYPE_CONFIDENCE: f32 = 0.9;
/// Constraints kept at most, and their length.
const MAX_CONSTRAINTS: usize = 3;
const MAX_CONSTRAINT_CHARS: usize = 200;

/// What the model said about the task and the repository.
#[derive(Debug, Default, PartialEq)]
pub(super) struct EnvironmentJudgment {
    /// A valid task type, if it gave one.
    pub task_type: Option<TaskType>,
    /// Indexes of `Environment::modules` it named.
    pub modules: Vec<usize>,
    /// Constraints, trimmed and capped.
    pub constraints: Vec<String>,
}

/// Asks for the environment analysis; `None` when not asked or unusable.
pub(super) fn environment(
    llm: &LlmCaller<'_>,
    task: &str,
    environment: &Environment,
) -> Option<EnvironmentJudgment> {
    const PURPOSE: &str = "environment analysis";
    if !llm.use_.environment {
        return None;
    }
    let budget = llm.prompt_budget();
    let task_budget = (budget as f32 * TASK_SHARE) as usize;
    let types: Vec<&str> = TaskType::ALL.iter().map(|t| t.name()).collect();
    let prompt = render(
        ENVIRONMENT_PROMPT,
        &[
            ("task_types", &types.join(", ")),
            ("task", &data_block("task", task, task_budget)),
            (
                "environment",
                &data_block(
                    "repository",
                    &describe(environment),
                    budget.saturating_sub(task_budget + 400),
                ),
            ),
        ],
    );
    let answer = llm.ask(PURPOSE, &prompt)?;
    let judgment = EnvironmentJudgment {
        task_type: answer
            .get("task_type")
            .and_then(|v| v.as_str())
            .and_then(TaskType::from_name),
        modules: answer
            .get("modules")
            .and_then(|v| v.as_array())
            .map(|names| {
                let mut found: Vec<usize> = names
                    .iter()
                    .filter_map(|n| n.as_str())
                    .filter_map(|n| {
                        environment
                            .modules
                            .iter()
                            .position(|m| !n.is_empty() && (m.name == n || m.root == n))
                    })
                    .collect();
                found.sort_unstable();
                found.dedup();
                found
            })
            .unwrap_or_default(),
        constraints: answer
            .get("constraints")
            .and_then(|v| v.as_array())
            .map(|items| {
                items
                    .iter()
                    .filter_map(|c| c.as_str())
                    .map(|c| {
                        c.trim()
                            .chars()
                            .take(MAX_CONSTRAINT_CHARS)
                            .collect::<String>()
                    })
                    .filter(|c| !c.is_empty())
                    .take(MAX_CONSTRAINTS)
                    .collect()
            })
            .unwrap_or_default(),
    };
    if judgment == EnvironmentJudgment::default() {
        llm.unusable(
            PURPOSE,
            "the answer had no valid task_type, modules or constraints",
        );
        return None;
    }
    llm.note(format!(
        "environment analysis: task type {}, {} module(s) in scope, {} constraint(s)",
        judgment.task_type.map_or("unchanged", |t| t.name()),
        judgment.modules.len(),
        judgment.constraints.len()
    ));
    Some(judgment)
}

/// The repository as the environment prompt shows it: languages, frameworks, modules.
fn describe(environment: &Environment) -> String {
    let mut out = String::new();
    let languages: Vec<String> = environment
        .languages
        .iter()
        .take(6)
        .map(|(l, share)| format!("{l} {:.0}%", share * 100.0))
        .collect();
    out.push_str(&format!("languages: {}\n", languages.join(", ")));
    let frameworks: Vec<&str> = environment
        .frameworks
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    out.push_str(&format!("frameworks: {}\n", frameworks.join(", ")));
    out.push_str("modules (name: directory, files):\n");
    for m in &environment.modules {
        let root = if m.root.is_empty() { "." } else { &m.root };
        out.push_str(&format!("- {}: {root}, {}\n", m.name, m.files));
    }
    out
}

/// Asks the model to score the task's alignment with each candidate's metadata view.
/// `candidates` are (artifact index, view); returns (artifact index, score) for the
/// candidates the model scored validly.
pub(super) fn summary(
    llm: &LlmCaller<'_>,
    task: &str,
    candidates: &[(usize, String)],
) -> Vec<(usize, f32)> {
    const PURPOSE: &str = "s_sum (Eq. 6)";
    if !llm.use_.summary || candidates.is_empty() {
        return Vec::new();
    }
    let views: Vec<String> = candidates.iter().map(|(_, view)| view.clone()).collect();
    let prompt = numbered_prompt(SUMMARY_PROMPT, llm.prompt_budget(), task, &views);
    let Some(answer) = llm.ask(PURPOSE, &prompt) else {
        return Vec::new();
    };
    let scores = numbered(answer.get("scores"), candidates.len(), unit_number);
    if scores.is_empty() {
        llm.unusable(PURPOSE, "no valid score for any candidate number");
        return Vec::new();
    }
    llm.note(format!(
        "s_sum (Eq. 6): the model scored {} of {} candidates",
        scores.len(),
        candidates.len()
    ));
    scores
        .into_iter()
        .map(|(k, score)| (candidates[k].0, score))
        .collect()
}
