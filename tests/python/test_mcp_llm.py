"""`deepdiscovery mcp` with the LLM-assisted mode: the server asks an OpenAI-compatible
stub on 127.0.0.1 (the scripted server of test_adapters) during a discover call."""

import os
import sys
from pathlib import Path

import pytest

pytest.importorskip(
    "mcp", reason='the MCP Python SDK is not installed (pip install "deepdiscovery[mcp]")'
)

from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

from test_adapters import stub_server  # noqa: E402

# The server process gets the MCP SDK's minimal environment: pass it the tests'
# scratch cache directory (conftest.py), never the user's cache.
CACHE_ENV = {"DEEPDISCOVERY_CACHE_DIR": os.environ["DEEPDISCOVERY_CACHE_DIR"]}

REPO = Path(__file__).resolve().parent.parent / "fixtures" / "locate_app"
TASK = "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in `convert_currency`"


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def stub():
    with stub_server() as server:
        yield server


@pytest.mark.anyio
async def test_the_mcp_server_runs_the_llm_terms(stub, tmp_path):
    command = str(Path(sys.executable).parent / "deepdiscovery")
    args = ["mcp", "--repo", str(REPO), "--llm-base-url", f"{stub.url}/ok/", "--llm-model", "tiny"]
    with open(tmp_path / "stderr.txt", "w", encoding="utf-8") as errlog:
        server = StdioServerParameters(command=command, args=args, env=CACHE_ENV)
        async with stdio_client(server, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool("discover", {"task": TASK})
    assert not result.is_error
    assert "inventory/pricing/currency.py" in result.content[0].text
    chats = [r for r in stub.requests if r["route"] == "chat/completions"]
    assert chats and all(r["body"]["model"] == "tiny" for r in chats)
