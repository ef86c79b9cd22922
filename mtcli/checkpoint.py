"""Model directories and training state: safetensors (no pickle), checksummed, written atomically.

A model directory holds
  model.safetensors   the weights by name, with the configs and data manifest in its metadata
  src.json, tgt.json  the English and Spanish tokenizers
  metrics.jsonl       one line per epoch
  scores.json         evaluation reports (`mtcli evaluate --save`)
  lexicon.json        optional: the word types of the target side of the corpus (write_lexicon);
                      beam search then penalises made-up words (decode.WordCheck); and the source
                      side's, whose capitalised outsiders are names kept as written (data.familiar_words);
                      for a Spanish source, the accents its words are written with (data.accent_choices)
  state.safetensors   parameters, Adam moments and loop position for --resume (not shipped)
  member1.safetensors, member2.safetensors, ...
                      an ensemble's further models (`mtcli ensemble`): decoded together with
                      model.safetensors, their log-probabilities averaged
Each .safetensors file carries the SHA-256 of its metadata and tensors, so a flipped byte is caught
on load; model.safetensors also records the SHA-256 of the tokenizer files it was trained with.
"""

from __future__ import annotations

import hashlib
import json
import math
import mmap
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
from safetensors import safe_open
from safetensors.numpy import save

from mtcli.atomic import atomic_write_bytes
from mtcli.config import DEFAULT_DIRECTION, ModelConfig, TrainConfig, to_dict
from mtcli.errors import UserError
from mtcli.model import Model, count_params, param_shapes, views
from mtcli.ranges import plain, plain_data_record
from mtcli.optim import Adam
from mtcli.stats import Stats
from mtcli.tokenizer import Tokenizer

WEIGHTS, STATE = "model.safetensors", "state.safetensors"
SRC_TOK, TGT_TOK, METRICS = "src.json", "tgt.json", "metrics.jsonl"
SCORES = "scores.json"  # evaluation reports, written by `mtcli evaluate --save`
LEXICON = "lexicon.json"  # the target side's words (write_lexicon); optional
LEXICON_LIMIT = 1 << 20  # bytes a lexicon may take (a shipped model's is in the wheel)
META, CHECKSUM = "mtcli", "mtcli_sha256"  # the safetensors metadata keys


def _digest(tensors: dict[str, np.ndarray], meta_json: str) -> str:
    """SHA-256 of the metadata text and of every tensor's name, dtype, shape and bytes."""
    h = hashlib.sha256(meta_json.encode())
    for name in sorted(tensors):
        t = np.ascontiguousarray(tensors[name])
        h.update(f"\0{name}\0{t.dtype.str}\0{t.shape}\0".encode())
        h.update(t)  # (its buffer: a copy of each, as tobytes made, cost a model's load ~10 ms)
    return h.hexdigest()


def save_tensors(path: Path, tensors: dict[str, np.ndarray], meta: dict) -> None:
    meta_json = json.dumps(meta)
    metadata = {META: meta_json, CHECKSUM: _digest(tensors, meta_json)}
    # serialised in memory and written by Python: a full disk is then an OSError (one-line error),
    # where safetensors' own file writer raises its SafetensorError
    atomic_write_bytes(path, save(tensors, metadata=metadata))


def load_tensors(path: Path, mapped: bool = False) -> tuple[dict[str, np.ndarray], dict]:
    """The tensors of a file and its metadata, checked against the file's checksum. mapped: read-only arrays over
    the file's mapped bytes (a model's weights, converted to float32 at once), not copies of them."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"{path}: no such file")
    try:
        with safe_open(str(path), framework="np") as f:  # (which checks the header and the tensors' places)
            header = f.metadata() or {}
            tensors = _mapped(path, f) if mapped else {k: f.get_tensor(k) for k in f.keys()}
        meta_json = header[META]
        meta = json.loads(meta_json)
        if not isinstance(meta, dict):
            raise ValueError("the metadata is not a JSON object")
    except Exception as e:  # safetensors raises several types for damaged headers and sizes
        reason = (str(e).splitlines() or [""])[0]
        raise UserError(f"{path}: damaged or not an mtcli file ({type(e).__name__}: {reason})") from None
    if header.get(CHECKSUM) != _digest(tensors, meta_json):
        raise UserError(f"{path}: checksum mismatch, the file is corrupted")
    return tensors, meta


# safetensors' dtypes as NumPy reads them (little-endian); another (bfloat16) is copied by safetensors
_NUMPY_DTYPES = {"F16": "<f2", "F32": "<f4", "F64": "<f8", "I8": "i1", "I16": "<i2", "I32": "<i4", "I64": "<i8",
                 "U8": "u1", "U16": "<u2", "U32": "<u4", "U64": "<u8", "BOOL": "?"}


def _mapped(path: Path, f) -> dict[str, np.ndarray]:
    """A safetensors file's tensors as arrays over its memory-mapped bytes: the copies safetensors makes cost a
    model's load ~10 ms of CPU (the file: 8 bytes of header length, the JSON header, the tensors' bytes)."""
    with open(path, "rb") as file:
        data = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    size = int.from_bytes(data[:8], "little")
    entries = json.loads(data[8 : 8 + size])
    return {name: np.frombuffer(data, _NUMPY_DTYPES[e["dtype"]], math.prod(e["shape"]), 8 + size + e["data_offsets"][0])
            .reshape(e["shape"]) if e["dtype"] in _NUMPY_DTYPES else f.get_tensor(name)
            for name, e in entries.items() if name != "__metadata__"}


def _file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def save_model(model_dir: Path, model: Model, meta: dict) -> None:
    """Weights by parameter name; meta must be JSON-serialisable (configs, data manifest, ...).
    The SHA-256 of the tokenizer files already in model_dir is recorded, so that load_model can tell
    when they were edited, damaged or replaced by another model's."""
    model_dir = Path(model_dir)
    tensors = {f"{group}.{n}": t for group, ts in model.params.items() for n, t in ts.items()}
    try:
        model_dir.mkdir(parents=True, exist_ok=True)
        tokenizers = {name: _file_sha256(model_dir / name) for name in (SRC_TOK, TGT_TOK)
                      if (model_dir / name).is_file()}
    except OSError as e:
        raise UserError(f"cannot use model directory {model_dir}: {e.strerror or e}") from None
    save_tensors(model_dir / WEIGHTS, tensors, {**meta, "model": to_dict(model.cfg), "tokenizers": tokenizers})


def check_tokenizers(model_dir: Path, meta: dict) -> None:
    """The tokenizer files must be those model.safetensors was saved with."""
    recorded = meta.get("tokenizers")
    if not isinstance(recorded, dict):
        raise UserError(f"{Path(model_dir) / WEIGHTS}: no tokenizer checksums in its metadata")
    for name in (SRC_TOK, TGT_TOK):
        path = Path(model_dir) / name
        if name in recorded and path.is_file() and _file_sha256(path) != recorded[name]:
            raise UserError(f"{path} is not the tokenizer {Path(model_dir) / WEIGHTS} was trained with "
                            "(SHA-256 differs: damaged, edited or from another model)")


def load_tokenizers(model_dir: Path, meta: dict, cfg: ModelConfig) -> tuple[Tokenizer, Tokenizer]:
    """The English and Spanish tokenizers of model_dir, refused unless they are the files the model was
    saved with and give the ids it reads."""
    check_tokenizers(model_dir, meta)
    src_tok, tgt_tok = (Tokenizer.load(Path(model_dir) / name) for name in (SRC_TOK, TGT_TOK))
    if (src_tok.vocab_size, tgt_tok.vocab_size) != (cfg.src_vocab, cfg.tgt_vocab):
        raise UserError(f"{model_dir}: tokenizers do not match the model's vocabulary sizes")
    if src_tok.case_factors != cfg.case_factors:
        raise UserError(f"{model_dir}: the English tokenizer and the model disagree on case factors")
    return src_tok, tgt_tok


def load_lexicon(model_dir: Path, meta: dict) -> list[str] | None:
    """The lowercased target-side words of model_dir's lexicon.json, sorted as written (sorting them anew
    would cost a model's load 20 ms), None without one; refused if it is damaged or of the other direction."""
    return lexicon_parts(model_dir, meta)[0]


def load_familiar(model_dir: Path, meta: dict) -> frozenset[str] | None:
    """The source-side words the model learned (data.familiar_words), None without them (a lexicon written
    before they were: its model keeps every capitalised word the vocabulary spells)."""
    return lexicon_parts(model_dir, meta)[1]


def load_accents(model_dir: Path, meta: dict) -> dict | None:
    """A Spanish source's accent choices (data.accent_choices), None without them (an English source, or a lexicon
    written before them: the text pipeline then takes the vocabulary's)."""
    return lexicon_parts(model_dir, meta)[2]


def lexicon_parts(model_dir: Path, meta: dict) -> tuple[list[str] | None, frozenset[str] | None, dict | None]:
    """load_lexicon's, load_familiar's and load_accents' at one reading of the file (a model's load read and
    checked it three times: ~20 ms of a one-sentence translation)."""
    record = _lexicon_record(model_dir, meta)
    if record is None:
        return None, None, None
    familiar = frozenset(record["familiar"]) if "familiar" in record else None
    return record["words"], familiar, record.get("accents") or None


def _lexicon_record(model_dir: Path, meta: dict) -> dict | None:
    path = Path(model_dir) / LEXICON
    if not path.is_file():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        lists = [record["words"], record.get("familiar", [])]
        accents = record.get("accents", {})
        if record["direction"] != direction(meta) or not all(isinstance(w, str) for ws in lists for w in ws) \
                or not (isinstance(accents, dict) and all(isinstance(v, dict) for v in accents.values())):
            raise ValueError(f"not a lexicon of {direction(meta)}")
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise UserError(f"{path} is damaged or not this model's ({e}); rebuild it with checkpoint.write_lexicon") from None
    return record


def write_lexicon(model_dir: Path, corpus: Path) -> Path:
    """Put the lexicon of the corpus, in the direction of model_dir's model, into model_dir (for a model made
    before lexicons, or before shipping one): the target side's words and the source side's (data.familiar_words),
    a Spanish source's accents (data.accent_choices); returns its path."""
    from mtcli.data import accent_choices, familiar_words, read_corpus, target_lexicon

    model_dir = Path(model_dir)
    _, meta = load_model(model_dir)
    data, way = read_corpus(corpus), direction(meta)
    record = {"direction": way, "corpus_sha256": data.sha256, "words": target_lexicon(data.pairs, way),
              "familiar": familiar_words(data.pairs, way)}
    if accents := accent_choices(data.pairs, way):
        record["accents"] = accents
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode()
    if len(text) > LEXICON_LIMIT:
        raise UserError(f"the lexicon of {data.path} takes {len(text):,} bytes, over {LEXICON_LIMIT:,}")
    atomic_write_bytes(model_dir / LEXICON, text)
    return model_dir / LEXICON


def load_model(model_dir: Path, dtype=np.float32, cached: bool = False) -> tuple[Model, dict]:
    """The model and the metadata it was saved with (an ensemble's first model)."""
    model_dir = Path(model_dir)
    if not model_dir.is_dir():
        raise UserError(f"{model_dir}: no such model directory (train one with `mtcli train`)")
    return _load_weights(model_dir / WEIGHTS, dtype, cached)


def load_weights(path: Path, dtype=np.float32) -> tuple[Model, dict]:
    """The model in one weights file (a directory's model.safetensors or an ensemble's member file)."""
    if not Path(path).is_file():
        raise UserError(f"{path}: no such weights file")
    return _load_weights(Path(path), dtype)


def _load_weights(path: Path, dtype, cached: bool = False) -> tuple[Model, dict]:
    """cached: the weights from (and into) the user cache, converted to dtype, when the file is the one they were
    made from (load_ensemble: a translator's models)."""
    entry = _cache_entry(path, dtype) if cached else None
    found = None if entry is None else _from_cache(path, *entry, dtype)
    if found is not None:
        return found
    tensors, meta = load_tensors(path, mapped=True)
    cfg = _config(path, meta)
    shapes = param_shapes(cfg)
    if set(shapes) != set(tensors) or any(tensors[n].shape != s for n, s in shapes.items()):
        raise UserError(f"{path}: weights do not match the model config")
    flat = np.zeros(sum(int(np.prod(s)) for s in shapes.values()), dtype)  # (float16 on disk: float32 here)
    for group, ts in views(flat, cfg).items():
        for n, t in ts.items():
            t[...] = tensors[f"{group}.{n}"]
    if entry is not None:
        from mtcli import usercache

        usercache.write(entry[0].parent, entry[0].name, {"flat": flat}, keep=CACHED_MODELS)
    return Model(cfg, flat), meta


def _config(path: Path, meta: dict) -> ModelConfig:
    """The model config a file's metadata records, refused in one line unless every field is sound."""
    where = f"{path}: invalid model config"
    cfg = plain(ModelConfig, meta.get("model"))  # a recomputed checksum proves nothing: every field checked
    if cfg is None or not plain_data_record(meta.get("data")):  # (pydantic, to refuse it in its words)
        from mtcli import schema

        cfg = schema.check(ModelConfig, meta.get("model"), where)
        schema.check_data_meta(meta.get("data"), f"{path}: invalid data record")
    try:
        param_shapes(cfg)
    except (TypeError, ValueError, ZeroDivisionError) as e:
        raise UserError(f"{where} ({e})") from None
    return cfg


# A translator's weights are kept converted (float16 on disk -> float32) in the user cache and memory-mapped from
# there: the shipped ensemble's load took ~70 ms of a one-sentence translation's CPU (its checksum and conversion),
# ~5 ms from the cache. An entry is named by the file's checksum (its header's), size and modification time, so a
# file written again after its entry was made (a flipped byte, another model) is read and checked in full again.
CACHED_MODELS = 4  # entries kept, the last used (28 MB for each shipped en-es member, 26 MB for es-en)
WEIGHTS_CACHE = "weights"
HEADER_LIMIT = 1 << 24  # bytes of a safetensors header read for its checksum (the file's own header: a few KB)


def _cache_entry(path: Path, dtype) -> tuple[Path, str] | None:
    """A weights file's cache entry (its directory) and the metadata text of its header; None with no cache or no
    readable header."""
    from mtcli import usercache

    where = usercache.root(WEIGHTS_CACHE)
    try:
        with open(path, "rb") as f:
            size = int.from_bytes(f.read(8), "little")
            header = json.loads(f.read(size)) if 0 < size <= HEADER_LIMIT else {}
            stat = os.fstat(f.fileno())
        checksum, meta_json = header["__metadata__"][CHECKSUM], header["__metadata__"][META]
    except (OSError, ValueError, KeyError, TypeError):  # unreadable, not JSON, not a header of ours
        return None
    if where is None or not isinstance(checksum, str) or not checksum.isalnum() or not isinstance(meta_json, str):
        return None
    return where / f"{checksum[:32]}-{stat.st_size}-{stat.st_mtime_ns}-{np.dtype(dtype).name}", meta_json


def _from_cache(path: Path, entry: Path, meta_json: str, dtype) -> tuple[Model, dict] | None:
    """The model of a cache entry (its weights memory-mapped copy-on-write) with the metadata of its file's
    header, or None when there is no sound entry."""
    from mtcli import usercache

    found = usercache.read(entry, ["flat"], mode="c")
    try:
        meta = json.loads(meta_json)
    except ValueError:
        return None
    if found is None or not isinstance(meta, dict):
        return None
    cfg, flat = _config(path, meta), np.asarray(found["flat"])  # (asarray: an ndarray, not np.memmap)
    if flat.dtype != dtype or flat.shape != (count_params(cfg),):
        return None
    return Model(cfg, flat), meta


# --- ensembles: several models decoded as one --------------------------------------------------

MEMBER = "member{}.safetensors"  # an ensemble's models after the first (model.safetensors)
ENSEMBLE_MEMBER = "ensemble_member"  # metadata: "K of N: source directory name"
# what every model of an ensemble must share: one source and one target vocabulary, position by position
SHARED = ("src_vocab", "tgt_vocab", "max_src_len", "max_tgt_len")


def member_files(model_dir: Path) -> list[Path]:
    """model.safetensors and the ensemble's further members, in order."""
    files = [Path(model_dir) / WEIGHTS]
    while (Path(model_dir) / MEMBER.format(len(files))).is_file():
        files.append(Path(model_dir) / MEMBER.format(len(files)))
    return files


def load_ensemble(model_dir: Path, dtype=np.float32) -> tuple[list[Model], dict]:
    """Every model of a directory (one unless it is an ensemble) and the first one's metadata; their weights
    through the user cache (_load_weights)."""
    first, meta = load_model(model_dir, dtype, cached=True)
    models, trained_on = [first], set(_trained_on(meta))
    for path in member_files(model_dir)[1:]:
        model, member_meta = _load_weights(path, dtype, cached=True)
        _check_member(path, model.cfg, member_meta, first.cfg, meta)
        models.append(model)
        trained_on |= _trained_on(member_meta)
    recorded = meta.get(ENSEMBLE_MEMBER)  # "1 of 2: NAME", written by save_ensemble
    expected = int(recorded.split(" of ")[1].split(":")[0]) if isinstance(recorded, str) and " of " in recorded else 1
    if expected != len(models):
        raise UserError(f"{model_dir}: an ensemble of {expected} models, but {len(models)} found "
                        f"(missing {', '.join(MEMBER.format(k) for k in range(len(models), expected))})")
    return models, {**meta, TRAINED_ON: sorted(trained_on)}


def write_first_member(model_dir: Path, out: Path) -> Path:
    """An ensemble's first model as a one-model directory `out` (its weights and tokenizers; its metadata without
    the record of its membership, which load_ensemble would hold against the missing members): what a comparison
    of one model (CTranslate2 decodes one; fine-tuning starts from one) reads."""
    import shutil

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for name in (SRC_TOK, TGT_TOK):
        shutil.copyfile(Path(model_dir) / name, out / name)
    model, meta = load_model(model_dir)
    meta.pop(ENSEMBLE_MEMBER, None)
    save_model(out, model, meta)
    return out


def direction(meta: dict) -> str:
    """A model's direction ("en-es", "es-en"), as its data record says; models made before directions: en-es."""
    return (meta.get("data") or {}).get("direction", DEFAULT_DIRECTION)


TRAINED_ON = "trained_on"  # load_ensemble's record: the splits any of the models learned from


def _trained_on(meta: dict) -> set[str]:
    return set(str(meta.get("train", {}).get("train_on", "train")).split("+"))


def _check_member(path: Path, cfg: ModelConfig, meta: dict, first_cfg: ModelConfig, first_meta: dict) -> None:
    clash = [f for f in SHARED if getattr(cfg, f) != getattr(first_cfg, f)]
    if clash or meta.get("tokenizers") != first_meta.get("tokenizers"):
        what = ", ".join(clash) if clash else "tokenizers"
        raise UserError(f"{path}: not a member of this ensemble ({what} differ from the first model's); "
                        "an ensemble's models share their tokenizers")


def save_ensemble(out: Path, model_dirs: list[Path], dtype=np.float16) -> list[Path]:
    """The models of model_dirs (each one model, trained with the same tokenizers) as one ensemble in
    `out`, weights stored as dtype (float16 halves the size; decoding runs in float32 as ever).
    Returns the files written. `out` must be new or empty (the caller claims it)."""
    import shutil

    metas = []
    for d in model_dirs:
        if len(member_files(d)) > 1:
            raise UserError(f"{d} is itself an ensemble; give its members' own directories")
        model, meta = load_model(d)
        check_tokenizers(d, meta)
        if metas:
            _check_member(Path(d) / WEIGHTS, model.cfg, meta, metas[0][0].cfg, metas[0][1])
        metas.append((model, meta))
    out = Path(out)
    for name in (SRC_TOK, TGT_TOK, METRICS, LEXICON):  # (the first model's training record, for `mtcli info`)
        if (Path(model_dirs[0]) / name).is_file():
            shutil.copyfile(Path(model_dirs[0]) / name, out / name)
    written = []
    for k, ((model, meta), d) in enumerate(zip(metas, model_dirs)):
        tensors = {f"{group}.{n}": t.astype(dtype) for group, ts in model.params.items() for n, t in ts.items()}
        path = out / (WEIGHTS if k == 0 else MEMBER.format(k))
        save_tensors(path, tensors, {**meta, ENSEMBLE_MEMBER: f"{k + 1} of {len(metas)}: {Path(d).name}"})
        written.append(path)
    return written


# --- training state: what --resume continues from -------------------------------------------------


@dataclass
class LoopState:
    """Everything besides parameters and Adam moments that --resume needs."""

    epoch: int = 0
    batch: int = 0  # next batch index within the epoch
    elapsed: float = 0.0  # training seconds so far, across resumes
    best_error: float = math.inf  # selection error of the best epoch
    best_bleu: float = -1.0  # its selection BLEU (with bleu_sample)
    best_epoch: int = -1
    bad_epochs: int = 0
    epoch_sums: list = field(default_factory=lambda: Stats.zero().to_list())  # Stats of the epoch so far
    rng: dict = field(default_factory=dict)  # dropout generator state (rank 0's)
    rank_rngs: list = field(default_factory=list)  # those of MPI ranks 1, 2, ...
    history: list = field(default_factory=list)  # one dict per finished epoch
    done: str = ""  # why training stopped, once it has


def save_state(out: Path, model: Model, adam: Adam, loop: LoopState, meta: dict,
               average: np.ndarray | None = None) -> None:
    """meta: the run's records (train config, data); average: the weights' moving average, if kept."""
    moments, step = adam.state()
    tensors = {"params": model.flat, **{f"adam_{k}": a for k, a in moments.items()}}
    if average is not None:
        tensors["average"] = average
    save_tensors(out / STATE, tensors, {**meta, "model": to_dict(model.cfg), "loop": asdict(loop), "step": step})


def load_state(out: Path) -> tuple[Model, Adam, LoopState, dict, np.ndarray | None]:
    """The saved run: model, optimizer, loop position, metadata, and the weights' moving average
    (None when the run keeps none)."""
    from mtcli import schema

    tensors, meta = load_tensors(out / STATE)
    where = f"{out / STATE}: invalid training state"  # every field checked: a recomputed checksum proves nothing
    cfg, t = schema.check(ModelConfig, meta.get("model"), where), schema.check(TrainConfig, meta.get("train"), where)
    loop = schema.check(LoopState, meta.get("loop"), where)
    meta = {**meta, "train": to_dict(t), "step": schema.step(meta.get("step"), where)}
    schema.check_rows(loop.history, where)
    for state in (loop.rng, *loop.rank_rngs):
        generator(state, where)
    try:
        model = Model(cfg, tensors["params"])
        adam = Adam(model.flat.size, t.beta1, t.beta2, t.eps)
        adam.load_state({k: tensors[f"adam_{k}"] for k in ("m", "v")}, meta["step"])
        average = tensors.get("average")
        if average is not None and average.shape != model.flat.shape:
            raise ValueError("the weights' average does not match the parameters")
    except (KeyError, TypeError, ValueError) as e:
        raise UserError(f"{out / STATE}: invalid training state ({e})") from None
    return model, adam, loop, meta, average


def generator(state: dict, where: str) -> np.random.Generator:
    """A generator continuing from a saved bit-generator state (checked: a file may hold anything)."""
    rng = np.random.default_rng()
    try:
        rng.bit_generator.state = state
    except (KeyError, TypeError, ValueError, OverflowError) as e:
        raise UserError(f"{where}: a random generator state is invalid ({type(e).__name__}: {e})") from None
    return rng
