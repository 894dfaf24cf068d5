"""Bare clones (`git clone --mirror`) of the repositories of task files, where
`eval_tasks` looks for them: `$DD_EVAL_MIRRORS/OWNER+NAME` (or `--mirrors DIR`).

    .venv/bin/python benches/mirror_repos.py [--mirrors DIR] [--url-template T] TASKS.jsonl...

The task files are read by `deepdiscovery.eval.load_tasks`, as every driver reads them
(a line that is not a task stops the script and is named). A repository already there is
left as it is (`git fetch` it by hand to bring it up to date). `--url-template` says where
a repository is cloned from, `{repo}`, `{owner}` and `{name}` filled in (default
`https://github.com/{repo}.git`). Prints one line per repository; exits 1 when a clone
failed.
"""

import argparse
import os
import subprocess
import sys

from deepdiscovery.eval import load_tasks


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tasks", nargs="+", help="task files (JSONL)")
    ap.add_argument("--mirrors", default=os.environ.get("DD_EVAL_MIRRORS"),
                    help="where the clones go (default $DD_EVAL_MIRRORS)")
    ap.add_argument("--url-template", default="https://github.com/{repo}.git")
    args = ap.parse_args()
    if not args.mirrors:
        ap.error("give --mirrors DIR or set DD_EVAL_MIRRORS")
    repos = sorted({t["repo"] for path in args.tasks for t in load_tasks(path)})
    os.makedirs(args.mirrors, exist_ok=True)
    failed = 0
    for repo in repos:
        owner, _, name = repo.partition("/")
        if not owner or not name or "/" in name or owner.startswith("."):
            print(f"{repo}: not an owner/name, skipped")
            failed += 1
            continue
        dest = os.path.join(args.mirrors, f"{owner}+{name}")
        if os.path.isdir(dest):
            print(f"{repo}: present")
            continue
        url = args.url_template.format(repo=repo, owner=owner, name=name)
        done = subprocess.run(
            ["git", "clone", "--quiet", "--mirror", url, dest + ".partial"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            print(f"{repo}: clone failed: {done.stderr.strip().splitlines()[-1:]}")
            subprocess.run(["rm", "-rf", dest + ".partial"])
            failed += 1
            continue
        os.replace(dest + ".partial", dest)
        print(f"{repo}: cloned")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
