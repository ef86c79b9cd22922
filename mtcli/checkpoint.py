"""Model directories and training state: safetensors (no pickle), checksummed, written atomically.

A model directory holds
  model.safetensors   the weights by name, with the configs and data manifest in its metadata
  src.json, tgt.json  the English and Spanish tokenizers
  metrics.jsonl       one line per epoch
  scores.json         evaluation reports (`mtcli evaluate --save`)
  state.safetensors   parameters, Adam moments and loop position for --resume (not shipped)
Each .safetensors file carries the SHA-256 of its metadata and tensors, so a flipped byte is caught
on load; model.safetensors also records the SHA-256 of the tokenizer files it was trained with.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
from safetensors import safe_open
from safetensors.numpy import save

from mtcli import schema
from mtcli.atomic import atomic_write_bytes
from mtcli.config import ModelConfig, TrainConfig, to_dict
from mtcli.errors import UserError
from mtcli.model import Model, param_shapes, views
from mtcli.optim import Adam
from mtcli.stats import Stats

WEIGHTS, STATE = "model.safetensors", "state.safetensors"
SRC_TOK, TGT_TOK, METRICS = "src.json", "tgt.json", "metrics.jsonl"
SCORES = "scores.json"  # evaluation reports, written by `mtcli evaluate --save`
META, CHECKSUM = "mtcli", "mtcli_sha256"  # the safetensors metadata keys


def _digest(tensors: dict[str, np.ndarray], meta_json: str) -> str:
    """SHA-256 of the metadata text and of every tensor's name, dtype, shape and bytes."""
    h = hashlib.sha256(meta_json.encode())
    for name in sorted(tensors):
        t = np.ascontiguousarray(tensors[name])
        h.update(f"\0{name}\0{t.dtype.str}\0{t.shape}\0".encode())
        h.update(t.tobytes())
    return h.hexdigest()


def save_tensors(path: Path, tensors: dict[str, np.ndarray], meta: dict) -> None:
    meta_json = json.dumps(meta)
    metadata = {META: meta_json, CHECKSUM: _digest(tensors, meta_json)}
    # serialised in memory and written by Python: a full disk is then an OSError (one-line error),
    # where safetensors' own file writer raises its SafetensorError
    atomic_write_bytes(path, save(tensors, metadata=metadata))


def load_tensors(path: Path) -> tuple[dict[str, np.ndarray], dict]:
    path = Path(path)
    if not path.is_file():
        raise UserError(f"{path}: no such file")
    try:
        with safe_open(str(path), framework="np") as f:
            header = f.metadata() or {}
            tensors = {k: f.get_tensor(k) for k in f.keys()}
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


def _file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def save_model(model_dir: Path, model: Model, meta: dict) -> None:
    """Weights by parameter name; meta must be JSON-serialisable (configs, data manifest, ...).
    The SHA-256 of the tokenizer files already in model_dir is recorded, so that load_model can tell
    when they were edited, damaged or replaced by another model's."""
    model_dir = Path(model_dir)
    tensors = {f"{g}.{n}": t for g, ts in model.params.items() for n, t in ts.items()}
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


def load_model(model_dir: Path, dtype=np.float32) -> tuple[Model, dict]:
    """The model and the metadata it was saved with."""
    model_dir = Path(model_dir)
    if not model_dir.is_dir():
        raise UserError(f"{model_dir}: no such model directory (train one with `mtcli train`)")
    tensors, meta = load_tensors(model_dir / WEIGHTS)
    where = f"{model_dir / WEIGHTS}: invalid model config"
    cfg = schema.check(ModelConfig, meta.get("model"), where)  # a recomputed checksum proves nothing
    schema.check_data_meta(meta.get("data"), f"{model_dir / WEIGHTS}: invalid data record")
    try:
        shapes = param_shapes(cfg)
    except (TypeError, ValueError, ZeroDivisionError) as e:
        raise UserError(f"{where} ({e})") from None
    if set(shapes) != set(tensors) or any(tensors[n].shape != s for n, s in shapes.items()):
        raise UserError(f"{model_dir / WEIGHTS}: weights do not match the model config")
    flat = np.zeros(sum(int(np.prod(s)) for s in shapes.values()), dtype)
    for g, ts in views(flat, cfg).items():
        for n, t in ts.items():
            t[...] = tensors[f"{g}.{n}"]
    return Model(cfg, flat), meta


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
