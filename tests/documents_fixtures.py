"""Documents the document tests build (no binary fixtures): a .docx through python-docx, an .odt, PO, XLIFF
and JSON texts; and a fake model."""

import io
import struct
import zipfile
import zlib

from mtcli.route import Router
from tests.text.fakes import engine


def spanish(lines):
    """A fake model: each word's letters reversed and upper-cased (its marks left where they are), numbers
    and placeholders kept."""
    def word(w):
        if any(c.isdigit() for c in w):
            return w
        core = w.strip(".,;:!?¿¡")
        start = w.find(core) if core else 0
        return w[:start] + core[::-1].upper() + w[start + len(core):]
    return [[(" ".join(map(word, line.split(" "))), -1.0)] for line in lines]


def router(calls: list | None = None) -> Router:
    def decode(lines):
        if calls is not None:
            calls.append(len(lines))
        return spanish(lines)
    return Router(lambda direction: engine(decode), fixed="en-es")


def png(color: bytes = b"\xff\x00\x00") -> bytes:
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00" + color)) + chunk(b"IEND", b""))


def docx_bytes(paragraphs: int = 3) -> bytes:
    import docx
    from docx.opc.constants import RELATIONSHIP_TYPE
    from docx.oxml.ns import qn
    from docx.oxml import OxmlElement
    from docx.shared import Inches

    d = docx.Document()
    d.sections[0].header.paragraphs[0].text = "The report of the year"
    d.sections[0].footer.paragraphs[0].text = "Written by the team"
    first = d.add_paragraph("The plant is ")
    first.add_run("green").bold = True
    first.add_run(" and the sky is blue.")
    link = d.add_paragraph("Read ")
    rel = d.part.relate_to("https://example.org/guide", RELATIONSHIP_TYPE.HYPERLINK, is_external=True)
    h = OxmlElement("w:hyperlink")
    h.set(qn("r:id"), rel)
    r = OxmlElement("w:r")
    t = OxmlElement("w:t")
    t.text = "the guide"
    r.append(t)
    h.append(r)
    link._p.append(h)
    link.add_run(" before you start.")
    for k in range(paragraphs):
        p = d.add_paragraph("I like the red car. ")
        p.add_run("Where is the station?").italic = True
    table = d.add_table(rows=2, cols=2)
    table.cell(0, 0).text = "The house is big."
    table.cell(1, 1).text = "Open the door."
    d.add_picture(io.BytesIO(png()), width=Inches(1))
    d.add_comment(first.runs, text="Check this sentence", author="Ann")
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


ODT_NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
          'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
          'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
          'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
          'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" '
          'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
          'xmlns:dc="http://purl.org/dc/elements/1.1/" '
          'xmlns:xlink="http://www.w3.org/1999/xlink" office:version="1.3"')
ODT_CONTENT = f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document-content {ODT_NS}><office:automatic-styles><style:style style:name="B" style:family="text"><style:text-properties fo:font-weight="bold"/></style:style></office:automatic-styles><office:body><office:text>
<text:h text:outline-level="1">The report</text:h>
<text:p>The plant is <text:span text:style-name="B">green</text:span> and the sky is blue.<text:note text:id="n1" text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>The note is short.</text:p></text:note-body></text:note></text:p>
<text:p>Read <text:a xlink:type="simple" xlink:href="https://example.org/guide">the guide</text:a> before you start.<text:s text:c="2"/>Open the door.</text:p>
<text:p><office:annotation><dc:creator>Ann</dc:creator><text:p>Check this sentence</text:p></office:annotation>I like the red car.</text:p>
<table:table table:name="T"><table:table-row><table:table-cell><text:p>The house is big.</text:p></table:table-cell></table:table-row></table:table>
<text:p><draw:frame draw:name="img"><draw:image xlink:href="Pictures/red.png" xlink:type="simple"/></draw:frame>Where is the station?</text:p>
</office:text></office:body></office:document-content>"""
ODT_STYLES = f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document-styles {ODT_NS}><office:master-styles><style:master-page style:name="Standard"><style:header><text:p>The report of the year</text:p></style:header></style:master-page></office:master-styles></office:document-styles>"""
MANIFEST = """<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">
<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>
<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>
<manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/>
<manifest:file-entry manifest:full-path="Pictures/red.png" manifest:media-type="image/png"/>
</manifest:manifest>"""


def odt_bytes(content: str = ODT_CONTENT) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text", compress_type=zipfile.ZIP_STORED)
        z.writestr("content.xml", content, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("styles.xml", ODT_STYLES, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("Pictures/red.png", png(), compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/manifest.xml", MANIFEST, compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


PO = r'''# Messages of the app.
# Copyright (C) the authors
msgid ""
msgstr ""
"Project-Id-Version: app 1.0\n"
"Content-Type: text/plain; charset=UTF-8\n"

#. TRANSLATORS: the greeting on the first page
#: src/app.py:10 src/app.py:42
#, python-format
msgid "Hello %(name)s, the door is open."
msgstr ""

#: src/files.py:7
#, python-format
msgid "You have %d new file."
msgid_plural "You have %d new files."
msgstr[0] ""
msgstr[1] ""

#: src/app.py:50
msgid "The house is big."
msgstr "La casa es grande."

msgctxt "menu"
msgid "Open the door"
msgstr ""

msgid "Saving the file...\n"
msgstr ""

#~ msgid "An old message"
#~ msgstr "Un mensaje viejo"
'''

XLIFF12 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file original="app.html" source-language="en" datatype="html">
    <body>
      <trans-unit id="1"><source>The plant is <g id="b1">green</g> and the sky is blue.</source></trans-unit>
      <trans-unit id="2"><source>Press <x id="icon"/> to open the door.</source></trans-unit>
      <trans-unit id="3"><source>The house is big.</source><target>La casa es grande.</target></trans-unit>
      <trans-unit id="4" translate="no"><source>Keep this text.</source></trans-unit>
      <trans-unit id="5"><source>I paid <ph id="p">{amount}</ph> for the red car.</source></trans-unit>
    </body>
  </file>
</xliff>
"""

XLIFF20 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en">
  <file id="f1">
    <unit id="u1"><segment><source>The plant is <pc id="1">green</pc> and the sky is blue.</source></segment></unit>
    <unit id="u2"><segment><source>Press <ph id="2"/> to open the door.</source></segment></unit>
    <unit id="u3"><segment state="final"><source>The house is big.</source><target>La casa es grande.</target></segment></unit>
  </file>
</xliff>
"""

JSON = """{
  "title": "The report of the year",
  "menu": {"open": "Open the door", "count": 3, "enabled": true, "none": null},
  "steps": ["Buy milk", "Where is the station?"],
  "@title": {"description": "The page's title"},
  "url": "https://example.org/guide"
}
"""
