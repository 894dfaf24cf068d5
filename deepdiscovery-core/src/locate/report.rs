//! Environment reports pasted into a task.
//!
//! Bug reports carry the reporter's environment: the output of a `show_versions()`,
//! `pip list`, `conda list` or `--version`, often folded in a `<details>` block. Its
//! lines name every installed package and setting (`netCDF4: None`, `LC_ALL: None`,
//! `pluggy 0.9.0`), and those names are also the names of modules and functions of
//! the repository (the module that prints the versions, the backend for `netCDF4`).
//! They say where the reporter ran the code, not what to change, so they are dropped
//! from the text the query and the cues are read from.

use std::sync::LazyLock;

use regex::Regex;

/// A line of a version listing: `numpy: 1.18.5`, `pluggy 0.9.0`, `six==1.12.0`,
/// `netCDF4: None`, `python: 3.8.3 (default, Jul  2 2020)`.
static VERSION_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^\s*[-*]?\s*[A-Za-z][\w.\-]*\s*(?::|==|=)?\s*(?:v?\d+(?:\.\d+)+[\w.+\-]*|None|none|unknown|N/A|not installed)\s*(?:\(.*\))?\s*$",
    )
    .expect("valid built-in regex")
});

/// A run of version lines this long (blank and fence lines aside) is a listing.
const MIN_RUN: usize = 4;
/// Words of a `<details>` summary that announce an environment report.
const REPORT_SUMMARY: &[&str] = &[
    "version",
    "environment",
    "pip list",
    "pip freeze",
    "conda list",
    "system info",
    "installed",
];

/// `text` without its environment reports: `<details>` blocks whose summary
/// announces versions or the environment, and runs of version lines. Other lines
/// keep their place (a removed line leaves an empty one), so nothing else is glued.
pub(crate) fn strip(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut keep = vec![true; lines.len()];
    // <details> blocks announcing an environment report.
    let mut i = 0;
    while i < lines.len() {
        let lower = lines[i].to_ascii_lowercase();
        if lower.contains("<details")
            && let Some(end) = (i..lines.len()).find(|&j| lines[j].contains("</details>"))
        {
            let summary: String = lines[i..=end.min(i + 2)]
                .iter()
                .map(|l| l.to_ascii_lowercase())
                .collect();
            if REPORT_SUMMARY.iter().any(|w| summary.contains(w)) {
                keep[i..=end].iter_mut().for_each(|k| *k = false);
            }
            i = end + 1;
            continue;
        }
        i += 1;
    }
    // Runs of version lines.
    let mut run: Vec<usize> = Vec::new();
    let flush = |run: &mut Vec<usize>, keep: &mut Vec<bool>| {
        if run.len() >= MIN_RUN {
            run.iter().for_each(|&j| keep[j] = false);
        }
        run.clear();
    };
    for (j, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with("```") {
            continue;
        }
        if VERSION_LINE.is_match(line) {
            run.push(j);
        } else {
            flush(&mut run, &mut keep);
        }
    }
    flush(&mut run, &mut keep);
    lines
        .iter()
        .zip(&keep)
        .map(|(line, &k)| if k { *line } else { "" })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn details_with_versions_and_version_listings_are_dropped() {
        let task = "Dataset.update loses chunks of `foo`.\n\n**Environment**:\n\n\
                    <details><summary>Output of <tt>xr.show_versions()</tt></summary>\n\n\
                    ```\nLC_ALL: None\nnetCDF4: None\n```\n\n</details>\n\
                    Also with pip list:\n```\nPackage Version\n--------------\n\
                    attrs 19.1.0\npluggy 0.9.0\npy 1.8.0\nsix==1.12.0\n```\n\
                    See `Dataset.update` in `xarray/core/merge.py`.";
        let out = strip(task);
        assert!(!out.contains("LC_ALL"), "{out}");
        assert!(!out.contains("netCDF4"), "{out}");
        assert!(!out.contains("pluggy"), "{out}");
        assert!(out.contains("Dataset.update loses chunks"), "{out}");
        assert!(out.contains("xarray/core/merge.py"), "{out}");
        assert_eq!(out.lines().count(), task.lines().count());
    }

    #[test]
    fn configuration_and_short_listings_stay() {
        // Configuration is a cue, not an environment: keys with non-version values,
        // and fewer than four version lines in a row.
        let task = "Style/RedundantParentheses:\n  Enabled: true\n  MaxLength: 80\n\n\
                    rubocop 1.68.0\nruby 3.3.0\n<details><summary>Traceback</summary>\n\
                    File \"a.py\", line 3\n</details>";
        assert_eq!(strip(task), task);
    }
}
