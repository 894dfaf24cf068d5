//! JVM manifests: Maven pom.xml and Gradle build scripts.

use super::*;

pub(super) fn maven_framework(group: &str, artifact: &str) -> Option<&'static str> {
    Some(match (group, artifact) {
        (g, _) if g.starts_with("org.springframework") => "spring",
        (_, a) if a.starts_with("spring-boot") => "spring",
        ("junit", _) => "junit",
        (g, _) if g.starts_with("org.junit") => "junit",
        ("com.android.tools.build", _) => "android",
        (g, _) if g.starts_with("androidx.") => "android",
        _ => return None,
    })
}

pub(super) fn pom(text: &str) -> Option<ManifestInfo> {
    let doc = xml_document(text)?;
    let root = doc.root_element();
    let mut info = ManifestInfo::named(child_text(root, "artifactId").map(str::to_string));
    // Dependencies, plugins and the parent (spring-boot-starter-parent) all name
    // coordinates.
    for node in root.descendants().filter(|n| {
        n.is_element() && matches!(n.tag_name().name(), "dependency" | "plugin" | "parent")
    }) {
        let group = child_text(node, "groupId").unwrap_or("");
        let artifact = child_text(node, "artifactId").unwrap_or("");
        if let Some(framework) = maven_framework(group, artifact) {
            info.evidence
                .push((framework, format!("{group}:{artifact}")));
        }
    }
    Some(info)
}

pub(super) fn gradle_plugin_framework(id: &str) -> Option<&'static str> {
    let id = id.to_ascii_lowercase();
    if id.contains("springframework.boot")
        || id.contains("spring.dependency-management")
        || id.contains("spring.boot")
        || id.contains("plugin.spring")
    {
        Some("spring")
    } else if id.starts_with("com.android.") || id.starts_with("android.") {
        Some("android")
    } else {
        None
    }
}

/// Gradle scripts are code; dependency coordinates and plugin ids are string
/// literals with a fixed shape, so patterns find them.
pub(super) fn gradle(text: &str) -> ManifestInfo {
    static COORDINATE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"["']([A-Za-z0-9_.\-]+):([A-Za-z0-9_.\-]+)(?::[^"'\s]*)?["']"#).unwrap()
    });
    static PLUGIN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r#"(?:\bid\s*\(?\s*|\bapply\s*\(?\s*plugin\s*[:=]\s*|\bkotlin\s*\(\s*)["']([A-Za-z0-9_.\-]+)["']|\balias\s*\(\s*libs\.plugins\.([A-Za-z0-9_.\-]+)"#,
        )
        .unwrap()
    });
    let mut info = ManifestInfo::default();
    for caps in COORDINATE.captures_iter(text) {
        let (Some(group), Some(artifact)) = (caps.get(1), caps.get(2)) else {
            continue;
        };
        if let Some(framework) = maven_framework(group.as_str(), artifact.as_str()) {
            info.evidence.push((
                framework,
                format!("{}:{}", group.as_str(), artifact.as_str()),
            ));
        }
    }
    for caps in PLUGIN.captures_iter(text) {
        let Some(id) = caps.get(1).or_else(|| caps.get(2)) else {
            continue;
        };
        if let Some(framework) = gradle_plugin_framework(id.as_str()) {
            info.evidence
                .push((framework, format!("plugin {}", id.as_str())));
        }
    }
    if text.contains("useJUnitPlatform(") {
        info.evidence
            .push(("junit", "useJUnitPlatform()".to_string()));
    }
    info
}

// --- Go
