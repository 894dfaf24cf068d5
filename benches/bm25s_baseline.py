"""Python-side reference for the speed target of issue 9: a per-task BM25 baseline.

    python3 benches/bm25s_baseline.py REPO TASK_FILE [--runs N] [--json OUT] [--discover BIN]
        [--cache]

The target: a cold `discover` takes at most 1/10 of the time a per-task BM25 baseline
(the `bm25s` PyPI package, one document per text file) needs to tokenize, index and
query the same files, and at most 1.5x the time of one plain read of every text file.

What is measured, wall clock (`time.perf_counter`), each the median of N runs (default 3)
in this one process, after one untimed read of every file so that every measurement
sees a warm page cache:

1. `read`: listing the repository and reading the bytes of every candidate file (the
   binary test included, no decoding, no tokenization);
2. `bm25s`: the whole per-task baseline, from nothing: listing, reading, decoding
   (UTF-8, errors replaced), `bm25s.tokenize(corpus, stopwords="en")`,
   `BM25().index(tokens)` and `retrieve(bm25s.tokenize(task, stopwords="en"), k=10)`,
   with each sub-time and the top-10 paths;
3. with `--discover BIN` (the compiled example, `target/release/examples/discover`):
   `BIN --json REPO @TASK_FILE` as a fresh process per run, its wall time, and from
   its JSON `budget.stages`, `budget.files_read` and `budget.files_parsed`; then the
   ratios discover/bm25s (target <= 0.10) and discover/read (target <= 1.50);
4. with `--cache` as well (issue 23): per run, a new empty cache directory, then a
   first process that fills it (`--cache-dir DIR`) and a second process on the
   unchanged repository that reads it; their medians, the ratios first/bm25s (target
   <= 0.3), second/bm25s (target <= 0.1) and second/read (target <= 3), and the
   cache's size on disk against the documents' bytes (target <= 1). The plain
   `discover` of 3. runs without a cache (the example uses one only with `--cache-dir`).

The documents are the files the library's `FsSource` lists and reads as text: the
output of `git ls-files -co --exclude-standard` when REPO is in a git work tree, else
every file under REPO (VCS directories left out; `.gitignore` is then not honoured,
unlike the library, which honours it outside git too); symbolic links only when they
resolve inside REPO; no path with a binary extension, none over 1 MiB
(`DEFAULT_MAX_FILE_SIZE`), none with a NUL byte in its first 8192 bytes
(`looks_binary`); see deepdiscovery-core/src/source/.

`bm25s` is installed for this benchmark only: on first use the script creates the venv
`target/bench-venv` of the repository, pip-installs `bm25s`, `numpy` and `scipy` there
(no PyStemmer: no stemming) and runs itself again with that venv's python. The outer
process needs nothing beyond the standard library; `bm25s` is no dependency of the
project. Delete `target/bench-venv` to reinstall.
"""

import argparse
import json
import os
import platform
import stat
import statistics
import subprocess
import sys
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
VENV = PROJECT_ROOT / "target" / "bench-venv"
REQUIREMENTS = ["bm25s", "numpy", "scipy"]

TOP_K = 10
STOPWORDS = "en"
# Mirrors of deepdiscovery-core/src/source/{mod.rs,fs.rs}.
MAX_FILE_SIZE = 1024 * 1024
BINARY_SNIFF_BYTES = 8192
VCS_DIRS = frozenset({".git", ".hg", ".svn", ".bzr", ".jj"})
BINARY_EXTENSIONS = frozenset(
    """png jpg jpeg gif bmp ico icns webp tif tiff psd pdf zip gz tgz bz2 xz zst 7z rar
    tar jar war ear class so dylib dll exe o a lib obj pyc pyo pyd whl egg wasm mp3 mp4
    wav ogg flac avi mov mkv webm ttf otf woff woff2 eot db sqlite sqlite3 bin dat npy
    npz pkl pickle h5 hdf5 parquet onnx pt pth ckpt mo keystore jks p12 der dmg iso deb
    rpm apk aab ipa xcf blend fbx glb swf""".split()
)


def parse_args(argv):
    """The command line: REPO, TASK_FILE and the options, with REPO and TASK_FILE checked."""
    parser = argparse.ArgumentParser(
        description="Time a per-task bm25s baseline (and optionally `discover`) on a repository.",
    )
    parser.add_argument("repo", type=Path, help="repository root to index")
    parser.add_argument("task_file", type=Path, help="file holding the task text")
    parser.add_argument(
        "--runs", type=int, default=3, help="runs per measurement (the median is kept; default 3)"
    )
    parser.add_argument("--json", type=Path, metavar="OUT", help="write every number to OUT")
    parser.add_argument(
        "--discover",
        type=Path,
        metavar="BIN",
        help="the compiled `discover` example (target/release/examples/discover) to time as well",
    )
    parser.add_argument(
        "--cache",
        action="store_true",
        help="with --discover: time a first and a second process sharing an on-disk cache",
    )
    args = parser.parse_args(argv)
    if not args.repo.is_dir():
        parser.error(f"REPO {args.repo} is not a directory")
    if not args.task_file.is_file():
        parser.error(f"TASK_FILE {args.task_file} is not a file: write the task text into one")
    if args.runs < 1:
        parser.error("--runs needs at least 1")
    if args.discover is not None and not os.access(args.discover, os.X_OK):
        parser.error(
            f"--discover {args.discover} is not an executable: build it with "
            "`cargo build --release -p deepdiscovery-core --example discover`"
        )
    return args


def running_in_bench_venv():
    """True when this interpreter is the one of `target/bench-venv`."""
    return VENV.exists() and Path(sys.prefix).resolve() == VENV.resolve()


def ensure_bench_venv():
    """Creates `target/bench-venv` with bm25s installed unless it has it; returns its python."""
    python = VENV / "bin" / "python"
    if not python.exists():
        print(f"creating {VENV} for bm25s (benchmark only)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    probe = subprocess.run([str(python), "-c", "import bm25s"], capture_output=True)
    if probe.returncode != 0:
        print(f"installing {' '.join(REQUIREMENTS)} into {VENV}", file=sys.stderr)
        pip = subprocess.run([str(python), "-m", "pip", "install", "--quiet", *REQUIREMENTS])
        if pip.returncode != 0:
            sys.exit(
                f"error: pip could not install {' '.join(REQUIREMENTS)} into {VENV}; "
                "check that the package index is reachable, then delete that directory and retry"
            )
    return python


def list_paths(repo):
    """Every file path under `repo`, relative, `/`-separated, sorted; VCS directories left out.

    Inside a git work tree: `git ls-files -co --exclude-standard` (tracked and untracked
    files, `.gitignore` honoured). Elsewhere: `os.walk`. Paths that are not UTF-8 are left
    out, like the library does.
    """
    inside = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--is-inside-work-tree"],
        capture_output=True,
        text=True,
    )
    if inside.returncode == 0 and inside.stdout.strip() == "true":
        out = subprocess.run(
            ["git", "-C", str(repo), "ls-files", "-z", "-co", "--exclude-standard"],
            capture_output=True,
            check=True,
        ).stdout
        raw = [p for p in out.split(b"\0") if p]
    else:
        raw = []
        for dirpath, dirnames, filenames in os.walk(os.fsencode(repo)):
            dirnames[:] = [d for d in dirnames if os.fsdecode(d) not in VCS_DIRS]
            rel_dir = os.path.relpath(dirpath, os.fsencode(repo))
            for name in filenames:
                raw.append(name if rel_dir == b"." else rel_dir + b"/" + name)
    paths = []
    for p in raw:
        try:
            paths.append(p.decode("utf-8"))
        except UnicodeDecodeError:
            continue
    return sorted(set(paths))


def has_binary_extension(path):
    """True when the name's extension is on the library's binary list (`has_binary_extension`)."""
    name = path.rsplit("/", 1)[-1]
    stem, dot, ext = name.rpartition(".")
    return bool(dot) and bool(stem) and ext.lower() in BINARY_EXTENSIONS


def list_candidates(repo):
    """The files the library reads: listed, no binary extension, at most 1 MiB, inside REPO.

    Returns (candidates, skipped): candidates a list of (relative path, absolute path),
    skipped a dict of counts by reason (`binary_extension`, `too_large`, `outside_root`,
    `unreadable`).
    """
    root = os.path.realpath(repo)
    candidates = []
    skipped = {"binary_extension": 0, "too_large": 0, "outside_root": 0, "unreadable": 0}
    for rel in list_paths(repo):
        if has_binary_extension(rel):
            skipped["binary_extension"] += 1
            continue
        full = os.path.join(root, rel)
        try:
            st = os.stat(full)
        except OSError:
            skipped["unreadable"] += 1
            continue
        if not stat.S_ISREG(st.st_mode):
            continue
        if os.path.islink(full) and not os.path.realpath(full).startswith(root + os.sep):
            skipped["outside_root"] += 1
            continue
        if st.st_size > MAX_FILE_SIZE:
            skipped["too_large"] += 1
            continue
        candidates.append((rel, full))
    return candidates, skipped


def looks_binary(data):
    """True when `data` has a NUL byte in its first 8192 bytes (the library's `looks_binary`)."""
    return b"\0" in data[:BINARY_SNIFF_BYTES]


def read_texts(candidates):
    """Reads every candidate; returns [(relative path, bytes)] of those that are not binary."""
    texts = []
    for rel, full in candidates:
        try:
            with open(full, "rb") as f:
                data = f.read()
        except OSError:
            continue
        if not looks_binary(data):
            texts.append((rel, data))
    return texts


def time_read(repo):
    """One `read` run: listing and plain reading. Returns (ms by step, the texts read)."""
    t0 = time.perf_counter()
    candidates, _ = list_candidates(repo)
    t1 = time.perf_counter()
    texts = read_texts(candidates)
    t2 = time.perf_counter()
    return {"list": ms(t0, t1), "read": ms(t1, t2), "total": ms(t0, t2)}, texts


def time_bm25s(repo, task):
    """One `bm25s` run from nothing to the top 10. Returns (ms by step, top paths with scores)."""
    import bm25s

    t0 = time.perf_counter()
    candidates, _ = list_candidates(repo)
    t1 = time.perf_counter()
    texts = read_texts(candidates)
    t2 = time.perf_counter()
    corpus = [data.decode("utf-8", errors="replace") for _, data in texts]
    t3 = time.perf_counter()
    corpus_tokens = bm25s.tokenize(corpus, stopwords=STOPWORDS, show_progress=False)
    t4 = time.perf_counter()
    retriever = bm25s.BM25()
    retriever.index(corpus_tokens, show_progress=False)
    t5 = time.perf_counter()
    query_tokens = bm25s.tokenize(task, stopwords=STOPWORDS, show_progress=False)
    docs, scores = retriever.retrieve(query_tokens, k=min(TOP_K, len(corpus)), show_progress=False)
    t6 = time.perf_counter()
    top = [{"path": texts[int(d)][0], "score": float(s)} for d, s in zip(docs[0], scores[0])]
    steps = {
        "list": ms(t0, t1),
        "read": ms(t1, t2),
        "decode": ms(t2, t3),
        "tokenize": ms(t3, t4),
        "index": ms(t4, t5),
        "query": ms(t5, t6),
        "total": ms(t0, t6),
    }
    return steps, top


def time_discover(binary, repo, task_file, cache_dir=None):
    """One `discover` process (through the cache in `cache_dir` when given): (wall ms,
    its budget report)."""
    cache = ["--cache-dir", str(cache_dir)] if cache_dir is not None else []
    cmd = [str(binary), "--json", *cache, str(repo), f"@{task_file}"]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = ms(t0, time.perf_counter())
    if proc.returncode != 0:
        sys.exit(f"error: `{' '.join(cmd)}` exited with {proc.returncode}:\n{proc.stderr}")
    budget = json.loads(proc.stdout)["budget"]
    return wall, {
        "stages": {s["stage"]: s["millis"] for s in budget["stages"]},
        "files_read": budget["files_read"],
        "files_parsed": budget["files_parsed"],
    }


def ms(start, end):
    """Milliseconds between two `perf_counter` readings."""
    return (end - start) * 1000.0


def medians(runs):
    """The per-key median of a list of {step: ms} dicts, keys in first-run order."""
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]}


def measure(args):
    """Runs every measurement and returns all numbers as one JSON-ready dict."""
    import bm25s

    load_at_start = os.getloadavg()[0]
    task = args.task_file.read_text(encoding="utf-8")
    candidates, skipped = list_candidates(args.repo)
    texts = read_texts(candidates)  # untimed: warms the page cache for every measurement
    if not texts:
        sys.exit(f"error: {args.repo} has no text file to index: point REPO at a repository")
    skipped["binary_content"] = len(candidates) - len(texts)

    read_runs, bm25s_runs, top = [], [], []
    for _ in range(args.runs):
        steps, _ = time_read(args.repo)
        read_runs.append(steps)
        steps, top = time_bm25s(args.repo, task)
        bm25s_runs.append(steps)

    result = {
        "repo": str(args.repo.resolve()),
        "task": task,
        "runs": args.runs,
        "machine": {
            "nproc": os.cpu_count(),
            "loadavg_1min_at_start": load_at_start,
            "platform": platform.platform(),
            "python": platform.python_version(),
            "bm25s": bm25s.__version__,
        },
        "documents": len(texts),
        "total_bytes": sum(len(data) for _, data in texts),
        "skipped": skipped,
        "read": {"median_ms": medians(read_runs), "runs_ms": read_runs},
        "bm25s": {"median_ms": medians(bm25s_runs), "runs_ms": bm25s_runs, "top": top},
    }
    if args.discover is not None:
        walls, reports = [], []
        for _ in range(args.runs):
            wall, report = time_discover(args.discover.resolve(), args.repo, args.task_file)
            walls.append(wall)
            reports.append(report)
        wall = statistics.median(walls)
        result["discover"] = {
            "binary": str(args.discover.resolve()),
            "median_ms": wall,
            "runs_ms": walls,
            "stages_median_ms": medians([r["stages"] for r in reports]),
            "files_read": reports[-1]["files_read"],
            "files_parsed": reports[-1]["files_parsed"],
            "runs": reports,
        }
        result["ratios"] = {
            "discover_over_bm25s": wall / result["bm25s"]["median_ms"]["total"],
            "discover_over_read": wall / result["read"]["median_ms"]["total"],
        }
    if args.discover is not None and args.cache:
        result["cached"] = time_cached(args, result)
    return result


def directory_bytes(path):
    """The bytes of every file under `path`."""
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())


def time_cached(args, result):
    """First and second processes over one new cache directory per run."""
    import shutil
    import tempfile

    firsts, seconds, sizes = [], [], []
    for _ in range(args.runs):
        cache = tempfile.mkdtemp(prefix="dd-bench-cache-")
        try:
            firsts.append(time_discover(args.discover.resolve(), args.repo, args.task_file, cache)[0])
            seconds.append(time_discover(args.discover.resolve(), args.repo, args.task_file, cache)[0])
            sizes.append(directory_bytes(cache))
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    bm25s_ms = result["bm25s"]["median_ms"]["total"]
    first, second = statistics.median(firsts), statistics.median(seconds)
    return {
        "first_median_ms": first,
        "second_median_ms": second,
        "first_runs_ms": firsts,
        "second_runs_ms": seconds,
        "cache_bytes": max(sizes),
        "first_over_bm25s": first / bm25s_ms,
        "second_over_bm25s": second / bm25s_ms,
        "second_over_read": second / result["read"]["median_ms"]["total"],
        "cache_over_text": max(sizes) / result["total_bytes"],
    }


def print_report(r):
    """Prints the numbers of `measure` as a compact table."""
    m = r["machine"]
    print(f"{r['repo']}: {r['documents']} documents, {r['total_bytes'] / 1e6:.1f} MB")
    print(f"skipped: {r['skipped']}")
    print(
        f"python {m['python']}, bm25s {m['bm25s']}, {m['nproc']} cores, "
        f"load {m['loadavg_1min_at_start']:.2f} at start; median of {r['runs']} runs"
    )
    rows = [("read", r["read"]["median_ms"]), ("bm25s", r["bm25s"]["median_ms"])]
    if "discover" in r:
        d = r["discover"]
        rows.append(("discover", {**d["stages_median_ms"], "total": d["median_ms"]}))
    print(f"{'measure':<10} {'total ms':>10}  steps (ms)")
    for name, steps in rows:
        detail = "  ".join(f"{k} {v:.1f}" for k, v in steps.items() if k != "total")
        print(f"{name:<10} {steps['total']:>10.1f}  {detail}")
    if "discover" in r:
        d, q = r["discover"], r["ratios"]
        print(
            f"discover: files_read {d['files_read']}, files_parsed {d['files_parsed']} "
            "(its wall time includes the process start)"
        )
        print(f"discover / bm25s = {q['discover_over_bm25s']:.3f}  (target <= 0.10)")
        print(f"discover / read  = {q['discover_over_read']:.3f}  (target <= 1.50)")
    if "cached" in r:
        c = r["cached"]
        print(
            f"cache: first {c['first_median_ms']:.1f} ms, second {c['second_median_ms']:.1f} ms, "
            f"{c['cache_bytes'] / 1e6:.1f} MB on disk"
        )
        print(f"first / bm25s  = {c['first_over_bm25s']:.3f}  (target <= 0.3)")
        print(f"second / bm25s = {c['second_over_bm25s']:.3f}  (target <= 0.1)")
        print(f"second / read  = {c['second_over_read']:.3f}  (target <= 3)")
        print(f"cache / text   = {c['cache_over_text']:.3f}  (target <= 1)")
    top = r["bm25s"]["top"]
    print(f"bm25s top {len(top)}: " + ", ".join(f"{t['path']} ({t['score']:.2f})" for t in top))


def main(argv):
    """Parses the command line, moves into the bench venv if needed, measures and reports."""
    args = parse_args(argv)
    if not running_in_bench_venv():
        python = ensure_bench_venv()
        os.execv(str(python), [str(python), str(Path(__file__).resolve()), *argv])
    try:
        import bm25s  # noqa: F401
    except ImportError:
        sys.exit(f"error: bm25s is missing from {VENV}: delete that directory and run again")
    result = measure(args)
    print_report(result)
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
