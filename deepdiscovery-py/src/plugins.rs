//! Python callables as the core's plug-ins. Each call takes the GIL for as long as
//! the callable runs; an exception or an answer of the wrong type becomes a core
//! [`Error::Plugin`] (the stage then falls back and notes it), never a crash.

use pyo3::prelude::*;

use deepdiscovery_core::{Embedder, Error, LanguageModel, Result};

/// What an exception raised by a plug-in says, for the fallback note.
fn describe(py: Python<'_>, err: &PyErr) -> String {
    let kind = err
        .get_type(py)
        .name()
        .map_or_else(|_| "exception".to_string(), |n| n.to_string());
    format!("raised {kind}: {}", err.value(py))
}

/// A `LanguageModel` over a Python callable `complete(prompt: str) -> str`.
pub(crate) struct PyLanguageModel {
    complete: Py<PyAny>,
    name: String,
    window: usize,
}

impl PyLanguageModel {
    /// A model over `complete`, named `name`, with a context of `window` tokens.
    pub fn new(complete: Py<PyAny>, name: String, window: usize) -> PyLanguageModel {
        PyLanguageModel {
            complete,
            name,
            window,
        }
    }
}

impl LanguageModel for PyLanguageModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn context_window(&self) -> usize {
        self.window
    }

    fn complete(&self, prompt: &str) -> Result<String> {
        Python::attach(|py| {
            let answer = self
                .complete
                .call1(py, (prompt,))
                .map_err(|e| Error::plugin(&self.name, describe(py, &e)))?;
            answer.extract::<String>(py).map_err(|_| {
                let kind = answer
                    .bind(py)
                    .get_type()
                    .name()
                    .map_or_else(|_| "?".to_string(), |n| n.to_string());
                Error::plugin(&self.name, format!("returned {kind}, not str"))
            })
        })
    }
}

/// An `Embedder` over a Python callable `embed(texts: list[str]) ->
/// list[list[float]]`.
pub(crate) struct PyEmbedder {
    embed: Py<PyAny>,
    dimension: usize,
}

impl PyEmbedder {
    /// An embedder over `embed` whose vectors have `dimension` numbers (0: not
    /// declared, the session learns it from the first answer).
    pub fn new(embed: Py<PyAny>, dimension: usize) -> PyEmbedder {
        PyEmbedder { embed, dimension }
    }
}

impl Embedder for PyEmbedder {
    fn dimension(&self) -> usize {
        self.dimension
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        Python::attach(|py| {
            let texts: Vec<&str> = texts.to_vec();
            let answer = self
                .embed
                .call1(py, (texts,))
                .map_err(|e| Error::plugin("embedder", describe(py, &e)))?;
            // Shape and finiteness are checked by the core (`embed_checked`).
            answer
                .extract::<Vec<Vec<f32>>>(py)
                .map_err(|_| Error::plugin("embedder", "did not return a list of lists of numbers"))
        })
    }
}
