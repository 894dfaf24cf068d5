"""The package as a picture: the SVG of its files and relations, and that a browser draws it."""

import copy
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

import deepdiscovery
from deepdiscovery import picture
from deepdiscovery.package import ContextPackage

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TASK = "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in `convert_currency`"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def package() -> ContextPackage:
    return deepdiscovery.Session(FIXTURES / "locate_app").discover(TASK, budget_tokens=4000)


def parse(svg: str) -> ET.Element:
    """The SVG parsed as XML: this fails unless it is well-formed."""
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg"
    return root


def groups(root: ET.Element, kind: str) -> List[ET.Element]:
    return [g for g in root.iter(SVG + "g") if kind in g.get("class", "").split()]


def titles(root: ET.Element, kind: str) -> List[str]:
    return [g.findtext(SVG + "title") or "" for g in groups(root, kind)]


def synthetic(files: int, relations: List[Tuple[int, int, str]], anchors=(0,)) -> Dict:
    paths = [f"src/m{k}.py" for k in range(files)]
    return {
        "files": [{"path": p, "role": "source", "anchor": k in anchors} for k, p in enumerate(paths)],
        "relations": [
            {"from": paths[a], "to": paths[b], "relation": kind, "confidence": 1.0, "rationale": "r"}
            for a, b, kind in relations
        ],
    }


def test_every_file_is_a_node_and_every_relation_an_edge(package):
    root = parse(package.to_svg())
    assert titles(root, "node") == package.paths()
    anchors = [f.path for f in package.files if f.anchor]
    assert [g.findtext(SVG + "title") for g in groups(root, "anchor")] == anchors
    drawn = {(r["from"], r["to"], r["relation"]) for r in package.relations if r["from"] != r["to"]}
    assert len(groups(root, "edge")) == len(drawn) > 0
    for a, b, kind in drawn:
        assert any(t.startswith(f"{a} —{kind}→ {b} (") for t in titles(root, "edge"))


def test_the_notebook_view_starts_with_the_picture(package):
    page = package._repr_html_()
    assert page.startswith("<div><svg ")
    assert page.index("</svg>") < page.index("<table>") < page.index("<details>")


def test_edges_join_drawn_files_once_per_kind():
    data = synthetic(45, [(0, 1, "imports"), (0, 1, "imports"), (0, 1, "calls"), (1, 0, "imports"),
                          (2, 2, "calls"), (3, 44, "imports"), (44, 3, "calls")])
    root = parse(picture.to_svg(data))
    edges = [t.split(" (")[0] for t in titles(root, "edge")]
    assert edges == [
        "src/m0.py —imports→ src/m1.py",
        "src/m0.py —calls→ src/m1.py",
        "src/m1.py —imports→ src/m0.py",
    ]
    labels = [t.text for t in root.iter(SVG + "text") if t.get("class") == "edge-label"]
    assert labels == ["imports, calls"]


def test_hostile_paths_are_escaped_and_shortened():
    nasty = [
        'x/<script>alert("1")</script>.py',
        "a&b/'quoted'/\"double\".py",
        "ctl/\x00\x07\x1b[31m\ud800/new\nline\u202egnp.exe",
        "long/" + "n" * 10_000 + ".py",
        "]]><!--&amp;-->.py",
    ]
    data = {
        "files": [{"path": p, "role": "<b>role</b>", "anchor": k == 0} for k, p in enumerate(nasty)],
        "relations": [{"from": nasty[0], "to": nasty[1], "relation": "<imports>", "rationale": "</title>"}],
    }
    svg = picture.to_svg(data)
    assert "<script" not in svg and "<b>" not in svg and "<imports>" not in svg
    root = parse(svg)
    shown = titles(root, "node")
    assert shown[0] == nasty[0] and shown[1] == nasty[1] and shown[4] == nasty[4]
    assert "\x00" not in shown[2] and "\u202e" not in shown[2] and "\ufffd" in shown[2]
    assert len(shown[3]) <= 1000
    for node in groups(root, "node"):
        label = node.findall(SVG + "text")[0].text or ""
        assert len(label) <= 34
    assert titles(root, "edge")[0].startswith(f"{nasty[0]} —<imports>→ {nasty[1]}")


def test_the_same_package_gives_the_same_bytes(package):
    data = package.to_dict()
    assert picture.to_svg(data) == picture.to_svg(copy.deepcopy(data)) == package.to_svg()
    big = synthetic(60, [(k, (k * 7) % 60, "calls") for k in range(60)])
    assert picture.to_svg(big) == picture.to_svg(copy.deepcopy(big))


def test_at_most_forty_files_and_forty_relations_are_drawn():
    data = synthetic(1000, [(a, b, "calls") for a in range(10) for b in range(10)])
    svg = picture.to_svg(data)
    root = parse(svg)
    assert titles(root, "node") == [f"src/m{k}.py" for k in range(picture.MAX_FILES)]
    assert len(groups(root, "edge")) == picture.MAX_RELATIONS
    assert "960 more files not drawn" in svg and "50 more relations not drawn" in svg


def test_an_empty_package_and_one_without_anchors_draw():
    for data in ({}, {"files": [], "relations": []}):
        root = parse(picture.to_svg(data))
        assert groups(root, "node") == [] and "no files selected" in picture.to_svg(data)
    root = parse(picture.to_svg(synthetic(3, [(1, 0, "imports")], anchors=())))
    assert len(groups(root, "node")) == 3 and groups(root, "anchor") == []
    layers = [t.text for t in root.iter(SVG + "text") if t.get("class") == "layer"]
    assert layers == ["best file", "1 relation from the best file", "no relation to the best file"]


# The browser test: Chromium draws the notebook view and the boxes show in the screenshot.


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "chromium-headless-shell"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("no Chromium found (apt-get install chromium): the picture was not drawn in a browser")


def read_png(data: bytes) -> Tuple[int, int, List[bytes]]:
    """A non-interlaced 8-bit RGB or RGBA PNG as its width, height and rows of RGB bytes."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    assert header is not None
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    n = 3 if colour == 2 else 4
    stride = width * n
    raw = zlib.decompress(b"".join(idat))
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        if kind == 1:  # Sub
            for i in range(n, stride):
                line[i] = (line[i] + line[i - n]) & 255
        elif kind == 2:  # Up
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif kind == 3:  # Average
            for i in range(stride):
                left = line[i - n] if i >= n else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif kind == 4:  # Paeth
            for i in range(stride):
                a = line[i - n] if i >= n else 0
                b, c = prev[i], (prev[i - n] if i >= n else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        else:
            assert kind == 0, f"unknown PNG filter {kind}"
        rgb = bytes(line) if n == 3 else bytes(v for i, v in enumerate(line) if i % 4 != 3)
        rows.append(rgb)
        prev = line
    return width, height, rows


def boxes(rows: List[bytes], colour: str, min_run: int) -> int:
    """How many boxes of ``colour`` the image holds: runs of at least ``min_run`` pixels
    of it, grouped when they overlap and are at most a line of text apart."""
    pixel = bytes.fromhex(colour.lstrip("#"))
    found: List[List[int]] = []  # [left, right, last row] of each box
    for y, row in enumerate(rows):
        x, width = 0, len(row) // 3
        while x < width:
            if row[3 * x : 3 * x + 3] != pixel:
                x += 1
                continue
            start = x
            while x < width and row[3 * x : 3 * x + 3] == pixel:
                x += 1
            if x - start < min_run:
                continue
            box = next((b for b in found if start < b[1] and b[0] < x and y - b[2] <= 20), None)
            if box is None:
                found.append([start, x, y])
            else:
                box[:] = [min(box[0], start), max(box[1], x), y]
    return len(found)


def test_chromium_draws_the_nodes(package, tmp_path):
    browser = chromium()
    page = tmp_path / "package.html"
    page.write_text('<!doctype html><meta charset="utf-8">' + package._repr_html_(), encoding="utf-8")
    shot = tmp_path / "package.png"
    command = [
        browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
        f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", "--window-size=1200,900",
        page.as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert shot.exists(), f"Chromium wrote no screenshot (exit {done.returncode}): {done.stderr[-2000:]}"
    width, height, rows = read_png(shot.read_bytes())
    assert (width, height) == (1200, 900)
    anchors = sum(f.anchor for f in package.files)
    others = len(package.files) - anchors
    assert anchors and others
    # The boxes are 264 pixels wide, scaled down a little when the page is narrower.
    assert boxes(rows, picture.ANCHOR_FILL, 150) == anchors
    assert boxes(rows, picture.FILE_FILL, 150) == others
