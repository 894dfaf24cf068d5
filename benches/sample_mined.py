"""A spread sample of mined tasks: at most N per repository, evenly over its history.

    python3 benches/sample_mined.py MINED/mined.jsonl MINED/sample.jsonl [N]
        [--exclude OTHER.jsonl] [--exclude-repos REPOS.txt]

N defaults to 4 (260 tasks from the 66 repositories of benches/mined_repos.txt), small
enough for one `eval_tasks` run in a few minutes on two cores. `--exclude` leaves out
the tasks of another sample (the training set of `make train` is drawn apart from the
evaluation sample); `--exclude-repos` leaves out the repositories of a list (`owner/name`
first on a line: the repositories an embedder trained on, `benches/embedder_repos.txt`,
so that its similarity on the sample is what it is on unseen code). Deterministic.
"""

import collections
import json
import sys


def take_option(argv, name):
    """Removes `name VALUE` from argv and returns the lines of the file VALUE names
    ([] without the option); None when the value is missing."""
    if name not in argv:
        return []
    at = argv.index(name)
    if at + 1 >= len(argv):
        return None
    with open(argv[at + 1], encoding="utf-8") as f:
        lines = [line for line in f if line.strip()]
    del argv[at : at + 2]
    return lines


def main(argv):
    argv = list(argv)
    banned_lines = take_option(argv, "--exclude-repos")
    excluded_lines = take_option(argv, "--exclude")
    if banned_lines is None or excluded_lines is None:
        print(__doc__, file=sys.stderr)
        return 2
    banned = {l.split()[0].lower() for l in banned_lines if not l.startswith("#")}
    excluded = {json.loads(line)["id"] for line in excluded_lines}
    if len(argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    per_repo = int(argv[3]) if len(argv) == 4 else 4
    by_repo = collections.defaultdict(list)
    with open(argv[1], encoding="utf-8") as f:
        for line in f:
            task = json.loads(line)
            if task["id"] not in excluded and task["repo"].lower() not in banned:
                by_repo[task["repo"]].append(task)
    out = []
    for repo in sorted(by_repo, key=str.lower):
        tasks = by_repo[repo]
        step = max(1, len(tasks) // per_repo)
        out += tasks[::step][:per_repo]
    with open(argv[2], "w", encoding="utf-8") as f:
        f.writelines(json.dumps(t) + "\n" for t in out)
    print(f"{len(out)} tasks from {len(by_repo)} repositories", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
