"""The spans stage (spans.py, protect.py, kinds.py) through the pipeline: numbers, unknown pieces, long words, feet and inches, dates and titles kept (or written anew in Spanish), and what `kept` lists."""

import re

from mtcli.config import TextOptions
from mtcli.text.pipeline import Engine, translate_lines

from tests.text.fakes import WORD, answers, engine, upper


def test_numbers_survive_a_model_that_garbles_them():
    def garble(lines):  # turns every number into 9, as the shipped model turns 7:15 into 75
        return [[(re.sub(r"\d+", "9", line), -1.0)] for line in lines]

    line = "I paid $25.50 for 3 books on 12/05/2023."
    (r,) = translate_lines([line], engine(garble))
    assert all(span in r.text for span in ["25.50", "3", "12/05/2023"])
    assert r.warnings and "25.50" in r.warnings[0]


def test_a_word_too_long_for_a_small_model_is_kept():
    seen = []
    (r,) = translate_lines(["See abcdefghijklmnopqr and abcdefghijklmnopqrs now."],
                           engine(lambda ls: seen.extend(ls) or upper(ls), limit=20))
    assert seen == ["See abcdefghijklmnopqr and 50 now."]
    assert r.text == "SEE ABCDEFGHIJKLMNOPQR AND abcdefghijklmnopqrs NOW." and r.kept == ["abcdefghijklmnopqrs"]


def test_unknown_pieces_are_kept_in_long_sentences_and_not_when_known_after_a_word():
    def xq_unknown_alone(text):  # "xq" is unknown as a word of its own, known glued to one
        return [1 if w == "xq" else 5 for w in WORD.findall(text)]

    seen = []
    translate_lines(["I saw a xq today."], Engine(lambda ls: seen.extend(ls) or upper(ls), xq_unknown_alone, 54))
    assert seen == ["I saw a xq today."]
    long = "We walked along the river to the old market in 東京 and then we went back home for dinner."
    (r,) = translate_lines([long], engine(upper))
    assert r.kept == ["東京"] and "東京" in r.text


def test_kept_lists_only_the_text_s_own_spans_never_a_placeholder_character():
    """Bug fixed: an aside's or a markup item's private-use character was listed in `kept` ("We met (at 5
    pm) and left (at 7 pm)." gave ["5 pm", "7 pm", "\U0010fffd", "\U0010fffc"]). Markup kept whole is
    listed as the text had it; a document's own private-use character (an icon's glyph) is its text."""
    stop = answers({}, default=lambda line: line.upper().rstrip(".") + ".")
    items = {"\ue000": ("<img src=x>",), "\ue002": ("[", "the guide", "](x)")}
    out = translate_lines(["We met (at 5 pm) and left (at 7 pm).", "Press \uf8ff (the apple key) now.",
                           "I like the car\ue000 and \ue002 at 5 pm a lot."], engine(stop), items=items)
    assert [r.kept for r in out] == [["5 pm", "7 pm"], ["\uf8ff"], ["<img src=x>", "5 pm"]]


def test_feet_and_inches_are_kept_whole():
    """Found by an attack: "5'11\"" came out "511" (the two numbers kept, the marks left to the model)."""
    seen = []
    out = translate_lines(['It has a 5" screen and a 3" drive.', "He is 6' 2\" tall.", "He is 5'11\"."],
                          engine(lambda ls: seen.extend(ls) or upper(ls)))
    assert seen == ["It has a 50 screen and a 50 drive.", "He is 50 tall.", "He is 50."]
    assert [r.text for r in out] == ['IT HAS A 5" SCREEN AND A 3" DRIVE.', "HE IS 6' 2\" TALL.", "HE IS 5'11\"."]


def test_a_date_goes_to_the_model_as_one_placeholder_and_comes_back_in_spanish():
    """The model dropped a date's month ("I was born on June 4, 1974." -> "Nací el 4, 1974."): kept whole, in the
    order and words Spanish dates take, ALL CAPS in capitals, and not listed as kept (it changed)."""
    seen = []
    out = translate_lines(["I was born on June 4, 1974.", "MAY 5, 2025 10:00 GO", "Date: March 2020",
                           "Left on May 5, back on May 5.", "May 5: Dentist at 10."], engine(lambda ls: seen.extend(ls) or upper(ls)))
    assert seen == ["I was born on 50.", "50 go.", "Left on 50, back on 50.", "Dentist at 50."]
    assert [r.text for r in out] == ["I WAS BORN ON 4 de junio de 1974.", "5 DE MAYO DE 2025 10:00 GO.",
                                     "Fecha: marzo de 2020", "LEFT ON 5 de mayo, BACK ON 5 de mayo.",
                                     "5 de mayo: DENTIST AT 10."]
    assert [r.kept for r in out] == [[], ["10:00"], [], [], ["10"]]
    code = translate_lines(['Run `log --since="May 5"` now.'], engine(upper))[0]
    assert code.text == 'RUN `log --since="May 5"` NOW.' and code.kept == ['`log --since="May 5"`']  # (code stays)


def test_a_name_after_a_title_goes_to_the_model_as_a_placeholder_and_comes_back_with_a_spanish_title():
    """Of 12 sentences with a title and a name, the shipped model had garbled or dropped 11 names ("Mrs. Jones" ->
    "Jesús", "Mr. Wood" -> "madera"); kept, with the title as Spanish abbreviates it, and the name listed as kept."""
    seen = []
    out = translate_lines(["I met Mr. Brown yesterday.", "MRS. JONES IS HERE", "Dr. Lee is in."],
                          engine(lambda ls: seen.extend(ls) or upper(ls)))
    assert seen[0] == "I met 50 yesterday."
    assert [r.text for r in out] == ["I MET Sr. Brown YESTERDAY.", "SRA. JONES IS HERE.", "Dr. Lee IS IN."]
    assert [r.kept for r in out] == [["Brown"], ["JONES"], ["Lee"]]  # (the name: the title is written anew)


def test_a_name_with_an_apostrophe_is_kept_whole():
    """Attack d's D: the tokenizer cut "O'Brien" at its apostrophe and only "Brien" was kept, the "O'" left to the
    model ("O'Brien is here." -> "Los Brien están aquí."); the whole name is a placeholder (a name's), in both
    source languages, and a possessive's "'s" stays the sentence's."""
    seen = []
    lines = ["O'Brien is here.", "I met D'Angelo and O'Neill yesterday.", "O'Brien's car is red."]
    out = translate_lines(lines, engine(answers({}, seen)))
    assert seen == ["Tom is here.", "I met Tom and Tom yesterday.", "Tom's car is red."]
    assert [r.kept for r in out] == [["O'Brien"], ["D'Angelo", "O'Neill"], ["O'Brien"]]
    assert [r.text for r in out] == lines
    (r,) = translate_lines(["O'Brien está aquí."], engine(answers({})), TextOptions(source="es"))
    assert r.kept == ["O'Brien"] and r.text.startswith("O'Brien ")
