//! `injection`: dependency-injection wiring, from the file that requests a
//! dependency to the files that provide it.
//!
//! A file *requests* a type when
//! - a field, parameter or property is annotated with a `markers` annotation
//!   (`@Autowired PaymentGateway gateway`, `@Inject`, `@Resource`), or a constructor
//!   or method is (its parameter types are requested);
//! - a class carries a `component_markers` annotation or decorator (`@Service`,
//!   `@Component`, `@Injectable()`…): its constructor's parameter types are requested
//!   (constructor injection needs no marker of its own);
//! - a call of the `call_markers` vocabulary names it (FastAPI `Depends(get_db)`,
//!   Angular `inject(Store)`): then any definition of the name provides it.
//!
//! The *providers* of a requested type are the files declaring a type of that name
//! and the files declaring a component-marked class that extends or implements it
//! (`@Component class StripeGateway implements PaymentGateway`): the latter is what
//! the container injects, so its edge is the stronger one.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::Result;
use crate::facts::{ArgKind, Facts};
use crate::graph::{EdgeData, Relation, RelationRule, RuleContext};

use super::RuleSpec;
use super::names::{
    Definers, MAX_DEFINERS, MIN_NAME_LEN, args_of, enclosing_type, imported, pick, vocabulary,
};

/// An edge to a file that only declares the requested type (an interface, or a class
/// the container may not manage) counts this much of the rule's confidence.
const DECLARATION_FACTOR: f32 = 0.8;

/// The rule.
#[derive(Debug)]
pub(super) struct Injection {
    name: String,
    relation: Relation,
    confidence: f32,
    markers: HashSet<String>,
    component_markers: HashSet<String>,
    call_markers: HashSet<String>,
}

impl Injection {
    pub(super) fn new(spec: &RuleSpec) -> Result<Self> {
        Ok(Injection {
            name: spec.name.clone(),
            relation: spec.relation,
            confidence: spec.confidence,
            markers: vocabulary(spec, "markers")?,
            component_markers: vocabulary(spec, "component_markers")?,
            call_markers: vocabulary(spec, "call_markers")?,
        })
    }
}

/// One dependency a file requests.
struct Request<'f> {
    /// The requested type or name.
    wanted: &'f str,
    /// Who requests it (a class name), or empty.
    requester: &'f str,
    /// The marker that makes it a request (`Autowired`, `Service`, `Depends`).
    marker: &'f str,
    line: u32,
    /// True for a call marker: any definition provides it, not only a type.
    by_call: bool,
}

/// A component-marked class extending or implementing a type: (file, class, marker).
type Subtype<'f> = (usize, &'f str, &'f str);

/// One edge in the making: the strongest reason to link a requester to a provider.
struct Hit {
    confidence: f32,
    rationale: String,
}

impl RelationRule for Injection {
    fn name(&self) -> &str {
        &self.name
    }

    fn apply(&self, context: &RuleContext<'_>, out: &mut Vec<(String, String, EdgeData)>) {
        let definers = Definers::build(context.artifacts);
        let providers = self.providers(context);
        for (i, artifact) in context.artifacts.iter().enumerate() {
            let Some(family) = artifact.language.name_family() else {
                continue;
            };
            let requests = self.requests(&artifact.facts);
            if requests.is_empty() {
                continue;
            }
            let requester = Requester {
                file: i,
                family,
                imports: imported(context, i),
            };
            let mut hits: BTreeMap<usize, Hit> = BTreeMap::new();
            for request in &requests {
                self.resolve(request, &requester, &definers, &providers, &mut hits);
            }
            for (target, hit) in hits {
                out.push((
                    artifact.path.clone(),
                    context.artifacts[target].path.clone(),
                    EdgeData {
                        relation: self.relation,
                        confidence: hit.confidence,
                        rationale: hit.rationale,
                    },
                ));
            }
        }
    }
}

/// The files that provide components: by (name family, class), the files and
/// markers of component-marked classes; by (name family, supertype), the component
/// classes that subtype it.
struct Providers<'a> {
    components: HashMap<(u8, &'a str), Vec<(usize, &'a str)>>,
    subtypes: HashMap<(u8, &'a str), Vec<Subtype<'a>>>,
}

/// The file that requests, its name family and the files it imports.
struct Requester {
    file: usize,
    family: u8,
    imports: BTreeSet<usize>,
}

/// Keeps the strongest reason to link to `target`.
fn keep_best(hits: &mut BTreeMap<usize, Hit>, target: usize, confidence: f32, rationale: String) {
    if hits.get(&target).is_none_or(|h| confidence > h.confidence) {
        hits.insert(
            target,
            Hit {
                confidence,
                rationale,
            },
        );
    }
}

impl Injection {
    /// The component-marked classes and their subtypes, over every file.
    fn providers<'a>(&self, context: &RuleContext<'a>) -> Providers<'a> {
        let mut components: HashMap<(u8, &str), Vec<(usize, &str)>> = HashMap::new();
        let mut subtypes: HashMap<(u8, &str), Vec<Subtype<'_>>> = HashMap::new();
        for (i, artifact) in context.artifacts.iter().enumerate() {
            let Some(fam) = artifact.language.name_family() else {
                continue;
            };
            let marked: BTreeMap<&str, &str> = artifact
                .facts
                .decorations
                .iter()
                .filter(|d| self.component_markers.contains(&d.name) && !d.target.is_empty())
                .map(|d| (d.target.as_str(), d.name.as_str()))
                .collect();
            for (&class, &marker) in &marked {
                components
                    .entry((fam, class))
                    .or_default()
                    .push((i, marker));
            }
            for sup in &artifact.facts.supertypes {
                if let Some(&marker) = marked.get(sup.child.as_str()) {
                    subtypes
                        .entry((fam, sup.parent.as_str()))
                        .or_default()
                        .push((i, sup.child.as_str(), marker));
                }
            }
        }
        Providers {
            components,
            subtypes,
        }
    }

    /// The files that may satisfy one request, each kept with its strongest reason:
    /// a request by call (`inject(Foo)`) links to the definers of the name; a typed
    /// request links to the component classes that subtype the type, and to the
    /// files that declare it (fully when it is a component there).
    fn resolve(
        &self,
        request: &Request<'_>,
        from: &Requester,
        definers: &Definers<'_>,
        providers: &Providers<'_>,
        hits: &mut BTreeMap<usize, Hit>,
    ) {
        let (i, fam) = (from.file, from.family);
        let who = if request.requester.is_empty() {
            "this file".to_string()
        } else {
            format!("`{}`", request.requester)
        };
        if request.by_call {
            let (targets, via_import) = pick(
                definers.any(fam, request.wanted),
                i,
                request.wanted,
                &from.imports,
                MAX_DEFINERS,
            );
            let weight = if via_import {
                1.0
            } else {
                1.0 / (targets.len().max(1) as f32).sqrt()
            };
            for target in targets {
                keep_best(
                    hits,
                    target,
                    self.confidence * weight,
                    format!(
                        "{who} is injected with `{}` through `{}` (line {}), provided here (rule {})",
                        request.wanted, request.marker, request.line, self.name
                    ),
                );
            }
            return;
        }
        let provided: Vec<&Subtype<'_>> = providers
            .subtypes
            .get(&(fam, request.wanted))
            .map(|list| list.iter().filter(|(f, _, _)| *f != i).collect())
            .unwrap_or_default();
        if !provided.is_empty() && provided.len() <= MAX_DEFINERS {
            let weight = 1.0 / (provided.len() as f32).sqrt();
            for &&(file, class, marker) in &provided {
                keep_best(
                    hits,
                    file,
                    self.confidence * weight,
                    format!(
                        "{who} is injected with `{}` (`{}`, line {}), provided by `@{marker} {class}` (rule {})",
                        request.wanted, request.marker, request.line, self.name
                    ),
                );
            }
        }
        let (declarers, _) = pick(
            definers.types(fam, request.wanted),
            i,
            request.wanted,
            &from.imports,
            MAX_DEFINERS,
        );
        for file in declarers {
            let component = providers
                .components
                .get(&(fam, request.wanted))
                .and_then(|list| list.iter().find(|(f, _)| *f == file));
            let (confidence, provider) = match component {
                Some((_, marker)) => (
                    self.confidence,
                    format!("provided by `@{marker} {}`", request.wanted),
                ),
                None => (
                    self.confidence * DECLARATION_FACTOR,
                    "declared here".to_string(),
                ),
            };
            keep_best(
                hits,
                file,
                confidence,
                format!(
                    "{who} is injected with `{}` (`{}`, line {}), {provider} (rule {})",
                    request.wanted, request.marker, request.line, self.name
                ),
            );
        }
    }
}

impl Injection {
    /// The dependencies a file requests, in source order.
    fn requests<'f>(&self, facts: &'f Facts) -> Vec<Request<'f>> {
        let mut out = Vec::new();
        for d in &facts.decorations {
            let injected = self.markers.contains(&d.name);
            let component = self.component_markers.contains(&d.name);
            if !injected && !component {
                continue;
            }
            // A marked constructor, method or class requests its parameters' types;
            // a marked field, property or parameter requests its own type.
            let requester = if component {
                d.target.as_str()
            } else {
                enclosing_type(facts, d.line).unwrap_or("")
            };
            let wanted: Vec<&str> = if !d.param_types.is_empty() {
                d.param_types.iter().map(String::as_str).collect()
            } else if injected {
                vec![d.target.as_str()]
            } else {
                Vec::new()
            };
            for wanted in wanted {
                if wanted.chars().count() >= MIN_NAME_LEN && wanted != requester {
                    out.push(Request {
                        wanted,
                        requester,
                        marker: &d.name,
                        line: d.line,
                        by_call: false,
                    });
                }
            }
        }
        for call in facts
            .calls_with_args
            .iter()
            .filter(|c| self.call_markers.contains(&c.callee))
        {
            let requester = enclosing_type(facts, call.line).unwrap_or("");
            for wanted in args_of(&call.args, &call.arg_kinds, ArgKind::Name) {
                out.push(Request {
                    wanted,
                    requester,
                    marker: &call.callee,
                    line: call.line,
                    by_call: true,
                });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::Relation;
    use crate::rules::names::testing::graph_with;

    const GATEWAY: &str = "package com.acme.pay;\n\npublic interface PaymentGateway {\n    void charge(long cents);\n}\n";
    const STRIPE: &str = "package com.acme.pay;\n\nimport org.springframework.stereotype.Component;\n\n@Component\npublic class StripeGateway implements PaymentGateway {\n    public void charge(long cents) {}\n}\n";
    const PLAIN: &str = "package com.acme.pay;\n\npublic class FakeGateway implements PaymentGateway {\n    public void charge(long cents) {}\n}\n";
    const SERVICE: &str = "package com.acme.orders;\n\nimport com.acme.pay.PaymentGateway;\n\n@Service\npublic class OrderService {\n    private final PaymentGateway gateway;\n\n    public OrderService(PaymentGateway gateway) {\n        this.gateway = gateway;\n    }\n}\n";

    #[test]
    fn constructor_injection_links_the_interface_and_its_component() {
        let graph = graph_with(
            "injection",
            &[
                ("src/com/acme/pay/PaymentGateway.java", GATEWAY),
                ("src/com/acme/pay/StripeGateway.java", STRIPE),
                ("src/com/acme/pay/FakeGateway.java", PLAIN),
                ("src/com/acme/orders/OrderService.java", SERVICE),
            ],
        );
        let service = "src/com/acme/orders/OrderService.java";
        let edge = graph
            .edge(
                service,
                "src/com/acme/pay/StripeGateway.java",
                Relation::Injection,
            )
            .expect("the component implementation is injected");
        assert!(
            edge.rationale
                .contains("`OrderService` is injected with `PaymentGateway`")
                && edge
                    .rationale
                    .contains("provided by `@Component StripeGateway`"),
            "{}",
            edge.rationale
        );
        assert!(
            graph
                .edge(
                    service,
                    "src/com/acme/pay/PaymentGateway.java",
                    Relation::Injection
                )
                .is_some()
        );
        // A plain implementation is not a bean: the container does not inject it.
        assert!(
            graph
                .edge(
                    service,
                    "src/com/acme/pay/FakeGateway.java",
                    Relation::Injection
                )
                .is_none()
        );
    }

    #[test]
    fn fields_and_depends_are_requests_and_unmarked_classes_are_not() {
        let graph = graph_with(
            "injection",
            &[
                ("app/db.py", "def get_db():\n    return None\n"),
                (
                    "app/api.py",
                    "from fastapi import Depends\nfrom .db import get_db\n\ndef read(db=Depends(get_db)):\n    return db\n",
                ),
                (
                    "app/Audit.java",
                    "class Audit {\n    Audit(Clock clock) {}\n}\n",
                ),
                ("app/Clock.java", "class Clock {}\n"),
                (
                    "app/Report.java",
                    "class Report {\n    @Inject Clock clock;\n}\n",
                ),
            ],
        );
        let edge = graph
            .edge("app/api.py", "app/db.py", Relation::Injection)
            .expect("Depends(get_db)");
        assert!(
            edge.rationale.contains("through `Depends`"),
            "{}",
            edge.rationale
        );
        assert!(
            graph
                .edge("app/Report.java", "app/Clock.java", Relation::Injection)
                .is_some()
        );
        // `Audit` is not a component: its constructor is not an injection point.
        assert!(
            graph
                .edge("app/Audit.java", "app/Clock.java", Relation::Injection)
                .is_none()
        );
    }

    #[test]
    fn nest_providers_are_injected_by_constructor_type() {
        let graph = graph_with(
            "injection",
            &[
                (
                    "src/payments/gateway.ts",
                    "export abstract class PaymentGateway {\n  abstract charge(cents: number): string;\n}\n",
                ),
                (
                    "src/payments/stripe.gateway.ts",
                    "import { Injectable } from '@nestjs/common';\nimport { PaymentGateway } from './gateway';\n\n@Injectable()\nexport class StripeGateway extends PaymentGateway {\n  charge(cents: number): string {\n    return `ch_${cents}`;\n  }\n}\n",
                ),
                (
                    "src/orders/orders.service.ts",
                    "import { Injectable } from '@nestjs/common';\nimport { PaymentGateway } from '../payments/gateway';\n\n@Injectable()\nexport class OrdersService {\n  constructor(private readonly gateway: PaymentGateway) {}\n}\n",
                ),
            ],
        );
        let edge = graph
            .edge(
                "src/orders/orders.service.ts",
                "src/payments/stripe.gateway.ts",
                Relation::Injection,
            )
            .expect("the provider extending the requested class");
        assert!(
            edge.rationale
                .contains("provided by `@Injectable StripeGateway`"),
            "{}",
            edge.rationale
        );
        assert!(
            graph
                .edge(
                    "src/orders/orders.service.ts",
                    "src/payments/gateway.ts",
                    Relation::Injection
                )
                .is_some()
        );
        // A provider requests nothing of its own: no edge back.
        assert!(
            graph
                .edge(
                    "src/payments/stripe.gateway.ts",
                    "src/orders/orders.service.ts",
                    Relation::Injection
                )
                .is_none()
        );
    }
}
