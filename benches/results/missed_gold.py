"""Where the gold files a package missed are, from `eval_tasks --json` runs of
`discover`, and what adding the next ranked files to every package would give.

    python3 benches/results/missed_gold.py [--multi] RUN.jsonl [RUN.jsonl ...]

Per run:
- the missed gold files (existing at the base commit, not in the package) by their
  rank in `ranked_files` (9–16, 17–32, 33–64, beyond or unranked), how many tasks
  have no gold file in the package, and how many missed files are build, API and
  configuration files (by extension or name), or else documentation (`.md`, `.rst`,
  `.txt`);
- for k = 0..4, set FRR, micro recall and precision, and mean files, when the first k
  unselected entries of the run's `top` (the head of `ranked_files`) join every
  package.

`--multi` keeps the tasks with at least two such gold files only.
"""

import json
import os
import sys

DOCS = (".md", ".rst", ".txt")
BUILD_EXTS = (".api", ".csproj", ".kts", ".gradle", ".toml", ".json", ".yml", ".yaml", ".xml")
BUILD_NAMES = ("Makefile", "Gemfile", "CMakeLists.txt", "gradlew", ".gitignore")


def tasks_of(path, multi):
    with open(path, encoding="utf-8") as f:
        for line in f:
            run = json.loads(line)
            if run.get("status") not in (None, "ok") or "in_set" not in run:
                continue
            new = set(run["gold_new_files"])
            gold = [
                (g, r, s)
                for g, r, s in zip(run["gold_files"], run["ranks"], run["in_set"])
                if g not in new
            ]
            if not gold or (multi and len(gold) < 2):
                continue
            yield run, gold


def bucket(rank):
    if rank is None or rank > 64:
        return "beyond 64 or unranked"
    if rank <= 8:
        return "1-8"
    if rank <= 16:
        return "9-16"
    return "17-32" if rank <= 32 else "33-64"


def main(argv):
    multi = "--multi" in argv
    paths = [a for a in argv[1:] if a != "--multi"]
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    for path in paths:
        rows = list(tasks_of(path, multi))
        buckets, empty, docs, build = {}, 0, 0, 0
        for _, gold in rows:
            empty += not any(s for _, _, s in gold)
            for g, r, s in gold:
                if s:
                    continue
                key = bucket(r)
                buckets[key] = buckets.get(key, 0) + 1
                ext, name = os.path.splitext(g)[1], os.path.basename(g)
                if ext in BUILD_EXTS or name in BUILD_NAMES:
                    build += 1
                elif ext in DOCS:
                    docs += 1
        missed = sum(buckets.values())
        order = ["1-8", "9-16", "17-32", "33-64", "beyond 64 or unranked"]
        print(f"{path}: {len(rows)} tasks, {missed} missed gold files")
        print("  by rank: " + ", ".join(f"{k} {buckets[k]}" for k in order if k in buckets))
        print(f"  tasks with no gold file in the package: {empty}")
        print(f"  missed documentation files: {docs}; build, API or configuration: {build}")
        for k in range(5):
            ok = hit = gold_n = files = 0
            for run, gold in rows:
                selected = [f["path"] for f in run.get("selected", [])]
                extra = [e["path"] for e in run.get("top", []) if not e["selected"]]
                chosen = set(selected) | set([p for p in extra if p not in selected][:k])
                found = [g in chosen for g, _, _ in gold]
                ok += all(found)
                hit += sum(found)
                gold_n += len(gold)
                files += len(chosen)
            n = max(1, len(rows))
            print(
                f"  +{k} ranked files: set FRR {100 * ok / n:.1f}, micro R "
                f"{100 * hit / max(1, gold_n):.1f}, micro P {100 * hit / max(1, files):.1f}, "
                f"files {files / n:.1f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
