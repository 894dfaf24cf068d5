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
