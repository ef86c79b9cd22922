"""The acronyms stage (acronyms.py): an acronym in a line that is not shouted kept, or written the target's way; a
line of acronyms no shout; a real shout still one. Rows: (source, the model sees, the model says, output)."""

from dataclasses import replace

import pytest

from mtcli.config import Options, TextOptions
from mtcli.confidence import spared
from mtcli.langid import detect
from mtcli.text import glossary
from mtcli.text.acronyms import found, told, written
from mtcli.text.pipeline import translate_lines
from mtcli.text.segment import sentences
from mtcli.text.sentence import placeholders_for

from tests.text.fakes import answers, engine

# the source words the model learned (Engine.familiar): an ALL CAPS token that is one is a word ("VERY", "IT")
EN_WORDS = frozenset("send me the met today i work in it am very tired can you help who us she lives ok saw a do not "
                     "touch that stop turn on use sent two new arrested him he had shots just it's against them".split())
ES_WORDS = frozenset("mándame el la se reunió hoy estoy muy cansado mi va lento uso una ok usa vivo en tiene sida "
                     "necesito nueva esto es para ti trabajo".split())


def _run(line: str, says: dict[str, str], source: str = "en") -> tuple[list[str], str]:
    seen: list[str] = []
    words = EN_WORDS if source == "en" else ES_WORDS
    eng = replace(engine(answers(says, seen)), familiar=words, placeholders=placeholders_for(f"{source}-"))
    (r,) = translate_lines([line], eng, TextOptions(source=source))
    return seen, r.text


@pytest.mark.parametrize("line, sees, says, out", [
    # kept as typed; the Spanish determiner the placeholder brought made to fit ("los 50": the number's plural)
    ("Send me the PDF.", "Send me the 50.", "Mándame los 50.", "Mándame el PDF."),
    ("I use a VPN.", "I use a 50.", "Uso un 50.", "Uso una VPN."),
    ("I sent two PDFs.", "I sent two 50.", "Envié dos 50.", "Envié dos PDFs."),  # (a plural's placeholder no name)
    ("He had MMR shots.", "He had 50 shots.", "Tenía 50 dólares de vacunas.", "Tenía MMR de vacunas."),  # (no currency)
    # written the Spanish way, in its gender and number
    ("I use a new VPN.", "I use a new 50.", "Uso un nuevo 50.", "Uso una nueva VPN."),
    # an acronym the sentence opens with: a name's placeholder (a number's made the verb plural, "El FBI lo
    # arrestaron."), without its "the" (given "The Tom arrested him." the model wrote "El arrestó al FBI."), the
    # Spanish article put back
    ("The UN met today.", "Tom met today.", "Tom se reunió hoy.", "La ONU se reunió hoy."),
    ("The FBI arrested him.", "Tom arrested him.", "Tom lo arrestó.", "El FBI lo arrestó."),
    ("\"The CIA knows.\"", "Tom knows.", "Tom lo sabe.", "\"La CIA lo sabe.\""),
    ("THE FBI ARRESTED HIM.", "Tom arrested him.", "Tom lo arrestó.", "EL FBI LO ARRESTÓ."),
    ("The FBI's agents came.", "The Tom's agents came.", "Los agentes de Tom vinieron.", "Los agentes del FBI vinieron."),
    ("I work in IT.", "I work in 50.", "Trabajo en 50.", "Trabajo en TI."),
    ("She lives in the US.", "She lives in the 50.", "Vive en el 50.", "Vive en los EE. UU."),  # (one stop)
    # a table's token that is a pronoun too: with nothing before it that stands before a name, the pronoun stressed
    ("Just do IT.", "Just do it.", "Solo hazlo.", "Solo hazlo."),
    ("It's US against them.", "It's us against them.", "Somos nosotros contra ellos.", "Somos nosotros contra ellos."),
    # no acronyms: a word of the language typed in capitals for weight, a shout, a known one inside a sentence
    ("I am VERY tired.", "I am VERY tired.", "Estoy muy cansado.", "Estoy muy cansado."),
    ("CAN YOU HELP ME?", "Can you help me?", "¿Puedes ayudarme?", "¿PUEDES AYUDARME?"),
    ("WHO?", "Who?", "¿Quién?", "¿QUIÉN?"),
    ("Turn on the TV.", "Turn on the TV.", "Enciende la tele.", "Enciende la tele."),
    # an acronym in a shout kept; a lone one the model knows given it calm ("OK." had come out "BUENO.")
    ("SEND ME THE PDF!", "Send me the Tom!", "¡Mándame el Tom!", "¡MÁNDAME EL PDF!"),  # (a name: a word the model never learned)
    ("OK.", "Ok.", "Vale.", "Vale."),
    ("OK!", "Ok.", "Vale.", "¡Vale!"),  # (with any mark, or none: "BUENO", "¡BUENO!" had come out)
    ("OK", "ok", "vale", "Vale"),
])
def test_english(line, sees, says, out):
    seen, got = _run(line, {sees: says})
    assert (seen, got) == ([sees], out)


@pytest.mark.parametrize("line, out", [("USA.", "EE. UU."), ("UN.", "ONU."), ("IT.", "TI."), ("PDF.", "PDF.")])
def test_a_line_of_one_acronym_is_no_shout_and_needs_no_model(line, out):
    assert _run(line, {}) == ([], out)


@pytest.mark.parametrize("line, sees, says, out", [
    # es-en's placeholder is a name, before which the model drops the article: it comes back
    ("Mándame el PDF.", "Mándame el Tom.", "Send me Tom.", "Send me the PDF."),
    ("Mi PC va lento.", "Mi Tom va lento.", "Tom is slow.", "My PC is slow."),
    ("Uso una API.", "Uso una Tom.", "I use a Tom.", "I use an API."),
    ("La ONU se reunió hoy.", "La Tom se reunió hoy.", "Tom met today.", "The UN met today."),
    ("Vivo en EE. UU.", "Vivo en Tom.", "I live in Tom.", "I live in the US."),  # (English's article)
    ("Estoy MUY cansado.", "Estoy MUY cansado.", "I'm very tired.", "I'm very tired."),
    ("Esto es para TI.", "Esto es para ti.", "This is for you.", "This is for you."),  # (the pronoun, stressed)
    ("Trabajo en TI.", "Trabajo en Tom.", "I work in Tom.", "I work in IT."),
    ("Trabajo en la NASA.", "Trabajo en la Tom.", "I work in Tom's.", "I work in the NASA."),  # (no possessive)
    ("Tiene sida.", "Tiene Tom.", "He has Tom.", "He has AIDS."),  # (Spanish writes it in lowercase)
    ("Necesito una CPU nueva.", "Necesito una Tom nueva.", "I need a new Tom.", "I need a new CPU."),
])
def test_spanish(line, sees, says, out):
    seen, got = _run(line, {sees: says}, "es")
    assert (seen, got) == ([sees], out)


def test_spanish_lines_of_acronyms():
    assert _run("EE. UU.", {}, "es") == ([], "US.") and _run("OK.", {}, "es") == ([], "OK.")


def test_what_is_an_acronym():
    assert found("The MP3 and the FBI.", EN_WORDS, "en")[:2] == ([(16, 19)], False)  # (a number's span: "MP3")
    assert found("World War II ended.", EN_WORDS, "en")[:2] == ([], False)  # (a Roman numeral's)
    assert found("Modern DNA tests.", EN_WORDS | {"dna"}, "en")[:2] == ([(7, 10)], False)  # (no pronoun: kept)
    assert found("Do NOT touch that.", EN_WORDS, "en")[:2] == ([], False)
    assert found("AT&T and X-RAY.", EN_WORDS, "en")[:2] == ([], False)
    assert found("I DON'T know the CEO's name.", EN_WORDS, "en")[:2] == ([(17, 20)], False)  # (a contraction's)
    assert found("I have been to the U.S.", EN_WORDS, "en")[:2] == ([(19, 23)], False)
    assert found("The U.K.", EN_WORDS, "en")[:2] == ([(4, 7)], False)  # (the stop the sentence's: "Reino Unido.")
    assert found("TV.", EN_WORDS, "en")[:2] == ([], True)
    assert written("0|1", "en") == "0|1" and written("U.S.", "en") == "EE. UU."  # (a table row's "|" is its own)


def test_a_kept_acronym_is_spared_by_the_confidence_check():
    """route.py spares the line's kept spans: the acronym as typed, also where it is written anew."""
    eng = replace(engine(answers({"The Tom met today.": "Tom se reunió hoy."})), familiar=EN_WORDS)
    (r,) = translate_lines(["The UN met today."], eng)
    assert r.kept == ["UN"] and spared("The UN met today.", r.kept) == [(4, 6)]


def test_a_line_of_acronyms_is_told_by_the_tables():
    assert [told(t) for t in ("UN.", "ONU.", "EE. UU.", "OK.", "STOP!", "PDF.", "The UN.")] == [
        "en", "es", "es", "", None, None, None]
    assert [detect(t).language for t in ("UN.", "IT.", "ONU.", "USA.")] == ["en", "en", "es", None]


def test_spain_s_doubled_initials_end_no_sentence():
    assert sentences("Vivo en EE. UU. Me gusta.", "es") == ["Vivo en EE. UU.", "Me gusta."]
    assert sentences("El jefe de RR. HH. me llamó.", "es") == ["El jefe de RR. HH. me llamó."]
    assert sentences("Vivo en EE.UU. desde 2010.", "es") == ["Vivo en EE.UU. desde 2010."]  # (without the space)
    assert sentences("Trabajo en RR.HH. Me gusta.", "es") == ["Trabajo en RR.HH.", "Me gusta."]


def test_a_glossary_term_in_capitals_is_the_glossary_s_not_a_stressed_pronoun():
    seen: list[str] = []
    eng = replace(engine(answers({}, seen)), familiar=EN_WORDS, placeholders=placeholders_for("en-"))
    options = Options(glossary=glossary.parse(["IT\tinformática"], "g.tsv")).text_for("en")
    (r,) = translate_lines(["Just do IT."], eng, options)
    assert "informática" in r.text and "it" not in r.text.lower().split()
