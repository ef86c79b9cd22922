"""HTML: runs of text and inline elements between block boundaries are blocks, raw elements (script, pre, ...)
kept whole, and the text attributes of tags (alt, title, ...) translated in place."""

from __future__ import annotations

import bisect
import html
import re
from html.parser import HTMLParser

from mtcli.text.formats.prose import Prose
from mtcli.text.nobreak import NO_BREAK
from mtcli.text.pipeline import Engine, LineResult, TextOptions, translate_lines
from mtcli import lazy_re

# elements whose content is not prose; and inline elements, which stay inside the sentence around them
RAW_ELEMENTS = frozenset("script style code pre textarea kbd samp var template svg math".split())
INLINE = frozenset("a abbr b bdi bdo cite data del dfn em font i ins label mark q s small span strong sub sup "
                   "time u".split())
VOID_INLINE = frozenset("img wbr".split())  # (a <br> ends a line of text: a block of its own each side)
VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())  # never closed
_TAG_LIKE = lazy_re.compile(r"</?[A-Za-z][^<>\n]*>?")  # text the parser could not read as a tag ('<a href="x>')
_KEEP_ENTITIES = frozenset("amp lt gt".split())  # stay as they are (an item); others become their character
_SHOWN_ENTITY = lazy_re.compile(r"(?:[A-Za-z][A-Za-z0-9]{1,31}|#\d{1,7}|#[xX][0-9A-Fa-f]{1,6});")  # after "&amp;": shown as one


# "&#" that starts no character reference: with no ";" after it, the parser took the rest of the page for
# text (its tags, <pre>, <script> then translated); fed as "&_" (as long), it is the text "&" it is
_STRAY_CHARREF = lazy_re.compile(r"&#(?!(?:[0-9]+|[xX][0-9a-fA-F]+)[^0-9a-fA-F])")


class _Parser(HTMLParser):
    def parse_marked_section(self, i, report=1):
        where = self.getpos()
        try:  # <![CDATA[...]]>, <![if ...]>; anything else ("<![y]") made the parser raise AssertionError
            return super().parse_marked_section(i, report)
        except AssertionError:
            self.lineno, self.offset = where  # (it had moved on before raising)
            return self.parse_bogus_comment(i)


def no_translate(tag: str, attrs: list[tuple[str, str | None]]) -> bool:
    """An element its author marked to be kept as it is (HTML's translate="no", and the class
    "notranslate" that translation tools honour): its text and its attributes' text. "The <span
    translate="no">Acme Cloud</span> works." had come out as "Las <span translate="no">Acme</span> trabajan."."""
    return any(
        (name == "translate" and (value or "").strip().lower() == "no")
        or (name == "class" and "notranslate" in (value or "").split()) for name, value in attrs)


# attributes whose value is text a reader sees or hears (an image's description, a tooltip, a field's hint)
TEXT_ATTRIBUTES = ("alt", "title", "placeholder", "aria-label")
_ATTRIBUTE = lazy_re.compile(r"""(?<=[\s"'])(%s)(\s*=\s*)("[^"]*"|'[^']*'|[^\s"'=<>`]+)""" % "|".join(TEXT_ATTRIBUTES),
                             re.IGNORECASE)


# the language of an element's content: the source language's becomes the target's (attack 2026-12-03's V:
# <html lang="en"> around Spanish, which screen readers then read with English rules)
_LANG = lazy_re.compile(r"""(?<=[\s"'])(lang|xml:lang)(\s*=\s*)("[^"]*"|'[^']*'|[^\s"'=<>`]+)""", re.IGNORECASE)
TARGETS = {"en": "es", "es": "en"}


def translate_attributes(lines: list[str], engine: Engine, options: TextOptions) -> tuple[list[str], list[LineResult]]:
    """The lines with the text attributes of their tags (TEXT_ATTRIBUTES) translated in place and
    written back escaped and quoted, and a lang attribute of the source language ("en", "en-US") made the
    target's; a LineResult per attribute, numbered by its line. Tags inside raw elements (script, code, ...) and
    those marked translate="no" are left alone, as their text is."""
    values: list[tuple[int, int, int, str]] = []  # (line, start, end of the value with its quotes, text)
    langs: list[tuple[int, int, int, str]] = []  # (line, start, end of a lang value, its new value)

    class Tags(_Parser):
        raw = 0  # depth inside raw elements
        kept, kept_tag = 0, ""  # depth inside an element marked translate="no", and its tag

        def handle_starttag(self, tag, attrs, void=False):
            if self.kept or no_translate(tag, attrs):  # (its attributes kept; a void one has nothing inside)
                self.kept_tag = self.kept_tag if self.kept else tag
                self.kept += not void and tag not in VOID and tag == self.kept_tag
                return
            if self.raw or tag in RAW_ELEMENTS:
                self.raw += not void and tag in RAW_ELEMENTS
                return
            line, col = self.getpos()
            for pattern, found in ((_ATTRIBUTE, values), (_LANG, langs)):
                for m in pattern.finditer(self.get_starttag_text()):
                    value = m.group(3).strip("\"'") if m.group(3)[0] in "\"'" else m.group(3)
                    if pattern is _LANG:
                        if value.strip().replace("_", "-").split("-")[0].lower() != options.source:
                            continue
                        value = TARGETS[options.source]
                    if "\n" not in m.group() and value.strip():  # (a value over several lines stays)
                        before = self.get_starttag_text()[: m.start(3)]  # (a tag over lines: the value's own line)
                        row = line - 1 + before.count("\n")
                        offset = len(before) - 1 - before.rfind("\n") if "\n" in before else col + len(before)
                        found.append((row, offset, offset + len(m.group(3)), html.unescape(value)))

        def handle_startendtag(self, tag, attrs):
            self.handle_starttag(tag, attrs, void=True)

        def handle_endtag(self, tag):
            self.kept -= bool(self.kept) and tag == self.kept_tag
            self.raw -= bool(self.raw) and not self.kept and tag in RAW_ELEMENTS

    tags = Tags(convert_charrefs=True)  # (text is not read: "&#" cannot stop it)
    tags.feed("\n".join(lines))
    tags.close()
    if not values and not langs:
        return lines, []
    results = translate_lines([text for *_, text in values], engine, options) if values else []
    new = [(value, r.text) for value, r in zip(values, results)] + [(value, value[3]) for value in langs]
    for r, (line, *_) in zip(results, values):
        r.line = line + 1
    for (line, start, end, _), text in sorted(new, key=lambda v: v[0][:2], reverse=True):
        quote = lines[line][start] if lines[line][start] in "'\"" else '"'  # (an unquoted value gets quotes)
        lines[line] = lines[line][:start] + quote + html.escape(text, quote=True) + quote + lines[line][end:]
    return lines, results


def read(doc: Prose) -> None:
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
            kept.extend([at] if tag not in VOID and no_translate(tag, attrs) else [])

        def handle_startendtag(self, tag, attrs):
            at = self._at()
            events.append(("void", at, at + len(self.get_starttag_text()), tag))

        def handle_endtag(self, tag):
            at = self._at()
            events.append(("end", at, closing(at, ">"), tag))

        def handle_data(self, data):
            at, end = max(self._at(), skip[0]), self._at() + len(data)  # (not what an item took already)
            if at >= end:
                return
            unclosed.extend([at] if source.startswith(("<!--", "<?"), at) else [])  # (the parser gives it as text)
            events.append(("data", at, end, ""))

        def handle_entityref(self, name):
            at = self._at()
            end = at + 1 + len(name) + (source[at + 1 + len(name) : at + 2 + len(name)] == ";")
            if name == "amp" and (shown := _SHOWN_ENTITY.match(source, end)):  # ("&amp;lt;": the text "&lt;", one item)
                end = skip[0] = shown.end()
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

    unclosed: list[int] = []
    kept: list[int] = []  # where elements marked translate="no" start
    skip = [0]  # where the text an item took over ends ("&amp;lt;")
    scan = Scan(convert_charrefs=False)
    scan.feed(_STRAY_CHARREF.sub("&_", source))
    scan.close()
    if unclosed:  # a comment or an instruction never closed runs to the page's end, as browsers read it: kept so
        events = [event for event in events if event[1] < unclosed[0]] + [("block", unclosed[0], len(source), "")]
        what = "an HTML comment" if source[unclosed[0] + 1] == "!" else "a processing instruction"
        doc.skipped.append((_line_of(starts, unclosed[0]), f"{what} opened here is never closed: the rest of the "
                                                           "page is kept as it came"))
    _html_blocks(doc, source, starts, events, set(kept))


def _html_blocks(doc: Prose, source: str, starts: list[int], events, kept: set[int]) -> None:
    """Runs of text and inline elements between block boundaries are blocks; raw elements (script,
    pre, ...) and those marked translate="no" (starting at `kept`) are skipped whole, except an inline
    one (<code>, <span translate="no">), which is one item of its sentence."""
    run: list = []
    depth, opened, inline_code, nest = 0, 0, False, RAW_ELEMENTS
    for kind, s, e, tag in events:
        if depth:
            depth += (kind == "start" and tag in nest) - (kind == "end" and tag in nest)
            if depth == 0 and inline_code:
                run.append(("item", opened, e, ""))
            continue
        if kind == "start" and (tag in RAW_ELEMENTS or s in kept):
            nest = RAW_ELEMENTS if tag in RAW_ELEMENTS else frozenset([tag])
            depth, opened, inline_code = 1, s, tag == "code" or (tag in INLINE and s in kept)
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


def _html_run(doc: Prose, source: str, starts: list[int], run: list) -> None:
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
        elif kind == "entity":  # (a no-break space's comes back as the page wrote it where its place is sure)
            frames[-1][1] += doc.item(raw) if html.unescape(raw) in NO_BREAK else html.unescape(raw)
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
    doc.add(slots, frames[0][1].strip())  # (the whitespace around it stays where it is, outside the slots)


def _line_of(starts: list[int], offset: int) -> int:
    return bisect.bisect_right(starts, offset) - 1
