//! Issue templates echoed by the task.
//!
//! Most issues are written from the repository's own issue template: its headings and
//! prompts ("Bug description", "Expected behavior", "OS / Environment", "Steps to
//! reproduce") come back in the task, word for word. They say nothing about the code,
//! yet they are query terms like any other, and the template file itself matches them
//! best of all (an issue template ranked first for a bug in a checker). So the lines
//! of the task that repeat a line of an issue template are dropped from the text the
//! query is built from, and the templates are no candidates: the task was written from
//! them, not about them.

use std::collections::HashSet;

/// Whether `path` is an issue or pull-request template (GitHub, GitLab, Gitea
/// conventions).
pub(crate) fn is_issue_template(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let dir = &lower[..lower.len() - name.len()];
    let in_template_dir = [
        ".github/issue_template/",
        ".gitea/issue_template/",
        ".gitlab/issue_templates/",
        ".gitlab/merge_request_templates/",
        ".github/pull_request_template/",
        ".github/discussion_template/",
    ]
    .iter()
    .any(|d| dir.ends_with(d));
    let template_name =
        name.starts_with("issue_template.") || name.starts_with("pull_request_template.");
    in_template_dir || template_name
}

/// The lines of a repository's issue templates, normalized.
#[derive(Debug, Default)]
pub(crate) struct TemplateEcho(HashSet<String>);

impl TemplateEcho {
    /// The echo of the templates' texts.
    pub(crate) fn new<'a>(texts: impl IntoIterator<Item = &'a str>) -> Self {
        TemplateEcho(
            texts
                .into_iter()
                .flat_map(str::lines)
                .map(normalize)
                .filter(|l| !l.is_empty())
                .collect(),
        )
    }

    /// `task` without the lines that repeat a template line.
    pub(crate) fn strip(&self, task: &str) -> String {
        if self.0.is_empty() {
            return task.to_string();
        }
        let mut out = String::with_capacity(task.len());
        for line in task.lines() {
            let normalized = normalize(line);
            if normalized.is_empty() || !self.0.contains(&normalized) {
                out.push_str(line);
                out.push('\n');
            }
        }
        out
    }
}

/// A line as a template and the issue rendered from it both show it: without
/// Markdown markers, YAML form keys, quotes and case; empty when fewer than three
/// letters remain (separators, fences, blank lines).
fn normalize(line: &str) -> String {
    let mut s = line.trim();
    for key in [
        "label:",
        "description:",
        "placeholder:",
        "value:",
        "name:",
        "title:",
        "about:",
        "- label:",
    ] {
        if let Some(rest) = s.strip_prefix(key) {
            s = rest.trim();
            break;
        }
    }
    let s = s.trim_start_matches(['#', '>', '-', '*', '+', ' ', '\t']);
    let s = s.trim_matches(['"', '\'', '*', '_', '`', ':', ' ', '|']);
    let words: Vec<String> = s
        .split_whitespace()
        .map(|w| w.to_ascii_lowercase())
        .collect();
    let letters = s.chars().filter(char::is_ascii_alphabetic).count();
    if letters < 3 {
        String::new()
    } else {
        words.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_paths_are_recognized() {
        for path in [
            ".github/ISSUE_TEMPLATE/BUG-REPORT.yml",
            ".github/ISSUE_TEMPLATE/bug_report.md",
            ".github/ISSUE_TEMPLATE.md",
            ".github/PULL_REQUEST_TEMPLATE.md",
            "docs/ISSUE_TEMPLATE.md",
            ".gitlab/issue_templates/Bug.md",
        ] {
            assert!(is_issue_template(path), "{path}");
        }
        for path in [
            ".github/workflows/ci.yml",
            "src/issue_template_renderer.py",
            "templates/issue.html",
        ] {
            assert!(!is_issue_template(path), "{path}");
        }
    }

    #[test]
    fn lines_echoed_from_a_yaml_form_or_markdown_template_are_dropped() {
        let form = "body:\n  - type: textarea\n    attributes:\n      label: Bug description\n      \
                    placeholder: |\n        # Please disable message unused-import\n  \
                    - type: textarea\n    attributes:\n      label: Expected behavior\n";
        let markdown = "## Steps to reproduce\n\n1.\n\n## Environment\n";
        let echo = TemplateEcho::new([form, markdown]);
        let task = "### Bug description\n\nThe note tag `???` is ignored by W0511 (fixme).\n\n\
                    ### Expected behavior\n\nBoth notes reported.\n\n## Steps to reproduce\n\
                    pylint test.py --notes=\"YES,???\"\n";
        let stripped = echo.strip(task);
        assert!(!stripped.contains("Bug description"), "{stripped}");
        assert!(!stripped.contains("Expected behavior"), "{stripped}");
        assert!(!stripped.contains("Steps to reproduce"), "{stripped}");
        assert!(stripped.contains("W0511 (fixme)"), "{stripped}");
        assert!(stripped.contains("--notes"), "{stripped}");
        // Without templates the task is unchanged.
        assert_eq!(TemplateEcho::default().strip("a\nb"), "a\nb");
    }
}
