"""The README and docs/ as tests: every block marked ``<!-- test -->`` runs
(tests/docs/run_snippets.py), the README's picture is the one the library draws now,
and every option, flag and package field is documented in docs/."""

import dataclasses
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import deepdiscovery

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _load(name):
    spec = importlib.util.spec_from_file_location(
        f"docs_{name}", ROOT / "tests" / "docs" / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


snippets = _load("run_snippets")
readme_picture = _load("readme_picture")
SNIPPETS = snippets.collect(snippets.default_files())


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    path = tmp_path_factory.mktemp("snippets")
    return path, snippets.prepare(path)


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.name for s in SNIPPETS])
def test_snippet_runs(snippet, workdir):
    path, env = workdir
    outcome = snippets.run(snippet, path, env)
    if outcome.status == "skip":
        pytest.skip(outcome.detail)
    assert outcome.status == "ok", f"{snippet.name} ({snippet.lang}): {outcome.detail}"


def test_every_surface_has_runnable_snippets():
    langs = {s.lang for s in SNIPPETS}
    assert {"python", "sh", "c", "rust", "json"} <= langs
    readme = [s for s in SNIPPETS if s.file.name == "README.md"]
    assert {"python", "sh", "c", "rust"} <= {s.lang for s in readme}


def test_readme_keeps_the_two_commands():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert "make demo" in lines and "make test" in lines


def test_readme_picture_is_fresh():
    committed = (DOCS / "package.svg").read_text(encoding="utf-8")
    assert committed == readme_picture.picture(), "docs/package.svg is stale: run `make readme-picture`"


def _documented(page):
    return set(re.findall(r"`([^`\s]+)`", (DOCS / page).read_text(encoding="utf-8")))


def test_every_config_field_is_documented():
    documented = _documented("configuration.md")
    fields = {f.name for f in dataclasses.fields(deepdiscovery.Config)}
    assert not fields - documented, f"Config fields missing in docs/configuration.md: {sorted(fields - documented)}"


def test_every_cli_flag_is_documented():
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    missing = set()
    for command in ("discover", "locate", "eval", "mcp", "cache"):
        help_text = subprocess.run(
            [sys.executable, "-m", "deepdiscovery", command, "--help"],
            capture_output=True, text=True, check=True,
        ).stdout
        for flag in set(re.findall(r"(--[a-z][a-z-]+)", help_text)) - {"--help"}:
            if not re.search(re.escape(flag) + r"(?![a-z-])", text):
                missing.add(f"{command} {flag}")
    assert not missing, f"flags missing in docs/cli.md: {sorted(missing)}"


def _keys(value):
    """Every key of a JSON value, as a set of names (list items looked into)."""
    keys = set()
    if isinstance(value, dict):
        for key, inner in value.items():
            keys.add(key)
            keys |= _keys(inner)
    elif isinstance(value, list):
        for inner in value:
            keys |= _keys(inner)
    return keys


def test_every_package_field_is_documented():
    package = deepdiscovery.discover(
        str(readme_picture.FIXTURE),
        readme_picture.TASK,
        config=deepdiscovery.Config(cache=False),
        budget_tokens=readme_picture.BUDGET_TOKENS,
    )
    data = package.to_dict()
    # Paths and names are keys in a few maps (skip reasons); they are values, not fields.
    keys = {k for k in _keys(data) if "/" not in k and "." not in k}
    text = (DOCS / "package.md").read_text(encoding="utf-8")
    documented = _documented("package.md") | {k for k in keys if f'"{k}"' in text}
    assert not keys - documented, f"package fields missing in docs/package.md: {sorted(keys - documented)}"
    assert json.loads(package.to_json())["schema_version"] == deepdiscovery.SCHEMA_VERSION
