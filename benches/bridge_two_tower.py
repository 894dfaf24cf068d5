"""An experiment kept for its negative result (issue 34): a bilinear two-tower bridge.

    python benches/bridge_two_tower.py --corpus CORPUS.jsonl [--epochs 2 --lr 0.003]

CORPUS is `benches/bridge_corpus.py`'s output. A task is the tf-idf vector of its terms,
a changed file the tf-idf vector of its code terms (both L2-normalized); the score of a
(task, file) pair is `wlex * lexical + scale * (A U) . (B V)`, where `lexical` is the
tf-idf cosine over the shared words, U and V are learned term embeddings (`--dim`) and
`wlex` a learned scalar. It is trained with a softmax over the task's repository's
changed files (its own files positive), by Adam, in numpy. Held out by repository
(fold `--fold` of 5, the folds of `train_bridge.py --holdout`), it prints the MRR of the
task's files among its repository's held-out changed files for the words alone, the
model alone and both.

Measured on the stop-43 corpus (23,469 tasks, 293 repositories; fold 0, 4,713 held-out
tasks): words .331, the model alone .114, both .192 after one epoch and .170 after two.
The training loss falls fast while the held-out score falls: the model learns each
repository's own vocabulary, which does not carry to a repository it never saw. The
shipped bridge (`train_bridge.py`, a translation table) is the better of the two.
Development only (numpy, scipy; the `make train` venv).
"""
import argparse, collections, math, os, sys, time
import numpy as np
import scipy.sparse as sp
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_bridge as tb

ap = argparse.ArgumentParser()
ap.add_argument("--corpus", required=True)
ap.add_argument("--dim", type=int, default=64)
ap.add_argument("--epochs", type=int, default=6)
ap.add_argument("--lr", type=float, default=0.01)
ap.add_argument("--scale", type=float, default=10.0)
ap.add_argument("--batch", type=int, default=32)
ap.add_argument("--pool", type=int, default=384)
ap.add_argument("--fold", type=int, default=0)
ap.add_argument("--limit", type=int, default=0)
ap.add_argument("--l2", type=float, default=0.0)
ap.add_argument("--min-repos", type=int, default=3)
ap.add_argument("--init", type=float, default=0.01)
args = ap.parse_args()
args.min_df, args.min_repos = 5, args.min_repos

t0 = time.time()
tasks = tb.load(args.corpus)
if args.limit:
    tasks = tasks[: args.limit]
repos = sorted({r for r, _, _, _ in tasks})
test_repos = {r for i, r in enumerate(repos) if i % 5 == args.fold}
train_tasks = [t for t in tasks if t[0] not in test_repos]
q_df, q_vocab, w_df, w_vocab, n_files = tb.vocabularies(train_tasks, args)
q_ids = {t: i for i, t in enumerate(sorted(q_vocab))}
w_ids = {t: i for i, t in enumerate(sorted(w_vocab))}
shared = sorted(set(q_ids) | set(w_ids))
s_ids = {t: i for i, t in enumerate(shared)}
n_tr = len(train_tasks)
print(f"{len(tasks)} tasks, train {n_tr}, |Q| {len(q_ids)} |W| {len(w_ids)} ({time.time()-t0:.0f}s)", flush=True)


def rows(docs, ids, df, n):
    r, c, v = [], [], []
    for k, d in enumerate(docs):
        for t, cnt in d.items():
            j = ids.get(t)
            if j is None:
                continue
            r.append(k); c.append(j)
            v.append((1 + math.log(cnt)) * math.log(1 + n / df.get(t, 1)))
    m = sp.csr_matrix((np.array(v, np.float32), (r, c)), shape=(len(docs), len(ids)))
    norm = np.sqrt(np.asarray(m.multiply(m).sum(axis=1)).ravel())
    return sp.diags(1 / np.maximum(norm, 1e-9)).dot(m).tocsr()


# lexical: the task's words among the file's words, tf-idf cosine over one shared vocabulary
lex_df = collections.Counter()
for _, _, t, fs in train_tasks:
    for f in fs:
        lex_df.update(f.keys())


def build(task_rows):
    by_repo = collections.defaultdict(list)
    for t in task_rows:
        by_repo[t[0]].append(t)
    out = []
    for repo in sorted(by_repo):
        rs = by_repo[repo]
        docs = [t[2] for t in rs]
        files, owner = [], []
        for k, t in enumerate(rs):
            for f in t[3]:
                files.append(f); owner.append(k)
        A = rows(docs, q_ids, q_df, n_tr)
        B = rows(files, w_ids, w_df, n_files)
        LA = rows(docs, s_ids, lex_df, n_files)
        LB = rows(files, s_ids, lex_df, n_files)
        out.append((repo, A, B, LA, LB, np.array(owner)))
    return out


train_data = build(train_tasks)
test_data = build([t for t in tasks if t[0] in test_repos])
print(f"built ({time.time()-t0:.0f}s)", flush=True)

rng = np.random.default_rng(7)
d = args.dim
U = (rng.standard_normal((len(q_ids), d)) * args.init).astype(np.float32)
V = (rng.standard_normal((len(w_ids), d)) * args.init).astype(np.float32)
wlex = np.float32(5.0)
params = [U, V]
m = [np.zeros_like(U), np.zeros_like(V)]
v = [np.zeros_like(U), np.zeros_like(V)]
mw = vw = 0.0
step = 0


def evaluate(data):
    names = ("lex", "model", "both")
    rr = dict.fromkeys(names, 0.0); first = dict.fromkeys(names, 0); n = 0
    for repo, A, B, LA, LB, owner in data:
        L = (LA @ LB.T).toarray()
        M = (A @ U) @ (B @ V).T
        for k in range(A.shape[0]):
            for name, s in (("lex", L[k]), ("model", M[k]), ("both", wlex * L[k] + args.scale * M[k])):
                order = np.lexsort((np.arange(len(s)), -s))
                rank = int(np.flatnonzero(owner[order] == k)[0])
                rr[name] += 1 / (rank + 1); first[name] += rank == 0
            n += 1
    return " ".join(f"{x} MRR {rr[x]/n:.3f} first {first[x]/n:.3f}" for x in names) + f" (n={n})"


print("init:", evaluate(test_data), flush=True)
for epoch in range(args.epochs):
    order = rng.permutation(len(train_data))
    loss_sum = cnt = 0
    for ri in order:
        repo, A, B, LA, LB, owner = train_data[ri]
        nt = A.shape[0]
        for start in range(0, nt, args.batch):
            idx = np.arange(start, min(nt, start + args.batch))
            # pool: the batch's files plus a sample of the repository's others
            mine = np.flatnonzero(np.isin(owner, idx))
            others = np.flatnonzero(~np.isin(owner, idx))
            if len(others) > args.pool:
                others = rng.choice(others, args.pool, replace=False)
            pool = np.concatenate([mine, others])
            if len(pool) < 2:
                continue
            Ab, Bp = A[idx], B[pool]
            T = Ab @ U; F = Bp @ V
            L = (LA[idx] @ LB[pool].T).toarray()
            logits = args.scale * (T @ F.T) + wlex * L
            logits -= logits.max(axis=1, keepdims=True)
            P = np.exp(logits); P /= P.sum(axis=1, keepdims=True)
            Y = (owner[pool][None, :] == idx[:, None]).astype(np.float32)
            Y /= np.maximum(Y.sum(axis=1, keepdims=True), 1)
            loss_sum += -(Y * np.log(P + 1e-12)).sum(); cnt += len(idx)
            G = (P - Y) / len(idx)
            dT = args.scale * G @ F; dF = args.scale * G.T @ T
            grads = [np.asarray(Ab.T @ dT) + args.l2 * U, np.asarray(Bp.T @ dF) + args.l2 * V]
            gw = float((G * L).sum())
            step += 1
            b1, b2 = 0.9, 0.999
            for p, g, mm, vv in zip(params, grads, m, v):
                mm *= b1; mm += (1 - b1) * g
                vv *= b2; vv += (1 - b2) * g * g
                p -= args.lr * (mm / (1 - b1**step)) / (np.sqrt(vv / (1 - b2**step)) + 1e-8)
            mw = b1 * mw + (1 - b1) * gw; vw = b2 * vw + (1 - b2) * gw * gw
            wlex -= np.float32(args.lr * (mw / (1 - b1**step)) / (math.sqrt(vw / (1 - b2**step)) + 1e-8))
    print(f"epoch {epoch}: loss {loss_sum/cnt:.3f} wlex {wlex:.2f} ({time.time()-t0:.0f}s)", flush=True)
    print("  test:", evaluate(test_data), flush=True)
