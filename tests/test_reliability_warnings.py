"""Issue 38, left over from the outside attack: every warning shows the user's own text, never mtcli's internal
pieces: not a tokenizer's "[UNK]", not the marks a document's markup travels as ("\\x011/\\x02"), not a
private-use character standing for an item. Properties over generated lines, documents and model failures,
through each route that builds a warning (retry.py's lost spans and made-up numbers, the check's reasons,
text/lines.py, route.py, the document readers)."""

from __future__ import annotations

import html
import re
from xml.sax.saxutils import escape

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mtcli.confidence import _reason, as_written
from mtcli.route import Router
from mtcli.text.formats import translate_document
from mtcli.text.pipeline import translate_lines
from tests.documents_fixtures import spanish
from tests.test_reliability_docx import docx_with, run
from tests.text.fakes import engine

INTERNAL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ue000-\uf8ff\U000f0000-\U0010ffff]|\[(?:UNK|PAD|START|END)\]")
ESCAPE = re.compile(r"\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8})")  # (errors.quoted: an invisible character)
LOST = re.compile(r"the model lost ('.*') in translation")


def clean(warnings: list[str], source: str) -> None:
    for w in warnings:
        assert all(m.group() in source for m in INTERNAL.finditer(w)), w  # (a user may write "[UNK]")
        if lost := LOST.match(w):  # (what a warning quotes is the user's text, as written: no repr)
            for quoted in lost.group(1)[1:-1].split("', '"):
                assert _words(ESCAPE.sub(lambda m: chr(int(m.group()[2:], 16)), quoted)) in _words(source), (w, source)


def _words(text: str) -> str:
    """The text as a reader sees it: no tags (a warning may quote the words of a bold run without its <b>),
    entities read."""
    return " ".join(html.unescape(re.sub(r"<[^>]*>", " ", text)).split())


def losing(lines):
    """A model that loses every placeholder and number and makes one up: each route's warning is built."""
    out = spanish([re.sub(r"\b(Tom|Mary|\d+)\b", "", line) for line in lines])
    return [[(text + " 777", score)] for (text, score), in out]


WORDS = st.sampled_from(["the", "green", "door", "is", "open", "Tom", "Mary", "¿Dónde?", "漢字", "😀", "Ωmega", "50",
                         "{name}", "%s", "%1$s", "${amount}", "#{count}", "&nbsp;", "2001:db8::1", "Dr Smith.pdf",
                         "http://x.org/a", "3 p.m.", "\\n", "{0}", "'quoted'", "[UNK]", "«cita»"])
LINES = st.lists(WORDS, min_size=1, max_size=12).map(" ".join)
MARKUP = st.sampled_from(["<b>{}</b>", "<i>{}</i>", "{} <!-- c -->", "{} <img src=x.png>", "<a href='y'>{}</a>",
                          "{}<sup>1</sup>", "<code>{}</code>", "{} <br>"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(LINES, min_size=1, max_size=4))
def test_warnings_of_lines_show_the_users_text(lines):
    for r in translate_lines(lines, engine(losing)):
        clean(r.warnings, "\n".join(lines))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(LINES, MARKUP, LINES), min_size=1, max_size=3))
def test_warnings_of_html_show_the_users_text(blocks):
    page = [f"<p>{a} {m.format(b)} end.</p>" for a, m, b in blocks]
    _, results = translate_document(page, "html", engine(losing))
    for r in results:
        clean(r.warnings, "\n".join(page))


KEEPS = ["<w:r><w:tab/></w:r>", "<w:r><w:drawing/></w:r>", '<w:fldSimple w:instr=" PAGE ">' + run("7") + "</w:fldSimple>",
         '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> DATE </w:instrText></w:r>'
         '<w:r><w:fldChar w:fldCharType="end"/></w:r>', '<w:r><w:footnoteReference w:id="1"/></w:r>']


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(LINES, st.sampled_from(KEEPS), LINES), min_size=1, max_size=3))
def test_warnings_of_a_docx_show_the_users_text(paragraphs):
    """A kept run inside a sentence (a tab, an image, a field) that the model loses: the warning named it
    "\\x011/\\x02"; now by the text it shows, else its element ("<w:drawing>")."""
    data = docx_with([run(escape(a) + " ") + keep + run(" " + escape(b) + " end.") for a, keep, b in paragraphs])
    _, results = Router(lambda d: engine(losing), fixed="en-es").translate_file(data, "docx", "doc.docx")
    for r in results:
        source = "\n".join(a + b for a, _, b in paragraphs)
        assert all(m.group() in source for w in r.warnings for m in INTERNAL.finditer(w)), r.warnings
        assert not [w for w in r.warnings if "x01" in w or "x02" in w]


def test_a_lost_image_in_a_docx_is_named_by_its_element():
    data = docx_with([run("Open the ") + "<w:r><w:drawing/></w:r>" + run(" green door 50 now.")])
    _, results = Router(lambda d: engine(losing), fixed="en-es").translate_file(data, "docx", "doc.docx")
    lost = [w for r in results for w in r.warnings if "lost" in w]
    assert lost and all("'<w:drawing>'" in w for w in lost), lost


@pytest.mark.parametrize("run_, source, shown", [
    ("[UNK]", "The 漢字 lesson", None), ("[UNK] [UNK]", "The 漢字 😀 lesson", None),
    ("the [UNK] bridge", "The ҖҗҘ bridge fell.", "The ҖҗҘ bridge"), ("lesson [UNK]", "A lesson 漢字 today", "lesson 漢字"),
    ("next week", "See you next week!", "next week"), ("i d like", "Well, I'd like that", "I'd like"),
    ("zzz [UNK]", "no such run", None)])
def test_the_checks_reasons_never_show_a_tokenizer_piece(run_, source, shown):
    assert as_written(run_, source) == shown
    reason = _reason([as_written(run_, source)], None, {})
    assert "[UNK]" not in reason and (shown is None or f"'{shown}'" in reason)
