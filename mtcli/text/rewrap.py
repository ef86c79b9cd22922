"""Markup around words put back around the words of the translation that its clues point at (markup.py):
the most alike first (trigrams of the words' own translations, the words the line lacks without them), near
where its words were in the source when nothing is alike."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from mtcli.text.kinds import PRIVATE

@dataclass
class Wrap:
    mark: str  # the markup character: an item (open, text, close)
    start: int  # its text's place in the unwrapped line
    end: int


@dataclass
class Clues:
    fragments: list[str]  # its words' translations alone, and the words themselves
    missing: list[str] | None = None  # the line's words that its translation without them lacks
    at: float = 0.5  # where its text began in the source line (a fraction of its length)


_EDGE = "¿?¡!.,;:\"'()«»“”‘’[]"


_GLUED_END = re.compile(f"[{re.escape(_EDGE)}{PRIVATE.pattern[1:-1]}]+$")


def _core(word: str) -> tuple[int, int]:
    """Where a word's text is in it: without the marks around it, nor markup glued to its end ("gatos<sup>4</sup>"
    is "gatos"), unless the word is markup."""
    start, end = len(word) - len(word.lstrip(_EDGE)), len(word.rstrip(_EDGE))
    bare = _GLUED_END.search(word, start)
    return start, bare.start() if bare and bare.start() > start else end


def words_of(text: str) -> list[str]:
    return [w.strip(_EDGE).lower() for w in text.split() if w.strip(_EDGE)]


def _trigrams(text: str) -> set[str]:
    text = f"  {text.lower()} "
    return {text[k : k + 3] for k in range(len(text) - 2)}


def _dice(a: set, b: set, weight: Callable = lambda _: 1) -> float:
    total = sum(map(weight, a)) + sum(map(weight, b))
    return 2 * sum(map(weight, a & b)) / total if total else 0.0


def rewrap(text: str, wraps: list[Wrap], clues: dict[str, Clues], items: dict[str, tuple[str, ...]],
            rendered: dict[str, str] | None) -> str:
    """text with each wrap's markup put back around the words of text that its clues point at (the
    most alike first; near where its words were in the source when nothing is alike): as its markup
    character, `rendered` told what it stands for, or else written out. No markup is ever lost."""
    spans = [(m.start() + a, m.start() + b) for m in re.finditer(r"\S+", text) for a, b in [_core(m.group())] if a < b]
    words = [text[a:b].lower() for a, b in spans]
    taken = [bool(PRIVATE.search(text[a:b])) for a, b in spans]  # (other markup stays outside,
    # and so does markup after a word: "gatos<sup>4</sup>" can end the words wrapped, not be inside them)
    marked_after = [bool(PRIVATE.search(text, b, spans[k + 1][0] if k + 1 < len(spans) else len(text)))
                    for k, (_, b) in enumerate(spans)]
    size, grams, missing = {}, {}, {}  # per wrap: its source words, its fragments' trigrams, the words
    for w in wraps:                    # the line lacks without them
        c = clues[w.mark]
        size[w.mark] = len(words_of(c.fragments[-1])) or 1
        # (a fragment's translation twice as long as its source has gone astray: "el verde es verde")
        grams[w.mark] = [_trigrams(" ".join(words_of(f))) for f in c.fragments if 0 < len(words_of(f)) <= 2 * size[w.mark] + 1]
        missing[w.mark] = set(words) - set(c.missing) if c.missing is not None else set()
    span_grams = cache(lambda i, j: _trigrams(" ".join(words[i:j])))
    todo, chosen = list(wraps), []
    while todo:
        best = (-1.0, None, 0, 0)
        for w in todo:
            c = clues[w.mark]
            for i in range(len(words)):
                # (a footnote mark, a wrap that opens with nothing, follows one word: "parque<sup>9</sup>", not
                # "parque toda<sup>9</sup>")
                longest = i + (size[w.mark] + 2 if items[w.mark][0] else 1)
                for j in range(i + 1, min(len(words), longest) + 1):
                    if taken[j - 1] or j - 1 > i and marked_after[j - 2]:
                        break
                    like = max((_dice(span_grams(i, j), g) for g in grams[w.mark]), default=0.0)
                    if missing[w.mark]:  # (a long word tells more; "y", "es" or "el" nothing: the line without
                        # the words may have changed around them, "es" -> "está")
                        like = max(like, _dice(set(words[i:j]), missing[w.mark], lambda word: max(len(word) - 2, 0)))
                    like -= 0.1 * abs(j - i - size[w.mark])  # about as many words as the source had
                    like += 1e-3 * (1 - abs((i + 0.5) / len(words) - c.at))  # equally alike: the nearer
                    if not items[w.mark][0]:  # a footnote's one word: its clues are weak (the word alone, the line
                        like -= 0.3 * abs((i + 0.5) / len(words) - c.at)  # without it), where it was tells more
                    if like > best[0]:
                        best = (like, w, i, j)
        like, w, i, j = best
        if w is None or like < 0.35:  # nothing alike left: each where its text was, as many words
            w = todo[0]
            free = [k for k in range(len(words)) if not taken[k]]
            i = j = min(free, key=lambda k: abs(k / len(words) - clues[w.mark].at)) if free else len(words)
            while j < len(words) and not taken[j] and j - i < size[w.mark]:
                j += 1
        taken[i:j] = [True] * (j - i)
        todo.remove(w)
        chosen.append((i, j, w.mark))
    for i, j, mark in sorted(chosen, key=lambda c: (c[0], c[1]), reverse=True):
        if i == len(words):  # (no word left for it: at the end)
            start = end = len(text.rstrip(_EDGE + " "))
        else:
            start, end = spans[i][0], spans[j - 1][1]
        open_, source, close = items[mark]
        # the marks its words ended with, inside it again ("**Note:**" -> "**Nota:**", not "**Nota**:")
        stop = source[len(source.rstrip(_EDGE)) :]
        end += len(stop) if stop and text.startswith(stop, end) else 0
        marked = open_ + text[start:end] + close
        if rendered is not None:
            rendered[mark], marked = marked, mark
        text = text[:start] + marked + text[end:]
    return text
