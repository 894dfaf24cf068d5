"""Fuzz target (atheris) of deepdiscovery.tools: any bytes, as the tool name and the
arguments a model sends (OpenAI's JSON text, Anthropic's decoded input, or typed
values built from the bytes), go through the dispatcher on a fixture repository. The
answer is always a result dict whose content is text; an error is marked as one and
never raised into the agent loop.

    python fuzz/python/tool_calls.py -max_total_time=600 fuzz/target/corpus/tools

Run by `make fuzz` (with atheris installed into the test venv).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import atheris

with atheris.instrument_imports():
    import deepdiscovery
    from deepdiscovery import tools

ROOT = Path(__file__).resolve().parents[2]
SESSION = deepdiscovery.Session(str(ROOT / "tests" / "fixtures" / "locate_app"))
NAMES = ["discover", "locate", "x"]


def call_of(data: bytes):
    """(name, arguments as JSON text, arguments decoded or built)."""
    fdp = atheris.FuzzedDataProvider(data)
    name = NAMES[fdp.ConsumeIntInRange(0, len(NAMES) - 1)]
    if fdp.ConsumeBool():
        text = fdp.ConsumeUnicodeNoSurrogates(fdp.remaining_bytes())
        try:
            decoded = json.loads(text)
        except ValueError:
            decoded = text
        return name, text, decoded
    # The tool's own keys (the one for the other tool, or a stray key, sometimes),
    # values mostly in range, so that real discover and locate calls run too. Rare
    # events are a draw of the top of a range: exhausted data draws the bottom.
    def rarely(one_in: int) -> bool:
        return fdp.ConsumeIntInRange(0, one_in - 1) == one_in - 1

    arguments = {
        "task": fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 300)),
        "paths": [fdp.ConsumeUnicodeNoSurrogates(20) for _ in range(fdp.ConsumeIntInRange(0, 3))],
        "symbols": fdp.ConsumeUnicodeNoSurrogates(10) if rarely(10) else [],
    }
    if name == "discover" or rarely(10):
        arguments["budget_tokens"] = fdp.ConsumeInt(4) if rarely(10) else fdp.ConsumeIntInRange(256, 20000)
    if name == "locate" or rarely(10):
        arguments["anchors"] = fdp.ConsumeInt(2) if rarely(10) else fdp.ConsumeIntInRange(1, 50)
    if rarely(20):
        arguments[fdp.ConsumeUnicodeNoSurrogates(8)] = fdp.ConsumeInt(2)
    for key in list(arguments):
        if rarely(5):
            del arguments[key]
    return name, json.dumps(arguments), arguments


def test_one_input(data: bytes) -> None:
    name, text, decoded = call_of(data)
    reply = tools.openai_tool_result(
        SESSION, {"id": "c", "function": {"name": name, "arguments": text}}
    )
    assert reply["role"] == "tool" and isinstance(reply["content"], str)
    block = tools.anthropic_tool_result(SESSION, {"id": "t", "name": name, "input": decoded})
    assert isinstance(block["content"], str) and isinstance(block["is_error"], bool)
    assert block["is_error"] == block["content"].startswith("error:")


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
