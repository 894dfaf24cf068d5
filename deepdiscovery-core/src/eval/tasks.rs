//! The evaluation's task files, read once for every driver: the Rust tool
//! (`examples/eval_tasks.rs`), the Python `deepdiscovery.eval` (`load_tasks`,
//! `evaluate`) and the CLI's `eval`. A task file is JSONL, one task per non-blank line;
//! a line that is not a task is an error naming the file and the line, everywhere
//! (never skipped: a result must not quietly stand on fewer tasks than its file holds).
//!
//! A task is a JSON object with
//! - `id`: its name (a string or a number);
//! - `repo`: the repository it comes from (`owner/name`);
//! - `base_commit` (optional): the commit the task starts from;
//! - `task`: the task in plain language;
//! - `gold_files`: the repository-relative paths the fix changed;
//! - `gold_new_files` (optional): the files the fix creates;
//! - `language` (optional): the repository's main language, for per-language tables.
//!
//! Other fields are allowed and ignored.

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::options::json_kind;

/// One evaluation task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EvalTask {
    /// Its name (a number in the file becomes its decimal text).
    pub id: String,
    /// The repository, `owner/name`.
    pub repo: String,
    /// The commit the task starts from, when the file gives one.
    pub base_commit: Option<String>,
    /// The task in plain language.
    pub task: String,
    /// The files the fix changed.
    pub gold_files: Vec<String>,
    /// The files the fix creates (no retriever can return them).
    pub gold_new_files: Vec<String>,
    /// The repository's main language, when the file gives one.
    pub language: Option<String>,
}

/// A task file or a task that cannot be read; the message names the file and line
/// (or the task) at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskFileError(pub String);

impl std::fmt::Display for TaskFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TaskFileError {}

/// The fields every task must have.
const REQUIRED: [&str; 4] = ["id", "repo", "task", "gold_files"];

impl EvalTask {
    /// The task a JSON value holds; `at` names where it comes from (`file:line`, or
    /// `task 3`) in the error.
    ///
    /// # Errors
    /// [`TaskFileError`] when the value is no object, lacks a required field, or has a
    /// field of the wrong type.
    pub fn from_value(value: &Value, at: &str) -> Result<EvalTask, TaskFileError> {
        let fail = |message: String| TaskFileError(format!("{at}: {message}"));
        let Value::Object(object) = value else {
            return Err(fail(format!(
                "a task must be a JSON object, got {}",
                json_kind(value)
            )));
        };
        let missing: Vec<&str> = REQUIRED
            .iter()
            .copied()
            .filter(|key| !object.contains_key(*key))
            .collect();
        if !missing.is_empty() {
            return Err(fail(format!("the task has no {}", missing.join(", "))));
        }
        let id = match &object["id"] {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            other => {
                return Err(fail(format!(
                    "id must be a string, got {}",
                    json_kind(other)
                )));
            }
        };
        let text = |key: &str| match object.get(key) {
            Some(Value::String(s)) => Ok(Some(s.clone())),
            None | Some(Value::Null) => Ok(None),
            Some(other) => Err(fail(format!(
                "{key} must be a string, got {}",
                json_kind(other)
            ))),
        };
        let paths = |key: &str| match object.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|p| p.as_str().map(str::to_string))
                .collect::<Option<Vec<String>>>()
                .ok_or_else(|| fail(format!("{key} must be an array of paths"))),
            Some(_) => Err(fail(format!("{key} must be an array of paths"))),
        };
        let required = |value: Option<String>, key: &str| {
            value.ok_or_else(|| fail(format!("{key} must be a string, got null")))
        };
        Ok(EvalTask {
            id,
            repo: required(text("repo")?, "repo")?,
            base_commit: text("base_commit")?,
            task: required(text("task")?, "task")?,
            gold_files: paths("gold_files")?,
            gold_new_files: paths("gold_new_files")?,
            language: text("language")?,
        })
    }

    /// Every gold file: `gold_files`, then the new files it does not list already.
    pub fn gold_including_new(&self) -> Vec<&str> {
        let mut gold: Vec<&str> = self.gold_files.iter().map(String::as_str).collect();
        for new in &self.gold_new_files {
            if !gold.contains(&new.as_str()) {
                gold.push(new);
            }
        }
        gold
    }

    /// Whether the fix creates `path`.
    pub fn is_new(&self, path: &str) -> bool {
        self.gold_new_files.iter().any(|n| n == path)
    }
}

/// The tasks of a JSONL text, one per non-blank line; `name` names the file in
/// errors.
///
/// # Errors
/// [`TaskFileError`] naming `name:line` for the first line that is not a task.
pub fn parse_tasks(text: &str, name: &str) -> Result<Vec<EvalTask>, TaskFileError> {
    let mut tasks = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = format!("{name}:{}", number + 1);
        let value: Value = serde_json::from_str(line)
            .map_err(|e| TaskFileError(format!("{at}: not a JSON object: {e}")))?;
        tasks.push(EvalTask::from_value(&value, &at)?);
    }
    Ok(tasks)
}

/// The tasks of a JSONL file ([`parse_tasks`]).
///
/// # Errors
/// [`TaskFileError`] when the file cannot be read (or is not UTF-8), or for its first
/// line that is not a task.
pub fn load_tasks(path: &Path) -> Result<Vec<EvalTask>, TaskFileError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|e| TaskFileError(format!("cannot read the tasks file {name}: {e}")))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| TaskFileError(format!("{name}: not UTF-8 text: {e}")))?;
    parse_tasks(&text, &name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"id": "a-1", "repo": "o/r", "base_commit": "abc", "task": "t", "gold_files": ["x.py"], "extra": 1}"#;

    #[test]
    fn every_line_is_a_task_or_an_error_naming_it() {
        let text = format!(
            "{GOOD}\n\n{}\n",
            r#"{"id": 7, "repo": "o/r", "task": "u", "gold_files": [], "gold_new_files": null}"#
        );
        let tasks = parse_tasks(&text, "t.jsonl").unwrap();
        assert_eq!(tasks.len(), 2);
        assert_eq!(tasks[0].base_commit.as_deref(), Some("abc"));
        assert_eq!(tasks[1].id, "7");
        assert_eq!(tasks[1].base_commit, None);
        let bad = [
            ("not json", "t.jsonl:2: not a JSON object"),
            (
                "[1, 2]",
                "t.jsonl:2: a task must be a JSON object, got an array",
            ),
            (
                r#"{"id": "b"}"#,
                "t.jsonl:2: the task has no repo, task, gold_files",
            ),
            (
                r#"{"id": "b", "repo": "o/r", "task": 3, "gold_files": []}"#,
                "t.jsonl:2: task must be a string, got a number",
            ),
            (
                r#"{"id": "b", "repo": "o/r", "task": "t", "gold_files": "x.py"}"#,
                "t.jsonl:2: gold_files must be an array of paths",
            ),
            (
                r#"{"id": "b", "repo": "o/r", "task": "t", "gold_files": [1]}"#,
                "t.jsonl:2: gold_files must be an array of paths",
            ),
            (
                r#"{"id": ["b"], "repo": "o/r", "task": "t", "gold_files": []}"#,
                "t.jsonl:2: id must be a string, got an array",
            ),
            (
                r#"{"id": "b", "repo": null, "task": "t", "gold_files": []}"#,
                "t.jsonl:2: repo must be a string, got null",
            ),
        ];
        for (line, expected) in bad {
            let err = parse_tasks(&format!("{GOOD}\n{line}\n{GOOD}"), "t.jsonl").unwrap_err();
            assert!(err.0.starts_with(expected), "{line}: {err}");
        }
    }

    #[test]
    fn gold_files_with_the_new_ones() {
        let task = EvalTask::from_value(
            &serde_json::json!({"id": "a", "repo": "o/r", "task": "t",
                "gold_files": ["a.py", "b.py"], "gold_new_files": ["b.py", "c.py"]}),
            "task 1",
        )
        .unwrap();
        assert_eq!(task.gold_including_new(), ["a.py", "b.py", "c.py"]);
        assert!(task.is_new("c.py") && !task.is_new("a.py"));
    }

    #[test]
    fn an_unreadable_file_is_named() {
        let err = load_tasks(Path::new("/nonexistent/tasks.jsonl")).unwrap_err();
        assert!(err.0.contains("/nonexistent/tasks.jsonl"), "{err}");
    }
}
