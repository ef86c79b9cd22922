"""mtcli.text.normalize: one canonical form (NFC, ASCII quotes and dashes, one space)."""

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from mtcli.text.normalize import normalize


def test_typographic_characters_map_to_what_the_vocabulary_knows():
    assert normalize("“It’s late,” she said — and left…") == '"It\'s late," she said - and left...'
    assert normalize("‘Hi’ – ″ok″") == "'Hi' - \"ok\""


def test_whitespace_of_every_kind_collapses_and_no_space_before_punctuation():
    assert normalize("  Please \u00a0 call\t\tme\u202f !  ") == "Please call me!"
    assert normalize("Where is the station ?") == "Where is the station?"
    assert normalize("¿ Dónde está ?") == "¿Dónde está?"
    assert normalize("a\u2028b\x0bc\x1b[31m") == "a b c [31m"
    assert normalize("zero\u200bwidth\ufeff soft\u00adhyphen") == "zerowidth softhyphen"


def test_nfc_and_surrogates():
    assert normalize("cafe\u0301") == "café"
    assert normalize("bad \udcff byte") == "bad \ufffd byte"


@settings(deadline=None)
@given(st.text())
def test_idempotent_single_spaced_nfc(text):
    once = normalize(text)
    assert normalize(once) == once
    assert "  " not in once and once == once.strip() and unicodedata.is_normalized("NFC", once)
    assert not any(c in once for c in "\n\r\t\u2028\u2029\x00“”‘’—…")
