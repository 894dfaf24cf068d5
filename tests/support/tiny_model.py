"""Writes a tiny sentence-transformers folder (a 1-layer BERT of hidden size 8 with a
WordPiece tokenizer of 20 tokens, random weights from a fixed seed) for the tests of the
in-process embedder in Python and C. Standard library only.

    python3 tests/support/tiny_model.py DIR
"""

import json
import os
import random
import struct
import sys

WORDS = ["cache", "evict", "slow", "columns", "parse", "date", "##s", "##ing", "the", "when",
         "is", "deep", "discovery", "table", "many", "fix", "currency", "price"]
HIDDEN, LAYERS, INTERMEDIATE, POSITIONS = 8, 1, 16, 32


def tensors(vocab):
    shapes = [
        ("embeddings.word_embeddings.weight", [vocab, HIDDEN]),
        ("embeddings.position_embeddings.weight", [POSITIONS, HIDDEN]),
        ("embeddings.token_type_embeddings.weight", [2, HIDDEN]),
        ("embeddings.LayerNorm.weight", [HIDDEN]),
        ("embeddings.LayerNorm.bias", [HIDDEN]),
    ]
    for layer in range(LAYERS):
        p = f"encoder.layer.{layer}"
        for part in ("query", "key", "value"):
            shapes += [(f"{p}.attention.self.{part}.weight", [HIDDEN, HIDDEN]),
                       (f"{p}.attention.self.{part}.bias", [HIDDEN])]
        shapes += [
            (f"{p}.attention.output.dense.weight", [HIDDEN, HIDDEN]),
            (f"{p}.attention.output.dense.bias", [HIDDEN]),
            (f"{p}.attention.output.LayerNorm.weight", [HIDDEN]),
            (f"{p}.attention.output.LayerNorm.bias", [HIDDEN]),
            (f"{p}.intermediate.dense.weight", [INTERMEDIATE, HIDDEN]),
            (f"{p}.intermediate.dense.bias", [INTERMEDIATE]),
            (f"{p}.output.dense.weight", [HIDDEN, INTERMEDIATE]),
            (f"{p}.output.dense.bias", [HIDDEN]),
            (f"{p}.output.LayerNorm.weight", [HIDDEN]),
            (f"{p}.output.LayerNorm.bias", [HIDDEN]),
        ]
    rng = random.Random(7)
    for name, shape in shapes:
        n = 1
        for d in shape:
            n *= d
        if name.endswith("LayerNorm.weight"):
            values = [1.0] * n
        else:
            values = [rng.uniform(-0.5, 0.5) for _ in range(n)]
        yield name, shape, values


def safetensors_bytes(items):
    header, data = {}, bytearray()
    for name, shape, values in items:
        raw = struct.pack(f"<{len(values)}f", *values)
        header[name] = {"dtype": "F32", "shape": shape,
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    head = json.dumps(header, separators=(",", ":")).encode()
    head += b" " * (-len(head) % 8)
    return struct.pack("<Q", len(head)) + head + bytes(data)


def write(folder):
    os.makedirs(os.path.join(folder, "1_Pooling"), exist_ok=True)
    vocab = {w: k for k, w in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]"] + WORDS)}
    config = {
        "architectures": ["BertModel"], "model_type": "bert", "hidden_act": "gelu",
        "vocab_size": len(vocab), "hidden_size": HIDDEN, "num_hidden_layers": LAYERS,
        "num_attention_heads": 2, "intermediate_size": INTERMEDIATE,
        "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
        "max_position_embeddings": POSITIONS, "type_vocab_size": 2,
        "initializer_range": 0.02, "layer_norm_eps": 1e-12, "pad_token_id": 0,
    }

    def special(token):
        return {"id": token, "ids": [vocab[token]], "tokens": [token]}

    tokenizer = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
        "normalizer": {"type": "BertNormalizer", "clean_text": True,
                       "handle_chinese_chars": True, "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {"[CLS]": special("[CLS]"), "[SEP]": special("[SEP]")},
        },
        "decoder": None,
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab},
    }
    files = {
        "config.json": json.dumps(config),
        "tokenizer.json": json.dumps(tokenizer),
        "1_Pooling/config.json": json.dumps(
            {"word_embedding_dimension": HIDDEN, "pooling_mode_mean_tokens": True}),
        "sentence_bert_config.json": json.dumps({"max_seq_length": 24}),
    }
    for name, text in files.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write(text)
    with open(os.path.join(folder, "model.safetensors"), "wb") as f:
        f.write(safetensors_bytes(tensors(len(vocab))))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    write(sys.argv[1])
