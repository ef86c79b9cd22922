"""A template's placeholders (the template rows of kinds.py: `{name}`, `%s`, `%(n)d`, `${x}`, `{{ x }}`, `&nbsp;`,
`\\n`, ...) and ICU messages (icu.py) made markup items in the raw line, before normalize (which would respace
"{{ name }}" and "Total: %.2f") or the sentence splitter read it: each is then one span the model sees as a
number's placeholder ("Hello 50, you have 50 new messages."), put back byte for byte (retry.py's ladder if the
model loses it); an ICU message's branches are translated each on its own (markup.render_items).

A `:name` is a placeholder only in a line that is a template: one with another placeholder, another `:name`,
or a route's "/:id" ("Note :this" is prose). An HTML entity or an escape at a sentence's edge is markup set
aside there; any other placeholder is a word of the sentence (Items.words). What is prose stays prose:
"50% off", "100 %", "% s", "{ name" and "a {very rough} idea" hold no placeholder; a lone "{very}" does
(a software string's, more often than a writer's)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator

from mtcli.text import icu
from mtcli.text.kinds import ESCAPED_BREAK, KINDS, MAYBE_TEMPLATE, PRIVATE, TEMPLATE
from mtcli.text.quotes import Items
from mtcli import lazy_re

ROUTE = lazy_re.compile(r"/:[A-Za-z_]")  # a route's ":id" ("/users/:id"): its line is a template (kinds.COLON_NAME)
# a lone ":name" that can only be a template's variable (Laravel's "The :attribute field is required."): after a
# space, two or more lowercase letters and underscores, no colon after it (not ":smile:", ":p", "10:30", "Note: x")
VARIABLE = lazy_re.compile(r"(?<!\S):[a-z_]{2,}(?![\w:])")
WINDOWS_PATH = lazy_re.compile(r"(?<!\S)(?:[A-Za-z]:\\|\\\\\w)\S*")  # no escapes in it ("C:\new\table")
_FIND = lazy_re.compile(rf"(?P<icu>{icu.START.pattern})|{TEMPLATE.pattern}")
_NAMES = {f"k{n}": k.name for n, k in enumerate(KINDS) if k.template}
_LETTER = lazy_re.compile(r"[^\W\d_]")
_BREAKS = lazy_re.compile(f"(?:{ESCAPED_BREAK})+")


def shield(line: str, items: Items) -> str:
    """The line with each placeholder and ICU message an item's character (as it came where none is left)."""
    if not MAYBE_TEMPLATE.search(line):
        return line
    found: list[tuple[int, int, str]] = []  # (start, end, character)
    colons: list[tuple[int, int]] = []
    escapes: list[tuple[int, int]] = []
    at = 0
    while m := _FIND.search(line, at):
        kind = _NAMES.get(m.lastgroup, "icu")
        if kind == "icu":
            end, char = icu.read(line, m.start(), lambda parts: _new(items, parts, word=True))
            found.append((m.start(), end, char))
            at = end
            continue
        at = m.end()
        if kind in ("colon name", "escape"):
            (colons if kind == "colon name" else escapes).append(m.span())
            continue
        found.append((m.start(), m.end(), _new(items, (m.group(),), word=kind != "html entity")))
    found += [(s, e, _new(items, (line[s:e],), word=False)) for s, e in _outside_paths(line, escapes)]
    if colons and (found or len(colons) > 1 or ROUTE.search(line) or VARIABLE.search(line)):
        found += [(s, e, _new(items, (line[s:e],), word=True)) for s, e in colons]
    found.sort()
    out, last = [], 0
    for s, e, char in found:
        out += [line[last:s], char]
        last = e
    return "".join(out) + line[last:]


def breaks(line: str) -> list[str] | None:
    """A string's escaped newlines, returns and tabs ("Are you sure?\\nThis cannot be undone."): its pieces and
    the escapes between them ([piece, escapes, piece, ...]), each piece translated as a line of its own (as an
    item inside a sentence, the model saw "Are you sure 50 This cannot be undone."); None: it has none (a
    Windows path's "C:\\new" is none)."""
    if "\\" not in line:
        return None
    cuts = list(_outside_paths(line, (m.span() for m in _BREAKS.finditer(line))))
    if not cuts:
        return None
    edges = [0, *(x for span in cuts for x in span), len(line)]
    return [line[a:b] for a, b in zip(edges, edges[1:])]


def _outside_paths(line: str, spans: Iterable[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """The spans (in order) that start outside every Windows path of the line ("C:\\new\\table")."""
    paths = WINDOWS_PATH.finditer(line) if "\\" in line else iter(())
    path = next(paths, None)
    for s, e in spans:
        while path and path.end() <= s:
            path = next(paths, None)
        if not (path and path.start() <= s):
            yield s, e


def _new(items: Items, parts: tuple[str, ...], word: bool) -> str:
    char = items.new(parts)
    if char is None:  # (no character left: the text stays as it came)
        return "".join(parts)
    if word:
        items.words.add(char)
    return char


def placeholders(line: str) -> Counter:
    """A line's placeholders, and its ICU messages' `#`s and simple arguments, as a multiset: a translation that
    keeps them has the source's (benchmarks/software_strings.py)."""
    items = Items({}, [line])
    shield(line, items)
    return Counter(parts[0] for parts in items.values() if len(parts) == 1)


def only_placeholders(shielded: str, items: Items) -> bool:
    """A line of a template's placeholders only: nothing in it to translate (not an ICU message's branches)."""
    chars = [c for c in PRIVATE.findall(shielded) if c in items]
    return bool(chars) and not _LETTER.search(PRIVATE.sub("", shielded)) and all(len(items[c]) == 1 for c in chars)
