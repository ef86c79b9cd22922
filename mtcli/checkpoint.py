"""Model directories and training state: safetensors (no pickle), checksummed, written atomically.

A model directory holds
  model.safetensors   the weights by name, with the configs and data manifest in its metadata
  src.json, tgt.json  the English and Spanish tokenizers
  metrics.jsonl       one line per epoch
  state.safetensors   parameters, Adam moments and loop position for --resume (not shipped)
Each .safetensors file carries the SHA-256 of its tensors, so a flipped byte is caught on load.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
from safetensors import safe_open
from safetensors.numpy import save_file

from mtcli.atomic import atomic_write
from mtcli.config import ModelConfig, from_dict, to_dict
from mtcli.errors import UserError
from mtcli.model import Model, param_shapes, views

WEIGHTS, STATE = "model.safetensors", "state.safetensors"
SRC_TOK, TGT_TOK, METRICS = "src.json", "tgt.json", "metrics.jsonl"


def _digest(tensors: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for name in sorted(tensors):
        h.update(name.encode())
        h.update(np.ascontiguousarray(tensors[name]).tobytes())
    return h.hexdigest()


def save_tensors(path: Path, tensors: dict[str, np.ndarray], meta: dict) -> None:
    metadata = {"mtcli": json.dumps({**meta, "sha256": _digest(tensors)})}
    atomic_write(path, lambda tmp: save_file(tensors, str(tmp), metadata=metadata))


def load_tensors(path: Path) -> tuple[dict[str, np.ndarray], dict]:
    path = Path(path)
    if not path.is_file():
        raise UserError(f"{path}: no such file")
    try:
        with safe_open(str(path), framework="np") as f:
            meta = json.loads((f.metadata() or {})["mtcli"])
            tensors = {k: f.get_tensor(k) for k in f.keys()}
    except Exception as e:  # safetensors raises several types for damaged headers and sizes
        raise UserError(f"{path}: damaged or not an mtcli file ({type(e).__name__}: {e})") from None
    if meta.pop("sha256", None) != _digest(tensors):
        raise UserError(f"{path}: checksum mismatch, the file is corrupted")
    return tensors, meta


def save_model(model_dir: Path, model: Model, meta: dict) -> None:
    """Weights by parameter name; meta must be JSON-serialisable (configs, data manifest, ...)."""
    Path(model_dir).mkdir(parents=True, exist_ok=True)
    tensors = {f"{g}.{n}": t for g, ts in model.p.items() for n, t in ts.items()}
    save_tensors(Path(model_dir) / WEIGHTS, tensors, {**meta, "model": to_dict(model.cfg)})


def load_model(model_dir: Path, dtype=np.float32) -> tuple[Model, dict]:
    """The model and the metadata it was saved with."""
    model_dir = Path(model_dir)
    if not model_dir.is_dir():
        raise UserError(f"{model_dir}: no such model directory (train one with `mtcli train`)")
    tensors, meta = load_tensors(model_dir / WEIGHTS)
    try:
        cfg = from_dict(ModelConfig, meta["model"])
    except (KeyError, TypeError, ValueError) as e:
        raise UserError(f"{model_dir / WEIGHTS}: invalid model config ({e})") from None
    shapes = param_shapes(cfg)
    if set(shapes) != set(tensors) or any(tensors[n].shape != s for n, s in shapes.items()):
        raise UserError(f"{model_dir / WEIGHTS}: weights do not match the model config")
    flat = np.zeros(sum(int(np.prod(s)) for s in shapes.values()), dtype)
    for g, ts in views(flat, cfg).items():
        for n, t in ts.items():
            t[...] = tensors[f"{g}.{n}"]
    return Model(cfg, flat), meta
