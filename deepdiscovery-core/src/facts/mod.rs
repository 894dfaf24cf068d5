//! Facts extracted from one artifact: what it defines, imports, references and extends,
//! its doc summary, and the string keys it carries.
//!
//! Code facts come from tree-sitter with one query file per language in
//! `facts/queries/` (the tags-query convention, see [`code`]); configuration facts come
//! from format-aware readers (see [`config`]).

pub mod code;
pub mod config;
mod grammar;
mod sites;
mod summary;
pub(crate) mod units;

pub(crate) use grammar::grammar_shapes;
pub(crate) use grammar::prepare as prepare_grammars;
pub use grammar::{CODE_LANGUAGES, Grammar, grammar_for};

use serde::{Deserialize, Serialize};

use crate::artifact::Language;

/// A 1-based, inclusive line span.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Span {
    /// First line (1-based).
    pub start: u32,
    /// Last line (1-based, inclusive).
    pub end: u32,
}

/// Where a file's summary ([`Facts::doc`]) came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocSource {
    /// The file's own header: a module docstring or the comment before its code.
    Header,
    /// The doc comment of the file's main definition, by name.
    Definition(String),
}

impl std::fmt::Display for DocSource {
    /// `header` or `definition <name>`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DocSource::Header => f.write_str("header"),
            DocSource::Definition(name) => write!(f, "definition {name}"),
        }
    }
}

/// What a definition defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DefKind {
    /// A class (or Kotlin/Scala `object`).
    Class,
    /// An interface or protocol.
    Interface,
    /// A Rust trait or PHP trait.
    Trait,
    /// A struct or union.
    Struct,
    /// An enumeration.
    Enum,
    /// A free function.
    Function,
    /// A method or constructor.
    Method,
    /// A module, namespace or package.
    Module,
    /// A constant or module-level binding.
    Constant,
    /// A type alias or other type definition.
    Type,
    /// A macro.
    Macro,
    /// A field or property.
    Field,
    /// Any other named definition.
    Other,
}

impl DefKind {
    /// Maps the suffix of a `@definition.<kind>` capture to a kind.
    pub fn from_capture(kind: &str) -> DefKind {
        match kind {
            "class" | "object" => DefKind::Class,
            "interface" | "protocol" => DefKind::Interface,
            "trait" => DefKind::Trait,
            "struct" | "union" => DefKind::Struct,
            "enum" => DefKind::Enum,
            "function" => DefKind::Function,
            "method" | "constructor" => DefKind::Method,
            "module" | "namespace" | "package" => DefKind::Module,
            "constant" | "variable" => DefKind::Constant,
            "type" => DefKind::Type,
            "macro" => DefKind::Macro,
            "field" | "property" => DefKind::Field,
            _ => DefKind::Other,
        }
    }

    /// True for kinds that other files extend or implement (classes, interfaces…).
    pub fn is_type(self) -> bool {
        matches!(
            self,
            DefKind::Class
                | DefKind::Interface
                | DefKind::Trait
                | DefKind::Struct
                | DefKind::Enum
                | DefKind::Type
        )
    }
}

/// One definition in a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Definition {
    /// What is defined.
    pub kind: DefKind,
    /// The defined name as written.
    pub name: String,
    /// Qualified name where the language gives one (`pkg.Class.method`,
    /// `crate::a::b`), built from the enclosing definitions and the file's package.
    pub qualified: Option<String>,
    /// The first line of the definition, trimmed (its signature line).
    pub signature: String,
    /// Lines the definition spans.
    pub span: Span,
}

/// One import, include, require or `use` in a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    /// The module path, file path or namespace as written (quotes removed):
    /// `payments.gateway`, `./util`, `github.com/a/b/pkg`, `stdio.h`, `crate::x::Y`.
    pub target: String,
    /// Names imported from it (`from a import b, c`; `import {x} from "./y"`).
    pub names: Vec<String>,
    /// Line of the statement (1-based).
    pub line: u32,
    /// Leading-dot depth of a Python relative import (`from ..a import b` → 2), else 0.
    pub level: u32,
    /// True for `#include <…>` system includes and similar non-local forms.
    pub system: bool,
}

/// How a name is referenced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RefKind {
    /// A call of a function, method or constructor.
    Call,
    /// A use of a type name (annotations, `new X`, casts, generics…).
    Type,
    /// Any other use of a name.
    Other,
}

/// One reference to a name defined elsewhere (or in the same file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reference {
    /// The referenced name (last segment: `b` for `a.b()`).
    pub name: String,
    /// How it is referenced.
    pub kind: RefKind,
    /// Line (1-based).
    pub line: u32,
}

/// Whether a supertype is extended or implemented.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SuperKind {
    /// `class A(B)`, `extends B`, `: public B`, `< B`.
    Extends,
    /// `implements I`, `impl Trait for T`, protocol conformance.
    Implements,
}

/// A type in this file that extends or implements another type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Supertype {
    /// The name of the type declared here (may be empty when the grammar does not say).
    pub child: String,
    /// The supertype's name as written (last segment of a qualified name).
    pub parent: String,
    /// Extends or implements.
    pub kind: SuperKind,
    /// Line (1-based).
    pub line: u32,
}

/// What kind of string a [`StringKey`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum KeyKind {
    /// A configuration key path (`spring.datasource.url`, `database.host`).
    ConfigKey,
    /// A string value that looks like a dotted class or module path
    /// (`myapp.middleware.Auth`, `com.acme.Foo`).
    DottedPath,
    /// A string value that looks like a file path (`src/app.py`, `./conf/x.yml`).
    FilePath,
    /// A `${placeholder}` (or `%(name)s`, `{{ name }}`) naming another key.
    Placeholder,
}

/// A string of interest: a config key, a dotted path or file path value, a placeholder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StringKey {
    /// The key path or the value.
    pub text: String,
    /// What it is.
    pub kind: KeyKind,
    /// For values: the key path they sit under (empty for code files).
    pub key: String,
    /// Line (1-based) when the reader knows it, else 0.
    pub line: u32,
}

/// How an argument value of a call or decoration was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ArgKind {
    /// A string literal (`"csv"`, `'order.created'`): a registered name, an event
    /// name, a route.
    Literal,
    /// A name: an identifier, the last segment of a dotted name, a class literal, a
    /// constructed class or a type argument (`CsvExporter`, `OrderPlaced`).
    Name,
}

/// A decorator, annotation or attribute on a definition (`@app.route("/orders")`,
/// `@EventListener(OrderPlaced.class)`, `[HttpGet("{id}")]`, `@Injectable()`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decoration {
    /// The decorator's name, last segment: `route` for `@app.route`, `Component`,
    /// `EventListener`.
    pub name: String,
    /// The object before the last segment (`app` for `@app.route`, `admin` for
    /// `@admin.register`); empty for a bare name.
    pub receiver: String,
    /// Argument values, see [`CallSite::args`].
    pub args: Vec<String>,
    /// How each of [`Decoration::args`] was written (same length).
    pub arg_kinds: Vec<ArgKind>,
    /// What is decorated: the name of a decorated class, function or method, or the
    /// declared type of a decorated field or parameter (`PaymentGateway` for
    /// `@Autowired PaymentGateway gateway`); empty where the grammar does not say.
    pub target: String,
    /// Declared parameter types of the decorated function, method or constructor —
    /// for a decorated class, of its constructor (`OrderPlaced` for
    /// `@EventListener void on(OrderPlaced e)`); empty where untyped.
    pub param_types: Vec<String>,
    /// Line (1-based).
    pub line: u32,
}

/// A call with at least one string-literal or name argument (`registry.register("csv",
/// CsvExporter)`, `bus.emit("order:placed", order)`, `path("orders/", views.list)`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallSite {
    /// The called name, last segment (`register` for `admin.site.register`).
    pub callee: String,
    /// The object before the last segment (`site` for `admin.site.register`,
    /// `order_placed` for `order_placed.send`); empty for a bare call.
    pub receiver: String,
    /// Values of the first arguments (at most [`code::MAX_CALL_ARGS`] argument
    /// expressions; a keyword argument counts by its value, a list by its items):
    /// string literals unquoted (without interpolation), names as written, the last
    /// segment of a dotted name (`foo` for `views.foo`), the class of a class literal
    /// or a construction (`OrderPlaced` for `OrderPlaced.class`, `new OrderPlaced(…)`,
    /// `OrderPlaced{…}`), type arguments of a generic call
    /// (`services.AddScoped<IGateway, StripeGateway>()`). Other expressions are left out.
    pub args: Vec<String>,
    /// How each of [`CallSite::args`] was written (same length).
    pub arg_kinds: Vec<ArgKind>,
    /// Line (1-based).
    pub line: u32,
}

/// Everything extracted from one artifact.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Facts {
    /// The package, namespace or module the file declares (Java/Kotlin `package`, C#
    /// and PHP `namespace`, Go `package`), when it declares one.
    pub package: Option<String>,
    /// Definitions in source order.
    pub definitions: Vec<Definition>,
    /// Imports in source order.
    pub imports: Vec<Import>,
    /// References in source order: the first use of each name (by kind), and its
    /// first use in the body of each other definition, so that what each function,
    /// method or class uses is known. A name can appear more than once.
    pub references: Vec<Reference>,
    /// Extends/implements relations declared here.
    pub supertypes: Vec<Supertype>,
    /// What the file is, in its first paragraph: its header (module docstring or
    /// leading comment), else its main definition's doc comment; never a comment
    /// about one line in the middle of the file.
    pub doc: Option<String>,
    /// Where [`Facts::doc`] came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc_from: Option<DocSource>,
    /// Config keys, dotted paths, file paths and placeholders.
    pub string_keys: Vec<StringKey>,
    /// Decorators, annotations and attributes in source order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decorations: Vec<Decoration>,
    /// Calls with string or name arguments in source order, deduplicated by
    /// (callee, receiver, arguments).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls_with_args: Vec<CallSite>,
    /// Parse problems that were recovered from (tree-sitter error nodes, a config file
    /// that did not parse), for the package's accounting.
    pub problems: Vec<String>,
    /// Set when a work limit cut the extraction short (nesting deeper than
    /// [`MAX_NESTING`], a parse or query that ran out of steps): what was read before
    /// the limit is kept, the rest of the file is known by its metadata only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limited: Option<String>,
}

/// Structures nested deeper than this (a JSON array in an array…, an XML element in an
/// element…) are not walked below it: no real configuration nests so deep, and a
/// crafted one must not cost more than its size.
pub const MAX_NESTING: usize = 128;

/// Extracts facts from `text` written in `language`. Never fails: what cannot be
/// parsed is recorded in [`Facts::problems`].
pub fn extract(language: Language, path: &str, text: &str) -> Facts {
    if language.is_code() {
        code::extract(language, path, text)
    } else if language.is_config_format() {
        config::extract(language, path, text)
    } else {
        Facts::default()
    }
}
