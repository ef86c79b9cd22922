"""Markup in a sentence (formats/ stands it in the text as private-use characters, items): the parts of it to
translate translated on their own (render_items), and markup around words taken off the sentence and put back
around the words that translate them (unwrap, clues; rewrap.py). Each translates through the `translate`
callable it is given: the pipeline's own translate_lines, without this module calling it back."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from mtcli.errors import UserError
from mtcli.text.casing import as_fragment
from mtcli.text.edges import is_note
from mtcli.text.floating import Floating
from mtcli.text.kinds import PRIVATE
from mtcli.text.quotes import QUOTE_MARKS, Items
from mtcli.text.rewrap import Clues, Wrap, words_of
from mtcli.text.sentence import Engine, LineResult, Sentence, TextOptions
from mtcli import lazy_re

Translate = Callable[..., list[LineResult]]  # translate_lines


def as_written(text: str, items: dict[str, tuple[str, ...]]) -> str:
    """Text with each markup character as the document had it (for warnings). Only an item's text
    parts (odd positions) hold items; its verbatim parts are the document's own characters, which may
    be private-use ones (an icon font's glyph is an item standing for itself)."""
    if not items:
        return text

    def source(m: re.Match) -> str:
        parts = items.get(m.group())
        return m.group() if parts is None else "".join(
            as_written(part, items) if k % 2 else part for k, part in enumerate(parts))

    return PRIVATE.sub(source, text)


# markup nested deeper than this is refused in one line: each level is translated by a call of translate_lines
# inside the one before (render_items), and 10,000 nested <b> ran out of Python's stack (RecursionError); no
# document written by hand or by an editor nests inline markup anywhere near this deep
MAX_DEPTH = 100


def check_depth(texts: Sequence[str], items: dict[str, tuple[str, ...]], line: Callable[[int], int]) -> None:
    """A UserError naming the line (`line(i)` of texts[i]) whose markup is nested more than MAX_DEPTH deep; found
    without recursion, each item looked at once."""
    depth: dict[str, int] = {}

    def inner(c: str) -> list[str]:
        return [x for k, part in enumerate(items[c]) if k % 2 for x in PRIVATE.findall(part) if x in items]

    for i, text in enumerate(texts):
        for root in PRIVATE.findall(text):
            stack = [root] if root in items and root not in depth else []
            open_ = set(stack)  # (an item inside itself is not followed round)
            while stack:  # (depth-first; an item is measured once all inside it are)
                c = stack[-1]
                todo = [x for x in inner(c) if x not in depth and x not in open_]
                if todo:
                    stack += todo
                    open_.update(todo)
                    continue
                depth[c] = 1 + max((depth.get(x, 0) for x in inner(c)), default=0)
                open_.discard(stack.pop())
            if depth.get(root, 0) > MAX_DEPTH:
                raise UserError(f"line {line(i)}: markup nested more than {MAX_DEPTH} deep, which is refused")


def render_items(todo: list[Sentence], items: dict[str, tuple[str, ...]], engine: Engine,
                 options: TextOptions, results: list[LineResult], translate: Translate) -> dict[str, str]:
    """Markup characters used in these sentences -> their text, the parts to translate translated (in
    one batch, through `translate`: this same pipeline); their warnings go to the line that holds them."""
    if not items:  # plain lines (no markup): nothing to look for
        return {}
    used: dict[str, int] = {}
    for s in todo:
        floating = s.aside.get(Floating.name, ())  # (the emoji and marks that stage set aside inside the sentence)
        kept = (s.lead, s.trail, s.verbatim or "", *(s.masked.spans if s.masked else ()), *(f[1] for f in floating))
        for c in PRIVATE.findall("".join(kept)):
            used.setdefault(c, s.line)
    used = {c: line for c, line in used.items() if c in items}
    holes = [(c, k) for c in used for k in range(1, len(items[c]), 2)]
    # a link's text is part of a sentence; a quotation that ends as a sentence does ('"i love cats."') is one;
    # one that does not ('"Yes," he said.') is given the model as one ("Yes." -> "Sí."), without its stop
    kinds = [0 if items[c][0] not in QUOTE_MARKS else 2 if items[c][k].rstrip().endswith((".", "!", "?", "…"))
             else 1 for c, k in holes]
    done: list = [None] * len(holes)
    for kind, opts in enumerate((replace(options, punctuate=False, keep_stop=False), replace(options, keep_stop=False),
                                 options)):
        these = [j for j, w in enumerate(kinds) if w == kind]
        if these:
            for j, r in zip(these, translate([items[holes[j][0]][holes[j][1]] for j in these], engine, opts,
                                             items=items)):
                done[j] = r
    parts = {c: list(items[c]) for c in used}
    for (c, k), r, kind in zip(holes, done, kinds):
        hole = items[c][k]
        # the spaces around the text kept, but on one line: "<b>\n</b>" spread over two lines would make three
        flat = hole.replace("\n", " ")
        lead, trail = flat[: len(flat) - len(flat.lstrip())], flat[len(flat.rstrip()) :]
        text = r.text.strip() if kind == 2 else as_fragment(r.text.strip(), hole)
        parts[c][k] = lead + text + trail if hole.strip() else flat
        results[used[c]].warnings += r.warnings
        results[used[c]].kept += r.kept
    return {c: "".join(p) for c, p in parts.items()}


# --- markup around words: the sentence translated without it, the markup put back around the words
# that translate its text. "The plant is <b>green</b>." with the markup as a placeholder (the model
# sees "The plant is 50."): "La planta tiene <b>el verde es verde</b> años."; unwrapped: "La planta es
# <b>verde</b>." Where the words went is told by two translations: of the words alone (a fragment, often
# poor: "green" -> "Grecia"), and of the line without them ("La planta es.": the words it lacks).
MAX_WRAPS_ALIGNED = 8  # markup in a line beyond which the line is not translated again without each


# markup characters left raw inside an item's words ("***both***" read as ** around "*both"): such an
# item stays a placeholder, as nested markup does; the model would garble them
_RAW_MARKUP = lazy_re.compile(r"[*_~`\[\]<>]")


_LAST_WORD = lazy_re.compile(r"(?<!\w)\w+$")


def unwrap(text: str, items: Items) -> tuple[str, list[Wrap]]:
    """text with each item that wraps plain words (an emphasis, a link: three parts, no markup
    inside) replaced by its words; the items, in order. A superscript or a subscript glued to a word
    is a footnote mark (car<sup>1</sup>, cats[^1]) or part of it (H<sub>2</sub>O, x<sup>2</sup>): never
    translated ("x<sub>i</sub>" -> "x<sub>puedo</sub>"); a footnote mark goes after its word's translation
    (a wrap of its own, or of the link or emphasis it follows), the other is kept with its word."""
    wraps, out, last, at = [], [], 0, 0

    def wrap(start: int, end: int, mark: str, words: str) -> None:
        nonlocal last, at
        out.extend((text[last:start], words))
        at += start - last
        wraps.append(Wrap(mark, at, at + len(words)))
        at += len(words)
        last = end

    for m in PRIVATE.finditer(text):
        parts = items.get(m.group(), ())
        if is_note(parts) and (_glued(text, m) or m.start() == 0):  # (at the start: kept there)
            note, word = "".join(parts), _LAST_WORD.search(text, last, m.start())
            items[m.group()] = (note,)
            if wraps and last == m.start():  # after a link or an emphasis ("<i>cats</i><sup>4</sup>")
                open_, words, close = items[wraps[-1].mark]
                items[wraps[-1].mark] = (open_, words, close + note)
                last = m.end()
            elif word and not text[m.end() : m.end() + 1].isalnum():
                if len(word.group()) > 2 and not word.group().isdigit():  # a footnote mark
                    mark = items.new(("", word.group(), note))
                    if mark:
                        wrap(word.start(), m.end(), mark, word.group())
                else:  # a symbol's ("x<sup>2</sup>", "km<sup>2</sup>"): protect.find_spans keeps it whole
                    mark = items.new((word.group() + note,))
                    if mark:
                        out.extend((text[last : word.start()], mark))
                        at += word.start() - last + 1
                        last = m.end()
        elif len(parts) == 3 and m.group() not in items.words and parts[1].strip() and not PRIVATE.search(parts[1]) \
                and not _RAW_MARKUP.search(parts[1]):
            wrap(m.start(), m.end(), m.group(), parts[1].replace("\n", " "))  # (a line of its own: "<b>\nx</b>")
    return "".join(out) + text[last:], wraps


def _glued(text: str, m: re.Match) -> bool:
    """The item m is glued to what is before it, or to a word or another item after it."""
    before, after = text[m.start() - 1 : m.start()], text[m.end() : m.end() + 1]
    return bool(before.strip()) or after.isalnum() or bool(PRIVATE.match(after))


def _without(text: str, w: Wrap) -> str:
    return re.sub(r"\s+(?=[.,;:!?])", "", re.sub(r"\s+", " ", text[: w.start] + " " + text[w.end :])).strip()


def clues(lines: dict[int, str], wraps: dict[int, list[Wrap]], items, engine: Engine,
          options: TextOptions, translate: Translate) -> dict[str, Clues]:
    """What tells where each wrap's words went (see above), by its markup character."""
    marks = [(i, w) for i, ws in wraps.items() for w in ws]
    if not marks:
        return {}
    inner = replace(options, punctuate=False, keep_stop=False)
    alone = translate([items[w.mark][1].strip() for _, w in marks], engine, inner)
    aligned = [(i, w) for i, w in marks if len(wraps[i]) <= MAX_WRAPS_ALIGNED]
    without = translate([_without(lines[i], w) for i, w in aligned], engine, options)
    clues = {w.mark: Clues([as_fragment(t.strip(), items[w.mark][1]) for t, _ in r.nbest] + [items[w.mark][1].strip()],
                            at=w.start / max(len(lines[i]), 1)) for (i, w), r in zip(marks, alone)}
    for (_, w), r in zip(aligned, without):
        clues[w.mark].missing = words_of(r.text)
    return clues


def expand(text: str, rendered: dict[str, str]) -> str:
    return PRIVATE.sub(lambda m: rendered.get(m.group(), m.group()), text) if rendered else text
