"""XML elements of mixed content (an OpenDocument paragraph, an XLIFF source) as a unit's text and back: the
inline elements that wrap text to translate (a span, a link, <g>, <pc>) are items around their words, the
others (a footnote, an image, a field, <x/>, <ph>) items kept as they are; the translation's tokens are built
back into the element with the same inline elements (the originals, moved; a copy for a second use)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass

from mtcli.text.formats.units import Units


@dataclass
class Pair:
    """Two empty elements that mark where a stretch of text starts and ends (ODF's tracked insertion, bookmark):
    markup around the words between them, as a span is."""

    start: object
    end: object


def read(element, units: Units, paired: Callable[[object], bool], inline: list,
         as_text: Callable[[object], str | None] = lambda child: None,
         placed: Callable[[object], str | tuple | None] = lambda child: None) -> str:
    """element's text with its children as items (appended to `inline`, their keys the index there);
    `paired(child)`: the child wraps text to translate; `as_text(child)`: the text that stands for a child
    that is no more than that (ODF's <text:s/>, spaces: an item between two sentences misled the model),
    which the translation's own text replaces; `placed(child)`: "cut" for a child kept that parts the text
    (a line break), "aside" for one kept out of the sentence (a tracked deletion's place; units.py), ("start",
    name) and ("end", name) for the two of a Pair (their siblings between them its words; one without the other
    is set aside)."""
    children = list(element)
    roles = [placed(child) if isinstance(child.tag, str) else None for child in children]
    ends, open_ = {}, {}  # a Pair's start -> its end, by index among the children
    for k, role in enumerate(roles):
        if isinstance(role, tuple):
            if role[0] == "start":
                open_[role[1]] = k
            elif role[1] in open_:
                ends[open_.pop(role[1])] = k

    def run(lead: str, first: int, stop: int) -> str:
        out, k = [lead], first
        while k < stop:
            child, role = children[k], roles[k]
            if (text := as_text(child)) is not None:
                out.append(text + (child.tail or ""))
                k += 1
                continue
            key = len(inline)
            if k in ends:
                inline.append(Pair(child, children[ends[k]]))
                out += [units.wrap(key, run(child.tail or "", k + 1, ends[k])), children[ends[k]].tail or ""]
                k = ends[k] + 1
                continue
            inline.append(child)
            if isinstance(child.tag, str) and paired(child):
                out.append(units.wrap(key, read(child, units, paired, inline, as_text, placed)))
            else:
                out.append(units.cut(key) if role == "cut" else units.aside(key) if role is not None
                           else units.keep(key, label(child)))
            out.append(child.tail or "")
            k += 1
        return "".join(out)

    return run(element.text or "", 0, len(children))


def label(element) -> str:
    """An element kept as it is, in a warning: its text (a field's value), else its name ("<x>")."""
    from lxml import etree

    if not isinstance(element.tag, str):  # (a comment, a processing instruction)
        return "<!-- -->" if isinstance(element, etree._Comment) else "<? ?>"
    text = " ".join("".join(element.itertext()).split())
    return text[:60] or f"<{etree.QName(element).localname}>"


def write(element, tokens: list[tuple[str, str]], inline: list, paired: Callable[[object], bool]) -> None:
    """element's content made of the tokens (its attributes and tail stay). An element kept as it is that
    the translation lost (a footnote, an image) is put back at the end: only words may be lost."""
    for child in list(element):
        element.remove(child)
    element.text = None
    stack, used = [element], set()  # (a Pair on the stack: its words go into the element holding it)

    def holder():
        return next(x for x in reversed(stack) if not isinstance(x, Pair))

    def place(key: str, whole: bool):
        k = int(key)
        if not 0 <= k < len(inline):
            return None
        node = copy.deepcopy(inline[k]) if k in used else inline[k]
        used.add(k)
        if isinstance(node, Pair):
            node.start.tail = None
            holder().append(node.start)
            return node
        if not whole:  # a wrapping element: its content comes from the tokens
            for child in list(node):
                node.remove(child)
            node.text = None
        node.tail = None
        holder().append(node)
        return node

    for kind, value in tokens:
        if kind == "text":
            top = holder()
            if len(top):
                top[-1].tail = (top[-1].tail or "") + value
            else:
                top.text = (top.text or "") + value
        elif kind == "open":
            node = place(value, whole=False)
            if node is not None:
                stack.append(node)
        elif kind == "close":
            if len(stack) > 1 and isinstance(node := stack.pop(), Pair):
                node.end.tail = None
                holder().append(node.end)
        else:
            place(value, whole=True)
    for k, node in enumerate(inline):
        if k in used or not isinstance(node, Pair) and isinstance(node.tag, str) and paired(node):
            continue
        for e in (node.start, node.end) if isinstance(node, Pair) else (node,):
            e.tail = None
            element.append(e)
