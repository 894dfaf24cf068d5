"""Turns the summary tables of `eval_tasks` runs into the Markdown tables of a results file.

    python benches/results/summarize.py OUT_DIR

reads OUT_DIR/<set>.<variant>.txt (the stdout+stderr of one `eval_tasks` run each, as
written by the command in benches/results/README.md) and prints, per task set, one row
per variant: ranking metrics (FRR@1/5/10, FRR@Ka, MRR), set metrics (FRR, micro recall,
micro precision, files) excluding and including the files a fix creates, and cost.
"""

import pathlib
import sys

VARIANTS = [
    "full",
    "location-only",
    "no-compression",
    "no-implicit",
    "no-metadata-first",
    "min-score-ratio-0.4",
    "min-score-ratio-0.5",
]


def rows(path):
    """The `all incl`/`all excl` quality rows and the `all` cost row of a run."""
    quality, cost = {}, None
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) >= 13 and parts[0] == "all" and parts[1] in ("incl", "excl") and quality.get(parts[1]) is None:
            quality[parts[1]] = parts[2:]
        elif len(parts) > 15 and parts[0] == "all" and parts[1].isdigit():
            cost = parts[1:]
    return quality, cost


def main(out_dir):
    out = pathlib.Path(out_dir)
    for task_set in ("swebench_lite_dev", "multilingual_dev"):
        print(f"\n### {task_set}\n")
        print("| variant | gold | tasks | FRR@1 | FRR@5 | FRR@10 | FRR@Ka | MRR | set FRR | micro R | micro P | files | tokens/pkg | over budget | ms/task |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for variant in VARIANTS:
            path = out / f"{task_set}.{variant}.txt"
            if not path.exists():
                continue
            quality, cost = rows(path)
            for gold in ("excl", "incl"):
                q = quality.get(gold)
                if q is None:
                    continue
                tasks, frr1, frr5, frr10, frrka, _r10, mrr, sfrr, sr, sp, files = q[:11]
                pct = lambda x: f"{100 * float(x):.1f}"
                tokens = cost[12] if cost else "-"
                over = cost[13] if cost else "-"
                ms = cost[4] if cost else "-"
                print(
                    f"| {variant} | {gold} | {tasks} | {pct(frr1)} | {pct(frr5)} | {pct(frr10)} | {pct(frrka)} "
                    f"| {float(mrr):.3f} | {pct(sfrr)} | {pct(sr)} | {pct(sp)} | {files} | {tokens} | {over} | {ms} |"
                )


if __name__ == "__main__":
    main(sys.argv[1])
