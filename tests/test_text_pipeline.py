"""mtcli.text.pipeline with fake models: one result per line, spans kept whatever the model does,
long sentences cut, case handled, warnings on the right line."""

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mtcli.text.normalize import normalize
from mtcli.text.pipeline import RAW, Engine, TextOptions, translate_lines

WORD = re.compile(r"\w+|[^\w\s]")


def encode(text: str) -> list[int]:
    """A fake WordPiece: a token per word or mark; UNK (1) for what is not Latin script."""
    return [1 if any(ord(c) > 0x24F for c in t) else 5 for t in WORD.findall(text)]


def engine(decode, limit: int = 54) -> Engine:
    return Engine(decode, encode, limit, {"tom": "Tom", "boston": "Boston"})


def upper(lines):  # a "model" that keeps every placeholder
    return [[(line.upper(), -0.5), (line.upper() + " (2)", -0.9)] for line in lines]


def test_one_result_per_line_blank_lines_and_indentation_kept():
    lines = ["Tom is here. He is tired.", "", "   ", "\tIndented text.", "two  spaces   here"]
    results = translate_lines(lines, engine(upper))
    assert [r.line for r in results] == [1, 2, 3, 4, 5]
    assert [r.text for r in results] == ["TOM IS HERE. HE IS TIRED.", "", "", "\tINDENTED TEXT.", "TWO SPACES HERE."]
    assert results[0].sentences == 2 and len(results[0].nbest) == 2


def test_sentences_are_decoded_one_by_one_in_one_batch():
    calls = []

    def decode(lines):
        calls.append(list(lines))
        return upper(lines)

    translate_lines(["A b. C d! E f?", "G h."], engine(decode))
    assert calls == [["A b.", "C d!", "E f?", "G h."]]


def test_raw_options_give_the_line_to_the_model_as_it_is():
    seen = []
    translate_lines(["a  b. c d"], engine(lambda lines: seen.extend(lines) or upper(lines)), RAW)
    assert seen == ["a b. c d"]


def test_case_and_punctuation():
    seen = []

    def decode(lines):
        seen.extend(lines)
        return [[(line.replace("?", "").join("¿?") if line.endswith("?") else line, -1.0)] for line in lines]

    out = translate_lines(["WHERE IS THE BATHROOM", "where does tom live", "i dont like it"], engine(decode))
    assert seen == ["Where is the bathroom?", "Where does Tom live?", "I don't like it."]
    assert out[0].text == "¿WHERE IS THE BATHROOM?"  # ALL CAPS in, ALL CAPS out


def test_numbers_survive_a_model_that_garbles_them():
    def garble(lines):  # turns every number into 9, as the shipped model turns 7:15 into 75
        return [[(re.sub(r"\d+", "9", line), -1.0)] for line in lines]

    line = "I paid $25.50 for 3 books on 12/05/2023."
    (r,) = translate_lines([line], engine(garble))
    assert all(span in r.text for span in ["25.50", "3", "12/05/2023"])
    assert r.warnings and "25.50" in r.warnings[0]


def test_lost_placeholders_then_other_placeholders_then_the_sentence_as_it_is():
    calls = []

    def no_fifty(lines):
        calls.append(lines)
        return [[(line.replace("50", "cincuenta"), -1.0)] for line in lines]

    (r,) = translate_lines(["It costs 7:15 and 8."], engine(no_fifty))
    # the tries after the first, in order and in one call: other placeholders, unmasked, phrases of one span
    assert calls == [["It costs 50 and 50."], ["It costs 12 and 50.", "It costs 7:15 and 8.", "It costs 50", "and 50."]]
    assert r.text == "It costs 7:15 and 8." and not r.warnings and r.kept == ["7:15", "8"]


def test_emoji_and_unknown_symbols_come_out_in_place():
    results = translate_lines(["I love you 🙂", "🙂", "👍 Great work!"], engine(upper))
    assert [x.text for x in results] == ["I LOVE YOU. 🙂", "🙂", "👍 GREAT WORK!"]


def test_long_sentences_are_cut_never_truncated():
    seen = []
    words = " ".join("w" + chr(97 + i % 26) + chr(97 + i // 26) for i in range(40))
    line = f"{words}, and {words}; {words}"
    (r,) = translate_lines([line], engine(lambda lines: seen.extend(lines) or upper(lines), limit=30))
    assert all(len(encode(s)) <= 30 for s in seen)
    assert r.split == 1 and r.text.replace(" ", "") == (line + ".").upper().replace(" ", "")


def test_warnings_belong_to_their_line():
    def garble(lines):
        return [[(re.sub(r"\d+", "", line), -1.0)] for line in lines]

    results = translate_lines(["Fine.", "At 7:15 we go.", "", "Also fine."], engine(garble), first=10)
    assert [bool(r.warnings) for r in results] == [False, True, False, False]
    assert results[1].line == 11


HOSTILE = st.text(st.characters(blacklist_categories=["Cs"]), max_size=80)


@settings(max_examples=150, deadline=None)
@given(st.lists(HOSTILE, max_size=5), st.sampled_from(["keep", "garble", "drop", "empty"]))
@example(["\x9b0@ 12 apples"], "keep")
def test_any_lines_any_model(lines, behaviour):
    """Whatever the text and whatever the model does: one result per line, no line breaks in a result,
    and every number of the input in the output (of its text: a terminal escape's parameters, "\x9b0@",
    are dropped with the escape)."""
    def decode(batch):
        out = {"keep": lambda s: s.upper(), "garble": lambda s: re.sub(r"\d", "7", s),
               "drop": lambda s: re.sub(r"\d+", "", s), "empty": lambda s: ""}[behaviour]
        return [[(out(s), -1.0)] for s in batch]

    results = translate_lines(lines, engine(decode, limit=12))
    assert len(results) == len(lines)
    for line, r in zip(lines, results):
        assert "\n" not in r.text and "\r" not in r.text
        for number in re.findall(r"\d+", normalize(line)):
            if number.isascii():
                assert number in r.text, (line, r.text)


def test_options_are_one_place():
    assert TextOptions() == TextOptions(segment=True, protect=True, case=True, punctuate=True, keep_stop=True)


def test_markup_holes_are_fragments_not_sentences():
    """A link's text inside a sentence: the sentence is translated with the link's words in it, and
    the words alone as a fragment (without the capital, final stop or ¿? the model gives a sentence),
    which tells where the link goes in the translation."""
    seen = []

    def questioning(lines):
        seen.extend(lines)
        return [[("¿" + line[:1].upper() + line[1:].rstrip(".") + "?", -1.0)] for line in lines]

    items = {"\ue000": ("[", "the guide", "](http://x.org)")}
    rendered = {}
    (r,) = translate_lines(["Read \ue000 now."], engine(questioning), items=items, rendered=rendered)
    assert "the guide" in seen and "Read the guide now." in seen
    assert rendered == {"\ue000": "[the guide](http://x.org)"}
    assert r.text == "¿Read \ue000 now?"


def test_a_line_over_the_limit_keeps_its_rest_as_it_came():
    from mtcli.schema import MAX_LINE_CHARS

    words = ["Tom is here."] * (MAX_LINE_CHARS // 12) + ["THE END 42."]
    line = " ".join(words)
    (r,) = translate_lines([line], engine(lambda lines: [[(t.lower(), -1.0)] for t in lines]))
    assert r.text.endswith("Tom is here. THE END 42.") and r.text.startswith("tom is here.")
    assert r.text.count("here.") == len(words) - 1 and "kept as they came" in r.warnings[0]
    (r,) = translate_lines(["   " + "x" * (MAX_LINE_CHARS + 5)], engine(upper))  # one long word: nothing cut off
    assert r.text == "   " + "x" * (MAX_LINE_CHARS + 5)


def test_invisible_controls_do_not_reach_the_model():
    seen = []
    translate_lines(["\x1b[31mError:\x1b[0m pay \u202eten\u202c now\u200d."], engine(lambda ls: seen.extend(ls) or upper(ls)))
    assert seen == ["Error: pay ten now."]


def test_list_and_quote_marks_and_labels_stay_at_the_start_of_their_line():
    seen = []
    lines = ["- buy milk", "  1. Open the door.", "2) Close it.", "(a) First.", "> Quoted.", "Q: Where is it?",
             "- \u200b", "1.5 liters.", "#1 hit."]
    out = translate_lines(lines, engine(lambda ls: seen.extend(ls) or upper(ls)))
    assert [r.text for r in out] == ["- BUY MILK.", "  1. OPEN THE DOOR.", "2) CLOSE IT.", "(a) FIRST.", "> QUOTED.",
                                     "Q: WHERE IS IT?", "-", "1.5 LITERS.", "#1 HIT."]
    assert "Buy milk." in seen  # the model gets the item without its mark, truecased


def test_spanish_given_by_mistake_is_warned_on_its_line():
    lines = ["The plant is green.", "El perro es grande.", "I love la la land.", "El Paso is in Texas.",
             "Hola amigo, ¿qué tal?"]
    out = translate_lines(lines, engine(upper), first=7)
    assert [r.line for r in out if r.warnings] == [8, 11]
    assert "looks like Spanish" in out[1].warnings[0] and out[1].text  # still translated: a warning, not a refusal


def test_an_aside_in_brackets_is_translated_inside_its_brackets():
    seen = []
    lines = ["The meeting (on Monday) was long.", "I like tea [but not coffee].", "(Really?)", "f(x) and friend(s) at wiki/Foo_(bar)."]
    out = translate_lines(lines, engine(lambda ls: seen.extend(ls) or upper(ls)))
    assert out[0].text == "THE MEETING (ON MONDAY) WAS LONG." and out[1].text == "I LIKE TEA [BUT NOT COFFEE]."
    assert out[2].text == "(REALLY?)" and "(" not in "".join(seen[:2]) and "on Monday" in seen
    assert out[3].text == "F(X) AND FRIEND(S) AT WIKI/FOO_(BAR)."  # brackets that are not asides: as they were


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
