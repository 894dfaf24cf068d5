//! `registration`: registration sites ↔ what they register and where it is looked up.
//!
//! A *registration site* is a call or decoration whose name is in the rule's
//! `registrars` vocabulary (`register`, `route`, `add_url_rule`, `HandleFunc`,
//! `path`, `Bean`…), or a call of one of its `router_verbs` (`get`, `post`, `use`…)
//! on a router-like receiver (`app`, `router`, `orderRouter`: a receiver equal to, or
//! for entries of three letters or more ending with, an entry of `router_receivers`,
//! ignoring case). Two kinds of links follow:
//!
//! - **registered things**: a name argument of a site (`admin.site.register(Book,
//!   BookAdmin)`, `path("orders/", views.list_orders)`, `http.HandleFunc("/orders",
//!   handlers.ListOrders)`) defined in another file links the site's file to that
//!   file — to the definers the site's file imports when it imports any, else to all
//!   of them unless the name is defined in too many files;
//! - **registered names**: a string a site registers (`@register("csv")`,
//!   `@app.route("/orders")`, `path(…, name="order-list")`, and the name of a
//!   decorated function: Flask endpoints) and the same string passed to a call of
//!   the `lookups` vocabulary in another file (`get("csv")`, `url_for`, `reverse`,
//!   `client.get("/orders/")`) link the lookup's file to the site's file. Routes are
//!   compared without their outer `/` (and regex anchors), and only with routes,
//!   across languages; other names only within a language family. A string looked up
//!   in many files is a common word and links nothing. Keys are matched with one hash
//!   lookup per looked-up string.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::facts::{ArgKind, CallSite, Facts};
use crate::graph::{EdgeData, Relation, RelationRule, RuleContext};
use crate::{Error, Result};

use super::RuleSpec;
use super::names::{Definers, args_of, imported, pick, vocabulary};

/// A name registered in more files than this is too ambiguous to look up.
const MAX_REGISTRARS: usize = 3;
/// A string looked up in more files than this is a common word (`"test"`, `"foo"`),
/// not a registered name.
const MAX_LOOKUP_FILES: usize = 10;
/// A registered name defined in more files than this, none of them imported, is too
/// ambiguous to link (a registration says more than a reference, so the cut is
/// stricter than for explicit references).
const MAX_UNIMPORTED_DEFINERS: usize = 2;
/// Lookup edges are weaker than registration edges: a string can match by chance.
const LOOKUP_FACTOR: f32 = 0.75;

/// The rule.
#[derive(Debug)]
pub(super) struct Registration {
    name: String,
    relation: Relation,
    confidence: f32,
    registrars: HashSet<String>,
    router_verbs: HashSet<String>,
    router_receivers: Vec<String>,
    lookups: HashSet<String>,
}

impl Registration {
    pub(super) fn new(spec: &RuleSpec) -> Result<Self> {
        let router_receivers: Vec<String> = vocabulary(spec, "router_receivers")?
            .into_iter()
            .map(|r| r.to_lowercase())
            .collect();
        if router_receivers.iter().any(String::is_empty) {
            return Err(Error::InvalidRule {
                name: spec.name.clone(),
                message: "params.router_receivers must not contain an empty name".into(),
            });
        }
        let mut router_receivers = router_receivers;
        router_receivers.sort();
        Ok(Registration {
            name: spec.name.clone(),
            relation: spec.relation,
            confidence: spec.confidence,
            registrars: vocabulary(spec, "registrars")?,
            router_verbs: vocabulary(spec, "router_verbs")?,
            router_receivers,
            lookups: vocabulary(spec, "lookups")?,
        })
    }

    /// True when a call or decoration named `name` on `receiver` with these
    /// arguments registers. A router verb registers a route (`router.get("/orders",
    /// list)`) or, on a router named in full, handlers (`app.use(auth)`): not
    /// `r.get("key")` on a dictionary.
    fn registers(&self, name: &str, receiver: &str, args: &[String], kinds: &[ArgKind]) -> bool {
        if self.registrars.contains(name) {
            return true;
        }
        if !self.router_verbs.contains(name) || !self.router_like(receiver) {
            return false;
        }
        let route = kinds.first() == Some(&ArgKind::Literal)
            && args.first().is_some_and(|a| a.starts_with('/'));
        let handlers = !kinds.is_empty()
            && kinds.iter().all(|k| *k == ArgKind::Name)
            && receiver.chars().count() >= 3;
        route || handlers
    }

    fn router_like(&self, receiver: &str) -> bool {
        if receiver.is_empty() {
            return false;
        }
        let receiver = receiver.to_lowercase();
        self.router_receivers
            .iter()
            .any(|r| receiver == *r || (r.len() >= 3 && receiver.ends_with(r.as_str())))
    }
}

/// One registration site of a file: its name, line, argument values and kinds, and
/// the decorated definition (empty for a call).
struct Site<'f> {
    name: &'f str,
    line: u32,
    args: &'f [String],
    kinds: &'f [ArgKind],
    target: &'f str,
}

impl RelationRule for Registration {
    fn name(&self) -> &str {
        &self.name
    }

    fn apply(&self, context: &RuleContext<'_>, out: &mut Vec<(String, String, EdgeData)>) {
        let definers = Definers::build(context.artifacts);
        // Registered key → (file, site name, line), in file order.
        let mut registered: HashMap<String, Vec<(usize, &str, u32)>> = HashMap::new();
        for (i, artifact) in context.artifacts.iter().enumerate() {
            let Some(fam) = artifact.language.name_family() else {
                continue;
            };
            let sites = self.sites(&artifact.facts);
            if sites.is_empty() {
                continue;
            }
            let imports = imported(context, i);
            // Target → (name, site, line, weight) of its first registration.
            let mut hits: BTreeMap<usize, (&str, &str, u32, f32)> = BTreeMap::new();
            for site in &sites {
                for arg in args_of(site.args, site.kinds, ArgKind::Name) {
                    let (targets, via_import) = pick(
                        definers.any(fam, arg),
                        i,
                        arg,
                        &imports,
                        MAX_UNIMPORTED_DEFINERS,
                    );
                    let weight = if via_import {
                        1.0
                    } else {
                        1.0 / (targets.len().max(1) as f32).sqrt()
                    };
                    for target in targets {
                        hits.entry(target)
                            .or_insert((arg, site.name, site.line, weight));
                    }
                }
                let keys = args_of(site.args, site.kinds, ArgKind::Literal)
                    .chain((!site.target.is_empty()).then_some(site.target));
                for key in keys.filter_map(normalize_key) {
                    let files = registered.entry(key).or_default();
                    if !files.iter().any(|(f, _, _)| *f == i) {
                        files.push((i, site.name, site.line));
                    }
                }
            }
            for (target, (arg, site, line, weight)) in hits {
                out.push((
                    artifact.path.clone(),
                    context.artifacts[target].path.clone(),
                    EdgeData {
                        relation: self.relation,
                        confidence: self.confidence * weight,
                        rationale: format!(
                            "registers `{arg}` with `{site}` (line {line}) (rule {})",
                            self.name
                        ),
                    },
                ));
            }
        }
        registered.retain(|_, files| files.len() <= MAX_REGISTRARS);
        if !registered.is_empty() {
            self.lookups(context, &registered, out);
        }
    }
}

impl Registration {
    /// The registration sites of a file: decorations, then calls.
    fn sites<'f>(&self, facts: &'f Facts) -> Vec<Site<'f>> {
        let decorations = facts
            .decorations
            .iter()
            .filter(|d| self.registers(&d.name, &d.receiver, &d.args, &d.arg_kinds))
            .map(|d| Site {
                name: &d.name,
                line: d.line,
                args: &d.args,
                kinds: &d.arg_kinds,
                target: &d.target,
            });
        let calls = facts
            .calls_with_args
            .iter()
            .filter(|c| self.registers(&c.callee, &c.receiver, &c.args, &c.arg_kinds))
            .map(|c| Site {
                name: &c.callee,
                line: c.line,
                args: &c.args,
                kinds: &c.arg_kinds,
                target: "",
            });
        decorations.chain(calls).collect()
    }

    /// Lookup calls of registered names: an edge from the looking-up file to each
    /// file registering the name, unless the name is looked up in so many files that
    /// it is a common word.
    fn lookups(
        &self,
        context: &RuleContext<'_>,
        registered: &HashMap<String, Vec<(usize, &str, u32)>>,
        out: &mut Vec<(String, String, EdgeData)>,
    ) {
        let per_file: Vec<Vec<(String, &CallSite)>> = context
            .artifacts
            .iter()
            .map(|a| self.looked_up(&a.facts, registered))
            .collect();
        // Registered key → number of files looking it up.
        let mut lookup_files: HashMap<&str, usize> = HashMap::new();
        for keys in &per_file {
            let distinct: HashSet<&str> = keys.iter().map(|(k, _)| k.as_str()).collect();
            for key in distinct {
                *lookup_files.entry(key).or_default() += 1;
            }
        }
        for (i, keys) in per_file.iter().enumerate() {
            // Registering file → (key, lookup, line, site, site line) of the first match.
            let mut hits: BTreeMap<usize, (&str, &str, u32, &str, u32)> = BTreeMap::new();
            for (key, call) in keys {
                if lookup_files
                    .get(key.as_str())
                    .is_some_and(|&n| n > MAX_LOOKUP_FILES)
                {
                    continue;
                }
                let Some(files) = registered.get(key) else {
                    continue;
                };
                // A route is one across languages (a JS client fetching a Python
                // view); any other name only within a language family.
                let same_family = |f: usize| {
                    context.artifacts[f].language.name_family()
                        == context.artifacts[i].language.name_family()
                };
                for &(file, site, site_line) in files
                    .iter()
                    .filter(|(f, _, _)| *f != i && (key.starts_with('/') || same_family(*f)))
                {
                    hits.entry(file).or_insert((
                        key.as_str(),
                        call.callee.as_str(),
                        call.line,
                        site,
                        site_line,
                    ));
                }
            }
            for (file, (key, lookup, line, site, site_line)) in hits {
                out.push((
                    context.artifacts[i].path.clone(),
                    context.artifacts[file].path.clone(),
                    EdgeData {
                        relation: self.relation,
                        confidence: self.confidence * LOOKUP_FACTOR,
                        rationale: format!(
                            "looks up `{key}` with `{lookup}` (line {line}), registered with `{site}` (line {site_line}) (rule {})",
                            self.name
                        ),
                    },
                ));
            }
        }
    }

    /// The registered keys a file looks up, with the lookup call, in source order.
    fn looked_up<'f>(
        &self,
        facts: &'f Facts,
        registered: &HashMap<String, Vec<(usize, &str, u32)>>,
    ) -> Vec<(String, &'f CallSite)> {
        let mut out = Vec::new();
        for call in facts.calls_with_args.iter().filter(|c| {
            self.lookups.contains(&c.callee)
                && !self.registers(&c.callee, &c.receiver, &c.args, &c.arg_kinds)
        }) {
            for key in
                args_of(&call.args, &call.arg_kinds, ArgKind::Literal).filter_map(normalize_key)
            {
                if registered.contains_key(&key) {
                    out.push((key, call));
                }
            }
        }
        out
    }
}

/// A registered or looked-up string as compared. A route (a string with a `/`) is
/// compared without its regex anchors and outer slashes, behind one leading `/`
/// (`^orders/$` = `/orders/` = `orders/` → `/orders`), and only with routes: the URL
/// name `add` is not the route `add/`. `None` for strings too short or without a
/// letter or digit.
fn normalize_key(raw: &str) -> Option<String> {
    let raw = raw.trim();
    let key = raw
        .trim_start_matches('^')
        .trim_end_matches('$')
        .trim_matches('/');
    if key.chars().count() < 2 || !key.chars().any(char::is_alphanumeric) {
        return None;
    }
    Some(if raw.contains('/') {
        format!("/{key}")
    } else {
        key.to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::normalize_key;
    use crate::Relation;
    use crate::rules::names::testing::graph_with;

    #[test]
    fn routes_compare_without_slashes_and_anchors() {
        assert_eq!(normalize_key("/orders/").as_deref(), Some("/orders"));
        assert_eq!(normalize_key("^orders/$").as_deref(), Some("/orders"));
        assert_eq!(normalize_key("orders/").as_deref(), Some("/orders"));
        assert_eq!(normalize_key("orders").as_deref(), Some("orders"));
        assert_eq!(normalize_key("csv").as_deref(), Some("csv"));
        assert_eq!(normalize_key("/"), None);
        assert_eq!(normalize_key("x"), None);
    }

    #[test]
    fn a_registration_links_to_the_registered_definition() {
        let graph = graph_with(
            "registration",
            &[
                (
                    "shop/admin.py",
                    "from django.contrib import admin\nfrom .models import Book\n\nadmin.site.register(Book)\n",
                ),
                ("shop/models.py", "class Book:\n    pass\n"),
                ("shop/other.py", "class Author:\n    pass\n"),
            ],
        );
        let edge = graph
            .edge("shop/admin.py", "shop/models.py", Relation::Registration)
            .expect("admin.py registers Book");
        assert!(
            edge.rationale.contains("registers `Book` with `register`"),
            "{}",
            edge.rationale
        );
        assert!(
            graph
                .edge("shop/admin.py", "shop/other.py", Relation::Registration)
                .is_none()
        );
    }

    #[test]
    fn a_registered_name_links_its_lookups() {
        let graph = graph_with(
            "registration",
            &[
                (
                    "export/csv.py",
                    "from .registry import register\n\n@register(\"csv\")\nclass CsvExporter:\n    pass\n",
                ),
                (
                    "export/registry.py",
                    "_items = {}\n\ndef register(name):\n    return lambda cls: cls\n\ndef get(name):\n    return _items[name]\n",
                ),
                (
                    "app/cli.py",
                    "from export.registry import get\n\ndef run():\n    return get(\"csv\")\n\ndef other():\n    return get(\"pdf\")\n",
                ),
            ],
        );
        let edge = graph
            .edge("app/cli.py", "export/csv.py", Relation::Registration)
            .expect("the lookup of `csv` links to its registration");
        assert!(
            edge.rationale.contains("looks up `csv` with `get`"),
            "{}",
            edge.rationale
        );
        // Nothing registers "pdf"; the registry itself registers nothing.
        assert!(
            graph
                .edge("app/cli.py", "export/registry.py", Relation::Registration)
                .is_none()
        );
    }

    #[test]
    fn router_verbs_register_only_on_router_like_receivers() {
        let graph = graph_with(
            "registration",
            &[
                (
                    "src/routes.js",
                    "const { listOrders } = require('./handlers');\nrouter.get('/orders', listOrders);\n",
                ),
                (
                    "src/handlers.js",
                    "function listOrders(req, res) {}\nfunction cacheKey() {}\nmodule.exports = { listOrders, cacheKey };\n",
                ),
                (
                    "src/cache.js",
                    "const { cacheKey } = require('./handlers');\nstore.get('k', cacheKey);\n",
                ),
            ],
        );
        assert!(
            graph
                .edge("src/routes.js", "src/handlers.js", Relation::Registration)
                .is_some()
        );
        assert!(
            graph
                .edge("src/cache.js", "src/handlers.js", Relation::Registration)
                .is_none()
        );
    }
}
