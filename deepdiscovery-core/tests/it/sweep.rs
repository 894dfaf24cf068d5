//! Sweeps of a shared contract (issue 33, item 2): the learned completion's candidates
//! include the implementations of the context's contracts, each with the ties that say so.

use std::fs;

use deepdiscovery_core::infer::COMPLETION_FEATURES;
use deepdiscovery_core::{DiscoverConfig, Session, Task};

/// A contract with many implementations (more than the expansion takes), a signature
/// the task names, and modules that share the task's words but no contract.
fn exporters() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let full = dir.path().join(path);
        fs::create_dir_all(full.parent().unwrap()).unwrap();
        fs::write(full, text).unwrap();
    };
    write("reports/__init__.py", "");
    write(
        "reports/base.py",
        "from abc import ABC, abstractmethod\n\n\nclass RowExporter(ABC):\n    \"\"\"Writes report rows to a file format.\"\"\"\n\n    @abstractmethod\n    def export_rows(self, rows, out):\n        \"\"\"Write the rows to out.\"\"\"\n",
    );
    write("reports/formats/__init__.py", "");
    for name in [
        "csv", "tsv", "json", "xml", "yaml", "html", "markdown", "latex", "excel", "parquet",
        "avro", "orc", "toml", "ini", "sqlite", "text",
    ] {
        let class = format!("{}{}", name[..1].to_uppercase(), &name[1..]);
        write(
            &format!("reports/formats/{name}_format.py"),
            &format!(
                "from reports.base import RowExporter\n\n\nclass {class}Exporter(RowExporter):\n    def export_rows(self, rows, out):\n        for row in rows:\n            out.write(str(row))\n"
            ),
        );
    }
    for k in 0..6 {
        write(
            &format!("billing/statement_{k}.py"),
            &format!(
                "def statement_rows_{k}(rows):\n    \"\"\"Rows of a billing statement with a delimiter.\"\"\"\n    return list(rows)\n"
            ),
        );
    }
    dir
}

#[test]
fn the_completion_weighs_the_implementations_of_a_changed_contract() {
    let dir = exporters();
    let session = Session::open(dir.path()).unwrap();
    let task = Task::new(
        "RowExporter.export_rows() should take a delimiter argument, and every exporter must \
         honour it when it writes rows to the report file.",
    )
    .unwrap();
    let (package, rows) = session
        .discover_traced(&task, &DiscoverConfig::default())
        .unwrap();
    let column = |name: &str| COMPLETION_FEATURES.iter().position(|n| *n == name).unwrap();
    let (implements, sibling, shared) = (
        column("implements_context"),
        column("sibling_impl"),
        column("shared_symbol"),
    );
    let in_package: Vec<&str> = package.files.iter().map(|f| f.path.as_str()).collect();
    let swept: Vec<&(String, Vec<f32>)> = rows
        .rows
        .iter()
        .filter(|(p, _)| p.starts_with("reports/formats/") && p.ends_with("_format.py"))
        .collect();
    // Some implementations are left for the completion, and each is seen as one.
    assert!(
        !swept.is_empty(),
        "package {in_package:?}, rows {:?}",
        rows.rows
    );
    for (path, row) in &swept {
        assert!(
            row[implements] > 0.0 || row[sibling] > 0.0,
            "{path} implements the context's contract: {row:?}"
        );
        assert_eq!(row[shared], 1.0, "{path} defines the named export_rows");
    }
    // Every implementation is the package's or a candidate: the sweep missed none.
    for name in ["csv", "parquet", "text", "orc"] {
        let path = format!("reports/formats/{name}_format.py");
        assert!(
            in_package.contains(&path.as_str()) || swept.iter().any(|(p, _)| *p == path),
            "{path}: package {in_package:?}"
        );
    }
    // A module that only shares words has no contract tie.
    for (path, row) in rows.rows.iter().filter(|(p, _)| p.starts_with("billing/")) {
        assert_eq!(
            (row[implements], row[sibling], row[shared]),
            (0.0, 0.0, 0.0),
            "{path}"
        );
    }
}
