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

use super::{Facts, KeyKind, StringKey};
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
    walk_json(&value, "", sink);
    Ok(())
}

fn walk_json(value: &serde_json::Value, path: &str, sink: &mut KeySink) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                walk_json(v, &join_key(path, k), sink);
            }
        }
        serde_json::Value::Array(items) => {
            for item in items {
                match item {
                    serde_json::Value::String(s) => {
                        for (kind, text) in classify_value(s) {
                            sink.push(text, kind, path, 0);
                        }
                    }
                    other => walk_json(other, path, sink),
                }
            }
            if !path.is_empty() {
                sink.leaf(path, None, 0);
            }
        }
        serde_json::Value::String(s) => sink.leaf(path, Some(s), 0),
        _ => sink.leaf(path, None, 0),
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
                out.push_str(&text[i..i + 2]);
                i += 2;
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
    walk_toml(&toml::Value::Table(table), "", sink);
    Ok(())
}

fn walk_toml(value: &toml::Value, path: &str, sink: &mut KeySink) {
    match value {
        toml::Value::Table(table) => {
            for (k, v) in table {
                walk_toml(v, &join_key(path, k), sink);
            }
        }
        toml::Value::Array(items) => {
            for item in items {
                match item {
                    toml::Value::String(s) => {
                        for (kind, text) in classify_value(s) {
                            sink.push(text, kind, path, 0);
                        }
                    }
                    other => walk_toml(other, path, sink),
                }
            }
            sink.leaf(path, None, 0);
        }
        toml::Value::String(s) => sink.leaf(path, Some(s), 0),
        _ => sink.leaf(path, None, 0),
    }
}

// ---------------------------------------------------------------- XML

fn read_xml(text: &str, sink: &mut KeySink) -> Result<(), String> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = roxmltree::Document::parse_with_options(text, options).map_err(|e| e.to_string())?;
    walk_xml(&doc, doc.root_element(), "", sink);
    Ok(())
}

fn walk_xml(doc: &roxmltree::Document, node: roxmltree::Node, prefix: &str, sink: &mut KeySink) {
    let path = join_key(prefix, node.tag_name().name());
    let line = doc.text_pos_at(node.range().start).row;
    for attr in node.attributes() {
        let key = format!("{path}.@{}", attr.name());
        for (kind, text) in classify_value(attr.value()) {
            sink.push(text, kind, &key, line);
        }
    }
    let mut has_child = false;
    for child in node.children().filter(|c| c.is_element()) {
        has_child = true;
        walk_xml(doc, child, &path, sink);
    }
    if !has_child {
        let text = node.text().map(str::trim).filter(|t| !t.is_empty());
        sink.leaf(&path, text, line);
    }
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
