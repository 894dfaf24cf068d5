//! Python manifests: requirements files, setup.py, setup.cfg, pyproject.toml, Pipfile.

use super::*;

pub(super) fn is_requirements(path: &str) -> bool {
    let name = file_name(path).to_ascii_lowercase();
    let listed = name.ends_with(".txt") || name.ends_with(".in");
    listed && (name.starts_with("requirements") || file_name(parent_dir(path)) == "requirements")
}

// --- Python

/// The distribution name at the start of a PEP 508 requirement, normalized as PEP 503
/// does (lower case, runs of `-_.` as one `-`).
pub(super) fn pep508_name(spec: &str) -> Option<String> {
    static NAME: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?").unwrap());
    let m = NAME.find(spec.trim())?;
    Some(normalize_python_name(m.as_str()))
}

pub(super) fn normalize_python_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

pub(super) fn python_framework(name: &str) -> Option<&'static str> {
    let name = normalize_python_name(name);
    Some(match name.as_str() {
        "django" | "djangorestframework" => "django",
        "flask" => "flask",
        "fastapi" => "fastapi",
        "pytest" => "pytest",
        // Extensions and plugins only make sense with their framework.
        n if n.starts_with("django-") => "django",
        n if n.starts_with("flask-") => "flask",
        n if n.starts_with("fastapi-") => "fastapi",
        n if n.starts_with("pytest-") => "pytest",
        _ => return None,
    })
}

/// One requirement string: framework evidence with `label` before the spec.
pub(super) fn python_requirement(spec: &str, label: &str, info: &mut ManifestInfo) {
    if let Some(name) = pep508_name(spec)
        && let Some(framework) = python_framework(&name)
    {
        let spec = spec.trim();
        let detail = if label.is_empty() {
            spec.to_string()
        } else {
            format!("{label} {spec}")
        };
        info.evidence.push((framework, detail));
    }
}

pub(super) fn requirements(text: &str) -> ManifestInfo {
    let mut info = ManifestInfo::default();
    for line in text.lines() {
        // pip: a comment starts at `#` at the line start or after whitespace.
        let line = match line.find(" #").or_else(|| line.find("\t#")) {
            Some(i) => &line[..i],
            None => line,
        }
        .trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with('-') {
            continue; // options (`-r`, `-e`, `--index-url`) name no distribution
        }
        python_requirement(line, "", &mut info);
    }
    info
}

/// String literals of the bracketed value after each `keyword=` in `setup(...)`.
pub(super) fn setup_py(text: &str) -> ManifestInfo {
    static KEYWORD: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(install_requires|tests_require|setup_requires|extras_require)\s*=\s*")
            .unwrap()
    });
    static NAME: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#"\bname\s*=\s*["']([^"'\n]+)["']"#).unwrap());
    let mut info = ManifestInfo::default();
    for caps in KEYWORD.captures_iter(text) {
        let (Some(all), Some(keyword)) = (caps.get(0), caps.get(1)) else {
            continue;
        };
        let value = bracketed(&text[all.end()..]);
        for literal in string_literals(value) {
            python_requirement(literal, keyword.as_str(), &mut info);
        }
    }
    // `name=` inside the `setup(` call, not of some `Extension(name=…)` before it.
    let from = text.find("setup(").unwrap_or(0);
    info.name = NAME
        .captures(&text[from..])
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_string());
    info.own_name(python_framework);
    info
}

/// A minimal INI reader (setup.cfg): section → key → value, continuation lines
/// appended to the value.
pub(super) fn ini(text: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut section = String::new();
    let mut key: Option<String> = None;
    for raw in text.lines() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if raw.starts_with([' ', '\t']) {
            if let Some(k) = &key
                && let Some(value) = out.get_mut(&section).and_then(|s| s.get_mut(k))
            {
                value.push('\n');
                value.push_str(line);
            }
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.trim().to_string();
            out.entry(section.clone()).or_default();
            key = None;
            continue;
        }
        if let Some(i) = line.find(['=', ':']) {
            let k = line[..i].trim().to_string();
            let v = line[i + 1..].trim().to_string();
            out.entry(section.clone()).or_default().insert(k.clone(), v);
            key = Some(k);
        }
    }
    out
}

pub(super) fn setup_cfg(text: &str) -> ManifestInfo {
    let sections = ini(text);
    let mut info = ManifestInfo::named(
        sections
            .get("metadata")
            .and_then(|s| s.get("name"))
            .cloned(),
    );
    if let Some(options) = sections.get("options") {
        for key in ["install_requires", "tests_require", "setup_requires"] {
            for line in options.get(key).map(String::as_str).unwrap_or("").lines() {
                python_requirement(line, key, &mut info);
            }
        }
    }
    if let Some(extras) = sections.get("options.extras_require") {
        for (extra, value) in extras {
            for line in value.lines() {
                python_requirement(line, &format!("extras_require.{extra}"), &mut info);
            }
        }
    }
    if sections.contains_key("tool:pytest") {
        info.evidence.push(("pytest", "[tool:pytest]".to_string()));
    }
    info.own_name(python_framework);
    info
}

pub(super) fn pyproject(text: &str) -> Option<ManifestInfo> {
    let table = toml_table(text)?;
    let mut info = ManifestInfo::named(
        toml_get(&table, &["project", "name"])
            .or_else(|| toml_get(&table, &["tool", "poetry", "name"]))
            .and_then(|v| v.as_str())
            .map(str::to_string),
    );
    let strings = |value: Option<&toml::Value>| -> Vec<String> {
        value
            .and_then(|v| v.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    for spec in strings(toml_get(&table, &["project", "dependencies"])) {
        python_requirement(&spec, "project.dependencies", &mut info);
    }
    let groups = [
        (
            "project.optional-dependencies",
            toml_get(&table, &["project", "optional-dependencies"]),
        ),
        ("dependency-groups", table.get("dependency-groups")),
    ];
    for (label, group) in groups {
        for (name, value) in group.and_then(|v| v.as_table()).into_iter().flatten() {
            for spec in strings(Some(value)) {
                python_requirement(&spec, &format!("{label}.{name}"), &mut info);
            }
        }
    }
    let mut poetry: Vec<(String, &toml::Value)> = Vec::new();
    for key in ["dependencies", "dev-dependencies"] {
        if let Some(v) = toml_get(&table, &["tool", "poetry", key]) {
            poetry.push((format!("tool.poetry.{key}"), v));
        }
    }
    if let Some(groups) = toml_get(&table, &["tool", "poetry", "group"]).and_then(|v| v.as_table())
    {
        for (group, value) in groups {
            if let Some(deps) = value.get("dependencies") {
                poetry.push((format!("tool.poetry.group.{group}.dependencies"), deps));
            }
        }
    }
    for (label, deps) in poetry {
        for name in deps.as_table().into_iter().flat_map(|t| t.keys()) {
            if let Some(framework) = python_framework(name) {
                info.evidence.push((framework, format!("{label}.{name}")));
            }
        }
    }
    if toml_get(&table, &["tool", "pytest"]).is_some() {
        info.evidence.push(("pytest", "[tool.pytest]".to_string()));
    }
    info.own_name(python_framework);
    Some(info)
}

pub(super) fn pipfile(text: &str) -> Option<ManifestInfo> {
    let table = toml_table(text)?;
    let mut info = ManifestInfo::default();
    for section in ["packages", "dev-packages"] {
        for name in table
            .get(section)
            .and_then(|v| v.as_table())
            .into_iter()
            .flat_map(|t| t.keys())
        {
            if let Some(framework) = python_framework(name) {
                info.evidence.push((framework, format!("{section}.{name}")));
            }
        }
    }
    Some(info)
}

// --- JavaScript / TypeScript
