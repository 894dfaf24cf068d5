"""deepdiscovery: complete task-level repository context for coding agents.

The native core does the work; this package is the Python face over it.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Tuple, Union

from deepdiscovery import _native
from deepdiscovery._native import DeepDiscoveryError, version

__version__ = version()

__all__ = ["DeepDiscoveryError", "Session", "__version__", "version"]


class Session:
    """A repository session: facts are cached across queries and revalidated on each.

    ``Session(repo)`` opens a directory on disk; nothing is indexed first.
    """

    def __init__(self, repo: Union[str, "os.PathLike[str]"]) -> None:
        self._native = _native.Session(os.fspath(repo))

    def graph(self) -> Dict[str, List[Tuple[Any, ...]]]:
        """The repository graph: ``nodes`` (path, language, role) and ``edges``
        (from, to, relation, confidence, rationale)."""
        return self._native.graph()

    def locate(
        self,
        task: str,
        *,
        anchors: int = 8,
        no_sem: bool = False,
        no_sum: bool = False,
        no_rule: bool = False,
        no_prior: bool = False,
    ) -> Dict[str, Any]:
        """The Location stage: ``anchors`` and ``ranked`` files with the terms of the
        score and the signals that matched, the environment, the resolved cues and the
        repository view. The ``no_*`` switches turn one term of the score off."""
        return json.loads(
            self._native.locate_json(task, anchors, no_sem, no_sum, no_rule, no_prior)
        )

    def discover(
        self,
        task: str,
        *,
        budget_tokens: int = 16_000,
        max_steps: int = 64,
        anchors: int = 8,
        tau: float = 0.15,
        kappa: float = 0.62,
        location_only: bool = False,
        no_compression: bool = False,
        no_implicit: bool = False,
        no_metadata_first: bool = False,
    ) -> Dict[str, Any]:
        """Algorithm 1 end to end: the context package as a dict (``files``,
        ``anchors``, ``relations``, ``ranked_files``, ``budget``, …) with its Markdown
        rendering under ``"markdown"``; the rendering never exceeds ``budget_tokens``.
        The last four switches are the paper's ablations."""
        package_json, markdown = self._native.discover_json(
            task,
            budget_tokens,
            max_steps,
            anchors,
            tau,
            kappa,
            location_only,
            no_compression,
            no_implicit,
            no_metadata_first,
        )
        package = json.loads(package_json)
        package["markdown"] = markdown
        return package
