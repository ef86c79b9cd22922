"""The number-sign span rows (kinds.py): "No. 5" is a number's sign, never the reply "No" (attack 2026-12-03b: A)."""

import pytest

from mtcli.config import Options
from mtcli.text.pipeline import translate_lines

from tests.text.fakes import answers, engine


@pytest.mark.parametrize("source, line, table, want", [
    ("en", "No. 5 is my favorite.", {"50 is my favorite.": "50 es mi favorito."}, "N.º 5 es mi favorito."),
    ("en", "I live at No. 7.", {"I live at 50.": "Vivo en el 50."}, "Vivo en el N.º 7."),
    ("es", "Vivo en el n.º 7.", {"Vivo en el 50.": "I live in 50."}, "I live in No. 7."),
    ("es", "El núm. 5 es mi favorito.", {"El 50 es mi favorito.": "50 is my favorite."}, "No. 5 is my favorite."),
])
def test_a_number_sign_is_kept_with_its_number_and_written_the_targets_way(source, line, table, want):
    seen = []
    out = translate_lines([line], engine(answers(table, seen)), Options().text_for(source))
    assert seen == list(table) and out[0].text == want


@pytest.mark.parametrize("line, asked", [("No, 5 of them.", ["No, 50 of them."]),
                                         ("Say no. 5 people said yes.", ["Say no. 50 people said yes."]),
                                         ("Casino. 5 tables.", ["Casino.", "50 tables."])])
def test_a_no_that_is_no_number_sign_is_no_span(line, asked):
    seen = []
    translate_lines([line], engine(answers({}, seen)), Options().text_for("en"))
    assert seen == asked
