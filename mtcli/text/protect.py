"""Spans the model must not touch (numbers, times, prices, dates, URLs, e-mail addresses, emoji, anything its vocabulary
cannot spell, markup) replaced by placeholders before decoding and put back after.

The placeholder is a number the shipped model copies reliably. Measured on 300 corpus sentences with numbers (greedy and
beam 4): a span's placeholder came back exactly for "50" in 90 % of sentences, "12" 80 %, "5" 84 %, "X"/"XYZ"/"N" 0 %,
the name "Tom" 77 %, and the original numbers themselves 53 %; "50" and then "12, 50" (first span 12, second 50, ...)
together 96.7 %. What still fails is translated around its spans (retry.py), so a span is never lost.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from mtcli.text.digits import made_up
from mtcli.text.kinds import KIND, OWN_STOP, PRIVATE, SCRIPT
from mtcli.text.phrases import PHRASE_START
from mtcli.text.tables import TABLES
from mtcli import lazy_re

# placeholder sequences tried in turn: span i gets seq[i % len(seq)]
PLACEHOLDERS: tuple[tuple[str, ...], ...] = (("50",), ("12", "50"))
# the Spanish-English model's (Engine.placeholders; as many rungs): it says "fifty" for "50" (docs/text-pipeline.md)
PLACEHOLDERS_FROM = {"es": (("Tom",), ("Mary", "Tom"))}

LONG_WORD = 40  # characters: no English word is this long (a hash, a base64 blob): kept as it is

# the model rarely saw "$50" but often "50 dollars" (measured: "I paid $50 for..." -> "Pagué 90.")
CURRENCIES = {"$": "dollars", "€": "euros", "£": "pounds", "¥": "yen"}
# the Spanish for each: a translation without it keeps the sign on the number instead ("50 e-ciles" -> "€50")
_CURRENCY_WORDS = {"$": r"d[oó]lar", "€": r"euro", "£": r"libra|esterlina", "¥": r"\byen"}
_TRAILING = ".,;:!?)]}'\""  # sentence punctuation after a span belongs to the sentence
_OPENING = {")": "(", "]": "[", "}": "{"}  # ... but not the bracket that closes one of the span's own
_NUMBER_ONLY = lazy_re.compile(KIND["number"].pattern)
_NOT_A_NUMBER = lazy_re.compile("|".join(KIND[k].pattern for k in ("url", "email", "file or domain", "ipv6 address")),
                                re.IGNORECASE)
_WORDS_AFTER = lazy_re.compile(r"(?<=\d)(?:\.{2,}|…|[,;:])(?=[^\W\d_]{2})")  # (not "." : "2.0.beta", "5.4.RELEASE")
_NONSPACE = lazy_re.compile(r"\S+")
_LONG = lazy_re.compile(rf"\S{{{LONG_WORD}}}")
# how the tokenizer cuts a word: letter/digit runs, other characters; each with the combining marks on it
# (NFC leaves some: "H̸̡̪e̷l̴l̵o̶" is one word to keep, not five letters to translate between marks)
_MARKS = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe00-\ufe0f\ufe20-\ufe2f"
_WORD_RUNS = lazy_re.compile(rf"[\w{_MARKS}]+|[^\w\s][{_MARKS}]*")
_AM_PM = lazy_re.compile(r"[ap]\.m$", re.IGNORECASE)


def _closes_its_own(span: str) -> bool:
    """The span ends in a bracket it opened itself (http://en.wikipedia.org/wiki/Foo_(bar))."""
    opening = _OPENING.get(span[-1])
    return opening is not None and span.count(opening) >= span.count(span[-1])


@dataclass(frozen=True)
class Masked:
    text: str  # the sentence with each span replaced by a placeholder
    spans: tuple[str, ...]  # the original spans, in order
    seq: tuple[str, ...]  # the placeholder sequence used
    signs: tuple[str, ...] = ()  # each span's currency sign made a word after it ("$25" -> "50 dollars"), or ""
    # each span's attachment to a word: "<" glued to the word before it ("car<img>"), ">" to the one after, "" neither
    glued: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()  # the spans as typed where some come back otherwise (terms.py); own's: amounts shown
    own: Masked | None = None  # then the sentence for retry.OWN: those as they came, the others masked (spans.py's)
    swap: bool = False  # retry.SWAP where OWN fails: a glossary's terms; a month's name goes to placeholders (better)


_JOINING = " +-–=*/&|^~×÷→·"  # spans apart by these only are one: "Ctrl+C", "x² + y² = z²", "9 - 5"


def find_spans(text: str, unknown: Callable[[str], bool], long_word: int = LONG_WORD,
               source: str = "en") -> list[tuple[int, int]]:
    """(start, end) of every span to keep, in order, none overlapping; spans apart by spaces or operators only are
    one ("$25.50 🙂", "<kbd>Ctrl</kbd>+<kbd>C</kbd>"). `unknown(piece)`: the vocabulary cannot spell the piece; a word
    of `long_word` characters or more is kept too (it could not fit the model whole); `source`: the text's language."""
    long = _LONG if long_word == LONG_WORD else re.compile(rf"\S{{{long_word}}}")
    found, table = [], TABLES[source]
    for m in table.span.finditer(text) if table.maybe_span.search(text) else ():
        s, e = m.span()
        if _NUMBER_ONLY.fullmatch(m.group()) and not _NOT_A_NUMBER.fullmatch(m.group()):
            words = _WORDS_AFTER.search(m.group())  # "5...or maybe", "300,and then": the words are the sentence's
            e = s + words.start() if words else e
        while e > s and text[e - 1] in _TRAILING and not _closes_its_own(text[s:e]) \
                and not OWN_STOP.fullmatch(m.group()):
            e -= 1
        if _AM_PM.search(text, s, e) and text.startswith(".", e) and e + 1 < len(text):
            e += 1  # "at 5 p.m. today", "at 5 p.m.!": the stop is the time's (the sentence's last one is the sentence's)
        if e > s:  # (every row's match holds more than the marks it may end in: "::", "[^note]" are spans)
            found.append((s, e))
    found += [span for kind in table.kinds if kind.find for span in kind.find(text)]
    words = _NONSPACE.finditer(text)
    if not (PRIVATE.search(text) or long.search(text) or unknown(text)):
        words = ()  # (most sentences: every word spelled, no markup)
    for m in words:
        for r in _WORD_RUNS.finditer(m.group()):
            s, e = m.start() + r.start(), m.start() + r.end()
            if PRIVATE.search(r.group()) or len(r.group()) >= long_word or unknown(r.group()):
                found.append((s, e))
    merged = _merge(text, found)
    if "<" in text or PRIVATE.search(text):
        merged = _merge(text, [_whole_word(text, s, e) for s, e in merged])
    return merged


def _merge(text: str, found: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[list[int]] = []
    for s, e in sorted(found):
        if merged and (s <= merged[-1][1] or _joins(text[merged[-1][1] : s])):
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return [(s, e) for s, e in merged]


def _joins(gap: str) -> bool:
    """Spans apart by this are one: spaces, operators, symbols ("(╯°□°)╯": the "°" the vocabulary knows)."""
    return all(c in _JOINING or unicodedata.category(c) == "So" for c in gap)  # (not "€": "€5 / €10" are two)


_WORD_AFTER = lazy_re.compile(r"\w*")
_MARKUP = lazy_re.compile(rf"<|{PRIVATE.pattern}")


def _whole_word(text: str, s: int, e: int) -> tuple[int, int]:
    """A span of markup inside a word made the whole word: "H<sub>2</sub>O", "x<sup>2</sup>", "km<sup>2</sup>"
    cut apart lost their letters ("El agua es <sub>2</sub>."). Not markup before a word ("<i>car") nor after
    one of three letters or more (a footnote mark, "car<sup>1</sup>"): the word is translated, the markup
    stays glued to it."""
    start = next((k for k in range(s, 0, -1) if not (text[k - 1].isalnum() or text[k - 1] == "_")), 0)  # (\w*$: s steps)
    before, after = text[start:s], _WORD_AFTER.match(text, e).group()
    inside = before and after and _MARKUP.search(text, s, e)
    a_symbols = not after and 0 < len(before) <= 2 and (SCRIPT.match(text, s) or PRIVATE.match(text, s))
    return (s - len(before), e + len(after)) if inside or a_symbols else (s, e)


def mask(text: str, spans: Sequence[tuple[int, int]], seq: tuple[str, ...]) -> Masked:
    """Each span replaced by its placeholder, set apart by a space from what it was glued to; a currency
    sign before it becomes a word after it ("$25.50" -> "50 dollars"), which the model translates."""
    out, last, signs, glued = [], 0, [], []
    for i, (s, e) in enumerate(spans):
        sign = text[s - 1] if s > last and text[s - 1] in CURRENCIES else ""
        signs.append(sign)
        out.append(text[last : s - len(sign)])
        at = s - len(sign)
        before = " " if at and not text[at - 1].isspace() and text[at - 1] not in "([{\"'¿¡" else ""
        after = " " if e < len(text) and (text[e].isalnum() or text[e] == "_") else ""
        glued.append(("<" if before and (text[at - 1].isalnum() or text[at - 1] == "_") else "") + (">" if after else ""))
        out.append(before + seq[i % len(seq)] + (" " + CURRENCIES[sign] if sign else "") + after)
        last = e
    out.append(text[last:])
    return Masked("".join(out), tuple(text[s:e] for s, e in spans), seq, tuple(signs), tuple(glued))


def _pattern(seq: tuple[str, ...]) -> re.Pattern:
    alts = "|".join(sorted(map(re.escape, set(seq)), key=len, reverse=True))
    return re.compile(rf"(?<![\w.,:/])(?:{alts})(?![\w]|[.,:/]\d)")


def restore(output: str, masked: Masked) -> str | None:
    """The output with its placeholders replaced by the spans, or None if the model did not copy each
    placeholder exactly once (the k-th '50' of the output is the k-th span that became '50') or made up
    a number of its own ("500", "Bla0": a placeholder half copied)."""
    if not masked.spans:
        return output
    want = [masked.seq[i % len(masked.seq)] for i in range(len(masked.spans))]
    found = _pattern(masked.seq).findall(output)
    if sorted(found) != sorted(want) or _made_up_digits(output, masked):
        return None
    glued = masked.glued or ("",) * len(masked.spans)
    queues = {p: [(sp, sign, g, at) for sp, w, sign, g, at in zip(masked.spans, want, _signs(masked), glued,
                                                                  _places(masked)) if w == p][::-1] for p in set(want)}
    order, pieces, last = [], [], 0  # the spans in the order they come in the output, for resign

    for m in _pattern(masked.seq).finditer(output):
        span, sign, glue, place = queues[m.group()].pop()  # (each queue last first)
        order.append((span, sign))
        start, end = m.start(), m.end()
        # "a las 5 p.m.." -> "a las 5 p.m." (only after the span itself: another span may hold "5 p.m..")
        span = span[:-1] if span.endswith(".") and output.startswith(".", end) else span
        # glued to a word as it was ("<i>car" -> "<i>coche"), when it keeps its place among the words
        # (first, inside or last): the space before the placeholder was only the model's
        if glue and _place(output, start, end) == place:
            if "<" in glue and start - 1 > last and output[start - 1] == " " and output[start - 2].isalnum():
                start -= 1
            if ">" in glue and output[end : end + 1] == " " and output[end + 1 : end + 2].isalnum():
                end += 1
        pieces += [output[last:start], span]
        last = end
    restored = "".join(pieces) + output[last:]
    return resign(restored, replace(masked, spans=tuple(sp for sp, _ in order), signs=tuple(g for _, g in order)))


_LETTERS = lazy_re.compile(r"[^\W\d_]")


def _place(text: str, start: int, end: int) -> str:
    """Where text[start:end] is among the words: "first" (no letter before it), "last", "inside", "alone"."""
    before, after = _LETTERS.search(text, 0, start), _LETTERS.search(text, end)
    return "inside" if before and after else "last" if before else "first" if after else "alone"


def _places(masked: Masked) -> list[str]:
    """Where each span's placeholder is among the words of the masked text."""
    places = [_place(masked.text, m.start(), m.end()) for m in _pattern(masked.seq).finditer(masked.text)]
    return places if len(places) == len(masked.spans) else [""] * len(masked.spans)


def _signs(masked: Masked) -> tuple[str, ...]:
    return masked.signs or ("",) * len(masked.spans)


def _made_up_digits(output: str, masked: Masked) -> bool:
    """A number in the output besides its placeholders that the source does not write ("500", "Bla0", "1984")."""
    pattern = _pattern(masked.seq)
    return bool(made_up(pattern.sub("", output), pattern.sub("", masked.text)))


def resign(output: str, masked: Masked) -> str:
    """The output (spans in place, in masked's order) with the currency sign back on each span whose
    currency the translation lost ("Pagué 50 e-ciles" -> "Pagué €50 e-ciles"): a price keeps its currency."""
    lost = {sign: not re.search(_CURRENCY_WORDS[sign], output, re.IGNORECASE) for sign in set(_signs(masked)) if sign}
    pieces, at, last = [], 0, 0
    for span, sign in zip(masked.spans, _signs(masked)):
        found = output.find(span, at)
        if found < 0:
            continue
        if sign and lost[sign] and output[found - 1 : found] != sign:
            pieces += [output[last:found], sign]
            last = found
        at = found + len(span)
    return "".join(pieces) + output[last:]


def remask(masked: Masked, seq: tuple[str, ...]) -> Masked:
    """The same masked text with the placeholder sequence `seq` instead."""
    k = iter(range(len(masked.spans)))
    text = _pattern(masked.seq).sub(lambda m: seq[next(k) % len(seq)], masked.text)
    return replace(masked, text=text, seq=seq)


def unmasked(masked: Masked) -> str:
    """The masked text with its spans back in place (after case repairs made on the masked text)."""
    spans = iter(masked.spans)
    return _pattern(masked.seq).sub(lambda m: next(spans), masked.text)


def all_kept(output: str, masked: Masked) -> bool:
    """Every span in the output, in order, each whole: not inside a longer word or number ("5" is not
    kept in "59", nor "5" and "11" in "511")."""
    at = 0
    for span in masked.spans:
        found = re.compile(("(?<!\\w)" if span[:1].isalnum() else "") + re.escape(span)
                           + ("(?!\\w)" if span[-1:].isalnum() else "")).search(output, at)
        if not found:
            return False
        at = found.end()
    return True


def one_span_phrases(masked: Masked, seq: tuple[str, ...] = PLACEHOLDERS[0]) -> list[Masked]:
    """The sentence cut into phrases that each hold one span (the model copies one placeholder far more
    reliably than several): each cut is at the last phrase-starting word between two spans, else right
    after the first of them."""
    found = list(_pattern(masked.seq).finditer(masked.text))
    cuts = [0]
    for a, b, sign in zip(found, found[1:], _signs(masked)):
        starts = [m.start() for m in PHRASE_START.finditer(masked.text, a.end(), b.start())]
        # (after a price's currency word, not between: "$100, $50" cut "100 | dollars, 50" came out "$100 dólares")
        cuts.append(starts[-1] if starts else a.end() + (len(" " + CURRENCIES[sign]) if sign else 0))
    cuts.append(len(masked.text))
    phrases = []
    for k, (s, e) in enumerate(zip(cuts, cuts[1:])):
        text = _pattern(masked.seq).sub(seq[0], masked.text[s:e]).strip()
        phrases.append(Masked(text, masked.spans[k : k + 1], seq[:1], _signs(masked)[k : k + 1],
                              masked.glued[k : k + 1]))
    return phrases


def placed(output: str, phrase: Masked) -> str:
    """A phrase's translation with its span: restored in place, or if the model lost the placeholder, put
    at the end of the translation, before its final stop (or at the start, if it opened the phrase, after
    an opening ¿ or ¡): "Tengo gatos 3.", not "Tengo gatos. 3"."""
    restored = restore(output, phrase)
    if restored is not None:
        return restored
    bare = _pattern(phrase.seq).sub("", output)
    if _made_up_digits(bare, phrase):  # what is left of a placeholder ("Bla0"), or a number made up
        bare = re.sub(r"\d", "", bare)
    bare = " ".join(bare.split())
    span = phrase.spans[0]
    first = phrase.text.startswith(phrase.seq[0])
    if first:
        opening = len(bare) - len(bare.lstrip("¿¡"))
        return resign(f"{bare[:opening]}{span} {bare[opening:]}", phrase).strip()
    end = len(bare.rstrip(".!?…"))
    return resign(f"{bare[:end].rstrip()} {span}{bare[end:]}", phrase).strip()
