//! Running one evaluation task, once for every driver: the Rust tool
//! (`examples/eval_tasks.rs`, which also writes the training data of `make train`)
//! and the Python `deepdiscovery.evaluate` (the CLI's `eval`) both call [`run_in`].
//!
//! A run is `discover` (or the Location stage alone, [`Mode::Locate`]) in a session
//! on the task's repository. What it gave is a [`TaskRun`]: the ranking scored (the
//! package's `ranked_files`, or the anchors when it is empty), the anchors, the
//! returned set and what it cost. [`TaskResult`] scores it against the task's gold
//! files ([`TaskScore`]) and writes the JSON line of the Rust tool's `--json`, the
//! feature dump when [`RunOptions::features`] asks for the candidates' rows.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::{EvalTask, TaskScore, ensure_checkout, remove_dir};
use crate::cache::DiskCache;
use crate::infer::{COMPLETION_FEATURES, ContextPackage, DiscoverConfig, StopReason};
use crate::locate::{FEATURE_NAMES, Location};
use crate::{Session, Task};

/// How many ranked files (besides the gold files) a JSON line lists under `top`.
pub const JSON_TOP: usize = 20;

/// Which stage a run asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// `Session::discover`: a package, with a returned set.
    #[default]
    Discover,
    /// `Session::locate` only: a ranking and anchors, no returned set.
    Locate,
}

impl Mode {
    /// The stage's name, as reports and JSON lines spell it (`discover_ms`…).
    pub fn name(self) -> &'static str {
        match self {
            Mode::Discover => "discover",
            Mode::Locate => "locate",
        }
    }
}

/// What every task of a run is asked.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// `discover` or `locate`.
    pub mode: Mode,
    /// The configuration of `discover`; [`Mode::Locate`] uses its Location part.
    pub config: DiscoverConfig,
    /// The embedder every task's session gets (the in-process transformer of
    /// `eval_tasks --embedder-model`, loaded once for the run), if any.
    pub embedder: Option<RunEmbedder>,
    /// Keep the feature rows of the candidates (the training data of `make train`):
    /// the learned scorer's rows with [`Mode::Locate`], the learned change-set
    /// completion's without.
    pub features: bool,
}

/// An embedder shared by every task of a run.
#[derive(Clone)]
pub struct RunEmbedder(pub Arc<dyn crate::plugins::Embedder>);

impl std::fmt::Debug for RunEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RunEmbedder(dimension {})", self.0.dimension())
    }
}

/// Where a run finds its tasks' repositories ([`run_checkout`]).
#[derive(Debug, Clone, Default)]
pub struct Checkouts {
    /// Where checkouts live, one per task id.
    pub dir: std::path::PathBuf,
    /// Where the repositories' git directories live ([`super::find_mirror`]).
    pub mirrors: std::path::PathBuf,
    /// Check out git work trees with the task commit's ancestors.
    pub with_history: bool,
    /// Delete each checkout after its task.
    pub clean: bool,
    /// Open every session with this on-disk cache.
    pub cache: Option<Arc<DiskCache>>,
}

/// What happened to one task.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The repository or its commit could not be had: not scored.
    Unavailable(String),
    /// Opening the session, `locate` or `discover` failed (a panic too, which the
    /// session turns into an error): scored as an empty ranking, and an empty set
    /// when `discover` was asked for.
    Failed(String),
    /// `locate` or `discover` answered.
    Ran(Box<TaskRun>),
}

/// What `locate` or `discover` gave for one task.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskRun {
    /// The stage that ran.
    pub mode: Mode,
    /// The anchors Ĥ, best first.
    pub anchors: Vec<String>,
    /// The ranking scored: `ranked_files` (`ranked` of a Location), or the anchors
    /// when it is empty.
    pub ranking: Vec<String>,
    /// How long the ranking was before falling back to the anchors.
    pub ranked_len: usize,
    /// The returned set and its accounting, when `discover` ran.
    pub package: Option<PackageRun>,
    /// Files the run read.
    pub files_read: usize,
    /// Files the run parsed.
    pub files_parsed: usize,
    /// Milliseconds around `locate` or `discover` only.
    pub stage_ms: f64,
    /// Milliseconds around opening the session and the run (the stage's alone when
    /// the session was given).
    pub total_ms: f64,
    /// What else goes to the JSON line (scored entries, anchors, details, and the
    /// feature rows when asked for).
    pub json: Map<String, Value>,
}

/// The returned set of a package and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct PackageRun {
    /// The package's `files`, in rank order.
    pub files: Vec<String>,
    /// Tokens the package used.
    pub used_tokens: usize,
    /// Its budget Γ_max.
    pub max_tokens: usize,
    /// Expansion steps taken.
    pub steps: usize,
    /// Why expansion stopped.
    pub stop: StopReason,
    /// Milliseconds per stage name.
    pub stages: Vec<(String, f64)>,
}

/// Runs one task in `session` (its caches are kept for the next task on the same
/// checkout; they never change an answer). Failures are an [`Outcome::Failed`],
/// never an error: a run goes on.
pub fn run_in(session: &Session, task: &EvalTask, options: &RunOptions) -> Outcome {
    let query = match Task::new(task.task.as_str()) {
        Ok(query) => query,
        Err(e) => return Outcome::Failed(format!("Task::new: {e}")),
    };
    let gold = task.gold_including_new();
    let config = &options.config;
    let began = Instant::now();
    let millis = || began.elapsed().as_secs_f64() * 1e3;
    match options.mode {
        Mode::Locate => match session.locate(&query, &config.locate()) {
            Ok(mut location) => {
                let features = options.features.then(|| location.features.rows.clone());
                let definition_rows = options
                    .features
                    .then(|| std::mem::take(&mut location.definition_rows));
                let ms = millis();
                let mut run = TaskRun::from_location(location, &gold, ms);
                if let Some(rows) = features {
                    run.json
                        .insert("feature_names".into(), json!(FEATURE_NAMES.as_slice()));
                    run.json.insert("features".into(), json!(rows));
                }
                if let Some(rows) = definition_rows {
                    run.json.insert(
                        "definition_feature_names".into(),
                        json!(crate::locate::DEFINITION_FEATURES.as_slice()),
                    );
                    run.json.insert("definition_features".into(), json!(rows));
                }
                Outcome::Ran(Box::new(run))
            }
            Err(e) => Outcome::Failed(format!("locate: {e}")),
        },
        Mode::Discover => match session.discover_traced(&query, config) {
            Ok((package, rows)) => {
                let mut run = TaskRun::from_package(package, &gold, millis());
                if options.features {
                    run.json.insert(
                        "feature_names".into(),
                        json!(COMPLETION_FEATURES.as_slice()),
                    );
                    run.json.insert("features".into(), json!(rows.rows));
                }
                Outcome::Ran(Box::new(run))
            }
            Err(e) => Outcome::Failed(format!("discover: {e}")),
        },
    }
}

/// Opens a fresh session on the checkout at `root` (every repository read anew, or
/// through `cache`) and runs the task in it ([`run_in`]).
pub fn run_at(
    root: &Path,
    task: &EvalTask,
    options: &RunOptions,
    cache: Option<&Arc<DiskCache>>,
) -> Outcome {
    let start = Instant::now();
    let mut session = match Session::open(root) {
        Ok(session) => session,
        Err(e) => return Outcome::Failed(format!("Session::open: {e}")),
    };
    if let Some(cache) = cache {
        session = session.with_disk_cache(Arc::clone(cache));
    }
    if let Some(RunEmbedder(embedder)) = &options.embedder {
        session = session.with_embedder(Arc::clone(embedder));
    }
    let mut outcome = run_in(&session, task, options);
    if let Outcome::Ran(run) = &mut outcome {
        run.total_ms = start.elapsed().as_secs_f64() * 1e3;
    }
    outcome
}

/// The task's checkout ([`ensure_checkout`]), a fresh session on it and the run
/// ([`run_at`]), scored; with [`Checkouts::clean`] the checkout is deleted after
/// (when it cannot be, [`TaskResult::warning`] says why).
pub fn run_checkout(task: EvalTask, checkouts: &Checkouts, options: &RunOptions) -> TaskResult {
    let mut warning = None;
    let outcome = match ensure_checkout(
        &task,
        &checkouts.dir,
        &checkouts.mirrors,
        checkouts.with_history,
    ) {
        Err(reason) => Outcome::Unavailable(reason),
        Ok(root) => {
            let outcome = run_at(&root, &task, options, checkouts.cache.as_ref());
            if checkouts.clean {
                warning = remove_dir(&root).err();
            }
            outcome
        }
    };
    let mut result = TaskResult::new(task, outcome, options.mode == Mode::Discover);
    result.warning = warning;
    result
}

impl TaskRun {
    /// A Location, keeping the JSON fields the Rust tool always wrote.
    fn from_location(location: Location, gold: &[&str], stage_ms: f64) -> TaskRun {
        let mut details = to_json(&location);
        if let Some(map) = details.as_object_mut() {
            for key in ["anchors", "ranked", "cost"] {
                map.remove(key);
            }
        }
        let ranked_len = location.ranked.len();
        let scored = if location.ranked.is_empty() {
            &location.anchors
        } else {
            &location.ranked
        };
        let mut json = scored_json(scored, |f| f.path.as_str(), gold);
        json.insert("cost".into(), to_json(&location.cost));
        json.insert("anchors".into(), to_json(&location.anchors));
        json.insert("definitions".into(), to_json(&location.definitions));
        json.insert("location".into(), details);
        TaskRun {
            mode: Mode::Locate,
            anchors: paths(&location.anchors, |f| &f.path),
            ranking: paths(scored, |f| &f.path),
            ranked_len,
            package: None,
            files_read: location.cost.files_read,
            files_parsed: location.cost.files_parsed,
            stage_ms,
            total_ms: stage_ms,
            json,
        }
    }

    /// A context package. Its files go to the JSON line with the name of their view
    /// in place of the view's text.
    fn from_package(package: ContextPackage, gold: &[&str], stage_ms: f64) -> TaskRun {
        let mut details = to_json(&package);
        let selected = details
            .as_object_mut()
            .map(|map| selected_json(map, &package))
            .unwrap_or_default();
        let budget = &package.budget;
        let ranked_len = package.ranked_files.len();
        let (ranking, mut json) = if package.ranked_files.is_empty() {
            let scored = scored_json(&package.anchors, |f| f.path.as_str(), gold);
            (paths(&package.anchors, |f| &f.path), scored)
        } else {
            let scored = scored_json(&package.ranked_files, |f| f.path.as_str(), gold);
            (paths(&package.ranked_files, |f| &f.path), scored)
        };
        json.insert(
            "cost".into(),
            json!({"files_read": budget.files_read, "files_parsed": budget.files_parsed}),
        );
        json.insert("anchors".into(), to_json(&package.anchors));
        json.insert("definitions".into(), to_json(&package.definitions));
        json.insert("selected".into(), Value::Array(selected));
        json.insert("used_tokens".into(), budget.used_tokens.into());
        json.insert("max_tokens".into(), budget.max_tokens.into());
        json.insert("steps".into(), budget.steps.into());
        json.insert("stop".into(), to_json(&budget.stop));
        json.insert("budget".into(), to_json(budget));
        json.insert("package".into(), details);
        TaskRun {
            mode: Mode::Discover,
            anchors: paths(&package.anchors, |f| &f.path),
            ranking,
            ranked_len,
            package: Some(PackageRun {
                files: paths(&package.files, |f| &f.path),
                used_tokens: budget.used_tokens,
                max_tokens: budget.max_tokens,
                steps: budget.steps,
                stop: budget.stop,
                stages: (budget.stages.iter())
                    .map(|s| (s.stage.clone(), s.millis))
                    .collect(),
            }),
            files_read: budget.files_read,
            files_parsed: budget.files_parsed,
            stage_ms,
            total_ms: stage_ms,
            json,
        }
    }

    /// Where `gold`'s files landed in this run ([`TaskScore::new`]).
    pub fn score(&self, gold: &[&str]) -> TaskScore {
        let ranking: Vec<&str> = self.ranking.iter().map(String::as_str).collect();
        let anchors: Vec<&str> = self.anchors.iter().map(String::as_str).collect();
        let set: Option<Vec<&str>> =
            (self.package.as_ref()).map(|p| p.files.iter().map(String::as_str).collect());
        TaskScore::new(gold, &ranking, &anchors, set.as_deref())
    }
}

/// The package's files as the JSON line lists them (`selected`): each with the name
/// of its view in place of the view's text. Takes the package's other lists out of
/// `details` (they have their own fields).
fn selected_json(details: &mut Map<String, Value>, package: &ContextPackage) -> Vec<Value> {
    for key in ["ranked_files", "anchors", "budget", "task"] {
        details.remove(key);
    }
    let files = details.remove("files");
    let files = files.as_ref().and_then(Value::as_array);
    (package.files.iter())
        .zip(files.into_iter().flatten())
        .map(|(file, value)| {
            let mut value = value.clone();
            if let Some(value) = value.as_object_mut() {
                value.insert("view".into(), file.view.name().into());
            }
            value
        })
        .collect()
}

fn paths<T>(items: &[T], path: impl Fn(&T) -> &String) -> Vec<String> {
    items.iter().map(|item| path(item).clone()).collect()
}

fn to_json(value: &impl Serialize) -> Value {
    serde_json::to_value(value).unwrap_or_default()
}

/// The JSON fields of a ranking: the entries of the gold files (`gold_scored`) and
/// the first [`JSON_TOP`] (`top`).
fn scored_json<T: Serialize>(
    ranking: &[T],
    path: impl Fn(&T) -> &str,
    gold: &[&str],
) -> Map<String, Value> {
    let gold_scored: Vec<&T> = ranking.iter().filter(|f| gold.contains(&path(f))).collect();
    let top: Vec<&T> = ranking.iter().take(JSON_TOP).collect();
    let mut json = Map::new();
    json.insert("gold_scored".into(), to_json(&gold_scored));
    json.insert("top".into(), to_json(&top));
    json
}

/// One task, its outcome and its scores.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskResult {
    /// The task.
    pub task: EvalTask,
    /// What happened.
    pub outcome: Outcome,
    /// Where its gold files (the files the fix creates included) landed.
    pub scores: TaskScore,
    /// What went wrong around the run without changing it (a checkout that could
    /// not be deleted).
    pub warning: Option<String>,
}

impl TaskResult {
    /// Scores an outcome; `with_set` tells whether a failure counts as an empty
    /// returned set (a `discover` run) or as no set at all (`locate`).
    pub fn new(task: EvalTask, outcome: Outcome, with_set: bool) -> TaskResult {
        let gold = task.gold_including_new();
        let scores = match &outcome {
            Outcome::Ran(run) => run.score(&gold),
            _ => TaskScore::failed(gold.len(), with_set),
        };
        TaskResult {
            task,
            outcome,
            scores,
            warning: None,
        }
    }

    /// The JSON line of this task (the Rust tool's `--json`, read by `make train`
    /// and the results scripts): the task, where its gold files landed, `status`
    /// (`ok`, `error` or `unavailable`) and, for a run, what it gave. `file` is the
    /// task file it came from.
    pub fn to_json(&self, file: &Path) -> Value {
        let task = &self.task;
        let mut value = json!({
            "id": task.id,
            "file": file.display().to_string(),
            "repo": task.repo,
            "language": task.language.as_deref().unwrap_or(""),
            "gold_files": task.gold_including_new(),
            "gold_new_files": task.gold_new_files,
            "ranks": self.scores.gold_ranks,
            "in_anchors": self.scores.in_anchors,
        });
        if let Some(in_set) = &self.scores.in_set {
            value["in_set"] = json!(in_set);
        }
        let extra = match &self.outcome {
            Outcome::Unavailable(reason) => json!({"status": "unavailable", "message": reason}),
            Outcome::Failed(message) => json!({"status": "error", "message": message}),
            Outcome::Ran(run) => {
                let mut extra = run.json.clone();
                extra.insert("status".into(), "ok".into());
                extra.insert(format!("{}_ms", run.mode.name()), run.stage_ms.into());
                extra.insert("total_ms".into(), run.total_ms.into());
                extra.insert("ranked_len".into(), run.ranked_len.into());
                Value::Object(extra)
            }
        };
        if let (Some(value), Value::Object(extra)) = (value.as_object_mut(), extra) {
            value.extend(extra);
        }
        value
    }
}

/// The JSON name of a stop reason (`below_threshold`…).
pub fn stop_name(stop: StopReason) -> String {
    match to_json(&stop) {
        Value::String(name) => name,
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn task(gold: &[&str], new: &[&str]) -> EvalTask {
        EvalTask {
            id: "owner__name-1".into(),
            repo: "owner/name".into(),
            base_commit: Some("0".repeat(40)),
            task: "Cart.total ignores the discount in price_of: the total is wrong".into(),
            gold_files: gold.iter().map(|s| s.to_string()).collect(),
            gold_new_files: new.iter().map(|s| s.to_string()).collect(),
            language: Some("python".into()),
        }
    }

    /// A small repository for the end-to-end runs.
    fn fixture_repo(root: &Path) {
        let files = [
            (
                "shop/cart.py",
                "from shop.prices import price_of\n\n\nclass Cart:\n    def __init__(self):\n        self.items = []\n\n    def total(self):\n        return sum(price_of(i) for i in self.items)\n",
            ),
            (
                "shop/prices.py",
                "DISCOUNT = 0.1\n\n\ndef price_of(item):\n    return item.price * (1 - DISCOUNT)\n",
            ),
            ("shop/__init__.py", ""),
            (
                "tests/test_cart.py",
                "from shop.cart import Cart\n\n\ndef test_total():\n    assert Cart().total() == 0\n",
            ),
            ("README.md", "# shop\n\nA tiny cart.\n"),
        ];
        for (path, text) in files {
            let path = root.join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
    }

    #[test]
    fn discover_runs_score_the_returned_set_and_write_their_json_line() {
        let dir = tempfile::tempdir().unwrap();
        fixture_repo(dir.path());
        let t = task(&["shop/cart.py", "shop/NEW.py"], &["shop/NEW.py"]);
        let options = RunOptions::default();
        let r = TaskResult::new(t.clone(), run_at(dir.path(), &t, &options, None), true);
        let Outcome::Ran(run) = &r.outcome else {
            panic!("{:?}", r.outcome);
        };
        let package = run.package.as_ref().expect("discover makes a package");
        assert_eq!(run.mode, Mode::Discover);
        assert!(package.files.iter().any(|f| f == "shop/cart.py"));
        assert!(package.used_tokens <= package.max_tokens);
        assert_eq!(
            package.max_tokens,
            DiscoverConfig::default().budget.max_tokens
        );
        let stages: Vec<&str> = package.stages.iter().map(|s| s.0.as_str()).collect();
        assert_eq!(
            stages,
            ["location", "scope", "graph", "expansion", "construction"]
        );
        assert!(run.total_ms >= run.stage_ms);
        // The file the fix creates is scored, and missed.
        assert_eq!(r.scores.in_set, Some(vec![true, false]));
        assert_eq!(r.scores.gold_ranks[1], None);
        assert_eq!(r.scores.set_size, package.files.len());
        let json = r.to_json(Path::new("f"));
        let selected: Vec<&str> = json["selected"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f["path"].as_str())
            .collect();
        assert_eq!(selected, package.files);
        assert!(json["selected"][0]["view"].is_string());
        assert_eq!(json["used_tokens"], package.used_tokens);
        assert_eq!(json["steps"], package.steps);
        assert_eq!(json["stop"], stop_name(package.stop));
        assert_eq!(json["status"], "ok");
        assert_eq!(json["in_set"], json!([true, false]));
        assert_eq!(json["gold_new_files"], json!(["shop/NEW.py"]));
        assert!(json["discover_ms"].is_number() && json["package"].is_object());
        assert!(json.get("features").is_none());
    }

    #[test]
    fn locate_runs_have_no_set_and_both_stages_dump_their_features() {
        let dir = tempfile::tempdir().unwrap();
        fixture_repo(dir.path());
        let t = task(&["shop/cart.py"], &[]);
        let session = Session::open(dir.path()).unwrap();
        let locate = RunOptions {
            mode: Mode::Locate,
            features: true,
            ..RunOptions::default()
        };
        let r = TaskResult::new(t.clone(), run_in(&session, &t, &locate), false);
        let Outcome::Ran(run) = &r.outcome else {
            panic!("{:?}", r.outcome);
        };
        assert!(run.package.is_none() && !run.ranking.is_empty());
        assert_eq!(r.scores.in_set, None);
        assert_eq!(r.scores.gold_ranks, [Some(1)]);
        let json = r.to_json(Path::new("f"));
        assert!(json["location"].is_object() && json.get("selected").is_none());
        assert_eq!(
            json["feature_names"].as_array().unwrap().len(),
            FEATURE_NAMES.len()
        );
        assert!(json["locate_ms"].is_number());
        let row = &json["features"][0];
        assert_eq!(row[1].as_array().unwrap().len(), FEATURE_NAMES.len());
        // The same session answers the next task, here with the completion's rows.
        let discover = RunOptions {
            features: true,
            ..RunOptions::default()
        };
        let Outcome::Ran(run) = run_in(&session, &t, &discover) else {
            panic!("discover failed");
        };
        let names = run.json["feature_names"].as_array().unwrap();
        assert_eq!(names.len(), COMPLETION_FEATURES.len());
    }

    #[test]
    fn failures_score_as_misses_and_missing_checkouts_as_unavailable() {
        let t = task(&["a.py", "b.py"], &[]);
        let mut bad = t.clone();
        bad.task = "  ".into();
        let dir = tempfile::tempdir().unwrap();
        let failed = run_at(dir.path(), &bad, &RunOptions::default(), None);
        assert!(
            matches!(&failed, Outcome::Failed(m) if m.starts_with("Task::new")),
            "{failed:?}"
        );
        let r = TaskResult::new(bad, failed, true);
        assert_eq!(r.scores.in_set, Some(vec![false, false]));
        assert_eq!(r.to_json(Path::new("f"))["status"], "error");
        let gone = run_at(
            &dir.path().join("missing"),
            &t,
            &RunOptions::default(),
            None,
        );
        assert!(matches!(&gone, Outcome::Failed(m) if m.starts_with("Session::open")));
        let checkouts = Checkouts {
            dir: dir.path().join("co"),
            mirrors: dir.path().join("mirrors"),
            ..Checkouts::default()
        };
        let r = run_checkout(t, &checkouts, &RunOptions::default());
        assert!(
            matches!(r.outcome, Outcome::Unavailable(_)),
            "{:?}",
            r.outcome
        );
        let json = r.to_json(Path::new("f"));
        assert_eq!(json["status"], "unavailable");
        assert!(
            json["message"].as_str().unwrap().contains("owner/name"),
            "{json}"
        );
    }
}
