//! The implicit-relation rule library (paper §III.B): configuration bindings,
//! registrations, dependency injection, events, tests and interface↔implementation
//! links, extracted by a small set of matching *primitives* that rules parameterize.
//!
//! Rules are data: the built-in set is `rules/builtin.toml`, readable and editable,
//! and a caller adds rules in the same format ([`parse_specs`]). Each rule names its
//! primitive (`kind`), the relation it yields and its confidence; every edge it adds
//! says in its rationale which rule matched and on which signals.

mod config_binding;
mod event_binding;
mod injection;
mod interface_impl;
mod names;
mod registration;
mod test_imports;
mod test_naming;

use serde::Serialize;

use crate::graph::{Relation, RelationRule};
use crate::{Error, Result};

/// One rule as written in a rule file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleSpec {
    /// A unique, stable name (shown in rationales).
    pub name: String,
    /// The relation the rule yields.
    pub relation: Relation,
    /// The confidence of its edges, in (0, 1].
    pub confidence: f32,
    /// The primitive that matches (`test_naming`, …).
    pub kind: String,
    /// Parameters of the primitive.
    #[serde(skip)]
    pub params: toml::Table,
}

/// The built-in rule specs.
pub fn builtin_specs() -> Vec<RuleSpec> {
    // The built-in file is part of the crate and checked by a test: it parses.
    parse_specs(include_str!("builtin.toml")).unwrap_or_default()
}

/// Parses rule specs from TOML text (`[[rule]]` tables).
///
/// # Errors
/// [`Error::InvalidRule`] naming the rule (or `<file>`) and what is wrong: a syntax
/// error, a missing field, an unknown relation, a confidence outside (0, 1].
pub fn parse_specs(text: &str) -> Result<Vec<RuleSpec>> {
    let invalid = |name: &str, message: String| Error::InvalidRule {
        name: name.to_string(),
        message,
    };
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| invalid("<file>", e.message().to_string()))?;
    let Some(rules) = table.get("rule") else {
        return Ok(Vec::new());
    };
    let rules = rules
        .as_array()
        .ok_or_else(|| invalid("<file>", "`rule` must be an array of tables".into()))?;
    let mut out = Vec::new();
    for rule in rules {
        let rule = rule
            .as_table()
            .ok_or_else(|| invalid("<file>", "each `rule` must be a table".into()))?;
        let name = rule
            .get("name")
            .and_then(|v| v.as_str())
            .ok_or_else(|| invalid("<unnamed>", "missing `name`".into()))?;
        let field = |key: &str| {
            rule.get(key)
                .ok_or_else(|| invalid(name, format!("missing `{key}`")))
        };
        let relation_name = field("relation")?
            .as_str()
            .ok_or_else(|| invalid(name, "`relation` must be a string".into()))?;
        let relation = Relation::ALL
            .into_iter()
            .find(|r| r.name() == relation_name)
            .ok_or_else(|| invalid(name, format!("unknown relation `{relation_name}`")))?;
        let confidence = field("confidence")?
            .as_float()
            .ok_or_else(|| invalid(name, "`confidence` must be a number".into()))?
            as f32;
        if !(confidence > 0.0 && confidence <= 1.0) {
            return Err(invalid(
                name,
                format!("confidence {confidence} is not in (0, 1]"),
            ));
        }
        let kind = field("kind")?
            .as_str()
            .ok_or_else(|| invalid(name, "`kind` must be a string".into()))?
            .to_string();
        let params = match rule.get("params") {
            None => toml::Table::new(),
            Some(p) => p
                .as_table()
                .cloned()
                .ok_or_else(|| invalid(name, "`params` must be a table".into()))?,
        };
        if out.iter().any(|r: &RuleSpec| r.name == name) {
            return Err(invalid(name, "duplicate rule name".into()));
        }
        out.push(RuleSpec {
            name: name.to_string(),
            relation,
            confidence,
            kind,
            params,
        });
    }
    Ok(out)
}

/// Builds the rule a spec describes.
///
/// # Errors
/// [`Error::InvalidRule`] for an unknown primitive or parameters it rejects.
pub fn compile(spec: &RuleSpec) -> Result<Box<dyn RelationRule>> {
    match spec.kind.as_str() {
        "test_naming" => Ok(Box::new(test_naming::TestNaming::new(spec)?)),
        "config_dotted_path" => Ok(Box::new(config_binding::DottedPathInConfig::new(spec)?)),
        "config_key_read" => Ok(Box::new(config_binding::ConfigKeyRead::new(spec)?)),
        "interface_impl" => Ok(Box::new(interface_impl::InterfaceImpl::new(spec)?)),
        "test_imports" => Ok(Box::new(test_imports::TestImports::new(spec)?)),
        "registration" => Ok(Box::new(registration::Registration::new(spec)?)),
        "injection" => Ok(Box::new(injection::Injection::new(spec)?)),
        "event_binding" => Ok(Box::new(event_binding::EventBinding::new(spec)?)),
        other => Err(Error::InvalidRule {
            name: spec.name.clone(),
            message: format!("unknown rule kind `{other}`"),
        }),
    }
}

/// The built-in rules, compiled.
pub fn builtin_rules() -> Vec<Box<dyn RelationRule>> {
    builtin_specs()
        .iter()
        .filter_map(|spec| compile(spec).ok())
        .collect()
}

/// A string list parameter.
pub(crate) fn string_list(spec: &RuleSpec, key: &str) -> Result<Vec<String>> {
    let Some(value) = spec.params.get(key) else {
        return Err(Error::InvalidRule {
            name: spec.name.clone(),
            message: format!("missing params.{key}"),
        });
    };
    value
        .as_array()
        .and_then(|items| {
            items
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect::<Option<Vec<String>>>()
        })
        .ok_or_else(|| Error::InvalidRule {
            name: spec.name.clone(),
            message: format!("params.{key} must be a list of strings"),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_rules_parse_and_compile() {
        let specs = parse_specs(include_str!("builtin.toml")).expect("builtin.toml parses");
        assert!(!specs.is_empty());
        for spec in &specs {
            compile(spec).unwrap_or_else(|e| panic!("{}: {e}", spec.name));
        }
        assert_eq!(builtin_rules().len(), specs.len());
    }

    #[test]
    fn bad_specs_are_rejected_with_the_rule_name() {
        let cases = [
            (
                "[[rule]]\nname = \"a\"\nrelation = \"nope\"\nconfidence = 0.5\nkind = \"test_naming\"",
                "unknown relation",
            ),
            (
                "[[rule]]\nname = \"a\"\nrelation = \"test_of\"\nconfidence = 1.5\nkind = \"test_naming\"",
                "not in (0, 1]",
            ),
            (
                "[[rule]]\nname = \"a\"\nrelation = \"test_of\"\nkind = \"test_naming\"",
                "missing `confidence`",
            ),
            ("[[rule]\n", "<file>"),
        ];
        for (text, expected) in cases {
            let err = parse_specs(text).unwrap_err().to_string();
            assert!(err.contains(expected), "{err}");
        }
        let spec = &parse_specs(
            "[[rule]]\nname = \"b\"\nrelation = \"test_of\"\nconfidence = 0.5\nkind = \"mystery\"",
        )
        .unwrap()[0];
        assert!(compile(spec).is_err());
        let spec = &parse_specs("[[rule]]\nname = \"c\"\nrelation = \"test_of\"\nconfidence = 0.5\nkind = \"test_naming\"").unwrap()[0];
        let err = match compile(spec) {
            Ok(_) => panic!("a test_naming rule without patterns compiled"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains("params.patterns"), "{err}");
    }

    #[test]
    fn site_rules_name_their_missing_vocabulary() {
        let cases = [
            ("registration", "registration", "params.router_receivers"),
            ("injection", "injection", "params.markers"),
            ("event_binding", "event_binding", "params.max_files"),
        ];
        for (relation, kind, missing) in cases {
            let text = format!(
                "[[rule]]\nname = \"r\"\nrelation = \"{relation}\"\nconfidence = 0.5\nkind = \"{kind}\""
            );
            let spec = &parse_specs(&text).unwrap()[0];
            let err = match compile(spec) {
                Ok(_) => panic!("a {kind} rule without params compiled"),
                Err(e) => e.to_string(),
            };
            assert!(err.contains(missing), "{kind}: {err}");
        }
        // Every vocabulary is required, not only the first one read.
        let spec = &parse_specs(
            "[[rule]]\nname = \"r\"\nrelation = \"registration\"\nconfidence = 0.5\nkind = \"registration\"\nparams.router_receivers = [\"app\"]\nparams.registrars = []\nparams.router_verbs = []",
        )
        .unwrap()[0];
        let err = compile(spec)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("params.lookups"), "{err}");
    }
}
