"""Issue 38, left over from the outside attack: a source language given (--from, or -m's direction) that the
text contradicts is warned about, per line (naming it) or once for a document, never refused, and never on a
short line both languages share. benchmarks/wrong_source.py measures it on 1,000 unseen lines each way."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from mtcli.route import Languages, Router
from tests.conftest import REPO
from tests.text.fakes import engine

ENGLISH = ["The weather is very nice today and I want to go to the beach.", "Could you tell me where the station is?",
           "She left her keys on the kitchen table again.", "I have never seen so much snow in April.",
           "We will meet after the meeting to discuss the budget.", "Please close the door when you leave the room."]
SPANISH = ["El tiempo es muy bueno hoy y quiero ir a la playa.", "¿Podría decirme dónde está la estación?",
           "Otra vez dejó las llaves en la mesa de la cocina.", "Nunca he visto tanta nieve en abril.",
           "Nos vemos después de la reunión para hablar del presupuesto.", "Por favor cierra la puerta al salir."]
# short lines that either language could write (names, loanwords, brands): never questioned
SHARED = ["Hotel Central", "OK", "Taxi", "No.", "Madrid", "Los Angeles", "Buenos Aires", "Radio Nacional",
          "Chocolate", "Plan B", "José García", "San Francisco", "Hospital General", "Menu", "Wifi gratis", ""]


def router(source: str) -> Router:
    echo = engine(lambda lines: [[(line, -0.5)] for line in lines])
    return Router(lambda direction: echo, Languages.parse(source, None))


@pytest.mark.parametrize("given, lines, seen", [("es", ENGLISH, "English"), ("en", SPANISH, "Spanish")])
def test_a_line_in_the_other_language_than_given_is_warned_on_its_line_and_still_translated(given, lines, seen):
    out = router(given).translate(["12:30", *lines], first=4)
    assert out[0].warnings == []
    for r, line in zip(out[1:], lines):
        assert r.line == lines.index(line) + 5 and r.text  # translated all the same: a warning, not a refusal
        assert [w for w in r.warnings if "looks like" in w] == [  # once, though the English rules may say it too
            f"this looks like {seen} already; it was translated as if it were {'English' if given == 'en' else 'Spanish'}"]


@pytest.mark.parametrize("given", ["en", "es"])
def test_lines_given_the_right_way_and_short_shared_lines_are_never_questioned(given):
    right = ENGLISH if given == "en" else SPANISH
    for r in router(given).translate([*right, *SHARED]):
        assert not [w for w in r.warnings if "looks like" in w], r.line
    for r in router("en" if given == "es" else "es").translate(SHARED):
        assert not [w for w in r.warnings if "looks like" in w], r.line


def test_told_lines_are_never_questioned():
    """--from auto (or none): each line goes the way of its language, nothing to contradict."""
    for r in router("auto").translate(ENGLISH + SPANISH):
        assert not [w for w in r.warnings if "looks like" in w]


@pytest.mark.parametrize("given, text", [("es", ENGLISH), ("en", SPANISH)])
def test_a_document_in_the_other_language_is_warned_once(given, text):
    html = [f'<p class="note">{line}</p>' for line in text]
    _, results = router(given).translate_document(html, "html")
    assert sum("the document looks like" in w for r in results for w in r.warnings) == 1
    data = ("{" + ", ".join(f'"k{i}": "{line}"' for i, line in enumerate(text)) + "}").encode()
    _, results = router(given).translate_file(data, "json", "strings.json")
    assert sum("the document looks like" in w for r in results for w in r.warnings) == 1
    for right in ("en" if given == "es" else "es",):
        _, results = router(right).translate_document(html, "html")
        assert not any("the document looks like" in w for r in results for w in r.warnings)


def test_from_es_on_english_through_the_cli_warns_naming_the_line():
    """The attack's reproduction, with the shipped models: exit 0, the translation written, the line named."""
    text = "Hotel Central\n" + ENGLISH[0] + "\n" + SPANISH[0] + "\n"
    p = subprocess.run([sys.executable, "-m", "mtcli", "translate", "--from", "es", "--no-check"], input=text.encode(),
                       capture_output=True, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=300)
    err = p.stderr.decode()
    assert p.returncode == 0 and len(p.stdout.decode().splitlines()) == 3, err
    assert err.splitlines() == ["warning: line 2: this looks like English already; it was translated as if it "
                                "were Spanish"]
