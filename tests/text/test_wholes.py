"""Markup around whole sentences of a line (wholes.py): put around their translations, the model asked nothing more;
markup inside a sentence still placed by markup.clues."""

from mtcli.text.pipeline import translate_lines

from tests.text.fakes import answers, engine

TABLE = {"The plant is green.": "La planta es verde.", "Where is the station?": ["¿Dónde está la estación?",
                                                                               "¿Dónde queda la estación?"],
         "Tom is here.": "Tom está aquí."}
B = ("<b>", "Where is the station?", "</b>")


def test_markup_around_a_whole_sentence_goes_around_its_translation_without_more_translations():
    seen, rendered = [], {}
    (r,) = translate_lines(["The plant is green. \ue000"], engine(answers(TABLE, seen)), items={"\ue000": B},
                           rendered=rendered)
    assert seen == ["The plant is green.", "Where is the station?"]
    assert r.nbest == [("La planta es verde. \ue000", -1.0), ("La planta es verde. <b>¿Dónde queda la estación?</b>",
                                                               -1.5)]
    assert rendered == {"\ue000": "<b>¿Dónde está la estación?</b>"}


def test_markup_over_two_whole_sentences_and_in_a_line_written_out():
    seen = []
    items = {"\ue000": ("**", "The plant is green. Where is the station? ", "**")}
    (r,) = translate_lines(["\ue000Tom is here."], engine(answers(TABLE, seen)), items=items)
    assert r.text == "**La planta es verde. ¿Dónde está la estación?** Tom está aquí."
    assert sorted(seen) == sorted(TABLE)


def test_markup_around_less_than_a_sentence_is_placed_by_its_clues():
    """The almost-whole: the sentence without its question mark, and a sentence's words with the next one's first."""
    for words, line in [("Where is the station", "The plant is green. \ue000?"),
                        ("green. Where", "The plant is \ue000 is the station?")]:
        seen = []
        translate_lines([line], engine(answers(TABLE, seen)), items={"\ue000": ("<b>", words, "</b>")})
        # (the sentences, then its words alone and the line without them: the clues)
        assert seen[:2] == ["The plant is green.", "Where is the station?"] and len(seen) > 2, seen
