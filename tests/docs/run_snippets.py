"""Runs the code blocks of the README and of docs/ that are marked runnable.

    python tests/docs/run_snippets.py [FILE.md ...]    # default: README.md and docs/*.md

The convention: a fenced block is runnable when the line right before its opening
fence is the HTML comment ``<!-- test -->`` (invisible on GitHub). The comment may
name what the output must hold, separated by ``;``::

    <!-- test: inventory/pricing/currency.py; Budget: -->
    ```sh
    deepdiscovery discover "..." --repo tests/fixtures/locate_app --explain
    ```

A block fails when it exits with a non-zero status, or when its standard output lacks
one of the named texts. By the fence's language:

- ``python``: run by this interpreter (the test venv's, where the package is importable).
- ``sh``, ``shell``, ``bash``, ``console`` (without ``$`` prompts): run by ``sh -e``, with a
  ``deepdiscovery`` command on ``PATH`` (this interpreter's ``-m deepdiscovery``).
- ``c``: a whole program, compiled with ``gcc -std=c11 -Wall -Wextra -Werror`` against
  ``include/`` and the debug build's shared library (``target/debug``, as ``make
  test-c`` builds it; built here with ``cargo build -p deepdiscovery-ffi`` when missing,
  skipped when there is neither the library nor cargo), then run.
- ``rust``: not run here but checked to be the crate's own doctest: its lines must appear,
  in order and together, in a code block of the ``//!`` docs of
  ``deepdiscovery-core/src/lib.rs``, which ``cargo test -p deepdiscovery-core --doc``
  runs (lines starting ``# `` are hidden lines of rustdoc, ignored on both sides).
- ``json`` and ``toml``: parsed (configuration files an agent reads).

Every block runs in one scratch directory that holds a copy of the demo fixture at
``tests/fixtures/locate_app`` (outside any git work tree, so it has no history), with
the on-disk cache in ``$DEEPDISCOVERY_CACHE_DIR`` (a scratch one when unset). So a
snippet names the fixture as ``tests/fixtures/locate_app`` and may write files.
``tests/python/test_docs_snippets.py`` runs every block in ``make test``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = "tests/fixtures/locate_app"
LIB_RS = ROOT / "deepdiscovery-core" / "src" / "lib.rs"
MARKER = re.compile(r"^<!--\s*test(?::\s*(?P<expect>.*?))?\s*-->\s*$")
FENCE = re.compile(r"^(?P<fence>`{3,})(?P<lang>[\w+-]*)\s*$")
SHELLS = {"sh", "shell", "bash", "console"}
LANGUAGES = SHELLS | {"python", "c", "rust", "json", "toml"}
TIMEOUT_SECONDS = 120


@dataclass(frozen=True)
class Snippet:
    """One runnable block: where it is, its language, its text and what its output
    must hold."""

    file: Path
    line: int
    lang: str
    code: str
    expect: Tuple[str, ...]

    @property
    def name(self) -> str:
        try:
            where = self.file.relative_to(ROOT)
        except ValueError:
            where = self.file
        return f"{where}:{self.line}"


@dataclass(frozen=True)
class Outcome:
    """What running a snippet gave: ``ok``, ``skip`` or ``fail``, with the reason."""

    status: str
    detail: str = ""


def default_files() -> List[Path]:
    """The README and every page of docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def collect(files: Sequence[Path]) -> List[Snippet]:
    """The marked blocks of ``files``, in order. A marker not followed by a fence, or
    on a block of a language this runner cannot run, is an error: a check that
    silently runs nothing is worse than none."""
    snippets = []
    for file in files:
        lines = Path(file).read_text(encoding="utf-8").splitlines()
        i = 0
        while i < len(lines):
            marker = MARKER.match(lines[i])
            if not marker:
                i += 1
                continue
            opening = FENCE.match(lines[i + 1]) if i + 1 < len(lines) else None
            if not opening:
                raise ValueError(f"{file}:{i + 1}: <!-- test --> must come right before a ``` fence")
            lang = opening.group("lang")
            if lang not in LANGUAGES:
                raise ValueError(f"{file}:{i + 2}: cannot run a block of language {lang!r}")
            end = i + 2
            while end < len(lines) and lines[end].strip() != opening.group("fence"):
                end += 1
            if end == len(lines):
                raise ValueError(f"{file}:{i + 2}: the block is not closed")
            expect = tuple(
                part.strip() for part in (marker.group("expect") or "").split(";") if part.strip()
            )
            code = "\n".join(lines[i + 2 : end]) + "\n"
            snippets.append(Snippet(Path(file), i + 2, lang, code, expect))
            i = end + 1
    return snippets


def prepare(workdir: Path) -> dict:
    """Fills the scratch directory (the fixture, a ``deepdiscovery`` command) and
    returns the environment the snippets run in."""
    target = workdir / FIXTURE
    if not target.exists():
        shutil.copytree(ROOT / FIXTURE, target)
    bin_dir = workdir / "bin"
    bin_dir.mkdir(exist_ok=True)
    command = bin_dir / "deepdiscovery"
    command.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m deepdiscovery "$@"\n', encoding="utf-8")
    command.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("DEEPDISCOVERY_CACHE_DIR", str(workdir / "cache"))
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run(snippet: Snippet, workdir: Path, env: Optional[dict] = None) -> Outcome:
    """Runs one snippet in ``workdir`` (prepared by :func:`prepare`)."""
    env = env if env is not None else prepare(workdir)
    source = workdir / ("snippet_" + re.sub(r"\W", "_", snippet.name))
    if snippet.lang == "json":
        return _parsed(snippet, json.loads)
    if snippet.lang == "toml":
        try:
            import tomllib
        except ModuleNotFoundError:
            return Outcome("skip", "no tomllib before Python 3.11")
        return _parsed(snippet, tomllib.loads)
    if snippet.lang == "rust":
        return _in_crate_docs(snippet)
    if snippet.lang == "python":
        source = source.with_suffix(".py")
        source.write_text(snippet.code, encoding="utf-8")
        command = [sys.executable, str(source)]
    elif snippet.lang in SHELLS:
        if re.search(r"^\s*\$ ", snippet.code, re.M):
            return Outcome("fail", "a runnable shell block holds commands only, without `$` prompts")
        source = source.with_suffix(".sh")
        source.write_text(snippet.code, encoding="utf-8")
        command = ["sh", "-e", str(source)]
    else:  # c
        built = _compile_c(snippet, source, env)
        if isinstance(built, Outcome):
            return built
        command = [str(built)]
    return _check(snippet, _execute(command, workdir, env))


def _parsed(snippet: Snippet, parse) -> Outcome:
    try:
        parse(snippet.code)
    except ValueError as e:
        return Outcome("fail", f"does not parse: {e}")
    return Outcome("ok")


def _doc_blocks() -> List[List[str]]:
    """The code blocks of lib.rs's ``//!`` docs, without rustdoc's hidden lines."""
    docs = []
    for line in LIB_RS.read_text(encoding="utf-8").splitlines():
        if not line.startswith("//!"):
            break
        docs.append(line[4:] if line.startswith("//! ") else line[3:])
    blocks, current = [], None
    for line in docs:
        if line.startswith("```"):
            if current is None:
                current = []
            else:
                blocks.append(current)
                current = None
        elif current is not None:
            current.append(line)
    return [_visible(block) for block in blocks]


def _visible(lines: Sequence[str]) -> List[str]:
    return [l.rstrip() for l in lines if l.strip() and not (l.startswith("# ") or l == "#")]


def _in_crate_docs(snippet: Snippet) -> Outcome:
    wanted = _visible(snippet.code.splitlines())
    for block in _doc_blocks():
        for start in range(len(block) - len(wanted) + 1):
            if block[start : start + len(wanted)] == wanted:
                return Outcome("ok", "the crate's doctest (cargo test -p deepdiscovery-core --doc)")
    return Outcome(
        "fail",
        "not a doctest of deepdiscovery-core/src/lib.rs: copy the block there (or from there)",
    )


def _library_dir(env: dict) -> Optional[Path]:
    """The directory of the debug build's shared library, built when missing and cargo
    is at hand; None when there is neither."""
    target = Path(env.get("CARGO_TARGET_DIR") or ROOT / "target")
    if not target.is_absolute():
        target = ROOT / target
    lib = target / "debug" / "libdeepdiscovery.so"
    if not lib.is_file() and shutil.which("cargo", path=env.get("PATH")):
        subprocess.run(["cargo", "build", "-q", "-p", "deepdiscovery-ffi"], cwd=ROOT, env=env, check=False)
    return lib.parent if lib.is_file() else None


def _compile_c(snippet: Snippet, source: Path, env: dict):
    libdir = _library_dir(env)
    if libdir is None:
        return Outcome("skip", "no built C library and no cargo to build it")
    if shutil.which("gcc", path=env.get("PATH")) is None:
        return Outcome("skip", "no gcc")
    source = source.with_suffix(".c")
    source.write_text(snippet.code, encoding="utf-8")
    exe = source.with_suffix("")
    compiled = _execute(
        [
            "gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", f"-I{ROOT / 'include'}",
            str(source), f"-L{libdir}", "-ldeepdiscovery", f"-Wl,-rpath,{libdir}", "-o", str(exe),
        ],
        source.parent,
        env,
    )
    if compiled.returncode != 0:
        return Outcome("fail", f"does not compile:\n{compiled.stderr}")
    return exe


def _execute(command: Sequence[str], cwd: Path, env: dict) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(
            command, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT_SECONDS
        )
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(command, -1, e.stdout or "", f"timed out after {TIMEOUT_SECONDS} s")


def _check(snippet: Snippet, done: subprocess.CompletedProcess) -> Outcome:
    if done.returncode != 0:
        return Outcome(
            "fail",
            f"exit status {done.returncode}\n--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}",
        )
    missing = [text for text in snippet.expect if text not in done.stdout]
    if missing:
        return Outcome("fail", f"the output lacks {missing!r}\n--- stdout\n{done.stdout[-3000:]}")
    return Outcome("ok")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="Markdown files (default: README.md, docs/*.md)")
    parser.add_argument("--list", action="store_true", help="list the runnable blocks only")
    args = parser.parse_args(argv)
    snippets = collect([f.resolve() for f in args.files] or default_files())
    if args.list:
        for s in snippets:
            print(f"{s.name} {s.lang}{'  expects ' + '; '.join(s.expect) if s.expect else ''}")
        return 0
    failed = 0
    with tempfile.TemporaryDirectory(prefix="deepdiscovery-snippets-") as tmp:
        workdir = Path(tmp)
        env = prepare(workdir)
        for snippet in snippets:
            started = time.monotonic()
            outcome = run(snippet, workdir, env)
            failed += outcome.status == "fail"
            print(f"{outcome.status:4} {snippet.name} {snippet.lang} ({time.monotonic() - started:.1f} s)")
            if outcome.status != "ok" and outcome.detail:
                print("     " + outcome.detail.replace("\n", "\n     "))
    print(f"{len(snippets)} blocks, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
