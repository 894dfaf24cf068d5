//! Code facts from tree-sitter.
//!
//! Each language has one query file in `facts/queries/`, written in the tags-query
//! convention of tree-sitter (`@definition.<kind>` / `@reference.<kind>` with `@name`)
//! plus captures of our own:
//!
//! | capture | on | meaning |
//! | --- | --- | --- |
//! | `@definition.<kind>` + `@name` | a definition node, its name | a definition; `<kind>` as in [`DefKind::from_capture`] |
//! | `@reference.call` / `.type` / `.<other>` + `@name` | a use, its name | a reference ([`RefKind`]) |
//! | `@import` + `@import.target` (+ `@import.name`, `@import.system`) | a statement, its module path, imported names | an [`Import`] per target |
//! | `@supertype.child` + `@supertype.extends` / `@supertype.implements` | the declared type, its supertypes | a [`Supertype`] |
//! | `@package` | a package/namespace name | [`Facts::package`] |
//! | `@string` | a string literal | kept when it looks like a dotted path, file path or placeholder |
//! | `@call` + `@call.function` (or `@call.name`, `@call.receiver`) + `@call.args` | a call, the called expression (or its name and object), its argument list | a [`CallSite`] when an argument is a string or a name |
//! | `@decoration` + `@decoration.function` (+ `@decoration.args`) | a decorator, annotation or attribute, its name expression, its arguments | a [`Decoration`] |
//! | `@decoration` + `@decoration.target` (+ `@decoration.params`) | the same node, the decorated definition's name or the decorated field's or parameter's type, a parameter list (of the decorated method, or of a decorated class's constructor) | [`Decoration::target`], [`Decoration::param_types`] |
//!
//! A decoration is usually matched twice — once for its name and arguments, once for
//! what it decorates — and the two are merged by node (see `facts::sites`).
//!
//! Syntax errors are recovered by tree-sitter: what parsed is kept and the error is
//! noted in [`Facts::problems`].

use std::cell::RefCell;
use std::collections::HashSet;
use std::ops::ControlFlow;

use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, ParseOptions, Parser, QueryCursor, QueryCursorOptions};

use super::Grammar;
use super::config::classify_value;
use super::sites::{SiteCaptures, Sites};
#[cfg(doc)]
use super::{CallSite, Decoration};
use super::{
    DefKind, Definition, Facts, Import, RefKind, Reference, Span, StringKey, SuperKind, Supertype,
    grammar_for,
};
use crate::artifact::Language;

/// At most this many references are kept per file (distinct by name and kind).
pub const MAX_REFERENCES: usize = 4000;
/// At most this many more references are kept per file: a name's uses in the bodies
/// of other definitions than the one its first use is in, so that what each
/// function or method calls is known.
pub const MAX_BODY_REFERENCES: usize = 8000;
/// Reference occurrences read per file before they are reduced to the kept ones.
const MAX_REFERENCE_OCCURRENCES: usize = 50_000;
/// At most this many string keys are kept per code file.
pub const MAX_STRING_KEYS: usize = 500;
/// At most this many argument expressions of a call or decoration are read.
pub const MAX_CALL_ARGS: usize = 3;
/// Signature lines are cut to this many characters.
const MAX_SIGNATURE: usize = 200;

/// Work budgets of one file, in tree-sitter's progress reports (one every hundred or
/// so parser operations or query steps): a base plus one per this many bytes.
/// Counting reports instead of measuring time keeps the facts of a file the same on
/// every machine. Real files stay far below: jQuery (290 KB) needs 1,892 parse and
/// 982 query reports against budgets of 38,000 and 5,500; 100 KB of 50,000 nested
/// JavaScript brackets needed 394,857 query reports (28 s) without a budget.
const PARSE_BUDGET: (u64, u64) = (2_000, 8);
const QUERY_BUDGET: (u64, u64) = (1_000, 64);

/// The number of progress reports a file of `len` bytes may use.
fn budget(len: usize, (base, per): (u64, u64)) -> u64 {
    base + len as u64 / per
}

thread_local! {
    static PARSER: RefCell<Parser> = RefCell::new(Parser::new());
}

/// A definition found by the query, before qualification.
struct RawDef {
    kind: DefKind,
    name: String,
    start: usize,
    end: usize,
    span: Span,
    signature: String,
}

/// Extracts the facts of one code file. Never fails; problems are recorded.
pub fn extract(language: Language, path: &str, text: &str) -> Facts {
    let mut facts = Facts::default();
    let grammar = match grammar_for(language) {
        Ok(Some(grammar)) => grammar,
        Ok(None) => return facts,
        Err(e) => {
            facts.problems.push(e.to_string());
            return facts;
        }
    };
    let Some(tree) = parse(grammar, text) else {
        facts.limited = Some(format!(
            "the {language} parser ran out of its work budget: known by metadata only"
        ));
        return facts;
    };
    let root = tree.root_node();
    if root.has_error() {
        let line = first_error_line(root).unwrap_or(0);
        facts
            .problems
            .push(format!("syntax error near line {line} (recovered)"));
    }
    let bytes = text.as_bytes();
    let mut collector = Collector {
        language,
        text,
        facts,
        defs: Vec::new(),
        occurrences: Vec::new(),
        seen_keys: HashSet::new(),
        sites: Sites::default(),
    };
    let halted = collector.run_query(grammar, root);
    let Collector {
        mut facts,
        defs,
        occurrences,
        sites,
        ..
    } = collector;
    if halted {
        facts.limited = Some(format!(
            "the {language} query ran out of its work budget: facts after it are left out"
        ));
    }
    facts.definitions = qualify(defs, facts.package.as_deref(), grammar.separator);
    facts.references = kept_references(occurrences, &facts.definitions);
    facts
        .imports
        .sort_by(|a, b| (a.line, &a.target).cmp(&(b.line, &b.target)));
    facts.imports.dedup();
    facts
        .supertypes
        .sort_by(|a, b| (a.line, &a.child, &a.parent).cmp(&(b.line, &b.child, &b.parent)));
    facts.supertypes.dedup();
    (facts.decorations, facts.calls_with_args) = sites.finish();
    let file_name = path.rsplit('/').next().unwrap_or(path);
    if let Some((doc, from)) =
        super::summary::summary(language, root, bytes, file_name, &facts.definitions)
    {
        facts.doc = Some(doc);
        facts.doc_from = Some(from);
    }
    facts
}

/// The syntax tree of `text`, or `None` when the parser ran out of its work budget.
fn parse(grammar: &Grammar, text: &str) -> Option<tree_sitter::Tree> {
    PARSER.with(|parser| {
        let mut parser = parser.borrow_mut();
        parser.set_language(&grammar.language).ok()?;
        let bytes = text.as_bytes();
        let mut reports = budget(bytes.len(), PARSE_BUDGET);
        let mut progress = |_: &tree_sitter::ParseState| {
            reports = reports.saturating_sub(1);
            if reports == 0 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let tree = parser.parse_with_options(
            &mut |at, _| bytes.get(at..).unwrap_or_default(),
            None,
            Some(ParseOptions::new().progress_callback(&mut progress)),
        );
        if tree.is_none() {
            // A halted parse would resume on the parser's next call.
            parser.reset();
        }
        tree
    })
}

/// What one match of the grammar's fact query captured.
#[derive(Default)]
struct MatchCaptures<'t> {
    name: Option<Node<'t>>,
    def: Option<(DefKind, Node<'t>)>,
    reference: Option<(RefKind, Node<'t>)>,
    import: Option<Node<'t>>,
    /// Import targets, each with whether it names a system header.
    targets: Vec<(Node<'t>, bool)>,
    import_names: Vec<String>,
    child: Option<Node<'t>>,
    parents: Vec<(Node<'t>, SuperKind)>,
    site: SiteCaptures<'t>,
}

/// The facts of one file as the query's matches come in.
struct Collector<'t> {
    language: Language,
    text: &'t str,
    facts: Facts,
    defs: Vec<RawDef>,
    /// Borrowed from the text: only the references kept become strings.
    occurrences: Vec<Occurrence<'t>>,
    seen_keys: HashSet<(String, super::KeyKind)>,
    sites: Sites,
}

impl<'t> Collector<'t> {
    /// Runs the grammar's fact query over `root` within its work budget, taking
    /// every match; true when the budget halted it.
    fn run_query(&mut self, grammar: &Grammar, root: Node<'t>) -> bool {
        let bytes = self.text.as_bytes();
        let names = grammar.query.capture_names();
        let mut cursor = QueryCursor::new();
        let mut reports = budget(bytes.len(), QUERY_BUDGET);
        let mut halted = false;
        let mut progress = |_: &tree_sitter::QueryCursorState| {
            reports = reports.saturating_sub(1);
            if reports == 0 {
                halted = true;
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let mut matches = cursor.matches_with_options(
            &grammar.query,
            root,
            bytes,
            QueryCursorOptions::new().progress_callback(&mut progress),
        );
        while let Some(m) = matches.next() {
            let captures = self.read_match(m, names);
            self.record(captures);
        }
        drop(matches);
        halted
    }

    /// The captures of one match. A package name and string keys go to the facts
    /// at once.
    fn read_match(
        &mut self,
        m: &tree_sitter::QueryMatch<'_, 't>,
        names: &[&str],
    ) -> MatchCaptures<'t> {
        let bytes = self.text.as_bytes();
        let mut captures = MatchCaptures::default();
        for capture in m.captures() {
            let node = capture.node;
            let capture_name = names[capture.index as usize];
            if captures.site.take(capture_name, node) {
                continue;
            }
            match capture_name {
                "name" => captures.name = Some(node),
                "import" => captures.import = Some(node),
                "import.target" => captures.targets.push((node, false)),
                "import.system" => captures.targets.push((node, true)),
                "import.name" => captures
                    .import_names
                    .push(node_text(node, bytes).to_string()),
                "supertype.child" => captures.child = Some(node),
                "supertype.extends" => captures.parents.push((node, SuperKind::Extends)),
                "supertype.implements" => captures.parents.push((node, SuperKind::Implements)),
                "package" => {
                    if self.facts.package.is_none() {
                        self.facts.package = Some(clean_path(node_text(node, bytes)));
                    }
                }
                "string" => self.add_string_keys(node),
                other => {
                    if let Some(kind) = other.strip_prefix("definition.") {
                        captures.def = Some((DefKind::from_capture(kind), node));
                    } else if let Some(kind) = other.strip_prefix("reference.") {
                        let kind = match kind {
                            "call" => RefKind::Call,
                            "type" | "class" | "implementation" | "interface" => RefKind::Type,
                            _ => RefKind::Other,
                        };
                        captures.reference = Some((kind, node));
                    }
                }
            }
        }
        captures
    }

    /// The keys a code string holds, each once, up to [`MAX_STRING_KEYS`].
    fn add_string_keys(&mut self, node: Node<'t>) {
        if self.facts.string_keys.len() >= MAX_STRING_KEYS {
            return;
        }
        let value = unquote(node_text(node, self.text.as_bytes()));
        let mut found = classify_value(value);
        // `os.environ["DATABASE_URL"]`, `getenv("API_KEY")`: a code string in
        // UPPER_SNAKE is the name of a setting it reads.
        if found.is_empty() && is_setting_name(value) {
            found.push((super::KeyKind::ConfigKey, value.to_string()));
        }
        for (kind, text) in found {
            if self.seen_keys.insert((text.clone(), kind)) {
                self.facts.string_keys.push(StringKey {
                    text,
                    kind,
                    key: String::new(),
                    line: line_of(node),
                });
            }
        }
    }

    /// What one match says: a definition, a reference, imports, call and decoration
    /// sites, supertypes.
    fn record(&mut self, captures: MatchCaptures<'t>) {
        let (text, bytes) = (self.text, self.text.as_bytes());
        if let Some((kind, node)) = captures.def {
            let name = captures.name.map(|n| node_text(n, bytes)).unwrap_or("");
            if !name.is_empty() {
                self.defs.push(RawDef {
                    kind,
                    name: name.to_string(),
                    start: node.start_byte(),
                    end: node.end_byte(),
                    span: Span {
                        start: line_of(node),
                        end: end_line(node),
                    },
                    // The line of the name, not of a leading annotation or attribute
                    // (`@Override`, `[Serializable]`, `#[derive(…)]`).
                    signature: signature_line(
                        text,
                        captures.name.map_or(node.start_byte(), |n| n.start_byte()),
                    ),
                });
            }
        }
        if let Some((kind, node)) = captures.reference {
            let raw = captures
                .name
                .map(|n| node_text(n, bytes))
                .unwrap_or_else(|| node_text(node, bytes));
            let name = last_segment(raw);
            if is_identifier(name) && self.occurrences.len() < MAX_REFERENCE_OCCURRENCES {
                self.occurrences.push(Occurrence {
                    name,
                    kind,
                    line: line_of(node),
                });
            }
        }
        if let Some(statement) = captures.import {
            for (target, system) in captures.targets {
                let raw = node_text(target, bytes);
                let (level, target_text) = split_relative(self.language, raw);
                if target_text.is_empty() && level == 0 {
                    continue;
                }
                self.facts.imports.push(Import {
                    target: target_text,
                    names: captures.import_names.clone(),
                    line: line_of(statement),
                    level,
                    system,
                });
            }
        }
        self.sites.add(&captures.site, bytes);
        let child_name = captures
            .child
            .map(|n| last_segment(node_text(n, bytes)).to_string())
            .unwrap_or_default();
        for (node, kind) in captures.parents {
            let parent = last_segment(strip_generics(node_text(node, bytes)));
            if is_identifier(parent) {
                self.facts.supertypes.push(Supertype {
                    child: child_name.clone(),
                    parent: parent.to_string(),
                    kind,
                    line: line_of(node),
                });
            }
        }
    }
}

/// The references kept of a file's `occurrences`: the first use of each name (by
/// kind), at most [`MAX_REFERENCES`], then its first use in the body of each other
/// definition, at most [`MAX_BODY_REFERENCES`] more, so that the names each
/// function, method or class uses are all known (`definitions` in source order).
fn kept_references(
    mut occurrences: Vec<Occurrence<'_>>,
    definitions: &[Definition],
) -> Vec<Reference> {
    occurrences.sort_by(|a, b| (a.line, a.name, a.kind).cmp(&(b.line, b.name, b.kind)));
    // The innermost definition around each occurrence, by one sweep over both in
    // line order with a stack of the definitions open (no recursion).
    let mut owner: Vec<Option<usize>> = Vec::with_capacity(occurrences.len());
    let mut open: Vec<usize> = Vec::new();
    let mut next = 0;
    for r in &occurrences {
        while next < definitions.len() && definitions[next].span.start <= r.line {
            open.push(next);
            next += 1;
        }
        while open
            .last()
            .is_some_and(|&d| definitions[d].span.end < r.line)
        {
            open.pop();
        }
        owner.push(open.last().copied());
    }
    let mut first: HashSet<(&str, RefKind)> = HashSet::new();
    let mut in_body: HashSet<(&str, RefKind, Option<usize>)> = HashSet::new();
    let mut keep = vec![false; occurrences.len()];
    for (k, r) in occurrences.iter().enumerate() {
        let key = (r.name, r.kind);
        if first.contains(&key) {
            continue;
        }
        if first.len() < MAX_REFERENCES {
            first.insert(key);
            in_body.insert((key.0, key.1, owner[k]));
            keep[k] = true;
        }
    }
    let mut more = 0;
    for (k, r) in occurrences.iter().enumerate() {
        if keep[k] || more == MAX_BODY_REFERENCES || owner[k].is_none() {
            continue;
        }
        let key = (r.name, r.kind);
        if first.contains(&key) && in_body.insert((key.0, key.1, owner[k])) {
            keep[k] = true;
            more += 1;
        }
    }
    occurrences
        .iter()
        .zip(keep)
        .filter(|(_, keep)| *keep)
        .map(|(r, _)| Reference {
            name: r.name.to_string(),
            kind: r.kind,
            line: r.line,
        })
        .collect()
}

/// One use of a name in a file's text, before [`kept_references`] keeps it or not.
struct Occurrence<'t> {
    name: &'t str,
    kind: RefKind,
    line: u32,
}

/// Builds qualified names from the nesting of definitions: `package.Outer.inner`.
fn qualify(mut defs: Vec<RawDef>, package: Option<&str>, separator: &str) -> Vec<Definition> {
    defs.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    defs.dedup_by(|a, b| a.start == b.start && a.end == b.end && a.name == b.name);
    let mut stack: Vec<(usize, String)> = Vec::new(); // (end byte, qualified name)
    let mut out = Vec::with_capacity(defs.len());
    for def in defs {
        while stack.last().is_some_and(|(end, _)| *end <= def.start) {
            stack.pop();
        }
        let prefix = match stack.last() {
            Some((_, q)) => Some(q.clone()),
            None => package.filter(|p| !p.is_empty()).map(str::to_string),
        };
        let qualified = match &prefix {
            Some(p) => format!("{p}{separator}{}", def.name),
            None => def.name.clone(),
        };
        stack.push((def.end, qualified.clone()));
        out.push(Definition {
            kind: def.kind,
            name: def.name,
            qualified: (prefix.is_some()).then_some(qualified),
            signature: def.signature,
            span: def.span,
        });
    }
    out
}

pub(super) fn node_text<'a>(node: Node, bytes: &'a [u8]) -> &'a str {
    node.utf8_text(bytes).unwrap_or("")
}

fn line_of(node: Node) -> u32 {
    node.start_position().row as u32 + 1
}

/// The last line a node covers (a node ending with its newline, such as a
/// `#define`, ends on the line before its end position).
fn end_line(node: Node) -> u32 {
    let end = node.end_position();
    if end.column == 0 && end.row > node.start_position().row {
        end.row as u32
    } else {
        end.row as u32 + 1
    }
}

fn first_error_line(root: Node) -> Option<u32> {
    let mut cursor = root.walk();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            return Some(line_of(node));
        }
        if node.has_error() {
            let mut children: Vec<Node> = node.children(&mut cursor).collect();
            children.reverse();
            stack.extend(children);
        }
    }
    None
}

/// The line on which `start` lies, trimmed and cut.
fn signature_line(text: &str, start: usize) -> String {
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let line = text[line_start..line_end].trim();
    truncate(line, MAX_SIGNATURE)
}

pub(super) fn truncate(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    format!("{}…", crate::text::prefix(s, max))
}

/// Removes surrounding quotes, angle brackets and backticks.
pub(super) fn unquote(s: &str) -> &str {
    let s = s.trim();
    // String prefixes (`r"…"`, `b'…'`, `f"…"`, `@"…"`) go only when a quote follows.
    let prefix = s
        .find(['"', '\'', '`'])
        .filter(|&i| i <= 2 && s[..i].chars().all(|c| "rRbBfFuU@".contains(c)))
        .unwrap_or(0);
    s[prefix..].trim_matches(|c| matches!(c, '"' | '\'' | '`' | '<' | '>'))
}

/// Normalizes a path-like import or package text: quotes and whitespace removed.
fn clean_path(s: &str) -> String {
    unquote(s).split_whitespace().collect::<String>()
}

/// Splits Python's leading dots (relative import level) from the module path.
fn split_relative(language: Language, raw: &str) -> (u32, String) {
    let cleaned = clean_path(raw);
    if language == Language::Python {
        let level = cleaned.chars().take_while(|c| *c == '.').count();
        (level as u32, cleaned[level..].to_string())
    } else {
        (0, cleaned)
    }
}

/// The last segment of a qualified name (`a.b.C` → `C`, `a::b` → `b`, `\A\B` → `B`).
pub(crate) fn last_segment(s: &str) -> &str {
    let s = s.trim();
    let cut = s.rfind(['.', ':', '\\', '/']).map_or(0, |i| i + 1);
    &s[cut..]
}

/// `List<T>` → `List`, `Base[int]` → `Base`.
fn strip_generics(s: &str) -> &str {
    let end = s.find(['<', '[', '(']).unwrap_or(s.len());
    s[..end].trim()
}

/// `DATABASE_URL`, `API_KEY_2`: upper case, digits and underscores, with at least one
/// underscore between letters (so `OK`, `GET` or `UTF8` do not count).
pub fn is_setting_name(s: &str) -> bool {
    (4..=64).contains(&s.len())
        && s.starts_with(|c: char| c.is_ascii_uppercase())
        && s.contains('_')
        && !s.ends_with('_')
        && s.bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

pub(super) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_used_in_several_bodies_is_known_in_each() {
        let text = "def setup():\n    flush()\n\n\ndef save(rows):\n    check(rows)\n    flush()\n    flush()\n\n\nclass Store:\n    def close(self):\n        flush()\n";
        let facts = super::super::extract(Language::Python, "store.py", text);
        let lines: Vec<u32> = facts
            .references
            .iter()
            .filter(|r| r.name == "flush")
            .map(|r| r.line)
            .collect();
        // Its first use, then its first use in each other body; line 8 repeats line 7.
        assert_eq!(lines, [2, 7, 13], "{:?}", facts.references);
        let check: Vec<u32> = facts
            .references
            .iter()
            .filter(|r| r.name == "check")
            .map(|r| r.line)
            .collect();
        assert_eq!(check, [6]);
    }

    #[test]
    fn kept_references_are_capped() {
        let definitions: Vec<Definition> = (0..3000)
            .map(|i| Definition {
                kind: DefKind::Function,
                name: format!("f{i}"),
                qualified: None,
                signature: String::new(),
                span: Span {
                    start: 2 * i + 1,
                    end: 2 * i + 2,
                },
            })
            .collect();
        let names: Vec<String> = (0..5000).map(|i| format!("n{i}")).collect();
        let occurrences: Vec<Occurrence<'_>> = (0..6000u32)
            .flat_map(|line| {
                let names = &names;
                (0..3).map(move |k| Occurrence {
                    name: &names[((line + k) % 5000) as usize],
                    kind: RefKind::Call,
                    line: line + 1,
                })
            })
            .collect();
        let kept = kept_references(occurrences, &definitions);
        assert!(
            kept.len() <= MAX_REFERENCES + MAX_BODY_REFERENCES,
            "{}",
            kept.len()
        );
        let mut distinct: Vec<&str> = kept.iter().map(|r| r.name.as_str()).collect();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), MAX_REFERENCES);
    }
}
