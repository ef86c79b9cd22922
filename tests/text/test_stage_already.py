"""The already stage (already.py): a word of the target language in a source sentence (one the model never learned on
its source side and writes on its target side) kept as typed and named in a warning; a quotation in the target
language already kept as it came (quotes.asides with already.in_target). Attack 2026-12-03: N, L."""

from dataclasses import replace

import pytest

from mtcli.config import TextOptions
from mtcli.text.already import in_target
from mtcli.text.pipeline import translate_lines
from mtcli.text.sentence import placeholders_for

from tests.text.fakes import answers, engine

# the source words the model learned (Engine.familiar) and the words it writes (Engine.target), by source
FAMILIAR = {"es": frozenset("mañana tengo a con el la mi jefe es muy libro se llama dijo ven aquí in no".split()),
            "en": frozenset("i love and the my book is said come here we drank all night de hi need a now".split())}
TARGET = {"es": frozenset("tomorrow i have a meeting with the boss my is very cool book called the catcher in rye "
                          "said do it now come here no problem".split()),
          "en": frozenset("me encantan las tapas y cerveza necesito ahora mi libro favorito es cien años de soledad dijo ven aquí "
                          "bebimos toda noche".split())}


def _run(line: str, says: dict[str, str], source: str) -> tuple[list[str], str, list[str]]:
    seen: list[str] = []
    eng = replace(engine(answers(says, seen)), familiar=FAMILIAR[source], target=TARGET[source],
                  placeholders=placeholders_for(f"{source}-"))
    (r,) = translate_lines([line], eng, TextOptions(source=source))
    return seen, r.text, r.warnings


@pytest.mark.parametrize("line, source, sees, says, out, warned", [
    # the target's words kept (a run of them one span), the English article a name's placeholder lost put back
    ("Mañana tengo a meeting con el boss.", "es", "Mañana tengo a Tom con el Tom.", "Tomorrow I have Tom with Tom.",
     "Tomorrow I have meeting with the boss.", "'meeting', 'boss' are English already: kept as typed"),
    ("Mi jefe es muy cool.", "es", "Mi jefe es muy Tom.", "My boss is very Tom.", "My boss is very cool.",
     "'cool' is English already: kept as typed"),
    ("We drank cerveza all night.", "en", "We drank 50 all night.", "Bebimos 50 toda la noche.",
     "Bebimos cerveza toda la noche.", "'cerveza' is Spanish already: kept as typed"),
    # a Spanish determiner made to fit the word ("los 50": the number's plural)
    ("I need a cerveza now.", "en", "I need a 50 now.", "Necesito los 50 ahora.", "Necesito la cerveza ahora.",
     "'cerveza' is Spanish already: kept as typed"),
    # a capitalised word is a name's, not the other language's ("Louis" is a word of the Spanish side's lexicon)
    ("We drank all night.", "en", "We drank all night.", "Bebimos toda la noche.", "Bebimos toda la noche.", None),
    # a word inside a span is the span's ("cerveza" of a file's name)
    ("We drank cerveza.txt all night.", "en", "We drank 50 all night.", "Bebimos 50 toda la noche.",
     "Bebimos cerveza.txt toda la noche.", None),
])
def test_words_of_the_target_language_kept(line, source, sees, says, out, warned):
    seen, got, warnings = _run(line, {sees: says}, source)
    assert (seen, got) == ([sees], out)
    assert warnings == ([warned] if warned else [])


@pytest.mark.parametrize("line, source, sees, says, out", [
    # a title or a saying in the target language: kept as it came, the model sees a placeholder
    ('El libro se llama "The Catcher in the Rye".', "es", "El libro se llama Tom.", "The book is called Tom.",
     'The book is called "The Catcher in the Rye".'),
    ('Mi jefe dijo «do it now».', "es", "Mi jefe dijo Tom.", "My boss said Tom.", 'My boss said "do it now".'),
    ('My book is "Cien años de soledad".', "en", "My book is 50.", "Mi libro es 50.", 'Mi libro es "Cien años de soledad".'),
])
def test_a_quotation_in_the_target_language_kept_as_it_came(line, source, sees, says, out):
    seen, got, _ = _run(line, {sees: says}, source)
    assert (seen, got) == ([sees], out)


def test_a_quotation_in_the_source_language_still_translated():
    seen, got, warnings = _run('Tom dijo "ven aquí".', {"Ven aquí.": "Come here."}, "es")
    assert "Ven aquí." in seen and got.endswith('"come here".') and not warnings


@pytest.mark.parametrize("words, source, told", [
    ("The Catcher in the Rye", "es", True),  # ("in" a Spanish source's too)
    ("do it now", "es", True),
    ("no problem", "es", False),  # (as many of the source's)
    ("Ven aquí.", "es", False),
    ("Hi, Louis", "en", False),  # (a name counts neither way: "louis" is a word of the Spanish side)
    ("Cien años de soledad", "en", True),
    ("come here", "en", False),
])
def test_which_quotation_is_in_the_target_language(words, source, told):
    eng = replace(engine(answers({})), familiar=FAMILIAR[source], target=TARGET[source] | {"louis"})
    assert in_target(words, eng) is told


@pytest.mark.parametrize("line, told", [
    ('My favorite book is "Cien años de soledad".', "en"),  # (it had been told Spanish)
    ('Mi jefe dijo: "Do it now."', "es"),
    ('"Time is gold" a true idiom.', "en"),  # (the words outside tell little alone: the whole line's)
    ('"Hola, ¿cómo estás?"', "es"),  # (all a quotation: its words)
])
def test_a_line_is_told_by_its_own_words_not_its_quotation(line, told):
    from mtcli.langid import detect

    assert detect(line).language == told


def test_an_english_line_quoting_spanish_is_not_warned_about():
    from mtcli.text.lines import looks_spanish

    assert not looks_spanish('My favorite book is "Cien años de soledad".')
    assert looks_spanish('Mi libro favorito es "Cien años de soledad".')
