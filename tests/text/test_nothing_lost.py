"""Nothing lost or invented (issue 38), as properties over generated lines (hypothesis): for every span kind of
kinds.KINDS (a new row fails test_every_kind_has_a_strategy until tests/text/spans_generated.py draws it), a
sentence of ordinary words with spans of the kind goes through the real pipeline and the shipped model, and each
span comes out exactly once (as it came, or written anew: a date, a title), no digit sequence the input lacks
comes out, and HTML comments and processing instructions come out verbatim, never given to the model. A model
made adversarial (a fake: it drops, doubles and half-copies placeholders, makes digits up) is noticed: the
pipeline repairs or warns, never invents in silence.

Bounded: MTCLI_PROPERTY_EXAMPLES examples a kind with the shipped model (default 6, greedy; the file ~30 s on
an idle CI machine), ten times as many with the fake model. A larger run:

    MTCLI_PROPERTY_EXAMPLES=100 nice -n 10 python -m pytest tests/text/test_nothing_lost.py -q
"""

import itertools
import os
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mtcli.text import icu
from mtcli.text.kinds import KINDS
from mtcli.text.pipeline import translate_lines

from tests.conftest import require
from tests.text.fakes import engine as fake_engine
from tests.text.spans_generated import AT_LEAST_TWO, EN_WORDS, ES_WORDS, HIDDEN_WORDS, SPANS, lines

EXAMPLES = int(os.environ.get("MTCLI_PROPERTY_EXAMPLES", "6"))
BOUNDED = dict(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
DIGITS = re.compile(r"\d+")


def _options(language: str):
    from mtcli.config import Options

    return Options().text_for(language)


@pytest.fixture(scope="module")
def models(shipped_model):
    """Each direction's shipped model, greedy (the properties hold for any search), with its text options."""
    from mtcli.config import TranslationOptions
    from mtcli.decode import Translator
    from mtcli.text.pipeline import Engine

    engines = {}
    for source, direction in (("en", "en-es"), ("es", "es-en")):
        require(shipped_model.parent / direction, f"the shipped {direction} model")
        engines[source] = Engine.from_translator(Translator(shipped_model.parent / direction),
                                                 TranslationOptions(beam_size=1)), _options(source)
    return engines


def _written(line: str, pieces: list[tuple[str, str]]) -> str:
    """The line with each span as the translation is to hold it."""
    at, out = 0, []
    for piece, kept in pieces:
        found = line.index(piece, at)
        out += [line[at:found], kept]
        at = found + len(piece)
    return "".join(out) + line[at:]


def lost_or_doubled(kind: str, line: str, pieces: list[tuple[str, str]], out: str) -> list[str]:
    """The spans that do not come out exactly as often as the line has them (an ICU message: its structure)."""
    if kind == "icu message":
        return [] if icu.skeleton(out) == icu.skeleton(line) else [p for p, _ in pieces]
    written = _written(line, pieces)
    if kind in ("month", "mes"):  # (a month's name opening the text gets a capital: "Enero es ...")
        out, written, pieces = out.lower(), written.lower(), [(p, k.lower()) for p, k in pieces]
    return [kept for kept in dict.fromkeys(k for _, k in pieces) if out.count(kept) != written.count(kept)]


def made_up(line: str, out: str) -> set[str]:
    """Digit sequences of the output the input lacks."""
    return set(DIGITS.findall(out)) - set(DIGITS.findall(line))


KIND_NAMES = [k.name for k in KINDS] + ["icu message"]


def test_every_kind_has_a_strategy():
    assert set(KIND_NAMES) <= set(SPANS), sorted(set(KIND_NAMES) - set(SPANS))


@pytest.mark.parametrize("kind", KIND_NAMES)
def test_each_strategy_draws_its_kind(kind):
    """The strategies are right: what each draws is a span of its kind, by the kind's own pattern."""
    row = next((k for k in KINDS if k.name == kind), None)

    @settings(max_examples=25, **BOUNDED)
    @given(SPANS[kind][1])
    def check(drawn):
        piece, _ = drawn
        if row is None:
            assert icu.START.match(piece) and icu.skeleton(piece)
        elif row.find:
            assert row.find(piece), piece
        else:
            assert re.search(row.pattern, piece, 0 if row.template else re.IGNORECASE).group() in (piece, drawn[1])

    check()


@pytest.mark.slow
@pytest.mark.parametrize("kind", KIND_NAMES)
def test_the_shipped_model_keeps_each_span_once_and_makes_no_digit_up(kind, models):
    engine, options = models[SPANS[kind][0]]

    @settings(max_examples=EXAMPLES, **BOUNDED)
    @given(lines(kind))
    def check(example):
        line, pieces = example
        (r,) = translate_lines([line], engine, options)
        assert not lost_or_doubled(kind, line, pieces, r.text), (line, r.text, r.warnings)
        assert not made_up(line, r.text), (line, r.text)

    check()


_HIDDEN = st.lists(st.sampled_from(HIDDEN_WORDS), min_size=1, max_size=4).map(" ".join)
_PROSE = st.lists(st.sampled_from(EN_WORDS), min_size=2, max_size=6).map(lambda ws: " ".join(ws).capitalize())
_COMMENT = st.builds(lambda words, n: f"<!-- {words} {n} -->", _HIDDEN, st.sampled_from(["", "v2", "42", "2024-01-31"]))
_INSTRUCTION = st.builds(lambda words: f"<?php echo '{words}'; ?>", _HIDDEN) \
    | st.builds(lambda name: f'<?xml-stylesheet href="{name}.css"?>', st.sampled_from(HIDDEN_WORDS))


@st.composite
def _page(draw) -> tuple[str, list[str]]:
    """An HTML page of paragraphs with comments and processing instructions among the words, between the
    paragraphs or first; and those comments and instructions."""
    kept, rows = [], []
    for _ in range(draw(st.integers(1, 3))):
        hidden = draw(_COMMENT | _INSTRUCTION)
        kept.append(hidden)
        a, b = draw(_PROSE), draw(_PROSE).lower()
        rows.append(draw(st.sampled_from([f"<p>{a} {hidden} {b}.</p>", f"{hidden}\n<p>{a} {b}.</p>",
                                          f"<p>{a}.</p>{hidden}<p>{b}.</p>", f"<p>{a}{hidden} <b>{b}</b>.</p>"])))
    # one never closed runs to the page's end (as browsers read it): kept as it came with what follows it (an
    # instruction's first ">" closes it)
    unclosed = draw(st.sampled_from(["", "<!-- ", "<? "]))
    if unclosed:
        after = ["", "</p>", "\n<p>" + draw(_HIDDEN) + ".</p>"] if unclosed == "<!-- " else ["", "\n" + draw(_HIDDEN)]
        rest = unclosed + draw(_HIDDEN) + draw(st.sampled_from(after))
        rows[-1], kept = rows[-1] + rest, kept + [rest]
    return "\n".join(rows), kept


@pytest.mark.slow
def test_html_comments_and_instructions_come_out_verbatim_and_never_reach_the_model(models):
    from dataclasses import replace

    from mtcli.text.formats import translate_document

    engine, options = models["en"]

    @settings(max_examples=2 * EXAMPLES, **BOUNDED)
    @given(_page())
    def check(example):
        page, hidden = example
        seen = []
        spy = replace(engine, decode=lambda pieces: seen.extend(pieces) or engine.decode(pieces))
        out, _ = translate_document(page.split("\n"), "html", spy, options)
        text = "\n".join(out)
        for h in hidden:
            assert text.count(h) == page.count(h), (page, text)
        assert not [w for w in HIDDEN_WORDS if any(w in s.lower() for s in seen)], (page, seen)
        assert not made_up(page, text), (page, text)

    check()


# what an adversarial model does to a sentence: its placeholders ("50", "12") and digits
_MISDEEDS = {
    "keep": lambda s: s,
    "drop": lambda s: re.sub(r"\b(?:50|12)\b ?", "", s, count=1),
    "double": lambda s: re.sub(r"\b(50|12)\b", r"\1 \1", s, count=1),
    "half": lambda s: re.sub(r"\b50\b", "500", s, count=1),
    "words": lambda s: re.sub(r"\b50\b", "fifty", s),
    "invent": lambda s: s.rstrip(".!?") + " 1984.",
    "inside": lambda s: re.sub(r"^(\S+)", r"\1 7", s),
}


def adversary(plan: list[str]):
    """A model that answers the k-th sentence it is given by plan[k % len(plan)]'s misdeed."""
    k = itertools.count()

    def decode(pieces):
        return [[(_MISDEEDS[plan[next(k) % len(plan)]](p), -1.0)] for p in pieces]

    return decode


_PLAIN = st.builds(lambda ws, end: " ".join(ws).capitalize() + end, st.lists(st.sampled_from(EN_WORDS), min_size=1,
                                                                              max_size=8), st.sampled_from([".", "?", ""]))
_ANY_LINE = st.sampled_from(KIND_NAMES).flatmap(lambda kind: lines(kind).map(lambda ex: (kind, *ex))) \
    | _PLAIN.map(lambda line: ("none", line, []))


@settings(max_examples=10 * EXAMPLES * len(KIND_NAMES) // 4, **BOUNDED)
@given(_ANY_LINE, st.lists(st.sampled_from(sorted(_MISDEEDS)), min_size=1, max_size=5))
def test_an_adversarial_model_is_caught_never_believed_in_silence(example, plan):
    kind, line, pieces = example
    language = SPANS[kind][0] if kind in SPANS else "en"
    (r,) = translate_lines([line], fake_engine(adversary(plan)), _options(language))
    said = " ".join(r.warnings)
    assert not lost_or_doubled(kind, line, pieces, r.text) or r.warnings, (line, plan, r.text)
    assert all(d in said for d in made_up(line, r.text)), (line, plan, r.text, r.warnings)


def test_spanish_lines_draw_spanish_words():  # (the es rows' lines are Spanish: the es-en model reads them)
    assert {k for k, (lang, _) in SPANS.items() if lang == "es"} == {"fecha", "mes", "título y nombre", "ordinal", "número",
                                                                                "signo de número"}
    assert not set(ES_WORDS) & set(EN_WORDS) and not AT_LEAST_TWO - set(SPANS)
