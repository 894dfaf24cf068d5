"""`deepdiscovery mcp --llm sampling`: the server asks the host agent's own model with
`sampling/createMessage`. The host is the MCP SDK's client with a sampling callback
that answers as the scripted model of test_adapters, in process and over stdio."""

import os
import sys
from pathlib import Path

import anyio
import pytest

pytest.importorskip(
    "mcp", reason='the MCP Python SDK is not installed (pip install "deepdiscovery[mcp]")'
)

from mcp import Client, ClientSession, StdioServerParameters, stdio_client  # noqa: E402
from mcp.types import (  # noqa: E402
    CreateMessageResult,
    ErrorData,
    ImageContent,
    TextContent,
)

import deepdiscovery  # noqa: E402
from deepdiscovery.cli import main  # noqa: E402
from deepdiscovery.mcp_server import SamplingLLM, build_server  # noqa: E402
from test_adapters import CONSTRAINT, scripted_answer  # noqa: E402

# The server process gets the MCP SDK's minimal environment: pass it the tests'
# scratch cache directory (conftest.py), never the user's cache.
CACHE_ENV = {"DEEPDISCOVERY_CACHE_DIR": os.environ["DEEPDISCOVERY_CACHE_DIR"]}

REPO = Path(__file__).resolve().parent.parent / "fixtures" / "locate_app"
TASK = "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in `convert_currency`"
TOP = "inventory/pricing/currency.py"
#: The prompts of the three LLM-assisted terms, by their first words.
PURPOSES = ("You analyse", "You rank files", "You prepare context")
NO_SAMPLING = "LLM terms off (--llm sampling): the MCP client did not announce the sampling capability"


@pytest.fixture
def anyio_backend():
    return "asyncio"


class Host:
    """The host agent's model: answers each sampling request as ``mode`` says and
    keeps the requests. ``ok`` answers as the scripted model, ``refuse`` with an error,
    ``image`` with an image, ``slow`` after the server has stopped waiting."""

    def __init__(self, mode="ok"):
        self.mode = mode
        self.requests = []

    async def __call__(self, context, params):
        self.requests.append(params)
        prompt = params.messages[0].content.text
        if self.mode == "refuse":
            return ErrorData(code=-1, message="the user declined the sampling request")
        if self.mode == "image":
            content = ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png")
            return CreateMessageResult(role="assistant", content=content, model="host")
        if self.mode == "slow":
            await anyio.sleep(5)
        text = "Here it is:\n" + scripted_answer(prompt)
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text=text), model="host"
        )


def server(timeout=30.0):
    return build_server(str(REPO), llm=SamplingLLM(timeout=timeout))


async def discover(client, task=TASK):
    """The discover result: (markdown, structured content)."""
    result = await client.call_tool("discover", {"task": task})
    assert not result.is_error, result.content[0].text
    return result.content[0].text, result.structured_content


@pytest.mark.anyio
async def test_discover_asks_the_hosts_model_and_uses_its_answers():
    host = Host()
    async with Client(server(), mode="legacy", sampling_callback=host) as client:
        markdown, data = await discover(client)
    llm = data["llm"]
    assert llm["model"] == "mcp-sampling" and llm["calls"] == len(host.requests) == 3
    assert llm["failures"] == 0 and llm["prompt_tokens"] > 0 and llm["answer_tokens"] > 0
    assert [p.messages[0].content.text.startswith(PURPOSES) for p in host.requests] == [True] * 3
    first = host.requests[0]
    assert first.include_context == "none" and first.max_tokens == 1024
    assert "JSON object" in first.system_prompt
    # The environment analysis's constraint is the host's, and the package says so.
    assert f"Constraints:\n- {CONSTRAINT}" in markdown
    assert any("1 constraint(s)" in note for note in llm["notes"])
    assert data["files"][0]["path"] == TOP and data["notes"] == []


@pytest.mark.anyio
async def test_locate_and_explain_ask_it_too():
    host = Host()
    async with Client(server(), mode="legacy", sampling_callback=host) as client:
        located = await client.call_tool("locate", {"task": TASK})
        assert located.structured_content["llm"]["calls"] == 2 == len(host.requests)
        explained = await client.call_tool("explain", {"task": TASK, "path": TOP})
    assert explained.structured_content["status"] == "included"
    assert len(host.requests) == 5


@pytest.mark.anyio
async def test_calls_served_side_by_side_each_ask_through_their_own_request():
    host = Host()
    asked = []
    both_asked = anyio.Event()

    async def overlapping(context, params):
        asked.append(params)
        if len(asked) == 2:
            both_asked.set()
        await both_asked.wait()  # the first request is answered once the second is sent
        return await host(context, params)

    results = {}
    async with Client(server(), mode="legacy", sampling_callback=overlapping) as client:

        async def run(name, task):
            results[name] = await discover(client, task)

        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:
                group.start_soon(run, "currency", TASK)
                group.start_soon(run, "stock", "OutOfStockError when reserving stock items")
    assert len(host.requests) == 6
    for _, data in results.values():
        assert data["llm"]["calls"] == 3 and data["llm"]["failures"] == 0


@pytest.mark.anyio
async def test_a_client_without_sampling_gets_the_package_without_the_llm_terms():
    async with Client(server(), mode="legacy") as client:
        markdown, data = await discover(client)
        located = (await client.call_tool("locate", {"task": TASK})).structured_content
    assert NO_SAMPLING in data["notes"] and NO_SAMPLING in located["notes"]
    assert data["llm"]["calls"] == 0 == located["llm"]["calls"]
    plain = deepdiscovery.Session(REPO).discover(TASK, budget_tokens=8000)
    assert [f["path"] for f in data["files"]] == plain.paths()
    assert markdown == plain.to_markdown()


@pytest.mark.anyio
async def test_a_connection_without_server_requests_gets_the_same_fallback():
    """The 2026-07-28 protocol (the in-process default) has no server-to-client
    requests, even for a client that can sample."""
    host = Host()
    async with Client(server(), sampling_callback=host) as client:
        _, data = await discover(client)
    assert not host.requests and data["llm"]["calls"] == 0
    (note,) = data["notes"]
    assert "cannot carry requests from the server" in note


@pytest.mark.anyio
@pytest.mark.parametrize(
    "mode, timeout, says",
    [
        ("refuse", 30.0, "the client answered with an error: the user declined"),
        ("image", 30.0, "the client answered with image content, not text"),
        ("slow", 0.3, "the client did not answer within 0.3 s"),
    ],
)
async def test_a_failing_host_falls_back_and_the_server_keeps_serving(mode, timeout, says):
    host = Host(mode)
    async with Client(server(timeout), mode="legacy", sampling_callback=host) as client:
        _, data = await discover(client)
        llm = data["llm"]
        assert llm["calls"] >= 1 and llm["failures"] == llm["calls"], llm
        assert all(says in note and "deterministic path kept" in note for note in llm["notes"])
        assert data["files"][0]["path"] == TOP
        host.mode = "ok"
        _, data = await discover(client)
    assert data["llm"]["calls"] == 3 and data["llm"]["failures"] == 0


def test_the_model_asked_outside_a_tool_call_is_a_plugin_error():
    with pytest.raises(deepdiscovery.PluginError, match="no MCP tool call is being served"):
        SamplingLLM().complete("You analyse a software task")
    with pytest.raises(deepdiscovery.PluginError, match="timeout must be a positive number"):
        SamplingLLM(timeout=0)


@pytest.mark.anyio
async def test_deepdiscovery_mcp_llm_sampling_over_stdio(tmp_path):
    host = Host()
    args = ["-m", "deepdiscovery", "mcp", "--repo", str(REPO), "--llm", "sampling"]
    with open(tmp_path / "stderr.txt", "w", encoding="utf-8") as errlog:
        params = StdioServerParameters(command=sys.executable, args=args, env=CACHE_ENV)
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, sampling_callback=host) as session:
                await session.initialize()
                result = await session.call_tool("discover", {"task": TASK})
    assert not result.is_error
    assert result.structured_content["llm"]["calls"] == len(host.requests) == 3
    assert f"- {CONSTRAINT}" in result.content[0].text


@pytest.mark.parametrize(
    "argv, says",
    [
        (["mcp", "--llm", "sampling", "--llm-model", "tiny"], "without --llm-model"),
        (["mcp", "--llm", "sampling", "--llm-base-url", "http://127.0.0.1:9/"], "without"),
        (["discover", TASK, "--llm", "sampling"], "works only with `deepdiscovery mcp`"),
        (["locate", TASK, "--llm", "sampling"], "works only with `deepdiscovery mcp`"),
        (["mcp", "--llm", "openai"], "invalid choice: 'openai'"),
    ],
)
def test_llm_sampling_usage_mistakes(capsys, argv, says):
    code = main([*argv, "--repo", str(REPO)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and says in err, err
