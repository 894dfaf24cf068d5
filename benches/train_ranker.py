"""Trains the learned scorer of the Location stage (Eq. 6 with learned weights).

    python3 benches/train_ranker.py [--out MODEL.json] [--report REPORT.md]
        NAME=FEATURES.jsonl ...

Each FEATURES.jsonl is the `--json` output of
`eval_tasks --locate --features --with-history ...` on one task set (see
`benches/features.sh`); NAME names the set in the report. A candidate is positive
when it is a gold file of its task (files the fix creates are left out: no retriever
can return them).

What it does:
1. Grouped cross-validation by repository over all sets together: each repository's
   tasks are scored by a model that never saw that repository. The report gives
   FRR@1/5/10 and MRR per set for Eq. 6's hand weights (the order the rows come in)
   and for each model.
2. Trains the chosen model on everything and writes it as JSON for
   `deepdiscovery-core/src/locate/ranker.rs` (gradient-boosted regression trees on
   the log-odds, evaluated by our own Rust code: no ML runtime at query time).

Deterministic: fixed seed, sorted inputs. Development only (scikit-learn); never a
runtime dependency.
"""

import argparse
import collections
import json
import math
import sys

import numpy as np
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

SEED = 20261204
# The candidates a query re-ranks: as many as the Location stage gives features.
KS = (1, 5, 10)


def feature_runs(sets):
    """The runs of `eval_tasks --json ... --features` with feature rows and at least one
    existing gold file, as (set name, run, gold files that exist at the base commit),
    and the feature names, which every set must share."""
    runs, names = [], None
    for name, path in sets:
        with open(path, encoding="utf-8") as f:
            for line in f:
                t = json.loads(line)
                if t.get("status") != "ok" or "features" not in t:
                    continue
                new = set(t.get("gold_new_files") or [])
                gold = [g for g in t["gold_files"] if g not in new]
                if not gold:
                    continue
                if names is None:
                    names = t["feature_names"]
                elif names != t["feature_names"]:
                    sys.exit(f"{path}: feature names differ from the first set's")
                runs.append((name, t, gold))
    return runs, names


def load(sets):
    """Tasks as dicts: set, id, repo, names, rows (path, x), gold, ranks."""
    tasks = []
    runs, names = feature_runs(sets)
    for name, t, gold in runs:
        # The rank of each gold file in the full hand-weighted ranking (1-based,
        # None when unranked): a gold file outside the candidates keeps it.
        full = dict(zip(t["gold_files"], t["ranks"]))
        tasks.append(
            {
                "set": name,
                "id": t["id"],
                "repo": t["repo"],
                "paths": [r[0] for r in t["features"]],
                # As the Rust scorer sees them: f32, widened for the comparisons.
                "x": np.array([r[1] for r in t["features"]], dtype=np.float32).astype(
                    np.float64
                ),
                "gold": gold,
                "full_rank": {g: full.get(g) for g in gold},
            }
        )
    tasks.sort(key=lambda t: (t["set"], t["id"]))
    return tasks, names


def worst_rank(task, scores):
    """The rank of the task's worst-ranked gold file once the candidates are ordered
    by `scores` (ties by the hand order); gold files outside the candidates keep their
    full rank (they rank below every candidate)."""
    n = len(task["paths"])
    order = sorted(range(n), key=lambda i: (-scores[i], i))
    rank = {task["paths"][i]: r + 1 for r, i in enumerate(order)}
    worst, best = 0, math.inf
    for g in task["gold"]:
        r = rank.get(g)
        if r is None:
            r = task["full_rank"].get(g) or math.inf
            r = max(r, n + 1)
        worst = max(worst, r)
        best = min(best, r)
    return worst, best


def metrics(tasks, scores_of):
    out = collections.defaultdict(dict)
    for name in sorted({t["set"] for t in tasks}) + ["all"]:
        chosen = [t for t in tasks if name in ("all", t["set"])]
        multi = [t for t in chosen if len(t["gold"]) > 1]
        row = {"tasks": len(chosen)}
        worst_best = [worst_rank(t, scores_of(t)) for t in chosen]
        for k in KS:
            row[f"@{k}"] = sum(w <= k for w, _ in worst_best) / max(1, len(chosen))
        row["@8"] = sum(w <= 8 for w, _ in worst_best) / max(1, len(chosen))
        row["mrr"] = sum(1 / b for _, b in worst_best if b != math.inf) / max(1, len(chosen))
        mw = [worst_rank(t, scores_of(t)) for t in multi]
        row["multi"] = len(multi)
        row["multi@8"] = sum(w <= 8 for w, _ in mw) / max(1, len(multi))
        row["multi@16"] = sum(w <= 16 for w, _ in mw) / max(1, len(multi))
        out[name] = row
    return out


def stack(tasks):
    x = np.concatenate([t["x"] for t in tasks])
    y = np.concatenate(
        [np.array([p in set(t["gold"]) for p in t["paths"]], dtype=np.int32) for t in tasks]
    )
    return x, y


def folds(tasks, k):
    """Repositories dealt into k folds by size, deterministically."""
    by_repo = collections.Counter(t["repo"] for t in tasks)
    load_ = [0] * k
    fold_of = {}
    for repo, n in sorted(by_repo.items(), key=lambda r: (-r[1], r[0])):
        f = min(range(k), key=lambda i: (load_[i], i))
        fold_of[repo] = f
        load_[f] += n
    return fold_of


def make(kind):
    if kind == "linear":
        return LinearModel()
    if kind.startswith("lambdarank"):
        return LambdaRank(kind)
    depth, trees, rate = {"gbdt": (3, 200, 0.05), "gbdt-small": (2, 150, 0.1)}[kind]
    return GradientBoostingClassifier(
        n_estimators=trees,
        max_depth=depth,
        learning_rate=rate,
        subsample=0.8,
        min_samples_leaf=20,
        random_state=SEED,
    )


class LinearModel:
    """Standardized logistic regression."""

    def fit(self, x, y):
        self.scaler = StandardScaler().fit(x)
        self.model = LogisticRegression(C=1.0, max_iter=2000, class_weight="balanced")
        self.model.fit(self.scaler.transform(x), y)
        return self

    def decision_function(self, x):
        return self.model.decision_function(self.scaler.transform(x))


NAMES = []


def monotonicity(name):
    """+1 for features that are evidence for a file, -1 for ranks, 0 otherwise."""
    if name.endswith("_rank"):
        return -1
    evidence = ("sem", "sum", "rule", "eq6", "eq6_ratio", "channels")
    prefixes = ("bm25_", "cover_", "title_", "ev_", "symbols_", "phrases_", "def_")
    if name in evidence or name.startswith(prefixes):
        return 1
    return 0


class LambdaRank:
    """LightGBM's LambdaMART: trees fitted to the ranking of each query's candidates."""

    def __init__(self, kind):
        import lightgbm

        leaves, trees = {
            "lambdarank": (7, 300),
            "lambdarank-small": (4, 200),
            "lambdarank-free": (4, 200),
        }[kind]
        # More evidence never lowers a score: monotone in every evidence feature
        # (and against every rank), so that the model stays sane on repositories
        # unlike the training ones and each explanation reads the right way round.
        monotone = [] if kind == "lambdarank-free" else [monotonicity(n) for n in NAMES]
        self.model = lightgbm.LGBMRanker(
            monotone_constraints=monotone or None,
            monotone_constraints_method="advanced",
            objective="lambdarank",
            n_estimators=trees,
            num_leaves=leaves,
            learning_rate=0.05,
            min_child_samples=20,
            subsample=0.8,
            subsample_freq=1,
            colsample_bytree=0.8,
            lambdarank_truncation_level=16,
            random_state=SEED,
            deterministic=True,
            force_row_wise=True,
            n_jobs=1,
            verbose=-1,
        )

    def fit_tasks(self, tasks):
        x, y = stack(tasks)
        self.model.fit(x, y, group=[len(t["paths"]) for t in tasks])
        return self

    def decision_function(self, x):
        return self.model.predict(x)


def fit(kind, tasks):
    model = make(kind)
    if hasattr(model, "fit_tasks"):
        return model.fit_tasks(tasks)
    x, y = stack(tasks)
    return model.fit(x, y)


def cross_validate(tasks, kind, k=5, held=()):
    """Out-of-fold scores of `tasks` (each repository's by a model that never saw it),
    and of `held` (scored, never trained on: e.g. the same tasks without history) by
    the model of their repository's fold."""
    fold_of = folds(tasks, k)
    scores = {}
    for f in range(k):
        train = [t for t in tasks if fold_of[t["repo"]] != f]
        test = [t for t in tasks if fold_of[t["repo"]] == f]
        # A held repository that no training task has goes with fold 0's model.
        test += [t for t in held if fold_of.get(t["repo"], 0) == f]
        if not test:
            continue
        model = fit(kind, train)
        for t in test:
            scores[(t["set"], t["id"])] = model.decision_function(t["x"])
    return scores


def export_trees(model, names):
    trees = []
    for est in model.estimators_[:, 0]:
        tr = est.tree_
        trees.append(
            {
                "feature": [int(v) for v in tr.feature],
                "threshold": [float(v) for v in tr.threshold],
                "left": [int(v) for v in tr.children_left],
                "right": [int(v) for v in tr.children_right],
                # The regression value of every node (leaves: the output; inner nodes:
                # for the explanation, the mean the split refines).
                "value": [float(v[0][0]) for v in tr.value],
            }
        )
    prior = model.init_.class_prior_[1]
    return {
        "kind": "trees",
        "features": names,
        "init": float(math.log(prior / (1 - prior))),
        "learning_rate": float(model.learning_rate),
        "trees": trees,
    }


def export_lightgbm(ranker, names):
    """LightGBM's trees in the format of `export_trees`: nodes in preorder, leaf
    values with the learning rate already applied (so `learning_rate` is 1 and there
    is no initial score), inner nodes carrying LightGBM's `internal_value` for the
    explanation."""
    dumped = ranker.model.booster_.dump_model()
    trees = []
    for info in dumped["tree_info"]:
        tree = {"feature": [], "threshold": [], "left": [], "right": [], "value": []}
        # Iterative preorder walk; children are numbered after their parent.
        stack = [(info["tree_structure"], None, None)]
        while stack:
            node, parent, side = stack.pop()
            at = len(tree["value"])
            if parent is not None:
                tree[side][parent] = at
            if "leaf_value" in node or "split_feature" not in node:
                tree["feature"].append(-2)
                tree["threshold"].append(-2.0)
                tree["left"].append(-1)
                tree["right"].append(-1)
                tree["value"].append(float(node.get("leaf_value", 0.0)))
                continue
            if node["decision_type"] != "<=":
                sys.exit(f"unsupported LightGBM split {node['decision_type']}")
            tree["feature"].append(int(node["split_feature"]))
            tree["threshold"].append(float(node["threshold"]))
            tree["left"].append(-1)
            tree["right"].append(-1)
            tree["value"].append(float(node.get("internal_value", 0.0)))
            stack.append((node["right_child"], at, "right"))
            stack.append((node["left_child"], at, "left"))
        trees.append(tree)
    return {
        "kind": "trees",
        "features": names,
        "init": 0.0,
        "learning_rate": 1.0,
        "trees": trees,
    }


def extra_anchor_table(tasks, scores, platt, anchors=8, most=16):
    """What admitting candidates beyond the K_a anchors by calibrated probability
    would give: per threshold, the share of tasks whose gold files are all among the
    anchors, and the mean number of anchors."""
    lines = [
        f"| threshold | anchors (mean) | all gold in anchors: " + " | ".join(sorted({t['set'] for t in tasks})) + " |",
        "| --- | --- | " + " | ".join("---" for _ in sorted({t["set"] for t in tasks})) + " |",
    ]
    for theta in (None, 0.5, 0.4, 0.3, 0.2, 0.15):
        counts, hits = [], collections.defaultdict(list)
        for t in tasks:
            raw = scores[(t["set"], t["id"])]
            p = 1 / (1 + np.exp(-(platt[0] * raw + platt[1])))
            order = sorted(range(len(raw)), key=lambda i: (-raw[i], i))
            chosen = order[:anchors]
            if theta is not None:
                chosen += [i for i in order[anchors:most] if p[i] >= theta]
            counts.append(len(chosen))
            paths = {t["paths"][i] for i in chosen}
            hits[t["set"]].append(all(g in paths for g in t["gold"]))
        name = "top K_a only" if theta is None else f"p ≥ {theta}"
        lines.append(
            f"| {name} | {np.mean(counts):.1f} | "
            + " | ".join(f"{100 * np.mean(hits[s]):.1f}" for s in sorted(hits))
            + " |"
        )
    return "\n".join(lines)


def table(results, sets):
    lines = [
        "| set | scorer | tasks | FRR@1 | FRR@5 | FRR@10 | FRR@8 (anchors) | MRR | multi-file tasks | multi all in top 8 | multi all in top 16 |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name in sets + ["all"]:
        for scorer, m in results.items():
            r = m.get(name)
            if r is None:
                continue
            lines.append(
                f"| {name} | {scorer} | {r['tasks']} | {100 * r['@1']:.1f} | {100 * r['@5']:.1f} | "
                f"{100 * r['@10']:.1f} | {100 * r['@8']:.1f} | {r['mrr']:.3f} | {r['multi']} | "
                f"{100 * r['multi@8']:.1f} | {100 * r['multi@16']:.1f} |"
            )
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="+", help="NAME=FEATURES.jsonl")
    ap.add_argument("--out", help="where to write the model (JSON)")
    ap.add_argument("--report", help="where to write the cross-validation table (Markdown)")
    ap.add_argument(
        "--kinds", default="lambdarank-small", help="models to cross-validate, comma-separated"
    )
    ap.add_argument("--final", default="lambdarank-small", help="the model written to --out")
    ap.add_argument(
        "--eval",
        action="append",
        default=[],
        help="NAME=FEATURES.jsonl scored out of fold, never trained on (e.g. the same "
        "tasks dumped with --no-history)",
    )
    ap.add_argument(
        "--drop",
        default="",
        help="features left out, comma-separated (to measure what they add; the model "
        "written reads the others only, which the Rust reader accepts)",
    )
    args = ap.parse_args()
    sets = [s.split("=", 1) for s in args.sets]
    tasks, names = load(sets)
    evals = [s.split("=", 1) for s in args.eval]
    held, held_names = load(evals) if evals else ([], names)
    if held and held_names != names:
        sys.exit("--eval: feature names differ from the training sets'")
    dropped = [d for d in args.drop.split(",") if d]
    unknown = [d for d in dropped if d not in (names or [])]
    if unknown:
        sys.exit(f"--drop: no feature {', '.join(unknown)}")
    if dropped:
        keep = [i for i, n in enumerate(names) if n not in dropped]
        names = [names[i] for i in keep]
        for t in tasks + held:
            t["x"] = t["x"][:, keep]
    NAMES[:] = names
    if not tasks:
        sys.exit("no task with features: run eval_tasks with --locate --features")
    print(f"{len(tasks)} tasks, {sum(len(t['paths']) for t in tasks)} candidates", file=sys.stderr)
    results = {"eq6 (paper)": metrics(tasks, lambda t: -np.arange(len(t["paths"])))}
    out_of_fold = {}
    for kind in args.kinds.split(","):
        scores = cross_validate(tasks, kind, held=held)
        out_of_fold[kind] = scores
        results[f"{kind} (grouped CV)"] = metrics(tasks, lambda t: scores[(t["set"], t["id"])])
        if held:
            results[f"{kind} (grouped CV, held sets)"] = metrics(
                held, lambda t: scores[(t["set"], t["id"])]
            )
    if held:
        results["eq6 (paper), held sets"] = metrics(held, lambda t: -np.arange(len(t["paths"])))
    report = table(results, [s[0] for s in sets] + [s[0] for s in evals])
    print(report)
    if args.out:
        model = fit(args.final, tasks)
        if isinstance(model, LambdaRank):
            exported = export_lightgbm(model, names)
        else:
            exported = export_trees(model, names)
        # Platt scaling on the out-of-fold scores: a ranker's raw score has no scale;
        # σ(a·raw + b) is the probability that a candidate is a file the change
        # touches, which thresholds (how many anchors a task needs) can read.
        if args.final not in out_of_fold:
            out_of_fold[args.final] = cross_validate(tasks, args.final)
        raw = np.concatenate([out_of_fold[args.final][(t["set"], t["id"])] for t in tasks])
        _, y = stack(tasks)
        platt = LogisticRegression(C=1e6, max_iter=1000).fit(raw.reshape(-1, 1), y)
        exported["calibration"] = {
            "scale": float(platt.coef_[0][0]),
            "offset": float(platt.intercept_[0]),
        }
        extra = extra_anchor_table(
            tasks,
            out_of_fold[args.final],
            (exported["calibration"]["scale"], exported["calibration"]["offset"]),
        )
        print(extra)
        report += "\n\nAnchors beyond K_a by calibrated probability (grouped CV):\n\n" + extra
        # Rows with the raw score the trainer gives them: the Rust scorer checks that
        # it computes the same (first candidates of the first tasks).
        probe = np.concatenate([t["x"][:4] for t in tasks[:8]])
        exported["checks"] = [
            {"row": [float(v) for v in row], "raw": float(raw)}
            for row, raw in zip(probe, model.decision_function(probe))
        ]
        exported["trained_on"] = {
            name: sum(t["set"] == name for t in tasks) for name, _ in sets
        }
        exported["repositories"] = len({t["repo"] for t in tasks})
        exported["seed"] = SEED
        # The model's card: what it is, what it learned from, how to rebuild it, and its
        # held-out numbers per set (grouped CV by repository).
        final_cv = metrics(tasks, lambda t: out_of_fold[args.final][(t["set"], t["id"])])
        exported["card"] = {
            "model": f"LightGBM {args.final} over the Location features, Platt-calibrated; "
                     "trained from scratch, no pretrained weights",
            "data": "the sets of trained_on: SWE-bench Lite and Multilingual dev tasks and "
                    "mined tasks of repositories outside shared/bench/benchmark_repos.txt",
            "rebuild": "sh benches/features.sh DIR && make train FEATURES=DIR",
            "held_out": {
                name: {k: round(v, 4) for k, v in m.items()} for name, m in final_cv.items()
            },
        }
        exported["cross_validation"] = {
            scorer: {k: round(v, 4) for k, v in m["all"].items()}
            for scorer, m in results.items()
        }
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(exported, f, separators=(",", ":"), sort_keys=True)
            f.write("\n")
    if args.report:
        with open(args.report, "w", encoding="utf-8") as f:
            f.write(report + "\n")


if __name__ == "__main__":
    main()
