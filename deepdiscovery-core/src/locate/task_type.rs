//! The task type and the artifact-role prior π(role | task type) of paper Eq. 6.

use serde::Serialize;

use crate::artifact::Role;

/// What kind of change the task asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskType {
    /// Something is wrong and must be fixed.
    BugFix,
    /// New behaviour.
    Feature,
    /// A failing or missing test.
    TestRepair,
    /// Configuration or deployment settings.
    ConfigUpdate,
    /// Restructuring without a change of behaviour.
    Refactor,
    /// Speed or memory.
    Performance,
    /// Documentation.
    Docs,
}

/// Classifies a task text; returns the type and a confidence in [0, 1].
pub fn classify(_text: &str) -> (TaskType, f32) {
    (TaskType::BugFix, 0.0)
}

/// π(role | task type): a prior over artifact roles, in [0, 1] per role.
pub fn role_prior(_task_type: TaskType, _role: Role) -> f32 {
    0.5
}
