"""Markup inside a sentence placed by the model's word alignment (Engine.align): the sentence and its translation
read once more under teacher forcing, each wrap's words followed to the words of the translation linked to
them. markup.clues' two translations for each wrap (its words alone, the line without them) decoded a docx whose
runs were 1-4 words each at a quarter of its lines' speed (benchmarks/documents.py --layout words); a forced
pass of the lowest layer costs a small part of one decode. The words found are rewrap's clue, with where they
are in the line's translation: rewrap still does the placing (markup.clues' way for what is not linked here)."""

from __future__ import annotations

from collections.abc import Callable

from mtcli.text.kinds import PRIVATE
from mtcli.text.rewrap import Clues, Wrap
from mtcli.text.sentence import NBest, combine
from mtcli.text.wholes import Parts
from mtcli import lazy_re

Align = Callable[[list[tuple[str, str]]], list]  # (source, translation) pairs -> their links (confidence.links)
_WORD = lazy_re.compile(r"\S+")


def _words(text: str, at: int = 0) -> list[tuple[int, int, str]]:
    """Each word between spaces (where it is, from `at`) without markup characters; words of markup only left
    out (an image, a field: the model would read them as unknown)."""
    return [(at + m.start(), at + m.end(), word) for m in _WORD.finditer(text)
            if (word := PRIVATE.sub("", m.group()))]


def clues(lines: dict[int, str], wraps: dict[int, list[Wrap]], parts: dict[int, Parts], outs: list[list[NBest]],
          seen: dict[int, str], align: Align) -> dict[str, Clues]:
    """Clues by markup character for the wraps of `lines` (unwrapped) that the links place: each sentence of
    `parts` that holds one, with its translation (the line's `outs`, its sentences' entries in order), aligned in
    one call; `seen`: each line's best translation as rewrap reads it. A wrap over a sentence not linked (its
    words not the tokenizer's) is left out."""
    pairs, read = [], []  # (line, the sentence's source words, its translation's words in seen[i])
    for i, ws in wraps.items():
        at, cursor, piece = 0, 0, 0
        for part, pieces in parts.get(i, ()):
            at, translation = lines[i].find(part, at), combine(outs[i][piece : piece + pieces])[0][0]
            piece += pieces
            if at < 0:
                break
            start, at = at, at + len(part)
            # (a sentence inside markup of its own is one markup character in seen: wholes.place)
            found = seen[i].find(translation, cursor) if translation else -1
            cursor = found + len(translation) if found >= 0 else cursor
            if found >= 0 and any(w.start < at and w.end > start for w in ws):
                src, tgt = _words(part, start), _words(translation, found)
                if src and tgt:
                    pairs.append((" ".join(w for *_, w in src), " ".join(w for *_, w in tgt)))
                    read.append((i, src, tgt))
    found = _linked(read, align(pairs) if pairs else [], wraps)
    clues = {w.mark: _clue(seen[i], *found[w.mark], lines[i][w.start : w.end])
             for i, ws in wraps.items() for w in ws if found.get(w.mark)}
    return {mark: c for mark, c in clues.items() if c is not None}


def _linked(read: list, links: list, wraps: dict[int, list[Wrap]]) -> dict[str, tuple | None]:
    """Each wrap's words of its line's seen translation, by where they start: those linked to its words (a
    target word's source word one of them, unless the word is the one another source word is most attended
    by) and those its words are most attended by; the words others are most attended by (which no wrap
    stretches over); all the words of its sentences. None for a wrap over a sentence not linked."""
    out: dict[str, tuple | None] = {}
    for (i, src, tgt), link in zip(read, links):
        for w in wraps[i]:
            inside = {k for k, (a, b, _) in enumerate(src) if a < w.end and b > w.start}
            if not inside or w.mark in out and out[w.mark] is None:
                continue
            if link is None:
                out[w.mark] = None
                continue
            outside = [k for k in range(len(src)) if k not in inside]
            claimed = {link.to_target[k] for k in outside}
            # (a word linked both ways to one outside stays outside: "Quiero" is "want"'s, though "to" of
            # "to learn" is most attended by it)
            back = {link.to_target[k] for k in inside} - {j for j in claimed if link.to_source[j] in outside}
            ours = {j for j, k in enumerate(link.to_source) if k in inside} - claimed | back
            if not ours:  # (each of its words' was another's both ways: "Where" whose "¿Dónde" is "you"'s)
                ours = back = {link.to_target[k] for k in inside}
            claimed, back, ours = ({tgt[j][0] for j in js} for js in (claimed, back, ours))
            have = out.setdefault(w.mark, (set(), set(), set(), set()))
            have[0].update(ours), have[1].update(back), have[2].update(claimed - back), have[3].update(a for a, *_ in tgt)
    return out


def _clue(text: str, ours: set[int], back: set[int], claimed: set[int], known: set[int], source: str) -> Clues | None:
    """The clue of the wrap's words of text (by where each starts, see _linked): its run of words with the most
    of those its words are most attended by (then the longest), a gap between them bridged unless it holds a word
    another is; and where that run begins."""
    spans = list(_WORD.finditer(text))
    runs: list[list[int]] = []
    for k, m in enumerate(spans):
        if m.start() in ours:
            gap = range(runs[-1][-1] + 1, k) if runs else range(0)
            if runs and all(spans[g].start() in known - claimed for g in gap):
                runs[-1] += [*gap, k]
            else:
                runs.append([k])
    if not runs:
        return None
    best = max(runs, key=lambda r: (sum(spans[k].start() in back for k in r), len(r)))
    return Clues([" ".join(spans[k].group() for k in best), source.strip()], at=(best[0] + 0.5) / len(spans))
