"""The greetings stage (text/greetings.py): a wish's year set aside and put back, a vocative's comma given."""

import pytest

from mtcli.config import Options
from mtcli.text.greetings import parted
from mtcli.text.pipeline import translate_lines

from tests.text.fakes import answers, engine


@pytest.mark.parametrize("source, line, given, year", [
    ("en", "Happy new year 2027!", "Happy new year!", " 2027"),  # (had come out "¡El nuevo año pasado 2027!")
    ("en", "Merry Christmas 2026", "Merry Christmas", " 2026"),
    ("en", "Happy 2027!", "Happy!", " 2027"),
    ("es", "¡Feliz año nuevo 2027!", "¡Feliz año nuevo!", " 2027"),
    ("es", "Felices fiestas 2026", "Felices fiestas", " 2026"),
    # a name after a greeting or a wish: a vocative's comma ("Hello Tom" had come out "Hola a Tom")
    ("en", "Happy birthday Tom!", "Happy birthday, Tom!", ""),
    ("en", "Hi Tom, how are you?", "Hi, Tom, how are you?", ""),
    ("en", "Good Morning Anna Smith", "Good Morning, Anna Smith", ""),
    ("es", "Feliz cumpleaños Juan", "Feliz cumpleaños, Juan", ""),
    ("es", "Hola Ana", "Hola, Ana", ""),
])
def test_what_follows_a_greeting(source, line, given, year):
    assert parted(line, source) == (given, year)


@pytest.mark.parametrize("source, line", [
    ("en", "Welcome Home!"), ("en", "See You Soon"), ("es", "Hola A Todos"), ("en", "See you Monday."),  # (no one addressed)
    ("en", "Happy birthday, Tom!"),  # (a comma of its own)
    ("en", "Happy Tom!"), ("en", "Hello world."),  # (a wish without its noun; a word that is no name)
    ("en", "The year 2027 will be happy."), ("en", "Happy new year 2027 to you!"),  # (no wish before it; after it)
])
def test_left_as_it_is(source, line):
    assert parted(line, source) == (line, "")


def test_the_year_goes_back_before_the_translations_closing_marks():
    seen = []
    table = {"Happy new year.": "Feliz año nuevo."}  # (a short exclamation is given as a statement: punctuation.py)
    out = translate_lines(["Happy new year 2027! 🎉"], engine(answers(table, seen)), Options().text_for("en"))
    assert seen == ["Happy new year."] and out[0].text == "¡Feliz año nuevo 2027! 🎉"


@pytest.mark.parametrize("source, line, given", [
    # a greeting alone, as the words the model learned ("¿Qué tal?" had come out "How about it?")
    ("es", "¿Qué tal?", "¿Cómo estás?"),
    ("es", "que tal", "cómo estás"),  # (accents put back by the casing stage after)
    ("es", "¿Qué tal, Tom?", "¿Cómo estás, Tom?"),
    ("es", "¡Buenas!", "¡Hola!"),
    ("es", "¿QUÉ ONDA?", "¿CÓMO ESTÁS?"),
    ("en", "What's new?", "What's up?"),
    # not alone: "qué tal" asks how something is
    ("es", "¿Qué tal el viaje?", "¿Qué tal el viaje?"),
    ("es", "¿Qué tal, cómo estás?", "¿Qué tal, cómo estás?"),
    ("es", "Buenas tardes", "Buenas tardes"),
    ("es", "¿Qué hay en la caja?", "¿Qué hay en la caja?"),
])
def test_a_greeting_alone_is_given_as_the_models_words(source, line, given):
    assert parted(line, source) == (given, "")


@pytest.mark.parametrize("source, line, sees, says, out", [
    ("en", "That was so funny LOL", "That was so funny.", "Fue tan gracioso.", "Fue tan gracioso. jaja"),
    ("en", "lol that's great", "That's great.", "Es genial.", "jaja es genial."),
    ("en", "haha, ok then.", "Ok then.", "Vale, entonces.", "jaja, vale, entonces."),
    ("es", "jajaja me encanta", "Me encanta.", "I love it.", "haha I love it."),
])
def test_a_laugh_is_set_aside_and_written_the_others_way(source, line, sees, says, out):
    seen = []
    got = translate_lines([line], engine(answers({sees: says}, seen)), Options().text_for(source))
    assert (seen, got[0].text) == ([sees], out)


@pytest.mark.parametrize("source, line, out", [("en", "LOL", "jaja"), ("en", "Hahaha!", "jaja"), ("es", "jajaja", "haha")])
def test_a_laugh_alone_needs_no_model(source, line, out):
    seen = []
    got = translate_lines([line], engine(answers({}, seen)), Options().text_for(source))
    assert (seen, got[0].text) == ([], out)
