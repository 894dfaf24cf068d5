"""deepdiscovery as function-calling tools for LLM agents: JSON-Schema definitions of
``discover`` and ``locate`` in the OpenAI and Anthropic shapes, and a dispatcher that
runs a model's tool call on a :class:`~deepdiscovery.Session` and answers it.

>>> import deepdiscovery
>>> from deepdiscovery import tools
>>> session = deepdiscovery.Session("path/to/repo")              # doctest: +SKIP
>>> client.chat.completions.create(..., tools=tools.openai_tools())  # doctest: +SKIP
>>> for call in reply.choices[0].message.tool_calls:             # doctest: +SKIP
...     messages.append(tools.openai_tool_result(session, call))

No SDK is imported: calls may be SDK objects or plain dicts, and results are plain
dicts the SDKs accept. A call that cannot run (unknown tool, arguments that are not a
JSON object or break the schema, a task the core refuses) is answered as an error
result the model can read, never raised into the agent loop; :func:`dispatch` is the
raising form.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Tuple

from deepdiscovery.errors import DeepDiscoveryError, TaskError

_HINTS = {
    "paths": {
        "type": "array",
        "items": {"type": "string"},
        "description": "Repository-relative paths you already know the task involves.",
    },
    "symbols": {
        "type": "array",
        "items": {"type": "string"},
        "description": "Function, class or method names you already know the task involves.",
    },
    "failing_tests": {
        "type": "array",
        "items": {"type": "string"},
        "description": "Failing test ids (pytest node ids, JUnit names, ...).",
    },
}

#: The tools, in a neutral shape: name, description, JSON-Schema of the arguments.
TOOLS: Dict[str, Dict[str, Any]] = {
    "discover": {
        "description": (
            "Find every file of the repository a software task needs (the files to change "
            "and the context around them: imports, calls, inheritance, configuration, "
            "registrations, tests) and return them as a Markdown context package within a "
            "token budget, each file with its role, why it was included and a metadata "
            "card or its text."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "task": {
                    "type": "string",
                    "description": "The task in plain language: an issue, a bug report, a feature request.",
                },
                "budget_tokens": {
                    "type": "integer",
                    "minimum": 256,
                    "maximum": 200000,
                    "description": "The most tokens the package may take (default 16000).",
                },
                **_HINTS,
            },
            "required": ["task"],
            "additionalProperties": False,
        },
    },
    "locate": {
        "description": (
            "Rank the repository's files by how likely a software task is about them and "
            "return the best ones (the anchors) with the evidence for each: cheaper than "
            "discover, without the surrounding context."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "task": {"type": "string", "description": "The task in plain language."},
                "anchors": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 50,
                    "description": "How many files to return (default 8).",
                },
                **_HINTS,
            },
            "required": ["task"],
            "additionalProperties": False,
        },
    },
}


def openai_tools() -> List[Dict[str, Any]]:
    """The tools in the OpenAI chat-completions shape (``tools=`` of a request)."""
    return [
        {
            "type": "function",
            "function": {"name": name, "description": t["description"], "parameters": t["parameters"]},
        }
        for name, t in TOOLS.items()
    ]


def anthropic_tools() -> List[Dict[str, Any]]:
    """The tools in the Anthropic messages shape (``tools=`` of a request)."""
    return [
        {"name": name, "description": t["description"], "input_schema": t["parameters"]}
        for name, t in TOOLS.items()
    ]


class ToolCallError(TaskError):
    """A tool call that cannot run as given (unknown tool, bad arguments)."""


def _arguments(name: str, arguments: Any) -> Dict[str, Any]:
    """The call's arguments as a dict checked against the tool's schema."""
    if name not in TOOLS:
        raise ToolCallError(f"unknown tool {name!r}; the tools are {', '.join(TOOLS)}")
    if isinstance(arguments, (str, bytes)):
        try:
            arguments = json.loads(arguments or "{}")
        except ValueError as e:
            raise ToolCallError(f"the arguments of {name} are not JSON: {e}") from None
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise ToolCallError(f"the arguments of {name} must be a JSON object")
    schema = TOOLS[name]["parameters"]
    properties = schema["properties"]
    unknown = sorted(set(arguments) - set(properties))
    if unknown:
        raise ToolCallError(f"{name} takes no argument {unknown[0]!r}")
    for required in schema["required"]:
        if required not in arguments:
            raise ToolCallError(f"{name} needs the argument {required!r}")
    for key, value in arguments.items():
        kind = properties[key]["type"]
        if kind == "string" and not isinstance(value, str):
            raise ToolCallError(f"{name}: {key} must be a string")
        if kind == "integer":
            if isinstance(value, bool) or not isinstance(value, int):
                raise ToolCallError(f"{name}: {key} must be an integer")
            low, high = properties[key]["minimum"], properties[key]["maximum"]
            if not low <= value <= high:
                raise ToolCallError(f"{name}: {key} must be between {low} and {high}")
        if kind == "array" and not (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        ):
            raise ToolCallError(f"{name}: {key} must be a list of strings")
    return dict(arguments)


def dispatch(session: Any, name: str, arguments: Any) -> str:
    """Runs one tool call on ``session`` and returns its result as text: the package's
    Markdown for ``discover``, a JSON list of the anchors (path, score, role,
    signals) for ``locate``. ``arguments`` is a dict or its JSON text (as OpenAI sends
    it). Raises :class:`ToolCallError` or the core's error on a call that cannot run.
    """
    args = _arguments(name, arguments)
    hints = {k: args.pop(k) for k in list(args) if k in _HINTS}
    task = args.pop("task")
    if name == "discover":
        return session.discover(task, hints=hints or None, **args).to_markdown()
    location = session.locate(task, hints=hints or None, **args)
    anchors = [
        {
            "path": a["path"],
            "score": round(a["score"], 4),
            "role": a["role"],
            "signals": a["signals"],
        }
        for a in location["anchors"]
    ]
    return json.dumps(anchors, ensure_ascii=False)


def _run(session: Any, name: str, arguments: Any) -> Tuple[str, bool]:
    """The result text and whether it is an error."""
    try:
        return dispatch(session, name, arguments), False
    except (DeepDiscoveryError, ValueError, TypeError) as e:
        return f"error: {e}", True


def _field(call: Any, *path: str) -> Any:
    """``call.a.b`` of an SDK object or ``call["a"]["b"]`` of a dict (None if absent)."""
    for key in path:
        if call is None:
            return None
        call = call.get(key) if isinstance(call, Mapping) else getattr(call, key, None)
    return call


def openai_tool_result(session: Any, tool_call: Any) -> Dict[str, Any]:
    """Runs an OpenAI ``tool_call`` (``{"id", "function": {"name", "arguments"}}``) and
    returns the ``{"role": "tool", ...}`` message that answers it; an error is its
    content, prefixed ``error:``."""
    name = _field(tool_call, "function", "name") or ""
    content, _ = _run(session, name, _field(tool_call, "function", "arguments"))
    return {"role": "tool", "tool_call_id": _field(tool_call, "id"), "content": content}


def anthropic_tool_result(session: Any, tool_use: Any) -> Dict[str, Any]:
    """Runs an Anthropic ``tool_use`` block (``{"id", "name", "input"}``) and returns
    the ``tool_result`` block that answers it (``is_error`` set when it failed)."""
    name = _field(tool_use, "name") or ""
    content, failed = _run(session, name, _field(tool_use, "input"))
    return {
        "type": "tool_result",
        "tool_use_id": _field(tool_use, "id"),
        "content": content,
        "is_error": failed,
    }
