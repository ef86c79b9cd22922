"""Short inputs (issue 40): a short exclamation given the model as a statement and its ¡...! put back; a word
alone comes back without the article the model put before it."""

from mtcli.text.pipeline import TextOptions, translate_lines

from tests.text.fakes import answers, engine

TABLE = {"Good luck.": "Buena suerte.", "Hello.": "¡Hola!", "Thanks a lot.": "Muchas gracias", "Exit.": "La salida.",
         "exit": "la salida", "table": "La mesa.", "blue": "azul", "the": "la", "vegas": "Las Vegas"}


def run(lines, options=TextOptions()):
    seen = []
    out = translate_lines(lines, engine(answers(TABLE, seen)), options)
    return [r.text for r in out], seen


def test_a_short_exclamation_reaches_the_model_as_a_statement_and_comes_back_exclaimed():
    out, seen = run(["Good luck!", "Hello!", "Thanks a lot!", "GOOD LUCK!"])
    assert seen == ["Good luck.", "Hello.", "Thanks a lot."]  # (the same sentence is asked once)
    assert out == ["¡Buena suerte!", "¡Hola!", "¡Muchas gracias!", "¡BUENA SUERTE!"]


def test_only_a_short_single_exclamation_of_english_is_changed():
    out, seen = run(["Stop it right now!", "Really?!", "Wow!!", "Good luck."])
    assert seen == ["Stop it right now!", "Really?!", "Wow!!", "Good luck."]
    assert out[-1] == "Buena suerte."
    _, seen = run(["¡Buena suerte!"], TextOptions(case=False))  # (Spanish: the pipeline's English rules are off)
    assert seen == ["¡Buena suerte!"]


def test_a_word_alone_comes_back_without_the_article_the_english_did_not_have():
    out, seen = run(["Exit", "exit", "EXIT", "table", "blue"])
    assert seen == ["exit", "table", "blue"]  # (asked once)
    assert out == ["Salida", "salida", "SALIDA", "mesa", "azul"]


def test_what_only_looks_like_an_article_stays():
    out, _ = run(["the", "vegas", "Exit."])
    assert out == ["la", "las Vegas", "La salida."]  # (a name after it; not a word alone: it has a stop)
