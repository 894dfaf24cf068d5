"""The Python package opens a repository and returns its graph."""

from pathlib import Path

import pytest

import deepdiscovery

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_version_is_the_crate_version():
    assert deepdiscovery.__version__.count(".") == 2


def test_graph_of_the_python_fixture_has_rationalized_edges():
    graph = deepdiscovery.Session(FIXTURES / "python_app").graph()
    paths = {node[0] for node in graph["nodes"]}
    assert "src/shop/orders.py" in paths
    imports = {(e[0], e[1]) for e in graph["edges"] if e[2] == "imports"}
    assert ("src/shop/payments/stripe_gateway.py", "src/shop/payments/gateway.py") in imports
    for edge in graph["edges"]:
        assert 0.0 <= edge[3] <= 1.0
        assert edge[4]


def test_missing_root_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        deepdiscovery.Session(tmp_path / "nope")


def test_root_that_is_a_file_raises(tmp_path):
    f = tmp_path / "file.txt"
    f.write_text("x")
    with pytest.raises(NotADirectoryError):
        deepdiscovery.Session(f)
