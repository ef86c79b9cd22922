"""What a document's paragraph holds besides words and the markup around them (units.py's texts), and where it goes:

- a line break or a tab (Word's w:br, w:tab; ODF's text:line-break, text:tab) cuts the text: the pieces on each side
  are translated each on its own, as plain text's lines and cells are, and the break goes back between their
  translations (as an item inside one sentence the model lost it, and the stops around it);
- a mark set aside (a tracked deletion, a bookmark's point) is no word of the sentence: it goes back beside the
  markup it touched (a deletion beside the insertion that replaced it), else at the text's start or end;
- a template's placeholder that markup splits or wraps (`Hello {` + italic `name` + `}`) is found in the text's
  plain words, given to the pipeline whole as plain text (templates.py keeps it), and its markup put back exactly
  as it was around it.

The text is read as a marked string (units.py's marks of control characters around and for markup), cut, and
built again into items.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from mtcli.text.kinds import MAYBE_TEMPLATE
from mtcli.text.markup import as_written
from mtcli.text.quotes import Items
from mtcli.text.templates import shield
from mtcli import lazy_re

CUT = "\v"  # a break's stand-in: XML 1.0 cannot hold it, so none comes from a document's own text
_KEPT = "\ufffc"  # a kept item in the plain words: no placeholder is found across it
_MARK = lazy_re.compile("\x01(/?)([0-9]+)(/?)\x02")


@dataclass
class Extras:
    """One text's breaks, marks set aside and placeholders lifted, to put back into its translation."""

    cuts: list[int] = field(default_factory=list)  # the keys of the breaks, in order
    asides: list[tuple[str, str | None, bool]] = field(default_factory=list)  # (mark, beside which mark, after it)
    lifted: list[tuple[str, int, str]] = field(default_factory=list)  # (placeholder, its occurrence, marked as it was)

    def put_back(self, marked: str) -> str:
        """The translation (a marked string) with the placeholders' markup, the marks set aside and the breaks
        (in one pass each: linear in its length)."""
        edits: list[tuple[int, int, str]] = []  # (at, characters replaced, by what)
        wanted: dict[str, list[tuple[int, str]]] = {}
        for holder, nth, was in self.lifted:
            wanted.setdefault(holder, []).append((nth, was))
        for holder, wants in wanted.items():
            starts = [m.start() for m in re.finditer(re.escape(holder), marked)]
            edits += [(starts[nth], len(holder), was) for nth, was in wants if nth < len(starts)]
        if self.asides:
            first: dict[str, int] = {}
            for m in _MARK.finditer(marked):
                first.setdefault(m.group(), m.start())
            for mark, anchor, after in self.asides:  # (its neighbour lost: at the end)
                at = first.get(anchor, -1) if anchor else 0 if not after else -1
                at = len(marked) if at < 0 else at + (len(anchor) if anchor and after else 0)
                edits.append((at, 0, mark))
        out, last = [], 0
        for at, size, new in sorted(edits, key=lambda e: e[:2]):  # (stable: marks at one place keep their order)
            if not size or at >= last:  # (a mark never lost: after what was put back where it would go)
                at = max(at, last)
                out += [marked[last:at], new]
                last = at + size
        marked = "".join(out) + marked[last:]
        if self.cuts:  # (a break more than the text had is a space: XML's text holds none of its own)
            keys = iter(self.cuts)
            marked = re.sub(CUT, lambda _: f"\x01{k}/\x02" if (k := next(keys, None)) is not None else " ", marked)
        return marked


def set_aside(text: str, asides: set[str], extras: Extras) -> str:
    """The marked string without the marks set aside (`asides`: their keep marks), each noted in extras with
    where it goes: after the mark just before it, else before the mark just after it (spaces between), else
    at the start (no word before it) or the end."""
    found = [m for m in _MARK.finditer(text)]
    if not any(m.group() in asides for m in found):
        return text
    edges = [0, *(x for m in found for x in m.span()), len(text)]
    parts = [text[a:b] for a, b in zip(edges, edges[1:])]  # words and marks in turn: marks at odd places
    following: list[str | None] = [None] * len(parts)  # the next mark with nothing but spaces before it
    nxt = None
    for k in range(len(parts) - 1, -1, -1):
        following[k] = nxt
        if k % 2 and parts[k] not in asides:
            nxt = parts[k]
        elif not k % 2 and parts[k].strip():
            nxt = None
    out, last, words = [], None, False  # last: the mark just before, nothing but spaces after it
    for k, part in enumerate(parts):
        if not k % 2:
            out.append(part)
            last, words = (None, True) if part.strip() else (last, words)
        elif part not in asides:
            out.append(part)
            last = part
        else:
            anchor = last or following[k]
            extras.asides.append((part, anchor, anchor == last if anchor else words))
    return "".join(out)


def lift(text: str, extras: Extras) -> str | None:
    """The marked string again with each placeholder touched by markup plain and whole at its top (its markup as
    it was noted in extras), and each break inside markup at its top too (the markup closed before it and
    opened again after it); None: nothing to move."""
    if CUT not in text and not MAYBE_TEMPLATE.search(_MARK.sub("", text)):  # (most texts: at once)
        return None
    tokens, words, spans = _tokens(text)
    holders = dict(spans)
    if not holders and CUT not in words:
        return None
    marks = [pos for kind, _, pos in tokens if kind != "text"]  # (in order)
    seen: dict[str, list[int]] = {}  # a placeholder -> where it is in the words (to count those before one)
    out: list = []  # (kind, value, made here): a made open goes when its close comes with nothing between
    stack: list[str] = []
    region: list | None = None  # the tokens of the placeholder being lifted
    begin, end, moved = 0, 0, False

    def close_all(into: list) -> None:  # (an open with nothing after it goes instead)
        for key in reversed(stack):
            if into and into[-1][:2] == ("open", key):
                into.pop()
            else:
                into.append(("close", key, True))

    def open_all(into: list) -> None:
        into.extend(("open", key, True) for key in stack)

    for kind, value, pos in tokens:
        if kind == "text" and region is None and pos in holders:
            inside = bisect.bisect_right(marks, pos)
            if stack or inside < len(marks) and marks[inside] < holders[pos]:
                close_all(out)
                region, begin, end = [], pos, holders[pos]
                open_all(region)
        into = out if region is None else region
        if kind == "text" and value == CUT and stack and region is None:
            close_all(out)
            out.append(("text", CUT, False))
            open_all(out)
            moved = True
        elif kind == "close":
            stack.pop()
            if into and into[-1] == ("open", value, True):
                into.pop()
            else:
                into.append((kind, value, False))
        else:
            stack += [value] if kind == "open" else []
            into.append((kind, value, False))
        if region is not None and kind == "text" and pos + len(value) == end:
            close_all(region)
            holder = words[begin:end]
            if holder not in seen:
                seen[holder] = [m.start() for m in re.finditer(re.escape(holder), words)]
            extras.lifted.append((holder, bisect.bisect_left(seen[holder], begin), _string(region)))
            out.append(("text", holder, False))
            open_all(out)
            region, moved = None, True
    return _string(out) if moved else None


def _tokens(text: str) -> tuple[list[tuple[str, str, int]], str, list[tuple[int, int]]]:
    """A marked string as (kind, value, offset in the plain words), its text cut at each break and at each
    placeholder's edges; its plain words (a kept item one character of them, _KEPT); the placeholders' spans."""
    pieces: list[tuple[str, str]] = []
    last = 0
    for m in _MARK.finditer(text):
        pieces += [("text", part) for part in _cut(text[last:m.start()])]
        pieces.append(("close" if m.group(1) else "keep" if m.group(3) else "open", m.group(2)))
        last = m.end()
    pieces += [("text", part) for part in _cut(text[last:])]
    words = "".join(v if k == "text" else _KEPT if k == "keep" else "" for k, v in pieces)
    spans = _holders(words)
    edges = sorted({x for span in spans for x in span})
    out, pos = [], 0
    for kind, value in pieces:
        if kind != "text":
            out.append((kind, value, pos))
            pos += kind == "keep"
            continue
        inner = edges[bisect.bisect_right(edges, pos):bisect.bisect_left(edges, pos + len(value))]
        for a, b in zip([pos, *inner], [*inner, pos + len(value)]):
            out.append(("text", value[a - pos:b - pos], a))
        pos += len(value)
    return out, words, spans


def _cut(text: str) -> list[str]:
    """text in pieces, each break one of its own (no piece empty)."""
    return [part for part in re.split(f"({CUT})", text) if part]


def _string(tokens: list) -> str:
    return "".join(v if kind == "text" else f"\x01{v}\x02" if kind == "open" else f"\x01/{v}\x02" if kind == "close"
                   else f"\x01{v}/\x02" for kind, v, _ in tokens)


def _holders(words: str) -> list[tuple[int, int]]:
    """The spans of the template placeholders in plain words (not an ICU message's: its branches are translated)."""
    items = Items({}, [words])
    out, at = [], 0
    for c in shield(words, items):
        size = len(as_written(c, items)) if c in items else 1
        if c in items and len(items[c]) == 1:
            out.append((at, at + size))
        at += size
    return out


def itemize(text: str, wrap, keep) -> str:
    """A marked string as text with items again: wrap(key, words) and keep(key) make them."""
    words: list[list[str]] = [[]]
    keys: list[str] = []
    last = 0
    for m in _MARK.finditer(text):
        words[-1].append(text[last:m.start()])
        last = m.end()
        if m.group(3):
            words[-1].append(keep(int(m.group(2))))
        elif m.group(1):
            inner = "".join(words.pop())
            words[-1].append(wrap(int(keys.pop()), inner))
        else:
            words.append([])
            keys.append(m.group(2))
    words[-1].append(text[last:])
    return "".join(words[0])
