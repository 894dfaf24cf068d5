//! Measures `Session::discover` (or the Location stage alone) on development tasks
//! (JSONL files of real issues, read by `deepdiscovery_core::eval::load_tasks`): for each task,
//! checks out the repository at the task's commit, runs `discover` in a fresh session,
//! and scores both the package's ranking and its returned set against the task's gold
//! files. Checking out, running, scoring and the `--json` lines are the core's
//! (`deepdiscovery_core::eval::run`, which the Python `evaluate` calls too); this tool
//! reads the command line and prints the tables.
//!
//! ```sh
//! cargo run --release -p deepdiscovery-core --example eval_tasks -- [OPTIONS] TASKS.jsonl...
//! ```
//!
//! Options:
//! - `--limit N` the first N tasks of each file (after the other filters);
//! - `--repo OWNER/NAME`, `--ids ID,ID` keep only those tasks;
//! - `--checkouts DIR` where checkouts live, one per task id (default
//!   `$DD_EVAL_CHECKOUTS`); a missing one is made from the repository's git directory
//!   under `--mirrors` (default `$DD_EVAL_MIRRORS`), found as `OWNER+NAME` (a bare
//!   clone: `git clone --mirror`) or `swe-bench+OWNER__NAME`, bare or holding a bare
//!   `repo/`, the exact spelling first, then any that differs only in case
//!   (`deepdiscovery_core::eval::checkout`). No path is built in: without the option
//!   and the variable the run stops and says so;
//! - `--with-history` checks out git work trees holding only the ancestors of the
//!   task's commit, so that the session reads the history; plain checkouts (the
//!   default) have none. A directory of plain checkouts is refused for a run with
//!   history, and the other way round;
//! - `--no-history` ignores the history even when there is one (the ablation);
//!   `--no-history-cues` only in the Location stage (co-change cue, activity on π);
//!   `--no-past-changes` only the past-change cue (commit messages like the task);
//! - `--no-bridge` leaves the vocabulary bridge out (`locate::bridge`: no query
//!   expansion into code terms, no bridge candidates);
//! - `--clean` deletes each checkout after its task (checkouts are big);
//! - `--cache-dir DIR` opens every session with the on-disk cache in DIR (a second
//!   run over the same checkouts then reads it: the packages must not change);
//! - `--locate` runs `Session::locate` only, as this harness did before `discover`
//!   existed: the ranking and the anchors are scored, there is no returned set;
//! - `--paper` scores with Eq. 6 alone (the paper's presets), not the learned scorer;
//! - `--no-sem --no-sum --no-rule --no-prior` switch off one term of Eq. 6 each,
//!   `--anchors K` sets K_a, `--budget TOKENS` sets Γ_max (its Location share sets
//!   Γ_loc, so it matters to `--locate` too);
//! - `--location-only --no-compression --no-implicit --no-metadata-first` are the
//!   reduced variants of Table III, `--tau X` and `--kappa X` the thresholds of Eq. 7
//!   and Eq. 8, `--patience N` the idle actions that stop expansion, `--min-score-ratio X`
//!   the filter on final scores (all but `--no-compression`, which is `--no-sum` there, are refused
//!   with `--locate`);
//! - `--json OUT` writes one JSON line of results per task; with `--features` each
//!   line also holds feature rows (`features`: `[path, [values…]]`, names in
//!   `feature_names`), the training data of `make train`: with `--locate` the
//!   learned scorer's rows of Location's candidates, without it the rows of the
//!   learned change-set completion's candidates (`Session::discover_traced`).
//!
//! Task files are read by `deepdiscovery_core::eval::load_tasks`, as the Python
//! `deepdiscovery.eval` reads them: a line that is not a task stops the run and is
//! named (`FILE:LINE: ...`).
//!
//! One line per task goes to stderr (the rank of each gold file, `-` when it is not
//! ranked, `*` after a file the fix creates; then whether each is in the returned set,
//! `+` or `-`, the set's size, tokens and steps), the summary tables to stdout: per
//! input file, and per language when a file has several.
//!
//! Ranking metrics, over the package's `ranked_files` (`ranked` with `--locate`; the
//! anchors when it is empty): FRR@k, the share of tasks whose gold files are all in
//! the first k; FRR@Ka, the same for the anchor set; micro recall@10; MRR of the
//! best-ranked gold file. Set metrics, over the package's `files`: FRR, the share of
//! tasks whose gold files are all in the set; micro recall and micro precision
//! (selected gold files over selected files, summed over tasks); mean set size. The
//! cost table adds the mean tokens and steps of a package, the mean milliseconds of
//! each stage, and how many packages used more tokens than Γ_max (there must be
//! none). Each quality metric is given including the gold files the fix creates (no
//! retriever can return them) and excluding them (tasks left with no gold file drop
//! out of that row). Tasks whose repository or commit is not available are counted
//! apart and never scored; a task whose run fails is scored as an empty ranking and
//! an empty set and counted as an error (a panic too).

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use deepdiscovery_core::DiscoverConfig;
use deepdiscovery_core::cache::DiskCache;
use deepdiscovery_core::eval::run::stop_name;
use deepdiscovery_core::eval::{
    CHECKOUTS_ENV, Checkouts, EvalTask, MIRRORS_ENV, Metrics, Mode, Outcome, RunOptions,
    TaskResult, TaskScore, Totals, load_tasks, run::run_checkout,
};
use deepdiscovery_core::locate::Preset;

const USAGE: &str = "usage: eval_tasks [--limit N] [--repo OWNER/NAME] [--ids A,B] \
[--checkouts DIR] [--mirrors DIR] [--with-history] [--no-history] [--no-history-cues] [--no-past-changes] [--no-bridge] [--clean] [--cache-dir DIR] [--embedder-model DIR] [--locate] \
[--paper] [--no-sem] [--no-sum] [--no-rule] [--no-prior] [--anchors K] [--budget TOKENS] \
[--location-only] [--no-compression] [--no-implicit] [--no-metadata-first] \
[--tau X] [--kappa X] [--patience N] [--min-score-ratio X] [--json OUT] [--features] TASKS.jsonl...";

/// The cut-offs of FRR@k.
const CUTOFFS: [usize; 3] = [1, 5, 10];
/// The cut-off of micro recall.
const RECALL_AT: usize = 10;
/// How many distinct error messages the summary names.
const MAX_FAILURE_KINDS: usize = 5;
/// The stages of `discover` whose mean time the cost table gives, in report order.
const STAGES: [&str; 5] = ["location", "scope", "graph", "expansion", "construction"];

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
#[derive(Debug, Default)]
struct Options {
    files: Vec<PathBuf>,
    limit: Option<usize>,
    repo: Option<String>,
    ids: Option<BTreeSet<String>>,
    /// Where checkouts live (`--checkouts`, else `$DD_EVAL_CHECKOUTS`).
    checkouts: Option<PathBuf>,
    /// Where the repositories' git directories live (`--mirrors`, else
    /// `$DD_EVAL_MIRRORS`).
    mirrors: Option<PathBuf>,
    clean: bool,
    /// Check out git work trees with the task commit's ancestors.
    with_history: bool,
    cache_dir: Option<PathBuf>,
    /// Run `locate` only (no package, no returned set).
    locate: bool,
    /// The `discover` configuration; `--locate` uses its Location part.
    config: DiscoverConfig,
    json: Option<PathBuf>,
    /// Write the candidates' feature rows to `--json` (needs `--locate`).
    features: bool,
    /// A sentence-transformers folder run in-process for every task (built with the
    /// core's `transformer` feature).
    embedder_model: Option<String>,
}

/// Parses the arguments; `Ok(None)` asks for the usage text.
fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<Options>, String> {
    let mut o = Options::default();
    // Flags that only mean something to `discover`, refused with `--locate`.
    let mut discover_only: Vec<String> = Vec::new();
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
            "--checkouts" => o.checkouts = Some(value()?.into()),
            "--with-history" => o.with_history = true,
            "--cache-dir" => o.cache_dir = Some(value()?.into()),
            "--full-graph" => o.config.full_graph = true,
            "--scope-rounds" => o.config.scope.rounds = parse_count(&flag, &value()?)?,
            "--scope-per-round" => o.config.scope.per_round = parse_count(&flag, &value()?)?,
            "--scope-max-name-files" => {
                o.config.scope.max_name_files = parse_count(&flag, &value()?)?
            }
            "--scope-names-per-file" => {
                o.config.scope.max_names_per_file = parse_count(&flag, &value()?)?
            }
            "--scope-max-file-bytes" => {
                o.config.scope.max_file_bytes = parse_count(&flag, &value()?)? as u64
            }
            "--no-history-cues" => o.config.location_ablation.no_history = true,
            "--no-past-changes" => o.config.location_ablation.no_past_changes = true,
            "--no-bridge" => o.config.location_ablation.no_bridge = true,
            "--no-history" => {
                o.config.ablation.no_history = true;
                o.config.location_ablation.no_history = true;
            }
            "--mirrors" => o.mirrors = Some(value()?.into()),
            "--json" => o.json = Some(value()?.into()),
            "--clean" => o.clean = true,
            "--locate" => o.locate = true,
            "--features" => o.features = true,
            "--embedder-model" => o.embedder_model = Some(value()?),
            "--anchors" => o.config.anchors = parse_count(&flag, &value()?)?,
            "--budget" => o.config.budget.max_tokens = parse_count(&flag, &value()?)?,
            "--no-sem" => o.config.location_ablation.no_sem = true,
            "--no-sum" => o.config.location_ablation.no_sum = true,
            "--no-rule" => o.config.location_ablation.no_rule = true,
            "--no-prior" => o.config.location_ablation.no_prior = true,
            "--paper" => o.config.preset = Preset::Paper,
            "--no-compression" => o.config.ablation.no_compression = true,
            "--location-only"
            | "--no-implicit"
            | "--no-metadata-first"
            | "--tau"
            | "--kappa"
            | "--min-score-ratio"
            | "--patience" => {
                let a = &mut o.config.ablation;
                match flag.as_str() {
                    "--location-only" => a.location_only = true,
                    "--no-implicit" => a.no_implicit = true,
                    "--no-metadata-first" => a.no_metadata_first = true,
                    "--tau" => o.config.tau = parse_fraction(&flag, &value()?)?,
                    "--patience" => o.config.patience = parse_count(&flag, &value()?)?,
                    "--min-score-ratio" => {
                        o.config.min_score_ratio = parse_fraction(&flag, &value()?)?
                    }
                    _ => o.config.kappa = parse_fraction(&flag, &value()?)?,
                }
                discover_only.push(flag);
            }
            s if s.starts_with('-') && s.len() > 1 => return Err(format!("unknown option {s}")),
            _ => o.files.push(arg.into()),
        }
    }
    if o.files.is_empty() {
        return Err("no task file given".into());
    }
    let from_env = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    o.checkouts = o.checkouts.or_else(|| from_env(CHECKOUTS_ENV));
    o.mirrors = o.mirrors.or_else(|| from_env(MIRRORS_ENV));
    if o.locate && !discover_only.is_empty() {
        return Err(format!(
            "{} only apply to discover, not with --locate",
            discover_only.join(", ")
        ));
    }
    o.config
        .validate()
        .map_err(|e| format!("bad configuration: {e}"))?;
    Ok(Some(o))
}

fn parse_count(flag: &str, value: &str) -> Result<usize, String> {
    value
        .parse()
        .map_err(|_| format!("{flag} wants a non-negative integer, got {value:?}"))
}

/// A number; its range is checked by `DiscoverConfig::validate`.
fn parse_fraction(flag: &str, value: &str) -> Result<f32, String> {
    value
        .parse()
        .map_err(|_| format!("{flag} wants a number, got {value:?}"))
}
// ---------------------------------------------------------------------------------
// Tasks

/// Reads a task file ([`load_tasks`]: a line that is not a task is an error naming
/// it), keeping the tasks the filters select, in file order.
fn read_tasks(path: &Path, options: &Options) -> Result<Vec<EvalTask>, String> {
    let mut tasks: Vec<EvalTask> = load_tasks(path)
        .map_err(|e| e.to_string())?
        .into_iter()
        .filter(|task| selected(task, options))
        .collect();
    if let Some(limit) = options.limit {
        tasks.truncate(limit);
    }
    Ok(tasks)
}

/// Whether the `--repo` (in any case) and `--ids` filters keep a task.
fn selected(task: &EvalTask, options: &Options) -> bool {
    options
        .repo
        .as_ref()
        .is_none_or(|r| r.eq_ignore_ascii_case(&task.repo))
        && options
            .ids
            .as_ref()
            .is_none_or(|ids| ids.contains(&task.id))
}

// ---------------------------------------------------------------------------------
// Checkouts

/// Where the tasks' repositories come from ([`Checkouts`]), from the options.
fn checkouts(options: &Options) -> Result<Checkouts, String> {
    let (Some(dir), Some(mirrors)) = (&options.checkouts, &options.mirrors) else {
        return Err(format!(
            "no checkouts or mirrors directory: give --checkouts and --mirrors, or set \
             {CHECKOUTS_ENV} and {MIRRORS_ENV}"
        ));
    };
    let cache = match &options.cache_dir {
        Some(dir) => Some(Arc::new(
            DiskCache::open(dir).map_err(|e| format!("cache {}: {e}", dir.display()))?,
        )),
        None => None,
    };
    Ok(Checkouts {
        dir: dir.clone(),
        mirrors: mirrors.clone(),
        with_history: options.with_history,
        clean: options.clean,
        cache,
    })
}

/// What every task is asked, from the options.
fn run_options(options: &Options) -> Result<RunOptions, String> {
    let embedder = match &options.embedder_model {
        Some(model) => Some(deepdiscovery_core::eval::RunEmbedder(
            deepdiscovery_core::semantic::load_embedder(model).map_err(|e| e.to_string())?,
        )),
        None => None,
    };
    Ok(RunOptions {
        mode: if options.locate {
            Mode::Locate
        } else {
            Mode::Discover
        },
        config: options.config,
        embedder,
        features: options.features,
    })
}

// ---------------------------------------------------------------------------------
// Reporting one task

/// The stderr line of one task.
fn task_line(result: &TaskResult) -> String {
    let id = &result.task.id;
    let run = match &result.outcome {
        Outcome::Unavailable(reason) => return format!("{id}  unavailable: {reason}"),
        Outcome::Failed(message) => return format!("{id}  ERROR {message}"),
        Outcome::Ran(run) => run,
    };
    let gold = result.task.gold_including_new();
    let mark = |path: &str| if result.task.is_new(path) { "*" } else { "" };
    let ranks: Vec<String> = gold
        .iter()
        .zip(&result.scores.gold_ranks)
        .map(|(path, rank)| {
            let rank = rank.map_or("-".to_string(), |r| r.to_string());
            format!("{rank}{}", mark(path))
        })
        .collect();
    let mut line = format!("{id}  ranks [{}]", ranks.join(" "));
    if let (Some(package), Some(in_set)) = (&run.package, &result.scores.in_set) {
        let set: Vec<String> = gold
            .iter()
            .zip(in_set)
            .map(|(path, hit)| format!("{}{}", if *hit { "+" } else { "-" }, mark(path)))
            .collect();
        line.push_str(&format!(
            "  set [{}] of {} files  tokens {}/{}{}  steps {} ({})",
            set.join(" "),
            result.scores.set_size,
            package.used_tokens,
            package.max_tokens,
            if package.used_tokens > package.max_tokens {
                " OVER BUDGET"
            } else {
                ""
            },
            package.steps,
            stop_name(package.stop),
        ));
    }
    line.push_str(&format!(
        "  {stage} {:.1} ms  open+{stage} {:.1} ms  read {} parsed {}",
        run.stage_ms,
        run.total_ms,
        run.files_read,
        run.files_parsed,
        stage = run.mode.name(),
    ));
    line
}

// ---------------------------------------------------------------------------------
// Metrics

/// Ranking and set quality over a set of tasks, for one definition of the gold set:
/// the totals of `deepdiscovery_core::eval` at [`CUTOFFS`].
#[derive(Debug, Clone)]
struct Quality(Totals);

impl Default for Quality {
    fn default() -> Self {
        Quality(Totals::new(&CUTOFFS))
    }
}

impl Quality {
    /// Adds one task given where each of its gold files landed.
    fn add(&mut self, score: &TaskScore) {
        self.0.add(score);
    }

    /// The metrics so far.
    fn metrics(&self) -> Metrics {
        self.0.metrics()
    }

    /// The table cells: tasks, the ranking metrics, and with `set` the set metrics.
    fn cells(&self, set: bool) -> Vec<String> {
        let m = self.metrics();
        let mut cells = vec![m.tasks.to_string()];
        cells.extend(m.frr_at.iter().map(|(_, share)| fraction(*share)));
        cells.push(fraction(m.frr_in_anchors));
        let recall = m.recall_at.iter().find(|(k, _)| *k == RECALL_AT);
        cells.push(fraction(recall.and_then(|(_, share)| *share)));
        cells.push(fraction(m.mrr));
        if set {
            cells.extend([m.frr, m.recall, m.precision].map(fraction));
            cells.push(
                m.mean_set_size
                    .map_or("-".to_string(), |s| format!("{s:.1}")),
            );
        }
        cells
    }
}

fn fraction(value: Option<f64>) -> String {
    value.map_or("-".to_string(), |v| format!("{v:.3}"))
}

/// Everything counted for one group of tasks (a file, or a language within it).
#[derive(Debug, Default, Clone)]
struct Group {
    tasks: usize,
    unavailable: usize,
    errors: usize,
    including: Quality,
    excluding: Quality,
    /// Milliseconds of `locate` or `discover`, per task that ran.
    stage_ms: Vec<f64>,
    total_ms: Vec<f64>,
    files_read: usize,
    files_parsed: usize,
    /// Packages made, with their tokens and steps.
    packages: usize,
    used_tokens: usize,
    steps: usize,
    /// Packages that used more tokens than their budget.
    over_budget: usize,
    /// Milliseconds per stage name, per package.
    stages: BTreeMap<String, Vec<f64>>,
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
            Outcome::Ran(run) => {
                self.stage_ms.push(run.stage_ms);
                self.total_ms.push(run.total_ms);
                self.files_read += run.files_read;
                self.files_parsed += run.files_parsed;
                if let Some(package) = &run.package {
                    self.packages += 1;
                    self.used_tokens += package.used_tokens;
                    self.steps += package.steps;
                    if package.used_tokens > package.max_tokens {
                        self.over_budget += 1;
                    }
                    for (stage, millis) in &package.stages {
                        self.stages.entry(stage.clone()).or_default().push(*millis);
                    }
                }
            }
        }
        self.including.add(&result.scores);
        let gold = result.task.gold_including_new();
        let kept: Vec<usize> = (0..gold.len())
            .filter(|i| !result.task.is_new(gold[*i]))
            .collect();
        self.excluding.add(&result.scores.keep(&kept));
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

/// Prints the quality table of named groups, a row for each gold-set definition;
/// with `set`, the returned set's columns too.
fn print_quality(groups: &[(String, &Group)], set: bool) {
    let mut header = vec![
        "group", "gold", "tasks", "FRR@1", "FRR@5", "FRR@10", "FRR@Ka", "R@10", "MRR",
    ];
    if set {
        header.extend(["set FRR", "set R", "set P", "files"]);
    }
    let mut rows = vec![header.iter().map(|s| s.to_string()).collect::<Vec<_>>()];
    for (name, group) in groups {
        for (label, quality) in [("incl", &group.including), ("excl", &group.excluding)] {
            let mut row = vec![name.clone(), label.to_string()];
            row.extend(quality.cells(set));
            rows.push(row);
        }
    }
    print_table(&rows);
}

/// Prints counts, times and costs of named groups; with `stage` = `discover`, the
/// packages' tokens, steps and stage times too.
fn print_costs(groups: &[(String, &Group)], stage: &str) {
    let discover = stage == "discover";
    let mut header: Vec<String> = [
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
    ]
    .map(String::from)
    .to_vec();
    if discover {
        header.extend(["tokens/pkg", "over budget", "steps/pkg"].map(String::from));
        header.extend(STAGES.map(|s| format!("{s} ms")));
    }
    let mut rows = vec![header];
    for (name, g) in groups {
        let ok = g.stage_ms.len();
        let per = |n: usize, d: usize| {
            if d == 0 {
                "-".to_string()
            } else {
                format!("{:.0}", n as f64 / d as f64)
            }
        };
        let mut row = vec![
            name.clone(),
            g.tasks.to_string(),
            g.unavailable.to_string(),
            g.errors.to_string(),
            ok.to_string(),
            ms(mean(&g.stage_ms)),
            ms(percentile(&g.stage_ms, 0.5)),
            ms(percentile(&g.stage_ms, 0.9)),
            ms(mean(&g.total_ms)),
            ms(percentile(&g.total_ms, 0.5)),
            ms(percentile(&g.total_ms, 0.9)),
            per(g.files_read, ok),
            per(g.files_parsed, ok),
        ];
        if discover {
            row.push(per(g.used_tokens, g.packages));
            row.push(g.over_budget.to_string());
            row.push(if g.packages == 0 {
                "-".to_string()
            } else {
                format!("{:.1}", g.steps as f64 / g.packages as f64)
            });
            for stage in STAGES {
                row.push(ms(g.stages.get(stage).and_then(|v| mean(v))));
            }
        }
        rows.push(row);
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
fn print_summary(file: &Path, all: &Group, languages: &BTreeMap<String, Group>, stage: &str) {
    println!("\n== {} ==", file.display());
    let mut groups = vec![("all".to_string(), all)];
    if languages.len() > 1 {
        groups.extend(languages.iter().map(|(l, g)| (l.clone(), g)));
    }
    print_quality(&groups, stage == "discover");
    println!();
    print_costs(&groups, stage);
    if all.over_budget > 0 {
        println!(
            "  OVER BUDGET: {} packages used more tokens than max_tokens",
            all.over_budget
        );
    }
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
    let checkouts = checkouts(options)?;
    let run_options = run_options(options)?;
    let stage = run_options.mode.name();
    if options.locate {
        let config = options.config.locate();
        println!(
            "Location config (--locate): anchors {}, ablation {}, max tokens {}",
            config.anchors,
            serde_json::to_value(config.ablation).unwrap_or_default(),
            config.budget.max_tokens
        );
    } else {
        // `to_string`, not `to_json`: f32 fields print as written (0.62, not 0.6200000047…).
        println!(
            "Discover config: {}",
            serde_json::to_string(&options.config).unwrap_or_default()
        );
    }
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
            let result = run_checkout(task, &checkouts, &run_options);
            if let Some(warning) = &result.warning {
                eprintln!("warning: {warning}");
            }
            eprintln!("[{}/{count}] {}", i + 1, task_line(&result));
            all.add(&result);
            languages
                .entry(result.task.language.clone().unwrap_or_default())
                .or_default()
                .add(&result);
            if let Some(out) = json.as_mut() {
                let line = result.to_json(file);
                writeln!(out, "{line}")
                    .and_then(|()| out.flush())
                    .map_err(|e| format!("cannot write --json: {e}"))?;
            }
        }
        print_summary(file, &all, &languages, stage);
    }
    Ok(all_read)
}

/// Names the `--ids` that no task of the file matched.
fn report_missing_ids(tasks: &[EvalTask], options: &Options, file: &Path) {
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
    use deepdiscovery_core::eval::TaskRun;
    use deepdiscovery_core::eval::run::PackageRun;
    use deepdiscovery_core::infer::StopReason;
    use serde_json::json;

    fn args(list: &[&str]) -> Result<Option<Options>, String> {
        parse_args(list.iter().map(|s| s.to_string()))
    }

    fn task(gold: &[&str], new: &[&str]) -> EvalTask {
        EvalTask {
            id: "owner__name-1".into(),
            repo: "owner/name".into(),
            base_commit: Some("0".repeat(40)),
            task: "something breaks".into(),
            gold_files: gold.iter().map(|s| s.to_string()).collect(),
            gold_new_files: new.iter().map(|s| s.to_string()).collect(),
            language: Some("python".into()),
        }
    }

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    /// A `locate` run by hand (the ranking falls back to the anchors when empty).
    fn located(ranked: &[&str], anchors: &[&str]) -> Outcome {
        let ranking = if ranked.is_empty() { anchors } else { ranked };
        Outcome::Ran(Box::new(TaskRun {
            mode: Mode::Locate,
            anchors: strings(anchors),
            ranking: strings(ranking),
            ranked_len: ranked.len(),
            stage_ms: 2.0,
            total_ms: 3.0,
            ..TaskRun::default()
        }))
    }

    /// A `discover` run by hand: a ranking, anchors and a returned set.
    fn discovered(ranked: &[&str], anchors: &[&str], set: &[&str], tokens: usize) -> Outcome {
        let Outcome::Ran(mut run) = located(ranked, anchors) else {
            unreachable!()
        };
        run.mode = Mode::Discover;
        run.package = Some(PackageRun {
            files: strings(set),
            used_tokens: tokens,
            max_tokens: 1_000,
            steps: 4,
            stop: StopReason::BelowThreshold,
            stages: STAGES.iter().map(|s| (s.to_string(), 1.5)).collect(),
        });
        Outcome::Ran(run)
    }

    fn result(task: EvalTask, outcome: Outcome) -> TaskResult {
        TaskResult::new(task, outcome, false)
    }

    fn discover_result(task: EvalTask, outcome: Outcome) -> TaskResult {
        TaskResult::new(task, outcome, true)
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
        let ablation = o.config.location_ablation;
        assert!(ablation.no_sem && !ablation.no_rule);
        assert_eq!(o.config.anchors, 5);
        assert!(o.clean && !o.locate);
        assert_eq!(o.files, vec![PathBuf::from("f.jsonl")]);
    }

    #[test]
    fn feature_rows_come_from_either_stage() {
        let o = args(&["--features", "f"]).unwrap().unwrap();
        assert!(o.features && !o.locate);
        let o = args(&["--locate", "--features", "f"]).unwrap().unwrap();
        assert!(o.features && o.locate);
    }

    #[test]
    fn parses_discover_flags() {
        let o = args(&[
            "--location-only",
            "--no-compression",
            "--no-implicit",
            "--no-metadata-first",
            "--budget=8000",
            "--tau",
            "0.3",
            "--kappa=0.5",
            "--no-prior",
            "--paper",
            "f",
        ])
        .unwrap()
        .unwrap();
        assert_eq!(o.config.preset, Preset::Paper);
        let a = o.config.ablation;
        assert!(a.location_only && a.no_compression && a.no_implicit && a.no_metadata_first);
        assert_eq!(o.config.budget.max_tokens, 8_000);
        assert_eq!((o.config.tau, o.config.kappa), (0.3, 0.5));
        assert!(o.config.location_ablation.no_prior);
        // The defaults are the paper's.
        let d = args(&["f"]).unwrap().unwrap();
        assert_eq!(d.config, DiscoverConfig::default());

        let l = args(&["--locate", "--budget", "4000", "--no-compression", "f"])
            .unwrap()
            .unwrap();
        assert!(l.locate);
        // No compression means no s_sum for the Location stage.
        assert!(l.config.locate().ablation.no_sum);
        assert_eq!(l.config.locate().budget.max_tokens, 4_000);
    }

    #[test]
    fn rejects_bad_command_lines() {
        assert!(args(&[]).is_err());
        assert!(args(&["--limit"]).is_err());
        assert!(args(&["--limit", "x", "f"]).is_err());
        assert!(args(&["--anchors", "0", "f"]).is_err());
        assert!(args(&["--bogus", "f"]).is_err());
        assert!(args(&["--tau", "x", "f"]).is_err());
        assert!(args(&["--tau", "1.5", "f"]).is_err());
        assert!(args(&["--kappa=-0.1", "f"]).is_err());
        assert!(args(&["--budget", "0", "f"]).is_err());
        let err = args(&["--locate", "--tau", "0.2", "--no-implicit", "f"]).unwrap_err();
        assert!(err.contains("--tau, --no-implicit"), "{err}");
        assert!(args(&["--help"]).unwrap().is_none());
    }

    #[test]
    fn frr_needs_every_gold_file_within_k() {
        let r = result(
            task(&["a.py", "b.py"], &[]),
            located(&["x", "a.py", "y", "z", "w", "v", "b.py"], &["a.py"]),
        );
        assert_eq!(r.scores.gold_ranks, vec![Some(2), Some(7)]);
        assert_eq!(r.scores.in_set, None);
        let mut q = Quality::default();
        q.add(&r.scores);
        let m = q.metrics();
        assert_eq!(m.frr_at, [(1, Some(0.0)), (5, Some(0.0)), (10, Some(1.0))]);
        assert_eq!(m.frr_in_anchors, Some(0.0));
        assert_eq!(m.recall_at[2], (10, Some(1.0)));
        assert_eq!(m.mrr, Some(0.5));
        assert_eq!((m.set_tasks, m.frr), (0, None));
        // Without a set, the set columns are left out.
        assert_eq!(q.cells(false).len(), 7);
    }

    #[test]
    fn anchors_stand_in_for_an_empty_ranking() {
        let r = result(task(&["a.py"], &[]), located(&[], &["b.py", "a.py"]));
        assert_eq!(r.scores.gold_ranks, vec![Some(2)]);
        assert_eq!(r.scores.in_anchors, vec![true]);
    }

    #[test]
    fn duplicate_paths_keep_their_first_rank() {
        let r = result(task(&["a.py"], &[]), located(&["a.py", "a.py"], &[]));
        assert_eq!(r.scores.gold_ranks, vec![Some(1)]);
    }

    #[test]
    fn set_metrics_score_the_returned_files() {
        let mut q = Quality::default();
        // Both gold files returned among four files, one of them ranked 12th.
        let ranked: Vec<String> = (0..12).map(|i| format!("r{i}")).collect();
        let mut ranked: Vec<&str> = ranked.iter().map(String::as_str).collect();
        ranked[0] = "a.py";
        ranked[11] = "b.py";
        let both = discover_result(
            task(&["a.py", "b.py"], &[]),
            discovered(&ranked, &["a.py"], &["a.py", "x.py", "b.py", "y.py"], 900),
        );
        assert_eq!(both.scores.in_set, Some(vec![true, true]));
        assert_eq!(both.scores.set_size, 4);
        q.add(&both.scores);
        // One of two gold files returned, in a set of two (a duplicate path counts once).
        let half = discover_result(
            task(&["c.py", "d.py"], &[]),
            discovered(&["c.py", "d.py"], &["c.py"], &["c.py", "z.py", "c.py"], 500),
        );
        assert_eq!(half.scores.in_set, Some(vec![true, false]));
        assert_eq!(half.scores.set_size, 2);
        q.add(&half.scores);
        let m = q.metrics();
        assert_eq!(m.set_tasks, 2);
        assert_eq!(m.frr, Some(0.5));
        assert_eq!(m.recall, Some(0.75));
        assert_eq!(m.precision, Some(0.5));
        assert_eq!(m.mean_set_size, Some(3.0));
        // The ranking is scored apart from the set: b.py is 12th, past R@10.
        assert_eq!(m.frr_at, [(1, Some(0.0)), (5, Some(0.5)), (10, Some(0.5))]);
        assert_eq!(m.recall_at[2], (10, Some(0.75)));
        let cells = q.cells(true);
        assert_eq!(cells[7..], ["0.500", "0.750", "0.500", "3.0"]);
    }

    #[test]
    fn set_metrics_with_and_without_new_files() {
        let mut group = Group::default();
        group.add(&discover_result(
            task(&["a.py", "NEWS.md"], &["NEWS.md"]),
            discovered(&["a.py"], &["a.py"], &["a.py", "b.py"], 700),
        ));
        // Only a new gold file: no set can hold it; the task drops out of `excl`.
        group.add(&discover_result(
            task(&["new.py"], &["new.py"]),
            discovered(&["a.py"], &["a.py"], &["a.py"], 300),
        ));
        let incl = group.including.metrics();
        assert_eq!(
            (incl.set_tasks, incl.frr, incl.recall, incl.mean_set_size),
            (2, Some(0.0), Some(1.0 / 3.0), Some(1.5))
        );
        let excl = group.excluding.metrics();
        assert_eq!(
            (excl.set_tasks, excl.frr, excl.recall, excl.mean_set_size),
            (1, Some(1.0), Some(1.0), Some(2.0))
        );
        assert_eq!(excl.precision, Some(0.5));
        assert_eq!(
            (group.packages, group.used_tokens, group.steps),
            (2, 1_000, 8)
        );
        assert_eq!(group.over_budget, 0);
        assert_eq!(group.stages["expansion"], vec![1.5, 1.5]);
    }

    #[test]
    fn packages_over_budget_are_counted() {
        let mut group = Group::default();
        group.add(&discover_result(
            task(&["a.py"], &[]),
            discovered(&["a.py"], &["a.py"], &["a.py"], 1_001),
        ));
        group.add(&discover_result(
            task(&["a.py"], &[]),
            discovered(&["a.py"], &["a.py"], &["a.py"], 1_000),
        ));
        assert_eq!(group.over_budget, 1);
        let line = task_line(&discover_result(
            task(&["a.py"], &[]),
            discovered(&["a.py"], &["a.py"], &["a.py"], 1_001),
        ));
        assert!(line.contains("OVER BUDGET"), "{line}");
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
        let (incl, excl) = (group.including.metrics(), group.excluding.metrics());
        assert_eq!(incl.tasks, 2);
        assert!(incl.frr_at.iter().all(|(_, share)| *share == Some(0.0)));
        assert_eq!(excl.tasks, 1);
        assert!(excl.frr_at.iter().all(|(_, share)| *share == Some(1.0)));
        assert_eq!(excl.frr_in_anchors, Some(1.0));
        assert_eq!(group.packages, 0);
    }

    #[test]
    fn errors_score_as_misses_and_unavailable_tasks_not_at_all() {
        let mut group = Group::default();
        group.add(&discover_result(
            task(&["a.py"], &[]),
            Outcome::Failed("boom".into()),
        ));
        group.add(&discover_result(
            task(&["a.py"], &[]),
            Outcome::Unavailable("gone".into()),
        ));
        assert_eq!((group.tasks, group.errors, group.unavailable), (2, 1, 1));
        let incl = group.including.metrics();
        assert_eq!(incl.tasks, 1);
        assert_eq!(incl.recall_at[2], (10, Some(0.0)));
        // A failed discover is an empty set: a miss, with no file to lower precision.
        assert_eq!(
            (incl.set_tasks, incl.frr, incl.recall, incl.precision),
            (1, Some(0.0), Some(0.0), None)
        );
        assert!(group.stage_ms.is_empty());
        assert_eq!(group.missing["owner/name"].0, 1);
        // A failed locate has no set to score.
        let failed = result(task(&["a.py"], &[]), Outcome::Failed("boom".into()));
        assert_eq!(failed.scores.in_set, None);
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
    fn filters_apply_and_a_bad_line_stops_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tasks.jsonl");
        let good = |id: &str, repo: &str| {
            json!({"id": id, "repo": repo, "base_commit": "c", "task": "t ü `x",
                   "gold_files": ["a.py"], "gold_new_files": [], "language": "go"})
            .to_string()
        };
        let text = [
            good("one", "o/a"),
            String::new(),
            good("two", "o/b"),
            good("three", "o/a"),
        ];
        std::fs::write(&path, text.join("\n")).unwrap();
        let mut o = args(&["x"]).unwrap().unwrap();
        let ids = |o: &Options| -> Vec<String> {
            read_tasks(&path, o)
                .unwrap()
                .into_iter()
                .map(|t| t.id)
                .collect()
        };
        assert_eq!(ids(&o), ["one", "two", "three"]);
        o.repo = Some("O/A".into());
        assert_eq!(ids(&o), ["one", "three"]);
        o.limit = Some(1);
        assert_eq!(ids(&o), ["one"]);
        o.repo = None;
        o.limit = None;
        o.ids = Some(["two".to_string()].into());
        assert_eq!(ids(&o), ["two"]);
        assert!(read_tasks(&dir.path().join("absent"), &o).is_err());
        // A line that is not a task is named, and the file is not run.
        let bad = [good("one", "o/a"), "{\"id\": \"missing fields\"}".into()];
        std::fs::write(&path, bad.join("\n")).unwrap();
        let err = read_tasks(&path, &o).unwrap_err();
        assert!(err.contains("tasks.jsonl:2: the task has no repo"), "{err}");
    }

    #[test]
    fn checkouts_need_their_directories() {
        let o = args(&["x", "--checkouts", "/nonexistent/co"])
            .unwrap()
            .unwrap();
        if o.mirrors.is_none() {
            let err = checkouts(&o).unwrap_err();
            assert!(
                err.contains("--mirrors") && err.contains(MIRRORS_ENV),
                "{err}"
            );
        }
    }

    #[test]
    fn task_lines_and_json_carry_every_outcome() {
        let ok = result(
            task(&["CHANGES.md", "a.py"], &["CHANGES.md"]),
            located(&["a.py"], &["a.py"]),
        );
        let line = task_line(&ok);
        assert!(line.contains("ranks [-* 1]"), "{line}");
        assert!(
            line.contains("open+locate 3.0 ms") && !line.contains("set"),
            "{line}"
        );
        let json = ok.to_json(Path::new("f.jsonl"));
        assert_eq!(json["status"], "ok");
        assert_eq!(json["ranks"], json!([null, 1]));
        assert_eq!(json["locate_ms"], 2.0);
        assert!(json.get("in_set").is_none());
        let failed = result(task(&["a.py"], &[]), Outcome::Failed("boom".into()));
        assert!(task_line(&failed).contains("ERROR boom"));
        assert_eq!(failed.to_json(Path::new("f"))["status"], "error");
        let gone = result(task(&["a.py"], &[]), Outcome::Unavailable("gone".into()));
        assert_eq!(gone.to_json(Path::new("f"))["message"], "gone");
    }

    #[test]
    fn discover_lines_show_the_set_and_its_budget() {
        let r = discover_result(
            task(&["a.py", "b.py", "NEW.md"], &["NEW.md"]),
            discovered(&["b.py", "a.py"], &["b.py"], &["b.py", "c.py"], 640),
        );
        let line = task_line(&r);
        assert!(
            line.contains("ranks [2 1 -*]  set [- + -*] of 2 files  tokens 640/1000  steps 4 (below_threshold)"),
            "{line}"
        );
        assert!(line.contains("open+discover 3.0 ms"), "{line}");
        let failed = discover_result(task(&["a.py"], &[]), Outcome::Failed("boom".into()));
        assert_eq!(failed.to_json(Path::new("f"))["in_set"], json!([false]));
        assert_eq!(
            r.to_json(Path::new("f"))["in_set"],
            json!([false, true, false])
        );
    }
}
