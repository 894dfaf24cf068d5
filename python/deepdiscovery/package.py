"""The context package: what ``discover`` returns.

A thin, read-only view over the package's JSON (schema ``schema_version``, the same
document the Rust crate and the C library produce), with attribute access for the
common parts and ``to_dict()`` for everything.
"""

from __future__ import annotations

import copy
import html
import json
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Tuple

from deepdiscovery import picture

__all__ = ["ContextFile", "ContextPackage", "FileView", "Span", "card_text", "retrieved"]


def card_text(card: Dict[str, Any]) -> str:
    """A file's metadata card as a few readable lines."""
    lines = [f"{card.get('path', '')} ({card.get('role', '')}, {card.get('lines', 0)} lines)"]
    if card.get("summary"):
        lines.append(str(card["summary"]))
    for key in ("definitions", "imports"):
        values = card.get(key) or []
        if values:
            lines.append(f"{key}: " + "; ".join(str(v) for v in values))
    return "\n".join(lines)


def retrieved(file: "ContextFile", rank: int) -> Tuple[str, Dict[str, Any]]:
    """What a retriever adapter gives of one package file: its content (the text the
    package gives, or its card) and its metadata (path, rank, role, language, score,
    anchor, view kind, rationale)."""
    text = file.text
    metadata = {
        "path": file.path,
        "rank": rank,
        "role": file.role,
        "language": file.language,
        "score": file.score,
        "anchor": file.anchor,
        "view": file.view.kind,
        "rationale": list(file.rationale),
    }
    return (text if text is not None else card_text(file.view.card)), metadata


@dataclass(frozen=True)
class Span:
    """Lines of a file given in full: ``start``..``end`` (1-based, inclusive)."""

    start: int
    end: int
    label: str
    text: str


@dataclass(frozen=True)
class FileView:
    """How a file is given: ``"metadata"`` (its card only), ``"full_text"`` or ``"spans"``."""

    kind: str
    card: Dict[str, Any]
    text: Optional[str] = None
    spans: Tuple[Span, ...] = ()


@dataclass(frozen=True)
class ContextFile:
    """One selected file: where it ranks, what it is, how it is given, and why."""

    path: str
    score: float
    role: str
    language: str
    anchor: bool
    view: FileView
    rationale: Tuple[str, ...]
    path_from_anchor: Tuple[Dict[str, Any], ...]
    tokens: int

    @property
    def text(self) -> Optional[str]:
        """The text given for the file: all of it, its spans joined, or ``None``."""
        if self.view.text is not None:
            return self.view.text
        if self.view.spans:
            return "\n".join(s.text for s in self.view.spans)
        return None

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> "ContextFile":
        view = data.get("view", {})
        spans = tuple(
            Span(s["start"], s["end"], s["label"], s["text"]) for s in view.get("spans", ())
        )
        return cls(
            path=data["path"],
            score=data["score"],
            role=data["role"],
            language=data["language"],
            anchor=data["anchor"],
            view=FileView(view.get("kind", "metadata"), view.get("card", {}), view.get("text"), spans),
            rationale=tuple(data.get("rationale", ())),
            path_from_anchor=tuple(data.get("path_from_anchor", ())),
            tokens=data.get("tokens", 0),
        )


class ContextPackage:
    """The structured task context Ĉ: ranked files with roles, views and rationales,
    the anchors, the relations among the files, the environment and the budget.

    In a notebook it renders itself (``_repr_markdown_`` / ``_repr_html_``, the latter
    with a picture of its files and relations, :meth:`to_svg`).
    """

    def __init__(self, data: Dict[str, Any], markdown: str) -> None:
        self._data = data
        self._markdown = markdown
        self._files = [ContextFile._from_json(f) for f in data.get("files", ())]

    @property
    def files(self) -> List[ContextFile]:
        """The selected files, best first."""
        return list(self._files)

    def paths(self) -> List[str]:
        """The selected files' paths, best first."""
        return [f.path for f in self._files]

    @property
    def task(self) -> str:
        """The task the package was built for."""
        return self._data.get("task", "")

    @property
    def task_type(self) -> str:
        """What kind of task it is (bug fix, feature, …) as the core classified it."""
        return self._data.get("task_type", "")

    @property
    def anchors(self) -> List[Dict[str, Any]]:
        """The Location stage's anchors with their score and signals."""
        return copy.deepcopy(self._data.get("anchors", []))

    @property
    def definitions(self) -> List[Dict[str, Any]]:
        """Where to look inside the files: the functions, methods and classes the task
        most likely concerns, best first. Each has ``path``, ``name`` (within its file:
        ``Class.method``), ``kind``, ``span`` (``start``, ``end``: 1-based lines),
        ``score`` and ``why`` (one line per piece of evidence)."""
        return copy.deepcopy(self._data.get("definitions", []))

    @property
    def relations(self) -> List[Dict[str, Any]]:
        """Typed relations among the selected files (from, to, relation, confidence, rationale)."""
        return copy.deepcopy(self._data.get("relations", []))

    @property
    def ranked_files(self) -> List[Dict[str, Any]]:
        """Every considered file in final order (``path``, ``score``, ``selected``)."""
        return copy.deepcopy(self._data.get("ranked_files", []))

    @property
    def environment(self) -> Dict[str, Any]:
        """Languages, frameworks and modules the Location stage inferred."""
        return copy.deepcopy(self._data.get("environment", {}))

    @property
    def budget(self) -> Dict[str, Any]:
        """Tokens and steps used against the budget, and the time of each stage."""
        return copy.deepcopy(self._data.get("budget", {}))

    @property
    def recent_history(self) -> List[Dict[str, Any]]:
        """The latest commits before HEAD that changed selected files."""
        return copy.deepcopy(self._data.get("recent_history", []))

    @property
    def notes(self) -> List[str]:
        """Fallbacks taken and other remarks."""
        return list(self._data.get("notes", []))

    @property
    def schema_version(self) -> int:
        """The version of the package's JSON schema."""
        return self._data.get("schema_version", 0)

    def to_dict(self) -> Dict[str, Any]:
        """The whole package as plain data (a copy)."""
        return copy.deepcopy(self._data)

    def to_json(self, indent: Optional[int] = 2) -> str:
        """The package's JSON (the schema every binding shares)."""
        return json.dumps(self._data, indent=indent, ensure_ascii=False)

    def to_markdown(self) -> str:
        """The package rendered for a prompt; never longer than the token budget."""
        return self._markdown

    def to_svg(self) -> str:
        """The files (anchors apart) and the relations among them as an SVG: the graph
        of the Markdown's Mermaid diagram, drawn without Mermaid (see
        :mod:`deepdiscovery.picture`)."""
        return picture.to_svg(self._data)

    def __len__(self) -> int:
        return len(self._files)

    def __iter__(self) -> Iterator[ContextFile]:
        return iter(self.files)

    def __repr__(self) -> str:
        budget = self._data.get("budget", {})
        return (
            f"<ContextPackage {len(self._files)} files, "
            f"{budget.get('used_tokens', 0)}/{budget.get('max_tokens', 0)} tokens: "
            f"{', '.join(self.paths()[:5])}{', …' if len(self._files) > 5 else ''}>"
        )

    def _repr_markdown_(self) -> str:
        return self._markdown

    def _repr_html_(self) -> str:
        rows = "".join(
            "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{:.2f}</td><td>{}</td><td>{}</td></tr>".format(
                rank,
                html.escape(f.path),
                html.escape(f.role),
                f.score,
                html.escape(f.view.kind),
                html.escape("; ".join(f.rationale)),
            )
            for rank, f in enumerate(self._files, 1)
        )
        budget = self._data.get("budget", {})
        return (
            "<div>{}<p><b>Context package</b>: {} files, {} of {} tokens</p>"
            "<table><thead><tr><th>#</th><th>path</th><th>role</th><th>score</th>"
            "<th>view</th><th>why</th></tr></thead><tbody>{}</tbody></table>"
            "<details><summary>Markdown</summary><pre>{}</pre></details></div>"
        ).format(
            self.to_svg(),
            len(self._files),
            budget.get("used_tokens", 0),
            budget.get("max_tokens", 0),
            rows,
            html.escape(self._markdown),
        )
