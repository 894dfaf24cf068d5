"""The vocabulary bridge's training corpus: mined task -> changed-file pairs with the
terms of the task and of each changed source file, as the Location stage counts them.

    python3 benches/bridge_corpus.py [--mirrors DIR] --pairs PAIRS.jsonl \
        --terms target/release/examples/bridge_terms --out CORPUS.jsonl \
        [--exclude TASKS.jsonl ...]

PAIRS is the miner's output (`benches/mine_tasks.py --any-commit --gold-files 1-10`).
Per task, each gold file that exists at the base commit and is source code (by
extension) is read at the base commit (what a retriever sees when the task is posed),
its first 256 KiB, binary files skipped; the task text and the files go through the
`bridge_terms` example (`cargo build --release -p deepdiscovery-core --example
bridge_terms`), so the trainer counts exactly the tokens the Rust pass counts.

`--exclude` drops every task whose commit (its id) or whose base commit and repository
appear in the given task files: the sets measured with the bridge stay out of its
training. Output: one line per kept task, `{"id", "repo", "language", "task": [[term,
count]], "files": [{"path", "terms": [[term, count]]}]}`, in the order of PAIRS.
Standard library only; needs `git`.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mine_tasks import CODE_EXTS, BlobReader, find_gitdir  # noqa: E402

MAX_BYTES = 256 * 1024


def excluded_keys(paths):
    keys = set()
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                t = json.loads(line)
                keys.add(t["id"])
                keys.add((t["repo"].lower(), t["base_commit"]))
    return keys


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirrors", default=os.environ.get("DD_EVAL_MIRRORS"),
                    help="the git mirrors (default $DD_EVAL_MIRRORS)")
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--terms", required=True, help="the bridge_terms example binary")
    ap.add_argument("--out", required=True)
    ap.add_argument("--exclude", nargs="*", default=[])
    args = ap.parse_args(argv)

    excluded = excluded_keys(args.exclude)
    by_repo = {}
    order = []
    with open(args.pairs, encoding="utf-8") as f:
        for line in f:
            t = json.loads(line)
            if t["id"] in excluded or (t["repo"].lower(), t["base_commit"]) in excluded:
                continue
            if t["repo"] not in by_repo:
                by_repo[t["repo"]] = []
                order.append(t["repo"])
            by_repo[t["repo"]].append(t)

    kept = files = 0
    with open(args.out, "w", encoding="utf-8") as out:
        for repo in order:
            gitdir = find_gitdir(args.mirrors, repo)
            if gitdir is None:
                print(f"warning: no git directory for {repo}", file=sys.stderr)
                continue
            blobs = BlobReader(gitdir)
            meta = {}
            with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".jsonl") as tmp:
                for t in by_repo[repo]:
                    new = set(t.get("gold_new_files", []))
                    texts = []
                    for path in t["gold_files"]:
                        if path in new or not path.lower().endswith(CODE_EXTS):
                            continue
                        data = blobs.head(f"{t['base_commit']}:{path}", MAX_BYTES)
                        if data is None or b"\0" in data[:8192]:
                            continue
                        text = data.decode("utf-8", errors="replace")
                        texts.append({"path": path, "text": text})
                    if not texts:
                        continue
                    meta[t["id"]] = (t["repo"], t["language"])
                    tmp.write(json.dumps({"id": t["id"], "task": t["task"], "files": texts}) + "\n")
                tmp.flush()
                blobs.close()
                with open(tmp.name, "rb") as pairs:
                    result = subprocess.run([args.terms], stdin=pairs, capture_output=True,
                                            check=True)
            for line in result.stdout.decode("utf-8").splitlines():
                row = json.loads(line)
                repo_name, language = meta[row["id"]]
                out.write(json.dumps({"id": row["id"], "repo": repo_name, "language": language,
                                      "task": row["task"], "files": row["files"]}) + "\n")
                kept += 1
                files += len(row["files"])
            print(f"{repo:45s} {len(meta):5d} pairs", file=sys.stderr, flush=True)
    print(f"wrote {kept} tasks with {files} source files to {args.out}")


if __name__ == "__main__":
    sys.exit(main())
