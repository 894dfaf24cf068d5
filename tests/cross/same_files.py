"""The three surfaces agree: the C library, the Python package and the Rust crate return
the same ranked context files for the same task on the same repository.

Run by `make test-cross` (part of `make test`) after the C example is built:

    python tests/cross/same_files.py C_EXAMPLE REPO TASK

It runs the C example (`tests/c/example.c`, linked through pkg-config), the Python
package (`deepdiscovery.discover`) and the Rust example (`cargo run --example discover
-- --json`), and exits non-zero, printing the three lists, when they differ.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import List

import deepdiscovery


def from_c(example: str, repo: str, task: str) -> List[str]:
    """The C example's "context package:" lines are the package's files, in order; its
    `*`-marked ranking lines must be the same files."""
    out = subprocess.run([example, repo, task], check=True, capture_output=True, text=True).stdout
    files: List[str] = []
    marked: List[str] = []
    section = None
    for line in out.splitlines():
        if line.endswith(":") and not line[:1].isspace():
            section = line
            continue
        parts = line.split()
        if not parts or not parts[0].rstrip(".").isdigit():
            continue
        if section == "context package:" and len(parts) == 2:
            files.append(parts[1])
        elif section == "ranked files:" and len(parts) >= 3 and parts[1] == "*":
            marked.append(parts[2])
    if sorted(marked) != sorted(files):
        print(f"C: the ranking marks {marked}, the package holds {files}", file=sys.stderr)
        return []
    return files


def from_rust(repo: str, task: str) -> List[str]:
    out = subprocess.run(
        ["cargo", "run", "-q", "-p", "deepdiscovery-core", "--example", "discover", "--", "--json", repo, task],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [f["path"] for f in json.loads(out)["files"]]


def main(argv: List[str]) -> int:
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    example, repo, task = argv[1:]
    lists = {
        "C": from_c(example, repo, task),
        "Python": deepdiscovery.discover(repo, task).paths(),
        "Rust": from_rust(repo, task),
    }
    if not lists["C"]:
        print("the C example returned no files", file=sys.stderr)
        return 1
    if lists["C"] == lists["Python"] == lists["Rust"]:
        print(f"C, Python and Rust agree on {len(lists['C'])} files: {', '.join(lists['C'])}")
        return 0
    for name, files in lists.items():
        print(f"{name:>6}: {files}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
