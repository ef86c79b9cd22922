"""The currencies stage (text/currencies.py): euros given the model as dollars, its dollars made euros again."""

import pytest

from mtcli.config import Options
from mtcli.text.pipeline import translate_lines

from tests.text.fakes import answers, engine


def _translated(line, table, source="en"):
    seen = []
    out = translate_lines([line], engine(answers(table, seen)), Options().text_for(source))
    return seen, out[0].text


@pytest.mark.parametrize("source, line, sees, says, out", [
    ("en", "Two euros.", "Two dollars.", "Dos dólares.", "Dos euros."),
    ("en", "It costs one euro.", "It costs one dollar.", "Cuesta un dólar.", "Cuesta un euro."),  # (its number)
    ("en", "I PAID TEN EUROS.", "I paid ten dollars.", "Pagué diez dólares.", "PAGUÉ DIEZ EUROS."),
    ("en", "Prices are in euros.", "Prices are in dollars.", "Los precios están en dólares.",
     "Los precios están en euros."),
    ("es", "Cuesta cinco euros.", "Cuesta cinco dólares.", "It costs five dollars.", "It costs five euros."),
    ("es", "Gano mil euros.", "Gano mil dólares.", "I earn a thousand bucks.", "I earn a thousand euros."),
])
def test_euros_reach_the_model_as_dollars_and_come_back(source, line, sees, says, out):
    assert _translated(line, {sees: says}, source) == ([sees], out)


@pytest.mark.parametrize("line", [
    "Ten dollars or ten euros?",  # (dollars of its own: which would be whose)
    "The Euro 2024 final was in Berlin.",  # (a tournament)
    "European prices.",  # (not the word)
])
def test_left_as_it_is(line):
    seen, _ = _translated(line, {})
    assert "euro" in seen[0].lower()


def test_an_amount_in_digits_is_no_word_of_this_stage():
    seen, out = _translated("It costs 5 euros.", {})
    assert "dollar" not in " ".join(seen) and out == "It costs 5 euros."
