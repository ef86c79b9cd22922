"""Bidirectional marks kept (issue 38): the left-to-right and right-to-left marks (U+200E, U+200F), the Arabic
letter mark (U+061C), and the embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) that a writer of
mixed Arabic or Hebrew and Latin text puts in so that "20%", a name or a line shows in its order.

A line stage, both halves in one object, like nobreak.py's: normalize drops these characters (the model never saw
one), so `strip` takes each run of them out of the raw line first, recording where it stood: at the line's start
or end (put back at the same edge of the translation), or glued to a token ("\u200fمحمد", "20\u200e%": put back
against the same token where the translation has it exactly once; a number, a name in another script, a URL come
out as they went in). A mark with no sure place is left out, and `restore` names it for the line's warning: never
dropped silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from mtcli import lazy_re
from mtcli.text.nobreak import CLOSE, OPEN  # (trimmed off a token a mark stands after, and before)

MARKS = "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_RUN = lazy_re.compile(f"[{MARKS}]+")
_TOKEN = lazy_re.compile(rf"[^\s{MARKS}]+")
_CONTENT = lazy_re.compile(rf"[^\s{MARKS}]")
PLACED = 64  # marks inside a line put back against their tokens; past these (a search of the translation each), named


@dataclass(frozen=True)
class Mark:
    written: str  # the run of marks, as the line had it
    where: str  # "lead" or "trail" (the line's edges), "before" or "after" the token
    token: str = ""


class Bidi:
    name = "bidirectional mark"

    def strip(self, line: str) -> tuple[str, list[Mark]]:
        """The line without its bidirectional marks, and where each run of them stood (in one pass)."""
        if not _RUN.search(line):
            return line, []
        first, last = _edges(line)
        marks = []
        for m in _RUN.finditer(line):
            if m.start() <= first:
                marks.append(Mark(m.group(), "lead"))
            elif m.start() > last:
                marks.append(Mark(m.group(), "trail"))
            elif line[m.end()].isspace() and not line[m.start() - 1].isspace():  # glued to the token before it only
                start = m.start()
                while start and not (line[start - 1].isspace() or line[start - 1] in MARKS):
                    start -= 1
                token = line[start : m.start()]
                marks.append(Mark(m.group(), "after", token.lstrip(OPEN) or token))
            else:  # glued to the token after it, or between spaces: with the next token
                token = _TOKEN.search(line, m.end()).group()
                marks.append(Mark(m.group(), "before", token.rstrip(CLOSE) or token))
        return _RUN.sub("", line), marks

    def restore(self, out: str, marks: list[Mark]) -> tuple[str, list[Mark]]:
        """The translation with each run of marks put back where its place is sure; the runs left out."""
        lead = "".join(m.written for m in marks if m.where == "lead")
        trail = "".join(m.written for m in marks if m.where == "trail")
        at: list[tuple[int, str]] = []
        lost = []
        for k, mark in enumerate(m for m in marks if m.where in ("before", "after")):
            if k >= PLACED:
                lost.append(mark)
            else:
                places = [m.start() if mark.where == "before" else m.end() for m in _find(out, mark.token)]
                if len(places) == 1:
                    at.append((places[0], mark.written))
                else:
                    lost.append(mark)
        for place, written in sorted(at, key=lambda p: p[0], reverse=True):
            out = out[:place] + written + out[place:]
        body = out.strip()
        start = out.index(body) if body else len(out)
        return out[:start] + lead + body + trail + out[start + len(body) :], lost


def _edges(line: str) -> tuple[int, int]:
    """Where the line's first and last characters that are neither a space nor a mark stand (-1, -1: none)."""
    found = _CONTENT.search(line)
    if not found:
        return -1, -1
    last = len(line) - 1
    while line[last].isspace() or line[last] in MARKS:
        last -= 1
    return found.start(), last


def _find(text: str, token: str) -> list[re.Match]:
    """The token's whole occurrences in the text (not inside a longer word)."""
    left = r"(?<!\w)" if token[:1].isalnum() else ""
    right = r"(?!\w)" if token[-1:].isalnum() else ""
    return list(re.finditer(left + re.escape(token) + right, text)) if token else []


def named(marks: list[Mark]) -> str:
    """The marks for a warning: their code points ("U+200F")."""
    return ", ".join(dict.fromkeys(f"U+{ord(c):04X}" for mark in marks for c in mark.written))
