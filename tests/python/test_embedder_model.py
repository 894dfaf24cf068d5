"""The in-process embedder (``Config(embedder_model=...)``, ``--embedder-model``) on a
tiny BERT the tests write themselves (tests/support/tiny_model.py): it loads, runs in
Rust, answers deterministically, and every broken folder is a ModelError at open."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

import deepdiscovery

ROOT = Path(__file__).resolve().parent.parent
REPO = ROOT / "fixtures" / "locate_app"
TASK = "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in `convert_currency`"

_spec = importlib.util.spec_from_file_location("tiny_model", ROOT / "support" / "tiny_model.py")
tiny_model = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tiny_model)


@pytest.fixture()
def model(tmp_path):
    folder = tmp_path / "tiny-model"
    tiny_model.write(str(folder))
    return folder


def test_a_model_folder_runs_in_process_and_answers_the_same_twice(model):
    config = deepdiscovery.Config(embedder_model=model, watch=False)
    assert config.embedder_model == str(model)
    first = deepdiscovery.Session(REPO, config=config).discover(TASK)
    second = deepdiscovery.Session(REPO, config=config).discover(TASK)
    assert first.paths()[0] == "inventory/pricing/currency.py"
    assert first.paths() == second.paths()
    assert [f.score for f in first.files] == [f.score for f in second.files]
    # The model trained with an embedder ranks (it reads the similarity as features of
    # its own); the task names its file, which stays first as without an embedder.
    plain = deepdiscovery.Session(REPO, config=deepdiscovery.Config(watch=False)).discover(TASK)
    assert first.paths()[0] == plain.paths()[0]


@pytest.mark.parametrize(
    "break_it, says",
    [
        (lambda f: (f / "model.safetensors").unlink(), "model.safetensors"),
        (lambda f: (f / "model.safetensors").write_bytes(b"\x08\x00\x00"), "model.safetensors"),
        (lambda f: (f / "tokenizer.json").write_text("{ not json"), "tokenizer.json"),
        (lambda f: (f / "config.json").write_text('{"hidden_size": 7}'), "config.json"),
    ],
)
def test_a_broken_folder_is_a_model_error_at_open(model, break_it, says):
    break_it(model)
    with pytest.raises(deepdiscovery.ModelError, match=says):
        deepdiscovery.Session(REPO, config=deepdiscovery.Config(embedder_model=model))


def test_a_missing_folder_and_two_embedders_are_refused(tmp_path, model):
    with pytest.raises(deepdiscovery.ModelError, match="not a directory"):
        deepdiscovery.Session(REPO, config=deepdiscovery.Config(embedder_model=tmp_path / "none"))
    with pytest.raises(deepdiscovery.ConfigError, match="not both"):
        deepdiscovery.Session(
            REPO,
            config=deepdiscovery.Config(embedder_model=model),
            embedder=lambda texts: [[1.0]] * len(texts),
        )
    with pytest.raises(deepdiscovery.ConfigError, match="embedder_model"):
        deepdiscovery.Config(embedder_model=42)
    assert issubclass(deepdiscovery.ModelError, deepdiscovery.ConfigError)


def test_the_cli_takes_a_model_folder(model):
    def run(*extra):
        return subprocess.run(
            [sys.executable, "-m", "deepdiscovery", "locate", TASK, "--repo", str(REPO),
             "--format", "json", *extra],
            capture_output=True, text=True, check=False,
        )

    ok = run("--embedder-model", str(model))
    assert ok.returncode == 0, ok.stderr
    anchors = json.loads(ok.stdout)["anchors"]
    assert anchors[0]["path"] == "inventory/pricing/currency.py"
    broken = run("--embedder-model", str(model / "nowhere"))
    assert broken.returncode != 0
    assert "not a directory" in broken.stderr
    both = run("--embedder-model", str(model), "--embedding-model", "x")
    assert both.returncode != 0
    assert "one of them" in both.stderr


def test_the_builtin_model_ships_with_the_package_and_explains_its_matches():
    folder = deepdiscovery.config.builtin_model_folder()
    assert folder is not None, "the package ships its tuned model"
    card = Path(folder, "README.md").read_text(encoding="utf-8")
    assert "all-MiniLM-L6-v2" in card and "Apache-2.0" in card
    config = deepdiscovery.Config(embedder_model="builtin", watch=False)
    assert config.to_session_options()["embedder_model"] == folder
    session = deepdiscovery.Session(REPO, config=config)
    location = session.locate(TASK)
    assert location["anchors"][0]["path"] == "inventory/pricing/currency.py"
    signals = [s for a in location["anchors"] for s in a["signals"]]
    assert any(s.startswith("semantic match: `") for s in signals), signals
