"""Algorithm 1 from Python: the context package."""

import json
from pathlib import Path

import pytest

import deepdiscovery

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TASK = "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in `convert_currency`"


def test_discover_returns_a_package_within_its_budget():
    session = deepdiscovery.Session(FIXTURES / "locate_app")
    package = session.discover(TASK, budget_tokens=3000)
    assert package.schema_version == deepdiscovery.SCHEMA_VERSION == 1
    paths = package.paths()
    assert paths[0] == "inventory/pricing/currency.py"
    assert "tests/test_currency.py" in paths
    assert package.budget["used_tokens"] <= 3000
    assert package.to_markdown().startswith("# Task context")
    assert all(f.rationale for f in package.files)
    assert all(f.view.kind in ("metadata", "full_text", "spans") for f in package.files)
    # The ranking holds every file considered; the package's files are its selected
    # ones (files cut as weak keep their place in it, unselected).
    assert sorted(r["path"] for r in package.ranked_files if r["selected"]) == sorted(paths)
    assert package.anchors and package.anchors[0]["path"] in paths
    assert {lang for lang, _ in package.environment["languages"]} >= {"python"}


def test_the_package_serializes_as_the_core_writes_it():
    package = deepdiscovery.Session(FIXTURES / "locate_app").discover(TASK)
    data = json.loads(package.to_json())
    assert data == package.to_dict()
    assert [f["path"] for f in data["files"]] == package.paths()
    # to_dict is a copy: changing it changes nothing in the package.
    data["files"].clear()
    assert package.paths()
    assert len(package) == len(package.paths())
    assert [f.path for f in package] == package.paths()
    assert "<table>" in package._repr_html_() and "currency.py" in package._repr_html_()
    assert package._repr_markdown_() == package.to_markdown()
    assert "ContextPackage" in repr(package)


def test_full_text_views_carry_the_file_text():
    package = deepdiscovery.Session(FIXTURES / "locate_app").discover(TASK)
    with_text = [f for f in package.files if f.view.kind != "metadata"]
    assert with_text, [f.view.kind for f in package.files]
    for f in with_text:
        assert f.text
    for f in package.files:
        if f.view.kind == "metadata":
            assert f.text is None
            assert f.view.card["path"] == f.path


def test_location_only_keeps_the_anchors():
    session = deepdiscovery.Session(FIXTURES / "locate_app")
    package = session.discover(TASK, location_only=True)
    assert all(f.anchor for f in package.files)
    assert package.budget["steps"] == 0


def test_a_session_config_sets_the_defaults_and_keywords_override_them():
    config = deepdiscovery.Config(budget_tokens=2500, anchors=4)
    session = deepdiscovery.Session(FIXTURES / "locate_app", config=config)
    package = session.discover(TASK)
    assert package.budget["max_tokens"] == 2500
    assert len(package.anchors) <= 4
    assert session.discover(TASK, budget_tokens=5000).budget["max_tokens"] == 5000
    other = session.discover(TASK, config=deepdiscovery.Config(budget_tokens=6000))
    assert other.budget["max_tokens"] == 6000


def test_hints_name_what_the_caller_knows():
    session = deepdiscovery.Session(FIXTURES / "locate_app")
    location = session.locate("prices are wrong", hints={"paths": ["inventory/pricing/currency.py"]})
    assert "inventory/pricing/currency.py" in [a["path"] for a in location["anchors"]]
    hinted = session.discover(
        "prices are wrong",
        hints=deepdiscovery.Hints(paths=("inventory/pricing/currency.py",)),
    )
    assert "inventory/pricing/currency.py" in hinted.paths()
    with pytest.raises(deepdiscovery.ConfigError, match="unknown hint"):
        session.discover(TASK, hints={"files": ["a.py"]})


def test_an_in_memory_repository_works_like_a_directory():
    files = {
        "shop/payments.py": "from shop.gateways import StripeGateway\n\ndef charge(order):\n    return StripeGateway().charge(order)\n",
        "shop/gateways.py": "class StripeGateway:\n    def charge(self, order):\n        raise TimeoutError('stripe timed out')\n",
        "shop/catalog.py": "def list_products():\n    return []\n",
    }
    package = deepdiscovery.discover(files, "charge() fails with TimeoutError: stripe timed out")
    assert {"shop/payments.py", "shop/gateways.py"} <= set(package.paths())
    graph = deepdiscovery.Session(files).graph()
    assert ("shop/payments.py", "shop/gateways.py") in {(e[0], e[1]) for e in graph["edges"]}


def test_one_shot_functions():
    package = deepdiscovery.discover(FIXTURES / "locate_app", TASK, budget_tokens=3000)
    assert package.paths()[0] == "inventory/pricing/currency.py"
    location = deepdiscovery.locate(FIXTURES / "locate_app", TASK, anchors=3)
    assert len(location["anchors"]) == 3
