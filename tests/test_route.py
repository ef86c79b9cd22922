"""mtcli.route: each line to the model of its direction, with a fake detector and fake models."""

import re

import pytest

from mtcli.errors import UserError
from mtcli.config import Options
from mtcli.route import Languages, Router
from mtcli.text.pipeline import Engine

WORD = re.compile(r"\w+|[^\w\s]")
SPANISH = {"hola", "gracias", "dónde", "está", "la", "estación", "el", "perro", "es", "grande"}


def detect(text, prior):
    """A fake identifier: Spanish if a word is in SPANISH, English if it has another word, else nothing."""
    words = re.findall(r"[^\W\d_]+", text.lower())
    if not words:
        return None, 0.0
    return ("es", 0.9) if any(w in SPANISH for w in words) else ("en", 0.8)


def engine(tag: str, calls: list) -> Engine:
    def decode(lines):
        calls.append((tag, list(lines)))
        return [[(f"[{tag}] {line}", -0.5)] for line in lines]

    return Engine(decode, lambda t: [5] * len(WORD.findall(t)), 54)


def router(languages=Languages(), fixed=None, built=None):
    calls = []
    built = [] if built is None else built

    def engine_for(direction):
        built.append(direction)
        return engine(direction, calls)

    return Router(engine_for, languages, fixed=fixed, detect=detect), calls


def test_each_line_goes_to_the_model_of_its_language_in_one_call_per_direction():
    built = []
    r, calls = router(built=built)
    out = r.translate(["The dog is big.", "El perro es grande.", "It rains.", "Hola."], first=7)
    assert [x.line for x in out] == [7, 8, 9, 10]
    assert [x.text for x in out] == ["[en-es] The dog is big.", "[es-en] El perro es grande.", "[en-es] It rains.",
                                     "[es-en] Hola."]
    assert [x.language for x in out] == ["en", "es", "en", "es"] and out[1].confidence == 0.9
    assert sorted(built) == ["en-es", "es-en"] and len(calls) == 2  # each engine built once, one decode each
    r.translate(["Hola."])
    assert sorted(built) == ["en-es", "es-en"]


def test_an_english_stream_never_loads_the_spanish_model():
    built = []
    r, _ = router(built=built)
    r.translate(["The dog is big.", "12:30", "https://example.com"])
    assert built == ["en-es"]


def test_a_line_with_nothing_to_tell_follows_the_running_majority():
    r, _ = router()
    out = r.translate(["Hola.", "El perro es grande.", "It rains.", "123 456", "😀"])
    assert [x.language for x in out][3:] == ["es", "es"]
    r2, _ = router()
    assert r2.translate(["42"])[0].language == "en"  # nothing seen yet: English, the default direction


def test_with_to_a_line_already_in_the_target_language_is_kept_with_a_warning():
    r, calls = router(Languages.parse("auto", "es"))
    out = r.translate(["El perro es grande.", "The dog is big."])
    assert out[0].text == "El perro es grande." and "Spanish already" in out[0].warnings[0]
    assert out[1].text == "[en-es] The dog is big." and not out[1].warnings
    assert [c[0] for c in calls] == ["en-es"]


def test_from_fixes_the_direction_whatever_the_text_looks_like():
    r, calls = router(Languages.parse("es", None))
    out = r.translate(["The dog is big."])
    assert out[0].text == "[es-en] The dog is big." and out[0].language == "es" and out[0].confidence is None


def test_a_fixed_model_takes_every_line():
    r, calls = router(fixed="en-es")
    assert [x.text for x in r.translate(["Hola.", "Hi."])] == ["[en-es] Hola.", "[en-es] Hi."]


def test_spanish_lines_get_spanish_options_not_the_english_case_rules():
    assert Options().text_for("en").source == "en" and Options().text_for("es").source == "es"
    r, _ = router()
    out = r.translate(["Hola."])  # no "this looks like Spanish already" warning from the English rules
    assert not out[0].warnings


def test_documents_go_one_way_as_a_whole():
    r, calls = router()
    lines, results = r.translate_document(["# El perro", "", "Es grande. It is."], "markdown")
    assert lines[0].startswith("# [es-en]") and all(c[0] == "es-en" for c in calls)


MIXED = ["<p>El perro es grande y la estación está cerca.</p>", "<p>The dog sleeps in the kitchen today.</p>"]


def test_a_part_of_a_document_surely_in_the_target_language_is_kept_as_it_came_and_named():
    """Finding AA: a page with a Spanish and an English paragraph, told Spanish as a whole, had its English one
    translated from Spanish ("Card boiled boiling sails."), unwarned; with --from the user's word stands."""
    def sure(text, prior):
        language, _ = detect(text, prior)
        return language, 1.0

    calls = []
    auto = Router(lambda d: engine(d, calls), detect=sure)
    lines, results = auto.translate_document(MIXED, "html")
    assert lines == ["<p>[es-en] El perro es grande y la estación está cerca.</p>", MIXED[1]]
    assert calls == [("es-en", ["El perro es grande y la estación está cerca."])]
    assert [(r.line, r.warnings) for r in results if r.warnings] == \
        [(2, ["this part of the document is English already (confidence 1.00); kept as it came"])]
    given = Router(lambda d: engine(d, calls), fixed="es-en", detect=sure)
    assert given.translate_document(MIXED, "html")[0][1].startswith("<p>[es-en] The dog")


def test_the_servers_auto_source_keeps_a_documents_part_in_the_target_language_too():
    from types import SimpleNamespace

    from mtcli.serve.texts import translate_job

    calls = []
    tools = SimpleNamespace(engines={d: engine(d, calls) for d in ("en-es", "es-en")})
    out, told, _, said = translate_job(tools, ["\n".join(MIXED)], "html", 1, "auto", "en")
    assert out == [["\n".join(["<p>[es-en] El perro es grande y la estación está cerca.</p>", MIXED[1]])]]
    assert told[0][0] == "es" and len(said[0]) == 1
    assert said[0][0].startswith("line 2: this part of the document is English already") and "kept as it came" in said[0][0]


@pytest.mark.parametrize("source, target, direction", [
    ("auto", None, None), ("en", None, "en-es"), ("es", None, "es-en"), ("auto", "en", "es-en"),
    ("auto", "es", "en-es"), ("es", "en", "es-en"), (None, None, None)])
def test_languages_parse(source, target, direction):
    assert Languages.parse(source, target).direction() == direction


@pytest.mark.parametrize("source, target, message", [
    ("es", "es", "the same language"), ("en", "en", "the same language"), ("fr", None, "--from fr"),
    ("auto", "de", "--to de"), ("EN", None, "--from EN")])
def test_languages_refused(source, target, message):
    with pytest.raises(UserError, match=message):
        Languages.parse(source, target)


def test_a_model_of_one_direction_refuses_the_other():
    Languages.parse("en", "es").agree("en-es", "m")
    Languages.parse("auto", None).agree("es-en", "m")
    for source, target in (("es", None), ("auto", "en"), ("en", None)):
        with pytest.raises(UserError, match="drop -m"):
            Languages.parse(source, target).agree("es-en" if source == "en" else "en-es", "m")


def test_a_direction_no_line_of_a_chunk_takes_is_let_go_before_it_is_decoded(monkeypatch):
    """A file of English with a stray Spanish line: the Spanish model that line loaded is let go (forget) before
    the next chunk of LET_GO_LINES lines or more that needs none is decoded, not kept through the rest of the file;
    a shorter call (a line typed at the prompt) lets nothing go, and a direction a chunk needs is kept."""
    from mtcli import route

    monkeypatch.setattr(route, "LET_GO_LINES", 3)
    built, forgotten = [], []
    r, calls = router(built=built)
    r.forget = forgotten.append
    r.translate(["The dog is big.", "Hola.", "It rains."])
    assert forgotten == [] and sorted(built) == ["en-es", "es-en"]
    r.translate(["It rains.", "The dog is big."])  # (a short call)
    assert forgotten == []
    calls.clear()
    r.translate(["It rains.", "The dog is big.", "It rains."])
    assert forgotten == ["es-en"] and [c[0] for c in calls] == ["en-es"]
    assert r.translate(["Hola."])[0].text == "[es-en] Hola."  # built again
    assert sorted(built) == ["en-es", "es-en", "es-en"]
    r.translate(["Hola.", "El perro es grande.", "It rains."])
    assert forgotten == ["es-en"]  # (both needed)
