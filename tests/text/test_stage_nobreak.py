"""The no-break space stage (text/nobreak.py, issue 38): the model sees plain spaces; a no-break space comes back,
written as the source wrote it, between the same two tokens where they still stand side by side, or after a title
before the same name; anywhere else a plain space. Never a word moved, never a character lost."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtcli.text.nobreak import NO_BREAK, NoBreak
from mtcli.text.normalize import normalize
from mtcli.text.pipeline import translate_lines
from tests.text.fakes import answers, engine

STAGE = NoBreak()
NB, NARROW, FIGURE = NO_BREAK
ENTITY = "\U000f0000"  # a page's item for "&nbsp;" (formats/html.py)
ITEMS = {ENTITY: ("&nbsp;",)}


@pytest.mark.parametrize("source, model_says, output", [
    # (source, what the model made of the plain line, what the stage makes of it)
    (f"It costs 5{NB}euros.", "Cuesta 5 euros.", f"Cuesta 5{NB}euros."),
    (f"Prices fell 10{NB}%.", "Los precios cayeron 10%.", f"Los precios cayeron 10{NB}%."),  # (normalize glues "10%")
    (f"I met Mr.{NB}Smith.", "Me encontré Sr. Smith.", f"Me encontré Sr.{NB}Smith."),
    (f"The run starts at 9{NARROW}am.", "La carrera empieza a las 9 am.", f"La carrera empieza a las 9{NARROW}am."),
    (f"It weighs 1{FIGURE}000 kg.", "Pesa 1 000 kg.", f"Pesa 1{FIGURE}000 kg."),
    (f"It costs 5{ENTITY}euros.", "Cuesta 5 euros.", "Cuesta 5&nbsp;euros."),  # (entity in, entity out)
    (f"(5{NB}euros)", "(5 euros)", f"(5{NB}euros)"),
    # the tokens as normalize gives them to the model: U+2212's "−5" is "-5" (attack 2026-12-02d's O)
    (f"It is \u22125{NB}\u00b0C.", "Son -5 \u00b0C.", f"Son -5{NB}\u00b0C."),
    (f"It fell \u221210{NARROW}%.", "Cay\u00f3 un -10%.", f"Cay\u00f3 un -10{NARROW}%."),
    # not sure: a plain space
    (f"I am{NB}here.", "Estoy aquí.", "Estoy aquí."),  # (the two tokens are not in the translation)
    (f"The {NB} gap.", "El hueco.", "El hueco."),
    (f"5{NB}euros or 5 euros.", "5 euros o 5 euros.", "5 euros o 5 euros."),  # (twice in the line)
    (f"It costs 5{NB}euros.", "Son 5 euros y 5 euros.", "Son 5 euros y 5 euros."),  # (twice in the translation)
    (f"It costs 5{NB}euros.", "Cuesta 15 euros.", "Cuesta 15 euros."),  # (not the same token)
    (f"It costs 5{NB}euros.", "Cuesta 5euros.", "Cuesta 5euros."),  # (the model glued them: nothing inserted)
    (f"Dr.{NB}Smith met Mr.{NB}Smith.", "Sr. Smith conoció a Dr. Smith.", "Sr. Smith conoció a Dr. Smith."),
])
def test_a_no_break_space_comes_back_only_where_its_place_is_sure(source, model_says, output):
    plain, gaps = STAGE.strip(source, ITEMS)
    assert not set(plain) & set(NO_BREAK + ENTITY)
    assert STAGE.restore(model_says, gaps) == output


def test_one_at_the_lines_edge_is_left_to_normalize():
    assert STAGE.strip(f"{NB}Hello{NB}", {}) == (f"{NB}Hello{NB}", [])
    assert STAGE.strip("No no-break space here.", {}) == ("No no-break space here.", [])


def test_a_run_of_spaces_holding_no_break_ones_comes_back_as_they_were_written():
    plain, gaps = STAGE.strip(f"Pay 5 {NB}{ENTITY} euros.", ITEMS)
    assert plain == "Pay 5 euros."
    assert STAGE.restore("Paga 5 euros.", gaps) == f"Paga 5{NB}&nbsp;euros."


WORDS = st.sampled_from(["5", "10", "euros", "km", "%", "Mr.", "Smith", "the", "cat", "(it)", "sat.", "am", "1"])
SPACES = st.sampled_from([" ", NB, NARROW, FIGURE, ENTITY, f" {NB}"])


@st.composite
def lines_and_outputs(draw):
    """A line of words and spaces, and a translation: its plain words in any order, some dropped, some added."""
    words = draw(st.lists(WORDS, min_size=1, max_size=8))
    line = "".join(w + draw(SPACES) for w in words[:-1]) + words[-1]
    said = draw(st.permutations(words))[: draw(st.integers(0, len(words)))] + draw(st.lists(WORDS, max_size=3))
    return line, " ".join(draw(st.permutations(said)))


@given(lines_and_outputs())
@settings(max_examples=300, deadline=None)
def test_the_stage_only_turns_spaces_into_no_break_ones(case):
    """The output with every no-break space made a space is the output without the stage (and a glued "10%"
    got one only where normalize had glued it): no word moved, no character lost or added."""
    line, said = case
    _, gaps = STAGE.strip(line, ITEMS)
    restored = STAGE.restore(said, gaps)
    spaced = re.sub(f"[{NO_BREAK}]|&nbsp;", " ", restored)
    assert spaced.split() == said.split()
    assert normalize(spaced) == normalize(said)


@given(st.lists(st.sampled_from(["5", "euros", "Mr.", "Smith", "10", "%", "km", "cat"]), min_size=2, max_size=8,
                unique=True), st.data())
@settings(max_examples=200, deadline=None)
def test_a_line_translated_as_it_is_gets_every_no_break_space_back(words, data):
    """Round trip: with distinct words, a model that answers the plain line as it is gets the line back."""
    line = "".join(w + data.draw(SPACES) for w in words[:-1]) + words[-1]
    plain, gaps = STAGE.strip(line, ITEMS)
    assert STAGE.restore(plain, gaps) == line.replace(ENTITY, "&nbsp;").replace(f" {NB}", NB)


def test_through_the_pipeline_the_model_sees_plain_spaces():
    seen: list[str] = []
    model = engine(answers({"It costs 50 pesos.": "Cuesta 50 pesos.", "I am here.": "Estoy aquí."}, seen))
    got = translate_lines([f"It costs 5{NB}pesos.", f"I am{NB}here."], model)
    assert seen == ["It costs 50 pesos.", "I am here."]  # ("5 euros" is a kept span: kinds.EUROS)
    assert [r.text for r in got] == [f"Cuesta 5{NB}pesos.", "Estoy aquí."]


# end to end, through the CLI with the shipped model


def test_a_no_break_space_typed_in_plain_text_comes_out_where_it_was(run_cli, shipped_model, tmp_path):
    code, out, _ = run_cli("translate", f"It costs 5{NB}euros.")
    assert code == 0 and f"5{NB}euros" in out
    source = tmp_path / "in.txt"
    source.write_text(f"Prices fell 10{NB}%.\nI met Mr.{NB}Smith yesterday.\nThe 5{NB}km run starts at 9{NARROW}am.\n"
                      f"I am{NB}here.\n", encoding="utf-8")
    code, _, _ = run_cli("translate", "-i", source, "-o", tmp_path / "out.txt")
    lines = (tmp_path / "out.txt").read_text(encoding="utf-8").splitlines()
    assert code == 0 and len(lines) == 4
    assert f"10{NB}%" in lines[0] and f"Sr.{NB}Smith" in lines[1]
    assert f"5{NB}km" in lines[2] and f"9{NARROW}am" in lines[2]
    assert not set(lines[3]) & set(NO_BREAK) and lines[3].split()  # (its place unknown: a plain space)


def test_an_html_no_break_entity_comes_out_as_the_page_wrote_it(run_cli, shipped_model, tmp_path):
    page = tmp_path / "page.html"
    page.write_text("<p>It costs 5&nbsp;euros.</p>\n<p>Prices fell 10&#160;%.</p>\n<p>I am&nbsp;here.</p>\n"
                    "<p>%s&nbsp;%d</p>\n", encoding="utf-8")
    code, _, _ = run_cli("translate", "-i", page, "-o", tmp_path / "page.es.html")
    lines = (tmp_path / "page.es.html").read_text(encoding="utf-8").splitlines()
    assert code == 0 and len(lines) == 4
    assert "5&nbsp;euros" in lines[0] and "10&#160;%" in lines[1]
    assert "&nbsp;" not in lines[2] and lines[2].startswith("<p>") and lines[2].endswith("</p>")
    assert lines[3] == "<p>%s&nbsp;%d</p>"  # (a line of placeholders only: as it came)
    assert not re.search(f"[{NO_BREAK}\U000f0000-\U0010ffff\ue000-\uf8ff]", "".join(lines))
