"""The issue-to-code embedder's training pairs: mined task -> the definitions its fix
changes (positives) and definitions it does not change (negatives), each with the text
the embedder reads for it.

    python3 benches/embedder_pairs.py [--mirrors DIR] --tasks TASKS.jsonl \
        --definitions target/release/examples/definition_texts --out PAIRS.jsonl \
        [--exclude TASKS.jsonl ...] [--repo-negatives 30] [--seed 0]

TASKS is the miner's output (`benches/mine_tasks.py --any-commit --gold-files 1-10`).
The definitions and their texts come from the `definition_texts` example (`cargo build
--release -p deepdiscovery-core --example definition_texts`), i.e. exactly what
`semantic::definition_texts` embeds at query time. Git directories are looked up under
the mirrors directory (`--mirrors`, default `$DD_EVAL_MIRRORS`) as the miner does.

Per task:
- The fix is the commit of the task's id, as the miner defines it: for a pull-request
  merge, first parent -> merge; otherwise parent -> commit. In both cases the old side is
  the task's `base_commit`.
- Each gold file that exists at the base commit (not in `gold_new_files`) and is source
  code (by extension) is diffed (`git diff -U0 BASE COMMIT -- FILE`); the hunk headers
  `@@ -a,b +c,d @@` give the old-side changed lines a .. a+b-1. A pure insertion (b == 0)
  counts as a change of line a, the line after which the new lines go (line 1 when a is
  0): the insertion point's owner is what a reader of the old file would have to find.
- The file is read at the base commit (what a retriever sees when the task is posed),
  skipped when binary (a NUL in its first 8 KiB) or over 256 KiB, and its definitions
  computed. Definitions nest; a changed line belongs to the innermost definition
  containing it (the smallest span; on a tie the later one, as the example lists outer
  before inner). A line outside every definition (imports, module-level code) gives no
  positive.
- positives: the definitions owning a changed line, deduplicated, in file order.
- negatives, each marked with `hard`:
  - `same_file`: every other definition of those gold files that holds no changed line
    (so no encloser of a positive);
  - `repo`: up to --repo-negatives definitions of other source files of the repository
    (not this task's gold files; not tests, vendored or generated files by the miner's
    path rules; at most 256 KiB) at the same base commit. Files that are gold files of
    the repository's other tasks come first (realistic candidates), then the remaining
    source files of the tree; each group in an order drawn from crc32(task id) and
    --seed. Of the first 16 files, definitions are taken round-robin over the first 8
    that have any, at most 10 a file, themselves in a seeded order.
  A negative whose text is a positive's or an earlier negative's is left out.
- A task with no positive is dropped. A file the example fails on (a panic) gets no
  definitions and is named on stderr.

`--exclude` drops every task whose id, or whose repository and base commit, appear in the
given task files (as `benches/bridge_corpus.py`), so measured sets stay out of training.

Output: one line per kept task, `{"id", "repo", "language", "task", "positives":
[{"path", "name", "qualified", "kind", "start", "end", "text"}], "negatives": [the same
fields and "hard"]}`, in the order of TASKS. A summary (tasks, positives, negatives per
language; repositories) goes to stdout, progress to stderr. Deterministic: the same
inputs give the same file. Standard library only; needs `git`.
"""

import argparse
import collections
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bridge_corpus import excluded_keys  # noqa: E402
from mine_tasks import (  # noqa: E402
    CODE_EXTS, BlobReader, find_gitdir, git, is_test_path, is_vendored_or_generated_path)

MAX_BYTES = 256 * 1024
REPO_FILES = 8          # files a task's repo negatives come from, at most
PER_FILE = 10           # repo negatives taken from one file, at most
HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")
FIELDS = ("path", "name", "qualified", "kind", "start", "end", "text")


def commit_of(task):
    """The abbreviated commit of a task id (`owner__name-<sha10>`)."""
    return task["id"].rsplit("-", 1)[1]


def resolve_commits(gitdir, tasks):
    """Full commit names of the tasks' ids, by id (missing ones left out)."""
    out = {}
    revs = [commit_of(t) + "^{commit}" for t in tasks]
    try:
        shas = git(gitdir, "rev-parse", *revs).decode().split()
        if len(shas) == len(tasks):
            return {t["id"]: s for t, s in zip(tasks, shas)}
    except RuntimeError:
        pass
    for t, rev in zip(tasks, revs):  # one at a time: an ambiguous or missing name
        try:
            out[t["id"]] = git(gitdir, "rev-parse", rev).decode().strip()
        except RuntimeError:
            pass
    return out


def changed_old_lines(gitdir, base, change, path):
    """The old-side line numbers `git diff -U0` marks as changed in one file."""
    raw = git(gitdir, "diff", "-U0", "--no-color", "--no-ext-diff", "--no-renames",
              base, change, "--", path)
    lines = set()
    for line in raw.split(b"\n"):
        m = HUNK.match(line)
        if not m:
            continue
        a = int(m.group(1))
        b = int(m.group(2)) if m.group(2) is not None else 1
        if b == 0:
            lines.add(max(a, 1))
        else:
            lines.update(range(a, a + b))
    return lines


def tree_of(gitdir, commit):
    """{path: (blob, size)} of the source files of a commit's tree."""
    raw = git(gitdir, "ls-tree", "-r", "-l", "-z", commit)
    out = {}
    for rec in raw.split(b"\0"):
        if not rec:
            continue
        meta, path = rec.split(b"\t", 1)
        try:
            meta, path = meta.decode(), path.decode("utf-8")
        except UnicodeDecodeError:  # a path that is not UTF-8: not a candidate
            continue
        mode, kind, blob, size = meta.split()
        if kind != "blob" or mode == "120000" or size == "-":
            continue
        if path.lower().endswith(CODE_EXTS):
            out[path] = (blob, int(size))
    return out


def is_candidate(path, size):
    return (size <= MAX_BYTES and not is_test_path(path)
            and not is_vendored_or_generated_path(path))


def innermost(defs, line):
    """Index of the smallest definition containing a line; on a tie the later one (the
    example lists outer before inner)."""
    best = None
    for i, d in enumerate(defs):
        if d["start"] <= line <= d["end"]:
            if best is None or d["end"] - d["start"] <= defs[best]["end"] - defs[best]["start"]:
                best = i
    return best


def record(d, path, hard=None):
    out = {"path": path}
    out.update({k: d[k] for k in FIELDS[1:]})
    if hard:
        out["hard"] = hard
    return out


# What one task needs: its gold files with their changed lines, [(path, blob, lines)],
# and the files its repo negatives may come from, [(path, blob)], in the order tried.
Plan = collections.namedtuple("Plan", "task gold others")


def plan_repo(gitdir, tasks, commits, blobs_wanted, seed, stats):
    """The plans of one repository's tasks; registers every (path, blob) to read."""
    gold_paths = sorted({p for t in tasks for p in t["gold_files"]
                         if p.lower().endswith(CODE_EXTS)})
    plans = []
    for t in tasks:
        change = commits.get(t["id"])
        if change is None:
            stats["no_commit"] += 1
            continue
        base = t["base_commit"]
        try:
            tree = tree_of(gitdir, base)
        except RuntimeError:
            stats["no_base"] += 1
            continue
        new = set(t.get("gold_new_files", []))
        gold = []
        for path in t["gold_files"]:
            if path in new or path not in tree:
                continue
            blob, size = tree[path]
            if size > MAX_BYTES:
                stats["gold_too_big"] += 1
                continue
            try:
                lines = changed_old_lines(gitdir, base, change, path)
            except RuntimeError:  # an object the mirror lacks
                stats["diff_error"] += 1
                continue
            if lines:
                gold.append((path, blob, lines))
                blobs_wanted.add((path, blob))
        if not gold:
            stats["no_gold_source"] += 1
            continue
        own = set(t["gold_files"])
        rng = random.Random(zlib.crc32(t["id"].encode()) ^ seed)
        first = [p for p in gold_paths if p not in own and p in tree
                 and is_candidate(p, tree[p][1])]
        firsts = set(first)
        rest = [p for p in sorted(tree) if p not in own and p not in firsts
                and is_candidate(p, tree[p][1])]
        rng.shuffle(first)
        rng.shuffle(rest)
        others = [(p, tree[p][0]) for p in (first + rest)[:2 * REPO_FILES]]
        blobs_wanted.update(others)
        plans.append(Plan(t, gold, others))
    return plans


def read_definitions(blobs, binary, wanted):
    """{(path, blob): [definition]} of the wanted files through `definition_texts`. A file
    the example fails on (exit status not 0) gets none, and the files after it are sent
    again."""
    out, pending = {}, []
    for key in sorted(wanted):
        data = blobs.head(key[1], MAX_BYTES + 1)
        if data is None or len(data) > MAX_BYTES or b"\0" in data[:8192]:
            out[key] = []
        else:
            pending.append((key, data.decode("utf-8", errors="replace")))
    while pending:
        with tempfile.TemporaryFile("w+b") as tmp:
            for n, ((path, _blob), text) in enumerate(pending):
                tmp.write(json.dumps({"id": n, "path": path, "text": text}).encode() + b"\n")
            tmp.seek(0)
            result = subprocess.run([binary], stdin=tmp, capture_output=True)
        done = set()
        for line in result.stdout.decode("utf-8").splitlines():
            row = json.loads(line)
            out[pending[row["id"]][0]] = row["definitions"]
            done.add(row["id"])
        if result.returncode == 0:
            for n, (key, _text) in enumerate(pending):
                if n not in done:  # a line the example skipped
                    out[key] = []
            break
        failed = min(n for n in range(len(pending)) if n not in done)
        print(f"warning: definition_texts failed on {pending[failed][0][0]}: "
              f"{result.stderr.decode(errors='replace')[-300:]}", file=sys.stderr)
        out[pending[failed][0]] = []
        pending = [p for n, p in enumerate(pending) if n > failed]
    return out


def pairs_of(plan, defs, repo_negatives, seed):
    """The task's output record, or None when no positive is found."""
    positives, same_file = [], []
    for path, blob, lines in plan.gold:
        file_defs = defs[(path, blob)]
        owners = {innermost(file_defs, ln) for ln in lines} - {None}
        touched = {i for i, d in enumerate(file_defs)
                   if any(d["start"] <= ln <= d["end"] for ln in lines)}
        for i, d in enumerate(file_defs):
            if i in owners:
                positives.append(record(d, path))
            elif i not in touched:
                same_file.append(record(d, path, "same_file"))
    if not positives:
        return None
    seen = {p["text"] for p in positives}
    negatives = []
    for n in same_file:
        if n["text"] not in seen:
            seen.add(n["text"])
            negatives.append(n)
    rng = random.Random(zlib.crc32(plan.task["id"].encode()) ^ seed ^ 0x5EED)
    pools = []
    for path, blob in plan.others:
        file_defs = [d for d in defs[(path, blob)] if d["text"] not in seen]
        if file_defs:
            rng.shuffle(file_defs)
            pools.append((path, file_defs[:PER_FILE]))
        if len(pools) == REPO_FILES:
            break
    taken = 0
    for k in range(PER_FILE):
        for path, file_defs in pools:
            if taken < repo_negatives and k < len(file_defs) and file_defs[k]["text"] not in seen:
                seen.add(file_defs[k]["text"])
                negatives.append(record(file_defs[k], path, "repo"))
                taken += 1
    t = plan.task
    return {"id": t["id"], "repo": t["repo"], "language": t.get("language"), "task": t["task"],
            "positives": positives, "negatives": negatives}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirrors", default=os.environ.get("DD_EVAL_MIRRORS"),
                    help="the git mirrors (default $DD_EVAL_MIRRORS)")
    ap.add_argument("--tasks", required=True, help="the miner's output")
    ap.add_argument("--definitions", required=True, help="the definition_texts example binary")
    ap.add_argument("--out", required=True)
    ap.add_argument("--exclude", nargs="*", default=[])
    ap.add_argument("--repo-negatives", type=int, default=30,
                    help="definitions of other files of the repository per task, at most")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if not args.mirrors:
        ap.error("no mirrors directory: give --mirrors or set DD_EVAL_MIRRORS")

    excluded = excluded_keys(args.exclude)
    by_repo, order = {}, []
    dropped_excluded = 0
    with open(args.tasks, encoding="utf-8") as f:
        for line in f:
            t = json.loads(line)
            if t["id"] in excluded or (t["repo"].lower(), t["base_commit"]) in excluded:
                dropped_excluded += 1
                continue
            if t["repo"] not in by_repo:
                by_repo[t["repo"]] = []
                order.append(t["repo"])
            by_repo[t["repo"]].append(t)

    stats = collections.Counter()
    per_lang = collections.defaultdict(collections.Counter)
    repos_kept = collections.defaultdict(set)
    with open(args.out, "w", encoding="utf-8") as out:
        for repo in order:
            tasks = by_repo[repo]
            gitdir = find_gitdir(args.mirrors, repo)
            if gitdir is None:
                print(f"warning: no git directory for {repo}", file=sys.stderr)
                stats["no_mirror"] += len(tasks)
                continue
            wanted = set()
            commits = resolve_commits(gitdir, tasks)
            plans = plan_repo(gitdir, tasks, commits, wanted, args.seed, stats)
            blobs = BlobReader(gitdir)
            try:
                defs = read_definitions(blobs, args.definitions, wanted)
            finally:
                blobs.close()
            kept = 0
            for plan in plans:
                row = pairs_of(plan, defs, args.repo_negatives, args.seed)
                if row is None:
                    stats["no_positive"] += 1
                    continue
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
                kept += 1
                c = per_lang[row["language"]]
                c["tasks"] += 1
                c["positives"] += len(row["positives"])
                for n in row["negatives"]:
                    c[n["hard"]] += 1
                repos_kept[row["language"]].add(repo)
            print(f"{repo:45s} {kept:5d} of {len(tasks):5d} tasks", file=sys.stderr, flush=True)

    total = collections.Counter()
    print(f"{'language':12s} {'repos':>5s} {'tasks':>6s} {'positives':>9s} "
          f"{'same_file':>9s} {'repo':>7s}")
    for lang in sorted(per_lang):
        c = per_lang[lang]
        total.update(c)
        print(f"{lang:12s} {len(repos_kept[lang]):5d} {c['tasks']:6d} {c['positives']:9d} "
              f"{c['same_file']:9d} {c['repo']:7d}")
    nrepos = sum(len(r) for r in repos_kept.values())
    print(f"{'all':12s} {nrepos:5d} {total['tasks']:6d} {total['positives']:9d} "
          f"{total['same_file']:9d} {total['repo']:7d}")
    dropped = ", ".join(f"{k}={v}" for k, v in sorted(stats.items()))
    print(f"excluded {dropped_excluded} tasks; dropped: {dropped or 'none'}")
    print(f"wrote {total['tasks']} tasks to {args.out}")


if __name__ == "__main__":
    sys.exit(main())
