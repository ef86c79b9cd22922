"""Documents whose structure must come out as it went in: plain text, SRT subtitles, Markdown, HTML.

Each format finds the prose of a document as blocks (a paragraph, a cue, a table cell, the text of an HTML
element), each block one or more slots (character ranges of lines). Markup inside a block becomes a
private-use character standing for an item: verbatim parts and, at odd positions, text to translate
("[", "the guide", "](http://x)"), so a link or an emphasis travels through the sentence as one span. A
block is translated as one text, then spread over its slots in proportion to their lengths: every line
of the document stays a line, and only prose changes.
"""

from __future__ import annotations

import bisect
import html
import re
from dataclasses import dataclass, field, replace
from html.parser import HTMLParser
from pathlib import Path

from mtcli.errors import UserError
from mtcli.text.pipeline import Engine, LineResult, TextOptions, translate_lines
from mtcli.text.kinds import FOOTNOTE_REF, MARKDOWN_CODE, PRIVATE, PRIVATE_RANGES, SCRIPT_CLOSE, SCRIPT_TAG

FORMATS = ("text", "srt", "markdown", "html")
EXTENSIONS = {".srt": "srt", ".md": "markdown", ".markdown": "markdown", ".html": "html", ".htm": "html"}
MAX_ITEMS = sum(map(len, PRIVATE_RANGES))


def format_for(path: str | Path | None) -> str:
    """The format a file name suggests (text when none does)."""
    return EXTENSIONS.get(Path(path).suffix.lower(), "text") if path else "text"


@dataclass
class _Doc:
    lines: list[str]
    blocks: list[list[tuple[int, int, int]]] = field(default_factory=list)  # slots: (line, start, end)
    texts: list[str] = field(default_factory=list)  # each block's text to translate
    items: dict[str, tuple[str, ...]] = field(default_factory=dict)
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (line, why) of prose left as it is

    def __post_init__(self):
        self.own = set(PRIVATE.findall("\n".join(self.lines)))  # the document's own (an icon font's glyphs)
        self.next = 0  # index of the next markup character to try

    def item(self, *parts: str) -> str:
        """A private-use character standing for markup: never one the document has itself, which
        stays in its text as it is (the pipeline keeps such characters as it keeps emoji)."""
        while True:
            k = self.next
            if k >= MAX_ITEMS:
                raise UserError(f"too much markup in one document (over {MAX_ITEMS:,} tags, links and marks)")
            self.next += 1
            for codes in PRIVATE_RANGES:
                if k < len(codes):
                    break
                k -= len(codes)
            c = chr(codes[k])
            if c not in self.own:
                self.items[c] = parts
                return c

    def add(self, slots: list[tuple[int, int, int]], text: str) -> None:
        if text.strip():
            self.blocks.append(slots)
            self.texts.append(text)


def translate_document(lines: list[str], fmt: str, engine: Engine,
                       options: TextOptions = TextOptions()) -> tuple[list[str], list[LineResult]]:
    """The document's lines with their prose translated (as many lines as came in), and a LineResult
    per block (numbered by its first line) with what was split, kept and warned."""
    # a heading or a cell has no final stop, and gets none
    options = replace(options, keep_stop=False)
    attribute_results = []
    if fmt == "html":  # the text of alt, title, ... attributes first: the tags then travel as they are
        lines, attribute_results = _translate_attributes(list(lines), engine, options)
    if fmt == "markdown":  # (markdown-it ends a line at a CR alone, which ends none here: its line numbers would run on)
        lines = [line.replace("\r", " ") for line in lines]
    doc = _Doc(list(lines))
    {"srt": _srt, "markdown": _markdown, "html": _html}[fmt](doc)
    rendered: dict[str, str] = {}
    results = translate_lines(doc.texts, engine, options, items=doc.items, rendered=rendered) if doc.texts else []
    for slots, r in zip(doc.blocks, results):
        r.line = slots[0][0] + 1  # a block is numbered by its first line
    results += [LineResult(line + 1, [("", 0.0)], warnings=[why]) for line, why in doc.skipped]
    out = list(doc.lines)
    # slots of a line are replaced right to left, so earlier offsets stay valid
    edits: dict[int, list[tuple[int, int, str]]] = {}
    for slots, r in zip(doc.blocks, results[: len(doc.blocks)]):
        weights = [e - s for _, s, e in slots]
        chunks = [_expand(chunk, rendered) for chunk in spread(r.text, weights)]
        if not all(chunks):  # markup holds most of the words ("<i>two lines</i>"): cut inside it too
            chunks = spread(_expand(r.text, rendered), weights, _MARKUP_WORD)
        for (line, s, e), chunk in zip(slots, chunks):
            edits.setdefault(line, []).append((s, e, chunk))
    for line, changes in edits.items():
        text = out[line]
        for s, e, new in sorted(changes, reverse=True):
            text = text[:s] + new + text[e:]
        out[line] = text
    return out, results + attribute_results


def _expand(text: str, rendered: dict[str, str]) -> str:
    return PRIVATE.sub(lambda m: rendered.get(m.group(), m.group()), text)


# a word of expanded markup: never cut inside a tag, a link target or a code span
_MARKUP_WORD = re.compile(r"(?:<[^<>]*>|\]\([^)]*\)|(`+).*?\1|\S)+")


def spread(text: str, weights: list[int], word: re.Pattern | None = None) -> list[str]:
    """`text` cut at spaces into len(weights) chunks whose lengths follow the weights (a cue's two
    lines, a wrapped paragraph's lines); no chunk empty while there are words for it. `word`: what
    counts as one word (default: what lies between spaces)."""
    if len(weights) == 1:
        return [text]
    words = [m.group() for m in word.finditer(text)] if word else text.split(" ")
    total, want = sum(weights) or 1, []
    acc = 0
    for w in weights[:-1]:
        acc += w
        want.append(acc / total * len(text))
    chunks, current, pos = [], [], 0
    left = len(weights)
    for k, word in enumerate(words):
        room = len(words) - k  # words still to place, this one included
        if current and left > 1 and (pos >= want[len(chunks)] or room < left):
            chunks.append(" ".join(current))
            current, left = [], left - 1
        current.append(word)
        pos += len(word) + 1
    chunks.append(" ".join(current))
    return chunks + [""] * (len(weights) - len(chunks))


# --- SRT ----------------------------------------------------------------------------------------

# a cue's timing, as the srt parser reads it ("0:0:1,000 --> 0:0:2,000", "00:00:01.000 - > ..." too)
_TIMESTAMP = r"[0-9]+[,.:，．。：][0-9]+[,.:，．。：][0-9]+[,.:，．。：]?[0-9]*"
_TIMECODE = re.compile(rf"^\s*{_TIMESTAMP} *-[ -] *> *{_TIMESTAMP}")
_SRT_PAIR = re.compile(r"(<(i|b|u|font|sub|sup)\b[^>]*>)(.*?)(</\2>)", re.IGNORECASE)  # <i>text</i>: text translated
_SRT_TAG = re.compile(r"<[^>]*>|\{[^}]*\}")  # any other tag, {\an8}
# a speaker's line: "- Hello.", "<i>- Hi!", "TOM: Where were you?", "MARY JANE: ..."
_SPEAKER = re.compile(r"\s*(?:<[^>]*>|\{[^}]*\})*(?:[-‐‑–—](?!\d)|[A-Z][A-Z0-9 .'-]{0,30}(?<=[A-Z0-9.]):(?=\s))\s*")
_SRT_BRACKETS = re.compile(r"(\[)([^\[\]]+)(\])|(\()([^()]+)(\))")


def _srt(doc: _Doc) -> None:
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
        rows = rows[: next((j for j, row in enumerate(rows) if "-->" in doc.lines[row]), len(rows))]
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


# --- Markdown -----------------------------------------------------------------------------------

_DELIMITER_ROW = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
# inline markup, in the order it is taken out: a code span's text is code, not prose, so it goes first (MARKDOWN_CODE)
_RAW_INLINE = re.compile(r"<(?:[a-zA-Z][a-zA-Z0-9+.-]*:[^\s<>]*|[^\s<>@]+@[^\s<>]+)>"  # autolinks
                         r"|<(code|kbd|samp|var|tt)\b[^<>]*>.*?</\1\s*>"  # inline HTML whose content is code
                         r"|</?[A-Za-z][^<>]*>"  # inline HTML tags
                         r"|&(?:#\d+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);"  # entities: &copy; &#169;
                         rf"|{FOOTNOTE_REF}"  # footnote references [^1]
                         r"|\$\$.+?\$\$|\$(?=[^\s$])[^$]*?(?<=[^\s\\$])\$(?!\d)"  # math: $x + y$, $$...$$
                         r"|\\[!-/:-@\[-`{-~]")  # backslash escapes
# kept as it is at the start of a paragraph: a footnote's definition "[^1]: ", a task's box "[ ] ", "[x] "
_PREFIX = re.compile(rf"(?:{FOOTNOTE_REF}:|\[[ xX]\])\s+")
_IMAGE = re.compile(r"(!\[)([^\]]*)(\]\([^)]*\)|\]\[[^\]]*\])")
_LINK = re.compile(r"(\[)([^\]]+)(\]\([^)]*\)|\]\[[^\]]*\])")
_EMPHASIS = re.compile(r"(\*\*|__|~~|\*|(?<!\w)_)(?=\S)(.+?)(?<=\S)(\1)(?!\w)")


# a superscript or a subscript without markup inside: three parts, as HTML's (its text translated in place, or
# kept with the word it is glued to: "H<sub>2</sub>O", "car<sup>1</sup>")
_SCRIPT_PAIR = re.compile(f"({SCRIPT_TAG})([^<>]*)({SCRIPT_CLOSE})", re.IGNORECASE)


def _inline_markdown(doc: _Doc, text: str) -> str:
    text = MARKDOWN_CODE.sub(lambda m: doc.item(m.group()), text)
    text = _SCRIPT_PAIR.sub(lambda m: doc.item(m.group(1), m.group(3), m.group(4)), text)
    text = _RAW_INLINE.sub(lambda m: doc.item(m.group()), text)
    for pattern in (_IMAGE, _LINK):  # (emphasis inside a link's text is an item of its own too)
        text = pattern.sub(lambda m: doc.item(m.group(1), _emphasis(doc, m.group(2)), m.group(3)), text)
    return _emphasis(doc, text)


def _emphasis(doc: _Doc, text: str) -> str:
    """Emphasis as items, emphasis inside emphasis too (***both***, **bold *italic* text**)."""
    return _EMPHASIS.sub(lambda m: doc.item(m.group(1), _emphasis(doc, m.group(2)), m.group(3)), text)


def _front_matter(lines: list[str]) -> int:
    """How many lines a YAML (---) or TOML (+++) front matter block opening the document takes (0: none)."""
    fence = lines[0].rstrip() if lines else ""
    if fence not in ("---", "+++"):
        return 0
    closing = ("---", "...") if fence == "---" else ("+++",)
    return next((k + 1 for k in range(1, len(lines)) if lines[k].rstrip() in closing), 0)


def _markdown(doc: _Doc) -> None:
    from markdown_it import MarkdownIt

    skip = _front_matter(doc.lines)  # a page's metadata (title: ..., tags: ...): kept as it is
    tokens = MarkdownIt("commonmark").enable("table").parse("\n".join([""] * skip + doc.lines[skip:]))
    table_rows = set()
    for t in tokens:
        if t.type == "tr_open" and t.map:
            table_rows.update(range(*t.map))
    for t in tokens:
        if t.type != "inline" or not t.map:
            continue
        first, end = t.map
        if first in table_rows:
            continue
        slots, texts = [], []
        for row, content in zip(range(first, end), t.content.split("\n")):
            line, content = doc.lines[row], content.strip()
            at = line.rfind(content) if content else -1
            if at < 0:
                continue  # a line markdown-it rewrote (tabs): kept as it is
            prefix = _PREFIX.match(content) if not slots else None
            if prefix:
                at, content = at + prefix.end(), content[prefix.end():]
            if row + 1 < end and (len(content) - len(content.rstrip("\\"))) % 2:
                content = content[:-1]  # a backslash ending a line is a line break: it stays at the end
            slots.append((row, at, at + len(content)))
            texts.append(_inline_markdown(doc, content))
        if slots:
            doc.add(slots, " ".join(texts))
    for row in sorted(table_rows):
        line = doc.lines[row]
        if _DELIMITER_ROW.match(line):
            continue
        for m in re.finditer(r"(?:[^|\\]|\\.)+", line):
            cell = m.group()
            if cell.strip():
                s = m.start() + len(cell) - len(cell.lstrip())
                doc.add([(row, s, s + len(cell.strip()))], _inline_markdown(doc, cell.strip()))


# --- HTML ---------------------------------------------------------------------------------------

# elements whose content is not prose; and inline elements, which stay inside the sentence around them
RAW_ELEMENTS = frozenset("script style code pre textarea kbd samp var template svg math".split())
INLINE = frozenset("a abbr b bdi bdo cite data del dfn em font i ins label mark q s small span strong sub sup "
                   "time u".split())
VOID_INLINE = frozenset("img wbr".split())  # (a <br> ends a line of text: a block of its own each side)
_TAG_LIKE = re.compile(r"</?[A-Za-z][^<>\n]*>?")  # text the parser could not read as a tag ('<a href="x>')
_KEEP_ENTITIES = frozenset("amp lt gt".split())  # stay as they are (an item); others become their character


# "&#" that starts no character reference: with no ";" after it, the parser took the rest of the page for
# text (its tags, <pre>, <script> then translated); fed as "&_" (as long), it is the text "&" it is
_STRAY_CHARREF = re.compile(r"&#(?!(?:[0-9]+|[xX][0-9a-fA-F]+)[^0-9a-fA-F])")


class _Parser(HTMLParser):
    def parse_marked_section(self, i, report=1):
        where = self.getpos()
        try:  # <![CDATA[...]]>, <![if ...]>; anything else ("<![y]") made the parser raise AssertionError
            return super().parse_marked_section(i, report)
        except AssertionError:
            self.lineno, self.offset = where  # (it had moved on before raising)
            return self.parse_bogus_comment(i)


# attributes whose value is text a reader sees or hears (an image's description, a tooltip, a field's hint)
TEXT_ATTRIBUTES = ("alt", "title", "placeholder", "aria-label")
_ATTRIBUTE = re.compile(r"""(?<=[\s"'])(%s)(\s*=\s*)("[^"]*"|'[^']*'|[^\s"'=<>`]+)""" % "|".join(TEXT_ATTRIBUTES),
                        re.IGNORECASE)


def _translate_attributes(lines: list[str], engine: Engine, options: TextOptions) -> tuple[list[str], list[LineResult]]:
    """The lines with the text attributes of their tags (TEXT_ATTRIBUTES) translated in place and
    written back escaped and quoted; a LineResult per attribute, numbered by its line. Tags inside raw
    elements (script, code, ...) are left alone, as their text is."""
    values: list[tuple[int, int, int, str]] = []  # (line, start, end of the value with its quotes, text)

    class Tags(_Parser):
        raw = 0  # depth inside raw elements

        def handle_starttag(self, tag, attrs, void=False):
            if self.raw or tag in RAW_ELEMENTS:
                self.raw += not void and tag in RAW_ELEMENTS
                return
            line, col = self.getpos()
            for m in _ATTRIBUTE.finditer(self.get_starttag_text()):
                value = m.group(3).strip("\"'") if m.group(3)[0] in "\"'" else m.group(3)
                if "\n" not in m.group() and value.strip():  # (a value over several lines stays)
                    before = self.get_starttag_text()[: m.start(3)]  # (a tag over lines: the value's own line)
                    row = line - 1 + before.count("\n")
                    offset = len(before) - 1 - before.rfind("\n") if "\n" in before else col + len(before)
                    values.append((row, offset, offset + len(m.group(3)), html.unescape(value)))

        def handle_startendtag(self, tag, attrs):
            self.handle_starttag(tag, attrs, void=True)

        def handle_endtag(self, tag):
            self.raw -= bool(self.raw) and tag in RAW_ELEMENTS

    tags = Tags(convert_charrefs=True)  # (text is not read: "&#" cannot stop it)
    tags.feed("\n".join(lines))
    tags.close()
    if not values:
        return lines, []
    results = translate_lines([text for *_, text in values], engine, options)
    for (line, start, end, _), r in sorted(zip(values, results), key=lambda v: v[0][:2], reverse=True):
        r.line = line + 1
        quote = lines[line][start] if lines[line][start] in "'\"" else '"'  # (an unquoted value gets quotes)
        lines[line] = lines[line][:start] + quote + html.escape(r.text, quote=True) + quote + lines[line][end:]
    return lines, results


def _html(doc: _Doc) -> None:
    source = "\n".join(doc.lines)
    starts = [0]
    for line in doc.lines:
        starts.append(starts[-1] + len(line) + 1)
    events: list[tuple[str, int, int, str]] = []  # (kind, start, end, tag or text)

    def closing(at: int, mark: str) -> int:
        end = source.find(mark, at)
        return len(source) if end < 0 else end + len(mark)

    class Scan(_Parser):
        def _at(self) -> int:
            line, col = self.getpos()
            return starts[line - 1] + col

        def handle_starttag(self, tag, attrs):
            at = self._at()
            events.append(("start", at, at + len(self.get_starttag_text()), tag))

        def handle_startendtag(self, tag, attrs):
            at = self._at()
            events.append(("void", at, at + len(self.get_starttag_text()), tag))

        def handle_endtag(self, tag):
            at = self._at()
            events.append(("end", at, closing(at, ">"), tag))

        def handle_data(self, data):
            at = self._at()
            events.append(("data", at, at + len(data), ""))

        def handle_entityref(self, name):
            at = self._at()
            end = at + 1 + len(name) + (source[at + 1 + len(name) : at + 2 + len(name)] == ";")
            events.append(("entity" if name not in _KEEP_ENTITIES else "item", at, end, ""))

        def handle_charref(self, name):
            at = self._at()
            end = at + 2 + len(name) + (source[at + 2 + len(name) : at + 3 + len(name)] == ";")
            events.append(("entity", at, end, ""))

        def handle_comment(self, data):
            at = self._at()  # <!-- a comment -->, or a bogus one the parser reads like it: <!x>, </ x>, <![y]>
            # it ends at the first ">" after its text, where the parser ended it ("<!-- a -- >" too)
            events.append(("item", at, closing(at + (4 if source.startswith("<!--", at) else 2) + len(data), ">"), ""))

        def handle_decl(self, decl):
            at = self._at()
            events.append(("block", at, closing(at, ">"), ""))

        handle_pi = handle_decl

        def unknown_decl(self, data):
            at = self._at()
            events.append(("block", at, closing(at, "]]>"), ""))

    scan = Scan(convert_charrefs=False)
    scan.feed(_STRAY_CHARREF.sub("&_", source))
    scan.close()
    _html_blocks(doc, source, starts, events)


def _html_blocks(doc: _Doc, source: str, starts: list[int], events) -> None:
    """Runs of text and inline elements between block boundaries are blocks; raw elements (script,
    pre, ...) are skipped whole, except an inline <code>, which is one item of its sentence."""
    run: list = []
    depth, opened, inline_code = 0, 0, False
    for kind, s, e, tag in events:
        if depth:
            depth += (kind == "start" and tag in RAW_ELEMENTS) - (kind == "end" and tag in RAW_ELEMENTS)
            if depth == 0 and inline_code:
                run.append(("item", opened, e, ""))
            continue
        if kind == "start" and tag in RAW_ELEMENTS:
            depth, opened, inline_code = 1, s, tag == "code"
            if not inline_code:
                _html_run(doc, source, starts, run)
                run = []
            continue
        if kind in ("data", "entity", "item") or tag in INLINE and kind in ("start", "end") or tag in VOID_INLINE:
            run.append((kind, s, e, tag))
        else:
            _html_run(doc, source, starts, run)
            run = []
    _html_run(doc, source, starts, run)


def _html_run(doc: _Doc, source: str, starts: list[int], run: list) -> None:
    if not any(kind in ("data", "entity") and source[s:e].strip() for kind, s, e, _ in run):
        return
    start, end = run[0][1], run[-1][2]
    text = source[start:end]
    first_line = _line_of(starts, start + len(text) - len(text.lstrip()))  # (not the line break before it)
    if any(kind != "data" and "\n" in source[s:e] for kind, s, e, _ in run):
        doc.skipped.append((first_line, "HTML markup broken over lines inside a sentence: kept untranslated"))
        return
    # the prose: text (entities decoded), inline elements as items whose content is translated in place
    frames: list[list] = [[None, ""]]  # [(start, end, tag) of an open inline element, its text so far]
    for kind, s, e, tag in run:
        raw = source[s:e]
        if kind == "data":
            frames[-1][1] += _TAG_LIKE.sub(lambda m: doc.item(m.group()), raw)
        elif kind == "entity":
            frames[-1][1] += html.unescape(raw)
        elif kind == "item" or tag in VOID_INLINE:
            frames[-1][1] += doc.item(raw)
        elif kind == "start":
            frames.append([(s, e, tag), ""])
        else:  # an end tag: its element, and any left open inside it, closes
            match = next((k for k in range(len(frames) - 1, 0, -1) if frames[k][0][2] == tag), None)
            if match is None:
                frames[-1][1] += doc.item(raw)  # a stray end tag
                continue
            while len(frames) > match + 1:
                (os_, oe, _), text = frames.pop()
                frames[-1][1] += doc.item(source[os_:oe]) + text
            (os_, oe, _), text = frames.pop()
            frames[-1][1] += doc.item(source[os_:oe], text, raw)
    while len(frames) > 1:  # never closed
        (os_, oe, _), text = frames.pop()
        frames[-1][1] += doc.item(source[os_:oe]) + text
    # the run's characters line by line, less the whitespace at each line's ends
    slots = []
    for line in range(first_line, _line_of(starts, end - 1) + 1):
        a, b = max(start, starts[line]), min(end, starts[line + 1] - 1)
        piece = source[a:b]
        if piece.strip():
            a += len(piece) - len(piece.lstrip())
            b -= len(piece) - len(piece.rstrip())
            slots.append((line, a - starts[line], b - starts[line]))
    doc.add(slots, frames[0][1].lstrip())  # (the whitespace before it stays where it is, outside the slots)


def _line_of(starts: list[int], offset: int) -> int:
    return bisect.bisect_right(starts, offset) - 1
