//! Configuration ↔ code bindings.
//!
//! - `config_dotted_path`: a dotted class or module path written as a value in a
//!   configuration artifact (`INSTALLED_APPS = ["shop.orders"]`, `<bean class=…>`,
//!   `handler: pkg.mod.Class`, `console_scripts = shop.cli:main`) names the file that
//!   defines it: a declared type (`com.acme.Foo`) or a module (`shop.orders`, or the
//!   longest module prefix of `shop.orders.views.order_summary`).
//! - `config_key_read`: code that reads a key (`@Value("${app.timeout}")`,
//!   `config.get("inventory.reorder.threshold")`, `os.environ["DATABASE_URL"]`) binds
//!   to the configuration files that define that key path (or, with
//!   `setting_names`, that UPPER_SNAKE setting name: `.env`, properties, INI). The key set is matched with one hash lookup per
//!   string of code, not a pattern per key per file.

use std::collections::{BTreeMap, HashMap};

use crate::artifact::{Language, Role};
use crate::facts::code::is_setting_name;
use crate::facts::{Facts, Import, KeyKind};
use crate::graph::{EdgeData, Relation, RelationRule, RuleContext};
use crate::resolve::Certainty;
use crate::{Error, Result};

use super::{RuleSpec, string_list};

/// `config_dotted_path`.
#[derive(Debug)]
pub(super) struct DottedPathInConfig {
    name: String,
    relation: Relation,
    confidence: f32,
    roles: Vec<Role>,
}

impl DottedPathInConfig {
    pub(super) fn new(spec: &RuleSpec) -> Result<Self> {
        let roles = string_list(spec, "roles")?
            .iter()
            .map(|r| {
                Role::ALL
                    .into_iter()
                    .find(|role| role.name() == r)
                    .ok_or_else(|| Error::InvalidRule {
                        name: spec.name.clone(),
                        message: format!("unknown role `{r}`"),
                    })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(DottedPathInConfig {
            name: spec.name.clone(),
            relation: spec.relation,
            confidence: spec.confidence,
            roles,
        })
    }
}

impl RelationRule for DottedPathInConfig {
    fn name(&self) -> &str {
        &self.name
    }

    fn apply(&self, context: &RuleContext<'_>, out: &mut Vec<(String, String, EdgeData)>) {
        let no_facts = Facts::default();
        for artifact in context
            .artifacts
            .iter()
            .filter(|a| self.roles.contains(&a.role))
        {
            for key in artifact
                .facts
                .string_keys
                .iter()
                .filter(|k| k.kind == KeyKind::DottedPath && !k.text.starts_with('.'))
            {
                let mut targets: Vec<(String, Certainty)> = context
                    .index
                    .defining_type(&key.text)
                    .iter()
                    .map(|p| (p.clone(), Certainty::Exact))
                    .collect();
                if targets.is_empty() {
                    let import = Import {
                        target: key.text.clone(),
                        names: Vec::new(),
                        line: key.line,
                        level: 0,
                        system: false,
                    };
                    targets = context
                        .index
                        .resolve(&artifact.path, Language::Python, &no_facts, &import)
                        .into_iter()
                        .map(|r| (r.path, r.certainty))
                        .collect();
                }
                if targets.len() > 3 {
                    continue;
                }
                let under = if key.key.is_empty() {
                    String::new()
                } else {
                    format!(" under `{}`", key.key)
                };
                let line = if key.line > 0 {
                    format!(" (line {})", key.line)
                } else {
                    String::new()
                };
                for (target, certainty) in targets {
                    let factor = if certainty == Certainty::Exact {
                        1.0
                    } else {
                        0.7
                    };
                    out.push((
                        artifact.path.clone(),
                        target,
                        EdgeData {
                            relation: self.relation,
                            confidence: self.confidence * factor,
                            rationale: format!(
                                "names `{}`{under}{line} (rule {})",
                                key.text, self.name
                            ),
                        },
                    ));
                }
            }
        }
    }
}

/// `config_key_read`.
#[derive(Debug)]
pub(super) struct ConfigKeyRead {
    name: String,
    relation: Relation,
    confidence: f32,
    min_segments: usize,
    setting_names: bool,
}

impl ConfigKeyRead {
    pub(super) fn new(spec: &RuleSpec) -> Result<Self> {
        let min_segments = spec
            .params
            .get("min_segments")
            .and_then(|v| v.as_integer())
            .filter(|n| (1..=16).contains(n))
            .ok_or_else(|| Error::InvalidRule {
                name: spec.name.clone(),
                message: "params.min_segments must be an integer in 1..=16".into(),
            })? as usize;
        let setting_names = match spec.params.get("setting_names") {
            None => false,
            Some(v) => v.as_bool().ok_or_else(|| Error::InvalidRule {
                name: spec.name.clone(),
                message: "params.setting_names must be true or false".into(),
            })?,
        };
        Ok(ConfigKeyRead {
            name: spec.name.clone(),
            relation: spec.relation,
            confidence: spec.confidence,
            min_segments,
            setting_names,
        })
    }
}

impl RelationRule for ConfigKeyRead {
    fn name(&self) -> &str {
        &self.name
    }

    fn apply(&self, context: &RuleContext<'_>, out: &mut Vec<(String, String, EdgeData)>) {
        // Key path → (config file, line) of its definitions, in path order.
        let mut defined: HashMap<&str, Vec<(&str, u32)>> = HashMap::new();
        for artifact in context
            .artifacts
            .iter()
            .filter(|a| a.language.is_config_format())
        {
            for key in artifact
                .facts
                .string_keys
                .iter()
                .filter(|k| k.kind == KeyKind::ConfigKey)
                .filter(|k| {
                    k.text.split('.').count() >= self.min_segments
                        || (self.setting_names && is_setting_name(&k.text))
                })
            {
                defined
                    .entry(key.text.as_str())
                    .or_default()
                    .push((artifact.path.as_str(), key.line));
            }
        }
        if defined.is_empty() {
            return;
        }
        for artifact in context.artifacts.iter().filter(|a| a.language.is_code()) {
            let mut bound: BTreeMap<&str, (&str, u32, u32)> = BTreeMap::new();
            for key in artifact.facts.string_keys.iter().filter(|k| {
                matches!(
                    k.kind,
                    KeyKind::Placeholder | KeyKind::DottedPath | KeyKind::ConfigKey
                )
            }) {
                let Some(files) = defined.get(key.text.as_str()) else {
                    continue;
                };
                if files.len() > 5 {
                    continue;
                }
                for (file, def_line) in files {
                    bound
                        .entry(file)
                        .or_insert((key.text.as_str(), key.line, *def_line));
                }
            }
            for (file, (key, line, def_line)) in bound {
                let at = if def_line > 0 {
                    format!(", defined at line {def_line}")
                } else {
                    String::new()
                };
                out.push((
                    artifact.path.clone(),
                    file.to_string(),
                    EdgeData {
                        relation: self.relation,
                        confidence: self.confidence,
                        rationale: format!(
                            "reads config key `{key}` (line {line}{at}) (rule {})",
                            self.name
                        ),
                    },
                ));
            }
        }
    }
}
