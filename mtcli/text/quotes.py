"""Quotations and asides in brackets made markup items of their own: their words translated apart, inside
their marks (asides), in the characters of the private-use planes no line has (Items)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from mtcli.text.kinds import PRIVATE, PRIVATE_RANGES
from mtcli.text.tables import TABLES
from mtcli import lazy_re

# an aside in brackets inside a sentence: after a space (or first), before a space, a stop or the end; with a
# letter in it (not "f(x)", "friend(s)", "wiki/Foo_(bar)", "[text](url)", "(1)")
_ASIDE = lazy_re.compile(r"(?<![^\s\"'])(?:\(([^()]*[^\W\d_][^()]*)\)|\[([^\[\]]*[^\W\d_][^\[\]]*)\])(?=[\s.,;:!?\"']|$)")
# a quotation: after a space, a bracket or first, before a space, a stop, a bracket or the end, with no space
# inside either mark; a single quote's words may hold apostrophes ('I don't know.'), not its edges ("dogs'")
_QUOTE = lazy_re.compile(r"(?<![^\s(\[])(?:\"(?=\S)([^\"]+)(?<=\S)\"|«(?=\S)([^«»]+)(?<=\S)»"
                         r"|'(?=\S)((?:[^']|(?<=\w)'(?=\w))+)(?<=\S)')(?=[\s.,;:!?…)\]]|$)")
QUOTE_MARKS = "\"'«"
_TWO_LETTERS = lazy_re.compile(r"[^\W\d_]{2}")
# single quotes that are apostrophes: a word's ("'em", "'cause", "'90s") or a plural's ("the kids' room")
_ELIDED = lazy_re.compile(r"'(?:em|cause|cos|coz|til|tis|twas|n|bout|round|\d)\b", re.IGNORECASE)
_POSSESSIVE = lazy_re.compile(r" [^\W\d_]")  # after "s'"
# a quotation in double quotes or guillemets, as typed (langid reads raw text: typographic ones too)
_QUOTED = lazy_re.compile(r'"[^"\n]*"|«[^«»\n]*»|“[^“”\n]*”')
_WORDS = lazy_re.compile(r"[^\W\d_]{2,}")
_MARK_AFTER = lazy_re.compile(r"(?<=\S)([»\"])([,;:])(?= )")  # a Spanish clause's mark after its closing quote


def unquoted(text: str) -> str:
    """The text without its quotations where two words or more are left: the language it is written in is its own
    words' ('My favorite book is "Cien años de soledad".' was told Spanish, 'Mi jefe dijo: "Do it now."' English)."""
    if '"' not in text and "«" not in text and "“" not in text:
        return text
    rest = _QUOTED.sub(" ", text)
    return rest if len(_WORDS.findall(rest)) >= 2 else text


class Items(dict):
    """Markup characters -> their parts (the format readers', formats/, taken from the bottom of the private-use ranges up),
    and the quotations and asides made here, from the top of plane 16 down: never a character the text
    has itself (an icon font's glyph), nor one past the ranges (then the quotation stays as it is)."""

    def __init__(self, items: dict[str, tuple[str, ...]], lines: Sequence[str]):
        super().__init__(items)
        self.own = set(PRIVATE.findall("".join(lines))) - set(items)
        self.next = PRIVATE_RANGES[2][-1]
        # those standing for a template's placeholder or ICU message (templates.py): a word of the sentence to
        # the model (a number's placeholder), never markup set aside at its edge or wrapped around words
        self.words: set[str] = set()

    def new(self, parts: tuple[str, ...]) -> str | None:
        plane15, plane16 = PRIVATE_RANGES[1:]
        while self.next >= plane15.start:  # (from plane 16 on to the top of plane 15's: U+FFFFE, U+FFFFF no)
            c, self.next = chr(self.next), self.next - 1 if self.next != plane16.start else plane15[-1]
            if c not in self and c not in self.own:
                self[c] = parts
                return c
        return None


def asides(sentence: str, items: Items, quotes: bool = True, source: str = "en",
           target: Callable[[str], bool] | None = None) -> str:
    """Each quotation and each aside in brackets made an item (its text translated on its own, inside its
    marks). The vocabulary has no brackets, and the model garbled the sentence around them ("The meeting
    (on Monday) was long." -> "La reunión se asha de ( El lunes no fue largo de ) años."). Quotes it has
    seen in 290 pairs of 118,964: it dropped a closing one ('"I love cats."' -> '"Me encantan los
    gatos.'), a reply ('"Tom likes Mary." "Yeah, I know."' -> '"¿A quién le gusta Mary?" "Sí."') or a
    quoted word ('He answered with a "no."' -> '... con "hay".'). A sentence that is all one aside in
    brackets ("(Really?)") stays as it is; a quotation is an item even then. Not `quotes` in a line with
    markup around words: the markup is put back on the words of the line's translation. A Spanish source's
    quotation comes out in English's marks, a clause's comma inside them ('«Hola», dijo.' -> '"Hi," he said.': its
    comma left outside went to the model alone, "Mary said shello"). A quotation `target` says is in the target
    language already (already.in_target: a title, a saying) is kept as it came, its marks the target's."""
    def quotation(m: re.Match) -> str:
        words = m.group()[1:-1].rstrip(",;:")  # a clause's comma stays out of the translation, and goes after
        if words in items.words and len(items[words]) == 1:  # a placeholder alone (no ICU message): one word to
            # the model, its marks put back with it (they dropped or moved: 'delete "{item}"?' -> 'del amor?" {item}');
            # a Spanish source's in English's
            mark, close = ('"', '"') if source == "es" and m.group()[0] == "«" else (m.group()[0], m.group()[-1])
            quoted = items.new((mark + items[words][0] + close + m.group()[len(words) + 1 : -1],))
            return items.words.add(quoted) or quoted if quoted else m.group()
        if (not _TWO_LETTERS.search(words) or PRIVATE.search(words)  # (markup inside stays with its words)
                or m.group()[0] == "'" and (_ELIDED.match(m.group()) or m.group().endswith("s'")
                                            and _POSSESSIVE.match(sentence, m.end()))):
            return m.group()
        marks = m.group()[1 + len(words) : -1]
        if target is not None and target(words):  # (one part: kept, a span to the model)
            opening = '"' if source == "es" and m.group()[0] == "«" else m.group()[0]
            kept = opening + words + (marks + opening if source == "es" else m.group()[-1] + marks)
            return items.new((kept,)) or m.group()
        if source == "es":
            opening = '"' if m.group()[0] == "«" else m.group()[0]
            return items.new((opening, words, marks + opening)) or m.group()
        return items.new((m.group()[0], words, m.group()[-1] + marks)) or m.group()

    spans: list[tuple[int, int]] = []  # (the kinds' spans, found at the first aside)

    def aside(m: re.Match) -> str:
        if m.start() == 0 and not sentence[m.end():].strip(".,;:!?\"' "):
            return m.group()
        spans.extend([] if spans else [k.span() for k in TABLES[source].span.finditer(sentence)] or [(-1, -1)])
        # a bracket of a span is no aside's: "[2001:db8::1]:8080", "[^note]", ":'( the :-)" (two emoticons)
        if any(a <= m.start() < b or a < m.end() <= b for a, b in spans):
            return m.group()
        return items.new((m.group()[0], m.group()[1:-1], m.group()[-1])) or m.group()

    if quotes and ('"' in sentence or "'" in sentence or "«" in sentence):
        sentence = _QUOTE.sub(quotation, _MARK_AFTER.sub(r"\2\1", sentence) if source == "es" else sentence)
    return _ASIDE.sub(aside, sentence) if "(" in sentence or "[" in sentence else sentence
