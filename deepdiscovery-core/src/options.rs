//! Options as JSON — the session config and the query options that the C ABI and the
//! Python package pass — read into the core's types, so that every binding speaks one
//! format. The keys are the core's field names (`DiscoverConfig` serialized reads
//! back unchanged); unknown keys and wrong types are errors that name the dotted key,
//! never silently ignored.
//!
//! ```
//! use deepdiscovery_core::options::discover_options;
//!
//! let (config, hints) = discover_options(Some(
//!     r#"{"budget": {"max_tokens": 4000}, "ablation": {"no_history": true},
//!         "hints": {"paths": ["shop/payments.py"]}}"#,
//! ))?;
//! assert_eq!(config.budget.max_tokens, 4000);
//! assert!(config.ablation.no_history);
//! assert_eq!(hints.paths, ["shop/payments.py"]);
//!
//! let err = discover_options(Some(r#"{"budget": {"tokens": 1}}"#)).unwrap_err();
//! assert!(err.message.contains("unknown key `tokens` in options.budget"));
//! # Ok::<(), deepdiscovery_core::options::OptionsError>(())
//! ```

use serde_json::{Map, Value};

use crate::infer::ScopeLimits;
use crate::locate::{Ablation, LocateConfig, Preset, Weights};
use crate::plugins::LlmUse;
use crate::source::HistoryOptions;
use crate::{Budget, DiscoverAblation, DiscoverConfig, Error, Hints, Result, Session};

/// Why an options text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct OptionsError {
    /// Whether the text was not JSON at all, or JSON with a wrong key or value.
    pub kind: OptionsErrorKind,
    /// What to fix, naming the dotted key (`options.budget.max_tokens must be ...`).
    pub message: String,
}

/// The two ways options fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OptionsErrorKind {
    /// Not valid JSON, or not a JSON object.
    NotJson,
    /// An unknown key, a value of the wrong type, or out of range.
    Invalid,
}

impl From<OptionsError> for Error {
    fn from(e: OptionsError) -> Error {
        Error::InvalidConfig(e.message)
    }
}

type Failure = OptionsError;

/// What a session is opened with (`dd_session_open`'s config JSON, the Python
/// `Session(config=...)`).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SessionOptions {
    /// `builtin_rules`: whether the built-in implicit-relation rules apply.
    pub builtin_rules: Option<bool>,
    /// `rules`: caller rules in the TOML format of the built-in rule file.
    pub rules: Option<String>,
    /// `history`: `false` to never read the repository's history, `true` or an
    /// object `{"max_commits", "max_bytes", "max_files_per_commit", "max_seconds"}`
    /// to read it (with those bounds).
    pub history: Option<Option<HistoryOptions>>,
    /// `cache`: `false` to go without the on-disk facts cache (default on).
    pub cache: Option<bool>,
    /// `cache_dir`: the on-disk cache's directory (default
    /// [`crate::cache::default_dir`]: `$DEEPDISCOVERY_CACHE_DIR`, else the platform's
    /// cache directory).
    pub cache_dir: Option<String>,
    /// `watch`: whether a session opened on a directory watches it, so that a
    /// query lists only what changed since the last (default false; see
    /// [`crate::source::FsSourceBuilder::watch`]).
    pub watch: Option<bool>,
    /// `embedder_model`: a sentence-transformers folder whose model runs in-process
    /// (`semantic::transformer`, in builds with the `transformer` feature) and feeds
    /// the semantic features; `"builtin"` names the tuned model we ship.
    pub embedder_model: Option<String>,
}

impl SessionOptions {
    /// A session on the directory `root` with these options (the source watched
    /// when `watch` says so).
    ///
    /// # Errors
    /// See [`crate::source::FsSourceBuilder::build`] and [`SessionOptions::apply`].
    pub fn open(&self, root: impl Into<std::path::PathBuf>) -> Result<Session> {
        let source = crate::source::FsSource::builder(root)
            .watch(self.watch.unwrap_or(false))
            .build()?;
        self.apply(Session::new(source))
    }

    /// The session with these options applied.
    ///
    /// # Errors
    /// [`Error::InvalidRule`] when `rules` do not parse or compile.
    pub fn apply(&self, mut session: Session) -> Result<Session> {
        if let Some(on) = self.builtin_rules {
            session = session.with_builtin_rules(on);
        }
        if let Some(rules) = &self.rules {
            session = session.with_rule_specs(rules)?;
        }
        match self.history {
            Some(None) => session = session.with_history(false),
            Some(Some(bounds)) => session = session.with_history_options(bounds),
            None => {}
        }
        if let Some(cache) = self.disk_cache() {
            session = session.with_disk_cache(std::sync::Arc::new(cache));
        }
        if let Some(model) = &self.embedder_model {
            session = session.with_embedder(crate::semantic::load_embedder(model)?);
        }
        Ok(session)
    }

    /// The on-disk cache these options name: `None` when `cache` is false, or when
    /// the directory cannot be named or created (read-only, a file in the way): a
    /// session then goes without one, never fails for it.
    pub fn disk_cache(&self) -> Option<crate::cache::DiskCache> {
        if self.cache == Some(false) {
            return None;
        }
        let dir = match &self.cache_dir {
            Some(dir) => std::path::PathBuf::from(dir),
            None => crate::cache::default_dir()?,
        };
        crate::cache::DiskCache::open(dir).ok()
    }
}

/// Parses the session config (`None`, JSON `null` or `{}` for the defaults).
///
/// # Errors
/// [`OptionsError`] naming the key at fault.
pub fn session_options(text: Option<&str>) -> Result<SessionOptions, Failure> {
    let object = parse_object(text, "config_json")?;
    let obj = Obj::new(
        &object,
        "config",
        &[
            "builtin_rules",
            "rules",
            "history",
            "cache",
            "cache_dir",
            "watch",
            "embedder_model",
        ],
    )?;
    Ok(SessionOptions {
        builtin_rules: obj.bool("builtin_rules")?,
        rules: obj.string("rules")?,
        history: obj.with("history", history)?,
        cache: obj.bool("cache")?,
        cache_dir: obj.string("cache_dir")?,
        watch: obj.bool("watch")?,
        embedder_model: obj.string("embedder_model")?,
    })
}

/// `false` (no history), `true` (default bounds) or the bounds as an object.
fn history(value: &Value, at: &str) -> Result<Option<HistoryOptions>, Failure> {
    const EXPECTED: &str = "a boolean or {\"max_commits\", \"max_bytes\", \
         \"max_files_per_commit\", \"max_seconds\"}";
    match value {
        Value::Bool(false) => Ok(None),
        Value::Bool(true) => Ok(Some(HistoryOptions::default())),
        Value::Object(map) => {
            if map.contains_key("max_millis") {
                return Err(config_error(format!(
                    "{at}.max_millis is no longer read: history is bounded by max_commits \
                     and max_bytes, so that the same checkout gives the same package on any \
                     machine"
                )));
            }
            let obj = Obj::new(
                map,
                at,
                &[
                    "max_commits",
                    "max_bytes",
                    "max_files_per_commit",
                    "max_seconds",
                ],
            )?;
            let mut options = HistoryOptions::default();
            set(&mut options.max_commits, obj.usize("max_commits")?);
            set(
                &mut options.max_bytes,
                obj.usize("max_bytes")?.map(|b| b as u64),
            );
            set(
                &mut options.max_files_per_commit,
                obj.usize("max_files_per_commit")?,
            );
            set(
                &mut options.max_seconds,
                obj.usize("max_seconds")?.map(|s| s as u64),
            );
            Ok(Some(options))
        }
        _ => Err(wrong(at, EXPECTED, value)),
    }
}

/// Parses the options of a `discover` call into the configuration and the task
/// hints. Keys: `anchors`, `preset` (`"auto"` or `{"fixed": {sem, sum, rule,
/// prior}}`), `location_ablation`, `budget` (`max_tokens`, `max_steps`,
/// `location_share`, `max_files`), `tau`, `kappa`, `patience`, `ablation` (`location_only`,
/// `no_compression`, `no_implicit`, `no_metadata_first`, `no_history`), `llm`
/// (`environment`, `summary`, `promotion`, `max_calls`, `max_prompt_tokens`),
/// `full_graph`, `scope` (`rounds`, `per_round`, `max_name_files`,
/// `max_names_per_file`, `max_file_bytes`), `min_score_ratio`, `hints` (`paths`, `symbols`, `failing_tests`). The configuration is validated.
///
/// # Errors
/// [`OptionsError`] naming the key at fault.
pub fn discover_options(text: Option<&str>) -> Result<(DiscoverConfig, Hints), Failure> {
    let object = parse_object(text, "options_json")?;
    let obj = Obj::new(
        &object,
        "options",
        &[
            "anchors",
            "preset",
            "location_ablation",
            "budget",
            "tau",
            "kappa",
            "patience",
            "ablation",
            "llm",
            "full_graph",
            "scope",
            "min_score_ratio",
            "hints",
        ],
    )?;
    let mut config = DiscoverConfig::default();
    set(&mut config.anchors, obj.usize("anchors")?);
    set(&mut config.preset, obj.with("preset", preset)?);
    set(
        &mut config.location_ablation,
        obj.with("location_ablation", location_ablation)?,
    );
    set(&mut config.budget, obj.with("budget", budget)?);
    set(&mut config.tau, obj.f32("tau")?);
    set(&mut config.kappa, obj.f32("kappa")?);
    set(&mut config.patience, obj.usize("patience")?);
    set(
        &mut config.ablation,
        obj.with("ablation", discover_ablation)?,
    );
    set(&mut config.llm, obj.with("llm", llm_use)?);
    set(&mut config.full_graph, obj.bool("full_graph")?);
    set(&mut config.scope, obj.with("scope", scope_limits)?);
    set(&mut config.min_score_ratio, obj.f32("min_score_ratio")?);
    let hints = obj.with("hints", hints)?.unwrap_or_default();
    config.validate().map_err(invalid)?;
    Ok((config, hints))
}

/// Parses the options of a `locate` call: `anchors`, `preset`, `ablation` (`no_sem`,
/// `no_sum`, `no_rule`, `no_prior`, `no_history`, `no_past_changes`, `no_bridge`), `budget`, `llm`, `hints`. The
/// configuration is validated.
///
/// # Errors
/// [`OptionsError`] naming the key at fault.
pub fn locate_options(text: Option<&str>) -> Result<(LocateConfig, Hints), Failure> {
    let object = parse_object(text, "options_json")?;
    let obj = Obj::new(
        &object,
        "options",
        &["anchors", "preset", "ablation", "budget", "llm", "hints"],
    )?;
    let mut config = LocateConfig::default();
    set(&mut config.anchors, obj.usize("anchors")?);
    set(&mut config.preset, obj.with("preset", preset)?);
    set(
        &mut config.ablation,
        obj.with("ablation", location_ablation)?,
    );
    set(&mut config.budget, obj.with("budget", budget)?);
    set(&mut config.llm, obj.with("llm", llm_use)?);
    let hints = obj.with("hints", hints)?.unwrap_or_default();
    config.validate().map_err(invalid)?;
    Ok((config, hints))
}

fn set<T>(field: &mut T, value: Option<T>) {
    if let Some(value) = value {
        *field = value;
    }
}

/// The top-level JSON object; absent, `null` and `{}` all mean the defaults.
fn parse_object(text: Option<&str>, name: &str) -> Result<Map<String, Value>, Failure> {
    let Some(text) = text else {
        return Ok(Map::new());
    };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(Value::Null) => Ok(Map::new()),
        Ok(other) => Err(not_json(format!(
            "{name} must be a JSON object, got {}",
            json_kind(&other)
        ))),
        Err(e) => Err(not_json(format!("{name} is not valid JSON: {e}"))),
    }
}

/// A JSON object whose keys were checked against the allowed ones, read key by key
/// with errors that name the dotted key path.
struct Obj<'a> {
    map: &'a Map<String, Value>,
    at: String,
}

impl<'a> Obj<'a> {
    fn new(map: &'a Map<String, Value>, at: &str, allowed: &[&str]) -> Result<Obj<'a>, Failure> {
        // serde_json's map is ordered, so the first unknown key reported is stable.
        if let Some(key) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(config_error(format!(
                "unknown key `{key}` in {at} (expected one of: {})",
                allowed.join(", ")
            )));
        }
        Ok(Obj {
            map,
            at: at.to_string(),
        })
    }

    fn path(&self, key: &str) -> String {
        format!("{}.{key}", self.at)
    }

    /// The value of `key` read by `read`, or `None` when absent or `null`.
    fn with<T>(
        &self,
        key: &str,
        read: impl FnOnce(&Value, &str) -> Result<T, Failure>,
    ) -> Result<Option<T>, Failure> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => read(value, &self.path(key)).map(Some),
        }
    }

    fn bool(&self, key: &str) -> Result<Option<bool>, Failure> {
        self.with(key, |v, at| {
            v.as_bool().ok_or_else(|| wrong(at, "a boolean", v))
        })
    }

    fn usize(&self, key: &str) -> Result<Option<usize>, Failure> {
        self.with(key, |v, at| {
            v.as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| wrong(at, "a non-negative integer", v))
        })
    }

    fn f32(&self, key: &str) -> Result<Option<f32>, Failure> {
        self.with(key, |v, at| {
            v.as_f64()
                .map(|x| x as f32)
                .filter(|x| x.is_finite())
                .ok_or_else(|| wrong(at, "a finite number", v))
        })
    }

    fn string(&self, key: &str) -> Result<Option<String>, Failure> {
        self.with(key, |v, at| {
            v.as_str()
                .map(str::to_string)
                .ok_or_else(|| wrong(at, "a string", v))
        })
    }

    fn strings(&self, key: &str) -> Result<Option<Vec<String>>, Failure> {
        self.with(key, |v, at| {
            let items = v
                .as_array()
                .ok_or_else(|| wrong(at, "an array of strings", v))?;
            items
                .iter()
                .map(|item| {
                    item.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| wrong(at, "an array of strings", item))
                })
                .collect()
        })
    }
}

fn object<'a>(value: &'a Value, at: &str) -> Result<&'a Map<String, Value>, Failure> {
    value
        .as_object()
        .ok_or_else(|| wrong(at, "an object", value))
}

/// `"auto"` (the learned scorer), `"paper"` (Eq. 6's hand-set presets), or fixed
/// Eq. 6 weights `{"fixed": {"sem", "sum", "rule", "prior"}}` (the capitalized
/// `"Auto"` / `"Paper"` / `"Fixed"` of the core's serialization also work).
fn preset(value: &Value, at: &str) -> Result<Preset, Failure> {
    const EXPECTED: &str =
        "\"auto\", \"paper\" or {\"fixed\": {\"sem\", \"sum\", \"rule\", \"prior\"}}";
    match value {
        Value::String(s) if s == "auto" || s == "Auto" => Ok(Preset::Auto),
        Value::String(s) if s == "paper" || s == "Paper" => Ok(Preset::Paper),
        Value::Object(map) if map.len() == 1 => {
            let (key, inner) = map
                .iter()
                .next()
                .ok_or_else(|| wrong(at, EXPECTED, value))?;
            if key != "fixed" && key != "Fixed" {
                return Err(wrong(at, EXPECTED, value));
            }
            let at = format!("{at}.{key}");
            let obj = Obj::new(object(inner, &at)?, &at, &["sem", "sum", "rule", "prior"])?;
            let weight = |name: &str| {
                obj.f32(name)?
                    .ok_or_else(|| config_error(format!("{} is required", obj.path(name))))
            };
            Ok(Preset::Fixed(Weights {
                sem: weight("sem")?,
                sum: weight("sum")?,
                rule: weight("rule")?,
                prior: weight("prior")?,
            }))
        }
        _ => Err(wrong(at, EXPECTED, value)),
    }
}

fn location_ablation(value: &Value, at: &str) -> Result<Ablation, Failure> {
    let obj = Obj::new(
        object(value, at)?,
        at,
        &[
            "no_sem",
            "no_sum",
            "no_rule",
            "no_prior",
            "no_history",
            "no_past_changes",
            "no_bridge",
        ],
    )?;
    let mut ablation = Ablation::default();
    set(&mut ablation.no_sem, obj.bool("no_sem")?);
    set(&mut ablation.no_sum, obj.bool("no_sum")?);
    set(&mut ablation.no_rule, obj.bool("no_rule")?);
    set(&mut ablation.no_prior, obj.bool("no_prior")?);
    set(&mut ablation.no_history, obj.bool("no_history")?);
    set(&mut ablation.no_past_changes, obj.bool("no_past_changes")?);
    set(&mut ablation.no_bridge, obj.bool("no_bridge")?);
    Ok(ablation)
}

fn discover_ablation(value: &Value, at: &str) -> Result<DiscoverAblation, Failure> {
    let obj = Obj::new(
        object(value, at)?,
        at,
        &[
            "location_only",
            "no_compression",
            "no_implicit",
            "no_metadata_first",
            "no_history",
        ],
    )?;
    let mut ablation = DiscoverAblation::default();
    set(&mut ablation.location_only, obj.bool("location_only")?);
    set(&mut ablation.no_compression, obj.bool("no_compression")?);
    set(&mut ablation.no_implicit, obj.bool("no_implicit")?);
    set(
        &mut ablation.no_metadata_first,
        obj.bool("no_metadata_first")?,
    );
    set(&mut ablation.no_history, obj.bool("no_history")?);
    Ok(ablation)
}

/// `{"environment", "summary", "promotion", "max_calls", "max_prompt_tokens"}`.
fn llm_use(value: &Value, at: &str) -> Result<LlmUse, Failure> {
    let obj = Obj::new(
        object(value, at)?,
        at,
        &[
            "environment",
            "summary",
            "promotion",
            "max_calls",
            "max_prompt_tokens",
        ],
    )?;
    let mut llm = LlmUse::default();
    set(&mut llm.environment, obj.bool("environment")?);
    set(&mut llm.summary, obj.bool("summary")?);
    set(&mut llm.promotion, obj.bool("promotion")?);
    set(&mut llm.max_calls, obj.usize("max_calls")?);
    set(&mut llm.max_prompt_tokens, obj.usize("max_prompt_tokens")?);
    Ok(llm)
}

fn scope_limits(value: &Value, at: &str) -> Result<ScopeLimits, Failure> {
    let obj = Obj::new(
        object(value, at)?,
        at,
        &[
            "rounds",
            "per_round",
            "max_name_files",
            "max_names_per_file",
            "max_file_bytes",
        ],
    )?;
    let mut limits = ScopeLimits::default();
    set(&mut limits.rounds, obj.usize("rounds")?);
    set(&mut limits.per_round, obj.usize("per_round")?);
    set(&mut limits.max_name_files, obj.usize("max_name_files")?);
    set(
        &mut limits.max_names_per_file,
        obj.usize("max_names_per_file")?,
    );
    set(
        &mut limits.max_file_bytes,
        obj.usize("max_file_bytes")?.map(|b| b as u64),
    );
    Ok(limits)
}

fn budget(value: &Value, at: &str) -> Result<Budget, Failure> {
    let obj = Obj::new(
        object(value, at)?,
        at,
        &["max_tokens", "max_steps", "location_share", "max_files"],
    )?;
    let mut budget = Budget::default();
    set(&mut budget.max_tokens, obj.usize("max_tokens")?);
    set(&mut budget.max_steps, obj.usize("max_steps")?);
    set(&mut budget.location_share, obj.f32("location_share")?);
    set(&mut budget.max_files, obj.usize("max_files")?);
    Ok(budget)
}

fn hints(value: &Value, at: &str) -> Result<Hints, Failure> {
    let obj = Obj::new(
        object(value, at)?,
        at,
        &["paths", "symbols", "failing_tests"],
    )?;
    Ok(Hints {
        paths: obj.strings("paths")?.unwrap_or_default(),
        symbols: obj.strings("symbols")?.unwrap_or_default(),
        failing_tests: obj.strings("failing_tests")?.unwrap_or_default(),
    })
}

/// A wrong key or value. The message says what to fix; the `invalid configuration:`
/// prefix comes from [`Error::InvalidConfig`] when it is converted.
fn config_error(message: String) -> Failure {
    OptionsError {
        kind: OptionsErrorKind::Invalid,
        message,
    }
}

/// Text that is not a JSON object.
fn not_json(message: String) -> Failure {
    OptionsError {
        kind: OptionsErrorKind::NotJson,
        message,
    }
}

/// A configuration that parsed but is out of range.
fn invalid(error: Error) -> Failure {
    match error {
        Error::InvalidConfig(message) => config_error(message),
        other => config_error(other.to_string()),
    }
}

fn wrong(at: &str, expected: &str, got: &Value) -> Failure {
    config_error(format!("{at} must be {expected}, got {}", json_kind(got)))
}

/// What kind of JSON value `value` is, for error messages ("an array", "null"…).
pub(crate) fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_null_and_empty_mean_defaults() {
        for text in [None, Some("null"), Some("{}"), Some(" { } ")] {
            let (config, hints) = discover_options(text).unwrap();
            assert_eq!(config, DiscoverConfig::default());
            assert_eq!(hints, Hints::default());
        }
        assert_eq!(session_options(None).unwrap(), SessionOptions::default());
    }

    #[test]
    fn the_core_serialization_reads_back_unchanged() {
        let mut config = DiscoverConfig {
            anchors: 5,
            preset: Preset::Fixed(Weights {
                sem: 0.4,
                sum: 0.1,
                rule: 0.3,
                prior: 0.2,
            }),
            tau: 0.2,
            kappa: 0.7,
            patience: 3,
            ..DiscoverConfig::default()
        };
        config.budget.max_tokens = 3000;
        config.budget.location_share = 0.3;
        config.location_ablation.no_prior = true;
        config.ablation.no_implicit = true;
        config.full_graph = true;
        config.scope.per_round = 10;
        config.scope.max_file_bytes = 1 << 20;
        for config in [DiscoverConfig::default(), config] {
            let json = serde_json::to_string(&config).unwrap();
            assert_eq!(discover_options(Some(&json)).unwrap().0, config, "{json}");
            let locate = config.locate();
            let json = serde_json::to_string(&locate).unwrap();
            assert_eq!(locate_options(Some(&json)).unwrap().0, locate, "{json}");
        }
    }

    #[test]
    fn partial_options_keep_the_other_defaults() {
        let (config, hints) = discover_options(Some(
            r#"{"budget": {"max_tokens": 3000}, "ablation": {"location_only": true},
                "preset": "auto", "hints": {"paths": ["a.py"]}}"#,
        ))
        .unwrap();
        assert_eq!(config.budget.max_tokens, 3000);
        assert_eq!(config.budget.max_steps, Budget::default().max_steps);
        assert!(config.ablation.location_only);
        assert!(!config.ablation.no_implicit);
        assert_eq!(config.tau, DiscoverConfig::default().tau);
        assert_eq!(hints.paths, ["a.py"]);
    }

    #[test]
    fn history_is_a_switch_or_its_bounds() {
        let read = |text: &str| session_options(Some(text)).map(|o| o.history);
        assert_eq!(read(r#"{"history": false}"#).unwrap(), Some(None));
        assert_eq!(
            read(r#"{"history": true}"#).unwrap(),
            Some(Some(HistoryOptions::default()))
        );
        let bounded = read(r#"{"history": {"max_commits": 20, "max_bytes": 4096}}"#).unwrap();
        assert_eq!(
            bounded,
            Some(Some(HistoryOptions {
                max_commits: 20,
                max_bytes: 4096,
                ..HistoryOptions::default()
            }))
        );
        for (text, message) in [
            (r#"{"history": 1}"#, "config.history must be a boolean or"),
            (
                r#"{"history": {"depth": 1}}"#,
                "unknown key `depth` in config.history",
            ),
            (
                r#"{"history": {"max_millis": 300}}"#,
                "config.history.max_millis is no longer read",
            ),
        ] {
            let err = read(text).unwrap_err();
            assert_eq!(err.kind, OptionsErrorKind::Invalid, "{text}");
            assert!(err.message.contains(message), "{}", err.message);
        }
        let (config, _) = discover_options(Some(r#"{"ablation": {"no_history": true}}"#)).unwrap();
        assert!(config.ablation.no_history);
    }

    #[test]
    fn bad_json_is_invalid_json() {
        for text in ["{", "[1, 2]", "\"x\"", ""] {
            let err = discover_options(Some(text)).unwrap_err();
            assert_eq!(err.kind, OptionsErrorKind::NotJson, "{text}");
        }
    }

    #[test]
    fn unknown_keys_and_wrong_types_name_the_key() {
        let cases = [
            (r#"{"budgte": {}}"#, "unknown key `budgte` in options"),
            (
                r#"{"budget": {"tokens": 1}}"#,
                "unknown key `tokens` in options.budget",
            ),
            (
                r#"{"tau": "high"}"#,
                "options.tau must be a finite number, got a string",
            ),
            (
                r#"{"anchors": -1}"#,
                "options.anchors must be a non-negative integer",
            ),
            (
                r#"{"anchors": 2.5}"#,
                "options.anchors must be a non-negative integer",
            ),
            (
                r#"{"ablation": {"no_implicit": 1}}"#,
                "options.ablation.no_implicit must be a boolean",
            ),
            (r#"{"preset": "fast"}"#, "options.preset must be \"auto\""),
            (
                r#"{"preset": {"fixed": {"sem": 1}}}"#,
                "options.preset.fixed.sum is required",
            ),
            (
                r#"{"hints": {"paths": [1]}}"#,
                "options.hints.paths must be an array of strings",
            ),
        ];
        for (text, expected) in cases {
            let err = discover_options(Some(text)).unwrap_err();
            assert_eq!(err.kind, OptionsErrorKind::Invalid, "{text}");
            assert!(err.message.contains(expected), "{text}: {}", err.message);
        }
        let err = locate_options(Some(r#"{"tau": 0.2}"#)).unwrap_err();
        assert!(err.message.contains("unknown key `tau`"), "{}", err.message);
        let err = session_options(Some(r#"{"builtin_rules": "yes"}"#)).unwrap_err();
        assert!(
            err.message
                .contains("config.builtin_rules must be a boolean")
        );
    }

    #[test]
    fn watch_opens_a_watched_source() {
        let options = session_options(Some(r#"{"watch": true, "cache": false}"#)).unwrap();
        assert_eq!(options.watch, Some(true));
        let err = session_options(Some(r#"{"watch": 1}"#)).unwrap_err();
        assert!(err.message.contains("config.watch must be a boolean"));
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let session = options.open(&root).unwrap();
        let first = session.artifacts().unwrap().len();
        assert!(first > 0);
        assert_eq!(
            session.artifacts().unwrap().len(),
            first,
            "the same listing by difference"
        );
        assert!(matches!(
            SessionOptions::default().open(root.join("no-such-dir")),
            Err(crate::Error::RootNotFound(_))
        ));
    }
}
