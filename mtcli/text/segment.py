"""Sentences of a line (pysbd), and pieces of a sentence short enough for the model.

pysbd was measured against sentencex on 10,000 lines of three corpus sentences each: boundary recall
99.5 % vs 99.1 %, and with the abbreviations below removed from its list 99.98 %; sentencex runs on
`?!` ("Are you serious?! I can't...") and both took "me." for an abbreviation (Maine). A line without
a possible boundary skips the splitter (most lines).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from mtcli.text.kinds import PRIVATE, SCRIPT_ELEMENT

# In pysbd's English list but ordinary words that end spoken sentences far more often ("Tell me.")
NOT_ABBREVIATIONS = frozenset("me is man ill wash miss mass ok con id ken ore may ing hon sen art".split())
# every place pysbd can end an English sentence, before a space: a stop (its list holds the full-width
# ones too), then closing quotes or brackets; and list items ("Step 1) mix 2) bake", "(a) one (b) two").
# A boundary without a space never counts (the sentences must join back with single spaces).
_MAYBE_BOUNDARY = re.compile(rf"[.!?…。．！？][\"')\]]*(?:[<{PRIVATE.pattern[1:-1]}]\S*)?\s|\)\s")
# markup glued after a stop (a footnote mark: "car.<sup>1</sup>", "car.\ue000" in a document), kept out of pysbd's
# sight: it cut before it ("car." | "<sup>1</sup> It"), or took "U.S.<sup>1</sup> and" for a sentence's end
_GLUED_MARK = re.compile(rf"(?<=[.!?…\"')\]])(?:{PRIVATE.pattern}|{SCRIPT_ELEMENT})+(?=\s|$)", re.IGNORECASE)
# where a sentence too long for the model may be cut, best first: after ; or :, after a comma, before
# a conjunction that starts a clause
CLAUSE_BREAKS = (
    re.compile(r"(?<=[;:])\s"),
    re.compile(r"(?<=,)\s"),
    re.compile(r"\s(?=(?:and|but|or|so|because|although|though|while|whereas|when|which|who|if|unless|"
               r"until|since|then|after|before)\s)", re.IGNORECASE),
)


@lru_cache(maxsize=1)
def _segmenter():
    import pysbd
    from pysbd.lang.english import English

    class Everyday(English):
        class Abbreviation(English.Abbreviation):
            ABBREVIATIONS = [a for a in English.Abbreviation.ABBREVIATIONS if a not in NOT_ABBREVIATIONS]

    seg = pysbd.Segmenter(language="en", clean=False)
    seg.language_module = Everyday
    return seg


def sentences(text: str) -> list[str]:
    """The sentences of one normalised line, in order; joined with single spaces they give the line back."""
    if not _MAYBE_BOUNDARY.search(text):
        return [text] if text else []
    return _split(text)


def _split(text: str) -> list[str]:
    """pysbd's sentences of the text, marks glued after a stop unseen and kept with the sentence they end."""
    marks = [(m.start(), m.end()) for m in _GLUED_MARK.finditer(text)]
    clean = "".join(text[b:a] for (_, b), (a, _) in zip([(0, 0), *marks], [*marks, (len(text), 0)]))
    out = [s.strip() for s in _segmenter().segment(clean)]
    out = [s for s in out if s]
    if " ".join(out) != clean:  # pysbd never drops text, but if it ever changed anything, keep the line whole
        return [text]
    if not marks:
        return out
    # back onto the text: a mark glued to a sentence's end is that sentence's
    removed, shift = [], 0  # each mark: where it was in clean, its length
    for a, b in marks:
        removed.append((a - shift, b - a))
        shift += b - a

    def original(i: int) -> int:
        return i + sum(n for at, n in removed if at <= i)

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
