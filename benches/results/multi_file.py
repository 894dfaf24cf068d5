"""Set metrics of the multi-file tasks of `eval_tasks --json` runs: the tasks with at
least two gold files that exist at the base commit.

    python3 benches/results/multi_file.py RUN.jsonl [RUN.jsonl ...]

prints, per run, the number of such tasks, set FRR (every existing gold file in the
package), micro recall and micro precision over the package's files.
"""

import json
import sys


def main(argv):
    for path in argv[1:]:
        tasks = ok = hit = gold = files = 0
        with open(path, encoding="utf-8") as f:
            for line in f:
                run = json.loads(line)
                if "in_set" not in run or run.get("status") not in (None, "ok"):
                    continue
                new = set(run["gold_new_files"])
                found = [i for g, i in zip(run["gold_files"], run["in_set"]) if g not in new]
                if len(found) < 2:
                    continue
                tasks += 1
                ok += all(found)
                hit += sum(found)
                gold += len(found)
                files += len(run.get("selected", []))
        if tasks:
            print(f"{path}: {tasks} multi-file tasks, set FRR {100 * ok / tasks:.1f}, "
                  f"micro R {100 * hit / gold:.1f}, micro P {100 * hit / max(files, 1):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
