"""The optional plural stage (plurals.py): "file(s)" given the model as "files"."""

import pytest

from mtcli.config import TextOptions
from mtcli.text.pipeline import translate_lines

from tests.text.fakes import answers, engine


@pytest.mark.parametrize("line, seen", [
    ("Select the file(s) to upload.", "Select the files to upload."), ("Delete 3 box(es)?", "Delete 50 boxes?"),
    ("Your friend(s) liked it.", "Your friends liked it."),
    # (no plural: a function's argument, an acronym's)
    ("Plot f(x) now.", "Plot f(x) now."), ("The ATM(S) work.", "The ATM(S) work."),
])
def test_a_word_with_an_optional_plural_goes_to_the_model_as_its_plural(line, seen):
    """Found by att6 (N): "Select the file(s) to upload." -> "archivo()" (the brackets kept, the "s" dropped)."""
    asked = []
    translate_lines([line], engine(answers({}, asked)))
    assert asked == [seen]


def test_a_placeholders_count_and_a_spanish_source():
    asked = []
    (r,) = translate_lines(["{count} item(s) selected"], engine(answers({}, asked, default=lambda s: s.upper())))
    assert "items" in asked[0] and "{count}" in r.text and "()" not in r.text
    asked = []
    translate_lines(["Borra el archivo(s)."], engine(answers({}, asked)), TextOptions(source="es"))
    assert asked == ["Borra el archivos."]
