"""Word (.docx): the paragraphs of the body, headers, footers, footnotes and endnotes (text boxes and table
cells included), each a text; comments, images, embedded objects and every other part stay byte for byte.

A paragraph's runs of the formatting most of its text has are its plain text; a run of other formatting
(a bold word) and an element that wraps runs (a hyperlink, a tracked insertion or move, a smart tag, custom
XML, an inline content control, a bidi span: WRAPPERS, nested in any way) are items around their words, so the
formatting and the wrapper land on the words that translate them (markup.py); a run without text (an image, a
footnote mark, a symbol) and a field (its code and its shown result, w:fldSimple too) are items kept as they are.
A line break or a tab (w:br, w:cr, w:tab, w:ptab) parts the paragraph into pieces translated each on its own, and
stays between their translations; deleted text (w:del, w:moveFrom) is no part of the sentence (the text is
translated as it reads with the changes accepted) and is kept beside the markup it touched, else at the
paragraph's start or end (inline.py). A soft hyphen and a no-break hyphen are the characters they stand for
(the translation has its own words: the first goes, the second is a hyphen). The pieces go back into the places
the paragraph's runs held: bookmarks, comment ranges, move ranges and properties stay where they were.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass, field

from mtcli.errors import UserError
from mtcli.text.formats import package
from mtcli.text.formats.units import Settings, Units

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
CT = "http://schemas.openxmlformats.org/package/2006/content-types"
XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
# the parts whose paragraphs are translated, by the end of their content type (comments' part is not one)
TEXT_PARTS = ("document.main+xml", "document.macroEnabled.main+xml", "template.main+xml", "header+xml",
              "footer+xml", "footnotes+xml", "endnotes+xml")
# a run's children that are its text: the characters each stands for
_CHARS = {f"{{{W}}}softHyphen": "\u00ad", f"{{{W}}}noBreakHyphen": "\u2011"}
_TEXT_RUN = {f"{{{W}}}t", f"{{{W}}}rPr", f"{{{W}}}lastRenderedPageBreak", *_CHARS}  # a run of text has only these
_BREAKS = {f"{{{W}}}{n}" for n in ("br", "cr", "tab", "ptab")}  # part the text into pieces
_MARKERS = {f"{{{W}}}{n}" for n in ("pPr", "bookmarkStart", "bookmarkEnd", "proofErr", "commentRangeStart",
                                      "commentRangeEnd", "permStart", "permEnd", "moveFromRangeStart",
                                      "moveFromRangeEnd", "moveToRangeStart", "moveToRangeEnd",
                                      "customXmlInsRangeStart", "customXmlInsRangeEnd", "customXmlDelRangeStart",
                                      "customXmlDelRangeEnd", "customXmlMoveFromRangeStart",
                                      "customXmlMoveFromRangeEnd", "customXmlMoveToRangeStart",
                                      "customXmlMoveToRangeEnd")}  # stay where they are
_DELETED = {f"{{{W}}}del", f"{{{W}}}moveFrom"}
_KEPT = ("keep", "cut", "aside")  # the kinds of Piece kept as they are


def w(name: str) -> str:
    return f"{{{W}}}{name}"


# elements whose runs are the paragraph's text (ECMA-376's inline run wrappers): translated inside the wrapper
WRAPPERS = {w(n) for n in ("hyperlink", "ins", "moveTo", "smartTag", "customXml", "sdt", "sdtContent", "dir", "bdo")}


@dataclass
class Piece:
    kind: str  # "run" (text of one formatting), "link" (a hyperlink); kept as it is: "keep" (in the sentence),
    # "cut" (a break between pieces), "aside" (deleted text)
    elements: list
    text: str = ""
    style: bytes = b""  # the runs' properties, serialized
    used: int = field(default=0)


def read(data: bytes, name: str, settings: Settings):
    zf = package.open_zip(data, name)
    types = package.parse_xml(package.read_member(zf, "[Content_Types].xml", name), f"{name}: [Content_Types].xml")
    overrides = [(o.get("PartName", "").lstrip("/"), o.get("ContentType", "")) for o in types.iter(f"{{{CT}}}Override")]
    parts = [part for part, kind in overrides if kind.endswith(TEXT_PARTS)]
    if not any(kind.endswith(TEXT_PARTS[:3]) for _, kind in overrides):
        raise UserError(f"{name}: no main document part in [Content_Types].xml: not a Word document")
    roots = {part: package.parse_xml(package.read_member(zf, part, name), f"{name}: {part}") for part in parts}
    units = Units("".join("".join(root.itertext()) for root in roots.values()))
    number = 0
    for root in roots.values():
        for p in root.iter(w("p")):
            number += 1
            _paragraph(p, units, number)

    def write(language: str) -> bytes:
        return package.write_zip(zf, {part: package.write_xml(root) for part, root in roots.items()}, name)

    return units, write


def _paragraph(p, units: Units, number: int) -> None:
    pieces = _pieces(p)
    runs = [x for x in pieces if x.kind == "run"]
    if not runs and not any(x.kind == "link" for x in pieces):
        return
    weight = Counter()
    for x in runs:
        weight[x.style] += len(x.text)
    base = weight.most_common(1)[0][0] if weight else None
    text = "".join(x.text if x.kind == "run" and x.style == base else units.keep(k, _label(x)) if x.kind == "keep"
                   else units.cut(k) if x.kind == "cut" else units.aside(k) if x.kind == "aside"
                   else units.wrap(k, x.text) for k, x in enumerate(pieces))
    template = next((x.elements[0] for x in runs if x.style == base), None)
    units.add(text, lambda tokens: _write(p, pieces, template, tokens), number)


def _pieces(p) -> list[Piece]:
    """The paragraph's content, child by child (runs of one formatting merged; a field's runs one piece)."""
    pieces: list[Piece] = []
    field_depth = 0
    for child in list(p):
        if not isinstance(child.tag, str) or child.tag in _MARKERS:
            continue
        if child.tag == w("r"):
            for run in _split(child):
                chars = run.findall(w("fldChar"))
                starts = sum(c.get(w("fldCharType")) == "begin" for c in chars)
                ends = sum(c.get(w("fldCharType")) == "end" for c in chars)
                in_field = field_depth > 0 or starts
                field_depth = max(0, field_depth + starts - ends)
                if in_field:  # a field: its code and its result kept
                    if pieces and pieces[-1].kind == "keep" and pieces[-1].text == "field":
                        pieces[-1].elements.append(run)
                    else:
                        pieces.append(Piece("keep", [run], "field"))
                elif all(c.tag in _TEXT_RUN for c in run) and (words := _words(run)):
                    style = _style(run)
                    if pieces and pieces[-1].kind == "run" and pieces[-1].style == style:
                        pieces[-1].elements.append(run)
                        pieces[-1].text += words
                    else:
                        pieces.append(Piece("run", [run], words, style))
                else:
                    cut = any(c.tag in _BREAKS for c in run) and all(c.tag in _BREAKS or c.tag in _TEXT_RUN for c in run)
                    pieces.append(Piece("cut" if cut else "keep", [run]))
        elif child.tag in WRAPPERS and (runs := _wrapped_runs(child)):
            pieces.append(Piece("link", [child], "".join(_words(r) for r in runs)))
        else:  # deleted text (set aside), math, a simple field, a wrapper without text: kept whole
            pieces.append(Piece("aside" if child.tag in _DELETED else "keep", [child]))
    return pieces


def _wrapped_runs(wrapper) -> list:
    """The runs of text inside a wrapper, through the wrappers nested in it (iteratively: any depth), in
    document order; not those of a field (its code and result) nor deleted ones (w:del holds w:delText)."""
    runs, depth, todo = [], 0, list(reversed(wrapper))
    while todo:
        e = todo.pop()
        if e.tag in WRAPPERS:
            todo.extend(reversed(e))
        elif e.tag == w("r"):
            chars = [c.get(w("fldCharType")) for c in e.findall(w("fldChar"))]
            if depth == 0 and not chars and any(c.tag == w("t") or c.tag in _CHARS for c in e):
                runs.append(e)
            depth = max(0, depth + chars.count("begin") - chars.count("end"))
    return runs


def _words(run) -> str:
    """A run's text: its w:t and the hyphens that are characters."""
    return "".join(c.text or "" if c.tag == w("t") else _CHARS.get(c.tag, "") for c in run)


def _label(piece: Piece) -> str:
    """A piece kept as it is, in a warning: the text it shows (a field's result, deleted words), else what it
    holds ("<w:drawing>", "<w:tab>")."""
    from lxml import etree

    text = " ".join("".join(t.text or "" for e in piece.elements for t in e.iter(w("t"), w("delText"))).split())
    inner = [c for e in piece.elements for c in (e if e.tag == w("r") else [e]) if c.tag != w("rPr")]
    return text[:60] or (f"<w:{etree.QName(inner[0]).localname}>" if inner and isinstance(inner[0].tag, str)
                         else "<w:r>")


def _split(run) -> list:
    """A run of text and other content (a line break, a tab, a footnote mark) as runs of one each, with
    its properties: the text is translated, the rest kept (a run of text's children go together)."""
    content = [c for c in run if c.tag != w("rPr")]
    if all(c.tag in _TEXT_RUN for c in content) or not any(c.tag == w("t") or c.tag in _CHARS for c in content):
        return [run]
    parts = []
    for c in content:
        new = copy.deepcopy(run)
        for old in [x for x in new if x.tag != w("rPr")]:
            new.remove(old)
        new.append(c)
        parts.append(new)
    for new in parts:
        run.addprevious(new)
    run.getparent().remove(run)
    return parts


def _style(run) -> bytes:
    from lxml import etree

    props = run.find(w("rPr"))
    if props is None:
        return b""
    try:
        return etree.tostring(props, method="c14n")  # (one form for equal properties, whatever their attributes' order)
    except etree.C14NError:  # a relative namespace URI in scope, which c14n refuses: the plain form
        return etree.tostring(props)


def _write(p, pieces: list[Piece], template, tokens: list[tuple[str, str]]) -> None:
    from lxml import etree

    segments: list[list] = []  # [key or None, text] (key: a piece's index), in the translation's order
    stack: list[int] = []
    for kind, value in tokens:
        if kind == "text":
            key = stack[-1] if stack else None
            if segments and segments[-1][0] == key and segments[-1][1] is not None:
                segments[-1][1] += value
            else:
                segments.append([key, value])
        elif kind == "open" and int(value) < len(pieces):
            stack.append(int(value))
        elif kind == "close" and stack:
            stack.pop()
        elif kind == "keep" and int(value) < len(pieces):
            segments.append([int(value), None])
    out = []
    for key, text in segments:
        if key is None:
            if text:
                out.append(_run_with(template, text, fresh=True))
            continue
        piece = pieces[key]
        if piece.kind == "run" and text:
            out.append(_run_with(piece.elements[0] if not piece.used else copy.deepcopy(piece.elements[0]), text))
        elif piece.kind == "link" and text:
            link = piece.elements[0] if not piece.used else copy.deepcopy(piece.elements[0])
            _link_text(link, text)
            out.append(link)
        elif piece.kind in _KEPT:
            out.extend(piece.elements if not piece.used else [copy.deepcopy(e) for e in piece.elements])
        piece.used += 1
    out += [e for x in pieces if x.kind in _KEPT and not x.used for e in x.elements]  # never lost
    slots = [e for x in pieces for e in x.elements]
    anchors = []
    for e in slots:
        anchor = etree.Comment("mtcli")
        e.addprevious(anchor)
        anchors.append(anchor)
        p.remove(e)
    for k, e in enumerate(out):
        anchors[min(k, len(anchors) - 1)].addprevious(e)
    for anchor in anchors:
        p.remove(anchor)


def _run_with(run, text: str, fresh: bool = False):
    """The run (a copy when fresh) holding this text in one w:t."""
    from lxml import etree

    if fresh:
        run = copy.deepcopy(run) if run is not None else etree.Element(w("r"))
    for t in [c for c in run if c.tag == w("t") or c.tag in _CHARS]:
        run.remove(t)
    t = etree.SubElement(run, w("t"))
    t.text = text
    if text != text.strip():  # (Word drops the spaces at a w:t's ends without it)
        t.set(XML_SPACE, "preserve")
    return run


def _link_text(link, text: str) -> None:
    """The wrapper's words in its first run of text; its other runs of text go."""
    runs = _wrapped_runs(link)
    _run_with(runs[0], text)
    for r in runs[1:]:
        r.getparent().remove(r)
