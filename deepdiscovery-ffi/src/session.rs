//! The session handle and the queries: open, plug-ins, discover, locate, free.

use std::ffi::{c_char, c_void};
use std::sync::{Arc, RwLock};

use deepdiscovery_core::options;
use deepdiscovery_core::{Session, Task};

use crate::boundary::{Failure, guard, optional_str_arg, required_out, str_arg, to_c_string};
use crate::plugins::{CEmbedder, CLanguageModel, DdEmbedFn, DdLlmCompleteFn};
use crate::status::DdStatus;

/// An open repository session (opaque). Create it with `dd_session_open`, release it
/// with `dd_session_free`.
///
/// A session may be queried from several threads at once; it keeps the facts it
/// parsed across queries and revalidates them against the repository on every
/// query.
pub struct DdSession {
    // `Session::with_*` consumes the session, so the plug-in setters take it out and
    // put it back under the write lock; queries share the read lock.
    inner: RwLock<Option<Session>>,
}

impl DdSession {
    fn read<T>(&self, query: impl FnOnce(&Session) -> Result<T, Failure>) -> Result<T, Failure> {
        let guard = self.inner.read().unwrap_or_else(|e| e.into_inner());
        query(guard.as_ref().ok_or_else(unusable)?)
    }

    fn update(&self, change: impl FnOnce(Session) -> Session) -> Result<(), Failure> {
        let mut guard = self.inner.write().unwrap_or_else(|e| e.into_inner());
        let session = guard.take().ok_or_else(unusable)?;
        *guard = Some(change(session));
        Ok(())
    }
}

fn unusable() -> Failure {
    Failure::new(
        DdStatus::Internal,
        "the session is unusable after an internal error while a plug-in was set",
    )
}

/// The session behind a handle.
///
/// # Safety
/// `session` is NULL or a live handle from `dd_session_open`.
unsafe fn handle<'a>(session: *const DdSession) -> Result<&'a DdSession, Failure> {
    // SAFETY: the caller's contract.
    unsafe { session.as_ref() }.ok_or_else(|| Failure::null("session"))
}

/// The task, with the hints of the options.
fn task(text: &str, hints: deepdiscovery_core::Hints) -> Result<Task, Failure> {
    Ok(Task::new(text)?.with_hints(hints))
}

/// Opens a session on the repository at `root`.
///
/// `root` is a NUL-terminated UTF-8 path to a directory. `config_json` is NULL (the
/// defaults) or a JSON object with any of:
///   - `"builtin_rules"`: boolean, whether the built-in implicit-relation rules
///     apply (default true);
///   - `"rules"`: string, extra relation rules in the TOML format of the built-in
///     rule file (`[[rule]]` tables);
///   - `"history"`: `false` to never read the repository's git history, `true`
///     (default) to read it when the root is in a git work tree, or an object
///     `{"max_commits": 2000, "max_bytes": 16777216, "max_files_per_commit": 50}` to read
///     it within those bounds. Only ancestors of the checked-out commit are read;
///   - `"cache"`: boolean, whether per-file facts are kept in the on-disk cache
///     shared by processes (default true; answers are the same without it);
///   - `"cache_dir"`: string, its directory (default: `$DEEPDISCOVERY_CACHE_DIR`,
///     else the platform's cache directory). A directory that cannot be used
///     means no cache, never an error;
///   - `"watch"`: boolean, whether the directory is watched so that each query
///     lists only what changed since the last (default false; on Linux, with
///     inotify; for long-lived handles queried again and again). The answers are
///     the same either way;
///   - `"embedder_model"`: string, a sentence-transformers folder (`config.json`,
///     `model.safetensors`, `tokenizer.json`) whose model runs in-process and embeds
///     the task and the best candidates' definitions, or `"builtin"` for our tuned
///     model (found through `$DEEPDISCOVERY_BUILTIN_MODEL`, else in the source
///     checkout the library was built from); it is read and checked here
///     (`DD_STATUS_MODEL` when it cannot be used, `DD_STATUS_INVALID_CONFIG` when
///     no built-in model is found).
///
/// Unknown keys are an error. Apart from an `embedder_model`, nothing is read or
/// parsed before the first query.
///
/// On success `*out` is a new handle, to be released with `dd_session_free`, and
/// `*error_out` (if `error_out` is not NULL) is NULL. On failure `*out` is NULL and
/// `*error_out` is an owned message (free it with `dd_string_free`).
///
/// Errors: `DD_STATUS_NULL_ARGUMENT` (root or out), `DD_STATUS_INVALID_UTF8`,
/// `DD_STATUS_INVALID_JSON`, `DD_STATUS_INVALID_CONFIG`, `DD_STATUS_ROOT_NOT_FOUND`,
/// `DD_STATUS_ROOT_NOT_DIRECTORY`, `DD_STATUS_IO`, `DD_STATUS_INVALID_RULE`,
/// `DD_STATUS_MODEL`.
///
/// # Safety
/// `root` and `config_json` are NULL or NUL-terminated strings; `out` and
/// `error_out` are NULL or valid for a write of one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dd_session_open(
    root: *const c_char,
    config_json: *const c_char,
    out: *mut *mut DdSession,
    error_out: *mut *mut c_char,
) -> DdStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        guard(error_out, || {
            let out = required_out(out, "out")?;
            let root = str_arg(root, "root")?;
            let config = options::session_options(optional_str_arg(config_json, "config_json")?)?;
            let session = config.open(root)?;
            let handle = Box::new(DdSession {
                inner: RwLock::new(Some(session)),
            });
            out.write(Box::into_raw(handle));
            Ok(())
        })
    }
}

/// Releases a session. NULL is allowed and does nothing.
///
/// No other call may be using the session, and it must not be used afterwards. The
/// plug-in callbacks are not called any more once this returns; their `user_data`
/// may be released then.
///
/// # Safety
/// `session` is NULL or a handle from `dd_session_open` not yet released.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dd_session_free(session: *mut DdSession) {
    if session.is_null() {
        return;
    }
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: made by `Box::into_raw` in `dd_session_open`, released once.
        drop(unsafe { Box::from_raw(session) });
    }));
}

/// Plugs a language model into the session: the LLM-assisted terms of the method
/// then call `complete`. Replaces any model set before.
///
/// `name` (NULL for `"c-callback"`) is a short name shown in rationales and notes;
/// it is copied. `context_window` is the model's context size in tokens, used to
/// budget prompts. `complete` must not be NULL; see `dd_llm_complete_fn` for who
/// owns the strings. `user_data` is passed to every call of `complete` untouched.
///
/// The callback may be called from any thread, several calls at once: it must be
/// thread-safe. It must not unwind (no C++ exception may leave it) and must not call
/// into the library with the same session. `user_data` must stay valid until
/// `dd_session_free`. A call that returns NULL or a string that is not UTF-8 counts
/// as a failed call: the query goes on without the model (its deterministic path)
/// and says so in the package's `budget.llm` (calls, failures, notes).
///
/// Waits for queries running on the session to finish.
///
/// Errors: `DD_STATUS_NULL_ARGUMENT` (session or complete), `DD_STATUS_INVALID_UTF8`.
///
/// # Safety
/// `session` is NULL or a live handle; `name` is NULL or a NUL-terminated string;
/// `complete` and `user_data` keep the contract above; `error_out` is NULL or valid
/// for a write of one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dd_session_set_llm(
    session: *mut DdSession,
    name: *const c_char,
    context_window: usize,
    complete: DdLlmCompleteFn,
    user_data: *mut c_void,
    error_out: *mut *mut c_char,
) -> DdStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        guard(error_out, || {
            let session = handle(session)?;
            let complete = complete.ok_or_else(|| Failure::null("complete"))?;
            let name = optional_str_arg(name, "name")?.unwrap_or("c-callback");
            let model = CLanguageModel::new(name.to_string(), context_window, complete, user_data);
            session.update(|s| s.with_language_model(Arc::new(model)))
        })
    }
}

/// Plugs an embedding model into the session: the semantic term of anchor scoring
/// then fuses lexical similarity with the cosine similarity of the vectors `embed`
/// returns. Replaces any embedder set before.
///
/// `dimension` (at least 1) is the length of every vector. `embed` must not be
/// NULL; see `dd_embed_fn` for who owns the texts and the output buffer.
/// `user_data` is passed to every call untouched.
///
/// The callback may be called from any thread, several calls at once: it must be
/// thread-safe. It must not unwind and must not call into the library with the same
/// session. `user_data` must stay valid until `dd_session_free`. A call that
/// returns non-zero or writes a non-finite number counts as a failed call: the
/// query scores lexically only and says so in the result's `notes`.
///
/// Waits for queries running on the session to finish.
///
/// Errors: `DD_STATUS_NULL_ARGUMENT` (session or embed), `DD_STATUS_INVALID_CONFIG`
/// (dimension 0).
///
/// # Safety
/// `session` is NULL or a live handle; `embed` and `user_data` keep the contract
/// above; `error_out` is NULL or valid for a write of one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dd_session_set_embedder(
    session: *mut DdSession,
    dimension: usize,
    embed: DdEmbedFn,
    user_data: *mut c_void,
    error_out: *mut *mut c_char,
) -> DdStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        guard(error_out, || {
            let session = handle(session)?;
            let embed = embed.ok_or_else(|| Failure::null("embed"))?;
            if dimension == 0 {
                return Err(Failure::new(
                    DdStatus::InvalidConfig,
                    "invalid configuration: the embedding dimension must be at least 1",
                ));
            }
            let embedder = CEmbedder::new(dimension, embed, user_data);
            session.update(|s| s.with_embedder(Arc::new(embedder)))
        })
    }
}

/// Runs the whole method (Location, implementation-path recovery, metadata-first
/// construction) for `task` and returns the context package as JSON.
///
/// `task` is the task in plain language, NUL-terminated UTF-8. `options_json` is
/// NULL (the defaults) or a JSON object with any of these keys (the fields of the
/// core's `DiscoverConfig`, with the same defaults; unknown keys are an error):
///   - `"anchors"`: integer, K_a (8);
///   - `"preset"`: `"auto"` (the learned scorer), `"paper"` (Eq. 6 alone) or
///     `{"fixed": {"sem": f, "sum": f, "rule": f, "prior": f}}`;
///   - `"location_ablation"`: `{"no_sem", "no_sum", "no_rule", "no_prior",
///     "no_history"}` booleans;
///   - `"budget"`: `{"max_tokens": 16000, "max_steps": 64, "location_share": 0.25,
///     "max_files": 100000}` (beyond `max_files` files, the rest are ranked by path);
///   - `"tau"` (0.15), `"kappa"` (0.62): numbers in [0, 1];
///   - `"patience"`: integer (2);
///   - `"min_score_ratio"`: number in [0, 1] (0), files whose final score is below
///     this share of the best file's are left out of the package (not of
///     `ranked_files`), but for the three best and those the task names;
///   - `"ablation"`: `{"location_only", "no_compression", "no_implicit",
///     "no_metadata_first", "no_history"}` booleans;
///   - `"llm"`: what a language model set with `dd_session_set_llm` is asked:
///     `{"environment": true, "summary": true, "promotion": true, "max_calls": 3,
///     "max_prompt_tokens": 6000}` (the package's `budget.llm` reports its calls);
///   - `"full_graph"`: boolean (false), parse every file for the graph instead of
///     the task's neighbourhood;
///   - `"scope"`: how the neighbourhood grows, `{"rounds": 2, "per_round": 48,
///     "max_name_files": 24, "max_names_per_file": 100, "max_file_bytes": 262144}`;
///   - `"hints"`: `{"paths": [...], "symbols": [...], "failing_tests": [...]}`,
///     what the caller already knows (strings).
///
/// On success `*package_json_out` is the package (schema `dd_schema_version()`,
/// the same JSON as every other binding), owned by the caller: free it with
/// `dd_string_free`. On failure it is NULL and `*error_out` (if `error_out` is not
/// NULL) is an owned message.
///
/// Thread-safe: several threads may query one session at once.
///
/// Errors: `DD_STATUS_NULL_ARGUMENT` (session, task or package_json_out),
/// `DD_STATUS_INVALID_UTF8`, `DD_STATUS_EMPTY_TASK`, `DD_STATUS_INVALID_JSON`,
/// `DD_STATUS_INVALID_CONFIG`, `DD_STATUS_ROOT_NOT_FOUND` (the root was removed),
/// `DD_STATUS_IO`.
///
/// # Safety
/// `session` is NULL or a live handle; `task` and `options_json` are NULL or
/// NUL-terminated strings; `package_json_out` and `error_out` are NULL or valid for
/// a write of one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dd_discover(
    session: *const DdSession,
    task: *const c_char,
    options_json: *const c_char,
    package_json_out: *mut *mut c_char,
    error_out: *mut *mut c_char,
) -> DdStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        discover_as(
            session,
            task,
            options_json,
            (package_json_out, "package_json_out"),
            error_out,
            Render::Json,
        )
    }
}

/// Same as `dd_discover`, but returns the context package rendered as Markdown for
/// a prompt (never above the token budget) instead of JSON. Same options, same
/// ownership, same errors.
///
/// # Safety
/// As for `dd_discover`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dd_discover_markdown(
    session: *const DdSession,
    task: *const c_char,
    options_json: *const c_char,
    markdown_out: *mut *mut c_char,
    error_out: *mut *mut c_char,
) -> DdStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        discover_as(
            session,
            task,
            options_json,
            (markdown_out, "markdown_out"),
            error_out,
            Render::Markdown,
        )
    }
}

/// How a context package goes back to C.
#[derive(Clone, Copy)]
enum Render {
    Json,
    Markdown,
}

/// The body of `dd_discover` and `dd_discover_markdown`.
///
/// # Safety
/// As for `dd_discover`.
unsafe fn discover_as(
    session: *const DdSession,
    task: *const c_char,
    options_json: *const c_char,
    (out, out_name): (*mut *mut c_char, &str),
    error_out: *mut *mut c_char,
    render: Render,
) -> DdStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        guard(error_out, || {
            let out = required_out(out, out_name)?;
            let session = handle(session)?;
            let text = str_arg(task, "task")?;
            let (config, hints) =
                options::discover_options(optional_str_arg(options_json, "options_json")?)?;
            let task = self::task(text, hints)?;
            let package = session.read(|s| Ok(s.discover(&task, &config)?))?;
            let text = match render {
                Render::Json => package.to_json(),
                Render::Markdown => package.to_markdown(),
            };
            out.write(to_c_string(text));
            Ok(())
        })
    }
}

/// Runs the Location stage alone: the ranked anchors of `task` with the
/// contribution of each term and the matched signals, as JSON (`anchors`,
/// `ranked`, `environment`, `task_type`, `cues`, `weights`, `view`, `cost`,
/// `notes`, `constraints`, `llm`).
///
/// `options_json` is NULL (the defaults) or a JSON object with any of the keys
/// `"anchors"`, `"preset"`, `"budget"`, `"llm"` and `"hints"` (as for `dd_discover`)
/// and `"ablation"`: `{"no_sem", "no_sum", "no_rule", "no_prior", "no_history"}`
/// booleans (the core's `LocateConfig`). Unknown keys are an error.
///
/// On success `*location_json_out` is owned by the caller: free it with
/// `dd_string_free`. On failure it is NULL and `*error_out` (if `error_out` is not
/// NULL) is an owned message. Thread-safe; errors as for `dd_discover`.
///
/// # Safety
/// `session` is NULL or a live handle; `task` and `options_json` are NULL or
/// NUL-terminated strings; `location_json_out` and `error_out` are NULL or valid
/// for a write of one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dd_locate(
    session: *const DdSession,
    task: *const c_char,
    options_json: *const c_char,
    location_json_out: *mut *mut c_char,
    error_out: *mut *mut c_char,
) -> DdStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        guard(error_out, || {
            let out = required_out(location_json_out, "location_json_out")?;
            let session = handle(session)?;
            let text = str_arg(task, "task")?;
            let (config, hints) =
                options::locate_options(optional_str_arg(options_json, "options_json")?)?;
            let task = self::task(text, hints)?;
            let location = session.read(|s| Ok(s.locate(&task, &config)?))?;
            let json = serde_json::to_string(&location).map_err(|e| {
                Failure::new(
                    DdStatus::Internal,
                    format!("cannot serialize the location: {e}"),
                )
            })?;
            out.write(to_c_string(json));
            Ok(())
        })
    }
}
