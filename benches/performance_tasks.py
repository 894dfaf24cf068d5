"""The performance-like tasks of mined task sets (issue 34's measurement): tasks whose
text says slow, memory, hang, timeout or leak, minus the tasks of the sets a learned
model trained on.

    python3 benches/performance_tasks.py --out PERF.jsonl --from MINED.jsonl ... \
        [--exclude TRAINED.jsonl ...] [--exclude-repos REPOS.txt] [--per-repo N]

Reads tasks as `benches/mine_tasks.py` writes them and keeps, in order, each task of
the --from files whose `task` text matches PATTERN (case-insensitive, whole words),
whose id is in no --exclude file and was not kept already, whose repository is not
listed in --exclude-repos (`owner/name` first on a line, `#` comments; e.g. the
repositories an embedder trained on, `benches/embedder_repos.txt`), and at most N of a
repository (--per-repo; all without it). Prints how many tasks of how many repositories
were kept.
"""

import argparse
import json
import re
import sys

PATTERN = re.compile(
    r"\b(slow|slower|slowness|memory|hang|hangs|hanging|timeout|timeouts|leak|leaks|leaking)\b",
    re.IGNORECASE,
)


def read(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def repos_of(path):
    """The repositories of a list (`owner/name` first on a line, `#` comments), lowercased."""
    with open(path, encoding="utf-8") as f:
        return {line.split()[0].lower() for line in f if line.strip() and not line.startswith("#")}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--from", dest="sources", nargs="+", required=True)
    ap.add_argument("--exclude", nargs="*", default=[])
    ap.add_argument("--exclude-repos", help="repositories left out, one a line")
    ap.add_argument("--per-repo", type=int, default=0, help="at most N tasks a repository")
    args = ap.parse_args(argv)
    seen = {t["id"] for path in args.exclude for t in read(path)}
    banned = repos_of(args.exclude_repos) if args.exclude_repos else set()
    kept, per_repo = [], {}
    for path in args.sources:
        for t in read(path):
            if t["id"] in seen or not PATTERN.search(t.get("task", "")):
                continue
            if t["repo"].lower() in banned:
                continue
            if args.per_repo and per_repo.get(t["repo"], 0) >= args.per_repo:
                continue
            per_repo[t["repo"]] = per_repo.get(t["repo"], 0) + 1
            seen.add(t["id"])
            kept.append(t)
    with open(args.out, "w", encoding="utf-8") as f:
        for t in kept:
            f.write(json.dumps(t) + "\n")
    print(f"{len(kept)} performance-like tasks of {len({t['repo'] for t in kept})} repositories")


if __name__ == "__main__":
    sys.exit(main())
