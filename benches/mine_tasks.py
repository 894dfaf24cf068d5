"""Mine multi-file change tasks from the public git history of repositories.

    python3 benches/mine_tasks.py [--mirrors DIR] --out MINED/mined.jsonl \
        [--per-repo N] [--max-commits N] [--repos-file FILE] [--banned FILE] [--jobs N]
        [--any-commit] [--gold-files MIN-MAX] [REPO ...]

REPO is `owner/name`; its git directory is looked up under the mirrors directory
(`--mirrors`, default `$DD_EVAL_MIRRORS`) in the
layout the `fetch` tool produces (`MIRRORS/owner+name/repo`, or `MIRRORS/owner+name` itself
when that is a git directory). `--repos-file` lists repositories one a line (`#` starts a
comment), with an optional second column naming the language; without one, the language is
the one with the most source files in the HEAD tree.

The miner refuses (exit status 2) any repository listed in the benchmark repository list
(`--banned`, default `$DD_EVAL_BENCH/benchmark_repos.txt`, compared case-insensitively):
the later commits of those repositories hold the fixes of benchmark tasks.

A commit on the first-parent history of HEAD (the newest `--max-commits`) becomes a task when
- it is a GitHub pull-request merge ("Merge pull request #N ...") whose branch holds at most
  20 commits: the change is first parent -> merge, the text is the PR title and body from
  the merge message; or it is a non-merge commit whose message references an issue or pull
  request (`#123`, `GH-123`, a github.com issues/pull URL): the change is parent -> commit;
- the title (subject, or the PR title of a merge) has no word of a mechanical change
  (format, lint, typo, bump, release, version, revert, ...; a word that is part of the
  repository's own name is not counted, so psf/black keeps its history);
- the text, with trailers (Signed-off-by, Co-authored-by, ...), HTML comments and pure
  issue-reference lines removed, has at least 8 words;
- the change touches at most 40 files and renames at most half of them (`-M`);
- between 2 and 10 gold files remain (`--gold-files MIN-MAX`), at least 2 of them (at
  least MIN) existing at the base commit, and
  at least one of them is source code (by extension; `--allow-no-code` drops this rule, which
  otherwise removes docs-, CI- and packaging-only changes).

Gold files are the changed paths that exist after the change, minus tests, vendored or
generated files (path rules, and "generated"/"DO NOT EDIT" in the first lines of the
file), binary files and pure lockfiles. `gold_new_files` are the gold files that do not exist
at the base commit (added, or the new side of a rename or copy).

Output: one JSON object a line with the fields of shared/bench/multilingual_dev.jsonl
(`id`, `repo`, `base_commit`, `task`, `gold_files`, `gold_new_files`, `language`), ordered by
repository, then oldest to newest commit; per repository the newest `--per-repo` tasks. A
summary (tasks per repository, per language, gold-file-count histogram) goes to stdout.
Standard library only; needs the `git` program.
"""

import argparse
import collections
import json
import multiprocessing
import os
import re
import subprocess
import sys

DEFAULT_BANNED = (
    os.path.join(os.environ["DD_EVAL_BENCH"], "benchmark_repos.txt")
    if os.environ.get("DD_EVAL_BENCH")
    else None
)

MAX_TOTAL_FILES = 40
MIN_GOLD, MAX_GOLD = 2, 10
MIN_OLD_GOLD = 2
MIN_WORDS = 8
MAX_BRANCH_COMMITS = 20

# ---------------------------------------------------------------------------------------
# Languages: names as in shared/bench/multilingual_dev.jsonl (lower case).

LANG_EXTS = {
    "python": (".py",),
    "java": (".java",),
    "go": (".go",),
    "javascript": (".js", ".mjs", ".cjs", ".jsx"),
    "typescript": (".ts", ".tsx", ".mts", ".cts"),
    "rust": (".rs",),
    "c": (".c",),
    "cpp": (".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"),
    "ruby": (".rb",),
    "php": (".php",),
    "csharp": (".cs",),
    "kotlin": (".kt", ".kts"),
    "scala": (".scala",),
    "swift": (".swift",),
}
CODE_EXTS = tuple(e for exts in LANG_EXTS.values() for e in exts) + (
    ".h", ".pyi", ".pyx", ".erb", ".vue", ".svelte", ".m", ".mm", ".lua", ".pl", ".pm")
LANG_ALIASES = {
    "c++": "cpp", "cxx": "cpp", "c#": "csharp", "cs": "csharp", "js": "javascript",
    "ts": "typescript", "py": "python", "rb": "ruby", "golang": "go", "kt": "kotlin",
}

# ---------------------------------------------------------------------------------------
# Commit selection.

ISSUE_REF = re.compile(
    r"(?<![\w&/])#\d+\b"
    r"|\bGH-\d+\b"
    r"|github\.com/[\w.-]+/[\w.-]+/(?:issues|pull)/\d+",
    re.IGNORECASE,
)
PR_MERGE = re.compile(r"^Merge pull request #(\d+)\b")
NOISE_WORDS = re.compile(
    r"\b(re-?format\w*|format(?:s|ted|ting|ter)?|lint\w*|prettier|black|typos?|"
    r"bump\w*|releas\w*|versions?|versioning|merge branch|revert\w*|"
    r"clang-format|rustfmt|gofmt|whitespace|pre-commit|autoupdate|dependabot)\b"
    r"|^chore\((?:deps|release)",
    re.IGNORECASE,
)
TRAILER = re.compile(
    r"^\s*(signed-off-by|co-authored-by|reviewed-by|reviewed-on|acked-by|tested-by|"
    r"reported-by|suggested-by|helped-by|change-id|cc|pr-url|pr-close|closes-bug|"
    r"bug|backport-of|cherry-picked from|differential revision|x-original-commit)\s*:",
    re.IGNORECASE,
)
REF_ITEM = r"(?:[\w.-]+/[\w.-]+)?#\d+|GH-\d+|https?://github\.com/\S+/(?:issues|pull)/\d+\S*"
REF_ONLY_LINE = re.compile(
    r"^\s*[-*]?\s*(?:(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|refs?|references?|see|"
    r"related(?: to)?|part of|addresses|issue|pr)\s*:?\s*)?"
    rf"(?:{REF_ITEM})(?:\s*(?:,|and|&)?\s*(?:{REF_ITEM}))*\s*\.?\s*$",
    re.IGNORECASE,
)
SUBJECT_PR_SUFFIX = re.compile(r"\s*\((?:[\w.-]+/[\w.-]+)?#\d+\)\s*$")
HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'-]*")

# ---------------------------------------------------------------------------------------
# File classification.

TEST_DIR = re.compile(
    r"^(?:tests?|specs?|__tests__|__snapshots__|__mocks__|testdata|test[-_]?data|"
    r"fixtures?|__fixtures__|e2e|testing|testutils?|test[-_]?utils?|test[-_]?helpers?|"
    r"testsuite|test[-_]?suite)$",
    re.IGNORECASE,
)
TEST_DIR_SUFFIX = re.compile(r"(?:^|[._-])(?:unit|integration|functional)?tests?(?:[._-]|$)|\.specs?$",
                             re.IGNORECASE)
TEST_DIR_CAMEL = re.compile(r"[a-z0-9](?:Tests?|Specs?)$")  # commonTest, AutoMapper.UnitTests
TEST_STEM = re.compile(
    r"^tests?$|^test[_-]|[_-](?:tests?|spec|unittest)$|\.(?:test|spec|e2e|test-d)$",
    re.IGNORECASE,
)
TEST_STEM_CAMEL = re.compile(r"[a-z0-9](?:Test|Tests|Spec|IT|TestCase)$")
TEST_NAMES = {"conftest.py"}

VENDOR_DIR = {"vendor", "vendored", "third_party", "third-party", "thirdparty",
              "node_modules", "dist", "build", "deps", "extern", "bower_components"}
GENERATED_NAME = re.compile(
    r"(?:\.min\.(?:js|css)|\.pb\.go|_pb2(?:_grpc)?\.pyi?|\.pb\.(?:cc|h)|\.generated\.\w+|"
    r"\.g\.cs|\.designer\.cs|\.snap|\.map)$",
    re.IGNORECASE,
)
LOCKFILES = {"package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml",
             "cargo.lock", "poetry.lock", "pipfile.lock", "uv.lock", "go.sum",
             "composer.lock", "gemfile.lock", "packages.lock.json", "bun.lockb"}
GENERATED_HEAD = re.compile(
    r"do not edit|auto-?generated|code generated|generated by|@generated|"
    r"this file (?:is|was) generated|generated file",
    re.IGNORECASE,
)
BINARY_EXT = re.compile(
    r"\.(?:png|jpe?g|gif|bmp|ico|icns|webp|svgz|pdf|zip|gz|tgz|bz2|xz|7z|jar|war|class|"
    r"so|dll|dylib|exe|a|o|obj|lib|bin|dat|woff2?|ttf|otf|eot|mp[34]|wav|ogg|mov|avi|"
    r"pyc|wasm|db|sqlite3?|keystore|p12|der)$",
    re.IGNORECASE,
)


def is_test_path(path):
    parts = path.split("/")
    for seg in parts[:-1]:
        if TEST_DIR.match(seg) or TEST_DIR_SUFFIX.search(seg) or TEST_DIR_CAMEL.search(seg):
            return True
    name = parts[-1]
    if name.lower() in TEST_NAMES:
        return True
    stem = name.rsplit(".", 1)[0] if "." in name else name
    return bool(TEST_STEM.search(stem) or TEST_STEM_CAMEL.search(stem))


def is_vendored_or_generated_path(path):
    parts = path.split("/")
    if any(seg.lower() in VENDOR_DIR for seg in parts[:-1]):
        return True
    return bool(GENERATED_NAME.search(parts[-1]))


def is_lockfile(path):
    return path.rsplit("/", 1)[-1].lower() in LOCKFILES


# ---------------------------------------------------------------------------------------
# Git access.


def git(gitdir, *args, check=True):
    out = subprocess.run(["git", "--git-dir", gitdir, *args], capture_output=True)
    if check and out.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {out.stderr.decode(errors='replace')}")
    return out.stdout


class BlobReader:
    """A `git cat-file --batch` process: the first bytes of blobs, by `rev:path`."""

    def __init__(self, gitdir):
        self.proc = subprocess.Popen(["git", "--git-dir", gitdir, "cat-file", "--batch"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def head(self, spec, limit=2048):
        self.proc.stdin.write(spec.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            return None
        size = int(header[2])
        data = self.proc.stdout.read(size)
        self.proc.stdout.read(1)  # the newline after the contents
        return data[:limit]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def find_gitdir(mirrors, repo):
    base = os.path.join(mirrors, repo.replace("/", "+"))
    for cand in (os.path.join(base, "repo"), base, os.path.join(base, ".git")):
        if os.path.isfile(os.path.join(cand, "HEAD")) and os.path.isdir(os.path.join(cand, "objects")):
            return cand
    if os.path.isdir(base):
        for entry in sorted(os.listdir(base)):
            cand = os.path.join(base, entry)
            if os.path.isfile(os.path.join(cand, "HEAD")) and os.path.isdir(os.path.join(cand, "objects")):
                return cand
    return None


def detect_language(gitdir):
    names = git(gitdir, "ls-tree", "-r", "--name-only", "-z", "HEAD").decode(errors="replace")
    counts = collections.Counter()
    for path in names.split("\0"):
        if not path or is_test_path(path) or is_vendored_or_generated_path(path):
            continue
        low = path.lower()
        for lang, exts in LANG_EXTS.items():
            if low.endswith(exts):
                counts[lang] += 1
                break
    return counts.most_common(1)[0][0] if counts else "unknown"


# ---------------------------------------------------------------------------------------
# Mining one repository.


def clean_text(subject, body):
    subject = SUBJECT_PR_SUFFIX.sub("", subject).strip()
    body = HTML_COMMENT.sub("", body)
    lines = []
    for line in body.splitlines():
        if TRAILER.match(line) or REF_ONLY_LINE.match(line):
            continue
        if re.match(r"^\s*-{3,}\s*$", line):  # squash-merge separator before trailers
            continue
        lines.append(line.rstrip())
    text = "\n".join(lines).strip()
    text = re.sub(r"\n{3,}", "\n\n", text)
    return (subject + "\n\n" + text).strip() if text else subject


def noise_title(title, repo):
    own = set(re.split(r"[^a-z0-9]+", repo.lower()))
    for m in NOISE_WORDS.finditer(title):
        if m.group(0).lower() not in own:
            return True
    return False


def parse_name_status(raw):
    """`diff-tree -z --name-status -M` output -> [(status, old_path, new_path)]."""
    fields = raw.decode("utf-8", errors="surrogateescape").split("\0")
    out, i = [], 0
    while i < len(fields) and fields[i]:
        status = fields[i]
        if status[0] in "RC":
            out.append((status[0], fields[i + 1], fields[i + 2]))
            i += 3
        else:
            out.append((status[0], fields[i + 1], fields[i + 1]))
            i += 2
    return out


def binary_paths(gitdir, base, child):
    raw = git(gitdir, "diff-tree", "-r", "-M", "--numstat", "-z", base, child)
    fields = raw.decode("utf-8", errors="surrogateescape").split("\0")
    binary, i = set(), 0
    while i < len(fields):
        rec = fields[i]
        if not rec:
            i += 1
            continue
        parts = rec.split("\t")
        if len(parts) < 3:
            break
        if parts[2] == "":  # rename: the two paths follow as separate fields
            path = fields[i + 2]
            i += 3
        else:
            path = parts[2]
            i += 1
        if parts[0] == "-" and parts[1] == "-":
            binary.add(path)
    return binary


def commits(gitdir, max_commits):
    raw = git(gitdir, "log", "--first-parent", f"-n{max_commits}",
              "--format=%H%x00%P%x00%B%x1e", "HEAD")
    for rec in raw.decode("utf-8", errors="replace").split("\x1e"):
        rec = rec.lstrip("\n")
        if not rec:
            continue
        sha, parents, message = rec.split("\0", 2)
        yield sha, parents.split(), message


def candidate(gitdir, repo, sha, parents, message, stats, any_commit=False):
    """The (base, task text) of a commit that may become a task, or None. With
    `any_commit`, a non-merge commit needs no issue reference: its message is the text."""
    lines = message.strip("\n").split("\n")
    subject = lines[0].strip()
    body = "\n".join(lines[1:])
    if not parents:
        return None
    if len(parents) > 1:
        m = PR_MERGE.match(subject)
        if not m or len(parents) != 2:
            stats["merge_not_pr"] += 1
            return None
        n = int(git(gitdir, "rev-list", "--count", f"{parents[0]}..{parents[1]}").strip() or 0)
        if n > MAX_BRANCH_COMMITS:
            stats["long_branch"] += 1
            return None
        body_lines = body.strip("\n").split("\n")
        title = body_lines[0].strip() if body_lines and body_lines[0].strip() else ""
        if not title:
            stats["no_text"] += 1
            return None
        rest = "\n".join(body_lines[1:])
    else:
        if not any_commit and not ISSUE_REF.search(message):
            stats["no_ref"] += 1
            return None
        title, rest = subject, body
    if noise_title(title, repo):
        stats["noise_title"] += 1
        return None
    text = clean_text(title, rest)
    if len(WORD.findall(text)) < MIN_WORDS:
        stats["short_text"] += 1
        return None
    return parents[0], text


def gold_of(gitdir, blobs, base, child, stats, require_code=True):
    changes = parse_name_status(git(gitdir, "diff-tree", "-r", "-M", "--name-status", "-z",
                                    base, child))
    if not changes:
        stats["empty"] += 1
        return None
    if len(changes) > MAX_TOTAL_FILES:
        stats["too_many_files"] += 1
        return None
    renames = sum(1 for s, _, _ in changes if s == "R")
    if renames * 2 > len(changes):
        stats["mass_rename"] += 1
        return None
    binary = None
    gold, new = [], []
    for status, _old, path in changes:
        if status == "D":
            continue
        if is_test_path(path) or is_vendored_or_generated_path(path) or is_lockfile(path):
            continue
        if BINARY_EXT.search(path):
            continue
        if binary is None:
            binary = binary_paths(gitdir, base, child)
        if path in binary:
            continue
        head = blobs.head(f"{child}:{path}")
        if head is None or b"\0" in head[:1024]:
            continue
        first = b"\n".join(head.split(b"\n")[:5]).decode("utf-8", errors="replace")
        if GENERATED_HEAD.search(first):
            continue
        gold.append(path)
        if status in "ACR":
            new.append(path)
    if not MIN_GOLD <= len(gold) <= MAX_GOLD:
        stats["gold_count"] += 1
        return None
    if len(gold) - len(new) < MIN_OLD_GOLD:
        stats["too_few_old"] += 1
        return None
    if require_code and not any(p.lower().endswith(CODE_EXTS) for p in gold):
        stats["no_code_file"] += 1
        return None
    return gold, new


def mine_repo(gitdir, repo, language, per_repo, max_commits, require_code=True,
              any_commit=False):
    stats = collections.Counter()
    tasks = []
    seen_trees = set()
    blobs = BlobReader(gitdir)
    try:
        for sha, parents, message in commits(gitdir, max_commits):
            stats["commits"] += 1
            cand = candidate(gitdir, repo, sha, parents, message, stats, any_commit)
            if cand is None:
                continue
            base, text = cand
            got = gold_of(gitdir, blobs, base, sha, stats, require_code)
            if got is None:
                continue
            gold, new = got
            key = (base, tuple(gold))
            if key in seen_trees:
                continue
            seen_trees.add(key)
            owner, name = repo.split("/")
            tasks.append({
                "id": f"{owner}__{name}-{sha[:10]}",
                "repo": repo,
                "base_commit": base,
                "task": text,
                "gold_files": gold,
                "gold_new_files": new,
                "language": language,
            })
            if len(tasks) >= per_repo:
                break
    finally:
        blobs.close()
    tasks.reverse()  # oldest first
    return tasks, stats


def mine_job(job):
    """One repository, in a worker process (the gold-count bounds travel with it)."""
    global MIN_GOLD, MAX_GOLD, MIN_OLD_GOLD
    gitdir, repo, lang, per_repo, max_commits, require_code, any_commit, bounds = job
    MIN_GOLD, MAX_GOLD, MIN_OLD_GOLD = bounds
    lang = normalize_language(lang) if lang else detect_language(gitdir)
    try:
        tasks, stats = mine_repo(gitdir, repo, lang, per_repo, max_commits, require_code,
                                 any_commit)
    except RuntimeError as e:  # a corrupt or partial mirror: reported, not fatal
        print(f"warning: {repo}: {e}", file=sys.stderr)
        tasks, stats = [], collections.Counter(commits=0, git_error=1)
    return repo, lang, tasks, stats


# ---------------------------------------------------------------------------------------


def load_banned(path):
    banned = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                banned.add(line.split()[0].lower())
    return banned


def load_repos_file(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            cols = line.split()
            out.append((cols[0], cols[1] if len(cols) > 1 else None))
    return out


def normalize_language(lang):
    lang = lang.lower()
    return LANG_ALIASES.get(lang, lang)


def main(argv=None):
    global MIN_GOLD, MAX_GOLD, MIN_OLD_GOLD
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repos", nargs="*", metavar="REPO", help="owner/name")
    ap.add_argument("--mirrors", default=os.environ.get("DD_EVAL_MIRRORS"),
                    help="directory of fetched git dirs (default $DD_EVAL_MIRRORS)")
    ap.add_argument("--out", required=True, help="output JSONL file")
    ap.add_argument("--repos-file", help="one owner/name [language] a line")
    ap.add_argument("--per-repo", type=int, default=80, help="newest tasks kept per repo")
    ap.add_argument("--max-commits", type=int, default=4000,
                    help="newest first-parent commits walked per repo")
    ap.add_argument("--allow-no-code", action="store_true",
                    help="keep changes none of whose gold files is source code (docs/CI only)")
    ap.add_argument("--banned", default=DEFAULT_BANNED,
                    help="benchmark repository list whose repositories are refused")
    ap.add_argument("--any-commit", action="store_true",
                    help="a commit needs no issue or pull-request reference: its message is "
                         "the task (the bridge's training pairs, benches/bridge_corpus.py)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="repositories mined at once (the output does not depend on it)")
    ap.add_argument("--gold-files", default=f"{MIN_GOLD}-{MAX_GOLD}", metavar="MIN-MAX",
                    help="how many gold files a task has (default 2-10, the multi-file "
                         "set; 1-1 mines single-file tasks for the learned scorer)")
    args = ap.parse_args(argv)
    try:
        low, high = (int(x) for x in args.gold_files.split("-"))
    except ValueError:
        ap.error("--gold-files takes MIN-MAX, e.g. 2-10")
    if not 1 <= low <= high:
        ap.error("--gold-files needs 1 <= MIN <= MAX")
    MIN_GOLD, MAX_GOLD, MIN_OLD_GOLD = low, high, min(low, MIN_OLD_GOLD)

    wanted = [(r, None) for r in args.repos]
    if args.repos_file:
        wanted += load_repos_file(args.repos_file)
    if not wanted:
        ap.error("no repositories given")
    if not args.mirrors:
        ap.error("give --mirrors DIR or set DD_EVAL_MIRRORS")
    if not args.banned or not os.path.isfile(args.banned):
        print(f"error: benchmark repository list {args.banned} not found; "
              "refusing to mine without it (pass --banned)", file=sys.stderr)
        return 2
    banned = load_banned(args.banned)
    refused = sorted({r for r, _ in wanted if r.lower() in banned})
    if refused:
        print("error: refusing repositories listed in the benchmark list "
              f"{args.banned}: {', '.join(refused)}", file=sys.stderr)
        return 2

    langs, order = {}, []
    for repo, lang in wanted:
        if repo.count("/") != 1:
            print(f"error: {repo!r} is not owner/name", file=sys.stderr)
            return 2
        if repo not in langs:
            order.append(repo)
            langs[repo] = lang
        elif lang:
            langs[repo] = lang
    order.sort(key=str.lower)

    all_tasks, per_repo_counts, missing = [], {}, []
    jobs = []
    for repo in order:
        gitdir = find_gitdir(args.mirrors, repo)
        if gitdir is None:
            print(f"warning: no git directory for {repo} under {args.mirrors}", file=sys.stderr)
            missing.append(repo)
            continue
        jobs.append((gitdir, repo, langs[repo], args.per_repo, args.max_commits,
                     not args.allow_no_code, args.any_commit, (MIN_GOLD, MAX_GOLD, MIN_OLD_GOLD)))
    with multiprocessing.Pool(max(1, args.jobs)) as pool:
        # imap keeps the repositories' order: the output is the same for any --jobs.
        for repo, lang, tasks, stats in pool.imap(mine_job, jobs):
            per_repo_counts[repo] = (lang, len(tasks), stats)
            all_tasks += tasks
            print(f"{repo:45s} {lang:11s} {len(tasks):4d} tasks  "
                  f"({stats['commits']} commits walked)", file=sys.stderr, flush=True)

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        for t in all_tasks:
            f.write(json.dumps(t, ensure_ascii=False) + "\n")

    print(f"wrote {len(all_tasks)} tasks to {args.out}")
    print("\ntasks per repository:")
    for repo in order:
        if repo in per_repo_counts:
            lang, n, stats = per_repo_counts[repo]
            drops = ", ".join(f"{k}={v}" for k, v in sorted(stats.items()) if k != "commits")
            print(f"  {repo:45s} {lang:11s} {n:4d}   walked={stats['commits']} {drops}")
    by_lang = collections.Counter(t["language"] for t in all_tasks)
    repos_by_lang = collections.Counter(l for l, n, _ in per_repo_counts.values() if n)
    print(f"\ntasks per language ({len(by_lang)} languages):")
    for lang, n in sorted(by_lang.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {lang:11s} {n:5d}  ({repos_by_lang[lang]} repos)")
    hist = collections.Counter(len(t["gold_files"]) for t in all_tasks)
    print("\ngold files per task:")
    for k in sorted(hist):
        print(f"  {k:2d}: {hist[k]}")
    with_new = sum(1 for t in all_tasks if t["gold_new_files"])
    print(f"\ntasks with new gold files: {with_new}")
    if missing:
        print(f"\nmissing git directories: {', '.join(missing)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
