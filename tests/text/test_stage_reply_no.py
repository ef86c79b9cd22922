"""The reply-no stage (text/replies.py): an opening "No," kept, the rest translated as a sentence of its own."""

import pytest

from mtcli.config import Options
from mtcli.text.pipeline import translate_lines

from tests.text.fakes import answers, engine


def _translated(line, table, source="en"):
    seen = []
    out = translate_lines([line], engine(answers(table, seen)), Options().text_for(source))
    return out[0].text, seen


@pytest.mark.parametrize("source, line, table, want", [
    ("en", "No, I am tired.", {"I am tired.": "Estoy cansado."}, "No, estoy cansado."),
    ("en", "No problem, see you tomorrow.", {"See you tomorrow.": "Te veo mañana."}, "No hay problema, te veo mañana."),
    ("en", "No, Tom knows.", {"Tom knows.": "Tom lo sabe."}, "No, Tom lo sabe."),  # (a name keeps its capital)
    ("es", "No, estoy cansado.", {"Estoy cansado.": "I'm tired."}, "No, I'm tired."),
    ("es", "No, gracias.", {"Gracias.": "Thanks."}, "No, thanks."),
])
def test_the_no_is_kept_and_the_rest_translated_alone(source, line, table, want):
    out, seen = _translated(line, table, source)
    assert seen[0] == next(iter(table)) and out == want


@pytest.mark.parametrize("line", ["No way.", "No, ¿por qué?", "No, 5 of them.", "Nobody, not even Tom.", "Not now, Tom."])
def test_what_is_no_opening_no_goes_to_the_model_whole(line):  # ("No." alone: casing.REPLIES)
    _, seen = _translated(line, {})
    assert seen[0].startswith(line[:3])
