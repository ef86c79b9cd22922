"""Sentences of a line (pysbd), and pieces of a sentence short enough for the model.

pysbd was measured against sentencex on 10,000 lines of three corpus sentences each: boundary recall
99.5 % vs 99.1 %, and with the abbreviations below removed from its list 99.98 %; sentencex runs on
`?!` ("Are you serious?! I can't...") and both took "me." for an abbreviation (Maine). A line without
a possible boundary skips the splitter (most lines). Spanish text: pysbd's Spanish rules with spanish.py's
abbreviations (its own list is mostly words that end sentences, "no", "en", "bien"): on 2,000 lines of three
selection-split sentences, boundary recall 99.82 % (its own list 99.10 %); a ¿ or a ¡ stays with its ? or !.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from functools import lru_cache

from mtcli.text import spanish
from mtcli.text.kinds import PRIVATE, SCRIPT_ELEMENT
from mtcli import lazy_re

# In pysbd's English list but ordinary words that end spoken sentences far more often ("Tell me.")
NOT_ABBREVIATIONS = frozenset("me is man ill wash miss mass ok con id ken ore may ing hon sen art".split())
# every place pysbd can end an English sentence, before a space: a stop (its list holds the full-width
# ones too), then closing quotes or brackets; and list items ("Step 1) mix 2) bake", "(a) one (b) two").
# A boundary without a space never counts (the sentences must join back with single spaces).
_MAYBE_BOUNDARY = lazy_re.compile(rf"[.!?…。．！？][\"')\]»]*(?:[<{PRIVATE.pattern[1:-1]}]\S*)?\s|\)\s")
# markup glued after a stop (a footnote mark: "car.<sup>1</sup>", "car.\ue000" in a document), kept out of pysbd's
# sight: it cut before it ("car." | "<sup>1</sup> It"), or took "U.S.<sup>1</sup> and" for a sentence's end
_GLUED_MARK = lazy_re.compile(rf"(?<=[.!?…\"')\]])(?:{PRIVATE.pattern}|{SCRIPT_ELEMENT})+(?=\s|$)", re.IGNORECASE)
# where a sentence too long for the model may be cut, best first: after ; or :, after a comma, before
# a conjunction that starts a clause
CLAUSE_BREAKS = (
    lazy_re.compile(r"(?<=[;:])\s"),
    lazy_re.compile(r"(?<=,)\s"),
    lazy_re.compile(r"\s(?=(?:and|but|or|so|because|although|though|while|whereas|when|which|who|if|unless|"
                    r"until|since|then|after|before)\s)", re.IGNORECASE),
)


class _Once:
    """pysbd's abbreviation pass with each distinct replacement made once: it ran one over the whole line again
    for every occurrence of an abbreviation (quadratic: 640 "Mr." in a line took 1.2 s). The same text comes
    out: a replacement turns an abbreviation's stop into a mark no pattern reads, so making one again changes
    nothing, and none makes another's match."""

    def search_for_abbreviations_in_string(self, text: str) -> str:
        lowered = text.lower()
        for abbr in self.lang.Abbreviation.ABBREVIATIONS:
            stripped = abbr.strip()
            if stripped not in lowered:
                continue
            found = re.findall(rf"(?:^|\s|\r|\n){stripped}", text, flags=re.IGNORECASE)  # (pysbd's patterns)
            after = re.findall(r"(?<={" + re.escape(stripped) + "} ).{1}", text)
            done = set()
            for k, match in enumerate(found):
                key = (match, k < len(after) and after[k].isupper())  # (what the replacement depends on)
                if key not in done:
                    done.add(key)
                    text = self.scan_for_replacements(text, match, k, after)
        return text


def _char_spans(sentences: list[str], text: str, span: Callable) -> list:
    """pysbd's `sentences_with_char_spans`, each sentence looked for from where the one before ended: pysbd looks
    from the line's start every time, through every earlier copy of it (quadratic: 1,600 "¿Qué?" in a line, 0.8 s)."""
    spans, at = [], 0
    for sentence in sentences:
        if m := re.compile(re.escape(sentence) + r"\s*").search(text, at):
            spans.append(span(m.group(), m.start(), m.end()))
            at = m.end()
    return spans


@lru_cache(maxsize=2)
def _segmenter(source: str = "en"):
    import pysbd
    from pysbd.utils import TextSpan
    from pysbd.lang.english import English
    from pysbd.lang.spanish import Spanish

    class Everyday(English):
        class Abbreviation(English.Abbreviation):
            ABBREVIATIONS = [a for a in English.Abbreviation.ABBREVIATIONS if a not in NOT_ABBREVIATIONS]

        class AbbreviationReplacer(_Once, English.AbbreviationReplacer):
            pass

    class Cotidiano(Spanish):
        class AbbreviationReplacer(_Once, Spanish.AbbreviationReplacer):
            pass

        class Abbreviation(Spanish.Abbreviation):
            ABBREVIATIONS = spanish.ABBREVIATIONS
            PREPOSITIVE_ABBREVIATIONS = spanish.BEFORE_NAMES  # (before a name: "Sr. López" goes on)
            NUMBER_ABBREVIATIONS = spanish.BEFORE_NUMBERS

    class Linear(pysbd.Segmenter):
        def sentences_with_char_spans(self, sentences):
            return _char_spans(sentences, self.original_text, TextSpan)

    seg = Linear(language=source, clean=False)
    seg.language_module = Everyday if source == "en" else Cotidiano
    return seg


def sentences(text: str, source: str = "en") -> list[str]:
    """The sentences of one normalised line, in order; joined with single spaces they give the line back."""
    if not _MAYBE_BOUNDARY.search(text):
        return [text] if text else []
    return _split(text, source) if source == "en" else _paired(_split(text, source))


def _paired(parts: list[str]) -> list[str]:
    """Spanish sentences with each ¿ and ¡ in the same sentence as its ? or ! ("¿Viste la película... o no?")."""
    out: list[str] = []
    for part in parts:
        if out and any(out[-1].count(a) > out[-1].count(b) for a, b in (("¿", "?"), ("¡", "!"))):
            out[-1] += " " + part
        else:
            out.append(part)
    return out


def _split(text: str, source: str = "en") -> list[str]:
    """pysbd's sentences of the text, marks glued after a stop unseen and kept with the sentence they end."""
    marks = [(m.start(), m.end()) for m in _GLUED_MARK.finditer(text)]
    clean = "".join(text[b:a] for (_, b), (a, _) in zip([(0, 0), *marks], [*marks, (len(text), 0)]))
    out = [s.strip() for s in _segmenter(source).segment(clean)]
    out = [s for s in out if s]
    if " ".join(out) != clean:  # pysbd never drops text, but if it ever changed anything, keep the line whole
        return [text]
    if not marks:
        return out
    # back onto the text: a mark glued to a sentence's end is that sentence's
    places, shifts = [], [0]  # each mark: where it was in clean; the length of the marks up to each
    for a, b in marks:
        places.append(a - shifts[-1])
        shifts.append(shifts[-1] + b - a)

    def original(i: int) -> int:
        return i + shifts[bisect_right(places, i)]

    at_clean, found = 0, []
    for sentence in out:
        start = clean.index(sentence, at_clean)
        at_clean = start + len(sentence)
        found.append(text[original(start) : original(at_clean)])
    return found


def fit(text: str, size: Callable[[str], int], limit: int) -> list[str]:
    """`text` cut into pieces of at most `limit` tokens (by `size`), at clause boundaries if it can, else
    between words; never anything dropped: " ".join(pieces) == text. A single word over the limit is a
    piece of its own (the caller keeps it as it is)."""
    if size(text) <= limit:
        return [text]
    for pattern in CLAUSE_BREAKS:
        cuts = [m.start() for m in pattern.finditer(text)]
        if cuts:
            # the cut nearest the middle: balanced halves (a shallow recursion), each fitted again
            mid = min(cuts, key=lambda c: abs(c - len(text) / 2))
            head, tail = text[:mid].strip(), text[mid:].strip()
            if head and tail:
                return fit(head, size, limit) + fit(tail, size, limit)
    # words packed greedily; a text's size is the sum of its words' (the tokenizers split at spaces first)
    sizes: dict[str, int] = {}
    pieces, current, used = [], [], 0
    for word in text.split(" "):
        n = sizes[word] if word in sizes else sizes.setdefault(word, size(word))
        if current and used + n > limit:
            pieces.append(" ".join(current))
            current, used = [], 0
        current.append(word)
        used += n
    return pieces + [" ".join(current)]
