"""Trains the learned change-set completion of the Inference stage.

    python3 benches/train_completion.py --train NAME=FEATURES.jsonl ... \
        [--eval NAME=FEATURES.jsonl ...] [--out MODEL.json] [--report REPORT.md]
        [--drop FEATURE,...]

Each FEATURES.jsonl is the `--json` output of
`eval_tasks --features --with-history ...` (discover, not `--locate`) on one task
set: per task the package it returned (the files the committed completion added are
taken out again: the rule below is simulated on the package before it) and, for each
of Location's best candidates left out of the context, a row of `COMPLETION_FEATURES`
(`deepdiscovery-core/src/infer/completion.rs`). A row is positive when its file is a
gold file of the task (files the fix creates are left out).

What it does:
1. Grouped cross-validation by repository over the --train sets: out-of-fold
   probabilities for every row.
2. The selection rule of `completion.rs` (add the candidates from a probability
   threshold, the most probable first, at most a cap per task) simulated over a grid
   of thresholds and caps on those out-of-fold probabilities: set FRR (every gold
   file in the package), micro recall and precision and files per package, per set.
   Single-file sets show what the completion costs in precision.
3. With --eval: a model trained on all --train sets scores the held-out sets, and
   the same table is given for them (nothing there was seen in training).
4. With --out: the model trained on the --train sets, for `completion.rs` (trees on
   the log-odds, evaluated by our own Rust code), with check rows.

`--drop` leaves features out (an ablation on the same rows: what those features add);
a model without them does not fit `completion.rs`, so `--drop` writes no model.

Deterministic: fixed seed, sorted inputs. Development only (LightGBM, in the
`make train` venv); never a runtime dependency.
"""

import argparse
import collections
import json
import math
import sys

import numpy as np

from train_ranker import SEED, export_lightgbm, feature_runs, folds

# What `completion::rationale` says (deepdiscovery-core/src/infer/completion.rs); the
# package's rationale of the file holds it, after the relation that reached it.
COMPLETION_RATIONALE = "learned change-set completion: probability"
THRESHOLDS = (0.03, 0.05, 0.08, 0.1, 0.15, 0.2, 0.3)
# A cap is a number of files, or "Σ": per task, the expected number of the fix's
# files among the candidates (the sum of their probabilities), rounded up, within
# 1..MAX_EXPECTED: a task-level estimate of how many files the change still needs.
CAPS = (1, 2, 3, "Σ")
MAX_EXPECTED = 5


def task_cap(cap, p):
    """The cap of one task whose candidates have probabilities `p`."""
    if cap != "Σ":
        return cap
    return int(min(MAX_EXPECTED, max(1, math.ceil(float(np.sum(p)) - 1e-9))))


def load(sets):
    """Tasks: set, id, repo, package paths, gold (existing), rows (paths, x)."""
    tasks = []
    runs, names = feature_runs(sets)
    for name, t, gold in runs:
        rows = t["features"]
        tasks.append(
            {
                "set": name,
                "id": t["id"],
                "repo": t["repo"],
                "package": [
                    s["path"] for s in t["selected"] if not added_by_completion(s)
                ],
                "gold": gold,
                "paths": [r[0] for r in rows],
                "x": np.array([r[1] for r in rows], dtype=np.float32)
                .reshape(-1, len(names))
                .astype(np.float64),
            }
        )
    tasks.sort(key=lambda t: (t["set"], t["id"]))
    return tasks, names


def added_by_completion(selected):
    """Whether the committed completion put this file in the package (its rationale
    says so): the rule is simulated on the package without them, whatever model the
    dump was made with."""
    return any(COMPLETION_RATIONALE in r for r in selected.get("rationale", []))


def drop(tasks, names, dropped):
    """The tasks and names without the `dropped` features' columns."""
    unknown = [d for d in dropped if d not in names]
    if unknown:
        sys.exit(f"no such feature: {', '.join(unknown)}")
    keep = [i for i, n in enumerate(names) if n not in dropped]
    for t in tasks:
        t["x"] = t["x"][:, keep]
    return tasks, [names[i] for i in keep]


def labels(task):
    gold = set(task["gold"])
    return np.array([p in gold for p in task["paths"]], dtype=np.int32)


def model():
    import lightgbm

    return lightgbm.LGBMClassifier(
        n_estimators=150,
        num_leaves=8,
        learning_rate=0.05,
        min_child_samples=40,
        subsample=0.8,
        subsample_freq=1,
        colsample_bytree=0.8,
        reg_lambda=1.0,
        random_state=SEED,
        deterministic=True,
        force_row_wise=True,
        n_jobs=1,
        verbose=-1,
    )


def fit(tasks):
    x = np.concatenate([t["x"] for t in tasks])
    y = np.concatenate([labels(t) for t in tasks])
    return model().fit(x, y)


def raw_scores(m, x):
    if len(x) == 0:
        return np.zeros(0)
    return m.predict(x, raw_score=True)


def cross_validate(tasks, k=5):
    fold_of = folds(tasks, k)
    probability = {}
    for f in range(k):
        train = [t for t in tasks if fold_of[t["repo"]] != f]
        test = [t for t in tasks if fold_of[t["repo"]] == f]
        if not train or not test:
            continue
        m = fit(train)
        for t in test:
            probability[(t["set"], t["id"])] = sigmoid(raw_scores(m, t["x"]))
    return probability


def sigmoid(raw):
    return 1.0 / (1.0 + np.exp(-raw))


def simulate(tasks, probability, threshold, cap):
    """Per set: set FRR, micro recall, micro precision, files per package, after the
    selection rule; threshold None is the package as returned."""
    out = collections.defaultdict(lambda: collections.Counter())
    for t in tasks:
        package = list(t["package"])
        if threshold is not None:
            p = probability[(t["set"], t["id"])]
            order = sorted(range(len(p)), key=lambda i: (-p[i], t["paths"][i]))
            package += [t["paths"][i] for i in order if p[i] >= threshold][:task_cap(cap, p)]
        chosen = set(package)
        hit = sum(g in chosen for g in t["gold"])
        for name in (t["set"], "multi-file" if len(t["gold"]) > 1 else "single-file"):
            c = out[name]
            c["tasks"] += 1
            c["full"] += hit == len(t["gold"])
            c["hit"] += hit
            c["gold"] += len(t["gold"])
            c["files"] += len(chosen)
    return out


# The rule the core applies (`infer::completion::select`): probability and file cap.
SHIPPED_RULE = (0.05, 3)


def row(c):
    n = max(1, c["tasks"])
    return (
        f"{100 * c['full'] / n:.1f}",
        f"{100 * c['hit'] / max(1, c['gold']):.1f}",
        f"{100 * c['hit'] / max(1, c['files']):.1f}",
        f"{c['files'] / n:.1f}",
    )


def grid_table(tasks, probability, title):
    groups = sorted({t["set"] for t in tasks}) + ["multi-file", "single-file"]
    lines = [f"### {title}", "", "| rule | " + " | ".join(groups) + " |"]
    lines.append("|---|" + "---|" * len(groups))
    lines.append("| (cell: set FRR / micro R / micro P / files) |" + " |" * len(groups))
    rules = [(None, 0)] + [(th, cap) for cap in CAPS for th in THRESHOLDS]
    for th, cap in rules:
        sim = simulate(tasks, probability, th, cap)
        name = "as returned" if th is None else f"p ≥ {th}, ≤ {cap}"
        cells = [" / ".join(row(sim[g])) if sim[g]["tasks"] else "–" for g in groups]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def importance(m, names):
    gains = m.booster_.feature_importance(importance_type="gain")
    order = np.argsort(-gains)
    total = gains.sum() or 1.0
    return ", ".join(f"{names[i]} {100 * gains[i] / total:.0f}%" for i in order[:10])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--train", nargs="+", required=True, help="NAME=FEATURES.jsonl")
    ap.add_argument("--eval", nargs="*", default=[], help="held-out NAME=FEATURES.jsonl")
    ap.add_argument("--out", help="where to write the model (JSON)")
    ap.add_argument("--report", help="where to write the tables (Markdown)")
    ap.add_argument("--drop", default="", help="features left out, comma-separated")
    args = ap.parse_args()
    dropped = [d for d in args.drop.split(",") if d]
    if dropped and args.out:
        sys.exit("--drop writes no model: a model without those features does not fit")
    train, names = drop(*load([s.split("=", 1) for s in args.train]), dropped)
    if not train:
        sys.exit("no task with features: run eval_tasks --features (discover)")
    print(f"{len(train)} training tasks, {sum(len(t['paths']) for t in train)} rows",
          file=sys.stderr)
    out_of_fold = cross_validate(train)
    report = [grid_table(train, out_of_fold, "Training sets, grouped CV by repository")]
    final = fit(train)
    report.append(f"Gain importance (final model): {importance(final, names)}")
    held, probability = [], {}
    if args.eval:
        held, held_names = drop(*load([s.split("=", 1) for s in args.eval]), dropped)
        if held_names != names:
            sys.exit("the held-out sets' feature names differ from the training sets'")
        probability = {(t["set"], t["id"]): sigmoid(raw_scores(final, t["x"])) for t in held}
        report.append(grid_table(held, probability, "Held-out sets (model trained on --train)"))
    text = "\n\n".join(report)
    print(text)
    if args.report:
        with open(args.report, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    if args.out:
        exported = export_lightgbm(_Wrapped(final), names)
        exported["calibration"] = {"scale": 1.0, "offset": 0.0}
        probe = np.concatenate([t["x"][:4] for t in train[:8] if len(t["x"])])
        exported["checks"] = [
            {"row": [float(v) for v in r], "raw": float(s)}
            for r, s in zip(probe, raw_scores(final, probe))
        ]
        exported["trained_on"] = dict(
            collections.Counter(t["set"] for t in train).most_common()
        )
        exported["repositories"] = len({t["repo"] for t in train})
        exported["seed"] = SEED

        def at_rule(tasks, scores):
            sim = simulate(tasks, scores, *SHIPPED_RULE)
            return {g: " / ".join(row(c)) for g, c in sorted(sim.items()) if c["tasks"]}

        # The model's card: what it is, what it learned from, how to rebuild it, and its
        # held-out numbers at the shipped rule.
        exported["card"] = {
            "model": "LightGBM LambdaMART over the completion's candidates, trained from "
                     "scratch, no pretrained weights",
            "data": "mined task -> fix pairs of repositories outside "
                    "shared/bench/benchmark_repos.txt (trained_on); the rows read the "
                    "Location scorer's probabilities, so they are dumped after it",
            "rebuild": "make train (benches/train_completion.py; benches/README.md)",
            "held_out": {
                "rule": f"probability >= {SHIPPED_RULE[0]}, at most {SHIPPED_RULE[1]} files; "
                        "cells: set FRR / micro recall / micro precision / files",
                "grouped_cv": at_rule(train, out_of_fold),
                "eval_sets": at_rule(held, probability),
            },
        }
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(exported, f, separators=(",", ":"), sort_keys=True)
            f.write("\n")


class _Wrapped:
    """`export_lightgbm` reads `.model.booster_`."""

    def __init__(self, m):
        self.model = m


if __name__ == "__main__":
    main()
