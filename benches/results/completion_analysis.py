"""The analysis numbers of `completion-2026-12-04.md` that are not in the trainer's
tables, from the same dumps:

    .venv-train/bin/python benches/results/completion_analysis.py DUMPS [LOCATE_DUMPS]

DUMPS holds `completion/NAME.jsonl` for NAME in train, single, sample, ml, lite (see
`benches/features.sh`); LOCATE_DUMPS, when given, the Location stage's rows
(`NAME.jsonl`) of the same tasks. It prints:

1. reach: per multi-file set, set FRR as returned and with a perfect scorer over the
   same candidates (every gold file among the package or the candidates), and how many
   unreachable gold files sit in the folder of a package file;
2. separability under grouped CV on the training sets (train, single): AUC, average
   precision, the positive rate and the share of gold rows above a few thresholds, and
   in how many tasks with a gold candidate the
   top candidate is gold, by the model and by Location rank;
3. a cap per task from the expected count (k = round(a * sum p), at most 3) against the
   shipped threshold rule, on the held-out sets;
4. with LOCATE_DUMPS: the Location stage's features appended to the rows, trained and
   scored the same way, on the held-out sets.
"""

import json
import os
import sys

import numpy as np
from sklearn.metrics import average_precision_score, roc_auc_score

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import train_completion as tc  # noqa: E402

SHIPPED = (0.05, 3)


def dumps(root, names):
    return [(n, os.path.join(root, "completion", f"{n}.jsonl")) for n in names]


def reach(root):
    unreachable = beside = 0
    for name, path in dumps(root, ["train", "sample", "ml"]):
        tasks, _ = tc.load([(name, path)])
        multi = [t for t in tasks if len(t["gold"]) > 1]
        full = sum(all(g in set(t["package"]) for g in t["gold"]) for t in multi)
        reachable = sum(
            all(g in set(t["package"]) or g in set(t["paths"]) for g in t["gold"]) for t in multi
        )
        print(
            f"reach {name}: {len(multi)} multi-file tasks, set FRR as returned "
            f"{100 * full / len(multi):.1f}, with a perfect scorer {100 * reachable / len(multi):.1f}"
        )
        if name == "ml":
            continue
        for t in multi:
            folders = {os.path.dirname(p) for p in t["package"]}
            for g in t["gold"]:
                if g not in set(t["package"]) and g not in set(t["paths"]):
                    unreachable += 1
                    beside += os.path.dirname(g) in folders
    print(f"unreachable gold files (train, sample): {unreachable}, {beside} beside a package file")


def top_gold(tasks, score):
    hits = total = 0
    for t in tasks:
        y = tc.labels(t)
        if y.sum() == 0:
            continue
        s = score(t)
        best = min(range(len(s)), key=lambda i: (-s[i], i))
        total += 1
        hits += int(y[best])
    return hits, total


def separability(train):
    oof = tc.cross_validate(train)
    y = np.concatenate([tc.labels(t) for t in train])
    p = np.concatenate([oof[(t["set"], t["id"])] for t in train])
    print(
        f"grouped CV: AUC {roc_auc_score(y, p):.3f}, average precision "
        f"{average_precision_score(y, p):.3f}, positive rate {100 * y.mean():.2f}%"
    )
    for q in (0.02, 0.05, 0.1, 0.15, 0.2, 0.3):
        above = p >= q
        share = f"{100 * y[above].mean():.1f}%" if above.any() else "-"
        print(f"  p >= {q}: {above.sum()} rows, {share} of them gold")
    model, n = top_gold(train, lambda t: oof[(t["set"], t["id"])])
    rank, _ = top_gold(train, lambda t: -t["x"][:, 2])
    print(f"top candidate is gold: model {model} of {n} tasks, Location rank {rank}")


def held_out_rule(held, prob, rule):
    out = {}
    for name in sorted({t["set"] for t in held}):
        full = hit = files = n = 0
        for t in (t for t in held if t["set"] == name):
            p = prob[(t["set"], t["id"])]
            order = sorted(range(len(p)), key=lambda i: (-p[i], t["paths"][i]))
            k = rule(np.array([p[i] for i in order]))
            chosen = set(t["package"]) | {t["paths"][i] for i in order[:k]}
            h = sum(g in chosen for g in t["gold"])
            n += 1
            full += h == len(t["gold"])
            hit += h
            files += len(chosen)
        out[name] = f"{100 * full / n:.1f} / P {100 * hit / files:.1f} / {files / n:.1f} files"
    return out


def caps(train, held):
    model = tc.fit(train)
    prob = {(t["set"], t["id"]): tc.sigmoid(tc.raw_scores(model, t["x"])) for t in held}
    threshold, cap = SHIPPED
    print("threshold rule", held_out_rule(held, prob, lambda s: int(min(cap, (s >= threshold).sum()))))
    for a in (1.0, 2.0, 3.0):
        rule = held_out_rule(held, prob, lambda s, a=a: int(min(cap, np.floor(a * s.sum() + 0.5))))
        print(f"expected-count cap a={a}", rule)


def with_location_rows(root, locate_root, train_names, held_names):
    def augmented(names):
        out = []
        for name, path in dumps(root, names):
            tasks, _ = tc.load([(name, path)])
            rows = {}
            width = None
            with open(os.path.join(locate_root, f"{name}.jsonl"), encoding="utf-8") as f:
                for line in f:
                    r = json.loads(line)
                    if "features" in r:
                        rows[r["id"]] = dict(r["features"])
                        width = len(r["feature_names"])
            for t in tasks:
                extra = [rows.get(t["id"], {}).get(p, [np.nan] * width) for p in t["paths"]]
                t["x"] = np.hstack([t["x"], np.array(extra, dtype=np.float64).reshape(-1, width)])
            out += tasks
        return out

    train, held = augmented(train_names), augmented(held_names)
    model = tc.fit(train)
    prob = {(t["set"], t["id"]): tc.sigmoid(tc.raw_scores(model, t["x"])) for t in held}
    threshold, cap = SHIPPED
    print(
        "with the Location stage's features",
        held_out_rule(held, prob, lambda s: int(min(cap, (s >= threshold).sum()))),
    )


def main():
    root = sys.argv[1]
    train_names, held_names = ["train", "single"], ["sample", "ml", "lite"]
    train, _ = tc.load(dumps(root, train_names))
    held, _ = tc.load(dumps(root, held_names))
    reach(root)
    separability(train)
    caps(train, held)
    if len(sys.argv) > 2:
        with_location_rows(root, sys.argv[2], train_names, held_names)


if __name__ == "__main__":
    main()
