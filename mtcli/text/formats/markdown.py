"""Markdown (CommonMark and tables, through markdown-it): each paragraph, heading, list item and table cell a
block; code, front matter and HTML blocks kept; inline markup items."""

from __future__ import annotations

import re

from mtcli.text.formats.prose import Prose
from mtcli.text.kinds import FOOTNOTE_REF, MARKDOWN_CODE, SCRIPT_CLOSE, SCRIPT_TAG
from mtcli import lazy_re

_DELIMITER_ROW = lazy_re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
# inline markup, in the order it is taken out: a code span's text is code, not prose, so it goes first (MARKDOWN_CODE)
_RAW_INLINE = lazy_re.compile(r"<(?:[a-zA-Z][a-zA-Z0-9+.-]*:[^\s<>]*|[^\s<>@]+@[^\s<>]+)>"  # autolinks
                              r"|<(code|kbd|samp|var|tt)\b[^<>]*>.*?</\1\s*>"  # inline HTML whose content is code
                              r"|</?[A-Za-z][^<>]*>"  # inline HTML tags
                              r"|&(?:amp;)?(?:#\d+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);"  # entities: &copy; &#169;, &amp;lt;
                              rf"|{FOOTNOTE_REF}"  # footnote references [^1]
                              r"|\$\$.+?\$\$|\$(?=[^\s$])[^$]*?(?<=[^\s\\$])\$(?!\d)"  # math: $x + y$, $$...$$
                              r"|\\\(.+?\\\)|\\\[.+?\\\]"  # LaTeX's math: \(x\), \[x\]
                              r"|\\[!-/:-@\[-`{-~]")  # backslash escapes
# kept as it is at the start of a paragraph: a footnote's definition "[^1]: ", a task's box "[ ] ", "[x] "
_PREFIX = lazy_re.compile(rf"(?:{FOOTNOTE_REF}:|\[[ xX]\])\s+")
# a definition's marker under its term (PHP Markdown Extra, pandoc, Python-Markdown's def_list): "Apple\n: A red
# fruit." had been one paragraph, its ": " moved onto the term's line ("Apple:" / "Una fruta roja.")
_DEFINITION = lazy_re.compile(r":[ \t]+(?=\S)")
_IMAGE = lazy_re.compile(r"(!\[)([^\]]*)(\]\([^)]*\)|\]\[[^\]]*\])")
_LINK = lazy_re.compile(r"(\[)([^\]]+)(\]\([^)]*\)|\]\[[^\]]*\])")
_EMPHASIS = lazy_re.compile(r"(\*\*|__|~~|\*|(?<!\w)_)(?=\S)(.+?)(?<=\S)(\1)(?!\w)")


# a superscript or a subscript without markup inside: three parts, as HTML's (its text translated in place, or
# kept with the word it is glued to: "H<sub>2</sub>O", "car<sup>1</sup>")
_SCRIPT_PAIR = lazy_re.compile(f"({SCRIPT_TAG})([^<>]*)({SCRIPT_CLOSE})", re.IGNORECASE)


_UNSEEN_OPEN = lazy_re.compile(r"<!--|<\?")
_UNSEEN_CLOSE = {"<!--": "-->", "<?": "?>"}


def _unseen(doc: Prose, text: str) -> str:
    """Inline HTML comments and processing instructions (CommonMark's raw HTML) as items kept as they are: never
    prose (their text reached the model). In one pass: an opening never closed ends the search for its kind."""
    out, at, dead = [], 0, set()
    for m in _UNSEEN_OPEN.finditer(text):
        opening = m.group()
        if m.start() < at or opening in dead:
            continue
        end = text.find(_UNSEEN_CLOSE[opening], m.end())
        if end < 0:
            dead.add(opening)
            continue
        end += len(_UNSEEN_CLOSE[opening])
        out += [text[at : m.start()], doc.item(text[m.start() : end])]
        at = end
    return "".join(out) + text[at:]


def _inline_markdown(doc: Prose, text: str) -> str:
    text = MARKDOWN_CODE.sub(lambda m: doc.item(m.group()), text)
    text = _unseen(doc, text)
    text = _SCRIPT_PAIR.sub(lambda m: doc.item(m.group(1), m.group(3), m.group(4)), text)
    text = _RAW_INLINE.sub(lambda m: doc.item(m.group()), text)
    for pattern in (_IMAGE, _LINK):  # (emphasis inside a link's text is an item of its own too)
        text = pattern.sub(lambda m: doc.item(m.group(1), _emphasis(doc, m.group(2)), m.group(3)), text)
    return _emphasis(doc, text)


def _emphasis(doc: Prose, text: str) -> str:
    """Emphasis as items, emphasis inside emphasis too (***both***, **bold *italic* text**)."""
    return _EMPHASIS.sub(lambda m: doc.item(m.group(1), _emphasis(doc, m.group(2)), m.group(3)), text)


def _front_matter(lines: list[str]) -> int:
    """How many lines a YAML (---) or TOML (+++) front matter block opening the document takes (0: none)."""
    fence = lines[0].rstrip() if lines else ""
    if fence not in ("---", "+++"):
        return 0
    closing = ("---", "...") if fence == "---" else ("+++",)
    return next((k + 1 for k in range(1, len(lines)) if lines[k].rstrip() in closing), 0)


_MATH_FENCES = (("$$", "$$"), ("\\[", "\\]"))


def _display_math(lines: list[str], first: int) -> set[int]:
    """The rows of a paragraph's display math, kept as it is: from a line opening with "$$" (or LaTeX's "\\[") to
    the line that closes it, both included (their formulas had reached the model: "$$ x = 5 + y $$" -> "dólares =
    5")."""
    rows, closing = set(), None
    for k, line in enumerate(map(str.strip, lines)):
        opening = next((pair for pair in _MATH_FENCES if line.startswith(pair[0])), None) if closing is None else None
        if opening:
            closing, line = opening[1], line[len(opening[0]) :]
        if closing is not None:
            rows.add(first + k)
            if line.endswith(closing):
                closing = None
    return rows


def read(doc: Prose) -> None:
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
        math = _display_math(doc.lines[first:end], first)
        contents = [content.strip() for content in t.content.split("\n")]
        for k, (row, content) in enumerate(zip(range(first, end), contents)):
            line = doc.lines[row]
            if row in math:
                continue
            at = line.rfind(content) if content else -1
            if at < 0:
                continue  # a line markdown-it rewrote (tabs): kept as it is
            prefix = _PREFIX.match(content) if not slots else None
            # a definition list's term and each of its definitions, a block of its own (the marker kept as it is)
            defines = _DEFINITION.match(content) if k else None
            if slots and (defines or k + 1 < len(contents) and _DEFINITION.match(contents[k + 1])):
                doc.add(slots, " ".join(texts))
                slots, texts = [], []
            prefix = prefix or defines
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
