"""The shorthand stage (text/shorthand.py): texting shorthand written out for the model, whole words only."""

import pytest

from mtcli.config import Options
from mtcli.text import glossary
from mtcli.text.pipeline import translate_lines
from mtcli.text.shorthand import expanded

from tests.text.fakes import answers, engine


@pytest.mark.parametrize("language, typed, written", [
    ("en", "pls help", "please help"),
    ("en", "Thx!", "Thanks!"),
    ("en", "idk what to do", "I don't know what to do"),
    ("en", "BTW, I am late.", "By the way, I am late."),
    ("en", "I need it ASAP.", "I need it as soon as possible."),  # (an all-caps word inside: no capital)
    # an adverb opening the sentence gets its comma, typed out or written out ("BTW the meeting is at 5." had come out
    # "La reunión de la reunión es en 5.")
    ("en", "BTW the meeting is at 5.", "By the way, the meeting is at 5."),
    ("en", "FYI the office is closed.", "For your information, the office is closed."),
    ("en", "By the way the bus is late.", "By the way, the bus is late."),
    ("en", "\"tbh I don't like it\"", "\"to be honest, I don't like it\""),
    ("en", "BTW THE MEETING IS AT 5", "BY THE WAY, THE MEETING IS AT 5"),
    ("en", "r u ok?", "are you ok?"),
    ("en", "c u l8r", "see you later"),
    ("en", "OMG I LOVE IT", "OH MY GOD, I LOVE IT"),  # (a shouted sentence stays shouted)
    ("es", "Q tal?", "Qué tal?"),
    ("es", "porfa", "por favor"),
    ("es", "¿xq no vienes?", "¿por qué no vienes?"),  # (opening a question)
    ("es", "No vengo xq estoy cansado.", "No vengo porque estoy cansado."),
    ("es", "Grax x todo", "Gracias por todo"),
])
def test_shorthand_is_written_out(language, typed, written):
    assert expanded(typed, language) == written


@pytest.mark.parametrize("language, text", [
    ("en", "Mail pls@example.com or see http://x.org/idk and #tbt by @np."),  # (an address, a path, a tag, a handle)
    ("en", "Open thx.txt, the U.S. and a U-turn."),  # (a file name, an abbreviation, a hyphenated word)
    ("en", "Tom is gonna be OK."),  # (what the model translates itself)
    ("es", "Multiplica 3 x 4 y abre x.jpg."),  # (a times sign, a file)
    ("es", "Los dentistas toman rayos x para examinar tus dientes."),  # (a letter's name)
    ("es", "Pablo u Octavio vendrán."),  # (Spanish "u" is "or")
    ("de", "pls"),  # (no table for the language)
    ("en", "I asked him by the way the bus went."),  # (an adverb's words inside a sentence)
    ("en", "By the way, I am late."),  # (a comma of its own)
    ("en", "By the way you talk, I'd say you're French."),  # (typed out, a comma later: maybe a phrase of its own)
    # the attack of 2026-12-03b's E: acronyms in a line not shouted, names, a mention in quotes, a determiner's noun
    ("en", "She works as an RN at the hospital."), ("en", "Take the NP train."), ("en", "MSG is bad for you."),
    ("es", "La TB es una enfermedad grave."),
    ("en", "Jk Rowling wrote it."), ("en", "We met Ty at the party."), ("es", "Malcolm X fue un activista."),
    ("en", "Ur was a city in Mesopotamia."), ("en", 'The word "u" means you.'), ("en", "My cuz is here."),
])
def test_what_is_no_shorthand_is_left_as_it_is(language, text):
    assert expanded(text, language) == text


def test_only_chat_initialisms_are_read_in_capitals_and_a_name_only_opening_a_sentence():
    assert expanded("FYI, Thx, I need it ASAP.", "en") == "For your information, Thx, I need it as soon as possible."
    assert expanded("Ty so much", "en") == "Thank you so much"  # (no name after it)


def test_a_chat_2_ending_a_line_after_shorthand_is_too():
    """att 2026-12-03b's Y: "ily 2" came out "Te amo 2."; "I love you too." the model read "Te amo demasiado."."""
    assert expanded("ily 2", "en") == "I love you, too"
    assert expanded("love u 2!", "en") == "love you, too!"
    assert expanded("I have 2 cats 2", "en") == "I have 2 cats 2"


def test_a_kept_span_is_never_read():
    assert expanded("see x/u and u", "en", [(4, 9)]) == "see x/u and you"


@pytest.mark.parametrize("source, line", [
    ("en", "Open https://example.com/login?u=42 now."), ("en", "The file is C:\\Users\\u\\notes.txt"),
    ("en", "Run `grep -r u src/` now."), ("es", "El archivo está en C:\\q\\tb\\datos.txt"),
])
def test_what_the_spans_stage_keeps_comes_out_byte_for_byte(source, line):
    """att 2026-12-03b's C: "?u=42" came out "?you=42", "C:\\Users\\u" "C:\\Users\\you" (before the spans stage)."""
    seen = []
    (r,) = translate_lines([line], engine(answers({}, seen)), Options().text_for(source))
    spans = [w for w in line.split() if "/" in w or "\\" in w or "`" in w]
    assert all(span.rstrip(".") in r.text for span in spans) and "you" not in r.text and "también" not in r.text


def test_a_glossary_term_wins_over_the_table():
    """att 2026-12-03b's D: the term "MSG" came out "mensaje"."""
    seen = []
    options = Options(glossary=glossary.parse(["msg\tglutamato monosódico"], "g.tsv")).text_for("en")
    (r,) = translate_lines(["This soup has no msg."], engine(answers({}, seen)), options)
    assert "message" not in " ".join(seen) and "glutamato monosódico" in r.text


def test_a_table_word_alone_in_quotes_is_a_mention_and_one_alone_on_a_line_is_read_once():
    """att 2026-12-03b's E and U: 'He wrote "pls" on the board.' and "pls" alone came out "por favor, por favor"
    (the model's for "please" alone, written in casing.REPLIES now); a quoted sentence is read."""
    seen = []
    out = translate_lines(['He wrote "pls" on the board.', "pls", '"pls call me," she wrote.'],
                          engine(answers({}, seen)))
    assert out[0].text.count('"pls"') == 1 and out[1].text == "por favor" and "Please call me." in seen


def test_a_table_word_the_spans_stage_would_keep_alone_is_read():
    assert translate_lines(["omg that is gr8"], engine(answers({})))[0].text == "oh my God, that is great."  # (the adverb's comma)


def test_the_model_reads_the_words_the_shorthand_stands_for():
    seen = []
    out = translate_lines(["pls help"], engine(answers({"Please help.": "Por favor, ayuda."}, seen)))
    assert seen == ["Please help."] and out[0].text == "Por favor, ayuda."


def test_chat_acronyms_are_this_stages():
    seen = []
    out = translate_lines(["BTW the office is closed."], engine(answers({}, seen)))  # (not acronyms.py's)
    assert seen == ["By the way, the office is closed."] and out[0].text == "By the way, the office is closed."
