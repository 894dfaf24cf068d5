"""The performance-like tasks of mined task sets (issue 34's measurement): tasks whose
text says slow, memory, hang, timeout or leak, minus the tasks of the sets a learned
model trained on.

    python3 benches/performance_tasks.py --out PERF.jsonl --from MINED.jsonl ... \
        [--exclude TRAINED.jsonl ...]

Reads tasks as `benches/mine_tasks.py` writes them and keeps, in order, each task of
the --from files whose `task` text matches PATTERN (case-insensitive, whole words),
whose id is in no --exclude file and was not kept already. Prints how many tasks of how
many repositories were kept.
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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--from", dest="sources", nargs="+", required=True)
    ap.add_argument("--exclude", nargs="*", default=[])
    args = ap.parse_args(argv)
    seen = {t["id"] for path in args.exclude for t in read(path)}
    kept = []
    for path in args.sources:
        for t in read(path):
            if t["id"] in seen or not PATTERN.search(t.get("task", "")):
                continue
            seen.add(t["id"])
            kept.append(t)
    with open(args.out, "w", encoding="utf-8") as f:
        for t in kept:
            f.write(json.dumps(t) + "\n")
    print(f"{len(kept)} performance-like tasks of {len({t['repo'] for t in kept})} repositories")


if __name__ == "__main__":
    sys.exit(main())
