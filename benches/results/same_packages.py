"""Whether two `eval_tasks --json` runs returned the same packages, task by task, with
the timing fields left out: the check behind "byte-identical" in the results and the
closing notes (a refactor must not change a package).

    python3 benches/results/same_packages.py BEFORE.jsonl AFTER.jsonl

Prints the number of tasks in each run and the ids of the tasks whose records differ
(exit 1 when any does).
"""

import json
import sys

TIMING = ("discover_ms", "total_ms", "budget", "cost")


def without_timing(value):
    if isinstance(value, dict):
        return {k: without_timing(v) for k, v in value.items() if k not in ("millis", "ms")}
    if isinstance(value, list):
        return [without_timing(v) for v in value]
    return value


def load(path):
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            for key in TIMING:
                record.pop(key, None)
            out[record["id"]] = json.dumps(without_timing(record), sort_keys=True)
    return out


def main():
    before, after = load(sys.argv[1]), load(sys.argv[2])
    differ = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    print(f"{len(before)} and {len(after)} tasks; {len(differ)} differ: {differ[:10]}")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
