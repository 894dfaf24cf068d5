//! `Session::discover`: Algorithm 1 end to end — the package's promises (budget,
//! determinism, existing files, closed relations) and the ablations.

use std::collections::HashSet;

use deepdiscovery_core::infer::{FileView, StopReason};
use deepdiscovery_core::task::estimate_tokens;
use deepdiscovery_core::{ContextPackage, DiscoverConfig, MemorySource, Relation, Session, Task};
use proptest::prelude::*;

use crate::support::{fixture_path, stable_json};

const PRICING_TASK: &str = "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in `convert_currency`";

fn discover(session: &Session, task: &str, config: &DiscoverConfig) -> ContextPackage {
    session
        .discover(&Task::new(task).unwrap(), config)
        .expect("discover runs")
}

/// Every promise a package makes, checked on one package.
fn assert_well_formed(package: &ContextPackage, session: &Session) {
    assert_eq!(package.schema_version, 1);
    let markdown = package.to_markdown();
    assert!(
        estimate_tokens(&markdown) <= package.budget.max_tokens,
        "{} > {}",
        estimate_tokens(&markdown),
        package.budget.max_tokens
    );
    assert_eq!(package.budget.used_tokens, estimate_tokens(&markdown));
    let listed: HashSet<String> = session
        .artifacts()
        .unwrap()
        .into_iter()
        .map(|a| a.path)
        .collect();
    let chosen: HashSet<&str> = package.file_paths().into_iter().collect();
    assert_eq!(chosen.len(), package.files.len(), "no file twice");
    for f in &package.files {
        assert!(
            listed.contains(&f.path),
            "{} is not in the repository",
            f.path
        );
        assert!(!f.rationale.is_empty(), "{} has no rationale", f.path);
        assert!((0.0..=1.0).contains(&f.score));
    }
    for r in &package.relations {
        assert!(chosen.contains(r.from.as_str()) && chosen.contains(r.to.as_str()));
    }
    // Every file of the package is marked selected in the ranking, and the anchors
    // keep their package order there (files expansion added rank by their own
    // Location score).
    let skipped: HashSet<&str> = package
        .skipped
        .over_budget
        .iter()
        .map(String::as_str)
        .collect();
    let selected: HashSet<&str> = package
        .ranked_files
        .iter()
        .filter(|r| r.selected && !skipped.contains(r.path.as_str()))
        .map(|r| r.path.as_str())
        .collect();
    assert_eq!(selected, chosen);
    let anchors: Vec<&str> = package
        .files
        .iter()
        .filter(|f| f.anchor)
        .map(|f| f.path.as_str())
        .collect();
    let ranked_anchors: Vec<&str> = package
        .ranked_files
        .iter()
        .map(|r| r.path.as_str())
        .filter(|p| anchors.contains(p))
        .collect();
    assert_eq!(ranked_anchors, anchors);
}

#[test]
fn the_pricing_task_recovers_the_path_around_its_anchors() {
    let session = Session::open(fixture_path("locate_app")).unwrap();
    let package = discover(&session, PRICING_TASK, &DiscoverConfig::default());
    assert_well_formed(&package, &session);
    let paths = package.file_paths();
    assert_eq!(paths[0], "inventory/pricing/currency.py", "{paths:?}");
    for gold in [
        "inventory/pricing/currency.py",
        "inventory/pricing/discounts.py",
        "inventory/api/routes.py",
        "tests/test_currency.py",
    ] {
        assert!(paths.contains(&gold), "{gold} missing from {paths:?}");
    }
    // The best file is promoted to its text (u ≥ κ); the weakest stay cards.
    assert!(matches!(package.files[0].view, FileView::FullText { .. }));
    assert!(package.files[0].promotion_score >= 0.62);
    assert!(
        package
            .files
            .iter()
            .any(|f| matches!(f.view, FileView::Metadata { .. }))
    );
    // Files reached by expansion (the fixtures of `discover_implicit` exercise it)
    // say from where and by which relation.
    for f in package.files.iter().filter(|f| !f.anchor) {
        assert!(!f.path_from_anchor.is_empty(), "{}", f.path);
        assert!(f.priority.is_some_and(|p| p.value >= 0.15), "{}", f.path);
        assert!(f.rationale.iter().any(|r| r.starts_with("reached:")));
    }
    let markdown = package.to_markdown();
    assert!(markdown.starts_with("# Task context"));
    assert!(markdown.contains("def convert_currency"), "{markdown}");
    assert!(markdown.contains("## Relations"));
    // The picture: one node per file, best first, an edge per relation among them,
    // the anchors drawn apart; inside the budget.
    let picture = package.to_mermaid();
    assert!(markdown.ends_with(&format!("```mermaid\n{picture}```\n")));
    assert!(picture.starts_with("flowchart LR\n"));
    for (k, f) in package.files.iter().enumerate() {
        assert!(
            picture.contains(&format!("  f{}[\"{}<br>", k + 1, f.path)),
            "{picture}"
        );
    }
    let r = &package.relations[0];
    let node = |p: &str| package.files.iter().position(|f| f.path == p).unwrap() + 1;
    let edge = format!(
        "  f{} -->|{}| f{}",
        node(&r.from),
        r.relation.name(),
        node(&r.to)
    );
    assert!(picture.contains(&edge), "{edge} in {picture}");
    assert!(picture.contains("class f1"), "{picture}");
    assert!(package.budget.used_tokens <= package.budget.max_tokens);
}

#[test]
fn the_picture_escapes_hostile_paths_and_yields_to_the_budget() {
    let files = [
        (
            "src/a\"b`c.py",
            "from src.x import run\n\ndef total():\n    return run()\n",
        ),
        ("src/x.py", "def run():\n    return 1\n"),
        ("src/<i>#1.py", "def total_price():\n    return 2\n"),
    ];
    let session = Session::new(deepdiscovery_core::MemorySource::from_files(files).unwrap());
    let task = Task::new("`total` in src is wrong").unwrap();
    let package = session.discover(&task, &DiscoverConfig::default()).unwrap();
    let picture = package.to_mermaid();
    assert!(
        !picture.contains('`') && !picture.contains("<i>"),
        "{picture}"
    );
    assert!(picture.contains("a#quot;b#96;c.py") || picture.contains("#lt;i#gt;#35;1.py"));
    for line in picture.lines().skip(1) {
        // Every label's quotes are the node's own.
        assert_eq!(line.matches('"').count() % 2, 0, "{line}");
    }
    // A budget too small for the picture leaves it out and stays within itself.
    let small = DiscoverConfig {
        budget: deepdiscovery_core::Budget {
            max_tokens: 600,
            ..deepdiscovery_core::Budget::default()
        },
        ..DiscoverConfig::default()
    };
    let tight = session.discover(&task, &small).unwrap();
    assert!(tight.budget.used_tokens <= 600);
    assert_eq!(
        deepdiscovery_core::task::estimate_tokens(&tight.to_markdown()),
        tight.budget.used_tokens
    );
}

#[test]
fn weak_files_are_cut_from_the_package_but_keep_their_rank() {
    let session = Session::open(fixture_path("locate_app")).unwrap();
    let all = discover(&session, PRICING_TASK, &DiscoverConfig::default());
    let best = all.ranked_files[0].score;
    // Beyond the three best, weak files go.
    let weak: Vec<&str> = all
        .ranked_files
        .iter()
        .skip(3)
        .filter(|r| r.selected && r.score < 0.5 * best)
        .map(|r| r.path.as_str())
        .collect();
    assert!(!weak.is_empty(), "{:?}", all.ranked_files);
    let strict = DiscoverConfig {
        min_score_ratio: 0.5,
        ..DiscoverConfig::default()
    };
    let cut = discover(&session, PRICING_TASK, &strict);
    assert_well_formed(&cut, &session);
    let paths = cut.file_paths();
    for path in &weak {
        assert!(!paths.contains(path), "{path} kept in {paths:?}");
        assert!(cut.skipped.filtered.iter().any(|f| f == path), "{path}");
    }
    assert!(cut.files.len() >= 3);
    for f in &cut.files[3..] {
        assert!(f.score >= 0.5 * cut.files[0].score, "{}", f.path);
    }
    // The ranking itself does not change: the cut files are there, not selected.
    let order = |p: &ContextPackage| -> Vec<String> {
        p.ranked_files.iter().map(|r| r.path.clone()).collect()
    };
    assert_eq!(order(&all), order(&cut));
    for r in &cut.ranked_files {
        assert_eq!(r.selected, paths.contains(&r.path.as_str()), "{}", r.path);
    }
}

#[test]
fn discover_is_deterministic_and_a_second_session_agrees() {
    let config = DiscoverConfig::default();
    let a = Session::open(fixture_path("locate_app")).unwrap();
    let first = stable_json(&discover(&a, PRICING_TASK, &config));
    let again = stable_json(&discover(&a, PRICING_TASK, &config));
    let b = Session::open(fixture_path("locate_app")).unwrap();
    let fresh = stable_json(&discover(&b, PRICING_TASK, &config));
    assert_eq!(first, again);
    assert_eq!(first, fresh);
}

#[test]
fn tight_budgets_drop_files_but_never_overflow() {
    let session = Session::open(fixture_path("locate_app")).unwrap();
    let mut counts = Vec::new();
    for tokens in [20_000, 4_000, 1_500, 600, 200, 40] {
        let mut config = DiscoverConfig::default();
        config.budget.max_tokens = tokens;
        let package = discover(&session, PRICING_TASK, &config);
        assert_well_formed(&package, &session);
        counts.push(package.files.len());
    }
    assert!(counts[5] < counts[0], "{counts:?}");
    let mut config = DiscoverConfig::default();
    config.budget.max_tokens = 600;
    let package = discover(&session, PRICING_TASK, &config);
    assert!(!package.skipped.over_budget.is_empty());
}

const RETRY_TASK: &str = "Card payments fail on the first decline; we should try the charge three times before giving up";

#[test]
fn ablations_change_what_they_say() {
    let session = Session::open(fixture_path("spring_service")).unwrap();
    let full = discover(&session, RETRY_TASK, &DiscoverConfig::default());
    assert_well_formed(&full, &session);

    let mut config = DiscoverConfig::default();
    config.ablation.location_only = true;
    let only = discover(&session, RETRY_TASK, &config);
    assert_well_formed(&only, &session);
    assert_eq!(only.budget.stop, StopReason::Disabled);
    assert_eq!(only.budget.steps, 0);
    assert!(only.files.iter().all(|f| f.anchor));
    assert_eq!(only.files.len(), only.anchors.len());
    assert!(full.files.iter().any(|f| !f.anchor));

    let mut config = DiscoverConfig::default();
    config.ablation.no_implicit = true;
    let explicit = discover(&session, RETRY_TASK, &config);
    assert_well_formed(&explicit, &session);
    assert!(
        explicit
            .relations
            .iter()
            .all(|r| r.relation != Relation::TestOf && r.relation != Relation::ConfigBinding)
    );

    let mut config = DiscoverConfig::default();
    config.ablation.no_metadata_first = true;
    let eager = discover(&session, RETRY_TASK, &config);
    assert_well_formed(&eager, &session);
    let texts = |p: &ContextPackage| {
        p.files
            .iter()
            .filter(|f| !matches!(f.view, FileView::Metadata { .. }))
            .count()
    };
    assert!(
        texts(&eager) > texts(&full),
        "{} vs {}",
        texts(&eager),
        texts(&full)
    );

    let mut config = DiscoverConfig::default();
    config.ablation.no_compression = true;
    let flat = discover(&session, RETRY_TASK, &config);
    assert_well_formed(&flat, &session);
    assert_eq!(
        flat.repository_view.granularity,
        deepdiscovery_core::locate::Granularity::PathList
    );
}

#[test]
fn bad_configurations_are_refused_by_name() {
    let session = Session::open(fixture_path("locate_app")).unwrap();
    let task = Task::new(PRICING_TASK).unwrap();
    for (change, word) in [
        (
            (|c: &mut DiscoverConfig| c.tau = -0.1) as fn(&mut DiscoverConfig),
            "tau",
        ),
        (|c: &mut DiscoverConfig| c.kappa = f32::NAN, "kappa"),
        (|c: &mut DiscoverConfig| c.anchors = 0, "anchors"),
        (|c: &mut DiscoverConfig| c.budget.max_tokens = 0, "budget"),
        (
            |c: &mut DiscoverConfig| c.min_score_ratio = 1.5,
            "min_score_ratio",
        ),
    ] {
        let mut config = DiscoverConfig::default();
        change(&mut config);
        let err = session.discover(&task, &config).unwrap_err().to_string();
        assert!(err.contains(word), "{err}");
    }
}

#[test]
fn an_empty_repository_gives_an_empty_package() {
    let session = Session::new(MemorySource::from_files(Vec::<(&str, &str)>::new()).unwrap());
    let package = discover(&session, "fix the parser", &DiscoverConfig::default());
    assert!(package.files.is_empty());
    assert!(package.ranked_files.is_empty());
    assert_well_formed(&package, &session);
}

/// A small generated repository: modules importing each other, tests, a config.
fn generated_repo(modules: usize, seed: u64) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for i in 0..modules {
        let dep = (i as u64 * 7 + seed) as usize % modules;
        files.push((
            format!("pkg/mod{i}.py"),
            format!(
                "\"\"\"Module {i}.\"\"\"\nfrom pkg import mod{dep}\n\n\ndef handle_{i}(order):\n    return mod{dep}.handle_{dep}(order)\n\n\nclass Engine{i}:\n    retries = {seed}\n"
            ),
        ));
        if i % 3 == 0 {
            files.push((
                format!("tests/test_mod{i}.py"),
                format!("from pkg.mod{i} import handle_{i}\n\n\ndef test_{i}():\n    assert handle_{i}(1)\n"),
            ));
        }
    }
    files.push(("settings.toml".into(), "[engine]\nretries = 3\n".into()));
    files
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn packages_keep_their_promises_on_generated_repositories(
        modules in 2usize..30,
        seed in 0u64..1000,
        target in 0usize..30,
        tokens in 100usize..6000,
    ) {
        let files = generated_repo(modules, seed);
        let session = Session::new(MemorySource::from_files(files).unwrap());
        let task = format!("handle_{} fails for big orders in Engine{}", target % modules, target % modules);
        let mut config = DiscoverConfig::default();
        config.budget.max_tokens = tokens;
        let package = discover(&session, &task, &config);
        assert_well_formed(&package, &session);
        let again = discover(&session, &task, &config);
        prop_assert_eq!(stable_json(&package), stable_json(&again));
    }
}
