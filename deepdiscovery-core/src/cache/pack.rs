//! Small files' cached values, packed: for files under the size where one entry per
//! file costs more than it saves, the values of one kind (the lexical index, say)
//! for one source are kept together in a single entry, read whole by a later
//! process. The entry is an ordinary one ([`DiskCache::load_raw`]: header, checksum,
//! the build in its key); its payload is the number of values, then per value the
//! content hash it belongs to, its length and its bytes (little-endian).

use std::collections::HashMap;
use std::sync::Arc;

use super::{DiskCache, MAX_ENTRY_BYTES, build_key};

/// Values by the content hash of the file they were computed from.
pub(crate) type Packed = HashMap<u128, Arc<[u8]>>;

impl DiskCache {
    /// The pack of `kind` for the source named `identity`; empty when there is none
    /// or its payload is not a pack.
    pub(crate) fn load_pack(&self, kind: &str, identity: &str) -> Packed {
        self.load_raw(pack_key(kind, identity))
            .and_then(|payload| decode(&payload))
            .unwrap_or_default()
    }

    /// Replaces the pack of `kind` for the source named `identity` (values sorted by
    /// hash, so that equal packs are equal bytes); a pack over [`MAX_ENTRY_BYTES`]
    /// is not stored.
    pub(crate) fn store_pack<'a>(
        &self,
        kind: &str,
        identity: &str,
        values: impl IntoIterator<Item = (u128, &'a [u8])>,
    ) {
        let mut values: Vec<(u128, &[u8])> = values.into_iter().collect();
        values.sort_unstable_by_key(|v| v.0);
        let size: usize = values.iter().map(|v| 20 + v.1.len()).sum();
        if size as u64 + 8 > MAX_ENTRY_BYTES {
            return;
        }
        let mut payload = Vec::with_capacity(size + 8);
        payload.extend_from_slice(&(values.len() as u64).to_le_bytes());
        for (hash, bytes) in values {
            payload.extend_from_slice(&hash.to_le_bytes());
            payload.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
            payload.extend_from_slice(bytes);
        }
        let _ = self.store_raw(pack_key(kind, identity), &payload, u64::MAX);
    }
}

fn pack_key(kind: &str, identity: &str) -> u128 {
    build_key(b"pack:", &[kind.as_bytes(), identity.as_bytes()])
}

/// The values of a pack's payload; `None` when a record is cut, the count is wrong
/// or a hash repeats.
fn decode(payload: &[u8]) -> Option<Packed> {
    let (count, mut rest) = payload.split_first_chunk::<8>()?;
    let count = u64::from_le_bytes(*count);
    // Each record is at least 20 bytes: a count the payload cannot hold is refused
    // before anything is allocated for it.
    if count > (rest.len() / 20) as u64 {
        return None;
    }
    let mut values = HashMap::with_capacity(count as usize);
    for _ in 0..count {
        let (hash, tail) = rest.split_first_chunk::<16>()?;
        let (len, tail) = tail.split_first_chunk::<4>()?;
        let (bytes, tail) = tail.split_at_checked(u32::from_le_bytes(*len) as usize)?;
        rest = tail;
        if values
            .insert(u128::from_le_bytes(*hash), Arc::from(bytes))
            .is_some()
        {
            return None;
        }
    }
    rest.is_empty().then_some(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pack_reads_back_and_a_damaged_one_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DiskCache::open(dir.path()).unwrap();
        let values: [(u128, &[u8]); 3] = [(3, b"three"), (1, b""), (2, b"two")];
        assert!(cache.load_pack("index", "fs:/r").is_empty());
        cache.store_pack("index", "fs:/r", values);
        let read = cache.load_pack("index", "fs:/r");
        assert_eq!(read.len(), 3);
        assert_eq!(&*read[&3], b"three");
        assert!(cache.load_pack("other", "fs:/r").is_empty());
        assert!(cache.load_pack("index", "fs:/s").is_empty());
        // Payloads that lie under a good header.
        let mut good = Vec::new();
        good.extend_from_slice(&1u64.to_le_bytes());
        good.extend_from_slice(&7u128.to_le_bytes());
        good.extend_from_slice(&2u32.to_le_bytes());
        good.extend_from_slice(b"ok");
        assert_eq!(decode(&good).map(|v| v.len()), Some(1));
        for cut in 0..good.len() {
            assert!(decode(&good[..cut]).is_none(), "cut at {cut}");
        }
        let mut huge = good.clone();
        huge[..8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(decode(&huge).is_none());
        let mut twice = good.clone();
        twice[..8].copy_from_slice(&2u64.to_le_bytes());
        twice.extend_from_slice(&good[8..]);
        assert!(decode(&twice).is_none(), "a hash twice");
    }
}
