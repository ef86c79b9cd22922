"""Documents read and written as bytes (mtcli.text.formats: docx, odt, po, xliff, json), built by the tests and
translated by a fake model (words reversed in capitals): the text translated in one decode call, every other
part of the document as it came (zip members byte for byte, XML trees equal but for their text)."""

import io
import json
import random
import zipfile

import pytest

from mtcli.errors import UserError
from mtcli.text.formats import Settings, format_for
from tests.documents_fixtures import (JSON, ODT_CONTENT, PO, XLIFF12, XLIFF20, docx_bytes, odt_bytes, router)

pytest.importorskip("lxml")
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def translate(data: bytes, fmt: str, settings: Settings = Settings(), calls=None):
    out, results = router(calls).translate_file(data, fmt, f"doc.{fmt}", settings)
    return out, results


def shape(xml: bytes, without: str = "") -> list:
    """An XML tree less its text: every element's tag and attributes, in order (xml:space less: it goes with
    the spaces at a text's ends, which the translation has or not)."""
    from lxml import etree

    space = "{http://www.w3.org/XML/1998/namespace}space"
    return [(e.tag, sorted((k, v) for k, v in e.attrib.items() if k != space)) for e in etree.fromstring(xml).iter()
            if isinstance(e.tag, str) and e.tag != without]


def members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {i.filename: z.read(i) for i in z.infolist()}


@pytest.mark.parametrize("name, fmt", [("a.docx", "docx"), ("A.ODT", "odt"), ("m.po", "po"), ("m.pot", "po"),
                                       ("m.xlf", "xliff"), ("m.xliff", "xliff"), ("en.json", "json"),
                                       ("a.doc", "text"), ("a.docx.txt", "text")])
def test_format_follows_the_extension(name, fmt):
    assert format_for(name) == fmt


def test_docx_text_translated_and_everything_else_kept():
    pytest.importorskip("docx")
    import docx

    data = docx_bytes()
    calls, more = [], []
    out, results = translate(data, "docx", calls=calls)
    translate(docx_bytes(30), "docx", calls=more)
    # the whole document in one call of the pipeline: its decode calls (the sentences, then the markup's
    # words alone and the lines without them) do not grow with the paragraphs, and the same paragraph 30 times
    # is decoded once (its italic sentence is a run of its own: no more translations to place it)
    assert len(calls) == len(more) <= 3 and sum(more) == sum(calls) == 12
    before, after = members(data), members(out)
    assert list(before) == list(after)
    changed = {n for n in before if before[n] != after[n]}
    assert changed == {"word/document.xml", "word/header1.xml", "word/footer1.xml"}  # comments, media, rels: as they came
    a, b = docx.Document(io.BytesIO(data)), docx.Document(io.BytesIO(out))
    assert [len(p.runs) for p in a.paragraphs] == [len(p.runs) for p in b.paragraphs]
    assert len(b.tables) == 1 and b.tables[0].cell(0, 0).text == "EHT ESUOH SI GIB."
    first = b.paragraphs[0]
    assert [(r.text, r.bold) for r in first.runs] == [("EHT TNALP SI ", None), ("NEERG", True),
                                                       (" DNA EHT YKS SI EULB.", None), ("", None)]  # (the comment's mark)
    assert [r.italic for r in b.paragraphs[2].runs] == [None, True]
    assert b.sections[0].header.paragraphs[0].text == "EHT TROPER FO EHT RAEY"
    links = b.paragraphs[1]._p.findall(f"{W}hyperlink")
    assert len(links) == 1 and "".join(t.text for t in links[0].iter(f"{W}t")) == "EHT EDIUG"
    assert b.part.rels[links[0].get("{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id")] \
        .target_ref == "https://example.org/guide"
    # the tree less its text: the same elements and attributes (runs, tables, the drawing, the comment marks)
    assert shape(before["word/document.xml"]) == shape(after["word/document.xml"])
    assert {r.line for r in results} <= set(range(1, 40))


def test_docx_run_mixing_text_and_a_break_is_split_not_lost():
    pytest.importorskip("docx")
    import docx

    d = docx.Document()
    p = d.add_paragraph()
    run = p.add_run("Open the door.")
    run.add_break()
    run.add_text("Where is the station?")
    buf = io.BytesIO()
    d.save(buf)
    out, _ = translate(buf.getvalue(), "docx")
    p = docx.Document(io.BytesIO(out)).paragraphs[0]
    assert len(p._p.findall(f".//{W}br")) == 1
    assert "NEPO" in p.text and "EREHW" in p.text


def test_odt_text_translated_and_everything_else_kept():
    data = odt_bytes()
    out, _ = translate(data, "odt")
    before, after = members(data), members(out)
    assert list(after)[0] == "mimetype" and zipfile.ZipFile(io.BytesIO(out)).infolist()[0].compress_type == zipfile.ZIP_STORED
    assert {n for n in before if before[n] != after[n]} == {"content.xml", "styles.xml"}
    # (a run of spaces, <text:s/>, is a space of the translation's)
    spaces = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}s"
    assert shape(before["content.xml"], spaces) == shape(after["content.xml"])
    text = after["content.xml"].decode()
    assert '<text:span text:style-name="B">NEERG</text:span>' in text
    assert 'xlink:href="https://example.org/guide">EHT EDIUG</text:a>' in text
    assert "EHT ETON SI TROHS." in text  # the footnote's own paragraph
    assert "Check this sentence" in text and "Ann" in text  # the comment untouched
    assert "EHT TROPER FO EHT RAEY" in after["styles.xml"].decode()
    odf = pytest.importorskip("odf.opendocument")
    odf.load(io.BytesIO(out))  # opens in its library again


def test_po_fills_msgstr_flags_fuzzy_and_keeps_the_rest():
    polib = pytest.importorskip("polib")
    out, _ = translate(PO.encode(), "po")
    before, after = polib.pofile(PO), polib.pofile(out.decode())
    assert [e.msgid for e in before] == [e.msgid for e in after] and len(after) == 6
    assert [e.msgid for e in after.obsolete_entries()] == ["An old message"]
    assert after.obsolete_entries()[0].msgstr == "Un mensaje viejo"
    hello, files, house, menu, saving = list(after)[:5]
    assert hello.msgstr.startswith("OLLEH") and hello.flags == ["fuzzy", "python-format"]
    assert hello.comment == "TRANSLATORS: the greeting on the first page"
    assert hello.occurrences == [("src/app.py", "10"), ("src/app.py", "42")]
    assert files.msgstr_plural[0] != files.msgstr_plural[1] and "fuzzy" in files.flags
    assert after.metadata["Plural-Forms"] == "nplurals=2; plural=(n != 1);" and after.metadata["Language"] == "es"
    assert house.msgstr == "La casa es grande." and "fuzzy" not in house.flags  # translated already: left
    assert menu.msgctxt == "menu" and menu.msgstr == "NEPO EHT ROOD"
    assert saving.msgstr.endswith("\n") and not saving.msgstr.endswith(" \n")
    again = polib.pofile(translate(PO.encode(), "po", Settings(overwrite=True))[0].decode())
    assert again[2].msgstr == "EHT ESUOH SI GIB." and "fuzzy" in again[2].flags


def test_po_syntax_error_names_its_line():
    pytest.importorskip("polib")
    broken = PO.replace('msgctxt "menu"', 'msgctxt "menu" stray words')
    line = broken.splitlines().index('msgctxt "menu" stray words') + 1
    with pytest.raises(UserError, match=rf"^doc\.po: not a PO file: Syntax error in po file doc\.po \(line {line}\)"):
        translate(broken.encode(), "po")


@pytest.mark.parametrize("source, state", [(XLIFF12, "needs-review-translation"), (XLIFF20, "translated")])
def test_xliff_targets_for_review_with_inline_tags(source, state):
    from lxml import etree

    out, _ = translate(source.encode(), "xliff")
    root = etree.fromstring(out)
    ns = root.nsmap[None]
    targets = list(root.iter(f"{{{ns}}}target"))
    assert [etree.tostring(s) for s in root.iter(f"{{{ns}}}source")] == \
        [etree.tostring(s) for s in etree.fromstring(source.encode()).iter(f"{{{ns}}}source")]
    first = etree.tostring(targets[0], encoding="unicode")
    assert "NEERG</" in first and ("<g " in first or "<pc " in first)
    second = etree.tostring(targets[1], encoding="unicode")
    assert ('<x id="icon"/>' in second or '<ph id="2"/>' in second) and "EHT ROOD" in second
    if state == "translated":
        assert [s.get("state") for s in root.iter(f"{{{ns}}}segment")] == ["translated", "translated", "final"]
        assert root.get("trgLang") == "es"
    else:
        assert [t.get("state") for t in targets] == [state, state, None, state]
        assert "<ph id=\"p\">{amount}</ph>" in etree.tostring(targets[3], encoding="unicode")
        assert next(root.iter(f"{{{ns}}}file")).get("target-language") == "es"
    assert any(t.text == "La casa es grande." for t in targets)  # a target already there: left


def test_json_values_translated_keys_and_the_rest_kept():
    out, _ = translate(JSON.encode(), "json")
    doc = json.loads(out)
    assert list(doc) == ["title", "menu", "steps", "@title", "url"]
    assert doc["title"] == "EHT TROPER FO EHT RAEY"
    assert doc["menu"] == {"open": "NEPO EHT ROOD", "count": 3, "enabled": True, "none": None}
    assert doc["steps"][1].startswith("¿") or "EREHW" in doc["steps"][1]
    assert doc["@title"] == {"description": "The page's title"} and doc["url"] == "https://example.org/guide"
    assert out.decode().startswith('{\n  "title"') and out.endswith(b"}\n")
    only = json.loads(translate(JSON.encode(), "json", Settings(keys=("menu.*",)))[0])
    assert only["title"] == "The report of the year" and only["menu"]["open"] == "NEPO EHT ROOD"


@pytest.mark.parametrize("keys, unmatched", [
    (("zzz",), ["zzz"]), (("[",), ["["]), (("menu.*", "menu"), ["menu"]), (("menu.*", "Menu.*"), ["Menu.*"]),
    (("*.open", "title"), []), (("menu.count",), ["menu.count"]),  # (a number: no text)
])
def test_json_keys_that_match_no_text_are_warned(keys, unmatched):
    """Attack 2026-12-02b: `--keys zzz` (a typo) left the whole file as it came, exit 0, with no word said. Each glob
    that matches no text is named; the others still translate."""
    out, results = translate(JSON.encode(), "json", Settings(keys=keys))
    warned = [w for r in results for w in r.warnings if "--keys" in w]
    assert warned == [f"--keys {p!r} matched no text of doc.json" for p in unmatched]
    assert (json.loads(out)["menu"]["open"] == "NEPO EHT ROOD") == any(k in ("menu.*", "*.open") for k in keys)


def test_json_numbers_and_lone_surrogates_come_out_as_they_went_in():
    """The attack: 1e999 came out as Infinity (not JSON), an integer of 5,000 digits was a ValueError traceback,
    a lone "\\udfff" a UnicodeEncodeError; 0.10, 1E5, -0 and NaN were rewritten (0.1, 100000.0, 0, NaN)."""
    numbers = '[0.10, 1E5, -0, 1.0000000000000000001, 1e999, -Infinity, NaN, ' + "7" * 5000 + "]"
    source = '{"n": ' + numbers + ', "t": "Open the door", "s": "\\udfff", "e": "\\ud83d\\ude00"}\n'
    out, _ = translate(source.encode(), "json")
    assert out.decode() == source.replace("Open the door", "NEPO EHT ROOD")


def test_a_json_key_twice_in_one_object_is_refused_naming_it():
    """The first value was dropped (a dict keeps the last): its text missing from the output, no warning. The
    near miss: the same key in two objects is no error."""
    with pytest.raises(UserError, match="the key 'title' is twice in one object") as e:
        translate(b'{"menu": {"title": "Open", "title": "Close"}}', "json")
    assert "\n" not in str(e.value)
    out, _ = translate(b'{"a": {"title": "Open"}, "b": {"title": "Close"}}', "json")
    assert json.loads(out) == {"a": {"title": "NEPO"}, "b": {"title": "ESOLC"}}


@pytest.mark.parametrize("fmt, data, problem", [
    ("json", b'{"a": "b",\n "c": }', r"line 2, column 7"),
    ("json", b'"just a string"', "expected an object"),
    ("xliff", b"<xliff><file/></xliff>", "not XLIFF"),
    ("xliff", b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
              b'<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2"><file><body><trans-unit id="1">'
              b"<source>&b;</source></trans-unit></body></file></xliff>", "DTD"),
    ("xliff", b"<xliff", "not well-formed XML"),
    ("docx", b"PK\x03\x04 truncated", "not a readable zip"),
    ("docx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(100), "encrypted"),
    ("odt", b"", "not a readable zip"),
    # every form is written for each plural message: 3,000,000 forms wrote 89 MB in two minutes from 150 bytes
    ("po", b'msgid ""\nmsgstr ""\n"Plural-Forms: nplurals=3000000; plural=0;\\n"\n\nmsgid "One file"\n'
           b'msgid_plural "%d files"\nmsgstr[0] ""\n', "nplurals=3000000; a language has 1 to 6 forms"),
])
def test_malformed_documents_are_one_line_errors(fmt, data, problem):
    with pytest.raises(UserError, match=problem) as e:
        translate(data, fmt)
    assert "\n" not in str(e.value) and str(e.value).startswith(f"doc.{fmt}")


@pytest.mark.parametrize("data, message", [
    (b'{"a": "caf\xe9"}', "doc.json: not UTF-8 (byte offset 10): JSON is UTF-8"),
    (b"[" * 100_000 + b"]" * 100_000, "doc.json: nested too deeply"),  # (json.loads itself recurses)
    (b'{"a": "b"} x', "doc.json: not JSON: line 1, column 12: Extra data"),
    (b"42", "doc.json: not i18n JSON: expected an object or a list of strings"),
])
def test_json_refusals_say_what_is_wrong(data, message):
    with pytest.raises(UserError) as e:
        translate(data, "json")
    assert str(e.value) == message
    assert translate(b'\xef\xbb\xbf{"a": "Open the door"}', "json")[0] == b'{"a": "NEPO EHT ROOD"}'  # a BOM: UTF-8


def test_package_refusals_name_the_file_and_its_kind():
    pytest.importorskip("docx")
    parts = members(docx_bytes(1))
    with pytest.raises(UserError) as e:
        translate(zipped({k: v for k, v in parts.items() if k != "word/document.xml"}), "docx")
    assert str(e.value) == "doc.docx: no word/document.xml in the package: not a docx document, or a damaged one"
    laughs = (b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
              + b"".join(b'<!ENTITY %c "%s">' % (c, (b"&%c;" % (c - 1)) * 10) for c in b"cdefghi")
              + b']><d>&i;</d>')  # a billion laughs: refused in one line (libxml2 stops its amplification), never expanded
    with pytest.raises(UserError) as e:
        translate(zipped({**parts, "word/document.xml": laughs}), "docx")
    assert str(e.value).startswith("doc.docx: word/document.xml: ") and "\n" not in str(e.value)


def test_json_read_but_too_deep_to_walk_is_refused(monkeypatch):
    deep: dict = {"a": "Open the door"}
    for _ in range(100_000):  # (built without recursion: what json.loads could give near its own limit)
        deep = {"a": deep}
    monkeypatch.setattr(json, "loads", lambda text, **how: deep)
    with pytest.raises(UserError) as e:
        translate(b"{}", "json")
    assert str(e.value) == "doc.json: nested too deeply"


def test_json_written_as_it_came_but_for_its_texts():
    """Line ends (CRLF, a final one or none), non-ASCII text as itself, and the values after an "@" key; the file's
    layout byte for byte (the attack of 2026-12-03's Q: spaces added after ":" and ",", an object on one line spread
    over three)."""
    out, _ = translate(b'{\r\n  "@a": {"description": "x"},\r\n  "b": "Open the door"\r\n}\r\n', "json")
    assert out == b'{\r\n  "@a": {"description": "x"},\r\n  "b": "NEPO EHT ROOD"\r\n}\r\n'
    assert translate('["Caf\u00e9 open"]'.encode(), "json")[0] == '["\u00c9FAC NEPO"]'.encode()
    assert translate(b'["Open the door"]\r', "json")[0] == b'["NEPO EHT ROOD"]\r'
    assert translate(b'{"a":"Good morning.","b":"Good night."}\n', "json")[0] == \
        b'{"a":"DOOG GNINROM.","b":"DOOG THGIN."}\n'
    source = b'{\n    "a": "Open the door",\n    "b": {"c": "I \\u2764 \\"it\\"", "n": 1.50},\t"d" :  [null, "\\u2764"]\n}'
    assert translate(source, "json")[0] == source.replace(b"Open the door", b"NEPO EHT ROOD").replace(
        b'"I \\u2764 \\"it\\""', '"I \u2764 \\"TI\\""'.encode())


@pytest.mark.parametrize("root, problem", [
    ("<xliff><file/></xliff>", "root element 'xliff', no namespace"),
    ('<xliff xmlns="urn:oasis:names:tc:xliff:document:1.1"/>', "root element 'xliff' in urn:oasis:names:tc:xliff:document:1.1"),
    ('<file xmlns="urn:oasis:names:tc:xliff:document:1.2"/>', "root element 'file' in urn:oasis:names:tc:xliff:document:1.2"),
])
def test_xliff_of_another_version_or_root_is_named(root, problem):
    with pytest.raises(UserError) as e:
        translate(root.encode(), "xliff")
    assert str(e.value) == f"doc.xliff: not XLIFF 1.2 or 2.0 ({problem})"


XLIFF_UNITS = {  # units that are almost like the ones translated
    "1.2": ('<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2"><file target-language="es-MX"><body>'
            '<trans-unit id="1"><target>Nothing to translate from.</target></trans-unit>'
            '<trans-unit id="2"><source>Open the door.</source><target> <g id="g"/> </target></trans-unit>'
            '<trans-unit id="3"><source>The house is big.</source><target/></trans-unit>'
            '<trans-unit id="4" translate="no"><source>Keep this text.</source></trans-unit></body></file></xliff>'),
    "2.0": ('<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="es-MX">'
            '<file id="f"><unit id="1"><segment><target>Nothing to translate from.</target></segment></unit>'
            '<unit id="2"><segment><source>Open the door.</source><target> <ph id="g"/> </target></segment></unit>'
            '<unit id="3"><segment><source>The house is big.</source><target/></segment></unit>'
            '<unit id="4" translate="no"><segment><source>Keep this text.</source></segment></unit></file></xliff>'),
}


@pytest.mark.parametrize("version", XLIFF_UNITS)
def test_xliff_units_almost_like_the_translated_ones(version):
    """A unit without a source is passed over (not the end of the file), a target of spaces and a tag
    is still to fill, an empty target is filled (not a second one added), translate="no" is kept, and
    the file's own target language stays."""
    from lxml import etree

    out, results = translate(XLIFF_UNITS[version].encode(), "xliff")
    root = etree.fromstring(out)
    ns = root.tag[1:].split("}")[0]
    units = list(root.iter(f"{{{ns}}}trans-unit" if version == "1.2" else f"{{{ns}}}unit"))
    targets = [["".join(t.itertext()) for t in u.iter(f"{{{ns}}}target")] for u in units]
    assert targets == [["Nothing to translate from."], ["NEPO EHT ROOD."], ["EHT ESUOH SI GIB."], []]
    assert [r.line for r in results] == [2, 3]
    lang = next(root.iter(f"{{{ns}}}file")).get("target-language") if version == "1.2" else root.get("trgLang")
    assert lang == "es-MX"


def test_po_lines_wrapped_at_78_as_gettext_does():
    pytest.importorskip("polib")
    words = ["door", "house", "a", "plant", "green", "sky", "station", "is", "the", "blue"]
    messages = [" ".join(words[(k + i) % len(words)] for i in range(n)) + "." for k in range(10) for n in (14, 17, 21)]
    po = "".join(f'msgid "{m}"\nmsgstr ""\n\n' for m in messages)
    lines = translate(po.encode(), "po")[0].decode().splitlines()
    assert max(map(len, lines)) == 78, max(map(len, lines))


def test_each_text_is_numbered_for_its_warnings_from_one():
    """A text's warnings name it by its number: its line's (JSON: two strings on line 4), the unit's (XLIFF: the
    third has its target), the paragraph's (docx: paragraphs without words are counted too)."""
    pytest.importorskip("docx")
    numbers = {key: [r.line for r in translate(data, key.rstrip("2"))[1]] for key, data in (
        ("json", JSON.encode()), ("xliff", XLIFF12.encode()), ("xliff2", XLIFF20.encode()), ("odt", odt_bytes()),
        ("docx", docx_bytes(1)))}
    assert numbers == {"json": [2, 3, 4, 4, 6], "xliff": [1, 2, 4], "xliff2": [1, 2], "odt": [1, 2, 3, 4, 5, 6, 7, 8],
                       "docx": [1, 2, 3, 4, 7, 9, 10]}


def zipped(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
    return out.getvalue()


def test_hostile_packages_are_refused():
    pytest.importorskip("docx")
    parts = members(docx_bytes(1))
    without = {k: v for k, v in parts.items() if k != "word/document.xml"}
    with pytest.raises(UserError, match="no word/document.xml in the package"):
        translate(zipped(without), "docx")
    with pytest.raises(UserError, match="zip bomb"):
        translate(zipped({**parts, "word/media/big.bin": bytes(8 << 20)}), "docx")
    bomb = (b'<?xml version="1.0"?><!DOCTYPE w [<!ENTITY a "aaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>'
            b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">&b;</w:document>')
    with pytest.raises(UserError, match="DTD"):
        translate(zipped({**parts, "word/document.xml": bomb}), "docx")
    with pytest.raises(UserError, match="not a Word document"):
        translate(zipped({"[Content_Types].xml": b'<Types xmlns="http://schemas.openxmlformats.org/package/2006/'
                                                  b'content-types"/>'}), "docx")
    with pytest.raises(UserError, match="no content.xml"):
        translate(zipped({"mimetype": b"application/vnd.oasis.opendocument.text"}), "odt")
    # almost right: a large member that packs well but not like a bomb's is taken
    words = random.Random(0).choices(["plant", "green", "sky", "blue", "door", "7", " ", "\n"], k=600_000)
    translate(zipped({**parts, "word/media/noise.bin": "".join(words).encode()}), "docx")


def test_a_missing_library_names_the_pip_extra(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "polib" else real(name, *a))
    with pytest.raises(UserError, match=r"pip install 'mtcli\[documents\]'"):
        translate(PO.encode(), "po")


def test_odt_with_a_lost_footnote_keeps_it():
    """The model dropping an item that stands for a note: the note is put back at the paragraph's end."""
    from mtcli.route import Router
    from tests.text.fakes import engine

    def drop(lines):
        return [[(line.upper(), -1.0)] for line in lines]

    out, _ = Router(lambda d: engine(drop), fixed="en-es").translate_file(odt_bytes(ODT_CONTENT), "odt", "x.odt")
    assert members(out)["content.xml"].count(b"<text:note ") == 1


@pytest.mark.parametrize("placeholder", [
    "{0}", "https://example.org/a", "user@example.org", "%d", "%s", "%(name)s", "{name}", "{{count}}", "%1$s", "${amount}",
])
def test_placeholders_kept_in_po_json_and_xliff(placeholder):
    pytest.importorskip("polib")
    import polib

    message = f"The door {placeholder} is open."
    po = polib.pofile(translate(f'msgid ""\nmsgstr ""\n\nmsgid "{message}"\nmsgstr ""\n'.encode(), "po")[0].decode())
    doc = json.loads(translate(json.dumps({"a": message}).encode(), "json")[0])
    xliff = translate(XLIFF12.replace("The house is big.</source><target>La casa es grande.</target>",
                                      f"{message}</source>").encode(), "xliff")[0].decode()
    assert placeholder in po[0].msgstr and placeholder in doc["a"] and xliff.count(placeholder) == 2


@pytest.mark.parametrize("sep", ["\n", "\t", "\n\n", "\t\t", " \n  ", "\r\n", "\n\t", "\u2028"])
@pytest.mark.parametrize("edges", [("", ""), ("\n", "\n"), ("", "\n")])
def test_line_breaks_and_tabs_inside_a_text_stay_between_its_translations(sep, edges):
    """A message's own line breaks and tabs in po, json and xliff (xml:space="preserve") come out where they
    were, between the translations of the pieces they part ("First line.\\nSecond line." had come out as one
    line, "Name:\\tvalue" as one phrase, in every format read whole)."""
    pytest.importorskip("polib")
    import polib
    from lxml import etree

    message = f"{edges[0]}Open the door.{sep}Close the window{sep}{sep}42{edges[1]}"
    expected = f"{edges[0]}NEPO EHT ROOD.{sep}ESOLC EHT WODNIW{sep}{sep}42{edges[1]}"
    po = translate(f'msgid ""\nmsgstr ""\n\nmsgid "{polib.escape(message)}"\nmsgstr ""\n'.encode(), "po")[0].decode()
    # (read by hand: polib cuts its lines at U+2028 too)
    msgstr = po[po.rindex("msgstr ") + 7:].split("\n")
    assert polib.unescape("".join(line.strip()[1:-1] for line in msgstr if line.strip().startswith('"'))) == expected
    assert json.loads(translate(json.dumps({"a": message}).encode(), "json")[0])["a"] == expected
    unit = etree.Element("source")
    unit.text = message
    xml = XLIFF12.replace("<source>The house is big.</source><target>La casa es grande.</target>",
                          '<source xml:space="preserve">' + etree.tostring(unit, encoding="unicode")[8:])
    if "\r" not in sep and "\u2028" not in sep:  # (XML reads a CR as a line feed; U+2028 is not whitespace to it)
        ns = "{urn:oasis:names:tc:xliff:document:1.2}"
        out = etree.fromstring(translate(xml.encode(), "xliff")[0])
        assert [t.text for t in out.iter(f"{ns}target") if t.text and "42" in t.text] == [expected]


def po_file(header: str, entries: str) -> bytes:
    """A PO file: its header's fields (each line "Name: value") and its entries."""
    fields = "".join(f'"{line}\\n"\n' for line in header.splitlines())
    return f'msgid ""\nmsgstr ""\n{fields}\n{entries}'.encode()


PLURAL = 'msgid "One door"\nmsgid_plural "%d doors"\nmsgstr[0] ""\nmsgstr[1] ""\n'


@pytest.mark.parametrize("header, forms", [
    ("", 2), ("Plural-Forms: plural=(n != 1);", 2),  # no nplurals: English's and Spanish's two
    ("Plural-Forms: nplurals=1; plural=0;", 2),  # (one form: Spanish still writes two)
    ("Plural-Forms: nplurals=6; plural=(n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5);", 6),
])
def test_po_plural_forms_each_written_from_its_source(header, forms):
    polib = pytest.importorskip("polib")
    po = polib.pofile(translate(po_file(header, PLURAL), "po")[0].decode())
    assert po[0].msgstr_plural == {0: "ENO ROOD", **{n: "%d SROOD" for n in range(1, forms)}}
    assert po.metadata["Plural-Forms"] == (header.split(": ", 1)[1] if header else "nplurals=2; plural=(n != 1);")


def test_po_without_plurals_gets_no_plural_forms_header():
    polib = pytest.importorskip("polib")
    po = polib.pofile(translate(po_file("Language: es", 'msgid "Open the door"\nmsgstr ""\n'), "po")[0].decode())
    assert "Plural-Forms" not in po.metadata and po[0].msgstr == "NEPO EHT ROOD"


def test_po_translated_plurals_and_obsolete_entries_are_left_and_the_rest_translated():
    polib = pytest.importorskip("polib")
    done = 'msgid "One cat"\nmsgid_plural "%d cats"\nmsgstr[0] "Un gato"\nmsgstr[1] "%d gatos"\n\n'
    old = '#~ msgid "An old message"\n#~ msgstr ""\n\n'
    po = polib.pofile(translate(po_file("", done + old + PLURAL), "po")[0].decode())
    cats, doors = po.translated_entries() + po.fuzzy_entries()
    assert cats.msgstr_plural == {0: "Un gato", 1: "%d gatos"} and "fuzzy" not in cats.flags
    assert doors.msgstr_plural == {0: "ENO ROOD", 1: "%d SROOD"}
    assert [(e.msgid, e.msgstr) for e in po.obsolete_entries()] == [("An old message", "")]


def test_po_warnings_name_the_message_line():
    _, results = translate(po_file("", '\nmsgid "The door"\nmsgstr ""\n\n' + PLURAL), "po")
    assert [r.line for r in results] == [5, 8, 8]  # (the plural's two texts: its msgid's line)


def test_json_warnings_name_the_string_s_line():
    """Attack d's N: a JSON string's number was given as its line ("line 3" for a string on line 4); metadata's
    strings (ARB's "@" keys) and keys are no texts but have lines too."""
    data = ('{\n  "x": "Hello.",\n  "@x": {"note": "a \\" quote"},\n  "a": ["Fine.",\n    "The door"],\n'
            '  "b \\" key": "The car"\n}\n')
    _, results = translate(data.encode(), "json")
    assert [r.line for r in results] == [2, 4, 5, 6]


def test_po_keeps_its_language_and_its_charset():
    polib = pytest.importorskip("polib")
    latin1 = po_file("Language: es-MX\nContent-Type: text/plain; charset=ISO-8859-1", 'msgid "Caf\u00e9 open"\nmsgstr ""\n')
    out = translate(latin1.decode().encode("latin-1"), "po")[0]
    assert "\u00c9FAC NEPO".encode("latin-1") in out
    po = polib.pofile(out.decode("latin-1"))
    assert po.metadata["Language"] == "es-MX" and po.encoding.lower() == "iso-8859-1"


def test_a_po_translation_its_charset_cannot_hold_is_utf8_and_says_so():
    """An English file in ASCII (all its words are): the Spanish is written in UTF-8, and the header says
    UTF-8 (it said ASCII: gettext's msgfmt read the file as broken)."""
    polib = pytest.importorskip("polib")
    from mtcli.route import Router
    from tests.text.fakes import engine

    ascii_po = po_file("Content-Type: text/plain; charset=ASCII", 'msgid "The boy"\nmsgstr ""\n')
    out, _ = Router(lambda d: engine(lambda lines: [[("El ni\u00f1o", -1.0)] for _ in lines]), fixed="en-es").translate_file(
        ascii_po, "po", "m.po")
    po = polib.pofile(out.decode())
    assert po[0].msgstr == "El ni\u00f1o" and po.metadata["Content-Type"] == "text/plain; charset=UTF-8"


def damaged(data: bytes, member: str) -> bytes:
    """The package with bytes inside one member's compressed data changed (its headers intact)."""
    info = zipfile.ZipFile(io.BytesIO(data)).getinfo(member)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    out = bytearray(data)
    for k in range(start + 8, start + 30):
        out[k] ^= 0x55
    return bytes(out)


def test_damaged_members_and_unknown_zip_versions_are_one_line():
    """Damaged compressed data raises zlib's and lzma's own errors, an unknown zip version NotImplementedError:
    each was a traceback."""
    pytest.importorskip("docx")
    with pytest.raises(UserError, match=r"^doc\.docx: word/document\.xml: cannot be unpacked \(damaged\?\): Error -3"):
        translate(damaged(zipped(members(docx_bytes(1))), "word/document.xml"), "docx")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_LZMA) as z:
        z.writestr("content.xml", ODT_CONTENT)
    with pytest.raises(UserError, match=r"^doc\.odt: content\.xml: cannot be unpacked \(damaged\?\): Corrupt input data"):
        translate(damaged(out.getvalue(), "content.xml"), "odt")
    data = bytearray(zipped(members(docx_bytes(1))))
    central = data.index(b"PK\x01\x02")
    data[central + 6] = 99  # version needed to extract: 9.9
    with pytest.raises(UserError, match=r"^doc\.docx: not a readable zip package \(damaged or truncated\?\): zip file version 9\.9"):
        translate(bytes(data), "docx")


def claiming(*sizes: tuple[int, int], flags: int = 0) -> bytes:
    """A package whose central directory claims these (unpacked, packed) sizes for members "m0", "m1", ...
    (what open_zip judges before anything is unpacked), the last member with these flag bits."""
    data = bytearray(zipped({f"m{k}": b"x" for k in range(len(sizes))}))
    at = 0
    for k, (unpacked, packed) in enumerate(sizes):
        at = data.index(b"PK\x01\x02", at + 1)
        data[at + 20:at + 28] = packed.to_bytes(4, "little") + unpacked.to_bytes(4, "little")
        data[at + 8:at + 10] = (flags if k == len(sizes) - 1 else 0).to_bytes(2, "little")
    return bytes(data)


def test_open_zip_bounds_near_misses(monkeypatch):
    """Each bound taken at its value and refused one past it: a member over 1 MB unpacked 200 times its
    packed size (and not at 1 MB, nor at 200 times), the sum of all members, the number of members;
    encryption refused by its flag bit alone, on any member."""
    from mtcli.text.formats import package

    for sizes in ([(1 << 20, 1)], [(1 << 20, 0)], [(200 * 6000, 6000)], [(2 << 20, 2 << 20)], [(1000, 0), (1 << 28, 1 << 28), ((1 << 28) - 1000, 1 << 28)]):
        assert len(package.open_zip(claiming(*sizes), "a.docx").infolist()) == len(sizes)
    for sizes, culprit in (([(200 * 6000 + 1, 6000)], "m0"), ([(10, 10), ((1 << 20) + 1, 0)], "m1")):
        with pytest.raises(UserError) as e:
            package.open_zip(claiming(*sizes), "a.docx")
        total = sum(unpacked for unpacked, _ in sizes)
        assert str(e.value) == f"a.docx: unpacks to {total:,} bytes ({culprit}): a zip bomb, or a document over 512 MB"
    with pytest.raises(UserError) as e:
        package.open_zip(claiming((1 << 28, 1 << 28), ((1 << 28) + 1, 1 << 28)), "a.odt")
    assert str(e.value) == "a.odt: unpacks to 536,870,913 bytes (all members): a zip bomb, or a document over 512 MB"
    assert package.open_zip(claiming((10, 10), (10, 10), flags=8), "a.docx")  # (8: sizes after the data, not a password)
    with pytest.raises(UserError) as e:
        package.open_zip(claiming((10, 10), (10, 10), flags=1), "a.docx")
    assert str(e.value) == "a.docx: an encrypted package: give an unencrypted document"
    monkeypatch.setattr(package, "MAX_MEMBERS", 2)
    assert package.open_zip(claiming((1, 1), (1, 1)), "a.docx")
    with pytest.raises(UserError) as e:
        package.open_zip(claiming((1, 1), (1, 1), (1, 1)), "a.docx")
    assert str(e.value) == "a.docx: 3 members in the package; at most 2"
    for data, problem in ((package.OLE + bytes(100), "an encrypted document (or a Word 97-2003 one): give an "
                           "unencrypted .docx/.odt"),
                          (b"PK\x03\x04" + bytes(30), "not a readable zip package (damaged or truncated?): File is not a zip file")):
        with pytest.raises(UserError) as e:
            package.open_zip(data, "a.docx")
        assert str(e.value) == f"a.docx: {problem}"


def test_a_member_exactly_at_the_unpacked_bound_is_read_whole_one_byte_more_refused(monkeypatch):
    from mtcli.text.formats import package

    monkeypatch.setattr(package, "MAX_UNPACKED", 1 << 20)
    at, over = bytes(range(256)) * 4096, bytes(range(256)) * 4096 + b"!"
    zf = zipfile.ZipFile(io.BytesIO(zipped({"at": at, "over": over})))
    assert package.read_member(zf, "at", "a.odt") == at
    with pytest.raises(UserError) as e:
        package.read_member(zf, "over", "a.odt")
    assert str(e.value) == "a.odt: over unpacks to over 1 MB: a zip bomb?"
    lying = bytearray(zipped({"a": b"x" * 100_000}))
    central = lying.index(b"PK\x01\x02")
    lying[central + 24:central + 28] = (1000).to_bytes(4, "little")  # unpacks to 100 times what it declares
    with pytest.raises(UserError) as e:  # (read to the declared size, where its CRC fails: no more is unpacked)
        package.read_member(zipfile.ZipFile(io.BytesIO(bytes(lying))), "a", "a.odt")
    assert str(e.value) == "a.odt: a: cannot be unpacked (damaged?): Bad CRC-32 for file 'a'"


@pytest.mark.parametrize("name, kind", [("my.report.DOCX", "docx"), ("report", "Office"), ("v1.2/report", "Office")])
def test_a_missing_member_names_the_kind_from_the_last_extension(name, kind):
    from mtcli.text.formats import package

    zf = zipfile.ZipFile(io.BytesIO(zipped({"a": b"a"})))
    with pytest.raises(UserError) as e:
        package.read_member(zf, "content.xml", name)
    assert str(e.value) == f"{name}: no content.xml in the package: not a {kind} document, or a damaged one"


def test_xml_cdata_comments_are_written_back_as_they_came():
    source = XLIFF12.replace('<trans-unit id="2">', '<trans-unit id="2"><note><![CDATA[Tap <b> & go]]></note><!-- UI -->')
    out = translate(source.encode(), "xliff")[0].decode()
    assert "<note><![CDATA[Tap <b> & go]]></note><!-- UI -->" in out and "EHT ROOD" in out


def test_docx_with_a_relative_namespace_uri_is_translated():
    """Canonical XML (how run properties are compared) refuses a relative namespace URI: it was a traceback."""
    pytest.importorskip("docx")
    parts = members(docx_bytes(1))
    document = parts["word/document.xml"].replace(b'xmlns:wpi="http://schemas.microsoft.com/office/word/2010/wordprocessingInk"',
                                                  b'xmlns:wpi="wordprocessingInk"')
    assert document != parts["word/document.xml"]
    out, _ = translate(zipped({**parts, "word/document.xml": document}), "docx")
    assert b"NEERG" in members(out)["word/document.xml"]


def test_xml_limits_near_misses():
    from mtcli.text.formats import package

    assert package.parse_xml(b"<a>" * 256 + b"x" + b"</a>" * 256, "a.xlf").tag == "a"  # lxml's depth without huge_tree
    with pytest.raises(UserError, match=r"^a\.xlf: not well-formed XML: Excessive depth in document: 256"):
        package.parse_xml(b"<a>" * 257 + b"x" + b"</a>" * 257, "a.xlf")
    with pytest.raises(UserError, match=r"^a\.xlf: has a DTD"):  # a DTD named, none written in: refused too
        package.parse_xml(b'<!DOCTYPE a SYSTEM "http://example.org/a.dtd"><a/>', "a.xlf")
    with pytest.raises(UserError, match=r"^a\.xlf: has a DTD"):  # a bare DOCTYPE: neither subset, refused alike
        package.parse_xml(b"<!DOCTYPE a><a/>", "a.xlf")


def test_an_external_entity_is_never_read(tmp_path):
    """The file an entity names is not opened (resolving it would read "<" and fail as XML), nor is the
    entity left undefined (lxml's own default): the DTD is what is refused."""
    from mtcli.text.formats import package

    (tmp_path / "x.xml").write_text("<")
    data = f'<!DOCTYPE a [<!ENTITY x SYSTEM "{(tmp_path / "x.xml").as_uri()}">]><a>&x;</a>'.encode()
    with pytest.raises(UserError) as e:
        package.parse_xml(data, "a.xlf")
    assert str(e.value) == "a.xlf: has a DTD (<!DOCTYPE ...>): refused (entities could expand without bound)"


CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml."
PARAGRAPH = f'<w:document xmlns:w="{W[1:-1]}"><w:body><w:p><w:r><w:t>The door</w:t></w:r></w:p></w:body></w:document>'


def word(overrides: str, parts: dict[str, str]) -> bytes:
    """A Word package of these [Content_Types].xml overrides and parts (all Word reads of it)."""
    types = f'<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">{overrides}</Types>'
    return zipped({"[Content_Types].xml": types.encode(), **{k: v.encode() for k, v in parts.items()}})


def test_docx_content_types_near_misses():
    main = f'<Override PartName="/word/document.xml" ContentType="{CONTENT_TYPE}document.main+xml"/>'
    header = f'<Override PartName="/Xtra.xml" ContentType="{CONTENT_TYPE}header+xml"/>'
    odd = '<Override ContentType="image/png"/><Override PartName="/word/x.xml"/>'  # (each lacks an attribute)
    out, _ = translate(word(main + header + odd, {"word/document.xml": PARAGRAPH, "Xtra.xml": PARAGRAPH}), "docx")
    assert members(out)["Xtra.xml"].count(b"EHT ROOD") == members(out)["word/document.xml"].count(b"EHT ROOD") == 1
    with pytest.raises(UserError, match=r"^doc\.docx: no main document part in \[Content_Types\]\.xml"):
        translate(word(header, {"Xtra.xml": PARAGRAPH}), "docx")  # a header alone is no document
    with pytest.raises(UserError) as e:
        translate(zipped({"word/document.xml": PARAGRAPH.encode()}), "docx")
    assert str(e.value) == "doc.docx: no [Content_Types].xml in the package: not a docx document, or a damaged one"
    with pytest.raises(UserError, match=r"^doc\.docx: \[Content_Types\]\.xml: not well-formed XML"):
        translate(zipped({"[Content_Types].xml": b"<Types"}), "docx")
