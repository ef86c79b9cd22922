"""Text work grows linearly with the input (issue 38): 1x and 16x an input, per format and per span kind, with
runs an attacker would type; 16x may take at most 20 times 1x. A fake model answers at once, so only the text
work is timed (CPU time of this process: other processes on the machine do not count)."""

import time

import pytest

from mtcli.text.formats import translate_document
from mtcli.text.pipeline import TextOptions, translate_lines

from tests.text.fakes import engine

RATIO = 20
FLOOR = 0.025  # seconds: below this a 1x time is noise on a shared machine (quadratic growth still shows: 256x)
# Each 1x input takes about half the floor or less: a linear path then comes to about 8 times the floor at 16x (a
# 1x over the floor would come to 16 at 16x, too near the bound on a loaded machine), a quadratic one to over 100.


def _echo(lines):
    return [[(line, -1.0)] for line in lines]


ENGINE = engine(_echo)


def _cpu(run) -> float:
    best = float("inf")
    for _ in range(2):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def _assert_linear(make, run):
    run(make(1))  # (imports and caches warm)
    times = [_cpu(lambda n=n: run(make(n))) for n in (1, 16)]  # (no 4x: the bound reads 1x and 16x only)
    assert times[1] <= RATIO * max(times[0], FLOOR), f"1x, 16x took {times}"


# a line of each: 16x stays under MAX_LINE_CHARS (10,000), where a line is cut
RUNS = {
    "underscores": "_" * 600, "at signs": "@" * 600, "em dashes": "—" * 600, "ellipses": "..." * 200,
    "words and ellipses": "a... " * 120, "Roman numerals": "Louis XIV " * 60, "labels": "Q: " * 200,
    "Roman numerals after lowercase words": "siglo XXI " * 60, "a long word before a numeral": "a" * 590 + " XX",
    "digits": "1" * 600, "numbers": "12 " * 200, "URLs": "see http://x.org/a " * 30,
    "e-mail addresses": "mail a@b.com " * 45, "titled names": "Mr. Brown and " * 40, "dates": "May 5 " * 100,
    "slashes": "/" * 600, "backslashes": "\\" * 600, "brackets": "<" * 600, "letters and stops": "a." * 300,
    "letters and at signs": "a@" * 300, "hyphenated words": "ab-" * 200, "letters": "a" * 600,
    "a long word and a digit": "a" * 599 + "1", "quotes": '"a" ' * 150, "asides": "(a) " * 50,
    "emoji": "🙂 a " * 150, "emoticons": ":) a " * 120, "backticks": "`a " * 200, "money": "$5 and " * 80,
    "quantities": "5 km and " * 70, "times": "10:00 p.m. and " * 40, "file names": "Dr Smith.pdf " * 50,
    "IPv6 addresses": "2001:db8::1 " * 50, "Spanish": "el perro es " * 50, "no-break spaces": "5\u00a0km\u00a0" * 60,
    # the attack of 2026-12-02b's: bidirectional marks, and the placeholders and spans it added
    "bidi marks": "\u200fw \u200e" * 150, "bidi marks on words": "\u200fa1 " * 150, "ERB tags": "<%= " * 150,
    "shell variables": "$a " * 200, "PHP braces": "{$a " * 150, "Qt placeholders": "%1 " * 200,
    "key combinations": "Ctrl+" * 120, "escaped entities": "&amp;lt;" * 75,
    # a month's name alone, each a span: its article looked for once a sentence, not once a month
    "months alone": "May and " * 75, "months after articles": "the May and " * 50,
    # amounts in euros, each matched to the model's writing of it; the same sentence again and again (pysbd's spans)
    "euros": "€5 and " * 85, "euro words": "5 euros and " * 50, "questions": "¿Qué? " * 100, "exclamations": "Hi! " * 150,
    # the everyday stages (subject.py, greetings.py, currencies.py, firstnames.py): each looks once a sentence
    "dropped subjects": "Miss you. Love you. " * 30, "laughs and wishes": "lol Happy birthday Tom! " * 25,
    "currency words": "two euros and " * 40, "first names": "Say hello to Maria and Rosa. " * 20,
    "number signs": "No. 5 and " * 100, "openings": "Hello, hi, " * 100,  # (kinds.py, replies.py)
    "texting shorthand": "pls thx u " * 60, "shorthand among spans": "pls http://x.org/u \"thx\" RN Ty ily 2 " * 16,
    # each its kind's stand-in (standins.py)
    "template variables": "{name} has {count} {file} and %s " * 20,
    "acronyms": "the UN sent a PDF to the US and " * 30, "dotted acronyms": "U.S. " * 120,  # (acronyms.py)
}


# still superlinear (issue 38): none left; a path found over the bound goes here, marked xfail, until fixed
OPEN: set[str] = set()


def _cases(table):
    return [pytest.param(name, marks=pytest.mark.xfail(reason="superlinear path not fixed yet")) if name in OPEN
            else name for name in table]


@pytest.mark.slow
@pytest.mark.parametrize("name", _cases(RUNS))
def test_a_line_of_one_run_takes_linear_time(name):
    unit = RUNS[name]
    _assert_linear(lambda n: [unit * n], lambda lines: translate_lines(lines, ENGINE))


def _srt(n):
    return [line for k in range(3 * n) for line in (str(k + 1), "00:00:01,000 --> 00:00:02,000", "- Hello there.",
                                                    "- <i>Mr. Brown</i> [SIGHS]", "")]


DOCUMENTS = {
    "html": lambda n: ["<p>" + " ".join(["<i>a</i>"] * (10 * n)) + "</p>"],
    "html lines": lambda n: ["<p>The <b>green</b> door, see <a href='x'>this</a>.</p>"] * (6 * n),
    "html comments": lambda n: ["<p>a <!-- b --> c <?pi x?> d</p>"] * (15 * n),
    # the attack of 2026-12-03's: words with <wbr> inside (one word, and many), sentences over cues
    "html word breaks": lambda n: ["<p>" + "a<wbr>b " * (30 * n) + "</p>", "<p>" + "a<wbr>" * (30 * n) + "b</p>"],
    "srt sentences over cues": lambda n: [line for k in range(6 * n) for line in (
        str(k + 1), "00:00:01,000 --> 00:00:02,000", "<v Ana>the door is", "")],
    "markdown links": lambda n: [" ".join(["[a](http://x.org)"] * (10 * n))],
    "markdown images": lambda n: [" ".join(["[![a](i.png)](http://x)"] * (12 * n))],
    "markdown emphasis": lambda n: ["**a** _b_ `c` " * (8 * n)],
    "markdown comments": lambda n: ["a <!-- b --> c <?x y?> d " * (4 * n) + "<!-- <? e " * (4 * n)],
    "srt": _srt,
    "vtt": lambda n: ["WEBVTT", ""] + [line for k in range(3 * n) for line in (
        f"c{k}", "00:01.000 --> 00:02.000 align:start", "- Hello <v Bob>there</v>.", "", "NOTE a note", "")],
    "text": lambda n: ["The door is open. Call 555-0199 at 5 p.m."] * (6 * n),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", _cases(DOCUMENTS))
def test_a_document_takes_linear_time(name):
    fmt = name.split()[0]
    if fmt == "text":  # (plain text is no document: the pipeline reads its lines as they are)
        _assert_linear(DOCUMENTS[name], lambda lines: translate_lines(lines, ENGINE))
    else:
        _assert_linear(DOCUMENTS[name], lambda lines: translate_document(lines, fmt, ENGINE))


# documents read as bytes, with the passes of the attack of 2026-12-03's fixes: a JSON file written back around its
# strings, a message's inline HTML read as items, a PO message's contexts
FILES = {
    "json": lambda n: ("{" + ",".join(f'"k{k}":"a b"' for k in range(20 * n)) + "}").encode(),
    "json html": lambda n: ('{"a": "' + "<b>a</b> <i>b</i> " * (10 * n) + '"}').encode(),
    "po contexts": lambda n: "".join(f'msgctxt "c{k}"\nmsgid "Open"\nmsgstr ""\n\n' for k in range(10 * n)).encode(),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(FILES))
def test_a_file_takes_linear_time(name):
    from mtcli.text.formats import read_file

    fmt = name.split()[0]

    def run(data: bytes) -> None:
        units, write = read_file(data, fmt, f"x.{fmt}")
        units.translate(ENGINE, TextOptions())
        write("es")

    _assert_linear(FILES[name], run)


# tokens without spaces, as language identification sees a document's whole text (markup included): its URL and
# e-mail pattern was tried at each of their characters ("x" * 100,000, a page's base64 image: 86 s)
TOKENS = {"letters": "x", "at signs": "@", "letters and at signs": "a@", "letters and stops": "a.", "colons": "a:",
          "end tags": "</span>", "accented letters": "é", "schemes": "http:/", "hyphens": "ab-", "base64": "iVBOR+w/",
          "dots and at signs": "a@b.", "digits": "7"}


@pytest.mark.slow
@pytest.mark.parametrize("name", _cases(TOKENS))
def test_a_documents_language_is_told_in_linear_time(name):
    from mtcli.langid import detect

    unit = TOKENS[name]
    _assert_linear(lambda n: "Hello there. " + unit * (3000 * n // len(unit)), detect)


# after an ICU message's opening, the runs its structure's pattern could try at each character (att7: a selector
# looked for after every digit read "1a1a..." to its end from each: 20,000 pairs 9.2 s)
ICU_RUNS = {"digits and letters": "1a", "offsets": "1 a", "commas": ", a", "braces": "} a", "spaces": "1" + " " * 9}


@pytest.mark.slow
@pytest.mark.parametrize("name", _cases(ICU_RUNS))
def test_an_icu_messages_language_is_told_in_linear_time(name):
    from mtcli.langid import detect

    unit = ICU_RUNS[name]
    _assert_linear(lambda n: "{c, plural, one {uno} other {otros}} " + unit * (3000 * n // len(unit)), detect)


# a glossary's term many times in a line: each occurrence's determiners looked for near it, not in all before it
GLOSSED = {"terms": "invoice, ", "terms after articles": "the invoice and "}


@pytest.mark.slow
@pytest.mark.parametrize("name", _cases(GLOSSED))
def test_a_line_of_glossary_terms_takes_linear_time(name):
    from mtcli.config import Options
    from mtcli.text import glossary
    from tests.text.fakes import engine

    options = Options(glossary=glossary.parse(["invoice\tfactura"], "g.tsv")).text_for("en")
    model = engine(lambda lines: [[(line.replace("invoice", "factura"), -1.0)] for line in lines])
    unit = GLOSSED[name]
    _assert_linear(lambda n: [unit * (600 // len(unit) * n)], lambda lines: translate_lines(lines, model, options))
