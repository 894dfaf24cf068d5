"""The evaluation protocol (§IV.C) from Python: metrics checked by hand on fixtures."""

import json
import sys
import types
from pathlib import Path

import pytest

import deepdiscovery
from deepdiscovery.eval import CUTOFFS, EvalResult, evaluate, load_tasks, repo_root

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TASK = "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in `convert_currency`"
TOP = "inventory/pricing/currency.py"
CONFIG = deepdiscovery.Config(budget_tokens=3000)


def task(id, gold, new=(), repo="acme/locate_app", text=TASK):
    return {
        "id": id,
        "repo": repo,
        "task": text,
        "gold_files": list(gold),
        "gold_new_files": list(new),
    }


@pytest.fixture(scope="module")
def reference():
    """The package every fresh session gives for TASK, and an unselected ranked file."""
    package = deepdiscovery.Session(FIXTURES / "locate_app", config=CONFIG).discover(TASK)
    ranked = [f["path"] for f in package.ranked_files]
    outside = next(p for p in ranked if p not in package.paths())
    return package, outside, ranked.index(outside) + 1


def fixtures_repo(t):
    return FIXTURES / "locate_app"


def test_metrics_match_a_hand_computation(reference):
    package, outside, outside_rank = reference
    size = len(package.paths())
    tasks = [
        task("found", [TOP]),
        task("half", [TOP, outside]),
        task("absent", ["nowhere/missing.py"]),
        task("only-new", ["CHANGES.md"], new=["CHANGES.md"]),
        task("broken", [TOP], text="   "),
    ]
    result = evaluate(tasks, fixtures_repo, config=CONFIG)
    by_id = {r["id"]: r for r in result.records}

    found = by_id["found"]
    assert (found["frr"], found["recall"], found["rr"]) == (1, 1.0, 1.0)
    assert found["precision"] == pytest.approx(1 / size)
    assert found["returned"] == package.paths() and found["set_size"] == size
    assert found["tokens"] == package.budget["used_tokens"] <= 3000
    assert all(found[f"frr@{k}"] == 1 for k in CUTOFFS)

    half = by_id["half"]
    assert half["gold_ranks"] == [1, outside_rank]
    assert (half["frr"], half["recall"], half["hits"], half["rr"]) == (0, 0.5, 1, 1.0)
    for k in CUTOFFS:
        assert half[f"frr@{k}"] == int(k >= outside_rank)
        assert half[f"recall@{k}"] == (1.0 if k >= outside_rank else 0.5)

    absent = by_id["absent"]
    assert absent["gold_ranks"] == [None]
    assert (absent["frr"], absent["recall"], absent["rr"], absent["precision"]) == (
        0,
        0.0,
        0.0,
        0.0,
    )

    assert by_id["only-new"]["skipped"] and by_id["only-new"]["gold"] == []
    assert "frr" not in by_id["only-new"]

    broken = by_id["broken"]
    assert broken["error"].startswith("TaskError:") and "empty" in broken["error"]
    assert (broken["returned"], broken["frr"], broken["precision"], broken["tokens"]) == (
        [],
        0,
        None,
        0,
    )

    summary = result.summary()
    assert (summary["tasks"], summary["scored"], summary["skipped"], summary["errors"]) == (
        5,
        4,
        1,
        1,
    )
    assert summary["frr"] == 0.25
    # Micro: 2 gold files found of 5 (1 + 2 + 1 + 1), over 3 non-empty sets.
    assert summary["recall"] == pytest.approx(2 / 5)
    assert summary["precision"] == pytest.approx(2 / (3 * size))
    assert summary["mean_set_size"] == pytest.approx(3 * size / 4)
    assert summary["mrr"] == pytest.approx((1 + 1 + 0 + 0) / 4)
    assert summary["frr@1"] == 0.25
    assert summary["recall@20"] == pytest.approx((1 + (2 if outside_rank <= 20 else 1)) / 5)
    assert summary["mean_tokens"] == pytest.approx(3 * package.budget["used_tokens"] / 4)


def test_gold_new_files_are_dropped_and_duplicates_count_once():
    result = evaluate(
        [task("t", [TOP, TOP, "NEWS.md"], new=["NEWS.md"])], fixtures_repo, config=CONFIG
    )
    record = result.records[0]
    assert record["gold"] == [TOP] and record["gold_new"] == ["NEWS.md"]
    assert (record["frr"], record["recall"]) == (1, 1.0)


def test_a_session_from_repo_for_is_used_as_given_and_a_dict_is_a_repository():
    files = {
        "shop/payments.py": "from shop.gateways import StripeGateway\n\ndef charge(order):\n    return StripeGateway().charge(order)\n",
        "shop/gateways.py": "class StripeGateway:\n    def charge(self, order):\n        raise TimeoutError('stripe timed out')\n",
        "shop/catalog.py": "def list_products():\n    return []\n",
    }
    session = deepdiscovery.Session(files)
    text = "charge() fails with TimeoutError: stripe timed out"
    gold = ["shop/gateways.py", "shop/payments.py"]
    asked = []

    def repo_for(t):
        asked.append(t["id"])
        return session if t["id"] == "session" else files

    result = evaluate([task("session", gold, text=text), task("dict", gold, text=text)], repo_for)
    assert asked == ["session", "dict"]
    first, second = result.records
    assert first["error"] is None and first["frr"] == 1
    assert first["returned"] == second["returned"] == session.discover(text).paths()


def test_tasks_from_a_jsonl_file_and_progress(tmp_path):
    path = tmp_path / "tasks.jsonl"
    lines = [json.dumps(task("a", [TOP])), "", json.dumps(task("b", ["nowhere.py"]))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert [t["id"] for t in load_tasks(path)] == ["a", "b"]
    calls = []
    result = evaluate(str(path), fixtures_repo, config=CONFIG, progress=lambda *a: calls.append(a))
    assert calls == [(1, 2, "a"), (2, 2, "b")]
    assert [r["frr"] for r in result.records] == [1, 0]


def test_bad_task_files_name_the_line_and_the_field(tmp_path):
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps(task("a", [TOP])) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(deepdiscovery.TaskError, match=r"tasks.jsonl:2: not a JSON object"):
        load_tasks(path)
    path.write_text(json.dumps({"id": "a", "repo": "r", "task": "t"}) + "\n", encoding="utf-8")
    with pytest.raises(deepdiscovery.TaskError, match=r":1: the task has no gold_files"):
        evaluate(path, fixtures_repo)
    with pytest.raises(deepdiscovery.TaskError, match="cannot read the tasks file"):
        load_tasks(tmp_path / "absent.jsonl")
    with pytest.raises(deepdiscovery.TaskError, match="gold_files must be an array"):
        evaluate([{"id": "a", "repo": "r", "task": "t", "gold_files": "a.py"}], fixtures_repo)
    with pytest.raises(deepdiscovery.ConfigError, match="config must be"):
        evaluate([], fixtures_repo, config={"budget_tokens": 3})


def test_repo_root_prefers_the_task_id_then_owner_plus_name(tmp_path):
    (tmp_path / "t-1").mkdir()
    (tmp_path / "acme+shop").mkdir()
    repo_for = repo_root(tmp_path)
    assert repo_for({"id": "t-1", "repo": "acme/shop"}) == str(tmp_path / "t-1")
    assert repo_for({"id": "t-2", "repo": "acme/shop"}) == str(tmp_path / "acme+shop")
    with pytest.raises(deepdiscovery.RepositoryNotFoundError, match="no checkout for task t-3"):
        repo_for({"id": "t-3", "repo": "other/shop"})
    # Under the fixtures, a task named after a fixture finds it.
    assert repo_root(FIXTURES)({"id": "locate_app", "repo": "x/y"}) == str(FIXTURES / "locate_app")


def test_table_and_dataframe(monkeypatch):
    result = evaluate(
        [task("found", [TOP]), task("only-new", ["N.md"], new=["N.md"])],
        fixtures_repo,
        config=CONFIG,
    )
    table = result.table()
    assert table.splitlines()[0] == "2 tasks: 1 scored, 1 skipped (no gold file left), 0 errors"
    assert "frr            1.000" in table and "mrr            1.000" in table
    per_task = result.table(per_task=True)
    assert "found" in per_task and "skipped: no gold file left" in per_task
    assert json.loads(json.dumps(result.to_dict()))["summary"]["frr"] == 1.0

    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="pip install pandas"):
        result.to_dataframe()
    fake = types.SimpleNamespace(DataFrame=lambda records: ("frame", records))
    monkeypatch.setitem(sys.modules, "pandas", fake)
    assert result.to_dataframe() == ("frame", result.records)


def test_an_empty_run_has_undefined_metrics():
    summary = EvalResult([]).summary()
    assert summary["tasks"] == 0 and summary["frr"] is None and summary["precision"] is None
    assert "frr            -" in EvalResult([]).table()


def untimed(records):
    return [{k: v for k, v in r.items() if k != "millis"} for r in records]


def test_jobs_run_in_processes_and_give_the_sequential_records(tmp_path):
    tasks = [
        task("locate_app", [TOP]),
        task("locate_app-2", [TOP, "inventory/models.py"], repo="x/locate_app"),
        task("mixed_app", ["nowhere.py"], repo="x/mixed_app"),
        task("absent", [TOP], repo="x/absent"),
    ]
    (tmp_path / "x+locate_app").symlink_to(FIXTURES / "locate_app")
    (tmp_path / "locate_app").symlink_to(FIXTURES / "locate_app")
    (tmp_path / "mixed_app").symlink_to(FIXTURES / "mixed_app")
    repo_for = repo_root(tmp_path)
    sequential = evaluate(tasks, repo_for, config=CONFIG)
    calls = []
    parallel = evaluate(tasks, repo_for, config=CONFIG, jobs=2, progress=lambda *a: calls.append(a))
    assert untimed(parallel.records) == untimed(sequential.records)
    assert [r["id"] for r in parallel.records] == [t["id"] for t in tasks]
    assert sorted(c[2] for c in calls) == sorted(t["id"] for t in tasks)
    assert [c[0] for c in calls] == [1, 2, 3, 4]
    assert parallel.records[3]["error"].startswith("RepositoryNotFoundError")
    with pytest.raises(deepdiscovery.ConfigError, match="picklable"):
        evaluate(tasks, lambda t: FIXTURES / "locate_app", jobs=2)
    with pytest.raises(deepdiscovery.ConfigError, match="jobs"):
        evaluate(tasks, repo_for, jobs=0)


def test_records_resume_an_interrupted_run(tmp_path):
    tasks = [task("a", [TOP]), task("b", ["nowhere.py"]), task("c", [TOP])]
    records = tmp_path / "run.jsonl"
    first = evaluate(tasks[:2], fixtures_repo, config=CONFIG, records=records)
    # An interruption mid-write leaves a cut line: it is run again, not trusted.
    with open(records, "a", encoding="utf-8") as f:
        f.write('{"id": "c", "frr": ')
    asked = []

    def counting(t):
        asked.append(t["id"])
        return FIXTURES / "locate_app"

    resumed = evaluate(tasks, counting, config=CONFIG, records=records)
    assert asked == ["c"]
    assert untimed(resumed.records[:2]) == untimed(first.records)
    assert [r["id"] for r in resumed.records] == ["a", "b", "c"]
    again = evaluate(tasks, counting, config=CONFIG, records=records)
    assert asked == ["c"] and untimed(again.records) == untimed(resumed.records)
    with pytest.raises(deepdiscovery.TaskError, match="unique"):
        evaluate([task("a", [TOP]), task("a", [TOP])], fixtures_repo)


def test_task_files_are_read_by_the_core_as_every_driver_reads_them(tmp_path):
    path = tmp_path / "tasks.jsonl"
    line = {"id": 7, "repo": "o/r", "task": "t", "gold_files": ["a.py"], "note": "kept?"}
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    (loaded,) = load_tasks(path)
    assert loaded == {
        "id": "7",
        "repo": "o/r",
        "base_commit": None,
        "task": "t",
        "gold_files": ["a.py"],
        "gold_new_files": [],
        "language": None,
    }
    # In memory, the caller's other fields stay; a wrong type is named as in a file.
    assert deepdiscovery.eval._checked(line, "task 1")["note"] == "kept?"
    with pytest.raises(deepdiscovery.TaskError, match="task 1: a task must be a JSON object, got an array"):
        deepdiscovery.eval._checked(["not", "a", "task"], "task 1")
    path.write_text(json.dumps(line) + "\n" + json.dumps({**line, "task": None}) + "\n", encoding="utf-8")
    with pytest.raises(deepdiscovery.TaskError, match=r"tasks.jsonl:2: task must be a string, got null"):
        load_tasks(path)


def _git(*args, cwd):
    import subprocess

    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def test_checkouts_check_each_task_out_at_its_commit_as_the_rust_tool_does(tmp_path):
    import shutil
    import subprocess

    work = tmp_path / "work"
    shutil.copytree(FIXTURES / "locate_app", work)
    _git("init", "-q", cwd=work)
    _git("add", "-A", cwd=work)
    _git("commit", "-qm", "first", cwd=work)
    first = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=work, check=True, capture_output=True, text=True
    ).stdout.strip()
    # A later commit removes the gold file: only a checkout at `first` finds it.
    (work / TOP).unlink()
    _git("commit", "-qam", "second", cwd=work)
    mirrors = tmp_path / "mirrors"
    mirrors.mkdir()
    _git("clone", "-q", "--mirror", str(work), str(mirrors / "acme+locate_app"), cwd=tmp_path)

    tasks = [dict(task("at-first", [TOP]), base_commit=first)]
    expected = evaluate(tasks, fixtures_repo, config=CONFIG).records[0]
    for history in (False, True):
        root = tmp_path / f"co-{history}"
        root.mkdir()
        result = evaluate(tasks, deepdiscovery.eval.checkouts(root, mirrors, with_history=history), config=CONFIG)
        record = result.records[0]
        assert record["error"] is None and record["frr"] == 1
        assert (root / "at-first" / TOP).is_file()
        assert (root / "at-first" / ".git").exists() == history
        if not history:
            assert record["returned"] == expected["returned"]

    missing = [dict(task("gone", [TOP], repo="acme/absent"), base_commit=first)]
    record = evaluate(missing, deepdiscovery.eval.checkouts(tmp_path / "co-False", mirrors)).records[0]
    assert record["error"].startswith("RepositoryNotFoundError") and "acme/absent" in record["error"]
