"""mtcli.text.case: truecasing table, ALL CAPS, contractions, questions without "?"."""

import pytest

from mtcli.text.case import end_punctuation, is_question, is_shouting, repair_contractions, truecase, truecase_table

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
    ("When I was young I lived there", False), ("What a day", False), ("I like it", False),
])
def test_questions_without_question_mark(text, question):
    assert is_question(text) is question
    assert end_punctuation(text) == text + ("?" if question else ".")
    assert end_punctuation(text + "!") == text + "!"


def test_shouting():
    assert is_shouting("WHERE IS THE BATHROOM?") and is_shouting("HELP!")
    assert not is_shouting("I love the USA.") and not is_shouting("I") and not is_shouting("50 50")
