//! Frameworks: the signals in paths and manifests, and the manifest kinds.

use super::*;

/// First evidence per framework.
#[derive(Default)]
pub(super) struct Found(pub(super) BTreeMap<&'static str, String>);

impl Found {
    pub(super) fn add(&mut self, framework: &'static str, evidence: String) {
        self.0.entry(framework).or_insert(evidence);
    }
}

/// How much a file's directory says about the repository's own stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scope {
    /// The repository's own code: every signal counts.
    Own,
    /// A test tree: its manifests declare test dependencies, but application
    /// frameworks seen there are usually sample data, so only test runners count.
    Tests,
    /// Dependencies and fixtures: someone else's stack, nothing counts.
    Foreign,
}

impl Scope {
    pub(super) fn of(path: &str) -> Scope {
        if in_foreign_tree(path) {
            Scope::Foreign
        } else if parent_dir(path).split('/').any(|seg| {
            const TEST_DIRS: [&str; 10] = [
                "test",
                "tests",
                "__tests__",
                "spec",
                "specs",
                "testing",
                "e2e",
                "integration-tests",
                "unittest",
                "unittests",
            ];
            TEST_DIRS.iter().any(|dir| seg.eq_ignore_ascii_case(dir))
        }) {
            Scope::Tests
        } else {
            Scope::Own
        }
    }

    pub(super) fn admits(self, framework: &str) -> bool {
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
pub(super) fn in_foreign_tree(path: &str) -> bool {
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

pub(super) fn is_django_settings(path: &str) -> bool {
    path == "settings.py"
        || path.ends_with("/settings.py")
        || path.ends_with("/settings/__init__.py")
        || path.ends_with("/settings/base.py")
}

/// Conventions that belong to one framework, seen from the path alone.
pub(super) fn path_signal(path: &str, settings: Option<&str>) -> Option<(&'static str, String)> {
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
pub(super) fn go_http_fallback(order: &[&ListedFile<'_>], found: &mut Found) {
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

pub(super) fn clip(detail: &str) -> String {
    let detail = detail.trim();
    match detail.char_indices().nth(MAX_DETAIL_CHARS) {
        Some((i, _)) => format!("{}…", &detail[..i]),
        None => detail.to_string(),
    }
}

/// What a manifest says: its declared name and framework evidence (framework, detail).
#[derive(Default)]
pub(super) struct ManifestInfo {
    pub(super) name: Option<String>,
    pub(super) evidence: Vec<(&'static str, String)>,
}

impl ManifestInfo {
    pub(super) fn named(name: Option<String>) -> ManifestInfo {
        ManifestInfo {
            name,
            evidence: Vec::new(),
        }
    }

    /// A module that *is* a framework (Django's own repository) uses its idioms too.
    pub(super) fn own_name(&mut self, map: fn(&str) -> Option<&'static str>) {
        if let Some(name) = &self.name
            && let Some(framework) = map(&name.to_ascii_lowercase())
        {
            self.evidence.push((framework, format!("name = {name}")));
        }
    }
}

/// The manifests that are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ManifestKind {
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
    pub(super) fn of(path: &str) -> Option<ManifestKind> {
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
    pub(super) fn analyze(self, path: &str, text: &str) -> Option<ManifestInfo> {
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
