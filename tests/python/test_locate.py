"""The Location stage from Python."""

from pathlib import Path

import pytest

import deepdiscovery

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_locate_finds_the_file_defining_a_backticked_symbol():
    session = deepdiscovery.Session(FIXTURES / "locate_app")
    location = session.locate("`rebalance_shelves` moves the same items twice")
    first = location["anchors"][0]
    assert first["path"] == "inventory/warehouse.py"
    assert set(first["terms"]) == {"sem", "sum", "rule", "prior"}
    assert any("rebalance_shelves" in s for s in first["signals"])
    assert len(location["anchors"]) == 8
    assert location["ranked"][0]["path"] == first["path"]


def test_ablation_switches_reach_the_core():
    session = deepdiscovery.Session(FIXTURES / "locate_app")
    location = session.locate("`rebalance_shelves` moves items", no_rule=True)
    assert all(a["terms"]["rule"] >= 0 for a in location["anchors"])
    full = session.locate("`rebalance_shelves` moves items")
    assert [a["score"] for a in location["anchors"]] != [a["score"] for a in full["anchors"]]


def test_an_empty_task_is_a_value_error():
    session = deepdiscovery.Session(FIXTURES / "locate_app")
    with pytest.raises(ValueError):
        session.locate("   ")


def test_the_learned_scorer_is_the_default_and_paper_its_ablation():
    session = deepdiscovery.Session(FIXTURES / "locate_app")
    task = "`rebalance_shelves` moves the same items twice"
    learned = session.locate(task)
    assert learned["scorer"] == "learned"
    assert learned["anchors"][0]["signals"][0].startswith("learned score")
    paper = session.locate(task, preset="paper")
    assert paper["scorer"] == "eq6"
    assert not any("learned score" in s for a in paper["anchors"] for s in a["signals"])
    assert paper["anchors"][0]["path"] == learned["anchors"][0]["path"]


def test_where_to_look_names_the_method_and_says_why():
    session = deepdiscovery.Session(FIXTURES / "locate_app")
    task = "`rebalance_shelves` moves the same items twice"
    location = session.locate(task)
    first = location["definitions"][0]
    assert (first["path"], first["name"]) == ("inventory/warehouse.py", "Warehouse.rebalance_shelves")
    assert first["kind"] in ("function", "method")
    assert 1 <= first["span"]["start"] <= first["span"]["end"]
    assert "the task names `rebalance_shelves`" in first["why"]
    package = session.discover(task)
    assert package.definitions == location["definitions"]
    assert "## Where to look" in package.to_markdown()

