"""The MCP server (`deepdiscovery mcp`): started as docs/mcp.md says, over stdio, and
driven with the MCP SDK's own client: tools, results, errors and fresh answers."""

import json
import re
import shlex
import shutil
import subprocess
import os
import sys
from pathlib import Path

import pytest

pytest.importorskip(
    "mcp", reason='the MCP Python SDK is not installed (pip install "deepdiscovery[mcp]")'
)

from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

import deepdiscovery  # noqa: E402

# The server process gets the MCP SDK's minimal environment: pass it the tests'
# scratch cache directory (conftest.py), never the user's cache.
CACHE_ENV = {"DEEPDISCOVERY_CACHE_DIR": os.environ["DEEPDISCOVERY_CACHE_DIR"]}

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the Codex snippet goes unchecked
    tomllib = None

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "mcp.md"
FIXTURE = ROOT / "tests" / "fixtures" / "locate_app"
TASK = "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in `convert_currency`"
TOP = "inventory/pricing/currency.py"
#: The repository path the snippets of docs/mcp.md use.
PLACEHOLDER = "/path/to/repo"
TOOLS = {"discover", "locate", "related", "explain"}


def snippet_launches():
    """Every server launch docs/mcp.md gives, as (client, command, args)."""
    text = DOCS.read_text(encoding="utf-8")
    launches = []
    for lang, body in re.findall(r"```(\w+)\n(.*?)```", text, re.S):
        if lang == "sh" and "claude mcp add" in body:
            words = shlex.split(body.strip())
            command = words[words.index("--") + 1 :]
            launches.append(("claude mcp add", command[0], command[1:]))
        elif lang == "json" and '"mcpServers"' in body:
            server = json.loads(body)["mcpServers"]["deepdiscovery"]
            launches.append(("json", server["command"], server["args"]))
        elif lang == "toml" and tomllib is not None:
            server = tomllib.loads(body)["mcp_servers"]["deepdiscovery"]
            launches.append(("toml", server["command"], server["args"]))
    return launches


def launch(repo):
    """The command and arguments of the snippets, with this venv's `deepdiscovery`
    executable and ``repo`` in place of the placeholder."""
    (_, command, args), *_ = snippet_launches()
    assert command == "deepdiscovery"
    executable = Path(sys.executable).parent / "deepdiscovery"
    assert executable.exists(), "the deepdiscovery command is not installed in this venv"
    return str(executable), [str(repo) if a == PLACEHOLDER else a for a in args]


@pytest.fixture(scope="module")
def anyio_backend():
    return "asyncio"


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """A copy of the fixture repository, with a binary file deepdiscovery does not read
    and a symbolic link out of the repository."""
    base = tmp_path_factory.mktemp("mcp")
    path = base / "locate_app"
    shutil.copytree(FIXTURE, path)
    (path / "web" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (base / "secret.py").write_text("TOKEN = 'outside the repository'\n", encoding="utf-8")
    (path / "inventory" / "secret.py").symlink_to(base / "secret.py")
    return path


@pytest.fixture(scope="module")
async def client(repo, tmp_path_factory):
    """One server for the module, and a client session on it."""
    command, args = launch(repo)
    with open(tmp_path_factory.mktemp("log") / "stderr.txt", "w", encoding="utf-8") as errlog:
        # Elsewhere than the repository: --repo alone says which one to serve.
        server = StdioServerParameters(command=command, args=args, cwd=str(repo.parent), env=CACHE_ENV)
        async with stdio_client(server, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


async def call(client, tool, **arguments):
    """The tool's result: (is_error, text, structured content)."""
    result = await client.call_tool(tool, arguments)
    (content,) = result.content
    return result.is_error, content.text, result.structured_content


def test_every_snippet_launches_the_server_the_same_way():
    launches = snippet_launches()
    kinds = [kind for kind, _, _ in launches]
    # Claude Code (command and .mcp.json), Codex CLI, Cursor, Cline.
    assert kinds.count("claude mcp add") == 1 and kinds.count("toml") == (tomllib is not None)
    assert kinds.count("json") == 3
    assert {(command, tuple(args)) for _, command, args in launches} == {
        ("deepdiscovery", ("mcp", "--repo", PLACEHOLDER))
    }


@pytest.mark.anyio
async def test_the_four_tools_are_listed_with_their_schemas(client):
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert len(tool.description) > 100 and tool.annotations.read_only_hint
        assert tool.input_schema["type"] == "object" and tool.output_schema["type"] == "object"
        for name, schema in tool.input_schema["properties"].items():
            assert schema["description"], f"{tool.name}.{name} has no description"
    discover = tools["discover"].input_schema
    assert discover["required"] == ["task"]
    assert discover["properties"]["budget_tokens"]["default"] == 8000
    assert discover["properties"]["budget_tokens"]["maximum"] == 64000
    assert discover["properties"]["open_paths"]["items"] == {"type": "string"}
    assert tools["locate"].input_schema["properties"]["anchors"]["default"] == 8
    assert tools["related"].input_schema["required"] == ["path"]
    assert tools["explain"].input_schema["required"] == ["task", "path"]


@pytest.mark.anyio
async def test_discover_gives_the_markdown_and_the_ranked_files(client, repo):
    progress = []

    async def on_progress(done, total, message):
        progress.append((done, total, message))

    result = await client.call_tool(
        "discover", {"task": TASK, "budget_tokens": 4000}, progress_callback=on_progress
    )
    assert not result.is_error
    markdown, data = result.content[0].text, result.structured_content
    package = deepdiscovery.Session(repo).discover(TASK, budget_tokens=4000)
    assert markdown.startswith("# Task context") and f"### 1. `{TOP}`" in markdown
    assert [f["path"] for f in data["files"]] == package.paths()
    first = data["files"][0]
    assert first["path"] == TOP and first["rank"] == 1 and first["anchor"]
    assert first["role"] == "source" and first["view"] in {"full_text", "spans", "metadata"}
    assert first["rationale"] == list(package.files[0].rationale)
    assert data["budget"]["max_tokens"] == 4000 and data["budget"]["used_tokens"] <= 4000
    assert data["task_type"] == package.task_type
    assert progress[0][:2] == (0, 1) and progress[-1][:2] == (1, 1)


@pytest.mark.anyio
async def test_open_paths_are_hints(client, repo):
    task = "prices are wrong"
    error, _, data = await call(client, "discover", task=task, open_paths=[str(repo / TOP)])
    assert not error
    hinted = deepdiscovery.Session(repo).discover(task, budget_tokens=8000, hints={"paths": [TOP]})
    assert [f["path"] for f in data["files"]] == hinted.paths()
    assert TOP in hinted.paths()


@pytest.mark.anyio
async def test_locate_gives_the_anchors_with_scores_and_signals(client, repo):
    error, text, data = await call(client, "locate", task=TASK, anchors=3)
    assert not error
    location = deepdiscovery.Session(repo).locate(TASK, anchors=3)
    assert [a["path"] for a in data["anchors"]] == [a["path"] for a in location["anchors"]]
    top = data["anchors"][0]
    assert top["path"] == TOP and top["rank"] == 1
    assert top["signals"] == location["anchors"][0]["signals"]
    assert set(top["terms"]) == {"sem", "sum", "rule", "prior"}
    assert text.startswith(f"1. {TOP}  score ") and f"     - {top['signals'][0]}" in text
    # Where to look inside the files, as data and as text.
    assert [(d["path"], d["name"]) for d in data["definitions"]] == [
        (d["path"], d["name"]) for d in location["definitions"]
    ]
    first = data["definitions"][0]
    assert first["rank"] == 1 and first["start"] <= first["end"] and first["why"]
    assert "Where to look:" in text and first["name"] in text


@pytest.mark.anyio
async def test_related_lists_typed_relations_strongest_first(client, repo):
    error, text, data = await call(client, "related", path=TOP)
    assert not error and data["path"] == TOP
    relations = {(r["path"], r["relation"], r["direction"]) for r in data["relations"]}
    assert ("inventory/pricing/discounts.py", "imports", "in") in relations
    assert ("tests/test_currency.py", "imports", "in") in relations
    confidences = [r["confidence"] for r in data["relations"]]
    assert confidences == sorted(confidences, reverse=True)
    assert data["total"] >= len(data["relations"]) and len(data["relations"]) <= 50
    assert all(r["rationale"] for r in data["relations"])
    assert f"`inventory/pricing/discounts.py` —imports→ `{TOP}`" in text
    # An absolute path inside the root names the same file.
    assert (await call(client, "related", path=str(repo / TOP)))[2] == data


@pytest.mark.anyio
@pytest.mark.parametrize(
    "path, status, says",
    [
        (TOP, "included", "is in the package: file 1 of"),
        ("inventory/pricing/__init__.py", "filtered", "was filtered out"),
        ("inventory/warehouse.py", "not_selected", "was considered (rank"),
        ("web/logo.png", "not_considered", "not considered for this task: it was skipped (binary)"),
    ],
)
async def test_explain_says_why_a_file_is_in_or_out(client, path, status, says):
    error, text, data = await call(client, "explain", task=TASK, path=path)
    assert not error, text
    assert data["path"] == path and data["status"] == status and says in text
    assert text == data["explanation"]
    if status == "included":
        assert data["package_rank"] == 1 and data["rationale"] and data["view"]
    else:
        assert data["package_rank"] is None and data["view"] is None
    assert (data["ranked_position"] is None) == (status == "not_considered")


def test_explain_says_when_the_budget_left_a_file_out():
    """Many matching files and a small budget: the selected files that did not fit."""
    from deepdiscovery.mcp_server import _explanation

    body = "from pricing.currency_0 import convert_currency\n" + "".join(
        f"def convert_currency_{j}(amount, source, target):\n"
        f'    """Convert currency EUR to GBP ({j})."""\n'
        "    raise CurrencyMismatchError(source)\n"
        for j in range(20)
    )
    files = {f"pricing/currency_{i}.py": body for i in range(30)}
    files["pricing/currency_0.py"] += (
        "class CurrencyMismatchError(ValueError):\n    pass\n\n"
        "def convert_currency(amount, source, target):\n    pass\n"
    )
    package = deepdiscovery.Session(files).discover(TASK, budget_tokens=1000)
    left_out = package.to_dict()["skipped"]["over_budget"]
    assert left_out, "the budget should leave selected files out"
    result = _explanation(package, left_out[0])
    assert result.status == "over_budget" and result.ranked_position is not None
    assert "did not fit the token budget" in result.explanation
    assert "larger budget_tokens" in result.explanation


@pytest.mark.anyio
@pytest.mark.parametrize(
    "tool, arguments, message",
    [
        ("related", {"path": "../outside.py"}, "is outside the repository root"),
        ("related", {"path": "inventory/../../outside.py"}, "is outside the repository root"),
        ("related", {"path": "/etc/passwd"}, "is outside the repository root"),
        ("explain", {"task": TASK, "path": "/etc/passwd"}, "is outside the repository root"),
        ("discover", {"task": TASK, "open_paths": ["../x.py"]}, "is outside the repository root"),
        ("related", {"path": "inventory/secret.py"}, "is a symbolic link that leads outside"),
        ("related", {"path": "inventory/missing.py"}, "no file 'inventory/missing.py'"),
        ("related", {"path": "inventory"}, "is a directory"),
        ("related", {"path": "web/logo.png"}, "does not read it"),
        ("discover", {"task": "   "}, "the task text is empty"),
        ("locate", {"task": ""}, "the task text is empty"),
        ("explain", {"task": " ", "path": TOP}, "the task text is empty"),
        ("discover", {"task": TASK, "budget_tokens": 100_000}, "less than or equal to 64000"),
        ("locate", {"task": TASK, "anchors": 0}, "greater than or equal to 1"),
    ],
)
async def test_bad_arguments_are_tool_errors(client, tool, arguments, message):
    error, text, _ = await call(client, tool, **arguments)
    assert error and message in text, text
    # The server is still there.
    assert len((await client.list_tools()).tools) == 4


@pytest.mark.parametrize(
    "root, message", [("missing", "repository root not found"), ("file", "is not a directory")]
)
def test_a_bad_repository_stops_the_server_before_it_serves(tmp_path, root, message):
    (tmp_path / "file").write_text("not a repository\n", encoding="utf-8")
    _, args = launch(tmp_path / root)
    # `python -m deepdiscovery` is the same command.
    run = subprocess.run(
        [sys.executable, "-m", "deepdiscovery", *args],
        input="",
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.startswith("error: ") and message in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.anyio
async def test_edits_are_seen_by_the_next_call(client, repo):
    """The same server, after files change: a new importer, then an edited module."""
    report = repo / "inventory" / "pricing" / "rates_report.py"
    currency = repo / TOP
    original = currency.read_text(encoding="utf-8")
    try:
        report.write_text(
            "from inventory.pricing.currency import convert_currency\n\n\n"
            "def report(amount):\n    return convert_currency(amount, 'EUR', 'USD')\n",
            encoding="utf-8",
        )
        _, _, data = await call(client, "related", path=TOP)
        assert ("inventory/pricing/rates_report.py", "imports", "in") in {
            (r["path"], r["relation"], r["direction"]) for r in data["relations"]
        }
        currency.write_text(
            original + "\n\ndef convert_to_gbp(amount, source):\n    return amount\n",
            encoding="utf-8",
        )
        error, markdown, _ = await call(client, "discover", task=TASK)
        assert not error and "def convert_to_gbp(amount, source):" in markdown
    finally:
        report.unlink()
        currency.write_text(original, encoding="utf-8")
    _, _, data = await call(client, "related", path=TOP)
    assert "inventory/pricing/rates_report.py" not in {r["path"] for r in data["relations"]}
