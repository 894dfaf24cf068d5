"""Function-level and module-level localization (issue 48): how often every gold
definition of a task is among the first k of the package's `definitions`.

    python3 benches/function_level.py --runs RUNS.jsonl --tasks TASKS.jsonl \
        --patches shared/bench/dev_patches.jsonl \
        --definitions target/release/examples/file_definitions [--mirrors DIR] \
        [--k 1,5,10] [--json OUT]

RUNS is `eval_tasks --json` output (each line a task's record, with its `definitions`
list, best first, as `locate` and `discover` return it). TASKS gives each task's
repository and base commit; PATCHES the fix as a unified diff against it (the answer
key, never a feature).

The gold, from the fix's changed lines:
- Each hunk's lines are walked on the old side. A removed line is a changed line. A run
  of added lines with no removed line beside it (a pure insertion) counts as a change of
  the old line before it (line 1 at the top of a file): the insertion point's owner is
  what a reader of the old file has to find. (A method appended at the end of a class
  therefore counts for the class's last method, not the class: the line-before rule,
  not an indentation rule.)
- Every file the fix changes that exists at the base commit is read there, and its
  definitions computed by the `file_definitions` example: exactly the parser and the
  names (`Class.method`, `outer.inner`, a Go method `Type.Method`) the product uses.
- Function level: a changed line belongs to the innermost definition of a kind in
  KINDS holding it (shortest span, the later on a tie). A line outside every one
  (imports, module-level code) gives no gold definition; a task with none is left out
  of the function-level counts (and said).
- Module level: the outermost definition of a kind in KINDS holding the line (the
  top-level class or function). A prediction counts for the outermost definition
  holding its first line, so a predicted method finds its class.

A task counts at k when every one of its gold entities is among the first k
(LocAgent's "all gold in the top k"). Reported per task file and language; with
`--json`, one line per task with its gold and the rank of each gold entity.
Standard library only; needs `git`.
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys

KINDS = {"function", "method", "class", "interface", "trait", "struct", "enum"}
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def changed_old_lines(patch):
    """Per old path of the diff, the old-side lines the fix changes (see the module
    docs). New files (`--- /dev/null`) are left out."""
    out = collections.defaultdict(set)
    state = {"path": None, "old": 0, "insert": False, "removed": False}

    def end_run():
        # A run of added lines with no removed line beside it: the line before it.
        if state["insert"] and not state["removed"] and state["path"] is not None:
            out[state["path"]].add(max(state["old"] - 1, 1))
        state["insert"] = state["removed"] = False

    for line in patch.splitlines():
        m = HUNK.match(line)
        if m:
            end_run()
            # `-a,0`: nothing removed; the new lines go after old line a.
            state["old"] = int(m.group(1)) + (1 if m.group(2) == "0" else 0)
        elif line.startswith("diff "):
            end_run()
            state["path"] = None
        elif line.startswith("--- "):
            name = line[4:].split("\t")[0]
            state["path"] = name[2:] if name.startswith("a/") else None
        elif line.startswith("+++ ") or state["path"] is None:
            continue
        elif line.startswith("-"):
            out[state["path"]].add(state["old"])
            state["old"] += 1
            state["removed"] = True
        elif line.startswith("+"):
            state["insert"] = True
        elif line.startswith("\\"):
            continue
        else:
            end_run()
            state["old"] += 1
    end_run()
    return out


def git_show(gitdir, commit, path):
    r = subprocess.run(["git", f"--git-dir={gitdir}", "show", f"{commit}:{path}"],
                       capture_output=True)
    if r.returncode != 0 or b"\0" in r.stdout[:8192] or len(r.stdout) > 1 << 20:
        return None
    return r.stdout.decode("utf-8", "replace")


def definitions_of(example, files):
    """{(id, path): [definition]} through the `file_definitions` example."""
    if not files:
        return {}
    lines = "".join(json.dumps({"id": i, "path": p, "text": t}) + "\n" for (i, p), t in files.items())
    r = subprocess.run([example], input=lines.encode(), capture_output=True, check=True)
    out = {}
    for line in r.stdout.decode().splitlines():
        rec = json.loads(line)
        out[(rec["id"], rec["path"])] = rec["definitions"]
    return out


def owner(defs, line, outermost):
    """The innermost (or outermost) definition of a kind in KINDS holding `line`."""
    holding = [d for d in defs if d["kind"] in KINDS and d["start"] <= line <= d["end"]]
    if not holding:
        return None
    if outermost:
        return min(holding, key=lambda d: (d["start"], -d["end"]))
    return min(holding, key=lambda d: (d["end"] - d["start"], -d["start"]))


def gold_of(changed, definitions_of):
    """The function- and module-level gold of one task: `(path, name)` sets of the
    innermost and the outermost definitions holding each changed line. `changed` is
    `changed_old_lines`' answer, `definitions_of(path)` a file's definitions at the base
    commit (None when it could not be read)."""
    gold_fn, gold_mod = set(), set()
    for path, lines in changed.items():
        file_defs = definitions_of(path)
        if file_defs is None:
            continue
        for line in lines:
            d = owner(file_defs, line, outermost=False)
            if d:
                gold_fn.add((path, d["name"]))
            d = owner(file_defs, line, outermost=True)
            if d:
                gold_mod.add((path, d["name"]))
    return gold_fn, gold_mod


def mirror_of(mirrors, repo):
    return os.path.join(mirrors, repo.replace("/", "+"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", required=True, action="append")
    ap.add_argument("--tasks", required=True, action="append")
    ap.add_argument("--patches", required=True)
    ap.add_argument("--definitions", required=True, help="the file_definitions example")
    ap.add_argument("--mirrors", default=os.environ.get("DD_EVAL_MIRRORS"))
    ap.add_argument("--k", default="1,5,10")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    ks = [int(k) for k in args.k.split(",")]
    tasks = {}
    for path in args.tasks:
        with open(path) as f:
            for line in f:
                t = json.loads(line)
                tasks[t["id"]] = (t, os.path.basename(path))
    patches = {}
    with open(args.patches) as f:
        for line in f:
            p = json.loads(line)
            patches[p["id"]] = p["patch"]
    runs, unavailable = [], []
    for path in args.runs:
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                # A task whose repository could not be had is no result (it is said).
                if r.get("id") in tasks and r.get("id") in patches:
                    if r.get("status") == "ok":
                        runs.append(r)
                    else:
                        unavailable.append(r["id"])
    # Every file whose definitions are needed: the fixed files and the predicted ones.
    wanted = {}
    changed = {}
    for r in runs:
        task, _ = tasks[r["id"]]
        gitdir = mirror_of(args.mirrors, task["repo"])
        changed[r["id"]] = changed_old_lines(patches[r["id"]])
        paths = set(changed[r["id"]]) | {d["path"] for d in r.get("definitions") or []}
        for p in sorted(paths):
            text = git_show(gitdir, task["base_commit"], p)
            if text is not None:
                wanted[(r["id"], p)] = text
    defs = definitions_of(args.definitions, wanted)
    totals = collections.defaultdict(lambda: collections.Counter())
    out = open(args.json, "w") if args.json else None
    for r in runs:
        task, set_name = tasks[r["id"]]
        groups = [set_name, f"{set_name}:{task.get('language', '?')}"]
        gold_fn, gold_mod = gold_of(changed[r["id"]], lambda p: defs.get((r["id"], p)))
        predicted = [(d["path"], d["name"]) for d in r.get("definitions") or []]
        modules = []
        for d in r.get("definitions") or []:
            m = owner(defs.get((r["id"], d["path"]), []), d["span"]["start"], outermost=True)
            entity = (d["path"], m["name"]) if m else (d["path"], d["name"])
            if entity not in modules:
                modules.append(entity)
        rank_fn = {g: (predicted.index(g) + 1 if g in predicted else None) for g in gold_fn}
        rank_mod = {g: (modules.index(g) + 1 if g in modules else None) for g in gold_mod}
        for g in groups:
            c = totals[g]
            c["tasks"] += 1
            if gold_fn:
                c["fn_tasks"] += 1
                for k in ks:
                    c[f"fn@{k}"] += all(v is not None and v <= k for v in rank_fn.values())
            if gold_mod:
                c["mod_tasks"] += 1
                for k in ks:
                    c[f"mod@{k}"] += all(v is not None and v <= k for v in rank_mod.values())
        if out:
            out.write(json.dumps({
                "id": r["id"], "set": set_name, "language": task.get("language"),
                "function_gold": [{"path": p, "name": n, "rank": rank_fn[(p, n)]} for p, n in sorted(gold_fn)],
                "module_gold": [{"path": p, "name": n, "rank": rank_mod[(p, n)]} for p, n in sorted(gold_mod)],
            }) + "\n")
    if out:
        out.close()
    head = "| set | tasks | with function gold | " + " | ".join(
        [f"fn Acc@{k}" for k in ks] + [f"module Acc@{k}" for k in ks]) + " |"
    print(head)
    print("|" + " --- |" * (3 + 2 * len(ks)))
    for g in sorted(totals):
        c = totals[g]
        fn = [f"{100 * c[f'fn@{k}'] / c['fn_tasks']:.1f}" if c["fn_tasks"] else "-" for k in ks]
        mod = [f"{100 * c[f'mod@{k}'] / c['mod_tasks']:.1f}" if c["mod_tasks"] else "-" for k in ks]
        print(f"| {g} | {c['tasks']} | {c['fn_tasks']} | " + " | ".join(fn + mod) + " |")
    if unavailable:
        print(f"\n{len(unavailable)} tasks not run (their repository or commit could not be had): "
              + ", ".join(sorted(unavailable)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
