//! The task type and the artifact-role prior π(role | task type) of paper Eq. 6.
//!
//! # Approach
//!
//! [`classify`] is a transparent lexical classifier: every task type has a short list
//! of weighted patterns (words, phrases, shapes such as "expected … got"), each
//! counted at most twice. Matches in the first line (the issue title) count double,
//! because the title usually states the kind of change while the body mixes
//! reproduction steps, logs and test output. A stack trace anywhere in the text is
//! strong evidence for a bug fix. The confidence is the margin between the best and
//! the second-best score, damped while the evidence is thin:
//! `(best − second) / (best + 2)`. With no evidence at all the answer is
//! [`TaskType::BugFix`] (the most common kind of issue) with confidence 0.1.
//!
//! [`role_prior`] is a fixed, documented table: which artifact roles a task of each
//! type usually touches.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use crate::artifact::Role;

/// What kind of change the task asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskType {
    /// Something is wrong and must be fixed.
    BugFix,
    /// New behaviour.
    Feature,
    /// A failing or missing test.
    TestRepair,
    /// Configuration or deployment settings.
    ConfigUpdate,
    /// Restructuring without a change of behaviour.
    Refactor,
    /// Speed or memory.
    Performance,
    /// Documentation.
    Docs,
}

impl TaskType {
    /// All task types, in declaration order (also the tie-break order of [`classify`]).
    pub const ALL: [TaskType; 7] = [
        TaskType::BugFix,
        TaskType::Feature,
        TaskType::TestRepair,
        TaskType::ConfigUpdate,
        TaskType::Refactor,
        TaskType::Performance,
        TaskType::Docs,
    ];

    fn index(self) -> usize {
        self as usize
    }

    /// The snake_case name, as serialized (`"bug_fix"`).
    pub fn name(self) -> &'static str {
        match self {
            TaskType::BugFix => "bug_fix",
            TaskType::Feature => "feature",
            TaskType::TestRepair => "test_repair",
            TaskType::ConfigUpdate => "config_update",
            TaskType::Refactor => "refactor",
            TaskType::Performance => "performance",
            TaskType::Docs => "docs",
        }
    }

    /// The task type of a [`TaskType::name`].
    pub fn from_name(name: &str) -> Option<TaskType> {
        TaskType::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// Confidence returned when no pattern matched.
const DEFAULT_CONFIDENCE: f32 = 0.1;

/// Score points that a stack trace adds to [`TaskType::BugFix`].
const STACK_TRACE_WEIGHT: f32 = 3.0;

/// Damping of the margin: with `best` points of evidence the confidence is at most
/// `best / (best + DAMPING)`.
const DAMPING: f32 = 2.0;

/// The patterns, lower case, by task type: `(type, regex, weight)`.
const PATTERNS: &[(TaskType, &str, f32)] = &[
    // Bug fix: failure words, wrong results, expectation mismatches.
    (TaskType::BugFix, r"\btraceback\b", 2.0),
    (TaskType::BugFix, r"\b(?:error|errors)\b", 1.0),
    (
        TaskType::BugFix,
        r"\bexceptions?\b|\w(?:error|exception)\b",
        1.0,
    ),
    (
        TaskType::BugFix,
        r"\bcrash(?:es|ed|ing)?\b|\bsegfaults?\b|\bpanics?\b",
        1.5,
    ),
    (TaskType::BugFix, r"\bbugs?\b|\bregression\b", 1.0),
    (
        TaskType::BugFix,
        r"\bwrong(?:ly)?\b|\bincorrect(?:ly)?\b|\bbroken\b",
        1.5,
    ),
    (
        TaskType::BugFix,
        r"\b(?:fails?|failed|failing|failure)\b",
        1.0,
    ),
    (
        TaskType::BugFix,
        r"(?:doesn't|does not|don't|do not|isn't|is not|won't|not) work",
        1.5,
    ),
    (TaskType::BugFix, r"\bshould(?:n't| not)?\b", 0.5),
    (
        TaskType::BugFix,
        r"\bexpected\b[^.\n]{0,80}\b(?:got|but|instead|actual)\b",
        2.0,
    ),
    (
        TaskType::BugFix,
        r"\b(?:actual|expected) (?:behaviou?r|result|output)\b",
        1.0,
    ),
    (
        TaskType::BugFix,
        r"\binstead of\b|\bunexpected(?:ly)?\b",
        1.0,
    ),
    (TaskType::BugFix, r"\b(?:raises?|throws?|thrown)\b", 0.5),
    (TaskType::BugFix, r"\bfix(?:es|ed)?\b", 0.5),
    (
        TaskType::BugFix,
        r"\bfalse (?:positives?|negatives?)\b|\binconsisten(?:t|cy)\b",
        2.0,
    ),
    (
        TaskType::BugFix,
        r"\b(?:can't|cannot|unable to)\b|\bnot (?:fully|correctly|properly)\b",
        1.0,
    ),
    // Feature: requests for new behaviour.
    (
        TaskType::Feature,
        r"\badd(?:ing)? support\b|\bsupport for\b",
        2.0,
    ),
    (
        TaskType::Feature,
        r"\bwould be (?:nice|great|useful|helpful|good)\b",
        2.0,
    ),
    (
        TaskType::Feature,
        r"\bfeature request\b|\benhancement\b|\bproposal\b",
        2.0,
    ),
    (TaskType::Feature, r"\ballow(?:s|ing)?\b", 1.0),
    (
        TaskType::Feature,
        r"\b(?:new|an?) (?:option|feature|parameter|argument|flag|method|api|command|hook)\b",
        1.0,
    ),
    (
        TaskType::Feature,
        r"\bimplement(?:s|ing)?\b|\bintroduce\b|\bability to\b|\bprovide a way\b",
        1.0,
    ),
    (
        TaskType::Feature,
        r"\bit would be\b|\bcould we\b|\bplease add\b|\bcan we add\b",
        1.0,
    ),
    // Test repair: failing, flaky or missing tests.
    (
        TaskType::TestRepair,
        r"\btests? (?:is |are )?(?:fail(?:s|ing)?|broken)\b",
        2.0,
    ),
    (
        TaskType::TestRepair,
        r"\bfailing tests?\b|\bflaky\b|\bflakiness\b|\bintermittent(?:ly)? fail",
        2.5,
    ),
    (
        TaskType::TestRepair,
        r"\b(?:fix|add|missing|update) (?:the |a |unit )?tests?\b",
        1.5,
    ),
    (
        TaskType::TestRepair,
        r"\bunit tests?\b|\btest (?:case|suite|coverage)\b|\bci\b",
        0.5,
    ),
    (
        TaskType::TestRepair,
        r"\b(?:reproducible|test) failure\b",
        1.5,
    ),
    // Config update: settings and deployment.
    (
        TaskType::ConfigUpdate,
        r"\bsettings?\b|\bconfig(?:uration)?s?\b",
        0.75,
    ),
    (
        TaskType::ConfigUpdate,
        r"\benvironment variables?\b|\benv vars?\b",
        2.0,
    ),
    (
        TaskType::ConfigUpdate,
        r"\.(?:ya?ml|properties|toml|ini|env)\b|\bdockerfile\b|\bhelm\b",
        1.0,
    ),
    (
        TaskType::ConfigUpdate,
        r"\bdefault value\b|\bdeploy(?:ment|ing)?\b",
        1.0,
    ),
    // Refactor: structure without new behaviour.
    (TaskType::Refactor, r"\brefactor(?:s|ed|ing)?\b", 3.0),
    // Not "cleanup" or "simplify" alone: both are common domain words (cleanup
    // functions, symbolic simplification).
    (
        TaskType::Refactor,
        r"\bclean(?:\s|-)up\b|\bdead code\b|\bsimplify the (?:code|implementation|logic)\b",
        2.0,
    ),
    (
        TaskType::Refactor,
        r"\bdeprecat(?:e|ed|es|ion)\b|\brenam(?:e|ed|ing)\b",
        1.5,
    ),
    (
        TaskType::Refactor,
        r"\b(?:extract|move|split|consolidate|reorganiz|restructur)\w*\b[^.\n]{0,40}\b(?:into|to|module|class|function)\b",
        1.0,
    ),
    (
        TaskType::Refactor,
        r"\bduplicat(?:e|ed|ion) code\b|\bcode smell\b|\bremove unused\b",
        1.5,
    ),
    // Performance: speed and memory.
    (
        TaskType::Performance,
        r"\bslow(?:er|ly|ness|down)?\b|\bperformance\b",
        2.0,
    ),
    (
        TaskType::Performance,
        r"\bmemory\b|\bleaks?\b|\bcpu\b|\blatency\b|\bthroughput\b",
        1.5,
    ),
    (
        TaskType::Performance,
        r"\bfaster\b|\bspeed(?:\s?up)?\b|\boptimi[sz](?:e|ation|ed)\b",
        1.5,
    ),
    (
        TaskType::Performance,
        r"\bquadratic\b|\bo\(n\^?2\)|\btakes? (?:too |very )?long\b|\bbenchmarks?\b",
        1.5,
    ),
    // Docs: documentation changes.
    (
        TaskType::Docs,
        r"\btypo in the (?:docs|documentation|readme|docstring)\b",
        4.0,
    ),
    (
        TaskType::Docs,
        r"\bdocs\b|\bdocumentation\b|\bdocumented\b",
        1.5,
    ),
    (
        TaskType::Docs,
        r"\bdocstrings?\b|\breadme\b|\btutorial\b|\bchangelog\b",
        1.5,
    ),
    (
        TaskType::Docs,
        r"\btypos?\b|\bclarify\b|\bmisleading\b",
        1.0,
    ),
];

static COMPILED: LazyLock<Vec<(TaskType, Regex, f32)>> = LazyLock::new(|| {
    PATTERNS
        .iter()
        .map(|(t, p, w)| (*t, Regex::new(p).expect("valid built-in regex"), *w))
        .collect()
});

/// Shapes of stack traces in the languages the crate reads.
static STACK_TRACE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?m)Traceback \(most recent call last\)|^\s*at \S+\(\S+\.(?:java|kt|scala):\d+\)|^\s*at .+:\d+:\d+\)?\s*$|panicked at|^goroutine \d+ \[|Exception in thread "|^\s*#\d+\s+0x[0-9a-fA-F]+ in |^\s*File "[^"]+", line \d+"#,
    )
    .expect("valid built-in regex")
});

/// Each pattern counts at most this many times, so a long log cannot outvote the title.
const MAX_COUNT: usize = 2;

fn score_into(scores: &mut [f32; 7], text: &str, factor: f32) {
    for (task_type, regex, weight) in COMPILED.iter() {
        let count = regex.find_iter(text).take(MAX_COUNT).count();
        scores[task_type.index()] += weight * factor * count as f32;
    }
}

/// Classifies a task text; returns the type and a confidence in [0, 1].
pub fn classify(text: &str) -> (TaskType, f32) {
    let lower = text.to_lowercase();
    let (title, body) = match lower.split_once('\n') {
        Some((title, body)) => (title, body),
        None => (lower.as_str(), ""),
    };
    let mut scores = [0.0f32; 7];
    // The title states the intent; count it twice.
    score_into(&mut scores, title, 2.0);
    score_into(&mut scores, body, 1.0);
    if STACK_TRACE.is_match(text) {
        scores[TaskType::BugFix.index()] += STACK_TRACE_WEIGHT;
    }

    // Best and second best; the earlier type wins a tie.
    let mut best = TaskType::BugFix;
    for t in TaskType::ALL {
        if scores[t.index()] > scores[best.index()] {
            best = t;
        }
    }
    let top = scores[best.index()];
    if top <= 0.0 {
        return (TaskType::BugFix, DEFAULT_CONFIDENCE);
    }
    let second = TaskType::ALL
        .iter()
        .filter(|t| **t != best)
        .map(|t| scores[t.index()])
        .fold(0.0f32, f32::max);
    let confidence = ((top - second) / (top + DAMPING)).clamp(0.0, 1.0);
    (best, confidence)
}

/// π(role | task type): a prior over artifact roles, in [0, 1] per role.
///
/// | task type     | source | test | config | build | docs | schema | script | other |
/// |---------------|-------:|-----:|-------:|------:|-----:|-------:|-------:|------:|
/// | bug fix       | 1.0 | 0.3 | 0.3 | 0.2 | 0.1 | 0.3 | 0.2 | 0.1 |
/// | feature       | 1.0 | 0.3 | 0.4 | 0.3 | 0.3 | 0.4 | 0.2 | 0.1 |
/// | test repair   | 0.6 | 1.0 | 0.3 | 0.3 | 0.1 | 0.2 | 0.3 | 0.2 |
/// | config update | 0.5 | 0.3 | 1.0 | 0.6 | 0.3 | 0.4 | 0.4 | 0.2 |
/// | refactor      | 1.0 | 0.6 | 0.2 | 0.3 | 0.2 | 0.2 | 0.2 | 0.1 |
/// | performance   | 1.0 | 0.3 | 0.4 | 0.3 | 0.1 | 0.3 | 0.2 | 0.1 |
/// | docs          | 0.4 | 0.1 | 0.2 | 0.2 | 1.0 | 0.2 | 0.2 | 0.3 |
///
/// Tests are low for bug fixes and features: an anchor is where the change starts, and
/// the test that goes with it is reached from there by the Inference stage's TestOf
/// links (a test often shares the task's words more than the code it tests); schemas (migrations, interface definitions) matter when behaviour or data
/// shape changes; build manifests matter for config updates (dependencies, flags);
/// "other" (data, templates, assets) is a small constant except for docs, where
/// templates and assets often go along.
pub fn role_prior(task_type: TaskType, role: Role) -> f32 {
    // Columns: source, test, config, build, docs, schema, script, example, other.
    const TABLE: [[f32; 9]; 7] = [
        [1.0, 0.3, 0.3, 0.2, 0.1, 0.3, 0.2, 0.1, 0.1],
        [1.0, 0.3, 0.4, 0.3, 0.3, 0.4, 0.2, 0.3, 0.1],
        [0.6, 1.0, 0.3, 0.3, 0.1, 0.2, 0.3, 0.2, 0.2],
        [0.5, 0.3, 1.0, 0.6, 0.3, 0.4, 0.4, 0.2, 0.2],
        [1.0, 0.6, 0.2, 0.3, 0.2, 0.2, 0.2, 0.3, 0.1],
        [1.0, 0.3, 0.4, 0.3, 0.1, 0.3, 0.2, 0.3, 0.1],
        [0.4, 0.1, 0.2, 0.2, 1.0, 0.2, 0.2, 0.6, 0.3],
    ];
    let column = match role {
        Role::Source => 0,
        Role::Test => 1,
        Role::Config => 2,
        Role::Build => 3,
        Role::Docs => 4,
        Role::Schema => 5,
        Role::Script => 6,
        Role::Example => 7,
        Role::Other => 8,
    };
    TABLE[task_type.index()][column]
}

/// π(role | q) under an uncertain task type: the prior of the classified type,
/// blended with the bug-fix prior by the classifier's confidence.
pub fn blended_prior((task_type, confidence): (TaskType, f32), role: Role) -> f32 {
    let sure = role_prior(task_type, role);
    let default = role_prior(TaskType::BugFix, role);
    let c = confidence.clamp(0.0, 1.0);
    c * sure + (1.0 - c) * default
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bug_report_with_traceback_is_a_bug_fix() {
        let text = "Decoding an invalid session data crashes.
On browsing to any URL, I get the crash below.
Traceback (most recent call last):
  File \"/usr/lib/python3.8/site-packages/django/contrib/sessions/backends/base.py\", line 215, in _get_session
    return self._session_cache
AttributeError: 'SessionStore' object has no attribute '_session_cache'
";
        let (t, c) = classify(text);
        assert_eq!(t, TaskType::BugFix);
        assert!(c > 0.5, "{c}");
    }

    #[test]
    fn wrong_result_is_a_bug_fix() {
        let text = "CarbonInterval lte gives wrong result if the interval is absolute
I expected true but got false when comparing the two intervals.";
        assert_eq!(classify(text).0, TaskType::BugFix);
    }

    #[test]
    fn feature_request() {
        let text = "Allow case-insensitivity for code block language
It would be nice to add support for upper-case language names in code blocks, \
like Markdown does. Feature request: a new option to normalise them.";
        assert_eq!(classify(text).0, TaskType::Feature);
    }

    #[test]
    fn test_repair() {
        let text = "Flaky test: TestIndexWriter.testThreadInterrupt
This failing test is flaky on CI; the test fails about once a week with a timeout.";
        assert_eq!(classify(text).0, TaskType::TestRepair);
    }

    #[test]
    fn config_update() {
        let text = "Make the database pool size configurable through an environment variable
The setting in application.yml is hard-coded; read it from an env var instead \
so deployment can change it.";
        assert_eq!(classify(text).0, TaskType::ConfigUpdate);
    }

    #[test]
    fn refactor() {
        let text = "Refactor the query compiler
Clean up the duplicated code in compiler.py, rename `as_sql_helper` and deprecate \
the old private helpers.";
        assert_eq!(classify(text).0, TaskType::Refactor);
    }

    #[test]
    fn performance() {
        let text = "Serializer is very slow on large payloads
Serializing 10k objects takes too long and memory usage grows quadratically; \
performance regressed in 3.2.";
        assert_eq!(classify(text).0, TaskType::Performance);
    }

    #[test]
    fn docs() {
        let text = "Typo in the docs for QuerySet.bulk_update
The documentation says `batch_size` defaults to 100; the docstring says otherwise.";
        assert_eq!(classify(text).0, TaskType::Docs);
    }

    #[test]
    fn nothing_matches_defaults_to_low_confidence_bug_fix() {
        assert_eq!(classify(""), (TaskType::BugFix, DEFAULT_CONFIDENCE));
        assert_eq!(
            classify("lorem ipsum dolor"),
            (TaskType::BugFix, DEFAULT_CONFIDENCE)
        );
    }

    #[test]
    fn confidence_reflects_the_margin() {
        let (_, clear) = classify(
            "Crash: wrong result\nTraceback (most recent call last):\n  File \"a.py\", line 1\nValueError: bad",
        );
        let (_, mixed) = classify("Crash when the setting is wrong\nconfig environment variable");
        assert!(clear > mixed, "{clear} vs {mixed}");
    }

    #[test]
    fn deterministic_and_bounded_on_odd_input() {
        let inputs = [
            String::new(),
            "\n\n\n".to_string(),
            "ünïcödé 日本語 Ошибка crash ошибка".to_string(),
            "error ".repeat(100_000),
            "`".repeat(1000),
            "docs\u{0}slow\u{0}refactor".to_string(),
        ];
        for input in &inputs {
            let a = classify(input);
            let b = classify(input);
            assert_eq!(a, b);
            assert!((0.0..=1.0).contains(&a.1), "{a:?}");
        }
    }

    #[test]
    fn role_prior_table() {
        for t in TaskType::ALL {
            for r in Role::ALL {
                let p = role_prior(t, r);
                assert!((0.0..=1.0).contains(&p));
            }
        }
        assert_eq!(role_prior(TaskType::BugFix, Role::Source), 1.0);
        assert_eq!(role_prior(TaskType::TestRepair, Role::Test), 1.0);
        assert_eq!(role_prior(TaskType::ConfigUpdate, Role::Config), 1.0);
        assert_eq!(role_prior(TaskType::Docs, Role::Docs), 1.0);
        assert!(role_prior(TaskType::Docs, Role::Source) < role_prior(TaskType::Docs, Role::Docs));
        assert!(role_prior(TaskType::BugFix, Role::Other) < 0.2);
    }

    #[test]
    fn names_are_the_serialized_form() {
        for t in TaskType::ALL {
            assert_eq!(serde_json::to_value(t).unwrap(), t.name());
            assert_eq!(TaskType::from_name(t.name()), Some(t));
        }
        assert_eq!(TaskType::from_name("bugfix"), None);
    }
}
