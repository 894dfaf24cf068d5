//! Measures the Location stage on development tasks (JSONL files of real issues, see
//! `/work/shared/bench/README.md`): for each task, checks out the repository at the
//! task's commit, runs `Session::locate` in a fresh session, and scores the ranking
//! against the task's gold files.
//!
//! ```sh
//! cargo run --release -p deepdiscovery-core --example eval_tasks -- [OPTIONS] TASKS.jsonl...
//! ```
//!
//! Options:
//! - `--limit N` the first N tasks of each file (after the other filters);
//! - `--repo OWNER/NAME`, `--ids ID,ID` keep only those tasks;
//! - `--checkouts DIR` where plain checkouts live, one per task id (default
//!   `/work/bench-repos`); a missing one is made with `--checkout-script` (default
//!   `/work/shared/bench/checkout.sh`) from the git directory found under `--mirrors`
//!   (default `/work/.mirror`, as `OWNER+NAME/repo` or `swe-bench+OWNER__NAME/repo`);
//! - `--clean` deletes each checkout after its task (checkouts are big);
//! - `--no-sem --no-sum --no-rule --no-prior` switch off one term of Eq. 6 each,
//!   `--anchors K` sets K_a;
//! - `--json OUT` writes one JSON line of results per task.
//!
//! One line per task goes to stderr (the rank of each gold file, `-` when it is not
//! ranked, `*` after a file the fix creates), the summary tables to stdout: per input
//! file, and per language when a file has several.
//!
//! Metrics, over `ranked` (or `anchors` when `ranked` is empty): FRR@k, the share of
//! tasks whose gold files are all in the first k; FRR@Ka, the same for the anchor set;
//! micro recall@10; MRR of the best-ranked gold file. Each is given including the gold
//! files the fix creates (no retriever can return them) and excluding them (tasks
//! left with no gold file drop out of that row). Tasks whose repository or commit is
//! not available are counted apart and never scored; a task whose `locate` fails is
//! scored as an empty ranking and counted as an error (a panic too).

use std::any::Any;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::{self, File};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use deepdiscovery_core::locate::{LocateConfig, LocateCost, Location, ScoredFile};
use deepdiscovery_core::{Session, Task};
use serde::Deserialize;
use serde_json::json;

const USAGE: &str = "usage: eval_tasks [--limit N] [--repo OWNER/NAME] [--ids A,B] \
[--checkouts DIR] [--mirrors DIR] [--checkout-script PATH] [--clean] \
[--no-sem] [--no-sum] [--no-rule] [--no-prior] [--anchors K] [--json OUT] TASKS.jsonl...";

/// The cut-offs of FRR@k.
const CUTOFFS: [usize; 3] = [1, 5, 10];
/// The cut-off of micro recall.
const RECALL_AT: usize = 10;
/// How many ranked files (besides the anchors and the gold files) go to `--json`.
const JSON_TOP: usize = 20;
/// How many distinct error messages the summary names.
const MAX_FAILURE_KINDS: usize = 5;

fn main() -> ExitCode {
    let options = match parse_args(std::env::args().skip(1)) {
        Ok(Some(options)) => options,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("error: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

// ---------------------------------------------------------------------------------
// Options

/// What the command line asked for.
struct Options {
    files: Vec<PathBuf>,
    limit: Option<usize>,
    repo: Option<String>,
    ids: Option<BTreeSet<String>>,
    checkouts: PathBuf,
    mirrors: PathBuf,
    script: PathBuf,
    clean: bool,
    config: LocateConfig,
    json: Option<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            files: Vec::new(),
            limit: None,
            repo: None,
            ids: None,
            checkouts: PathBuf::from("/work/bench-repos"),
            mirrors: PathBuf::from("/work/.mirror"),
            script: PathBuf::from("/work/shared/bench/checkout.sh"),
            clean: false,
            config: LocateConfig::default(),
            json: None,
        }
    }
}

/// Parses the arguments; `Ok(None)` asks for the usage text.
fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<Options>, String> {
    let mut o = Options::default();
    while let Some(arg) = args.next() {
        // `--flag=value` and `--flag value` are both accepted.
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(None),
            "--limit" => o.limit = Some(parse_count(&flag, &value()?)?),
            "--repo" => o.repo = Some(value()?),
            "--ids" => {
                let ids = value()?;
                let ids = ids.split(',').map(str::trim).filter(|s| !s.is_empty());
                o.ids = Some(ids.map(str::to_string).collect());
            }
            "--checkouts" => o.checkouts = value()?.into(),
            "--mirrors" => o.mirrors = value()?.into(),
            "--checkout-script" => o.script = value()?.into(),
            "--json" => o.json = Some(value()?.into()),
            "--anchors" => o.config.anchors = parse_count(&flag, &value()?)?,
            "--clean" => o.clean = true,
            "--no-sem" => o.config.ablation.no_sem = true,
            "--no-sum" => o.config.ablation.no_sum = true,
            "--no-rule" => o.config.ablation.no_rule = true,
            "--no-prior" => o.config.ablation.no_prior = true,
            s if s.starts_with('-') && s.len() > 1 => return Err(format!("unknown option {s}")),
            _ => o.files.push(arg.into()),
        }
    }
    if o.files.is_empty() {
        return Err("no task file given".into());
    }
    o.config
        .validate()
        .map_err(|e| format!("bad Location configuration: {e}"))?;
    Ok(Some(o))
}

fn parse_count(flag: &str, value: &str) -> Result<usize, String> {
    value
        .parse()
        .map_err(|_| format!("{flag} wants a non-negative integer, got {value:?}"))
}

// ---------------------------------------------------------------------------------
// Tasks

/// One line of a task file.
#[derive(Debug, Clone, Deserialize)]
struct BenchTask {
    id: String,
    repo: String,
    base_commit: String,
    task: String,
    gold_files: Vec<String>,
    #[serde(default)]
    gold_new_files: Vec<String>,
    #[serde(default)]
    language: String,
}

impl BenchTask {
    /// Every gold file: `gold_files` plus any new file it does not list already.
    fn gold_including(&self) -> Vec<&str> {
        let mut gold: Vec<&str> = self.gold_files.iter().map(String::as_str).collect();
        for new in &self.gold_new_files {
            if !gold.contains(&new.as_str()) {
                gold.push(new);
            }
        }
        gold
    }

    fn is_new(&self, path: &str) -> bool {
        self.gold_new_files.iter().any(|n| n == path)
    }
}

/// Reads a task file, keeping the tasks the filters select, in file order. Bad lines
/// are reported and skipped.
fn read_tasks(path: &Path, options: &Options) -> Result<Vec<BenchTask>, String> {
    let file = File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let mut tasks = Vec::new();
    for (number, line) in BufReader::new(file).lines().enumerate() {
        let line = match line {
            Ok(line) => line,
            Err(e) => {
                eprintln!("{}:{}: unreadable line: {e}", path.display(), number + 1);
                continue;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let task: BenchTask = match serde_json::from_str(&line) {
            Ok(task) => task,
            Err(e) => {
                eprintln!("{}:{}: skipped, bad task: {e}", path.display(), number + 1);
                continue;
            }
        };
        if selected(&task, options) {
            tasks.push(task);
        }
        if options.limit.is_some_and(|limit| tasks.len() >= limit) {
            break;
        }
    }
    Ok(tasks)
}

fn selected(task: &BenchTask, options: &Options) -> bool {
    options.repo.as_ref().is_none_or(|r| *r == task.repo)
        && options
            .ids
            .as_ref()
            .is_none_or(|ids| ids.contains(&task.id))
}

// ---------------------------------------------------------------------------------
// Checkouts

/// The git directory of a repository under the mirrors directory, if any.
fn find_mirror(mirrors: &Path, repo: &str) -> Option<PathBuf> {
    let (owner, name) = repo.split_once('/')?;
    let names = [
        format!("{owner}+{name}"),
        format!("swe-bench+{owner}__{name}"),
    ];
    names
        .iter()
        .flat_map(|n| [mirrors.join(n).join("repo"), mirrors.join(n)])
        .find(|dir| dir.join("HEAD").is_file() && dir.join("objects").is_dir())
}

/// Makes sure a plain checkout of the task's commit exists and returns its path. The
/// checkout is written next to its final place and renamed when complete, so an
/// interrupted checkout is never taken for a whole one.
fn ensure_checkout(task: &BenchTask, options: &Options) -> Result<PathBuf, String> {
    if task.id.is_empty() || task.id.contains(['/', '\\']) || task.id.starts_with('.') {
        return Err(format!(
            "task id {:?} is not usable as a directory",
            task.id
        ));
    }
    let dest = options.checkouts.join(&task.id);
    if dest.is_dir() {
        return Ok(dest);
    }
    let git_dir = find_mirror(&options.mirrors, &task.repo)
        .ok_or_else(|| format!("no mirror of {}", task.repo))?;
    let partial = options.checkouts.join(format!("{}.partial", task.id));
    remove_dir(&partial)?;
    fs::create_dir_all(&options.checkouts)
        .map_err(|e| format!("cannot create {}: {e}", options.checkouts.display()))?;
    let output = Command::new(&options.script)
        .arg(&git_dir)
        .arg(&task.base_commit)
        .arg(&partial)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", options.script.display()))?;
    if !output.status.success() {
        let _ = remove_dir(&partial);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().last().unwrap_or("").trim();
        return Err(format!("checkout failed ({}): {last}", output.status));
    }
    fs::rename(&partial, &dest).map_err(|e| format!("cannot rename {}: {e}", partial.display()))?;
    Ok(dest)
}

fn remove_dir(dir: &Path) -> Result<(), String> {
    match fs::remove_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("cannot remove {}: {e}", dir.display())),
    }
}

// ---------------------------------------------------------------------------------
// Running one task

/// What happened to one task.
enum Outcome {
    /// The repository or its commit could not be had: not scored.
    Unavailable(String),
    /// `Session::open` or `locate` failed: scored as an empty ranking.
    Failed(String),
    /// `locate` answered.
    Located(Box<Run>),
}

/// What a successful `locate` gave that the harness uses.
struct Run {
    /// The anchors Ĥ.
    anchors: Vec<ScoredFile>,
    /// The ranking scored: `ranked`, or the anchors when nothing else was ranked.
    ranking: Vec<ScoredFile>,
    /// How long `ranked` was.
    ranked_len: usize,
    cost: LocateCost,
    /// The rest of the [`Location`] as JSON (environment, task type, cues, weights,
    /// view…), kept whole so that fields added to it reach `--json` untouched.
    details: serde_json::Value,
    /// Milliseconds around `locate` only.
    locate_ms: f64,
    /// Milliseconds around `Session::open` and `locate`.
    total_ms: f64,
}

impl Run {
    fn new(location: Location, locate_ms: f64, total_ms: f64) -> Run {
        let mut details = serde_json::to_value(&location).unwrap_or_default();
        if let Some(map) = details.as_object_mut() {
            for key in ["anchors", "ranked", "cost"] {
                map.remove(key);
            }
        }
        let ranked_len = location.ranked.len();
        let ranking = ranking_or_anchors(location.ranked, &location.anchors);
        Run {
            anchors: location.anchors,
            ranking,
            ranked_len,
            cost: location.cost,
            details,
            locate_ms,
            total_ms,
        }
    }
}

/// One task and its outcome.
struct TaskResult {
    task: BenchTask,
    outcome: Outcome,
    /// 1-based rank of each gold file (in `gold_including` order), `None` when absent.
    ranks: Vec<Option<usize>>,
    /// Whether each gold file is among the anchors.
    in_anchors: Vec<bool>,
}

fn run_task(task: BenchTask, options: &Options) -> TaskResult {
    let outcome = match ensure_checkout(&task, options) {
        Err(reason) => Outcome::Unavailable(reason),
        Ok(root) => {
            let outcome = locate(&task, &root, &options.config);
            if options.clean
                && let Err(e) = remove_dir(&root)
            {
                eprintln!("warning: {e}");
            }
            outcome
        }
    };
    let (ranks, in_anchors) = gold_positions(&task, &outcome);
    TaskResult {
        task,
        outcome,
        ranks,
        in_anchors,
    }
}

/// The ranking scored: `ranked`, or the anchors when nothing else was ranked.
fn ranking_or_anchors(ranked: Vec<ScoredFile>, anchors: &[ScoredFile]) -> Vec<ScoredFile> {
    if ranked.is_empty() {
        anchors.to_vec()
    } else {
        ranked
    }
}

/// The rank of each gold file (in `gold_including` order) and whether it is an
/// anchor; a task without a ranking has every gold file absent.
fn gold_positions(task: &BenchTask, outcome: &Outcome) -> (Vec<Option<usize>>, Vec<bool>) {
    let gold = task.gold_including();
    let Outcome::Located(run) = outcome else {
        return (vec![None; gold.len()], vec![false; gold.len()]);
    };
    let rank = first_ranks(&run.ranking);
    let anchors: BTreeSet<&str> = run.anchors.iter().map(|f| f.path.as_str()).collect();
    (
        gold.iter().map(|g| rank.get(g).copied()).collect(),
        gold.iter().map(|g| anchors.contains(g)).collect(),
    )
}

/// Opens a fresh session (every repository read anew) and runs the Location stage.
fn locate(task: &BenchTask, root: &Path, config: &LocateConfig) -> Outcome {
    let start = Instant::now();
    let session = match Session::open(root) {
        Ok(session) => session,
        Err(e) => return Outcome::Failed(format!("Session::open: {e}")),
    };
    let query = match Task::new(task.task.as_str()) {
        Ok(query) => query,
        Err(e) => return Outcome::Failed(format!("Task::new: {e}")),
    };
    let located = Instant::now();
    // A panic in the stage under development is one failed task, not a lost run.
    let result = std::panic::catch_unwind(AssertUnwindSafe(|| session.locate(&query, config)));
    let locate_ms = located.elapsed().as_secs_f64() * 1e3;
    let total_ms = start.elapsed().as_secs_f64() * 1e3;
    match result {
        Ok(Ok(location)) => Outcome::Located(Box::new(Run::new(location, locate_ms, total_ms))),
        Ok(Err(e)) => Outcome::Failed(format!("locate: {e}")),
        Err(panic) => Outcome::Failed(format!("locate panicked: {}", panic_message(&panic))),
    }
}

/// The message of a caught panic, when it carries one.
fn panic_message(panic: &Box<dyn Any + Send>) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}

/// The 1-based rank of each path's first occurrence.
fn first_ranks(ranking: &[ScoredFile]) -> HashMap<&str, usize> {
    let mut ranks = HashMap::new();
    for (i, file) in ranking.iter().enumerate() {
        ranks.entry(file.path.as_str()).or_insert(i + 1);
    }
    ranks
}

/// The stderr line of one task.
fn task_line(result: &TaskResult) -> String {
    let id = &result.task.id;
    match &result.outcome {
        Outcome::Unavailable(reason) => format!("{id}  unavailable: {reason}"),
        Outcome::Failed(message) => format!("{id}  ERROR {message}"),
        Outcome::Located(run) => {
            let gold = result.task.gold_including();
            let ranks: Vec<String> = gold
                .iter()
                .zip(&result.ranks)
                .map(|(path, rank)| {
                    let rank = rank.map_or("-".to_string(), |r| r.to_string());
                    let mark = if result.task.is_new(path) { "*" } else { "" };
                    format!("{rank}{mark}")
                })
                .collect();
            let cost = run.cost;
            format!(
                "{id}  ranks [{}]  locate {:.1} ms  open+locate {:.1} ms  read {} parsed {}",
                ranks.join(" "),
                run.locate_ms,
                run.total_ms,
                cost.files_read,
                cost.files_parsed
            )
        }
    }
}

/// The `--json` line of one task.
fn task_json(result: &TaskResult, file: &Path) -> serde_json::Value {
    let task = &result.task;
    let mut value = json!({
        "id": task.id,
        "file": file.display().to_string(),
        "repo": task.repo,
        "language": task.language,
        "gold_files": task.gold_including(),
        "gold_new_files": task.gold_new_files,
        "ranks": result.ranks,
        "in_anchors": result.in_anchors,
    });
    let extra = match &result.outcome {
        Outcome::Unavailable(reason) => json!({"status": "unavailable", "message": reason}),
        Outcome::Failed(message) => json!({"status": "error", "message": message}),
        Outcome::Located(run) => {
            let gold = task.gold_including();
            let gold_scored: Vec<&ScoredFile> = run
                .ranking
                .iter()
                .filter(|f| gold.contains(&f.path.as_str()))
                .collect();
            let top: Vec<&ScoredFile> = run.ranking.iter().take(JSON_TOP).collect();
            json!({
                "status": "ok",
                "locate_ms": run.locate_ms,
                "total_ms": run.total_ms,
                "cost": run.cost,
                "ranked_len": run.ranked_len,
                "anchors": run.anchors,
                "gold_scored": gold_scored,
                "top": top,
                "location": run.details,
            })
        }
    };
    if let (Some(value), serde_json::Value::Object(extra)) = (value.as_object_mut(), extra) {
        value.extend(extra);
    }
    value
}

// ---------------------------------------------------------------------------------
// Metrics

/// Ranking quality over a set of tasks, for one definition of the gold set.
#[derive(Debug, Default, Clone)]
struct Quality {
    /// Tasks scored (with a non-empty gold set).
    tasks: usize,
    /// Tasks with every gold file in the first k, per [`CUTOFFS`].
    full_at: [usize; CUTOFFS.len()],
    /// Tasks with every gold file among the anchors.
    full_in_anchors: usize,
    /// Gold files within the first [`RECALL_AT`].
    hits: usize,
    /// Gold files.
    gold: usize,
    /// Sum of the reciprocal rank of the best-ranked gold file.
    reciprocal_ranks: f64,
}

impl Quality {
    /// Adds one task given the rank and anchor membership of each of its gold files.
    fn add(&mut self, ranks: &[Option<usize>], in_anchors: &[bool]) {
        if ranks.is_empty() {
            return;
        }
        self.tasks += 1;
        for (count, k) in self.full_at.iter_mut().zip(CUTOFFS) {
            if ranks.iter().all(|r| r.is_some_and(|r| r <= k)) {
                *count += 1;
            }
        }
        if in_anchors.iter().all(|a| *a) {
            self.full_in_anchors += 1;
        }
        self.gold += ranks.len();
        self.hits += ranks
            .iter()
            .filter(|r| r.is_some_and(|r| r <= RECALL_AT))
            .count();
        if let Some(best) = ranks.iter().flatten().min() {
            self.reciprocal_ranks += 1.0 / *best as f64;
        }
    }

    fn cells(&self) -> Vec<String> {
        let share = |n: usize, d: usize| {
            if d == 0 {
                "-".to_string()
            } else {
                format!("{:.3}", n as f64 / d as f64)
            }
        };
        let mut cells = vec![self.tasks.to_string()];
        cells.extend(self.full_at.iter().map(|n| share(*n, self.tasks)));
        cells.push(share(self.full_in_anchors, self.tasks));
        cells.push(share(self.hits, self.gold));
        cells.push(if self.tasks == 0 {
            "-".to_string()
        } else {
            format!("{:.3}", self.reciprocal_ranks / self.tasks as f64)
        });
        cells
    }
}

/// Everything counted for one group of tasks (a file, or a language within it).
#[derive(Debug, Default, Clone)]
struct Group {
    tasks: usize,
    unavailable: usize,
    errors: usize,
    including: Quality,
    excluding: Quality,
    locate_ms: Vec<f64>,
    total_ms: Vec<f64>,
    files_read: usize,
    files_parsed: usize,
    /// Unavailable tasks per repository, with the first reason seen.
    missing: BTreeMap<String, (usize, String)>,
    /// Failed tasks per error message.
    failures: BTreeMap<String, usize>,
}

impl Group {
    fn add(&mut self, result: &TaskResult) {
        self.tasks += 1;
        match &result.outcome {
            Outcome::Unavailable(reason) => {
                self.unavailable += 1;
                let entry = self
                    .missing
                    .entry(result.task.repo.clone())
                    .or_insert_with(|| (0, reason.clone()));
                entry.0 += 1;
                return;
            }
            Outcome::Failed(message) => {
                self.errors += 1;
                *self.failures.entry(message.clone()).or_default() += 1;
            }
            Outcome::Located(run) => {
                self.locate_ms.push(run.locate_ms);
                self.total_ms.push(run.total_ms);
                self.files_read += run.cost.files_read;
                self.files_parsed += run.cost.files_parsed;
            }
        }
        self.including.add(&result.ranks, &result.in_anchors);
        let gold = result.task.gold_including();
        let kept: Vec<usize> = (0..gold.len())
            .filter(|i| !result.task.is_new(gold[*i]))
            .collect();
        let ranks: Vec<Option<usize>> = kept.iter().map(|i| result.ranks[*i]).collect();
        let anchors: Vec<bool> = kept.iter().map(|i| result.in_anchors[*i]).collect();
        self.excluding.add(&ranks, &anchors);
    }
}

/// Nearest-rank percentile of unsorted values.
fn percentile(values: &[f64], p: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = (p * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

fn ms(value: Option<f64>) -> String {
    value.map_or("-".to_string(), |v| format!("{v:.1}"))
}

// ---------------------------------------------------------------------------------
// Report

/// Prints the quality table of named groups, a row for each gold-set definition.
fn print_quality(groups: &[(String, &Group)]) {
    let header = [
        "group", "gold", "tasks", "FRR@1", "FRR@5", "FRR@10", "FRR@Ka", "R@10", "MRR",
    ];
    let mut rows = vec![header.iter().map(|s| s.to_string()).collect::<Vec<_>>()];
    for (name, group) in groups {
        for (label, quality) in [("incl", &group.including), ("excl", &group.excluding)] {
            let mut row = vec![name.clone(), label.to_string()];
            row.extend(quality.cells());
            rows.push(row);
        }
    }
    print_table(&rows);
}

/// Prints counts, times and costs of named groups.
fn print_costs(groups: &[(String, &Group)]) {
    let header = [
        "group",
        "tasks",
        "unavail",
        "errors",
        "ok",
        "mean ms",
        "p50 ms",
        "p90 ms",
        "mean open+",
        "p50 open+",
        "p90 open+",
        "read/task",
        "parsed/task",
    ];
    let mut rows = vec![header.iter().map(|s| s.to_string()).collect::<Vec<_>>()];
    for (name, g) in groups {
        let ok = g.locate_ms.len();
        let per_task = |n: usize| {
            if ok == 0 {
                "-".to_string()
            } else {
                format!("{:.0}", n as f64 / ok as f64)
            }
        };
        rows.push(vec![
            name.clone(),
            g.tasks.to_string(),
            g.unavailable.to_string(),
            g.errors.to_string(),
            ok.to_string(),
            ms(mean(&g.locate_ms)),
            ms(percentile(&g.locate_ms, 0.5)),
            ms(percentile(&g.locate_ms, 0.9)),
            ms(mean(&g.total_ms)),
            ms(percentile(&g.total_ms, 0.5)),
            ms(percentile(&g.total_ms, 0.9)),
            per_task(g.files_read),
            per_task(g.files_parsed),
        ]);
    }
    print_table(&rows);
}

/// Prints rows as a left-aligned first column and right-aligned others.
fn print_table(rows: &[Vec<String>]) {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| match c {
                0 => format!("{cell:<w$}", w = widths[c]),
                _ => format!("{cell:>w$}", w = widths[c]),
            })
            .collect();
        println!("  {}", cells.join("  "));
    }
}

/// Prints the summary of one input file: overall, then per language when it has
/// several.
fn print_summary(file: &Path, all: &Group, languages: &BTreeMap<String, Group>) {
    println!("\n== {} ==", file.display());
    let mut groups = vec![("all".to_string(), all)];
    if languages.len() > 1 {
        groups.extend(languages.iter().map(|(l, g)| (l.clone(), g)));
    }
    print_quality(&groups);
    println!();
    print_costs(&groups);
    for (repo, (count, reason)) in &all.missing {
        println!("  unavailable: {repo} ({count} tasks): {reason}");
    }
    let mut failures: Vec<(&String, &usize)> = all.failures.iter().collect();
    failures.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (message, count) in failures.iter().take(MAX_FAILURE_KINDS) {
        println!("  errors: {count} tasks: {message}");
    }
    if failures.len() > MAX_FAILURE_KINDS {
        println!(
            "  errors: {} other messages",
            failures.len() - MAX_FAILURE_KINDS
        );
    }
}

// ---------------------------------------------------------------------------------
// Main loop

/// Runs every file; `Ok(false)` when some input file could not be read.
fn run(options: &Options) -> Result<bool, String> {
    let mut json = match &options.json {
        Some(path) => {
            Some(BufWriter::new(File::create(path).map_err(|e| {
                format!("cannot create {}: {e}", path.display())
            })?))
        }
        None => None,
    };
    println!(
        "Location config: anchors {}, ablation {}",
        options.config.anchors,
        serde_json::to_string(&options.config.ablation).unwrap_or_default()
    );
    let mut all_read = true;
    for file in &options.files {
        let tasks = match read_tasks(file, options) {
            Ok(tasks) => tasks,
            Err(message) => {
                eprintln!("error: {message}");
                all_read = false;
                continue;
            }
        };
        report_missing_ids(&tasks, options, file);
        let mut all = Group::default();
        let mut languages: BTreeMap<String, Group> = BTreeMap::new();
        let count = tasks.len();
        for (i, task) in tasks.into_iter().enumerate() {
            let result = run_task(task, options);
            eprintln!("[{}/{count}] {}", i + 1, task_line(&result));
            all.add(&result);
            languages
                .entry(result.task.language.clone())
                .or_default()
                .add(&result);
            if let Some(out) = json.as_mut() {
                let line = task_json(&result, file);
                writeln!(out, "{line}")
                    .and_then(|()| out.flush())
                    .map_err(|e| format!("cannot write --json: {e}"))?;
            }
        }
        print_summary(file, &all, &languages);
    }
    Ok(all_read)
}

/// Names the `--ids` that no task of the file matched.
fn report_missing_ids(tasks: &[BenchTask], options: &Options, file: &Path) {
    if let (Some(ids), None) = (&options.ids, options.limit) {
        let found: BTreeSet<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
        let missing: Vec<&str> = ids
            .iter()
            .map(String::as_str)
            .filter(|id| !found.contains(id))
            .collect();
        if !missing.is_empty() && missing.len() < ids.len() {
            eprintln!("{}: ids not found: {}", file.display(), missing.join(","));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use deepdiscovery_core::Role;
    use deepdiscovery_core::locate::Terms;

    fn args(list: &[&str]) -> Result<Option<Options>, String> {
        parse_args(list.iter().map(|s| s.to_string()))
    }

    fn task(gold: &[&str], new: &[&str]) -> BenchTask {
        BenchTask {
            id: "owner__name-1".into(),
            repo: "owner/name".into(),
            base_commit: "0".repeat(40),
            task: "something breaks".into(),
            gold_files: gold.iter().map(|s| s.to_string()).collect(),
            gold_new_files: new.iter().map(|s| s.to_string()).collect(),
            language: "python".into(),
        }
    }

    fn scored(path: &str) -> ScoredFile {
        ScoredFile {
            path: path.into(),
            score: 1.0,
            role: Role::Source,
            terms: Terms::default(),
            signals: Vec::new(),
        }
    }

    fn located(ranked: &[&str], anchors: &[&str]) -> Outcome {
        let ranked: Vec<ScoredFile> = ranked.iter().map(|p| scored(p)).collect();
        let anchors: Vec<ScoredFile> = anchors.iter().map(|p| scored(p)).collect();
        Outcome::Located(Box::new(Run {
            ranked_len: ranked.len(),
            ranking: ranking_or_anchors(ranked, &anchors),
            anchors,
            cost: LocateCost::default(),
            details: json!({}),
            locate_ms: 2.0,
            total_ms: 3.0,
        }))
    }

    fn result(task: BenchTask, outcome: Outcome) -> TaskResult {
        let (ranks, in_anchors) = gold_positions(&task, &outcome);
        TaskResult {
            task,
            outcome,
            ranks,
            in_anchors,
        }
    }

    #[test]
    fn parses_flags_in_both_forms() {
        let o = args(&[
            "--limit=3",
            "--repo",
            "a/b",
            "--ids",
            "x, y,",
            "--no-sem",
            "--anchors",
            "5",
            "--clean",
            "f.jsonl",
        ])
        .unwrap()
        .unwrap();
        assert_eq!(o.limit, Some(3));
        assert_eq!(o.repo.as_deref(), Some("a/b"));
        assert_eq!(o.ids.unwrap().len(), 2);
        assert!(o.config.ablation.no_sem && !o.config.ablation.no_rule);
        assert_eq!(o.config.anchors, 5);
        assert!(o.clean);
        assert_eq!(o.files, vec![PathBuf::from("f.jsonl")]);
    }

    #[test]
    fn rejects_bad_command_lines() {
        assert!(args(&[]).is_err());
        assert!(args(&["--limit"]).is_err());
        assert!(args(&["--limit", "x", "f"]).is_err());
        assert!(args(&["--anchors", "0", "f"]).is_err());
        assert!(args(&["--bogus", "f"]).is_err());
        assert!(args(&["--help"]).unwrap().is_none());
    }

    #[test]
    fn frr_needs_every_gold_file_within_k() {
        let r = result(
            task(&["a.py", "b.py"], &[]),
            located(&["x", "a.py", "y", "z", "w", "v", "b.py"], &["a.py"]),
        );
        assert_eq!(r.ranks, vec![Some(2), Some(7)]);
        let mut q = Quality::default();
        q.add(&r.ranks, &r.in_anchors);
        assert_eq!(q.full_at, [0, 0, 1]);
        assert_eq!(q.full_in_anchors, 0);
        assert_eq!((q.hits, q.gold), (2, 2));
        assert!((q.reciprocal_ranks - 0.5).abs() < 1e-9);
    }

    #[test]
    fn anchors_stand_in_for_an_empty_ranking() {
        let r = result(task(&["a.py"], &[]), located(&[], &["b.py", "a.py"]));
        assert_eq!(r.ranks, vec![Some(2)]);
        assert_eq!(r.in_anchors, vec![true]);
    }

    #[test]
    fn duplicate_paths_keep_their_first_rank() {
        let r = result(task(&["a.py"], &[]), located(&["a.py", "a.py"], &[]));
        assert_eq!(r.ranks, vec![Some(1)]);
    }

    #[test]
    fn new_files_only_count_when_included() {
        let mut group = Group::default();
        group.add(&result(
            task(&["CHANGES.md", "a.py"], &["CHANGES.md"]),
            located(&["a.py"], &["a.py"]),
        ));
        // A task whose only gold file is new drops out of the excluding row.
        group.add(&result(
            task(&["new.py"], &["new.py"]),
            located(&["a.py"], &[]),
        ));
        assert_eq!(group.including.tasks, 2);
        assert_eq!(group.including.full_at, [0, 0, 0]);
        assert_eq!(group.excluding.tasks, 1);
        assert_eq!(group.excluding.full_at, [1, 1, 1]);
        assert_eq!(group.excluding.full_in_anchors, 1);
    }

    #[test]
    fn errors_score_as_misses_and_unavailable_tasks_not_at_all() {
        let mut group = Group::default();
        group.add(&result(
            task(&["a.py"], &[]),
            Outcome::Failed("boom".into()),
        ));
        group.add(&result(
            task(&["a.py"], &[]),
            Outcome::Unavailable("gone".into()),
        ));
        assert_eq!((group.tasks, group.errors, group.unavailable), (2, 1, 1));
        assert_eq!(group.including.tasks, 1);
        assert_eq!(group.including.hits, 0);
        assert!(group.locate_ms.is_empty());
        assert_eq!(group.missing["owner/name"].0, 1);
    }

    #[test]
    fn percentiles_use_the_nearest_rank() {
        let values = [5.0, 1.0, 4.0, 2.0, 3.0, 6.0, 7.0, 8.0, 9.0, 10.0];
        assert_eq!(percentile(&values, 0.5), Some(5.0));
        assert_eq!(percentile(&values, 0.9), Some(9.0));
        assert_eq!(percentile(&[], 0.5), None);
        assert_eq!(percentile(&[3.0], 0.9), Some(3.0));
        assert_eq!(mean(&[1.0, 2.0]), Some(1.5));
    }

    #[test]
    fn bad_lines_are_skipped_and_filters_apply() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tasks.jsonl");
        let good = |id: &str, repo: &str| {
            json!({"id": id, "repo": repo, "base_commit": "c", "task": "t ü `x",
                   "gold_files": ["a.py"], "gold_new_files": [], "language": "go"})
            .to_string()
        };
        let text = [
            good("one", "o/a"),
            "{not json".into(),
            String::new(),
            "{\"id\": \"missing fields\"}".into(),
            "\u{feff}\u{0}".into(),
            good("two", "o/b"),
            good("three", "o/a"),
        ]
        .join("\n");
        fs::write(&path, text).unwrap();
        let mut o = args(&["x"]).unwrap().unwrap();
        let ids = |o: &Options| -> Vec<String> {
            read_tasks(&path, o)
                .unwrap()
                .into_iter()
                .map(|t| t.id)
                .collect()
        };
        assert_eq!(ids(&o), ["one", "two", "three"]);
        o.repo = Some("o/a".into());
        assert_eq!(ids(&o), ["one", "three"]);
        o.limit = Some(1);
        assert_eq!(ids(&o), ["one"]);
        o.repo = None;
        o.limit = None;
        o.ids = Some(["two".to_string()].into());
        assert_eq!(ids(&o), ["two"]);
        assert!(read_tasks(&dir.path().join("absent"), &o).is_err());
    }

    #[test]
    fn checkouts_are_made_once_and_failures_are_unavailable() {
        let dir = tempfile::tempdir().unwrap();
        let mirror = dir.path().join("mirrors/swe-bench+owner__name/repo");
        fs::create_dir_all(mirror.join("objects")).unwrap();
        fs::write(mirror.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        assert_eq!(
            find_mirror(&dir.path().join("mirrors"), "owner/name"),
            Some(mirror)
        );
        assert_eq!(find_mirror(&dir.path().join("mirrors"), "no-slash"), None);

        let script = dir.path().join("checkout.sh");
        fs::write(
            &script,
            "#!/bin/sh\nmkdir -p \"$3\" && echo x > \"$3/a.py\"\n",
        )
        .unwrap();
        let failing = dir.path().join("fail.sh");
        fs::write(&failing, "#!/bin/sh\necho 'commit not found' >&2\nexit 1\n").unwrap();
        for s in [&script, &failing] {
            Command::new("chmod").arg("+x").arg(s).status().unwrap();
        }
        let mut o = args(&["x"]).unwrap().unwrap();
        o.mirrors = dir.path().join("mirrors");
        o.checkouts = dir.path().join("co");
        o.script = failing;
        let t = task(&["a.py"], &[]);
        let err = ensure_checkout(&t, &o).unwrap_err();
        assert!(err.contains("commit not found"), "{err}");
        assert!(!o.checkouts.join("owner__name-1.partial").exists());

        o.script = script;
        let dest = ensure_checkout(&t, &o).unwrap();
        assert!(dest.join("a.py").is_file());
        // Present now: the script is not run again.
        o.script = dir.path().join("absent.sh");
        assert_eq!(ensure_checkout(&t, &o).unwrap(), dest);

        let mut odd = t.clone();
        odd.id = "../escape".into();
        assert!(ensure_checkout(&odd, &o).is_err());
        odd.repo = "other/repo".into();
        odd.id = "fresh".into();
        assert!(ensure_checkout(&odd, &o).unwrap_err().contains("no mirror"));
    }

    #[test]
    fn task_lines_and_json_carry_every_outcome() {
        let ok = result(
            task(&["CHANGES.md", "a.py"], &["CHANGES.md"]),
            located(&["a.py"], &["a.py"]),
        );
        assert!(
            task_line(&ok).contains("ranks [-* 1]"),
            "{}",
            task_line(&ok)
        );
        let json = task_json(&ok, Path::new("f.jsonl"));
        assert_eq!(json["status"], "ok");
        assert_eq!(json["ranks"], json!([null, 1]));
        let failed = result(task(&["a.py"], &[]), Outcome::Failed("boom".into()));
        assert!(task_line(&failed).contains("ERROR boom"));
        assert_eq!(task_json(&failed, Path::new("f"))["status"], "error");
        let gone = result(task(&["a.py"], &[]), Outcome::Unavailable("gone".into()));
        assert_eq!(task_json(&gone, Path::new("f"))["message"], "gone");
    }

    #[test]
    fn panic_messages_are_recovered() {
        let text = std::panic::catch_unwind(|| panic!("plain")).unwrap_err();
        assert_eq!(panic_message(&text), "plain");
        let formatted = std::panic::catch_unwind(|| panic!("{}", 7)).unwrap_err();
        assert_eq!(panic_message(&formatted), "7");
    }
}
