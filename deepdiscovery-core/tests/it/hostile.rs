//! Hostile input: structures nested tens of thousands of levels deep in every format
//! and language a reader takes, pathological syntax, and a repository built to hurt
//! (links out and in loops, special files, invalid UTF-8, huge and malformed ignore
//! files, a corrupt git directory). Every reader must finish with bounded work and
//! without recursion on input-controlled depth: the extraction runs on threads with
//! a deliberately small stack, so a recursive walk would overflow here, not at a user.

use std::path::Path;

use deepdiscovery_core::facts::{self, CODE_LANGUAGES, Facts, KeyKind, MAX_NESTING};
use deepdiscovery_core::source::SkipReason;
use deepdiscovery_core::{DiscoverConfig, Language, Session, Task};

/// Depth of the generated nestings: far beyond any limit, well under the 1 MiB cap.
const DEPTH: usize = 40_000;
/// Stack of the threads the readers run on: half of what rayon's workers get by
/// default (2 MiB). Bounded recursion (serde_json's 128 levels, toml's 80) fits in
/// it even unoptimized; recursion as deep as the input does not.
const SMALL_STACK: usize = 1024 * 1024;

/// Runs `extract` on a thread with [`SMALL_STACK`] and returns its facts.
fn extract_small_stack(language: Language, path: &str, text: String) -> Facts {
    let path = path.to_string();
    std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(move || facts::extract(language, &path, &text))
        .expect("thread starts")
        .join()
        .expect("extraction does not panic")
}

/// A document nesting [`DEPTH`] levels deep, with a shallow key before the nesting
/// that must survive it.
fn deep_config(language: Language) -> (&'static str, String) {
    let n = DEPTH;
    match language {
        Language::Json => (
            "deep.json",
            format!(
                "{{\"name\": \"app.Main\", \"deep\": {}1{}}}",
                "[".repeat(n),
                "]".repeat(n)
            ),
        ),
        Language::Yaml => (
            "deep.yaml",
            format!(
                "name: app.Main\ndeep: {}1{}\n",
                "[".repeat(n),
                "]".repeat(n)
            ),
        ),
        Language::Toml => (
            "deep.toml",
            format!(
                "name = \"app.Main\"\ndeep = {}1{}\n",
                "[".repeat(n),
                "]".repeat(n)
            ),
        ),
        Language::Xml => (
            "deep.xml",
            format!(
                "<root><name>app.Main</name>{}{}</root>",
                "<a>".repeat(n),
                "</a>".repeat(n)
            ),
        ),
        Language::Properties => (
            "deep.properties",
            format!("name=app.Main\n{}\n", "a\\\n".repeat(n)),
        ),
        Language::Ini => (
            "deep.ini",
            format!("[s]\nname = app.Main\n{}\n", " x\n".repeat(n)),
        ),
        Language::Env => ("deep.env", format!("NAME=app.Main\n{}\n", "=".repeat(n))),
        other => panic!("no deep document for {other:?}"),
    }
}

#[test]
fn config_nested_beyond_any_limit_is_read_without_recursion() {
    for language in [
        Language::Json,
        Language::Yaml,
        Language::Toml,
        Language::Xml,
        Language::Properties,
        Language::Ini,
        Language::Env,
    ] {
        let (path, text) = deep_config(language);
        assert!(text.len() < 1024 * 1024, "{path} stays under the size cap");
        let facts = extract_small_stack(language, path, text);
        // Either the reader refused the nesting (a parse problem, as serde_json's own
        // limit does) or it walked what lies within MAX_NESTING and says so.
        let refused = !facts.problems.is_empty();
        let keys: Vec<&str> = facts
            .string_keys
            .iter()
            .filter(|k| k.kind == KeyKind::ConfigKey)
            .map(|k| k.text.as_str())
            .collect();
        assert!(
            refused
                || facts.limited.is_some()
                || matches!(
                    language,
                    Language::Properties | Language::Ini | Language::Env
                ),
            "{path}: neither refused nor limited: {keys:?}"
        );
        if !refused && matches!(language, Language::Yaml | Language::Xml | Language::Toml) {
            let shallow = if language == Language::Xml {
                "root.name"
            } else {
                "name"
            };
            assert!(
                keys.contains(&shallow),
                "{path}: the shallow key survives: {keys:?}"
            );
        }
    }
}

#[test]
fn config_within_the_nesting_limit_is_read_whole() {
    let n = MAX_NESTING - 2;
    let text = format!("{}<leaf>x.y.Z</leaf>{}", "<a>".repeat(n), "</a>".repeat(n));
    let facts = extract_small_stack(Language::Xml, "ok.xml", text);
    assert_eq!(facts.limited, None);
    assert!(
        facts
            .string_keys
            .iter()
            .any(|k| k.kind == KeyKind::DottedPath && k.text == "x.y.Z"),
        "{:?}",
        facts.string_keys
    );
}

#[test]
fn alias_and_entity_bombs_are_not_expanded() {
    let mut yaml = String::from("a: &a [x, x, x, x, x, x, x, x, x]\n");
    for i in 0..9u8 {
        let (name, prev) = ((b'b' + i) as char, (b'a' + i) as char);
        yaml.push_str(&format!(
            "{name}: &{name} [{}]\n",
            vec![format!("*{prev}"); 9].join(", ")
        ));
    }
    let facts = extract_small_stack(Language::Yaml, "bomb.yaml", yaml);
    assert!(facts.string_keys.len() < 100, "{}", facts.string_keys.len());

    let mut xml = String::from("<?xml version=\"1.0\"?><!DOCTYPE l [<!ENTITY a \"aaaaaaaaaa\">");
    for i in 0..9u8 {
        let (name, prev) = ((b'b' + i) as char, (b'a' + i) as char);
        xml.push_str(&format!(
            "<!ENTITY {name} \"{}\">",
            format!("&{prev};").repeat(10)
        ));
    }
    xml.push_str("]><l>&j;</l>");
    let facts = extract_small_stack(Language::Xml, "bomb.xml", xml);
    let total: usize = facts.string_keys.iter().map(|k| k.text.len()).sum();
    assert!(total < 1_000_000, "entity expansion kept {total} bytes");
}

/// Source nesting [`DEPTH`] brackets deep in each code language.
fn deep_code(language: Language) -> String {
    let (open, close) = ("(".repeat(DEPTH), ")".repeat(DEPTH));
    let (list_open, list_close) = ("[".repeat(DEPTH), "]".repeat(DEPTH));
    let (block_open, block_close) = ("{".repeat(DEPTH), "}".repeat(DEPTH));
    match language {
        Language::Python => format!("def shallow():\n    pass\n\nx = {list_open}{list_close}\n"),
        Language::JavaScript | Language::TypeScript | Language::Tsx => {
            format!(
                "function shallow() {{}}\nlet x = {list_open}{list_close};\nf{}{close};\n",
                "f(".repeat(DEPTH)
            )
        }
        Language::Go => {
            format!("package a\nfunc shallow() {{}}\nfunc f() {{ x := {open}1{close} }}\n")
        }
        Language::Rust => format!(
            "fn shallow() {{}}\nuse a::{}c{};\nfn f() {{ {block_open}{block_close} }}\n",
            "{b::".repeat(DEPTH),
            "}".repeat(DEPTH)
        ),
        Language::C | Language::Cpp => {
            format!("void shallow(void) {{}}\nint x = {open}1{close};\n")
        }
        Language::Java => format!("class Shallow {{ int x = {open}1{close}; }}\n"),
        Language::Kotlin => format!("fun shallow() {{}}\nval x = {open}1{close}\n"),
        Language::CSharp => format!("class Shallow {{ int x = {open}1{close}; }}\n"),
        Language::Ruby => format!("def shallow\nend\nx = {list_open}{list_close}\n"),
        Language::Php => format!("<?php\nfunction shallow() {{}}\n$x = {list_open}{list_close};\n"),
        other => panic!("no deep source for {other:?}"),
    }
}

#[test]
fn code_nested_beyond_any_limit_is_parsed_with_bounded_work() {
    for language in CODE_LANGUAGES {
        let text = deep_code(language);
        assert!(text.len() < 1024 * 1024);
        let facts = std::thread::Builder::new()
            .stack_size(SMALL_STACK)
            .spawn(move || facts::extract(language, "deep", &text))
            .expect("thread starts")
            .join()
            .unwrap_or_else(|_| panic!("{language:?}: extraction panicked"));
        // The definition before the nesting is found unless the parser itself ran
        // out of its budget (then the file is known by its metadata, and says so).
        let found = facts
            .definitions
            .iter()
            .any(|d| d.name.eq_ignore_ascii_case("shallow"));
        assert!(
            found || facts.limited.is_some(),
            "{language:?}: {:?} {:?}",
            facts.definitions,
            facts.limited
        );
    }
}

#[test]
fn a_quadratic_query_stops_at_its_budget_and_keeps_what_it_found() {
    // JavaScript nested calls make the tags query quadratic: tens of seconds
    // without a budget.
    let text = format!(
        "function shallow() {{}}\nf{}x{};\n",
        "f(".repeat(60_000),
        ")".repeat(60_000)
    );
    let facts = facts::extract(Language::JavaScript, "calls.js", &text);
    assert!(facts.limited.is_some(), "the budget was not reached");
    assert!(facts.definitions.iter().any(|d| d.name == "shallow"));
    // The same input gives the same facts: the budget counts steps, not time.
    assert_eq!(
        facts,
        facts::extract(Language::JavaScript, "calls.js", &text)
    );
}

/// Writes `bytes` at `root/rel`, creating directories.
fn put(root: &Path, rel: &str, bytes: impl AsRef<[u8]>) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// A repository built to hurt, with one ordinary module the task is about.
#[cfg(unix)]
fn hostile_repo(root: &Path, outside: &Path) {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::symlink;

    put(
        root,
        "billing/invoice.py",
        "def total_due(invoice):\n    return sum(line.amount for line in invoice.lines)\n",
    );
    put(
        outside,
        "secret.py",
        "def total_due():\n    return 'outside'\n",
    );
    symlink(outside.join("secret.py"), root.join("billing/leak.py")).unwrap();
    symlink(outside, root.join("outside_dir")).unwrap();
    symlink(root.join("loop_b"), root.join("loop_a")).unwrap();
    symlink(root.join("loop_a"), root.join("loop_b")).unwrap();
    std::fs::create_dir_all(root.join("cycle")).unwrap();
    symlink("..", root.join("cycle/up")).unwrap();
    symlink("/dev/zero", root.join("zero.py")).unwrap();
    let fifo = root.join("pipe.py");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success())
    );
    let _socket = std::os::unix::net::UnixListener::bind(root.join("sock.py")).unwrap();
    put(
        root,
        "broken_utf8.py",
        b"def total_due_\xff\xfe():\n    pass\n",
    );
    put(root, "huge_line.js", "x".repeat(10 * 1024 * 1024));
    put(
        root,
        "long_line.js",
        format!("var a = \"{}\";", "y".repeat(900 * 1024)),
    );
    let deep: String = (0..300).map(|_| "d/").collect();
    put(
        root,
        &format!("{deep}deep.py"),
        "def deepest():\n    pass\n",
    );
    put(root, "odd\nname\tfile.py", "def odd():\n    pass\n");
    let odd = std::ffi::OsStr::from_bytes(b"bad\xffname.py");
    std::fs::write(root.join(odd), "def bad():\n    pass\n").unwrap();
    for language in [
        Language::Json,
        Language::Yaml,
        Language::Toml,
        Language::Xml,
    ] {
        let (path, text) = deep_config(language);
        put(root, &format!("config/{path}"), text);
    }
    put(root, "src/deep.js", deep_code(Language::JavaScript));
    put(root, "src/deep.rs", deep_code(Language::Rust));
    let huge_ignore: String = (0..40_000).map(|i| format!("gen{i}/**/*.x{i}\n")).collect();
    put(root, ".gitignore", &huge_ignore);
    put(root, "vendor/.gitignore", &huge_ignore);
    put(root, "vendor/lib.py", "def vendored():\n    pass\n");
    put(
        root,
        "weird/.gitignore",
        b"[unclosed\n\xff\xfe\n!\n**/**/**/[[[\n\\\n",
    );
    put(root, "weird/kept.py", "def kept():\n    pass\n");
    put(root, ".git/HEAD", b"\x00garbage that is no ref\n");
    put(root, ".git/refs/heads/main", "not-a-sha\n");
}

#[cfg(unix)]
#[test]
fn a_hostile_repository_gets_an_answer_and_nothing_from_outside_the_root() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(&root).unwrap();
    hostile_repo(&root, outside.path());

    let session = Session::open(&root).expect("the repository opens");
    let task = Task::new("total_due of an invoice is wrong when a line has no amount").unwrap();
    let package = session
        .discover(&task, &DiscoverConfig::default())
        .expect("discover answers");
    assert_eq!(
        package.files.first().map(|f| f.path.as_str()),
        Some("billing/invoice.py")
    );
    let json = package.to_json();
    for file in &package.ranked_files {
        assert!(!file.path.starts_with('/') && !file.path.split('/').any(|s| s == ".."));
        assert!(
            root.join(&file.path)
                .canonicalize()
                .unwrap()
                .starts_with(root.canonicalize().unwrap())
        );
    }
    assert!(
        !json.contains("'outside'"),
        "a file outside the root was read"
    );
    assert!(!json.contains("secret.py"));
    let skipped = &package.skipped.unreadable.counts;
    assert!(
        skipped
            .get(&SkipReason::OutsideRoot)
            .is_some_and(|n| *n >= 2),
        "{skipped:?}"
    );
    assert!(skipped.contains_key(&SkipReason::TooLarge), "{skipped:?}");
    assert!(
        skipped.contains_key(&SkipReason::IgnoreFileTooLarge),
        "{skipped:?}"
    );
    assert!(
        skipped.contains_key(&SkipReason::NonUtf8Path),
        "{skipped:?}"
    );
    // The markdown rendering of such a package stays within its budget too.
    assert!(!package.to_markdown().is_empty());
    let graph = session.graph().expect("the whole graph builds");
    assert!(graph.node("billing/invoice.py").is_some());
}

/// Found by `make fuzz` (target config): an escape before a multi-byte character
/// in JSON with comments sliced inside the character.
#[test]
fn fuzz_config_jsonc_escape_before_a_multibyte_character() {
    // Invalid JSON either way (`\é` is no escape): a recorded problem, not a panic.
    let text = "{\n  // comment\n  \"jsx\": \"\\é\", \"a\": 1,\n}";
    let facts = facts::extract(Language::Json, "tsconfig.json", text);
    assert!(!facts.problems.is_empty(), "{:?}", facts.string_keys);
    // Valid JSON with comments and non-ASCII text around escapes still reads whole.
    let text = "{\n  // comment\n  \"jsx\": \"é\\\\é\\\"\", \"a\": 1,\n}";
    let facts = facts::extract(Language::Json, "tsconfig.json", text);
    assert!(
        facts
            .string_keys
            .iter()
            .any(|k| k.kind == KeyKind::ConfigKey && k.text == "a"),
        "{:?} {:?}",
        facts.problems,
        facts.string_keys
    );
    let crash: &[u8] = &[
        0x7b, 0x0a, 0x2f, 0x2f, 0x20, 0x63, 0x0a, 0x22, 0x6a, 0x22, 0x3a, 0x22, 0x5c, 0xff, 0x22,
        0x7d,
    ];
    let _ = facts::extract(Language::Json, "x.json", &String::from_utf8_lossy(crash));
}
