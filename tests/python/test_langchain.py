"""deepdiscovery.langchain against the real langchain-core (the optional extra)."""

from pathlib import Path

import pytest

langchain_core = pytest.importorskip("langchain_core")

import deepdiscovery  # noqa: E402
from deepdiscovery.langchain import DeepDiscoveryRetriever  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TASK = "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in `convert_currency`"


def test_the_retriever_returns_the_package_as_documents():
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever

    retriever = DeepDiscoveryRetriever.from_repo(FIXTURES / "locate_app", budget_tokens=3000)
    assert isinstance(retriever, BaseRetriever)
    docs = retriever.invoke(TASK)
    package = deepdiscovery.Session(FIXTURES / "locate_app").discover(TASK, budget_tokens=3000)
    assert all(isinstance(d, Document) for d in docs)
    assert [d.metadata["path"] for d in docs] == package.paths()
    first = docs[0]
    assert first.metadata["rank"] == 1 and first.metadata["anchor"] is True
    assert first.metadata["role"] == "source" and first.metadata["rationale"]
    assert first.metadata["view"] in ("metadata", "full_text", "spans")
    # The text the package gives, or the card for a metadata view.
    for d, f in zip(docs, package.files):
        if f.text is not None:
            assert d.page_content == f.text
        else:
            assert d.page_content.startswith(f"{f.path} ({f.role}")
    assert "def convert_currency" in first.page_content


def test_the_retriever_is_a_runnable_and_keeps_its_session():
    session = deepdiscovery.Session(FIXTURES / "locate_app")
    retriever = DeepDiscoveryRetriever(session=session, options={"anchors": 3})
    batch = retriever.batch([TASK, "`rebalance_shelves` moves the same items twice"])
    assert batch[0][0].metadata["path"] == "inventory/pricing/currency.py"
    assert batch[1][0].metadata["path"] == "inventory/warehouse.py"
    with pytest.raises(deepdiscovery.TaskError):
        retriever.invoke("   ")
