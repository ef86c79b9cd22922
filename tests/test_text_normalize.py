"""mtcli.text.normalize: one canonical form (NFC, ASCII quotes and dashes, one space)."""

import unicodedata

import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

from mtcli.text.normalize import normalize


def test_typographic_characters_map_to_what_the_vocabulary_knows():
    assert normalize("“It’s late,” she said — and left…") == '"It\'s late," she said - and left...'
    assert normalize("‘Hi’ – ″ok″") == "'Hi' - \"ok\""
    # but a range of numbers keeps its en dash (protect.py keeps "10–20" whole: it came out "10-20")
    assert normalize("pages 10–20, 10 am–2 pm, Monday–Friday, 5 – 6") == "pages 10–20, 10 am–2 pm, Monday-Friday, 5 - 6"
    assert normalize("Use `range(1–5)` or “seq 1–5”.") == "Use `range(1–5)` or \"seq 1–5\"."  # (code stays code)


def test_whitespace_of_every_kind_collapses_and_no_space_before_punctuation():
    assert normalize("  Please \u00a0 call\t\tme\u202f !  ") == "Please call me!"
    assert normalize("Where is the station ?") == "Where is the station?"
    assert normalize("¿ Dónde está ?") == "¿Dónde está?"
    assert normalize("a\u2028b\x0bc\x1b[31m") == "a b c"
    assert normalize("zero\u200bwidth\ufeff soft\u00adhyphen") == "zerowidth softhyphen"


def test_invisible_controls_are_dropped_not_translated():
    # colours pasted from a terminal, a title escape, bidi overrides and marks (Trojan Source), stray joiners
    assert normalize("\x1b[1;31mError:\x1b[0m disk full\x1b]0;title\x07.") == "Error: disk full."
    assert normalize("Pay \u202eten\u202c dollars\u200e \u2066now\u2069.") == "Pay ten dollars now."
    assert normalize("zero\u200djoiner \u200c here\u200d") == "zerojoiner here"
    # each kind alone in a line (mutation run: one joiner's check could go unnoticed beside the other)
    assert normalize("non\u200cjoiner") == "nonjoiner" and normalize("zero\u200d width") == "zero width"
    # ... but a joiner between two non-ASCII characters joins an emoji sequence or a script's letters
    assert normalize("Family: 👨\u200d👩\u200d👧 and मा\u200dक") == "Family: 👨\u200d👩\u200d👧 and मा\u200dक"


def test_backticks_of_code_stay_backticks_others_are_quotes():
    assert normalize("Run `ls  -la` or ``a`b`` now") == "Run `ls -la` or ``a`b`` now"
    assert normalize("``quoted'' and a `stray one") == "''quoted'' and a 'stray one"


@pytest.mark.parametrize("code", ["`cd ..`", "`ls -la .`", "`f(a ,b)`", "`( x )`", "`x ?`", "``a ; b``"])
def test_code_is_not_respaced_inside(code):
    """Bug found by the properties (issue 38): "`cd ..`" came out "`cd..`" (no space before a stop), a command
    another one."""
    assert normalize(f"Run {code} now .") == f"Run {code} now."


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


def test_the_spaces_around_an_emoticon_stay():
    """"see you ;)" had become "see you;)" and ":( that" ":(that": emoticons no longer (protect.py keeps them)."""
    assert normalize("See you ;) and :( that ( really ) . ok :-) .") == "See you ;) and :( that (really). ok :-)."


def test_ligatures_and_full_width_letters_are_folded_for_the_model():
    """Attack 2026-12-03's S: "The ﬁle is ready." kept "ﬁle" as a name; "ｈｅｌｌｏ ｗｏｒｌｄ" came back as it came.
    The rest of NFKC stays (a superscript, a fraction, a circled digit mean more than their digits)."""
    assert normalize("The ﬁle is ready.") == "The file is ready."
    assert normalize("ｈｅｌｌｏ ｗｏｒｌｄ！") == "hello world!"
    assert normalize("x² ½ ① ﬃ") == "x² ½ ① ffi"
