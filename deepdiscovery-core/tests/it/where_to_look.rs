//! Where to look inside the files (issue 48): the ranked definitions of a Location and
//! of a package, each piece of definition-level evidence on a repository written for
//! it.

use deepdiscovery_core::locate::{LocateConfig, Location, RankedDefinition, definition_names};
use deepdiscovery_core::{DiscoverConfig, MemorySource, Session, Task};

use crate::support::fixture_path;

fn locate_fixture(task: &str) -> Location {
    let session = Session::open(fixture_path("locate_app")).unwrap();
    session
        .locate(&Task::new(task).unwrap(), &LocateConfig::default())
        .unwrap()
}

fn locate_in(files: &[(&str, &str)], task: &str) -> Location {
    let session = Session::new(MemorySource::from_files(files.iter().copied()).unwrap());
    session
        .locate(&Task::new(task).unwrap(), &LocateConfig::default())
        .unwrap()
}

/// The 1-based rank of `path`'s definition `name`, and the entry.
fn find<'l>(location: &'l Location, path: &str, name: &str) -> (usize, &'l RankedDefinition) {
    let listed: Vec<String> = location
        .definitions
        .iter()
        .map(|d| format!("{}:{}", d.path, d.name))
        .collect();
    let k = location
        .definitions
        .iter()
        .position(|d| d.path == path && d.name == name)
        .unwrap_or_else(|| panic!("{path}:{name} is not listed: {listed:?}"));
    (k + 1, &location.definitions[k])
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
fn a_trace_line_points_at_the_definition_holding_it() {
    let location = locate_fixture(TRACE);
    let (rank, first) = find(
        &location,
        "inventory/pricing/currency.py",
        "convert_currency",
    );
    assert_eq!(rank, 1, "{:?}", location.definitions);
    assert!(
        first
            .why
            .iter()
            .any(|w| w == "named in the trace at line 12"),
        "{:?}",
        first.why
    );
    assert!(first.span.start <= 12 && 12 <= first.span.end);
    // The outer frames' functions follow.
    let (rank, _) = find(
        &location,
        "inventory/pricing/discounts.py",
        "discounted_price",
    );
    assert!(rank <= 4, "{:?}", location.definitions);
}

#[test]
fn a_named_method_is_listed_by_its_class() {
    let location = locate_fixture("`rebalance_shelves` moves the same items twice");
    let (rank, d) = find(
        &location,
        "inventory/warehouse.py",
        "Warehouse.rebalance_shelves",
    );
    assert_eq!(rank, 1, "{:?}", location.definitions);
    assert!(
        d.why
            .iter()
            .any(|w| w == "the task names `rebalance_shelves`"),
        "{:?}",
        d.why
    );
}

const LEDGER: &str = "\"\"\"The ledger of an account.\"\"\"


class Ledger:
    def __init__(self):
        self.entries = []

    def append_entry(self, amount):
        self.entries.append(amount)

    def rounding_total(self):
        \"\"\"Sum the entries, rounding each amount to whole cents first.\"\"\"
        return sum(round(e, 2) for e in self.entries)

    def export_rows(self):
        return [str(e) for e in self.entries]


def report(ledger):
    return ledger.rounding_total()
";

#[test]
fn the_method_whose_words_match_comes_first_among_its_files_definitions() {
    let location = locate_in(
        &[
            ("ledger/book.py", LEDGER),
            ("ledger/__init__.py", ""),
            ("README.md", "A ledger."),
        ],
        "The total is wrong: amounts are rounded to cents before they are summed",
    );
    let (rank, d) = find(&location, "ledger/book.py", "Ledger.rounding_total");
    assert_eq!(rank, 1, "{:?}", location.definitions);
    assert!(
        d.why
            .iter()
            .any(|w| w.starts_with("its text matches the task")),
        "{:?}",
        d.why
    );
    // Every other definition of the file is listed below it, the scores non-increasing.
    assert!(
        location
            .definitions
            .windows(2)
            .all(|w| w[0].score >= w[1].score)
    );
    let (_, export) = find(&location, "ledger/book.py", "Ledger.export_rows");
    assert!(export.score < d.score);
}

#[test]
fn a_body_that_calls_a_named_function_says_so() {
    let location = locate_in(
        &[("ledger/book.py", LEDGER), ("ledger/__init__.py", "")],
        "`rounding_total` gives a wrong sum for a report",
    );
    let (_, d) = find(&location, "ledger/book.py", "report");
    assert!(
        d.why
            .iter()
            .any(|w| w == "its body calls `rounding_total`, which the task names"),
        "{:?}",
        d.why
    );
    let (rank, _) = find(&location, "ledger/book.py", "Ledger.rounding_total");
    assert_eq!(rank, 1, "{:?}", location.definitions);
}

#[test]
fn names_nest_by_enclosing_definition_and_a_go_method_by_its_receiver() {
    let go = "package server\n\ntype Server struct {\n\taddr string\n}\n\n// Serve accepts connections until the listener closes.\nfunc (s *Server) Serve(l Listener) error {\n\treturn nil\n}\n\nfunc NewServer(addr string) *Server {\n\treturn &Server{addr: addr}\n}\n";
    let py = "def outer():\n    def inner():\n        return 1\n    return inner()\n\n\nclass A:\n    class B:\n        def m(self):\n            pass\n";
    let facts = deepdiscovery_core::facts::extract(
        deepdiscovery_core::artifact::Language::Go,
        "server/server.go",
        go,
    );
    let names = definition_names(&facts);
    assert!(names.contains(&"Server.Serve".to_string()), "{names:?}");
    assert!(names.contains(&"NewServer".to_string()), "{names:?}");
    let facts = deepdiscovery_core::facts::extract(
        deepdiscovery_core::artifact::Language::Python,
        "a.py",
        py,
    );
    let names = definition_names(&facts);
    for want in ["outer", "outer.inner", "A", "A.B", "A.B.m"] {
        assert!(names.contains(&want.to_string()), "{want}: {names:?}");
    }
    // The location lists the Go method by its receiver's name too.
    let location = locate_in(
        &[
            ("server/server.go", go),
            ("go.mod", "module example.com/server\n"),
        ],
        "Serve should stop accepting connections when the listener closes",
    );
    find(&location, "server/server.go", "Server.Serve");
}

#[test]
fn the_package_lists_them_first_in_json_and_markdown() {
    let session = Session::open(fixture_path("locate_app")).unwrap();
    let package = session
        .discover(&Task::new(TRACE).unwrap(), &DiscoverConfig::default())
        .unwrap();
    assert_eq!(package.definitions[0].name, "convert_currency");
    let json: serde_json::Value = serde_json::from_str(&package.to_json()).unwrap();
    let first = &json["definitions"][0];
    assert_eq!(first["path"], "inventory/pricing/currency.py");
    assert_eq!(first["kind"], "function");
    assert!(first["span"]["start"].as_u64().unwrap() <= 12);
    assert!(first["why"][0].as_str().unwrap().contains("trace"));
    let markdown = package.to_markdown();
    let look = markdown
        .find("## Where to look")
        .expect("a Where to look section");
    let files = markdown.find("## Files").unwrap();
    assert!(look < files);
    assert!(markdown[look..files].contains("`convert_currency`"));
}

#[test]
fn the_list_is_bounded_and_the_same_every_time() {
    let a = locate_fixture("stock items and prices are wrong after a warehouse export");
    let b = locate_fixture("stock items and prices are wrong after a warehouse export");
    assert_eq!(a.definitions, b.definitions);
    assert!(a.definitions.len() <= 20);
    assert!(a.definitions.iter().all(|d| (0.0..=1.0).contains(&d.score)));
    // A task with nothing to rank lists nothing.
    let empty = locate_in(&[("notes.txt", "nothing here")], "something unrelated");
    assert!(empty.definitions.is_empty());
}
