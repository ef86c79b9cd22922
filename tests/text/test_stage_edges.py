"""The edges stage (edges.py): emoji, emoticons and markup at a sentence's edges set aside and put back."""

from mtcli.text.pipeline import translate_lines

from tests.text.fakes import engine, upper


def test_emoji_and_unknown_symbols_come_out_in_place():
    results = translate_lines(["I love you 🙂", "🙂", "👍 Great work!"], engine(upper))
    assert [x.text for x in results] == ["I LOVE YOU. 🙂", "🙂", "👍 ¡GREAT WORK!"]


def test_emoji_and_markup_at_the_edges_are_set_aside_only_when_they_hold_no_letter_or_digit():
    out = translate_lines(["👍Great work!", "The code is 42", "Great day #TBT", "See http://x.org", "I🙂 love you.",
                           "Wow🎉!", "I found a fox 🦊.", "We are done🐱."], engine(upper))
    assert [r.text for r in out] == ["👍¡GREAT WORK!", "THE CODE IS 42.", "GREAT DAY #TBT.", "SEE http://x.org.",
                                     "I🙂 LOVE YOU.", "¡WOW🎉!", "I FOUND A FOX 🦊.", "WE ARE DONE🐱."]


def test_an_emoticon_is_set_aside_like_an_emoji():
    seen = []
    out = translate_lines(["Thanks :-) see you", "Great job :D", "See you tomorrow ;)"],
                          engine(lambda ls: seen.extend(ls) or upper(ls)))
    assert [r.text for r in out] == ["THANKS :-) SEE YOU.", "GREAT JOB. :D", "SEE YOU TOMORROW. ;)"]
    assert seen == ["Thanks see you.", "Great job.", "See you tomorrow."]
