"""The floating emoji stage (floating.py): emoji inside a sentence set aside and put back among the words."""

from hypothesis import given, settings
from hypothesis import strategies as st

from mtcli.text.pipeline import translate_lines

from tests.text.fakes import engine, upper


def _two_words(lines):  # a model whose translations are shorter: the first two words
    return [[(" ".join(line.split()[:2]).upper(), -1.0)] for line in lines]


def test_emoji_inside_a_sentence_are_set_aside_and_put_back_among_the_words():
    """The model never sees them (as a placeholder the real one answered "The pizza 🍕 was great."
    with "La pizza tenía 🍕 años."); each comes back once, at the same share of the words, glued to
    a word if it was, before the final mark if it was last."""
    seen = []

    def model(lines):
        seen.extend(lines)
        return [[(line.upper(), -1.0)] for line in lines]

    results = translate_lines(["I have 3 cats 🐱 and 2 dogs.", "Thanks🙏 for everything.",
                               "Look 👉 here 👈 now.", "We are done 🐱."], engine(model))
    assert not any(c in "".join(seen) for c in "🐱🙏👉👈")
    assert [r.text for r in results] == ["I HAVE 3 CATS 🐱 AND 2 DOGS.", "THANKS🙏 FOR EVERYTHING.",
                                         "LOOK 👉 HERE 👈 NOW.", "WE ARE DONE 🐱."]
    assert "🐱" in results[0].kept


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["Tom", "likes", "cats", "and", "dogs", "🐱", "❤️", "🎉🎉", "5"]), min_size=1, max_size=10),
       st.sampled_from(["same", "shorter", "empty"]))
def test_emoji_inside_a_sentence_are_never_lost(words, answer):
    def model(lines):
        return [[({"same": line, "shorter": " ".join(line.split()[:1]), "empty": ""}[answer], -1.0)] for line in lines]

    line = " ".join(words) + "."
    (r,) = translate_lines([line], engine(model))
    for emoji in ("🐱", "❤️", "🎉"):
        assert r.text.count(emoji) == line.count(emoji), (line, r.text)


def test_emoji_put_back_before_the_first_word_in_a_shorter_translation():
    out = translate_lines(["Tom 🐱 likes cats and dogs a lot.", "Tom 🐱 likes 🐶 cats and dogs and birds a lot."],
                          engine(_two_words))
    assert [r.text for r in out] == ["🐱 TOM LIKES", "🐱 🐶 TOM LIKES"]
    (r,) = translate_lines(["I 🐱 love cats very much."], engine(lambda ls: [[("? !", -1.0)] for _ in ls]))
    assert r.text == "? 🐱 !"  # (no word in the translation: its last mark stands for one)


def test_emoji_put_back_in_their_order_after_a_word_of_a_shorter_translation():
    """Bug fixed (found through the survivors of _put_back): two emoji put back after the same word
    came in reverse order ("TOM LIKES 🐶 🐱")."""
    out = translate_lines(["Tom likes cats and dogs a lot 🐱 and 🐶 birds.", "I like 🐱 and 🐶 and 🐭 too."],
                          engine(_two_words))
    assert [r.text for r in out] == ["TOM LIKES 🐱 🐶", "I 🐱 🐶 LIKE 🐭"]


def test_an_emoji_after_an_opening_quote_leaves_no_space_for_the_model_and_comes_back_after_it():
    seen = []
    out = translate_lines(['"🐱 I love cats.', "(🐱 we met.) Then.", '"🐱 I love cats."'],
                          engine(lambda ls: seen.extend(ls) or upper(ls)))
    assert sorted(seen) == sorted(['"I love cats.', "(We met.)", "Then.", "I love cats."])  # (a quotation: alone)
    assert [r.text for r in out] == ['"🐱 I LOVE CATS.', "(🐱 WE MET.) THEN.", '"🐱 I LOVE CATS."']
