"""Every file mtcli reads back, checked against the ranges of every number (mtcli.ranges).

The CLI declares its options with the ranges of mtcli.ranges (`typer.Option(..., **limits("beam"))`,
without loading pydantic), and the files mtcli reads back (the model and training configs inside
model.safetensors and state.safetensors, the loop state, metrics.jsonl, scores.json, the tokenized
data's manifest) are checked here against the same ranges and types with pydantic. A checksum only
proves a file is the one written: a hand-made file with a recomputed checksum (float or negative
sizes, absurd lengths, NaN) is refused here in one line, before any work starts.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import typing
from pathlib import Path
from typing import Annotated, Any, Literal

import pydantic
from pydantic import ConfigDict, Field

from mtcli.errors import UserError
from mtcli.ranges import BIG, CHOICES, MAX_LINE_CHARS, MAX_PARAMETERS, RANGES, limits


def _bounded(tp, name: str):
    if name in CHOICES:
        return Literal[CHOICES[name]]
    if name in RANGES:
        lo, hi = RANGES[name]
        return Annotated[tp, Field(ge=lo, le=hi, allow_inf_nan=math.isinf(hi))]
    return tp


_STRICT = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False)
# LoopState's containers, which its dataclass types only as list/dict
_SHAPES = {"epoch_sums": Annotated[list[float], Field(min_length=4, max_length=4)],
           "rank_rngs": list[dict], "history": list[dict], "rng": dict}


@functools.cache
def _model_of(cls) -> type[pydantic.BaseModel]:
    """A pydantic model of dataclass `cls`: its fields, types and defaults, with the ranges above."""
    hints = typing.get_type_hints(cls)
    spec = {}
    for f in dataclasses.fields(cls):
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        spec[f.name] = (_bounded(_SHAPES.get(f.name, hints[f.name]), f.name), default)
    return pydantic.create_model(f"{cls.__name__}Schema", __config__=_STRICT, **spec)


def _one_line(e: pydantic.ValidationError, where: str) -> UserError:
    first = e.errors()[0]
    field = ".".join(map(str, first["loc"])) or "the value"
    got = repr(first.get("input"))
    got = got if len(got) <= 40 else got[:37] + "..."
    more = f" (and {e.error_count() - 1} more)" if e.error_count() > 1 else ""
    return UserError(f"{where}: {field}: {first['msg']}, not {got}{more}")


def check(cls, data: Any, where: str):
    """`data` (a dict read from a file) as an instance of dataclass `cls`; missing fields get their
    defaults (files written before a field existed), anything else wrong is one UserError."""
    if not isinstance(data, dict):
        raise UserError(f"{where}: expected a JSON object, not {type(data).__name__}")
    try:
        return cls(**dict(_model_of(cls).model_validate(data)))
    except pydantic.ValidationError as e:
        raise _one_line(e, where) from None
    except ValueError as e:  # the dataclass's own checks (heads dividing the width, ...)
        raise UserError(f"{where}: {e}") from None


# --- records inside model files, rows and reports -------------------------------------------------

_Count = Annotated[int, Field(ge=0, le=10**12)]
_Sha256 = Annotated[str, Field(pattern="^[0-9a-f]{64}$")]


_Direction = Literal["en-es", "es-en"]


class _Sides(pydantic.BaseModel):
    model_config = _STRICT
    en: Annotated[int, Field(ge=RANGES["src_vocab"][0], le=RANGES["src_vocab"][1])]
    es: Annotated[int, Field(ge=RANGES["tgt_vocab"][0], le=RANGES["tgt_vocab"][1])]


class DataRecord(pydantic.BaseModel):
    """What a model records of the tokenized data it was trained on (evaluate rebuilds its split)."""

    model_config = ConfigDict(strict=True, extra="allow", allow_inf_nan=False)
    data_sha256: _Sha256 | None = None
    seed: _bounded(int, "seed") = 0
    split: _bounded(str, "split") = "grouped"
    split_sizes: dict[str, _Count] = {}
    vocab: _Sides | None = None
    direction: _Direction = "en-es"  # models made before directions existed translate English->Spanish


def check_data_meta(data: Any, where: str) -> None:
    if data is None:  # models saved before it was recorded
        return
    try:
        DataRecord.model_validate(data)
    except pydantic.ValidationError as e:
        raise _one_line(e, where) from None


_Share = Annotated[float, Field(ge=0.0, le=1.0)]
_NonNegative = Annotated[float, Field(ge=0.0, le=1e12)]


class _Part(pydantic.BaseModel):
    model_config = ConfigDict(strict=True, extra="allow", allow_inf_nan=False)


class _CorpusInfo(_Part):
    path: Annotated[str, Field(min_length=1, max_length=4096)]
    format: Literal["tsv", "csv"]
    pairs: _Count
    skipped: _Count
    skipped_lines: Annotated[list[_Count], Field(max_length=100)]


class _Lengths(_Part):
    mean: _NonNegative
    p95: _NonNegative
    max: _Count


class _Overlong(_Part):
    en: _Count
    es: _Count
    dropped_from_train: _Count
    truncated: dict[Literal["selection", "test"], _Count]


class Manifest(_Part):
    """manifest.json of `mtcli tokenize` (what its summary prints and training reads)."""

    format_version: int
    data_sha256: _Sha256
    direction: _Direction = "en-es"
    seed: _bounded(int, "seed")
    split: _bounded(str, "split")
    fractions: Annotated[list[_Share], Field(min_length=3, max_length=3)]
    vocab: _Sides
    max_len: dict[Literal["en", "es"], Annotated[int, Field(ge=3, le=RANGES["max_src_len"][1])]]
    lowercase: dict[Literal["en"], Literal[True]] = {}
    case_factors: dict[Literal["en"], Literal[True]] = {}
    data: _CorpusInfo
    split_sizes: dict[Literal["train", "selection", "test"], _Count]
    roundtrip: dict[Literal["en", "es"], _Share]
    lengths: dict[Literal["en", "es"], _Lengths]
    overlong: _Overlong
    files: dict[str, _Sha256]
    seconds: _NonNegative


def check_manifest(manifest: Any, where: str) -> None:
    try:
        Manifest.model_validate(manifest)
    except pydantic.ValidationError as e:
        raise _one_line(e, where) from None


class _Options(_Part):
    direction: _Direction = "en-es"
    seed: _bounded(int, "seed")
    split: _bounded(str, "split")
    vocab: _Sides
    data: dict[Literal["path"], Annotated[str, Field(min_length=1, max_length=4096)]] | _CorpusInfo
    lowercase: dict[Literal["en"], Literal[True]] = {}
    case_factors: dict[Literal["en"], Literal[True]] = {}


def tokenize_options(manifest: Any) -> dict:
    """The `mtcli tokenize` options a manifest (complete or not) records: path, direction, seed, split, en, es, lowercase_en,
    case_factors_en."""
    try:
        o = _Options.model_validate(manifest)
    except pydantic.ValidationError as e:
        raise _one_line(e, "manifest") from None
    path = o.data["path"] if isinstance(o.data, dict) else o.data.path
    return {"path": path, "direction": o.direction, "seed": o.seed, "split": o.split, "en": o.vocab.en, "es": o.vocab.es,
            "lowercase_en": bool(o.lowercase), "case_factors_en": bool(o.case_factors)}


class MetricsRow(pydantic.BaseModel):
    """One epoch of metrics.jsonl (what `mtcli plot` draws); later fields may be added."""

    model_config = ConfigDict(strict=True, extra="allow", allow_inf_nan=False)
    epoch: Annotated[int, Field(ge=1, le=BIG)]
    train_error: _NonNegative
    selection_error: _NonNegative
    train_accuracy: _Share
    selection_accuracy: _Share
    step: Annotated[int, Field(ge=0, le=10**12)] = 0
    seconds: _NonNegative = 0.0
    train_loss: _NonNegative = 0.0
    lr: _NonNegative = 0.0
    selection_bleu: Annotated[float, Field(ge=0.0, le=100.0)] | None = None


class Report(pydantic.BaseModel):
    """One evaluation report of scores.json (`mtcli evaluate --save`)."""

    model_config = ConfigDict(strict=True, extra="allow", allow_inf_nan=False)
    bleu: Annotated[float, Field(ge=0.0, le=100.0)]
    chrf: Annotated[float, Field(ge=0.0, le=100.0)]
    pairs: Annotated[int, Field(ge=0, le=10**12)]
    decoding: Annotated[str, Field(max_length=200)]


_SCORES = pydantic.TypeAdapter(dict[Annotated[str, Field(max_length=1000)], Report], config=ConfigDict(strict=True))


def _read_text(path: Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise UserError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None


def _row(data: Any, where: str) -> dict:
    try:
        return MetricsRow.model_validate(data).model_dump(exclude_none=True)
    except pydantic.ValidationError as e:
        raise _one_line(e, where) from None


def check_rows(rows: list, where: str) -> None:
    """The metrics rows a training state carries (it rewrites metrics.jsonl from them)."""
    for i, row in enumerate(rows):
        _row(row, f"{where}: history row {i + 1}")


def step(value: Any, where: str) -> int:
    """The optimizer's step counter of a training state."""
    if type(value) is not int or not 0 <= value <= 10**12:
        raise UserError(f"{where}: step: expected a whole number from 0, not {value!r:.40}")
    return value


def metrics_rows(path: Path) -> list[dict]:
    """metrics.jsonl, every line checked; a bad one is named by its line number."""
    rows = []
    for lineno, line in enumerate(_read_text(path).split("\n"), 1):
        if not line.strip():
            continue
        where = f"{path}: line {lineno}"
        try:
            data = json.loads(line)
        except ValueError as e:
            raise UserError(f"{where}: not JSON ({e})") from None
        rows.append(_row(data, where))
    if not rows:
        raise UserError(f"{path}: no epochs recorded")
    return rows


def read_scores(path: Path) -> dict[str, dict]:
    """scores.json ({} when there is none); a damaged or hand-broken one is refused, never overwritten."""
    path = Path(path)
    if not path.exists():
        return {}
    try:
        data = json.loads(_read_text(path))
        return {k: r.model_dump() for k, r in _SCORES.validate_python(data).items()}
    except pydantic.ValidationError as e:
        raise _one_line(e, f"{path} (move it away to start a new one)") from None
    except ValueError as e:
        raise UserError(f"{path}: not JSON ({e}); move it away to start a new one") from None


__all__ = ["RANGES", "CHOICES", "MAX_LINE_CHARS", "MAX_PARAMETERS", "limits", "check", "check_data_meta", "check_manifest", "tokenize_options", "check_rows", "step", "metrics_rows", "read_scores"]
