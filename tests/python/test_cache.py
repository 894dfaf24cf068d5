"""The on-disk facts cache from Python and the CLI: ``Config(cache=..., cache_dir=...)``,
``--cache-dir``/``--no-cache`` and ``deepdiscovery cache info|clear``. Answers are the
same with or without it."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import deepdiscovery
from deepdiscovery import Config, Session
from deepdiscovery.cache import cache_clear, cache_info
from deepdiscovery.cli import main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TASK = "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in `convert_currency`"


def untimed(package):
    data = json.loads(package.to_json())
    data["budget"].pop("stages", None)
    return data


def discover(repo, **config):
    return untimed(Session(str(repo), config=Config(**config)).discover(TASK))


def test_the_tests_never_use_the_users_cache():
    assert os.environ["DEEPDISCOVERY_CACHE_DIR"]
    assert cache_info()["dir"] == os.environ["DEEPDISCOVERY_CACHE_DIR"]


def test_cache_dir_is_filled_read_and_never_changes_the_answer(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "locate_app", repo)
    cache = tmp_path / "cache"
    without = discover(repo, cache=False)
    assert not cache.exists()
    assert discover(repo, cache_dir=str(cache)) == without  # cold
    filled = cache_info(cache)
    assert filled["entries"] > 0 and filled["bytes"] > 0
    assert filled["dir"] == str(cache)
    assert discover(repo, cache_dir=cache) == without  # warm (a PathLike works too)
    # An edit, then corrupted entries: still the answer without a cache.
    currency = repo / "inventory/pricing/currency.py"
    currency.write_text(currency.read_text() + "\n\ndef extra():\n    pass\n")
    without = discover(repo, cache=False)
    assert discover(repo, cache_dir=str(cache)) == without
    for entry in (cache / "facts-v1").rglob("*"):
        if entry.is_file():
            entry.write_bytes(entry.read_bytes()[:10])
    assert discover(repo, cache_dir=str(cache)) == without
    assert cache_clear(cache) >= filled["entries"]
    assert cache_info(cache)["entries"] == 0


def test_cache_false_writes_nothing(tmp_path):
    cache = tmp_path / "cache"
    discover(FIXTURES / "locate_app", cache=False, cache_dir=str(cache))
    assert not cache.exists()


def test_an_unusable_cache_dir_is_no_cache(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("in the way")
    expected = discover(FIXTURES / "locate_app", cache=False)
    assert discover(FIXTURES / "locate_app", cache_dir=str(blocker)) == expected
    assert discover(FIXTURES / "locate_app", cache_dir=str(blocker / "below")) == expected


def test_cache_dir_must_be_a_path():
    with pytest.raises(deepdiscovery.ConfigError):
        Config(cache_dir=3)
    with pytest.raises(deepdiscovery.ConfigError):
        Config(cache="yes")
    assert Config(cache_dir=Path("/x")).cache_dir == "/x"
    assert Config.from_dict(Config(cache_dir="/y").to_dict()).cache_dir == "/y"


def test_cli_cache_info_and_clear(tmp_path, capsys):
    cache = tmp_path / "cache"
    repo = str(FIXTURES / "locate_app")
    assert main(["discover", TASK, "--repo", repo, "--no-cache", "--cache-dir", str(cache)]) == 0
    assert not cache.exists()
    assert main(["discover", TASK, "--repo", repo, "--cache-dir", str(cache)]) == 0
    capsys.readouterr()
    assert main(["cache", "info", "--cache-dir", str(cache), "--format", "json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["entries"] > 0 and info["dir"] == str(cache)
    assert main(["cache", "info", "--cache-dir", str(cache)]) == 0
    out = capsys.readouterr().out
    assert f"directory: {cache}" in out and f"entries:   {info['entries']}" in out
    (tmp_path / "cache" / "keep.txt").write_text("not an entry")
    assert main(["cache", "clear", "--cache-dir", str(cache)]) == 0
    assert f"removed {info['entries']} entries" in capsys.readouterr().out
    assert main(["cache", "info", "--cache-dir", str(cache), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["entries"] == 0
    assert (tmp_path / "cache" / "keep.txt").read_text() == "not an entry"
    # The default directory is the environment's (the tests' own scratch directory).
    assert main(["cache", "info", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["dir"] == os.environ["DEEPDISCOVERY_CACHE_DIR"]


def test_processes_sharing_one_cache_at_once_agree(tmp_path):
    """Several CLI processes fill one empty cache at the same time (atomic renames, no
    lock), then read it: every package is the one computed without a cache."""
    cache = tmp_path / "cache"
    repo = str(FIXTURES / "locate_app")
    command = [sys.executable, "-m", "deepdiscovery", "discover", TASK, "--repo", repo]
    command += ["--format", "json"]

    def untimed_text(text):
        data = json.loads(text)
        data["budget"].pop("stages", None)
        return data

    expected = untimed_text(
        subprocess.run(command + ["--no-cache"], capture_output=True, text=True, check=True).stdout
    )
    for _ in range(2):  # cold, then warm
        running = [
            subprocess.Popen(
                command + ["--cache-dir", str(cache)], stdout=subprocess.PIPE, text=True
            )
            for _ in range(4)
        ]
        for process in running:
            out, _ = process.communicate(timeout=120)
            assert process.returncode == 0
            assert untimed_text(out) == expected
    assert list(cache.rglob(".tmp-*")) == []
    assert cache_info(cache)["entries"] > 0
