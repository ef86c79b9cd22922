"""The casing stages (casing.py): ALL CAPS, lowercase and loose contractions, a word alone as a fragment."""

from dataclasses import replace

from mtcli.text.pipeline import TextOptions, translate_lines

from tests.text.fakes import engine, upper


def test_case_and_punctuation():
    seen = []

    def decode(lines):
        seen.extend(lines)
        return [[(line.replace("?", "").join("¿?") if line.endswith("?") else line, -1.0)] for line in lines]

    out = translate_lines(["WHERE IS THE BATHROOM", "where does tom live", "i dont like it"], engine(decode))
    assert seen == ["Where is the bathroom?", "Where does Tom live?", "I don't like it."]
    assert out[0].text == "¿WHERE IS THE BATHROOM?"  # ALL CAPS in, ALL CAPS out


def test_the_model_gets_i_capitalised_and_names_only_in_lowercase_text():
    seen = []
    out = translate_lines(["Tom and i went home", "visit boston with Tom", "Wait ,please."],
                          engine(lambda ls: seen.extend(ls) or [[(line, -1.0)] for line in ls]))
    assert seen == ["Tom and I went home.", "visit boston with Tom.", "Wait ,please."]
    assert [r.text for r in out] == seen


def test_a_masked_span_neither_makes_nor_breaks_all_caps():
    """"$25.50" is masked as "50 dollars": the currency word must not make an ALL CAPS line look typed in
    sentence case (it reached the model in capitals); the amount comes back exactly, its sign too."""
    seen = []
    table = {"I paid 50 dollars for 50 books.": "Pagué 50 por 50 libros.", "I paid 50 for 50 books.": "Pagué 50 por 50 libros."}

    def cased(lines):  # a model trained on cased text: what it does not know comes out lowercase
        seen.extend(lines)
        return [[(table.get(line, line.lower()), -1.0)] for line in lines]

    out = translate_lines(["I PAID $25.50 FOR 3 BOOKS.", "I PAID 25.50 FOR 3 BOOKS."], engine(cased))
    assert seen == ["I paid 50 dollars for 50 books.", "I paid 50 for 50 books."]
    assert [r.text for r in out] == ["PAGUÉ $25.50 POR 3 LIBROS.", "PAGUÉ 25.50 POR 3 LIBROS."]
    # (was "i paid $25.50 dollars for 3 books.", the model given "I PAID 50 dollars FOR 50 BOOKS.")
    seen.clear()
    out = translate_lines(["PAY $5 OR £3 NOW", "call ME at HTTP://X.ORG/AB", "CALL ME AT http://x.org/ab"], engine(cased))
    assert seen == ["Pay 50 dollars or 50 pounds now.", "call ME at 50.", "Call me at 50."]
    assert [r.text for r in out] == ["PAY $5 DOLLARS OR £3 POUNDS NOW.", "call me at HTTP://X.ORG/AB.",
                                     "CALL ME AT http://x.org/ab."]


def test_a_word_alone_is_a_fragment_given_the_model_lowercase_and_comes_back_cased_as_it_came():
    """A word alone as a sentence came out a command or noise ("Red." -> "Responda.", "Dog." -> "Hazte.": of 30
    common words 19 were nonsense, as fragments 5); the model's question marks and capital go, its case follows."""
    seen = []

    def asks(lines):  # a model that makes a question of a fragment, as the shipped one did ("red" -> "¿Está rojo?")
        seen.extend(lines)
        return [[(f"¿{line.capitalize()}?", -1.0)] for line in lines]

    out = translate_lines(["red", "Red", "RED", "Tom", "Red.", "red car"], engine(asks))
    assert seen[:1] == ["red"] and [r.text for r in out[:3]] == ["red", "Red", "RED"]  # (the three asked once)
    assert seen[1:] == ["Tom.", "Red.", "Red car."]  # a name, a sentence, two words: as ever


def test_a_greeting_or_a_command_alone_on_a_line_is_a_sentence_without_a_stop():
    """As fragments "Hello" came out "aquí hola" and "Run" "¿Colando?"; as sentences "Hola." and "Corred.". A name
    alone (a signature) gets no stop either; in a document's text a word alone is still a fragment."""
    seen = []
    with_names = replace(engine(lambda ls: seen.extend(ls) or upper(ls)), names={"john": "John"})
    out = translate_lines(["Hello", "wait", "John", "Hello."], with_names)
    assert seen == ["Hello.", "Wait.", "John."]  # ("Hello." asked once)
    assert [r.text for r in out] == ["HELLO", "WAIT", "JOHN", "HELLO."]
    seen.clear()
    translate_lines(["Hello"], engine(lambda ls: seen.extend(ls) or upper(ls)), TextOptions(keep_stop=False))
    assert seen == ["hello"]
