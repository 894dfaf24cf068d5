//! Python bindings: `deepdiscovery._native`.
//!
//! Thin by design: convert types, release the GIL around long work, map errors. Every
//! piece of logic lives in `deepdiscovery-core`.

use pyo3::exceptions::{PyFileNotFoundError, PyNotADirectoryError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use deepdiscovery_core::locate::{Ablation, LocateConfig};
use deepdiscovery_core::{DiscoverAblation, DiscoverConfig, Error, Session, Task};

pyo3::create_exception!(
    _native,
    DeepDiscoveryError,
    pyo3::exceptions::PyException,
    "Base class of every error raised by deepdiscovery."
);

/// Maps a core error to the Python exception a caller can act on.
fn to_py(err: Error) -> PyErr {
    match err {
        Error::RootNotFound(_) => PyFileNotFoundError::new_err(err.to_string()),
        Error::RootNotDirectory(_) => PyNotADirectoryError::new_err(err.to_string()),
        Error::EmptyTask | Error::InvalidConfig(_) | Error::InvalidRule { .. } => {
            PyValueError::new_err(err.to_string())
        }
        other => DeepDiscoveryError::new_err(other.to_string()),
    }
}

/// A repository session (see `deepdiscovery_core::Session`).
#[pyclass(name = "Session", module = "deepdiscovery._native", frozen)]
struct PySession {
    inner: Session,
}

#[pymethods]
impl PySession {
    #[new]
    fn new(py: Python<'_>, root: std::path::PathBuf) -> PyResult<Self> {
        let inner = py.detach(|| Session::open(root)).map_err(to_py)?;
        Ok(PySession { inner })
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
            .map_err(to_py)?;
        let out = PyDict::new(py);
        out.set_item("nodes", nodes)?;
        out.set_item("edges", edges)?;
        Ok(out)
    }

    /// The Location stage: ranked anchors with explanations, as a JSON string.
    #[pyo3(signature = (task, anchors=8, no_sem=false, no_sum=false, no_rule=false, no_prior=false))]
    #[allow(clippy::too_many_arguments)]
    fn locate_json(
        &self,
        py: Python<'_>,
        task: &str,
        anchors: usize,
        no_sem: bool,
        no_sum: bool,
        no_rule: bool,
        no_prior: bool,
    ) -> PyResult<String> {
        let config = LocateConfig {
            anchors,
            ablation: Ablation {
                no_sem,
                no_sum,
                no_rule,
                no_prior,
            },
            ..LocateConfig::default()
        };
        let task = Task::new(task).map_err(to_py)?;
        let location = py
            .detach(|| self.inner.locate(&task, &config))
            .map_err(to_py)?;
        serde_json::to_string(&location).map_err(|e| DeepDiscoveryError::new_err(e.to_string()))
    }

    /// Algorithm 1 end to end: the context package as `(json, markdown)`.
    #[pyo3(signature = (task, budget_tokens=16_000, max_steps=64, anchors=8, tau=0.15, kappa=0.62, location_only=false, no_compression=false, no_implicit=false, no_metadata_first=false))]
    #[allow(clippy::too_many_arguments)]
    fn discover_json(
        &self,
        py: Python<'_>,
        task: &str,
        budget_tokens: usize,
        max_steps: usize,
        anchors: usize,
        tau: f32,
        kappa: f32,
        location_only: bool,
        no_compression: bool,
        no_implicit: bool,
        no_metadata_first: bool,
    ) -> PyResult<(String, String)> {
        let mut config = DiscoverConfig {
            anchors,
            tau,
            kappa,
            ablation: DiscoverAblation {
                location_only,
                no_compression,
                no_implicit,
                no_metadata_first,
            },
            ..DiscoverConfig::default()
        };
        config.budget.max_tokens = budget_tokens;
        config.budget.max_steps = max_steps;
        let task = Task::new(task).map_err(to_py)?;
        let package = py
            .detach(|| self.inner.discover(&task, &config))
            .map_err(to_py)?;
        Ok((package.to_json(), package.to_markdown()))
    }
}

/// The library version.
#[pyfunction]
fn version() -> &'static str {
    deepdiscovery_core::VERSION
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySession>()?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add(
        "DeepDiscoveryError",
        m.py().get_type::<DeepDiscoveryError>(),
    )?;
    Ok(())
}
