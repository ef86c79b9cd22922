"""The dropped-subject stage (text/subject.py): chat's dropped "I" given the model; questions and orders left alone."""

import pytest

from mtcli.config import Options
from mtcli.text.pipeline import translate_lines
from mtcli.text.subject import with_subject

from tests.text.fakes import answers, engine


@pytest.mark.parametrize("typed, given", [
    ("Love you ❤️", "I love you ❤️"),
    ("Miss you!", "I miss you!"),
    ("Hope you are well.", "I hope you are well."),
    ("Can't wait to see you", "I can't wait to see you"),
    ("cant sleep", "i cant sleep"),  # (all lowercase: the casing stage truecases it whole, and repairs "cant")
    ("Don't know.", "I don't know."),
    ("Wish you were here.", "I wish you were here."),
    ("Will call you later.", "I will call you later."),
    ("Have to go.", "I have to go."),
    ("Just got home.", "I just got home."),
    ("Glad you liked it.", "I'm glad you liked it."),
    ("On my way!", "I'm on my way!"),
    ("LOVE YOU!", "I LOVE YOU!"),  # (a shout stays one)
    ("\"Miss you,\" she wrote.", "\"I miss you,\" she wrote."),
])
def test_the_writers_i_is_given(typed, given):
    assert with_subject(typed) == given


@pytest.mark.parametrize("text", [
    "Need help?", "Can't you see?", "Love me?",  # (a question: the reader's)
    "Wish me luck!", "Don't worry.", "Have a nice day!", "Call me later.", "Take care.",  # (orders)
    "Miss Smith is here.", "Hope is a good thing.", "Will is here.", "Can't be!",  # (a name, a noun; not I)
    "I love you.", "We miss you.",  # (a subject of its own)
    # the corpus's: a subject later, a phrase or a gerund subject, an order
    "On my way home, I met him.", "Going out in this rain is out of the question.", "Don't think about it.",
    "Don't feel bad.", "Love your neighbour.",
])
def test_what_has_its_subject_or_is_none_of_the_writers_is_left(text):
    assert with_subject(text) == text


def test_the_model_reads_the_i_and_nothing_goes_back():
    seen = []
    out = translate_lines(["Love you ❤️"], engine(answers({"I love you.": "Te quiero."}, seen)))
    assert seen == ["I love you."] and out[0].text == "Te quiero. ❤️"


def test_only_an_english_source():
    seen = []
    translate_lines(["Love you."], engine(answers({}, seen)), Options().text_for("es"))
    assert seen == ["Love you."]
