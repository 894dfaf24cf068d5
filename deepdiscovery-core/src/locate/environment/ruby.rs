//! Ruby manifests: Gemfile and gemspecs.

use super::*;

pub(super) fn ruby_framework(name: &str) -> Option<&'static str> {
    Some(match name {
        "rails" | "railties" => "rails",
        "rspec" | "rspec-rails" | "rspec-core" => "rspec",
        _ => return None,
    })
}

pub(super) fn gemfile(text: &str) -> ManifestInfo {
    static GEM: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#"(?m)^\s*gem\s*\(?\s*["']([^"'\n]+)["']"#).unwrap());
    let mut info = ManifestInfo::default();
    for caps in GEM.captures_iter(text) {
        let Some(name) = caps.get(1) else { continue };
        if let Some(framework) = ruby_framework(name.as_str()) {
            info.evidence
                .push((framework, format!("gem \"{}\"", name.as_str())));
        }
    }
    info
}

pub(super) fn gemspec(text: &str) -> ManifestInfo {
    static NAME: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#"\.name\s*=\s*["']([^"'\n]+)["']"#).unwrap());
    static DEPENDENCY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"add_(?:runtime_|development_)?dependency\s*\(?\s*["']([^"'\n]+)["']"#)
            .unwrap()
    });
    let mut info = ManifestInfo::named(
        NAME.captures(text)
            .and_then(|c| c.get(1))
            .map(|m| m.as_str().to_string()),
    );
    for caps in DEPENDENCY.captures_iter(text) {
        let Some(name) = caps.get(1) else { continue };
        if let Some(framework) = ruby_framework(name.as_str()) {
            info.evidence
                .push((framework, format!("dependency \"{}\"", name.as_str())));
        }
    }
    info.own_name(ruby_framework);
    info
}

// --- PHP
