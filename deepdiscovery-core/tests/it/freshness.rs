//! Issue 9: a warm query in a Session after edits, additions and deletions answers as
//! a fresh Session on the edited tree would (no stale fact, no deleted file), and a
//! package does not depend on the number of threads.

use std::fs;
use std::path::Path;

use deepdiscovery_core::infer::FileView;
use deepdiscovery_core::source::Listing;
use deepdiscovery_core::{
    ContextPackage, DiscoverConfig, FsSource, LocateConfig, MemorySource, Relation, RepoSource,
    Session, Task,
};

use crate::support::{fixture_path, stable_json};

const LATE_FEE_TASK: &str = "Overdue invoices are charged the late fee twice: `compute_late_fee` returns double the penalty for invoices more than 30 days late";

const PRICING_TASK: &str = "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in `convert_currency`";

/// A billing service of 31 files: modules importing each other, a package tree, a
/// YAML configuration read by `billing/config.py`, tests and docs.
const BILLING: &[(&str, &str)] = &[
    (
        "pyproject.toml",
        "[project]\nname = \"billing\"\nversion = \"0.3.0\"\n",
    ),
    (
        "README.md",
        "# Billing\n\nInvoices, fees, taxes and reminders.\n",
    ),
    (
        "docs/billing.md",
        "# Billing internals\n\nLate fees are computed by `compute_late_fee`.\n",
    ),
    (
        "config/settings.yaml",
        "billing:\n  late_fee_rate: 0.02\n  grace_days: 30\n  currency: EUR\n",
    ),
    ("billing/__init__.py", "\"\"\"The billing service.\"\"\"\n"),
    (
        "billing/config.py",
        "\"\"\"Reads the billing configuration.\"\"\"\nimport yaml\n\n\ndef load(path=\"config/settings.yaml\"):\n    with open(path) as f:\n        return yaml.safe_load(f)\n\n\ndef late_fee_rate(config):\n    return config.get(\"billing.late_fee_rate\", 0.02)\n\n\ndef grace_days(config):\n    return config.get(\"billing.grace_days\", 30)\n",
    ),
    (
        "billing/fees.py",
        "\"\"\"Fees charged on invoices.\"\"\"\nfrom billing.config import late_fee_rate, grace_days\n\n\ndef compute_late_fee(invoice, days_late, config):\n    if days_late <= grace_days(config):\n        return 0.0\n    fee = invoice.total * late_fee_rate(config)\n    return fee + fee\n\n\ndef compute_service_fee(invoice):\n    return round(invoice.total * 0.01, 2)\n",
    ),
    (
        "billing/invoice.py",
        "\"\"\"Invoices and their totals.\"\"\"\nfrom billing.fees import compute_late_fee, compute_service_fee\nfrom billing.tax import apply_tax\n\n\nclass Invoice:\n    def __init__(self, lines, days_late=0):\n        self.lines = lines\n        self.days_late = days_late\n\n    @property\n    def total(self):\n        return sum(line.amount for line in self.lines)\n\n    def amount_due(self, config):\n        due = apply_tax(self.total) + compute_service_fee(self)\n        return due + compute_late_fee(self, self.days_late, config)\n",
    ),
    (
        "billing/tax.py",
        "\"\"\"Value added tax.\"\"\"\n\nVAT_RATE = 0.2\n\n\ndef apply_tax(amount):\n    return amount * (1 + VAT_RATE)\n",
    ),
    (
        "billing/currency.py",
        "\"\"\"Currency conversion.\"\"\"\n\nRATES = {\"EUR\": 1.0, \"USD\": 1.1}\n\n\ndef convert(amount, source, target):\n    return amount / RATES[source] * RATES[target]\n",
    ),
    (
        "billing/discounts.py",
        "\"\"\"Discounts for loyal customers.\"\"\"\n\n\ndef loyalty_discount(invoice, years):\n    return invoice.total * min(years, 5) * 0.01\n",
    ),
    (
        "billing/ledger.py",
        "\"\"\"The ledger of posted invoices.\"\"\"\nfrom billing.invoice import Invoice\n\n\nclass Ledger:\n    def __init__(self):\n        self.entries = []\n\n    def post(self, invoice: Invoice, config):\n        self.entries.append(invoice.amount_due(config))\n",
    ),
    (
        "billing/reminders.py",
        "\"\"\"Payment reminders for overdue invoices.\"\"\"\nfrom billing.fees import compute_late_fee\nfrom billing.notifications.email import send_email\n\n\ndef remind_overdue(invoice, customer, config):\n    fee = compute_late_fee(invoice, invoice.days_late, config)\n    send_email(customer, f\"Your invoice is overdue; late fee {fee:.2f}\")\n",
    ),
    (
        "billing/util.py",
        "\"\"\"Small helpers.\"\"\"\n\n\ndef cents(amount):\n    return int(round(amount * 100))\n",
    ),
    ("billing/api/__init__.py", ""),
    (
        "billing/api/routes.py",
        "\"\"\"HTTP routes.\"\"\"\nfrom billing.invoice import Invoice\nfrom billing.api.serializers import invoice_to_json\n\n\ndef get_invoice(request, store):\n    invoice: Invoice = store.load(request.args[\"id\"])\n    return invoice_to_json(invoice)\n",
    ),
    (
        "billing/api/serializers.py",
        "\"\"\"JSON views of invoices.\"\"\"\nfrom billing.util import cents\n\n\ndef invoice_to_json(invoice):\n    return {\"total_cents\": cents(invoice.total)}\n",
    ),
    ("billing/reports/__init__.py", ""),
    (
        "billing/reports/monthly.py",
        "\"\"\"Monthly revenue report.\"\"\"\nfrom billing.ledger import Ledger\n\n\ndef monthly_revenue(ledger: Ledger):\n    return sum(ledger.entries)\n",
    ),
    (
        "billing/reports/export.py",
        "\"\"\"CSV export of reports.\"\"\"\nimport csv\n\n\ndef export_csv(rows, path):\n    with open(path, \"w\") as f:\n        csv.writer(f).writerows(rows)\n",
    ),
    ("billing/notifications/__init__.py", ""),
    (
        "billing/notifications/email.py",
        "\"\"\"Outgoing e-mail.\"\"\"\n\n\ndef send_email(customer, body):\n    print(customer, body)\n",
    ),
    (
        "billing/notifications/sms.py",
        "\"\"\"Outgoing text messages.\"\"\"\n\n\ndef send_sms(number, body):\n    print(number, body)\n",
    ),
    ("billing/storage/__init__.py", ""),
    (
        "billing/storage/db.py",
        "\"\"\"Invoice storage.\"\"\"\n\n\nclass InvoiceStore:\n    def __init__(self):\n        self.rows = {}\n\n    def load(self, key):\n        return self.rows[key]\n",
    ),
    (
        "billing/storage/cache.py",
        "\"\"\"A read-through cache.\"\"\"\nfrom billing.storage.db import InvoiceStore\n\n\nclass CachedStore(InvoiceStore):\n    pass\n",
    ),
    (
        "tests/test_fees.py",
        "from billing.fees import compute_late_fee, compute_service_fee\n\n\ndef test_no_fee_within_grace(invoice, config):\n    assert compute_late_fee(invoice, 3, config) == 0.0\n\n\ndef test_service_fee(invoice):\n    assert compute_service_fee(invoice) >= 0\n",
    ),
    (
        "tests/test_invoice.py",
        "from billing.invoice import Invoice\n\n\ndef test_empty_invoice_total():\n    assert Invoice([]).total == 0\n",
    ),
    (
        "tests/test_tax.py",
        "from billing.tax import apply_tax\n\n\ndef test_apply_tax():\n    assert apply_tax(100) == 120\n",
    ),
    (
        "tests/test_reminders.py",
        "from billing.reminders import remind_overdue\n\n\ndef test_remind_overdue(invoice, customer, config):\n    remind_overdue(invoice, customer, config)\n",
    ),
    (
        "tests/test_ledger.py",
        "from billing.ledger import Ledger\n\n\ndef test_new_ledger_is_empty():\n    assert Ledger().entries == []\n",
    ),
];

/// Ten edits: `compute_late_fee` moves out of `billing/fees.py` into the new
/// `billing/penalties/late_fee.py`, its importers follow, the configuration key is
/// renamed, `apply_tax` becomes `apply_vat` and the ledger stops importing invoices.
const EDITS: &[(&str, &str)] = &[
    (
        "billing/fees.py",
        "\"\"\"Fees charged on invoices (late fees moved to billing.penalties).\"\"\"\n\n\ndef compute_service_fee(invoice):\n    return round(invoice.total * 0.01, 2)\n",
    ),
    (
        "billing/invoice.py",
        "\"\"\"Invoices and their totals.\"\"\"\nfrom billing.fees import compute_service_fee\nfrom billing.penalties.late_fee import compute_late_fee\nfrom billing.tax import apply_vat\n\n\nclass Invoice:\n    def __init__(self, lines, days_late=0):\n        self.lines = lines\n        self.days_late = days_late\n\n    @property\n    def total(self):\n        return sum(line.amount for line in self.lines)\n\n    def amount_due(self, config):\n        due = apply_vat(self.total) + compute_service_fee(self)\n        return due + compute_late_fee(self, self.days_late, config)\n",
    ),
    (
        "billing/tax.py",
        "\"\"\"Value added tax.\"\"\"\n\nVAT_RATE = 0.21\n\n\ndef apply_vat(amount):\n    return amount * (1 + VAT_RATE)\n",
    ),
    (
        "billing/ledger.py",
        "\"\"\"The ledger of posted amounts.\"\"\"\nfrom billing.storage.db import InvoiceStore\n\n\nclass Ledger:\n    def __init__(self, store: InvoiceStore):\n        self.store = store\n        self.entries = []\n\n    def post(self, amount):\n        self.entries.append(amount)\n",
    ),
    (
        "billing/config.py",
        "\"\"\"Reads the billing configuration.\"\"\"\nimport yaml\n\n\ndef load(path=\"config/settings.yaml\"):\n    with open(path) as f:\n        return yaml.safe_load(f)\n\n\ndef penalty_rate(config):\n    return config.get(\"billing.penalty_rate\", 0.02)\n\n\ndef grace_days(config):\n    return config.get(\"billing.grace_days\", 30)\n",
    ),
    (
        "config/settings.yaml",
        "billing:\n  penalty_rate: 0.02\n  grace_days: 30\n  currency: EUR\n  vat_rate: 0.21\n",
    ),
    (
        "billing/api/routes.py",
        "\"\"\"HTTP routes.\"\"\"\nfrom billing.invoice import Invoice\nfrom billing.api.serializers import invoice_to_json\nfrom billing.storage.cache import CachedStore\n\n\ndef get_invoice(request, store: CachedStore):\n    invoice: Invoice = store.load(request.args[\"id\"])\n    return invoice_to_json(invoice)\n",
    ),
    (
        "billing/discounts.py",
        "\"\"\"Discounts for loyal customers and early payers.\"\"\"\n\n\ndef loyalty_discount(invoice, years):\n    return invoice.total * min(years, 5) * 0.01\n\n\ndef early_payment_discount(invoice):\n    return invoice.total * 0.02\n",
    ),
    (
        "tests/test_fees.py",
        "from billing.fees import compute_service_fee\n\n\ndef test_service_fee(invoice):\n    assert compute_service_fee(invoice) >= 0\n",
    ),
    (
        "tests/test_tax.py",
        "from billing.tax import apply_vat\n\n\ndef test_apply_vat():\n    assert apply_vat(100.0) == 121.0\n",
    ),
];

/// The new home of `compute_late_fee`.
const NEW_DEFINER: &str = "billing/penalties/late_fee.py";

/// Files added after the first query.
const ADDED: &[(&str, &str)] = &[
    ("billing/penalties/__init__.py", ""),
    (
        NEW_DEFINER,
        "\"\"\"Late fees for overdue invoices.\"\"\"\nfrom billing.config import penalty_rate, grace_days\n\n\ndef compute_late_fee(invoice, days_late, config):\n    if days_late <= grace_days(config):\n        return 0.0\n    return invoice.total * penalty_rate(config)\n",
    ),
    (
        "tests/test_late_fee.py",
        "from billing.penalties.late_fee import compute_late_fee\n\n\ndef test_no_fee_within_grace(invoice, config):\n    assert compute_late_fee(invoice, 3, config) == 0.0\n",
    ),
];

/// The file the first package returns that is deleted afterwards.
const DELETED_RETURNED: &str = "billing/reminders.py";

/// Files deleted after the first query.
const DELETED: &[&str] = &[
    DELETED_RETURNED,
    "tests/test_reminders.py",
    "billing/notifications/sms.py",
];

fn write(root: &Path, rel: &str, content: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, content).unwrap();
}

fn discover(session: &Session, task: &str, config: &DiscoverConfig) -> ContextPackage {
    session
        .discover(&Task::new(task).unwrap(), config)
        .expect("discover runs")
}

/// Every path the package names: files, anchors, ranking, relations, paths from
/// anchors, skipped and history entries.
fn mentioned_paths(package: &ContextPackage) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for f in &package.files {
        out.push(&f.path);
        out.push(&f.anchor_of_cluster);
        for hop in &f.path_from_anchor {
            out.extend([hop.from.as_str(), hop.to.as_str()]);
        }
    }
    out.extend(package.anchors.iter().map(|a| a.path.as_str()));
    out.extend(package.ranked_files.iter().map(|r| r.path.as_str()));
    for r in &package.relations {
        out.extend([r.from.as_str(), r.to.as_str()]);
    }
    out.extend(package.skipped.over_budget.iter().map(String::as_str));
    out.extend(package.skipped.filtered.iter().map(String::as_str));
    out
}

/// Asserts that what the package says of each file holds for the file on disk now:
/// its line count, its text or spans, and the definitions and imports its card lists.
fn assert_matches_disk(package: &ContextPackage, root: &Path) {
    for f in &package.files {
        let text = fs::read_to_string(root.join(&f.path))
            .unwrap_or_else(|e| panic!("{} is in the package but not readable: {e}", f.path));
        let card = f.view.card();
        assert_eq!(card.lines, text.lines().count(), "line count of {}", f.path);
        let lines: Vec<&str> = text.lines().collect();
        for definition in &card.definitions {
            // `L12 def f(x):` — the signature starts line 12 of the file as it is now.
            let (line, signature) = definition
                .strip_prefix('L')
                .and_then(|d| d.split_once(' '))
                .unwrap_or_else(|| panic!("unexpected card definition {definition:?}"));
            let line: usize = line.parse().unwrap();
            let first = signature.lines().next().unwrap_or_default().trim();
            assert!(
                line >= 1 && lines.get(line - 1).is_some_and(|l| l.contains(first)),
                "{} lists {definition:?}, but its line {line} is {:?}",
                f.path,
                lines.get(line.wrapping_sub(1))
            );
        }
        for import in &card.imports {
            assert!(
                text.contains(import.as_str()),
                "{} lists the import {import:?}, which the file no longer has",
                f.path
            );
        }
        match &f.view {
            FileView::FullText { text: shown, .. } => {
                assert_eq!(shown, &text, "stale text of {}", f.path)
            }
            FileView::Spans { spans, .. } => {
                for span in spans {
                    assert!(text.contains(&span.text), "stale span of {}", f.path);
                }
            }
            _ => {}
        }
    }
}

/// Writes the billing fixture, queries it cold, applies the edits, additions and
/// deletions, queries the same session again and checks the warm package against the
/// edited tree and against a fresh session, for each of `configs` (all run on the
/// same session, so whatever each leaves cached is revalidated by the others).
fn warm_query_matches_a_fresh_session(configs: &[DiscoverConfig], watch: bool) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (path, content) in BILLING {
        write(root, path, content);
    }
    let source = FsSource::builder(root).watch(watch).build().unwrap();
    let session = Session::new(source);
    let cold: Vec<ContextPackage> = configs
        .iter()
        .map(|c| discover(&session, LATE_FEE_TASK, c))
        .collect();
    let cold_anchors: Vec<&str> = cold[0].anchors.iter().map(|a| a.path.as_str()).collect();
    assert!(
        cold_anchors.contains(&"billing/fees.py"),
        "the file defining `compute_late_fee` is an anchor: {cold_anchors:?}"
    );
    assert!(
        cold[0].file_paths().contains(&DELETED_RETURNED),
        "{DELETED_RETURNED} is returned before its deletion: {:?}",
        cold[0].file_paths()
    );
    assert!(!mentioned_paths(&cold[0]).contains(&NEW_DEFINER));
    assert!(
        cold[0]
            .relations
            .iter()
            .any(|r| r.from == "billing/fees.py" && r.to == "billing/config.py"),
        "the fees' import of the configuration is a relation before the edit"
    );

    for (path, content) in EDITS {
        let before = fs::read_to_string(root.join(path)).unwrap();
        assert_ne!(
            before.len(),
            content.len(),
            "{path}: the edit changes the size"
        );
        write(root, path, content);
    }
    for (path, content) in ADDED {
        write(root, path, content);
    }
    for path in DELETED {
        fs::remove_file(root.join(path)).unwrap();
    }

    let fresh_session = Session::open(root).unwrap();
    for config in configs {
        let warm = discover(&session, LATE_FEE_TASK, config);
        for path in DELETED {
            assert!(
                !mentioned_paths(&warm).contains(path),
                "deleted {path} is still in the package"
            );
            assert!(
                !warm.to_markdown().contains(path),
                "deleted {path} in Markdown"
            );
        }
        let anchors: Vec<&str> = warm.anchors.iter().map(|a| a.path.as_str()).collect();
        assert!(
            anchors.contains(&NEW_DEFINER),
            "{NEW_DEFINER} now defines `compute_late_fee` and is an anchor: {anchors:?}"
        );
        let new_file = warm
            .files
            .iter()
            .find(|f| f.path == NEW_DEFINER)
            .unwrap_or_else(|| panic!("{NEW_DEFINER} missing from {:?}", warm.file_paths()));
        assert!(
            new_file
                .view
                .card()
                .definitions
                .iter()
                .any(|d| d.contains("compute_late_fee"))
        );
        if let Some(fees) = warm.files.iter().find(|f| f.path == "billing/fees.py") {
            assert!(
                fees.view
                    .card()
                    .definitions
                    .iter()
                    .all(|d| !d.contains("compute_late_fee")),
                "billing/fees.py no longer defines compute_late_fee: {:?}",
                fees.view.card().definitions
            );
        }
        // The moved imports: invoice.py now imports the new module; the fees no
        // longer import the configuration (the late fee took it along), and the ledger
        // no longer imports invoices.
        assert!(
            warm.relations.iter().any(|r| r.from == "billing/invoice.py"
                && r.to == NEW_DEFINER
                && r.relation == Relation::Imports),
            "invoice.py imports {NEW_DEFINER}"
        );
        assert!(
            !warm
                .relations
                .iter()
                .any(|r| r.from == "billing/fees.py" && r.to == "billing/config.py"),
            "billing/fees.py no longer imports billing/config.py"
        );
        assert!(
            !warm
                .relations
                .iter()
                .any(|r| r.from == "billing/ledger.py" && r.to == "billing/invoice.py"),
            "billing/ledger.py no longer imports billing/invoice.py"
        );
        assert_matches_disk(&warm, root);

        let fresh = discover(&fresh_session, LATE_FEE_TASK, config);
        assert_eq!(
            stable_json(&warm),
            stable_json(&fresh),
            "the warm package differs from a fresh session's (full_graph: {})",
            config.full_graph
        );
    }
}

#[test]
fn a_warm_query_after_edits_answers_as_a_fresh_session() {
    warm_query_matches_a_fresh_session(&[DiscoverConfig::default()], false);
}

/// The same, the tree watched: the warm query lists by the changes since the cold
/// one (on Linux).
#[test]
fn a_warm_watched_query_after_edits_answers_as_a_fresh_session() {
    warm_query_matches_a_fresh_session(&[DiscoverConfig::default()], true);
}

#[test]
fn a_warm_full_graph_query_after_edits_answers_as_a_fresh_session() {
    let full = DiscoverConfig {
        full_graph: true,
        ..DiscoverConfig::default()
    };
    // The neighbourhood query runs too, so both kinds of cached graph are revalidated.
    warm_query_matches_a_fresh_session(&[full, DiscoverConfig::default()], false);
}

#[test]
fn packages_are_identical_with_one_two_and_four_threads() {
    let run = |threads: usize, config: &DiscoverConfig| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let session = Session::open(fixture_path("locate_app")).unwrap();
            stable_json(&discover(&session, PRICING_TASK, config))
        })
    };
    let full = DiscoverConfig {
        full_graph: true,
        ..DiscoverConfig::default()
    };
    for config in [DiscoverConfig::default(), full] {
        let one = run(1, &config);
        assert!(
            one["files"].as_array().is_some_and(|files| files
                .iter()
                .any(|f| f["path"] == "inventory/pricing/currency.py")),
            "{one}"
        );
        assert_eq!(
            one,
            run(2, &config),
            "1 vs 2 threads (full_graph: {})",
            config.full_graph
        );
        assert_eq!(
            one,
            run(4, &config),
            "1 vs 4 threads (full_graph: {})",
            config.full_graph
        );
    }
}

/// Reads per path.
type Reads = std::sync::Arc<std::sync::Mutex<std::collections::BTreeMap<String, usize>>>;

/// A source in memory that counts the reads of each file.
struct CountingSource {
    inner: MemorySource,
    reads: Reads,
}

impl RepoSource for CountingSource {
    fn label(&self) -> String {
        self.inner.label()
    }
    fn list(&self) -> deepdiscovery_core::Result<Listing> {
        self.inner.list()
    }
    fn read(&self, path: &str) -> deepdiscovery_core::Result<Vec<u8>> {
        *self
            .reads
            .lock()
            .unwrap()
            .entry(path.to_string())
            .or_default() += 1;
        self.inner.read(path)
    }
}

/// A session over `files` in memory whose reads are counted in `reads`.
fn counting(files: &[(&str, &str)], reads: &Reads) -> Session {
    Session::new(CountingSource {
        inner: MemorySource::from_files(files.iter().copied()).unwrap(),
        reads: reads.clone(),
    })
}

fn take(reads: &Reads) -> std::collections::BTreeMap<String, usize> {
    std::mem::take(&mut *reads.lock().unwrap())
}

#[test]
fn a_repeated_query_reads_only_what_it_cannot_reuse() {
    let reads = Reads::default();
    let session = counting(BILLING, &reads);
    let config = DiscoverConfig::default();
    let first = discover(&session, LATE_FEE_TASK, &config);
    let cold = take(&reads);
    assert_eq!(
        cold.len(),
        BILLING.len(),
        "the first query reads every file: {cold:?}"
    );
    let second = discover(&session, LATE_FEE_TASK, &config);
    let warm = take(&reads);
    assert_eq!(stable_json(&first), stable_json(&second));
    // The lexical pass and the name search are not run again: only manifests and
    // the texts behind the package's cards and spans are read.
    assert!(
        warm.len() * 2 < BILLING.len(),
        "a repeated query re-reads {} of {} files: {warm:?}",
        warm.len(),
        BILLING.len()
    );
    assert!(warm.contains_key("billing/fees.py"), "{warm:?}");
    // Another task looks at every file again, and keeps its words in term tables
    // (from a session's second lexical pass on). Tables are by content: of files
    // with the same bytes, one read may serve all.
    discover(&session, PRICING_TASK, &config);
    let contents: std::collections::HashSet<&str> = BILLING.iter().map(|f| f.1).collect();
    let second = take(&reads).len();
    assert!(
        (contents.len()..=BILLING.len()).contains(&second),
        "{second} reads"
    );
    // A third task counts its words in those tables: the lexical pass reads no file
    // again, only the stages after it read some.
    let third = format!("{PRICING_TASK} after the last release");
    let with_tables = discover(&session, &third, &config);
    let third_reads = take(&reads);
    assert!(
        third_reads.len() * 2 < BILLING.len(),
        "a third task re-reads {} of {} files: {third_reads:?}",
        third_reads.len(),
        BILLING.len()
    );
    // Without term memory it reads every file again, and answers the same.
    let plain_reads = Reads::default();
    let plain = counting(BILLING, &plain_reads).with_term_memory(0);
    discover(&plain, LATE_FEE_TASK, &config);
    discover(&plain, PRICING_TASK, &config);
    take(&plain_reads);
    let without = discover(&plain, &third, &config);
    assert_eq!(take(&plain_reads).len(), BILLING.len());
    assert_eq!(stable_json(&with_tables), stable_json(&without));
}

#[test]
fn beyond_max_files_the_lexical_pass_reads_the_best_matching_paths_only() {
    let session = Session::open(fixture_path("locate_app")).unwrap();
    let listed = session.artifacts().unwrap().len();
    let mut config = DiscoverConfig::default();
    config.budget.max_files = 4;
    let package = discover(&session, PRICING_TASK, &config);
    assert_eq!(package.budget.files_read, 4);
    let note = package
        .notes
        .iter()
        .find(|n| n.contains("budget.max_files"))
        .unwrap_or_else(|| panic!("a note says what was skipped: {:?}", package.notes));
    assert!(
        note.contains(&format!("{} whose paths", listed - 4)),
        "{note}"
    );
    // The file the task names by its path is among those read, and still found.
    assert!(
        package
            .file_paths()
            .contains(&"inventory/pricing/currency.py"),
        "{:?}",
        package.file_paths()
    );
    // Under the limit nothing changes and no note is written.
    let mut config = DiscoverConfig::default();
    config.budget.max_files = listed;
    let package = discover(&session, PRICING_TASK, &config);
    assert_eq!(package.budget.files_read, listed);
    assert!(!package.notes.iter().any(|n| n.contains("max_files")));
}

#[test]
fn term_memory_of_any_size_gives_the_same_answers() {
    let config = DiscoverConfig::default();
    let tasks = [
        LATE_FEE_TASK.to_string(),
        PRICING_TASK.to_string(),
        format!("{PRICING_TASK} in the monthly report"),
        format!("{LATE_FEE_TASK} when the ledger is empty"),
        "sms reminders are sent twice".to_string(),
    ];
    let answers = |bytes: usize| -> Vec<serde_json::Value> {
        let session = Session::new(MemorySource::from_files(BILLING.iter().copied()).unwrap())
            .with_term_memory(bytes);
        tasks
            .iter()
            .map(|task| stable_json(&discover(&session, task, &config)))
            .collect()
    };
    let none = answers(0);
    // Full at once, full and emptied again by maintenance, and the default.
    for bytes in [2 << 10, 24 << 10, 256 << 20] {
        let with = answers(bytes);
        for (k, (a, b)) in none.iter().zip(&with).enumerate() {
            assert_eq!(a, b, "task {k} with {bytes} bytes of term memory");
        }
    }
}

/// Sets a file's modification time `ago` in the past (a file written just now is
/// within the racy window, and nothing read from it is kept).
fn age(root: &Path, rel: &str, ago: std::time::Duration) {
    let file = fs::File::options()
        .write(true)
        .open(root.join(rel))
        .unwrap();
    file.set_modified(std::time::SystemTime::now() - ago)
        .unwrap();
}

/// The frameworks of the environment a query of `session` infers.
fn frameworks(session: &Session, task: &str) -> Vec<String> {
    let location = session
        .locate(&Task::new(task).unwrap(), &LocateConfig::default())
        .expect("locate runs");
    (location.environment.frameworks.iter())
        .map(|f| f.name.clone())
        .collect()
}

const SHOP: &[(&str, &str)] = &[
    ("requirements.txt", "flask==2.0\n"),
    ("shop/views.py", "def index():\n    return 'hello'\n"),
    ("shop/orders.py", "class Order:\n    total = 0\n"),
];

#[test]
fn the_environment_is_inferred_once_per_listing() {
    let reads = Reads::default();
    let session = counting(SHOP, &reads);
    assert_eq!(frameworks(&session, "the index view greets"), ["flask"]);
    assert!(take(&reads).contains_key("requirements.txt"));
    // The second task's lexical pass reads every file once more, into term tables.
    assert_eq!(frameworks(&session, "order totals are wrong"), ["flask"]);
    take(&reads);
    // A third, the same listing: the manifest is not read again.
    assert_eq!(frameworks(&session, "the order view greets"), ["flask"]);
    let again = take(&reads);
    assert!(!again.contains_key("requirements.txt"), "{again:?}");
}

#[test]
fn an_edited_manifest_changes_the_next_querys_environment() {
    let hour = std::time::Duration::from_secs(3600);
    for watch in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (path, content) in SHOP {
            write(root, path, content);
            age(root, path, hour);
        }
        let source = FsSource::builder(root).watch(watch).build().unwrap();
        let session = Session::new(source);
        assert_eq!(frameworks(&session, "the index view greets"), ["flask"]);
        assert_eq!(frameworks(&session, "order totals are wrong"), ["flask"]);
        // Edited long enough ago that what is read of it may be kept.
        write(root, "requirements.txt", "django==4.2\nflask==2.0\n");
        age(root, "requirements.txt", hour / 2);
        assert_eq!(
            frameworks(&session, "order totals are wrong"),
            ["django", "flask"],
            "watched: {watch}"
        );
        // A new file in the listing: a module manifest of its own.
        write(root, "admin/requirements.txt", "fastapi\n");
        age(root, "admin/requirements.txt", hour / 2);
        assert_eq!(
            frameworks(&session, "order totals are wrong"),
            ["django", "fastapi", "flask"],
            "watched: {watch}"
        );
    }
}

/// Every artifact as a session lists it after reading every file (so that files
/// binary by content are rejected), with its language, role and size; and the skips.
fn read_listing(session: &Session) -> (Vec<String>, deepdiscovery_core::source::SkipStats) {
    let paths: Vec<String> = (session.artifacts().unwrap().into_iter())
        .map(|a| a.path)
        .collect();
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    session.facts_for(&paths).unwrap();
    let listed = (session.artifacts().unwrap().into_iter())
        .map(|a| format!("{} {:?} {:?} {}", a.path, a.language, a.role, a.size))
        .collect();
    (listed, session.stats().skipped)
}

/// A watched session takes its listing as the changes since the last one: after
/// edits, new and deleted files, a switch of the grammar of `.h` headers (C sources
/// come to outnumber C++ ones, then no longer) and a file found binary on reading,
/// it lists and answers as a fresh session on the same tree.
#[test]
fn a_watched_session_lists_by_changes_as_a_fresh_session_does() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let files = [
        (
            "src/main.cpp",
            "#include \"util.h\"\nint main() { return parse_header(); }\n",
        ),
        ("src/util.h", "int parse_header();\n"),
        ("src/util.cpp", "int parse_header() { return 0; }\n"),
        ("app/views.py", "def index():\n    return parse()\n"),
        ("app/parse.py", "def parse():\n    return 1\n"),
    ];
    for (path, content) in files {
        write(root, path, content);
    }
    let source = FsSource::builder(root).watch(true).build().unwrap();
    let watched = Session::new(source);
    let task = "parse_header in util.h returns the wrong value";
    let config = DiscoverConfig::default();
    let check = |step: &str| {
        let fresh = Session::open(root).unwrap();
        assert_eq!(read_listing(&watched), read_listing(&fresh), "after {step}");
        assert_eq!(
            stable_json(&discover(&watched, task, &config)),
            stable_json(&discover(&fresh, task, &config)),
            "package after {step}"
        );
    };
    check("the first listing");
    write(
        root,
        "app/views.py",
        "def index():\n    return parse() + 1\n",
    );
    check("an edit");
    for name in ["a", "b", "c"] {
        write(
            root,
            &format!("src/{name}.c"),
            "int helper(void) { return 1; }\n",
        );
    }
    check("C sources outnumbering C++ ones");
    write(root, "app/blob.py", "x = 1\0\0\0\n");
    check("a file binary by content");
    write(root, "app/blob.py", "x = 2\n");
    check("that file text again");
    for name in ["a", "b"] {
        fs::remove_file(root.join(format!("src/{name}.c"))).unwrap();
    }
    check("C sources deleted");
    fs::remove_file(root.join("app/parse.py")).unwrap();
    check("a deletion");
}
