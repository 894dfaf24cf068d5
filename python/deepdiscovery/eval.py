"""The evaluation protocol of the paper (§IV.C): score ``discover`` against tasks whose
gold files (the files their fix changed) are known.

>>> from deepdiscovery.eval import evaluate, repo_root
>>> result = evaluate("tasks.jsonl", repo_for=repo_root("checkouts"))  # doctest: +SKIP
>>> print(result.table())  # doctest: +SKIP

A task is a dict (one JSON object per line of a JSONL file) with

- ``id``: a name for the task;
- ``repo``: the repository it comes from (``owner/name``);
- ``base_commit`` (optional): the commit the task starts from. ``repo_for`` gives the
  repository as it was at that commit: :func:`checkouts` checks it out from a git
  directory (plain, or with history), :func:`repo_root` finds checkouts made before;
- ``task``: the task in plain language;
- ``gold_files``: the repository-relative paths (``/``-separated) the fix changed;
- ``gold_new_files`` (optional): the files the fix creates. They are dropped from the
  gold files, since no retriever can return a file that does not exist yet; a task
  left with no gold file is skipped (and counted as such).

Metrics, per task and summed up by :meth:`EvalResult.summary`:

- over the returned set (``package.paths()``): FRR (Eq. 10: 1 when every gold file is
  in the set, else 0), recall and precision (micro: hits, gold files and returned
  files are summed over the tasks before dividing), and the set's size;
- over the ranking (``package.ranked_files``): FRR@k and recall@k for k in
  :data:`CUTOFFS`, and MRR, the reciprocal rank of the best-ranked gold file (0 when
  no gold file is ranked);
- cost: the tokens the package uses and the wall-clock milliseconds of the task
  (opening its session, when ``evaluate`` opens one, and ``discover``).

Each task runs as the Rust tool (``examples/eval_tasks.rs``) runs it: the core's
``deepdiscovery_core::eval::run_in``, which scores the package's ranked files (its
anchors when it ranks none) and its returned set. A task whose run fails is recorded
with its error and scored as an empty set and an empty ranking; the run goes on.

Thousands of tasks: ``jobs=N`` runs them in N worker processes on this machine (each
task in a fresh session, so the records are those of the sequential run, timing
aside), and ``records="run.jsonl"`` appends each record as it is done, so that a
rerun with the same file resumes where the last one stopped.

More than one machine: ``ray="auto"`` (or a cluster's address) runs them on a Ray
cluster (``pip install "deepdiscovery[ray]"``), one Ray task per group of tasks that
share a repository and base commit, so that each checkout is opened once per group:
its tasks run one after the other in one session, whose caches do not change the
answers. The records are again those of the sequential run, timing aside. Every node
needs deepdiscovery installed, and the checkouts ``repo_for`` names (the directory of
:func:`repo_root`) at the same path.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import pickle
import statistics
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import (
    Any,
    Callable,
    Dict,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from deepdiscovery import Config, Session, _native
from deepdiscovery.errors import ConfigError, RepositoryNotFoundError, TaskError

__all__ = ["CUTOFFS", "EvalResult", "checkouts", "evaluate", "load_tasks", "repo_root"]

#: The cut-offs k of FRR@k and recall@k.
CUTOFFS = (1, 3, 5, 10, 20)

#: What ``repo_for`` may answer: a directory, an in-memory repository or a session.
RepoLike = Union[str, "os.PathLike[str]", Mapping[str, str], Session]
TasksLike = Union[str, "os.PathLike[str]", Iterable[Mapping[str, Any]]]


def load_tasks(path: Union[str, "os.PathLike[str]"]) -> List[Dict[str, Any]]:
    """The tasks of a JSONL file, one JSON object per non-blank line, read by the core
    as every driver reads them (``deepdiscovery_core::eval::load_tasks``): each with
    ``id`` (as a string), ``repo``, ``base_commit``, ``task``, ``gold_files``,
    ``gold_new_files`` and ``language`` (``None`` when the line has none). Raises
    :class:`TaskError` naming the line that is not a task (it is never skipped)."""
    tasks: List[Dict[str, Any]] = json.loads(_native.load_tasks_json(os.fspath(path)))
    return tasks


def checkouts(
    root: Union[str, "os.PathLike[str]"],
    mirrors: Union[str, "os.PathLike[str]"],
    *,
    with_history: bool = False,
) -> Callable[[Mapping[str, Any]], str]:
    """A ``repo_for`` that checks each task out at its ``base_commit`` under the
    directory ``root`` (``root/<id>``, made once and reused), from the repository's git
    directory under ``mirrors`` (``OWNER+NAME``, a bare clone; or
    ``swe-bench+OWNER__NAME``): plain files by default, or with ``with_history`` a git
    work tree holding the commit's ancestors, so that the session reads the history as
    a user's clone gives it. The core makes the checkouts, as for the Rust tool
    (``deepdiscovery_core::eval::ensure_checkout``). When the repository or the commit
    cannot be had it raises :class:`RepositoryNotFoundError` saying why, and that task
    is scored as an error."""
    return _Checkouts(os.fspath(root), os.fspath(mirrors), bool(with_history))


class _Checkouts:
    """The ``repo_for`` of :func:`checkouts`; a class so that it crosses to worker
    processes (``jobs > 1``)."""

    def __init__(self, root: str, mirrors: str, with_history: bool) -> None:
        self.root, self.mirrors, self.with_history = root, mirrors, with_history

    def __call__(self, task: Mapping[str, Any]) -> str:
        # The task as the core reads it: extra fields and JSON-less values dropped.
        known = {k: task.get(k) for k in _TASK_FIELDS if k in task}
        return os.fspath(
            _native.ensure_checkout(
                json.dumps(known, default=str), self.root, self.mirrors, self.with_history
            )
        )


#: The fields of a task every driver reads (``deepdiscovery_core::eval::EvalTask``).
_TASK_FIELDS = ("id", "repo", "base_commit", "task", "gold_files", "gold_new_files", "language")


def repo_root(root: Union[str, "os.PathLike[str]"]) -> Callable[[Mapping[str, Any]], str]:
    """A ``repo_for`` that finds each task's checkout under the directory ``root``:
    ``root/<id>`` when it exists, else ``root/<owner>+<name>`` for the task's
    ``repo`` ``owner/name``. When neither exists it raises
    :class:`RepositoryNotFoundError` naming both, and that task is scored as an error.
    """
    return _RepoRoot(os.fspath(root))


class _RepoRoot:
    """The ``repo_for`` of :func:`repo_root`; a class so that it crosses to worker
    processes (``jobs > 1``)."""

    def __init__(self, base: str) -> None:
        self.base = base

    def __call__(self, task: Mapping[str, Any]) -> str:
        candidates = [
            os.path.join(self.base, str(task["id"])),
            os.path.join(self.base, str(task["repo"]).replace("/", "+")),
        ]
        for candidate in candidates:
            if os.path.isdir(candidate):
                return candidate
        raise RepositoryNotFoundError(
            f"no checkout for task {task['id']}: neither {candidates[0]} nor {candidates[1]} exists"
        )


def evaluate(
    tasks: TasksLike,
    repo_for: Callable[[Mapping[str, Any]], RepoLike],
    *,
    config: Optional[Config] = None,
    progress: Optional[Callable[[int, int, str], None]] = None,
    jobs: int = 1,
    records: Union[str, "os.PathLike[str]", None] = None,
    ray: Optional[str] = None,
) -> "EvalResult":
    """Runs :meth:`Session.discover` on every task and scores the packages.

    ``tasks`` is an iterable of task dicts or the path of a JSONL file of them (see
    the module's documentation). ``repo_for(task)`` gives the task's repository: a
    directory, a ``dict`` of files, or a :class:`Session` (reused as given; otherwise
    each task gets a fresh session). ``config`` is the :class:`Config` of every query
    (the defaults when ``None``). ``progress(done, total, task_id)`` is called after
    each task (in the order tasks finish).

    ``jobs`` > 1 runs the tasks in that many worker processes; ``repo_for`` and
    ``config`` must then be picklable (:func:`repo_root` is). ``records`` is a JSONL
    file each record is appended to as its task ends; the tasks it already holds (by
    id) are not run again, so a rerun resumes. The result lists the tasks in their
    given order either way.

    ``ray`` runs the tasks on a Ray cluster instead: ``"auto"`` (the cluster this
    machine belongs to), ``"ray://HOST:PORT"`` (Ray Client), ``"HOST:PORT"``, or
    ``"local"`` (a fresh instance on this machine), as ``ray.init`` reads them. When
    Ray is already initialised in this process, that connection is used whatever the
    address; otherwise ``evaluate`` connects and disconnects at the end. Each group of
    tasks with the same ``repo`` and ``base_commit`` is one Ray task, running them in
    one session per checkout (so ``millis`` counts opening the session for the first
    task of the group only). ``jobs`` must then be 1: the cluster's CPUs set the
    parallelism. ``repo_for`` and ``config`` must serialize (a lambda does, with Ray).
    """
    if config is not None and not isinstance(config, Config):
        raise ConfigError(f"config must be a deepdiscovery.Config, got {type(config).__name__}")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ConfigError(f"jobs must be a positive int, got {jobs!r}")
    if ray is not None and (not isinstance(ray, str) or not ray.strip()):
        raise ConfigError(f"ray must be a Ray address such as 'auto', got {ray!r}")
    if ray is not None and jobs > 1:
        raise ConfigError(
            "jobs and ray do not go together: on Ray, the cluster sets the parallelism"
        )
    if isinstance(tasks, (str, os.PathLike)):
        checked = load_tasks(tasks)
    else:
        checked = [_checked(t, f"task {i}") for i, t in enumerate(tasks, 1)]
    ids = [str(t["id"]) for t in checked]
    if len(set(ids)) != len(ids):
        raise TaskError("task ids must be unique (records are matched by id)")
    done_by_id = _resume(records, set(ids)) if records is not None else {}
    pending = [t for t in checked if str(t["id"]) not in done_by_id]
    total, done = len(checked), len(done_by_id)
    out = None
    if records is not None:
        name = os.fspath(records)
        # A line cut short by an interruption ends the file: start the next on its own.
        cut = False
        if os.path.exists(name) and os.path.getsize(name) > 0:
            with open(name, "rb") as f:
                f.seek(-1, os.SEEK_END)
                cut = f.read(1) != b"\n"
        out = open(name, "a", encoding="utf-8")
        if cut:
            out.write("\n")

    def finished(record: Dict[str, Any]) -> None:
        nonlocal done
        done_by_id[record["id"]] = record
        if out is not None:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            out.flush()
        done += 1
        if progress is not None:
            progress(done, total, record["id"])

    try:
        if ray is not None and pending:
            _on_ray(ray, pending, repo_for, config, finished)
        elif jobs == 1 or len(pending) < 2:
            for task in pending:
                finished(_run(task, repo_for, config))
        else:
            try:
                pickle.dumps((repo_for, config))
            except Exception as e:
                raise ConfigError(
                    f"jobs > 1 needs a picklable repo_for and config (repo_root(...) is): {e}"
                ) from None
            # Spawned workers: no fork of a process whose threads hold locks.
            context = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
                futures = [pool.submit(_run, task, repo_for, config) for task in pending]
                for future in as_completed(futures):
                    finished(future.result())
    finally:
        if out is not None:
            out.close()
    return EvalResult([done_by_id[i] for i in ids])


def _on_ray(
    address: str,
    pending: List[Dict[str, Any]],
    repo_for: Callable[[Mapping[str, Any]], RepoLike],
    config: Optional[Config],
    finished: Callable[[Dict[str, Any]], None],
) -> None:
    """Runs the tasks on the Ray cluster at ``address``, one Ray task per group of
    :func:`_groups`, handing each record to ``finished`` as soon as it is done."""
    try:
        import ray
    except ImportError as e:
        raise ImportError(
            'evaluate(ray=...) needs Ray, which is not installed: pip install "deepdiscovery[ray]"',
            name="ray",
        ) from e
    started = not ray.is_initialized()
    if started:
        ray.init(address=address)
    try:
        # A generator task streams its records back one by one (Ray generators).
        run_group = ray.remote(num_cpus=1)(_run_group)
        running = [run_group.remote(group, repo_for, config) for group in _groups(pending)]
        ready: List[Any]  # generators (ObjectRefGenerator), which Ray types as ObjectRef
        try:
            while running:
                ready, running = ray.wait(running, num_returns=1)
                for generator in ready:
                    try:
                        ref = next(generator)
                    except StopIteration:
                        continue
                    running.append(generator)
                    finished(ray.get(ref))
        finally:
            for generator in running:  # on an error or Ctrl-C: nothing left running
                ray.cancel(generator)
    finally:
        if started:
            ray.shutdown()


def _groups(tasks: List[Dict[str, Any]]) -> List[List[Dict[str, Any]]]:
    """The tasks grouped by ``repo`` and ``base_commit``, in their order: the tasks of a
    group start from one state of one repository, so they can share its checkout. Tasks
    at different commits need different checkouts; grouping them would only make
    fewer, longer Ray tasks."""
    groups: Dict[Tuple[str, str], List[Dict[str, Any]]] = {}
    for task in tasks:
        key = (str(task["repo"]), str(task.get("base_commit") or ""))
        groups.setdefault(key, []).append(task)
    return list(groups.values())


def _run_group(
    tasks: List[Dict[str, Any]],
    repo_for: Callable[[Mapping[str, Any]], RepoLike],
    config: Optional[Config],
) -> Iterator[Dict[str, Any]]:
    """The records of ``tasks``, one by one as they end, with one session per checkout."""
    sessions: Dict[str, Session] = {}
    for task in tasks:
        yield _run(task, repo_for, config, sessions)


def _resume(path: Union[str, "os.PathLike[str]"], ids: set) -> Dict[str, Dict[str, Any]]:
    """The records an earlier run left in ``path`` for these task ids (a last line cut
    short by an interruption is ignored and run again)."""
    name = os.fspath(path)
    if not os.path.exists(name):
        return {}
    found: Dict[str, Dict[str, Any]] = {}
    with open(name, encoding="utf-8") as f:
        for line in f:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict) and record.get("id") in ids:
                found[record["id"]] = record
    return found


def _checked(task: Any, where: str) -> Dict[str, Any]:
    """The task as a dict, checked by the core as a task file's line is
    (:func:`load_tasks`): the caller's other fields are kept, the fields every driver
    reads are the core's reading of them."""
    checked = json.loads(_native.check_task_json(json.dumps(task, default=str), where))
    return {**task, **checked} if isinstance(task, Mapping) else checked


def _run(
    task: Dict[str, Any],
    repo_for: Callable[[Mapping[str, Any]], RepoLike],
    config: Optional[Config],
    sessions: Optional[Dict[str, Session]] = None,
) -> Dict[str, Any]:
    """One task's record: its gold files, what ``discover`` returned, and its scores.
    With ``sessions``, a checkout's session is kept there, by path, for the next task
    on that checkout; without, each task opens its own."""
    new = list(dict.fromkeys(task.get("gold_new_files", [])))
    gold = [p for p in dict.fromkeys(task["gold_files"]) if p not in new]
    record: Dict[str, Any] = {
        "id": str(task["id"]),
        "repo": task["repo"],
        "base_commit": task.get("base_commit"),
        "gold": gold,
        "gold_new": new,
        "skipped": None,
        "error": None,
    }
    if not gold:
        record["skipped"] = "no gold file left once the files the fix creates are dropped"
        return record
    start = time.perf_counter()
    returned: List[str] = []
    ranking: List[str] = []
    tokens = 0
    try:
        session = _session(repo_for(task), config, sessions)
        # The core runs the task as the Rust tool does (eval::run_in).
        answer = session._eval_task(task, config)
    except Exception as e:  # a failed task is scored, not fatal to the run
        record["error"] = f"{type(e).__name__}: {e}"
    else:
        record["error"] = answer["error"]
        if answer["error"] is None:
            returned, ranking, tokens = answer["returned"], answer["ranking"], answer["tokens"]
    record["millis"] = (time.perf_counter() - start) * 1000.0
    record.update(_scores(gold, returned, ranking))
    record["tokens"] = tokens
    return record


def _session(
    repo: RepoLike, config: Optional[Config], sessions: Optional[Dict[str, Session]]
) -> Session:
    """The session of ``repo``: itself when it is one, else the one ``sessions`` keeps
    for a directory, else a new one."""
    if isinstance(repo, Session):
        return repo
    if sessions is None or not isinstance(repo, (str, os.PathLike)):
        return Session(repo, config=config)
    path = os.fspath(repo)
    if path not in sessions:
        sessions[path] = Session(repo, config=config)
    return sessions[path]


def _scores(gold: Sequence[str], returned: Sequence[str], ranking: Sequence[str]) -> Dict[str, Any]:
    """The set and ranking scores of one task (``gold`` is non-empty), as the core
    defines them (``deepdiscovery_core::eval``, shared with the Rust benchmark)."""
    score = json.loads(
        _native.score_task_json(list(gold), list(returned), list(ranking), list(CUTOFFS))
    )
    scores: Dict[str, Any] = {
        "returned": list(returned),
        "gold_ranks": score["gold_ranks"],
        "hits": score["hits"],
        "set_size": score["set_size"],
        "frr": int(score["full"]),
        "recall": score["recall"],
        "precision": score["precision"],
        "rr": score["reciprocal_rank"],
    }
    full_at = dict(score["full_at"])
    for k, within in score["hits_at"]:
        scores[f"hits@{k}"] = within
        scores[f"frr@{k}"] = int(full_at[k] == 1.0)
        scores[f"recall@{k}"] = within / len(gold)
    return scores


def _task_score(record: Dict[str, Any]) -> Dict[str, Any]:
    """The core's task score of a record: where its gold files landed (which gold
    files were hits does not matter to any metric, only how many)."""
    n, hits = len(record["gold"]), record["hits"]
    return {
        "gold_ranks": record["gold_ranks"],
        "in_set": [True] * hits + [False] * (n - hits),
        "set_size": record["set_size"],
    }


class EvalResult:
    """The outcome of :func:`evaluate`: one record per task and their summary.

    A record has ``id``, ``repo``, ``base_commit``, ``gold`` (the gold files scored),
    ``gold_new`` (the dropped new files), ``skipped`` and ``error`` (a reason or
    ``None``). A scored record adds ``returned`` (the set, best first), ``gold_ranks``
    (each gold file's 1-based rank in ``ranked_files``, ``None`` when unranked),
    ``hits``, ``set_size``, ``frr``, ``recall``, ``precision`` (``None`` for an empty
    set), ``rr``, ``hits@k``, ``frr@k`` and ``recall@k`` for each k in
    :data:`CUTOFFS`, ``tokens`` and ``millis``.
    """

    def __init__(self, records: List[Dict[str, Any]]) -> None:
        self.records = records

    def summary(self) -> Dict[str, Any]:
        """The aggregate metrics: counts of ``tasks``, ``scored``, ``skipped`` and
        ``errors``; then, over the scored tasks, ``frr``, micro ``recall`` and
        ``precision``, ``mean_set_size``, ``frr@k`` and micro ``recall@k``, ``mrr``,
        ``mean_tokens``, ``mean_millis`` and ``median_millis``. A metric is ``None``
        when undefined: no task was scored (or, for ``precision``, none returned a file).
        """
        scored = [r for r in self.records if r["skipped"] is None]
        out: Dict[str, Any] = {
            "tasks": len(self.records),
            "scored": len(scored),
            "skipped": len(self.records) - len(scored),
            "errors": sum(1 for r in scored if r["error"] is not None),
        }
        metrics = json.loads(
            _native.metrics_json(json.dumps([_task_score(r) for r in scored]), list(CUTOFFS))
        )
        out["frr"] = metrics["frr"]
        out["recall"] = metrics["recall"]
        out["precision"] = metrics["precision"]
        out["mean_set_size"] = metrics["mean_set_size"]
        frr_at, recall_at = dict(metrics["frr_at"]), dict(metrics["recall_at"])
        for k in CUTOFFS:
            out[f"frr@{k}"] = frr_at[k]
            out[f"recall@{k}"] = recall_at[k]
        out["mrr"] = metrics["mrr"]
        out["mean_tokens"] = _mean([r["tokens"] for r in scored])
        out["mean_millis"] = _mean([r["millis"] for r in scored])
        out["median_millis"] = statistics.median([r["millis"] for r in scored]) if scored else None
        return out

    def to_dict(self) -> Dict[str, Any]:
        """``{"summary": ..., "records": [...]}``, ready for ``json.dump``."""
        return {"summary": self.summary(), "records": self.records}

    def to_dataframe(self) -> Any:
        """The records as a ``pandas.DataFrame``, one row per task. Needs pandas."""
        try:
            import pandas  # type: ignore[import-untyped]
        except ImportError as e:
            raise ImportError(
                "EvalResult.to_dataframe needs pandas, which is not installed: "
                "pip install pandas (or use .records, a list of dicts)"
            ) from e
        return pandas.DataFrame(self.records)

    def table(self, per_task: bool = False) -> str:
        """A plain-text table of the summary; with ``per_task``, one row per task
        before it (the gold files' ranks, FRR, recall, set size, tokens, time, and
        why a task was skipped or failed)."""
        lines = []
        if per_task:
            lines.extend(_task_table(self.records))
            lines.append("")
        summary = self.summary()
        counts = (
            f"{summary['tasks']} tasks: {summary['scored']} scored, "
            f"{summary['skipped']} skipped (no gold file left), {summary['errors']} errors"
        )
        rows = [("metric", "value")]
        for key, value in summary.items():
            if key not in ("tasks", "scored", "skipped", "errors"):
                rows.append((key, _cell(value, key)))
        lines.append(counts)
        lines.extend(_aligned(rows))
        return "\n".join(lines)


def _task_table(records: List[Dict[str, Any]]) -> List[str]:
    rows = [("id", "gold ranks", "frr", "recall", "size", "tokens", "ms", "note")]
    for r in records:
        if r["skipped"] is not None:
            rows.append((r["id"], "", "", "", "", "", "", "skipped: " + r["skipped"]))
            continue
        ranks = " ".join("-" if rank is None else str(rank) for rank in r["gold_ranks"])
        rows.append(
            (
                r["id"],
                ranks,
                str(r["frr"]),
                f"{r['recall']:.3f}",
                str(r["set_size"]),
                str(r["tokens"]),
                f"{r['millis']:.0f}",
                "error: " + r["error"] if r["error"] else "",
            )
        )
    return _aligned(rows)


def _aligned(rows: Sequence[Sequence[str]]) -> List[str]:
    """Rows as left-aligned columns under a ruled header."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]

    def line(row: Sequence[str]) -> str:
        return "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return [line(rows[0]), rule] + [line(row) for row in rows[1:]]


def _cell(value: Optional[float], key: str) -> str:
    if value is None:
        return "-"
    if key in ("mean_tokens", "mean_millis", "median_millis", "mean_set_size"):
        return f"{value:.1f}"
    return f"{value:.3f}"


def _mean(values: List[float]) -> Optional[float]:
    return math.fsum(values) / len(values) if values else None
