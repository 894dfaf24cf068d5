"""The ``deepdiscovery`` command: output formats, task sources and exit codes."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import deepdiscovery
from deepdiscovery.cli import main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
REPO = str(FIXTURES / "locate_app")
TASK = "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in `convert_currency`"
TOP = "inventory/pricing/currency.py"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def untimed(package):
    """The package without the stage timings, which differ from run to run."""
    return {**package, "budget": {k: v for k, v in package["budget"].items() if k != "stages"}}


def test_discover_prints_markdown_by_default(capsys):
    code, out, err = run(capsys, "discover", TASK, "--repo", REPO, "--budget-tokens", "3000")
    assert (code, err) == (0, "")
    assert out.startswith("# Task context")
    assert f"### 1. `{TOP}`" in out
    assert "## Why these files" not in out


def test_discover_json_is_the_package(capsys):
    code, out, _ = run(
        capsys, "discover", TASK, "--repo", REPO, "--format", "json", "--budget-tokens", "3000"
    )
    assert code == 0
    data = json.loads(out)
    assert data["files"][0]["path"] == TOP
    assert data["budget"]["max_tokens"] == 3000
    assert untimed(data) == untimed(
        deepdiscovery.discover(REPO, TASK, budget_tokens=3000).to_dict()
    )
    # --explain changes nothing in JSON: every file already carries its rationale.
    code, explained, _ = run(
        capsys,
        "discover",
        TASK,
        "--repo",
        REPO,
        "--format",
        "json",
        "--budget-tokens",
        "3000",
        "--explain",
    )
    assert code == 0 and untimed(json.loads(explained)) == untimed(data)
    assert all(f["rationale"] for f in data["files"])


def test_explain_lists_each_file_with_its_rationale(capsys):
    code, out, _ = run(capsys, "discover", TASK, "--repo", REPO, "--explain", "--max-steps", "8")
    assert code == 0
    markdown, explanation = out.split("## Why these files", 1)
    assert markdown.startswith("# Task context")
    package = deepdiscovery.discover(REPO, TASK, max_steps=8)
    for rank, f in enumerate(package.files, 1):
        assert f"{rank}. `{f.path}` — {f.role}" in explanation
        for why in f.rationale:
            assert f"   - {why}" in explanation
    assert f"Budget: {package.budget['used_tokens']} of 16000 tokens" in explanation
    assert "of 8 steps" in explanation


def test_the_task_can_come_from_a_file_or_stdin(capsys, tmp_path, monkeypatch):
    task_file = tmp_path / "task.txt"
    task_file.write_text(TASK + "\n", encoding="utf-8")
    code, out, _ = run(
        capsys, "discover", "--task-file", str(task_file), "--repo", REPO, "--format", "json"
    )
    assert code == 0 and json.loads(out)["files"][0]["path"] == TOP
    monkeypatch.setattr(sys, "stdin", io.StringIO(TASK))
    code, out, _ = run(capsys, "discover", "-", "--repo", REPO, "--format", "json")
    assert code == 0 and json.loads(out)["task"].strip() == TASK
    monkeypatch.setattr(sys, "stdin", io.StringIO(TASK))
    code, out, _ = run(capsys, "locate", "--task-file", "-", "--repo", REPO)
    assert code == 0 and out.startswith(f"1. {TOP}")


def test_hints_and_location_only_reach_the_library(capsys):
    code, out, _ = run(
        capsys,
        "discover",
        "prices are wrong",
        "--repo",
        REPO,
        "--format",
        "json",
        "--path",
        TOP,
        "--location-only",
        "--anchors",
        "2",
        "--no-history",
    )
    assert code == 0
    data = json.loads(out)
    assert TOP in [f["path"] for f in data["files"]]
    assert all(f["anchor"] for f in data["files"]) and len(data["anchors"]) <= 2
    assert data["budget"]["steps"] == 0 and data["recent_history"] == []


def test_locate_prints_anchors_with_scores_and_signals(capsys):
    code, out, _ = run(capsys, "locate", TASK, "--repo", REPO, "--anchors", "3")
    assert code == 0
    location = deepdiscovery.locate(REPO, TASK, anchors=3)
    heads = [line for line in out.splitlines() if line[:1].isdigit()]
    assert [h.split()[1] for h in heads] == [a["path"] for a in location["anchors"]]
    assert heads[0] == f"1. {TOP}  score {location['anchors'][0]['score']:.3f}  [source]"
    assert "sem " in out and "prior " in out
    for signal in location["anchors"][0]["signals"]:
        assert f"     - {signal}" in out
    code, out, _ = run(capsys, "locate", TASK, "--repo", REPO, "--anchors", "3", "--format", "json")
    assert code == 0 and [a["path"] for a in json.loads(out)["anchors"]] == [
        a["path"] for a in location["anchors"]
    ]


def test_locate_at_function_level_prints_where_to_look(capsys):
    code, out, _ = run(capsys, "locate", TASK, "--repo", REPO, "--level", "function")
    assert code == 0
    location = deepdiscovery.locate(REPO, TASK)
    first = location["definitions"][0]
    heads = [line for line in out.splitlines() if line[:1].isdigit()]
    assert len(heads) == len(location["definitions"])
    assert heads[0].startswith(f"1. {first['path']}  {first['name']}  ({first['kind']}, lines ")
    assert f"     - {first['why'][0]}" in out
    code, out, _ = run(
        capsys, "locate", TASK, "--repo", REPO, "--level", "function", "--format", "json"
    )
    assert code == 0 and json.loads(out) == location["definitions"]


def test_preset_paper_scores_with_eq6_alone(capsys):
    code, out, _ = run(
        capsys, "locate", TASK, "--repo", REPO, "--preset", "paper", "--format", "json"
    )
    assert code == 0
    located = json.loads(out)
    assert located["scorer"] == "eq6"
    direct = deepdiscovery.locate(REPO, TASK, preset="paper")
    assert [a["path"] for a in located["anchors"]] == [a["path"] for a in direct["anchors"]]
    assert [a["score"] for a in located["anchors"]] == [a["score"] for a in direct["anchors"]]
    code, out, _ = run(capsys, "locate", TASK, "--repo", REPO, "--format", "json")
    assert json.loads(out)["scorer"] == "learned"


def test_version(capsys):
    assert run(capsys, "version") == (0, f"deepdiscovery {deepdiscovery.__version__}\n", "")
    code, out, _ = run(capsys, "--version")
    assert (code, out) == (0, f"deepdiscovery {deepdiscovery.__version__}\n")


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["discover", TASK, "--repo", "/nonexistent/repo"],
            "error: repository root not found: /nonexistent/repo",
        ),
        (
            ["discover", TASK, "--repo", str(FIXTURES / "locate_app" / "pyproject.toml")],
            "error: repository root is not a directory",
        ),
        (["discover", "  ", "--repo", REPO], "error: the task text is empty"),
        (
            ["discover", TASK, "--repo", REPO, "--budget-tokens", "0"],
            "error: invalid configuration: budget tokens",
        ),
        (
            ["locate", TASK, "--repo", REPO, "--anchors", "0"],
            "error: invalid configuration: anchors",
        ),
        (
            ["discover", "--task-file", "/nonexistent/task.txt", "--repo", REPO],
            "error: cannot read the task file /nonexistent/task.txt",
        ),
        (
            ["discover", TASK, "--repo", REPO, "--rules", "/nonexistent/rules.toml"],
            "error: cannot read the rules file",
        ),
    ],
)
def test_library_errors_exit_1_with_one_line(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 1 and out == ""
    assert err.startswith(message) and err.count("\n") == 1, err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "argv, message",
    [
        ([], "the following arguments are required: COMMAND"),
        (["discover", "--repo", REPO], "no task: give it as TASK"),
        (["discover", TASK, "--task-file", "t.txt"], "not both"),
        (["discover", TASK, "--budget-tokens", "many"], "invalid int value: 'many'"),
        (["discover", TASK, "--format", "html"], "invalid choice: 'html'"),
        (["locate", TASK, "--format", "markdown"], "invalid choice: 'markdown'"),
        (["eval", "--tasks", "t.jsonl"], "give --repo-root DIR (or set DD_EVAL_CHECKOUTS)"),
        (["eval", "--tasks", "t.jsonl", "--repo-root", ".", "--with-history"], "give --mirrors"),
        (["eval", "--tasks", "t.jsonl", "--repo-root", ".", "--limit", "-1"], "must be 0 or more"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
    ],
)
def test_usage_errors_exit_2(capsys, monkeypatch, argv, message):
    monkeypatch.delenv("DD_EVAL_CHECKOUTS", raising=False)
    monkeypatch.delenv("DD_EVAL_MIRRORS", raising=False)
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert "usage: deepdiscovery" in err and message in err


def write_tasks(path, tasks):
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks), encoding="utf-8")


EVAL_TASKS = [
    # repo_root(tests/fixtures) finds the fixture named by the id.
    {"id": "locate_app", "repo": "acme/inventory", "task": TASK, "gold_files": [TOP]},
    {"id": "no_such_checkout", "repo": "acme/none", "task": TASK, "gold_files": [TOP]},
    {
        "id": "new_only",
        "repo": "acme/none",
        "task": TASK,
        "gold_files": ["N.md"],
        "gold_new_files": ["N.md"],
    },
]


def test_eval_prints_the_table_and_writes_json(capsys, tmp_path):
    tasks, out_json = tmp_path / "tasks.jsonl", tmp_path / "results.json"
    write_tasks(tasks, EVAL_TASKS)
    code, out, err = run(
        capsys,
        "eval",
        "--tasks",
        str(tasks),
        "--repo-root",
        str(FIXTURES),
        "--budget-tokens",
        "3000",
        "--json-out",
        str(out_json),
        "--per-task",
    )
    assert code == 0
    assert err.splitlines() == ["[1/3] locate_app", "[2/3] no_such_checkout", "[3/3] new_only"]
    assert "3 tasks: 2 scored, 1 skipped (no gold file left), 1 errors" in out
    assert "frr            0.500" in out and "mrr            0.500" in out
    assert "error: RepositoryNotFoundError: no checkout for task no_such_checkout" in out
    results = json.loads(out_json.read_text(encoding="utf-8"))
    assert results["summary"]["frr"] == 0.5 and results["summary"]["errors"] == 1
    first = results["records"][0]
    assert first["returned"][0] == TOP and first["tokens"] <= 3000

    code, out, err = run(
        capsys, "eval", "--tasks", str(tasks), "--repo-root", str(FIXTURES), "--limit", "1"
    )
    assert code == 0 and err == "[1/1] locate_app\n"
    assert out.startswith("1 tasks: 1 scored, 0 skipped (no gold file left), 0 errors")
    assert "locate_app" not in out  # no per-task rows unless asked


def test_eval_in_processes_with_records_resumes(capsys, tmp_path):
    tasks, records = tmp_path / "tasks.jsonl", tmp_path / "run.jsonl"
    write_tasks(tasks, EVAL_TASKS)
    argv = ["eval", "--tasks", str(tasks), "--repo-root", str(FIXTURES), "--budget-tokens", "3000"]
    code, sequential, _ = run(capsys, *argv)
    assert code == 0
    code, parallel, err = run(capsys, *argv, "--jobs", "2", "--records", str(records))
    assert code == 0 and len(err.splitlines()) == 3
    summary = [line for line in sequential.splitlines() if "millis" not in line]
    assert [line for line in parallel.splitlines() if "millis" not in line] == summary
    assert len(records.read_text(encoding="utf-8").splitlines()) == 3
    # A rerun finds every task recorded: nothing runs, the same table.
    code, resumed, err = run(capsys, *argv, "--records", str(records))
    assert code == 0 and err == ""
    assert [line for line in resumed.splitlines() if "millis" not in line] == summary


def test_eval_input_errors_exit_1(capsys, tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    write_tasks(tasks, EVAL_TASKS)
    code, _, err = run(
        capsys, "eval", "--tasks", str(tasks), "--repo-root", str(tmp_path / "absent")
    )
    assert code == 1 and err.startswith("error: --repo-root") and "is not a directory" in err
    code, _, err = run(
        capsys, "eval", "--tasks", str(tasks), "--repo-root", str(tmp_path / "co"),
        "--mirrors", str(tmp_path / "absent"),
    )
    assert code == 1 and err.startswith("error: --mirrors") and "is not a directory" in err
    code, _, err = run(
        capsys, "eval", "--tasks", str(tmp_path / "absent.jsonl"), "--repo-root", str(FIXTURES)
    )
    assert code == 1 and err.startswith("error: cannot read the tasks file")
    tasks.write_text('{"id": "a"}\n', encoding="utf-8")
    code, _, err = run(capsys, "eval", "--tasks", str(tasks), "--repo-root", str(FIXTURES))
    assert code == 1 and "tasks.jsonl:1: the task has no repo, task, gold_files" in err
    write_tasks(tasks, EVAL_TASKS[:1])
    code, _, err = run(
        capsys, "eval", "--tasks", str(tasks), "--repo-root", str(FIXTURES), "--budget-tokens", "-5"
    )
    assert code == 1 and err.startswith("error: invalid configuration")


def test_python_dash_m_runs_the_command(tmp_path):
    """A real process: the module entry point, its exit codes and its streams."""
    ok = subprocess.run(
        [
            sys.executable,
            "-m",
            "deepdiscovery",
            "discover",
            TASK,
            "--repo",
            REPO,
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=tmp_path,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["files"][0]["path"] == TOP
    piped = subprocess.run(
        [sys.executable, "-m", "deepdiscovery", "locate", "-", "--repo", REPO],
        input=TASK,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    assert piped.returncode == 0 and piped.stdout.startswith(f"1. {TOP}")
    missing = subprocess.run(
        [sys.executable, "-m", "deepdiscovery", "discover", TASK, "--repo", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    assert missing.returncode == 1 and missing.stdout == ""
    assert missing.stderr == f"error: repository root not found: {tmp_path / 'nope'}\n"
    usage = subprocess.run(
        [sys.executable, "-m", "deepdiscovery"], capture_output=True, text=True, check=False
    )
    assert usage.returncode == 2 and "usage: deepdiscovery" in usage.stderr


def test_mcp_without_the_sdk_says_what_to_install(capsys, monkeypatch):
    extra = {"mcp", "anyio", "pydantic"}  # what the mcp extra installs
    for name in [n for n in sys.modules if n.split(".")[0] in extra] or sorted(extra):
        monkeypatch.setitem(sys.modules, name, None)  # importing them fails
    monkeypatch.delitem(sys.modules, "deepdiscovery.mcp_server", raising=False)
    monkeypatch.delattr(deepdiscovery, "mcp_server", raising=False)
    code, out, err = run(capsys, "mcp", "--repo", REPO)
    assert code == 1 and out == ""
    assert err.startswith("error: deepdiscovery mcp needs the MCP Python SDK 2.x")
    assert err.rstrip().endswith('pip install "deepdiscovery[mcp]"') and err.count("\n") == 1
