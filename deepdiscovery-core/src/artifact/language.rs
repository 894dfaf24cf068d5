//! Language detection by well-known file name, extension and shebang.

use serde::{Serialize, Serializer};

/// The language (or format) of an artifact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Language {
    /// Python (`.py`, `.pyi`, Python shebangs).
    Python,
    /// Java.
    Java,
    /// Kotlin (`.kt`, `.kts`).
    Kotlin,
    /// JavaScript (`.js`, `.mjs`, `.cjs`, `.jsx`).
    JavaScript,
    /// TypeScript (`.ts`, `.mts`, `.cts`).
    TypeScript,
    /// TypeScript with JSX (`.tsx`).
    Tsx,
    /// Go.
    Go,
    /// Rust.
    Rust,
    /// C (`.c`; headers are parsed as C++, a superset for our facts).
    C,
    /// C++.
    Cpp,
    /// C#.
    CSharp,
    /// Ruby (incl. `Gemfile`, `Rakefile`).
    Ruby,
    /// PHP.
    Php,
    /// YAML configuration.
    Yaml,
    /// JSON (and JSONC).
    Json,
    /// TOML configuration.
    Toml,
    /// XML (incl. Maven POMs, Android manifests, .csproj).
    Xml,
    /// Java `.properties`.
    Properties,
    /// INI / `.cfg` files.
    Ini,
    /// `.env` files.
    Env,
    /// Markdown documentation.
    Markdown,
    /// reStructuredText documentation.
    ReStructuredText,
    /// Plain text.
    Text,
    /// HTML.
    Html,
    /// CSS and its dialects.
    Css,
    /// Shell scripts.
    Shell,
    /// SQL.
    Sql,
    /// Protocol Buffers schemas.
    Protobuf,
    /// GraphQL schemas.
    GraphQl,
    /// Dockerfiles.
    Dockerfile,
    /// Makefiles.
    Makefile,
    /// CMake build files.
    CMake,
    /// Groovy (incl. Gradle build scripts).
    Groovy,
    /// Templates (Jinja, Django, ERB, Handlebars, ...).
    Template,
    /// Anything not recognized.
    Unknown,
}

impl Language {
    /// Detects the language of `path`, using the first bytes of the file (`head`) for a
    /// shebang when the name alone does not tell.
    pub fn detect(path: &str, head: Option<&[u8]>) -> Language {
        let name = path.rsplit('/').next().unwrap_or(path);
        if let Some(lang) = Self::from_file_name(name) {
            return lang;
        }
        if let Some((stem, ext)) = name.rsplit_once('.')
            && !stem.is_empty()
            && let Some(lang) = Self::from_extension(&ext.to_ascii_lowercase())
        {
            return lang;
        }
        head.and_then(Self::from_shebang)
            .unwrap_or(Language::Unknown)
    }

    fn from_file_name(name: &str) -> Option<Language> {
        let lower = name.to_ascii_lowercase();
        Some(match lower.as_str() {
            "dockerfile" | "containerfile" => Language::Dockerfile,
            "makefile" | "gnumakefile" | "justfile" => Language::Makefile,
            "cmakelists.txt" => Language::CMake,
            "gemfile" | "rakefile" | "podfile" | "vagrantfile" | "guardfile" | "fastfile" => {
                Language::Ruby
            }
            "build" | "build.bazel" | "workspace" | "workspace.bazel" => Language::Python,
            "jenkinsfile" => Language::Groovy,
            "pipfile" | "cargo.lock" | "poetry.lock" => Language::Toml,
            "go.mod" | "go.sum" | "go.work" => Language::Text,
            "codeowners" | "license" | "licence" | "authors" | "notice" => Language::Text,
            ".gitignore" | ".dockerignore" | ".gitattributes" | ".editorconfig" => Language::Ini,
            ".babelrc" | ".eslintrc" | ".prettierrc" => Language::Json,
            _ if lower.starts_with("dockerfile.") || lower.ends_with(".dockerfile") => {
                Language::Dockerfile
            }
            _ if lower == ".env" || lower.starts_with(".env.") || lower.ends_with(".env") => {
                Language::Env
            }
            _ if lower.starts_with("requirements") && lower.ends_with(".txt") => Language::Text,
            _ => return None,
        })
    }

    fn from_extension(ext: &str) -> Option<Language> {
        Some(match ext {
            "py" | "pyi" | "pyw" | "bzl" => Language::Python,
            "java" => Language::Java,
            "kt" | "kts" => Language::Kotlin,
            "js" | "mjs" | "cjs" | "jsx" => Language::JavaScript,
            "ts" | "mts" | "cts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "go" => Language::Go,
            "rs" => Language::Rust,
            "c" => Language::C,
            // `.h` is shared by C and C++. Alone, a path says C++, which parses most C
            // headers and reads classes and namespaces; a session reads a
            // repository's headers as its other sources say ([`Language::for_headers`]).
            "h" | "cc" | "cpp" | "cxx" | "c++" | "hh" | "hpp" | "hxx" | "h++" | "ipp" | "tpp"
            | "inl" => Language::Cpp,
            "cs" => Language::CSharp,
            "rb" | "rake" | "gemspec" | "ru" => Language::Ruby,
            "php" | "phtml" => Language::Php,
            "yml" | "yaml" => Language::Yaml,
            "json" | "jsonc" | "json5" | "geojson" => Language::Json,
            "toml" => Language::Toml,
            "xml" | "xsd" | "xsl" | "xslt" | "pom" | "csproj" | "fsproj" | "vbproj" | "props"
            | "targets" | "plist" | "wsdl" | "svg" | "xib" | "storyboard" => Language::Xml,
            "properties" => Language::Properties,
            "ini" | "cfg" | "conf" | "cnf" | "editorconfig" => Language::Ini,
            "env" => Language::Env,
            "md" | "markdown" | "mdx" => Language::Markdown,
            "rst" => Language::ReStructuredText,
            "txt" | "text" | "adoc" | "asciidoc" => Language::Text,
            "html" | "htm" | "xhtml" | "vue" | "svelte" => Language::Html,
            "css" | "scss" | "sass" | "less" => Language::Css,
            "sh" | "bash" | "zsh" | "ksh" | "fish" | "ps1" | "bat" | "cmd" => Language::Shell,
            "sql" | "ddl" => Language::Sql,
            "proto" => Language::Protobuf,
            "graphql" | "gql" | "graphqls" => Language::GraphQl,
            "mk" | "mak" => Language::Makefile,
            "cmake" => Language::CMake,
            "gradle" | "groovy" => Language::Groovy,
            "j2" | "jinja" | "jinja2" | "tmpl" | "tpl" | "mustache" | "hbs" | "erb" | "ejs"
            | "twig" => Language::Template,
            _ => return None,
        })
    }

    fn from_shebang(head: &[u8]) -> Option<Language> {
        let line = head.strip_prefix(b"#!")?;
        let end = memchr::memchr(b'\n', line).unwrap_or(line.len());
        let line = std::str::from_utf8(&line[..end]).ok()?;
        let mut words = line.split_whitespace();
        let mut program = words.next()?.rsplit('/').next()?;
        if program == "env" {
            program = words.find(|w| !w.starts_with('-'))?;
        }
        let program = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        Some(match program {
            "python" | "pypy" => Language::Python,
            "node" | "nodejs" | "deno" | "bun" => Language::JavaScript,
            "ruby" => Language::Ruby,
            "php" => Language::Php,
            "sh" | "bash" | "zsh" | "ksh" | "dash" | "fish" => Language::Shell,
            "ts-node" | "tsx" => Language::TypeScript,
            _ => return None,
        })
    }

    /// Whether `path` is a `.h` header, which C and C++ share: its grammar is the
    /// repository's ([`Language::for_headers`]), not its name's.
    pub fn is_shared_header(path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        name.rsplit_once('.')
            .is_some_and(|(stem, ext)| !stem.is_empty() && ext.eq_ignore_ascii_case("h"))
    }

    /// The C-family language a path's name alone gives, `.h` headers aside: `C` for
    /// a C source, `Cpp` for a C++ source or header (`.cc`, `.hpp`, ...), else `None`.
    /// What [`Language::for_headers`] counts.
    pub fn c_family_source(path: &str) -> Option<Language> {
        let name = path.rsplit('/').next().unwrap_or(path);
        let (stem, ext) = name.rsplit_once('.')?;
        if stem.is_empty() || ext.len() > 3 {
            return None;
        }
        // Without allocating: this runs over every listed path.
        let is = |e: &str| ext.eq_ignore_ascii_case(e);
        if is("c") {
            Some(Language::C)
        } else if ["cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++"]
            .iter()
            .any(|e| is(e))
        {
            Some(Language::Cpp)
        } else {
            None
        }
    }

    /// The grammar of one repository's `.h` headers: C when its C sources outnumber
    /// its C++ sources (counted by [`Language::c_family_source`]), else C++ (also
    /// when it has neither). A C repository's headers then parse as C: C++ reads
    /// `new`, `class` or `template` used as C identifiers as syntax errors.
    pub fn for_headers(c_sources: usize, cpp_sources: usize) -> Language {
        if c_sources > cpp_sources {
            Language::C
        } else {
            Language::Cpp
        }
    }

    /// True for programming languages that have a tree-sitter grammar here.
    pub fn is_code(self) -> bool {
        matches!(
            self,
            Language::Python
                | Language::Java
                | Language::Kotlin
                | Language::JavaScript
                | Language::TypeScript
                | Language::Tsx
                | Language::Go
                | Language::Rust
                | Language::C
                | Language::Cpp
                | Language::CSharp
                | Language::Ruby
                | Language::Php
        )
    }

    /// True for structured configuration formats that have a reader here.
    pub fn is_config_format(self) -> bool {
        matches!(
            self,
            Language::Yaml
                | Language::Json
                | Language::Toml
                | Language::Xml
                | Language::Properties
                | Language::Ini
                | Language::Env
        )
    }

    /// Which languages' names can refer to each other's definitions (Java and Kotlin,
    /// the JavaScript family, C and C++): one id per family, `None` for non-code.
    pub fn name_family(self) -> Option<u8> {
        Some(match self {
            Language::Python => 0,
            Language::Java | Language::Kotlin => 1,
            Language::JavaScript | Language::TypeScript | Language::Tsx => 2,
            Language::Go => 3,
            Language::Rust => 4,
            Language::C | Language::Cpp => 5,
            Language::CSharp => 6,
            Language::Ruby => 7,
            Language::Php => 8,
            _ => return None,
        })
    }

    /// Every language, in declaration order.
    pub const ALL: [Language; 35] = [
        Language::Python,
        Language::Java,
        Language::Kotlin,
        Language::JavaScript,
        Language::TypeScript,
        Language::Tsx,
        Language::Go,
        Language::Rust,
        Language::C,
        Language::Cpp,
        Language::CSharp,
        Language::Ruby,
        Language::Php,
        Language::Yaml,
        Language::Json,
        Language::Toml,
        Language::Xml,
        Language::Properties,
        Language::Ini,
        Language::Env,
        Language::Markdown,
        Language::ReStructuredText,
        Language::Text,
        Language::Html,
        Language::Css,
        Language::Shell,
        Language::Sql,
        Language::Protobuf,
        Language::GraphQl,
        Language::Dockerfile,
        Language::Makefile,
        Language::CMake,
        Language::Groovy,
        Language::Template,
        Language::Unknown,
    ];

    /// The language of a [`Language::name`].
    pub fn from_name(name: &str) -> Option<Language> {
        Language::ALL.into_iter().find(|l| l.name() == name)
    }

    /// A lower-case name, the same as the serialized form.
    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::Java => "java",
            Language::Kotlin => "kotlin",
            Language::JavaScript => "javascript",
            Language::TypeScript => "typescript",
            Language::Tsx => "tsx",
            Language::Go => "go",
            Language::Rust => "rust",
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::CSharp => "csharp",
            Language::Ruby => "ruby",
            Language::Php => "php",
            Language::Yaml => "yaml",
            Language::Json => "json",
            Language::Toml => "toml",
            Language::Xml => "xml",
            Language::Properties => "properties",
            Language::Ini => "ini",
            Language::Env => "env",
            Language::Markdown => "markdown",
            Language::ReStructuredText => "rst",
            Language::Text => "text",
            Language::Html => "html",
            Language::Css => "css",
            Language::Shell => "shell",
            Language::Sql => "sql",
            Language::Protobuf => "protobuf",
            Language::GraphQl => "graphql",
            Language::Dockerfile => "dockerfile",
            Language::Makefile => "makefile",
            Language::CMake => "cmake",
            Language::Groovy => "groovy",
            Language::Template => "template",
            Language::Unknown => "unknown",
        }
    }

    /// True when the name alone cannot tell and the first bytes may (no extension).
    pub fn needs_head(path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        Self::from_file_name(name).is_none() && !name.get(1..).unwrap_or("").contains('.')
    }
}

impl std::fmt::Display for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Language {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Language {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Language::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown language {name:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back_as_its_language() {
        let mut names: Vec<&str> = Language::ALL.iter().map(|l| l.name()).collect();
        for language in Language::ALL {
            assert_eq!(Language::from_name(language.name()), Some(language));
            let json = serde_json::to_string(&language).unwrap();
            assert_eq!(serde_json::from_str::<Language>(&json).unwrap(), language);
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Language::ALL.len(), "names are unique");
        assert!(serde_json::from_str::<Language>("\"cobol\"").is_err());
    }

    #[test]
    fn headers_follow_the_repository_and_sources_their_names() {
        assert!(Language::is_shared_header("src/uv.h"));
        assert!(Language::is_shared_header("INCLUDE/X.H"));
        assert!(!Language::is_shared_header("src/uv.hpp"));
        assert!(!Language::is_shared_header(".h"));
        assert_eq!(Language::c_family_source("src/core.c"), Some(Language::C));
        assert_eq!(
            Language::c_family_source("src/core.cc"),
            Some(Language::Cpp)
        );
        assert_eq!(
            Language::c_family_source("src/core.hpp"),
            Some(Language::Cpp)
        );
        assert_eq!(Language::c_family_source("src/core.h"), None);
        assert_eq!(Language::c_family_source("src/core.py"), None);
        assert_eq!(Language::for_headers(3, 2), Language::C);
        assert_eq!(Language::for_headers(2, 2), Language::Cpp);
        assert_eq!(Language::for_headers(0, 0), Language::Cpp);
    }
}
