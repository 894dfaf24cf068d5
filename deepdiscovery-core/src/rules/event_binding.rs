//! `event_binding`: the file that emits an event → the files that handle it.
//!
//! The *emit side* is a call of the `emit_calls` vocabulary (`emit`, `publish`,
//! `publishEvent`, `send`…); the *listen side* a call of `listen_calls` (`on`,
//! `subscribe`, `connect`…) or a decoration of `listen_decorators` (`@receiver`,
//! `@EventListener`, `@KafkaListener`, `@OnEvent`…). Both sides name their event by
//! a **key**:
//! - an event *name*: the first string argument (`bus.emit("order:placed", o)`,
//!   `bus.Subscribe("orders.created", h)`, `@KafkaListener(topics = "orders")`);
//!   names match across languages;
//! - without a string, an event *type or signal*: the call's receiver
//!   (`order_placed.send(…)`, `order_placed.connect(h)`), its first name argument
//!   (`publishEvent(new OrderPlaced(…))`, `@receiver(order_placed)`,
//!   `@EventListener(OrderPlaced.class)`) and, for a decorated handler, its first
//!   parameter's type (`@EventListener void on(OrderPlaced e)`); such a key counts
//!   only when the repository defines the name (in the same language family), which
//!   leaves out local variables and framework signals.
//!
//! Keys of `ignore_keys` (generic names such as `change`, `click`, `error`, `data`)
//! and keys that occur in more than `max_files` files link nothing.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::facts::{ArgKind, Facts};
use crate::graph::{EdgeData, Relation, RelationRule, RuleContext};
use crate::{Error, Result};

use super::RuleSpec;
use super::names::{Definers, MIN_NAME_LEN, first_arg, vocabulary};

/// The rule.
#[derive(Debug)]
pub(super) struct EventBinding {
    name: String,
    relation: Relation,
    confidence: f32,
    emit_calls: HashSet<String>,
    listen_calls: HashSet<String>,
    listen_decorators: HashSet<String>,
    ignore_keys: HashSet<String>,
    max_files: usize,
}

impl EventBinding {
    pub(super) fn new(spec: &RuleSpec) -> Result<Self> {
        let max_files = spec
            .params
            .get("max_files")
            .and_then(|v| v.as_integer())
            .filter(|n| (2..=1000).contains(n))
            .ok_or_else(|| Error::InvalidRule {
                name: spec.name.clone(),
                message: "params.max_files must be an integer in 2..=1000".into(),
            })? as usize;
        Ok(EventBinding {
            name: spec.name.clone(),
            relation: spec.relation,
            confidence: spec.confidence,
            emit_calls: vocabulary(spec, "emit_calls")?,
            listen_calls: vocabulary(spec, "listen_calls")?,
            listen_decorators: vocabulary(spec, "listen_decorators")?,
            ignore_keys: vocabulary(spec, "ignore_keys")?
                .into_iter()
                .map(|k| k.to_lowercase())
                .collect(),
            max_files,
        })
    }
}

/// How an event is named: by a string, or by a type or signal of a language family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Key<'f> {
    Name(&'f str),
    Type(u8, &'f str),
}

impl Key<'_> {
    fn text(&self) -> &str {
        match self {
            Key::Name(s) | Key::Type(_, s) => s,
        }
    }
}

/// One side of an event: the file, the key, how (`emit`, `@EventListener`), the line.
struct Side<'f> {
    file: usize,
    key: Key<'f>,
    how: String,
    line: u32,
}

impl RelationRule for EventBinding {
    fn name(&self) -> &str {
        &self.name
    }

    fn apply(&self, context: &RuleContext<'_>, out: &mut Vec<(String, String, EdgeData)>) {
        let definers = Definers::build(context.artifacts);
        let mut emits: Vec<Side<'_>> = Vec::new();
        let mut listens: Vec<Side<'_>> = Vec::new();
        for (i, artifact) in context.artifacts.iter().enumerate() {
            let Some(fam) = artifact.language.name_family() else {
                continue;
            };
            let defined = |name: &str| {
                name.chars().count() >= MIN_NAME_LEN && !definers.any(fam, name).is_empty()
            };
            self.sides(i, fam, &artifact.facts, &defined, &mut emits, &mut listens);
        }
        if emits.is_empty() || listens.is_empty() {
            return;
        }
        // Key → files it occurs in; too common keys link nothing.
        let mut files: HashMap<Key<'_>, BTreeSet<usize>> = HashMap::new();
        for side in emits.iter().chain(&listens) {
            files.entry(side.key).or_default().insert(side.file);
        }
        let mut by_key: HashMap<Key<'_>, Vec<&Side<'_>>> = HashMap::new();
        for side in &listens {
            by_key.entry(side.key).or_default().push(side);
        }
        // (emitter, listener) → the first key that binds them, with both sides.
        let mut pairs: BTreeMap<(usize, usize), (&Side<'_>, &Side<'_>)> = BTreeMap::new();
        for emit in &emits {
            if files
                .get(&emit.key)
                .is_some_and(|f| f.len() > self.max_files)
            {
                continue;
            }
            for listen in by_key.get(&emit.key).into_iter().flatten() {
                if listen.file != emit.file {
                    pairs
                        .entry((emit.file, listen.file))
                        .or_insert((emit, listen));
                }
            }
        }
        for ((from, to), (emit, listen)) in pairs {
            let what = match emit.key {
                Key::Name(_) => "the event",
                Key::Type(..) => "the event type",
            };
            out.push((
                context.artifacts[from].path.clone(),
                context.artifacts[to].path.clone(),
                EdgeData {
                    relation: self.relation,
                    confidence: self.confidence,
                    rationale: format!(
                        "emits {what} `{}` with `{}` (line {}), handled with `{}` (line {}) (rule {})",
                        emit.key.text(),
                        emit.how,
                        emit.line,
                        listen.how,
                        listen.line,
                        self.name
                    ),
                },
            ));
        }
    }
}

impl EventBinding {
    /// Appends the emit and listen sides of one file.
    fn sides<'f>(
        &self,
        file: usize,
        fam: u8,
        facts: &'f Facts,
        defined: &dyn Fn(&str) -> bool,
        emits: &mut Vec<Side<'f>>,
        listens: &mut Vec<Side<'f>>,
    ) {
        for call in &facts.calls_with_args {
            let emit = self.emit_calls.contains(&call.callee);
            if !emit && !self.listen_calls.contains(&call.callee) {
                continue;
            }
            let name = first_arg(&call.args, &call.arg_kinds, ArgKind::Literal);
            let types = [
                Some(call.receiver.as_str()),
                first_arg(&call.args, &call.arg_kinds, ArgKind::Name),
            ];
            let sink = if emit { &mut *emits } else { &mut *listens };
            for key in self.keys(fam, name, types, defined) {
                sink.push(Side {
                    file,
                    key,
                    how: call.callee.clone(),
                    line: call.line,
                });
            }
        }
        for d in facts
            .decorations
            .iter()
            .filter(|d| self.listen_decorators.contains(&d.name))
        {
            let name = first_arg(&d.args, &d.arg_kinds, ArgKind::Literal);
            let types = [
                first_arg(&d.args, &d.arg_kinds, ArgKind::Name),
                d.param_types.first().map(String::as_str),
            ];
            for key in self.keys(fam, name, types, defined) {
                listens.push(Side {
                    file,
                    key,
                    how: format!("@{}", d.name),
                    line: d.line,
                });
            }
        }
    }

    /// The keys of one side: its event name when it has one, else its event types
    /// that the repository defines.
    fn keys<'f>(
        &self,
        fam: u8,
        name: Option<&'f str>,
        types: [Option<&'f str>; 2],
        defined: &dyn Fn(&str) -> bool,
    ) -> Vec<Key<'f>> {
        if let Some(name) = name {
            let trimmed = name.trim();
            let usable =
                trimmed.chars().count() >= 2 && !self.ignore_keys.contains(&trimmed.to_lowercase());
            return if usable {
                vec![Key::Name(trimmed)]
            } else {
                Vec::new()
            };
        }
        let mut keys: Vec<Key<'f>> = types
            .into_iter()
            .flatten()
            .filter(|t| !t.is_empty() && !self.ignore_keys.contains(&t.to_lowercase()))
            .filter(|t| defined(t))
            .map(|t| Key::Type(fam, t))
            .collect();
        keys.dedup();
        keys
    }
}

#[cfg(test)]
mod tests {
    use crate::Relation;
    use crate::rules::names::testing::graph_with;

    #[test]
    fn a_named_event_links_emitter_to_listener() {
        let graph = graph_with(
            "event_binding",
            &[
                (
                    "src/bus.ts",
                    "import { EventEmitter } from 'events';\nexport const bus = new EventEmitter();\n",
                ),
                (
                    "src/orders.ts",
                    "import { bus } from './bus';\nexport function place(order: string) {\n  bus.emit('order:placed', order);\n  bus.emit('change', order);\n}\n",
                ),
                (
                    "src/audit.ts",
                    "import { bus } from './bus';\nbus.on('order:placed', (o: string) => console.log(o));\n",
                ),
                (
                    "src/ui.ts",
                    "import { bus } from './bus';\nbus.on('change', () => {});\nbus.on('order:cancelled', () => {});\n",
                ),
            ],
        );
        let edge = graph
            .edge("src/orders.ts", "src/audit.ts", Relation::EventBinding)
            .expect("emit → on");
        assert!(
            edge.rationale
                .contains("`order:placed` with `emit` (line 3)"),
            "{}",
            edge.rationale
        );
        // `change` is a generic event name; nobody emits `order:cancelled`.
        assert!(
            graph
                .edge("src/orders.ts", "src/ui.ts", Relation::EventBinding)
                .is_none()
        );
        assert!(
            graph
                .edge("src/audit.ts", "src/orders.ts", Relation::EventBinding)
                .is_none()
        );
    }

    #[test]
    fn a_signal_or_event_type_links_emitter_to_receiver() {
        let graph = graph_with(
            "event_binding",
            &[
                (
                    "shop/signals.py",
                    "from django.dispatch import Signal\n\norder_placed = Signal()\norder_cancelled = Signal()\n",
                ),
                (
                    "shop/services.py",
                    "from .signals import order_placed\n\ndef place(order):\n    order_placed.send(sender=None, order=order)\n",
                ),
                (
                    "shop/handlers.py",
                    "from django.dispatch import receiver\nfrom .signals import order_placed, order_cancelled\n\n@receiver(order_placed)\ndef notify(sender, **kwargs):\n    pass\n\n@receiver(order_cancelled)\ndef refund(sender, **kwargs):\n    pass\n",
                ),
                (
                    "shop/other.py",
                    "from django.dispatch import receiver\n\n@receiver(post_save)\ndef log(sender, **kwargs):\n    pass\n",
                ),
            ],
        );
        let edge = graph
            .edge(
                "shop/services.py",
                "shop/handlers.py",
                Relation::EventBinding,
            )
            .expect("send → @receiver");
        assert!(
            edge.rationale.contains("`order_placed`") && edge.rationale.contains("`@receiver`"),
            "{}",
            edge.rationale
        );
        assert!(
            graph
                .edge("shop/services.py", "shop/other.py", Relation::EventBinding)
                .is_none()
        );
    }
}
