"""The bidirectional marks stage (text/bidi.py, issue 38's second outside attack of 2026-12-02: "\u200fHello" and
"20\u200e%" lost their marks): the model never sees one; each comes back at the line's edge it stood at, or against
the same token, or is named in a warning. Never dropped silently."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtcli.text.bidi import MARKS, Bidi
from mtcli.text.pipeline import translate_lines
from tests.text.fakes import answers, engine, upper

STAGE = Bidi()
NAME = "\u0645\u062d\u0645\u062f"  # a name in Arabic script: it comes out as it went in


@pytest.mark.parametrize("mark", MARKS)
@pytest.mark.parametrize("source, model_says, output", [
    ("{m}The house is red.", "La casa es roja.", "{m}La casa es roja."),
    ("The house is red.{m}", "La casa es roja.", "La casa es roja.{m}"),
    ("  {m}Indented line.", "Línea sangrada.", "{m}Línea sangrada."),  # (the indent is the pipeline's)
    ("The price is 20{m}% today.", "El precio es 20% hoy.", "El precio es 20{m}% hoy."),
    (f"Call {{m}}{NAME}{{m}} now.", f"Llama a {NAME} ahora.", f"Llama a {{m}}{NAME}{{m}} ahora."),
    (f"Call ({{m}}{NAME}) now.", f"Llama ({NAME}) ahora.", f"Llama ({{m}}{NAME}) ahora."),
    ("It is on page {m} 12 now.", "Está en la página 12 ya.", "Está en la página {m}12 ya."),
])
def test_a_mark_comes_back_at_its_edge_or_against_its_token(mark, source, model_says, output):
    plain, marks = STAGE.strip(source.format(m=mark))
    assert not set(plain) & set(MARKS)
    assert STAGE.restore(model_says, marks) == (output.format(m=mark), [])


@pytest.mark.parametrize("source, model_says", [
    ("The \u200fhouse is red.", "La casa es roja."),  # (the token is not in the translation)
    ("It costs 5\u200e€ or 5 €.", "Cuesta 5 € o 5 €."),  # (twice in it: not sure which)
])
def test_a_mark_with_no_sure_place_is_named_never_placed_at_random(source, model_says):
    _, marks = STAGE.strip(source)
    out, lost = STAGE.restore(model_says, marks)
    assert out == model_says and lost


TOKENS = st.sampled_from(["5", "20", "%", NAME, "km", "the", "cat", "(it)", "sat.", "https://a.example/x", "Tom"])


@given(st.lists(st.tuples(TOKENS, st.text(alphabet=MARKS, max_size=2)), min_size=1, max_size=8), st.data())
@settings(max_examples=300, deadline=None)
def test_every_mark_comes_back_or_is_named_and_nothing_else_changes(tokens, data):
    """Whatever the model says: taking the marks out of the output gives the model's words; every mark of the line
    is in the output or among those named."""
    line = " ".join(mark + token for token, mark in tokens)
    _, marks = STAGE.strip(line)
    said = " ".join(data.draw(st.permutations([t for t, _ in tokens])))
    out, lost = STAGE.restore(said, marks)
    assert re.sub(f"[{MARKS}]", "", out) == said
    assert sorted(re.sub(f"[^{MARKS}]", "", out) + "".join(m.written for m in lost)) == \
        sorted(re.sub(f"[^{MARKS}]", "", line))


@pytest.mark.parametrize("kind, line, expected", [
    ("text", "\u200fThe cat sleeps.", "\u200fTHE CAT SLEEPS."),
    ("text", "It costs 20\u200e%.", "IT COSTS 20\u200e%."),
    ("html", "<p>\u200f<b>Hello</b> 20\u200e% friend.</p>", None),
])
def test_through_the_pipeline_the_model_never_sees_a_mark(kind, line, expected):
    seen: list[str] = []
    got = translate_lines([line], engine(answers({}, seen, default=lambda s: upper([s])[0][0][0])))[0]
    assert not set("".join(seen)) & set(MARKS)
    if expected:
        assert got.text == expected and not got.warnings


def test_a_line_of_marks_alone_comes_out_as_it_came():
    """Attack 2026-12-02b: "\u200f\u200e" alone on a line came out an empty line."""
    lines = ["\u200f\u200e", " \u200f ", "\u2067\u2069", "The cat.\u200f"]
    got = translate_lines(lines, engine(upper))
    assert [r.text for r in got] == ["\u200f\u200e", " \u200f ", "\u2067\u2069", "THE CAT.\u200f"]


# end to end, through the CLI with the shipped model, in each format that reads text


@pytest.mark.parametrize("name, content", [
    ("in.txt", "\u200fThe house is red.\u200f\nThe price is 20\u200e% today.\n"),
    ("in.html", "<p dir=\"rtl\">\u200fThe house is red.\u200f</p>\n<p>The price is 20\u200e% today.</p>\n"),
    ("in.md", "# \u200fThe house is red.\u200f\n\nThe price is 20\u200e% today.\n"),
    ("in.srt", "1\n00:00:01,000 --> 00:00:02,000\n\u200fThe house is red.\u200f\n\n"
               "2\n00:00:03,000 --> 00:00:04,000\nThe price is 20\u200e% today.\n"),
    ("in.json", '{"a": "\u200fThe house is red.\u200f", "b": "The price is 20\u200e% today."}\n'),
])
def test_bidi_marks_of_every_format_come_back(run_cli, shipped_model, tmp_path, name, content):
    source = tmp_path / name
    source.write_text(content, encoding="utf-8")
    code, _, err = run_cli("translate", "--no-check", "-i", source, "-o", tmp_path / ("out." + name))
    out = (tmp_path / ("out." + name)).read_text(encoding="utf-8")
    assert code == 0, err
    assert out.count("\u200f") == 2 and "20\u200e%" in out
