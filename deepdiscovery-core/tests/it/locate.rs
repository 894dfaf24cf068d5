//! The Location stage on the `locate_app` fixture: each kind of cue finds its anchor.

use deepdiscovery_core::locate::{Ablation, FEATURE_NAMES, LocateConfig, Location, Preset, Scorer};
use deepdiscovery_core::{Error, Hints, Session, Task};

use crate::support::fixture_path;

fn locate_with(text: &str, config: &LocateConfig) -> Location {
    let session = Session::open(fixture_path("locate_app")).unwrap();
    session.locate(&Task::new(text).unwrap(), config).unwrap()
}

fn locate(text: &str) -> Location {
    locate_with(text, &LocateConfig::default())
}

pub(crate) fn rank_of(location: &Location, path: &str) -> usize {
    location
        .ranked
        .iter()
        .position(|f| f.path == path)
        .map(|p| p + 1)
        .unwrap_or(usize::MAX)
}

pub(crate) fn top(location: &Location, n: usize) -> Vec<&str> {
    location
        .ranked
        .iter()
        .take(n)
        .map(|f| f.path.as_str())
        .collect()
}

/// Locates `task` in a repository made of `files`, with the default configuration.
fn locate_in<P: Into<String>, C: Into<Vec<u8>>>(
    files: impl IntoIterator<Item = (P, C)>,
    task: &str,
) -> Location {
    let session = Session::new(deepdiscovery_core::MemorySource::from_files(files).unwrap());
    session
        .locate(&Task::new(task).unwrap(), &LocateConfig::default())
        .unwrap()
}

/// Asserts that `path` ranks within the first `within` files and that one of its
/// signals says `says`.
fn assert_ranked_for(location: &Location, path: &str, within: usize, says: &str) {
    let rank = rank_of(location, path);
    assert!(
        rank <= within,
        "{path} ranks {rank}: {:?}",
        top(location, 6)
    );
    let signals = &location.ranked[rank - 1].signals;
    assert!(signals.iter().any(|s| s.contains(says)), "{signals:?}");
}

const TRACE: &str = "Pricing endpoint crashes for GBP

```
Traceback (most recent call last):
  File \"/srv/app/inventory/api/routes.py\", line 18, in price_endpoint
    return jsonify(price=discounted_price(sku, \"EUR\"))
  File \"/srv/app/inventory/pricing/discounts.py\", line 7, in discounted_price
    return convert_currency(base * 0.9, \"EUR\", currency)
  File \"/srv/app/inventory/pricing/currency.py\", line 12, in convert_currency
    raise CurrencyMismatchError(f\"cannot convert {source} to {target}\")
inventory.pricing.currency.CurrencyMismatchError: cannot convert EUR to GBP
```
";

#[test]
fn a_stack_trace_makes_its_innermost_repository_frame_the_first_anchor() {
    let location = locate(TRACE);
    assert_eq!(
        location.anchors[0].path,
        "inventory/pricing/currency.py",
        "{:?}",
        top(&location, 5)
    );
    let signals = location.anchors[0].signals.join(" | ");
    assert!(signals.contains("stack frame 0"), "{signals}");
    // The outer frames are anchors too.
    assert!(rank_of(&location, "inventory/pricing/discounts.py") <= 3);
    assert!(rank_of(&location, "inventory/api/routes.py") <= 4);
}

#[test]
fn a_backticked_symbol_finds_the_file_that_defines_it() {
    let location = locate("`rebalance_shelves` moves the same items twice");
    assert_eq!(
        location.anchors[0].path,
        "inventory/warehouse.py",
        "{:?}",
        top(&location, 5)
    );
    let signals = location.anchors[0].signals.join(" | ");
    assert!(signals.contains("rebalance_shelves"), "{signals}");
}

#[test]
fn a_config_key_finds_the_code_that_reads_it_and_the_config_file() {
    let location = locate("Changing inventory.reorder.threshold has no effect on reordering");
    let best = top(&location, 3);
    assert!(best.contains(&"inventory/config.py"), "{best:?}");
}

#[test]
fn a_route_finds_its_handler() {
    let location =
        locate("POST /api/stock/<sku>/reserve returns a 500 error when the stock is empty");
    assert!(
        rank_of(&location, "inventory/api/routes.py") <= 2,
        "{:?}",
        top(&location, 5)
    );
}

#[test]
fn a_vague_description_is_matched_through_words_and_path_tokens() {
    let location = locate("Items are not moved between warehouses when a shelf is crowded");
    assert_eq!(
        location.anchors[0].path,
        "inventory/warehouse.py",
        "{:?}",
        top(&location, 5)
    );
}

#[test]
fn the_implementation_outranks_a_test_that_shares_the_task_words() {
    let location = locate("CSV report export breaks on unicode characters in item names");
    let implementation = rank_of(&location, "inventory/reports/export.py");
    let test = rank_of(&location, "tests/test_export.py");
    assert!(
        implementation < test,
        "impl {implementation}, test {test}: {:?}",
        top(&location, 5)
    );
    assert_eq!(implementation, 1);
}

#[test]
fn hints_are_strong_evidence() {
    let session = Session::open(fixture_path("locate_app")).unwrap();
    let task = Task::new("something is off").unwrap().with_hints(Hints {
        paths: vec!["inventory/notifications/email.py".into()],
        ..Hints::default()
    });
    let location = session.locate(&task, &LocateConfig::default()).unwrap();
    assert_eq!(location.anchors[0].path, "inventory/notifications/email.py");
}

#[test]
fn the_files_a_caller_names_are_anchors_in_the_order_named() {
    // The task's words point at the discounts; the caller names two other files.
    let session = Session::open(fixture_path("locate_app")).unwrap();
    let named = ["inventory/pricing/currency.py", "inventory/warehouse.py"];
    let task = Task::new("discounts are applied twice to the price")
        .unwrap()
        .with_hints(Hints {
            paths: named.iter().map(|p| p.to_string()).collect(),
            ..Hints::default()
        });
    let location = session.locate(&task, &LocateConfig::default()).unwrap();
    assert_eq!(top(&location, 2), named);
    assert!(location.anchors[0].signals[0].contains("named by the caller"));
    // Still a ranking: no file below the named ones scores above them.
    assert!(location.ranked.windows(2).all(|w| w[0].score >= w[1].score));
    // A hint that names several files forces none of them.
    let task = Task::new("discounts are applied twice to the price")
        .unwrap()
        .with_hints(Hints {
            paths: vec!["__init__.py".into()],
            ..Hints::default()
        });
    let location = session.locate(&task, &LocateConfig::default()).unwrap();
    assert!(
        !location
            .ranked
            .iter()
            .any(|f| f.signals.iter().any(|s| s == "named by the caller"))
    );
}

#[test]
fn ablation_switches_remove_their_term() {
    // Ablations measure Eq. 6: compare with Eq. 6 alone.
    let paper = LocateConfig {
        preset: Preset::Paper,
        ..LocateConfig::default()
    };
    let full = locate_with(TRACE, &paper);
    let config = LocateConfig {
        ablation: Ablation {
            no_rule: true,
            ..Ablation::default()
        },
        ..LocateConfig::default()
    };
    let ablated = locate_with(TRACE, &config);
    let score_of = |l: &Location, p: &str| {
        l.ranked
            .iter()
            .find(|f| f.path == p)
            .map(|f| f.score)
            .unwrap()
    };
    let path = "inventory/pricing/currency.py";
    let drop = score_of(&full, path) - score_of(&ablated, path);
    let expected = full.weights.rule
        * full
            .ranked
            .iter()
            .find(|f| f.path == path)
            .unwrap()
            .terms
            .rule;
    assert!((drop - expected).abs() < 1e-4, "{drop} vs {expected}");
    for (flag, field) in [("sem", 0), ("sum", 1), ("prior", 3)] {
        let mut ablation = Ablation::default();
        match field {
            0 => ablation.no_sem = true,
            1 => ablation.no_sum = true,
            _ => ablation.no_prior = true,
        }
        let l = locate_with(
            TRACE,
            &LocateConfig {
                ablation,
                ..LocateConfig::default()
            },
        );
        assert_ne!(
            l.ranked.iter().map(|f| f.score).collect::<Vec<_>>(),
            full.ranked.iter().map(|f| f.score).collect::<Vec<_>>(),
            "no_{flag} changes the scores"
        );
    }
}

#[test]
fn anchors_are_k_a_explained_and_deterministic() {
    let a = locate("Items are not moved between warehouses when a shelf is crowded");
    let b = locate("Items are not moved between warehouses when a shelf is crowded");
    assert_eq!(a.anchors.len(), 8);
    assert_eq!(top(&a, 20), top(&b, 20));
    for anchor in &a.anchors {
        assert!((0.0..=1.0).contains(&anchor.score));
        for t in [
            anchor.terms.sem,
            anchor.terms.sum,
            anchor.terms.rule,
            anchor.terms.prior,
        ] {
            assert!((0.0..=1.0).contains(&t), "{t}");
        }
    }
    assert!(!a.view.text.is_empty());
    assert!(a.view.tokens <= LocateConfig::default().budget.location_tokens());
    assert!(a.cost.files_parsed < a.cost.files_read || a.cost.files_read <= 64);
}

#[test]
fn empty_tasks_and_bad_configs_are_errors() {
    assert!(matches!(Task::new("  \n"), Err(Error::EmptyTask)));
    let session = Session::open(fixture_path("locate_app")).unwrap();
    let config = LocateConfig {
        anchors: 0,
        ..LocateConfig::default()
    };
    let err = session
        .locate(&Task::new("x").unwrap(), &config)
        .unwrap_err();
    assert!(matches!(err, Error::InvalidConfig(_)));
}

/// A toy embedder: one dimension per concept, a concept being a set of synonyms, so
/// that it relates words that share no token (what a real embedder adds to BM25).
pub(crate) struct ConceptEmbedder(pub(crate) Vec<Vec<&'static str>>);

impl deepdiscovery_core::Embedder for ConceptEmbedder {
    fn dimension(&self) -> usize {
        self.0.len()
    }
    fn embed(&self, texts: &[&str]) -> deepdiscovery_core::Result<Vec<Vec<f32>>> {
        Ok(texts
            .iter()
            .map(|t| {
                let t = t.to_lowercase();
                self.0
                    .iter()
                    .map(|words| {
                        if words.iter().any(|w| t.contains(w)) {
                            1.0
                        } else {
                            0.0
                        }
                    })
                    .collect()
            })
            .collect())
    }
}

struct FailingEmbedder;

impl deepdiscovery_core::Embedder for FailingEmbedder {
    fn dimension(&self) -> usize {
        3
    }
    fn embed(&self, _texts: &[&str]) -> deepdiscovery_core::Result<Vec<Vec<f32>>> {
        Ok(vec![vec![1.0]]) // wrong count and dimension
    }
}

#[test]
fn an_embedder_is_evidence_of_its_own_under_the_learned_scorer_and_fused_into_eq6_alone() {
    let text = "staff never hear about shortages";
    let concepts = || {
        std::sync::Arc::new(ConceptEmbedder(vec![
            vec!["shortage", "runs low"],
            vec!["currency", "exchange"],
        ]))
    };
    let locate_text =
        |text: &str, config: &LocateConfig, embedder: Option<std::sync::Arc<ConceptEmbedder>>| {
            let mut session = Session::open(fixture_path("locate_app")).unwrap();
            if let Some(e) = embedder {
                session = session.with_embedder(e);
            }
            session.locate(&Task::new(text).unwrap(), config).unwrap()
        };
    let locate_with = |config: &LocateConfig, embedder: Option<std::sync::Arc<ConceptEmbedder>>| {
        locate_text(text, config, embedder)
    };
    let email = "inventory/notifications/email.py";

    // Eq. 6 alone (the paper's presets): s_sem fuses BM25F and the similarity.
    let paper = LocateConfig {
        preset: deepdiscovery_core::locate::Preset::Paper,
        ..LocateConfig::default()
    };
    let plain = locate_with(&paper, None);
    let fused = locate_with(&paper, Some(concepts()));
    assert_eq!(rank_of(&fused, email), 1, "{:?}", top(&fused, 5));
    assert!(rank_of(&plain, email) > 1, "the words alone do not find it");
    let signals = fused.anchors[0].signals.join(" | ");
    assert!(signals.contains("semantic match: `"), "{signals}");
    assert!(fused.notes.is_empty());

    // The learned scorer: s_sem stays lexical (every Eq. 6 term as without the
    // embedder), and the similarity is features of their own, explained.
    let plain = locate_with(&LocateConfig::default(), None);
    let learned = locate_with(&LocateConfig::default(), Some(concepts()));
    let email_of = |l: &deepdiscovery_core::Location| {
        l.ranked.iter().find(|f| f.path == email).cloned().unwrap()
    };
    assert_eq!(email_of(&learned).terms.sem, email_of(&plain).terms.sem);
    assert!(
        email_of(&learned)
            .signals
            .iter()
            .any(|s| s.starts_with("semantic match: `")),
        "{:?}",
        email_of(&learned).signals
    );
    // The models trained with an embedder present rank only with a deep history
    // (history.rs): this fixture has none, so the order is the default model's.
    assert_eq!(top(&learned, 10), top(&plain, 10));

    let session = Session::open(fixture_path("locate_app"))
        .unwrap()
        .with_embedder(std::sync::Arc::new(FailingEmbedder));
    let fallback = session
        .locate(&Task::new(text).unwrap(), &LocateConfig::default())
        .unwrap();
    assert_eq!(fallback.notes.len(), 1, "{:?}", fallback.notes);
    assert_eq!(top(&fallback, 10), top(&plain, 10));
    assert!(plain.explain().contains("score"));
}

#[test]
fn the_issue_template_a_task_was_written_from_is_no_candidate() {
    let template = "---\nname: Bug report\nabout: Create a report to help us improve\n---\n\n\
                    ## Describe the bug\n\n## Steps to reproduce the behavior\n\n\
                    ## Expected behavior\n\n## Screenshots or logs\n\n## Desktop environment\n";
    let files = [
        (".github/ISSUE_TEMPLATE/bug_report.md", template),
        (
            "app/export/csv_writer.py",
            "def write_rows(rows, path):\n    \"\"\"Writes rows as CSV with a header.\"\"\"\n",
        ),
        (
            "app/report/summary.py",
            "def summary_report(rows):\n    return len(rows)\n",
        ),
        (
            "app/ui/screens.py",
            "def render_screen(screen):\n    return screen\n",
        ),
    ];
    let session = Session::new(deepdiscovery_core::MemorySource::from_files(files).unwrap());
    let task = "## Describe the bug\n\nThe CSV export writes the header twice.\n\n\
                ## Steps to reproduce the behavior\n\nExport any table as CSV.\n\n\
                ## Expected behavior\n\nOne header row.\n\n## Desktop environment\n\nLinux\n";
    let location = session
        .locate(&Task::new(task).unwrap(), &LocateConfig::default())
        .unwrap();
    assert_eq!(location.ranked[0].path, "app/export/csv_writer.py");
    let template_rank = rank_of(&location, ".github/ISSUE_TEMPLATE/bug_report.md");
    assert!(
        template_rank > 3,
        "the template ranks {template_rank}: {:?}",
        location.ranked
    );
}

#[test]
fn the_counterpart_of_a_strong_candidate_ranks_beside_it() {
    // The PostgreSQL twin shares none of the task's symbols.
    let backend = |dialect: &str, method: &str| {
        [
            (
                format!("app/backends/{dialect}/operations.py"),
                format!(
                    "class Operations:\n    def {method}(self, kind, field, tzname):\n        \
                     return kind\n\n    def quote_name(self, name):\n        return name\n"
                ),
            ),
            (
                format!("app/backends/{dialect}/schema.py"),
                "class Schema:\n    def create_table(self, model):\n        pass\n".to_string(),
            ),
            (
                format!("app/backends/{dialect}/client.py"),
                "class Client:\n    def connect(self):\n        pass\n".to_string(),
            ),
        ]
    };
    let mut files: Vec<(String, String)> = Vec::new();
    files.extend(backend("mysql", "date_trunc_sql"));
    files.extend(backend("postgresql", "truncate"));
    files.push((
        "app/utils/timezone.py".into(),
        "def localtime(value, timezone):\n    \"\"\"Date and time in the timezone.\"\"\"\n    \
         return value\n"
            .into(),
    ));
    files.push((
        "app/db/functions.py".into(),
        "class Trunc:\n    \"\"\"Truncates a date to a kind: year, month, day.\"\"\"\n    \
         def as_sql(self, compiler):\n        return compiler.date_trunc(self.kind)\n"
            .into(),
    ));
    files.push((
        "app/forms/fields.py".into(),
        "class DateField:\n    \"\"\"A date field with a timezone.\"\"\"\n".into(),
    ));
    files.push(("app/__init__.py".into(), String::new()));
    let task = "MySQL: truncating a date to the month ignores the connection's timezone. \
                `date_trunc_sql` in the MySQL backend drops tzname.";
    // Eq. 6 (the paper's presets) ranks the twin beside its source; the learned
    // scorer, which weighs counterpart evidence as the mined and development tasks
    // taught it, keeps it among the anchors.
    let session = Session::new(deepdiscovery_core::MemorySource::from_files(files).unwrap());
    let task = Task::new(task).unwrap();
    let paper = LocateConfig {
        preset: Preset::Paper,
        ..LocateConfig::default()
    };
    let twin = "app/backends/postgresql/operations.py";
    let says = "the same file in a parallel directory as `app/backends/mysql/operations.py`";
    for (config, within) in [(paper, 3), (LocateConfig::default(), 8)] {
        let location = session.locate(&task, &config).unwrap();
        assert_eq!(location.ranked[0].path, "app/backends/mysql/operations.py");
        assert_ranked_for(&location, twin, within, says);
    }
}

#[test]
fn the_learned_scorer_is_the_default_and_eq6_its_ablation() {
    let learned = locate(TRACE);
    assert_eq!(learned.scorer, Scorer::Learned);
    let first = &learned.anchors[0];
    assert_eq!(first.path, "inventory/pricing/currency.py");
    // Each learned score says what moved it.
    assert!(
        first.signals[0].starts_with("learned score") && first.signals[0].contains("moved most by"),
        "{:?}",
        first.signals
    );
    assert!(learned.explain().contains("learned score"));
    let paper = locate_with(
        TRACE,
        &LocateConfig {
            preset: Preset::Paper,
            ..LocateConfig::default()
        },
    );
    assert_eq!(paper.scorer, Scorer::Eq6);
    assert_eq!(paper.anchors[0].path, "inventory/pricing/currency.py");
    assert!(
        paper
            .anchors
            .iter()
            .all(|a| a.signals.iter().all(|s| !s.contains("learned score")))
    );
    // An ablated term of Eq. 6 measures Eq. 6.
    let ablated = locate_with(
        TRACE,
        &LocateConfig {
            ablation: Ablation {
                no_sum: true,
                ..Ablation::default()
            },
            ..LocateConfig::default()
        },
    );
    assert_eq!(ablated.scorer, Scorer::Eq6);
    // The features the scorer read are there for every candidate.
    assert_eq!(
        learned.features.rows.len(),
        learned.parsed.len().min(learned.ranked.len())
    );
    assert!(
        learned
            .features
            .rows
            .iter()
            .all(|(_, row)| row.len() == FEATURE_NAMES.len())
    );
}

/// The learned scores of the fixture, pinned: retraining `ranker.json` must show up
/// here, never change results silently.
#[test]
fn learned_scores_are_pinned_on_the_fixture() {
    let location = locate(TRACE);
    let top: Vec<(&str, String, &str)> = location
        .ranked
        .iter()
        .take(3)
        .map(|f| {
            let learned = f.signals[0].split(';').next().unwrap_or_default();
            (f.path.as_str(), format!("{:.3}", f.score), learned)
        })
        .collect();
    let expected = [
        (
            "inventory/pricing/currency.py",
            "0.995",
            "learned score 0.78 (Eq. 6 0.99)",
        ),
        (
            "inventory/api/routes.py",
            "0.961",
            "learned score 0.54 (Eq. 6 0.96)",
        ),
        (
            "inventory/pricing/discounts.py",
            "0.914",
            "learned score 0.41 (Eq. 6 0.91)",
        ),
    ];
    let expected: Vec<(&str, String, &str)> = expected
        .iter()
        .map(|(p, s, l)| (*p, s.to_string(), *l))
        .collect();
    assert_eq!(top, expected);
}

#[test]
fn a_warning_is_traced_to_the_code_that_emits_it_not_to_its_translations() {
    let mut files: Vec<(String, String)> = vec![
        (
            "app/domains/std.py".into(),
            "def resolve_numref(self, figtype, labelid):\n    \
             logger.warning(__(\"no number is assigned for %s: %s\"), figtype, labelid)\n"
                .into(),
        ),
        (
            "app/writers/latex.py".into(),
            "def visit_table(self, node):\n    \"\"\"Tables get a number.\"\"\"\n    \
             self.number = None\n"
                .into(),
        ),
    ];
    // More catalogs repeat the message than a cue may name.
    for k in 0..40 {
        files.push((
            format!("app/locale/l{k}/LC_MESSAGES/app.po"),
            "msgid \"no number is assigned for %s: %s\"\nmsgstr \"\"\n".into(),
        ));
    }
    let task = "Upgrade started generating warnings\r\n\r\n`WARNING: no number is assigned for \
                table:`\r\n\r\nWhere do they come from?";
    let location = locate_in(files, task);
    assert_ranked_for(
        &location,
        "app/domains/std.py",
        2,
        "no number is assigned for",
    );
}

#[test]
fn a_flag_is_traced_to_the_code_that_parses_it_not_to_its_mentions() {
    let mut files: Vec<(String, String)> = vec![
        (
            "tool/cli.py".into(),
            "import argparse\n\ndef parser():\n    p = argparse.ArgumentParser()\n    \
             p.add_argument(\"--dry-run\", action=\"store_true\")\n    return p\n"
                .into(),
        ),
        (
            "tool/runner.py".into(),
            "def run(jobs):\n    \"\"\"Starts the jobs.\"\"\"\n    return [j() for j in jobs]\n"
                .into(),
        ),
        (
            "CHANGELOG.md".into(),
            "# Changes\n\n- New: `--dry-run` lists the jobs a run would start.\n".into(),
        ),
        (
            "tests/test_cli.py".into(),
            "def test_dry_run_flag():\n    assert parser().parse_args([\"--dry-run\"]).dry_run\n"
                .into(),
        ),
    ];
    for k in 0..4 {
        files.push((
            format!("docs/usage{k}.md"),
            format!("# Usage {k}\n\nOptions: `--verbose`, `--dry-run`, `--jobs N`.\n"),
        ));
    }
    let task = "`--dry-run` needs a one-letter alias\n\nI type `--dry-run` before every run; \
                a short alias would be quicker to type.";
    let location = locate_in(files, task);
    let flag = location
        .cues
        .iter()
        .find(|r| r.cue.text == "--dry-run")
        .expect("the flag resolves");
    assert_eq!(flag.files, ["tool/cli.py"]);
    assert_ranked_for(&location, "tool/cli.py", 1, "cli flag of the task");
}

#[test]
fn the_title_says_what_the_task_is_about() {
    let files = [
        (
            "shop/rounding.py",
            "def round_price(amount):\n    \"\"\"Rounding of a price to cents.\"\"\"\n    \
             return round(amount, 2)\n",
        ),
        (
            "shop/orders.py",
            "def create_order(cart, customer):\n    \"\"\"An order of a cart for a customer, \
             with its total.\"\"\"\n    return {\"cart\": cart, \"customer\": customer}\n",
        ),
    ];
    // The body retells the reproduction in words of orders; the title names the bug.
    let task = "Rounding is off by a cent\n\nI create an order with a cart of two items: \
                the cart total is 10.004 and the order shows 10.01.";
    let location = locate_in(files, task);
    assert_eq!(
        top(&location, 1),
        ["shop/rounding.py"],
        "{:?}",
        top(&location, 2)
    );
}

#[test]
fn a_bare_name_is_the_module_level_definition_of_it() {
    let mut files = vec![
        (
            "units/quantities.py".to_string(),
            "class Quantity:\n    \"\"\"Orthogonal units of a quantity.\"\"\"\n    \
             def convert_to(self, other):\n        return other\n"
                .to_string(),
        ),
        (
            "units/util.py".to_string(),
            "def convert_to(expr, target):\n    return expr\n".to_string(),
        ),
    ];
    // Other modules, so that the name is rare in the repository.
    files.extend((0..8).map(|i| {
        (
            format!("units/system{i}.py"),
            format!("def scale{i}(x):\n    return x\n"),
        )
    }));
    // The task calls the function, not the method of the same name.
    let task = "convert_to combines orthogonal units\n\n\
                convert_to(joule*second, joule) gives joule**(7/9).";
    let location = locate_in(files, task);
    assert_eq!(
        top(&location, 1),
        ["units/util.py"],
        "{:?}",
        top(&location, 2)
    );
}

#[test]
fn a_named_package_shares_its_evidence_with_its_modules() {
    let files = [
        (
            "sphinx/ext/napoleon/__init__.py",
            "\"\"\"Support for NumPy and Google style docstrings.\"\"\"\n\
             def setup(app):\n    app.connect('autodoc-process-docstring', process)\n",
        ),
        (
            "sphinx/ext/napoleon/docstring.py",
            "class GoogleDocstring:\n    def _parse_attribute_docstring(self):\n        \
             return self._escape_args_and_kwargs(self._name)\n",
        ),
        (
            "sphinx/ext/autodoc/__init__.py",
            "class Documenter:\n    def add_content(self, more_content):\n        pass\n",
        ),
        (
            "sphinx/ext/autodoc/directive.py",
            "def parse_generated_content(state, content):\n    return content\n",
        ),
        (
            "sphinx/util/escaping.py",
            "def escape(text):\n    return text\n",
        ),
    ];
    let task = "Overescaped trailing underscore on attribute with napoleon\n\n\
                With `sphinx.ext.napoleon` an attribute named `hello_` shows up as `hello\\_` \
                in the HTML.";
    let location = locate_in(files, task);
    assert_ranked_for(
        &location,
        "sphinx/ext/napoleon/docstring.py",
        2,
        "a module of the package `sphinx.ext.napoleon`",
    );
    // Other packages' modules get nothing.
    let other = &location.ranked[rank_of(&location, "sphinx/ext/autodoc/directive.py") - 1];
    assert!(other.signals.iter().all(|s| !s.contains("package")));
}

#[test]
fn copies_kept_per_released_version_do_not_crowd_out_the_current_files() {
    let manual = "- title: \"--raw-output\"\n  body: With this option, string results are \
                  written without quotes, one per line.\n";
    let files = [
        ("docs/manual/manual.yml", manual),
        ("docs/manual/v1.5/manual.yml", manual),
        ("docs/manual/v1.6/manual.yml", manual),
        (
            "docs/tutorial.yml",
            "- body: Pass --raw-output to get string results without quotes.\n",
        ),
    ];
    let location = locate_in(
        files,
        "Documentation: the manual's entry for `--raw-output` says string results are \
         written without quotes, one per line; the docs should say what happens to newlines",
    );
    let tutorial = rank_of(&location, "docs/tutorial.yml");
    for copy in ["docs/manual/v1.5/manual.yml", "docs/manual/v1.6/manual.yml"] {
        assert!(
            rank_of(&location, copy) > tutorial,
            "{:?}",
            top(&location, 4)
        );
        assert!(rank_of(&location, copy) > rank_of(&location, "docs/manual/manual.yml"));
    }
}

#[test]
fn the_definition_the_task_describes_is_named_and_scored_on_its_own() {
    // A long module of many functions, one of which the task describes, beside a short
    // module that shares a few of the task's words in passing.
    let mut render = String::from("\"\"\"Rendering of reports.\"\"\"\n\n");
    for i in 0..40 {
        render.push_str(&format!(
            "def draw_chart_{i}(canvas, series):\n    \"\"\"Draws series {i} of a chart.\"\"\"\n    \
             return canvas.plot(series, color=PALETTE[{i}])\n\n"
        ));
    }
    render.push_str(
        "# Headers wider than the page are wrapped onto several lines.\n\
         def wrap_headers(headers, page_width):\n    \
         \"\"\"Wrap column headers longer than the page width.\"\"\"\n    \
         return [split_words(h, page_width) for h in headers]\n",
    );
    let files = vec![
        ("report/render.py".to_string(), render),
        (
            "report/layout.py".to_string(),
            "PAGE = 'page'\nWIDTH = 80  # page width\n".to_string(),
        ),
        (
            "report/io.py".to_string(),
            "def save(path, data):\n    open(path, 'w').write(data)\n".to_string(),
        ),
    ];
    let location = locate_in(files, "Long column headers overflow the page width");
    let index = |name: &str| FEATURE_NAMES.iter().position(|n| *n == name).unwrap();
    let row = |path: &str| {
        &location
            .features
            .rows
            .iter()
            .find(|(p, _)| p == path)
            .unwrap_or_else(|| panic!("{path} is a candidate"))
            .1
    };
    let render = row("report/render.py");
    assert_eq!(render[index("def_best")], 1.0);
    assert!(render[index("def_title")] > 0.5, "{render:?}");
    // Constants are no documents: the layout module has no definition to match.
    assert_eq!(row("report/layout.py")[index("def_best")], 0.0);
    assert_ranked_for(
        &location,
        "report/render.py",
        1,
        "its definition `wrap_headers` (lines 163-166) matches the task (1.00",
    );
}

#[test]
fn what_the_named_function_calls_is_known_though_the_name_was_used_before() {
    // `flush_pages` is used first in `open_report`, then in the body of the function
    // the task names: the facts keep both uses, so the file that defines it is known
    // as a callee of the named function.
    let files = vec![
        (
            "report/writer.py".to_string(),
            "from report.pages import flush_pages\n\n\ndef open_report(path):\n    \
             flush_pages(path)\n\n\ndef save_report(report):\n    \
             report.close()\n    flush_pages(report.path)\n"
                .to_string(),
        ),
        (
            "report/pages.py".to_string(),
            "def flush_pages(path):\n    return path\n".to_string(),
        ),
        (
            "report/fonts.py".to_string(),
            "def load_fonts(path):\n    return path\n".to_string(),
        ),
    ];
    let location = locate_in(files, "`save_report` loses the last page");
    let callee = FEATURE_NAMES
        .iter()
        .position(|n| *n == "callee_of_named")
        .unwrap();
    let value = |path: &str| {
        location
            .features
            .rows
            .iter()
            .find(|(p, _)| p == path)
            .map_or(0.0, |(_, row)| row[callee])
    };
    assert!(
        value("report/pages.py") > 0.0,
        "{:?}",
        location.features.rows
    );
    assert_eq!(value("report/fonts.py"), 0.0);
}

/// A repository where the task's words are everywhere but in the file that fixes it:
/// 80 exporters that say "export" and "report", and one cache module that says
/// neither.
fn bridge_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("exporters")).unwrap();
    for k in 0..80 {
        std::fs::write(
            root.join(format!("exporters/format_{k}.py")),
            format!("def export_report_{k}(report):\n    return report.export()\n"),
        )
        .unwrap();
    }
    std::fs::create_dir_all(root.join("core")).unwrap();
    std::fs::write(
        root.join("core/lookup.py"),
        "LOOKUP_CACHE = {}\n\ndef memoized_lookup(key):\n    if key in LOOKUP_CACHE:\n        \
         return LOOKUP_CACHE[key]\n    LOOKUP_CACHE[key] = compute(key)\n    return LOOKUP_CACHE[key]\n",
    )
    .unwrap();
    dir
}

#[test]
fn the_bridge_brings_in_and_explains_a_file_the_task_words_miss() {
    use deepdiscovery_core::bridge::{Bridge, encode};
    let repo = bridge_repo();
    let bridge =
        Bridge::parse(&encode(&[("slow", vec![("cache", 0.4), ("memoiz", 0.2)])])).unwrap();
    let session = Session::open(repo.path())
        .unwrap()
        .with_bridge(std::sync::Arc::new(bridge));
    let task = Task::new("Exporting a report is slow\n\nThe report export takes minutes.").unwrap();
    let location = session.locate(&task, &LocateConfig::default()).unwrap();
    // Beyond the 64 candidates the words give, the bridge's best file is scored too.
    let candidate = |l: &Location| l.features.rows.iter().any(|(p, _)| p == "core/lookup.py");
    assert!(candidate(&location));
    let file = location
        .ranked
        .iter()
        .find(|f| f.path == "core/lookup.py")
        .expect("the cache module is ranked");
    assert!(
        file.signals
            .iter()
            .any(|s| s.contains("`slow` ↔ `cache`") && s.contains("learned association")),
        "{:?}",
        file.signals
    );
    let at = FEATURE_NAMES.iter().position(|n| *n == "bridge").unwrap();
    let row = &location
        .features
        .rows
        .iter()
        .find(|(p, _)| p == "core/lookup.py")
        .unwrap()
        .1;
    assert_eq!(row[at], 1.0, "the best file by the bridge");
    // Without the bridge, the words alone leave it out of the candidates.
    let config = LocateConfig {
        ablation: Ablation {
            no_bridge: true,
            ..Ablation::default()
        },
        ..LocateConfig::default()
    };
    let location = session.locate(&task, &config).unwrap();
    assert!(!candidate(&location));
}
