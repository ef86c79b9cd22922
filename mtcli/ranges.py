"""Every number mtcli takes from a user or a file, with its range, in one place: the CLI declares its
options with them (`typer.Option(..., **limits("beam"))`) and mtcli.schema checks the files mtcli reads
back against them. Apart from schema so that the CLI reads them without loading pydantic (~0.1 s).
"""

import math

BIG = 10**9  # "no sensible run gets here": epochs, steps, seconds
MAX_SEED = 2**32 - 1

# name -> (lowest, highest), both allowed. Model sizes are bounded by what the kernels index with
# int32 and what fits in memory; probabilities stay below 1 where 1 would divide by zero.
RANGES: dict[str, tuple[float, float]] = {
    # ModelConfig
    "src_vocab": (16, 65536), "tgt_vocab": (16, 65536),  # ids are stored as uint16
    "d_model": (2, 8192), "d_ff": (1, 65536), "n_heads": (1, 256), "n_layers": (1, 64),
    "max_src_len": (3, 4096), "max_tgt_len": (2, 4096),
    "dropout": (0.0, 0.99), "attn_dropout": (0.0, 0.99),
    # TrainConfig
    "batch_size": (1, 65536), "lr_scale": (1e-9, 1e4), "warmup": (1, BIG), "beta1": (0.0, 0.9999999),
    "beta2": (0.0, 0.9999999), "eps": (1e-30, 1.0), "label_smoothing": (0.0, 0.99), "clip_norm": (0.0, 1e9),
    "max_epochs": (1, BIG), "max_time": (0.0, 1e9), "patience": (1, BIG), "accuracy_goal": (0.0, 1.0),
    "seed": (0, MAX_SEED), "augment_numbers": (0.0, 1.0), "augment_lowercase": (0.0, 1.0),
    "augment_titlecase": (0.0, 1.0), "augment_uppercase": (0.0, 1.0), "augment_strip_punct": (0.0, 1.0),
    "augment_unaccented": (0.0, 1.0),
    "augment_short": (0.0, 1.0),
    "ema_decay": (0.0, 0.9999999), "bleu_sample": (0, 10**7),
    # LoopState
    "epoch": (0, BIG), "batch": (0, BIG), "elapsed": (0.0, 1e12), "best_error": (0.0, math.inf),
    "best_bleu": (-1.0, 100.0), "best_epoch": (-1, BIG), "bad_epochs": (0, BIG),
    # decoding: a beam row holds a vocabulary-sized score vector per step, so beam x batch is memory
    "beam": (1, 64), "nbest": (1, 64), "alpha": (0.0, 10.0), "decode_batch": (1, 1024),
    # every thread and rank holds its own gradient buffer; ranks are processes on this machine
    "limit": (0, BIG), "threads": (0, 64), "ranks": (0, 64),
    # serve: what one request or the queue may hold (memory is what they bound)
    "serve_chars": (1, 10**7), "serve_texts": (1, 10**5), "serve_body": (1, 2**30), "serve_queue": (1, 10**8),
}
MAX_PARAMETERS = 200_000_000  # 4 GB of float32 weights; training holds 5 copies (weights, gradient, Adam's 2, average)
CHOICES: dict[str, tuple[str, ...]] = {
    "lr_schedule": ("noam", "thesis"), "early_stop_on": ("error", "bleu"), "dtype": ("float32",),
    "split": ("grouped", "random"), "train_on": ("train", "train+selection", "train+selection+test"),
}
MAX_LINE_CHARS = 10_000  # translate: a longer input line is cut (the model reads 54 tokens of it)


def limits(name: str) -> dict:
    """typer.Option keywords for option `name`'s range."""
    lo, hi = RANGES[name]
    return {"min": lo, "max": hi}


# --- records that are plainly valid, told without pydantic (~0.1 s of a one-sentence translation's start) -----
# What these accept, mtcli.schema's pydantic models accept too, giving the same values (tests/test_schema.py holds
# them together); anything else (a wrong type, a value out of range, a field they do not know) is left to
# mtcli.schema, which refuses it in its words.


def _plain_value(name: str, kind, value) -> bool:
    if kind is str:
        return type(value) is str and (name not in CHOICES or value in CHOICES[name])
    if kind not in (int, float, bool) or type(value) is not kind:
        return False
    low, high = RANGES.get(name, (-math.inf, math.inf))
    return kind is bool or math.isfinite(value) and low <= value <= high


def plain(cls, data):
    """`data` (a dict read from a file) as dataclass `cls` when every field it gives is a bool, a whole number or
    a finite decimal within RANGES, a word of CHOICES or text of the field's type (a missing one: its default);
    None otherwise, for mtcli.schema.check."""
    import dataclasses
    import typing

    kinds = typing.get_type_hints(cls)
    fields = {f.name for f in dataclasses.fields(cls)}
    if not isinstance(data, dict) or not data.keys() <= fields \
            or not all(_plain_value(name, kinds[name], value) for name, value in data.items()):
        return None
    try:
        return cls(**data)
    except ValueError:  # (the dataclass's own checks: mtcli.schema words them)
        return None


def _plain_count(value) -> bool:
    return type(value) is int and 0 <= value <= 10**12


def plain_data_record(data) -> bool:
    """Whether a model's record of its data (mtcli.schema.DataRecord) is plainly valid: None (made before it was
    recorded), or its known fields of the right type and range (others are allowed)."""
    if data is None:
        return True
    if not isinstance(data, dict):
        return False
    sha, vocab = data.get("data_sha256"), data.get("vocab")
    sizes = data.get("split_sizes", {})
    return (sha is None or type(sha) is str and len(sha) == 64 and set(sha) <= set("0123456789abcdef")) \
        and _plain_value("seed", int, data.get("seed", 0)) and _plain_value("split", str, data.get("split", "grouped")) \
        and type(sizes) is dict and all(type(k) is str and _plain_count(v) for k, v in sizes.items()) \
        and (vocab is None or type(vocab) is dict and vocab.keys() == {"en", "es"}
             and _plain_value("src_vocab", int, vocab["en"]) and _plain_value("tgt_vocab", int, vocab["es"])) \
        and data.get("direction", "en-es") in ("en-es", "es-en") and type(data.get("direction", "")) is str
