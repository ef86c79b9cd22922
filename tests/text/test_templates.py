"""A template's placeholders (kinds.py's template rows, templates.py) kept byte for byte through the pipeline: what
the model sees, what comes back, what is prose, and the ladder when a model loses them; a few with the shipped
models, both directions."""

import gc
import re
import time
from collections import Counter
from dataclasses import replace

import pytest

from mtcli.config import TextOptions
from mtcli.text import protect
from mtcli.text.pipeline import translate_lines
from mtcli.text.quotes import Items
from mtcli.text.templates import breaks, placeholders, shield

from tests.conftest import require
from tests.text.fakes import answers, engine, upper

# one of each syntax, in a sentence: what the model is given for it (a number, a person's a name: standins.py)
PLACEHOLDERS = {
    "Hello {name}, welcome.": "Hello, Tom, welcome.",  # (a person's: a name, standins.py)
    "Delete {0} and {} now?": "Delete 50 and 50 now?",
    "Hello {{ user.name }}, hi.": "Hello, Tom, hi.",
    "Saved {{count}} files.": "Saved 50 files.",
    "Saved %s to %d places.": "Saved 50 to 50 places.",
    "%1$s invited %2$s today.": "Tom invited 50 today.",  # (one that says nothing: a name first, else a number)
    "We deleted %(count)d files.": "We deleted 50 files.",
    "Hello %(name)s, hi.": "Hello, Tom, hi.",
    "It costs %.2f today.": "It costs 50 today.",
    "Your balance is ${amount} now.": "Your balance is 50 now.",
    "Hello #{name}, hi.": "Hello, Tom, hi.",
    "Run $(whoami) now.": "Run 50 now.",
    "Saved {0:.2f} MB.": "Saved 50 MB.",
    "Welcome, %@, hi.": "Welcome, Tom, hi.",  # (after a greeting: a person's)
    "The :attribute must have :min letters.": "The 50 must have 50 letters.",
    "The page /users/:id is gone.": "The page 50 is gone.",
    "Tom &amp; Mary are here.": "Tom 50 Mary are here.",
    "{% if user %}Welcome back{% endif %} now.": "50 Welcome back 50 now.",
    # found by the attack of 2026-12-02b: each came out mangled ("%{count}" -> "{count}", "{$name}" -> "{ te}",
    # "<%= user.name %>" -> "<= hilo>", "%1" -> "1", "$HOME" -> "dólares", "%MODULE%" lost, "$t(a.b)" -> "no()")
    "Welcome, %{user_name}, you have %{count} items.": "Welcome, Tom, you have 50 items.",
    "Hello {$name}, see you.": "Hello, Tom, see you.",
    "Hi <%= user.name %>, your order shipped.": "Hi, Tom, your order shipped.",
    "Hi <%- name %> and <% x %> now.": "Hi, Tom and 50 now.",
    "File %1 could not be opened in %2 now.": "File 50 could not be opened in 50 now.",
    "Copied %L1 folders today.": "Copied 50 folders today.",
    "Set $HOME and $user_name before you start.": "Set 50 and Tom before you start.",
    "Error %ERROR_CODE% in module %MODULE%.": "Error 50 in module 50.",
    "Click $t(common.save) to keep it.": "Click 50 to keep it.",
}


@pytest.mark.parametrize("line", PLACEHOLDERS)
def test_each_syntax_reaches_the_model_as_its_stand_in_and_comes_back_byte_for_byte(line):
    seen = []
    (r,) = translate_lines([line], engine(answers({}, seen, default=lambda s: s.upper().replace("TOM", "Tom"))))
    assert seen == [PLACEHOLDERS[line]]
    assert placeholders(r.text) == placeholders(line) and sum(placeholders(line).values()) >= 1
    assert r.kept and not r.warnings


def test_normalize_never_respaces_a_placeholder():
    """Bug fixed: "{{ name }}" came out "{{name}}" and "Total: %.2f" "Total:%.2f" (normalize's spacing rules)."""
    out = translate_lines(["See {{ name }}, hi.", "Total: %.2f euros", "It is { count } now."], engine(upper))
    assert [r.text for r in out] == ["SEE {{ name }}, HI.", "Total: %.2f EUROS", "IT IS { count } NOW."]


def test_a_line_of_placeholders_only_passes_through_untouched_without_the_model():
    seen = []
    lines = ["%s:  %d", "{0} {1}", "  {{ a }} / {{ b }}", "%1$s%2$s"]
    out = translate_lines(lines, engine(lambda ls: seen.extend(ls) or upper(ls)))
    assert [r.text for r in out] == lines and seen == []
    (r,) = translate_lines(["%s: done"], engine(upper))  # (a word: translated)
    assert r.text.startswith("%s: DONE")


@pytest.mark.parametrize("line, kept", [
    ("50% off all items!", []), ("100 % of the tests passed.", []), ("We are 95% sure.", []),
    ("% s is no placeholder.", []), ("Hello { name, you are late.", []), ("a {very rough} idea", []),
    ("Note: the door is open.", []), ("The ratio is 3:1.", []), ("Use std::vector here.", []),
    ("The :attribute field is required.", [":attribute"]), ("El usuario :name fue bloqueado.", [":name"]),
    ("A :max_size limit.", [":max_size"]),  # (one lowercase :name after a space: a template's variable)
    ("I am happy :p today.", []), ("Say :smile: now.", []), ("The :Title of it.", []), ("At :30 past.", []),
    ("Read the docs:intro page.", []),
    ("Use %% for a percent sign.", ["%%"]), ("Progress: %d%%", ["%d", "%%"]), ("The {very} idea.", ["{very}"]),
    ("50%d is a typo.", []), ("Hello :name, you have :count messages.", [":name", ":count"]),
    ("Hello :name, you have %d messages.", [":name", "%d"]), ("GET /users/:id", [":id"]),
    ("Path: C:\\new\\table.csv", []), ("Tom &amp Jerry", []), ("a & b; c", []), ("It is ${} now.", ["{}"]),
    ('Write "\\\\n" for a backslash and an n.', ["\\\\"]), ("Open \\\\server\\share now.", []),
    # the attack of 2026-12-02b's syntaxes, and the prose next to them
    ("See http://example.com/a%20b/%E2%80%99x/%C3%A9 now.", []), ("It costs $5 or US$10.", []), ("I paid $ 5.", []),
    ("Rates rose 5% to 10%.", []), ("Up 20%, down 30% today.", []), ("Use %1 and %L2 here.", ["%1", "%L2"]),
    ("Hello %{name}.", ["%{name}"]), ("Run %WINDIR% now.", ["%WINDIR%"]), ("A %ID% here.", []),
    ("Hi <%= name %>.", ["<%= name %>"]), ("Hello {$user.name}.", ["{$user.name}"]), ("Hello $name.", ["$name"]),
    ("Run $t(a.b) now.", ["$t(a.b)"]), ("The 5$ fee.", []),
])
def test_what_is_a_placeholder_and_what_is_prose(line, kept):
    assert placeholders(line) == Counter(kept)


def test_escaped_newlines_part_a_string_into_lines_translated_each():
    seen = []
    lines = ["Are you sure?\\nThis cannot be undone.", "Saved.\\n\\n%d files.\\n", "C:\\new\\table is a path."]
    out = translate_lines(lines, engine(lambda ls: seen.extend(ls) or upper(ls)))
    assert [r.text for r in out] == ["ARE YOU SURE?\\nTHIS CANNOT BE UNDONE.", "SAVED.\\n\\n%d FILES.\\n",
                                     "C:\\new\\table IS A PATH."]
    assert "Are you sure?" in seen and "This cannot be undone." in seen and "50 files." in seen
    assert breaks("C:\\new\\table") is None and breaks("a\\\\nb") is None
    assert breaks("a\\r\\nb") == ["a", "\\r\\n", "b"]


def test_a_placeholder_at_the_start_is_a_word_an_entity_at_the_end_is_set_aside():
    seen = []
    out = translate_lines(["%d files were deleted.", "{user} liked it", "Next &raquo;"],
                          engine(lambda ls: seen.extend(ls) or [[(t.replace("TOM", "Tom"), p) for t, p in o]
                                                                for o in upper(ls)]))
    assert seen == ["50 files were deleted.", "Tom liked it.", "next"]  # (a word alone: a fragment)
    assert [r.text for r in out] == ["%d FILES WERE DELETED.", "{user} LIKED IT.", "NEXT &raquo;"]


def test_a_model_that_loses_the_placeholder_goes_down_the_ladder_and_loses_nothing():
    def no_number(lines):  # like the Spanish-English model ("50" -> "fifty"), and unknown characters dropped
        return [[(re.sub("[\U000f0000-\U0010ffff]", "", line.replace("50", "fifty").replace("12", "twelve")).upper(),
                  -1.0)] for line in lines]

    lines = ["Hello {name}, you have %d new messages.", "%1$s shared %2$s with %3$s.", "Loading {}..."]
    out = translate_lines(lines, engine(no_number))
    for line, r in zip(lines, out):
        assert placeholders(r.text) == placeholders(line) and any("in phrases of one" in w for w in r.warnings), r.text


def test_the_spanish_models_ladder_shows_a_name_and_falls_back_to_digits_where_the_name_is_the_sentence_s():
    seen = []
    es = replace(engine(answers({}, seen)), placeholders=protect.PLACEHOLDERS_FROM["es"])
    lines = ["Hola %s, tienes %s mensajes.", "Tom tiene %s gatos.", "Tom tiene 5 gatos."]
    out = translate_lines(lines, es, TextOptions(source="es"))
    # (a typed number's stand-in is a number, "12", in a Spanish source: text/standins.STAND_INS)
    assert seen == ["Hola. Tom, tienes Tom mensajes.", "Tom tiene 50 gatos.", "Tom tiene 12 gatos."]  # (standins.addressed)
    assert [r.text for r in out] == lines

    def no_tom(lines):  # loses "Tom" once there are two, keeps "Mary"
        return [[(line.replace("Tom", "él", 1) if line.count("Tom") > 1 else line, -1.0)] for line in lines]

    seen.clear()
    (r,) = translate_lines(["Hola %s, tienes %s mensajes."], replace(engine(no_tom), placeholders=es.placeholders),
                           TextOptions(source="es"))
    assert r.text == "Hola %s, tienes %s mensajes." and not r.warnings


@pytest.mark.parametrize("unit", ["{a} ", "%(x)s", "{{ ", "$((", ":a :b ", "&#1", "\\n", "{0, plural, ",
                                  "{0, plural, one {", "{0, plural, one {x} other {y}} "])
def test_shielding_is_linear_in_the_line(unit):
    """A line 16 times as long costs at most 2.5 times as much a unit (quadratic work would be 16 times). CPU time
    (the machine's load does not count), the best of three runs of each line taken in turn (a burst of load falls on
    both; 16 short lines in a row were no fair measure, the same line again being cheaper), the garbage collector
    off; measured again, up to three times, before it fails: a loaded machine's noise (2.5x once) passes on another
    try, quadratic work on none."""
    lines = {n: unit * n + " end" for n in (1000, 16_000)}
    shield(lines[1000], Items({}, [lines[1000]]))  # (imports and caches warm)
    for _ in range(3):
        best = dict.fromkeys(lines, float("inf"))
        gc.disable()
        try:
            for _ in range(3):
                for n, line in lines.items():
                    start = time.process_time()
                    shield(line, Items({}, [line]))
                    best[n] = min(best[n], (time.process_time() - start) / n)
        finally:
            gc.enable()
        if best[16_000] <= 2.5 * best[1000]:
            return
        if best[16_000] > 5 * best[1000]:  # (no noise seen came near: quadratic work fails at once)
            break
    pytest.fail(f"CPU seconds a unit: {best[1000]:.2e} in a line of 1,000, {best[16_000]:.2e} in one of 16,000")


SOFTWARE = {
    "en-es": ["Hello {name}, you have %d new messages.", "%1$s invited %2$s to the group.",
              "Your balance is ${amount}.", "Run $(whoami) to see your user.", "Hello {{ user.name }}, welcome!",
              "The page /users/:id was not found.", "Are you sure?\\nThis cannot be undone.",
              "You have {count, plural, one {# new message} other {# new messages}}."],
    "es-en": ["Hola {name}, tienes %d mensajes.", "%1$s invitó a %2$s al grupo.", "Tu saldo es ${amount}.",
              "Bienvenido, {{ user.name }}.", "Tienes {count, plural, one {# mensaje} other {# mensajes}}."],
}


@pytest.mark.parametrize("direction", SOFTWARE)
def test_the_shipped_models_keep_every_placeholder(direction, shipped_model):
    from mtcli.decode import Translator
    from mtcli.config import Options, TranslationOptions
    from mtcli.text import icu
    from mtcli.text.pipeline import Engine

    model = shipped_model.parent / direction
    require(model, f"the shipped {direction} model")
    lines = SOFTWARE[direction]
    out = translate_lines(lines, Engine.from_translator(Translator(model), TranslationOptions(beam_size=1)),
                          Options().text_for(direction[:2]))
    for line, r in zip(lines, out):
        assert placeholders(r.text) == placeholders(line), (line, r.text)
        assert icu.skeleton(r.text) == icu.skeleton(line)
        assert not re.search(r"\b(?:fifty|cincuenta)\b", r.text, re.IGNORECASE), r.text


def test_translate_from_spanish_keeps_the_placeholders(run_cli, shipped_model):
    require(shipped_model.parent / "es-en", "the shipped es-en model")
    code, out, _ = run_cli("translate", "--from", "es", "Hola {name}, tienes %d mensajes.")
    assert code == 0 and "{name}" in out and "%d" in out
