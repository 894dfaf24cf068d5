//! The synthetic multi-language repository of the speed and scale benchmarks,
//! generated once per size under `target/bench-repos/`: several subprojects in
//! Python, Java, TypeScript, Go and C (about 100 lines per file), with real imports
//! between modules, class hierarchies, calls by rare and common names, and YAML,
//! JSON and properties configuration. Deterministic: the same repository on every
//! machine.

#![allow(dead_code)] // each bench uses its own part

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A small deterministic generator (64-bit LCG), so the repository is the same on
/// every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Target length of a generated code file: with configuration files and headers
/// being short, this gives about 100 lines per file on average.
const LINES: usize = 112;
/// Bump when the generator changes, so that a cached repository is regenerated.
const GENERATOR_VERSION: u32 = 2;

const COMMON: &[&str] = &["get", "run", "process", "update", "load", "save", "handle"];
const WORDS: &[&str] = &[
    "order", "payment", "invoice", "customer", "ledger", "shipment", "catalog", "pricing",
    "refund", "account", "session", "report", "audit", "quota", "tenant", "webhook",
];

struct Layout {
    files: usize,
}

impl Layout {
    /// (language, share in percent).
    const MIX: [(&'static str, usize); 6] = [
        ("py", 30),
        ("java", 20),
        ("ts", 15),
        ("go", 15),
        ("c", 10),
        ("cfg", 10),
    ];

    fn count(&self, lang: &str) -> usize {
        let share = Self::MIX.iter().find(|m| m.0 == lang).map_or(0, |m| m.1);
        self.files * share / 100
    }
}

fn word(rng: &mut Rng) -> &'static str {
    WORDS[rng.below(WORDS.len())]
}

/// Pads a file with realistic function bodies up to about `lines` lines.
fn body(
    out: &mut String,
    rng: &mut Rng,
    lines: usize,
    comment: &str,
    call: &dyn Fn(&mut Rng) -> String,
) {
    while out.lines().count() < lines {
        let _ = writeln!(
            out,
            "{comment} step {} of the {} flow",
            rng.below(1000),
            word(rng)
        );
        out.push_str(&call(rng));
    }
}

fn generate(root: &Path, layout: &Layout) -> std::io::Result<()> {
    let mut rng = Rng(42);
    let write = |rel: String, text: String| -> std::io::Result<()> {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap_or(root))?;
        fs::write(path, text)
    };
    // Python: packages of 40 modules, each importing two others and calling a rare name.
    let py = layout.count("py");
    for i in 0..py {
        let (pkg, module) = (i / 40, i % 40);
        if module == 0 {
            write(format!("services/py/pkg{pkg}/__init__.py"), String::new())?;
        }
        let mut t = format!("\"\"\"Module {i}: {} handling.\"\"\"\n", word(&mut rng));
        let a = rng.below(py);
        let b = rng.below(py);
        let _ = writeln!(t, "from pkg{}.mod{} import rare_fn_{a}", a / 40, a);
        let _ = writeln!(t, "from pkg{}.mod{} import Base{b}", b / 40, b);
        let _ = writeln!(
            t,
            "import os\n\n\nclass Base{i}:\n    pass\n\n\nclass Impl{i}(Base{b}):"
        );
        let _ = writeln!(
            t,
            "    def {}(self, x):\n        return rare_fn_{a}(x)\n",
            COMMON[rng.below(COMMON.len())]
        );
        let _ = writeln!(
            t,
            "def rare_fn_{i}(x):\n    return os.path.join(x, '{}')\n",
            word(&mut rng)
        );
        let n = py;
        body(&mut t, &mut rng, LINES, "#", &move |r: &mut Rng| {
            format!(
                "def helper_{}_{}(x):\n    return rare_fn_{}(x).{}()\n\n",
                r.below(99999),
                r.below(9),
                r.below(n),
                COMMON[r.below(COMMON.len())]
            )
        });
        write(format!("services/py/pkg{pkg}/mod{i}.py"), t)?;
    }
    // Java: packages of 30 classes, extending and calling each other.
    let java = layout.count("java");
    for i in 0..java {
        let pkg = i / 30;
        let b = rng.below(java);
        let mut t = format!(
            "package com.acme.p{pkg};\n\nimport com.acme.p{}.Svc{b};\nimport java.util.List;\n\n",
            b / 30
        );
        let _ = writeln!(
            t,
            "/** Service {i} for {}. */\npublic class Svc{i} extends Svc{b} {{",
            word(&mut rng)
        );
        let n = java;
        body(
            &mut t,
            &mut rng,
            LINES - 1,
            "    //",
            &move |r: &mut Rng| {
                format!(
                    "    public int m{}(List<String> xs) {{ return new Svc{}().rareJava{}(xs.size()); }}\n",
                    r.below(99999),
                    r.below(n),
                    r.below(n)
                )
            },
        );
        let _ = writeln!(t, "    public int rareJava{i}(int x) {{ return x; }}\n}}");
        write(
            format!("services/java/src/main/java/com/acme/p{pkg}/Svc{i}.java"),
            t,
        )?;
    }
    // TypeScript: relative imports between sibling feature folders.
    let ts = layout.count("ts");
    for i in 0..ts {
        let dir = i / 25;
        let a = rng.below(ts);
        let mut t = format!(
            "// Feature {i}: {} view.\nimport {{ feature{a} }} from \"../f{}/feature{a}\";\n\n",
            word(&mut rng),
            a / 25
        );
        let _ = writeln!(
            t,
            "export class Widget{i} {{\n  render(): number {{ return feature{a}(1); }}\n}}\n"
        );
        let _ = writeln!(
            t,
            "export function feature{i}(x: number): number {{ return x + {i}; }}\n"
        );
        body(&mut t, &mut rng, LINES, "//", &|r: &mut Rng| {
            format!(
                "export const c{} = (x: number) => Math.max(x, {});\n",
                r.below(99999),
                r.below(100)
            )
        });
        write(format!("web/src/f{dir}/feature{i}.ts"), t)?;
    }
    // Go: one module, packages of 20 files.
    let go = layout.count("go");
    write(
        "services/go/go.mod".into(),
        "module example.com/platform\n\ngo 1.22\n".into(),
    )?;
    for i in 0..go {
        let pkg = i / 20;
        let a = rng.below(go);
        let mut t = format!(
            "// Package p{pkg} handles {}.\npackage p{pkg}\n\nimport (\n\t\"fmt\"\n\t\"example.com/platform/p{}\"\n)\n\n",
            word(&mut rng),
            a / 20
        );
        let _ = writeln!(
            t,
            "func RareGo{i}(x int) int {{ return p{}.RareGo{a}(x) + 1 }}\n",
            a / 20
        );
        body(&mut t, &mut rng, LINES, "//", &|r: &mut Rng| {
            format!(
                "func helper{}(x int) string {{ return fmt.Sprint(x, {}) }}\n",
                r.below(999999),
                r.below(100)
            )
        });
        write(format!("services/go/p{pkg}/file{i}.go"), t)?;
    }
    // C: headers and sources in pairs.
    let c = layout.count("c") / 2;
    for i in 0..c {
        let a = rng.below(c);
        write(
            format!("native/include/unit{i}.h"),
            format!(
                "/* Unit {i}. */\n#ifndef UNIT{i}_H\n#define UNIT{i}_H\nint rare_c_{i}(int x);\n#endif\n"
            ),
        )?;
        let mut t = format!(
            "#include \"unit{i}.h\"\n#include \"unit{a}.h\"\n#include <stdio.h>\n\nint rare_c_{i}(int x) {{ return rare_c_{a}(x) + 1; }}\n"
        );
        body(&mut t, &mut rng, LINES, "//", &|r: &mut Rng| {
            format!(
                "static int helper_{}(int x) {{ return x * {}; }}\n",
                r.below(999999),
                r.below(100)
            )
        });
        write(format!("native/src/unit{i}.c"), t)?;
    }
    // Configuration.
    let cfg = layout.count("cfg");
    for i in 0..cfg {
        let text = match i % 3 {
            0 => format!(
                "service:\n  name: svc{i}\n  handler: pkg{}.mod{}.Impl{}\n  timeout: {}\n",
                i % 40,
                i,
                i,
                rng.below(100)
            ),
            1 => format!(
                "{{\"name\": \"feature{i}\", \"entry\": \"web/src/f0/feature0.ts\", \"level\": {}}}\n",
                rng.below(10)
            ),
            _ => format!(
                "app.svc{i}.url=${{BASE_URL}}/svc{i}\napp.svc{i}.class=com.acme.p0.Svc{}\n",
                rng.below(30)
            ),
        };
        let ext = ["yml", "json", "properties"][i % 3];
        write(format!("config/env{}/svc{i}.{ext}", i / 100), text)?;
    }
    Ok(())
}

/// Peak resident set size of this process (VmHWM), in MiB.
pub fn peak_rss_mib() -> Option<f64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// Where the repository of `files` files lives (generated or not).
pub fn repo_for(files: usize) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target
        .join("bench-repos")
        .join(format!("synthetic-v{GENERATOR_VERSION}-{files}"))
}

/// The repository of about `files` files, generated on first use.
pub fn ensure(files: usize) -> PathBuf {
    let root = repo_for(files);
    if !root.join(".complete").exists() {
        let _ = fs::remove_dir_all(&root);
        let start = Instant::now();
        generate(&root, &Layout { files }).expect("generate repository");
        fs::write(root.join(".complete"), "").expect("mark complete");
        eprintln!(
            "generated {} in {:.1} s",
            root.display(),
            start.elapsed().as_secs_f64()
        );
    }
    root
}

/// A task on the generated repository of `files` files: it names a rare function of
/// one Python module and the flow it belongs to, as an issue would.
pub fn task(files: usize) -> String {
    let i = Layout { files }.count("py") / 2;
    format!(
        "rare_fn_{i} returns a wrong path: the join in module {i} drops the base directory, \
         and Impl{i} passes it on to the callers"
    )
}

/// Edits 10 files (one line toggled) and adds or deletes 10 others: the workload of
/// an agent between two turns.
pub fn edit(root: &Path, round: &mut usize) {
    edit_only(root, round);
    add_or_delete(root, *round);
}

/// Edits 10 files (one line toggled), spread over the repository: the workload of
/// issue 23's warm target.
pub fn edit_only(root: &Path, round: &mut usize) {
    *round += 1;
    let session = deepdiscovery_core::Session::open(root).expect("open");
    let sources: Vec<String> = session
        .artifacts()
        .expect("list")
        .into_iter()
        .filter(|a| a.path.ends_with(".py") && !a.path.starts_with("bench_edits/"))
        .map(|a| a.path)
        .collect();
    let step = (sources.len() / 10).max(1);
    for path in sources.iter().step_by(step).take(10) {
        let full = root.join(path);
        let text = fs::read_to_string(&full).unwrap_or_default();
        let text = match text.strip_suffix("# edited\n") {
            Some(original) => original.to_string(),
            None => format!("{text}# edited\n"),
        };
        fs::write(&full, text).expect("edit");
    }
}

/// Adds 10 files under `bench_edits/`, or deletes them when they are there.
fn add_or_delete(root: &Path, round: usize) {
    let dir = root.join("bench_edits");
    fs::create_dir_all(&dir).expect("mkdir");
    for k in 0..10 {
        let file = dir.join(format!("added{k}.py"));
        if file.exists() {
            fs::remove_file(&file).expect("delete");
        } else {
            let text = format!("def added_{k}_{round}(x):\n    return x\n");
            fs::write(&file, text).expect("add");
        }
    }
}
