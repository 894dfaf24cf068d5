"""The package as a picture: an SVG of its files and the relations among them.

Drawn by the core (``deepdiscovery_core::infer::picture``), the renderer every binding
shares: the same files and relations as the Mermaid diagram that ends the package's
Markdown (``ContextPackage::to_mermaid``), one box per selected file, best first,
anchors drawn apart, one arrow per relation kind between two files. Notebooks cannot
run Mermaid everywhere, so ``ContextPackage._repr_html_`` shows this SVG instead.

The layout is layered and deterministic: the anchors form the first layer, every other
file sits in the layer of its distance (in relations) from the nearest anchor, files no
relation reaches come last; within a layer files keep their rank. Paths are untrusted
input: every text is escaped, characters XML cannot hold are replaced, long paths are
shortened (the full path is in the box's tooltip) and at most :data:`MAX_FILES` files and
:data:`MAX_RELATIONS` relations are drawn, with a note saying how many were left out.
The same package always gives the same bytes.
"""

from __future__ import annotations

import json
import re
from typing import Any, Dict

from deepdiscovery import _native

__all__ = ["ANCHOR_FILL", "FILE_FILL", "MAX_FILES", "MAX_RELATIONS", "to_svg"]

#: The most files drawn: the first ones by rank.
MAX_FILES: int = _native.PICTURE_MAX_FILES
#: The most relations drawn, each (from, to, kind) once; as many as the Mermaid diagram.
MAX_RELATIONS: int = _native.PICTURE_MAX_RELATIONS
#: The fill of an anchor's box.
ANCHOR_FILL: str = _native.PICTURE_ANCHOR_FILL
#: The fill of every other file's box.
FILE_FILL: str = _native.PICTURE_FILE_FILL


def to_svg(package: Dict[str, Any]) -> str:
    """The package (its ``to_dict()``, the shared JSON schema, or any dict with ``files``
    and ``relations``) drawn as a standalone SVG document: a box per file (shortened
    path, rank, role; anchors in :data:`ANCHOR_FILL`, other files in :data:`FILE_FILL`;
    the full path as tooltip) and an arrow per relation, labelled with its kind.
    Deterministic; every text escaped. A missing field reads as empty, one of another
    type as its JSON text."""
    text = json.dumps(package, ensure_ascii=False, default=str)
    # A lone surrogate cannot cross into the core's UTF-8: it is drawn as U+FFFD.
    return _native.package_svg(_SURROGATE.sub("\ufffd", text))


_SURROGATE = re.compile("[\ud800-\udfff]")
