"""Configuration: every parameter of the method, with the paper's defaults.

:class:`Config` is frozen; derive variants with :meth:`Config.replace`. Its fields
have the names of the Rust ``DiscoverConfig`` (flattened), and :meth:`Config.to_options`
gives the JSON object the core reads (the same one the C ABI takes).
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple, Union

from deepdiscovery.errors import ConfigError

__all__ = ["BUILTIN_MODEL", "Config", "Hints", "Weights", "builtin_model_folder"]

#: The ``embedder_model`` that selects the tuned model this package ships.
BUILTIN_MODEL = "builtin"


def builtin_model_folder() -> Optional[str]:
    """The folder of the tuned model this package ships (its model card is the
    folder's ``README.md``), or None when this copy of the package has none."""
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "embedder")
    return folder if os.path.isfile(os.path.join(folder, "model.safetensors")) else None


@dataclass(frozen=True)
class Weights:
    """Fixed coefficients of Eq. 6: α (``sem``), β (``sum``), γ (``rule``), δ (``prior``)."""

    sem: float
    sum: float
    rule: float
    prior: float


@dataclass(frozen=True)
class Hints:
    """What the caller already knows about the task: paths, symbols, failing tests."""

    paths: Tuple[str, ...] = ()
    symbols: Tuple[str, ...] = ()
    failing_tests: Tuple[str, ...] = ()

    def to_options(self) -> Dict[str, Any]:
        return {
            "paths": list(self.paths),
            "symbols": list(self.symbols),
            "failing_tests": list(self.failing_tests),
        }

    @classmethod
    def coerce(cls, value: Union["Hints", Mapping[str, Sequence[str]], None]) -> "Hints":
        """A ``Hints`` from itself, a mapping with the same keys, or ``None``."""
        if value is None:
            return cls()
        if isinstance(value, Hints):
            return value
        if isinstance(value, Mapping):
            unknown = set(value) - {"paths", "symbols", "failing_tests"}
            if unknown:
                raise ConfigError(
                    f"unknown hint {sorted(unknown)[0]!r} "
                    "(expected paths, symbols, failing_tests)"
                )
            parts = {}
            for key in ("paths", "symbols", "failing_tests"):
                items = value.get(key, ())
                if isinstance(items, str) or not all(isinstance(i, str) for i in items):
                    raise ConfigError(f"hints.{key} must be a list of strings")
                parts[key] = tuple(items)
            return cls(**parts)
        raise ConfigError(f"hints must be a Hints or a dict, got {type(value).__name__}")


@dataclass(frozen=True)
class Config:
    """Every parameter of DeepDiscovery (paper §III, defaults of §IV).

    Query parameters:

    - ``anchors``: K_a, how many anchors the Location stage selects (8).
    - ``preset``: ``"auto"`` (the learned scorer re-ranks the best candidates of
      Eq. 6), ``"paper"`` (Eq. 6 alone, coefficients chosen per query from repository
      scale and ambiguity: the paper's hand-set presets) or fixed :class:`Weights`.
    - ``budget_tokens``: Γ_max in tokens (16,000); the package never exceeds it.
    - ``max_steps``: Γ_max in expansion steps (64).
    - ``location_share``: Γ_loc / Γ_max, the repository view's share (0.25).
    - ``max_files``: files whose text the lexical pass reads at most (100,000); in a
      larger repository the others are ranked by their path alone (with a note).
    - ``tau``: τ, the expansion threshold on Priority (Eq. 7, 0.15).
    - ``kappa``: κ, the metadata-promotion threshold on u (Eq. 8, 0.62).
    - ``patience``: idle expansion actions before stopping (2).
    - ``min_score_ratio``: a stricter last filter, for callers that want the files
      likely to change rather than the context around them: a file whose final
      score is below this share of the best file's is left out of the package,
      though it keeps its place in ``ranked_files``; the three best files and the
      files the task names stay (0, every file the expansion selected stays). At 0.4
      the development sets keep their full recall and gain precision (multilingual
      12.6 % → 15.8 %), but relation-recovered context (a settings binding, an event
      handler, an interface's provider) is cut first.
    - Ablations of Table III: ``location_only``, ``no_compression``, ``no_implicit``,
      ``no_metadata_first``, ``no_history``; of Eq. 6: ``no_sem``, ``no_sum``,
      ``no_rule``, ``no_prior``; ``no_bridge`` leaves out the vocabulary bridge (the
      task's words translated into the code words that fix such tasks, learned from
      public history).
    - With a language model: ``llm_environment`` (environment analysis: task type,
      modules, constraints), ``llm_summary`` (s_sum of Eq. 6), ``llm_promotion``
      (the Eq. 8 judgment of borderline files), ``llm_max_calls`` per query (3) and
      ``llm_max_prompt_tokens`` (6,000). Without a model they do nothing.
    - The graph's scope: by default the graph holds the facts of the query's
      neighbourhood only (the anchors, the best Location candidates and the files
      that share their rarest names), grown in ``scope_rounds`` (2) of at most
      ``scope_per_round`` files (48); names found in more than
      ``scope_max_name_files`` files (24) link nothing, and a file gives
      ``scope_max_names_per_file`` names at most (100); a file larger than
      ``scope_max_file_bytes`` (256 KiB) is parsed only when it is an anchor,
      never as a candidate beyond the anchors or by growth (mostly generated
      tables). ``full_graph`` parses every
      file instead (slower on large repositories).

    Session parameters (used when the config is given to :class:`Session`):

    - ``history``: read the repository's git history (ancestors of HEAD only) for
      co-change relations and past changes (True); ``history_max_commits`` (2,000),
      ``history_max_bytes`` (16 MiB of log) and ``history_max_files_per_commit`` (50)
      bound it: by work, never by time, so the same checkout gives the same package
      on any machine. ``history_max_seconds`` (600) only guards against a git that
      never answers (the query then goes on without history, and says so).
    - ``builtin_rules``: apply the built-in implicit-relation rules (True).
    - ``cache``: keep per-file facts in an on-disk cache shared by processes (True),
      so that a second process on an unchanged repository does not parse again;
      answers are the same with or without it. ``cache_dir`` names its directory
      (default: ``$DEEPDISCOVERY_CACHE_DIR``, else the platform's cache directory,
      ``~/.cache/deepdiscovery`` on Linux). A directory that cannot be used means no
      cache, never an error.
    - ``watch``: watch the repository's directories (inotify, on Linux) so that a
      query lists only the files that changed since the session's last query instead
      of every file (True). For sessions queried again and again (notebooks, agents,
      the MCP server); the answers are the same either way. The one-shot
      :func:`discover` and :func:`locate` and the CLI do not watch.
    - ``embedder_model``: a sentence-transformers folder (``config.json``,
      ``model.safetensors``, ``tokenizer.json``) whose model runs in-process, in Rust,
      and embeds the task and the best candidates' definitions (None: no embedder).
      Their similarity is evidence of its own ("semantic match: ...") that the
      learned scorer and the change-set completion trained with it read. ``"builtin"``
      selects the model this package ships (:data:`BUILTIN_MODEL`: all-MiniLM-L6-v2
      tuned on mined issue-to-fix pairs, int8, 23 MB, in ``deepdiscovery/embedder``).
      A folder that cannot be used raises :class:`~deepdiscovery.ModelError` when the
      session opens. Not with ``embedder=`` too: one embedder a session.
    """

    anchors: int = 8
    preset: Union[str, Weights] = "auto"
    budget_tokens: int = 16_000
    max_steps: int = 64
    location_share: float = 0.25
    max_files: int = 100_000
    tau: float = 0.15
    kappa: float = 0.62
    patience: int = 2
    min_score_ratio: float = 0.0
    location_only: bool = False
    no_compression: bool = False
    no_implicit: bool = False
    no_metadata_first: bool = False
    no_history: bool = False
    no_sem: bool = False
    no_sum: bool = False
    no_rule: bool = False
    no_prior: bool = False
    no_bridge: bool = False
    llm_environment: bool = True
    llm_summary: bool = True
    llm_promotion: bool = True
    llm_max_calls: int = 3
    llm_max_prompt_tokens: int = 6_000
    full_graph: bool = False
    scope_rounds: int = 2
    scope_per_round: int = 48
    scope_max_name_files: int = 24
    scope_max_names_per_file: int = 100
    scope_max_file_bytes: int = 256 << 10
    history: bool = True
    history_max_commits: int = 2_000
    history_max_bytes: int = 16 << 20
    history_max_files_per_commit: int = 50
    history_max_seconds: int = 600
    builtin_rules: bool = True
    cache: bool = True
    cache_dir: Optional[str] = None
    watch: bool = True
    embedder_model: Optional[str] = None

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.type == "bool" and not isinstance(value, bool):
                raise ConfigError(f"{f.name} must be a bool, got {value!r}")
            if f.type == "int" and (isinstance(value, bool) or not isinstance(value, int)):
                raise ConfigError(f"{f.name} must be an int, got {value!r}")
            if f.type == "float" and (
                isinstance(value, bool) or not isinstance(value, (int, float))
            ):
                raise ConfigError(f"{f.name} must be a number, got {value!r}")
        if self.cache_dir is not None:
            if not isinstance(self.cache_dir, (str, os.PathLike)):
                raise ConfigError(f"cache_dir must be a path or None, got {self.cache_dir!r}")
            object.__setattr__(self, "cache_dir", os.fspath(self.cache_dir))
        if self.embedder_model is not None:
            if not isinstance(self.embedder_model, (str, os.PathLike)):
                raise ConfigError(
                    f"embedder_model must be a path or None, got {self.embedder_model!r}"
                )
            object.__setattr__(self, "embedder_model", os.fspath(self.embedder_model))
        if not (self.preset in ("auto", "paper") or isinstance(self.preset, Weights)):
            raise ConfigError(f"preset must be 'auto', 'paper' or Weights, got {self.preset!r}")
        for name in (
            "llm_max_calls",
            "llm_max_prompt_tokens",
            "scope_rounds",
            "scope_per_round",
            "scope_max_names_per_file",
            "scope_max_file_bytes",
            "history_max_commits",
            "history_max_bytes",
            "history_max_files_per_commit",
            "history_max_seconds",
        ):
            if getattr(self, name) < 0:
                raise ConfigError(f"{name} must be non-negative")
        # Ranges are the core's to check: one source of truth for every binding.
        from deepdiscovery import _native

        _native.Session.check_options(json.dumps(self.to_options()))

    def replace(self, **changes: Any) -> "Config":
        """A copy with some fields changed (checked like a new one)."""
        unknown = set(changes) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            raise ConfigError(f"unknown config field {sorted(unknown)[0]!r}")
        return dataclasses.replace(self, **changes)

    def to_options(self, hints: Optional[Hints] = None) -> Dict[str, Any]:
        """The query options as the core's JSON object (see ``deepdiscovery_core::options``)."""
        preset: Any = (
            self.preset
            if isinstance(self.preset, str)
            else {"fixed": dataclasses.asdict(self.preset)}
        )
        options: Dict[str, Any] = {
            "anchors": self.anchors,
            "preset": preset,
            "budget": {
                "max_tokens": self.budget_tokens,
                "max_steps": self.max_steps,
                "location_share": self.location_share,
                "max_files": self.max_files,
            },
            "tau": self.tau,
            "kappa": self.kappa,
            "patience": self.patience,
            "min_score_ratio": self.min_score_ratio,
            "ablation": {
                "location_only": self.location_only,
                "no_compression": self.no_compression,
                "no_implicit": self.no_implicit,
                "no_metadata_first": self.no_metadata_first,
                "no_history": self.no_history,
            },
            "location_ablation": {
                "no_sem": self.no_sem,
                "no_sum": self.no_sum,
                "no_rule": self.no_rule,
                "no_prior": self.no_prior,
                "no_history": self.no_history,
                "no_bridge": self.no_bridge,
            },
        }
        options["llm"] = {
            "environment": self.llm_environment,
            "summary": self.llm_summary,
            "promotion": self.llm_promotion,
            "max_calls": self.llm_max_calls,
            "max_prompt_tokens": self.llm_max_prompt_tokens,
        }
        options["full_graph"] = self.full_graph
        options["scope"] = {
            "rounds": self.scope_rounds,
            "per_round": self.scope_per_round,
            "max_name_files": self.scope_max_name_files,
            "max_names_per_file": self.scope_max_names_per_file,
            "max_file_bytes": self.scope_max_file_bytes,
        }
        if hints is not None:
            options["hints"] = hints.to_options()
        return options

    def to_locate_options(self, hints: Optional[Hints] = None) -> Dict[str, Any]:
        """The options of the Location stage alone."""
        full = self.to_options(hints)
        options = {
            "anchors": full["anchors"],
            "preset": full["preset"],
            "budget": full["budget"],
            "ablation": full["location_ablation"],
            "llm": full["llm"],
        }
        if hints is not None:
            options["hints"] = full["hints"]
        return options

    def to_session_options(self, rules: Optional[str] = None) -> Dict[str, Any]:
        """The session options as the core's JSON object."""
        options: Dict[str, Any] = {
            "builtin_rules": self.builtin_rules,
            "history": (
                {
                    "max_commits": self.history_max_commits,
                    "max_bytes": self.history_max_bytes,
                    "max_files_per_commit": self.history_max_files_per_commit,
                    "max_seconds": self.history_max_seconds,
                }
                if self.history
                else False
            ),
        }
        if rules is not None:
            options["rules"] = rules
        options["cache"] = self.cache
        if self.cache_dir is not None:
            options["cache_dir"] = self.cache_dir
        options["watch"] = self.watch
        if self.embedder_model is not None:
            # "builtin" is this package's copy; without one, the library looks for its
            # own (DEEPDISCOVERY_BUILTIN_MODEL, a source checkout) and says if it has none.
            shipped = builtin_model_folder() if self.embedder_model == BUILTIN_MODEL else None
            options["embedder_model"] = shipped or self.embedder_model
        return options

    def to_dict(self) -> Dict[str, Any]:
        """Every field, as plain values."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        if isinstance(self.preset, Weights):
            out["preset"] = dataclasses.asdict(self.preset)
        return out

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> "Config":
        """A config from :meth:`to_dict`'s output (unknown keys are an error)."""
        values = dict(values)
        unknown = set(values) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            raise ConfigError(f"unknown config field {sorted(unknown)[0]!r}")
        preset = values.get("preset")
        if isinstance(preset, Mapping):
            values["preset"] = Weights(**preset)
        return cls(**values)
