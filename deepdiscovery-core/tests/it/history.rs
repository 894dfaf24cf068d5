//! History: co-change edges and per-file signals from real git repositories built in
//! a temporary directory, only ever from the ancestors of HEAD.

use std::fs;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use deepdiscovery_core::cache::DiskCache;
use deepdiscovery_core::graph::RelationFamily;
use deepdiscovery_core::infer::Via;
use deepdiscovery_core::locate::LocateConfig;
use deepdiscovery_core::source::{HistoryCut, HistoryOptions};
use deepdiscovery_core::{DiscoverConfig, MemorySource, Relation, RepoGraph, Session, Task};

use crate::support::{assert_edge, assert_no_edge};

/// Seconds since the epoch of day 0 of every fixture history.
pub(crate) const DAY0: i64 = 1_700_000_000;

/// A git repository in a temporary directory, committed to with fixed dates and a
/// configuration of its own (no system or global configuration is read).
pub(crate) struct Repo {
    dir: tempfile::TempDir,
    edits: usize,
}

impl Repo {
    /// A new repository on branch `main`, or `None` when git is not on PATH.
    pub(crate) fn new() -> Option<Repo> {
        let available = Command::new("git")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !available {
            eprintln!("git is not on PATH: history test skipped");
            return None;
        }
        let repo = Repo {
            dir: tempfile::tempdir().unwrap(),
            edits: 0,
        };
        repo.git(&["init", "-q", "-b", "main"], 0);
        repo.git(&["config", "user.name", "Test Author"], 0);
        repo.git(&["config", "user.email", "author@example.com"], 0);
        repo.git(&["config", "commit.gpgsign", "false"], 0);
        Some(repo)
    }

    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Runs git in the repository at the time of `day`; returns its trimmed output.
    pub(crate) fn git(&self, args: &[&str], day: i64) -> String {
        let date = format!("@{} +0000", DAY0 + day * 86_400);
        let out = Command::new("git")
            .current_dir(self.root())
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date)
            .args(args)
            .output()
            .expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Writes a file (creating directories).
    pub(crate) fn write(&self, rel: &str, content: &str) {
        let path = self.root().join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }

    /// Appends a distinct comment line to each file, creating it if needed.
    pub(crate) fn edit(&mut self, files: &[&str]) {
        for rel in files {
            self.edits += 1;
            let path = self.root().join(rel);
            let old = fs::read_to_string(&path).unwrap_or_default();
            self.write(rel, &format!("{old}# edit {}\n", self.edits));
        }
    }

    /// Commits everything in the work tree on `day`; returns the commit id.
    pub(crate) fn commit(&self, day: i64, message: &str) -> String {
        self.git(&["add", "-A"], day);
        self.git(&["commit", "-q", "-m", message], day);
        self.git(&["rev-parse", "HEAD"], day)
    }

    /// `count` commits from `day` on, each adding one unrelated file: history in which
    /// the files under test are rare, as in any real repository.
    pub(crate) fn filler(&mut self, day: i64, count: usize) {
        for i in 0..count {
            let name = format!("filler/unrelated{}.txt", self.edits + i);
            self.change(day + i as i64, &[&name]);
        }
    }

    /// Edits `files` and commits them on `day`.
    pub(crate) fn change(&mut self, day: i64, files: &[&str]) -> String {
        self.edit(files);
        self.commit(day, &format!("change {}", files.join(" ")))
    }
}

fn co_change_edges(graph: &RepoGraph) -> Vec<(String, String)> {
    graph
        .edges()
        .iter()
        .filter(|e| e.relation == Relation::CoChange)
        .map(|e| (e.from.to_string(), e.to.to_string()))
        .collect()
}

/// Two files with nothing in common but their history, and unrelated filler.
fn query_and_views(repo: &mut Repo) {
    repo.write(
        "orm/query.py",
        "def build_select(table):\n    return table\n",
    );
    repo.write(
        "web/views.py",
        "def show_page(request):\n    return request\n",
    );
    repo.write("misc/alpha.py", "def alpha_value():\n    return 1\n");
    repo.write("misc/beta.py", "def beta_value():\n    return 2\n");
    repo.write("tools/gamma.py", "def gamma_value():\n    return 3\n");
    repo.commit(0, "initial");
    repo.change(1, &["orm/query.py", "web/views.py"]);
    repo.change(2, &["misc/alpha.py"]);
    repo.change(3, &["misc/beta.py"]);
    repo.change(5, &["orm/query.py", "web/views.py"]);
    repo.change(10, &["tools/gamma.py"]);
}

#[test]
fn co_change_alone_links_two_files_with_a_readable_rationale() {
    let Some(mut repo) = Repo::new() else { return };
    query_and_views(&mut repo);
    let session = Session::open(repo.root()).unwrap();
    let graph = session.graph().unwrap();

    let edge = assert_edge(
        &graph,
        "orm/query.py",
        "web/views.py",
        Relation::CoChange,
        "changed together in 3 of the last 3 commits touching `query.py`, most recently 5 days before HEAD",
    );
    assert!(edge.confidence > 0.0);
    assert_edge(
        &graph,
        "web/views.py",
        "orm/query.py",
        Relation::CoChange,
        "touching `views.py`",
    );
    assert_eq!(Relation::CoChange.family(), RelationFamily::Historical);
    // Co-change is the only link between them.
    for (from, to) in [
        ("orm/query.py", "web/views.py"),
        ("web/views.py", "orm/query.py"),
    ] {
        let kinds: Vec<Relation> = graph
            .edges_from(from)
            .iter()
            .filter(|e| e.to == to)
            .map(|e| e.relation)
            .collect();
        assert_eq!(kinds, vec![Relation::CoChange], "{from} -> {to}");
    }
    // A single shared commit (the initial one) is not enough support.
    assert_no_edge(&graph, "misc/alpha.py", "misc/beta.py", Relation::CoChange);

    let signals = graph.file_history("orm/query.py").expect("history signals");
    assert_eq!(signals.commits, 3);
    assert!((signals.days_since_change - 5.0).abs() < 1e-3);
    assert!(
        signals.recency > 0.8 && signals.recency < 1.0,
        "{signals:?}"
    );
    assert!((signals.churn - 1.0).abs() < 1e-6, "{signals:?}");
    let gamma = graph.file_history("tools/gamma.py").unwrap();
    assert_eq!(gamma.days_since_change, 0.0);
    assert_eq!(gamma.recency, 1.0);
    assert!(gamma.churn < signals.churn);

    let history = session.history().unwrap().expect("a history");
    assert_eq!(history.commits.len(), 6);
    assert_eq!(history.commits[0].id, history.head);
    assert_eq!(history.commits[0].author, "Test Author");
    assert_eq!(history.commits[0].subject, "change tools/gamma.py");
    assert_eq!(history.commits[0].paths, vec!["tools/gamma.py"]);
    assert_eq!(graph.history_head(), Some(history.head.as_str()));
}

#[test]
fn history_never_reaches_past_head() {
    let Some(mut repo) = Repo::new() else { return };
    repo.write("app/service.py", "def serve():\n    return 1\n");
    repo.write("conf/settings.yaml", "timeout: 3\n");
    repo.write("app/other.py", "def other():\n    return 2\n");
    let base = repo.commit(0, "initial");
    repo.filler(1, 4);
    repo.change(1, &["app/other.py"]);
    let main_head = repo.git(&["rev-parse", "HEAD"], 1);

    // Another branch changes the two files together, twice: not an ancestor of HEAD.
    repo.git(&["checkout", "-q", "-b", "feature"], 2);
    repo.change(2, &["app/service.py", "conf/settings.yaml"]);
    repo.change(3, &["app/service.py", "conf/settings.yaml"]);
    let feature_head = repo.git(&["rev-parse", "HEAD"], 3);
    repo.git(&["checkout", "-q", "main"], 4);

    let session = Session::open(repo.root()).unwrap();
    let graph = session.graph().unwrap();
    assert!(
        co_change_edges(&graph).is_empty(),
        "{:?}",
        co_change_edges(&graph)
    );
    let history = session.history().unwrap().unwrap();
    assert_eq!(history.head, main_head);
    assert_eq!(history.commits.len(), 6);
    assert!(history.commits.iter().all(|c| c.id != feature_head));

    // Checking out the feature branch makes those commits ancestors: now they count.
    repo.git(&["checkout", "-q", "feature"], 4);
    let graph = session.graph().unwrap();
    assert_edge(
        &graph,
        "app/service.py",
        "conf/settings.yaml",
        Relation::CoChange,
        "changed together in 3 of the last 3 commits",
    );

    // An older commit checked out (detached): what came after it is invisible.
    repo.git(&["checkout", "-q", &base], 5);
    let graph = session.graph().unwrap();
    assert!(co_change_edges(&graph).is_empty());
    let history = session.history().unwrap().unwrap();
    assert_eq!(history.head, base);
    assert_eq!(history.commits.len(), 1);
}

#[test]
fn without_git_there_is_no_history_and_everything_works() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("app")).unwrap();
    fs::write(
        dir.path().join("app/main.py"),
        "from app.util import helper\n",
    )
    .unwrap();
    fs::write(
        dir.path().join("app/util.py"),
        "def helper():\n    return 1\n",
    )
    .unwrap();
    let session = Session::open(dir.path()).unwrap();
    assert!(session.history().unwrap().is_none());
    let graph = session.graph().unwrap();
    assert!(
        graph
            .edge("app/main.py", "app/util.py", Relation::Imports)
            .is_some()
    );
    assert!(co_change_edges(&graph).is_empty());
    assert!(graph.file_history("app/main.py").is_none());
    assert!(graph.history_head().is_none());

    let source = MemorySource::from_files([
        ("app/main.py", "from app.util import helper\n"),
        ("app/util.py", "def helper():\n    return 1\n"),
    ])
    .unwrap();
    let session = Session::new(source);
    assert!(session.history().unwrap().is_none());
    let graph = session.graph().unwrap();
    assert!(
        graph
            .edge("app/main.py", "app/util.py", Relation::Imports)
            .is_some()
    );
    assert!(co_change_edges(&graph).is_empty());
}

#[test]
fn huge_commits_are_skipped() {
    let Some(mut repo) = Repo::new() else { return };
    let fillers: Vec<String> = (1..=6).map(|i| format!("lib/filler{i}.py")).collect();
    let mut all: Vec<&str> = vec!["src/parser.py", "src/lexer.py"];
    all.extend(fillers.iter().map(String::as_str));
    repo.edit(&all);
    repo.commit(0, "initial");
    repo.change(1, &["src/parser.py", "src/lexer.py"]);
    repo.change(2, &all); // a formatting sweep
    repo.filler(3, 4);

    let small = HistoryOptions {
        max_files_per_commit: 4,
        ..HistoryOptions::default()
    };
    let session = Session::open(repo.root())
        .unwrap()
        .with_history_options(small);
    let history = session.history().unwrap().unwrap();
    assert_eq!(history.skipped_large, 2);
    assert_eq!(history.commits.len(), 5);
    let graph = session.graph().unwrap();
    assert_no_edge(&graph, "src/parser.py", "src/lexer.py", Relation::CoChange);

    // Out of bytes: what was read is a prefix of the history, the cut says which
    // bound stopped it, and nothing breaks.
    let full = Session::open(repo.root())
        .unwrap()
        .history()
        .unwrap()
        .unwrap();
    assert_eq!(full.cut, None);
    let hurried = Session::open(repo.root())
        .unwrap()
        .with_history_options(HistoryOptions {
            max_bytes: 400,
            ..HistoryOptions::default()
        });
    let cut = hurried.history().unwrap().unwrap();
    assert_eq!(cut.cut, Some(HistoryCut::Bytes));
    assert!(cut.commits.len() < full.commits.len());
    assert_eq!(cut.commits[..], full.commits[..cut.commits.len()]);
    assert!(hurried.graph().is_ok());

    // The same history with the sweeps counted links them.
    let session = Session::open(repo.root()).unwrap();
    let graph = session.graph().unwrap();
    assert_edge(
        &graph,
        "src/parser.py",
        "src/lexer.py",
        Relation::CoChange,
        "changed together in 3 of the last 3 commits",
    );
}

#[test]
fn a_new_commit_is_seen_at_the_next_query_and_the_same_head_is_cached() {
    let Some(mut repo) = Repo::new() else { return };
    repo.write("api/routes.py", "def routes():\n    return []\n");
    repo.write("api/schema.py", "def schema():\n    return {}\n");
    repo.write("lib/extra.py", "def extra():\n    return 0\n");
    repo.write("lib/more.py", "def more():\n    return 0\n");
    repo.commit(0, "initial");
    repo.change(1, &["lib/extra.py"]);
    repo.change(2, &["lib/more.py"]);
    // Edited now, committed only after the first query: the files do not change
    // on disk between the queries, only HEAD does.
    repo.edit(&["api/routes.py", "api/schema.py"]);

    let session = Session::open(repo.root()).unwrap();
    let graph = session.graph().unwrap();
    assert!(co_change_edges(&graph).is_empty());
    assert!(!session.stats().history_reused);
    let first = session.history().unwrap().unwrap();
    assert!(session.stats().history_reused);
    let again = session.graph().unwrap();
    assert!(Arc::ptr_eq(&graph, &again));
    assert!(session.stats().graph_reused);
    assert!(session.stats().history_reused);
    assert!(Arc::ptr_eq(&first, &session.history().unwrap().unwrap()));

    let new_head = repo.commit(3, "routes and schema");
    let graph = session.graph().unwrap();
    assert!(!session.stats().history_reused);
    assert!(!session.stats().graph_reused);
    assert_eq!(graph.history_head(), Some(new_head.as_str()));
    assert_edge(
        &graph,
        "api/routes.py",
        "api/schema.py",
        Relation::CoChange,
        "changed together in 2 of the last 2 commits touching `routes.py`, most recently in HEAD",
    );
    assert_eq!(session.history().unwrap().unwrap().head, new_head);

    // Switched off, the session never asks for history.
    let session = Session::open(repo.root()).unwrap().with_history(false);
    assert!(session.history().unwrap().is_none());
    assert!(co_change_edges(&session.graph().unwrap()).is_empty());
}

/// The history a new session reads afresh at the repository's HEAD, with `options`.
fn fresh_history(repo: &Repo, options: HistoryOptions) -> deepdiscovery_core::History {
    let session = Session::open(repo.root())
        .unwrap()
        .with_history_options(options);
    (*session.history().unwrap().unwrap()).clone()
}

#[test]
fn a_history_extended_by_new_commits_is_the_history_read_afresh() {
    let Some(mut repo) = Repo::new() else { return };
    repo.write("src/a.py", "a = 1\n");
    repo.write("src/b.py", "b = 1\n");
    repo.commit(0, "initial");
    repo.change(1, &["src/a.py", "src/b.py"]);
    repo.filler(2, 6);
    let bounds = [
        HistoryOptions::default(),
        HistoryOptions {
            max_commits: 5,
            ..HistoryOptions::default()
        },
        HistoryOptions {
            max_bytes: 900,
            max_files_per_commit: 1,
            ..HistoryOptions::default()
        },
    ];
    let cache = tempfile::tempdir().unwrap();
    // One session per bound that lives across the commits (extending in memory),
    // and one per bound and commit on the on-disk cache (extending what an earlier
    // process stored).
    let live: Vec<Session> = bounds
        .iter()
        .map(|&b| Session::open(repo.root()).unwrap().with_history_options(b))
        .collect();
    for session in &live {
        session.history().unwrap().unwrap();
    }
    let root = repo.root().to_path_buf();
    let on_disk = |b: HistoryOptions| {
        Session::open(&root)
            .unwrap()
            .with_history_options(b)
            .with_disk_cache(Arc::new(DiskCache::open(cache.path()).unwrap()))
    };
    for &b in &bounds {
        on_disk(b).history().unwrap().unwrap();
    }
    for day in 10..14 {
        // A rename, a commit with a message body, an ordinary change, a sweep.
        match day {
            10 => {
                repo.git(&["mv", "src/b.py", "src/c.py"], day);
                repo.commit(day, "move b to c");
            }
            11 => {
                repo.edit(&["src/a.py", "src/c.py"]);
                repo.commit(
                    day,
                    "Fix the parser\n\nThe tokenizer dropped the last line.",
                );
            }
            12 => {
                repo.change(day, &["src/a.py"]);
            }
            _ => {
                repo.change(day, &["src/a.py", "src/c.py", "filler/x.txt"]);
            }
        }
        for (k, &b) in bounds.iter().enumerate() {
            let fresh = fresh_history(&repo, b);
            let extended = live[k].history().unwrap().unwrap();
            assert_eq!(*extended, fresh, "day {day}, bounds {b:?}, in memory");
            let stored = on_disk(b).history().unwrap().unwrap();
            assert_eq!(*stored, fresh, "day {day}, bounds {b:?}, on disk");
        }
    }
    let full = fresh_history(&repo, HistoryOptions::default());
    assert_eq!(full.cut, None);
    let fix = full
        .commits
        .iter()
        .find(|c| c.subject == "Fix the parser")
        .unwrap();
    assert_eq!(fix.message, "The tokenizer dropped the last line.");
    assert_eq!(fix.paths, ["src/a.py", "src/c.py"]);
    // The older commit that changed b.py lists it under its newest name.
    assert!(
        full.commits
            .iter()
            .any(|c| c.subject.starts_with("change src/a.py src/b.py")
                && c.paths == ["src/a.py", "src/c.py"])
    );
    let cut = fresh_history(&repo, bounds[1]);
    assert_eq!(
        (cut.cut, cut.commits.len() + cut.skipped_large),
        (Some(HistoryCut::Commits), 5)
    );
}

#[test]
fn a_file_changed_in_every_commit_links_nothing() {
    let Some(mut repo) = Repo::new() else { return };
    let files = [
        "pkg/a.py", "pkg/b.py", "pkg/c.py", "pkg/d.py", "pkg/e.py", "pkg/f.py",
    ];
    let mut first: Vec<&str> = files.to_vec();
    first.push("CHANGELOG.md");
    repo.edit(&first);
    repo.commit(0, "initial");
    let rounds: [&[&str]; 7] = [
        &["pkg/a.py", "pkg/b.py"],
        &["pkg/c.py"],
        &["pkg/d.py"],
        &["pkg/a.py", "pkg/b.py"],
        &["pkg/e.py"],
        &["pkg/f.py"],
        &["pkg/c.py"],
    ];
    for (day, changed) in rounds.iter().enumerate() {
        let mut with_log = changed.to_vec();
        with_log.push("CHANGELOG.md");
        repo.change(day as i64 + 1, &with_log);
    }
    let session = Session::open(repo.root()).unwrap();
    let graph = session.graph().unwrap();
    let edges = co_change_edges(&graph);
    assert!(
        edges
            .iter()
            .all(|(a, b)| a != "CHANGELOG.md" && b != "CHANGELOG.md"),
        "{edges:?}"
    );
    assert_edge(
        &graph,
        "pkg/a.py",
        "pkg/b.py",
        Relation::CoChange,
        "changed together in 3 of the last 3 commits",
    );
    let log = graph.file_history("CHANGELOG.md").unwrap();
    assert_eq!(log.commits, 8);
    assert_eq!(log.churn, 1.0);
}

#[test]
fn renamed_files_keep_their_history_under_the_new_name() {
    let Some(mut repo) = Repo::new() else { return };
    repo.write("core/old_name.py", "def engine():\n    return 1\n");
    repo.write("core/partner.py", "def partner():\n    return 2\n");
    repo.write("core/third.py", "def third():\n    return 3\n");
    repo.write("core/fourth.py", "def fourth():\n    return 4\n");
    repo.commit(0, "initial");
    repo.change(1, &["core/old_name.py", "core/partner.py"]);
    repo.change(2, &["core/third.py"]);
    repo.git(&["mv", "core/old_name.py", "core/new_name.py"], 3);
    repo.commit(3, "rename");
    repo.change(4, &["core/fourth.py"]);

    let session = Session::open(repo.root()).unwrap();
    let history = session.history().unwrap().unwrap();
    assert!(
        history
            .commits
            .iter()
            .all(|c| !c.paths.iter().any(|p| p == "core/old_name.py"))
    );
    let graph = session.graph().unwrap();
    assert_edge(
        &graph,
        "core/new_name.py",
        "core/partner.py",
        Relation::CoChange,
        "changed together in 2 of the last 3 commits touching `new_name.py`",
    );
}

#[test]
fn a_root_below_the_top_of_the_work_tree_sees_only_its_own_paths() {
    let Some(mut repo) = Repo::new() else { return };
    repo.write("service/app/handler.py", "def handle():\n    return 1\n");
    repo.write("service/app/store.py", "def store():\n    return 2\n");
    repo.write("service/app/misc.py", "def misc():\n    return 3\n");
    repo.write("service/app/more.py", "def more():\n    return 4\n");
    repo.write("outside/tool.py", "def tool():\n    return 5\n");
    repo.commit(0, "initial");
    repo.change(1, &["service/app/handler.py", "service/app/store.py"]);
    repo.change(2, &["outside/tool.py"]);
    repo.change(3, &["service/app/misc.py"]);
    repo.change(4, &["service/app/more.py", "outside/tool.py"]);

    let session = Session::open(repo.root().join("service")).unwrap();
    let history = session.history().unwrap().unwrap();
    // The commit touching only `outside/` is not read; paths are relative to the root.
    assert_eq!(history.commits.len(), 4);
    assert_eq!(history.commits[0].paths, vec!["app/more.py"]);
    let graph = session.graph().unwrap();
    assert_edge(
        &graph,
        "app/handler.py",
        "app/store.py",
        Relation::CoChange,
        "changed together in 2 of the last 2 commits touching `handler.py`",
    );
}

/// A billing function and a report that share no name, import, directory or word:
/// only their history ties them (four fixes changed both), among unrelated work.
fn invoice_and_ledger(repo: &mut Repo) {
    repo.write(
        "billing/invoice.py",
        "def compute_invoice_total(lines, discount):\n    total = sum(lines)\n    return total - discount\n",
    );
    repo.write(
        "reports/ledger.py",
        "def monthly_rows(entries):\n    return [e for e in entries if e]\n",
    );
    repo.write(
        "billing/currency.py",
        "def to_cents(x):\n    return int(x * 100)\n",
    );
    repo.write("web/home.py", "def home(request):\n    return 'home'\n");
    // Files that share the task's words: without the history they outrank the report.
    repo.write(
        "web/invoice_page.py",
        "def invoice_page(request):\n    return 'invoice amount'\n",
    );
    repo.write(
        "promo/discount_banner.py",
        "def discount_banner():\n    return 'a discount is applied'\n",
    );
    repo.write(
        "promo/amounts.py",
        "def wrong_amount_message():\n    return 'wrong amount'\n",
    );
    repo.commit(0, "initial");
    for k in 0..4 {
        repo.filler(1 + 10 * k, 8);
        repo.change(9 + 10 * k, &["billing/invoice.py", "reports/ledger.py"]);
    }
}

const INVOICE_TASK: &str =
    "compute_invoice_total returns the wrong amount when a discount is applied to an invoice";

#[test]
fn the_location_stage_lends_co_change_evidence_from_strongly_cued_files() {
    let Some(mut repo) = Repo::new() else { return };
    invoice_and_ledger(&mut repo);
    let session = Session::open(repo.root()).unwrap();
    let task = Task::new(INVOICE_TASK).unwrap();
    let location = session.locate(&task, &LocateConfig::default()).unwrap();
    let ledger = location
        .ranked
        .iter()
        .find(|f| f.path == "reports/ledger.py")
        .expect("the co-changed file is ranked");
    assert!(ledger.terms.rule > 0.0, "{ledger:?}");
    assert!(
        ledger
            .signals
            .iter()
            .any(|s| s.contains("changed together in") && s.contains("`invoice.py`")),
        "{:?}",
        ledger.signals
    );

    let mut off = LocateConfig::default();
    off.ablation.no_history = true;
    let location = session.locate(&task, &off).unwrap();
    let ledger = location
        .ranked
        .iter()
        .find(|f| f.path == "reports/ledger.py");
    assert!(ledger.is_none_or(|f| f.terms.rule == 0.0), "{ledger:?}");
}

#[test]
fn discover_follows_co_change_and_shows_the_recent_history() {
    let Some(mut repo) = Repo::new() else { return };
    invoice_and_ledger(&mut repo);
    let session = Session::open(repo.root()).unwrap();
    let task = Task::new(INVOICE_TASK).unwrap();
    let config = DiscoverConfig::default();
    let package = session.discover(&task, &config).unwrap();
    let paths = package.file_paths();
    assert!(paths.contains(&"billing/invoice.py"), "{paths:?}");
    assert!(!package.notes.iter().any(|n| n.starts_with("history:")));
    // A history cut short says so, and by which bound.
    let short = Session::open(repo.root())
        .unwrap()
        .with_history_options(HistoryOptions {
            max_commits: 3,
            ..HistoryOptions::default()
        })
        .discover(&task, &config)
        .unwrap();
    assert!(
        short.notes.iter().any(|n| n.starts_with(
            "history: the newest 3 commits were read (history.max_commits)"
        )),
        "{:?}",
        short.notes
    );
    let ledger = package
        .files
        .iter()
        .find(|f| f.path == "reports/ledger.py")
        .unwrap_or_else(|| panic!("co-changed file missing: {paths:?}"));
    // Reached by the co-change hop, or made an anchor by the co-change cue: either
    // way the package says it is the history.
    let by_hop = ledger.path_from_anchor.iter().any(|h| {
        h.via
            == Via::Edge {
                relation: Relation::CoChange,
                forward: true,
            }
    });
    let explained = ledger.rationale.iter().any(|r| r.contains("co_change"));
    assert!(by_hop || explained, "{ledger:?}");
    // The historical description: the fixes that changed both, newest first.
    let latest = &package.recent_history[0];
    assert_eq!(
        latest.subject,
        "change billing/invoice.py reports/ledger.py"
    );
    assert_eq!(latest.files.len(), 2);
    assert!(package.recent_history.len() <= 8);
    let markdown = package.to_markdown();
    assert!(markdown.contains("## Recent history"), "{markdown}");
    assert!(package.budget.used_tokens <= config.budget.max_tokens);

    // The ablation: as if there were no git.
    let mut off = DiscoverConfig::default();
    off.ablation.no_history = true;
    let package = session.discover(&task, &off).unwrap();
    assert!(
        !package.file_paths().contains(&"reports/ledger.py"),
        "{:#?}",
        package
            .files
            .iter()
            .map(|f| (&f.path, &f.rationale))
            .collect::<Vec<_>>()
    );
    assert!(package.recent_history.is_empty());
    assert!(!package.to_markdown().contains("## Recent history"));
}

#[test]
fn discover_never_sees_commits_after_head() {
    let Some(mut repo) = Repo::new() else { return };
    invoice_and_ledger(&mut repo);
    // On another branch, the invoice changes with an audit module, again and again.
    repo.write("audit/trail.py", "def record(event):\n    return event\n");
    repo.commit(60, "audit trail");
    let main_head = repo.git(&["rev-parse", "HEAD"], 60);
    repo.git(&["checkout", "-q", "-b", "later"], 61);
    for day in 62..68 {
        repo.change(day, &["billing/invoice.py", "audit/trail.py"]);
    }
    repo.git(&["checkout", "-q", "main"], 70);

    let session = Session::open(repo.root()).unwrap();
    let package = session
        .discover(
            &Task::new(INVOICE_TASK).unwrap(),
            &DiscoverConfig::default(),
        )
        .unwrap();
    assert!(!package.file_paths().contains(&"audit/trail.py"));
    assert!(
        package
            .recent_history
            .iter()
            .all(|h| !h.subject.contains("audit/trail.py"))
    );
    assert_eq!(session.history().unwrap().unwrap().head, main_head);
}

/// A project whose changes also touch its changelog, most of the time.
#[test]
fn discover_adds_the_file_most_changes_touch_and_says_why() {
    let Some(mut repo) = Repo::new() else { return };
    repo.write(
        "billing/invoice.py",
        "def total_due(invoice):\n    return sum(line.amount for line in invoice.lines)\n",
    );
    repo.write("CHANGELOG.md", "# Changes\n");
    repo.commit(0, "initial");
    for day in 1..41 {
        let name = format!("pkg/module{}.py", day % 7);
        if day % 2 == 0 {
            repo.change(day, &[&name, "CHANGELOG.md"]);
        } else {
            repo.change(day, &[&name]);
        }
    }
    let session = Session::open(repo.root()).unwrap();
    let task = Task::new("total_due of an invoice is wrong when a line has no amount").unwrap();
    let package = session.discover(&task, &DiscoverConfig::default()).unwrap();
    let changelog = package
        .files
        .iter()
        .find(|f| f.path == "CHANGELOG.md")
        .unwrap_or_else(|| panic!("changelog missing: {:?}", package.file_paths()));
    assert!(
        changelog
            .rationale
            .iter()
            .any(|r| r.contains("of the last") && r.contains("part of most changes")),
        "{:?}",
        changelog.rationale
    );
    assert_eq!(package.files[0].path, "billing/invoice.py");

    // The ablation: as if there were no git.
    let mut off = DiscoverConfig::default();
    off.ablation.no_history = true;
    let package = session.discover(&task, &off).unwrap();
    // The learned completion may still guess the changelog from its rank among a tiny
    // repository's nine files ("matches the task beside ..."): that guess reads no
    // history, and what is checked here is that nothing history says brings it in.
    let by_history = crate::support::paths_not_guessed(&package);
    assert!(!by_history.contains(&"CHANGELOG.md"), "{by_history:?}");
    assert!(
        package
            .files
            .iter()
            .flat_map(|f| &f.rationale)
            .all(|r| !r.contains("part of most changes")),
        "no history is read"
    );
}

#[test]
fn the_completion_reads_history_ties_beyond_locations_candidates() {
    let Some(mut repo) = Repo::new() else { return };
    invoice_and_ledger(&mut repo);
    // Release notes that share no word with the task, changed with two later fixes:
    // too weak a tie for the history's own completion (a partner needs
    // `w·P(b|a) ≥ 0.3`), strong enough to be weighed by the learned one.
    repo.write("notes/RELEASE.txt", "Release notes\n");
    repo.write(
        "tests/test_invoice.py",
        "def test_total():\n    assert True\n",
    );
    repo.commit(50, "notes");
    for day in 51..53 {
        repo.change(day, &["billing/invoice.py", "notes/RELEASE.txt"]);
    }
    let session = Session::open(repo.root()).unwrap();
    let task = Task::new(INVOICE_TASK).unwrap();
    // Location without its co-change cue: the notes are no anchor then, and only the
    // Inference stage's history can tie them to the task.
    // Five anchors: the notes (no word of the task, a small repository) are not
    // among them.
    let mut config = DiscoverConfig::default();
    config.location_ablation.no_history = true;
    config.anchors = 5;
    let (package, rows) = session.discover_traced(&task, &config).unwrap();
    // The same package as `discover`.
    let plain = session.discover(&task, &config).unwrap();
    assert_eq!(
        serde_json::to_value(&package.files).unwrap(),
        serde_json::to_value(&plain.files).unwrap()
    );
    assert!(!rows.rows.is_empty());
    let names = &deepdiscovery_core::infer::COMPLETION_FEATURES;
    let partner = names.iter().position(|n| *n == "partner").unwrap();
    for (path, row) in &rows.rows {
        assert_eq!(row.len(), names.len(), "{path}");
        assert!(row.iter().all(|v| v.is_finite()), "{path}: {row:?}");
        assert!(
            !path.starts_with("tests/"),
            "a test file is never a candidate"
        );
        assert_ne!(path, "billing/invoice.py", "the best file is the context");
    }
    let notes = rows
        .rows
        .iter()
        .find(|(p, _)| p == "notes/RELEASE.txt")
        .unwrap_or_else(|| {
            panic!(
                "a file the history ties to the anchor is a candidate: {:?} / {:?}",
                package
                    .files
                    .iter()
                    .map(|f| (&f.path, &f.rationale))
                    .collect::<Vec<_>>(),
                rows.rows.iter().map(|r| &r.0).collect::<Vec<_>>()
            )
        });
    assert!(notes.1[partner] > 0.0, "{notes:?}");

    // Without history nothing ties any candidate to the anchors.
    let mut off = config;
    off.ablation.no_history = true;
    let (_, rows) = session.discover_traced(&task, &off).unwrap();
    assert!(!rows.rows.is_empty());
    assert!(rows.rows.iter().all(|(_, row)| row[partner] == 0.0));
}

#[test]
fn a_shallow_history_is_read_as_none_by_the_completion() {
    // Two commits, as a shallow clone has: too few to say what changes together.
    let Some(mut repo) = Repo::new() else { return };
    repo.write(
        "billing/invoice.py",
        "def compute_invoice_total(lines, discount):\n    return sum(lines) - discount\n",
    );
    repo.write(
        "billing/tax.py",
        "def vat(total):\n    return total * 0.2\n",
    );
    repo.write("reports/ledger.py", "def rows(e):\n    return e\n");
    // Files that share the task's words: candidates beside the context.
    for k in 0..12 {
        repo.write(
            &format!("web/invoice_page_{k}.py"),
            &format!("def invoice_page_{k}(request):\n    return 'invoice amount {k}'\n"),
        );
        repo.write(
            &format!("promo/discount_{k}.py"),
            &format!("def discount_{k}():\n    return 'a discount is applied {k}'\n"),
        );
    }
    repo.commit(0, "initial");
    repo.change(1, &["billing/invoice.py", "billing/tax.py"]);
    let session = Session::open(repo.root()).unwrap();
    let task = Task::new(INVOICE_TASK).unwrap();
    let (_, rows) = session
        .discover_traced(&task, &DiscoverConfig::default())
        .unwrap();
    assert!(!rows.rows.is_empty());
    let names = &deepdiscovery_core::infer::COMPLETION_FEATURES;
    let commits = names.iter().position(|n| *n == "history_commits").unwrap();
    let partner = names.iter().position(|n| *n == "partner").unwrap();
    // The rows are those of a repository without history, which the plain model
    // was trained on: no commit counted, no partner.
    for (path, row) in &rows.rows {
        assert_eq!(row[commits], 0.0, "{path}: {row:?}");
        assert_eq!(row[partner], 0.0, "{path}: {row:?}");
    }
}

/// Copies a fixture repository's files into `repo` (an explicit stack, no recursion).
fn copy_fixture(name: &str, repo: &Repo) {
    let from = crate::support::fixture_path(name);
    let mut stack = vec![from.clone()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(&from)
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_string();
                repo.write(&rel, &fs::read_to_string(&path).unwrap());
            }
        }
    }
}

#[test]
fn the_models_for_an_embedder_rank_a_repository_with_a_deep_history() {
    use crate::locate::{ConceptEmbedder, rank_of, top};
    let Some(mut repo) = Repo::new() else {
        return;
    };
    copy_fixture("locate_app", &repo);
    repo.commit(0, "the inventory app");
    repo.filler(1, 40);
    let concepts = || {
        Arc::new(ConceptEmbedder(vec![
            vec!["shortage", "runs low"],
            vec!["currency"],
        ]))
    };
    let locate = |config: &LocateConfig, embedder: bool| {
        let mut session = Session::open(repo.root()).unwrap();
        if embedder {
            session = session.with_embedder(concepts());
        }
        session
            .locate(
                &Task::new("staff never hear about stock shortages").unwrap(),
                config,
            )
            .unwrap()
    };
    let email = "inventory/notifications/email.py";
    // With the history, the model trained with an embedder present reads its evidence:
    // of the files that share a word with the task ("stock"), the one whose meaning
    // matches ("runs low" for "shortages") comes first.
    let plain = locate(&LocateConfig::default(), false);
    let semantic = locate(&LocateConfig::default(), true);
    assert!(rank_of(&plain, email) > 1, "{:?}", top(&plain, 5));
    assert_eq!(rank_of(&semantic, email), 1, "{:?}", top(&semantic, 5));
    // The history ignored: the default model ranks, as without the embedder (the
    // plain change-set completion reads the scorer it was trained with).
    let mut no_history = LocateConfig::default();
    no_history.ablation.no_history = true;
    assert_eq!(
        top(&locate(&no_history, true), 10),
        top(&locate(&no_history, false), 10)
    );
}
