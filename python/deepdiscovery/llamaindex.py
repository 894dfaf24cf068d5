"""A LlamaIndex retriever over deepdiscovery (the optional extra
``deepdiscovery[llamaindex]``, which installs ``llama-index-core``).

>>> from deepdiscovery.llamaindex import DeepDiscoveryRetriever
>>> retriever = DeepDiscoveryRetriever.from_repo("path/to/repo", budget_tokens=8000)  # doctest: +SKIP
>>> nodes = retriever.retrieve("Orders never send the confirmation email")           # doctest: +SKIP

The query is the task; the answer is one ``NodeWithScore`` per file of the context
package, best first, scored with the package's score. Each ``TextNode`` holds what
the package gives of the file (as ``deepdiscovery.langchain`` does) and the same
metadata (path, rank, role, language, score, anchor, view, rationale); its id is the
file's path.
"""

from __future__ import annotations

from typing import Any, List

try:
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "deepdiscovery.llamaindex needs llama-index-core: pip install 'deepdiscovery[llamaindex]'"
    ) from e

from deepdiscovery.package import ContextFile, retrieved

__all__ = ["DeepDiscoveryRetriever", "file_node"]


def file_node(file: ContextFile, rank: int) -> NodeWithScore:
    """The scored node of one package file."""
    content, metadata = retrieved(file, rank)
    return NodeWithScore(node=TextNode(id_=file.path, text=content, metadata=metadata), score=file.score)


class DeepDiscoveryRetriever(BaseRetriever):
    """Retrieves the complete task-level context of a task from a repository session.

    ``session`` is a :class:`deepdiscovery.Session`; ``options`` are the query's
    overrides (``budget_tokens``, ``anchors``, ``preset``, … as for
    ``Session.discover``)."""

    def __init__(self, session: Any, **options: Any) -> None:
        super().__init__()
        self.session = session
        self.options = options

    @classmethod
    def from_repo(cls, repo: Any, **options: Any) -> "DeepDiscoveryRetriever":
        """A retriever over a new session on ``repo`` (a path or a dict of files)."""
        import deepdiscovery

        return cls(deepdiscovery.Session(repo), **options)

    def _retrieve(self, query_bundle: QueryBundle) -> List[NodeWithScore]:
        package = self.session.discover(query_bundle.query_str, **self.options)
        return [file_node(f, rank) for rank, f in enumerate(package.files, 1)]
