"""The package as a picture: an SVG of its files and the relations among them.

The same graph as the Mermaid diagram that ends the package's Markdown (the core's
``ContextPackage::to_mermaid``): one box per selected file, best first, anchors drawn
apart, one arrow per relation kind between two files. Notebooks cannot run Mermaid
everywhere, so ``ContextPackage._repr_html_`` shows this SVG instead.

The layout is layered and deterministic: the anchors form the first layer, every other
file sits in the layer of its distance (in relations) from the nearest anchor, files no
relation reaches come last; within a layer files keep their rank. Paths are untrusted
input: every text is escaped, characters XML cannot hold are replaced, long paths are
shortened (the full path is in the box's tooltip) and at most :data:`MAX_FILES` files and
:data:`MAX_RELATIONS` relations are drawn, with a note saying how many were left out.
The same package always gives the same bytes.
"""

from __future__ import annotations

import html
import math
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

__all__ = ["ANCHOR_FILL", "FILE_FILL", "MAX_FILES", "MAX_RELATIONS", "to_svg"]

#: The most files drawn: the first ones by rank.
MAX_FILES = 40
#: The most relations drawn, each (from, to, kind) once; as many as the Mermaid diagram.
MAX_RELATIONS = 40
#: The fill of an anchor's box.
ANCHOR_FILL = "#ffd166"
#: The fill of every other file's box.
FILE_FILL = "#bfdbf7"

_ANCHOR_STROKE = "#b7791f"
_FILE_STROKE = "#3d6e9e"
_EDGE = "#5f6b7a"
_PER_ROW = 4
_BOX_W, _BOX_H = 264, 44
_GAP_X, _GAP_Y = 36, 64
_MARGIN = 20
_HEADING = 22
_LABEL_CHARS = 34  # what fits in a box at 12px monospace (about 7.2px a character)
_TITLE_CHARS = 1000
_FONT = "ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace"

# XML 1.0 cannot hold these even as character references; the bidi controls could make
# a drawn path read as another one.
_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]")

_Edge = Tuple[int, int, str, Dict[str, Any]]  # from, to (file indexes), kind, the relation


def _text(value: Any, limit: int) -> str:
    """``value`` as escaped text for the SVG: unsafe characters replaced, line breaks
    flattened, at most ``limit`` characters (the end kept, as it names the file)."""
    text = _UNSAFE.sub("\ufffd", str(value)).replace("\n", " ").replace("\r", " ").replace("\t", " ")
    if len(text) > limit:
        text = "…" + text[len(text) - limit + 1 :]
    return html.escape(text, quote=True)


def _num(x: float) -> str:
    """A coordinate, written the same way every time."""
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _edges(files: Sequence[Dict[str, Any]], relations: Sequence[Any]) -> Tuple[List[_Edge], int]:
    """The relations between two drawn files, each (from, to, kind) once, at most
    :data:`MAX_RELATIONS` of them; and how many such relations were left out."""
    index: Dict[str, int] = {}
    for k, f in enumerate(files):
        index.setdefault(str(f.get("path", "")), k)
    edges: List[_Edge] = []
    seen = set()
    left_out = 0
    for r in relations:
        if not isinstance(r, dict):
            continue
        a, b = index.get(str(r.get("from", ""))), index.get(str(r.get("to", "")))
        kind = str(r.get("relation", ""))
        # A file related to itself says nothing in a picture of how files connect.
        if a is None or b is None or a == b or (a, b, kind) in seen:
            continue
        seen.add((a, b, kind))
        if len(edges) < MAX_RELATIONS:
            edges.append((a, b, kind, r))
        else:
            left_out += 1
    return edges, left_out


def _layers(files: Sequence[Dict[str, Any]], edges: Sequence[_Edge]) -> List[Tuple[str, List[int]]]:
    """The files grouped by their distance from the anchors (relations taken either
    way), each layer with its heading and its files in rank order."""
    neighbours: List[List[int]] = [[] for _ in files]
    for a, b, _, _ in edges:
        neighbours[a].append(b)
        neighbours[b].append(a)
    anchors = [k for k, f in enumerate(files) if f.get("anchor") is True]
    roots = anchors or ([0] if files else [])
    distance: List[Optional[int]] = [None] * len(files)
    frontier = roots
    for k in roots:
        distance[k] = 0
    step = 0
    while frontier:
        step += 1
        reached = []
        for k in frontier:
            for n in neighbours[k]:
                if distance[n] is None:
                    distance[n] = step
                    reached.append(n)
        frontier = reached
    layers: List[Tuple[str, List[int]]] = []
    for d in range(step):
        members = [k for k in range(len(files)) if distance[k] == d]
        if not members:
            continue
        if d == 0:
            heading = "anchors" if anchors else "best file"
        else:
            heading = f"{d} relation{'s' if d > 1 else ''} from the {'anchors' if anchors else 'best file'}"
        layers.append((heading, members))
    unreached = [k for k in range(len(files)) if distance[k] is None]
    if unreached:
        layers.append((f"no relation to the {'anchors' if anchors else 'best file'}", unreached))
    return layers


class _Grid:
    """Where each drawn file's box sits: rows of at most ``_PER_ROW`` boxes, each layer
    starting a new row under its heading, with gutters between rows and columns that
    the arrows run in."""

    def __init__(self, layers: Sequence[Tuple[str, List[int]]], count: int, top: float) -> None:
        self.cell: List[Tuple[int, int]] = [(0, 0)] * count  # (column, row) of each file
        self.row_top: List[float] = []
        self.headings: List[Tuple[float, str]] = []
        y = top
        for heading, members in layers:
            self.headings.append((y + 14, heading))
            y += _HEADING
            for start in range(0, len(members), _PER_ROW):
                for col, k in enumerate(members[start : start + _PER_ROW]):
                    self.cell[k] = (col, len(self.row_top))
                self.row_top.append(y)
                y += _BOX_H + _GAP_Y
        self.columns = min(_PER_ROW, max((len(m) for _, m in layers), default=1))
        self.width = max(2 * _MARGIN + _GAP_X + self.columns * (_BOX_W + _GAP_X), 360)
        self.height = (y - _GAP_Y if layers else y) + _MARGIN

    def x(self, k: int) -> float:
        """The left side of file ``k``'s box; a gutter lies left of the first column."""
        return _MARGIN + _GAP_X + self.cell[k][0] * (_BOX_W + _GAP_X)

    def y(self, k: int) -> float:
        """The top of file ``k``'s box."""
        return self.row_top[self.cell[k][1]]

    def gutter_y(self, row: int) -> float:
        """The middle of the free band under ``row`` (above any heading of the next)."""
        return self.row_top[row] + _BOX_H + _GAP_Y / 2 - 6

    def gutter_x(self, column: int) -> float:
        """The middle of the gutter left of ``column``."""
        return _MARGIN + _GAP_X / 2 + column * (_BOX_W + _GAP_X)


def _route(grid: _Grid, a: int, b: int, fan: float, lane: int) -> Tuple[str, float, float]:
    """The path of an arrow from file ``a`` to file ``b`` and where its label goes.

    Arrows only run in gutters, never across a box: within a row they dip into the band
    below it; between neighbouring rows they cross the band between them; farther they
    go along a band, down or up a column gutter (in the ``lane`` of their pair of
    files) and along the band by the target. Each end sits on the side facing the
    other file, shifted towards it and by ``fan`` so that arrows between the same two
    files stay apart."""
    (ca, ra), (cb, rb) = grid.cell[a], grid.cell[b]
    acx, bcx = grid.x(a) + _BOX_W / 2, grid.x(b) + _BOX_W / 2
    reach = _BOX_W / 2 - 14
    ax = acx + max(-reach, min(reach, 0.3 * (bcx - acx) + fan))
    bx = bcx + max(-reach, min(reach, 0.3 * (acx - bcx) + fan))
    if ra == rb:
        ay = grid.y(a) + _BOX_H
        depth = min(30.0 + 12.0 * (abs(ca - cb) - 1) + abs(fan), 72.0)
        low = ay + depth
        path = f"M{_num(ax)} {_num(ay)} C{_num(ax)} {_num(low)} {_num(bx)} {_num(low)} {_num(bx)} {_num(ay)}"
        return path, (ax + bx) / 2, ay + 0.75 * depth
    down = rb > ra
    ay = grid.y(a) + (_BOX_H if down else 0)
    by = grid.y(b) + (0 if down else _BOX_H)
    if abs(ra - rb) == 1:
        my = grid.gutter_y(min(ra, rb))
        path = f"M{_num(ax)} {_num(ay)} C{_num(ax)} {_num(my)} {_num(bx)} {_num(my)} {_num(bx)} {_num(by)}"
        return path, (ax + bx) / 2, my
    shift = 6.0 * (lane % 3 - 1) + fan / 4
    ya = grid.gutter_y(ra if down else ra - 1) + shift
    yb = grid.gutter_y(rb - 1 if down else rb) + shift
    gutters = range(grid.columns + 1)
    gx = min(gutters, key=lambda g: (abs(grid.gutter_x(g) - acx) + abs(grid.gutter_x(g) - bcx), g))
    x = grid.gutter_x(gx) + shift
    points = [(ax, ay), (ax, ya), (x, ya), (x, yb), (bx, yb), (bx, by)]
    path = "M" + " L".join(f"{_num(px)} {_num(py)}" for px, py in points)
    return path, (ax + x) / 2, ya - 10  # above its leg: the lanes run under it


def to_svg(package: Dict[str, Any]) -> str:
    """The package (its ``to_dict()``, the shared JSON schema) drawn as a standalone SVG
    document: a box per file (shortened path, rank, role; anchors in
    :data:`ANCHOR_FILL`, other files in :data:`FILE_FILL`; the full path as tooltip)
    and an arrow per relation, labelled with its kind. Deterministic; every text escaped."""
    all_files = [f for f in package.get("files") or () if isinstance(f, dict)]
    files = all_files[:MAX_FILES]
    edges, relations_left_out = _edges(files, package.get("relations") or ())
    notes = []
    if len(all_files) > len(files):
        left_out = len(all_files) - len(files)
        notes.append(f"{left_out} more files not drawn (the first {MAX_FILES} by rank are)")
    if relations_left_out:
        notes.append(f"{relations_left_out} more relations not drawn")
    if not files:
        notes.append("no files selected")
    grid = _Grid(_layers(files, edges), len(files), _MARGIN + 24 + 18 * len(notes))
    width, height = grid.width, _num(grid.height)

    title = f"Context package: {len(all_files)} files, {len(edges) + relations_left_out} relations"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="deepdiscovery-picture" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="{_text(title, 200)}" '
        f'font-family="{_text(_FONT, 200)}" font-size="12" style="max-width:100%;height:auto">',
        f"<title>{_text(title, 200)}</title>",
        '<defs><marker id="deepdiscovery-arrow" viewBox="0 0 10 10" refX="10" refY="5" '
        'markerWidth="7" markerHeight="7" orient="auto">'
        f'<path d="M0 0L10 5L0 10z" fill="{_EDGE}"/></marker></defs>',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<g class="legend"><rect x="{_MARGIN}" y="{_MARGIN}" width="14" height="14" fill="{ANCHOR_FILL}" '
        f'stroke="{_ANCHOR_STROKE}"/><text x="{_MARGIN + 20}" y="{_MARGIN + 11}">anchor</text>'
        f'<rect x="{_MARGIN + 90}" y="{_MARGIN}" width="14" height="14" fill="{FILE_FILL}" '
        f'stroke="{_FILE_STROKE}"/><text x="{_MARGIN + 110}" y="{_MARGIN + 11}">other file</text>'
        f'<text x="{_MARGIN + 210}" y="{_MARGIN + 11}" fill="{_EDGE}">'
        "arrow: a relation, from → to</text></g>",
    ]
    for n, note in enumerate(notes):
        out.append(
            f'<text class="note" x="{_MARGIN}" y="{_MARGIN + 34 + 18 * n}" fill="#8a3b12">'
            f"{_text(note, 200)}</text>"
        )
    for y, heading in grid.headings:
        out.append(
            f'<text class="layer" x="{_MARGIN + _GAP_X}" y="{_num(y)}" fill="#555555" '
            f'font-style="italic">{_text(heading, 80)}</text>'
        )

    # Arrows under the boxes; one label per pair of files, naming every kind between
    # them, over the boxes.
    pairs: Dict[Tuple[int, int], List[str]] = {}  # the kinds between two files, in order
    spots: Dict[Tuple[int, int], Tuple[float, float]] = {}  # where their label goes
    lanes: Dict[Tuple[int, int], int] = {}
    for a, b, kind, r in edges:
        pair = (min(a, b), max(a, b))
        lane = lanes.setdefault(pair, len(lanes))
        kinds = pairs.setdefault(pair, [])
        k = len(kinds)  # arrows already drawn between the two: fan this one out
        fan = 12.0 * ((k + 1) // 2) * (1 if k % 2 else -1)
        path, lx, ly = _route(grid, a, b, fan, lane)
        spots.setdefault(pair, (lx, ly))
        kinds.append(kind)
        tip = (
            f"{files[a].get('path', '')} —{kind}→ {files[b].get('path', '')}"
            f" ({_confidence(r.get('confidence'))}): {r.get('rationale', '')}"
        )
        out.append(
            f'<g class="edge"><title>{_text(tip, _TITLE_CHARS)}</title><path d="{path}" fill="none" '
            f'stroke="{_EDGE}" stroke-width="1.4" marker-end="url(#deepdiscovery-arrow)"/></g>'
        )
    for k, f in enumerate(files):
        x, y = grid.x(k), grid.y(k)
        anchor = f.get("anchor") is True
        fill, stroke = (ANCHOR_FILL, _ANCHOR_STROKE) if anchor else (FILE_FILL, _FILE_STROKE)
        caption = f"#{k + 1} · {_text(f.get('role', ''), 20)}{' · anchor' if anchor else ''}"
        out.append(
            f'<g class="node{" anchor" if anchor else ""}">'
            f'<title>{_text(f.get("path", ""), _TITLE_CHARS)}</title>'
            f'<rect x="{_num(x)}" y="{_num(y)}" width="{_BOX_W}" height="{_BOX_H}" rx="6" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="{2.5 if anchor else 1.2}"/>'
            f'<text x="{_num(x + 8)}" y="{_num(y + 18)}" fill="#111111">'
            f'{_text(f.get("path", ""), _LABEL_CHARS)}</text>'
            f'<text x="{_num(x + 8)}" y="{_num(y + 35)}" fill="#444444" font-size="10">{caption}</text></g>'
        )
    for pair, kinds in pairs.items():
        lx, ly = spots[pair]
        out.append(
            f'<text class="edge-label" x="{_num(lx)}" y="{_num(ly + 4)}" text-anchor="middle" font-size="10" '
            f'fill="#333333" stroke="#ffffff" stroke-width="3" paint-order="stroke">'
            f'{_text(", ".join(dict.fromkeys(kinds)), 40)}</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _confidence(value: Any) -> str:
    """A relation's confidence as two decimals, or ``?`` when it is not a number."""
    return f"{value:.2f}" if isinstance(value, (int, float)) and not isinstance(value, bool) else "?"
