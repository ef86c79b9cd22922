"""Markup around words put back around the words of the translation that its clues point at (markup.py):
the most alike first (trigrams of the words' own translations, the words the line lacks without them), near
where its words were in the source when nothing is alike."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from mtcli.text.kinds import PRIVATE
from mtcli import lazy_re

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


_GLUED_END = lazy_re.compile(f"[{re.escape(_EDGE)}{PRIVATE.pattern[1:-1]}]+$")


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


def _weight(word: str) -> int:
    """What a word the line lacks tells of where a wrap went: a long word more; "y", "es" or "el" nothing."""
    return max(len(word) - 2, 0)


# a wrap's words are looked for within this many words of where its text was (a share of the line): every
# word of a long line for each of its hundreds of wraps cost time cubic in the line (a paragraph of 250
# "<i>a</i>" took 12 s)
REACH = 32


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
    # every place each wrap may go, the most alike first (then in the wraps' order, the words'); a place is
    # taken at its turn if its words are still free
    grams = cache(lambda i, j: _trigrams(" ".join(words[i:j])))
    memo: dict = {}
    candidates = sorted(c for k, w in enumerate(wraps)
                        for c in _places(k, clues[w.mark], items[w.mark][0], words, grams, taken, marked_after, memo))
    done, chosen, first, free = [False] * len(wraps), [], 0, _Free(taken)
    best = iter(candidates)
    candidate = next(best, None)
    for _ in wraps:
        while candidate and (done[candidate[1]] or any(taken[candidate[2] : candidate[3]])):
            candidate = next(best, None)
        while done[first]:
            first += 1
        if candidate:
            k, i, j = candidate[1:]
        else:  # nothing alike left: each where its text was, as many words
            k = first
            i = j = free.nearest(clues[wraps[k].mark].at)
            while j < len(words) and not taken[j] and j - i < _size(clues[wraps[k].mark]):
                j += 1
        free.take(i, j)
        done[k] = True
        chosen.append((i, j, wraps[k].mark))
    return _marked(text, spans, len(words), chosen, items, rendered)


def _size(c: Clues) -> int:
    return len(words_of(c.fragments[-1])) or 1


def _places(k: int, c: Clues, opens: str, words: list[str], span_grams: Callable, taken: list[bool],
            marked_after: list[bool], memo: dict) -> list[tuple[float, int, int, int]]:
    """(minus how alike, k, i, j) for each words[i:j] alike enough that wrap k (the k-th of the line) may go
    around; `memo`: the line's alike scores by clues and place."""
    size = _size(c)
    # (a fragment's translation twice as long as its source has gone astray: "el verde es verde")
    grams = [_trigrams(" ".join(words_of(f))) for f in c.fragments if 0 < len(words_of(f)) <= 2 * size + 1]
    missing = set(words) - set(c.missing) if c.missing is not None else set()  # the words the line lacks without them
    near, alike, out = int(c.at * len(words)), set().union(*grams), []
    sizes = [(g, len(g)) for g in grams]  # (_dice's, inline: this loop runs some 200 times a wrap)
    missing_weight = sum(map(_weight, missing))
    # wraps of the same words ("[here](a) ... [here](b)") are as alike at each place: scored once a line
    key = None if missing else tuple(c.fragments)
    for i in range(max(near - REACH, 0), min(near + REACH + 1, len(words))):
        # (a footnote mark, a wrap that opens with nothing, follows one word: "parque<sup>9</sup>", not
        # "parque toda<sup>9</sup>")
        longest = i + (size + 2 if opens else 1)
        off = abs((i + 0.5) / len(words) - c.at)
        for j in range(i + 1, min(len(words), longest) + 1):
            if taken[j - 1] or j - 1 > i and marked_after[j - 2]:
                break
            like = memo.get((key, i, j)) if key else None
            if like is None:
                spanned = span_grams(i, j)  # (most places share no trigram: not alike at all)
                like = 0.0 if alike.isdisjoint(spanned) else max(2 * len(spanned & g) / (len(spanned) + n)
                                                                 for g, n in sizes)
                if missing:  # (a long word tells more; "y", "es" or "el" nothing: the line without
                    # the words may have changed around them, "es" -> "está")
                    here = set(words[i:j])
                    total = sum(map(_weight, here)) + missing_weight
                    like = max(like, 2 * sum(map(_weight, here & missing)) / total if total else 0.0)
                elif key:
                    memo[key, i, j] = like
            like -= 0.1 * abs(j - i - size)  # about as many words as the source had
            like += 1e-3 * (1 - off)  # equally alike: the nearer
            if not opens:  # a footnote's one word: its clues are weak (the word alone, the line
                like -= 0.3 * off  # without it), where it was tells more
            if like >= 0.35:  # (less is never chosen: the wrap then goes where its text was)
                out.append((-like, k, i, j))
    return out


class _Free:
    """Which words no wrap has taken yet, and the free one nearest a share of the line (the first of two as
    near) found in time near constant: runs of taken words are skipped."""

    def __init__(self, taken: list[bool]):
        self.taken, self.n = taken, len(taken)
        self.right = list(range(self.n + 1))  # a word's index -> the first free one at or after it (n: none)
        self.left = list(range(self.n + 1))  # index + 1 -> the last free one at or before it, + 1 (0: none)
        for k in range(self.n):
            if taken[k]:
                self._cover(k)

    def _find(self, links: list[int], k: int) -> int:
        root = k
        while links[root] != root:
            root = links[root]
        while links[k] != root:
            links[k], k = root, links[k]
        return root

    def _cover(self, k: int) -> None:
        self.right[k], self.left[k + 1] = k + 1, k

    def take(self, i: int, j: int) -> None:
        for k in range(i, j):
            self.taken[k] = True
            self._cover(k)

    def nearest(self, at: float) -> int:
        if self._find(self.right, 0) == self.n:
            return self.n
        m = min(max(int(at * self.n), 0), self.n - 1)
        found = {self._find(self.right, k) for k in range(max(m - 1, 0), m + 2)} | \
            {self._find(self.left, k + 1) - 1 for k in range(max(m - 1, 0), min(m + 2, self.n))}
        return min((k for k in found if 0 <= k < self.n), key=lambda k: (abs(k / self.n - at), k))


def _marked(text: str, spans: list[tuple[int, int]], n: int, chosen: list[tuple[int, int, str]],
            items: dict[str, tuple[str, ...]], rendered: dict[str, str] | None) -> str:
    """text with each chosen words[i:j] inside its markup (right to left: the offsets before stay valid); the
    pieces joined once (a line of hundreds of wraps was copied once for each)."""
    pieces, last = [], None
    for i, j, mark in sorted(chosen, key=lambda c: (c[0], c[1]), reverse=True):
        if i == n:  # (no word left for it: at the end)
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
        if i == n:  # (these come first, and each goes after the one before)
            text = text[:start] + marked + text[end:]
        else:
            pieces += [text[end:last], marked]
            last = start
    return "".join(reversed([*pieces, text[:last]]))
