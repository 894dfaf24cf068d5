//! Environment-aware analysis of the repository (paper §III.C): the technology stack
//! (languages by share, frameworks from manifests and imports) and the modules
//! (subprojects from build manifests), and the module scope a task text points at.

use serde::Serialize;

use crate::artifact::{Language, Role};

/// A framework or platform found in the repository, with the evidence for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Framework {
    /// Canonical name (`django`, `spring`, `react`, `gin`, `cargo-workspace`…).
    pub name: String,
    /// Where it was seen (`requirements.txt: Django`, `pom.xml: spring-boot-starter`).
    pub evidence: String,
}

/// A module (subproject) rooted at a build manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Module {
    /// Directory of the module (`""` for the repository root).
    pub root: String,
    /// Path of its manifest.
    pub manifest: String,
    /// Its declared name when the manifest gives one, else the directory name.
    pub name: String,
    /// Number of artifacts in it (excluding nested modules).
    pub files: usize,
}

/// The inferred technology stack and module structure.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Environment {
    /// Languages of code artifacts with their share of them, largest first.
    pub languages: Vec<(Language, f32)>,
    /// Frameworks found, sorted by name.
    pub frameworks: Vec<Framework>,
    /// Modules, sorted by root.
    pub modules: Vec<Module>,
}

/// One listed artifact as the analysis sees it.
#[derive(Debug, Clone, Copy)]
pub struct ListedFile<'a> {
    /// Repository-relative path.
    pub path: &'a str,
    /// Language detected from the path.
    pub language: Language,
    /// Role from the path.
    pub role: Role,
}

impl Environment {
    /// Infers the environment from the listing; `read` returns the text of a file
    /// (used for manifests only, so the cost stays small).
    pub fn infer(_files: &[ListedFile<'_>], _read: &dyn Fn(&str) -> Option<String>) -> Environment {
        Environment::default()
    }

    /// Modules the task text points at (by module name or root directory), with a
    /// score in [0, 1], best first. Empty when the text names none.
    pub fn module_scope(&self, _task_text: &str) -> Vec<(usize, f32)> {
        Vec::new()
    }
}
