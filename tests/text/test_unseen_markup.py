"""Markup no reader sees inside a sentence (an HTML comment, a bogus one, in HTML and Markdown) is no word of
it: set aside and put back among the translation's words (text.floating.unseen). As a placeholder it reached
the model as a name, which took the words around it: "Hola <!-- x --> mundo" -> "Hi, <!-- x -->" (through
`serve` and the CLI alike)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from mtcli.serve.texts import translate_texts
from mtcli.text.formats import translate_document
from tests.conftest import REPO
from tests.documents_fixtures import spanish
from tests.text.fakes import engine

CASES = [  # (document, format, the words the model must be asked, the output)
    ("<p>The dog <!-- x --> is big.</p>", "html", "The dog is big.", "<p>EHT GOD <!-- x --> SI GIB.</p>"),
    ("<p>Hello <!-- x --> world</p>", "html", "Hello world.", "<p>OLLEH <!-- x --> DLROW</p>"),
    ("<p>Hello <!x> world</p>", "html", "Hello world.", "<p>OLLEH <!x> DLROW</p>"),
    ("<p>The dog <!-- a --><!-- b --> is big.</p>", "html", "The dog is big.", "<p>EHT GOD <!-- a --><!-- b --> SI GIB.</p>"),
    ("<p>The <b>old</b> dog <!-- note --> is big.</p>", "html", "The old dog is big.",
     "<p>EHT <b>DLO</b> GOD <!-- note --> SI GIB.</p>"),
    ("The dog <!-- x --> is big.", "markdown", "The dog is big.", "EHT GOD <!-- x --> SI GIB."),
    ("Hello <?php x ?> world", "markdown", "Hello world.", "OLLEH <?php x ?> DLROW"),
    ("The `<!-- x -->` code", "markdown", "The 50 code.", "EHT `<!-- x -->` EDOC"),
]


def asked(seen: list):
    def decode(lines):
        seen.extend(lines)
        return spanish(lines)
    return decode


@pytest.mark.parametrize("document, fmt, words, output", CASES)
def test_a_comment_inside_a_sentence_is_no_word_of_it(document, fmt, words, output):
    seen = []
    out, results = translate_document([document], fmt, engine(asked(seen)))
    assert out == [output] and seen[0] == words, seen
    assert not [w for r in results for w in r.warnings]
    seen.clear()  # the server's way: the same
    assert translate_texts([document], fmt, 1, engine(asked(seen))) == [[output]] and seen[0] == words


def test_with_the_shipped_models_no_word_is_lost_around_a_comment():
    """The attack's reproduction (and its mirror) through the CLI, with the shipped models."""
    for source, document, words in (("en", "<p>Hello <!-- x --> world</p>", ["mundo"]),
                                    ("en", "<p>The dog <!-- x --> is big.</p>", ["perro", "grande"]),
                                    ("es", "<p>El perro <!-- x --> es grande.</p>", ["dog", "big"])):
        p = subprocess.run([sys.executable, "-m", "mtcli", "translate", "--format", "html", "--from", source,
                            "--no-check", "-i", "-"], input=document.encode(), capture_output=True, timeout=300,
                           env={**os.environ, "PYTHONPATH": str(REPO)})
        out = p.stdout.decode()
        assert p.returncode == 0 and out.count("<!-- x -->") == 1, (out, p.stderr)
        assert all(w in out.lower() for w in words), out
