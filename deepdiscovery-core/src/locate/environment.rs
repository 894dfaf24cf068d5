//! Environment-aware analysis of the repository (paper §III.C): the technology stack
//! (languages by share, frameworks from manifests and imports) and the modules
//! (subprojects from build manifests), and the module scope a task text points at.
//!
//! # Approach
//!
//! The analysis must stay cheap, because it runs at task time before anything else
//! is known. It therefore works from the file listing and reads **only manifests**
//! (each one once):
//!
//! - *Languages* are counted from the listing alone (code artifacts only).
//! - *Frameworks* come from the dependencies that manifests declare, parsed with real
//!   readers (JSON, TOML, XML, PEP 508 requirement lines, `go.mod` directives,
//!   Gemfile `gem` lines; Gradle and `setup.py` are code, so their dependency strings
//!   are picked out by pattern), from a module that *is* a framework (its declared
//!   name is a framework's package name), and from path signals that are conventions
//!   of one framework (`manage.py` beside a `settings.py`, `angular.json`,
//!   `config/routes.rb`…). A manifest that does not parse gives nothing. Manifests
//!   under vendored or fixture trees (`node_modules`, `vendor`, `testdata`…) describe
//!   someone else's stack and count for modules only.
//! - *Modules* are the directories holding a build manifest (the same rule the graph
//!   uses for its module edges, [`crate::graph::is_module_manifest`]), named as their
//!   manifest declares, each file belonging to its nearest enclosing module.
//!
//! The *module scope* of a task text is found by indexing the text once (words,
//! path-like tokens and their segment runs, backticked spans) and looking every module
//! up in that index: an explicit mention (backticked name, a path through the module
//! root) scores higher than the module's name appearing as a plain word.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use crate::artifact::{Language, Role};
use crate::graph::is_module_manifest;
use crate::resolve::{file_name, parent_dir};

/// A framework or platform found in the repository, with the evidence for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Framework {
    /// Canonical name (`django`, `spring`, `react`, `gin`, `cargo-workspace`…).
    pub name: String,
    /// Where it was seen (`requirements.txt: Django`, `pom.xml: spring-boot-starter`).
    pub evidence: String,
}

/// A module (subproject) rooted at a build manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Module {
    /// Directory of the module (`""` for the repository root).
    pub root: String,
    /// Path of its manifest.
    pub manifest: String,
    /// Its declared name when the manifest gives one, else the directory name (`""`
    /// for an unnamed root module).
    pub name: String,
    /// Number of artifacts in it (excluding nested modules).
    pub files: usize,
}

/// The inferred technology stack and module structure.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Environment {
    /// Languages of code artifacts with their share of them, largest first.
    pub languages: Vec<(Language, f32)>,
    /// Frameworks found, sorted by name.
    pub frameworks: Vec<Framework>,
    /// Modules, sorted by root.
    pub modules: Vec<Module>,
}

/// One listed artifact as the analysis sees it.
#[derive(Debug, Clone, Copy)]
pub struct ListedFile<'a> {
    /// Repository-relative path.
    pub path: &'a str,
    /// Language detected from the path.
    pub language: Language,
    /// Role from the path.
    pub role: Role,
}

/// Manifests larger than this are not read (generated or vendored; the cost would
/// not pay).
const MAX_MANIFEST_BYTES: usize = 1 << 20;
/// Evidence details are cut to this many characters.
const MAX_DETAIL_CHARS: usize = 100;

impl Environment {
    /// Infers the environment from the listing; `read` returns the text of a file
    /// (used for manifests only, so the cost stays small).
    pub fn infer(files: &[ListedFile<'_>], read: &dyn Fn(&str) -> Option<String>) -> Environment {
        // Path order makes "first evidence" and every tie deterministic whatever the
        // order of the listing.
        let mut order: Vec<&ListedFile<'_>> = files.iter().collect();
        order.sort_by(|a, b| a.path.cmp(b.path));
        order.dedup_by(|a, b| a.path == b.path);

        let languages = language_shares(&order);
        let settings = order
            .iter()
            .map(|f| f.path)
            .find(|p| is_django_settings(p) && Scope::of(p) == Scope::Own);

        let mut found = Found::default();
        let mut declared: HashMap<&str, String> = HashMap::new();
        let mut go_mod_seen = false;
        for file in &order {
            let path = file.path;
            let scope = Scope::of(path);
            if let Some((framework, evidence)) = path_signal(path, settings)
                && scope.admits(framework)
            {
                found.add(framework, evidence);
            }
            let Some(kind) = ManifestKind::of(path) else {
                continue;
            };
            let Some(text) = read(path).filter(|t| t.len() <= MAX_MANIFEST_BYTES) else {
                continue;
            };
            let Some(info) = kind.analyze(path, &text) else {
                continue; // did not parse
            };
            go_mod_seen |= kind == ManifestKind::GoMod && scope == Scope::Own;
            for (framework, detail) in info.evidence {
                if scope.admits(framework) {
                    found.add(framework, format!("{path}: {}", clip(&detail)));
                }
            }
            if let Some(name) = info.name.filter(|n| !n.trim().is_empty()) {
                declared.insert(path, name.trim().to_string());
            }
        }
        if go_mod_seen {
            go_http_fallback(&order, &mut found);
        }

        let frameworks = found
            .0
            .into_iter()
            .map(|(name, evidence)| Framework {
                name: name.to_string(),
                evidence,
            })
            .collect();
        Environment {
            languages,
            frameworks,
            modules: modules(&order, &declared),
        }
    }

    /// Modules the task text points at (by module name or root directory), with a
    /// score in [0, 1], best first. Empty when the text names none.
    ///
    /// Scores: a backticked module name or root 1.0; the root as a path prefix
    /// (`packages/web/src/…`) 0.95 (0.85 for a one-segment root); the declared name
    /// as a word 0.6 and up with repeated mentions; a short or directory name as a
    /// word 0.45 and up. The root module, names under three characters and common
    /// words (`core`, `src`, `test`…) are never matched as words; an explicit path is
    /// still honoured.
    pub fn module_scope(&self, task_text: &str) -> Vec<(usize, f32)> {
        if self.modules.is_empty() || task_text.is_empty() {
            return Vec::new();
        }
        let mentions = Mentions::index(task_text);
        let mut scored: Vec<(usize, f32)> = self
            .modules
            .iter()
            .enumerate()
            .filter(|(_, m)| !m.root.is_empty())
            .filter_map(|(i, m)| {
                let score = mentions.score(m);
                (score > 0.0).then_some((i, score.min(1.0)))
            })
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored
    }
}

// ---------------------------------------------------------------- languages

fn language_shares(files: &[&ListedFile<'_>]) -> Vec<(Language, f32)> {
    let mut counts: BTreeMap<Language, usize> = BTreeMap::new();
    for f in files.iter().filter(|f| f.language.is_code()) {
        *counts.entry(f.language).or_default() += 1;
    }
    let total: usize = counts.values().sum();
    let mut shares: Vec<(Language, usize)> = counts.into_iter().collect();
    shares.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.name().cmp(b.0.name())));
    shares
        .into_iter()
        .map(|(lang, n)| (lang, n as f32 / total as f32))
        .collect()
}

// ---------------------------------------------------------------- modules

fn modules(order: &[&ListedFile<'_>], declared: &HashMap<&str, String>) -> Vec<Module> {
    // Directory → its manifests, in name order (the graph takes the first by name).
    let mut dirs: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for f in order {
        if is_module_manifest(file_name(f.path)) {
            dirs.entry(parent_dir(f.path)).or_default().push(f.path);
        }
    }
    if dirs.is_empty() {
        return Vec::new();
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for f in order {
        let mut dir = parent_dir(f.path);
        loop {
            if dirs.contains_key(dir) {
                *counts.entry(dir).or_default() += 1;
                break;
            }
            if dir.is_empty() {
                break;
            }
            dir = parent_dir(dir);
        }
    }
    dirs.into_iter()
        .map(|(root, manifests)| {
            // A directory may hold several manifests (`pyproject.toml` and `setup.py`);
            // the first that declares a name gives it.
            let name = manifests
                .iter()
                .find_map(|m| declared.get(m).cloned())
                .unwrap_or_else(|| file_name(root).to_string());
            Module {
                root: root.to_string(),
                manifest: manifests[0].to_string(),
                name,
                files: counts.get(root).copied().unwrap_or(0),
            }
        })
        .collect()
}

// ---------------------------------------------------------------- frameworks

/// First evidence per framework.
#[derive(Default)]
struct Found(BTreeMap<&'static str, String>);

impl Found {
    fn add(&mut self, framework: &'static str, evidence: String) {
        self.0.entry(framework).or_insert(evidence);
    }
}

/// How much a file's directory says about the repository's own stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// The repository's own code: every signal counts.
    Own,
    /// A test tree: its manifests declare test dependencies, but application
    /// frameworks seen there are usually sample data, so only test runners count.
    Tests,
    /// Dependencies and fixtures: someone else's stack, nothing counts.
    Foreign,
}

impl Scope {
    fn of(path: &str) -> Scope {
        if in_foreign_tree(path) {
            Scope::Foreign
        } else if parent_dir(path).split('/').any(|seg| {
            matches!(
                seg.to_ascii_lowercase().as_str(),
                "test"
                    | "tests"
                    | "__tests__"
                    | "spec"
                    | "specs"
                    | "testing"
                    | "e2e"
                    | "integration-tests"
                    | "unittest"
                    | "unittests"
            )
        }) {
            Scope::Tests
        } else {
            Scope::Own
        }
    }

    fn admits(self, framework: &str) -> bool {
        match self {
            Scope::Own => true,
            Scope::Tests => matches!(
                framework,
                "pytest" | "junit" | "jest" | "mocha" | "rspec" | "phpunit" | "xunit" | "nunit"
            ),
            Scope::Foreign => false,
        }
    }
}

/// Directories whose manifests describe someone else's code (dependencies, test
/// fixtures), not the repository's own stack.
fn in_foreign_tree(path: &str) -> bool {
    parent_dir(path).split('/').any(|seg| {
        matches!(
            seg,
            "node_modules"
                | "bower_components"
                | "vendor"
                | "third_party"
                | "third-party"
                | "thirdparty"
                | "site-packages"
                | "fixtures"
                | "__fixtures__"
                | "testdata"
                | "test_data"
                | "test-data"
        )
    })
}

fn is_django_settings(path: &str) -> bool {
    path == "settings.py"
        || path.ends_with("/settings.py")
        || path.ends_with("/settings/__init__.py")
        || path.ends_with("/settings/base.py")
}

/// Conventions that belong to one framework, seen from the path alone.
fn path_signal(path: &str, settings: Option<&str>) -> Option<(&'static str, String)> {
    let name = file_name(path);
    let framework = match name {
        "manage.py" => return settings.map(|s| ("django", format!("{path} + {s}"))),
        "AndroidManifest.xml" => "android",
        "angular.json" | ".angular-cli.json" => "angular",
        "nest-cli.json" => "nestjs",
        "artisan" => "laravel",
        "symfony.lock" => "symfony",
        "conftest.py" | "pytest.ini" => "pytest",
        "routes.rb" if parent_dir(path) == "config" || parent_dir(path).ends_with("/config") => {
            "rails"
        }
        _ if name.starts_with("next.config.") => "next",
        _ if name.starts_with("vue.config.") => "vue",
        _ if name.starts_with("jest.config.") => "jest",
        _ if name.starts_with(".mocharc") => "mocha",
        // Single-file components exist only in Vue.
        _ if name.len() > ".vue".len() && name.ends_with(".vue") => "vue",
        _ => return None,
    };
    Some((framework, path.to_string()))
}

/// Go services on the standard library's `net/http` declare nothing in `go.mod`; the
/// only cheap signal is where the code lives (handler/server/router directories).
fn go_http_fallback(order: &[&ListedFile<'_>], found: &mut Found) {
    const GO_WEB: [&str; 4] = ["gin", "echo", "fiber", "go-net-http"];
    if GO_WEB.iter().any(|f| found.0.contains_key(f)) {
        return;
    }
    let http_dir = order.iter().map(|f| f.path).find(|p| {
        p.ends_with(".go")
            && !p.ends_with("_test.go")
            && Scope::of(p) == Scope::Own
            && parent_dir(p).split('/').any(|seg| {
                matches!(
                    seg,
                    "handler"
                        | "handlers"
                        | "http"
                        | "httpapi"
                        | "httpserver"
                        | "server"
                        | "router"
                        | "routes"
                        | "routing"
                        | "middleware"
                        | "api"
                        | "web"
                )
            })
    });
    if let Some(p) = http_dir {
        found.add("go-net-http", format!("go.mod + {p}"));
    }
}

fn clip(detail: &str) -> String {
    let detail = detail.trim();
    match detail.char_indices().nth(MAX_DETAIL_CHARS) {
        Some((i, _)) => format!("{}…", &detail[..i]),
        None => detail.to_string(),
    }
}

/// What a manifest says: its declared name and framework evidence (framework, detail).
#[derive(Default)]
struct ManifestInfo {
    name: Option<String>,
    evidence: Vec<(&'static str, String)>,
}

impl ManifestInfo {
    fn named(name: Option<String>) -> ManifestInfo {
        ManifestInfo {
            name,
            evidence: Vec::new(),
        }
    }

    /// A module that *is* a framework (Django's own repository) uses its idioms too.
    fn own_name(&mut self, map: fn(&str) -> Option<&'static str>) {
        if let Some(name) = &self.name
            && let Some(framework) = map(&name.to_ascii_lowercase())
        {
            self.evidence.push((framework, format!("name = {name}")));
        }
    }
}

/// The manifests that are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ManifestKind {
    Requirements,
    SetupPy,
    SetupCfg,
    Pyproject,
    Pipfile,
    PackageJson,
    Pom,
    Gradle,
    GoMod,
    Cargo,
    Gemfile,
    Gemspec,
    Composer,
    Csproj,
    CMake,
    Meson,
}

impl ManifestKind {
    fn of(path: &str) -> Option<ManifestKind> {
        let name = file_name(path);
        Some(match name {
            "setup.py" => ManifestKind::SetupPy,
            "setup.cfg" => ManifestKind::SetupCfg,
            "pyproject.toml" => ManifestKind::Pyproject,
            "Pipfile" => ManifestKind::Pipfile,
            "package.json" => ManifestKind::PackageJson,
            "pom.xml" => ManifestKind::Pom,
            "build.gradle" | "build.gradle.kts" => ManifestKind::Gradle,
            "go.mod" => ManifestKind::GoMod,
            "Cargo.toml" => ManifestKind::Cargo,
            "Gemfile" => ManifestKind::Gemfile,
            "composer.json" => ManifestKind::Composer,
            "CMakeLists.txt" => ManifestKind::CMake,
            "meson.build" => ManifestKind::Meson,
            _ if name.ends_with(".csproj") => ManifestKind::Csproj,
            _ if name.ends_with(".gemspec") => ManifestKind::Gemspec,
            _ if is_requirements(path) => ManifestKind::Requirements,
            _ => return None,
        })
    }

    /// Reads one manifest; `None` when it does not parse.
    fn analyze(self, path: &str, text: &str) -> Option<ManifestInfo> {
        match self {
            ManifestKind::Requirements => Some(requirements(text)),
            ManifestKind::SetupPy => Some(setup_py(text)),
            ManifestKind::SetupCfg => Some(setup_cfg(text)),
            ManifestKind::Pyproject => pyproject(text),
            ManifestKind::Pipfile => pipfile(text),
            ManifestKind::PackageJson => package_json(text),
            ManifestKind::Pom => pom(text),
            ManifestKind::Gradle => Some(gradle(text)),
            ManifestKind::GoMod => go_mod(text),
            ManifestKind::Cargo => cargo(text),
            ManifestKind::Gemfile => Some(gemfile(text)),
            ManifestKind::Gemspec => Some(gemspec(text)),
            ManifestKind::Composer => composer(text),
            ManifestKind::Csproj => csproj(path, text),
            ManifestKind::CMake => Some(cmake(text)),
            ManifestKind::Meson => Some(meson(text)),
        }
    }
}

fn is_requirements(path: &str) -> bool {
    let name = file_name(path).to_ascii_lowercase();
    let listed = name.ends_with(".txt") || name.ends_with(".in");
    listed && (name.starts_with("requirements") || file_name(parent_dir(path)) == "requirements")
}

// --- Python

/// The distribution name at the start of a PEP 508 requirement, normalized as PEP 503
/// does (lower case, runs of `-_.` as one `-`).
fn pep508_name(spec: &str) -> Option<String> {
    static NAME: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?").unwrap());
    let m = NAME.find(spec.trim())?;
    Some(normalize_python_name(m.as_str()))
}

fn normalize_python_name(name: &str) -> String {
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

fn python_framework(name: &str) -> Option<&'static str> {
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
fn python_requirement(spec: &str, label: &str, info: &mut ManifestInfo) {
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

fn requirements(text: &str) -> ManifestInfo {
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
fn setup_py(text: &str) -> ManifestInfo {
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

/// The balanced `[...]`, `{...}` or `(...)` at the start of `s` (quotes respected),
/// or `""` when `s` does not start with a bracket (a variable, not a literal).
fn bracketed(s: &str) -> &str {
    const MAX_SCAN: usize = 64 * 1024;
    let bytes = s.as_bytes();
    let (open, close) = match bytes.first() {
        Some(b'[') => (b'[', b']'),
        Some(b'{') => (b'{', b'}'),
        Some(b'(') => (b'(', b')'),
        _ => return "",
    };
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    for (i, &b) in bytes.iter().enumerate().take(MAX_SCAN) {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == open => depth += 1,
            None if b == close => {
                depth -= 1;
                if depth == 0 {
                    return &s[..=i];
                }
            }
            None => {}
        }
    }
    // Unbalanced: take what was scanned, on a character boundary.
    let mut end = bytes.len().min(MAX_SCAN);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

fn string_literals(s: &str) -> impl Iterator<Item = &str> {
    static LITERAL: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#""([^"\\\n]*)"|'([^'\\\n]*)'"#).unwrap());
    LITERAL
        .captures_iter(s)
        .filter_map(|c| c.get(1).or_else(|| c.get(2)).map(|m| m.as_str()))
}

/// A minimal INI reader (setup.cfg): section → key → value, continuation lines
/// appended to the value.
fn ini(text: &str) -> BTreeMap<String, BTreeMap<String, String>> {
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

fn setup_cfg(text: &str) -> ManifestInfo {
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

fn toml_table(text: &str) -> Option<toml::Table> {
    text.parse::<toml::Table>().ok()
}

/// `table.a.b` as a table.
fn toml_get<'t>(table: &'t toml::Table, keys: &[&str]) -> Option<&'t toml::Value> {
    let (last, init) = keys.split_last()?;
    let mut current = table;
    for key in init {
        current = current.get(*key)?.as_table()?;
    }
    current.get(*last)
}

fn pyproject(text: &str) -> Option<ManifestInfo> {
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

fn pipfile(text: &str) -> Option<ManifestInfo> {
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

fn npm_framework(name: &str) -> Option<&'static str> {
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

fn package_json(text: &str) -> Option<ManifestInfo> {
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

fn maven_framework(group: &str, artifact: &str) -> Option<&'static str> {
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

fn xml_document(text: &str) -> Option<roxmltree::Document<'_>> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..roxmltree::ParsingOptions::default()
    };
    roxmltree::Document::parse_with_options(text, options).ok()
}

fn child_text<'a>(node: roxmltree::Node<'a, '_>, name: &str) -> Option<&'a str> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
        .and_then(|c| c.text())
        .map(str::trim)
}

fn pom(text: &str) -> Option<ManifestInfo> {
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

fn gradle_plugin_framework(id: &str) -> Option<&'static str> {
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
fn gradle(text: &str) -> ManifestInfo {
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

fn go_framework(module: &str) -> Option<&'static str> {
    // `github.com/labstack/echo/v4` is `github.com/labstack/echo`.
    let base = match module.rsplit_once('/') {
        Some((head, tail))
            if tail.len() > 1
                && tail.starts_with('v')
                && tail[1..].bytes().all(|b| b.is_ascii_digit()) =>
        {
            head
        }
        _ => module,
    };
    Some(match base {
        "github.com/gin-gonic/gin" => "gin",
        "github.com/labstack/echo" => "echo",
        "github.com/gofiber/fiber" => "fiber",
        "google.golang.org/grpc" => "grpc",
        // Routers that plug into the standard library's handlers.
        "github.com/gorilla/mux"
        | "github.com/go-chi/chi"
        | "github.com/julienschmidt/httprouter" => "go-net-http",
        _ => return None,
    })
}

/// `go.mod`: the `module` directive and `require` lines (single or in a block).
/// Without a `module` directive the file is not a `go.mod` and gives nothing.
fn go_mod(text: &str) -> Option<ManifestInfo> {
    let mut info = ManifestInfo::default();
    let mut module: Option<&str> = None;
    let mut in_require = false;
    for raw in text.lines() {
        let line = raw.split("//").next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let required = if in_require {
            if line.starts_with(')') {
                in_require = false;
                continue;
            }
            Some(line)
        } else if let Some(rest) = line.strip_prefix("require") {
            let rest = rest.trim();
            if rest.starts_with('(') {
                in_require = true;
                None
            } else {
                Some(rest)
            }
        } else if let Some(rest) = line.strip_prefix("module") {
            module = rest.split_whitespace().next().map(|m| m.trim_matches('"'));
            None
        } else {
            None
        };
        if let Some(path) = required.and_then(|r| r.split_whitespace().next()) {
            let path = path.trim_matches('"');
            if let Some(framework) = go_framework(path) {
                info.evidence.push((framework, format!("require {path}")));
            }
        }
    }
    let module = module.filter(|m| !m.is_empty())?;
    // The last segment that is not a major version (`example.com/x/v2` → `x`).
    info.name = module
        .rsplit('/')
        .find(|seg| {
            !(seg.len() > 1 && seg.starts_with('v') && seg[1..].bytes().all(|b| b.is_ascii_digit()))
        })
        .map(str::to_string);
    Some(info)
}

// --- Rust

fn cargo_framework(name: &str) -> Option<&'static str> {
    Some(match name {
        "actix-web" => "actix-web",
        "axum" => "axum",
        "tokio" => "tokio",
        _ => return None,
    })
}

fn cargo(text: &str) -> Option<ManifestInfo> {
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

fn ruby_framework(name: &str) -> Option<&'static str> {
    Some(match name {
        "rails" | "railties" => "rails",
        "rspec" | "rspec-rails" | "rspec-core" => "rspec",
        _ => return None,
    })
}

fn gemfile(text: &str) -> ManifestInfo {
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

fn gemspec(text: &str) -> ManifestInfo {
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

fn php_framework(name: &str) -> Option<&'static str> {
    Some(match name {
        "laravel/framework" | "laravel/lumen-framework" => "laravel",
        "symfony/framework-bundle" | "symfony/symfony" | "symfony/http-kernel" => "symfony",
        "phpunit/phpunit" => "phpunit",
        _ => return None,
    })
}

fn composer(text: &str) -> Option<ManifestInfo> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let object = value.as_object()?;
    let mut info = ManifestInfo::named(
        object
            .get("name")
            .and_then(|v| v.as_str())
            .map(str::to_string),
    );
    for section in ["require", "require-dev"] {
        let deps = object.get(section).and_then(|v| v.as_object());
        for name in deps.into_iter().flat_map(|d| d.keys()) {
            if let Some(framework) = php_framework(&name.to_ascii_lowercase()) {
                info.evidence.push((framework, format!("{section}.{name}")));
            }
        }
    }
    info.own_name(php_framework);
    Some(info)
}

// --- .NET

fn dotnet_framework(package: &str) -> Option<&'static str> {
    let package = package.to_ascii_lowercase();
    Some(match package.as_str() {
        p if p.starts_with("microsoft.aspnetcore") => "dotnet-aspnetcore",
        p if p == "xunit" || p.starts_with("xunit.") => "xunit",
        p if p == "nunit" || p.starts_with("nunit3") => "nunit",
        _ => return None,
    })
}

fn csproj(path: &str, text: &str) -> Option<ManifestInfo> {
    let doc = xml_document(text)?;
    let root = doc.root_element();
    let mut info = ManifestInfo::default();
    let stem = file_name(path).trim_end_matches(".csproj");
    info.name = root
        .descendants()
        .find(|n| n.is_element() && n.tag_name().name() == "AssemblyName")
        .and_then(|n| n.text())
        .map(str::trim)
        .filter(|n| !n.is_empty() && !n.contains("$("))
        .or((!stem.is_empty()).then_some(stem))
        .map(str::to_string);
    if let Some(sdk) = root.attribute("Sdk")
        && (sdk.starts_with("Microsoft.NET.Sdk.Web")
            || sdk.starts_with("Microsoft.NET.Sdk.Razor")
            || sdk.starts_with("Microsoft.NET.Sdk.BlazorWebAssembly"))
    {
        info.evidence
            .push(("dotnet-aspnetcore", format!("Sdk={sdk}")));
    }
    for node in root.descendants().filter(|n| {
        n.is_element()
            && matches!(
                n.tag_name().name(),
                "PackageReference" | "FrameworkReference"
            )
    }) {
        let Some(package) = node
            .attribute("Include")
            .or_else(|| node.attribute("Update"))
        else {
            continue;
        };
        if let Some(framework) = dotnet_framework(package) {
            info.evidence
                .push((framework, format!("{} {package}", node.tag_name().name())));
        }
    }
    Some(info)
}

// --- C / C++ (names only)

fn cmake(text: &str) -> ManifestInfo {
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

fn meson(text: &str) -> ManifestInfo {
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

// ---------------------------------------------------------------- module scope

/// Names too generic to mean a module when they appear as a plain word (stop words,
/// directory conventions, language names). Sorted, for binary search.
#[rustfmt::skip]
const COMMON_WORDS: &[&str] = &[
    "about", "after", "again", "all", "also", "and", "any", "app", "application", "apps", "are",
    "base", "bench", "benches", "benchmark", "benchmarks", "bin", "bug", "build", "but", "can",
    "class", "cli", "cmd", "code", "common", "config", "configs", "contrib", "core", "data",
    "default", "demo", "dev", "dist", "doc", "docs", "does", "error", "example", "examples",
    "ext", "extra", "extras", "file", "files", "fix", "for", "from", "function", "get", "has",
    "have", "how", "index", "internal", "into", "issue", "java", "javascript", "lib", "libs",
    "main", "misc", "model", "models", "module", "modules", "new", "node", "not", "old", "one",
    "package", "packages", "php", "pkg", "plugin", "plugins", "project", "python", "ruby",
    "run", "rust", "sample", "samples", "script", "scripts", "set", "shared", "should", "site",
    "spec", "specs", "src", "support", "test", "testing", "tests", "that", "the", "this",
    "tool", "tools", "type", "types", "typescript", "use", "util", "utils", "when", "with",
    "would",
];

fn is_common(word: &str) -> bool {
    COMMON_WORDS.binary_search(&word).is_ok()
}

/// A name worth matching at all: three characters or more.
fn long_enough(name: &str) -> bool {
    name.chars().nth(2).is_some()
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

fn is_path_char(c: char) -> bool {
    is_word_char(c) || matches!(c, '.' | '/' | '\\' | '@')
}

/// What the task text mentions, indexed once so that every module is a few lookups.
struct Mentions {
    /// Lower-case words (letters, digits, `_`, `-`) and how often each occurs.
    words: HashMap<String, usize>,
    /// Whole path-like tokens (`@acme/web`, `lodash.merge`).
    tokens: HashSet<String>,
    /// Runs of path segments followed by a further segment (directory prefixes).
    dirs: HashSet<String>,
    /// Runs of path segments that end a token.
    tails: HashSet<String>,
    /// Inline-code spans.
    quoted: HashSet<String>,
}

impl Mentions {
    /// Longest run of segments kept (module roots are rarely deeper).
    const MAX_RUN: usize = 6;
    /// Segments considered per token (absolute paths can be long).
    const MAX_SEGMENTS: usize = 24;

    fn index(text: &str) -> Mentions {
        static QUOTED: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(r"`([^`\n]{1,200})`").unwrap());
        let lower = text.to_lowercase();
        let mut words: HashMap<String, usize> = HashMap::new();
        for word in lower.split(|c: char| !is_word_char(c)) {
            let word = word.trim_matches('-');
            if !word.is_empty() {
                *words.entry(word.to_string()).or_default() += 1;
            }
        }
        let tokens: HashSet<String> = lower
            .split(|c: char| !is_path_char(c))
            .map(|t| t.trim_end_matches(['.', '-']).replace('\\', "/"))
            .filter(|t| !t.is_empty())
            .collect();
        let mut dirs = HashSet::new();
        let mut tails = HashSet::new();
        for token in tokens.iter().filter(|t| t.contains('/')) {
            let segments: Vec<&str> = token
                .split('/')
                .filter(|s| !s.is_empty() && *s != "." && *s != "..")
                .take(Self::MAX_SEGMENTS)
                .collect();
            let n = segments.len();
            for i in 0..n {
                for j in i + 1..=n.min(i + Self::MAX_RUN) {
                    let run = segments[i..j].join("/");
                    if j < n {
                        dirs.insert(run);
                    } else {
                        tails.insert(run);
                    }
                }
            }
        }
        let quoted = QUOTED
            .captures_iter(&lower)
            .filter_map(|c| c.get(1))
            .map(|m| {
                let q = m.as_str().trim();
                q.strip_prefix("./")
                    .unwrap_or(q)
                    .trim_end_matches('/')
                    .to_string()
            })
            .collect();
        Mentions {
            words,
            tokens,
            dirs,
            tails,
            quoted,
        }
    }

    /// How often `name` occurs as a word (or, for names with `.`/`/`/`@`, as a token).
    fn word_count(&self, name: &str) -> usize {
        if name.chars().all(is_word_char) {
            self.words.get(name).copied().unwrap_or(0)
        } else {
            usize::from(
                self.tokens.contains(name) || self.dirs.contains(name) || self.tails.contains(name),
            )
        }
    }

    /// A word match: `base` for one mention, a little more for repeated ones.
    fn word_score(&self, name: &str, base: f32) -> f32 {
        if !long_enough(name) || is_common(name) {
            return 0.0;
        }
        match self.word_count(name) {
            0 => 0.0,
            n => base + 0.05 * (n - 1).min(3) as f32,
        }
    }

    fn score(&self, module: &Module) -> f32 {
        let root = module.root.to_lowercase();
        let name = module.name.to_lowercase();
        // `@acme/web` → `web`, `vendor/pkg` → `pkg`.
        let short = name
            .rsplit('/')
            .next()
            .unwrap_or("")
            .trim_start_matches('@');
        let dir = file_name(&root);
        let depth = root.split('/').count();
        let mut best = 0.0f32;

        // Explicit: inline code naming the module or its root.
        for (key, score) in [
            (name.as_str(), 1.0),
            (root.as_str(), 1.0),
            (short, 0.9),
            (dir, 0.9),
        ] {
            if long_enough(key) && !is_common(key) && self.quoted.contains(key) {
                best = best.max(score);
            }
        }
        // Explicit: a path through the module root; a deeper root is more specific.
        if long_enough(&root) {
            if self.dirs.contains(&root) {
                best = best.max(if depth >= 2 { 0.95 } else { 0.85 });
            }
            if depth >= 2 && self.tails.contains(&root) {
                best = best.max(0.9);
            }
        }
        if name != root && long_enough(&name) && self.dirs.contains(&name) {
            best = best.max(0.85);
        }
        // Plain words.
        best = best.max(self.word_score(&name, 0.6));
        if short != name {
            best = best.max(self.word_score(short, 0.5));
        }
        if dir != name && dir != short {
            best = best.max(self.word_score(dir, 0.45));
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A listing with languages and roles detected as the session would.
    fn listing(paths: &[&'static str]) -> Vec<ListedFile<'static>> {
        paths
            .iter()
            .map(|p| {
                let language = Language::detect(p, None);
                ListedFile {
                    path: p,
                    language,
                    role: Role::classify(p, language),
                }
            })
            .collect()
    }

    /// Infers from an in-memory repository: (path, text) pairs; files without text
    /// get empty text.
    fn infer(repo: &[(&'static str, &'static str)]) -> Environment {
        let files = listing(&repo.iter().map(|(p, _)| *p).collect::<Vec<_>>());
        let texts: HashMap<&str, &str> = repo.iter().copied().collect();
        Environment::infer(&files, &|p: &str| texts.get(p).map(|t| t.to_string()))
    }

    fn names(env: &Environment) -> Vec<&str> {
        env.frameworks.iter().map(|f| f.name.as_str()).collect()
    }

    fn evidence<'e>(env: &'e Environment, name: &str) -> &'e str {
        env.frameworks
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.evidence.as_str())
            .unwrap_or("")
    }

    fn module<'e>(env: &'e Environment, root: &str) -> &'e Module {
        env.modules.iter().find(|m| m.root == root).expect(root)
    }

    const DJANGO: &[(&str, &str)] = &[
        ("manage.py", "import os\n"),
        ("mysite/settings.py", "INSTALLED_APPS = []\n"),
        ("mysite/urls.py", ""),
        ("polls/models.py", ""),
        ("polls/views.py", ""),
        ("polls/tests.py", ""),
        (
            "requirements.txt",
            "# web\nDjango>=3.2  # LTS\n-r base.txt\n--index-url https://x\npytest-django==4.5\n",
        ),
        ("README.md", "# mysite"),
    ];

    #[test]
    fn django_project() {
        let env = infer(DJANGO);
        assert_eq!(names(&env), ["django", "pytest"]);
        // Path order: the `manage.py` signal comes before `requirements.txt`.
        assert_eq!(evidence(&env, "django"), "manage.py + mysite/settings.py");
        assert_eq!(
            evidence(&env, "pytest"),
            "requirements.txt: pytest-django==4.5"
        );
        assert_eq!(env.languages, vec![(Language::Python, 1.0)]);
        assert!(env.modules.is_empty());
    }

    #[test]
    fn requirements_alone_give_django() {
        let env = infer(&[
            ("requirements/base.txt", "django-environ\n"),
            (
                "requirements.txt",
                "Django>=3.2 ; python_version >= '3.8'\n",
            ),
            ("app.py", ""),
        ]);
        assert_eq!(names(&env), ["django"]);
        assert_eq!(
            evidence(&env, "django"),
            "requirements.txt: Django>=3.2 ; python_version >= '3.8'"
        );
    }

    const SPRING: &[(&str, &str)] = &[
        (
            "pom.xml",
            r#"<?xml version="1.0"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <parent>
    <groupId>org.springframework.boot</groupId>
    <artifactId>spring-boot-starter-parent</artifactId>
  </parent>
  <artifactId>shop-parent</artifactId>
  <modules><module>shop-api</module><module>shop-core</module></modules>
</project>"#,
        ),
        (
            "shop-api/pom.xml",
            r#"<project xmlns="http://maven.apache.org/POM/4.0.0">
  <parent><groupId>com.acme</groupId><artifactId>shop-parent</artifactId></parent>
  <artifactId>shop-api</artifactId>
  <dependencies>
    <dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-web</artifactId></dependency>
    <dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><scope>test</scope></dependency>
  </dependencies>
</project>"#,
        ),
        (
            "shop-api/src/main/java/com/acme/api/OrderController.java",
            "",
        ),
        ("shop-api/src/main/resources/application.yml", ""),
        (
            "shop-api/src/test/java/com/acme/api/OrderControllerTest.java",
            "",
        ),
        (
            "shop-core/pom.xml",
            "<project><artifactId>shop-core</artifactId></project>",
        ),
        ("shop-core/src/main/java/com/acme/core/Order.java", ""),
        ("shop-core/src/main/kotlin/com/acme/core/Money.kt", ""),
    ];

    #[test]
    fn spring_boot_maven_multi_module() {
        let env = infer(SPRING);
        assert_eq!(names(&env), ["junit", "spring"]);
        assert_eq!(
            evidence(&env, "spring"),
            "pom.xml: org.springframework.boot:spring-boot-starter-parent"
        );
        assert_eq!(
            evidence(&env, "junit"),
            "shop-api/pom.xml: org.junit.jupiter:junit-jupiter"
        );
        let roots: Vec<&str> = env.modules.iter().map(|m| m.root.as_str()).collect();
        assert_eq!(roots, ["", "shop-api", "shop-core"]);
        assert_eq!(module(&env, "").name, "shop-parent");
        assert_eq!(module(&env, "").files, 1);
        assert_eq!(module(&env, "shop-api").name, "shop-api");
        assert_eq!(module(&env, "shop-api").manifest, "shop-api/pom.xml");
        assert_eq!(module(&env, "shop-api").files, 4);
        assert_eq!(module(&env, "shop-core").files, 3);
        assert_eq!(env.languages[0].0, Language::Java);
        assert!((env.languages[0].1 - 0.75).abs() < 1e-6);
        assert_eq!(env.languages[1], (Language::Kotlin, 0.25));
    }

    const MONOREPO: &[(&str, &str)] = &[
        (
            "package.json",
            r#"{"name": "acme", "private": true, "workspaces": ["packages/*"],
                "devDependencies": {"jest": "^29"}}"#,
        ),
        (
            "packages/web/package.json",
            r#"{"name": "@acme/web", "dependencies": {"react": "^18", "react-dom": "^18"}}"#,
        ),
        ("packages/web/src/App.tsx", ""),
        ("packages/web/src/index.ts", ""),
        (
            "packages/api/package.json",
            r#"{"name": "@acme/api", "dependencies": {"express": "^4"},
                "devDependencies": {"mocha": "^10"}}"#,
        ),
        ("packages/api/src/server.js", ""),
        ("packages/api/test/server.test.js", ""),
        ("scripts/release.sh", ""),
    ];

    #[test]
    fn react_express_monorepo() {
        let env = infer(MONOREPO);
        assert_eq!(names(&env), ["express", "jest", "mocha", "react"]);
        assert_eq!(
            evidence(&env, "react"),
            "packages/web/package.json: dependencies.react"
        );
        assert_eq!(evidence(&env, "jest"), "package.json: devDependencies.jest");
        let modules: Vec<(&str, &str, usize)> = env
            .modules
            .iter()
            .map(|m| (m.root.as_str(), m.name.as_str(), m.files))
            .collect();
        assert_eq!(
            modules,
            [
                ("", "acme", 2),
                ("packages/api", "@acme/api", 3),
                ("packages/web", "@acme/web", 3)
            ]
        );
        let total: f32 = env.languages.iter().map(|l| l.1).sum();
        assert!((total - 1.0).abs() < 1e-6);
        // 2 JavaScript, 1 TypeScript, 1 TSX: ties by name.
        let langs: Vec<Language> = env.languages.iter().map(|l| l.0).collect();
        assert_eq!(
            langs,
            [Language::JavaScript, Language::Tsx, Language::TypeScript]
        );
    }

    #[test]
    fn go_service_with_gin() {
        let env = infer(&[
            (
                "go.mod",
                "module github.com/acme/orders-svc/v2\n\ngo 1.21\n\nrequire (\n\tgithub.com/gin-gonic/gin v1.9.1\n\tgoogle.golang.org/grpc v1.58.0 // indirect\n)\nrequire github.com/labstack/echo/v4 v4.11.0\n",
            ),
            ("main.go", ""),
            ("internal/handlers/order.go", ""),
            ("internal/handlers/order_test.go", ""),
        ]);
        assert_eq!(names(&env), ["echo", "gin", "grpc"]);
        assert_eq!(
            evidence(&env, "gin"),
            "go.mod: require github.com/gin-gonic/gin"
        );
        assert_eq!(env.modules.len(), 1);
        assert_eq!(env.modules[0].name, "orders-svc");
        assert_eq!(env.modules[0].files, 4);
        assert_eq!(env.languages, vec![(Language::Go, 1.0)]);
    }

    #[test]
    fn go_service_on_net_http() {
        let env = infer(&[
            ("go.mod", "module example.com/shop\n\ngo 1.22\n"),
            ("cmd/shop/main.go", ""),
            ("internal/server/routes.go", ""),
        ]);
        assert_eq!(names(&env), ["go-net-http"]);
        assert_eq!(
            evidence(&env, "go-net-http"),
            "go.mod + internal/server/routes.go"
        );
        // A Go command-line tool gets no web framework.
        let env = infer(&[("go.mod", "module example.com/tool\n"), ("main.go", "")]);
        assert!(env.frameworks.is_empty());
    }

    #[test]
    fn cargo_workspace() {
        let env = infer(&[
            (
                "Cargo.toml",
                "[workspace]\nmembers = [\"crates/*\"]\n\n[workspace.dependencies]\ntokio = { version = \"1\", features = [\"full\"] }\n",
            ),
            (
                "crates/server/Cargo.toml",
                "[package]\nname = \"acme-server\"\n\n[dependencies]\naxum = \"0.7\"\ntokio = { workspace = true }\n",
            ),
            ("crates/server/src/main.rs", ""),
            (
                "crates/cli/Cargo.toml",
                "[package]\nname = \"acme-cli\"\n\n[target.'cfg(unix)'.dependencies]\nweb = { package = \"actix-web\", version = \"4\" }\n",
            ),
            ("crates/cli/src/main.rs", ""),
            ("crates/cli/src/args.rs", ""),
        ]);
        assert_eq!(
            names(&env),
            ["actix-web", "axum", "cargo-workspace", "tokio"]
        );
        assert_eq!(evidence(&env, "cargo-workspace"), "Cargo.toml: [workspace]");
        assert_eq!(
            evidence(&env, "tokio"),
            "Cargo.toml: workspace.dependencies.tokio"
        );
        assert_eq!(
            evidence(&env, "actix-web"),
            "crates/cli/Cargo.toml: target.cfg(unix).dependencies.web"
        );
        let modules: Vec<(&str, &str, usize)> = env
            .modules
            .iter()
            .map(|m| (m.root.as_str(), m.name.as_str(), m.files))
            .collect();
        assert_eq!(
            modules,
            [
                ("", "", 1),
                ("crates/cli", "acme-cli", 3),
                ("crates/server", "acme-server", 2)
            ]
        );
    }

    #[test]
    fn malformed_manifests_are_skipped() {
        let env = infer(&[
            ("package.json", "{ \"dependencies\": { \"react\": "),
            (
                "api/pom.xml",
                "<project><artifactId>api</artifactId><dependency>",
            ),
            (
                "core/Cargo.toml",
                "[package\nname = \"x\"\n[dependencies]\ntokio = 1",
            ),
            ("py/pyproject.toml", "[project\nname = 'django'"),
            ("svc/go.mod", "require github.com/gin-gonic/gin v1\n"),
            ("web/composer.json", "[1, 2]"),
            (
                "legacy/App.csproj",
                "<Project Sdk=\"Microsoft.NET.Sdk.Web\">",
            ),
            ("api/Main.java", ""),
        ]);
        assert!(env.frameworks.is_empty(), "{:?}", env.frameworks);
        let modules: Vec<(&str, &str)> = env
            .modules
            .iter()
            .map(|m| (m.root.as_str(), m.name.as_str()))
            .collect();
        assert_eq!(
            modules,
            [
                ("", ""),
                ("api", "api"),
                ("core", "core"),
                ("legacy", "legacy"),
                ("py", "py"),
                ("svc", "svc"),
                ("web", "web")
            ]
        );
    }

    #[test]
    fn no_manifests_at_all() {
        let env = infer(&[
            ("src/a.py", ""),
            ("src/b.py", ""),
            ("src/c.rb", ""),
            ("README", ""),
        ]);
        assert!(env.frameworks.is_empty());
        assert!(env.modules.is_empty());
        assert_eq!(env.languages[0].0, Language::Python);
        assert!((env.languages[0].1 - 2.0 / 3.0).abs() < 1e-6);
        assert_eq!(Environment::infer(&[], &|_| None), Environment::default());
        // Manifests that cannot be read are like absent ones, except as module roots.
        let files = listing(&["package.json", "index.js"]);
        let env = Environment::infer(&files, &|_| None);
        assert!(env.frameworks.is_empty());
        assert_eq!(env.modules[0].files, 2);
    }

    #[test]
    fn each_manifest_is_read_once() {
        use std::cell::RefCell;
        let files = listing(&[
            "pyproject.toml",
            "setup.py",
            "pkg/__init__.py",
            "pkg/core.py",
            "docs/index.md",
        ]);
        let reads = RefCell::new(Vec::new());
        let env = Environment::infer(&files, &|p: &str| {
            reads.borrow_mut().push(p.to_string());
            Some(match p {
                "pyproject.toml" => {
                    "[project]\nname = 'Widget'\ndependencies = ['flask>=2']\n".into()
                }
                _ => String::new(),
            })
        });
        assert_eq!(*reads.borrow(), ["pyproject.toml", "setup.py"]);
        assert_eq!(env.modules[0].name, "Widget");
        assert_eq!(env.modules[0].manifest, "pyproject.toml");
        assert_eq!(names(&env), ["flask"]);
    }

    #[test]
    fn python_manifests() {
        let env = infer(&[
            (
                "a/setup.py",
                "from setuptools import setup\nsetup(\n    name='a-lib',\n    install_requires=[\n        'Flask>=2.0',\n        \"requests\",\n    ],\n    tests_require=REQS,\n    extras_require={'test': ['pytest[testing]>=7']},\n)\n",
            ),
            (
                "b/setup.cfg",
                "[metadata]\nname = b-lib\n\n[options]\ninstall_requires =\n    fastapi>=0.100\n    uvicorn\n\n[tool:pytest]\naddopts = -q\n",
            ),
            (
                "c/pyproject.toml",
                "[tool.poetry]\nname = \"c-lib\"\n[tool.poetry.dependencies]\npython = \"^3.10\"\nDjango = \"^4\"\n[tool.poetry.group.dev.dependencies]\npytest = \"*\"\n",
            ),
            ("d/Pipfile", "[packages]\nflask = \"*\"\n"),
        ]);
        assert_eq!(names(&env), ["django", "fastapi", "flask", "pytest"]);
        assert_eq!(
            evidence(&env, "flask"),
            "a/setup.py: install_requires Flask>=2.0"
        );
        assert_eq!(
            evidence(&env, "pytest"),
            "a/setup.py: extras_require pytest[testing]>=7"
        );
        assert_eq!(
            evidence(&env, "fastapi"),
            "b/setup.cfg: install_requires fastapi>=0.100"
        );
        assert_eq!(
            evidence(&env, "django"),
            "c/pyproject.toml: tool.poetry.dependencies.Django"
        );
        let names: Vec<&str> = env.modules.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["a-lib", "b-lib", "c-lib"]);
    }

    #[test]
    fn a_framework_repository_names_itself() {
        let env = infer(&[
            (
                "pyproject.toml",
                "[project]\nname = \"Django\"\ndependencies = [\"asgiref\"]\n",
            ),
            ("django/db/models/base.py", ""),
        ]);
        assert_eq!(names(&env), ["django"]);
        assert_eq!(evidence(&env, "django"), "pyproject.toml: name = Django");
    }

    #[test]
    fn other_ecosystems() {
        let env = infer(&[
            (
                "android/app/build.gradle",
                "plugins {\n    id 'com.android.application'\n}\ndependencies {\n    testImplementation 'junit:junit:4.13.2'\n}\n",
            ),
            ("android/app/src/main/AndroidManifest.xml", "<manifest/>"),
            (
                "boot/build.gradle.kts",
                "plugins { id(\"org.springframework.boot\") version \"3.2.0\" }\n",
            ),
            ("php/artisan", ""),
            (
                "php/composer.json",
                r#"{"name": "acme/shop", "require": {"laravel/framework": "^10"}, "require-dev": {"phpunit/phpunit": "^10"}}"#,
            ),
            (
                "rb/Gemfile",
                "source 'https://rubygems.org'\ngem 'rails', '~> 7.0'\ngem \"rspec-rails\"\n",
            ),
            ("rb/config/routes.rb", ""),
            (
                "net/Api/Api.csproj",
                r#"<Project Sdk="Microsoft.NET.Sdk.Web"><ItemGroup><PackageReference Include="xunit" Version="2.5" /></ItemGroup></Project>"#,
            ),
            ("sym/symfony.lock", "{}"),
            ("ng/angular.json", "{}"),
            ("nest/nest-cli.json", "{}"),
            ("front/next.config.mjs", ""),
            ("front/src/App.vue", ""),
        ]);
        assert_eq!(
            names(&env),
            [
                "android",
                "angular",
                "dotnet-aspnetcore",
                "junit",
                "laravel",
                "nestjs",
                "next",
                "phpunit",
                "rails",
                "rspec",
                "spring",
                "symfony",
                "vue",
                "xunit"
            ]
        );
        assert_eq!(
            evidence(&env, "android"),
            "android/app/build.gradle: plugin com.android.application"
        );
        assert_eq!(
            evidence(&env, "spring"),
            "boot/build.gradle.kts: plugin org.springframework.boot"
        );
        assert_eq!(evidence(&env, "rails"), "rb/Gemfile: gem \"rails\"");
        assert_eq!(evidence(&env, "laravel"), "php/artisan");
        assert_eq!(
            evidence(&env, "dotnet-aspnetcore"),
            "net/Api/Api.csproj: Sdk=Microsoft.NET.Sdk.Web"
        );
        assert_eq!(module(&env, "php").name, "acme/shop");
        assert_eq!(module(&env, "net/Api").name, "Api");
    }

    #[test]
    fn vendored_and_fixture_manifests_do_not_count() {
        let env = infer(&[
            (
                "node_modules/express/package.json",
                r#"{"name": "express"}"#,
            ),
            ("tests/fixtures/app/requirements.txt", "django\n"),
            (
                "vendor/github.com/x/y/go.mod",
                "module github.com/x/y\nrequire github.com/gin-gonic/gin v1\n",
            ),
            ("index.js", ""),
        ]);
        assert!(env.frameworks.is_empty(), "{:?}", env.frameworks);
        // Still modules (the graph sees them as such).
        assert_eq!(module(&env, "node_modules/express").name, "express");
    }

    #[test]
    fn test_trees_count_for_test_runners_only() {
        let env = infer(&[
            ("src/lib.rs", ""),
            ("tests/data/requirements.txt", "django\npytest\n"),
            ("tests/examples/App.vue", ""),
            ("tests/settings.py", ""),
            ("manage.py", ""),
        ]);
        assert_eq!(names(&env), ["pytest"]);
        assert_eq!(
            evidence(&env, "pytest"),
            "tests/data/requirements.txt: pytest"
        );
    }

    #[test]
    fn order_of_the_listing_does_not_matter() {
        let forward = infer(MONOREPO);
        let mut reversed: Vec<(&'static str, &'static str)> = MONOREPO.to_vec();
        reversed.reverse();
        reversed.push(MONOREPO[0]); // a duplicate listing entry
        assert_eq!(infer(&reversed), forward);
    }

    #[test]
    fn module_scope_by_name_and_path() {
        let env = infer(MONOREPO);
        let api = env
            .modules
            .iter()
            .position(|m| m.root == "packages/api")
            .unwrap();
        let web = env
            .modules
            .iter()
            .position(|m| m.root == "packages/web")
            .unwrap();

        let scope = env.module_scope("Crash in `@acme/web` when the list is empty");
        assert_eq!(scope, [(web, 1.0)]);

        let scope = env.module_scope(
            "TypeError: x is undefined\n    at handler (/home/ci/acme/packages/api/src/server.js:12:5)",
        );
        assert_eq!(scope, [(api, 0.95)]);

        // Short names as plain words are weaker; the path wins over the word.
        let scope = env.module_scope("The web page calls the API in packages/api/src/server.js");
        assert_eq!(scope[0], (api, 0.95));
        assert_eq!(scope[1], (web, 0.5));

        // The root module and common words never match.
        assert!(
            env.module_scope("acme packages scripts: all fail")
                .is_empty()
        );
        assert!(env.module_scope("").is_empty());
    }

    #[test]
    fn module_scope_scores_and_ties() {
        let env = infer(SPRING);
        let api = env
            .modules
            .iter()
            .position(|m| m.root == "shop-api")
            .unwrap();
        let core = env
            .modules
            .iter()
            .position(|m| m.root == "shop-core")
            .unwrap();
        // One-segment root as a path prefix.
        assert_eq!(
            env.module_scope("see shop-core/src/main/java/com/acme/core/Order.java"),
            [(core, 0.85)]
        );
        // Both named as words once: tie broken by index.
        assert_eq!(
            env.module_scope("After upgrading, SHOP-CORE and shop-api disagree."),
            [(api, 0.6), (core, 0.6)]
        );
        // Repeated mentions raise the score, bounded.
        let many = "shop-api ".repeat(20);
        let scope = env.module_scope(&many);
        assert_eq!(scope.len(), 1);
        assert_eq!(scope[0].0, api);
        assert!((scope[0].1 - 0.75).abs() < 1e-6);
        // Part of a longer word is no mention.
        assert!(env.module_scope("shop-apis and myshop-core").is_empty());
    }

    #[test]
    fn module_scope_nested_roots_prefer_the_deepest() {
        let env = infer(&[
            ("lucene/build.gradle", ""),
            ("lucene/queries/build.gradle", ""),
            (
                "lucene/queries/src/java/org/apache/lucene/queries/Q.java",
                "",
            ),
        ]);
        let scope = env.module_scope("in lucene/queries/src/java/org/apache/lucene/queries/Q.java");
        let roots: Vec<&str> = scope
            .iter()
            .map(|(i, _)| env.modules[*i].root.as_str())
            .collect();
        assert_eq!(roots, ["lucene/queries", "lucene"]);
        assert!(scope[0].1 > scope[1].1);
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        let env = infer(MONOREPO);
        let huge = "packages/web/src/App.tsx `unbalanced ".repeat(20_000);
        let inputs = [
            "`",
            "```",
            "``@acme/web",
            "ünïcödé Ⓦⓔⓑ 网页 `@ACME/WEB`",
            "/////",
            "../../..",
            "@/@/@",
            "\u{0}\u{1}",
            huge.as_str(),
        ];
        for text in inputs {
            for (i, score) in env.module_scope(text) {
                assert!(i < env.modules.len());
                assert!(score > 0.0 && score <= 1.0);
            }
        }
        assert_eq!(env.module_scope("ünïcödé `@ACME/WEB`").len(), 1);
        // Odd manifests.
        let env = infer(&[
            ("setup.py", "setup(install_requires=['django"),
            ("requirements.txt", "\u{feff}===\n[\n#\n \n"),
            ("go.mod", "module\nrequire (\n"),
            ("CMakeLists.txt", "project("),
            ("x/package.json", "null"),
        ]);
        assert!(env.frameworks.is_empty(), "{:?}", env.frameworks);
        assert!(Environment::default().module_scope("anything").is_empty());
    }

    #[test]
    fn common_words_are_sorted() {
        assert!(COMMON_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn pep508_names() {
        assert_eq!(pep508_name("Django>=3.2").as_deref(), Some("django"));
        assert_eq!(
            pep508_name("  zope.interface [x]").as_deref(),
            Some("zope-interface")
        );
        assert_eq!(
            pep508_name("Flask__Login==1").as_deref(),
            Some("flask-login")
        );
        assert_eq!(pep508_name(">=1"), None);
    }
}
