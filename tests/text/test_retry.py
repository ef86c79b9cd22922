"""The placeholder retry ladder (retry.py): other placeholders, the sentence unmasked, phrases of one span each; a span never lost."""

import re

from mtcli.text.pipeline import translate_lines

from tests.text.fakes import engine


def test_lost_placeholders_then_other_placeholders_then_the_sentence_as_it_is():
    calls = []

    def no_fifty(lines):
        calls.append(lines)
        return [[(line.replace("50", "cincuenta"), -1.0)] for line in lines]

    (r,) = translate_lines(["It costs 7:15 and 8."], engine(no_fifty))
    # the tries after the first, in order and in one call: other placeholders, unmasked, phrases of one span
    assert calls == [["It costs 50 and 50."], ["It costs 12 and 50.", "It costs 7:15 and 8.", "It costs 50", "and 50."]]
    assert r.text == "It costs 7:15 and 8." and not r.warnings and r.kept == ["7:15", "8"]


def _loses_numbers_when_two(lines):
    """A model that loses numbers in a line holding two or more (as the shipped one does), ends what
    starts with a capital with a stop (a question in ¿...?), and scores -0.25 a word."""
    out = []
    for line in lines:
        text = re.sub(r"\d+", "9", line) if len(re.findall(r"\d+", line)) >= 2 else line
        if line.lower().startswith(("does", "or ")):
            text = "¿" + text.rstrip("?") + "?"
        elif line[:1].isupper() and not text.endswith("."):
            text += "."
        out.append([(text, -0.25 * len(line.split()))])
    return out


def test_phrases_of_one_span_each_are_joined_without_their_inner_stops():
    lines = ["It costs 7:15 and 8.", "Does it cost 7:15 or 8?", "IT COSTS 7:15 AND 8."]
    out = translate_lines(lines, engine(_loses_numbers_when_two))
    assert [r.nbest for r in out] == [[("It costs 7:15 and 8.", -0.625)], [("¿Does it cost 7:15 or 8?", -0.75)],
                                      [("IT COSTS 7:15 AND 8.", -0.625)]]  # (scores: the mean of the pieces')
    assert all("in phrases of one each" in r.warnings[0] for r in out)
    # a phrase too long for the model is decoded in pieces, joined with a space
    (r,) = translate_lines(["It costs 7:15 minus 8 at the old shop near the big red house on the hill."],
                           engine(_loses_numbers_when_two, limit=10))
    assert r.text == "It costs 7:15 minus 8 at the old shop near the big red house on the hill."
    # one phrase of one piece: its score as it is
    (r,) = translate_lines(["I have 3 cats."], engine(lambda ls: [[(re.sub(r"\d", "9", t), -1.0)] for t in ls]))
    assert [score for _, score in r.nbest] == [-1.0] and "3" in r.text


def test_a_lost_span_is_named_in_the_warning_as_the_text_had_it():
    def no_digits(lines):
        return [[(re.sub(r"\d", "", line).upper(), -1.0)] for line in lines]

    (r,) = translate_lines(["Press \uf8ff today (or so) and pay 7:15."], engine(no_digits))
    assert r.warnings == ["the model lost '\\uf8ff', '(or so)', '7:15' in translation; translated the sentence in "
                          "phrases of one each instead"]
    assert r.text == "PRESS \uf8ff TODAY (OR SO) AND PAY 7:15." and r.split == 0
    items = {"\ue000": ("**", "\ue001", "**"), "\ue001": ("[", "link", "](u)")}
    (r,) = translate_lines(["It costs 7:15 at \ue000 now."], engine(no_digits), items=items)
    assert r.warnings == ["the model lost '7:15', '**[link](u)**' in translation; translated the sentence in phrases "
                          "of one each instead"]
    # markup holding a private-use character that an aside of the line stands for too: shown as it is
    items = {"\ue000": ("<i>", "*x", "\U0010fffd</i>")}
    (r,) = translate_lines(["It costs 7:15 at \ue000 now (or so)."], engine(no_digits), items=items)
    assert r.warnings == ["the model lost '7:15', '<i>*x\\U0010fffd</i>', '(or so)' in translation; translated the "
                          "sentence in phrases of one each instead"]


def test_other_placeholders_are_tried_on_a_sentence_cut_in_pieces():
    def no_fifty_no_colon(lines):  # loses "50" and breaks "7:15" as it is, keeps "12"
        return [[(line.replace("50", "cincuenta").replace(":", ""), -1.0)] for line in lines]

    (r,) = translate_lines(["It costs 7:15."], engine(no_fifty_no_colon))
    assert r.text == "It costs 7:15." and not r.warnings
    line = "Tom and Mary and Sue went to the old house at 7:15 with the dog and the cat."
    (r,) = translate_lines([line], engine(no_fifty_no_colon, limit=8))
    assert r.text == line and not r.warnings and r.split == 1


def test_other_placeholders_get_the_repaired_sentence():
    (r,) = translate_lines(["i paid 25 dollars"], engine(lambda ls: [[(t.replace("50", "cincuenta"), -1.0)] for t in ls]))
    assert r.text == "I paid 25 dollars."


def test_phrases_inside_a_sentence_start_in_lowercase_where_their_source_did():
    """A model that capitalises what it is given ("on 50" -> "En 50") made capitals inside the sentence once it was
    translated in phrases ("Precio: 1,234.56 USD En 2024-03-05 En 14:30."); a phrase that starts with a name, a
    span or an acronym keeps its capital."""
    def capitalising(lines):
        words = {"on": "en", "at": "a", "price": "precio", "with": "con", "call": "llama"}
        out = []
        for line in lines:
            text = " ".join(words.get(w.lower(), w) for w in line.split(" "))
            text = text[:1].upper() + text[1:]
            out.append([(re.sub(r"\d+", "9", text) if len(re.findall(r"\d+", line)) >= 2 else text, -1.0)])
        return out

    (r, named, spans) = translate_lines(["Price 1,234.56 on 2024-03-05 at 14:30.", "Call 555-0199 with Tom at 10:30.",
                                         "Price 1,234.56 Tom paid at 14:30 and USD 12 at 9:15."], engine(capitalising))
    assert r.text == "Precio 1,234.56 en 2024-03-05 a 14:30." and "phrases" in r.warnings[0]
    assert named.text == "Llama 555-0199 con Tom a 10:30."
    assert spans.text.startswith("Precio 1,234.56 Tom paid a 14:30") and "USD 12" in spans.text


def test_phrases_cut_after_their_comma_keep_it_and_an_english_i_stays_a_capital():
    """Cut before the comma between two spans, a phrase opened ", él 2.º" and the model wrote "HAVE" for it; one
    opening in lowercase came back in lowercase, "i and 23rd" (finding R: "She stayed 1st HAVE 2nd i and 23rd.")."""
    seen = []

    def mimicking(lines):  # loses numbers when two or more; writes a phrase as it was given it, case and all
        seen.extend(lines)
        out = []
        for line in lines:
            text = re.sub(r"\d+", "9", line) if len(re.findall(r"\d+", line)) >= 2 else line
            text = "HAVE " + text[1:].strip() if text[:1] in ",;:" else text.lower() if text[:1].islower() else text
            out.append([(text + ("" if text.endswith(".") else "."), -1.0)])
        return out

    (r,) = translate_lines(["Ann got 7:15, Bob 8:30 and I 9:45."], engine(mimicking))
    assert r.text == "Ann got 7:15, Bob 8:30 and I 9:45." and "phrases" in r.warnings[0]
    assert seen[-3:] == ["Ann got 50", "Bob 50", "and I 50."]  # (each phrase without the sentence's comma)
