//! Node manifests: package.json.

use super::*;

pub(super) fn npm_framework(name: &str) -> Option<&'static str> {
    Some(match name {
        "react" | "react-dom" | "react-native" => "react",
        "vue" | "nuxt" => "vue",
        "express" => "express",
        "next" => "next",
        "jest" | "ts-jest" | "babel-jest" | "@types/jest" => "jest",
        "mocha" | "@types/mocha" => "mocha",
        n if n.starts_with("@angular/") => "angular",
        n if n.starts_with("@nestjs/") => "nestjs",
        n if n.starts_with("@jest/") => "jest",
        _ => return None,
    })
}

pub(super) fn package_json(text: &str) -> Option<ManifestInfo> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let object = value.as_object()?;
    let mut info = ManifestInfo::named(
        object
            .get("name")
            .and_then(|v| v.as_str())
            .map(str::to_string),
    );
    for section in [
        "dependencies",
        "devDependencies",
        "peerDependencies",
        "optionalDependencies",
    ] {
        let deps = object.get(section).and_then(|v| v.as_object());
        for name in deps.into_iter().flat_map(|d| d.keys()) {
            if let Some(framework) = npm_framework(name) {
                info.evidence.push((framework, format!("{section}.{name}")));
            }
        }
    }
    // Test runners configured inline.
    for (key, framework) in [("jest", "jest"), ("mocha", "mocha")] {
        if object.contains_key(key) {
            info.evidence.push((framework, format!("\"{key}\" config")));
        }
    }
    info.own_name(npm_framework);
    Some(info)
}

// --- JVM
