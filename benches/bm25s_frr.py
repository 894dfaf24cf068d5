"""The plain BM25 reference of the quality targets: how often a per-task `bm25s` index
(one document per text file, the files `benches/bm25s_baseline.py` reads) ranks every
file of a task's fix in its first k.

    python3 benches/bm25s_frr.py TASKS.jsonl CHECKOUTS [--json OUT]

TASKS.jsonl holds tasks as `benches/mine_tasks.py` writes them (`id`, `task`,
`gold_files`, `gold_new_files`); CHECKOUTS/ID is each task's checkout, as
`eval_tasks --checkouts CHECKOUTS` leaves it (run that first; a task without a
checkout is skipped and counted). Files the fix creates are left out of the gold, as
`eval_tasks` leaves them out. Prints FRR@1/5/10 (every gold file in the first k) and
MRR of the first gold file, with the task count; `--json` writes each task's gold
ranks. Runs in the benchmark venv of `bm25s_baseline.py` (created on first use).
"""

import argparse
import json
import os
import sys

import bm25s_baseline as base

KS = (1, 5, 10)


def ranks_of(repo, task, gold):
    """The 1-based BM25 ranks of the gold files (None for a file not retrieved)."""
    import bm25s

    texts = base.read_texts(base.list_candidates(repo)[0])
    paths = [p for p, _ in texts]
    corpus = [data.decode("utf-8", errors="replace") for _, data in texts]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(corpus, stopwords="en", show_progress=False),
                    show_progress=False)
    k = min(len(paths), 1000)
    docs, _ = retriever.retrieve(bm25s.tokenize([task], stopwords="en", show_progress=False),
                                 k=k, show_progress=False)
    order = [paths[int(i)] for i in docs[0]]
    at = {p: r + 1 for r, p in enumerate(order)}
    return [at.get(g) for g in gold]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tasks")
    ap.add_argument("checkouts")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    if not base.running_in_bench_venv():
        python = base.ensure_bench_venv()
        os.execv(str(python), [str(python), *sys.argv])
    rows, skipped = [], 0
    with open(args.tasks, encoding="utf-8") as f:
        tasks = [json.loads(line) for line in f if line.strip()]
    for t in tasks:
        repo = os.path.join(args.checkouts, t["id"])
        new = set(t.get("gold_new_files") or [])
        gold = [g for g in t["gold_files"] if g not in new]
        if not os.path.isdir(repo) or not gold:
            skipped += 1
            continue
        rows.append({"id": t["id"], "ranks": ranks_of(repo, t["task"], gold)})
    n = max(len(rows), 1)
    frr = {k: sum(all(r is not None and r <= k for r in row["ranks"]) for row in rows) / n
           for k in KS}
    mrr = sum(1 / min((r for r in row["ranks"] if r), default=float("inf")) for row in rows) / n
    print(f"bm25s: {len(rows)} tasks ({skipped} without a checkout or gold): "
          + " ".join(f"FRR@{k} {frr[k]:.1%}" for k in KS) + f" MRR {mrr:.3f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    sys.exit(main())
