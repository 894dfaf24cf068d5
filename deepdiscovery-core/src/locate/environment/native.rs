//! C and C++ build files: CMake and Meson.

use super::*;

pub(super) fn cmake(text: &str) -> ManifestInfo {
    static PROJECT: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#"(?i)\bproject\s*\(\s*"?([A-Za-z0-9_.+\-]+)"#).unwrap());
    ManifestInfo {
        name: PROJECT
            .captures(text)
            .and_then(|c| c.get(1))
            .map(|m| m.as_str().to_string()),
        evidence: Vec::new(),
    }
}

pub(super) fn meson(text: &str) -> ManifestInfo {
    static PROJECT: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#"\bproject\s*\(\s*'([^'\n]+)'"#).unwrap());
    ManifestInfo {
        name: PROJECT
            .captures(text)
            .and_then(|c| c.get(1))
            .map(|m| m.as_str().to_string()),
        evidence: Vec::new(),
    }
}
