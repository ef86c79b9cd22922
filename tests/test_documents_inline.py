"""What a Word or OpenDocument paragraph holds besides words (findings Y, Z, EE of docs/attack-2026-12-02c.md;
formats/inline.py): a line break or a tab parts it into pieces translated each on its own, the break between
their translations; tracked changes read as accepted (an insertion translated inside its markup, a deletion out
of the sentence and kept beside it); a placeholder split or wrapped by formatting given to the model whole and
its formatting put back as it was; soft and no-break hyphens as the characters they are; markers where they were.
Documents built here, a fake model (documents_fixtures.spanish: each word reversed, upper-cased) that records
what it is asked; one test with the shipped model."""

from __future__ import annotations

import io
import zipfile

import pytest

from mtcli.route import Router
from tests.documents_fixtures import ODT_CONTENT, odt_bytes, spanish
from tests.test_reliability_docx import TRACK, body_of, docx_with, run
from tests.text.fakes import engine

pytest.importorskip("lxml")
pytest.importorskip("docx")
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
T = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"


def italic(text: str) -> str:
    return f'<w:r><w:rPr><w:i/></w:rPr><w:t xml:space="preserve">{text}</w:t></w:r>'


def translated(data: bytes, fmt: str) -> tuple[bytes, list[str], list[str]]:
    """The document translated by the fake model; the lines it was asked; the warnings."""
    asked: list[str] = []
    out, results = Router(lambda direction: engine(lambda lines: asked.extend(lines) or spanish(lines)),
                          fixed="en-es").translate_file(data, fmt, f"doc.{fmt}")
    return out, asked, [w for r in results for w in r.warnings]


def word_paragraphs(*xml: str) -> tuple[list, list[str], list[str]]:
    out, asked, warnings = translated(docx_with(list(xml)), "docx")
    return body_of(out).findall(f"{{{W}}}p")[-len(xml):], asked, warnings


def shape(p) -> list[str]:
    """A Word paragraph as what it shows, run by run: its text ("i:" before an italic run's), "<br>", "<tab>",
    a deletion as "-[words]-", an insertion's runs inside "+[...]", other elements by name."""
    from lxml import etree

    out = []
    for child in p:
        name = etree.QName(child).localname
        if name == "r":
            for c in child:
                inner = etree.QName(c).localname
                if inner == "t":
                    out.append(("i:" if child.find(f"{{{W}}}rPr/{{{W}}}i") is not None else "") + c.text)
                elif inner != "rPr":
                    out.append(f"<{inner}>")
        elif name == "del":
            out.append("-[" + "".join(t.text for t in child.iter(f"{{{W}}}delText")) + "]-")
        elif name == "ins":
            out.append("+[" + "|".join(shape(child)) + "]")
        elif name != "pPr":
            out.append(f"<{name}>")
    return out


def odt_paragraphs(*xml: str) -> tuple[list[str], list[str], list[str]]:
    """Each paragraph's XML as written, the lines asked, the warnings."""
    from lxml import etree

    content = ODT_CONTENT.split("<office:text>")[0] + "<office:text>" + "".join(xml) + \
        "</office:text></office:body></office:document-content>"
    out, asked, warnings = translated(odt_bytes(content), "odt")
    root = etree.fromstring(zipfile.ZipFile(io.BytesIO(out)).read("content.xml"))
    return ([etree.tostring(p, with_tail=False).decode().split(">", 1)[1].rsplit("<", 1)[0]
             for p in root.iter(f"{{{T}}}p")], asked, warnings)


# --- EE: line breaks and tabs

def test_word_breaks_and_tabs_part_the_paragraph_into_pieces_each_translated_alone():
    xml = '<w:r><w:t>First line.</w:t><w:br/><w:t>Second line.</w:t><w:tab/><w:t>Total: 42</w:t></w:r>'
    (p, cr), asked, warnings = word_paragraphs(xml, run("The dog is") + '<w:r><w:cr/></w:r>' + run("very big."))
    assert shape(p) == ["TSRIF ENIL.", "<br>", "DNOCES ENIL.", "<tab>", "Total: 42"]
    assert shape(cr) == ["EHT GOD SI", "<cr>", "YREV GIB."]
    assert {"First line.", "Second line.", "The dog is.", "Very big."} <= set(asked) and not warnings
    (p,), asked, _ = word_paragraphs(run("The dog is") + '<w:r><w:br w:type="page"/><w:br/></w:r>' + run("very big."))
    assert shape(p) == ["EHT GOD SI", "<br>", "<br>", "YREV GIB."] and "The dog is." in asked


def test_word_breaks_at_the_edges_and_alone_stay_there():
    (start, end, alone), _, warnings = word_paragraphs('<w:r><w:tab/></w:r>' + run("The dog is big."),
                                                       run("The dog is big.") + '<w:r><w:br/></w:r>',
                                                       '<w:r><w:br/><w:tab/></w:r>')
    assert shape(start) == ["<tab>", "EHT GOD SI GIB."] and shape(end) == ["EHT GOD SI GIB.", "<br>"]
    assert shape(alone) == ["<br>", "<tab>"] and not warnings


def test_odt_breaks_and_tabs_part_the_paragraph_even_inside_a_span():
    (plain, spanned), asked, warnings = odt_paragraphs(
        "<text:p>First line.<text:line-break/>Second line.<text:tab/>Total: 42</text:p>",
        '<text:p><text:span text:style-name="B">The dog is big.<text:line-break/>The cat is small.</text:span></text:p>')
    assert plain == "TSRIF ENIL.<text:line-break/>DNOCES ENIL.<text:tab/>Total: 42"
    assert spanned == ('<text:span text:style-name="B">EHT GOD SI GIB.</text:span><text:line-break/>'
                       '<text:span text:style-name="B">EHT TAC SI LLAMS.</text:span>')
    assert {"The dog is big.", "The cat is small.", "Second line."} <= set(asked) and not warnings


# --- Y: tracked changes read as accepted

def test_a_word_deletion_is_out_of_the_sentence_and_kept_beside_the_insertion():
    from lxml import etree

    deleted = f'<w:del {TRACK.format(2)}><w:r><w:delText xml:space="preserve">never </w:delText></w:r></w:del>'
    xml = run("The cat ") + f'<w:ins {TRACK.format(1)}>' + run("and the dog ") + "</w:ins>" + deleted + \
        run("sleep on the red sofa.")
    (p,), asked, warnings = word_paragraphs(xml)
    assert shape(p) == ["EHT TAC ", "+[DNA EHT GOD]", "-[never ]-", " PEELS NO EHT DER AFOS."]
    assert not any("never" in line for line in asked) and not warnings
    (kept,) = p.findall(f"{{{W}}}del")
    c14n = lambda e: etree.tostring(e, method="c14n", exclusive=True)  # noqa: E731
    assert c14n(kept) == c14n(etree.fromstring(f'<w:p xmlns:w="{W}">{deleted}</w:p>')[0])


@pytest.mark.parametrize("xml, expected", [
    # a deletion before an insertion that replaces it; one inside the words (at the end); one opening the paragraph
    (run("The ") + f'<w:del {TRACK.format(3)}><w:r><w:delText>big</w:delText></w:r></w:del>'
     + f'<w:ins {TRACK.format(4)}>' + run("small") + "</w:ins>" + run(" cat sleeps."),
     ["EHT ", "-[big]-", "+[LLAMS]", " TAC SPEELS."]),
    (run("The cat ") + f'<w:del {TRACK.format(5)}><w:r><w:delText>always </w:delText></w:r></w:del>'
     + run("sleeps."), ["EHT TAC SPEELS.", "-[always ]-"]),
    (f'<w:moveFrom {TRACK.format(6)}><w:r><w:t>Old words. </w:t></w:r></w:moveFrom>' + run("The cat sleeps."),
     ["<moveFrom>", "EHT TAC SPEELS."]),
])
def test_where_a_word_deletion_goes(xml, expected):
    (p,), asked, warnings = word_paragraphs(xml)
    assert shape(p) == expected and not warnings
    assert not any(w in line for line in asked for w in ("big", "always", "Old"))


def test_odt_tracked_insertion_wraps_its_translation_and_the_deletion_point_stays_beside_it():
    (p,), asked, warnings = odt_paragraphs(
        '<text:p>The cat <text:change-start text:change-id="c1"/>and the dog <text:change-end text:change-id="c1"/>'
        '<text:change text:change-id="c2"/>sleep on the red sofa.</text:p>')
    assert p == ('EHT TAC <text:change-start text:change-id="c1"/>DNA EHT GOD<text:change-end text:change-id="c1"/>'
                 '<text:change text:change-id="c2"/> PEELS NO EHT DER AFOS.')
    assert asked and not warnings


def test_odt_bookmarks_and_a_change_cut_by_the_paragraph_end_are_kept():
    (ranged, lone), _, warnings = odt_paragraphs(
        '<text:p>The house <text:bookmark-start text:name="b"/>is big<text:bookmark-end text:name="b"/> and old.'
        '<text:bookmark text:name="here"/></text:p>',
        '<text:p>The house is <text:change-start text:change-id="c3"/>big and old.</text:p>')
    assert ranged == ('EHT ESUOH <text:bookmark-start text:name="b"/>SI GIB<text:bookmark-end text:name="b"/> DNA '
                      'DLO.<text:bookmark text:name="here"/>')
    assert lone == 'EHT ESUOH SI GIB DNA DLO.<text:change-start text:change-id="c3"/>' and not warnings


# --- Z: placeholders across formatting

# (the comma after "Hello" is the greeting's: text/standins.addressed shows the model "Hello, Tom, ...")
@pytest.mark.parametrize("xml, expected", [
    (run("Hello {") + italic("name") + run("}, you owe 20 euros."),
     ["OLLEH, {", "i:name", "}, UOY EWO 20 euros."]),
    (run("Hello ") + italic("{name}") + run(", you owe 20 euros."), ["OLLEH, ", "i:{name}", ", UOY EWO 20 euros."]),
    (run("Hello {") + italic("name}, you") + run(" owe 20 euros."), ["OLLEH, {", "i:name}", ", ", "i:UOY", " EWO 20 euros."]),
    (run("Delete %") + italic("s") + run(" files?"), ["ETELED %", "i:s", " SELIF?"]),
])
def test_a_word_placeholder_split_by_formatting_reaches_the_model_whole_and_keeps_its_formatting(xml, expected):
    (p,), asked, warnings = word_paragraphs(xml)
    assert shape(p) == expected and not warnings
    assert not any("{" in line or "%" in line or "name" in line for line in asked)  # (the model saw a stand-in)


def test_the_same_placeholder_plain_and_formatted_each_gets_its_own_runs_back():
    (p,), _, warnings = word_paragraphs(run("Dear {name}, ") + run("I am {") + italic("name") + run("}."))
    assert shape(p) == ["RAED {name}, I MA {", "i:name", "}."] and not warnings


def test_odt_placeholder_across_a_span():
    (p,), asked, warnings = odt_paragraphs(
        '<text:p>Hello {<text:span text:style-name="B">name</text:span>}, you owe 20 euros.</text:p>')
    assert p == 'OLLEH, {<text:span text:style-name="B">name</text:span>}, UOY EWO 20 euros.' and not warnings
    assert not any("{" in line for line in asked)


# --- other inline things

def test_word_soft_and_no_break_hyphens_are_the_characters_they_stand_for():
    (soft, hard), asked, warnings = word_paragraphs(
        run("We must co") + "<w:r><w:softHyphen/></w:r>" + run("operate."),
        run("Send me an e") + "<w:r><w:noBreakHyphen/></w:r>" + run("mail."))
    assert "We must cooperate." in asked and "Send me an e-mail." in asked and not warnings
    assert shape(soft) == ["EW TSUM ETAREPOOC."] and shape(hard) == ["DNES EM NA LIAM-E."]


def test_word_move_ranges_stay_where_they_were():
    xml = run("The dog ") + '<w:moveToRangeStart w:id="5" w:name="m"/>' + f'<w:moveTo {TRACK.format(6)}>' \
        + run("is big") + '</w:moveTo><w:moveToRangeEnd w:id="5"/>' + run(" and old.")
    (p,), asked, warnings = word_paragraphs(xml)
    assert shape(p) == ["EHT GOD ", "<moveToRangeStart>", "<moveTo>", "<moveToRangeEnd>", " DNA DLO."]
    assert not warnings


@pytest.mark.slow
def test_the_three_findings_with_the_shipped_model(shipped_model, tmp_path):
    """As the attack reproduced them: the verb kept, the deletion beside the insertion, {name} whole with its
    italic, the break and the tab between sentences that keep their stops; no warning."""
    from mtcli.decode import Translator
    from mtcli.text.pipeline import Engine

    shipped = Engine.from_translator(Translator(shipped_model))
    xml = [run("The cat ") + f'<w:ins {TRACK.format(1)}>' + run("and the dog ") + "</w:ins>"
           + f'<w:del {TRACK.format(2)}><w:r><w:delText xml:space="preserve">never </w:delText></w:r></w:del>'
           + run("sleep on the red sofa."),
           run("Hello {") + italic("name") + run("}, you owe 20 euros."),
           '<w:r><w:t>First line.</w:t><w:br/><w:t>Second line.</w:t><w:tab/><w:t>Total: 42</w:t></w:r>']
    out, results = Router(lambda direction: shipped, fixed="en-es").translate_file(docx_with(xml), "docx", "t.docx")
    tracked, holder, broken = (shape(p) for p in body_of(out).findall(f"{{{W}}}p")[-3:])
    assert "duerm" in "".join(tracked) and tracked[2] == "-[never ]-" and tracked[1].startswith("+[")
    assert holder[0].endswith("{") and holder[1] == "i:name" and holder[2].startswith("}")
    assert broken[1::2] == ["<br>", "<tab>"] and broken[0].endswith(".") and broken[2].endswith(".")
    assert broken[4].endswith("42") and not [w for r in results for w in r.warnings]
