"""An amount in euros ("5 euros", "1 euro", "20 €"; kinds.EUROS): kept whole, the sentence tried first with it as typed
(retry.OWN, as a month's name is: spans.py), kept where the model wrote the amount itself (the same digits with a euro
word or €, written back as typed), else as a placeholder; a number the sentence writes itself is never read as one."""

import pytest

from mtcli.config import TextOptions
from mtcli.text import kinds, protect, spans
from mtcli.text.pipeline import translate_lines
from mtcli.text.sentence import Context, unknown_pieces

from tests.text.fakes import answers, engine


def _model(typed: dict[str, str], masked, seen=None):
    """The model: `typed[sentence]` for a sentence as typed, `masked(sentence)` for one with placeholders."""
    return answers(typed, seen, default=masked)


def _spanish(s: str) -> str:  # (what the shipped model made of a price's placeholder alone: "It costs 50.")
    return s.replace("It costs", "Se cuesta").replace("and", "y").replace("at", "a las")


def test_the_sentence_is_tried_first_with_the_amount_as_typed():
    seen = []
    (r,) = translate_lines(["It costs 5 euros."], engine(_model({"It costs 5 euros.": "Cuesta 5 euros."}, _spanish, seen)))
    assert seen == ["It costs 5 euros."] and r.text == "Cuesta 5 euros." and r.kept == ["5 euros"] and not r.warnings


@pytest.mark.parametrize("typed, shown, own, out", [
    ("It costs 5 euros.", None, "Cuesta €5.", "Cuesta 5 euros."),  # (the same digits, € for the word)
    ("It costs 1 euro.", None, "Cuesta 1 euros.", "Cuesta 1 euro."),
    ("It costs 45 euros and 5 euros.", None, "Cuesta 45 € y 5 €.", "Cuesta 45 euros y 5 euros."),
    # (an amount the model cannot read as typed is shown it as one it can: "Cuesta 30 y 50.", "Tiene 20 $30.")
    ("It costs 3.50 euros.", "It costs 50 euros.", "Cuesta 50 €.", "Cuesta 3.50 euros."),
    ("It costs 20 € at 7:15.", "It costs 50 euros at 5.", "Cuesta 50 euros a las 5.", "Cuesta 20 € a las 7:15."),
    ("It costs €50 euros or 1,000 euros.", "It costs 50 euros or 50 euros.", "Cuesta 50 euros o 50 €.",
     "Cuesta €50 euros o 1,000 euros."),
])
def test_the_model_s_own_writing_of_the_amount_is_the_amount_as_typed(typed, shown, own, out):
    seen = []
    (r,) = translate_lines([typed], engine(_model({shown or typed: own}, _spanish, seen)))
    assert seen[0] == (shown or typed) and r.text == out
    if shown:  # (a Spanish source's amount is shown as typed: the es-en model wrote worse with "50 euros")
        seen.clear()
        translate_lines([typed], engine(_model({}, _spanish, seen)), TextOptions(source="es"))
        assert seen[0] == typed.replace("7:15", "12")  # (es-en's stand-in for a number: standins.py)


@pytest.mark.parametrize("own", ["El alquiler es 800 ebrio.", "El alquiler es 80 euros.", "El alquiler es 800.",
                                 "El alquiler es 800 euros, 800 euros.", "El 800 es el 800 euros."])  # (twice)
def test_an_amount_the_model_did_not_write_comes_back_through_its_placeholder(own):
    typed = "The rent is 800 euros."
    (r,) = translate_lines([typed], engine(_model({typed: own}, lambda s: s.replace("The rent is", "El alquiler es"))))
    assert r.text == "El alquiler es 800 euros."


def test_a_number_the_sentence_writes_itself_is_never_read_as_a_placeholder():
    # (retry.OWN's sentence writes "50 euros" as typed: its other span's placeholder is another number; reading the
    # typed 50 as a placeholder had raised StopIteration)
    c = Context(engine(answers({})), TextOptions(), unknown_pieces(engine(answers({}))), {})
    text = "Pay 50 euros at 7:15."
    assert spans.masked(text, [(text.index("7:15"), text.index("7:15") + 4)], c).text == "Pay 50 euros at 5."
    assert spans.masked("It costs 50 euros.", [], c).text == "It costs 50 euros."
    seen = []
    model = _model({"Pay 50 euros at 5.": "Paga 50 euros a las 5."}, _spanish, seen)
    (r,) = translate_lines([text], engine(model))
    assert seen == ["Pay 50 euros at 5."] and r.text == "Paga 50 euros a las 7:15." and r.kept == ["50 euros", "7:15"]


def test_a_kept_amount_gets_no_second_currency_from_the_model():
    typed = "She earns 2,000 euros a month."  # (the model made "She earns 50 a month." "Ella gana 50 dólares al mes.")
    model = _model({typed: "Ella gana 2,00 euros."}, lambda s: "Ella gana 50 dólares al mes.")
    (r,) = translate_lines([typed], engine(model))
    assert r.text == "Ella gana 2,000 euros al mes."
    (r,) = translate_lines(["It costs 25 USD."], engine(answers({}, default=lambda s: "Cuesta 50 dólares.")))
    assert r.text == "Cuesta 25 USD."


def test_a_currency_sign_before_an_amount_with_its_currency_is_kept_with_it():
    text = "The tickets cost €50 euros."
    assert [text[a:b] for a, b in protect.find_spans(text, lambda piece: False)] == ["€50 euros"]
    (r,) = translate_lines([text], engine(answers({}, default=lambda s: s.replace("The tickets cost", "Cuestan"))))
    assert r.text == "Cuestan €50 euros."  # (main: "Cuestan 50 euros euros.", the sign a word after the amount)


def test_a_spanish_source_a_shouted_line_and_a_month_beside_an_amount():
    typed = "Cuesta 5 euros."
    (r,) = translate_lines([typed], engine(_model({typed: "It costs 5 euros."}, lambda s: "It is Tom.")),
                           TextOptions(source="es"))
    assert r.text == "It costs 5 euros."
    seen = []  # (a Spanish sentence in ALL CAPS reaches the model lowercased, as typed: "TAKE 5 EUROS." in capitals)
    model = _model({"Cuesta 5 euros.": "It costs 5 euros."}, lambda s: "Take Tom.", seen)
    (r,) = translate_lines(["CUESTA 5 EUROS."], engine(model), TextOptions(source="es"))
    assert seen == ["Cuesta 5 euros."] and r.text == "IT COSTS 5 EUROS."
    typed = "IT COSTS 5 EUROS."
    (r,) = translate_lines([typed], engine(_model({typed: "Cuesta 5 euros."}, _spanish)))
    assert r.text == "CUESTA 5 EUROS."
    typed = "In July it costs 80 euros."
    (r,) = translate_lines([typed], engine(_model({typed: "En julio cuesta 80 euros."}, _spanish)))
    assert r.text == "En julio cuesta 80 euros." and r.kept == ["julio", "80 euros"]


@pytest.mark.parametrize("span, amount", [("5 euros", True), ("1 EURO", True), ("20 €", True), ("€50 euros", True),
                                          ("25 EUR", True), ("25 USD", False), ("5 km", False), ("15 Europeans", False)])
def test_an_amount_in_euros_is_one(span, amount):
    assert bool(kinds.EUROS.fullmatch(span)) == amount
