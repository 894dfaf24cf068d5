"""deepdiscovery.tools: function-calling definitions and the dispatcher."""

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

import deepdiscovery
from deepdiscovery import tools

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TASK = "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in `convert_currency`"
TOP = "inventory/pricing/currency.py"


@pytest.fixture(scope="module")
def session():
    return deepdiscovery.Session(FIXTURES / "locate_app")


def test_definitions_have_both_shapes_and_a_closed_schema():
    openai = tools.openai_tools()
    anthropic = tools.anthropic_tools()
    assert [t["function"]["name"] for t in openai] == ["discover", "locate"]
    assert [t["name"] for t in anthropic] == ["discover", "locate"]
    for o, a in zip(openai, anthropic):
        schema = o["function"]["parameters"]
        assert schema == a["input_schema"]
        assert schema["type"] == "object" and schema["required"] == ["task"]
        assert schema["additionalProperties"] is False
        assert o["type"] == "function" and o["function"]["description"]
        # Plain JSON: what a request body carries.
        assert json.loads(json.dumps(o)) == o


def test_dispatch_runs_discover_and_locate(session):
    markdown = tools.dispatch(session, "discover", {"task": TASK, "budget_tokens": 3000})
    assert markdown.startswith("# Task context") and TOP in markdown
    assert markdown == session.discover(TASK, budget_tokens=3000).to_markdown()
    anchors = json.loads(tools.dispatch(session, "locate", json.dumps({"task": TASK, "anchors": 3})))
    assert [a["path"] for a in anchors] == [
        a["path"] for a in session.locate(TASK, anchors=3)["anchors"]
    ]
    assert anchors[0]["path"] == TOP and anchors[0]["signals"]
    hinted = json.loads(
        tools.dispatch(session, "locate", {"task": "prices are wrong", "paths": [TOP]})
    )
    # The hint reaches the core: the hinted file is an anchor, named by the caller.
    named = [a for a in hinted if a["path"] == TOP]
    assert named and any("named in the task" in s for s in named[0]["signals"])


@pytest.mark.parametrize(
    "name, arguments, says",
    [
        ("delete_repo", {"task": TASK}, "unknown tool"),
        ("discover", "{not json", "not JSON"),
        ("discover", "[1, 2]", "JSON object"),
        ("discover", {}, "needs the argument 'task'"),
        ("discover", {"task": TASK, "budget": 10}, "no argument 'budget'"),
        ("discover", {"task": TASK, "budget_tokens": "many"}, "integer"),
        ("discover", {"task": TASK, "budget_tokens": 10}, "between"),
        ("locate", {"task": TASK, "anchors": True}, "integer"),
        ("locate", {"task": TASK, "paths": "a.py"}, "list of strings"),
        ("locate", {"task": "   "}, "task"),
    ],
)
def test_bad_calls_are_answered_as_errors(session, name, arguments, says):
    with pytest.raises(deepdiscovery.DeepDiscoveryError, match=says):
        tools.dispatch(session, name, arguments)
    encoded = arguments if isinstance(arguments, str) else json.dumps(arguments)
    reply = tools.openai_tool_result(
        session, {"id": "call_1", "function": {"name": name, "arguments": encoded}}
    )
    assert reply["role"] == "tool" and reply["tool_call_id"] == "call_1"
    assert reply["content"].startswith("error:") and says in reply["content"]
    if isinstance(arguments, dict):
        block = tools.anthropic_tool_result(
            session, {"type": "tool_use", "id": "tu_1", "name": name, "input": arguments}
        )
        assert block["is_error"] and block["tool_use_id"] == "tu_1"


def test_sdk_objects_are_read_like_dicts(session):
    call = SimpleNamespace(
        id="call_7",
        function=SimpleNamespace(name="locate", arguments=json.dumps({"task": TASK})),
    )
    reply = tools.openai_tool_result(session, call)
    assert json.loads(reply["content"])[0]["path"] == TOP
    use = SimpleNamespace(id="tu_7", name="discover", input={"task": TASK, "budget_tokens": 2000})
    block = tools.anthropic_tool_result(session, use)
    assert not block["is_error"] and block["content"].startswith("# Task context")
