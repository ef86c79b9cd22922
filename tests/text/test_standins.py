"""A kept number's stand-in by its kind (standins.py) and Roman numerals after any word not in capitals (kinds.py):
attack 2026-12-03's A ("Tiene 30 años." -> "30 is old."), B ("La maleta pesa 20 kg." -> "20 kg's suitcase is
heavy.") and D ("Vivimos en el siglo XXI." -> "We live in the 19th century.")."""

from dataclasses import replace

import pytest

from mtcli.config import TextOptions
from mtcli.text import protect
from mtcli.text.pipeline import translate_lines
from mtcli.text.sentence import placeholders_for
from mtcli.text.standins import number_kind as kind, stood_in

from tests.text.fakes import answers, engine

ES = TextOptions(source="es")


def test_a_spanish_number_goes_to_the_model_as_a_number_and_anything_else_as_the_ladder_s_name():
    table = {"Tiene 12 años.": "He is 12 years old.", "La maleta pesa 12.": "The suitcase weighs 12.",
             "Vivimos en el siglo 12.": "We live in the 12 century.", "Visita Tom.": "Visit Tom.",
             "Tengo 12 gatos y 12 perros.": "I have 12 cats and 12 dogs."}
    seen = []
    es = replace(engine(answers(table, seen)), placeholders=placeholders_for("es-en"))
    out = translate_lines(["Tiene 30 años.", "La maleta pesa 20 kg.", "Vivimos en el siglo XXI.", "Visita example.org.",
                           "Tengo 3 gatos y 2 perros."], es, ES)
    assert seen == list(table)
    assert [r.text for r in out] == ["He is 30 years old.", "The suitcase weighs 20 kg.", "We live in the XXI century.",
                                     "Visit example.org.", "I have 3 cats and 2 dogs."]


def test_an_english_source_keeps_its_ladder():
    seen = []
    translate_lines(["I am 30.", "It weighs 20 kg."], engine(answers({}, seen)))
    assert seen == ["I am 50.", "It weighs 50."]


def test_each_kind_and_the_ladder_where_the_sentence_writes_the_stand_in():
    assert [kind(s) for s in ("3,5 kg", "20 €", "7:30", "1/2", "3.º", "XXI", "Tom", "example.org", "CD")] == \
        ["quantity", "number", "number", "number", "number", "roman", None, None, None]
    assert stood_in(("30", "Ana"), ("Tom",), "es", "Tiene años y") == ("12", "Tom")
    assert stood_in(("30",), ("Tom",), "es", "Tiene 12 años") == ("Tom",)  # (12 is the sentence's own)
    assert stood_in(("30",), ("50",), "en", "I am") == ("50",)


@pytest.mark.parametrize("text, source, romans", [
    ("Vivimos en el siglo XXI.", "es", ["XXI"]), ("Lee primero el capítulo IV.", "es", ["IV"]),
    ("Read chapter IV first.", "en", ["IV"]), ("World War II ended in 1945.", "en", ["II", "1945"]),
    ("Pío XII fue papa.", "es", ["XII"]), ("LO VI AYER.", "es", []), ("Never MIX them.", "en", []),
    ("I bought a CD.", "en", []), ("XL is a size.", "en", []),
])
def test_a_roman_numeral_after_any_word_not_in_capitals_is_kept(text, source, romans):
    spans = protect.find_spans(text, lambda piece: False, source=source)
    assert [text[s:e] for s, e in spans] == romans
