"""The greetings stage (text/greetings.py): a wish from its table, a greeting's year or name set aside and put back, a
vocative's comma, a greeting alone as the model's words, a laugh set aside."""

import pytest

from mtcli.config import Options
from mtcli.text.greetings import parted
from mtcli.text.pipeline import translate_lines

from tests.text.fakes import answers, engine


def _translated(line, table, source="en"):
    seen = []
    out = translate_lines([line], engine(answers(table, seen)), Options().text_for(source))
    return seen, out[0].text


@pytest.mark.parametrize("source, line, out", [
    # a wish alone, with a year or a name after it ("Happy new year 2027!" had come out "¡El nuevo año pasado 2027!")
    ("en", "Happy new year 2027!", "¡Feliz año nuevo 2027!"),
    ("en", "Merry Christmas 2026", "Feliz Navidad 2026"),
    ("en", "Happy 2027! 🎉", "¡Feliz 2027! 🎉"),
    ("en", "Congratulations Tom!", "¡Felicidades, Tom!"),
    ("en", "HAPPY BIRTHDAY ANNA!", "¡FELIZ CUMPLEAÑOS, ANNA!"),
    ("es", "¡Feliz año nuevo 2027!", "Happy New Year 2027!"),
    ("es", "¡Bienvenida, Lucía!", "Welcome, Lucía!"),
])
def test_a_wish_comes_from_the_table(source, line, out):
    assert _translated(line, {}, source) == ([], out)


@pytest.mark.parametrize("source, line, sees, says, out", [
    # a greeting the model knows: the name after it set aside, back with its comma ("Thanks, Maria!" had come out
    # "¡Gracias, marzo!", "Hello Tom" "Hola a Tom")
    ("en", "Thanks Maria!", "Thanks.", "Gracias.", "¡Gracias, Maria!"),
    ("es", "Hola Ana", "Hola.", "Hi.", "Hi, Ana"),  # (no stop typed, none out)
    # a name before a comma and more: the vocative's comma given
    ("en", "Hi Tom, how are you?", "Hi, Tom, how are you?", "Hola, Tom, ¿cómo estás?", "Hola, Tom, ¿cómo estás?"),
    # a greeting alone the model misread, as the words it learned ("¿Qué tal?" had come out "How about it?")
    ("es", "¿Qué tal?", "¿Cómo estás?", "How are you?", "How are you?"),
    ("es", "que tal", "Cómo estás?", "How are you?", "How are you?"),  # (accents put back, a question's mark)
    ("es", "¿Qué tal, Tom?", "¿Cómo estás, Tom?", "How are you, Tom?", "How are you, Tom?"),
    ("es", "¡Buenas!", "¡Hola.", "Hi.", "Hi!"),  # (a short exclamation given as a statement: punctuation.py)
    ("en", "What's new?", "What's up?", "¿Qué hay?", "¿Qué hay?"),
])
def test_what_the_model_is_given(source, line, sees, says, out):
    assert _translated(line, {sees: says}, source) == ([sees], out)


@pytest.mark.parametrize("source, line", [
    ("en", "Welcome Home!"), ("en", "See You Soon"), ("es", "Hola A Todos"), ("en", "See you Monday."),  # (no one addressed)
    ("en", "Happy birthday, Mom!"), ("en", "Merry Christmas everyone!"),  # (whom the model translates)
    ("en", "Happy Tom!"), ("en", "Hello world."),  # ("happy" alone is a wish before a year only; a word is no name)
    ("en", "The year 2027 will be happy."), ("en", "Happy new year 2027 to you!"),  # (no wish before it; after it)
    ("es", "¿Qué tal el viaje?"), ("es", "¿Qué tal, cómo estás?"), ("es", "Buenas tardes"),  # ("qué tal" asks how)
    ("es", "¿Qué hay en la caja?"),
])
def test_left_as_it_is(source, line):
    assert parted(line, source) == (line, "", None)


@pytest.mark.parametrize("source, line, sees, says, out", [
    ("en", "That was so funny LOL", "That was so funny.", "Fue tan gracioso.", "Fue tan gracioso. jaja"),
    ("en", "lol that's great", "That's great.", "Es genial.", "jaja es genial."),
    ("en", "haha, ok then.", "Ok then.", "Vale, entonces.", "jaja, vale, entonces."),
    ("es", "jajaja me encanta", "Me encanta.", "I love it.", "haha I love it."),
])
def test_a_laugh_is_set_aside_and_written_the_others_way(source, line, sees, says, out):
    assert _translated(line, {sees: says}, source) == ([sees], out)


@pytest.mark.parametrize("source, line, out", [("en", "LOL", "jaja"), ("en", "Hahaha!", "jaja"), ("es", "jajaja", "haha")])
def test_a_laugh_alone_needs_no_model(source, line, out):
    assert _translated(line, {}, source) == ([], out)
