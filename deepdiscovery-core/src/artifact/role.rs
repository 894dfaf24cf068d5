//! Artifact roles by the path conventions of each ecosystem.

use serde::Serialize;

use super::Language;

/// What an artifact is for. The task-conditioned prior π(role | q) of paper Eq. 6 is
/// defined over these roles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Role {
    /// Production code.
    Source,
    /// Tests, test fixtures and test helpers.
    Test,
    /// Runtime configuration (YAML, properties, env files, settings…).
    Config,
    /// Build and packaging manifests (Cargo.toml, pom.xml, package.json, Makefile…).
    Build,
    /// Documentation.
    Docs,
    /// Data schemas, interface definitions and migrations.
    Schema,
    /// Scripts and tools run by hand or by CI.
    Script,
    /// Examples, demos and benchmarks: code that shows or measures the product
    /// rather than being it (`examples/`, `demo/`, `benches/`, `samples/`).
    Example,
    /// Anything else (data, assets, templates).
    Other,
}

impl Role {
    /// All roles, in declaration order.
    pub const ALL: [Role; 9] = [
        Role::Source,
        Role::Test,
        Role::Config,
        Role::Build,
        Role::Docs,
        Role::Schema,
        Role::Script,
        Role::Example,
        Role::Other,
    ];

    /// A lower-case name, the same as the serialized form.
    pub fn name(self) -> &'static str {
        match self {
            Role::Source => "source",
            Role::Test => "test",
            Role::Config => "config",
            Role::Build => "build",
            Role::Docs => "docs",
            Role::Schema => "schema",
            Role::Script => "script",
            Role::Example => "example",
            Role::Other => "other",
        }
    }

    /// Classifies `path` (repository-relative) written in `language`.
    pub fn classify(path: &str, language: Language) -> Role {
        let lower = path.to_ascii_lowercase();
        let name = lower.rsplit('/').next().unwrap_or(&lower);
        let dirs: Vec<&str> = lower.split('/').collect();
        let dirs = &dirs[..dirs.len() - 1];

        if is_build_file(name) {
            return Role::Build;
        }
        if language.is_code() && is_test_file_name(path.rsplit('/').next().unwrap_or(path)) {
            return Role::Test;
        }
        let in_test_dir = dirs.iter().any(|d| is_test_dir(d));
        if in_test_dir && !matches!(language, Language::Markdown | Language::ReStructuredText) {
            return Role::Test;
        }
        if matches!(
            language,
            Language::Sql | Language::Protobuf | Language::GraphQl
        ) || name.ends_with(".schema.json")
            || name.ends_with(".xsd")
            || name.ends_with(".avsc")
            || is_migration(name, dirs, language)
        {
            return Role::Schema;
        }
        if matches!(
            language,
            Language::Markdown | Language::ReStructuredText | Language::Text
        ) || dirs
            .first()
            .is_some_and(|d| matches!(*d, "docs" | "doc" | "documentation" | "website" | "site"))
        {
            return Role::Docs;
        }
        if (language.is_code()
            || matches!(
                language,
                Language::Template | Language::Html | Language::Css
            ))
            && dirs.iter().any(|d| is_example_dir(d))
        {
            return Role::Example;
        }
        if language == Language::Shell
            || (language.is_code() && dirs.first().is_some_and(|d| is_script_dir(d)))
        {
            return Role::Script;
        }
        // Python settings modules: `settings.py`, `global_settings.py`, the modules of a
        // `settings/` package. Not every module under a `conf/` or `config/` directory:
        // `django/conf/__init__.py` and `pylint/config/argument.py` are the code that
        // reads settings.
        let settings_module = name.ends_with(".py")
            && (name.contains("settings")
                || matches!(name, "config.py" | "conf.py")
                || dirs.contains(&"settings"));
        if language.is_config_format() || settings_module {
            return Role::Config;
        }
        if language.is_code() {
            return Role::Source;
        }
        match language {
            Language::Dockerfile | Language::Makefile | Language::CMake | Language::Groovy => {
                Role::Build
            }
            Language::Template | Language::Html | Language::Css => Role::Source,
            _ => Role::Other,
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Build and packaging manifests of the common ecosystems (lower-case file names).
fn is_build_file(name: &str) -> bool {
    matches!(
        name,
        "makefile"
            | "gnumakefile"
            | "cmakelists.txt"
            | "pom.xml"
            | "build.gradle"
            | "build.gradle.kts"
            | "settings.gradle"
            | "settings.gradle.kts"
            | "gradle.properties"
            | "package.json"
            | "package-lock.json"
            | "yarn.lock"
            | "pnpm-lock.yaml"
            | "cargo.toml"
            | "cargo.lock"
            | "go.mod"
            | "go.sum"
            | "go.work"
            | "pyproject.toml"
            | "setup.py"
            | "setup.cfg"
            | "pipfile"
            | "poetry.lock"
            | "tox.ini"
            | "noxfile.py"
            | "manifest.in"
            | "gemfile"
            | "gemfile.lock"
            | "rakefile"
            | "composer.json"
            | "composer.lock"
            | "build"
            | "build.bazel"
            | "workspace"
            | "workspace.bazel"
            | "meson.build"
            | "dockerfile"
            | "docker-compose.yml"
            | "docker-compose.yaml"
            | "tsconfig.json"
            | "jsconfig.json"
            | "webpack.config.js"
            | "vite.config.ts"
            | "vite.config.js"
            | "rollup.config.js"
            | "babel.config.js"
            | "jenkinsfile"
    ) || name.ends_with(".csproj")
        || name.ends_with(".sln")
        || name.ends_with(".gemspec")
        || name.ends_with(".cmake")
        || name.ends_with(".mk")
        || (name.starts_with("requirements") && name.ends_with(".txt"))
        || name.starts_with("dockerfile.")
}

/// Top-level directory names that hold scripts and tools: the project's helpers,
/// release and CI tooling, not the product.
fn is_script_dir(dir: &str) -> bool {
    matches!(
        dir,
        "scripts"
            | "script"
            | "bin"
            | "tools"
            | "hack"
            | "release"
            | "ci"
            | "maint"
            | "maint_tools"
            | "devtools"
    )
}

/// Directory names that hold examples, demos and benchmarks.
fn is_example_dir(dir: &str) -> bool {
    matches!(
        dir,
        "example"
            | "examples"
            | "demo"
            | "demos"
            | "bench"
            | "benches"
            | "benchmark"
            | "benchmarks"
            | "sample"
            | "samples"
    )
}

/// Directory names that hold tests in the common ecosystems.
fn is_test_dir(dir: &str) -> bool {
    matches!(
        dir,
        "test"
            | "tests"
            | "__tests__"
            | "spec"
            | "specs"
            | "testing"
            | "testdata"
            | "test-data"
            | "e2e"
            | "integration-tests"
            | "it"
            | "__mocks__"
            | "fixtures"
            | "androidtest"
            | "unittest"
            | "unittests"
    )
}

/// A migration under a `migrations/` directory: `0011_update_permissions.py`,
/// `20230101_create_users.rb`, `V2__add_index.sql`, `Version20200101.php`, an
/// Alembic revision under `versions/`, or any file there that is not code. The code
/// of a migrations framework (`django/db/migrations/autodetector.py`) is not one.
fn is_migration(name: &str, dirs: &[&str], language: Language) -> bool {
    let Some(at) = dirs
        .iter()
        .position(|d| *d == "migrations" || *d == "migration")
    else {
        return false;
    };
    let versioned = |prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
    };
    !language.is_code()
        || name.starts_with(|c: char| c.is_ascii_digit())
        || versioned("v")
        || versioned("version")
        || dirs[at + 1..].contains(&"versions")
}

/// Test file names: `test_x.py`, `x_test.py`, `x_test.go`, `XTest.java`, `XTests.cs`,
/// `XIT.java`, `x.test.ts`, `x.spec.js`, `x_spec.rb`, `XTest.php`, `conftest.py`.
pub fn is_test_file_name(name: &str) -> bool {
    let stem = match name.split_once('.') {
        Some((stem, _)) => stem,
        None => name,
    };
    let lower = name.to_ascii_lowercase();
    lower.starts_with("test_")
        || lower == "conftest.py"
        || lower.contains(".test.")
        || lower.contains(".spec.")
        || stem.ends_with("_test")
        || stem.ends_with("_tests")
        || stem.ends_with("_spec")
        || (stem.len() > 4 && (stem.ends_with("Test") || stem.ends_with("Tests")))
        || (stem.len() > 2
            && stem.ends_with("IT")
            && stem[..stem.len() - 2].ends_with(|c: char| c.is_ascii_lowercase()))
        || (stem.len() > 4
            && stem.ends_with("Spec")
            && stem.starts_with(|c: char| c.is_ascii_uppercase()))
}
