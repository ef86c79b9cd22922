"""No-break spaces kept where their place in the translation is known for sure (issue 38): U+00A0, the narrow
U+202F and the figure space U+2007, and in a page HTML's entity for one (`&nbsp;`, `&#160;`: an item of the page,
formats/html.py).

A line stage, both halves in one object: normalize turns every space of the line into a plain one before the
sentences are read (the model was trained on plain spaces), so `strip` takes the no-break spaces out of the raw
line first, recording the token on each side, and `restore` puts each back into the line's translation where
the same two tokens still stand side by side, once in the line and once in the translation ("5\u00a0euros" ->
"5\u00a0euros", "10\u00a0%" -> "10\u00a0%", which the model is given as "10%"), or where the translation has the
same name after a title ("Mr.\u00a0Smith" -> "Sr.\u00a0Smith"). Any other no-break space comes out a plain space:
in a reordered translation its place is not known, and words are never moved to make one. Kept instead as an item
glued to its words, `&nbsp;` had left "am&nbsp;here" untranslated and lost "gap" in "The &nbsp; gap.".
Put back as the source wrote it: the character, or the entity as the page spelt it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass

from mtcli.text.kinds import PRIVATE
from mtcli.text.normalize import normalize
from mtcli import lazy_re

NO_BREAK = "\u00a0\u202f\u2007"
OPEN = "([{\"'¿¡«"  # trimmed off a token's start, and what may stand before it in the translation
CLOSE = ".,;:!?)]}\"'»"  # trimmed off its end
_GLUE = ".,;:!?%)]}»"  # normalize takes the space before these away ("10 %" -> "10%")
_TITLE = lazy_re.compile(r"[A-Z][a-z]{0,3}\.")  # "Mr.", "Mrs.", "Dr.", "Sr.", "Sra."
_NAME = lazy_re.compile(r"[A-Z][^\W\d_]*")


@dataclass(frozen=True)
class Gap:
    left: str  # the token before it, its opening marks trimmed
    right: str  # the token after it, its closing marks trimmed
    written: str  # the no-break spaces as the source wrote them (characters or entities), in order
    glued: bool  # the model is given the two tokens without a space between ("10%")
    sure: bool  # the two tokens stand side by side once in the line (or, after a title, the name is there once)


class NoBreak:
    name = "no-break space"

    def strip(self, line: str, items: Mapping[str, tuple[str, ...]]) -> tuple[str, list[Gap]]:
        """The line with each run of spaces holding a no-break one made a plain space; what restore needs."""
        marks = NO_BREAK + "".join(c for c in set(PRIVATE.findall(line)) if _entity(items.get(c)))
        if not any(c in line for c in marks):
            return line, []
        out, last, found = [], 0, []
        for m in re.finditer(rf"[ \t]*(?:[{marks}][ \t]*)+", line):
            left, right = _before(line, m.start(), marks), _after(line, m.end(), marks)
            if left and right:  # (one at the line's edge is left to normalize, which drops it)
                written = "".join(c if c in NO_BREAK else items[c][0] for c in m.group() if c in marks)
                found.append((left, right, written))
                out += [line[last : m.start()], " "]
                last = m.end()
        plain = "".join(out) + line[last:]
        pairs, names = _index(plain)
        gaps = []
        for left, right, written in found:
            title = _TITLE.fullmatch(left) and _NAME.fullmatch(right)
            sure = len(pairs.get((left, right), ())) == 1 and (not title or len(names.get(right, ())) == 1)
            # the tokens as the model is given them, and so writes them ("−5" is "-5": normalize.py's table)
            left, right = normalize(left).lstrip(OPEN), normalize(right).rstrip(CLOSE)
            glued = normalize(f"{left} {right}") == left + right
            gaps.append(Gap(left, right, written, glued, bool(sure)))
        return plain, gaps

    def restore(self, out: str, gaps: list[Gap]) -> str:
        """The translation with each no-break space whose place is sure put back; the others stay plain spaces."""
        if not any(gap.sure for gap in gaps):
            return out
        pairs, names = _index(out)
        at: dict[int, tuple[int, str]] = {}  # where each goes: start -> (end, written)
        for gap in filter(lambda gap: gap.sure, gaps):
            # (one plain space between them, or nothing where normalize glued them)
            places = [(a, b) for a, b in pairs.get((gap.left, gap.right), ()) if out[a:b] == " " or a == b and gap.glued]
            if len(places) == 1:
                at[places[0][0]] = (places[0][1], gap.written)
            elif _TITLE.fullmatch(gap.left) and len(named := names.get(gap.right, ())) == 1:
                before, (start, end) = named[0]  # ("Sr. Smith": Spanish's title before the same name)
                if _TITLE.fullmatch(before) and out[start:end] == " ":
                    at[start] = (end, gap.written)
        for start in sorted(at, reverse=True):
            end, written = at[start]
            out = out[:start] + written + out[end:]
        return out


def _index(text: str) -> tuple[dict, dict]:
    """Where the text's tokens stand, in one pass: (token, next token) -> the spans of whitespace between them, or
    of nothing inside a token where normalize glued a closing mark on ("10%": ("10", "%")); a token -> the token
    before it and the whitespace between. Tokens as strip reads them: opening marks trimmed off the first of a
    pair, closing marks off the second."""
    pairs: dict[tuple[str, str], list[tuple[int, int]]] = {}
    names: dict[str, list[tuple[str, tuple[int, int]]]] = {}
    previous, end = "", 0
    for m in re.finditer(r"\S+", text):
        token = m.group()
        core = token.lstrip(OPEN)
        opened = m.start() + len(token) - len(core)
        for k in range(1, len(core)):
            if core[k] in _GLUE:
                pairs.setdefault((core[:k], core[k:].rstrip(CLOSE)), []).append((opened + k, opened + k))
        if previous:
            pairs.setdefault((previous, token.rstrip(CLOSE)), []).append((end, m.start()))
        names.setdefault(token.rstrip(CLOSE), []).append((previous, (end, m.start())))
        previous, end = core, m.end()
    return pairs, names


def as_written(line: str, items: Mapping[str, tuple[str, ...]]) -> str:
    """The line with each item standing for a no-break space's entity written as the page had it (a line kept as
    it came: none of its items is rendered)."""
    return PRIVATE.sub(lambda m: items[m.group()][0] if _entity(items.get(m.group())) else m.group(), line)


def _entity(parts: tuple[str, ...] | None) -> bool:
    """An item standing for an HTML entity that writes a no-break space."""
    return parts is not None and len(parts) == 1 and parts[0].startswith("&") and html.unescape(parts[0]) in NO_BREAK


def _before(text: str, at: int, marks: str = "") -> str:
    """The token that ends at `at`: back to a space (or a no-break space's item), its opening marks trimmed."""
    start = at
    while start and not text[start - 1].isspace() and text[start - 1] not in marks:
        start -= 1
    return text[start:at].lstrip(OPEN)


def _after(text: str, at: int, marks: str = "") -> str:
    end = at
    while end < len(text) and not text[end].isspace() and text[end] not in marks:
        end += 1
    return text[at:end].rstrip(CLOSE)
