"""deepdiscovery: complete task-level repository context for coding agents.

Given a task in plain language and a repository, ``discover`` finds the few anchor
files the task points at, follows imports, calls, inheritance, configuration
bindings, registrations, injection, events, tests and history from them, and returns
a budgeted :class:`ContextPackage`: ranked files, each with its role, a metadata card
or its text, and why it was included. Nothing is indexed first.

>>> import deepdiscovery
>>> package = deepdiscovery.discover(
...     {"shop/pay.py": "from shop.gate import charge\\n", "shop/gate.py": "def charge():\\n    pass\\n"},
...     "charge fails in pay.py",
... )
>>> sorted(package.paths())
['shop/gate.py', 'shop/pay.py']

The native core does the work; this package is the Python face over it.
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from deepdiscovery import _native
from deepdiscovery.config import Config, Hints, Weights
from deepdiscovery.errors import (
    ConfigError,
    DeepDiscoveryError,
    InternalError,
    ModelError,
    PluginError,
    RepositoryError,
    RepositoryNotADirectoryError,
    RepositoryNotFoundError,
    TaskError,
)
from deepdiscovery.package import ContextFile, ContextPackage, FileView, Span
from deepdiscovery.plugins import sync_llm

__version__: str = _native.version()
#: The ``schema_version`` of the package JSON this library writes.
SCHEMA_VERSION: int = _native.schema_version()

__all__ = [
    "Config",
    "ConfigError",
    "ContextFile",
    "ContextPackage",
    "DeepDiscoveryError",
    "FileView",
    "Hints",
    "InternalError",
    "ModelError",
    "PluginError",
    "RepositoryError",
    "RepositoryNotADirectoryError",
    "RepositoryNotFoundError",
    "SCHEMA_VERSION",
    "Session",
    "Span",
    "TaskError",
    "Weights",
    "__version__",
    "discover",
    "locate",
    "version",
]

Repo = Union[str, "os.PathLike[str]", Mapping[str, str]]
HintsLike = Union[Hints, Mapping[str, Sequence[str]], None]


def version() -> str:
    """The library version."""
    return _native.version()


def _llm_spec(llm: Any) -> Optional[Tuple[Callable[[str], str], str, int]]:
    """``(complete, name, context_window)`` from a callable or an object with
    ``complete(prompt)`` (and optionally ``name`` and ``context_window``); an async
    one is run to its end at each call (:func:`deepdiscovery.plugins.sync_llm`)."""
    if llm is None:
        return None
    llm = sync_llm(llm)
    complete = getattr(llm, "complete", None) or (llm if callable(llm) else None)
    if not callable(complete):
        raise PluginError("llm must be callable, or have a complete(prompt) method")
    name = getattr(llm, "name", None) or getattr(complete, "__name__", None) or "python-llm"
    window = getattr(llm, "context_window", 8192)
    if not isinstance(window, int) or isinstance(window, bool) or window <= 0:
        raise PluginError("llm.context_window must be a positive int")
    return complete, str(name), window


def _as_float_lists(vectors: Any) -> Any:
    """An embedder's answer with numpy arrays (anything with ``tolist()``), as a whole
    or row by row, turned into lists; any other answer as it is."""
    if hasattr(vectors, "tolist"):
        return vectors.tolist()
    if isinstance(vectors, (list, tuple)):
        return [row.tolist() if hasattr(row, "tolist") else row for row in vectors]
    return vectors


def _embedder_spec(embedder: Any) -> Optional[Tuple[Callable[[List[str]], Any], int]]:
    """``(embed, dimension)`` from an object with ``embed(texts)``, or from a plain
    callable ``texts -> vectors``. ``dimension`` is optional: without one, the session
    takes the length of the first answer's vectors and holds later answers to it (0
    tells the core so)."""
    if embedder is None:
        return None
    embed = getattr(embedder, "embed", None) or (embedder if callable(embedder) else None)
    if not callable(embed):
        raise PluginError("embedder must be callable, or have an embed(texts) method")
    dimension = getattr(embedder, "dimension", None)
    if dimension is None:
        dimension = 0
    elif not isinstance(dimension, int) or isinstance(dimension, bool) or dimension <= 0:
        raise PluginError("embedder.dimension, when given, must be a positive int")
    return (lambda texts: _as_float_lists(embed(texts))), dimension


class Session:
    """A repository session: facts are parsed on demand, cached across queries and
    revalidated against the repository on each, so there is no index to build and no
    stale answer after an edit. Safe to share across threads; queries release the GIL.

    ``repo`` is a directory path or a ``dict`` of ``{path: text}`` (an in-memory
    repository). ``config`` (a :class:`Config`) sets the defaults of every query and
    the session options (history, built-in rules). ``llm`` is a callable
    ``complete(prompt) -> str`` or an object with ``complete``, ``name`` and
    ``context_window``; ``embedder`` a callable ``texts -> list[list[float]]`` (or numpy
    arrays), or an object with ``embed(texts)`` and optionally ``dimension`` (without
    it, the length of the first answer's vectors). Plug-ins are called with the GIL held; when one raises or
    answers garbage, the stage falls back to its deterministic path and the package's
    ``notes`` say so. ``rules`` is extra relation rules in the TOML format of the
    built-in rule file (a string, or a path to such a file).
    """

    def __init__(
        self,
        repo: Repo,
        *,
        config: Optional[Config] = None,
        llm: Any = None,
        embedder: Any = None,
        rules: Union[str, "os.PathLike[str]", None] = None,
    ) -> None:
        if config is not None and not isinstance(config, Config):
            raise ConfigError(f"config must be a deepdiscovery.Config, got {type(config).__name__}")
        self.config: Config = config or Config()
        if embedder is not None and self.config.embedder_model is not None:
            raise ConfigError("give embedder= or Config(embedder_model=...), not both")
        rules_text = _read_rules(rules)
        session_options = json.dumps(self.config.to_session_options(rules_text))
        llm_spec = _llm_spec(llm)
        embedder_spec = _embedder_spec(embedder)
        if isinstance(repo, Mapping):
            files = dict(repo)
            for path, text in files.items():
                if not isinstance(path, str) or not isinstance(text, str):
                    raise RepositoryError("an in-memory repository maps str paths to str texts")
            self._native = _native.Session(
                None, session_options, files, llm_spec, embedder_spec
            )
            self.repo: Optional[str] = None
        else:
            try:
                root = os.fspath(repo)
            except TypeError:
                raise RepositoryError(
                    f"repo must be a path or a dict of files, got {type(repo).__name__}"
                ) from None
            self._native = _native.Session(root, session_options, None, llm_spec, embedder_spec)
            self.repo = str(root)

    def _config(self, config: Optional[Config], overrides: Dict[str, Any]) -> Config:
        base = config if config is not None else self.config
        if not isinstance(base, Config):
            raise ConfigError(f"config must be a deepdiscovery.Config, got {type(base).__name__}")
        return base.replace(**overrides) if overrides else base

    def discover(
        self,
        task: str,
        *,
        config: Optional[Config] = None,
        hints: HintsLike = None,
        **overrides: Any,
    ) -> ContextPackage:
        """Algorithm 1 end to end: the :class:`ContextPackage` for ``task``.

        Any :class:`Config` field can be given as a keyword (``budget_tokens=8000``,
        ``max_steps=32``, ``no_history=True``, …) to override the session's config for
        this query. ``hints`` are paths, symbols and failing tests the caller knows.
        """
        _check_task(task)
        chosen = self._config(config, overrides)
        options = json.dumps(chosen.to_options(Hints.coerce(hints)))
        package_json, markdown = self._native.discover_json(task, options)
        return ContextPackage(json.loads(package_json), markdown)

    def _eval_task(self, task: Mapping[str, Any], config: Optional[Config]) -> Dict[str, Any]:
        """Runs one evaluation task as every driver runs it (the core's
        ``eval::run_in``): ``error`` (``None``, or why the run failed), ``returned``,
        ``ranking``, ``tokens`` and ``millis``. For :func:`deepdiscovery.eval.evaluate`."""
        _check_task(task["task"])
        options = json.dumps(self._config(config, {}).to_options(Hints.coerce(None)))
        answer: Dict[str, Any] = json.loads(
            self._native.eval_task_json(json.dumps(task, default=str), options)
        )
        return answer

    def locate(
        self,
        task: str,
        *,
        config: Optional[Config] = None,
        hints: HintsLike = None,
        **overrides: Any,
    ) -> Dict[str, Any]:
        """The Location stage alone: ``anchors`` and ``ranked`` files, each with the
        four terms of Eq. 6 and the signals that matched, the environment, the
        resolved cues and the repository view (a dict)."""
        _check_task(task)
        chosen = self._config(config, overrides)
        options = json.dumps(chosen.to_locate_options(Hints.coerce(hints)))
        return json.loads(self._native.locate_json(task, options))

    def graph(self) -> Dict[str, List[Tuple[Any, ...]]]:
        """The repository graph: ``nodes`` (path, language, role) and ``edges`` (from,
        to, relation, confidence, rationale) — ready for ``networkx``."""
        return self._native.graph()


def _check_task(task: Any) -> None:
    if not isinstance(task, str):
        raise TaskError(f"the task must be a str, got {type(task).__name__}")


def _read_rules(rules: Union[str, "os.PathLike[str]", None]) -> Optional[str]:
    if rules is None:
        return None
    if isinstance(rules, str) and ("\n" in rules or "[[rule]]" in rules):
        return rules
    path = os.fspath(rules)
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise ConfigError(f"cannot read the rules file {path}: {e}") from None


def discover(
    repo: Repo,
    task: str,
    *,
    config: Optional[Config] = None,
    hints: HintsLike = None,
    llm: Any = None,
    embedder: Any = None,
    **overrides: Any,
) -> ContextPackage:
    """One-shot :meth:`Session.discover` on ``repo`` (a path or a dict of files)."""
    session = Session(repo, config=_one_shot(config), llm=llm, embedder=embedder)
    return session.discover(task, hints=hints, **overrides)


def locate(
    repo: Repo,
    task: str,
    *,
    config: Optional[Config] = None,
    hints: HintsLike = None,
    **overrides: Any,
) -> Dict[str, Any]:
    """One-shot :meth:`Session.locate` on ``repo``."""
    return Session(repo, config=_one_shot(config)).locate(task, hints=hints, **overrides)


def _one_shot(config: Any) -> Any:
    """The config of a session queried once: nothing to gain from watching. Anything
    but a :class:`Config` is passed on for :class:`Session` to refuse."""
    if config is None:
        return Config(watch=False)
    return config.replace(watch=False) if isinstance(config, Config) else config
