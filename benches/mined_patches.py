"""The fixes of mined tasks as unified diffs, in the format of
`shared/bench/dev_patches.jsonl` (`{"id", "patch"}`), so that function-level gold can be
built for them as for the development tasks (`benches/function_level.py`,
`benches/train_definitions.py`).

    python3 benches/mined_patches.py [--mirrors DIR] TASKS.jsonl > PATCHES.jsonl

TASKS is the miner's output (`benches/mine_tasks.py`). The fix is the commit of the task's
id (`owner__name-<sha10>`) against the task's `base_commit`, as the miner defines it (for
a pull-request merge, first parent -> merge; otherwise parent -> commit; in both cases the
old side is the base commit). Only the task's gold files that exist at the base commit are
diffed (tests, vendored and generated files are not gold), without rename detection, so
each file's old side is its text at the base commit. A task whose commit cannot be found
is left out and named on stderr. Standard library only; needs `git`.
"""

import argparse
import json
import os
import subprocess
import sys


def git(gitdir, *args):
    r = subprocess.run(["git", f"--git-dir={gitdir}", *args], capture_output=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.decode("utf-8", "replace").strip())
    return r.stdout


def gitdir_of(mirrors, repo):
    """The miner's layout: MIRRORS/owner+name/repo, or MIRRORS/owner+name itself."""
    base = os.path.join(mirrors, repo.replace("/", "+"))
    nested = os.path.join(base, "repo")
    return nested if os.path.isdir(nested) else base


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tasks")
    ap.add_argument("--mirrors", default=os.environ.get("DD_EVAL_MIRRORS"))
    args = ap.parse_args(argv)
    if not args.mirrors:
        ap.error("give --mirrors DIR or set DD_EVAL_MIRRORS")
    kept = missing = 0
    with open(args.tasks, encoding="utf-8") as f:
        for line in f:
            task = json.loads(line)
            gitdir = gitdir_of(args.mirrors, task["repo"])
            new = set(task.get("gold_new_files") or [])
            paths = [p for p in task["gold_files"] if p not in new]
            try:
                commit = git(gitdir, "rev-parse", task["id"].rsplit("-", 1)[1] + "^{commit}")
                commit = commit.decode().strip()
                patch = git(gitdir, "diff", "--no-color", "--no-ext-diff", "--no-renames",
                            task["base_commit"], commit, "--", *paths) if paths else b""
            except RuntimeError as e:
                print(f"{task['id']}: {e}", file=sys.stderr)
                missing += 1
                continue
            print(json.dumps({"id": task["id"], "patch": patch.decode("utf-8", "replace")}))
            kept += 1
    print(f"{kept} patches, {missing} tasks left out", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
