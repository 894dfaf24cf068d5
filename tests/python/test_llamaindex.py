"""deepdiscovery.llamaindex against the real llama-index-core (the optional extra)."""

from pathlib import Path

import pytest

pytest.importorskip("llama_index.core")

import deepdiscovery  # noqa: E402
from deepdiscovery.llamaindex import DeepDiscoveryRetriever  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TASK = "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in `convert_currency`"


def test_the_retriever_returns_the_package_as_scored_nodes():
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore

    retriever = DeepDiscoveryRetriever.from_repo(FIXTURES / "locate_app", budget_tokens=3000)
    assert isinstance(retriever, BaseRetriever)
    nodes = retriever.retrieve(TASK)
    package = deepdiscovery.Session(FIXTURES / "locate_app").discover(TASK, budget_tokens=3000)
    assert all(isinstance(n, NodeWithScore) for n in nodes)
    assert [n.node.node_id for n in nodes] == package.paths()
    assert [n.score for n in nodes] == [f.score for f in package.files]
    first = nodes[0].node
    assert first.metadata["rank"] == 1 and first.metadata["anchor"] is True
    assert "def convert_currency" in first.get_content()
    for n, f in zip(nodes, package.files):
        if f.text is None:
            assert n.node.get_content().startswith(f"{f.path} ({f.role}")


def test_a_bad_task_is_the_core_error():
    retriever = DeepDiscoveryRetriever(deepdiscovery.Session(FIXTURES / "locate_app"), anchors=3)
    with pytest.raises(deepdiscovery.TaskError):
        retriever.retrieve("   ")
