"""OpenDocument text (.odt): the paragraphs and headings of the body (tables, text boxes, notes included) and
of the master pages' headers and footers, each a text; spans and links items around their words, every other
element in a paragraph (a note, an image, a field, a tab, a line break) an item kept as it is (mixed.py); runs of
spaces (<text:s/>) are spaces.
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
            text = mixed.read(p, units, _paired, inline, _as_text)
            units.add(text, lambda tokens, p=p, inline=inline: mixed.write(p, tokens, inline, _paired), number)

    def write(language: str) -> bytes:
        return package.write_zip(zf, {member: package.write_xml(root) for member, root in roots.items()}, name)

    return units, write
