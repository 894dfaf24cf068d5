//! Configuration facts: dotted key paths and interesting string values, read with a
//! real reader for each format (YAML, JSON, TOML, XML, Java properties, INI/cfg, env).
//!
//! Every leaf key becomes a [`KeyKind::ConfigKey`] (`spring.datasource.url`,
//! `database.host`); every string value is classified by [`classify_value`] into dotted
//! class/module paths, file paths and `${placeholders}`. A file that does not parse
//! keeps what was read before the error and records the error in
//! [`Facts::problems`].

use std::collections::HashSet;

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;

use super::{Facts, KeyKind, MAX_NESTING, StringKey};
use crate::artifact::Language;

/// At most this many string keys are kept per config file.
pub const MAX_CONFIG_KEYS: usize = 5000;

/// Extracts the facts of one configuration file.
pub fn extract(language: Language, path: &str, text: &str) -> Facts {
    let mut sink = KeySink::default();
    let result = match language {
        Language::Yaml => read_yaml(text, &mut sink),
        Language::Json => read_json(text, &mut sink),
        Language::Toml => read_toml(text, &mut sink),
        Language::Xml => read_xml(text, &mut sink),
        Language::Properties => {
            read_properties(text, &mut sink);
            Ok(())
        }
        Language::Ini => {
            read_ini(text, &mut sink);
            Ok(())
        }
        Language::Env => {
            read_env(text, &mut sink);
            Ok(())
        }
        _ => Ok(()),
    };
    let mut facts = Facts {
        string_keys: sink.keys,
        limited: sink.limited.then(|| {
            format!("nested deeper than {MAX_NESTING} levels: the deeper part is left out")
        }),
        ..Facts::default()
    };
    if let Err(message) = result {
        facts.problems.push(format!(
            "{path}: {} did not parse: {message}",
            language.name()
        ));
    }
    facts
}

/// Collects keys and values, deduplicated, up to [`MAX_CONFIG_KEYS`].
#[derive(Default)]
struct KeySink {
    keys: Vec<StringKey>,
    /// Set when something nested deeper than [`MAX_NESTING`] was left out.
    limited: bool,
    seen: HashSet<(String, KeyKind, String)>,
}

impl KeySink {
    fn push(&mut self, text: String, kind: KeyKind, key: &str, line: u32) {
        if self.keys.len() >= MAX_CONFIG_KEYS || text.is_empty() {
            return;
        }
        if self.seen.insert((text.clone(), kind, key.to_string())) {
            self.keys.push(StringKey {
                text,
                kind,
                key: key.to_string(),
                line,
            });
        }
    }

    /// A leaf: the key path itself, and its value when the value is interesting.
    fn leaf(&mut self, key: &str, value: Option<&str>, line: u32) {
        if !key.is_empty() {
            self.push(key.to_string(), KeyKind::ConfigKey, "", line);
        }
        if let Some(value) = value {
            for (kind, text) in classify_value(value) {
                self.push(text, kind, key, line);
            }
        }
    }
}

/// Classifies a string value: the placeholders it names, and whether it is a dotted
/// class/module path or a file path. A plain word or a sentence gives nothing.
pub fn classify_value(value: &str) -> Vec<(KeyKind, String)> {
    let value = value.trim();
    let mut out = Vec::new();
    if value.is_empty() || value.len() > 300 {
        return out;
    }
    for name in placeholders(value) {
        out.push((KeyKind::Placeholder, name));
    }
    if !out.is_empty() {
        return out;
    }
    if is_file_path(value) {
        out.push((KeyKind::FilePath, value.to_string()));
    } else if let Some(path) = dotted_path(value) {
        out.push((KeyKind::DottedPath, path));
    }
    out
}

/// `${a.b}`, `${a.b:default}`, `#{a.b}` and `%(a)s` placeholders.
fn placeholders(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = value;
    while let Some(i) = rest.find(['$', '#', '%']) {
        let after = &rest[i + 1..];
        let (open, close) = match after.chars().next() {
            Some('{') => ('{', '}'),
            Some('(') if rest.as_bytes()[i] == b'%' => ('(', ')'),
            _ => {
                rest = after;
                continue;
            }
        };
        let inner = &after[open.len_utf8()..];
        let Some(end) = inner.find(close) else { break };
        let name = inner[..end].split(':').next().unwrap_or("").trim();
        if !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '-'))
        {
            out.push(name.to_string());
        }
        rest = &inner[end..];
    }
    out
}

/// File extensions that make `a.ext` a file name rather than a dotted path.
const FILE_EXTENSIONS: &[&str] = &[
    "py",
    "java",
    "kt",
    "js",
    "mjs",
    "ts",
    "tsx",
    "jsx",
    "go",
    "rs",
    "c",
    "h",
    "cc",
    "cpp",
    "hpp",
    "cs",
    "rb",
    "php",
    "yml",
    "yaml",
    "json",
    "toml",
    "xml",
    "properties",
    "ini",
    "cfg",
    "conf",
    "env",
    "md",
    "rst",
    "txt",
    "html",
    "css",
    "scss",
    "sql",
    "proto",
    "sh",
    "log",
    "csv",
    "png",
    "jpg",
    "svg",
    "lock",
    "jar",
    "zip",
    "gz",
    "so",
    "dll",
    "exe",
    "pem",
    "key",
    "crt",
    "db",
    "sqlite3",
    "j2",
    "tmpl",
    "tpl",
];

/// Top-level domains that make `a.tld` a host name rather than a dotted path.
const HOST_SUFFIXES: &[&str] = &[
    "com",
    "org",
    "net",
    "io",
    "dev",
    "edu",
    "gov",
    "local",
    "localhost",
];

fn is_file_path(value: &str) -> bool {
    if value.contains("://") || value.contains(char::is_whitespace) || value.len() < 3 {
        return false;
    }
    if value.starts_with("./") || value.starts_with("../") {
        return true;
    }
    let last = value.rsplit('/').next().unwrap_or(value);
    let has_ext = last.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && FILE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
    });
    let segments_ok = value.split('/').all(|s| {
        s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '-' | '*' | '@'))
    });
    segments_ok && has_ext
}

/// `pkg.mod.Class`, `pkg.mod:func` (entry points), `.MainActivity` (Android, relative
/// to the manifest's package). Needs at least one dot between identifiers.
fn dotted_path(value: &str) -> Option<String> {
    let (module, attr) = match value.split_once(':') {
        Some((m, a)) if is_ident(a) => (m, Some(a)),
        Some(_) => return None,
        None => (value, None),
    };
    let body = module.strip_prefix('.').unwrap_or(module);
    let parts: Vec<&str> = body.split('.').collect();
    if parts.iter().any(|p| !is_ident(p)) {
        return None;
    }
    if parts.len() < 2 && !module.starts_with('.') && attr.is_none() {
        return None;
    }
    if parts.len() == 2 && attr.is_none() {
        let last = parts[1].to_ascii_lowercase();
        if FILE_EXTENSIONS.contains(&last.as_str()) || HOST_SUFFIXES.contains(&last.as_str()) {
            return None;
        }
    }
    Some(match attr {
        Some(a) => format!("{module}.{a}"),
        None => module.to_string(),
    })
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

fn join_key(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

// ---------------------------------------------------------------- YAML

/// Builds key paths from yaml-rust2's event stream, which carries line marks.
#[derive(Default)]
struct YamlWalker<'a> {
    sink: Option<&'a mut KeySink>,
    /// One frame per open mapping or sequence: (is_mapping, expecting_key, key path).
    frames: Vec<(bool, bool, String)>,
    /// The key whose value comes next, within the innermost mapping.
    pending_key: Option<String>,
    /// Mappings and sequences open below [`MAX_NESTING`] levels: not walked.
    too_deep: usize,
}

impl YamlWalker<'_> {
    fn current_path(&self) -> String {
        let base = self.frames.last().map(|f| f.2.clone()).unwrap_or_default();
        match &self.pending_key {
            Some(k) => join_key(&base, k),
            None => base,
        }
    }

    /// After a value in a mapping, the next scalar is a key again.
    fn value_done(&mut self) {
        self.pending_key = None;
        if let Some(frame) = self.frames.last_mut()
            && frame.0
        {
            frame.1 = true;
        }
    }
}

impl MarkedEventReceiver for YamlWalker<'_> {
    fn on_event(&mut self, event: Event, mark: Marker) {
        // yaml-rust2's marks count lines from 1.
        let line = mark.line() as u32;
        if self.too_deep > 0 || self.frames.len() >= MAX_NESTING {
            match event {
                Event::MappingStart(..) | Event::SequenceStart(..) => {
                    self.too_deep += 1;
                    if let Some(sink) = self.sink.as_deref_mut() {
                        sink.limited = true;
                    }
                    return;
                }
                Event::MappingEnd | Event::SequenceEnd if self.too_deep > 0 => {
                    self.too_deep -= 1;
                    if self.too_deep == 0 {
                        self.value_done();
                    }
                    return;
                }
                _ if self.too_deep > 0 => return,
                _ => {}
            }
        }
        match event {
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                let is_mapping = matches!(event, Event::MappingStart(..));
                let path = self.current_path();
                if !is_mapping
                    && self.pending_key.is_some()
                    && let Some(sink) = self.sink.as_deref_mut()
                {
                    sink.leaf(&path, None, line);
                }
                self.pending_key = None;
                self.frames.push((is_mapping, true, path));
            }
            Event::MappingEnd | Event::SequenceEnd => {
                self.frames.pop();
                self.value_done();
            }
            Event::Scalar(value, ..) => {
                let expecting_key = self.frames.last().is_some_and(|f| f.0 && f.1);
                if expecting_key {
                    self.pending_key = Some(value);
                    if let Some(frame) = self.frames.last_mut() {
                        frame.1 = false;
                    }
                } else {
                    let in_sequence = self.frames.last().is_some_and(|f| !f.0);
                    let path = self.current_path();
                    if let Some(sink) = self.sink.as_deref_mut() {
                        if in_sequence {
                            // An item of a list sits under the list's key path.
                            for (kind, text) in classify_value(&value) {
                                sink.push(text, kind, &path, line);
                            }
                        } else {
                            sink.leaf(&path, Some(&value), line);
                        }
                    }
                    self.value_done();
                }
            }
            Event::Alias(..) => self.value_done(),
            _ => {}
        }
    }
}

fn read_yaml(text: &str, sink: &mut KeySink) -> Result<(), String> {
    let mut walker = YamlWalker {
        sink: Some(sink),
        ..YamlWalker::default()
    };
    let mut parser = Parser::new_from_str(text);
    parser.load(&mut walker, true).map_err(|e| e.to_string())
}

// ---------------------------------------------------------------- JSON

/// JSON, and JSON with comments and trailing commas (tsconfig.json, VS Code settings,
/// .eslintrc), which many tools accept.
fn read_json(text: &str, sink: &mut KeySink) -> Result<(), String> {
    let value: serde_json::Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => serde_json::from_str(&strip_jsonc(text)).map_err(|_| e.to_string())?,
    };
    if !walk_tree(&value, sink) {
        sink.limited = true;
    }
    Ok(())
}

/// One step of a walk over a parsed tree, kept on an explicit stack (a crafted file
/// nests as deep as it likes; the walk never recurses).
enum Step<'v, V> {
    /// Walk this value under this key path, at this depth.
    Visit(&'v V, String, usize),
    /// A string item of a list: classified under the list's key path.
    Item(&'v str, String),
    /// The list's own key path, after its items.
    Leaf(String),
}

/// What a walk sees of one value of a parsed document (JSON and TOML alike).
enum Shape<'v, V> {
    /// An object or table: its keys and values in document order.
    Map(Vec<(&'v str, &'v V)>),
    /// An array.
    List(&'v [V]),
    /// A string.
    Str(&'v str),
    /// A number, a boolean, a date, null.
    Scalar,
}

/// A value of a parsed configuration tree.
trait Tree: Sized {
    /// What the walk sees of it.
    fn shape(&self) -> Shape<'_, Self>;
    /// The string it is, if it is one (cheaper than its shape).
    fn string(&self) -> Option<&str>;
}

impl Tree for serde_json::Value {
    fn shape(&self) -> Shape<'_, Self> {
        match self {
            serde_json::Value::Object(map) => {
                Shape::Map(map.iter().map(|(k, v)| (k.as_str(), v)).collect())
            }
            serde_json::Value::Array(items) => Shape::List(items),
            serde_json::Value::String(s) => Shape::Str(s),
            _ => Shape::Scalar,
        }
    }

    fn string(&self) -> Option<&str> {
        self.as_str()
    }
}

impl Tree for toml::Value {
    fn shape(&self) -> Shape<'_, Self> {
        match self {
            toml::Value::Table(table) => {
                Shape::Map(table.iter().map(|(k, v)| (k.as_str(), v)).collect())
            }
            toml::Value::Array(items) => Shape::List(items),
            toml::Value::String(s) => Shape::Str(s),
            _ => Shape::Scalar,
        }
    }

    fn string(&self) -> Option<&str> {
        self.as_str()
    }
}

/// Walks a parsed tree into key paths, depth-first in document order: every leaf's
/// key path, a list's string items under the list's path, then the list's path.
/// Returns false when something was nested deeper than [`MAX_NESTING`] and left out.
fn walk_tree<V: Tree>(value: &V, sink: &mut KeySink) -> bool {
    let mut complete = true;
    let mut stack = vec![Step::Visit(value, String::new(), 0)];
    while let Some(step) = stack.pop() {
        let (value, path, depth) = match step {
            Step::Visit(value, path, depth) => (value, path, depth),
            Step::Item(s, path) => {
                classify_item(s, &path, sink);
                continue;
            }
            Step::Leaf(path) => {
                sink.leaf(&path, None, 0);
                continue;
            }
        };
        if depth > MAX_NESTING {
            complete = false;
            continue;
        }
        match value.shape() {
            Shape::Map(entries) => {
                for (k, v) in entries.into_iter().rev() {
                    stack.push(Step::Visit(v, join_key(&path, k), depth + 1));
                }
            }
            Shape::List(items) => {
                if !path.is_empty() {
                    stack.push(Step::Leaf(path.clone()));
                }
                for item in items.iter().rev() {
                    stack.push(match item.string() {
                        Some(s) => Step::Item(s, path.clone()),
                        None => Step::Visit(item, path.clone(), depth + 1),
                    });
                }
            }
            Shape::Str(s) => sink.leaf(&path, Some(s), 0),
            Shape::Scalar => sink.leaf(&path, None, 0),
        }
    }
    complete
}

/// A string item of a list, classified under the list's key path.
fn classify_item(item: &str, path: &str, sink: &mut KeySink) {
    for (kind, text) in classify_value(item) {
        sink.push(text, kind, path, 0);
    }
}

/// Strips JSON comments and trailing commas (tsconfig.json and jsconfig.json allow
/// both), keeping strings intact.
pub fn strip_jsonc(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let c = bytes[i];
        if in_string {
            if c == b'\\' && i + 1 < bytes.len() {
                // The escaped character may take several bytes (`"\é"`).
                let escaped = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                out.push_str(&text[i..i + 1 + escaped]);
                i += 1 + escaped;
                continue;
            }
            if c == b'"' {
                in_string = false;
            }
        } else if c == b'"' {
            in_string = true;
        } else if c == b'/' && bytes.get(i + 1) == Some(&b'/') {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        } else if c == b'/' && bytes.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
            continue;
        } else if c == b',' {
            let rest = skip_trivia(&text[i + 1..]);
            if rest.starts_with('}') || rest.starts_with(']') {
                i += 1;
                continue;
            }
        }
        let ch_len = text[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&text[i..i + ch_len]);
        i += ch_len;
    }
    out
}

/// `s` without leading whitespace and `//` / `/* */` comments.
fn skip_trivia(mut s: &str) -> &str {
    loop {
        s = s.trim_start();
        if let Some(rest) = s.strip_prefix("//") {
            s = rest.find('\n').map_or("", |i| &rest[i..]);
        } else if let Some(rest) = s.strip_prefix("/*") {
            s = rest.find("*/").map_or("", |i| &rest[i + 2..]);
        } else {
            return s;
        }
    }
}

// ---------------------------------------------------------------- TOML

fn read_toml(text: &str, sink: &mut KeySink) -> Result<(), String> {
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| e.message().to_string())?;
    if !walk_tree(&toml::Value::Table(table), sink) {
        sink.limited = true;
    }
    Ok(())
}

// ---------------------------------------------------------------- XML

fn read_xml(text: &str, sink: &mut KeySink) -> Result<(), String> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..roxmltree::ParsingOptions::default()
    };
    // roxmltree's tokenizer recurses once per element level: a document nested deeper
    // than we walk is refused before it reaches the tokenizer.
    xml_nesting_within(text, MAX_NESTING)?;
    let doc = roxmltree::Document::parse_with_options(text, options).map_err(|e| e.to_string())?;
    if !walk_xml(&doc, doc.root_element(), sink) {
        sink.limited = true;
    }
    Ok(())
}

/// Walks the elements below `root` into key paths (`beans.bean.@class`), in document
/// order, on an explicit stack. Returns false when elements nested deeper than
/// [`MAX_NESTING`] were left out.
fn walk_xml(doc: &roxmltree::Document, root: roxmltree::Node, sink: &mut KeySink) -> bool {
    let mut complete = true;
    let mut stack = vec![(root, String::new(), 0usize)];
    while let Some((node, prefix, depth)) = stack.pop() {
        if depth > MAX_NESTING {
            complete = false;
            continue;
        }
        let path = join_key(&prefix, node.tag_name().name());
        let line = doc.text_pos_at(node.range().start).row;
        for attr in node.attributes() {
            let key = format!("{path}.@{}", attr.name());
            for (kind, text) in classify_value(attr.value()) {
                sink.push(text, kind, &key, line);
            }
        }
        let children: Vec<_> = node.children().filter(|c| c.is_element()).collect();
        if children.is_empty() {
            let text = node.text().map(str::trim).filter(|t| !t.is_empty());
            sink.leaf(&path, text, line);
        }
        for child in children.into_iter().rev() {
            stack.push((child, path.clone(), depth + 1));
        }
    }
    complete
}

/// Checks, with one pass over the bytes, that elements nest at most `limit` deep and
/// that no entity declared in the DOCTYPE holds markup (its expansion would nest
/// elements the check does not see). Comments, CDATA, processing instructions and
/// quoted attribute values are skipped; a malformed document is left to the parser.
fn xml_nesting_within(text: &str, limit: usize) -> Result<(), String> {
    let bytes = text.as_bytes();
    let find = |from: usize, needle: &[u8]| {
        memchr::memmem::find(&bytes[from.min(bytes.len())..], needle).map(|i| from + i)
    };
    let mut depth = 0usize;
    let mut i = 0usize;
    while let Some(open) = memchr::memchr(b'<', &bytes[i..]).map(|k| i + k) {
        let rest = &bytes[open..];
        let skip_to = |needle: &[u8]| find(open, needle).map_or(bytes.len(), |e| e + needle.len());
        if rest.starts_with(b"<!--") {
            i = skip_to(b"-->");
        } else if rest.starts_with(b"<![CDATA[") {
            i = skip_to(b"]]>");
        } else if rest.starts_with(b"<?") {
            i = skip_to(b"?>");
        } else if rest.starts_with(b"<!") {
            // A DOCTYPE, with its internal subset in brackets.
            let (end, markup_entity) = doctype_end(bytes, open);
            if markup_entity {
                return Err("an entity of the DOCTYPE holds markup: not expanded".into());
            }
            i = end;
        } else if rest.starts_with(b"</") {
            depth = depth.saturating_sub(1);
            i = skip_to(b">");
        } else {
            let (end, self_closing) = tag_end(bytes, open + 1);
            if !self_closing {
                depth += 1;
                if depth > limit {
                    return Err(format!("elements nest deeper than {limit} levels"));
                }
            }
            i = end;
        }
    }
    Ok(())
}

/// The end of the start tag opened before `from` (past its `>`), skipping quoted
/// attribute values, and whether it closes itself (`<a/>`).
fn tag_end(bytes: &[u8], from: usize) -> (usize, bool) {
    let mut quote = None;
    for (k, &b) in bytes.iter().enumerate().skip(from) {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'>') => return (k + 1, k > 0 && bytes[k - 1] == b'/'),
            _ => {}
        }
    }
    (bytes.len(), false)
}

/// The end of a `<!…>` declaration starting at `open` (its internal subset in
/// brackets included), and whether an `<!ENTITY` in it has a value holding `<`.
fn doctype_end(bytes: &[u8], open: usize) -> (usize, bool) {
    let mut brackets = 0usize;
    let mut quote = None;
    let mut in_entity = false;
    let mut markup_entity = false;
    let mut k = open + 2;
    while k < bytes.len() {
        let b = bytes[k];
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), b'<') if in_entity => markup_entity = true,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'[') => brackets += 1,
            (None, b']') => brackets = brackets.saturating_sub(1),
            (None, b'<') => in_entity = bytes[k..].starts_with(b"<!ENTITY"),
            (None, b'>') if brackets == 0 => return (k + 1, markup_entity),
            (None, b'>') => in_entity = false,
            _ => {}
        }
        k += 1;
    }
    (bytes.len(), markup_entity)
}

// ---------------------------------------------------------------- properties

/// Java `.properties`: `key=value`, `key: value` or `key value`; `#`/`!` comments;
/// a trailing backslash continues the line; backslash escapes in keys.
fn read_properties(text: &str, sink: &mut KeySink) {
    let mut lines = text.lines().enumerate();
    while let Some((index, line)) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with('!') {
            continue;
        }
        let mut logical = trimmed.to_string();
        while ends_with_odd_backslashes(&logical) {
            logical.pop();
            match lines.next() {
                Some((_, next)) => logical.push_str(next.trim_start()),
                None => break,
            }
        }
        let (key, value) = split_property(&logical);
        sink.leaf(&key, Some(value.trim()), index as u32 + 1);
    }
}

fn ends_with_odd_backslashes(s: &str) -> bool {
    s.chars().rev().take_while(|c| *c == '\\').count() % 2 == 1
}

fn split_property(line: &str) -> (String, &str) {
    let mut key = String::new();
    let mut chars = line.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                if let Some((_, escaped)) = chars.next() {
                    key.push(escaped);
                }
            }
            '=' | ':' => return (key, &line[i + 1..]),
            c if c.is_whitespace() => {
                let rest = line[i..].trim_start();
                let rest = rest.strip_prefix(['=', ':']).unwrap_or(rest);
                return (key, rest);
            }
            c => key.push(c),
        }
    }
    (key, "")
}

// ---------------------------------------------------------------- INI / cfg

/// INI and setup.cfg/tox.ini style: `[section]`, `key = value` or `key: value`,
/// `;`/`#` comments, indented continuation lines (Python's configparser).
fn read_ini(text: &str, sink: &mut KeySink) {
    let mut section = String::new();
    let mut last_key: Option<(String, u32)> = None;
    for (index, line) in text.lines().enumerate() {
        let line_no = index as u32 + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with(';') || trimmed.starts_with('#') {
            continue;
        }
        if line.starts_with([' ', '\t'])
            && let Some((key, _)) = &last_key
        {
            // A continuation is a list item or a `name = value` line (entry points).
            let value = trimmed.split_once('=').map_or(trimmed, |(_, v)| v.trim());
            for (kind, text) in classify_value(value) {
                sink.push(text, kind, key, line_no);
            }
            continue;
        }
        if let Some(name) = trimmed.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            section = name.trim().to_string();
            last_key = None;
            continue;
        }
        let split = trimmed.find(['=', ':']);
        let (key, value) = match split {
            Some(i) => (trimmed[..i].trim(), trimmed[i + 1..].trim()),
            None => (trimmed, ""),
        };
        let path = join_key(&section, key);
        sink.leaf(&path, Some(value), line_no);
        last_key = Some((path, line_no));
    }
}

// ---------------------------------------------------------------- env

/// `.env` files: `KEY=value`, optional `export `, quoted values, `#` comments.
fn read_env(text: &str, sink: &mut KeySink) {
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let trimmed = trimmed.strip_prefix("export ").unwrap_or(trimmed);
        let Some((key, value)) = trimmed.split_once('=') else {
            continue;
        };
        let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
        sink.leaf(key.trim(), Some(value), index as u32 + 1);
    }
}
