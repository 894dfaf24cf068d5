//! Passes over every file of a query (the lexical pass): their per-file results kept
//! for the next query with the same key, the files' content read only when needed,
//! and what was learned of each file's content kept for later processes.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use rayon::prelude::*;

use super::{Session, Slot, State, now_ns, unchanged};
use crate::cache::{DiskCache, KnownFile, Packed};
use crate::source::{Content, Entry};
use crate::sync::{lock, read, write};

impl Session {
    /// Bytes that depend on a file's bytes alone (an encoded index, say), read from
    /// the on-disk cache when it holds them for this `kind` and this content, else
    /// computed from the file's bytes (and stored). The file is not read when its
    /// content hash is known and the cache has the value. Without a cache, computed.
    /// Values of files under 4 KiB are kept in one pack per source and kind (one
    /// entry per small file cost more to create than to compute: they were a third
    /// of the entries of a cold run, whose cost was mostly file creation), written
    /// when the pass ends ([`Session::scan_files`]). The caller checks what it gets:
    /// a cache entry is the payload of a valid entry, not necessarily a valid value.
    ///
    /// `None` when the value is not worth keeping: stored, it would be larger than
    /// the file. The cache then holds an empty marker for the content, so that later
    /// processes go straight to the caller's cheapest way without the value.
    pub(crate) fn through_disk(
        &self,
        kind: &'static str,
        content: &Content<'_>,
        compute: impl FnOnce(&[u8]) -> Vec<u8>,
    ) -> Option<Vec<u8>> {
        self.through_disk_within(kind, content, content.size, compute)
    }

    /// [`Session::through_disk`] for values that may be larger than the file, up to
    /// `at_most` bytes stored (a file's definitions' vectors, a few hundred bytes
    /// each, outgrow a file of short definitions).
    pub(crate) fn through_disk_within(
        &self,
        kind: &'static str,
        content: &Content<'_>,
        at_most: u64,
        compute: impl FnOnce(&[u8]) -> Vec<u8>,
    ) -> Option<Vec<u8>> {
        const WORTH_AN_ENTRY: u64 = 4096;
        let Some(disk) = self.disk.as_ref() else {
            return Some(compute(content.bytes()));
        };
        if content.size < WORTH_AN_ENTRY {
            return Some(self.through_pack(kind, content, compute));
        }
        let key = DiskCache::bytes_key(kind, content.hash());
        if let Some(value) = disk.load_raw(key) {
            return (!value.is_empty()).then_some(value);
        }
        let value = compute(content.bytes());
        if !disk.store_raw(key, &value, at_most) {
            let _ = disk.store_raw(key, &[], u64::MAX);
        }
        Some(value)
    }

    /// [`Session::through_disk`] for a small file: from the pack of `kind`, read from
    /// disk on first use; a value computed is added to it.
    fn through_pack(
        &self,
        kind: &'static str,
        content: &Content<'_>,
        compute: impl FnOnce(&[u8]) -> Vec<u8>,
    ) -> Vec<u8> {
        let hash = content.hash();
        let loaded = read(&self.packs)
            .get(kind)
            .map(|p| p.values.get(&hash).cloned());
        match loaded {
            Some(Some(value)) => return value.to_vec(),
            Some(None) => {}
            None => {
                let mut packs = write(&self.packs);
                if !packs.contains_key(kind) {
                    let identity = self.source.identity();
                    let values = match (&self.disk, &identity) {
                        (Some(disk), Some(identity)) => disk.load_pack(kind, identity),
                        _ => Packed::default(),
                    };
                    let pack = Pack {
                        identity,
                        values,
                        dirty: false,
                    };
                    packs.insert(kind, pack);
                }
                if let Some(value) = packs.get(kind).and_then(|p| p.values.get(&hash)) {
                    return value.to_vec();
                }
            }
        }
        let value = compute(content.bytes());
        if let Some(pack) = write(&self.packs).get_mut(kind)
            && pack.identity.is_some()
        {
            pack.values.insert(hash, Arc::from(&value[..]));
            pack.dirty = true;
        }
        value
    }

    /// Writes the packs that gained values, with only the values of files listed
    /// now (so a pack follows the repository, not its past).
    fn save_packs(&self, state: &State) {
        let Some(disk) = &self.disk else {
            return;
        };
        let mut packs = write(&self.packs);
        if !packs.values().any(|p| p.dirty) {
            return;
        }
        let current: HashSet<u128> = state
            .slots
            .values()
            .filter_map(|slot| slot.known.as_ref().map(|k| k.hash))
            .collect();
        for (kind, pack) in packs.iter_mut().filter(|(_, p)| p.dirty) {
            pack.dirty = false;
            pack.values.retain(|hash, _| current.contains(hash));
            if let Some(identity) = &pack.identity {
                let values = pack.values.iter().map(|(h, v)| (*h, &v[..]));
                disk.store_pack(kind, identity, values);
            }
        }
    }

    /// Runs `scan` over the content of every file of `paths` (an unreadable file
    /// gives empty bytes), in parallel, in the order given. Results are kept per file
    /// for the last `key` of this `kind`: with the same key, a file whose listing
    /// entry proves it unchanged is not read again. `scan` must depend on the path,
    /// the bytes and the key alone; it reads the bytes only if it needs them
    /// ([`Content`]).
    pub(crate) fn scan_files<V>(
        &self,
        kind: &'static str,
        key: u64,
        paths: &[&str],
        scan: &(dyn Fn(&str, &Content<'_>) -> V + Sync),
    ) -> Vec<V>
    where
        V: Clone + Send + Sync + 'static,
    {
        let mut state = lock(&self.state);
        // Kept from the last pass, and updated in place: a warm query rescans a few
        // files of thousands, and rebuilding the map cost it more than the scanning
        // (a path and an entry copied per file). A value is kept for the key it was
        // computed with: a new key rescans every file, into the same map (at 100,000
        // files, dropping the map and building another cost a new query 80 ms).
        let mut files = state
            .memos
            .remove(kind)
            .map(|m| m.files)
            .unwrap_or_default();
        let now = now_ns();
        let results: Vec<(V, Scanned, Option<u128>)> = paths
            .par_iter()
            .map(|path| {
                let slot = state.slots.get(*path);
                let current = slot.map(|slot| &slot.entry);
                if let (Some(current), Some(kept)) = (current, files.get(*path))
                    && kept.key == key
                    && unchanged(&kept.entry, kept.read_at_ns, current)
                    && let Some(value) = kept.value.downcast_ref::<V>()
                {
                    return (value.clone(), Scanned::Kept, None);
                }
                let content = Content::new(
                    self.source.as_ref(),
                    path,
                    current.map_or(0, |c| c.size),
                    slot.and_then(Slot::known_hash),
                );
                let value = scan(path, &content);
                let scanned = Scanned::Read(current.cloned());
                (value, scanned, content.read_hash())
            })
            .collect();
        let mut out = Vec::with_capacity(paths.len());
        let mut kept = 0;
        for (path, (value, scanned, read_hash)) in paths.iter().zip(results) {
            match scanned {
                Scanned::Kept => kept += 1,
                Scanned::Read(Some(entry)) => {
                    if let Some(hash) = read_hash
                        && let Some(slot) = state.slots.get_mut(*path)
                    {
                        slot.known = Some(KnownFile {
                            entry: entry.clone(),
                            read_at_ns: now,
                            hash,
                        });
                        state.known_dirty = true;
                    }
                    let scanned = MemoEntry {
                        key,
                        entry,
                        read_at_ns: now,
                        value: Arc::new(value.clone()),
                    };
                    match files.get_mut(*path) {
                        Some(kept) => *kept = scanned,
                        None => {
                            files.insert(path.to_string(), scanned);
                        }
                    }
                    kept += 1;
                }
                Scanned::Read(None) => {
                    files.remove(*path);
                }
            }
            out.push(value);
        }
        // Files of the last pass that are not in this one (deleted since).
        if files.len() > kept {
            let wanted: HashSet<&str> = paths.iter().copied().collect();
            files.retain(|path, _| wanted.contains(path.as_str()));
        }
        state.memos.insert(kind, Memo { files });
        self.save_packs(&state);
        if let Some(disk) = &self.disk {
            disk.housekeep();
        }
        out
    }

    /// Writes what the session learned of the files for later processes (the
    /// known-files table), if it learned something since it last wrote: once per
    /// query, at its end, and when the session is dropped.
    pub(crate) fn persist(&self) {
        self.save_known(&mut lock(&self.state));
    }

    /// Runs one query of a public entry point: guarded (a panic inside is an
    /// internal error, see [`crate::error`]), then what it learned is persisted.
    pub(crate) fn answer<T>(
        &self,
        entry: &str,
        body: impl FnOnce() -> crate::Result<T>,
    ) -> crate::Result<T> {
        let answer = crate::error::guarded(entry, body);
        self.persist();
        answer
    }

    /// Writes the known-files table when files were read since it was last written
    /// (with an on-disk cache and a source that has an identity). Files read too soon
    /// after they were modified are left out: their stamps prove nothing.
    fn save_known(&self, state: &mut State) {
        if !state.known_dirty {
            return;
        }
        state.known_dirty = false;
        let (Some(disk), Some(identity)) = (&self.disk, self.source.identity()) else {
            return;
        };
        let trusted = state.slots.iter().filter_map(|(path, slot)| {
            let known = slot.known.as_ref()?;
            unchanged(&known.entry, known.read_at_ns, &known.entry)
                .then_some((path.as_str(), known))
        });
        disk.store_known(&identity, trusted);
    }
}

/// What one kind of pass over every file gave each file, for the key it last ran
/// with: a query that repeats the key (the same task asked again after edits)
/// re-reads only the files that changed.
#[derive(Default)]
pub(super) struct Memo {
    files: HashMap<String, MemoEntry>,
}

/// One file's value in a [`Memo`]: the key it was computed for and the listing
/// entry the file had then.
pub(super) struct MemoEntry {
    key: u64,
    entry: Entry,
    read_at_ns: u128,
    value: Arc<dyn std::any::Any + Send + Sync>,
}

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memo")
            .field("files", &self.files.len())
            .finish()
    }
}

/// What a pass did with one file.
enum Scanned {
    /// Its result was kept from the last pass.
    Kept,
    /// It was scanned, with the listing entry it had (none: not listed).
    Read(Option<Entry>),
}

/// The pack of one kind: the values of small files by content hash, for the source
/// named `identity` (none: a source without one, whose pack is never stored).
pub(crate) struct Pack {
    identity: Option<String>,
    values: Packed,
    dirty: bool,
}
