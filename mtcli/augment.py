"""Training-time data augmentation in the manner of OpusTrainer's modifiers: each epoch, every
training pair independently gets each modifier with its probability, seeded by (seed, epoch), so
a resumed run sees the same text. The selection and test splits are never augmented.

The modifiers teach the model what people type: lowercase and ALL CAPS text (both sides change,
so the case of the output follows the input), Title Case, a missing final stop or question mark
(the source alone loses it: a question typed without "?" is still a question), a source typed without
accents or the opening ¿ and ¡ ("donde esta la estacion": how Spanish is often typed), and numbers the
model has never seen, which it must copy digit by digit (a digit run shared by both sides is
replaced by random digits on both). Short pairs (a source of at most SHORT_WORDS words that is not a
question: greetings, thanks, signs) come back as extra copies with each other final mark on both sides
(`!`, `.` or none; ¡…! in Spanish), some in lowercase or ALL CAPS, so that "Hello!" means what "Hello."
means: the corpus's short pairs end in "." 25 times as often as in "!", and a model that saw "Hi!" only
once invents words for it. With English case factors (`mtcli tokenize --case-factors-en`) the
case modifiers change the English alone: its factors say how it was typed, and the Spanish keeps its
usual case for the model to write whatever the English's."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mtcli.data import EncodedSplit
from mtcli.tokenizer import BOS, EOS, Tokenizer
from mtcli import lazy_re

_WORD_START = lazy_re.compile(r"(?<![\w'’])(\w)")
_FINAL_PUNCT = lazy_re.compile(r"[.!?。…]+[\"'”’»)]*\s*$")
_DIGITS = lazy_re.compile(r"\b\d+\b")  # digit runs, not ordinals such as 3rd
_MARKS = lazy_re.compile(r"^[¡¿\s]+|[.!¡…\s]+$")  # a short phrase's opening and final marks (questions are left alone)
SHORT_WORDS = 3


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


def _marked(text: str, mark: str, spanish: bool) -> str:
    """text with its opening and final marks replaced by `mark` ("!", "." or "")."""
    bare = _MARKS.sub("", text)
    return f"¡{bare}!" if mark == "!" and spanish else bare + mark


def short_variants(pairs: Sequence[tuple[str, str]], prob: float, rng: np.random.Generator,
                   spanish: tuple[bool, bool], spanish_case: bool = True) -> list[tuple[int, tuple[str, str]]]:
    """(row, pair) extra copies: each short pair, once for each of the two final marks of `!`, `.`, none
    that it does not have, each with probability `prob`; a copy is typed as is, in lowercase or in ALL CAPS
    (1/2, 1/4, 1/4; the Spanish side's case changes only if `spanish_case`). `spanish` says which side
    (source, target) is Spanish."""
    extra = []
    draws = rng.random((len(pairs), 2)) < prob if prob else np.zeros((len(pairs), 2), bool)
    for i in np.flatnonzero(draws.any(axis=1)):
        src, tgt = pairs[i]
        if len(src.split()) > SHORT_WORDS or "?" in src or "?" in tgt or not _MARKS.sub("", src):
            continue
        now = "!" if src.rstrip().endswith("!") else "." if src.rstrip().endswith(".") else ""
        for mark, drawn in zip([m for m in ("!", ".", "") if m != now], draws[i]):
            if drawn:
                case = _SHORT_CASES[int(rng.integers(0, len(_SHORT_CASES)))]
                new_tgt = _marked(tgt, mark, spanish[1])
                extra.append((int(i), (case(_marked(src, mark, spanish[0])), case(new_tgt) if spanish_case else new_tgt)))
    return extra


# a short copy's case: as typed twice as often as lowercase or ALL CAPS ("hello!", "HELLO!")
_SHORT_CASES = (str, str, str.lower, str.upper)


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
                  probs: dict[str, float], seed: int, epoch: int, max_src_len: int, max_tgt_len: int,
                  spanish: tuple[bool, bool] = (False, True)) -> EncodedSplit:
    """The training split for one epoch: split's pairs (rows of `pairs`, the corpus) with modifiers
    drawn for (seed, epoch), then the short pairs' extra copies. A pair over the length limits keeps its
    original ids (an extra copy is dropped). `spanish`: which side (source, target) is Spanish."""
    if not any(probs.values()):
        return split
    rows = split.index
    text = [pairs[r] for r in rows]
    changed = augment_pairs(text, probs, np.random.default_rng([seed, epoch, 0xA06]),
                            spanish_case=not src_tok.case_factors)
    # their own random stream, so that runs without them draw the same modifiers as before
    extra = short_variants(text, probs.get("short", 0.0), np.random.default_rng([seed, epoch, 0x5407]), spanish,
                           spanish_case=not src_tok.case_factors)
    todo = [(i, changed[i]) for i in sorted(changed)] + extra
    src_ids = src_tok.encode_batch([p[0] for _, p in todo])
    tgt_ids = tgt_tok.encode_batch([p[1] for _, p in todo])
    fits = [len(s) + 2 <= max_src_len and len(t) + 2 <= max_tgt_len + 1 for s, t in zip(src_ids, tgt_ids)]
    new = {i: ([BOS, *s, EOS], [BOS, *t, EOS]) for (i, _), s, t, ok in zip(todo[:len(changed)], src_ids, tgt_ids, fits)
           if ok}
    src = [new[i][0] if i in new else split.src_seq(i) for i in range(len(rows))]
    tgt = [new[i][1] if i in new else split.tgt_seq(i) for i in range(len(rows))]
    more = [(rows[i], [BOS, *s, EOS], [BOS, *t, EOS])
            for (i, _), s, t, ok in zip(extra, src_ids[len(changed):], tgt_ids[len(changed):], fits[len(changed):]) if ok]
    return EncodedSplit.from_sequences([*rows, *(m[0] for m in more)], src + [m[1] for m in more],
                                       tgt + [m[2] for m in more])
