"""The ``deepdiscovery`` command (also ``python -m deepdiscovery``).

Subcommands:

- ``discover TASK``: the context package, as Markdown (for a person) or JSON (for a
  program: ``package.to_json()``, whose ``files`` array is ranked best first);
- ``locate TASK``: the Location stage's anchors with their scores and signals;
- ``eval --tasks FILE --repo-root DIR``: the evaluation protocol of
  :mod:`deepdiscovery.eval` on a JSONL file of tasks, as a results table (``--jobs N``
  processes here, or ``--ray ADDRESS`` on a Ray cluster, with the ``ray`` extra); with
  ``--mirrors DIR [--with-history]`` each task is first checked out at its commit
  under ``--repo-root``, as the Rust tool ``eval_tasks`` does;
- ``mcp [--repo DIR]``: a Model Context Protocol server over standard input and output
  (:mod:`deepdiscovery.mcp_server`; needs the ``mcp`` extra); with ``--llm sampling`` it
  asks the client's own model for the LLM-assisted terms;
- ``version``: the library version.

The task is the ``TASK`` argument, the text of ``--task-file FILE``, or standard input
when either is ``-``. Exit status: 0 on success, 2 for a usage mistake, 1 when the
library refuses the input (missing repository, empty task, out-of-range option, ...),
with ``error: <message>`` on standard error.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import sys
from typing import Any, Callable, Dict, Optional, Sequence, TextIO

from deepdiscovery import Config, Hints, Session, __version__
from deepdiscovery.errors import DeepDiscoveryError, RepositoryError, TaskError
from deepdiscovery.eval import checkouts, evaluate, load_tasks, repo_root
from deepdiscovery.formatting import format_anchors, format_definitions

__all__ = ["format_anchors", "main"]

PROG = "deepdiscovery"
#: What ``deepdiscovery.mcp_server`` imports from the ``mcp`` extra: the SDK and what it brings.
_MCP_EXTRA = {"mcp", "anyio", "pydantic"}


class _UsageError(Exception):
    """A mistake in the command line that argparse cannot see (exit status 2)."""


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the command line ``argv`` (``sys.argv[1:]`` when ``None``) and returns its
    exit status: 0 on success, 1 for an error of the library, 2 for a usage mistake."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse has printed the usage or the help
        return e.code if isinstance(e.code, int) else 2
    try:
        return args.run(args)
    except _UsageError as e:
        args.subparser.print_usage(sys.stderr)
        print(f"{args.subparser.prog}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, without a second error
        # when Python flushes standard output at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (DeepDiscoveryError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


# ---------------------------------------------------------------------------------
# The parser


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Complete task-level repository context for coding agents.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    discover = _command(
        commands,
        "discover",
        _discover,
        "print the context package of a task",
        "Finds the files a task needs and prints them as a budgeted context package.",
    )
    _task_options(discover)
    _query_options(discover)
    discover.add_argument(
        "--budget-tokens", type=int, metavar="N", help="token budget of the package (16000)"
    )
    discover.add_argument("--max-steps", type=int, metavar="N", help="most expansion steps (64)")
    discover.add_argument(
        "--location-only",
        action="store_true",
        help="return the anchors only, without following relations",
    )
    discover.add_argument(
        "--format",
        choices=("markdown", "json"),
        default="markdown",
        help="markdown for a person (default), json for a program",
    )
    discover.add_argument(
        "--explain",
        action="store_true",
        help="after the markdown, list why each file was included and how the budget "
        "was spent (ignored with --format json, whose files carry their rationale)",
    )

    locate = _command(
        commands,
        "locate",
        _locate,
        "print the anchors of a task",
        "Runs the Location stage alone and prints the anchors with score and signals.",
    )
    _task_options(locate)
    _query_options(locate)
    locate.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text for a person (default); json prints the whole Location result",
    )
    locate.add_argument(
        "--level",
        choices=("file", "function"),
        default="file",
        help="file: the anchors (default); function: where to look inside the best "
        "files, the functions, methods and classes the task most likely concerns, each "
        "with why (with --format json, the result's `definitions`)",
    )

    evaluation = _command(
        commands,
        "eval",
        _eval,
        "score discover on tasks with known gold files",
        "Runs discover on each task of a JSONL file and prints FRR, recall, precision, "
        "FRR@k, recall@k, MRR, tokens and time (see deepdiscovery.eval).",
    )
    evaluation.add_argument("--tasks", required=True, metavar="FILE", help="JSONL file of tasks")
    evaluation.add_argument(
        "--repo-root",
        metavar="DIR",
        default=os.environ.get("DD_EVAL_CHECKOUTS") or None,
        help="directory of checkouts: DIR/<id>, else DIR/<owner>+<name>; with --mirrors, "
        "where each task's checkout is made (default $DD_EVAL_CHECKOUTS)",
    )
    evaluation.add_argument(
        "--mirrors",
        metavar="DIR",
        default=os.environ.get("DD_EVAL_MIRRORS") or None,
        help="check each task out at its base_commit from the git directories in DIR "
        "(OWNER+NAME, bare clones; default $DD_EVAL_MIRRORS)",
    )
    evaluation.add_argument(
        "--with-history",
        action="store_true",
        help="with --mirrors: check out git work trees holding the commit's ancestors",
    )
    evaluation.add_argument("--limit", type=_count, metavar="N", help="only the first N tasks")
    evaluation.add_argument(
        "--budget-tokens", type=int, metavar="N", help="token budget of each package (16000)"
    )
    evaluation.add_argument("--max-steps", type=int, metavar="N", help="most expansion steps (64)")
    evaluation.add_argument(
        "--anchors", type=int, metavar="K", help="how many anchors to select (8)"
    )
    evaluation.add_argument("--no-history", action="store_true", help="do not read the git history")
    _cache_options(evaluation)
    evaluation.add_argument(
        "--json-out", metavar="FILE", help="also write the summary and every record as JSON"
    )
    evaluation.add_argument(
        "--per-task", action="store_true", help="print one row per task before the summary"
    )
    evaluation.add_argument(
        "--jobs", type=_count, default=1, metavar="N", help="run the tasks in N processes (1)"
    )
    evaluation.add_argument(
        "--records",
        metavar="FILE",
        help="append each task's record to FILE (JSONL) as it ends; a rerun resumes from it",
    )
    evaluation.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="run the tasks on the Ray cluster at ADDRESS (auto, ray://HOST:PORT, or local "
        'for a new instance here); needs the ray extra: pip install "deepdiscovery[ray]"',
    )

    mcp = _command(
        commands,
        "mcp",
        _mcp,
        "serve a repository to coding agents over MCP (stdio)",
        "Runs a Model Context Protocol server over standard input and output with the "
        "tools discover, locate, related and explain on one repository (needs the mcp "
        'extra: pip install "deepdiscovery[mcp]"; see docs/mcp.md).',
    )
    mcp.add_argument(
        "--repo", default=".", metavar="DIR", help="the repository (default: the current directory)"
    )
    _plugin_options(mcp)

    cache = _command(
        commands,
        "cache",
        _cache,
        "inspect or empty the on-disk facts cache",
        "The per-file facts that sessions keep on disk, shared by processes (answers "
        "are the same without them). The directory is --cache-dir, else "
        "$DEEPDISCOVERY_CACHE_DIR, else the platform's cache directory.",
    )
    cache.add_argument(
        "action", choices=("info", "clear"), help="info: print what is in it; clear: empty it"
    )
    cache.add_argument("--cache-dir", metavar="DIR", help="the cache directory")
    cache.add_argument(
        "--format", choices=("text", "json"), default="text", help="text (default) or json"
    )

    _command(commands, "version", _version, "print the library version", None)
    return parser


def _command(
    commands: Any,
    name: str,
    run: Callable[[argparse.Namespace], int],
    summary: str,
    description: Optional[str],
) -> argparse.ArgumentParser:
    sub = commands.add_parser(name, help=summary, description=description or summary)
    sub.set_defaults(run=run, subparser=sub)
    return sub


def _task_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "task", nargs="?", metavar="TASK", help="the task in plain language (- reads stdin)"
    )
    sub.add_argument("--task-file", metavar="FILE", help="read the task from FILE (- reads stdin)")
    sub.add_argument(
        "--repo", default=".", metavar="DIR", help="the repository (default: the current directory)"
    )


def _query_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--anchors", type=int, metavar="K", help="how many anchors to select (8)")
    sub.add_argument(
        "--preset",
        choices=("auto", "paper"),
        help="how candidates are scored: auto (the learned scorer, default) or paper "
        "(Eq. 6 alone, the paper's hand-set coefficients)",
    )
    sub.add_argument(
        "--no-history",
        action="store_true",
        help="do not read the git history (no co-change relations; faster)",
    )
    sub.add_argument(
        "--path",
        action="append",
        default=[],
        metavar="PATH",
        help="a file you know the task involves (repeatable)",
    )
    sub.add_argument(
        "--symbol",
        action="append",
        default=[],
        metavar="NAME",
        help="a symbol you know the task involves (repeatable)",
    )
    sub.add_argument(
        "--failing-test",
        action="append",
        default=[],
        metavar="TEST",
        help="a failing test (repeatable)",
    )
    sub.add_argument(
        "--rules", metavar="FILE", help="extra relation rules (TOML, as the built-in rule file)"
    )
    _cache_options(sub)
    _plugin_options(sub)


def _cache_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="the on-disk facts cache (default: $DEEPDISCOVERY_CACHE_DIR, else the "
        "platform's cache directory)",
    )
    sub.add_argument(
        "--no-cache", action="store_true", help="neither read nor write the on-disk facts cache"
    )


def _plugin_options(sub: argparse.ArgumentParser) -> None:
    """The paper's LLM-assisted mode and an embedder, over OpenAI-compatible endpoints."""
    group = sub.add_argument_group(
        "language model and embedder (OpenAI-compatible endpoints, e.g. a local llama.cpp or vLLM)"
    )
    group.add_argument(
        "--llm",
        choices=("sampling",),
        help="mcp only: ask the MCP client's own model through sampling/createMessage, "
        "with no key and no endpoint (instead of --llm-model)",
    )
    group.add_argument(
        "--llm-base-url", metavar="URL", help="the chat-completions endpoint's base URL"
    )
    group.add_argument("--llm-model", metavar="NAME", help="the model; turns the LLM terms on")
    group.add_argument(
        "--llm-api-key-env",
        default="OPENAI_API_KEY",
        metavar="VAR",
        help="the environment variable holding the key (default OPENAI_API_KEY; unset: no key)",
    )
    group.add_argument("--embedding-base-url", metavar="URL", help="the embeddings endpoint's base URL")
    group.add_argument(
        "--embedding-model", metavar="NAME", help="the embedding model; turns embeddings on"
    )
    group.add_argument(
        "--embedding-api-key-env",
        default="OPENAI_API_KEY",
        metavar="VAR",
        help="the environment variable holding its key (default OPENAI_API_KEY)",
    )
    group.add_argument(
        "--embedder-model",
        metavar="DIR",
        help="a sentence-transformers folder run in-process (no endpoint, no key), or "
        "'builtin' for the tuned model this package ships: it embeds the task and the best "
        "candidates' definitions",
    )


def _plugins(args: argparse.Namespace) -> Dict[str, Any]:
    """The ``llm`` and ``embedder`` of the options given (none when not asked for)."""
    from deepdiscovery.plugins import OPENAI_BASE_URL, OpenAIChat, OpenAIEmbeddings

    plugins: Dict[str, Any] = {}
    if args.llm == "sampling":
        if args.command != "mcp":
            raise _UsageError(
                "--llm sampling asks the model of an MCP client, so it works only with "
                "`deepdiscovery mcp`; here use --llm-model (and --llm-base-url)"
            )
        if args.llm_model or args.llm_base_url:
            raise _UsageError(
                "--llm sampling asks the MCP client's own model: give it without "
                "--llm-model and --llm-base-url"
            )
    if args.llm_base_url and not args.llm_model:
        raise _UsageError("--llm-base-url needs --llm-model")
    if args.embedding_base_url and not args.embedding_model:
        raise _UsageError("--embedding-base-url needs --embedding-model")
    if args.embedding_model and getattr(args, "embedder_model", None):
        raise _UsageError(
            "--embedder-model runs a model in-process, --embedding-model asks an endpoint: "
            "give one of them"
        )
    if args.llm_model:
        plugins["llm"] = OpenAIChat(
            args.llm_model,
            base_url=args.llm_base_url or OPENAI_BASE_URL,
            api_key_env=args.llm_api_key_env,
        )
    if args.embedding_model:
        plugins["embedder"] = OpenAIEmbeddings(
            args.embedding_model,
            base_url=args.embedding_base_url or OPENAI_BASE_URL,
            api_key_env=args.embedding_api_key_env,
        )
    return plugins


def _count(text: str) -> int:
    """A non-negative int, for argparse."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


# ---------------------------------------------------------------------------------
# The commands


def _discover(args: argparse.Namespace) -> int:
    task = _read_task(args)
    session = Session(args.repo, config=_config(args), rules=args.rules, **_plugins(args))
    package = session.discover(task, hints=_hints(args))
    if args.format == "json":
        _write(sys.stdout, package.to_json())
        return 0
    markdown = package.to_markdown()
    if args.explain:
        markdown = markdown.rstrip("\n") + "\n\n" + _explanation(package.to_dict())
    _write(sys.stdout, markdown)
    return 0


def _locate(args: argparse.Namespace) -> int:
    task = _read_task(args)
    session = Session(args.repo, config=_config(args), rules=args.rules, **_plugins(args))
    location = session.locate(task, hints=_hints(args))
    if args.format == "json":
        shown = location["definitions"] if args.level == "function" else location
        _write(sys.stdout, json.dumps(shown, indent=2, ensure_ascii=False))
        return 0
    if args.level == "function":
        _write(sys.stdout, format_definitions(location))
    else:
        _write(sys.stdout, format_anchors(location))
    return 0


def _eval(args: argparse.Namespace) -> int:
    if args.ray is not None and args.jobs > 1:
        raise _UsageError(
            "--jobs and --ray do not go together: on Ray, the cluster sets the parallelism"
        )
    if args.repo_root is None:
        raise _UsageError("give --repo-root DIR (or set DD_EVAL_CHECKOUTS)")
    if args.with_history and args.mirrors is None:
        raise _UsageError("--with-history checks tasks out: give --mirrors DIR too")
    if args.mirrors is not None:
        if not os.path.isdir(args.mirrors):
            raise RepositoryError(f"--mirrors {args.mirrors} is not a directory")
        os.makedirs(args.repo_root, exist_ok=True)
        repo_for = checkouts(args.repo_root, args.mirrors, with_history=args.with_history)
    elif not os.path.isdir(args.repo_root):
        raise RepositoryError(f"--repo-root {args.repo_root} is not a directory")
    else:
        repo_for = repo_root(args.repo_root)
    tasks = load_tasks(args.tasks)
    if args.limit is not None:
        tasks = tasks[: args.limit]
    try:
        result = evaluate(
            tasks,
            repo_for,
            config=_config(args),
            progress=_progress(sys.stderr),
            jobs=max(1, args.jobs),
            records=args.records,
            ray=args.ray,
        )
    except ImportError as e:
        if e.name != "ray":
            raise
        print(f"error: {e}", file=sys.stderr)
        return 1
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump(result.to_dict(), f, indent=2, ensure_ascii=False)
            f.write("\n")
    _write(sys.stdout, result.table(per_task=args.per_task))
    return 0


def _mcp(args: argparse.Namespace) -> int:
    plugins = _plugins(args)  # usage mistakes first, with or without the SDK
    try:
        from deepdiscovery import mcp_server
    except ImportError as e:
        if (e.name or "").split(".")[0] not in _MCP_EXTRA:
            raise
        print(f"error: {_no_mcp_sdk()}", file=sys.stderr)
        return 1
    if args.llm == "sampling":
        plugins["llm"] = mcp_server.SamplingLLM()
    config = None
    if args.embedder_model is not None:
        # A server answers many queries: the session watches the tree, as Config's
        # default does.
        config = Config(embedder_model=args.embedder_model)
    return mcp_server.serve(args.repo, config=config, **plugins)


def _no_mcp_sdk() -> str:
    """What to do when the MCP Python SDK (2.x) cannot be imported."""
    try:
        found = f" (found mcp {importlib.metadata.version('mcp')})"
    except importlib.metadata.PackageNotFoundError:
        found = ""
    return (
        f"deepdiscovery mcp needs the MCP Python SDK 2.x{found}, on Python 3.10 or newer: "
        'pip install "deepdiscovery[mcp]"'
    )


def _cache(args: argparse.Namespace) -> int:
    from deepdiscovery.cache import cache_clear, cache_info

    if args.action == "clear":
        removed = cache_clear(args.cache_dir)
        info = cache_info(args.cache_dir)
        _write(sys.stdout, f"removed {removed} entries from {info['dir']}")
        return 0
    info = cache_info(args.cache_dir)
    if args.format == "json":
        _write(sys.stdout, json.dumps(info, indent=2))
        return 0
    _write(
        sys.stdout,
        f"directory: {info['dir']}\n"
        f"entries:   {info['entries']}\n"
        f"size:      {info['bytes']} bytes (bound {info['max_bytes']})\n"
        f"version:   {info['version']}",
    )
    return 0


def _version(args: argparse.Namespace) -> int:
    _write(sys.stdout, f"{PROG} {__version__}")
    return 0


# ---------------------------------------------------------------------------------
# Helpers


def _read_task(args: argparse.Namespace) -> str:
    """The task from the argument, ``--task-file`` or standard input."""
    if args.task is not None and args.task_file is not None:
        raise _UsageError("give the task either as TASK or with --task-file, not both")
    if args.task is None and args.task_file is None:
        raise _UsageError("no task: give it as TASK, with --task-file FILE, or as - to read stdin")
    if args.task == "-" or args.task_file == "-":
        return sys.stdin.read()
    if args.task is not None:
        return args.task
    try:
        with open(args.task_file, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise TaskError(f"cannot read the task file {args.task_file}: {e.strerror or e}") from None


def _config(args: argparse.Namespace) -> Config:
    """The :class:`Config` of the options given; the core checks their ranges."""
    changes: Dict[str, Any] = {}
    for field in ("budget_tokens", "max_steps", "anchors", "location_only", "preset"):
        value = getattr(args, field, None)  # not every command has every option
        if value is not None and value is not False:
            changes[field] = value
    if args.no_history:
        changes["history"] = False
    if getattr(args, "no_cache", False):
        changes["cache"] = False
    if getattr(args, "cache_dir", None) is not None:
        changes["cache_dir"] = args.cache_dir
    if getattr(args, "embedder_model", None) is not None:
        changes["embedder_model"] = args.embedder_model
    # One query per process: nothing to gain from watching the tree.
    return Config(watch=False, **changes)


def _hints(args: argparse.Namespace) -> Hints:
    return Hints(
        paths=tuple(args.path), symbols=tuple(args.symbol), failing_tests=tuple(args.failing_test)
    )


def _explanation(package: Dict[str, Any]) -> str:
    """Why each file is in the package, and how the budget was spent."""
    lines = ["## Why these files", ""]
    for rank, f in enumerate(package.get("files", []), 1):
        anchor = " · anchor" if f.get("anchor") else ""
        view = f.get("view", {}).get("kind", "metadata")
        lines.append(
            f"{rank}. `{f['path']}` — {f['role']} · score {f['score']:.2f} · "
            f"{view} · {f.get('tokens', 0)} tokens{anchor}"
        )
        lines.extend(f"   - {why}" for why in f.get("rationale", []))
    budget = package.get("budget", {})
    lines += [
        "",
        f"Budget: {budget.get('used_tokens', 0)} of {budget.get('max_tokens', 0)} tokens, "
        f"{budget.get('steps', 0)} of {budget.get('max_steps', 0)} steps; "
        f"stopped: {budget.get('stop', 'unknown')}.",
    ]
    lines.extend(f"Note: {note}" for note in package.get("notes", []))
    return "\n".join(lines)


def _progress(stream: TextIO) -> Callable[[int, int, str], None]:
    """A progress line for :func:`evaluate`: rewritten in place on a terminal, one line
    per task otherwise (a log)."""
    in_place = stream.isatty()

    def report(done: int, total: int, task_id: str) -> None:
        if in_place:
            stream.write(f"\r\x1b[K[{done}/{total}] {task_id}")
            if done == total:
                stream.write("\n")
        else:
            stream.write(f"[{done}/{total}] {task_id}\n")
        stream.flush()

    return report


def _write(stream: TextIO, text: str) -> None:
    stream.write(text if text.endswith("\n") else text + "\n")
