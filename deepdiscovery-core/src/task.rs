//! The task model: what a caller asks (`Task`) and what it may cost (`Budget`).

use serde::Serialize;

use crate::{Error, Result};

/// Optional hints a caller already has: files open in an editor, symbols named by a
/// tool, failing test ids.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Hints {
    /// Repository-relative paths the caller considers relevant.
    pub paths: Vec<String>,
    /// Symbol names (functions, classes, config keys) the caller considers relevant.
    pub symbols: Vec<String>,
    /// Failing test ids (`tests/test_x.py::TestY::test_z`, `pkg.FooTest#bar`).
    pub failing_tests: Vec<String>,
}

/// A software task in plain language, with optional hints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Task {
    /// The task text: an issue, a change request, a failing test's output.
    pub text: String,
    /// What the caller already knows.
    pub hints: Hints,
}

impl Task {
    /// A task from its text.
    ///
    /// # Errors
    /// [`Error::EmptyTask`] when the text is empty or only whitespace.
    pub fn new(text: impl Into<String>) -> Result<Task> {
        let text = text.into();
        if text.trim().is_empty() {
            return Err(Error::EmptyTask);
        }
        Ok(Task {
            text,
            hints: Hints::default(),
        })
    }

    /// The same task with hints.
    pub fn with_hints(mut self, hints: Hints) -> Task {
        self.hints = hints;
        self
    }
}

/// The normalized budget Γ_max of paper Eq. 3: estimated tokens of the context
/// package and exploration steps, split into Γ_loc for the Location stage and the rest
/// for Inference.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Budget {
    /// Token budget of the rendered context package.
    pub max_tokens: usize,
    /// Exploration steps (expansion actions) allowed.
    pub max_steps: usize,
    /// Share of Γ_max given to the Location stage (Γ_loc / Γ_max), in (0, 1).
    pub location_share: f32,
    /// Files whose text the lexical pass reads at most (100,000): in a larger
    /// repository the files whose path matches the task best are read, the others
    /// are ranked by their path alone, and the package says so in a note.
    pub max_files: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            max_tokens: 16_000,
            max_steps: 64,
            location_share: 0.25,
            max_files: 100_000,
        }
    }
}

impl Budget {
    /// Checks the budget's ranges.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] for a zero budget or a share outside (0, 1).
    pub fn validate(&self) -> Result<()> {
        if self.max_tokens == 0 || self.max_steps == 0 || self.max_files == 0 {
            return Err(Error::InvalidConfig(
                "budget tokens, steps and files must be positive".into(),
            ));
        }
        if !(self.location_share > 0.0 && self.location_share < 1.0) {
            return Err(Error::InvalidConfig(format!(
                "location_share must be in (0, 1), got {}",
                self.location_share
            )));
        }
        Ok(())
    }

    /// Γ_loc in tokens.
    pub fn location_tokens(&self) -> usize {
        (self.max_tokens as f32 * self.location_share) as usize
    }
}

/// Deterministic token estimate of a text: about four bytes per token for code and
/// prose alike, rounded up (no tokenizer dependency; stable across runs and
/// platforms).
pub fn estimate_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}
