"""The same task on the same checkout gives the same package, byte for byte, on an
idle machine, under a CPU-hogging load and with a slow ``git`` on PATH: history is
bounded by work (commits and bytes of log), never by a clock.

Each run is a fresh ``deepdiscovery discover`` process without the on-disk cache,
so that every run reads the history itself.
"""

import json
import multiprocessing
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TASK = (
    "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in "
    "`convert_currency`"
)

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not on PATH")


def git(repo, *args, day=0):
    date = f"@{1_700_000_000 + day * 86_400} +0000"
    env = {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_DATE": date,
    }
    subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        env=env,
        check=True,
        capture_output=True,
    )


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """The locate fixture as a git work tree with a history of a few hundred commits
    in which the pricing files change together."""
    root = tmp_path_factory.mktemp("history") / "repo"
    shutil.copytree(FIXTURES / "locate_app", root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*.py"))
    pricing = [f for f in files if "pricing" in f]
    for day in range(1, 301):
        changed = pricing[: 2 + day % 2] if day % 5 == 0 else [files[day % len(files)]]
        for name in changed:
            with open(root / name, "a", encoding="utf-8") as f:
                f.write(f"# change {day}\n")
        git(root, "add", "-A", day=day)
        git(root, "commit", "-q", "-m", f"Change {day}\n\nTouches {' '.join(changed)}.", day=day)
    return root


def discover(repo, path=None):
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = path
    out = subprocess.run(
        [sys.executable, "-m", "deepdiscovery", "discover", TASK, "--repo", str(repo),
         "--format", "json", "--no-cache"],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    package = json.loads(out)
    # Stage timings are the only fields that measure the machine.
    package["budget"].pop("stages", None)
    return json.dumps(package, sort_keys=True)


def spin(stop):
    while not stop.is_set():
        pass


def test_the_package_is_the_same_idle_loaded_and_with_a_slow_git(repo, tmp_path):
    idle = discover(repo)
    assert '"recent_history": []' not in idle
    assert json.loads(idle)["recent_history"], "the fixture has history"

    stop = multiprocessing.Event()
    hogs = [
        multiprocessing.Process(target=spin, args=(stop,), daemon=True)
        for _ in range(2 * (os.cpu_count() or 1))
    ]
    for hog in hogs:
        hog.start()
    try:
        loaded = discover(repo)
    finally:
        stop.set()
        for hog in hogs:
            hog.join()
    assert loaded == idle

    # A git that takes 0.4 s to start, as on a cold disk or a network file system.
    slow = tmp_path / "slow-bin"
    slow.mkdir()
    real = shutil.which("git")
    wrapper = slow / "git"
    wrapper.write_text(f'#!/bin/sh\nsleep 0.4\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    slowed = discover(repo, path=f"{slow}{os.pathsep}{os.environ['PATH']}")
    assert slowed == idle
