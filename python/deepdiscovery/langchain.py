"""A LangChain retriever over deepdiscovery (the optional extra
``deepdiscovery[langchain]``, which installs ``langchain-core``).

>>> from deepdiscovery.langchain import DeepDiscoveryRetriever
>>> retriever = DeepDiscoveryRetriever.from_repo("path/to/repo", budget_tokens=8000)  # doctest: +SKIP
>>> docs = retriever.invoke("Orders never send the confirmation email")              # doctest: +SKIP

The query is the task; the answer is one ``Document`` per file of the context package,
best first. Its ``page_content`` is what the package gives of the file (the whole
text, the chosen spans, or its metadata card); its ``metadata`` holds the path, role,
language, score, rank, view kind, whether it is an anchor, and why it was included.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "deepdiscovery.langchain needs langchain-core: pip install 'deepdiscovery[langchain]'"
    ) from e

from pydantic import ConfigDict

from deepdiscovery.package import ContextFile, retrieved

__all__ = ["DeepDiscoveryRetriever", "file_document"]


def file_document(file: ContextFile, rank: int) -> Document:
    """The ``Document`` of one package file (``source`` is its path, as loaders say)."""
    content, metadata = retrieved(file, rank)
    return Document(page_content=content, metadata={**metadata, "source": file.path})


class DeepDiscoveryRetriever(BaseRetriever):
    """Retrieves the complete task-level context of a task from a repository session.

    ``session`` is a :class:`deepdiscovery.Session`; ``options`` are the query's
    overrides (``budget_tokens``, ``anchors``, ``preset``, … as for
    ``Session.discover``)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    session: Any
    options: Dict[str, Any] = {}

    @classmethod
    def from_repo(cls, repo: Any, **options: Any) -> "DeepDiscoveryRetriever":
        """A retriever over a new session on ``repo`` (a path or a dict of files)."""
        import deepdiscovery

        return cls(session=deepdiscovery.Session(repo), options=options)

    def _get_relevant_documents(
        self, query: str, *, run_manager: Optional[CallbackManagerForRetrieverRun] = None
    ) -> List[Document]:
        package = self.session.discover(query, **self.options)
        return [file_document(f, rank) for rank, f in enumerate(package.files, 1)]
