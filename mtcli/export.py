"""A trained model written for other engines: a CTranslate2 model directory and an Argos Translate
package (the engine and the package format under Argos Translate and LibreTranslate).

The mapping is exact: CTranslate2's post-norm Transformer (pre_norm=False) computes the thesis's
blocks LN(x + Sublayer(x)); embeddings are scaled by sqrt(d_model) on both sides; mtcli's own
sinusoid table (interleaved sin/cos, not CTranslate2's default halves) is stored with the model;
CTranslate2's linear weights are (out, in), so mtcli's (in, out) matrices are transposed, and the
query/key/value projections fused as CTranslate2 expects. Vocabularies keep mtcli's ids, so mtcli's
token ids, spelled with `source_tokens`, give CTranslate2 exactly mtcli's input.

Argos Translate tokenizes with SentencePiece. The package carries a SentencePiece unigram model
built from mtcli's English WordPiece vocabulary: a word piece "##ing" becomes the piece "ing", and
longer pieces score higher, so SentencePiece picks WordPiece's longest-match segmentation in most
cases (measured: see `tokenizer_agreement`). The exported vocabularies spell Spanish pieces the way
SentencePiece detokenizes them, so Argos's output text is mtcli's.
"""

from __future__ import annotations

import io
import json
import shutil
import struct
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from mtcli.atomic import write_output
from mtcli.errors import UserError
from mtcli.layers import positional_encoding
from mtcli.model import Model
from mtcli.tokenizer import BOS, CASE_NAMES, CONTINUE, EOS, SPECIALS, UNK, Tokenizer

LAYER_NORM_EPS = 1e-5  # mtcli/kernels/layernorm.py EPS
QUANTIZATIONS = ("float32", "int8", "int8_float32")
EXPORT_POSITIONS = 1024  # CTranslate2's default max_input_length; longer inputs it truncates itself
ARGOS_SP_MODEL = "sentencepiece.model"


def _require_ctranslate2():
    try:
        import ctranslate2
    except ImportError:
        raise UserError("exporting needs CTranslate2: pip install 'mtcli[export]'") from None
    return ctranslate2


def _linear(spec, w, b):
    """mtcli's x @ w + b as CTranslate2's x @ weight.T + bias."""
    spec.weight = np.ascontiguousarray(w.T)
    spec.bias = np.ascontiguousarray(b)


def _fused(spec, attn, names):
    """Query/key/value projections concatenated along the output axis, as CTranslate2 fuses them."""
    _linear(spec, np.concatenate([attn["w" + n] for n in names], 1), np.concatenate([attn["b" + n] for n in names]))


def _layer_norm(spec, ln):
    spec.gamma, spec.beta = ln["g"], ln["b"]


def source_tokens(src_tok: Tokenizer) -> list[str]:
    """CTranslate2's source vocabulary in mtcli's id order: mtcli's own piece names."""
    return list(src_tok.pieces_by_id)


# A model with case factors reads each English token as "piece￨case" (OpenNMT's and CTranslate2's
# source features): a second vocabulary of the three cases, after the special tokens CTranslate2 adds.
FEATURE_SEPARATOR = "￨"


def ctranslate2_source(src_tok: Tokenizer, ids: list[int]) -> list[str]:
    """CTranslate2's tokens for mtcli's English ids (without BOS/EOS: the exported model adds them)."""
    names = source_tokens(src_tok)
    if not src_tok.case_factors:
        return [names[i] for i in ids]
    V = src_tok.vocab_size
    return [names[i % V] + FEATURE_SEPARATOR + CASE_NAMES[i // V] for i in ids]


def target_tokens(tgt_tok: Tokenizer) -> list[str]:
    """CTranslate2's target vocabulary in mtcli's id order, spelled for SentencePiece's detokenizer
    (concatenate, "▁" is a space): "##s" is written "s". Text decoded either way is the same."""
    return [t.removeprefix(CONTINUE) for t in tgt_tok.pieces_by_id]


def sentencepiece_spellings(src_tok: Tokenizer) -> dict[str, int]:
    """SentencePiece's spelling of each English piece -> the mtcli id it stands for. A continuation
    "##x" is "x" unless a word-initial "x" (after punctuation, as in "don't") already is. With case
    factors, each lowercase piece is spelled in each case, for its id with that factor (SentencePiece
    cannot give factors; a word's later pieces then read as lowercase, where mtcli gives them the
    word's case)."""
    names = source_tokens(src_tok)
    spelled = {name: i for i, name in enumerate(names) if not name.startswith(CONTINUE)}
    for i, name in enumerate(names):
        if name.startswith(CONTINUE) and len(name) > len(CONTINUE):
            spelled.setdefault(name[len(CONTINUE):], i)
    if not src_tok.case_factors:
        return spelled
    cased = {}
    for factor, spell in enumerate((str.lower, _capitalised, str.upper)):
        for name, i in spelled.items():
            if name == name.lower() and name not in SPECIALS:  # (a cased piece: never read by a lowercasing tokenizer)
                cased.setdefault(spell(name), i + src_tok.vocab_size * factor)
    return cased


def _capitalised(name: str) -> str:
    letter = next((k for k, c in enumerate(name) if c.isalpha()), len(name))
    return name[:letter] + name[letter:].capitalize()


def ctranslate2_spec(model: Model, src_tok: Tokenizer, tgt_tok: Tokenizer, aliases: dict[str, int] | None = None):
    """The CTranslate2 TransformerSpec of a model. aliases: extra source tokens, each sharing the
    embedding of an mtcli id (the SentencePiece spellings of an Argos package)."""
    from ctranslate2.specs import common_spec, transformer_spec

    cfg, params = model.cfg, model.params
    features = cfg.case_factors and aliases is None  # else the cases are spelled out (an Argos package)
    spec = transformer_spec.TransformerSpec.from_config(
        cfg.n_layers, cfg.n_heads, pre_norm=False, activation=common_spec.Activation.RELU,
        num_source_embeddings=2 if features else 1, embeddings_merge=common_spec.EmbeddingsMerge.ADD)
    names, V = source_tokens(src_tok), cfg.src_vocab
    ids, row = list(range(V)), {name: k for k, name in enumerate(names)}  # each row's mtcli id
    for name, i in (aliases or {}).items():
        if name in row:  # (a cased piece's row, with case factors: the spelled case stands there instead)
            ids[row[name]] = i
        else:
            row[name] = len(ids)
            ids.append(i)
    ids = np.array(ids)
    enc, dec = spec.encoder, spec.decoder
    enc.embeddings[0].weight = params["src_emb"]["w"][ids % V]
    if cfg.case_factors:
        # CTranslate2 scales the sum of the embeddings by sqrt(d), mtcli the piece's alone. As a source
        # feature, BOS and EOS (which CTranslate2 adds to it too) are lowercase to mtcli; spelled cases
        # (aliases) have their factor added into their rows
        case = params["src_case"]["w"] / np.sqrt(cfg.d_model).astype(model.dtype)
        if features:
            enc.embeddings[1].weight = np.concatenate([case[[0] * len(SPECIALS)], case])
        else:
            enc.embeddings[0].weight = enc.embeddings[0].weight + case[ids // V]
    # mtcli's sinusoid table, continued past the positions mtcli trained on: CTranslate2 fails on an input
    # longer than its table (Argos Translate passes whole sentences), and a long one is better translated
    # with positions it never saw than not at all. The first rows are mtcli's pe_src/pe_tgt exactly.
    enc.position_encodings.encodings = positional_encoding(EXPORT_POSITIONS, cfg.d_model, model.dtype)
    dec.embeddings.weight = params["tgt_emb"]["w"]
    dec.position_encodings.encodings = positional_encoding(EXPORT_POSITIONS, cfg.d_model, model.dtype)
    enc.scale_embeddings = dec.scale_embeddings = True  # W[ids] * sqrt(d_model) + PE
    for i, layer in enumerate(enc.layer):
        _fused(layer.self_attention.linear[0], params[f"enc.{i}.attn"], "qkv")
        _linear(layer.self_attention.linear[1], params[f"enc.{i}.attn"]["wo"], params[f"enc.{i}.attn"]["bo"])
        _layer_norm(layer.self_attention.layer_norm, params[f"enc.{i}.ln1"])
        _ffn(layer.ffn, params[f"enc.{i}.ffn"], params[f"enc.{i}.ln2"])
    for i, layer in enumerate(dec.layer):
        self_attn, cross = params[f"dec.{i}.self"], params[f"dec.{i}.cross"]
        _fused(layer.self_attention.linear[0], self_attn, "qkv")
        _linear(layer.self_attention.linear[1], self_attn["wo"], self_attn["bo"])
        _layer_norm(layer.self_attention.layer_norm, params[f"dec.{i}.ln1"])
        _linear(layer.attention.linear[0], cross["wq"], cross["bq"])
        _fused(layer.attention.linear[1], cross, "kv")
        _linear(layer.attention.linear[2], cross["wo"], cross["bo"])
        _layer_norm(layer.attention.layer_norm, params[f"dec.{i}.ln2"])
        _ffn(layer.ffn, params[f"dec.{i}.ffn"], params[f"dec.{i}.ln3"])
    _linear(dec.projection, params["out"]["w"], params["out"]["b"])
    spec.register_source_vocabulary(list(row))
    if features:
        spec.register_source_vocabulary(SPECIALS + list(CASE_NAMES))
    spec.register_target_vocabulary(target_tokens(tgt_tok))
    spec.config.unk_token, spec.config.bos_token, spec.config.eos_token = SPECIALS[UNK], SPECIALS[BOS], SPECIALS[EOS]
    spec.config.decoder_start_token = SPECIALS[BOS]
    spec.config.add_source_bos = spec.config.add_source_eos = True  # mtcli's encoder input: BOS ... EOS
    spec.config.layer_norm_epsilon = LAYER_NORM_EPS
    return spec


def _ffn(spec, ffn, ln):
    _linear(spec.linear_0, ffn["w1"], ffn["b1"])
    _linear(spec.linear_1, ffn["w2"], ffn["b2"])
    _layer_norm(spec.layer_norm, ln)


def export_ctranslate2(model: Model, src_tok: Tokenizer, tgt_tok: Tokenizer, out_dir: Path,
                       quantization: str = "float32", aliases: dict[str, int] | None = None) -> None:
    """Writes a CTranslate2 model directory (model.bin, config.json, vocabularies)."""
    _require_ctranslate2()
    spec = ctranslate2_spec(model, src_tok, tgt_tok, aliases)
    spec.validate()
    spec.optimize(quantization=None if quantization == "float32" else quantization)
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    spec.save(str(out_dir))


# ---- SentencePiece model (protobuf written by hand: the format is four fields deep) --------------
def _varint(n: int) -> bytes:
    out = bytearray()
    n &= (1 << 64) - 1  # negative int32 values are ten-byte varints
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def _field(number: int, value) -> bytes:
    """One protobuf field: bytes/str length-delimited, float fixed32, int/bool varint."""
    if isinstance(value, (bytes, str)):
        data = value.encode() if isinstance(value, str) else value
        return _varint(number << 3 | 2) + _varint(len(data)) + data
    if isinstance(value, float):
        return _varint(number << 3 | 5) + struct.pack("<f", value)
    return _varint(number << 3) + _varint(int(value))


SP_NORMAL, SP_UNKNOWN = 1, 2  # SentencePiece.Type
SP_UNIGRAM = 1  # TrainerSpec.ModelType


def sentencepiece_model(src_tok: Tokenizer) -> bytes:
    """A SentencePiece unigram model whose pieces are the English WordPiece vocabulary's, each
    scored by its length squared so that long pieces win as in WordPiece's greedy longest match."""
    pieces = [(SPECIALS[UNK], 0.0, SP_UNKNOWN)]
    pieces += [(name, float(len(name) ** 2), SP_NORMAL) for name in sentencepiece_spellings(src_tok)
               if name not in SPECIALS]
    model = b"".join(_field(1, _field(1, s) + _field(2, score) + _field(3, kind)) for s, score, kind in pieces)
    trainer = _field(3, SP_UNIGRAM) + _field(4, len(pieces)) + _field(40, 0) + _field(41, -1) + _field(42, -1) + _field(43, -1)
    # identity normalizer (mtcli's NFC is a no-op on composed text), a space marker before the first word
    normalizer = _field(1, "identity") + _field(3, True) + _field(4, True) + _field(5, True)
    return model + _field(2, trainer) + _field(3, normalizer)


_NAMES = {"en": "English", "es": "Spanish"}


def argos_metadata(direction: str = "en-es", version: str = "1.0") -> dict:
    from_code, to_code = direction.split("-")
    return {"package_version": version, "argos_version": "1.9", "from_code": from_code,
            "from_name": _NAMES[from_code], "to_code": to_code, "to_name": _NAMES[to_code], "type": "translate",
            "links": []}


def export_argos(model: Model, src_tok: Tokenizer, tgt_tok: Tokenizer, out_path: Path,
                 quantization: str = "float32", meta: dict | None = None) -> None:
    """Writes an Argos Translate package: a zip of one directory holding metadata.json, the
    CTranslate2 model in model/ and sentencepiece.model."""
    meta = meta or argos_metadata()
    name = f"translate-{meta['from_code']}_{meta['to_code']}-{meta['package_version'].replace('.', '_')}"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / name
        export_ctranslate2(model, src_tok, tgt_tok, root / "model", quantization, sentencepiece_spellings(src_tok))
        (root / ARGOS_SP_MODEL).write_bytes(sentencepiece_model(src_tok))
        (root / "metadata.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
        (root / "README.md").write_text(
            f"{meta['from_name']} -> {meta['to_name']}, trained from scratch with mtcli.\n", encoding="utf-8")
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            for f in sorted(root.rglob("*")):
                z.write(f, f.relative_to(tmp))
    write_output(out_path, buf.getvalue())  # as every -o: devices written through, links followed, mode kept


def export(model_dir: Path, out: Path, fmt: str = "ctranslate2", quantization: str = "float32") -> int:
    """`mtcli export`: MODEL_DIR -> a CTranslate2 directory (fmt "ctranslate2") or an .argosmodel
    file (fmt "argos"). Of an ensemble, its first model (CTranslate2 decodes one): returns how many
    models MODEL_DIR holds."""
    from mtcli.checkpoint import direction, load_model, load_tokenizers, member_files

    if fmt not in ("ctranslate2", "argos"):
        raise UserError(f"format must be ctranslate2 or argos, not {fmt!r}")
    if quantization not in QUANTIZATIONS:
        raise UserError(f"quantization must be one of {', '.join(QUANTIZATIONS)}, not {quantization!r}")
    model, meta = load_model(model_dir)
    src_tok, tgt_tok = load_tokenizers(model_dir, meta, model.cfg)
    if fmt == "argos" and src_tok.lowercase and not src_tok.case_factors:
        raise UserError(f"{model_dir} lowercases its English (--lowercase-en) and the SentencePiece model of an Argos "
                        "package cannot: export --format ctranslate2 and lowercase the English before it")
    try:
        if fmt == "ctranslate2":
            if out.is_file() or (out.is_dir() and any(out.iterdir())):
                raise UserError(f"{out} exists and is not an empty directory")
            _write_directory(out, lambda tmp: export_ctranslate2(model, src_tok, tgt_tok, tmp, quantization))
        else:
            export_argos(model, src_tok, tgt_tok, out, quantization, argos_metadata(direction(meta)))
    except OSError as e:  # a full disk, a file size limit: CTranslate2's writes name no file
        raise UserError(f"cannot write {out}: {e.strerror or e}") from None
    return len(member_files(model_dir))


def _write_directory(out: Path, write) -> None:
    """write(tmp) fills a directory beside `out` that is then renamed into its place (`out` is new or
    empty): an export that fails or is interrupted leaves no half model behind."""
    from mtcli.registry import new_directory

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = new_directory(out.parent, out.name)
    try:
        write(tmp)
        if out.is_dir():
            out.rmdir()  # (empty: checked before)
        tmp.rename(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
