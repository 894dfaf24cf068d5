//! Rust manifests: Cargo.toml.

use super::*;

pub(super) fn cargo_framework(name: &str) -> Option<&'static str> {
    Some(match name {
        "actix-web" => "actix-web",
        "axum" => "axum",
        "tokio" => "tokio",
        _ => return None,
    })
}

pub(super) fn cargo(text: &str) -> Option<ManifestInfo> {
    let table = toml_table(text)?;
    let mut info = ManifestInfo::named(
        toml_get(&table, &["package", "name"])
            .and_then(|v| v.as_str())
            .map(str::to_string),
    );
    if table.contains_key("workspace") {
        info.evidence
            .push(("cargo-workspace", "[workspace]".to_string()));
    }
    const SECTIONS: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];
    let mut tables: Vec<(String, &toml::Table)> = Vec::new();
    for section in SECTIONS {
        if let Some(t) = table.get(section).and_then(|v| v.as_table()) {
            tables.push((section.to_string(), t));
        }
    }
    if let Some(t) = toml_get(&table, &["workspace", "dependencies"]).and_then(|v| v.as_table()) {
        tables.push(("workspace.dependencies".to_string(), t));
    }
    for (target, spec) in table
        .get("target")
        .and_then(|v| v.as_table())
        .into_iter()
        .flatten()
    {
        for section in SECTIONS {
            if let Some(t) = spec.get(section).and_then(|v| v.as_table()) {
                tables.push((format!("target.{target}.{section}"), t));
            }
        }
    }
    for (label, deps) in tables {
        for (key, spec) in deps {
            // A renamed dependency names its crate in `package`.
            let name = spec.get("package").and_then(|v| v.as_str()).unwrap_or(key);
            if let Some(framework) = cargo_framework(name) {
                info.evidence.push((framework, format!("{label}.{key}")));
            }
        }
    }
    info.own_name(cargo_framework);
    Some(info)
}

// --- Ruby
