"""Training-time data augmentation in the manner of OpusTrainer's modifiers: each epoch, every
training pair independently gets each modifier with its probability, seeded by (seed, epoch), so
a resumed run sees the same text. The selection and test splits are never augmented.

The modifiers teach the model what people type: lowercase and ALL CAPS text (both sides change,
so the case of the output follows the input), Title Case, a missing final stop or question mark
(the source alone loses it: a question typed without "?" is still a question), a source typed without
accents or the opening ¿ and ¡ ("donde esta la estacion": how Spanish is often typed), and numbers the
model has never seen, which it must copy digit by digit (a digit run shared by both sides is
replaced by random digits on both). With English case factors (`mtcli tokenize --case-factors-en`) the
case modifiers change the English alone: its factors say how it was typed, and the Spanish keeps its
usual case for the model to write whatever the English's."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mtcli.data import EncodedSplit
from mtcli.tokenizer import BOS, EOS, Tokenizer

_WORD_START = re.compile(r"(?<![\w'’])(\w)")
_FINAL_PUNCT = re.compile(r"[.!?。…]+[\"'”’»)]*\s*$")
_DIGITS = re.compile(r"\b\d+\b")  # digit runs, not ordinals such as 3rd


def _title(text: str) -> str:
    return _WORD_START.sub(lambda m: m.group(1).upper(), text)


def _strip_final(text: str) -> str:
    return _FINAL_PUNCT.sub("", text).rstrip() or text


def _unaccented(text: str) -> str:
    """Without combining marks (á -> a, ñ -> n, ü -> u) and without the opening ¿ and ¡."""
    bare = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", bare.replace("¿", "").replace("¡", ""))


def _numbers(en: str, es: str, rng: np.random.Generator) -> tuple[str, str]:
    """Digit runs found on both sides, each replaced by the same random digits on both."""
    shared = sorted(set(_DIGITS.findall(en)) & set(_DIGITS.findall(es)), key=len, reverse=True)
    if not shared:
        return en, es
    new = {}
    for run in shared:
        width = int(rng.integers(1, 5))
        first = str(rng.integers(1, 10)) if width > 1 else str(rng.integers(0, 10))
        new[run] = first + "".join(str(d) for d in rng.integers(0, 10, width - 1))
    swap = lambda m: new.get(m.group(0), m.group(0))  # noqa: E731
    return _DIGITS.sub(swap, en), _DIGITS.sub(swap, es)


@dataclass(frozen=True)
class Modifier:
    name: str  # the TrainConfig field is augment_<name>, its probability
    apply: Callable[[str, str, np.random.Generator], tuple[str, str]]
    changes_case: bool = False


# applied in this order when several are drawn for one pair
MODIFIERS = (
    Modifier("numbers", _numbers),
    Modifier("lowercase", lambda en, es, rng: (en.lower(), es.lower()), changes_case=True),
    Modifier("titlecase", lambda en, es, rng: (_title(en), _title(es)), changes_case=True),
    Modifier("uppercase", lambda en, es, rng: (en.upper(), es.upper()), changes_case=True),
    Modifier("strip_punct", lambda en, es, rng: (_strip_final(en), es)),
    Modifier("unaccented", lambda en, es, rng: (_unaccented(en), es)),
)


def augment_pairs(pairs: Sequence[tuple[str, str]], probs: dict[str, float], rng: np.random.Generator,
                  spanish_case: bool = True) -> dict[int, tuple[str, str]]:
    """{row: modified pair} for the rows that drew at least one modifier; the case modifiers change
    the Spanish too only if `spanish_case`."""
    draws = {m.name: rng.random(len(pairs)) < probs.get(m.name, 0.0) for m in MODIFIERS}
    changed = {}
    for i in np.flatnonzero(np.any(list(draws.values()), axis=0)) if draws else []:
        en, es = pairs[i]
        for m in MODIFIERS:
            if draws[m.name][i]:
                en, new_es = m.apply(en, es, rng)
                es = es if m.changes_case and not spanish_case else new_es
        if (en, es) != pairs[i]:
            changed[int(i)] = (en, es)
    return changed


def augment_split(split: EncodedSplit, pairs: Sequence[tuple[str, str]], src_tok: Tokenizer, tgt_tok: Tokenizer,
                  probs: dict[str, float], seed: int, epoch: int, max_src_len: int, max_tgt_len: int) -> EncodedSplit:
    """The training split for one epoch: split's pairs (rows of `pairs`, the corpus) with modifiers
    drawn for (seed, epoch). A modified pair over the length limits keeps its original ids."""
    if not any(probs.values()):
        return split
    rng = np.random.default_rng([seed, epoch, 0xA06])
    rows = split.index
    changed = augment_pairs([pairs[r] for r in rows], probs, rng, spanish_case=not src_tok.case_factors)
    at = sorted(changed)
    src_ids = src_tok.encode_batch([changed[i][0] for i in at])
    tgt_ids = tgt_tok.encode_batch([changed[i][1] for i in at])
    new = {i: (s, t) for i, s, t in zip(at, src_ids, tgt_ids)
           if len(s) + 2 <= max_src_len and len(t) + 2 <= max_tgt_len + 1}
    src = [[BOS, *new[i][0], EOS] if i in new else split.src_seq(i) for i in range(len(rows))]
    tgt = [[BOS, *new[i][1], EOS] if i in new else split.tgt_seq(i) for i in range(len(rows))]
    return EncodedSplit.from_sequences(rows, src, tgt)
