"""Bad input gets one exception hierarchy with messages that say what to fix."""

import shutil
from pathlib import Path

import pytest

import deepdiscovery
from deepdiscovery import errors

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TASK = "Pricing endpoint crashes in `convert_currency`"


def test_every_error_is_a_deepdiscovery_error_and_a_familiar_builtin():
    assert issubclass(errors.RepositoryNotFoundError, FileNotFoundError)
    assert issubclass(errors.RepositoryNotADirectoryError, NotADirectoryError)
    assert issubclass(errors.TaskError, ValueError)
    assert issubclass(errors.ConfigError, ValueError)
    for cls in (
        errors.RepositoryError,
        errors.RepositoryNotFoundError,
        errors.TaskError,
        errors.ConfigError,
        errors.PluginError,
        errors.InternalError,
    ):
        assert issubclass(cls, deepdiscovery.DeepDiscoveryError)


def test_missing_repository(tmp_path):
    with pytest.raises(deepdiscovery.RepositoryNotFoundError, match="not found"):
        deepdiscovery.Session(tmp_path / "nope")
    with pytest.raises(deepdiscovery.RepositoryError, match="path or a dict"):
        deepdiscovery.Session(42)  # type: ignore[arg-type]
    with pytest.raises(deepdiscovery.RepositoryError, match="str paths to str texts"):
        deepdiscovery.Session({"a.py": b"bytes"})  # type: ignore[dict-item]


@pytest.mark.parametrize("watch", [False, True])
def test_a_root_removed_during_a_session_raises_as_a_missing_one(tmp_path, watch):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "main.py").write_text("def main():\n    return 1\n")
    session = deepdiscovery.Session(root, config=deepdiscovery.Config(watch=watch))
    assert session.discover("main returns the wrong value").paths() == ["main.py"]
    shutil.rmtree(root)
    with pytest.raises(deepdiscovery.RepositoryNotFoundError, match="not found"):
        session.discover("main returns the wrong value")
    root.write_text("a file now")
    with pytest.raises(deepdiscovery.RepositoryNotADirectoryError):
        session.discover("main returns the wrong value")


def test_empty_or_wrong_task():
    session = deepdiscovery.Session(FIXTURES / "locate_app")
    with pytest.raises(deepdiscovery.TaskError, match="empty"):
        session.discover("   ")
    with pytest.raises(deepdiscovery.TaskError, match="must be a str"):
        session.discover(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        session.locate("")


def test_out_of_range_and_unknown_options_name_the_parameter():
    session = deepdiscovery.Session(FIXTURES / "locate_app")
    with pytest.raises(deepdiscovery.ConfigError, match="tau"):
        session.discover(TASK, tau=2.0)
    with pytest.raises(deepdiscovery.ConfigError, match="unknown config field 'budget'"):
        session.discover(TASK, budget=3)
    with pytest.raises(deepdiscovery.ConfigError, match="anchors"):
        deepdiscovery.Config(anchors=0)
    with pytest.raises(deepdiscovery.ConfigError, match="must be a bool"):
        deepdiscovery.Config(no_history="yes")  # type: ignore[arg-type]
    with pytest.raises(deepdiscovery.ConfigError, match="config must be"):
        deepdiscovery.Session(FIXTURES / "locate_app", config={"tau": 0.1})  # type: ignore[arg-type]


def test_bad_rules_are_config_errors(tmp_path):
    with pytest.raises(deepdiscovery.ConfigError):
        deepdiscovery.Session(FIXTURES / "locate_app", rules="[[rule]]\nname = 3\n")
    with pytest.raises(deepdiscovery.ConfigError, match="cannot read the rules file"):
        deepdiscovery.Session(FIXTURES / "locate_app", rules=tmp_path / "missing.toml")


def test_a_panic_in_the_core_is_an_internal_error_and_the_session_survives(monkeypatch):
    # Debug builds (what `maturin develop` makes) panic on purpose when
    # DEEPDISCOVERY_FAULT names the entry point; a release wheel has no such switch.
    session = deepdiscovery.Session(FIXTURES / "locate_app")
    monkeypatch.setenv("DEEPDISCOVERY_FAULT", "discover")
    try:
        session.discover(TASK)
    except errors.InternalError as e:
        assert isinstance(e, RuntimeError) and "internal error" in str(e)
        assert "DEEPDISCOVERY_FAULT" in str(e)
    else:
        assert deepdiscovery._native.__file__.endswith(".so")
        pytest.skip("a release build: no fault switch to force a panic with")
    monkeypatch.delenv("DEEPDISCOVERY_FAULT")
    assert session.discover(TASK).files, "the session answers after the panic"
