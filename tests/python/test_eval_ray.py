"""Evaluation on Ray (``evaluate(ray=...)``, ``eval --ray``) against a local instance
started here: the records are those of the sequential run."""

import json
import sys

import pytest

import deepdiscovery
from deepdiscovery.cli import main
from deepdiscovery.eval import _groups, evaluate, repo_root
from test_eval import CONFIG, FIXTURES, TOP, task, untimed

try:
    import ray
except ImportError:
    ray = None

needs_ray = pytest.mark.skipif(
    ray is None, reason='Ray is not installed: pip install "deepdiscovery[ray]" (CI installs it)'
)

EXPORT = "Stock export to CSV drops the warehouse column in reports/export.py"


def untimed_summary(result):
    return {k: v for k, v in result.summary().items() if "millis" not in k}


@pytest.fixture(scope="module")
def local_ray():
    """A Ray instance on this machine for the module's tests."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture
def checkouts(tmp_path):
    """Tasks over three checkouts (three of them on one, with the same repo), an
    unknown repository and a task that fails, and the ``repo_for`` of their root."""
    root = tmp_path / "checkouts"
    root.mkdir()
    (root / "x+locate_app").symlink_to(FIXTURES / "locate_app")
    (root / "locate_app").symlink_to(FIXTURES / "locate_app")
    (root / "mixed_app").symlink_to(FIXTURES / "mixed_app")
    shared = "x/locate_app"
    tasks = [
        task("locate_app", [TOP]),
        task("s-1", [TOP, "inventory/models.py"], repo=shared),
        task("mixed_app", ["nowhere.py"], repo="x/mixed_app"),
        task("s-2", ["inventory/reports/export.py"], repo=shared, text=EXPORT),
        task("absent", [TOP], repo="x/absent"),
        task("s-3", ["CHANGES.md"], new=["CHANGES.md"], repo=shared),
        task("s-4", [TOP], repo=shared, text="   "),
    ]
    return tasks, repo_root(root)


def test_tasks_are_grouped_by_repository_and_base_commit():
    tasks = [
        dict(task("a", [TOP], repo="o/r"), base_commit="c1"),
        dict(task("b", [TOP], repo="o/s"), base_commit="c1"),
        dict(task("c", [TOP], repo="o/r"), base_commit="c2"),
        dict(task("d", [TOP], repo="o/r"), base_commit="c1"),
        task("e", [TOP], repo="o/r"),
    ]
    assert [[t["id"] for t in g] for g in _groups(tasks)] == [["a", "d"], ["b"], ["c"], ["e"]]


def test_a_group_opens_each_checkout_once(monkeypatch, checkouts):
    import deepdiscovery.eval as module

    tasks, repo_for = checkouts
    opened = []

    class Counting(deepdiscovery.Session):
        def __init__(self, repo, **kwargs):
            opened.append(repo)
            super().__init__(repo, **kwargs)

    monkeypatch.setattr(module, "Session", Counting)
    shared = [t for t in tasks if t["repo"] == "x/locate_app"]
    records = list(module._run_group(shared, repo_for, CONFIG))
    assert [r["id"] for r in records] == ["s-1", "s-2", "s-3", "s-4"]
    assert opened == [repo_for(shared[0])]


def test_without_ray_the_error_names_the_extra(monkeypatch, checkouts):
    tasks, repo_for = checkouts
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ImportError, match=r'pip install "deepdiscovery\[ray\]"'):
        evaluate(tasks, repo_for, config=CONFIG, ray="auto")
    with pytest.raises(deepdiscovery.ConfigError, match="jobs and ray"):
        evaluate(tasks, repo_for, jobs=2, ray="auto")
    with pytest.raises(deepdiscovery.ConfigError, match="a Ray address"):
        evaluate(tasks, repo_for, ray="")


@needs_ray
def test_ray_gives_the_sequential_records(local_ray, checkouts, tmp_path):
    tasks, repo_for = checkouts
    sequential = evaluate(tasks, repo_for, config=CONFIG)
    calls = []
    records = tmp_path / "run.jsonl"
    on_ray = evaluate(
        tasks,
        repo_for,
        config=CONFIG,
        ray="auto",
        records=records,
        progress=lambda *a: calls.append(a),
    )
    assert ray.is_initialized()  # the caller's instance is left running
    assert untimed(on_ray.records) == untimed(sequential.records)
    assert [r["id"] for r in on_ray.records] == [t["id"] for t in tasks]
    assert untimed_summary(on_ray) == untimed_summary(sequential)
    assert on_ray.records[1]["frr"] == 1 and on_ray.records[3]["error"] is None
    assert on_ray.records[4]["error"].startswith("RepositoryNotFoundError")
    assert on_ray.records[6]["error"].startswith("TaskError")
    # Records and progress as each task ends, whatever the order.
    assert [c[0] for c in calls] == list(range(1, len(tasks) + 1))
    assert sorted(c[2] for c in calls) == sorted(t["id"] for t in tasks)
    lines = [json.loads(line) for line in records.read_text(encoding="utf-8").splitlines()]
    assert sorted(lines, key=lambda r: r["id"]) == sorted(on_ray.records, key=lambda r: r["id"])


@needs_ray
def test_ray_resumes_from_the_records(local_ray, checkouts, tmp_path):
    tasks, repo_for = checkouts
    records = tmp_path / "run.jsonl"
    first = evaluate(tasks[:3], repo_for, config=CONFIG, records=records)
    calls = []
    resumed = evaluate(
        tasks,
        repo_for,
        config=CONFIG,
        ray="auto",
        records=records,
        progress=lambda *a: calls.append(a),
    )
    assert sorted(c[2] for c in calls) == sorted(t["id"] for t in tasks[3:])
    assert [c[0] for c in calls] == list(range(4, len(tasks) + 1))
    assert resumed.records[:3] == first.records  # read back, not run again
    assert untimed(resumed.records) == untimed(evaluate(tasks, repo_for, config=CONFIG).records)
    assert len(records.read_text(encoding="utf-8").splitlines()) == len(tasks)
    again = evaluate(tasks, repo_for, config=CONFIG, ray="auto", records=records)
    assert again.records == resumed.records


@needs_ray
def test_cli_ray(local_ray, checkouts, tmp_path, capsys):
    tasks, repo_for = checkouts
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks), encoding="utf-8")
    argv = ["eval", "--tasks", str(path), "--repo-root", repo_for.base, "--budget-tokens", "3000"]
    outputs = []
    for extra in ([], ["--ray", "auto"]):
        out = tmp_path / f"out{len(outputs)}.json"
        assert main(argv + extra + ["--json-out", str(out)]) == 0
        outputs.append(json.loads(out.read_text(encoding="utf-8")))
    sequential, on_ray = outputs
    assert untimed(on_ray["records"]) == untimed(sequential["records"])
    assert f"[{len(tasks)}/{len(tasks)}]" in capsys.readouterr().err
    assert main(argv + ["--ray", "auto", "--jobs", "2"]) == 2
    assert "--jobs and --ray do not go together" in capsys.readouterr().err
