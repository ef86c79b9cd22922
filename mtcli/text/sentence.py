"""What travels through the text pipeline: the model behind `Engine`, a line's result, and a sentence's record
with the small protocol every stage of it follows (pipeline.STAGES lists them in order). Its options,
TextOptions, are config.py's, beside every other default.

The model is reached only through `Engine` (a decode function and a `Lexicon`: the source tokenizer's encode,
the length limit, the tables read from the vocabularies), so the pipeline does not depend on how decoding
works; `Engine.from_translator` wraps an `mtcli.decode.Translator`, and the server's formatter processes
make theirs of the same Lexicon with another decode.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from typing import Protocol

from mtcli.config import DEFAULT_DIRECTION, DEFAULTS, TextOptions, TranslationOptions
from mtcli.text import case, protect, spanish
from mtcli.text.glossary import with_terms
from mtcli.text.openers import verb_first
from mtcli.text.segment import fit
from mtcli import lazy_re

NBest = list[tuple[str, float]]
Decode = Callable[[list[str]], list[NBest]]  # sentences -> their n-best (text, score) lists, best first
UNK = 1  # mtcli.tokenizer.UNK (not imported: this package loads without the tokenizers library)
LETTER = lazy_re.compile(r"[^\W\d_]")


def placeholders_for(direction: str) -> tuple[tuple[str, ...], ...]:
    """The placeholder ladder of a direction's model ("es-en" -> the Spanish source's)."""
    return protect.PLACEHOLDERS_FROM.get(direction.split("-")[0], protect.PLACEHOLDERS)


RAW = TextOptions(segment=False, protect=False, case=False, punctuate=False)


@dataclass(frozen=True)
class Lexicon:
    """What the pipeline reads of a model besides its decoding, made by `of` (one way for the CLI and the
    server) and picklable (the server sends it to its formatter processes)."""

    tokenizer: object  # the source tokenizer (mtcli.tokenizer: encode, pieces)
    limit: int  # most source ids one decoded piece may have
    names: dict[str, str]  # truecasing table (case.truecase_table; spanish.names for a Spanish source)
    placeholders: tuple[tuple[str, ...], ...]  # the ladder the model copies (protect.py)
    accents: dict[str, dict]  # a Spanish source's (data.accent_choices, or spanish.accent_table); else none
    familiar: frozenset[str]  # the source words the model learned (Engine.familiar)
    target: frozenset[str] = frozenset()  # the words the model writes (Engine.target)

    @classmethod
    def of(cls, tr) -> Lexicon:
        """Of an mtcli.decode.Translator: its vocabularies' tables, by its direction's source language."""
        src = list(tr.src_tok.pieces_by_id)
        tgt = set(tr.tgt_tok.pieces_by_id)
        names = case.truecase_table(src, tgt)
        direction = getattr(tr, "direction", DEFAULT_DIRECTION)
        spanish_source = direction.startswith("es")
        return cls(tr.src_tok, tr.model.cfg.max_src_len - 2, spanish.names(names, tgt) if spanish_source else names,
                   placeholders_for(direction),
                   (getattr(tr, "accents", None) or spanish.accent_table(src)) if spanish_source else {},
                   spanish.familiar(tr.familiar) if spanish_source and getattr(tr, "familiar", None)
                   else getattr(tr, "familiar", None) or frozenset(), getattr(tr, "target_words", None) or frozenset())

    def encode(self, text: str) -> list[int]:
        return self.tokenizer.pieces(self.tokenizer.encode(text))


@dataclass
class Engine:
    decode: Decode
    encode: Callable[[str], list[int]]  # source ids, without start and end
    limit: int  # most source ids one decoded piece may have
    names: dict[str, str] = field(default_factory=dict)  # truecasing table (case.truecase_table)
    placeholders: tuple[tuple[str, ...], ...] = protect.PLACEHOLDERS  # the ladder the model copies (protect.py)
    accents: dict[str, dict] = field(default_factory=dict)  # a Spanish source's (spanish.accented)
    # the source words the model learned (data.familiar_words): a capitalised word outside them is a name kept as
    # it is; empty: none known (every word goes to the model)
    familiar: frozenset[str] = frozenset()
    target: frozenset[str] = frozenset()  # the target words it writes, lowercased (already.py); empty: none known
    # (source, translation) pairs -> their word links (confidence.links): where markup inside a sentence goes
    # (aligned.py); None: markup.clues translates its words alone and the line without them instead
    align: Callable[[list[tuple[str, str]]], list] | None = None
    # seconds the decoder has spent so far on one-time work (compiling kernels), charged to no line (budget.py);
    # `float`: none
    setup: Callable[[], float] = float

    @classmethod
    def of(cls, lexicon: Lexicon, decode: Decode) -> Engine:
        return cls(decode, lexicon.encode, lexicon.limit, lexicon.names, lexicon.placeholders, lexicon.accents,
                   lexicon.familiar, lexicon.target)

    @classmethod
    def from_translator(cls, tr, options: TranslationOptions = DEFAULTS, roundtrip=None) -> Engine:
        """Decoding with `options` as they are (config.DEFAULTS: batches of source tokens, benchmarks/decode.py's;
        measured 7 % less CPU than 64 sentences greedy on 2,000 unseen lines); with a `roundtrip`
        (mtcli.roundtrip.RoundTrip), every line's translations ranked again by the way back (short lines decoded wider)."""
        def decode(lines: list[str]) -> list[NBest]:
            found = tr.translate_batch(lines, options) if roundtrip is None else roundtrip.translate(tr, lines, options)
            return [[(h.text, h.score) for h in r.hypotheses] for r in found]

        from mtcli.confidence.links import aligner

        return replace(cls.of(Lexicon.of(tr), decode), align=aligner(tr),
                       setup=getattr(tr, "setup_seconds", float))  # (a stand-in translator may have none)


@dataclass
class LineResult:
    """What became of one input line: its translations and what was done to get them."""

    line: int  # 1-based number of the input line
    nbest: NBest  # best first
    sentences: int = 0
    split: int = 0  # sentences too long for the model, translated in pieces
    kept: list[str] = field(default_factory=list)  # spans put back exactly as they came
    warnings: list[str] = field(default_factory=list)  # each about this line
    language: str | None = None  # the source language it was read as (mtcli.route)
    confidence: float | None = None  # how sure the language identification was; None: given, not told

    @property
    def text(self) -> str:
        return self.nbest[0][0]


@dataclass
class Sentence:
    """One sentence between the stages: what is left of it for the model (`text`, masked by the spans
    stage), what the stages set aside at its edges, and what decoding made of it. The facts below are
    shared by several stages; the rest of a stage's state is its own, in `aside[stage.name]`."""

    line: int  # index into the batch
    text: str
    cut: bool = False  # it goes on in text kept as it came (the rest of a line cut by cut_long, a quotation
    # or an aside ending it): it gets no final mark, nor keeps one the model adds
    lead: str = ""  # emoji, markup, a head or a label set aside at the start, with its space
    trail: str = ""
    head: str = ""  # a chat's or a mail's head or a label, in `lead`, kept
    labelled: bool = False  # after a label: a value as often as a sentence
    lower_first: bool = False  # the translation goes on after a quotation or a label set aside in `lead`: no capital
    verbatim: str | None = None  # nothing to translate: this comes out as it is
    masked: protect.Masked | None = None
    shout: bool = False  # ALL CAPS: the model's words are upper-cased again before the spans come back
    spans: list[tuple[int, int]] = field(default_factory=list)  # where the spans are in text (before Spans masks them)
    outside: str = ""  # text without its spans: the words the model is given
    alone: bool = False  # a word alone (a dictionary look-up, a table's cell, a signature)
    strip_stop: bool = False  # the source has no final punctuation: nor will the translation (documents)
    aside: dict = field(default_factory=dict)
    kept: list[str] = field(default_factory=list)  # spans put back exactly as they came, in order
    notes: list[str] = field(default_factory=list)  # warnings of its stages, for its line
    attempt: int = 0  # index into Engine.placeholders, or retry.VERIFY, retry.AROUND or retry.OWN
    pieces: list[str] = field(default_factory=list)  # what is decoded
    phrases: list[protect.Masked] = field(default_factory=list)  # AROUND: phrases of one span each
    counts: list[int] = field(default_factory=list)  # AROUND: pieces of each phrase
    out: NBest = field(default_factory=list)


@dataclass
class Context:
    """What a stage may consult: the model's vocabulary and length, the options, the markup items."""

    engine: Engine
    options: TextOptions
    unknown: Callable[[str], bool]  # a piece the vocabulary cannot spell
    items: dict[str, tuple[str, ...]]
    deadline: float = math.inf  # when the line's time budget runs out (budget.py)

    def spans(self, text: str) -> list[tuple[int, int]]:
        long_word = min(protect.LONG_WORD, self.engine.limit - 1)  # a word that long may not fit the model
        unknown = partial(self.unknown, uncased=True) if self.options.case and uncased(text) else self.unknown
        spans = protect.find_spans(text, unknown, long_word, self.options.source) if self.options.protect else []
        spans = verb_first(text, spans, lambda w: not self.unknown(w)) if spans and self.options.source == "en" else spans
        return with_terms(text, spans, self.options.glossary) if self.options.glossary else spans


class Stage(Protocol):
    """One rule, both halves: `strip` takes out of s.text what the model must not see (or rewrites it),
    keeping in s.aside[name] what `restore` needs to put it back into the translations. A stage whose
    strip did not run (an earlier one answered the sentence) finds nothing aside and restores nothing."""

    name: str

    def strip(self, s: Sentence, c: Context) -> bool:
        """False: the sentence is answered (s.verbatim, or ready for the model as it is): no stage after runs."""

    def restore(self, s: Sentence, out: NBest, items: dict[str, tuple[str, ...]]) -> NBest:
        """The translations with what strip took out put back."""


def each(out: NBest, change: Callable[[str], str]) -> NBest:
    return [(change(t), score) for t, score in out]


def combine(outs: list[NBest], sep: str = " ") -> NBest:
    """Translations of consecutive pieces joined by sep: the k-th of the whole is the k-th of each piece (or
    its last), scored by their mean. Joined by spaces, an empty piece leaves none; by tabs (cells) it stays."""
    outs = [o or [("", 0.0)] for o in outs]
    n = max(len(o) for o in outs)
    combined = []
    for k in range(n):
        texts, scores = zip(*(o[min(k, len(o) - 1)] for o in outs))
        combined.append((sep.join(t for t in texts if t or sep != " "), sum(scores) / len(scores)))
    return combined


def drop_spans(text: str, spans) -> str:
    return "".join(text[a:b] for a, b in zip([0] + [e for _, e in spans], [s for s, _ in spans] + [len(text)]))


def to_pieces(text: str, engine: Engine) -> list[str]:
    return fit(text, lambda piece: len(engine.encode(piece)), engine.limit)


def remembering(encode: Callable[[str], list[int]]) -> Callable[[str], list[int]]:
    """`encode` keeping its last answer: a sentence is encoded to check its spelling (unknown_pieces), then
    mostly the same text again to measure it (to_pieces)."""
    last: list = [None, None]

    def encode_last(text: str) -> list[int]:
        if text != last[0]:
            last[:] = text, encode(text)
        return last[1]

    return encode_last


class Once:
    """`decode` asked each distinct piece once in a whole translate_lines call, the calls it makes for markup
    included: a document repeats itself (a cell's "Yes", a heading), and the line without a wrap's words
    (markup.clues) is mostly sentences decoded already: a docx with every run formatted had 7 times the sentences
    of its lines decoded, 4.6 times with this (benchmarks/documents.py --sentences 60)."""

    def __init__(self, decode: Decode):
        self.decode, self.done = decode, {}

    def __call__(self, pieces: list[str]) -> list[NBest]:
        new = [p for p in dict.fromkeys(pieces) if p not in self.done]
        if new:
            self.done.update(zip(new, self.decode(new)))
        return [list(self.done[p]) for p in pieces]


_WORDS = lazy_re.compile(r"[^\W\d_]{2,}")
_NAMES = lazy_re.compile(r"[^\W\d_][^\W\d_'’-]*(?:[ '’-]+[^\W\d_][^\W\d_'’-]*)*")


def _unfamiliar(word: str, familiar: frozenset[str], uncased: bool = False) -> bool:
    """A word the model never learned, written as a name ("Anna"; in a sentence typed all lowercase or ALL CAPS,
    where case tells nothing, any such word: "anna", "ANNA"); a contraction typed without its apostrophe is none
    ("Dont", "Im": the casing stage repairs them)."""
    low = word.lower()
    return (uncased or word[0].isupper() and not word.isupper()) and low not in familiar and low not in case.CONTRACTIONS


def is_name(span: str, familiar: frozenset[str], uncased: bool = False) -> bool:
    """A span of capitalised words only (`uncased`: of words), one of them a word the model never learned
    ("Anna", "Carlos Ruiz")."""
    words = _WORDS.findall(span)
    return bool(_NAMES.fullmatch(span)) and (uncased or all(w[0].isupper() for w in words)) and any(
        _unfamiliar(w, familiar, uncased) for w in words)


def recased(text: str, masked: protect.Masked | None, case) -> str:
    """`case(text)` (str.lower, str.upper) but for the placeholders, which come back as they went (a name's, "Tom":
    spans._named)."""
    out = case(text)
    seq = masked.seq if masked else ()
    for placeholder in set(seq) - {case(p) for p in seq}:
        out = out.replace(case(placeholder), placeholder)
    return out


def uncased(text: str) -> bool:
    """Typed all lowercase or ALL CAPS: case tells no name from a word."""
    return not any(ch.isupper() for ch in text) or case.is_shouting(text)


def unknown_pieces(engine: Engine) -> Callable[[str], bool]:
    """Whether the model cannot translate a piece: its vocabulary cannot spell it, or it holds a name the model
    never learned (a capitalised word outside Engine.familiar: "Anna", "Toronto"), kept as it is."""
    @lru_cache(maxsize=4096)
    def short(piece: str) -> bool:
        # as a word, and glued to one ("?" is known after a word, not as a word of its own)
        return UNK in engine.encode(piece) and UNK in engine.encode("a" + piece)

    def unfamiliar(piece: str, uncased: bool) -> bool:
        return bool(engine.familiar) and any(_unfamiliar(w, engine.familiar, uncased) for w in _WORDS.findall(piece))

    def unknown(piece: str, uncased: bool = False) -> bool:
        # and lowercase: case alone makes no word unknown (a cased vocabulary lacks capitals such as "Í", "Ñ";
        # the casing stage lowercases "DÓNDE" for the model)
        low = piece.lower()
        if len(piece) > 64:  # (no long keys kept)
            return unfamiliar(piece, uncased) or UNK in engine.encode(piece) and (low == piece or UNK in engine.encode(low))
        return unfamiliar(piece, uncased) or short(piece) and (low == piece or short(low))

    return unknown
