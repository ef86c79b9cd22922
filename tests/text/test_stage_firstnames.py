"""The first names stage (firstnames.py): a first name the model learned as a word ("Maria" -> "Marte", "Diana" ->
"Tomorrow") kept as a name, the model shown a name's placeholder; a first name lost named by the confidence check
(firstnames.lost). Attack 2026-12-03: M."""

from dataclasses import replace

import pytest

from mtcli.config import TextOptions
from mtcli.text.firstnames import lost, names_inside
from mtcli.text.pipeline import translate_lines
from mtcli.text.sentence import placeholders_for

from tests.text.fakes import answers, engine

FAMILIAR = frozenset("say hello to maria diana is my sister i read a book leo rose early clara lives in santa "
                     "dile hola es mi hermana un libro vive en".split())


def _run(line: str, says: dict[str, str], source: str = "en") -> tuple[list[str], str]:
    seen: list[str] = []
    eng = replace(engine(answers(says, seen)), familiar=FAMILIAR, placeholders=placeholders_for(f"{source}-"))
    (r,) = translate_lines([line], eng, TextOptions(source=source))
    return seen, r.text


@pytest.mark.parametrize("line, source, sees, says, out", [
    ("Say hello to Maria.", "en", "Say hello to Tom.", "Dile hola a Tom.", "Dile hola a Maria."),
    ("Diana es mi hermana.", "es", "Tom es mi hermana.", "Tom is my sister.", "Diana is my sister."),
    # with the capitalised words beside it: one name
    ("Clara lives in Santa Clara.", "en", "Clara lives in Tom.", "Clara vive en Tom.", "Clara vive en Santa Clara."),
    # a name that is a word too, opening the sentence alone, is the word
    ("Leo un libro.", "es", "Leo un libro.", "I read a book.", "I read a book."),
    # a sentence typed all lowercase: case tells no name
    ("say hello to maria", "en", "Say hello to maria.", "Dile hola a marte.", "Dile hola a marte."),
])
def test_a_first_name_the_model_knows_as_a_word_is_kept(line, source, sees, says, out):
    seen, got = _run(line, {sees: says}, source)
    assert (seen, got) == ([sees], out)


def test_where_the_names_are():
    assert names_inside("Rose early.") == [] and names_inside("Rosa Pérez vive aquí.") == [(0, 10)]
    assert names_inside("Maria is here.") == [(0, 5)] and names_inside("I saw MARIA.") == []
    assert names_inside("Call Sofia now.") == [(5, 10)]  # (the first word's capital is the sentence's)


@pytest.mark.parametrize("source, translation, names", [
    ("Say hello to Maria.", "Dile hola a Marte.", ["Maria"]),
    ("Say hello to Maria.", "Dile hola a María.", []),  # (accents aside)
    ("Vi a María ayer.", "I saw Mary yesterday.", []),  # (the corpus's twin)
    ("Diana es mi hermana.", "Tomorrow is my sister.", ["Diana"]),
    ("Rose early.", "Se levantó temprano.", []),  # (a word opening the sentence)
])
def test_a_lost_name_is_named(source, translation, names):
    assert lost(source, translation) == names


def test_the_confidence_check_names_a_lost_name_first():
    from mtcli.confidence import _reason

    assert _reason(["hello"], None, {}, None, ["Maria"]) == "the translation lost the name 'Maria'"
    assert _reason(["hello"], None, {}, None) == "may have left out: 'hello'"
