"""ICU MessageFormat messages in a line ("You have {count, plural, one {# message} other {# messages}}."), read in
one pass without recursion (a stack of the arguments open), each plural, select and selectordinal made a markup
item: its verbatim parts the structure (the argument's name and type, the offset, the selectors, the braces), its
text parts the branches' texts, each translated on its own like a link's text (markup.render_items). Inside a
branch, `#`, a quoted literal ('{'), a simple argument ({name}, {n, number}) and an argument nested deeper than
MAX_DEPTH are items kept as they came; a plural or a select nested in it an item of its own. A message that does
not read (unclosed, a branch without braces, a plural without `other`) is one item kept as it came.
`skeleton` tells whether a translation kept a message's structure (benchmarks/software_strings.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from mtcli import lazy_re

MAX_DEPTH = 6  # arguments open at once (real messages nest two or three: a plural inside a select)
# what opens an ICU MessageFormat argument with a type ("{count, plural, ...", "{n, number}"): read here whole
ICU_TYPES = ("plural", "selectordinal", "select", "number", "date", "time", "spellout", "ordinal", "duration", "choice")
START = lazy_re.compile(rf"\{{ *[A-Za-z_\d][\w.\-]* *, *(?:{'|'.join(ICU_TYPES)})\b")
_HEAD = lazy_re.compile(r"\{\s*([A-Za-z_\d][\w.\-]*)\s*,\s*(\w+)\s*")
_CHOICES = ("plural", "selectordinal", "select")
_OPTIONS = lazy_re.compile(r",\s*(?:offset:\s*\d+\s*)?")  # (a plural's offset goes before its first selector)
_SELECTOR = lazy_re.compile(r"\s*(=\d+(?:\.\d+)?|[A-Za-z_][\w\-]*)\s*\{")
_PLURAL_WORDS = frozenset("zero one two few many other".split())
_BRACE = lazy_re.compile(r"[{}]")
_TEXT_RUN = lazy_re.compile(r"[^'{}#]+")
# '' is an apostrophe; an apostrophe before { } # | opens a quoted literal up to the next single one; any other
# apostrophe is itself ("don't")
_QUOTED = lazy_re.compile(r"''|'[{}#|](?:[^']|'')*(?:'|$)")
_SIMPLE = lazy_re.compile(r"\{\s*[A-Za-z_\d][\w.\-]*\s*\}")
_CLOSE = lazy_re.compile(r"\s*\}")

Item = Callable[[tuple[str, ...]], str]  # parts -> the character standing for them in the text


@dataclass
class _Argument:
    """An open plural, select or selectordinal: its parts so far (verbatim, text, verbatim, ...)."""

    plural: bool
    parts: list[str]
    selectors: list[str] = field(default_factory=list)
    text: list[str] | None = None  # the open branch's text so far; None: between branches


def balanced_end(text: str, at: int) -> int:
    """Where the brace opened at text[at] closes (counting braces), else the end of the text."""
    depth = 0
    for m in _BRACE.finditer(text, at):
        depth += 1 if m.group() == "{" else -1
        if depth == 0:
            return m.end()
    return len(text)


def read(text: str, at: int, item: Item) -> tuple[int, str]:
    """The message that opens at text[at] (START matches there): where it ends, and the character that stands
    for it (for the whole of it, kept as it came, if it does not read: up to its closing brace or as far as it
    was read, whichever is further, so that no character is read twice)."""
    reached = [at]
    got = _read(text, at, item, reached)
    if got is None:
        end = max(balanced_end(text, at), reached[0])
        return end, item((text[at:end],))
    return got


def _read(text: str, at: int, item: Item, reached: list[int]) -> tuple[int, str] | None:
    """The message read, or None; reached[0]: how far."""
    stack: list[_Argument] = []
    i = _open(text, at, stack)
    if not stack:  # a number, a date, ...: kept whole
        return (i, item((text[at:i],))) if i is not None else None
    while i is not None:
        reached[0] = i
        top = stack[-1]
        if top.text is not None:
            i = _in_branch(text, i, top, stack, item)
            continue
        close = _CLOSE.match(text, i)
        if close:  # the argument ends
            top.parts[-1] += close.group()
            stack.pop()
            if "other" not in top.selectors or len(set(top.selectors)) < len(top.selectors):
                return None
            char = item(tuple(top.parts))
            if not stack:
                return close.end(), char
            stack[-1].text.append(char)
            i = close.end()
            continue
        selector = _SELECTOR.match(text, i)
        if not selector or top.plural and selector[1][0] != "=" and selector[1] not in _PLURAL_WORDS:
            return None
        top.parts[-1] += selector.group()
        top.selectors.append(selector[1])
        top.text, i = [], selector.end()
    return None


def _open(text: str, at: int, stack: list[_Argument]) -> int | None:
    """An argument's head read: a plural or a select pushed on the stack (where its options start), any other
    typed argument read whole (where it ends); None if it does not read."""
    head = _HEAD.match(text, at)
    if head[2] not in _CHOICES:
        end = balanced_end(text, at)
        return end if text[end - 1 : end] == "}" else None
    options = _OPTIONS.match(text, head.end())
    if not options:
        return None
    stack.append(_Argument(head[2] != "select", [text[at : options.end()]]))
    return options.end()


def _in_branch(text: str, i: int, top: _Argument, stack: list[_Argument], item: Item) -> int | None:
    """One step in a branch's text: a run of words, or what is kept, or its end."""
    c = text[i : i + 1]
    if not c:
        return None  # (unclosed)
    if c == "}":
        top.parts += ["".join(top.text), "}"]
        top.text = None
        return i + 1
    if c == "#":
        top.text.append(item(("#",)))
        return i + 1
    if c == "'":
        quoted = _QUOTED.match(text, i)
        top.text.append(item((quoted.group(),)) if quoted else "'")
        return quoted.end() if quoted else i + 1
    if c == "{":
        simple = _SIMPLE.match(text, i)
        if simple:
            top.text.append(item((simple.group(),)))
            return simple.end()
        if not START.match(text, i):
            return None  # (a brace ICU does not read: it is quoted there)
        if len(stack) < MAX_DEPTH:
            depth = len(stack)
            end = _open(text, i, stack)
            if end is not None and len(stack) == depth:  # a number, a date, ...
                top.text.append(item((text[i:end],)))
            return end
        end = balanced_end(text, i)
        top.text.append(item((text[i:end],)))
        return end if text[end - 1 : end] == "}" else None
    run = _TEXT_RUN.match(text, i)
    top.text.append(run.group())
    return run.end()


def skeleton(text: str) -> list[str] | None:
    """Every ICU message of a text as its structure (branches' texts left out, `#` and simple arguments
    kept), in order; None if one of them does not read."""
    found, at = [], 0
    while m := START.search(text, at):
        parts: list[tuple[str, ...]] = []
        got = _read(text, m.start(), lambda p: parts.append(p) or f"\0{len(parts) - 1}\0", [0])
        if got is None:
            return None
        found.append(_structure(parts, len(parts) - 1))
        at = got[0]
    return found


def _structure(parts: list[tuple[str, ...]], k: int) -> str:
    """Item k's structure written out: verbatim parts, and in its texts only what is kept (nested items)."""
    out = []
    for n, part in enumerate(parts[k]):
        kept = re.findall(r"\0(\d+)\0", part) if n % 2 else None
        out.append(part if kept is None else "|".join(_structure(parts, int(j)) for j in kept))
    return "".join(out)
