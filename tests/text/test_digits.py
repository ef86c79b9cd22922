"""A number the model makes up (digits.py): a line without spans gets a warning naming it; a try that makes one up
beside spans is refused (the retry ladder goes on); a number the source writes in words may come out in digits."""

import pytest

from mtcli.text.digits import made_up, said
from mtcli.text.pipeline import translate_lines

from tests.text.fakes import answers, engine


@pytest.mark.parametrize("source, output", [
    ("I have thirty cats.", "Tengo 30 gatos."), ("She is twenty-five.", "Tiene 25 años."),
    ("Tengo treinta y cinco gatos.", "I have 35 cats."), ("It costs two thousand euros.", "Cuesta 2.000 euros."),
    ("He came first.", "Llegó 1.º"), ("Three hundred people came.", "Vinieron 300 personas."),
    ("I paid 1,000 dollars.", "Pagué 1.000 dólares."), ("It costs 25.50.", "Cuesta 25,50."),
    ("Una docena de huevos.", "12 eggs."), ("Dieciséis velas.", "16 candles."),
])
def test_a_number_the_source_writes_in_digits_or_words_is_none_made_up(source, output):
    assert made_up(output, source) == []


@pytest.mark.parametrize("source, output, made", [
    ("December is the twelfth.", "Diciembre es el 20.", ["20"]),  # (the first 1,000 unseen lines' case)
    ("Me llevó unas dos horas y media.", "It took me about 2:30 hours.", ["30"]),  # (es-en's)
    ("I have thirty cats.", "Tengo 13 gatos.", ["13"]), ("I paid 1,000 dollars.", "Pagué 10.000 dólares.", ["10.000"]),
    ("The cat sleeps.", "El gato 7 duerme 1984.", ["7", "1984"]), ("Twenty-five.", "52.", ["52"]),
])
def test_a_number_the_source_does_not_write_is_made_up(source, output, made):
    assert made_up(output, source) == made


def test_number_words_read_as_their_values():
    assert {25, 35, 200, 2000, 16, 12, 3} <= said("twenty-five, treinta y cinco, two hundred, two thousand, "
                                                   "dieciséis, a dozen, third")
    assert said("a cat and un gato") == set()  # ("a", "un": too common to be "1")


@pytest.mark.parametrize("line, answer", [
    ("Spring is the first season.", "La primavera es la 20 estación."), ("The cat sleeps.", "El gato duerme 7 horas."),
    ("I saw him.", "Lo vi en 1984."), ("Hello there!", "¡Hola 3!"), ("We have thirty.", "Tenemos 31."),
    ("Where is it?", "¿Dónde está el 2?"),
])
def test_a_line_without_spans_with_a_made_up_number_is_warned_naming_it(line, answer):
    """The model wrote a number its line lacks (1 line in 1,000 unseen in each direction): the translation is the
    model's, the user told (the number named, the line by session.warn)."""
    (r,) = translate_lines([line], engine(answers({}, default=lambda s: answer)))
    made = made_up(r.text, line)
    assert made and any(all(m in w for m in made) and "made it up" in w for w in r.warnings), (r.text, r.warnings)


@pytest.mark.parametrize("line, answer", [
    ("I have thirty cats.", "Tengo 30 gatos."), ("The cat sleeps.", "El gato duerme."), ("Come at 5 now.", "Ven a las 50 ya."),
    ("Tengo tres gatos.", "I have 3 cats."), ("It is two thousand.", "Son 2.000."),
])
def test_no_warning_where_nothing_is_made_up(line, answer):  # (the almost-right answers)
    (r,) = translate_lines([line], engine(answers({}, default=lambda s: answer)))
    assert not r.warnings, r.warnings


def test_a_try_that_makes_a_number_up_beside_spans_is_refused_and_the_ladder_goes_on():
    """Found by the adversarial property: the try with the spans in the model's sight (retry.VERIFY) was taken if it
    kept them, whatever number it added ("I paid $5 for 3 books" -> "... 7")."""
    def invents_unless_in_phrases(pieces):  # keeps spans as they are, and makes a number up in a whole sentence
        return [[(p if p.startswith(("I paid 50", "for 50")) and len(p.split()) < 4 else p + " 7", -1.0)]
                for p in pieces]

    (r,) = translate_lines(["I paid 5 dollars for 3 books."], engine(invents_unless_in_phrases))
    assert "7" not in r.text and "5" in r.text and "3" in r.text
