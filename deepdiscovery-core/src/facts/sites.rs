//! Call sites and decorations: the raw material of the registration, injection and
//! event rules.
//!
//! The query of each language says *where* calls and decorations are (the `@call.*`
//! and `@decoration.*` captures of [`super::code`]); this module reads them the same
//! way for every language: the callee and its receiver from the text of the called
//! expression, argument values by the kind of the argument node (a string literal, a
//! name, a dotted name, a class literal, a construction), declared types from a
//! parameter list. A decoration is often matched by two patterns (one that reads its
//! name and arguments, one that says what it decorates): both are merged by the
//! decoration node.

use std::collections::{BTreeMap, HashSet};

use tree_sitter::Node;

use super::code::{MAX_CALL_ARGS, is_identifier, last_segment, unquote};
use super::{ArgKind, CallSite, Decoration};

/// At most this many call sites are kept per file.
pub const MAX_CALL_SITES: usize = 2000;
/// At most this many decorations are kept per file.
pub const MAX_DECORATIONS: usize = 1000;
/// Argument values longer than this are left out.
const MAX_ARG_LEN: usize = 200;
/// At most this many parameter types are read from one parameter list.
const MAX_PARAMS: usize = 8;

/// Names that are never an argument worth keeping (the object itself, literals that
/// some grammars parse as identifiers).
const NOT_ARGUMENTS: [&str; 9] = [
    "self",
    "this",
    "cls",
    "super",
    "None",
    "null",
    "nil",
    "undefined",
    "it",
];

/// The call and decoration captures of one query match.
#[derive(Default)]
pub(super) struct SiteCaptures<'t> {
    call: Option<Node<'t>>,
    call_function: Option<Node<'t>>,
    call_name: Option<Node<'t>>,
    call_receiver: Option<Node<'t>>,
    call_args: Option<Node<'t>>,
    decoration: Option<Node<'t>>,
    decoration_function: Option<Node<'t>>,
    decoration_args: Option<Node<'t>>,
    decoration_target: Option<Node<'t>>,
    decoration_params: Vec<Node<'t>>,
}

impl<'t> SiteCaptures<'t> {
    /// Takes a capture if it is one of ours; false otherwise.
    pub(super) fn take(&mut self, capture: &str, node: Node<'t>) -> bool {
        let slot = match capture {
            "call" => &mut self.call,
            "call.function" => &mut self.call_function,
            "call.name" => &mut self.call_name,
            "call.receiver" => &mut self.call_receiver,
            "call.args" => &mut self.call_args,
            "decoration" => &mut self.decoration,
            "decoration.function" => &mut self.decoration_function,
            "decoration.args" => &mut self.decoration_args,
            "decoration.target" => &mut self.decoration_target,
            "decoration.params" => {
                self.decoration_params.push(node);
                return true;
            }
            _ => return false,
        };
        *slot = Some(node);
        true
    }
}

/// Argument values with how they were written.
type Args = Vec<(String, ArgKind)>;

/// Call sites and decorations of one file, as they are found.
#[derive(Default)]
pub(super) struct Sites {
    /// Start byte of the call node and the call site.
    calls: Vec<(usize, CallSite)>,
    seen_calls: HashSet<(String, String, Args)>,
    /// Start byte of the decoration node → what is known of it so far.
    decorations: BTreeMap<usize, Decoration>,
}

impl Sites {
    /// Adds what one match says.
    pub(super) fn add(&mut self, captures: &SiteCaptures<'_>, bytes: &[u8]) {
        if let Some(call) = captures.call {
            self.add_call(call, captures, bytes);
        }
        if let Some(node) = captures.decoration {
            self.add_decoration(node, captures, bytes);
        }
    }

    fn add_call(&mut self, call: Node<'_>, captures: &SiteCaptures<'_>, bytes: &[u8]) {
        // A decorator's call (`@app.route("/x")`) is read as the decoration.
        if self.calls.len() >= MAX_CALL_SITES
            || call.parent().is_some_and(|p| p.kind() == "decorator")
        {
            return;
        }
        let (callee, receiver, mut args) = if let Some(function) = captures.call_function {
            split_callee(text(function, bytes))
        } else if let Some(name) = captures.call_name {
            let receiver = captures
                .call_receiver
                .map(|r| identifier_or_empty(last_segment(text(r, bytes))))
                .unwrap_or_default();
            (text(name, bytes).trim().to_string(), receiver, Vec::new())
        } else {
            return;
        };
        if !is_identifier(&callee) {
            return;
        }
        if let Some(list) = captures.call_args {
            args.extend(argument_values(list, bytes));
        }
        if args.is_empty() {
            return;
        }
        let key = (callee.clone(), receiver.clone(), args.clone());
        if self.seen_calls.insert(key) {
            let (args, arg_kinds) = args.into_iter().unzip();
            self.calls.push((
                call.start_byte(),
                CallSite {
                    callee,
                    receiver,
                    args,
                    arg_kinds,
                    line: line_of(call),
                },
            ));
        }
    }

    fn add_decoration(&mut self, node: Node<'_>, captures: &SiteCaptures<'_>, bytes: &[u8]) {
        let at = node.start_byte();
        if !self.decorations.contains_key(&at) && self.decorations.len() >= MAX_DECORATIONS {
            return;
        }
        let entry = self.decorations.entry(at).or_insert_with(|| Decoration {
            name: String::new(),
            receiver: String::new(),
            args: Vec::new(),
            arg_kinds: Vec::new(),
            target: String::new(),
            param_types: Vec::new(),
            line: line_of(node),
        });
        if let Some(function) = captures.decoration_function
            && entry.name.is_empty()
        {
            let (name, receiver, mut args) = split_callee(text(function, bytes));
            if let Some(list) = captures.decoration_args {
                args.extend(argument_values(list, bytes));
            }
            entry.name = name;
            entry.receiver = receiver;
            (entry.args, entry.arg_kinds) = args.into_iter().unzip();
        }
        if let Some(target) = captures.decoration_target
            && entry.target.is_empty()
        {
            entry.target = type_name(target, bytes).unwrap_or_default();
        }
        for params in &captures.decoration_params {
            for ty in parameter_types(*params, bytes) {
                if !entry.param_types.contains(&ty) {
                    entry.param_types.push(ty);
                }
            }
        }
    }

    /// The decorations (those whose name was read) and the call sites, in source order.
    pub(super) fn finish(self) -> (Vec<Decoration>, Vec<CallSite>) {
        let decorations = self
            .decorations
            .into_values()
            .filter(|d| is_identifier(&d.name))
            .collect();
        let mut calls = self.calls;
        calls.sort_by_key(|(start, _)| *start);
        let calls = calls.into_iter().map(|(_, call)| call).collect();
        (decorations, calls)
    }
}

fn text<'a>(node: Node<'_>, bytes: &'a [u8]) -> &'a str {
    node.utf8_text(bytes).unwrap_or("")
}

fn line_of(node: Node<'_>) -> u32 {
    node.start_position().row as u32 + 1
}

fn identifier_or_empty(s: &str) -> String {
    let s = s.trim().trim_end_matches(['?', '!']);
    if is_identifier(s) {
        s.to_string()
    } else {
        String::new()
    }
}

/// Splits a called expression into (callee, receiver, type arguments):
/// `admin.site.register` → (`register`, `site`, []), `services.AddScoped<IFoo, Foo>` →
/// (`AddScoped`, `services`, [`IFoo`, `Foo`]), `request(app).get` → (`get`, ``, []).
fn split_callee(raw: &str) -> (String, String, Args) {
    let raw = raw.trim();
    let (raw, type_args) = split_type_arguments(raw);
    let cut = raw.rfind(['.', ':']);
    let (rest, name) = match cut {
        Some(i) => (&raw[..i], &raw[i + 1..]),
        None => ("", raw),
    };
    let rest = rest.trim_end_matches([':', '.', '?', '!']).trim();
    let receiver = if rest.is_empty() {
        String::new()
    } else {
        identifier_or_empty(last_segment(rest))
    };
    (name.trim().to_string(), receiver, type_args)
}

/// `AddScoped<IFoo, Foo>` → (`AddScoped`, [`IFoo`, `Foo`]); other text unchanged.
fn split_type_arguments(raw: &str) -> (&str, Args) {
    let Some(inner_end) = raw.strip_suffix('>') else {
        return (raw, Vec::new());
    };
    let mut depth = 0usize;
    for (i, c) in inner_end.char_indices().rev() {
        match c {
            '>' => depth += 1,
            '<' if depth == 0 => {
                let types = inner_end[i + 1..]
                    .split(',')
                    .filter_map(clean_type)
                    .map(|t| (t, ArgKind::Name))
                    .take(MAX_CALL_ARGS)
                    .collect();
                return (&inner_end[..i], types);
            }
            '<' => depth -= 1,
            _ => {}
        }
    }
    (raw, Vec::new())
}

/// A type as written → its simple name: `: Repo<Order>` → `Repo`, `B?` → `B`,
/// `com.acme.Gateway` → `Gateway`, `"Store"` → `Store`, `*Store` → `Store`.
fn clean_type(raw: &str) -> Option<String> {
    let s = raw.trim().trim_start_matches(':').trim();
    let s = unquote(s);
    let end = s.find(['<', '[', '(']).unwrap_or(s.len());
    let s = s[..end].trim().trim_matches(['?', '*', '&', '!', ' ']);
    let s = last_segment(s);
    is_identifier(s).then(|| s.to_string())
}

/// The name a target node gives: a definition's name, or a declared type.
fn type_name(node: Node<'_>, bytes: &[u8]) -> Option<String> {
    let node = unwrap_type(node);
    clean_type(text(node, bytes))
}

/// `type_annotation`/Python `type` wrappers → the type inside.
fn unwrap_type(mut node: Node<'_>) -> Node<'_> {
    while matches!(node.kind(), "type_annotation" | "type" | "nullable_type")
        && let Some(inner) = node.named_child(0)
    {
        node = inner;
    }
    node
}

/// Declared types of the parameters in a parameter list (untyped ones give nothing).
fn parameter_types(list: Node<'_>, bytes: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut cursor = list.walk();
    for param in list.named_children(&mut cursor).take(MAX_PARAMS) {
        let ty = param.child_by_field_name("type").or_else(|| {
            // Kotlin parameters have no `type` field: the type is their last
            // child whose kind is a type.
            let mut inner = param.walk();
            param
                .named_children(&mut inner)
                .filter(|c| c.kind().ends_with("type"))
                .last()
        });
        if let Some(name) = ty.and_then(|t| type_name(t, bytes))
            && !out.contains(&name)
        {
            out.push(name);
        }
    }
    out
}

/// Values of the first [`MAX_CALL_ARGS`] arguments of an argument list.
fn argument_values(list: Node<'_>, bytes: &[u8]) -> Args {
    let mut out = Vec::new();
    let mut cursor = list.walk();
    for arg in list
        .named_children(&mut cursor)
        .filter(|n| !n.kind().contains("comment"))
        .take(MAX_CALL_ARGS)
    {
        value_of(arg, bytes, 0, &mut out);
    }
    out.truncate(2 * MAX_CALL_ARGS);
    out
}

/// Appends the value(s) of one argument expression.
fn value_of(node: Node<'_>, bytes: &[u8], depth: u8, out: &mut Args) {
    if depth > 2 {
        return;
    }
    let kind = node.kind();
    if matches!(
        kind,
        "string"
            | "string_literal"
            | "interpreted_string_literal"
            | "raw_string_literal"
            | "template_string"
            | "verbatim_string_literal"
    ) {
        if let Some(value) = plain_string(node, bytes) {
            out.push((value, ArgKind::Literal));
        }
        return;
    }
    let value: Option<String> = match kind {
        "identifier"
        | "type_identifier"
        | "simple_identifier"
        | "property_identifier"
        | "field_identifier"
        | "constant" => {
            let name = text(node, bytes).trim();
            (is_identifier(name) && !NOT_ARGUMENTS.contains(&name)).then(|| name.to_string())
        }
        "attribute"
        | "member_expression"
        | "selector_expression"
        | "field_access"
        | "member_access_expression"
        | "navigation_expression"
        | "scoped_identifier"
        | "qualified_name"
        | "scoped_type_identifier"
        | "qualified_type"
        | "user_type"
        | "method_reference"
        | "callable_reference"
        | "class_literal" => dotted_last(text(node, bytes)),
        "typeof_expression"
        | "object_creation_expression"
        | "new_expression"
        | "composite_literal" => node
            .child_by_field_name("type")
            .or_else(|| node.child_by_field_name("constructor"))
            .and_then(|t| type_name(t, bytes)),
        // `OrderPlaced(id=1)` (Python, Kotlin): a call of a capitalized name builds it.
        "call" | "call_expression" => node
            .child_by_field_name("function")
            .or_else(|| node.named_child(0))
            .and_then(|f| dotted_last(text(f, bytes)))
            .filter(|name| name.starts_with(|c: char| c.is_ascii_uppercase())),
        // Go `&OrderPlaced{…}`.
        "unary_expression" => {
            if let Some(operand) = node.child_by_field_name("operand")
                && operand.kind() == "composite_literal"
            {
                value_of(operand, bytes, depth + 1, out);
            }
            None
        }
        // A keyword or named argument counts by its value.
        "keyword_argument" | "element_value_pair" | "value_argument" | "argument"
        | "attribute_argument" => {
            let value = node.child_by_field_name("value").or_else(|| {
                let count = node.named_child_count();
                count
                    .checked_sub(1)
                    .and_then(|last| node.named_child(last as u32))
            });
            if let Some(value) = value {
                value_of(value, bytes, depth + 1, out);
            }
            None
        }
        // An object literal (`@Module({ providers: [OrderService] })`) counts by the
        // values of its first pairs.
        "object" => {
            let mut cursor = node.walk();
            for pair in node
                .named_children(&mut cursor)
                .filter(|p| p.kind() == "pair")
                .take(MAX_CALL_ARGS)
            {
                if let Some(value) = pair.child_by_field_name("value") {
                    value_of(value, bytes, depth + 1, out);
                }
            }
            None
        }
        // A list counts by its first items.
        "list" | "array" | "tuple" | "collection_literal" | "element_value_array_initializer" => {
            let mut cursor = node.walk();
            for item in node.named_children(&mut cursor).take(MAX_CALL_ARGS) {
                value_of(item, bytes, depth + 1, out);
            }
            None
        }
        _ => None,
    };
    if let Some(value) = value
        && !value.is_empty()
        && value.len() <= MAX_ARG_LEN
    {
        out.push((value, ArgKind::Name));
    }
}

/// A string literal's content, unless it interpolates.
fn plain_string(node: Node<'_>, bytes: &[u8]) -> Option<String> {
    let mut cursor = node.walk();
    let interpolates = node.named_children(&mut cursor).any(|c| {
        let k = c.kind();
        k.contains("interpolation") || k.contains("substitution")
    });
    if interpolates {
        return None;
    }
    let raw = text(node, bytes);
    if raw.len() > MAX_ARG_LEN + 8 {
        return None;
    }
    let value = unquote(raw);
    (!value.is_empty() && value.len() <= MAX_ARG_LEN && !value.contains('\n'))
        .then(|| value.to_string())
}

/// `views.list_orders` → `list_orders`; `OrderPlaced.class`, `OrderPlaced::class.java`,
/// `typeof(OrderPlaced)` → `OrderPlaced`; `Handlers::list` → `list`.
fn dotted_last(raw: &str) -> Option<String> {
    let mut s = raw.trim();
    // `self.handler`, `this.onSave`: a member of the object itself, not a name
    // another file defines.
    let first = s.split(['.', ':']).next().unwrap_or("");
    if s.len() > first.len() && matches!(first, "self" | "this" | "cls") {
        return None;
    }
    for suffix in [".java", "::class", ".class"] {
        s = s.strip_suffix(suffix).unwrap_or(s);
    }
    let s = s.trim_end_matches(['?', '!']);
    let end = s.find(['<', '(']).unwrap_or(s.len());
    let last = last_segment(&s[..end]);
    (is_identifier(last) && !NOT_ARGUMENTS.contains(&last)).then(|| last.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callees_split_into_name_receiver_and_type_arguments() {
        let split = |s: &str| split_callee(s);
        assert_eq!(
            split("admin.site.register"),
            ("register".into(), "site".into(), vec![])
        );
        let name = |s: &str| (s.to_string(), ArgKind::Name);
        assert_eq!(split("path"), ("path".into(), String::new(), vec![]));
        assert_eq!(
            split("this.bus?.emit"),
            ("emit".into(), "bus".into(), vec![])
        );
        assert_eq!(
            split("request(app).get"),
            ("get".into(), String::new(), vec![])
        );
        assert_eq!(
            split("services.AddScoped<IGateway, Stripe.Gateway>"),
            (
                "AddScoped".into(),
                "services".into(),
                vec![name("IGateway"), name("Gateway")]
            )
        );
    }

    #[test]
    fn types_and_dotted_names_keep_their_last_name() {
        assert_eq!(clean_type(": Repo<Order>").as_deref(), Some("Repo"));
        assert_eq!(clean_type("B?").as_deref(), Some("B"));
        assert_eq!(clean_type("\"Store\"").as_deref(), Some("Store"));
        assert_eq!(clean_type("int | None"), None);
        assert_eq!(
            dotted_last("OrderPlaced::class.java").as_deref(),
            Some("OrderPlaced")
        );
        assert_eq!(
            dotted_last("OrderPlaced.class").as_deref(),
            Some("OrderPlaced")
        );
        assert_eq!(dotted_last("views.list").as_deref(), Some("list"));
        assert_eq!(dotted_last("this"), None);
        assert_eq!(dotted_last("self.extra_view"), None);
    }
}
