//! How a session keeps its slots current: listing the source, and reading and
//! parsing the files a query needs (or taking their facts from memory or the
//! on-disk cache when their content is known to be unchanged).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use rayon::prelude::*;

use super::{KnownFile, Parsed, Session, SessionStats, Slot, State, now_ns, unchanged};
use crate::Result;
use crate::artifact::{Language, Role};
use crate::cache::DiskCache;
use crate::facts::{self, Facts};
use crate::source::{
    Entry, Listing, ListingChanges, ListingUpdate, SkipReason, content_hash, looks_binary,
};

/// How loading a slot went: how it was loaded, and whether its language or role
/// changed; or why it is no artifact.
type LoadOutcome = std::result::Result<(Loaded, bool), SkipReason>;

/// Stored facts up to this size are kept whatever the file's size.
const SMALL_FACTS: u64 = 2048;

impl Session {
    /// Lists the source and reconciles the slots: unchanged files keep their facts,
    /// changed ones are marked for re-reading, deleted ones dropped. Reads nothing.
    pub(super) fn refresh(&self, state: &mut State) -> Result<()> {
        let (update, mark) = self.source.list_changes(state.listing_mark.take())?;
        state.head = None;
        match update {
            ListingUpdate::Changes(changes) => self.apply_changes(state, changes),
            ListingUpdate::Whole(listing) => self.reconcile(state, listing),
        }
        state.listing_mark = mark;
        Ok(())
    }

    /// Takes what changed since the last listing: changed entries renew their slots
    /// or make new ones, removed paths drop theirs. The same slots as
    /// [`Session::reconcile`] with the whole listing, in the time of the changes.
    fn apply_changes(&self, state: &mut State, changes: ListingChanges) {
        if !changes.changed.is_empty() || !changes.removed.is_empty() {
            state.slots_touched += 1;
        }
        let mut stats = SessionStats {
            skipped: changes.skipped,
            ..SessionStats::default()
        };
        let mut paths_changed = false;
        let mut entries_changed = false;
        for path in &changes.removed {
            if state.slots.remove(path).is_some() {
                stats.removed += 1;
                paths_changed = true;
            } else if state.rejected.remove(path).is_some() {
                paths_changed = true;
            }
        }
        for entry in changes.changed {
            if let Some(slot) = state.slots.get_mut(&entry.path) {
                entries_changed |= slot.entry.size != entry.size || slot.entry.stamp != entry.stamp;
                renew(slot, entry);
                continue;
            }
            match state.rejected.remove(&entry.path) {
                Some((old, reason)) if old == entry => {
                    state.rejected.insert(entry.path.clone(), (entry, reason));
                    continue;
                }
                Some(_) => entries_changed = true,
                None => paths_changed = true,
            }
            // The grammar of `.h` files so far; set again below if paths came or went.
            let headers = if state.c_headers {
                Language::C
            } else {
                Language::Cpp
            };
            let slot = new_slot(entry, headers, None);
            state.slots.insert(slot.entry.path.clone(), slot);
        }
        for (path, (_, reason)) in &state.rejected {
            stats.skipped.record(*reason, path.clone());
        }
        if paths_changed {
            // The repository's C and C++ sources may now say another grammar for
            // its `.h` headers.
            let paths = state.slots.keys().chain(state.rejected.keys());
            self.set_header_language(state, header_language(paths.map(String::as_str)));
        }
        state.listing_version += u64::from(paths_changed || entries_changed);
        stats.listed = state.slots.len() + state.rejected.len();
        self.finish_refresh(state, stats);
    }

    /// Takes a whole listing: the slots merged with it.
    fn reconcile(&self, state: &mut State, mut listing: Listing) {
        state.slots_touched += 1;
        // Sources promise sorted listings; one that breaks it costs a sort, not a
        // wrong merge below.
        if !listing.entries.is_sorted_by(|a, b| a.path < b.path) {
            listing.entries.sort_by(|a, b| a.path.cmp(&b.path));
            listing.entries.dedup_by(|a, b| a.path == b.path);
        }
        if !state.inherited_loaded {
            state.inherited_loaded = true;
            if let (Some(disk), Some(identity)) = (&self.disk, self.source.identity()) {
                state.inherited = Some(disk.load_known(&identity));
            }
        }
        let mut inherited = state.inherited.take().unwrap_or_default();
        let mut stats = SessionStats {
            listed: listing.entries.len(),
            skipped: listing.skipped.clone(),
            ..SessionStats::default()
        };
        // The same paths as before (files edited, none added or deleted): the slots
        // are updated in place, without rebuilding the map.
        let same_paths = listing.entries.len() == state.slots.len()
            && state.rejected.is_empty()
            && listing
                .entries
                .iter()
                .zip(state.slots.keys())
                .all(|(entry, path)| entry.path == *path);
        if same_paths {
            let mut changed = false;
            for (entry, slot) in listing.entries.into_iter().zip(state.slots.values_mut()) {
                changed |= slot.entry.size != entry.size || slot.entry.stamp != entry.stamp;
                renew(slot, entry);
            }
            state.listing_version += u64::from(changed);
            self.finish_refresh(state, stats);
            return;
        }
        // Paths came or went: the repository's C and C++ sources may now say another
        // grammar for its `.h` headers.
        state.listing_version += 1;
        let headers = header_language(listing.entries.iter().map(|e| e.path.as_str()));
        self.set_header_language(state, headers);
        // The listing and the slots are both sorted by path: a merge, not a lookup
        // per file (25,000 lookups cost a warm query ~10 ms).
        let mut previous = std::mem::take(&mut state.slots).into_iter().peekable();
        let mut removed = 0;
        let mut slots = Vec::with_capacity(listing.entries.len());
        let mut rejected = HashMap::new();
        for entry in listing.entries {
            if !state.rejected.is_empty()
                && let Some((old, reason)) = state.rejected.remove(&entry.path)
                && old == entry
            {
                stats.skipped.record(reason, entry.path.clone());
                rejected.insert(entry.path.clone(), (entry, reason));
                continue;
            }
            while previous
                .next_if(|(path, _)| path.as_str() < entry.path.as_str())
                .is_some()
            {
                removed += 1;
            }
            let kept = previous.next_if(|(path, _)| *path == entry.path);
            let slot = match kept.map(|(_, slot)| slot) {
                Some(mut slot) => {
                    renew(&mut slot, entry);
                    slot
                }
                None => {
                    let known = inherited.remove(&entry.path);
                    new_slot(entry, headers, known)
                }
            };
            slots.push((slot.entry.path.clone(), slot));
        }
        stats.removed = removed + previous.count();
        state.slots = BTreeMap::from_iter(slots);
        state.rejected = rejected;
        self.finish_refresh(state, stats);
    }

    /// Reads the repository's `.h` headers with `headers`' grammar from now on:
    /// those read with the other one are read again.
    fn set_header_language(&self, state: &mut State, headers: Language) {
        let c_headers = headers == Language::C;
        if c_headers == state.c_headers {
            return;
        }
        state.c_headers = c_headers;
        for (path, slot) in state.slots.iter_mut() {
            if Language::is_shared_header(path) {
                slot.language = headers;
                slot.role = Role::classify(path, headers);
                slot.parsed = None;
                slot.verified = false;
            }
        }
    }

    /// The counts of a refresh that depend on the slots alone (counted again only
    /// when a slot changed).
    fn finish_refresh(&self, state: &mut State, mut stats: SessionStats) {
        let counts = match &state.slot_counts {
            Some((touched, counts)) if *touched == state.slots_touched => counts,
            _ => {
                let counts = SlotCounts::of(state);
                &state.slot_counts.insert((state.slots_touched, counts)).1
            }
        };
        stats.with_problems = counts.with_problems;
        stats.lossy_utf8 = counts.lossy_utf8;
        stats.reused = counts.verified;
        for path in &counts.limited {
            stats.skipped.record(SkipReason::WorkLimit, path.clone());
        }
        state.stats = stats;
    }

    /// Makes the facts of `paths` current: reads and parses (in parallel) those that
    /// are new or may have changed. Binary and unreadable files leave the slots.
    pub(super) fn ensure(&self, state: &mut State, paths: &[String]) {
        let mut work: Vec<Slot> = Vec::new();
        for path in paths {
            if let Some(slot) = state.slots.get(path)
                && !slot.verified
                && let Some(slot) = state.slots.remove(path)
            {
                work.push(slot);
            }
        }
        if work.is_empty() {
            return;
        }
        state.slots_touched += 1;
        let now = now_ns();
        let loaded: Vec<(Slot, LoadOutcome)> = work
            .into_par_iter()
            .map(|mut slot| {
                let listed = (slot.language, slot.role);
                let outcome = self.load(&mut slot, now);
                // Its content may say another language (and role) than its path, or
                // that it is no artifact: the listing as artifacts see it changed.
                let outcome = outcome.map(|how| (how, (slot.language, slot.role) != listed));
                (slot, outcome)
            })
            .collect();
        if loaded
            .iter()
            .any(|(slot, _)| slot.known.as_ref().is_some_and(|k| k.read_at_ns == now))
        {
            state.known_dirty = true;
        }
        for (slot, outcome) in loaded {
            match outcome {
                Ok((how, relisted)) => {
                    state.listing_version += u64::from(relisted);
                    match how {
                        Loaded::Reused => state.stats.reused += 1,
                        Loaded::Parsed => state.stats.parsed += 1,
                        Loaded::FromDisk => {
                            state.stats.parsed += 1;
                            state.stats.from_disk += 1;
                        }
                    }
                    if let Some(parsed) = slot.current() {
                        if !parsed.facts.problems.is_empty() {
                            state.stats.with_problems += 1;
                        }
                        if parsed.facts.problems.iter().any(|m| m.starts_with(LOSSY)) {
                            state.stats.lossy_utf8 += 1;
                        }
                        if parsed.facts.limited.is_some() {
                            state
                                .stats
                                .skipped
                                .record(SkipReason::WorkLimit, slot.entry.path.clone());
                        }
                    }
                    state.slots.insert(slot.entry.path.clone(), slot);
                }
                Err(reason) => {
                    state.listing_version += 1;
                    state.stats.skipped.record(reason, slot.entry.path.clone());
                    state
                        .rejected
                        .insert(slot.entry.path.clone(), (slot.entry, reason));
                }
            }
        }
        if let Some(disk) = &self.disk {
            disk.housekeep();
        }
    }

    /// Reads and parses one artifact into its slot (or reads its facts from the disk
    /// cache). [`Loaded::Reused`] when the content hash was unchanged and the old
    /// facts were kept (a touched but unmodified file).
    fn load(&self, slot: &mut Slot, now: u128) -> std::result::Result<Loaded, SkipReason> {
        if let Some(how) = self.load_known(slot) {
            return Ok(how);
        }
        let bytes = self
            .source
            .read(&slot.entry.path)
            .map_err(|_| SkipReason::Unreadable)?;
        if looks_binary(&bytes) {
            return Err(SkipReason::Binary);
        }
        let content_hash = content_hash(&bytes);
        slot.known = Some(KnownFile {
            entry: slot.entry.clone(),
            read_at_ns: now,
            hash: content_hash,
        });
        if let Some(parsed) = slot.parsed.as_mut()
            && parsed.content_hash == content_hash
        {
            parsed.read_at_ns = now;
            slot.verified = true;
            return Ok(Loaded::Reused);
        }
        // A `.h` header keeps the grammar the listing chose for the repository's.
        let language = if Language::is_shared_header(&slot.entry.path) {
            slot.language
        } else {
            Language::detect(&slot.entry.path, Some(&bytes[..bytes.len().min(256)]))
        };
        // The key covers all that `extract` reads (the path, the bytes and a header's
        // grammar) and the build, so a hit is exactly what extracting would give.
        let key = facts_key(slot, content_hash);
        let (language, facts, how) = match self.disk.as_ref().and_then(|d| d.load_facts(key)) {
            Some((language, facts)) => (language, facts, Loaded::FromDisk),
            None => {
                let facts = extract_facts(language, &slot.entry.path, &bytes);
                if let Some(disk) = &self.disk {
                    // Bounded by the file's size (the cache stays below the text it
                    // describes), but a small file's facts, a few hundred bytes of
                    // JSON, are kept anyway.
                    let at_most = (bytes.len() as u64).max(SMALL_FACTS);
                    disk.store_facts(key, language, &facts, at_most);
                }
                (language, facts, Loaded::Parsed)
            }
        };
        self.set_parsed(slot, content_hash, now, language, Arc::new(facts));
        Ok(how)
    }

    /// [`Session::load`] without reading the file, when the listing proves its
    /// content hash: the facts in memory for that content, or those the on-disk
    /// cache holds for it.
    fn load_known(&self, slot: &mut Slot) -> Option<Loaded> {
        let hash = slot.known_hash()?;
        let read_at_ns = slot.known.as_ref()?.read_at_ns;
        if let Some(parsed) = slot.parsed.as_mut()
            && parsed.content_hash == hash
        {
            parsed.read_at_ns = read_at_ns;
            slot.verified = true;
            return Some(Loaded::Reused);
        }
        let disk = self.disk.as_ref()?;
        let (language, facts) = disk.load_facts(facts_key(slot, hash))?;
        self.set_parsed(slot, hash, read_at_ns, language, Arc::new(facts));
        Some(Loaded::FromDisk)
    }

    fn set_parsed(
        &self,
        slot: &mut Slot,
        content_hash: u128,
        read_at_ns: u128,
        language: Language,
        facts: Arc<Facts>,
    ) {
        let role = Role::classify(&slot.entry.path, language);
        slot.language = language;
        slot.role = role;
        slot.parsed = Some(Parsed {
            content_hash,
            read_at_ns,
            language,
            role,
            facts,
        });
        slot.verified = true;
    }
}

/// How [`Session::load`] made a slot's facts current.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Loaded {
    /// The content was unchanged: the facts in memory were kept.
    Reused,
    /// Parsed (or read as config).
    Parsed,
    /// Read from the on-disk cache.
    FromDisk,
}

/// The facts of a file's bytes (read lossily when not UTF-8, which is noted as a
/// problem).
fn extract_facts(language: Language, path: &str, bytes: &[u8]) -> Facts {
    let (text, lossy) = match String::from_utf8_lossy(bytes) {
        std::borrow::Cow::Borrowed(s) => (std::borrow::Cow::Borrowed(s), false),
        owned => (owned, true),
    };
    let mut facts = facts::extract(language, path, &text);
    if lossy {
        facts
            .problems
            .insert(0, format!("{LOSSY}: invalid UTF-8 replaced"));
    }
    facts
}

/// Takes a listed file's new listing entry: its facts stay current only if the
/// entry proves the file unchanged, and what an earlier read learned of its content
/// only while the entry proves it.
/// The on-disk cache's key of a slot's facts for the content hashing to `content`.
fn facts_key(slot: &Slot, content: u128) -> u128 {
    let path = &slot.entry.path;
    if Language::is_shared_header(path) {
        DiskCache::header_facts_key(path, slot.language, content)
    } else {
        DiskCache::facts_key(path, content)
    }
}

/// The grammar of the listing's `.h` headers, from its C and C++ sources.
fn header_language<'a>(paths: impl Iterator<Item = &'a str>) -> Language {
    let (mut c, mut cpp) = (0, 0);
    for path in paths {
        match Language::c_family_source(path) {
            Some(Language::C) => c += 1,
            Some(_) => cpp += 1,
            None => {}
        }
    }
    Language::for_headers(c, cpp)
}

/// The slot of a file new to the listing: `headers` is the grammar of `.h` files,
/// `known` what an earlier process knew of it.
fn new_slot(entry: Entry, headers: Language, known: Option<KnownFile>) -> Slot {
    let language = if Language::is_shared_header(&entry.path) {
        headers
    } else {
        Language::detect(&entry.path, None)
    };
    let mut slot = Slot {
        role: Role::classify(&entry.path, language),
        language,
        known,
        entry,
        parsed: None,
        verified: false,
    };
    if slot.known_hash().is_none() {
        slot.known = None;
    }
    slot
}

fn renew(slot: &mut Slot, entry: Entry) {
    slot.verified = slot.verified
        && slot
            .parsed
            .as_ref()
            .is_some_and(|p| is_fresh(&slot.entry, p, &entry));
    slot.entry = entry;
    if slot.known_hash().is_none() {
        slot.known = None;
    }
}

/// Whether parsed facts are certainly current, judging by the listing alone.
fn is_fresh(old: &Entry, parsed: &Parsed, entry: &Entry) -> bool {
    unchanged(old, parsed.read_at_ns, entry)
}

const LOSSY: &str = "lossy utf-8";

/// What the slots' facts say of the files: the counts of [`SessionStats`] that are
/// the slots', kept while no slot changes.
#[derive(Debug, Default)]
pub(super) struct SlotCounts {
    with_problems: usize,
    lossy_utf8: usize,
    /// Files with facts known current.
    verified: usize,
    /// Files whose reading a work limit cut short.
    limited: Vec<String>,
}

impl SlotCounts {
    fn of(state: &State) -> SlotCounts {
        let mut counts = SlotCounts::default();
        for slot in state.slots.values() {
            counts.verified += usize::from(slot.verified);
            let Some(parsed) = slot.current() else {
                continue;
            };
            let problems = &parsed.facts.problems;
            counts.with_problems += usize::from(!problems.is_empty());
            counts.lossy_utf8 += usize::from(problems.iter().any(|m| m.starts_with(LOSSY)));
            if parsed.facts.limited.is_some() {
                counts.limited.push(slot.entry.path.clone());
            }
        }
        counts
    }
}
