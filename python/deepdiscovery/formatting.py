"""Plain-text renderings shared by the command line (:mod:`deepdiscovery.cli`) and the
MCP server (:mod:`deepdiscovery.mcp_server`), so that neither imports the other."""

from __future__ import annotations

from typing import Any, Dict

__all__ = ["format_anchors"]


def format_anchors(location: Dict[str, Any]) -> str:
    """The anchors of a Location result, one block each: rank, path, score and role, the
    terms of the score, and the signals that matched."""
    lines = []
    for rank, anchor in enumerate(location["anchors"], 1):
        terms = "  ".join(f"{name} {value:.2f}" for name, value in anchor["terms"].items())
        lines.append(f"{rank}. {anchor['path']}  score {anchor['score']:.3f}  [{anchor['role']}]")
        lines.append(f"     {terms}")
        lines.extend(f"     - {signal}" for signal in anchor["signals"])
    if not lines:
        lines.append("no anchor: nothing in the repository matches the task")
    return "\n".join(lines)


def format_definitions(location: Dict[str, Any]) -> str:
    """Where to look: the ranked definitions of a Location result or a package, one
    block each: rank, path, name, kind and lines, score, and why it is listed."""
    lines = []
    for rank, d in enumerate(location.get("definitions") or [], 1):
        span = d["span"]
        lines.append(
            f"{rank}. {d['path']}  {d['name']}  ({d['kind']}, lines {span['start']}-{span['end']})"
            f"  score {d['score']:.3f}"
        )
        lines.extend(f"     - {why}" for why in d["why"])
    if not lines:
        lines.append("no definition: the best files have none that the task points at")
    return "\n".join(lines)

