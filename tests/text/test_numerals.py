"""Numbers whose meaning the translation must not change (outside attack 2026-12-02c, findings FF, P, GG, S, Q, O):
a negative amount or quantity keeps its minus and its currency or unit, a compound unit its whole, a Spanish number
its value in English (numerals.py), and a kept number takes no word the placeholder brought ("dólares", "'s")."""

import re
from dataclasses import replace

import pytest

from mtcli.config import TextOptions
from mtcli.text import protect
from mtcli.text.formats import translate_document
from mtcli.text.normalize import normalize
from mtcli.text.numerals import number_in_english, without_possessive
from mtcli.text.pipeline import translate_lines

from tests.text.fakes import answers, engine, upper

ES = TextOptions(source="es")


def _spans(text: str, source: str = "en") -> list[str]:
    return [text[a:b] for a, b in protect.find_spans(text, lambda piece: False, source=source)]


def _careless(s: str) -> str:
    """A model that drops every minus and sign it sees and calls a bare number dollars (as the shipped one did:
    "The loss was 300 dollars." -> "La pérdida de 300 dólares.", "Take 50 a day." -> "Toma 50 dólares al día.")."""
    return re.sub(r"[-−$€£]", "", s).replace(" 50 ", " 50 dólares ").replace(" 50.", " 50 dólares.")


@pytest.mark.parametrize("line, span", [
    ("Your balance is -$5.00.", "-$5.00"), ("The loss was -$300.", "-$300"), ("The balance is -5 €.", "-5 €"),
    ("You owe -€20 now.", "-€20"), ("It shows −£15.50.", "−£15.50"), ("It was $-5 at the end.", "$-5"),
    ("Profit fell to -20 euros.", "-20 euros"), ("It is -5 USD.", "-5 USD"), ("It costs -USD 5.", "-USD 5"),
    ("YOUR BALANCE IS -$5.00.", "-$5.00"), ("The account shows USD -200.", "USD -200"), ("It was US$ -5.", "US$ -5"),
])
def test_a_negative_amount_keeps_its_minus_and_its_currency(line, span):
    """Finding FF: "-$300" came out "300 dólares", "-5 €" "-5" (a debt made a credit); attack d's K: "USD -200" kept
    "-200" alone, and the model lost "USD"."""
    assert _spans(line) == [span]
    (r,) = translate_lines([line], engine(answers({}, default=_careless)))
    assert span.replace("−", "-") in r.text and "dólares" not in r.text  # (normalize makes a minus sign "-")


def test_a_negative_amount_in_markdown_html_and_a_spanish_source():
    md, _ = translate_document(["# Balance", "", "Your balance is **-$5.00** today."], "markdown",
                               engine(answers({}, default=_careless)))
    assert "-$5.00" in md[2]
    html, _ = translate_document(["<p>The loss was <b>-$300</b>.</p>"], "html", engine(answers({}, default=_careless)))
    assert "-$300" in html[0]
    (r,) = translate_lines(["Mi saldo es de -50 euros."], engine(answers({}, default=_careless)), ES)
    assert "-50 euros" in r.text
    assert _spans("La cuenta muestra USD -200.", "es") == ["USD -200"]


def test_a_minus_that_is_no_amounts_is_left_as_it_was():
    assert _spans("It costs 10-20 euros.") == ["10-20"]  # (a range: the number's)
    assert _spans("The price - $5 - is fair.") == ["5"]  # (a dash: the sign's amount is the model's to write)


@pytest.mark.parametrize("line, span", [
    ("It is -5 °C outside.", "-5 °C"), ("It fell to −12 °F.", "−12 °F"), ("Add +3 dB now.", "+3 dB"),
    ("Take 0.5 mg/kg twice a day.", "0.5 mg/kg"), ("Take 5 mg/kg a day.", "5 mg/kg"), ("Take 2 mg/day.", "2 mg/day"),
    ("The speed was 60 km/h.", "60 km/h"),
])
def test_a_quantitys_sign_and_compound_unit_are_kept_with_it(line, span):
    """Findings P and GG: "-5 °C" came out "Hace -5 años" (the number row took "-5", the unit went to the model),
    "0.5 mg/kg" "0.5 veces" (no unit per another)."""
    assert _spans(line) == [span]
    (r,) = translate_lines([line], engine(upper))
    assert span.replace("−", "-") in r.text


def test_a_kept_quantity_gets_no_currency_from_its_placeholder():
    """Finding GG: "Take 5 mg a day." -> "Toma 5 mg dólares al día." (the model's for "Take 50 a day.")."""
    (r,) = translate_lines(["Take 5 mg a day."], engine(answers({}, default=lambda s: "Toma 50 dólares al día.")))
    assert r.text == "Toma 5 mg al día."
    (r,) = translate_lines(["Hace -5 °C fuera."], engine(answers({}, default=lambda s: "It is 50 dollars outside.")),
                           ES)
    assert r.text == "It is -5 °C outside."


@pytest.mark.parametrize("spanish, english", [
    ("3.000", "3,000"), ("1.299,99 €", "1,299.99 €"), ("1.500.000", "1,500,000"), ("1,5", "1.5"), ("15,50 €", "15.50 €"),
    ("3,14159", "3.14159"), ("-2,5 kg", "-2.5 kg"),
    # (left as typed: another number in Mexico's writing, an address, a date, a time, a version)
    ("1,000", "1,000"), ("192.168.100.200", "192.168.100.200"), ("12.05.2023", "12.05.2023"), ("20.30 h", "20.30 h"),
    ("3.14", "3.14"), ("1,2,3", "1,2,3"),
])
def test_a_spanish_number_is_written_with_englishs_separators(spanish, english):
    assert number_in_english(spanish) == english


def test_a_spanish_amount_reads_as_the_same_number_in_english_and_an_english_one_stays_as_typed():
    """Finding S: "Tengo 3.000 euros en el banco." -> "I have 3.000 euros" (three euros to an English reader)."""
    out = translate_lines(["Tengo 3.000 euros en el banco.", "La población es de 1,5 millones.", "Pesa 2,5 kg."],
                          engine(answers({}, default=lambda s: s.replace("Tengo", "I have"))), ES)
    assert ["3,000 euros" in out[0].text, "1.5" in out[1].text, "2.5 kg" in out[2].text] == [True, True, True]
    assert not any(r.warnings for r in out)
    (r,) = translate_lines(["I have 3,000 euros and 1.5 kg."], engine(upper))
    assert "3,000 euros" in r.text and "1.5 kg" in r.text  # (Spanish of the Americas writes them so)


def test_a_number_kept_in_english_takes_no_possessive_a_name_keeps_its():
    """Finding Q: es-en's placeholder is a name the model writes "Tom's": "03/04/2025's", "23:45's", "21%'s" (a
    number's is a number now, standins.py: "12's" likewise)."""
    es = replace(engine(answers({}, default=lambda s: re.sub(r"\b(Tom|12)\b", r"\1's", s))),
                 placeholders=protect.PLACEHOLDERS_FROM["es"])
    out = translate_lines(["Es el 03/04/2025.", "Sale a las 23:45.", "Sube un 21%.", "Cuesta -5 €.", "Es el 10 de julio."],
                          es, ES)
    assert [r.text for r in out] == ["Es el 03/04/2025.", "Sale a las 23:45.", "Sube un 21%.", "Cuesta -5 €.",
                                     "Es el July 10."]  # (a date written anew in English, "July 10's" before)
    assert without_possessive("It is Pedro's book, 5's.", ("Pedro", "5")) == "It is Pedro's book, 5."
    assert without_possessive("On July 10's, US$10's.", ("July 10", "US$10")) == "On July 10, US$10."


def test_an_ordinal_written_in_english_takes_no_possessive():
    """att7: "Es la 2.ª vez." came out "It's 2nd's time.", unflagged: the ordinal written anew ends in a letter, as a
    name does."""
    es = replace(engine(answers({}, default=lambda s: re.sub(r"\b(Tom|12)\b", r"\1's", s))),
                 placeholders=protect.PLACEHOLDERS_FROM["es"])
    out = translate_lines(["Es la 2.ª vez.", "Quedó 1.º en la carrera."], es, ES)
    assert [r.text for r in out] == ["Es la 2nd vez.", "Quedó 1st en la carrera."]
    assert without_possessive("The 2nd's, 21ST's and 3M's.", ("2nd", "21ST", "3M")) == "The 2nd, 21ST and 3M's."


@pytest.mark.parametrize("line, spanish", [
    ("Room 101 is on the 3rd floor.", "3.º"), ("She finished 1st.", "1.º"), ("He was 2nd.", "2.º"),
    ("I came 23rd.", "23.º"), ("It is the 11th time.", "11.º"), ("IT IS THE 3RD FLOOR.", "3.º"),
    ("I have 1st-class tickets.", "1st-class"),  # (a compound: kept whole by the number row, as it came)
])
def test_an_english_ordinal_is_written_the_spanish_way(line, spanish):
    """Finding O: "en el 3rd piso" (es-en writes "3.er" "3rd"; en-es had no way back)."""
    (r,) = translate_lines([line], engine(upper))
    assert spanish in r.text and (spanish.endswith("class") or not re.search(r"\d(?:st|nd|rd|th)\b", r.text, re.I))


@pytest.mark.parametrize("line, spans", [
    ("AT&T has offices in Mexico.", ["AT&T"]), ("I shop at H&M.", ["H&M"]), ("The R&D team met.", ["R&D"]),
    # (near misses: an entity is a template's, templates.py; words around an ampersand are translated)
    ("Read the Q&amp;A page.", []), ("Tom & Jerry", []), ("Salt&pepper", []), ("Tom&Jerry", []),
])
def test_a_name_of_capitals_around_an_ampersand_is_kept_whole(line, spans):
    """Finding T: "AT&T has offices ..." -> "Las& oficinas ..." (the "&" alone kept, "AT" and "T" translated)."""
    assert _spans(line) == spans
    if spans and "&" in spans[0]:  # (the model sees a name: "50 has offices" had come out "En los 50 hay oficinas")
        seen = []
        (r,) = translate_lines([line], engine(answers({}, seen)))
        assert spans[0] in r.text and "Tom" in seen[0] and spans[0] not in seen[0]


def test_a_ratio_keeps_its_colon():
    """Attack d's J: "3 :1" and "3 : 1" were two numbers' placeholders and the model lost the colon between them
    ("La rata es 3 1.", "3 y 1"); normalize had taken the space before "3 : 1"'s colon away. A label's colon stays
    the sentence's ("Step 3: 1 cup")."""
    lines = ["The ratio is 3 :1.", "Mix sugar and flour 2 : 1.", "Es 16 : 9."]
    assert [_spans(normalize(line)) for line in lines] == [["3 :1"], ["2 : 1"], ["16 : 9"]]
    assert _spans(normalize("Step 3 : 1 cup.")) == ["3 : 1"] and _spans("Step 3: 1 cup.") == ["3", "1"]
    out = translate_lines(lines[:2], engine(answers({}, default=lambda s: s.replace(":", ""))))
    assert [r.text for r in out] == lines[:2]


def test_a_number_inside_another_is_written_anew_once():
    """A property test's example: with its placeholders doubled, "1.000 la 1.000,25." was answered unmasked and "1.000"
    rewritten inside "1.000,25" too ("1,000 la 1,000,25.", unwarned): each span once, the longest first."""
    doubling = answers({}, default=lambda s: re.sub(r"\b(50|12)\b", r"\1 \1", s, count=1))
    (r,) = translate_lines(["1.000 la 1.000,25."], engine(doubling), ES)
    assert r.text == "1,000 la 1,000.25."
