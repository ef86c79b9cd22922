"""What is done to a whole line around its sentences: a line too long cut (the rest kept as it came), its
indentation and a list's or a quote's mark kept, Spanish given by mistake told, and a spreadsheet's row
translated cell by cell."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from mtcli.ranges import MAX_LINE_CHARS
from mtcli.text.normalize import normalize
from mtcli.text.quotes import unquoted
from mtcli.text.sentence import Engine, LineResult, TextOptions, combine
from mtcli import lazy_re

INDENT = lazy_re.compile(r"[ \t]*")  # kept as it is (not other whitespace: no line separators in the output)
# ... and after it a list's or a quote's mark, or a one-letter label: "- ", "* ", "• ", "1. ", "2) ", "(a) ",
# "> ", "# ", "Q: " (the model dropped them or moved them to the end: "1. Open it." -> "Ábrelo 1.")
MARK = lazy_re.compile(r"[ \t]*(?:[-*•‣◦▪+>]{1,2}|#{1,6}|\d{1,3}[.)]|[A-Za-z][.)]|\((?:\d{1,3}|[A-Za-z])\)|[A-Z]:)[ \t]+(?=\S)")
# ... and inside a line, at a sentence's start: not a letter and a stop (an initial there: "I. M. Pei")
INNER_MARK = lazy_re.compile(r"(?:[-*•‣◦▪+>]{1,2}|\d{1,3}[.)]|[A-Za-z]\)|\((?:\d{1,3}|[A-Za-z])\)|[A-Z]:) +(?=\S)")


def cut_long(raw: str) -> tuple[str, str]:
    """A line over MAX_LINE_CHARS: the part translated (up to the last sentence end before the limit, else
    the last space, if there is one in its second half) and the rest, kept as it came (normalized: one
    line, single spaces)."""
    head = raw[: MAX_LINE_CHARS + 1]
    ends = [m.end() for m in _SENTENCE_END.finditer(head, MAX_LINE_CHARS // 2)]
    cut = ends[-1] if ends else head.rfind(" ", MAX_LINE_CHARS // 2)
    cut = cut if cut > 0 else MAX_LINE_CHARS
    return raw[:cut], (" " if raw[cut].isspace() else "") + normalize(raw[cut:])  # (a word cut in two stays one)


_SENTENCE_END = lazy_re.compile(r"[.!?][\"')\]]*(?=\s)")


def join_tail(text: str, tail: str) -> str:
    return text + tail if text else tail.lstrip()


# words of Spanish that English text does not use (not "a", "no", "me", "son", "era", "hay", "solo", "al", ...)
_SPANISH = frozenset("el la los las del que y en es está están un una unos unas por para con pero muy qué cómo "
                     "dónde cuándo porque también su sus le les mi tu yo ella ellos nosotros somos fue hola gracias "
                     "este esta esto eso ese esa aquí allí ahora siempre nunca sí tiene tengo quiero puedo gusta de "
                     "se ya más".split())
_WORDS = lazy_re.compile(r"[^\W\d_]+")


def misread(seen: str, read: str, what: str = "this") -> str:
    """The warning for a text in one language translated as if it were the other (`what`: the text)."""
    return f"{what} looks like {seen} already; it was translated as if it were {read}"


def looks_spanish(text: str) -> bool:
    """Spanish given by mistake: two different words and 40 % of them are Spanish's own, or carry ñ, an
    accent or an opening ¿ ¡ (the model makes nonsense of it: "El perro es grande." -> "Orpeólica.")."""
    text = unquoted(text[:2000])  # (a title quoted in Spanish: 'My favorite book is "Cien años de soledad".')
    words = _WORDS.findall(text.lower())
    if len(words) < 3:
        return False
    own = [w for w in words if w in _SPANISH or any(c in "ñáéíóú" for c in w)] + [c for c in text if c in "¿¡"]
    return len(set(own)) >= 2 and len(own) >= 0.4 * len(words)


def has_cells(raw: str) -> bool:
    """A row of cells: a tab after the line's indentation, or a line of blanks holding one (a row whose cells are
    empty: "Red<TAB>" and "<TAB><TAB>" had lost their tabs, a column or all of them fewer)."""
    return "\t" in raw.lstrip(" \t") or "\t" in raw and not raw.strip()


def in_cells(lines: Sequence[str], engine: Engine, options: TextOptions, first: int,
             translate: Callable[..., list[LineResult]],
             cut: Callable[[str], list[str] | None] | None = None) -> list[LineResult]:
    """Lines with tabs inside them (a spreadsheet's rows, pasted): each cell translated as a line of its own,
    the tabs kept (normalised to spaces, "Apple<TAB>Red<TAB>3" reached the model as one sentence and lost
    "Red"). The other lines as ever. `cut`: a line's pieces and what parts them ([piece, sep, piece, ...]), or
    None, instead of its tabs (templates.breaks: a string's escaped newlines)."""
    rows = [cut(raw) if cut else re.split("(\t)", raw) if has_cells(raw) else None for raw in lines]
    # (a cell is a heading or a value more often than a sentence: no final stop it had not)
    cells = iter(translate([c for row in rows if row for c in row[::2]], engine, replace(options, keep_stop=False)))
    others = iter(translate([raw for raw, row in zip(lines, rows) if row is None], engine, options))
    results = []
    for i, row in enumerate(rows):
        if row is None:
            results.append(replace(next(others), line=first + i))
            continue
        results.append(joined(first + i, [next(cells) for _ in row[::2]], row[1::2]))
    return results


def joined(line: int, done: list[LineResult], seps: Sequence[str]) -> LineResult:
    """The results of a line's pieces as the line's: their translations with what parted them (tabs, escapes)
    between them again, their warnings and counts together."""
    nbest = [("".join(t + sep for t, sep in zip(text.split("\0"), [*seps, ""])), score)
             for text, score in combine([r.nbest for r in done], "\0")]
    return LineResult(line, nbest, sum(r.sentences for r in done), sum(r.split for r in done),
                      [k for r in done for k in r.kept], [w for r in done for w in r.warnings])
