//! Python bindings: `deepdiscovery._native`.
//!
//! Thin by design: convert types, release the GIL around long work, map errors. Every
//! piece of logic lives in `deepdiscovery-core`; options travel as the same JSON the
//! C ABI takes (`deepdiscovery_core::options`), so Python, C and Rust read one format.

mod plugins;

use std::collections::BTreeMap;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use deepdiscovery_core::cache::DiskCache;
use deepdiscovery_core::options::{self, OptionsError, OptionsErrorKind};
use deepdiscovery_core::{Error, MemorySource, Session, Task};

use plugins::{PyEmbedder, PyLanguageModel};

/// The Python exception for a core error: a class of `deepdiscovery.errors`, chosen
/// by the error's kind (the classes live in Python so that they can also derive from
/// the built-in exceptions callers already catch).
fn to_py(py: Python<'_>, err: Error) -> PyErr {
    let class = match &err {
        Error::RootNotFound(_) => "RepositoryNotFoundError",
        Error::RootNotDirectory(_) => "RepositoryNotADirectoryError",
        Error::Io { .. } | Error::NoSuchArtifact(_) => "RepositoryError",
        Error::EmptyTask => "TaskError",
        Error::InvalidConfig(_) | Error::InvalidRule { .. } => "ConfigError",
        Error::Plugin { .. } => "PluginError",
        Error::Model { .. } => "ModelError",
        Error::Internal(_) => "InternalError",
        _ => "DeepDiscoveryError",
    };
    raise(py, class, err.to_string())
}

/// The Python exception for options that did not parse.
fn options_to_py(py: Python<'_>, err: OptionsError) -> PyErr {
    let message = match err.kind {
        OptionsErrorKind::NotJson => format!("options are not a JSON object: {}", err.message),
        _ => format!("invalid configuration: {}", err.message),
    };
    raise(py, "ConfigError", message)
}

/// An instance of `deepdiscovery.errors.<class>(message)`; a plain `RuntimeError`
/// if that module cannot be imported (a broken installation).
fn raise(py: Python<'_>, class: &str, message: String) -> PyErr {
    let made = py
        .import("deepdiscovery.errors")
        .and_then(|m| m.getattr(class))
        .and_then(|c| c.call1((message.clone(),)));
    match made {
        Ok(instance) => PyErr::from_value(instance),
        Err(_) => pyo3::exceptions::PyRuntimeError::new_err(message),
    }
}

/// A repository session (see `deepdiscovery_core::Session`). Shareable across
/// threads: every query releases the GIL, and the core session is `Sync`.
#[pyclass(name = "Session", module = "deepdiscovery._native", frozen)]
struct PySession {
    inner: Arc<Session>,
}

#[pymethods]
impl PySession {
    /// Opens a session on a directory (`root`) or on in-memory files (`files`, a
    /// mapping of repository-relative path to text), with the session options as
    /// JSON (`config_json`: `builtin_rules`, `rules`, `history`, `cache`, `cache_dir`,
    /// `watch`) and optional
    /// plug-ins (`llm = (complete, name, context_window)`, `embedder = (embed,
    /// dimension)`, dimension 0 when the embedder does not declare one).
    #[new]
    #[pyo3(signature = (root=None, config_json=None, files=None, llm=None, embedder=None))]
    fn new(
        py: Python<'_>,
        root: Option<std::path::PathBuf>,
        config_json: Option<&str>,
        files: Option<BTreeMap<String, String>>,
        llm: Option<(Py<PyAny>, String, usize)>,
        embedder: Option<(Py<PyAny>, usize)>,
    ) -> PyResult<Self> {
        let config = options::session_options(config_json).map_err(|e| options_to_py(py, e))?;
        let mut session = match (root, files) {
            (Some(root), None) => py.detach(|| config.open(root)),
            (None, Some(files)) => py.detach(|| {
                MemorySource::from_files(files)
                    .map(Session::new)
                    .and_then(|s| config.apply(s))
            }),
            _ => {
                return Err(raise(
                    py,
                    "RepositoryError",
                    "give either a repository path or a dict of files, not both or neither"
                        .to_string(),
                ));
            }
        }
        .map_err(|e| to_py(py, e))?;
        if let Some((complete, name, window)) = llm {
            session =
                session.with_language_model(Arc::new(PyLanguageModel::new(complete, name, window)));
        }
        // Dimension 0: not declared, learned from the embedder's first answer.
        if let Some((embed, dimension)) = embedder {
            session = session.with_embedder(Arc::new(PyEmbedder::new(embed, dimension)));
        }
        Ok(PySession {
            inner: Arc::new(session),
        })
    }

    /// The repository graph as a dict: `nodes` (path, language, role) and `edges`
    /// (from, to, relation, confidence, rationale).
    fn graph<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (nodes, edges) = py
            .detach(|| {
                self.inner.graph().map(|g| {
                    let nodes: Vec<(String, String, String)> = g
                        .nodes()
                        .map(|n| (n.path.clone(), n.language.to_string(), n.role.to_string()))
                        .collect();
                    let edges: Vec<(String, String, String, f32, String)> = g
                        .edges()
                        .iter()
                        .map(|e| {
                            (
                                e.from.to_string(),
                                e.to.to_string(),
                                e.relation.name().to_string(),
                                e.confidence,
                                e.rationale.to_string(),
                            )
                        })
                        .collect();
                    (nodes, edges)
                })
            })
            .map_err(|e| to_py(py, e))?;
        let out = PyDict::new(py);
        out.set_item("nodes", nodes)?;
        out.set_item("edges", edges)?;
        Ok(out)
    }

    /// The Location stage: the `Location` as a JSON string. `options_json` is the
    /// JSON of `deepdiscovery_core::options::locate_options`.
    #[pyo3(signature = (task, options_json=None))]
    fn locate_json(
        &self,
        py: Python<'_>,
        task: &str,
        options_json: Option<&str>,
    ) -> PyResult<String> {
        let (config, hints) =
            options::locate_options(options_json).map_err(|e| options_to_py(py, e))?;
        let task = Task::new(task).map_err(|e| to_py(py, e))?.with_hints(hints);
        let location = py
            .detach(|| self.inner.locate(&task, &config))
            .map_err(|e| to_py(py, e))?;
        serde_json::to_string(&location).map_err(|e| raise(py, "DeepDiscoveryError", e.to_string()))
    }

    /// Algorithm 1 end to end: the context package as `(json, markdown)`.
    /// `options_json` is the JSON of `deepdiscovery_core::options::discover_options`.
    #[pyo3(signature = (task, options_json=None))]
    fn discover_json(
        &self,
        py: Python<'_>,
        task: &str,
        options_json: Option<&str>,
    ) -> PyResult<(String, String)> {
        let (config, hints) =
            options::discover_options(options_json).map_err(|e| options_to_py(py, e))?;
        let task = Task::new(task).map_err(|e| to_py(py, e))?.with_hints(hints);
        let package = py
            .detach(|| self.inner.discover(&task, &config))
            .map_err(|e| to_py(py, e))?;
        Ok((package.to_json(), package.to_markdown()))
    }

    /// Runs one evaluation task in this session, as every driver runs it
    /// (`deepdiscovery_core::eval::run_in`): `task_json` is a task as
    /// `check_task_json` reads it, `options_json` the JSON of `discover_options`.
    /// Answers JSON with `error` (`None`, or why the run failed: a failed run is
    /// scored, not raised; a task text the core refuses raises `TaskError`), `returned` (the package's files), `ranking` (its ranked
    /// files, or the anchors when there are none), `tokens` and `millis`.
    #[pyo3(signature = (task_json, options_json=None))]
    fn eval_task_json(
        &self,
        py: Python<'_>,
        task_json: &str,
        options_json: Option<&str>,
    ) -> PyResult<String> {
        use deepdiscovery_core::eval::{Outcome, RunOptions, run_in};
        let task = eval_task(py, task_json, "task")?;
        // A task text the core refuses raises as `discover` would (`TaskError`).
        Task::new(task.task.as_str()).map_err(|e| to_py(py, e))?;
        let (config, _) =
            options::discover_options(options_json).map_err(|e| options_to_py(py, e))?;
        let options = RunOptions {
            config,
            ..RunOptions::default()
        };
        let outcome = py.detach(|| run_in(&self.inner, &task, &options));
        let answer = match outcome {
            Outcome::Ran(run) => serde_json::json!({
                "error": null,
                "returned": run.package.as_ref().map(|p| p.files.clone()).unwrap_or_default(),
                "ranking": run.ranking,
                "tokens": run.package.as_ref().map_or(0, |p| p.used_tokens),
                "millis": run.stage_ms,
            }),
            Outcome::Failed(message) | Outcome::Unavailable(message) => serde_json::json!({
                "error": message, "returned": [], "ranking": [], "tokens": 0, "millis": 0.0,
            }),
        };
        Ok(answer.to_string())
    }

    /// Checks discover options without running anything; raises `ConfigError`.
    #[staticmethod]
    fn check_options(py: Python<'_>, options_json: &str) -> PyResult<()> {
        options::discover_options(Some(options_json))
            .map(|_| ())
            .map_err(|e| options_to_py(py, e))
    }
}

/// The evaluation task in `task_json`, read as a task file's line is; `TaskError`
/// naming `at` when it is not one.
fn eval_task(
    py: Python<'_>,
    task_json: &str,
    at: &str,
) -> PyResult<deepdiscovery_core::eval::EvalTask> {
    let value: serde_json::Value = serde_json::from_str(task_json)
        .map_err(|e| raise(py, "TaskError", format!("{at}: not a JSON object: {e}")))?;
    deepdiscovery_core::eval::EvalTask::from_value(&value, at)
        .map_err(|e| raise(py, "TaskError", e.0))
}

/// The task's checkout under `checkouts`, made when missing from its repository's
/// git directory under `mirrors` (`deepdiscovery_core::eval::ensure_checkout`):
/// plain, or with `with_history` a git work tree holding the task commit's
/// ancestors. Raises `RepositoryNotFoundError` saying why it cannot be had.
#[pyfunction]
fn ensure_checkout(
    py: Python<'_>,
    task_json: &str,
    checkouts: std::path::PathBuf,
    mirrors: std::path::PathBuf,
    with_history: bool,
) -> PyResult<std::path::PathBuf> {
    let task = eval_task(py, task_json, "task")?;
    py.detach(|| {
        deepdiscovery_core::eval::ensure_checkout(&task, &checkouts, &mirrors, with_history)
    })
    .map_err(|e| raise(py, "RepositoryNotFoundError", e))
}

/// The tasks of a JSONL file as the core reads them (`deepdiscovery_core::eval::
/// load_tasks`), as a JSON list; `TaskError` naming the file and the line that is
/// not a task.
#[pyfunction]
fn load_tasks_json(py: Python<'_>, path: &str) -> PyResult<String> {
    let tasks = py
        .detach(|| deepdiscovery_core::eval::load_tasks(std::path::Path::new(path)))
        .map_err(|e| raise(py, "TaskError", e.0))?;
    Ok(serde_json::to_string(&tasks).unwrap_or_else(|_| "[]".into()))
}

/// One task (a JSON text) as the core reads it, as JSON; `TaskError` naming `at`
/// when it is not a task.
#[pyfunction]
fn check_task_json(py: Python<'_>, task_json: &str, at: &str) -> PyResult<String> {
    let task = eval_task(py, task_json, at)?;
    Ok(serde_json::to_string(&task).unwrap_or_else(|_| "{}".into()))
}

/// One task's scores (`deepdiscovery_core::eval`), as JSON: the gold files' ranks,
/// hits in the returned set, its size, whether it is complete, recall, precision,
/// the reciprocal rank, and per cut-off the hits and completeness of the ranking.
#[pyfunction]
fn score_task_json(
    gold: Vec<String>,
    returned: Vec<String>,
    ranking: Vec<String>,
    cutoffs: Vec<usize>,
) -> String {
    use deepdiscovery_core::eval::{TaskScore, Totals};
    fn strs(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }
    let score = TaskScore::new(&strs(&gold), &strs(&ranking), &[], Some(&strs(&returned)));
    let mut totals = Totals::new(&cutoffs);
    totals.add(&score);
    let metrics = totals.metrics();
    let hits_at: Vec<(usize, usize)> = cutoffs.iter().map(|&k| (k, score.hits_within(k))).collect();
    serde_json::json!({
        "gold_ranks": score.gold_ranks,
        "hits": score.hits(),
        "set_size": score.set_size,
        "full": score.full(),
        "recall": metrics.recall,
        "precision": metrics.precision,
        "reciprocal_rank": score.reciprocal_rank(),
        "hits_at": hits_at,
        "full_at": metrics.frr_at,
    })
    .to_string()
}

/// The metrics (`deepdiscovery_core::eval::Metrics`) of tasks scored as JSON
/// (an array of `{gold_ranks, in_set, set_size}`), at `cutoffs`; raises `ValueError`
/// when the JSON is not such an array.
#[pyfunction]
fn metrics_json(scores_json: &str, cutoffs: Vec<usize>) -> PyResult<String> {
    use deepdiscovery_core::eval::{TaskScore, Totals};
    let scores: Vec<TaskScore> = serde_json::from_str(scores_json)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("task scores: {e}")))?;
    let mut totals = Totals::new(&cutoffs);
    for score in &scores {
        totals.add(score);
    }
    serde_json::to_string(&totals.metrics())
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
}

/// The library version.
#[pyfunction]
fn version() -> &'static str {
    deepdiscovery_core::VERSION
}

/// The on-disk facts cache in `cache_dir` (default: `$DEEPDISCOVERY_CACHE_DIR`, else
/// the platform's cache directory): its directory, entries, size, bound and version,
/// as JSON. Creates nothing.
#[pyfunction]
#[pyo3(signature = (cache_dir=None))]
fn cache_info(py: Python<'_>, cache_dir: Option<std::path::PathBuf>) -> PyResult<String> {
    let cache = cache_at(py, cache_dir)?;
    let info = py.detach(|| cache.info());
    serde_json::to_string(&info).map_err(|e| raise(py, "InternalError", e.to_string()))
}

/// Empties the on-disk facts cache in `cache_dir` (default as for `cache_info`):
/// removes its entries, nothing else; returns how many.
#[pyfunction]
#[pyo3(signature = (cache_dir=None))]
fn cache_clear(py: Python<'_>, cache_dir: Option<std::path::PathBuf>) -> PyResult<u64> {
    let cache = cache_at(py, cache_dir)?;
    py.detach(|| cache.clear()).map_err(|e| {
        raise(
            py,
            "RepositoryError",
            format!("cannot clear the cache: {e}"),
        )
    })
}

fn cache_at(py: Python<'_>, dir: Option<std::path::PathBuf>) -> PyResult<DiskCache> {
    dir.or_else(deepdiscovery_core::cache::default_dir)
        .map(DiskCache::at)
        .ok_or_else(|| {
            raise(
                py,
                "ConfigError",
                "no cache directory: set DEEPDISCOVERY_CACHE_DIR or give one".to_string(),
            )
        })
}

/// The `schema_version` of the context package's JSON.
#[pyfunction]
fn schema_version() -> u32 {
    deepdiscovery_core::infer::SCHEMA_VERSION
}

/// The package's JSON (the shared schema, or any part of it with `files` and
/// `relations`) drawn as an SVG by the core's renderer.
#[pyfunction]
fn package_svg(py: Python<'_>, package_json: &str) -> PyResult<String> {
    let value: serde_json::Value = serde_json::from_str(package_json).map_err(|e| {
        pyo3::exceptions::PyValueError::new_err(format!("the package is not JSON: {e}"))
    })?;
    Ok(py.detach(|| deepdiscovery_core::infer::picture::svg(&value)))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySession>()?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(schema_version, m)?)?;
    m.add_function(wrap_pyfunction!(score_task_json, m)?)?;
    m.add_function(wrap_pyfunction!(load_tasks_json, m)?)?;
    m.add_function(wrap_pyfunction!(check_task_json, m)?)?;
    m.add_function(wrap_pyfunction!(ensure_checkout, m)?)?;
    m.add_function(wrap_pyfunction!(metrics_json, m)?)?;
    m.add_function(wrap_pyfunction!(cache_info, m)?)?;
    m.add_function(wrap_pyfunction!(cache_clear, m)?)?;
    m.add_function(wrap_pyfunction!(package_svg, m)?)?;
    m.add(
        "PICTURE_MAX_FILES",
        deepdiscovery_core::infer::picture::MAX_FILES,
    )?;
    m.add(
        "PICTURE_MAX_RELATIONS",
        deepdiscovery_core::infer::picture::MAX_RELATIONS,
    )?;
    m.add(
        "PICTURE_ANCHOR_FILL",
        deepdiscovery_core::infer::picture::ANCHOR_FILL,
    )?;
    m.add(
        "PICTURE_FILE_FILL",
        deepdiscovery_core::infer::picture::FILE_FILL,
    )?;
    Ok(())
}
