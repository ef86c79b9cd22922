"""The opening stage (text/replies.py): an opening "No,", greeting, thanks or apology and its comma written in the
target language and kept, the rest translated as a sentence of its own."""

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
    ("en", "Good morning, how are you?", {"How are you?": "¿Cómo estás?"}, "Buenos días, ¿cómo estás?"),
    ("en", "GOOD EVENING, HOW WAS YOUR DAY?", {"How was your day?": "¿Cómo fue tu día?"},
     "BUENAS NOCHES, ¿CÓMO FUE TU DÍA?"),
    ("en", "Sorry, I can't come tonight.", {"I can't come tonight.": "No puedo venir esta noche."},
     "Lo siento, no puedo venir esta noche."),
    ("en", "thanks, see you soon.", {"See you soon.": "Nos vemos pronto."}, "gracias, nos vemos pronto."),
    ("en", "Hi, Tom.", {"Tom.": "Tom."}, "Hola, Tom."),
    ("es", "Hola, ¿qué tal?", {"¿Cómo estás?": "How are you?"}, "Hello, how are you?"),  # (greetings.SAID)
    ("es", "Vale, nos vemos a las ocho.", {"Nos vemos a las ocho.": "See you at eight."}, "OK, see you at eight."),
    ("es", "Lo siento, no puedo ir.", {"No puedo ir.": "I can't go."}, "Sorry, I can't go."),
    ("es", "Bueno, pasa.", {"Pasa.": "Come in."}, "Well, come in."),
    ("en", "HI, HOW ARE YOU?", {"How are you?": "¿Cómo estás?"}, "HOLA, ¿CÓMO ESTÁS?"),
    ("es", "Hola, ¿está Tom?", {"¿está Tom?": "Tom is?"}, "Hello, Tom is?"),  # (a name the rest has keeps its capital)
    ("es", "Gracias, Tom.", {"Tom.": "Tom."}, "Thanks, Tom."),
    ("en", "Oh no, I forgot my keys!", {"I forgot my keys!": "¡Olvidé mis llaves!"}, "Oh, no, ¡olvidé mis llaves!"),
    ("es", "Ay no, llego tarde.", {"Llego tarde.": "I'm late."}, "Oh no, I'm late."),
    ("en", "OK, I will do it.", {"I will do it.": "Lo haré."}, "Vale, lo haré."),
])
def test_the_opening_is_written_and_the_rest_translated_alone(source, line, table, want):
    out, seen = _translated(line, table, source)
    assert seen[0] == next(iter(table)) and out == want


@pytest.mark.parametrize("line", ["No way.", "No, ¿por qué?", "No, 5 of them.", "Nobody, not even Tom.", "Not now, Tom.",
                                  "Hello.", "Hi there, Tom.", "Sorry about that, Tom.", "Good morning,", "Highway, 5 miles.",
                                  "Excuse me, but where is it?", "Disculpe, pero no sé."])
def test_what_is_no_opening_no_goes_to_the_model_whole(line):  # ("No." alone: casing.REPLIES)
    _, seen = _translated(line, {})
    assert seen[0].startswith(line[:3])
