"""mtcli.text.segment: sentences (pysbd with everyday abbreviations) and pieces that fit the model."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtcli.text import segment
from mtcli.text.segment import fit, sentences

CASES = [
    ("Dr. Smith is here. He is my doctor.", ["Dr. Smith is here.", "He is my doctor."]),
    ("Mr. Brown paid $3.50 for coffee. It was cheap.", ["Mr. Brown paid $3.50 for coffee.", "It was cheap."]),
    ("We meet at 5:30 p.m. on Friday. Don't be late.", ["We meet at 5:30 p.m. on Friday.", "Don't be late."]),
    ("He lives in the U.S. now. She lives in the U.K.", ["He lives in the U.S. now.", "She lives in the U.K."]),
    ("I don't know... Maybe tomorrow. Wait...", ["I don't know...", "Maybe tomorrow.", "Wait..."]),
    ('He said "Go home." Then he left.', ['He said "Go home."', "Then he left."]),
    ("Are you serious?! I can't believe it!", ["Are you serious?!", "I can't believe it!"]),
    ("Tom is my friend. He lives in Boston. We play tennis every Sunday.",
     ["Tom is my friend.", "He lives in Boston.", "We play tennis every Sunday."]),
    ("Tell me. I know.", ["Tell me.", "I know."]),  # "me." is not Maine here
    ("He is ill. Call a doctor.", ["He is ill.", "Call a doctor."]),
    ("No. 5 is mine. Yes.", ["No. 5 is mine.", "Yes."]),
    ("Visit www.example.com. Or mail a.b@example.com. Thanks.",
     ["Visit www.example.com.", "Or mail a.b@example.com.", "Thanks."]),
    ("I paid $25.50 for 3 books on 12/05/2023. It was a bargain.",
     ["I paid $25.50 for 3 books on 12/05/2023.", "It was a bargain."]),
    ("Mix: 1) flour 2) eggs", ["Mix:", "1) flour", "2) eggs"]),  # list items end sentences too
    ("He left。 She stayed。", ["He left。", "She stayed。"]),  # full-width stops (pysbd's list has them)
    ("no boundary here", ["no boundary here"]),
    # a footnote mark after a stop ends the sentence with it (pysbd cut before it: the line stayed whole)
    ("The car.<sup>1</sup> It is red.", ["The car.<sup>1</sup>", "It is red."]),
    ("The car.\ue000 It is red. Yes.", ["The car.\ue000", "It is red.", "Yes."]),
    ("It is in the U.S.<sup>1</sup> and in Canada.", ["It is in the U.S.<sup>1</sup> and in Canada."]),  # (pysbd: two)
    ("I saw Dr.\ue000 Smith. Then he left.\ue001", ["I saw Dr.\ue000 Smith.", "Then he left.\ue001"]),
    ("", []),
]


@pytest.mark.parametrize("text,expected", CASES)
def test_splitter_cases(text, expected):
    assert sentences(text) == expected


def _pysbd(text: str) -> list[str]:
    """sentences() without its fast path."""
    return segment._split(text) if text else []


@settings(deadline=None, max_examples=300)
@given(st.lists(st.sampled_from(["Tom", "left", "a", "I", "No", "Mr", "1", "iv", "(b", "U.S", "me", "home", "Then"]),
                min_size=1, max_size=8),
       st.lists(st.sampled_from(["", ".", "!", "?", "...", "…", ")", ".)", '."', "?!", "。", "！", "．", ":", ";", ","]),
                min_size=8, max_size=8))
def test_lines_that_skip_pysbd_are_those_it_would_not_split(words, marks):
    """The fast path (no pysbd without a possible boundary) gives pysbd's own sentences."""
    text = " ".join(w + m for w, m in zip(words, marks))
    assert sentences(text) == _pysbd(text)


def words(text: str) -> int:
    return len(text.split())


def test_fit_cuts_at_clause_boundaries_first():
    text = "I went to the market this morning; I bought apples, pears and bread, and then I came home"
    pieces = fit(text, words, 8)
    assert " ".join(pieces) == text and all(words(p) <= 8 for p in pieces)
    assert pieces[0].endswith(";")


def test_fit_without_boundaries_cuts_between_words_and_keeps_everything():
    text = " ".join(f"w{i}" for i in range(50))
    pieces = fit(text, words, 7)
    assert " ".join(pieces) == text and all(words(p) <= 7 for p in pieces)


@settings(deadline=None)
@given(st.lists(st.sampled_from(["the", "cat", "and", "sat,", "but", "ran;", "so", "x" * 12]), max_size=60),
       st.integers(1, 10))
def test_fit_never_drops_text(tokens, limit):
    text = " ".join(tokens)
    pieces = fit(text, words, limit) if text else []
    assert " ".join(pieces) == text
    assert all(words(p) <= limit or words(p) == 1 for p in pieces)


def test_fit_keeps_a_sentence_exactly_at_the_limit_whole():
    text = "one two, three four five six seven eight"  # (a comma it could be cut at)
    assert fit(text, words, 8) == [text]
    assert fit(text, words, 7) == ["one two,", "three four five six seven eight"]


def test_fit_cuts_at_the_clause_boundary_nearest_the_middle():
    """Balanced halves: of the commas, the one nearest the middle of the text (not the first or the last)."""
    text = "a b, c d e f, g h i j k l m n, o p"
    assert fit(text, words, 12) == ["a b, c d e f,", "g h i j k l m n, o p"]
    text = "one two three four, five six, seven eight nine ten eleven twelve"
    assert fit(text, words, 10) == ["one two three four, five six,", "seven eight nine ten eleven twelve"]


def test_fit_packs_words_up_to_the_limit_exactly():
    text = " ".join(f"w{i}" for i in range(50))
    assert [words(p) for p in fit(text, words, 7)] == [7] * 7 + [1]


def test_fit_measures_each_word_by_its_own_size():
    """Sizes by characters (a text's size is its words' sum): each word is measured (and cached) as
    itself, a word over the limit is a piece of its own and no piece is ever empty."""
    assert fit("abcdefghijklmno pq rs tuvwxy z", len, 10) == ["abcdefghijklmno", "pq rs tuvwxy", "z"]
    assert fit("ab cdefgh ij klmnop", len, 9) == ["ab cdefgh", "ij klmnop"]


def test_fit_gives_back_every_space_between_words():
    text = "w1  w2 w3   w4 w5"  # (normalised text has single spaces; fit keeps whatever it is given)
    assert " ".join(fit(text, words, 2)) == text
