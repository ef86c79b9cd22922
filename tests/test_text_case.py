"""mtcli.text.case: truecasing table, ALL CAPS, contractions, questions without "?"."""

import re

import pytest

from mtcli.text.case import end_punctuation, is_question, is_shouting, repair_contractions, truecase, truecase_table
from mtcli.text.pipeline import Engine, translate_lines

VOCAB = ["[PAD]", "[UNK]", "▁Tom", "▁tom", "▁Boston", "▁English", "▁the", "▁The", "▁She", "▁she", "▁I", "▁OK", "##ato"]
TARGET = ["▁Tom", "▁Boston", "▁Ella"]


def test_truecase_table_from_the_vocabularies():
    table = truecase_table(VOCAB, TARGET)
    # only capitalised: Boston, English, OK; both, but capitalised first and a name in Spanish too: Tom
    assert table == {"tom": "Tom", "boston": "Boston", "english": "English", "ok": "OK"}


def test_truecase():
    table = {"tom": "Tom", "boston": "Boston"}
    assert truecase("where does tom live? i think in boston", table) == "Where does Tom live? I think in Boston"
    assert truecase("i'm here", table) == "I'm here"
    assert truecase("50 people came", table) == "50 people came"  # a number first: no capital to make


@pytest.mark.parametrize("text,expected", [
    ("i dont like coffee", "i don't like coffee"),
    ("Dont go", "Don't go"),
    ("we cant go today", "we can't go today"),
    ("she wont come", "she won't come"),
    ("im tired and ive seen it", "I'm tired and I've seen it"),
    ("its raining", "it's raining"),
    ("its a cat", "it's a cat"),
    ("the dog wagged its tail", "the dog wagged its tail"),  # the possessive stays
    ("lets go", "let's go"),
    ("he lets me drive", "he lets me drive"),
])
def test_contractions(text, expected):
    assert repair_contractions(text) == expected


@pytest.mark.parametrize("text,question", [
    ("Where is the station", True), ("Do you like it", True), ("Is it ready", True), ("Can we go", True),
    ("Does Tom know", True), ("What happened", True), ("Do it now", False), ("Have a seat", False),
    ("Don't worry about it", False), ("Don't you like it", True), ("Don't do that", False),
    ("When I was young I lived there", False), ("What a day", False), ("I like it", False),
])
def test_questions_without_question_mark(text, question):
    assert is_question(text) is question
    assert end_punctuation(text) == text + ("?" if question else ".")
    assert end_punctuation(text + "!") == text + "!"


def test_shouting():
    assert is_shouting("WHERE IS THE BATHROOM?") and is_shouting("HELP!")
    assert not is_shouting("I love the USA.") and not is_shouting("I") and not is_shouting("50 50")


# From the mutation run over mtcli/text/case.py (issue 21): the survivors that change what a user sees.
@pytest.mark.parametrize("text,expected", [
    ("Is it", "Is it?"), ("Do you", "Do you?"),  # a question of two words
    ("Will", "Will."), ("Can", "Can."),  # an auxiliary alone is no question (the name, "can" the noun)
    ("Ø", "Ø."),  # no English word at all
    ("Do Americans", "Do Americans?"),  # a name after "do", and nothing more
    ("How you doing", "How you doing?"),  # "how" before a subject still asks; not "when I was young"
    ("What an idea", "What an idea."), ("What such people do is wrong", "What such people do is wrong."),
    ("Do Tom and Mary know", "Do Tom and Mary know?"),
    ("Have there been any calls for me", "Have there been any calls for me?"),
    ("Do anyone know where Tom is", "Do anyone know where Tom is?"),
    ("Have anybody seen my keys", "Have anybody seen my keys?"),
    # "do"/"have" + someone/everyone is an imperative (the question is "has someone", "does everyone")
    ("Have someone call me", "Have someone call me."), ("Do everyone a favour and leave", "Do everyone a favour and leave."),
    # a number is a word: it opens a statement, and it is what the auxiliary asks about
    ("5 is less than 8", "5 is less than 8."), ("2539 is a prime number", "2539 is a prime number."),
    ("Is 2+2=4", "Is 2+2=4?"),
])
def test_end_punctuation_more_questions(text, expected):
    assert end_punctuation(text) == expected


def test_shouting_from_two_letters_within_the_first_1000_characters():
    assert is_shouting("NO") and is_shouting("OK!") and not is_shouting("NO way")
    assert is_shouting("A" + "." * 998 + "B") and not is_shouting("A" + "." * 999 + "B")  # B is the 1,001st


@pytest.mark.parametrize("text,expected", [
    ("Its raining in Boston", "It's raining in Boston"),  # capital kept (and the sentence is not lowercase:
    # truecasing does not give it back)
    ("its", "its"), ("the price and its 20%", "the price and its 20%"),  # "its" last: no word after it
])
def test_contractions_more(text, expected):
    assert repair_contractions(text) == expected


def test_truecase_more():
    assert truecase("yes i'm here and i've seen it", {}) == "Yes I'm here and I've seen it"
    assert truecase("ⅳ the end", {}) == "ⅳ the end"  # a number first (a Roman numeral: Nl, not a letter)
    assert truecase("...", {}) == "..."  # nothing to capitalise


def test_pipeline_two_letter_shouting_and_a_statement_opening_with_a_number():
    seen = []

    def decode(lines):  # a "model" that gives its input back
        seen.extend(lines)
        return [[(line, -1.0)] for line in lines]

    words = re.compile(r"\w+|[^\w\s]")
    engine = Engine(decode, lambda text: [5] * len(words.findall(text)), 54, {})
    out = translate_lines(["NO", "OK", "5 is less than 8", "Have someone call me"], engine)
    # (a word alone: a fragment; a reply ("NO") from casing.REPLIES, which no model sees)
    assert seen == ["ok", "50 is less than 50.", "Have someone call me."]
    assert [r.text for r in out] == ["NO", "Ok", "5 is less than 8.", "Have someone call me."]  # ("OK" no shout: "Bueno")


def test_one_word_replies_and_switches_agree_in_lines_cells_and_the_server():
    """Attack 2026-12-03's K: "No" had been "No" on a plain line (ranked again by the way back) and "No hay nada" in
    a document's cell and from the server; "Yes", "On", "Off" nonsense everywhere. A markup fragment stays the
    model's ("<b>No</b> smoking")."""
    from dataclasses import replace

    from mtcli.serve.texts import translate_texts
    from mtcli.text.pipeline import TextOptions

    seen = []

    def decode(lines):
        seen.extend(lines)
        return [[("Hay nada", -1.0)] for _ in lines]

    words = re.compile(r"\w+|[^\w\s]")
    engine = Engine(decode, lambda text: [5] * len(words.findall(text)), 54, {})
    given = ["Yes", "No.", "On", "OFF", "yes"]
    wanted = ["Sí", "No.", "Activado", "DESACTIVADO", "sí"]
    assert [r.text for r in translate_lines(given, engine)] == wanted
    assert [r.text for r in translate_lines(given, engine, replace(TextOptions(), keep_stop=False))] == wanted  # cells
    assert translate_texts(["Yes", "No"], "text", 1, engine) == [["Sí"], ["No"]]
    assert seen == []
    assert translate_texts(["<p><b>No</b> smoking</p>"], "html", 1, engine)[0][0] != "<p><b>No</b> smoking</p>"
    assert translate_lines(["Yes, I do.", "No", "On"], engine, replace(TextOptions(), source="es"))[0].text == "Hay nada"
    assert "No" in seen and "Yes, I do." in seen


def test_a_colon_before_a_last_span_and_a_subjectless_negative_are_no_time_nor_question():
    """Attack 2026-12-03's G: "Can't open '%s': %s" had reached the model as "Can't open 50: 50?" (a question, and
    "50: 50" a time: "¿No puedes abrir '%s' a las %s?")."""
    seen = []

    def decode(lines):
        seen.extend(lines)
        return [[(line, -1.0)] for line in lines]

    words = re.compile(r"\w+|[^\w\s]")
    engine = Engine(decode, lambda text: [5] * len(words.findall(text)), 54, {})
    out = translate_lines(["Can't open '%s': %s", "Saved to: /tmp/x.txt"], engine)
    assert [r.text for r in out] == ["Can't open '%s': %s", "Saved to: /tmp/x.txt"]
    assert all(":" not in line and not line.endswith("?") for line in seen), seen
    assert not is_question("Can't open the file") and not is_question("Doesn't work")
    assert is_question("Can't you see") and is_question("Isn't it great") and is_question("Won't Tom come")
