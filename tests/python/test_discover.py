"""Algorithm 1 from Python: the context package."""

from pathlib import Path

import pytest

import deepdiscovery

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TASK = "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in `convert_currency`"


def test_discover_returns_a_package_within_its_budget():
    session = deepdiscovery.Session(FIXTURES / "locate_app")
    package = session.discover(TASK, budget_tokens=3000)
    assert package["schema_version"] == 1
    paths = [f["path"] for f in package["files"]]
    assert paths[0] == "inventory/pricing/currency.py"
    assert "tests/test_currency.py" in paths
    assert package["budget"]["used_tokens"] <= 3000
    assert package["markdown"].startswith("# Task context")
    assert all(f["rationale"] for f in package["files"])
    assert [r["path"] for r in package["ranked_files"][: len(paths)]] == paths


def test_location_only_keeps_the_anchors():
    session = deepdiscovery.Session(FIXTURES / "locate_app")
    package = session.discover(TASK, location_only=True)
    assert all(f["anchor"] for f in package["files"])
    assert package["budget"]["steps"] == 0


def test_bad_input_raises_clear_errors():
    session = deepdiscovery.Session(FIXTURES / "locate_app")
    with pytest.raises(ValueError, match="empty"):
        session.discover("   ")
    with pytest.raises(ValueError, match="tau"):
        session.discover(TASK, tau=2.0)
