"""Emoji inside a sentence set aside, and put back at the same place among the words of its translation."""

from __future__ import annotations

import re
from bisect import bisect_right

from mtcli.text.kinds import PRIVATE
from mtcli.text.edges import footnote, symbols
from mtcli.text.sentence import LETTER, Context, NBest, Sentence, drop_spans, each
from mtcli.text.spans import as_kept
from mtcli import lazy_re


class Floating:
    """Emoji (and footnote marks, and markup no reader sees: unseen) inside the sentence, put back at the same place among the words after: as a
    placeholder, "The pizza 🍕 was great." came out "La pizza tenía 🍕 años.", "I love you ❤️ so much." lost
    "so much"."""

    name = "floating emoji"

    def strip(self, s: Sentence, c: Context) -> bool:
        text, spans = s.text, s.spans
        inside = [(a, b) for a, b in spans if symbols(text[a:b]) and not PRIVATE.search(text[a:b])
                  or footnote(text, a, b, c.items) or unseen(text[a:b], c.items)]
        if inside and LETTER.search(drop_spans(text, spans)):
            s.text, s.aside[self.name] = set_aside(text, inside)
            s.spans = c.spans(s.text)
        return True

    def restore(self, s: Sentence, out: NBest, items) -> NBest:
        if not (places := s.aside.get(self.name)):
            return out
        s.kept.extend(k for _, span, _ in places for k in as_kept(span, items))
        return each(out, lambda t: put_back(t, places))


# markup no reader sees: an HTML comment (a bogus one too: "<!x>"), a declaration, a processing instruction
_UNSEEN = lazy_re.compile(r"<[!?]")


def unseen(span: str, items: dict[str, tuple[str, ...]]) -> bool:
    """The span is only items that no reader sees ("<!-- x -->"), no word of the sentence: set aside like an
    emoji. As a placeholder it was a name to the model: "El perro <!-- x --> es grande." -> "<!-- x --> is big.",
    "Hola <!-- x --> mundo" -> "Hi, <!-- x -->"."""
    return bool(span) and all(len(parts := items.get(ch, ())) == 1 and _UNSEEN.match(parts[0]) for ch in span)


def set_aside(text: str, spans: list[tuple[int, int]]) -> tuple[str, list[tuple[float, str, bool]]]:
    """text without the spans (and a space beside each), and where each was among its words."""
    def words(t: str) -> int:  # (a mark left on its own, "job !", is no word)
        return len(_WORD.findall(t))

    # the space after one that follows an opening mark goes with it ('"🐱 I love' -> '"I love', not '" I love'),
    # not one after a closing mark ('car,<sup>1</sup> the' -> 'car, the')
    rest = drop_spans(text, [(a, _SPACES.match(text, b).end() if a == 0 or text[a - 1] in _OPENING_MARKS else b)
                             for a, b in spans])
    n_words = max(words(rest), 1)
    cuts, dropped = [], 0  # where each span was in the text without them
    for a, b in spans:
        cuts.append(a - dropped)
        dropped += b - a
    before = _words_before(drop_spans(text, spans), cuts)
    places = [(n / n_words, text[a:b], a > 0 and not text[a - 1].isspace()) for n, (a, b) in zip(before, spans)]
    return re.sub(r"\s+(?=[.,;:!?…])", "", re.sub(r"\s+", " ", rest)).strip(), places


_WORD = lazy_re.compile(r"\S*\w\S*")
_TOKEN = lazy_re.compile(r"\S+")
_SPACES = lazy_re.compile(r"\s*")
_WORD_CHAR = lazy_re.compile(r"\w")


def _words_before(text: str, cuts: list[int]) -> list[int]:
    """How many words text[:cut] has, for each cut (ascending): one pass over the text's tokens, each cut placed
    by bisection (a word cut in two counts if its part before the cut holds a word character)."""
    ends, firsts, counts = [], [], [0]
    for m in _TOKEN.finditer(text):
        w = _WORD_CHAR.search(text, m.start(), m.end())
        ends.append(m.end())
        firsts.append((m.start(), w.start() if w else len(text)))
        counts.append(counts[-1] + bool(w))
    out = []
    for cut in cuts:
        k = bisect_right(ends, cut)
        out.append(counts[k] + (k < len(ends) and firsts[k][0] < cut and firsts[k][1] < cut))
    return out


def put_back(text: str, places: list[tuple[float, str, bool]]) -> str:
    """The emoji set_aside took out, among the translation's words at the same share of them: glued
    to a word as it was, before a final punctuation mark rather than after it."""
    words = text.split(" ")  # (as set_aside counted them: marks alone are no word)
    at = [i for i, w in enumerate(words) if _WORD.fullmatch(w)] or [len(words) - 1]
    before = []  # the emoji put before the first word
    for share, span, glued in places:  # in the sentence's order: each after the one before it
        k = round(share * len(at))
        if k >= len(at):  # after the last word: before its final mark ("perros 🐶.")
            last = words[at[-1]]
            body = last.rstrip(".!?…")
            words[at[-1]] = body + ("" if glued else " ") + span + last[len(body):]
        elif k == 0:
            before.append((span, glued))
        else:
            words[at[k - 1]] += ("" if glued else " ") + span
    if before:  # (after the marks opening the first word if the first was glued to a mark: '"🐱 Amo')
        first = words[at[0]]
        opening = len(first) - len(first.lstrip(_OPENING_MARKS)) if before[0][1] else 0
        words[at[0]] = first[:opening] + " ".join(span for span, _ in before) + " " + first[opening:]
    return " ".join(words)


_OPENING_MARKS = "\"'([{¿¡«“‘"
