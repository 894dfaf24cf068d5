"""Trains the order of the package's `definitions` (issue 48, item 2): which of the
best files' functions, methods and classes the task concerns.

    python3 benches/train_definitions.py --tasks TASKS.jsonl [--tasks ...] \
        --patches shared/bench/dev_patches.jsonl \
        --definitions target/release/examples/file_definitions [--mirrors DIR] \
        [--out deepdiscovery-core/src/locate/definitions.json] [--report REPORT.md] \
        NAME=RUNS.jsonl ...

Each RUNS.jsonl is `eval_tasks --locate --features --with-history --json` output: per
task, `definition_features` holds every ranked candidate definition's row (`path`,
`name`, `row`; names in `definition_feature_names`). The gold comes from the fix as
`benches/function_level.py` builds it (the same functions): a candidate is positive
when it is the innermost definition holding a line the fix changes.

1. Grouped cross-validation by repository over all sets: each repository's tasks are
   ranked by a model that never saw it. The report gives function- and module-level
   Acc@1/5/10 per set (every gold definition among the first k), for the hand-set
   order (the rows' own order is not it: the hand-set score is recomputed here from
   the same features as `where_to_look.rs` does) and for the model.
2. With `--out`: LightGBM's LambdaMART on all tasks, monotone in every piece of
   evidence, written as trees for `crate::trees` with a Platt calibration on the
   out-of-fold scores and check rows.

Deterministic (fixed seed, one thread). Development only (LightGBM, scikit-learn).
"""

import argparse
import collections
import json
import os
import sys

import numpy as np
from sklearn.linear_model import LogisticRegression

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from function_level import changed_old_lines, definitions_of, git_show, gold_of, mirror_of, owner  # noqa: E402
from train_ranker import SEED, export_lightgbm, folds  # noqa: E402

KS = (1, 5, 10)
# +1: more of it never lowers a score; -1: never raises it; 0: free.
MONOTONE = {
    "file_rank": -1, "file_share": 1, "file_definitions": 0, "in_trace": 1,
    "named_in_trace": 1, "named": 1, "lexical": 1, "lexical_in_file": 1,
    "lexical_rank": -1, "calls_named": 1, "title": 1, "called_by_named": 1, "name_words": 1, "enclosing_named": 1, "semantic": 1,
    "table": 1, "table_in_file": 1, "table_rank": -1,
    "lines": 0, "depth": 0,
    "callable": 0, "container": 0,
}


def hand_set(names, x):
    """The hand-set score of `where_to_look.rs` (its constants), from the rows."""
    f = {n: x[:, i] for i, n in enumerate(names)}
    strength = np.zeros(len(x))

    def add(s):
        nonlocal strength
        strength = 1 - (1 - strength) * (1 - np.clip(s, 0, 1))

    add(0.95 * f["in_trace"])
    add(0.85 * f["named_in_trace"])
    add(0.8 * f["named"])
    add(0.7 * f["lexical"])
    add(0.3 * f["calls_named"])
    add(0.3 * f["called_by_named"])
    add(0.2 * f["enclosing_named"])
    add(0.5 * f["semantic"])
    return f["file_share"] * (0.35 + 0.65 * strength)


def load(sets, tasks_files, patches_paths, example, mirrors):
    tasks = {}
    for path in tasks_files:
        with open(path) as f:
            for line in f:
                t = json.loads(line)
                tasks[t["id"]] = t
    patches = {}
    for path in patches_paths:
        with open(path) as f:
            for line in f:
                p = json.loads(line)
                patches[p["id"]] = p["patch"]
    runs, names = [], None
    for set_name, path in sets:
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                if r.get("status") != "ok" or "definition_features" not in r:
                    continue
                if r["id"] not in tasks or r["id"] not in patches:
                    continue
                if names is None:
                    names = r["definition_feature_names"]
                elif names != r["definition_feature_names"]:
                    sys.exit(f"{path}: other feature names than the first set's")
                runs.append((set_name, r))
    wanted, changed = {}, {}
    for _, r in runs:
        task = tasks[r["id"]]
        changed[r["id"]] = changed_old_lines(patches[r["id"]])
        for p in sorted(changed[r["id"]]):
            gitdir = next((mirror_of(m, task["repo"]) for m in mirrors
                           if os.path.isdir(mirror_of(m, task["repo"]))), None)
            text = git_show(gitdir, task["base_commit"], p) if gitdir else None
            if text is not None:
                wanted[(r["id"], p)] = text
    defs = definitions_of(example, wanted)
    out = []
    for set_name, r in runs:
        gold_fn, gold_mod = gold_of(changed[r["id"]], lambda p: defs.get((r["id"], p)))
        if not gold_fn:
            continue
        rows = r["definition_features"]
        x = np.array([row["row"] for row in rows], dtype=np.float32).reshape(len(rows), len(names))
        keys = [(row["path"], row["name"]) for row in rows]
        # A candidate counts for the outermost definition (of a kind in KINDS) of its
        # file holding its first line, as in `function_level.py`; every definition of
        # a ranked file is a candidate, so that one is among the rows.
        by_file = collections.defaultdict(list)
        for row in rows:
            by_file[row["path"]].append({"name": row["name"], "kind": row["kind"],
                                         "start": row["span"]["start"], "end": row["span"]["end"]})
        modules = []
        for row in rows:
            m = owner(by_file[row["path"]], row["span"]["start"], outermost=True)
            modules.append((row["path"], m["name"] if m else row["name"]))
        y = np.array([k in gold_fn for k in keys], dtype=np.int32)
        out.append({
            "set": set_name, "id": r["id"], "repo": tasks[r["id"]]["repo"],
            "language": tasks[r["id"]].get("language", "?"), "x": x, "y": y, "keys": keys,
            "modules": modules, "gold_fn": gold_fn, "gold_mod": gold_mod,
        })
    return out, names


def accuracy(task, scores):
    """Per k, whether every gold definition (and every gold module) is in the top k."""
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    ranked = [task["keys"][i] for i in order]
    modules = []
    for i in order:
        if task["modules"][i] not in modules:
            modules.append(task["modules"][i])
    fn = {k: all(g in ranked[:k] for g in task["gold_fn"]) for k in KS}
    mod = {k: bool(task["gold_mod"]) and all(g in modules[:k] for g in task["gold_mod"]) for k in KS}
    return fn, mod


def table(results, tasks):
    groups = sorted({t["set"] for t in tasks}) + sorted({f"{t['set']}:{t['language']}" for t in tasks})
    lines = ["| scorer | set | tasks | " + " | ".join(f"fn @{k}" for k in KS) + " | "
             + " | ".join(f"module @{k}" for k in KS) + " |",
             "| --- | --- | ---: |" + " ---: |" * (2 * len(KS))]
    for scorer, per_task in results.items():
        for g in groups:
            members = [t for t in tasks if g in (t["set"], f"{t['set']}:{t['language']}")]
            if not members:
                continue
            fn = [100 * np.mean([per_task[t["id"]][0][k] for t in members]) for k in KS]
            mods = [t for t in members if t["gold_mod"]]
            mod = [100 * np.mean([per_task[t["id"]][1][k] for t in mods]) if mods else float("nan") for k in KS]
            lines.append(f"| {scorer} | {g} | {len(members)} | "
                         + " | ".join(f"{v:.1f}" for v in fn + mod) + " |")
    return "\n".join(lines)


def make(names):
    import lightgbm

    return lightgbm.LGBMRanker(
        monotone_constraints=[MONOTONE.get(n, 0) for n in names],
        monotone_constraints_method="advanced",
        objective="lambdarank",
        n_estimators=200,
        num_leaves=7,
        learning_rate=0.05,
        min_child_samples=20,
        subsample=0.8,
        subsample_freq=1,
        colsample_bytree=0.8,
        lambdarank_truncation_level=20,
        random_state=SEED,
        deterministic=True,
        force_row_wise=True,
        n_jobs=1,
        verbose=-1,
    )


def fit(names, tasks):
    trainable = [t for t in tasks if t["y"].any() and len(t["y"]) > 1]
    model = make(names)
    model.fit(np.concatenate([t["x"] for t in trainable]),
              np.concatenate([t["y"] for t in trainable]),
              group=[len(t["y"]) for t in trainable])
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="+", help="NAME=RUNS.jsonl")
    ap.add_argument("--tasks", action="append", required=True)
    ap.add_argument("--patches", required=True, action="append",
                    help="the fixes as {id, patch} lines (shared/bench/dev_patches.jsonl; "
                    "benches/mined_patches.py for mined tasks)")
    ap.add_argument("--definitions", required=True)
    ap.add_argument("--mirrors", action="append",
                    help="where the git mirrors are (OWNER+NAME; several: the first that "
                    "has the repository; default $DD_EVAL_MIRRORS)")
    ap.add_argument("--eval", action="append", default=[],
                    help="NAME=RUNS.jsonl scored, never trained on: each task by the fold "
                    "model that did not see its repository (e.g. the same tasks run "
                    "--no-history)")
    ap.add_argument("--out")
    ap.add_argument("--report")
    ap.add_argument("--drop", default="",
                    help="features left out, comma-separated (to measure what they add)")
    args = ap.parse_args()
    args.mirrors = args.mirrors or [os.environ.get("DD_EVAL_MIRRORS", "")]
    sets = [s.split("=", 1) for s in args.sets]
    tasks, names = load(sets, args.tasks, args.patches, args.definitions, args.mirrors)
    if not tasks:
        sys.exit("no task with definition features and a function-level gold")
    dropped = [d for d in args.drop.split(",") if d]
    if dropped:
        keep = [i for i, n in enumerate(names) if n not in dropped]
        names = [names[i] for i in keep]
        for t in tasks:
            t["x"] = t["x"][:, keep]
    print(f"{len(tasks)} tasks, {sum(len(t['y']) for t in tasks)} candidate definitions, "
          f"{sum(int(t['y'].sum()) for t in tasks)} positive", file=sys.stderr)
    results = {"hand-set": {t["id"]: accuracy(t, hand_set(names, t["x"])) for t in tasks}}
    fold_of = folds(tasks, 5)
    extra = []
    if args.eval:
        extra, extra_names = load([e.split("=", 1) for e in args.eval], args.tasks,
                                  args.patches, args.definitions, args.mirrors)
        if extra and extra_names != names:
            sys.exit("--eval: other feature names than the training sets'")
    oof, oof_extra = {}, {}
    for f in sorted(set(fold_of.values())):
        train = [t for t in tasks if fold_of[t["repo"]] != f]
        model = fit(names, train)
        for t in tasks:
            if fold_of[t["repo"]] == f:
                oof[t["id"]] = model.predict(t["x"]) if len(t["x"]) else np.zeros(0)
        for t in extra:
            if fold_of.get(t["repo"], 0) == f:
                oof_extra[(t["set"], t["id"])] = model.predict(t["x"]) if len(t["x"]) else np.zeros(0)
    results["LambdaMART (grouped CV)"] = {t["id"]: accuracy(t, oof[t["id"]]) for t in tasks}
    report = table(results, tasks)
    if extra:
        # Keys by set and id: the same task may come in several --eval sets.
        for t in extra:
            t["id"] = (t["set"], t["id"])
        scored = {"hand-set": {t["id"]: accuracy(t, hand_set(names, t["x"])) for t in extra},
                  "LambdaMART (grouped CV)": {t["id"]: accuracy(t, oof_extra[t["id"]]) for t in extra}}
        report += "\n\nScored only (`--eval`), each task by the fold model that never saw its repository:\n\n"
        report += table(scored, extra)
    print(report)
    if args.out:
        model = fit(names, tasks)
        exported = export_lightgbm(type("R", (), {"model": model})(), names)
        raw = np.concatenate([oof[t["id"]] for t in tasks])
        y = np.concatenate([t["y"] for t in tasks])
        platt = LogisticRegression(C=1e6, max_iter=1000).fit(raw.reshape(-1, 1), y)
        exported["calibration"] = {"scale": float(platt.coef_[0][0]),
                                   "offset": float(platt.intercept_[0])}
        probe = np.concatenate([t["x"][:4] for t in tasks[:8]])
        exported["checks"] = [{"row": [float(v) for v in row], "raw": float(r)}
                              for row, r in zip(probe, model.predict(probe))]
        exported["trained_on"] = dict(collections.Counter(t["set"] for t in tasks))
        exported["repositories"] = len({t["repo"] for t in tasks})
        exported["seed"] = SEED
        # The model's card: what it is, what it learned from, how to rebuild it, and
        # its held-out numbers (Acc@k, every gold definition in the first k).
        exported["card"] = {
            "model": "LightGBM LambdaMART (200 trees, 7 leaves), monotone in the evidence, "
                     "Platt-calibrated; trained from scratch, no pretrained weights",
            "data": "function-level gold from the fixes of the sets in trained_on: mined "
                    "tasks of repositories outside shared/bench/benchmark_repos.txt and the "
                    "public SWE-bench Lite and Multilingual dev tasks",
            "rebuild": "make train (benches/train_definitions.py; benches/README.md, "
                       "'Where to look: function level')",
            "held_out": {
                scorer: {
                    s: {f"{level}@{k}": round(100 * float(np.mean(
                        [per_task[t["id"]][i][k] for t in tasks if t["set"] == s
                         and (i == 0 or t["gold_mod"])])), 1)
                        for i, level in enumerate(("function", "module")) for k in KS}
                    for s in sorted({t["set"] for t in tasks})
                }
                for scorer, per_task in results.items()
            },
        }
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(exported, f, separators=(",", ":"), sort_keys=True)
            f.write("\n")
    if args.report:
        with open(args.report, "w", encoding="utf-8") as f:
            f.write("# The order of the package's definitions: grouped CV by repository\n\n")
            named = [s.split("=", 1)[0] + "=RUNS.jsonl" for s in args.sets]
            named += ["--eval " + e.split("=", 1)[0] + "=RUNS.jsonl" for e in args.eval]
            f.write("`python benches/train_definitions.py --tasks … --patches … "
                    "--definitions … " + " ".join(named) + "`\n\n"
                    "RUNS: `eval_tasks --locate --features --with-history [--no-history]` "
                    "on each set (`benches/features.sh`).\n\n")
            f.write(report + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
