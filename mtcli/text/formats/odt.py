"""OpenDocument text (.odt): the paragraphs and headings of the body (tables, text boxes, notes included) and
of the master pages' headers and footers, each a text; spans and links items around their words, every other
element in a paragraph (a note, an image, a field) an item kept as it is (mixed.py); runs of spaces (<text:s/>)
are spaces. A line break or a tab parts the paragraph into pieces translated each on its own, and stays between
their translations; a mark that is no word (a tracked change's or a bookmark's place, a reference or an index
mark) is kept out of the sentence, beside the markup it touched, else at the paragraph's start or end (inline.py).
Annotations (comments), tracked deletions and every other member of the package stay as they are."""

from __future__ import annotations

from mtcli.errors import UserError
from mtcli.text.formats import mixed, package
from mtcli.text.formats.units import Settings, Units

TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
PAIRED = {f"{{{TEXT}}}span", f"{{{TEXT}}}a"}
PARAGRAPHS = (f"{{{TEXT}}}p", f"{{{TEXT}}}h")
# paragraphs inside these are not the document's text: comments, deleted text, styles' own examples
SKIPPED = {f"{{{OFFICE}}}annotation", f"{{{TEXT}}}tracked-changes", f"{{{OFFICE}}}styles",
           f"{{{OFFICE}}}automatic-styles"}


# spaces (<text:s text:c="2"/>) and a layout hint: text, not items
AS_TEXT = {f"{{{TEXT}}}s": " ", f"{{{TEXT}}}soft-page-break": ""}


CUTS = {f"{{{TEXT}}}line-break", f"{{{TEXT}}}tab"}
# a place in the text, no words: a tracked change's (the deleted text is in <text:tracked-changes>), a bookmark's,
# a reference's, an index entry's; those of a start and an end around words (the same name or id) are a Pair
PLACES = ("change", "bookmark", "reference-mark", "toc-mark", "alphabetical-index-mark", "user-index-mark")
ASIDE = {f"{{{TEXT}}}{n}" for n in PLACES}
EDGES = {f"{{{TEXT}}}{n}-{edge}": (n, edge) for n in PLACES for edge in ("start", "end")}
_NAMES = (f"{{{TEXT}}}change-id", f"{{{TEXT}}}name", f"{{{TEXT}}}id")  # (an index mark's start and end share an id)


def _placed(element) -> str | tuple | None:
    if element.tag in EDGES:
        name, edge = EDGES[element.tag]
        return edge, (name, *(element.get(a) for a in _NAMES))
    return "cut" if element.tag in CUTS else "aside" if element.tag in ASIDE else None


def _paired(element) -> bool:
    return element.tag in PAIRED


def _as_text(element) -> str | None:
    return AS_TEXT.get(element.tag) if isinstance(element.tag, str) else None


def read(data: bytes, name: str, settings: Settings):
    zf = package.open_zip(data, name)
    if "content.xml" not in zf.namelist():
        raise UserError(f"{name}: no content.xml in the package: not an OpenDocument file, or a damaged one")
    roots = {member: package.parse_xml(package.read_member(zf, member, name), f"{name}: {member}")
             for member in ("content.xml", "styles.xml") if member in zf.namelist()}
    units = Units("".join("".join(root.itertext()) for root in roots.values()))
    number = 0
    for root in roots.values():
        for p in list(root.iter(*PARAGRAPHS)):
            if any(a.tag in SKIPPED for a in p.iterancestors()):
                continue
            number += 1
            inline: list = []
            text = mixed.read(p, units, _paired, inline, _as_text, _placed)
            units.add(text, lambda tokens, p=p, inline=inline: mixed.write(p, tokens, inline, _paired), number)

    def write(language: str) -> bytes:
        return package.write_zip(zf, {member: package.write_xml(root) for member, root in roots.items()}, name)

    return units, write
