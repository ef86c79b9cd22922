"""The .docx and .odt mtcli writes open where people open them: each run's formatting on the translation of
its own words when every run is formatted (bold, italic and links, across sentences too); the package whole as
Word and LibreOffice read it (every part with a content type, every relationship's target and every r:id
there, spaces kept, the ODF manifest and mimetype); and LibreOffice itself converting them, where it is
installed (`soffice`)."""

import io
import posixpath
import shutil
import subprocess
import zipfile

import pytest

from benchmarks.documents import docx_bytes as docx_of
from tests.conftest import skip_system
from tests.documents_fixtures import docx_bytes, odt_bytes, router

pytest.importorskip("lxml")
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PR = "http://schemas.openxmlformats.org/package/2006/relationships"
CT = "http://schemas.openxmlformats.org/package/2006/content-types"
XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"

# paragraphs as runs (text, style): whole sentences formatted, runs across a sentence's end, a word alone
PARAGRAPHS = [
    [("The plant is green. ", "b"), ("Where is the station?", "i")],
    [("I like ", "i"), ("the red car. We play ", "b"), ("tennis every Sunday.", "link")],
    [("Tom is ", "b"), ("my", "i"), (" friend and the house is big.", "link")],
    [("It is late. ", "i"), ("Do you want to come with me? ", "link"), ("The sky is blue.", "b")],
]


def formatted_docx() -> bytes:
    return docx_of(PARAGRAPHS)  # (the speed benchmark's builder: bold, italic, links)


def _word(w: str) -> str:  # (documents_fixtures.spanish, one word)
    core = w.strip(".,;:!?¿¡")
    start = w.find(core) if core else 0
    return w[:start] + core[::-1].upper() + w[start + len(core):]


def _styled_words(paragraph) -> list[tuple[str, str]]:
    """Each word of a python-docx paragraph with the formatting it shows: "link", "b", "i" or "" (plain)."""
    out = []
    for child in paragraph._p:
        if child.tag == f"{{{W}}}hyperlink":
            style, text = "link", "".join(t.text or "" for t in child.iter(f"{{{W}}}t"))
        elif child.tag == f"{{{W}}}r":
            from docx.text.run import Run

            run = Run(child, paragraph)
            style, text = "b" if run.bold else "i" if run.italic else "", run.text
        else:
            continue
        out += [(w, style) for w in text.split()]
    return out


def test_every_run_formatted_keeps_its_formatting_on_its_words():
    """A model that keeps the word order: each word comes back with exactly its own run's formatting, whether its
    run is a whole sentence (placed around its translation), runs across a sentence's end or is one word."""
    import docx

    calls = []
    out, _ = router(calls).translate_file(formatted_docx(), "docx", "doc.docx")
    got = [_styled_words(p) for p in docx.Document(io.BytesIO(out)).paragraphs]
    assert got == [[(_word(w), style) for text, style in runs for w in text.split()] for runs in PARAGRAPHS]
    # the 8 sentences, then the words of the 4 runs that are not whole sentences alone and their sentences
    # without them (the other sentences of their paragraphs are decoded once: paragraphs 1 and 4 ask nothing more)
    assert calls == [8, 4, 4]


def _check_opc(data: bytes) -> None:
    """What Word needs of a package: every part with a content type and every override a part; every internal
    relationship's target a part and every r:id (r:embed, ...) of a part one of its relationships; every w:t
    in a run, the spaces at its ends kept (xml:space)."""
    from lxml import etree

    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert z.testzip() is None
        names = set(z.namelist())
        parts = {n: z.read(n) for n in names}
    types = etree.fromstring(parts["[Content_Types].xml"])
    defaults = {d.get("Extension").lower() for d in types.iter(f"{{{CT}}}Default")}
    overrides = {o.get("PartName").lstrip("/") for o in types.iter(f"{{{CT}}}Override")}
    assert overrides <= names
    for name in names - {"[Content_Types].xml"}:
        assert name in overrides or name.rsplit(".", 1)[-1].lower() in defaults, f"{name}: no content type"
    rels = {}
    for name in (n for n in names if n.endswith(".rels")):
        source_dir = posixpath.dirname(posixpath.dirname(name))
        ids = {}
        for rel in etree.fromstring(parts[name]).iter(f"{{{PR}}}Relationship"):
            assert rel.get("Id") not in ids
            ids[rel.get("Id")] = rel.get("Target")
            if rel.get("TargetMode") != "External":
                target = rel.get("Target")
                path = target.lstrip("/") if target.startswith("/") else posixpath.normpath(
                    posixpath.join(source_dir, target))
                assert path in names, f"{name}: {target} is not in the package"
        rels[posixpath.join(source_dir, posixpath.basename(name)[: -len(".rels")])] = ids
    assert any(t.endswith("document.xml") for t in rels[""].values())
    for name in (n for n in names if n.endswith(".xml") and n != "[Content_Types].xml"):
        root = etree.fromstring(parts[name])
        for e in root.iter():
            for key, value in e.attrib.items():
                if key.startswith(f"{{{R}}}"):
                    assert value in rels.get(name, {}), f"{name}: {key} {value} has no relationship"
        for t in root.iter(f"{{{W}}}t"):
            assert t.getparent().tag == f"{{{W}}}r"
            if t.text and t.text != t.text.strip():
                assert t.get(XML_SPACE) == "preserve", f"{name}: {t.text!r} would lose its spaces"


def _check_odf(data: bytes) -> None:
    """What an OpenDocument reader needs: the mimetype first and stored, every member in the manifest and
    every file the manifest lists in the package."""
    from lxml import etree

    m = "{urn:oasis:names:tc:opendocument:xmlns:manifest:1.0}"
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert z.testzip() is None
        first = z.infolist()[0]
        assert first.filename == "mimetype" and first.compress_type == zipfile.ZIP_STORED
        assert z.read("mimetype") == b"application/vnd.oasis.opendocument.text"
        names = set(z.namelist())
        listed = {e.get(f"{m}full-path") for e in etree.fromstring(z.read("META-INF/manifest.xml")).iter(
            f"{m}file-entry")} - {"/"}
        for name in ("content.xml", "styles.xml"):
            etree.fromstring(z.read(name))
    assert listed <= names and names - {"mimetype", "META-INF/manifest.xml"} <= listed


@pytest.mark.parametrize("build", [docx_bytes, formatted_docx])
def test_a_written_docx_is_a_package_word_opens(build):
    import docx

    data = build()
    _check_opc(data)  # (the check passes the document as python-docx wrote it)
    out, _ = router().translate_file(data, "docx", "doc.docx")
    _check_opc(out)
    assert "EHT" in "\n".join(p.text for p in docx.Document(io.BytesIO(out)).paragraphs)


def test_the_package_check_finds_what_word_would_refuse():
    """The almost-right packages: a relationship to a part that is not there, a part without a content type,
    a w:t losing its spaces."""
    data = docx_bytes()

    def changed(member: str, edit) -> bytes:
        out = io.BytesIO()
        with zipfile.ZipFile(io.BytesIO(data)) as z, zipfile.ZipFile(out, "w") as w:
            for info in z.infolist():
                if info.filename != member:
                    w.writestr(info, z.read(info))
            if edit is not None:
                w.writestr(member, edit(z.read(member)))
        return out.getvalue()

    broken = [changed("word/media/image1.png", None),
              changed("[Content_Types].xml", lambda x: x.replace(b'Extension="png"', b'Extension="gif"')),
              changed("word/document.xml", lambda x: x.replace(b'<w:t xml:space="preserve">', b"<w:t>", 1))]
    for package in broken:
        with pytest.raises(AssertionError):
            _check_opc(package)


def test_a_written_odt_is_a_package_libreoffice_opens():
    pytest.importorskip("odf.opendocument")
    from odf import opendocument, teletype, text

    out, _ = router().translate_file(odt_bytes(), "odt", "doc.odt")
    _check_odf(out)
    doc = opendocument.load(io.BytesIO(out))
    assert "EHT TNALP SI" in "\n".join(teletype.extractText(p) for p in doc.getElementsByType(text.P))


def _shown_text(soffice: str, path) -> str:
    """The text LibreOffice shows of a document: its PDF's text (pdftotext, where poppler-utils is installed),
    else its own conversion to text; whitespace made single spaces, as lines wrap where the page ends."""
    pdf = shutil.which("pdftotext")
    subprocess.run([soffice, f"-env:UserInstallation=file://{path.parent}/profile", "--headless", "--convert-to",
                    "pdf" if pdf else "txt", "--outdir", str(path.parent / "out"), str(path)], check=True, timeout=120,
                   capture_output=True)
    made = path.parent / "out" / (path.stem + (".pdf" if pdf else ".txt"))
    if pdf:
        subprocess.run([pdf, str(made), str(made.with_suffix(".txt"))], check=True, timeout=60)
    return " ".join(made.with_suffix(".txt").read_text(encoding="utf-8-sig").split())


def _docx_texts(data: bytes) -> list[str]:
    import docx

    d = docx.Document(io.BytesIO(data))
    cells = [c.text for t in d.tables for row in t.rows for c in row.cells]
    return [p.text for p in d.paragraphs] + cells + [p.text for s in d.sections for part in (s.header, s.footer)
                                                     for p in part.paragraphs]


def _odt_texts(data: bytes) -> list[str]:
    """The text of each paragraph and heading of the body and the headers, a note's and a comment's left out
    (LibreOffice shows them elsewhere: the foot of the page, the margin)."""
    from lxml import etree

    t, skip = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}", ("note", "annotation")

    def shown(e) -> str:
        if etree.QName(e).localname in skip:
            return ""
        if etree.QName(e).localname in ("s", "tab", "line-break"):
            return " "
        return (e.text or "") + "".join(shown(c) + (c.tail or "") for c in e)

    with zipfile.ZipFile(io.BytesIO(data)) as z:
        roots = [etree.fromstring(z.read(n)) for n in ("content.xml", "styles.xml")]
    return [shown(p) for root in roots for p in root.iter(f"{t}p", f"{t}h")
            if not any(etree.QName(a).localname in skip for a in p.iterancestors())]


@pytest.mark.slow
@pytest.mark.parametrize("fmt, build, texts", [("docx", formatted_docx, _docx_texts), ("docx", docx_bytes, _docx_texts),
                                               ("odt", odt_bytes, _odt_texts)])
def test_libreoffice_converts_what_mtcli_wrote(tmp_path, fmt, build, texts):
    """LibreOffice opens each written document and shows every text of it translated (in the body, tables,
    headers and footers), none left in English: its PDF's text, where poppler's pdftotext is installed."""
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if not soffice:
        skip_system("LibreOffice", "Debian: apt-get install libreoffice-writer-nogui poppler-utils")
    data = build()
    out, _ = router().translate_file(data, fmt, f"doc.{fmt}")
    (tmp_path / f"doc.{fmt}").write_bytes(out)
    shown = _shown_text(soffice, tmp_path / f"doc.{fmt}")
    sources = [" ".join(s.split()) for s in texts(data) if s.strip()]
    assert len(sources) >= 4
    for source in sources:
        assert " ".join(map(_word, source.split())) in shown, source
        assert source not in shown
