"""A template variable's stand-in by its kind (standins.py): the table read on every syntax, what the model is given,
the stand-in put back only where it came back once and unchanged (else the ladder's placeholders), both sources."""

import re
from dataclasses import replace

import pytest

from mtcli.config import TextOptions
from mtcli.text.pipeline import translate_lines
from mtcli.text.sentence import placeholders_for
from mtcli.text.standins import kind, stand_ins

from tests.text.fakes import answers, engine

KINDS = {
    "{user}": "person", "{{user}}": "person", "{{ first_name }}": "person", "%(username)s": "person",
    ":author": "person", "#{user}": "person", "{$user}": "person", "$user_name": "person", "{userName}": "person",
    "{{ user.name }}": "person", "<%= user.name %>": "person", "%{sender}": "person", "{first_name}": "person",
    "{count}": "count", "{n}": "count", "%d": "count", "%ld": "count", "%1$d": "count", "{{ total }}": "count",
    "%(count)d": "count", "{0:.2f}": "count", "%.2f": "count", "{num_files}": "count", "${amount}": "count",
    "{filename}": "file", "%(path)s": "file", "{file_name}": "file", "{{ folder }}": "file", "{$file.name}": "file",
    "{url}": "url", ":url": "url", "{{ link }}": "url", "{host}": "url",
    "{email}": "email", "{user.email}": "email", "%(email)s": "email", "{{ e_mail }}": "email",
    # nothing says
    "%s": "other", "%1$s": "other", "{0}": "other", "{}": "other", "%@": "other", "{team}": "other",
    "{time}": "other", "{rename}": "other", "{name}": "other", "{project_name}": "other", "{username_len}": "count", "%1": "other",
    # no variable
    "&amp;": None, "\\n": None, "%%": None, "{% if user %}": None, "<% x %>": None, "\\u00e9": None,
}


@pytest.mark.parametrize("placeholder", KINDS)
def test_a_variable_s_kind_is_read_from_its_name_else_its_conversion(placeholder):
    assert kind(placeholder) == KINDS[placeholder]


# the line, what the English model is given, what it answers, what comes out
EN = [
    # a greeting before a person: its vocative comma ("Hola a Tom." without it)
    ("Hello {name}.", "Hello, Tom.", "Hola, Tom.", "Hola, {name}."),
    ("Hi {{user}}, you have {count} new messages.", "Hi, Tom, you have 50 new messages.",
     "Hola, Tom, tienes 50 mensajes nuevos.", "Hola, {{user}}, tienes {count} mensajes nuevos."),
    ("Welcome back, {0}.", "Welcome back, Tom.", "Bienvenido, Tom.", "Bienvenido, {0}."),  # (greeted: a person)
    ("Hello {0}, see {1}.", "Hello, Tom, see 50.", "Hola, Tom, mira 50.", "Hola, {0}, mira {1}."),
    ("Dear {user}, thanks.", "Dear Tom, thanks.", "Querido Tom, gracias.", "Querido {user}, gracias."),
    ("Hello Tom and {user}.", "Hello Tom and Mary.", "Hola Tom y Mary.", "Hola Tom y {user}."),  # (typed: as typed)
    ("Hello {count}.", "Hello 50.", "Hola 50.", "Hola {count}."),
    ("{user} invited {friend} to {team}.", "Tom invited Mary to 50.", "Tom invitó a Mary a 50.",
     "{user} invitó a {friend} a {team}."),
    ("Welcome, %s!", "Welcome, Tom.", "Bienvenido, Tom.", "¡Bienvenido, %s!"),  # (a short exclamation: punctuation.py)
    # the sentence has "Tom": another name
    ("Tom and {user} are here.", "Tom and Mary are here.", "Tom y Mary están aquí.", "Tom y {user} están aquí."),
    # two people whose order the translation changes: each back in its own place
    ("{author} replied to {user}.", "Tom replied to Mary.", "Mary recibió la respuesta de Tom.",
     "{user} recibió la respuesta de {author}."),
]


@pytest.mark.parametrize("line, seen, said, out", EN)
def test_an_english_source_s_variables_get_their_kind_s_stand_in_and_come_back(line, seen, said, out):
    asked = []
    (r,) = translate_lines([line], engine(answers({seen: said}, asked)))
    assert asked == [seen]
    assert r.text == out and not r.warnings


def test_a_spanish_source_s_people_are_names_its_counts_12():
    asked = []  # (the greeting a sentence of its own, its stop taken away again: the model made the name the subject)
    said = {"Hola. Tom, tienes 12 mensajes.": "Hi. Tom, you have 12 messages."}
    es_en = replace(engine(answers(said, asked)), placeholders=placeholders_for("es-en"))
    (r,) = translate_lines(["Hola {name}, tienes {count} mensajes."], es_en, TextOptions(source="es"))
    assert asked == ["Hola. Tom, tienes 12 mensajes."]
    assert r.text == "Hi {name}, you have {count} messages."


@pytest.mark.parametrize("said", ["Hola.", "Hola Tom Tom.", "Hola Tommy.", "Hola Tim."])
def test_a_stand_in_not_back_once_and_unchanged_goes_to_the_ladder(said):
    asked = []
    (r,) = translate_lines(["Hello {name}."], engine(answers({"Hello, Tom.": said, "Hello, 12.": "Hola, 12."}, asked)))
    assert asked[:2] == ["Hello, Tom.", "Hello, 12."]  # (the ladder's next rung: protect.PLACEHOLDERS[1])
    assert r.text == "Hola, {name}."


def test_a_stand_in_the_sentence_has_is_not_used_nor_one_name_for_two_people():
    items = {"\U0010fffd": ("{count}",), "\U0010fffc": ("{author}",), "\U0010fffb": ("{user}",), "\U0010fffa": ("{0}",)}

    def chosen(text, source="en", seq=("50",)):
        return stand_ins(text, [(m.start(), m.end()) for m in re.finditer("[\U0010fff0-\U0010ffff]", text)], items,
                         seq, source)

    assert chosen("I have 50 cats and \U0010fffd dogs.", seq=("12",)) == ("12",)
    assert chosen("Tom, John and \U0010fffc and \U0010fffb met.") == ("Mary", "50")
    assert chosen("\U0010fffc and \U0010fffb met.") == ("Tom", "Mary")
    assert chosen("tom, MARY and \U0010fffc met.") == ("John",)  # (in any case: the casing stage recases)
    # es-en: a count's "12"; its ladder shows "Tom" for a variable that says nothing: a person gets another name
    assert chosen("Hola \U0010fffc, tienes \U0010fffd.", "es", ("Tom",)) == ("Tom", "12")
    assert chosen("\U0010fffa saluda a \U0010fffc.", "es", ("Tom",)) == ("Tom", "Mary")
    # not an item, or an item of markup: the ladder's
    assert stand_ins("x \ue000 y", [(0, 1), (2, 3)], {"\ue000": ("<b>", "x", "</b>")}, ("50",), "en") == ("50", "50")


@pytest.mark.parametrize("line, seen", [("{0} has left.", "Tom has left."), ("Could not read {0}.", "Could not read 50."),
                                        ("Is %s here?", "Is 50 here?"), ("%s not found.", "50 not found."),
                                        ("Could not open {name}.", "Could not open 50.")])
def test_a_variable_that_says_nothing_is_a_name_where_it_opens_the_sentence_else_a_number(line, seen):
    asked = []
    translate_lines([line], engine(answers({}, asked)))
    assert asked[0] == seen
