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

mod dotnet;
mod frameworks;
mod go;
mod jvm;
mod native;
mod node;
mod php;
mod python;
mod ruby;
mod rust;
mod text;

use dotnet::*;
use frameworks::*;
use go::*;
use jvm::*;
use native::*;
use node::*;
use php::*;
use python::*;
use ruby::*;
use rust::*;
use text::*;

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
            // A path's scope is asked only of the few files that signal something.
            if let Some((framework, evidence)) = path_signal(path, settings)
                && Scope::of(path).admits(framework)
            {
                found.add(framework, evidence);
            }
            let Some(kind) = ManifestKind::of(path) else {
                continue;
            };
            let scope = Scope::of(path);
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

/// The nearest directory at or above `dir` that holds a module manifest.
fn module_root<'a>(dirs: &BTreeMap<&'a str, Vec<&'a str>>, mut dir: &'a str) -> Option<&'a str> {
    loop {
        if let Some((&root, _)) = dirs.get_key_value(dir) {
            return Some(root);
        }
        if dir.is_empty() {
            return None;
        }
        dir = parent_dir(dir);
    }
}

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
    // The files of one directory are neighbours in path order: its module root is
    // looked up once for them all.
    let mut last: Option<(&str, Option<&str>)> = None;
    for f in order {
        let start = parent_dir(f.path);
        let root = match last {
            Some((dir, root)) if dir == start => root,
            _ => {
                let root = module_root(&dirs, start);
                last = Some((start, root));
                root
            }
        };
        if let Some(root) = root {
            *counts.entry(root).or_default() += 1;
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
