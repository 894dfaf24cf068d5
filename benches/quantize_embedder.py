"""Writes a tuned sentence-transformers folder as the int8 model we ship (`builtin`).

    python benches/quantize_embedder.py --model TUNED_DIR --out OUT_DIR [--card CARD.md]
        [--parity PAIRS.jsonl --embed EMBED_BINARY]

Every two-dimensional weight (the token, position and type embeddings, every dense
layer's matrix) is stored as int8 with one float32 scale per row (symmetric, the
row's largest magnitude maps to 127): `NAME` (I8, [rows, cols]) and `NAME.scale`
(F32, [rows]). Biases and layer norms stay float32; integer buffers
(`position_ids`) are left out. The core's reader
(`deepdiscovery-core/src/semantic/quantized.rs`) turns it back into float32 at load.

The safetensors header's metadata says what the file is, so a truncated or altered
file is refused rather than read: `format` = `deepdiscovery-int8`, `version` = `1`,
and `checksum`, the xxh3-64 (hex) of every tensor's name and bytes in name order. The
configuration, tokenizer and pooling files are copied unchanged. The folder's
README.md is the model card: CARD.md (by default the tuned folder's README.md, which
`benches/train_embedder.py` writes with its held-out table), then what the int8 copy
changes: its size, the largest relative error of a weight and, with `--parity`, how
far the int8 model's vectors are from the float model's on texts of the training pairs
(`benches/embedder_pairs.py`: every 60th task's text, a definition it changed and
three it did not, 120 texts), both run by the core's reader (`--embed`: the `embed`
example).
Deterministic: the same tuned folder gives the same bytes.
Development only (numpy, safetensors, xxhash are in the training venv).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import xxhash
from safetensors.numpy import load_file

FORMAT = "deepdiscovery-int8"
VERSION = "1"
# What the reader needs besides the weights (sentence_bert_config.json carries the
# sequence length the model was tuned on; 1_Pooling/config.json its pooling).
COPIED = ("config.json", "tokenizer.json", "sentence_bert_config.json", "1_Pooling/config.json")


def quantize(weights):
    """The int8 tensors with their scales, and the float32 ones, by name."""
    out = {}
    for name in sorted(weights):
        if weights[name].dtype.kind != "f":
            continue  # buffers such as position_ids: the model makes its own
        w = weights[name].astype(np.float32)
        if w.ndim != 2:
            out[name] = w
            continue
        top = np.abs(w).max(axis=1)
        scale = np.where(top > 0, top / 127.0, 1.0).astype(np.float32)
        q = np.clip(np.rint(w / scale[:, None]), -127, 127).astype(np.int8)
        out[name] = q
        out[name + ".scale"] = scale
    return out


DTYPES = {np.dtype(np.int8): "I8", np.dtype(np.float32): "F32"}


def write_safetensors(path, tensors, metadata):
    """A safetensors file with its header's keys sorted and the tensors in name order
    (the safetensors package writes its metadata in hash order, so its bytes vary from
    run to run)."""
    header, offset, data = {"__metadata__": metadata}, 0, []
    for name in sorted(tensors):
        t = np.ascontiguousarray(tensors[name])
        raw = t.astype(t.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
        data.append(raw)
    text = json.dumps(header, separators=(",", ":"), sort_keys=True).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little"))
        f.write(text)
        for raw in data:
            f.write(raw)


def checksum(tensors):
    """xxh3-64 over each tensor's name and little-endian bytes, in name order (the
    reader computes the same)."""
    h = xxhash.xxh3_64()
    for name in sorted(tensors):
        data = np.ascontiguousarray(tensors[name]).tobytes()
        h.update(len(name).to_bytes(8, "little"))
        h.update(name.encode())
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def error(model, quantized):
    """The largest relative error of a dequantized matrix, for the card."""
    worst = 0.0
    for name, w in model.items():
        if w.ndim == 2 and name in quantized:
            back = quantized[name].astype(np.float32) * quantized[name + ".scale"][:, None]
            worst = max(worst, float(np.abs(back - w).max() / (np.abs(w).max() or 1.0)))
    return worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="the tuned sentence-transformers folder")
    ap.add_argument("--out", required=True, help="where the int8 folder goes")
    ap.add_argument("--card", help="the model card (Markdown) to write as README.md")
    ap.add_argument("--parity", help="the training pairs (JSONL) whose texts the vectors are compared on")
    ap.add_argument("--embed", help="the core's `embed` example binary (with --parity)")
    args = ap.parse_args()

    weights = load_file(os.path.join(args.model, "model.safetensors"))
    weights = {k.removeprefix("bert."): v for k, v in weights.items()}
    tensors = quantize(weights)
    os.makedirs(os.path.join(args.out, "1_Pooling"), exist_ok=True)
    metadata = {"format": FORMAT, "version": VERSION, "checksum": checksum(tensors)}
    write_safetensors(os.path.join(args.out, "model.safetensors"), tensors, metadata)
    for name in COPIED:
        shutil.copyfile(os.path.join(args.model, name), os.path.join(args.out, name))
    size = os.path.getsize(os.path.join(args.out, "model.safetensors"))
    facts = {"bytes": size, "tensors": len(tensors), "max_relative_error": error(weights, tensors)}
    if args.parity and args.embed:
        facts.update(parity(args.embed, args.model, args.out, args.parity))
    print(json.dumps(facts), file=sys.stderr)
    card = args.card or os.path.join(args.model, "README.md")
    with open(card, encoding="utf-8") as f:
        text = f.read().rstrip("\n")
    with open(os.path.join(args.out, "README.md"), "w", encoding="utf-8") as f:
        f.write(text + "\n\n" + int8_section(facts))
    return 0


def parity_texts(pairs, every=60, most=120):
    """Texts of the pairs to compare vectors on: every `every`-th task's text, its first
    changed definition and three it did not change."""
    texts = []
    with open(pairs, encoding="utf-8") as f:
        for k, line in enumerate(f):
            if k % every or len(texts) >= most:
                continue
            task = json.loads(line)
            texts.append(task["task"])
            texts += [d["text"] for d in task["positives"][:1] + task.get("negatives", [])[:3]]
    return texts[:most]


def parity(embed, model, out, pairs):
    """How far the int8 vectors are from the float ones (cosine of each text's two
    vectors), both from the core's reader."""
    stdin = "".join(json.dumps(t) + "\n" for t in parity_texts(pairs)).encode()

    def vectors(folder):
        run = subprocess.run([embed, folder], input=stdin, capture_output=True, check=True)
        return np.array([json.loads(line) for line in run.stdout.splitlines()], dtype=np.float64)

    a, b = vectors(model), vectors(out)
    cosines = (a * b).sum(axis=1)
    return {"texts": len(cosines), "min_cosine": float(cosines.min()),
            "mean_cosine": float(cosines.mean())}


def int8_section(facts):
    """The card's part about this copy."""
    lines = [
        "## This copy: int8",
        "",
        f"`model.safetensors` holds the weights as int8 with a float32 scale per row "
        f"({facts['bytes'] / 1e6:.1f} MB; the largest error of a weight is "
        f"{100 * facts['max_relative_error']:.2f}% of its matrix's largest weight), "
        "written by `benches/quantize_embedder.py` and read back into float32 by "
        "`deepdiscovery-core/src/semantic/quantized.rs`, which refuses a file whose checksum, "
        "version or shapes do not hold.",
    ]
    if "texts" in facts:
        lines += [
            "",
            f"On {facts['texts']} task and definition texts, the cosine between a text's "
            f"int8 and float vectors is {facts['min_cosine']:.4f} at least and "
            f"{facts['mean_cosine']:.4f} on average.",
        ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
