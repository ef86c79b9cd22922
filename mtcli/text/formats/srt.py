"""SRT and WebVTT subtitles: each cue's text a block (a dialogue's or a speaker's lines one by one), its
numbers, timings, settings and tags kept; a WebVTT file's header, notes, styles and regions kept whole."""

from __future__ import annotations

import re

from mtcli.errors import UserError
from mtcli.text.formats.prose import Prose
from mtcli import lazy_re

# a cue's timing, as the srt parser reads it ("0:0:1,000 --> 0:0:2,000", "00:00:01.000 - > ..." too)
_TIMESTAMP = r"[0-9]+[,.:，．。：][0-9]+[,.:，．。：][0-9]+[,.:，．。：]?[0-9]*"
_TIMECODE = lazy_re.compile(rf"^\s*{_TIMESTAMP} *-[ -] *> *{_TIMESTAMP}")
# <i>text</i>, WebVTT's <v Bob>text</v> and <c.loud>text</c>: the text translated
_SRT_PAIR = lazy_re.compile(r"(<(i|b|u|font|sub|sup|v|c|lang)\b[^>]*>)(.*?)(</\2>)", re.IGNORECASE)
_SRT_TAG = lazy_re.compile(r"<[^>]*>|\{[^}]*\}")  # any other tag, {\an8}
# a speaker's line: "- Hello.", "<i>- Hi!", "TOM: Where were you?", "MARY JANE: ..."
_SPEAKER = lazy_re.compile(r"\s*(?:<[^>]*>|\{[^}]*\})*(?:[-‐‑–—](?!\d)|[A-Z][A-Z0-9 .'-]{0,30}(?<=[A-Z0-9.]):(?=\s))\s*")
_SRT_BRACKETS = lazy_re.compile(r"(\[)([^\[\]]+)(\])|(\()([^()]+)(\))")


def read(doc: Prose) -> None:
    import srt

    source = "\n".join(doc.lines)
    try:
        cues = list(srt.parse(source))
    except srt.SRTParseError as e:
        at = getattr(e, "expected_start", None)
        if at is None:
            raise UserError(f"not an SRT file: {' '.join(str(e).split())[:200]}") from None
        line = source.count("\n", 0, at) + 1 + _blank_lines(source, at)
        bad = " / ".join(source[at:].strip().split("\n")[:3])[:120]
        raise UserError(f"not an SRT file: line {line}: expected a cue (number, 'HH:MM:SS,mmm --> HH:MM:SS,mmm', "
                        f"text), found {bad!r}") from None
    k, n = 0, len(doc.lines)
    for cue in cues:
        while k < n and not _TIMECODE.match(doc.lines[k]):
            k += 1
        k += 1
        content = [] if not cue.content.strip() else cue.content.split("\n")
        rows = list(range(k, min(k + len(content), n)))
        k += len(content)
        # a cue the parser ran on into the next one's timing (no blank line between them): its text ends there
        _cue(doc, rows[: next((j for j, row in enumerate(rows) if "-->" in doc.lines[row]), len(rows))])


def read_vtt(doc: Prose) -> None:
    """A WebVTT file: blocks parted by blank lines; a cue's text is the lines after its timing line (which may
    follow an identifier). The header ("WEBVTT ..."), NOTE, STYLE and REGION blocks and cue settings
    ("align:start") are kept: read as plain text, they had been translated ("align es de las .")."""
    if not doc.lines or not _VTT_HEADER.match(doc.lines[0].lstrip("\ufeff")):
        raise UserError("not a WebVTT file: line 1: expected 'WEBVTT'")
    k, n = 0, len(doc.lines)
    while k < n:
        end = next((j for j in range(k, n) if not doc.lines[j].strip()), n)
        timing = next((j for j in range(k, min(k + 2, end)) if "-->" in doc.lines[j]), None)
        if k and timing is not None and not doc.lines[k].startswith(("NOTE", "STYLE", "REGION")):
            _cue(doc, list(range(timing + 1, end)))
        k = end + 1


_VTT_HEADER = lazy_re.compile(r"WEBVTT(?:$|[ \t])")


def _cue(doc: Prose, rows: list[int]) -> None:
    """A cue's text lines (their numbers) as blocks: the whole cue, or line by line in a dialogue."""
    # a dialogue ("- Hello." / "- Hi, Tom!") or a speaker's label ("TOM: Where were you?"): the dash or
    # the label stays, and the lines of a cue that has one are translated one by one
    marks = [_SPEAKER.match(doc.lines[row]) for row in rows]
    starts = {row: m.end() if m else 0 for row, m in zip(rows, marks)}
    for group in [[row] for row in rows] if any(marks) else [rows]:
        slots = [(row, starts[row], len(doc.lines[row])) for row in group]
        text = " ".join(doc.lines[row][starts[row]:] for row in group)
        # a sound or a speaker in brackets ("[DOOR SLAMS]", "(sighs)"): its text translated inside them
        text = _SRT_BRACKETS.sub(lambda m: doc.item(*(m.groups()[:3] if m.group(1) else m.groups()[3:])), text)
        text = _SRT_PAIR.sub(lambda m: doc.item(m.group(1), m.group(3), m.group(4)), text)
        doc.add(slots, _SRT_TAG.sub(lambda m: doc.item(m.group()), text))


def _blank_lines(source: str, at: int) -> int:
    """Lines between `at` and the first thing on them (srt reports a bad cue at the blank line before it)."""
    rest = source[at:]
    return rest[: len(rest) - len(rest.lstrip())].count("\n")
