"""The shorthand stage (text/shorthand.py): texting shorthand written out for the model, whole words only."""

import pytest

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
])
def test_what_is_no_shorthand_is_left_as_it_is(language, text):
    assert expanded(text, language) == text


def test_the_model_reads_the_words_the_shorthand_stands_for():
    seen = []
    out = translate_lines(["pls help"], engine(answers({"Please help.": "Por favor, ayuda."}, seen)))
    assert seen == ["Please help."] and out[0].text == "Por favor, ayuda."


def test_chat_acronyms_are_this_stages():
    seen = []
    out = translate_lines(["BTW the office is closed."], engine(answers({}, seen)))  # (not acronyms.py's)
    assert seen == ["By the way, the office is closed."] and out[0].text == "By the way, the office is closed."
