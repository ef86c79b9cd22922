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
    k, n, texts = 0, len(doc.lines), []
    for cue in cues:
        while k < n and not _TIMECODE.match(doc.lines[k]):
            k += 1
        k += 1
        content = [] if not cue.content.strip() else cue.content.split("\n")
        rows = list(range(k, min(k + len(content), n)))
        k += len(content)
        # a cue the parser ran on into the next one's timing (no blank line between them): its text ends there
        texts.append(rows[: next((j for j, row in enumerate(rows) if "-->" in doc.lines[row]), len(rows))])
    _cues(doc, texts)


def read_vtt(doc: Prose) -> None:
    """A WebVTT file: blocks parted by blank lines; a cue's text is the lines after its timing line (which may
    follow an identifier). The header ("WEBVTT ..."), NOTE, STYLE and REGION blocks and cue settings
    ("align:start") are kept: read as plain text, they had been translated ("align es de las .")."""
    if not doc.lines or not _VTT_HEADER.match(doc.lines[0].lstrip("\ufeff")):
        raise UserError("not a WebVTT file: line 1: expected 'WEBVTT'")
    k, n, texts = 0, len(doc.lines), []
    while k < n:
        end = next((j for j in range(k, n) if not doc.lines[j].strip()), n)
        timing = next((j for j in range(k, min(k + 2, end)) if "-->" in doc.lines[j]), None)
        if k and timing is not None and not doc.lines[k].startswith(("NOTE", "STYLE", "REGION")):
            texts.append(list(range(timing + 1, end)))
        k = end + 1
    _cues(doc, texts)


_VTT_HEADER = lazy_re.compile(r"WEBVTT(?:$|[ \t])")


# a sentence runs on into the next cue when its cue ends with no stop (a word, a comma) and the next one goes on in
# lower case, or the cue ends with a comma: "I never said" / "that she stole the money." had been translated cue by
# cue, "Nunca dije" / "Eso le robó el dinero." ("she" lost). The cues of such a sentence are one block, the
# translation shared out over their lines by length (formats.spread): the cues and their timings stay
_RUNS_ON = lazy_re.compile(r"[^\W_]\Z")
_GOES_ON = lazy_re.compile(r"[^\w\s]*[a-zà-ÿ]")
MAX_CUES_JOINED = 4  # a sentence over more cues is rare; captions with no stops at all are not made one text


def _cues(doc: Prose, cues: list[list[int]]) -> None:
    """The cues' text lines (their numbers, cue by cue) as blocks: a cue whole, a dialogue's lines one by one, and
    the cues of a sentence that runs over several as one block."""
    run: list = []  # the cues of the sentence being read: (slots, text) each

    def flush():
        if run:
            doc.add([slot for slots, _ in run for slot in slots], " ".join(text for _, text in run))
            run.clear()

    for rows in cues:
        blocks = _cue(doc, rows)
        if run and len(blocks) == 1 and len(run) < MAX_CUES_JOINED and _continues(doc, run[-1][0], blocks[0][0]):
            run.append(blocks[0])
            continue
        flush()
        if len(blocks) == 1:
            run.append(blocks[0])
        else:
            for slots, text in blocks:
                doc.add(slots, text)
    flush()


def _continues(doc: Prose, before: list[tuple[int, int, int]], after: list[tuple[int, int, int]]) -> bool:
    """The sentence of a cue's lines (`before`'s slots) goes on in the next cue's (`after`'s)."""
    end = _SRT_TAG.sub("", doc.lines[before[-1][0]]).rstrip()
    start = _SRT_TAG.sub("", doc.lines[after[0][0]]).lstrip()
    return end.endswith(",") or bool(_RUNS_ON.search(end) and _GOES_ON.match(start))


def _cue(doc: Prose, rows: list[int]) -> list[tuple[list[tuple[int, int, int]], str]]:
    """A cue's text lines (their numbers) as blocks (slots, text): the whole cue, or line by line in a dialogue."""
    # a dialogue ("- Hello." / "- Hi, Tom!") or a speaker's label ("TOM: Where were you?"): the dash or
    # the label stays, and the lines of a cue that has one are translated one by one
    marks = [_SPEAKER.match(doc.lines[row]) for row in rows]
    starts = {row: m.end() if m else _lead(doc.lines[row]) for row, m in zip(rows, marks)}
    blocks = []
    for group in [[row] for row in rows] if any(marks) else [rows]:
        slots = [(row, starts[row], len(doc.lines[row])) for row in group]
        text = " ".join(doc.lines[row][starts[row]:] for row in group)
        # a sound or a speaker in brackets ("[DOOR SLAMS]", "(sighs)"): its text translated inside them
        text = _SRT_BRACKETS.sub(lambda m: doc.item(*(m.groups()[:3] if m.group(1) else m.groups()[3:])), text)
        text = _SRT_PAIR.sub(lambda m: doc.item(m.group(1), m.group(3), m.group(4)), text)
        text = _SRT_TAG.sub(lambda m: doc.item(m.group()), text)
        if text.strip():
            blocks.append((slots, text))
    return blocks


_TAG_AT = lazy_re.compile(r"\s*(<[^>]*>|\{[^}]*\})\s*")


def _lead(line: str) -> int:
    """Where a line's text starts after the tags that open it and wrap nothing (WebVTT's "<v Ana>" without its
    end, "{\\an8}"): they stay at the line's start (the model had moved them, "<v Ana>" of a sentence's second cue
    into the first)."""
    at = 0
    while (m := _TAG_AT.match(line, at)) and not _SRT_PAIR.match(line, m.start(1)):
        at = m.end()
    return at


def _blank_lines(source: str, at: int) -> int:
    """Lines between `at` and the first thing on them (srt reports a bad cue at the blank line before it)."""
    rest = source[at:]
    return rest[: len(rest) - len(rest.lstrip())].count("\n")
