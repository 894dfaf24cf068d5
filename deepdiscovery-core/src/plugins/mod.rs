//! Models the caller supplies: a [`LanguageModel`] and an [`Embedder`].
//!
//! The library never calls a network service on its own. Without these, everything
//! runs deterministically on lexical, structural and rule evidence; with them, the
//! LLM-assisted terms of the paper's Eq. 6 and Eq. 8 come in. They are traits so that
//! a Python callable, a C callback or a Rust model all plug in the same way.

mod llm;

pub use llm::{
    ENVIRONMENT_PROMPT, LlmUsage, LlmUse, PROMOTION_PROMPT, SUMMARY_PROMPT, first_json_object,
};
pub(crate) use llm::{
    LlmCaller, TASK_SHARE, data_block, numbered, numbered_prompt, render, unit_number,
};

use crate::Result;

/// A text-completion model: a prompt in, text out.
pub trait LanguageModel: Send + Sync {
    /// A short name for rationales and accounting (`"gpt-x"`, `"local-llama"`).
    fn name(&self) -> &str;
    /// The context window in tokens, used to budget prompts.
    fn context_window(&self) -> usize;
    /// Completes `prompt`. Errors are reported and the stage falls back to its
    /// deterministic path.
    fn complete(&self, prompt: &str) -> Result<String>;
}

/// A text-embedding model: a batch of texts in, one vector per text out.
pub trait Embedder: Send + Sync {
    /// The dimension of every vector it returns, or 0 when the embedder does not say:
    /// then the session takes the length of its first valid answer as the dimension,
    /// and holds every later answer to it.
    fn dimension(&self) -> usize;
    /// Embeds a batch. Must return exactly one vector of [`Embedder::dimension`]
    /// finite numbers per text; anything else is treated as a failed call.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;
    /// A hash of everything that shapes a vector (the model's weights, tokenizer,
    /// configuration), when the embedder knows one: then its vectors are kept in the
    /// on-disk cache under it. `None` (the default) keeps them in memory only.
    fn model_hash(&self) -> Option<u64> {
        None
    }
}

/// Cosine similarity mapped to [0, 1]; 0 for zero or mismatched vectors.
pub fn cosine01(a: &[f32], b: &[f32]) -> f32 {
    cosine_f64(a, b).map_or(0.0, |cos| (((cos + 1.0) / 2.0) as f32).clamp(0.0, 1.0))
}

/// Plain cosine similarity in [-1, 1]; 0 for zero or mismatched vectors.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    cosine_f64(a, b).map_or(0.0, |cos| (cos as f32).clamp(-1.0, 1.0))
}

/// The cosine of two vectors of one length, summed in f64; `None` for a zero or
/// mismatched vector.
fn cosine_f64(a: &[f32], b: &[f32]) -> Option<f64> {
    if a.len() != b.len() || a.is_empty() {
        return None;
    }
    let (mut dot, mut na, mut nb) = (0.0f64, 0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        dot += f64::from(*x) * f64::from(*y);
        na += f64::from(*x) * f64::from(*x);
        nb += f64::from(*y) * f64::from(*y);
    }
    if na == 0.0 || nb == 0.0 {
        return None;
    }
    Some(dot / (na.sqrt() * nb.sqrt()))
}

/// Embeddings of texts (the candidates' definitions, `semantic::definition_texts`),
/// cached by content hash for the life of a session, so that a second query pays only
/// for texts that are new or changed. The task itself is embedded on every query and
/// never cached.
#[derive(Debug, Default)]
pub(crate) struct EmbeddingCache {
    vectors: std::sync::Mutex<std::collections::HashMap<(u64, usize), Vec<f32>>>,
    /// The dimension learned from the first valid answer of an embedder that does
    /// not declare one ([`Embedder::dimension`] 0).
    learned: std::sync::OnceLock<usize>,
}

/// Cached views at most; beyond it the cache starts over (a bound, not an LRU: the
/// views of one repository fit many times over).
const MAX_CACHED_EMBEDDINGS: usize = 200_000;

impl EmbeddingCache {
    /// The task's vector and one per view, calling the embedder once for the task and
    /// the views not cached yet; `None` when that call fails or answers garbage
    /// (nothing is cached then).
    pub fn embed(
        &self,
        embedder: &dyn Embedder,
        task: &str,
        views: &[&str],
    ) -> Option<(Vec<f32>, Vec<Vec<f32>>)> {
        // 0 until an embedder without a declared dimension has answered once.
        let dim = match embedder.dimension() {
            0 => self.learned.get().copied().unwrap_or(0),
            declared => declared,
        };
        let keys: Vec<(u64, usize)> = views
            .iter()
            .map(|v| (xxhash_rust::xxh3::xxh3_64(v.as_bytes()), dim))
            .collect();
        let missing: Vec<usize> = {
            let cache = self.lock();
            let mut seen = std::collections::HashSet::new();
            (0..views.len())
                .filter(|&k| !cache.contains_key(&keys[k]) && seen.insert(keys[k]))
                .collect()
        };
        let mut texts: Vec<&str> = vec![task];
        texts.extend(missing.iter().map(|&k| views[k]));
        let answer = embed_checked(embedder, &texts, dim)?;
        let mut keys = keys;
        if dim == 0 {
            // The first valid answer fixes the dimension (a concurrent first answer of
            // another length is refused like any mismatch). Nothing was cached under
            // the unknown one, so every view was asked for: key them by the new one.
            let answered = answer.first().map_or(0, Vec::len);
            if *self.learned.get_or_init(|| answered) != answered {
                return None;
            }
            for key in &mut keys {
                key.1 = answered;
            }
        }
        let mut vectors = answer.into_iter();
        let task_vector = vectors.next()?;
        let mut cache = self.lock();
        if cache.len() + missing.len() > MAX_CACHED_EMBEDDINGS {
            cache.clear();
        }
        for (&k, vector) in missing.iter().zip(vectors) {
            cache.insert(keys[k], vector);
        }
        let out = keys
            .iter()
            .map(|key| cache.get(key).cloned())
            .collect::<Option<Vec<_>>>()?;
        Some((task_vector, out))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<(u64, usize), Vec<f32>>> {
        // Plain data: a panic elsewhere cannot leave it torn.
        self.vectors.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Calls the embedder and checks its answer: the right count of vectors, each of
/// `dim` numbers (0: of one and the same non-zero length), all finite.
pub(crate) fn embed_checked(
    embedder: &dyn Embedder,
    texts: &[&str],
    dim: usize,
) -> Option<Vec<Vec<f32>>> {
    let vectors = embedder.embed(texts).ok()?;
    let dim = if dim == 0 {
        vectors.first().map_or(0, Vec::len)
    } else {
        dim
    };
    let valid = dim > 0
        && vectors.len() == texts.len()
        && vectors
            .iter()
            .all(|v| v.len() == dim && v.iter().all(|x| x.is_finite()));
    valid.then_some(vectors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosine_is_mapped_to_unit_range() {
        assert_eq!(cosine01(&[1.0, 0.0], &[1.0, 0.0]), 1.0);
        assert_eq!(cosine01(&[1.0, 0.0], &[-1.0, 0.0]), 0.0);
        assert!((cosine01(&[1.0, 0.0], &[0.0, 1.0]) - 0.5).abs() < 1e-6);
        assert_eq!(cosine01(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
        assert_eq!(cosine01(&[1.0], &[1.0, 0.0]), 0.0);
    }

    struct Bad;
    impl Embedder for Bad {
        fn dimension(&self) -> usize {
            2
        }
        fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
            Ok(texts.iter().map(|_| vec![f32::NAN, 1.0]).collect())
        }
    }

    #[test]
    fn garbage_from_an_embedder_is_rejected() {
        assert!(embed_checked(&Bad, &["a"], 2).is_none());
    }

    /// Answers vectors of `len` numbers, counting its calls.
    struct Sized {
        len: std::sync::atomic::AtomicUsize,
        calls: std::sync::atomic::AtomicUsize,
    }
    impl Embedder for Sized {
        fn dimension(&self) -> usize {
            0
        }
        fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
            use std::sync::atomic::Ordering::SeqCst;
            self.calls.fetch_add(1, SeqCst);
            let len = self.len.load(SeqCst);
            Ok(texts
                .iter()
                .map(|t| vec![t.len() as f32 + 1.0; len])
                .collect())
        }
    }

    #[test]
    fn an_undeclared_dimension_is_learned_from_the_first_answer() {
        use std::sync::atomic::Ordering::SeqCst;
        let embedder = Sized {
            len: 3.into(),
            calls: 0.into(),
        };
        let cache = EmbeddingCache::default();
        let (task, views) = cache.embed(&embedder, "task", &["a", "bb"]).unwrap();
        assert_eq!((task.len(), views.len(), views[1].len()), (3, 2, 3));
        assert_eq!(
            embedder.calls.load(SeqCst),
            1,
            "one call, not a probe and a call"
        );
        // Cached under the learned dimension: only the task is asked for again.
        cache.embed(&embedder, "task", &["a", "bb"]).unwrap();
        assert_eq!(embedder.calls.load(SeqCst), 2);
        // A later answer of another length is refused, not mixed in.
        embedder.len.store(4, SeqCst);
        assert!(cache.embed(&embedder, "task", &["ccc"]).is_none());
        // An empty vector is no dimension.
        embedder.len.store(0, SeqCst);
        assert!(
            EmbeddingCache::default()
                .embed(&embedder, "t", &["a"])
                .is_none()
        );
    }
}
