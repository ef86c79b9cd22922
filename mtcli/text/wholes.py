"""Markup around whole sentences of a line (a bold sentence, a link over two of them) put back around the
translations of those sentences: exact, and without asking the model anything more. markup.clues' two more
translations for each wrap (its words alone, the line without them) are for markup inside a sentence: spent on a
document whose every other sentence was a run of its own they halved its speed (benchmarks/documents.py)."""

from __future__ import annotations

from mtcli.text.rewrap import Wrap
from mtcli.text.sentence import NBest, combine

Parts = list[tuple[str, int]]  # a line's sentences as segment.sentences cut them, each with its pieces in todo


def split(text: str, parts: Parts, wraps: list[Wrap]) -> tuple[dict[str, tuple[int, int]], list[Wrap]]:
    """The wraps around whole sentences of text (spaces at their edges aside), each by its markup character ->
    the range of the line's pieces (its sentences' entries in todo) it holds; and the other wraps."""
    starts, ends, at, piece = {}, {}, 0, 0
    for part, pieces in parts:
        at = text.find(part, at)
        if at < 0 or not part:  # (segment.sentences gives the line back: never, but then nothing is exact)
            return {}, wraps
        starts[at], ends[at + len(part)] = piece, piece + pieces
        at += len(part)
        piece += pieces
    whole, rest = {}, []
    for w in wraps:
        words = text[w.start : w.end]
        start, end = w.start + len(words) - len(words.lstrip()), w.start + len(words.rstrip())
        if start in starts and end in ends and starts[start] < ends[end]:
            whole[w.mark] = starts[start], ends[end]
        else:
            rest.append(w)
    return whole, rest


def place(outs: list[NBest], whole: dict[str, tuple[int, int]],
          items: dict[str, tuple[str, ...]]) -> tuple[NBest, list[dict[str, str]]]:
    """The line's translations (as sentence.combine joins its pieces'), each whole wrap's sentences replaced by its
    markup character; and for each translation what those characters stand for (the markup around the words)."""
    cuts = sorted((a, b, mark) for mark, (a, b) in whole.items())
    segments, at = [], 0  # (pieces a..b, the markup around them or None)
    for a, b, mark in cuts:
        segments += [(at, a, None)] if a > at else []
        segments.append((a, b, mark))
        at = b
    segments += [(at, len(outs), None)] if at < len(outs) else []
    joined = [(combine(outs[a:b]), mark) for a, b, mark in segments]
    nbest, marked = [], []
    for k, (_, score) in enumerate(combine(outs)):
        texts, stands = [], {}
        for seg, mark in joined:
            text = seg[min(k, len(seg) - 1)][0]
            if mark is not None:
                open_, _, close = items[mark]
                stands[mark], text = open_ + text + close, mark
            texts += [text] if text else []
        nbest.append((" ".join(texts), score))
        marked.append(stands)
    return nbest, marked
