"""Trains the vocabulary bridge: p(code term | task term) from mined task -> changed-file
pairs, written as the compact binary model `deepdiscovery-core/src/bridge/bridge.bin`
that `deepdiscovery_core::bridge` reads.

    python benches/train_bridge.py --corpus CORPUS.jsonl --out bridge.bin \
        [--report REPORT.md] [--top K] [--min-pairs N] [--min-repos N]

CORPUS is `benches/bridge_corpus.py`'s output: per task its terms and the terms of each
changed source file, counted by the Rust tokenizer.

Two estimates (`--method`). `excess`, the default, is described at `train_excess`.
`cooc` is a co-occurrence translation table (the expectation step of IBM Model 1 with a
uniform alignment), kept only where the association is specific:
- each task is represented by its most specific terms (the top `--task-terms` by
  tf-idf over the tasks), each changed file by its most specific terms (the top
  `--file-terms` by tf-idf over the changed files); a task's code side is the union of
  its files' terms;
- n(q, w) counts the tasks whose task side holds q and whose code side holds w;
  p(w | q) = n(q, w) / n(q) and p(w) = n(w) / N;
- a translation is kept when n(q, w) >= `--min-pairs`, the pair occurs in at least
  `--min-repos` repositories (a repository's own names do not make a bridge), and
  p(w | q) >= 1.5 p(w); its weight is the excess p(w | q) - p(w), and each task term
  keeps its `--top` translations by p(w | q) * ln(p(w | q) / p(w)).
Deterministic: no sampling, every sort has a total order. Needs numpy, scipy and
xxhash (the development venv of `make train`).
"""

import argparse
import collections
import json
import math
import struct
import sys

import numpy as np
import scipy.sparse as sp
import xxhash

MAGIC = b"DDBRIDGE"
VERSION = 1
MAX_TERM_LEN = 64


def load(path):
    tasks = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            task = {t: c for t, c in row["task"] if len(t) <= MAX_TERM_LEN}
            files = [{t: c for t, c in fl["terms"] if len(t) <= MAX_TERM_LEN}
                     for fl in row["files"]]
            files = [fl for fl in files if fl]
            if task and files:
                tasks.append((row["repo"], row.get("language", ""), task, files))
    return tasks


def top_by_tfidf(counts, df, n_docs, k, vocab):
    scored = []
    for t, c in counts.items():
        if t not in vocab:
            continue
        scored.append(((1.0 + math.log(c)) * math.log(n_docs / df[t]), t))
    scored.sort(key=lambda x: (-x[0], x[1]))
    return [t for _, t in scored[:k]]


def vocabulary(docs_by_repo, min_docs, min_repos):
    """Terms in at least `min_docs` documents of at least `min_repos` repositories,
    with their document frequencies."""
    df = collections.Counter()
    repos = collections.defaultdict(set)
    for repo, docs in docs_by_repo:
        for doc in docs:
            for t in doc:
                df[t] += 1
                repos[t].add(repo)
    vocab = {t for t, n in df.items() if n >= min_docs and len(repos[t]) >= min_repos}
    return df, vocab


def vocabularies(tasks, args):
    """The task and code vocabularies with their document frequencies, and how many
    files the corpus has."""
    q_df, q_vocab = vocabulary(((r, [t]) for r, _, t, _ in tasks), args.min_df, args.min_repos)
    w_df, w_vocab = vocabulary(((r, f) for r, _, _, f in tasks), args.min_df, args.min_repos)
    n_files = sum(len(f) for _, _, _, f in tasks)
    return q_df, q_vocab, w_df, w_vocab, n_files


def repositories_seen(Q, W, repo_of, repos):
    """Per (task term, code term), in how many repositories they occur together: Q and
    W are rows x terms, `repo_of` each row's repository."""
    seen = None
    for r in range(repos):
        rows = np.flatnonzero(repo_of == r)
        if rows.size == 0:
            continue
        together = (Q[rows].T @ W[rows]).tocsr()
        together.data[:] = 1.0
        seen = together if seen is None else seen + together
    seen = seen.tocsr()
    seen.sort_indices()
    return seen


def train(tasks, args):
    n = len(tasks)
    q_df, q_vocab, w_df, w_vocab, n_files = vocabularies(tasks, args)
    q_ids = {t: i for i, t in enumerate(sorted(q_vocab))}
    w_ids = {t: i for i, t in enumerate(sorted(w_vocab))}
    repo_ids = {r: i for i, r in enumerate(sorted({r for r, _, _, _ in tasks}))}

    rows_q, cols_q, rows_w, cols_w, repo_of = [], [], [], [], []
    for k, (repo, _, task, files) in enumerate(tasks):
        for t in top_by_tfidf(task, q_df, n, args.task_terms, q_vocab):
            rows_q.append(k)
            cols_q.append(q_ids[t])
        code = set()
        for fl in files:
            code.update(top_by_tfidf(fl, w_df, n_files, args.file_terms, w_vocab))
        for t in sorted(code):
            rows_w.append(k)
            cols_w.append(w_ids[t])
        repo_of.append(repo_ids[repo])
    A = sp.csr_matrix((np.ones(len(rows_q), np.float32), (rows_q, cols_q)),
                      shape=(n, len(q_ids)))
    B = sp.csr_matrix((np.ones(len(rows_w), np.float32), (rows_w, cols_w)),
                      shape=(n, len(w_ids)))
    C = (A.T @ B).tocsr()
    R = repositories_seen(A, B, np.array(repo_of), len(repo_ids))
    nq = np.asarray(A.sum(axis=0)).ravel()
    nw = np.asarray(B.sum(axis=0)).ravel()
    pw = nw / n

    q_terms = sorted(q_ids, key=q_ids.get)
    w_terms = sorted(w_ids, key=w_ids.get)
    table = {}
    C.sort_indices()
    R.sort_indices()
    for qi in range(C.shape[0]):
        start, end = C.indptr[qi], C.indptr[qi + 1]
        if start == end or nq[qi] == 0:
            continue
        ws = C.indices[start:end]
        cnt = C.data[start:end]
        rrow = R.getrow(qi).toarray().ravel()[ws]
        p = cnt / nq[qi]
        base = pw[ws]
        keep = (cnt >= args.min_pairs) & (rrow >= args.min_repos) & (p >= 1.5 * base)
        if not keep.any():
            continue
        ws, p, base = ws[keep], p[keep], base[keep]
        rank = p * np.log(p / base)
        order = sorted(range(len(ws)), key=lambda j: (-rank[j], w_terms[ws[j]]))[: args.top]
        table[q_terms[qi]] = [(w_terms[ws[j]], float(p[j] - base[j])) for j in order]
    return table


def train_excess(tasks, args):
    """p(w | q) as the excess of a code term in the files changed for tasks that say q
    over its rate among all changed files of the same repository: what tells the
    changed file from its neighbours, not what every file of the repository says.
    E(q, w) = sum over tasks k saying q, over k's files f, of (x_fw - m_r(w)) / |k|,
    with x_fw whether w is one of f's specific terms and m_r(w) its mean over the
    repository's changed files; p(w | q) = E(q, w) / n(q)."""
    n = len(tasks)
    q_df, q_vocab, w_df, w_vocab, n_files = vocabularies(tasks, args)
    q_ids = {t: i for i, t in enumerate(sorted(q_vocab))}
    w_ids = {t: i for i, t in enumerate(sorted(w_vocab))}
    repo_ids = {r: i for i, r in enumerate(sorted({r for r, _, _, _ in tasks}))}
    fq_r, fq_c, fq_v, fw_r, fw_c, f_repo = [], [], [], [], [], []
    nq = np.zeros(len(q_ids))
    f = 0
    for repo, _, task, files in tasks:
        qs = [q_ids[t] for t in top_by_tfidf(task, q_df, n, args.task_terms, q_vocab)]
        for q in qs:
            nq[q] += 1
        for fl in files:
            for q in qs:
                fq_r.append(f)
                fq_c.append(q)
                fq_v.append(1.0 / len(files))
            for t in top_by_tfidf(fl, w_df, n_files, args.file_terms, w_vocab):
                fw_r.append(f)
                fw_c.append(w_ids[t])
            f_repo.append(repo_ids[repo])
            f += 1
    f_repo = np.array(f_repo)
    AQ = sp.csr_matrix((np.array(fq_v, np.float32), (fq_r, fq_c)), shape=(f, len(q_ids)))
    X = sp.csr_matrix((np.ones(len(fw_r), np.float32), (fw_r, fw_c)), shape=(f, len(w_ids)))
    R = sp.csr_matrix((np.ones(f, np.float32), (np.arange(f), f_repo)),
                      shape=(f, len(repo_ids)))
    per_repo = np.asarray(R.sum(axis=0)).ravel()
    M = (sp.diags(1.0 / np.maximum(per_repo, 1)) @ (R.T @ X)).tocsc()  # m_r(w)
    pos = (AQ.T @ X).tocsr()  # per q, the sum of x_fw over its tasks' files
    AR = (AQ.T @ R).tocsr()  # per q, the weight of each repository
    seen = repositories_seen(AQ, X, f_repo, len(repo_ids))
    pos.sort_indices()
    q_terms = sorted(q_ids, key=q_ids.get)
    w_terms = sorted(w_ids, key=w_ids.get)
    table = {}
    for qi in range(len(q_ids)):
        start, end = pos.indptr[qi], pos.indptr[qi + 1]
        if start == end or nq[qi] < args.min_df:
            continue
        ws = pos.indices[start:end]
        expected = np.asarray((AR.getrow(qi) @ M[:, ws]).todense()).ravel()
        excess = pos.data[start:end] - expected
        repos_seen = seen.getrow(qi).toarray().ravel()[ws]
        keep = (excess >= args.min_pairs) & (repos_seen >= args.min_repos)
        if not keep.any():
            continue
        ws, p = ws[keep], excess[keep] / nq[qi]
        order = sorted(range(len(ws)), key=lambda j: (-p[j], w_terms[ws[j]]))[: args.top]
        table[q_terms[qi]] = [(w_terms[ws[j]], float(min(p[j], 1.0))) for j in order]
    return table


def holdout(tasks, args, fit):
    """Grouped by repository (5 folds): each held-out task's changed files are ranked
    among all changed files of its repository's held-out tasks by the expansion's
    weighted overlap, the task's own terms left out (what the bridge adds to BM25).
    Returns MRR and the share of tasks with a changed file first."""
    repos = sorted({r for r, _, _, _ in tasks})
    names = ("bridge", "words", "words+bridge")
    rr = dict.fromkeys(names, 0.0)
    first = dict.fromkeys(names, 0)
    counted = 0
    for fold in range(args.folds):
        test_repos = {r for i, r in enumerate(repos) if i % 5 == fold}
        train_tasks = [t for t in tasks if t[0] not in test_repos]
        table = fit(train_tasks, args)
        by_repo = collections.defaultdict(list)
        for t in tasks:
            if t[0] in test_repos:
                by_repo[t[0]].append(t)
        for repo, rows in by_repo.items():
            pool = {}
            for k, (_, _, _, files) in enumerate(rows):
                for j, fl in enumerate(files):
                    pool[(k, j)] = fl
            keys = sorted(pool)
            df = collections.Counter(w for key in keys for w in pool[key])
            idf = {w: math.log(1 + len(keys) / n) for w, n in df.items()}

            def overlap(weights, fl):
                return sum(wt * idf[w] * (1.0 + math.log(fl[w]))
                           for w, wt in weights.items() if w in fl)

            for k, (_, _, task, _) in enumerate(rows):
                weights = collections.Counter()
                for q, c in task.items():
                    for w, p in table.get(q, ()):
                        if w not in task:
                            weights[w] += (1.0 + math.log(c)) * p
                words = {q: 1.0 + math.log(c) for q, c in task.items()}
                b = [overlap(weights, pool[key]) for key in keys]
                lex = [overlap(words, pool[key]) for key in keys]
                bmax, lmax = max(b) or 1.0, max(lex) or 1.0
                both = [l / lmax + args.mix * x / bmax for l, x in zip(lex, b)]
                counted += 1
                for name, scores in zip(names, (b, lex, both)):
                    order = sorted(range(len(keys)), key=lambda i: (-scores[i], keys[i]))
                    rank = next(r for r, i in enumerate(order) if keys[i][0] == k)
                    rr[name] += 1.0 / (rank + 1)
                    first[name] += rank == 0
    return {n: (rr[n] / max(counted, 1), first[n] / max(counted, 1)) for n in names}, counted


def encode(table):
    task = sorted(table)
    code = sorted({w for lst in table.values() for w, _ in lst})
    cid = {w: i for i, w in enumerate(code)}
    lists = []
    for t in task:
        lst = [(cid[w], min(65535, max(0, round(p * 65535)))) for w, p in table[t]]
        lst = [(c, q) for c, q in lst if q > 0]
        lst.sort(key=lambda x: (-x[1], x[0]))
        lists.append(lst)
    out = bytearray(MAGIC)
    out += struct.pack("<IIII", VERSION, len(task), len(code), sum(len(l) for l in lists))
    for term in code + task:
        b = term.encode("ascii")
        out += struct.pack("<B", len(b)) + b
    for lst in lists:
        out += struct.pack("<I", len(lst))
    for lst in lists:
        for c, q in lst:
            out += struct.pack("<IH", c, q)
    out += struct.pack("<Q", xxhash.xxh3_64_intdigest(bytes(out)))
    return bytes(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--report")
    ap.add_argument("--top", type=int, default=24)
    ap.add_argument("--task-terms", type=int, default=40)
    ap.add_argument("--file-terms", type=int, default=48)
    ap.add_argument("--min-df", type=int, default=5)
    ap.add_argument("--min-pairs", type=int, default=3)
    ap.add_argument("--min-repos", type=int, default=3)
    ap.add_argument("--folds", type=int, default=5, help="held-out folds evaluated (of 5)")
    ap.add_argument("--mix", type=float, default=0.3,
                    help="the bridge's weight beside the words in the held-out check")
    ap.add_argument("--method", choices=("cooc", "excess"), default="excess",
                    help="cooc: p(w|q) against p(w) over all changed files; excess: the "
                         "changed files against the other changed files of their repository")
    ap.add_argument("--holdout", action="store_true",
                    help="first report the 5-fold held-out-by-repository ranking of "
                         "changed files by the expansion alone")
    args = ap.parse_args(argv)

    tasks = load(args.corpus)
    repos = {r for r, _, _, _ in tasks}
    langs = collections.Counter(l for _, l, _, _ in tasks)

    def fit(rows, a):
        return train(rows, a) if a.method == "cooc" else train_excess(rows, a)

    if args.holdout:
        result, counted = holdout(tasks, args, fit)
        print(f"held out by repository ({args.folds} of 5 folds, {counted} tasks): "
              + "; ".join(f"{n} MRR {m:.3f} first {f:.1%}" for n, (m, f) in result.items()))
    table = fit(tasks, args)
    model = encode(table)
    with open(args.out, "wb") as f:
        f.write(model)
    entries = sum(len(v) for v in table.values())
    summary = (f"{len(tasks)} tasks from {len(repos)} repositories in {len(langs)} languages; "
               f"{len(table)} task terms, {entries} translations, {len(model)} bytes")
    print(summary)
    if args.report:
        examples = [t for t in ("slow", "hang", "memory", "leak", "timeout", "crash", "empty",
                                "wrong", "deprecat", "unicode", "thread", "permission")
                    if t in table]
        with open(args.report, "w", encoding="utf-8") as f:
            f.write("# The vocabulary bridge: training summary\n\n")
            f.write(f"{summary}.\n\nTasks per language: "
                    + ", ".join(f"{l} {n}" for l, n in sorted(langs.items())) + "\n\n")
            f.write("Examples (task term: code terms by weight):\n\n")
            for t in examples:
                f.write(f"- `{t}`: " + ", ".join(f"`{w}` {p:.3f}" for w, p in table[t][:8])
                        + "\n")


if __name__ == "__main__":
    sys.exit(main())
