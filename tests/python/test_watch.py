"""Sessions watch their repository by default (``Config(watch=True)``): a query lists
only what changed since the last. The answers are those of an unwatched session after
every kind of change."""

import json
import os
import shutil
from pathlib import Path

import deepdiscovery
from deepdiscovery import Config, Session

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TASK = "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in `convert_currency`"


def untimed(package):
    data = json.loads(package.to_json())
    data["budget"].pop("stages", None)
    return data


def test_sessions_watch_by_default_and_one_shot_calls_do_not():
    assert Config().watch is True
    assert Config().to_session_options()["watch"] is True
    assert Config(watch=False).to_session_options()["watch"] is False


def test_a_watched_session_answers_as_a_fresh_one_after_every_change(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "locate_app", repo)
    watched = Session(str(repo), config=Config(cache=False))
    py_files = sorted(p for p in repo.rglob("*.py"))
    changes = [
        ("an edit", lambda: py_files[0].write_text(py_files[0].read_text() + "\n# edited\n")),
        (
            "a new file",
            lambda: (repo / "inventory" / "rates.py").write_text(
                "def convert_currency(amount, source, target):\n"
                "    raise CurrencyMismatchError(source, target)\n"
            ),
        ),
        ("a deletion", lambda: os.remove(py_files[1])),
        ("a new directory", lambda: (repo / "extra" / "more").mkdir(parents=True)),
        (
            "a file in it",
            lambda: (repo / "extra" / "more" / "gbp.py").write_text("GBP = 'GBP'\n"),
        ),
        ("an ignore file", lambda: (repo / ".gitignore").write_text("extra/\n")),
    ]
    assert untimed(watched.discover(TASK)) == untimed(
        Session(str(repo), config=Config(cache=False, watch=False)).discover(TASK)
    )
    for what, change in changes:
        change()
        fresh = Session(str(repo), config=Config(cache=False, watch=False))
        assert untimed(watched.discover(TASK)) == untimed(fresh.discover(TASK)), what
    paths = [f.path for f in watched.discover(TASK).files]
    assert "inventory/rates.py" in paths, "the new file is found by the watched session"


def test_one_shot_discover_matches_a_session(tmp_path):
    repo = FIXTURES / "locate_app"
    assert untimed(deepdiscovery.discover(str(repo), TASK, config=Config(cache=False))) == untimed(
        Session(str(repo), config=Config(cache=False)).discover(TASK)
    )
