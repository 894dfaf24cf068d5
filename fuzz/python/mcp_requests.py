"""Fuzz target (atheris) of the MCP server's request handling: any bytes, read as a
JSON-RPC ``tools/call`` request (or as whatever they are), go through the server's
own argument validation and tools on a fixture repository. A well-formed call gets
a result or a tool error; nothing else may escape, the server never stops.

    python fuzz/python/mcp_requests.py -max_total_time=600 fuzz/target/corpus/mcp

Run by `make fuzz` (with atheris installed into the test venv).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from mcp.server.mcpserver.exceptions import ToolError

    from deepdiscovery.mcp_server import build_server

ROOT = Path(__file__).resolve().parents[2]
SERVER = build_server(str(ROOT / "tests" / "fixtures" / "locate_app"))
TOOLS = ["discover", "locate", "related", "explain"]
LOOP = asyncio.new_event_loop()


def request_of(data: bytes):
    """The (tool, arguments) the bytes ask for: JSON when they are JSON, else built
    from the bytes by atheris's data provider (a tool name and typed arguments)."""
    try:
        message = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        message = None
    if isinstance(message, dict):
        params = message.get("params", message)
        if isinstance(params, dict):
            return params.get("name"), params.get("arguments")
        return None, params
    fdp = atheris.FuzzedDataProvider(data)
    tool = TOOLS[fdp.ConsumeIntInRange(0, len(TOOLS) - 1)] if fdp.ConsumeBool() else "x"
    arguments = {
        "task": fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 400)),
        "path": fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 80)),
        "budget_tokens": fdp.ConsumeInt(4),
        "anchors": fdp.ConsumeInt(2),
        "open_paths": [fdp.ConsumeUnicodeNoSurrogates(20) for _ in range(fdp.ConsumeIntInRange(0, 3))],
    }
    for key in list(arguments):
        if fdp.ConsumeBool():
            del arguments[key]
    return tool, arguments


def test_one_input(data: bytes) -> None:
    tool, arguments = request_of(data)
    if not isinstance(tool, str) or not isinstance(arguments, dict):
        return
    try:
        result = LOOP.run_until_complete(SERVER.call_tool(tool, arguments))
    except ToolError:
        return
    text = json.dumps(result.model_dump(mode="json"))
    assert "outside the repository'" not in text


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
