//! Archived copies: files kept per released version beside the current one
//! (`docs/manual/v1.6/manual.yml` beside `docs/manual/manual.yml`). A task is about
//! the current file; the copies repeat its words and would crowd it out of the
//! ranking.

use std::collections::HashSet;

/// Whether a path segment names a released version: `v1.6`, `1.6`, `2.0.1`,
/// `version-2.3` (at least one dot, so that a Go module's `v2` directory, which
/// holds the current code, is not one).
fn is_version(segment: &str) -> bool {
    let s = segment.strip_prefix("version-").unwrap_or(segment);
    let s = s.strip_prefix(['v', 'V']).unwrap_or(s);
    let mut parts = s.split('.');
    let all_numbers = s
        .split('.')
        .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    parts.next().is_some() && parts.next().is_some() && all_numbers
}

/// The indexes of `paths` that are archived copies: a segment of the path names a
/// version, and the same path without that segment is a file of the repository.
pub(crate) fn archived_copies(paths: &[&str]) -> Vec<usize> {
    let mut existing: Option<HashSet<&str>> = None;
    let mut out = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        // Scanned in place: most paths have no version directory and cost no
        // allocation.
        let Some(dir) = path.rfind('/').map(|end| &path[..end]) else {
            continue;
        };
        let mut start = 0;
        let version = dir.split('/').find_map(|segment| {
            let at = start;
            start += segment.len() + 1;
            is_version(segment).then_some((at, segment.len()))
        });
        let Some((at, len)) = version else {
            continue;
        };
        let current = format!("{}{}", &path[..at], &path[at + len + 1..]);
        let existing = existing.get_or_insert_with(|| paths.iter().copied().collect());
        if existing.contains(current.as_str()) {
            out.push(i);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versioned_copies_of_a_current_file_are_archived() {
        let paths = [
            "docs/manual/manual.yml",
            "docs/manual/v1.6/manual.yml",
            "docs/manual/1.5/manual.yml",
            "docs/manual/v1.4/other.yml",
            "pkg/v2/client.go",
            "pkg/client.go",
            "doc/whatsnew/2/2.9/index.rst",
        ];
        assert_eq!(archived_copies(&paths), [1, 2]);
        assert!(is_version("version-2.3") && is_version("V10.0.1"));
        assert!(!is_version("v2") && !is_version("1.") && !is_version("vx.y"));
    }
}
