"""Issue 38, left over from the outside attack: text a .docx paragraph holds inside a wrapper of runs (a tracked
insertion or move, a smart tag, custom XML, an inline content control, a bidi span, a hyperlink, nested in any
way) is translated inside its wrapper; deleted text (w:del, w:moveFrom) and fields (w:fldSimple) are kept byte
for byte and never translated."""

from __future__ import annotations

import io
import zipfile

import pytest

from tests.documents_fixtures import router

pytest.importorskip("lxml")
pytest.importorskip("docx")
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NS = f'xmlns:w="{W}"'
TRACK = 'w:id="{}" w:author="Ana" w:date="2026-11-27T10:00:00Z"'


def run(text: str) -> str:
    return f'<w:r><w:t xml:space="preserve">{text}</w:t></w:r>'


def wrapped(tag: str, inner: str, attrs: str = "") -> str:
    return f"<w:{tag} {attrs}>{inner}</w:{tag}>"


# each wrapper around "the small green house", inside a sentence
WRAPS = {
    "ins": wrapped("ins", run("the small green house"), TRACK.format(1)),
    "moveTo": wrapped("moveTo", run("the small green house"), TRACK.format(2)),
    "smartTag": wrapped("smartTag", run("the small green house"), 'w:uri="urn:x" w:element="place"'),
    "customXml": wrapped("customXml", run("the small green house"), 'w:element="note"'),
    "sdt": '<w:sdt><w:sdtPr><w:alias w:val="Place"/></w:sdtPr><w:sdtContent>'
           + run("the small green house") + "</w:sdtContent></w:sdt>",
    "dir": wrapped("dir", run("the small green house"), 'w:val="ltr"'),
    "bdo": wrapped("bdo", run("the small green house"), 'w:val="ltr"'),
    "hyperlink": wrapped("hyperlink", run("the small green house"), 'w:anchor="top"'),
    "ins in smartTag": wrapped("smartTag", wrapped("ins", run("the small green house"), TRACK.format(3)),
                               'w:uri="urn:x" w:element="place"'),
    "ins in hyperlink": wrapped("hyperlink", wrapped("ins", run("the small green house"), TRACK.format(4)),
                                'w:anchor="top"'),
    "two runs in ins": wrapped("ins", run("the small ") + '<w:r><w:rPr><w:b/></w:rPr><w:t>green house</w:t></w:r>',
                               TRACK.format(5)),
}
# kept as they are: deleted text and a field's shown result
KEPT = {
    "del": wrapped("del", "<w:r><w:delText>the old blue door</w:delText></w:r>", TRACK.format(6)),
    "moveFrom": wrapped("moveFrom", "<w:r><w:t>the old blue door</w:t></w:r>", TRACK.format(7)),
    "fldSimple": wrapped("fldSimple", run("the old blue door"), 'w:instr=" TITLE "'),
    "del in ins": wrapped("ins", wrapped("del", "<w:r><w:delText>the old blue door</w:delText></w:r>",
                                         TRACK.format(8)), TRACK.format(9)),
}


def docx_with(paragraphs: list[str]) -> bytes:
    import docx
    from lxml import etree

    d = docx.Document()
    body = d.element.body
    for xml in paragraphs:
        body.insert(len(body) - 1, etree.fromstring(f"<w:p {NS}>{xml}</w:p>"))
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


def body_of(data: bytes):
    from lxml import etree

    return etree.fromstring(zipfile.ZipFile(io.BytesIO(data)).read("word/document.xml")).find(f"{{{W}}}body")


def texts(element) -> str:
    return "".join(t.text or "" for t in element.iter(f"{{{W}}}t", f"{{{W}}}delText"))


@pytest.mark.parametrize("name", WRAPS)
def test_words_inside_a_wrapper_of_runs_are_translated_inside_it(name):
    xml = run("We saw ") + WRAPS[name] + run(" from the road.")
    out, results = router().translate_file(docx_with([xml]), "docx", "doc.docx")
    (p,) = body_of(out).findall(f"{{{W}}}p")
    tag = name.split()[-1] if name != "two runs in ins" else "ins"
    (wrapper,) = [e for e in p.iter(f"{{{W}}}{tag}")]
    assert texts(wrapper) == "EHT LLAMS NEERG ESUOH", (name, texts(p))  # translated (the fake model's Spanish)
    assert "small" not in texts(p) and texts(p).startswith("EW WAS ")
    inner = [e.tag for e in wrapper.iter() if e.tag.startswith(f"{{{W}}}")]
    for nested in ("ins", "smartTag", "sdtPr", "alias"):  # every wrapper nested in it still there
        assert (f"{{{W}}}{nested}" in inner) == (f"w:{nested}" in WRAPS[name].split(">", 1)[1] or
                                                 nested in ("sdtPr", "alias") and name == "sdt"), name
    assert not [w for r in results for w in r.warnings]


@pytest.mark.parametrize("name", KEPT)
def test_deleted_text_and_fields_are_kept_byte_for_byte_and_never_translated(name):
    from lxml import etree

    xml = run("We saw ") + KEPT[name] + run(" from the road.")
    before = etree.tostring(etree.fromstring(f"<w:p {NS}>{KEPT[name]}</w:p>")[0], method="c14n", exclusive=True)
    out, _ = router().translate_file(docx_with([xml]), "docx", "doc.docx")
    (p,) = body_of(out).findall(f"{{{W}}}p")
    kept = [e for e in p if etree.QName(e).localname == name.split()[-1]]
    assert [etree.tostring(e, method="c14n", exclusive=True) for e in kept] == [before]
    assert "the old blue door" in texts(p) and "EW WAS" in texts(p) and "DAOR" in texts(p)


def test_a_paragraph_all_inside_a_tracked_insertion_and_one_with_every_wrapper():
    whole = wrapped("ins", run("The dog is very big."), TRACK.format(10))
    every = run("One ") + run(" and ").join(WRAPS.values()) + run(" end.") + "".join(KEPT.values())
    out, _ = router().translate_file(docx_with([whole, every]), "docx", "doc.docx")
    first, second = body_of(out).findall(f"{{{W}}}p")[-2:]
    assert texts(first.find(f"{{{W}}}ins")) == "EHT GOD SI YREV GIB."
    assert "small" not in texts(second) and texts(second).count("EHT LLAMS NEERG ESUOH") == len(WRAPS)
    assert texts(second).count("the old blue door") == len(KEPT)


def test_wrappers_nested_deep_are_read_without_recursion():
    deep = run("the small green house")
    for k in range(200):
        deep = wrapped("smartTag" if k % 2 else "customXml", deep, 'w:element="x"')
    out, _ = router().translate_file(docx_with([run("We saw ") + deep]), "docx", "doc.docx")
    assert texts(body_of(out).findall(f"{{{W}}}p")[-1]) == "EW WAS EHT LLAMS NEERG ESUOH"
