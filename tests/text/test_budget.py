"""A line over its time budget (TextOptions.budget, budget.py) passes through as it came with a warning, and
the other lines are translated as ever; checked between stages and between decoding's attempts."""

import time


import pytest
from dataclasses import replace

from mtcli.config import LINE_BUDGET
from mtcli.text.formats import translate_document
from mtcli.text.pipeline import TextOptions, translate_lines

from tests.text import fakes
from tests.text.fakes import engine, upper

SLOW = 0.3  # seconds a fake step sleeps
BUDGET = TextOptions(budget=0.15)


@pytest.fixture(autouse=True, scope="module")
def _loaded():  # (the sentence splitter's first use loads it: not a line's time)
    translate_lines(["Warm. Up."], engine(upper))


def _slow_encode(word: str, seen: list | None = None):
    def encode(text: str) -> list[int]:
        if word in text:
            time.sleep(SLOW / 3)
            if seen is not None:
                seen.append(text)
        return fakes.encode(text)
    return encode


def test_the_default_budget_lives_in_config_and_a_normal_line_is_far_under_it():
    assert TextOptions().budget == LINE_BUDGET >= 10
    (r,) = translate_lines(["The plant is green, and I have 3 cats."], engine(upper))
    assert r.text.startswith("THE PLANT") and not r.warnings


def test_a_line_whose_text_work_runs_over_passes_through_and_the_others_are_translated():
    slow = replace(engine(upper), encode=_slow_encode("tortoise"))
    lines = ["The plant is green.", "  The tortoise walks slowly, 3 km a day.", "I have 3 cats."]
    out = translate_lines(lines, slow, BUDGET, first=7)
    assert [r.text for r in out] == ["THE PLANT IS GREEN.", lines[1], "I HAVE 3 CATS."]
    assert [r.line for r in out] == [7, 8, 9]
    assert not out[0].warnings and not out[2].warnings
    assert len(out[1].warnings) == 1 and "budget of 0.15 s" in out[1].warnings[0] and "untranslated" in out[1].warnings[0]
    # (almost over: the same line with a budget it fits in is translated)
    (r,) = translate_lines([lines[1]], slow, TextOptions(budget=30.0))
    assert r.text.startswith("  THE TORTOISE") and not r.warnings


def test_the_text_work_of_a_line_over_its_budget_stops_at_the_next_stage():
    seen: list[str] = []
    many = " ".join(f"The {c} tortoise walks." for c in ("red", "blue", "green", "black", "white", "brown"))
    slow = replace(engine(upper), encode=_slow_encode("tortoise", seen))
    translate_lines([many], slow, TextOptions(budget=None))
    assert len(seen) >= 6
    seen.clear()
    translate_lines([many], slow, BUDGET)
    assert 1 <= len(seen) <= 3  # (without the check between stages: each sentence read the vocabulary, 6 and more)


def test_a_line_whose_decoding_runs_over_is_not_retried_and_passes_through():
    asked = []

    def losing(lines):  # a slow model that loses every placeholder: the retry ladder would try again and again
        asked.append(lines)
        time.sleep(SLOW)
        return [[("Nada.", -1.0)] for _ in lines]

    line = "I paid $50 for 3 books on May 5, 2025."
    (r,) = translate_lines([line], engine(losing), BUDGET)
    assert r.text == line and "budget" in r.warnings[0] and len(asked) == 1
    asked.clear()
    (r,) = translate_lines([line], engine(losing), TextOptions(budget=None))  # (no budget: every rung tried)
    assert "50" in r.text and len(asked) == 2 and not any("budget" in w for w in r.warnings)


def test_a_decoders_one_time_work_is_charged_to_no_line():
    """Attack d's P: a first run's kernel compilation (24 s of CPU, minutes of a loaded machine's wall time) was
    charged to the lines decoded meanwhile, which passed through untranslated. The decoder's one-time work
    (Engine.setup: decode.Translator's, kernels/jit.py's count) is taken off a decoding call's time."""
    spent = [0.0]

    def compiling(lines):  # (a first call that compiles: slow, all of it setup)
        if not spent[0]:
            time.sleep(SLOW)
            spent[0] = SLOW
        return [[("Nada.", -1.0)] for _ in lines]

    line = "I paid $50 for 3 books."
    (r,) = translate_lines([line], replace(engine(compiling), setup=lambda: spent[0]), BUDGET)
    assert not any("budget" in w for w in r.warnings) and r.text != line
    spent[0] = 0.0
    (r,) = translate_lines([line], engine(compiling), BUDGET)  # (the same time, not setup: over)
    assert "budget" in r.warnings[0] and r.text == line


def test_more_one_time_work_than_a_call_took_gives_its_lines_no_credit():
    """A server's decoder that began starting before the line came (Batcher.setup) may count more setup than the
    decoding call took: the call is charged nothing, not less than nothing, and the line's next call counts whole."""
    calls = [0]

    def decode(lines):  # (the first call's answer loses the spans: they are tried again, slowly)
        calls[0] += 1
        time.sleep(SLOW if calls[0] == 2 else 0)
        return [[("Nada.", -1.0)] for _ in lines]

    line = "I paid $50 for 3 books."
    (r,) = translate_lines([line], replace(engine(decode), setup=lambda: 100.0 if calls[0] else 0.0), BUDGET)
    assert calls[0] == 2 and any("budget" in w for w in r.warnings) and r.text == line, r.warnings


def test_translators_count_numba_loaded_and_kernels_compiled_as_setup():
    from mtcli.decode import Translator
    from mtcli.kernels import jit

    assert Translator.setup_seconds is jit.setup_seconds
    jit.load()
    from numba.core.compiler_lock import global_compiler_lock

    loaded = jit.setup_seconds()
    assert loaded > 0
    with global_compiler_lock:  # (held while a kernel compiles or loads from the cache, and waited for)
        time.sleep(SLOW / 3)
    assert jit.setup_seconds() >= loaded + SLOW / 3


def test_a_document_line_over_the_budget_keeps_its_markup_as_written():
    slow = replace(engine(upper), encode=_slow_encode("tortoise"))
    doc = ["<p>The <b>green</b> door.</p>", "<p>The <i>tortoise</i> walks <a href='x'>here</a>, 3 km.</p>"]
    out, results = translate_document(doc, "html", slow, BUDGET)
    assert out[1] == doc[1] and "GREEN" in out[0] and "<b>" in out[0]
    assert [r.line for r in results if any("budget" in w for w in r.warnings)] == [2]
