"""Configurations: every default with the reason it was chosen. Saved as JSON with every model."""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from mtcli.errors import UserError

DEFAULT_DOWNLOAD_DIR = Path("data")  # where `mtcli download` unpacks the archive
DEFAULT_DATA = DEFAULT_DOWNLOAD_DIR / "spa-eng" / "spa.txt"  # the corpus it unpacks there
DEFAULT_PREPARED = Path("data/prepared")  # where `mtcli tokenize` writes and `mtcli train` reads
DEFAULT_RUNS = Path("runs")  # `mtcli train` writes each run to RUNS/<config> unless --out is given

# translation directions, source-target; the corpus holds English-Spanish pairs and serves both
DIRECTIONS = ("en-es", "es-en")
DEFAULT_DIRECTION = "en-es"  # models made before directions existed are English->Spanish
# WordPiece vocabulary of each language, source or target: the thesis's sizes (ch. 6)
VOCAB = {"en": 4562, "es": 6134}


def languages(direction: str) -> tuple[str, str]:
    """(source, target) of a direction such as "es-en"."""
    if direction not in DIRECTIONS:
        raise UserError(f"unknown direction {direction!r}; choose {' or '.join(DIRECTIONS)}")
    src, tgt = direction.split("-")
    return src, tgt


@dataclass
class ModelConfig:
    src_vocab: int = VOCAB["en"]  # source WordPiece vocabulary (English->Spanish's; data sets it)
    tgt_vocab: int = VOCAB["es"]  # target WordPiece vocabulary
    d_model: int = 64  # thesis "Small"
    d_ff: int = 128  # thesis "Small": FFN hidden width d_p
    n_heads: int = 4  # thesis "Small": h
    n_layers: int = 1  # thesis "Small": tau, blocks in encoder and decoder each
    max_src_len: int = 56  # thesis m_S: positional table length for English (with start/end)
    max_tgt_len: int = 54  # thesis m_R + 1: Spanish with start or end label
    dropout: float = 0.1  # residual dropout (Vaswani et al.); the thesis had none and overfit
    attn_dropout: float = 0.1  # dropout on attention weights, same reason
    # English ids carry a case factor (tokenizer.CASE_FACTORS) whose embedding is added: lowercase,
    # Capitalised and ALL CAPS words are one piece to the model (not the thesis's; issue 17)
    case_factors: bool = False

    def __post_init__(self) -> None:
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model={self.d_model} is not divisible by n_heads={self.n_heads}")


PRESETS: dict[str, dict] = {
    "small": dict(d_model=64, d_ff=128, n_heads=4, n_layers=1),
    "medium": dict(d_model=128, d_ff=256, n_heads=4, n_layers=2),
    "large": dict(d_model=256, d_ff=512, n_heads=8, n_layers=2),
}


@dataclass
class TrainConfig:
    batch_size: int = 64  # thesis n_B; also what the PyTorch twin used
    lr_schedule: str = "noam"  # "noam": k*d^-0.5*min(t^-0.5, t*tw^-1.5); "thesis": eta0*min(...)
    lr_scale: float = 1.0  # k in the noam form (measured: 2 was no better); eta0 in the thesis form
    warmup: int = 1000  # t_w; measured (README sweep): beat the thesis's 4000, also at the same peak (k=2)
    beta1: float = 0.9  # thesis 5.2
    beta2: float = 0.98  # Vaswani et al.; faster adaptation than 0.999 under warm-up
    eps: float = 1e-9  # Vaswani et al.
    label_smoothing: float = 0.1  # Vaswani et al.; the reported error stays plain cross-entropy
    clip_norm: float = 1.0  # global gradient-norm clip guards against early spikes
    max_epochs: int = 100  # an upper bound; early stopping usually ends first
    max_time: float = 0.0  # seconds, 0 = no limit
    patience: int = 3  # epochs without selection-error improvement before stopping
    accuracy_goal: float = 0.0  # thesis stops at 0.90 training accuracy; 0 = off
    seed: int = 0
    dtype: str = "float32"
    # augmentation (mtcli/augment.py): the probability that a training pair gets each modifier in
    # an epoch; all 0 keeps the thesis's data as it is
    augment_numbers: float = 0.0
    augment_lowercase: float = 0.0
    augment_titlecase: float = 0.0
    augment_uppercase: float = 0.0
    augment_strip_punct: float = 0.0
    augment_unaccented: float = 0.0  # the source typed without accents and without the opening ¿ ¡ (Spanish)
    augment_short: float = 0.0  # chance of a short pair's extra copy with each other final mark (! . none)
    ema_decay: float = 0.0  # exponential moving average of the weights, evaluated and saved; 0 = off
    bleu_sample: int = 0  # selection sentences translated (greedy) for a BLEU each epoch; 0 = off
    early_stop_on: str = "error"  # "error" (the thesis's selection error) or "bleu" (needs bleu_sample)
    # "train+selection": the final model of a recipe whose epoch count the selection split has fixed
    # (issue 17): more data, no early stopping, every epoch saved; the test split stays held out
    train_on: str = "train"
    # weights to start from instead of random ones (a model directory or one .safetensors file of an
    # ensemble): an existing model tuned further, e.g. taught case factors; "" = a new model
    init_from: str = ""

    def augment_probs(self) -> dict[str, float]:
        return {f.name.removeprefix("augment_"): getattr(self, f.name) for f in dataclasses.fields(self)
                if f.name.startswith("augment_")}

    def lr(self, step: int, d_model: int) -> float:
        """Learning rate at optimizer step `step` (1-based)."""
        t = max(step, 1)
        shape = min(t**-0.5, t * self.warmup**-1.5)
        if self.lr_schedule == "noam":
            return self.lr_scale * d_model**-0.5 * shape
        if self.lr_schedule == "thesis":
            return self.lr_scale * shape
        raise ValueError(f"unknown lr_schedule {self.lr_schedule!r} (noam or thesis)")


CHECKS = ("full", "fast", "off")
RERANKS = ("short", "all", "off")  # TranslationOptions.rerank


@dataclass(frozen=True)
class TranslationOptions:
    """Decoding settings, named as CTranslate2's translate_batch names them. decode.py uses them; they
    live here, beside the other configurations, so that the CLI's help and the server's defaults read
    them without loading the decoder (importing decode.py costs seconds: Numba, the kernels)."""

    beam_size: int = 4  # 1 is greedy
    num_hypotheses: int = 1  # n-best list length (at most beam_size)
    length_penalty: float = 1.0  # alpha: hypotheses rank by logprob / (tokens + EOS) ** alpha
    max_decoding_length_a: float = 1.5  # output budget: a * source length + b tokens, EOS included
    max_decoding_length_b: int = 10  # (Marian/fairseq style; source length counts BOS and EOS)
    no_repeat_ngram_size: int = 4  # an n-gram repeated within one output is a loop, never Spanish; 0: off
    # beta of GNMT's coverage penalty over the beam's finished hypotheses (decode.Coverage; 0: off); 0.05 chosen on
    # 800 selection sentences of 6+ words (0 / 0.05 / 0.1: BLEU 59.53 / 59.61 / 59.14, lines with a source word left
    # uncovered 284 / 258 / 254): fewer words left out (docs/results.md)
    coverage_penalty: float = 0.05
    max_batch_size: int = 2048  # sentences decoded together, in examples or source tokens (padded) times the beam
    batch_type: str = "tokens"  # "tokens" or "examples"
    # how sure each translation is (mtcli/confidence/; docs/confidence.md): "fast" reads it again under
    # teacher forcing, "full" also reads the source back with the other direction's model given the translation
    # (held out +0.10 en-es, +0.06 es-en of the wrong ones caught, at +15-40 % CPU: asked for, not the
    # default), "off"; a model without a fitted combination (MODEL/confidence.json) is not checked
    check: str = "fast"
    return_alignments: bool = False  # source-target word alignments from the cross-attention (--align)
    # which of the shipped models' translations the way back ranks again (mtcli.roundtrip; beam search only):
    # "short" lines of 1-3 words (short set 52.7 -> 56.8 %), "all" lines (unseen through `translate -i` BLEU 35.3 ->
    # 36.0, messages' content kept 80.2 -> 82.8 %, at ~1.6x a file's CPU and +136 MB: asked for, not the
    # default), "off" (docs/results.md)
    rerank: str = "short"

    def __post_init__(self):
        if self.beam_size < 1 or self.num_hypotheses < 1 or self.max_batch_size < 1:
            raise UserError("beam size, number of hypotheses and batch size must be at least 1")
        if self.batch_type not in ("tokens", "examples"):
            raise UserError(f"batch type must be tokens or examples, not {self.batch_type!r}")
        if self.check not in CHECKS:
            raise UserError(f"check must be {', '.join(CHECKS)}, not {self.check!r}")
        if self.rerank not in RERANKS:
            raise UserError(f"rerank must be {', '.join(RERANKS)}, not {self.rerank!r}")


DEFAULTS = TranslationOptions()  # the decoding of `mtcli translate`, `evaluate` and `serve` unless told otherwise


# seconds one line's text work and its share of decoding may take before the line passes through as it came, with
# a warning (TextOptions.budget): a safety net, far above any real line (10,000 characters of prose, the longest
# a line is read, take under a second of text work); an attack on a superlinear path took 30-90 s (issue 38)
LINE_BUDGET = 30.0


@dataclass(frozen=True)
class TextOptions:
    """Which steps of the text pipeline (mtcli/text/) run; all off is the raw model on each line (the
    benchmark's "before")."""

    segment: bool = True  # one sentence at a time
    protect: bool = True  # numbers, URLs, emoji, ... kept exactly
    case: bool = True  # ALL CAPS, lowercase, loose contractions
    punctuate: bool = True  # a missing final "?" or "." added (a question then comes out as ¿...?); off for
    # a fragment (a link's text): no final mark, no capital letter first
    keep_stop: bool = True  # off: a source without final punctuation gets a translation without a final "."
    # (documents: a heading, a cell, a link's text)
    glossary: object | None = None  # the user's terms bound to the direction (a text.glossary.Glossary), kept
    # and put back as its targets
    source: str = "en"  # the source language: which language's rules run (contractions, questions, titles, dates)
    budget: float | None = LINE_BUDGET  # seconds a line may take (text/budget.py); None: no limit


@dataclass(frozen=True)
class Options:
    """Everything one translation is asked with, built once and passed down unchanged: by `mtcli translate`
    (its flags over MTCLI_* over these defaults) or by the server (a request's fields over the server's own).
    `decoding` goes to the Translator and the checker as it is; the text pipeline gets `text_for(source)`:
    `text` with that source language's rules and `glossary` bound to its direction."""

    decoding: TranslationOptions = DEFAULTS
    text: TextOptions = TextOptions()
    glossary: object | None = None  # the user's terms (a text.glossary.Glossary), for every direction

    def text_for(self, source: str) -> TextOptions:
        return self._by_source[source]

    @functools.cached_property
    def _by_source(self) -> dict[str, TextOptions]:
        """(once per object: binding a glossary to a direction indexes its terms again)"""
        terms = self.glossary
        return {src: dataclasses.replace(self.text, source=src, glossary=terms.towards(src, tgt) if terms else None)
                for src, tgt in map(languages, DIRECTIONS)}
# max_batch_size where batches count sentences (batch_type "examples"): Translator.translate (what
# `mtcli evaluate` decodes with) and the server's batches
SENTENCES_PER_BATCH = 64


def model_config(preset: str = "small", **overrides) -> ModelConfig:
    if preset not in PRESETS:
        raise ValueError(f"unknown config {preset!r}; choose one of {', '.join(PRESETS)}")
    return ModelConfig(**{**PRESETS[preset], **overrides})


def to_dict(cfg) -> dict:
    return dataclasses.asdict(cfg)


def from_dict(cls, d: dict):
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = set(d) - names
    if unknown:
        raise ValueError(f"unknown {cls.__name__} fields: {', '.join(sorted(unknown))}")
    return cls(**d)


# The user's config file: defaults for the MTCLI_* variables, read before the command line, so a flag wins over
# the environment, which wins over the file. TOML, flat: `beam = 2`, `from = "es"`, `model = "my-model"`.
CONFIG_ENV = "MTCLI_CONFIG"  # another file; set empty: none
SETTINGS = ("model", "from", "to", "beam", "data", "prepared", "threads", "host", "port", "api_key",
            "request_timeout", "download_url", "home")


def config_path(environ=os.environ) -> Path | None:
    from mtcli.guards import expand_user

    given = environ.get(CONFIG_ENV)
    if given is not None:
        return expand_user(given, CONFIG_ENV) if given.strip() else None
    from platformdirs import user_config_dir

    return Path(user_config_dir("mtcli")) / "config.toml"


MAX_CONFIG_BYTES = 1 << 20  # a few settings; more is not a config file


def apply_config_file(environ=os.environ) -> dict[str, Path]:
    """Each setting of the config file (config_path) as its MTCLI_* variable's default, unless already set.
    A missing default file is no error; a given one that is missing, unreadable or wrong is, in one line.
    The values are checked where they are used (a flag given instead makes a bad one no error); the
    variables set are returned, each with the file, for those checks' errors to name it."""
    from mtcli import guards

    path = config_path(environ)
    if path is None or (CONFIG_ENV not in environ and not path.exists()):
        return {}
    try:  # (a named pipe: read once, or refused after a bounded wait, never waited for in silence)
        data = guards.read_once(path, MAX_CONFIG_BYTES)
        if len(data) > MAX_CONFIG_BYTES:
            raise UserError(f"config file {path}: over {MAX_CONFIG_BYTES >> 20} MB: not a config file")
        text = data.decode("utf-8-sig")  # (a BOM, as Windows editors write)
    except OSError as e:
        raise UserError(f"config file {path}: cannot read it ({e.strerror or e}); "
                        f"fix it or set {CONFIG_ENV}= (empty) to read none") from None
    except UnicodeDecodeError as e:
        raise UserError(f"config file {path}: not UTF-8 text (byte {e.start})") from None
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    try:
        found = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"config file {path}: {e}") from None
    applied = {}
    for key, value in found.items():
        if key not in SETTINGS:
            raise UserError(f"config file {path}: unknown setting {key!r} (known: {', '.join(SETTINGS)})")
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise UserError(f"config file {path}: {key} must be a string or a number, not {type(value).__name__}")
        if "\0" in str(value):  # (no environment variable can hold one)
            raise UserError(f"config file {path}: {key} holds a NUL character (\\u0000)")
        variable = f"MTCLI_{key.upper()}"
        if variable not in environ:
            environ[variable] = str(value)
            applied[variable] = path
    return applied


__all__ = ["DIRECTIONS", "DEFAULT_DIRECTION", "VOCAB", "languages", "DEFAULT_DATA", "DEFAULT_DOWNLOAD_DIR", "DEFAULT_PREPARED", "DEFAULT_RUNS", "ModelConfig", "TrainConfig",
           "PRESETS", "TranslationOptions", "DEFAULTS", "RERANKS", "TextOptions", "Options", "SENTENCES_PER_BATCH", "model_config", "to_dict", "from_dict",
           "CONFIG_ENV", "SETTINGS", "config_path", "apply_config_file"]
