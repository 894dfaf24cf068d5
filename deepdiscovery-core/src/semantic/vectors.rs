//! Vectors kept on disk (issue 46, item 4): an embedder that names its model
//! ([`Embedder::model_hash`], the in-process transformer does) has each text's vector
//! stored in the session's on-disk cache under the model's hash and the text's, so a
//! second process on the same repository embeds only what is new. The session's
//! memory cache (`plugins::EmbeddingCache`) sits on top of this one.

use crate::Result;
use crate::cache::DiskCache;
use crate::plugins::Embedder;

/// An embedder whose answers go through the on-disk cache.
pub(crate) struct DiskVectors<'a> {
    /// The embedder asked for what is not stored.
    pub inner: &'a dyn Embedder,
    /// The cache the vectors are kept in.
    pub disk: &'a DiskCache,
    /// The inner embedder's model hash.
    pub model: u64,
}

impl DiskVectors<'_> {
    /// The cache key of `text`'s vector under this model.
    fn key(&self, text: &str) -> u128 {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        hasher.update(b"semantic-vector\0");
        hasher.update(&self.model.to_le_bytes());
        hasher.update(text.as_bytes());
        hasher.digest128()
    }

    /// A stored vector, if one of this embedder's dimension is there.
    fn load(&self, text: &str) -> Option<Vec<f32>> {
        let bytes = self.disk.load_raw(self.key(text))?;
        let dim = self.inner.dimension();
        if bytes.len() != dim * 4 || dim == 0 {
            return None;
        }
        let vector: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        vector.iter().all(|x| x.is_finite()).then_some(vector)
    }

    fn store(&self, text: &str, vector: &[f32]) {
        let bytes: Vec<u8> = vector.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.disk.store_raw(self.key(text), &bytes, u64::MAX);
    }
}

impl Embedder for DiskVectors<'_> {
    fn dimension(&self) -> usize {
        self.inner.dimension()
    }

    fn model_hash(&self) -> Option<u64> {
        Some(self.model)
    }

    /// The stored vectors, and the inner embedder's for the rest (then stored). An
    /// answer of the wrong shape is returned as it came, for the caller to refuse,
    /// and nothing of it is stored.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut out: Vec<Option<Vec<f32>>> = texts.iter().map(|t| self.load(t)).collect();
        let missing: Vec<usize> = (0..texts.len()).filter(|&k| out[k].is_none()).collect();
        if missing.is_empty() {
            return Ok(out.into_iter().flatten().collect());
        }
        let asked: Vec<&str> = missing.iter().map(|&k| texts[k]).collect();
        let answer = self.inner.embed(&asked)?;
        let dim = self.inner.dimension();
        let sound = answer.len() == asked.len()
            && answer
                .iter()
                .all(|v| v.len() == dim && v.iter().all(|x| x.is_finite()));
        if !sound {
            return Ok(answer);
        }
        for (&k, vector) in missing.iter().zip(answer) {
            self.store(texts[k], &vector);
            out[k] = Some(vector);
        }
        Ok(out.into_iter().flatten().collect())
    }
}
