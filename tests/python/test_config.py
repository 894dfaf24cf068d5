"""Config: every parameter of the paper, frozen, with the core as the range checker."""

import dataclasses
from pathlib import Path

import pytest

import deepdiscovery
from deepdiscovery import Config, Weights


def test_defaults_are_the_papers():
    c = Config()
    assert (c.anchors, c.tau, c.kappa, c.patience) == (8, 0.15, 0.62, 2)
    assert (c.budget_tokens, c.max_steps, c.location_share) == (16_000, 64, 0.25)
    assert c.preset == "auto" and c.history and c.builtin_rules
    assert not any(
        getattr(c, f)
        for f in (
            "location_only",
            "no_compression",
            "no_implicit",
            "no_metadata_first",
            "no_history",
            "no_sem",
            "no_sum",
            "no_rule",
            "no_prior",
        )
    )


def test_frozen_and_replace():
    c = Config()
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.tau = 0.3  # type: ignore[misc]
    d = c.replace(tau=0.3, no_history=True)
    assert d.tau == 0.3 and d.no_history and c.tau == 0.15
    with pytest.raises(deepdiscovery.ConfigError):
        c.replace(tau=-1.0)


def test_round_trip_and_fixed_weights():
    c = Config(preset=Weights(0.4, 0.1, 0.3, 0.2), anchors=5)
    assert Config.from_dict(c.to_dict()) == c
    options = c.to_options()
    assert options["preset"] == {"fixed": {"sem": 0.4, "sum": 0.1, "rule": 0.3, "prior": 0.2}}
    assert options["ablation"]["no_history"] is False
    assert Config(preset="paper").to_options()["preset"] == "paper"
    assert Config.from_dict(Config(preset="paper").to_dict()).preset == "paper"
    with pytest.raises(deepdiscovery.ConfigError, match="preset"):
        Config(preset="clear")
    with pytest.raises(deepdiscovery.ConfigError, match="weights must be finite and non-negative"):
        Config(preset=Weights(-1.0, 0.1, 0.3, 0.2))
    with pytest.raises(deepdiscovery.ConfigError, match="unknown config field"):
        Config.from_dict({"gamma": 1})


def test_llm_switches_reach_the_core_options():
    options = Config(llm_summary=False, llm_max_calls=1).to_options()
    assert options["llm"] == {
        "environment": True,
        "summary": False,
        "promotion": True,
        "max_calls": 1,
        "max_prompt_tokens": 6000,
    }
    assert Config().to_locate_options()["llm"]["max_calls"] == 3
    with pytest.raises(deepdiscovery.ConfigError, match="llm_max_calls"):
        Config(llm_max_calls=-1)


def test_session_options_carry_history_and_rules():
    assert Config(history=False).to_session_options()["history"] is False
    bounded = Config(history_max_commits=20).to_session_options(rules="x")
    assert bounded["history"]["max_commits"] == 20 and bounded["rules"] == "x"


def test_graph_scope_and_max_files_reach_the_core():
    c = Config(full_graph=True, scope_rounds=1, scope_per_round=10, max_files=500)
    options = c.to_options()
    assert options["full_graph"] is True
    assert options["scope"] == {
        "rounds": 1,
        "per_round": 10,
        "max_name_files": 24,
        "max_names_per_file": 100,
        "max_file_bytes": 256 << 10,
    }
    assert options["budget"]["max_files"] == 500
    assert Config.from_dict(c.to_dict()) == c
    with pytest.raises(deepdiscovery.ConfigError, match="scope.rounds"):
        Config(scope_rounds=9)
    with pytest.raises(deepdiscovery.ConfigError, match="max_files|files must be positive"):
        Config(max_files=0)


def test_max_files_degrades_with_a_note():
    fixtures = Path(__file__).resolve().parent.parent / "fixtures"
    package = deepdiscovery.discover(
        fixtures / "locate_app",
        "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP "
        "in `convert_currency`",
        max_files=4,
    )
    assert package.budget["files_read"] == 4
    assert any("budget.max_files" in note for note in package.notes)
    assert "inventory/pricing/currency.py" in [f.path for f in package.files]


def test_min_score_ratio_cuts_weak_files_from_the_package_only():
    assert Config().min_score_ratio == 0.0
    assert Config(min_score_ratio=0.5).to_options()["min_score_ratio"] == 0.5
    with pytest.raises(deepdiscovery.ConfigError, match="min_score_ratio"):
        Config(min_score_ratio=1.5)
    root = Path(__file__).resolve().parent.parent / "fixtures" / "locate_app"
    session = deepdiscovery.Session(str(root))
    task = "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP"
    everything = session.discover(task)
    strict = session.discover(task, config=Config(min_score_ratio=0.5))
    assert len(strict.files) < len(everything.files)
    assert [r["path"] for r in strict.ranked_files] == [
        r["path"] for r in everything.ranked_files
    ]
    kept = {f.path for f in strict.files}
    assert all(r["selected"] == (r["path"] in kept) for r in strict.ranked_files)
