"""What is done to a whole line (lines.py): a line too long cut, its marks kept at its start, Spanish warned, a pasted table row cell by cell."""

from mtcli.text.pipeline import TextOptions, translate_lines

from tests.text.fakes import engine, upper


def test_a_line_over_the_limit_keeps_its_rest_as_it_came():
    from mtcli.schema import MAX_LINE_CHARS

    words = ["Tom is here."] * (MAX_LINE_CHARS // 12) + ["THE END 42."]
    line = " ".join(words)
    (r,) = translate_lines([line], engine(lambda lines: [[(t.lower(), -1.0)] for t in lines]))
    assert r.text.endswith("Tom is here. THE END 42.") and r.text.startswith("tom is here.")
    assert r.text.count("here.") == len(words) - 1 and "kept as they came" in r.warnings[0]
    (r,) = translate_lines(["   " + "x" * (MAX_LINE_CHARS + 5)], engine(upper))  # one long word: nothing cut off
    assert r.text == "   " + "x" * (MAX_LINE_CHARS + 5)


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


def test_a_long_line_is_cut_at_its_last_sentence_end_else_its_last_space_in_the_second_half():
    """Where a line over MAX_LINE_CHARS is cut decides what is translated and what is kept as it came:
    the warning tells both lengths, and the kept rest follows the translation with its space."""
    lines = ["Tom is here. " * 500 + "and so on " * 500,  # sentence ends in the second half: the last one
             "Tom is here. " * 300 + "and so on " * 800,  # ends only in the first half: the last space
             "and so on. " * 400 + "x" * 7000,  # no space in the second half: cut at the limit, one word
             "Yes, so " + "and so on " * 1200]  # the last space before the limit, not one after it
    out = translate_lines(lines, engine(upper))
    assert [r.warnings for r in out] == [
        [f"longer than 10,000 characters: its first {head} were translated, the other {rest} are kept as they came"]
        for head, rest in [("6,499", "5,001"), ("9,999", "1,901"), ("10,000", "1,400"), ("9,997", "2,011")]]
    assert out[0].text == "TOM IS HERE. " * 500 + ("and so on " * 500).rstrip()
    assert out[1].text == "TOM IS HERE. " * 300 + "AND SO ON " * 609 + "AND SO ON" + " and so on" * 190
    assert out[2].text == "AND SO ON. " * 400 + "x" * 7000
    assert out[3].text == "YES, SO " + "AND SO ON " * 998 + "AND SO ON" + " and so on" * 201  # ("Yes, so": the rest goes on, replies.py)


def test_spanish_is_told_by_its_accents_and_its_own_words_from_three_words_on():
    lines = ["Mañana comeré arroz.", "The X-Men met José.", "Hola, gracias my good friend.",
             "My friend Juan de la Cruz lives in Boston with his wife and kids.", "¿Dónde está Juan?",
             "el " * 666 + "xtú"]  # (only the first 2,000 characters are read: "xt" there)
    out = translate_lines(lines, engine(upper))
    assert [r.warnings for r in out] == [["this looks like Spanish already; it was translated as if it were English"],
                                         [], ["this looks like Spanish already; it was translated as if it were English"],
                                         [], ["this looks like Spanish already; it was translated as if it were English"],
                                         []]


def test_a_line_cut_inside_a_word_gets_no_stop_where_it_was_cut():
    """Cut at the limit where its second half has no space, the translated part is glued back to the rest
    kept as it came: no "." (nor "?") added at the cut, none the model adds kept, the blob left whole."""
    blob = "x" * 7000
    (r,) = translate_lines(["and so on " * 400 + blob], engine(upper))
    assert r.text == "AND SO ON " * 400 + blob  # (was "... AND SO ON xxx...x.xxx...x")
    (r,) = translate_lines(["do you see " * 300 + blob], engine(upper))  # would open like a question
    assert r.text == "DO YOU SEE " * 300 + blob

    def stops(lines):  # a model that ends what it translates with a stop of its own
        return [[(line.upper().rstrip(".") + ".", -1.0)] for line in lines]

    url = "https://example.com/" + "a" * 12000
    (r,) = translate_lines(["Tom is here. Open " + url], engine(stops))
    assert r.text == "TOM IS HERE. OPEN " + url
    (r,) = translate_lines(["Tom is here. Open " + url + " now"], engine(stops), TextOptions(keep_stop=False))
    assert r.text == "TOM IS HERE. OPEN " + url + " now"
    # cut at a space, at a sentence end: as before
    (r,) = translate_lines(["Tom is here. " * 800], engine(stops))
    assert r.text == ("TOM IS HERE. " * 769).rstrip() + " Tom is here." * 31


def test_a_label_or_list_mark_inside_a_line_stays_out_of_the_model():
    """Found by an attack: "Q: Is it open? A: Yes." lost "A:" (the model saw "A: Yes." and said "Pasa.")."""
    seen = []
    out = translate_lines(["Q: Is it open? A: Yes.", "Mix: 1) flour 2) eggs"], engine(lambda ls: seen.extend(ls) or upper(ls)))
    assert [r.text for r in out] == ["Q: IS IT OPEN? A: Sí.", "MIX: 1) FLOUR 2) EGGS"]  # ("Yes.": casing.REPLIES)
    assert "eggs" in seen and "Yes." not in seen  # (a word alone: a fragment)


def test_the_cells_of_a_pasted_table_row_are_translated_each_and_keep_their_tabs():
    """Found by an attack: "Apple<TAB>Red<TAB>3" reached the model as one sentence (tabs normalised) and lost "Red"."""
    seen = []
    out = translate_lines(["Apple\tRed\t3", "\tIndented text.", "The cat is here.\t\tThe dog"],
                          engine(lambda ls: seen.extend(ls) or upper(ls)))
    assert [r.text for r in out] == ["APPLE\tRED\t3", "\tINDENTED TEXT.", "THE CAT IS HERE.\t\tTHE DOG"]
    assert [r.line for r in out] == [1, 2, 3] and out[0].kept == ["3"]
    assert {"apple", "red", "Indented text.", "The cat is here.", "The dog."} <= set(seen)
    # a line without tabs keeps its own options beside them (it had lost its final stop)
    assert [r.text for r in translate_lines(["I like green apples", "Name\tCity"], engine(upper))] == [
        "I LIKE GREEN APPLES.", "NAME\tCITY"]


def test_a_rows_empty_cells_at_its_end_keep_their_tabs():
    """att6: a row whose last cells are empty ("Red<TAB>") or whose cells are all empty ("<TAB><TAB>") lost its
    tabs, one column or all of them fewer; an indented line and trailing spaces are as before."""
    lines = ["Red\t", "\t\t", "\t", "Apple\tRed\t\t", "\tIndented text.", "The cat.  "]
    out = translate_lines(lines, engine(upper))
    assert [r.text for r in out] == ["RED\t", "\t\t", "\t", "APPLE\tRED\t\t", "\tINDENTED TEXT.", "THE CAT."]
    assert [r.text for r in translate_lines(["Red\t"], engine(upper))] == ["RED\t"]  # (alone, not beside a row)
