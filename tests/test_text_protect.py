"""mtcli.text.protect: spans found, masked with placeholders, restored by order; one-span phrases."""

import pytest

from mtcli.text.protect import PLACEHOLDERS, find_spans, mask, one_span_phrases, placed, remask, restore, unmasked


def unknown(piece: str) -> bool:
    return any(ord(c) > 0x24F for c in piece)  # the fake vocabulary spells Latin letters only


def spans_of(text: str) -> list[str]:
    return [text[s:e] for s, e in find_spans(text, unknown)]


@pytest.mark.parametrize("text,expected", [
    ("I paid $25.50 for 3 books on 12/05/2023.", ["25.50", "3", "12/05/2023"]),
    ("The train leaves at 7:15, not 7:45.", ["7:15", "7:45"]),
    ("Mail ana.b@example.com or see https://x.org/a?b=1.", ["ana.b@example.com", "https://x.org/a?b=1"]),
    ("It is -5°C and 50% off, MP3 and COVID-19 on the 3rd.", ["-5°C", "50%", "MP3", "COVID-19", "3rd"]),
    ("I love you 🙂 and 👍🏽!", ["🙂", "👍🏽"]),
    ("Smiles 🙂 🙂 together", ["🙂 🙂"]),  # neighbours separated by spaces only are one span
    ("Visit www.example.com today", ["www.example.com"]),
    ("A " + "x" * 45 + " blob", ["x" * 45]),
    ("No spans here, Tom.", []),
])
def test_spans(text, expected):
    assert spans_of(text) == expected


def test_mask_and_restore_by_order_and_currency_becomes_a_word():
    text = "I paid $25.50 for 3 books on 12/05/2023."
    m = mask(text, find_spans(text, unknown), PLACEHOLDERS[0])
    assert m.text == "I paid 50 dollars for 50 books on 50."
    assert restore("Pagué 50 dólares por 50 libros el 50.", m) == "Pagué 25.50 dólares por 3 libros el 12/05/2023."
    assert restore("Pagué 50 dólares por libros el 50.", m) is None  # one lost
    assert restore("Pagué 50 50 dólares por 50 libros el 50.", m) is None  # one repeated
    assert restore("Pagué 500 dólares por 50 libros el 50.", m) is None  # changed
    two = remask(m, PLACEHOLDERS[1])
    assert two.text == "I paid 12 dollars for 50 books on 12."
    # distinct placeholders restore by identity even if the model reorders them
    assert restore("El 12, por 50 libros, pagué 12 dólares.", two) == "El 25.50, por 3 libros, pagué 12/05/2023 dólares."
    assert unmasked(m) == "I paid 25.50 dollars for 3 books on 12/05/2023."


def test_glued_spans_are_set_apart():
    m = mask("here.🙂New", [(5, 6)], ("50",))
    assert m.text == "here. 50New" or m.text == "here. 50 New"


def test_one_span_phrases_and_placing_a_lost_span():
    text = "I paid 25.50 dollars for 3 books on 12/05/2023."
    m = mask(text, find_spans(text, unknown), PLACEHOLDERS[0])
    phrases = one_span_phrases(m)
    assert [p.text for p in phrases] == ["I paid 50 dollars", "for 50 books", "on 50."]
    assert [p.spans for p in phrases] == [("25.50",), ("3",), ("12/05/2023",)]
    assert placed("por 50 libros", phrases[1]) == "por 3 libros"
    assert placed("por libros", phrases[1]) == "por libros 3"  # lost: at the end, never dropped
