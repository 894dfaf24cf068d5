//! The log as git prints it, and the window of it a history keeps.
//!
//! The window is a function of the log alone: the longest prefix of its records
//! (newest first) with at most [`HistoryOptions::max_commits`] records and at most
//! [`HistoryOptions::max_bytes`] bytes. No clock enters it, so the same checkout
//! gives the same history on an idle machine, a loaded one or a slow disk; and a
//! window can be extended by the commits added on top of it and come out exactly as
//! a fresh read would.

use std::collections::HashMap;

use super::{Commit, History, HistoryCut, HistoryOptions, Mark};
use crate::text::prefix;

/// Record field separator (ASCII US).
pub(super) const FIELD: u8 = 0x1f;
/// The longest commit message body kept, in bytes.
pub(super) const MAX_MESSAGE_BYTES: usize = 1_024;

/// One change of a commit: its status letter and the path(s).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Change {
    /// Added, modified, deleted or type-changed.
    Touched(String),
    /// Renamed from the first path to the second.
    Renamed(String, String),
}

/// One commit as git printed it.
#[derive(Debug)]
pub(super) struct Record {
    pub(super) id: String,
    pub(super) time: i64,
    pub(super) author: String,
    pub(super) subject: String,
    pub(super) message: String,
    /// Number of changed files, named or not.
    pub(super) size: usize,
    pub(super) changes: Vec<Change>,
}

impl Record {
    /// The changed paths under their newest names, sorted and distinct.
    fn paths(&self, renames: &Renames) -> Vec<String> {
        let mut out: Vec<String> = self
            .changes
            .iter()
            .map(|c| match c {
                Change::Touched(p) | Change::Renamed(_, p) => renames.newest(p).to_string(),
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

/// What one run of `git log` gave: its complete records, each with its size in
/// bytes (from its marker to the next: the sizes of a log add up to its length),
/// and whether the output ended after the last of them (else more followed:
/// reading stopped at a bound).
#[derive(Debug, Default)]
pub(super) struct Log {
    pub(super) records: Vec<(u32, Record)>,
    pub(super) ended: bool,
}

/// Splits git's output (records each introduced by `marker`) into records. With
/// `ended` false the last record may have been cut anywhere and is left out.
pub(super) fn split_log(bytes: &[u8], marker: &[u8], ended: bool) -> Log {
    let mut starts: Vec<usize> = memchr::memmem::find_iter(bytes, marker).collect();
    starts.push(bytes.len());
    let mut records = Vec::new();
    for (k, pair) in starts.windows(2).enumerate() {
        let last = k + 2 == starts.len();
        if last && !ended {
            break;
        }
        let body = &bytes[pair[0] + marker.len()..pair[1]];
        let size = u32::try_from(pair[1] - pair[0]).unwrap_or(u32::MAX);
        if let Some(record) = parse_record(body) {
            records.push((size, record));
        }
    }
    Log { records, ended }
}

/// Old path → the name the file has at HEAD, learnt walking from HEAD backwards.
#[derive(Debug, Default)]
pub(super) struct Renames(HashMap<String, String>);

impl Renames {
    pub(super) fn newest<'a>(&'a self, path: &'a str) -> &'a str {
        self.0.get(path).map_or(path, String::as_str)
    }

    /// Records the renames of a commit, after its own paths were resolved: older
    /// commits then see the renamed files under their newest names.
    pub(super) fn learn(&mut self, changes: &[Change]) {
        for change in changes {
            if let Change::Renamed(old, new) = change {
                let newest = self.newest(new).to_string();
                self.0.insert(old.clone(), newest);
            }
        }
    }
}

/// Where the window over a sequence of record sizes ends: how many records it
/// takes, and the bound that stopped it when a record was left (`None`: every
/// record offered fits).
fn window(
    sizes: impl Iterator<Item = u32>,
    options: &HistoryOptions,
) -> (usize, Option<HistoryCut>) {
    let (mut taken, mut bytes) = (0usize, 0u64);
    for size in sizes {
        if taken >= options.max_commits {
            return (taken, Some(HistoryCut::Commits));
        }
        if bytes + u64::from(size) > options.max_bytes {
            return (taken, Some(HistoryCut::Bytes));
        }
        taken += 1;
        bytes += u64::from(size);
    }
    (taken, None)
}

/// The bound that cut a window which took every record it was offered, when more
/// records followed them.
fn cut_after(taken: usize, options: &HistoryOptions) -> HistoryCut {
    if taken >= options.max_commits {
        HistoryCut::Commits
    } else {
        HistoryCut::Bytes
    }
}

/// Turns the records of a window into the history's commits (newest names, large
/// commits left out) and marks, learning renames into `renames` as it goes.
fn keep(
    records: Vec<(u32, Record)>,
    options: &HistoryOptions,
    renames: &mut Renames,
    history: &mut History,
) {
    for (size, record) in records {
        let paths = record.paths(renames);
        renames.learn(&record.changes);
        let kept = record.size <= options.max_files_per_commit;
        history.marks.push(Mark { bytes: size, kept });
        if !kept {
            history.skipped_large += 1;
            continue;
        }
        history.commits.push(Commit {
            id: record.id,
            time: record.time,
            author: record.author,
            subject: record.subject,
            message: record.message,
            paths,
        });
    }
}

/// The history of `head` from a fresh read of its log.
pub(super) fn assemble(
    head: String,
    head_time: i64,
    log: Log,
    options: &HistoryOptions,
) -> History {
    let mut history = History::new(head, head_time, Vec::new());
    let (taken, mut cut) = window(log.records.iter().map(|(s, _)| *s), options);
    if cut.is_none() && !log.ended {
        cut = Some(cut_after(taken, options));
    }
    history.cut = cut;
    let mut records = log.records;
    records.truncate(taken);
    keep(records, options, &mut Renames::default(), &mut history);
    history
}

/// The history of `head` from the log of the commits between `known.head` and it
/// (a chain of single-parent commits ending on `known.head`, so that a fresh log of
/// `head` is exactly these records followed by `known`'s), or `None` when `known`
/// does not reach far enough to tell where the new window ends.
pub(super) fn extend(
    head: String,
    head_time: i64,
    log: Log,
    known: &History,
    options: &HistoryOptions,
) -> Option<History> {
    if known.marks.len() != known.commits.len() + known.skipped_large {
        return None;
    }
    let sizes = log
        .records
        .iter()
        .map(|(s, _)| *s)
        .chain(known.marks.iter().map(|m| m.bytes));
    let (taken, mut cut) = window(sizes, options);
    let offered = log.records.len() + known.marks.len();
    if taken == log.records.len() && !log.ended {
        // The new commits alone did not fit: the window ends inside them.
        cut = Some(cut_after(taken, options));
    } else if taken == offered && cut.is_none() {
        // Every record known fits: what lies beyond is what lay beyond `known`.
        match known.cut {
            None => {}
            Some(_) => return None,
        }
    }
    let mut history = History::new(head, head_time, Vec::new());
    history.cut = cut;
    let mut renames = Renames::default();
    let new = log.records.len().min(taken);
    let mut records = log.records;
    records.truncate(new);
    keep(records, options, &mut renames, &mut history);
    let mut old = known.commits.iter();
    for mark in known.marks.iter().take(taken - new) {
        history.marks.push(*mark);
        if !mark.kept {
            history.skipped_large += 1;
            continue;
        }
        let commit = old.next()?;
        let mut paths: Vec<String> = commit
            .paths
            .iter()
            .map(|p| renames.newest(p).to_string())
            .collect();
        paths.sort();
        paths.dedup();
        history.commits.push(Commit {
            paths,
            ..commit.clone()
        });
    }
    Some(history)
}

/// Parses `<id> US <time> US <author> US <subject> US <body> NUL \n (<status> NUL
/// <path> NUL [<path> NUL])*`. An author or message that is not UTF-8 is kept
/// lossily: the commit's paths still count.
pub(super) fn parse_record(record: &[u8]) -> Option<Record> {
    let end = memchr::memchr(0, record).unwrap_or(record.len());
    let header = String::from_utf8_lossy(&record[..end]);
    let mut fields = header.splitn(5, FIELD as char);
    let id = fields.next()?.to_string();
    let time = fields.next()?.trim().parse().ok()?;
    let author = fields.next().unwrap_or("").to_string();
    let subject = fields.next().unwrap_or("").trim().to_string();
    let message = prefix(fields.next().unwrap_or("").trim(), MAX_MESSAGE_BYTES).to_string();
    if !super::is_object_id(&id) {
        return None;
    }
    let body = record.get(end + 1..).unwrap_or(&[]);
    let mut tokens = body
        .split(|&b| b == 0)
        .map(|t| t.strip_prefix(b"\n").unwrap_or(t))
        .filter(|t| !t.is_empty());
    let mut changes = Vec::new();
    let mut size = 0usize;
    while let Some(status) = tokens.next() {
        let two_paths = matches!(status.first(), Some(b'R' | b'C'));
        let first = tokens.next().and_then(utf8_path);
        let change = if two_paths {
            let second = tokens.next().and_then(utf8_path);
            match (status.first(), first, second) {
                (Some(b'R'), Some(old), Some(new)) => Some(Change::Renamed(old, new)),
                (_, _, Some(new)) => Some(Change::Touched(new)),
                _ => None,
            }
        } else {
            first.map(Change::Touched)
        };
        size += 1;
        // A path that is not UTF-8 cannot be an artifact of the source: it counts
        // towards the size of the commit only.
        changes.extend(change);
    }
    Some(Record {
        id,
        time,
        author,
        subject,
        message,
        size,
        changes,
    })
}

fn utf8_path(bytes: &[u8]) -> Option<String> {
    std::str::from_utf8(bytes).ok().map(str::to_string)
}

/// The property a fuzzer holds the log reader to: `data` (two bytes of bounds, a
/// split point, then git output with `\x1e!` markers) read whole, and read as the
/// records after the split extended by those before it, give the same history
/// whenever the extension answers; nothing panics.
#[doc(hidden)]
pub fn check_log_window(data: &[u8]) {
    let [commits, bytes, files, split, rest @ ..] = data else {
        return;
    };
    let options = HistoryOptions {
        max_commits: usize::from(*commits % 16),
        max_bytes: u64::from(*bytes) * 16,
        max_files_per_commit: usize::from(*files % 8),
        ..HistoryOptions::default()
    };
    let marker: &[u8] = b"\x1e!";
    let fresh = assemble("h".into(), 0, split_log(rest, marker, true), &options);
    let starts: Vec<usize> = memchr::memmem::find_iter(rest, marker).collect();
    let cut = starts
        .get(usize::from(*split) % (starts.len() + 1))
        .copied();
    let Some(cut) = cut.filter(|&c| c > 0) else {
        return;
    };
    let older = assemble(
        "o".into(),
        0,
        split_log(&rest[cut..], marker, true),
        &options,
    );
    let newer = split_log(&rest[..cut], marker, true);
    if let Some(extended) = extend("h".into(), 0, newer, &older, &options) {
        assert_eq!(extended, fresh);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MARK: &[u8] = b"\x1eNONCE";

    fn record(id: char, changes: &[&[&str]]) -> Vec<u8> {
        let mut out = format!(
            "{}\x1f1700000000\x1fAuthor\x1fFix the parser\x1fThe body.\n\0\n",
            id.to_string().repeat(40)
        );
        for change in changes {
            for part in *change {
                out.push_str(part);
                out.push('\0');
            }
        }
        out.into_bytes()
    }

    fn log_of(records: &[Vec<u8>]) -> Vec<u8> {
        let mut out = Vec::new();
        for r in records {
            out.extend_from_slice(MARK);
            out.extend_from_slice(r);
        }
        out
    }

    #[test]
    fn records_parse_statuses_renames_sizes_and_messages() {
        let bytes = record(
            'a',
            &[
                &["M", "src/a.py"],
                &["R087", "old/b.py", "new/b.py"],
                &["D", "gone.py"],
            ],
        );
        let parsed = parse_record(&bytes).unwrap();
        assert_eq!(parsed.id, "a".repeat(40));
        assert_eq!(parsed.time, 1_700_000_000);
        assert_eq!(parsed.author, "Author");
        assert_eq!(parsed.subject, "Fix the parser");
        assert_eq!(parsed.message, "The body.");
        assert_eq!(parsed.size, 3);
        assert_eq!(
            parsed.changes[1],
            Change::Renamed("old/b.py".into(), "new/b.py".into())
        );
        // A header that is not a commit is not a record.
        assert!(parse_record(b"not-a-commit\x1f1\x1fx\0\nM\0a\0").is_none());
        // Invalid UTF-8 in a path still counts towards the size.
        let mut odd = record('b', &[&["M", "ok.py"]]);
        odd.extend_from_slice(b"M\0bad\xff.py\0");
        let parsed = parse_record(&odd).unwrap();
        assert_eq!((parsed.size, parsed.changes.len()), (2, 1));
    }

    #[test]
    fn a_message_is_clipped_on_a_character_boundary() {
        let long = "é".repeat(MAX_MESSAGE_BYTES);
        let mut bytes = format!("{}\x1f1\x1fA\x1fS\x1f{long}\0\n", "c".repeat(40)).into_bytes();
        bytes.extend_from_slice(b"M\0a.py\0");
        let parsed = parse_record(&bytes).unwrap();
        assert!(parsed.message.len() <= MAX_MESSAGE_BYTES);
        assert!(parsed.message.len() >= MAX_MESSAGE_BYTES - 1);
    }

    #[test]
    fn a_cut_log_drops_its_last_record() {
        let bytes = log_of(&[
            record('a', &[&["M", "a.py"]]),
            record('b', &[&["M", "b.py"]]),
        ]);
        assert_eq!(split_log(&bytes, MARK, true).records.len(), 2);
        let cut = split_log(&bytes[..bytes.len() - 3], MARK, false);
        assert_eq!(cut.records.len(), 1);
        assert_eq!(cut.records[0].1.id, "a".repeat(40));
    }

    #[test]
    fn renames_map_old_names_to_the_newest_walking_back_from_head() {
        let mut renames = Renames::default();
        // Newest first: b → c, then (older) a → b.
        renames.learn(&[Change::Renamed("b.py".into(), "c.py".into())]);
        renames.learn(&[Change::Renamed("a.py".into(), "b.py".into())]);
        assert_eq!(renames.newest("a.py"), "c.py");
        assert_eq!(renames.newest("b.py"), "c.py");
        assert_eq!(renames.newest("other.py"), "other.py");
        // Renamed back and forth: the older name is the newest again.
        let mut renames = Renames::default();
        renames.learn(&[Change::Renamed("y.py".into(), "x.py".into())]);
        renames.learn(&[Change::Renamed("x.py".into(), "y.py".into())]);
        assert_eq!(renames.newest("x.py"), "x.py");
    }

    /// A log of `n` records, newest first, some renaming files, some large.
    fn synthetic(n: usize, seed: u64) -> Vec<Vec<u8>> {
        let mut state = seed | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..n)
            .map(|k| {
                let id = format!("{:040x}", 1_000_000 + k);
                let mut text = format!("{id}\x1f{}\x1fA\x1fcommit {k}\x1f\0\n", 2_000_000 - k);
                let files = 1 + (next() % 5) as usize;
                for _ in 0..files {
                    let a = next() % 6;
                    if next() % 4 == 0 {
                        let b = next() % 6;
                        text.push_str(&format!("R100\0f{b}.py\0f{a}.py\0"));
                    } else {
                        text.push_str(&format!("M\0f{a}.py\0"));
                    }
                }
                text.into_bytes()
            })
            .collect()
    }

    #[test]
    fn an_extended_window_is_the_fresh_window() {
        for seed in 1..40u64 {
            let records = synthetic(30, seed);
            for &(max_commits, max_bytes, max_files) in &[
                (100, u64::MAX, 50),
                (12, u64::MAX, 3),
                (100, 700, 4),
                (9, 500, 2),
            ] {
                let options = HistoryOptions {
                    max_commits,
                    max_bytes,
                    max_files_per_commit: max_files,
                    ..HistoryOptions::default()
                };
                let fresh = assemble(
                    "h".into(),
                    0,
                    split_log(&log_of(&records), MARK, true),
                    &options,
                );
                for split in [1usize, 5, 11, 29] {
                    let older = assemble(
                        "o".into(),
                        0,
                        split_log(&log_of(&records[split..]), MARK, true),
                        &options,
                    );
                    let newer = split_log(&log_of(&records[..split]), MARK, true);
                    match extend("h".into(), 0, newer, &older, &options) {
                        Some(extended) => assert_eq!(
                            extended, fresh,
                            "seed {seed} split {split} bounds {max_commits}/{max_bytes}"
                        ),
                        // Only when the known window was cut and the new one would
                        // reach past it.
                        None => assert!(older.cut.is_some()),
                    }
                }
            }
        }
    }
}
