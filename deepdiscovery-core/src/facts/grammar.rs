//! Tree-sitter grammars and the compiled fact query of each code language.
//!
//! Queries are compiled once per process, on first use, and shared by every thread
//! (a `tree_sitter::Query` is `Send + Sync`).

use std::sync::OnceLock;

use tree_sitter::Query;

use crate::artifact::Language;
use crate::{Error, Result};

/// A grammar with its compiled fact query.
#[derive(Debug)]
pub struct Grammar {
    /// The tree-sitter language.
    pub language: tree_sitter::Language,
    /// The fact query (`facts/queries/<lang>.scm`).
    pub query: Query,
    /// Separator of qualified names in this language (`.` or `::`).
    pub separator: &'static str,
}

macro_rules! query_file {
    ($name:literal) => {
        include_str!(concat!("queries/", $name, ".scm"))
    };
}

/// The grammar inputs of a language: its tree-sitter language, query text, separator.
fn spec(language: Language) -> Option<(tree_sitter::Language, &'static str, &'static str)> {
    Some(match language {
        Language::Python => (
            tree_sitter_python::LANGUAGE.into(),
            query_file!("python"),
            ".",
        ),
        Language::Java => (tree_sitter_java::LANGUAGE.into(), query_file!("java"), "."),
        Language::Kotlin => (
            tree_sitter_kotlin_ng::LANGUAGE.into(),
            query_file!("kotlin"),
            ".",
        ),
        Language::JavaScript => (
            tree_sitter_javascript::LANGUAGE.into(),
            query_file!("javascript"),
            ".",
        ),
        Language::TypeScript => (
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            query_file!("typescript"),
            ".",
        ),
        Language::Tsx => (
            tree_sitter_typescript::LANGUAGE_TSX.into(),
            concat!(query_file!("typescript"), "\n", query_file!("tsx")),
            ".",
        ),
        Language::Go => (tree_sitter_go::LANGUAGE.into(), query_file!("go"), "."),
        Language::Rust => (tree_sitter_rust::LANGUAGE.into(), query_file!("rust"), "::"),
        Language::C => (tree_sitter_c::LANGUAGE.into(), query_file!("c"), "::"),
        Language::Cpp => (tree_sitter_cpp::LANGUAGE.into(), query_file!("cpp"), "::"),
        Language::CSharp => (
            tree_sitter_c_sharp::LANGUAGE.into(),
            query_file!("csharp"),
            ".",
        ),
        Language::Ruby => (tree_sitter_ruby::LANGUAGE.into(), query_file!("ruby"), "::"),
        Language::Php => (
            tree_sitter_php::LANGUAGE_PHP.into(),
            query_file!("php"),
            "\\",
        ),
        _ => return None,
    })
}

/// Languages that have a grammar, in a fixed order (for tests and warm-up).
pub const CODE_LANGUAGES: [Language; 13] = [
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
];

type Slot = OnceLock<std::result::Result<Grammar, String>>;
static SLOTS: [Slot; 13] = [const { OnceLock::new() }; 13];

/// The ABI version, symbol and field counts of every grammar, without compiling its
/// query: part of what the on-disk facts cache is versioned by.
pub(crate) fn grammar_shapes() -> String {
    CODE_LANGUAGES
        .iter()
        .filter_map(|l| spec(*l))
        .map(|(language, _, _)| {
            format!(
                "{}:{}:{}",
                language.abi_version(),
                language.node_kind_count(),
                language.field_count()
            )
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Compiles the fact queries of `languages` on a thread of its own, ahead of their
/// first use, so that the compilation overlaps the work before it. Compiling a query
/// is the dearest part of a first parse (C++: a quarter of a second), and the threads
/// that parse a language wait for its compilation. Languages already compiled are
/// skipped; a thread that cannot be started leaves the compilation to first use.
pub(crate) fn prepare(languages: Vec<Language>) {
    let pending: Vec<Language> = languages
        .into_iter()
        .filter(|l| {
            CODE_LANGUAGES
                .iter()
                .position(|c| c == l)
                .is_some_and(|i| SLOTS[i].get().is_none())
        })
        .collect();
    if pending.is_empty() {
        return;
    }
    let _ = std::thread::Builder::new()
        .name("dd-grammars".into())
        .spawn(move || {
            for language in pending {
                let _ = grammar_for(language);
            }
        });
}

/// The grammar of a code language, compiled on first use.
///
/// # Errors
/// [`Error::Grammar`] when the grammar's ABI does not match the tree-sitter runtime or
/// the query does not compile: a build problem that the grammar-loading test catches.
/// Returns `Ok(None)` for languages without a grammar.
pub fn grammar_for(language: Language) -> Result<Option<&'static Grammar>> {
    let Some(index) = CODE_LANGUAGES.iter().position(|l| *l == language) else {
        return Ok(None);
    };
    let slot = SLOTS[index].get_or_init(|| {
        let (ts_language, source, separator) =
            spec(language).ok_or_else(|| "no grammar".to_string())?;
        let query = Query::new(&ts_language, source).map_err(|e| {
            format!(
                "query error at row {} column {}: {:?} {}",
                e.row, e.column, e.kind, e.message
            )
        })?;
        Ok(Grammar {
            language: ts_language,
            query,
            separator,
        })
    });
    match slot {
        Ok(grammar) => Ok(Some(grammar)),
        Err(message) => Err(Error::Grammar {
            language: language.name(),
            message: message.clone(),
        }),
    }
}
