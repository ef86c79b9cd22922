"""The server's glossary (mtcli/serve/app.py, texts.py): a request's `glossary` field checked (400 naming the
entry or line), merged over the server's own, and carried with the options to the text pipeline."""

from types import SimpleNamespace

import pytest

from mtcli.config import Options
from mtcli.serve.app import ApiError, _glossary
from mtcli.serve.config import ServeConfig
from mtcli.serve.texts import translate_job
from mtcli.text import glossary

from tests.text.fakes import answers, engine


def service(default: str | None = None, most: int = 3):
    return SimpleNamespace(cfg=ServeConfig(glossary_terms=most),
                           glossary=glossary.parse(default.splitlines(), "server") if default else None)


def test_an_object_or_tsv_text_is_a_glossary_and_none_leaves_the_servers():
    assert _glossary({"glossary": {"invoice": "factura"}}, service()).terms == (("invoice", "factura"),)
    assert _glossary({"glossary": "source\ttarget\r\ninvoice\tfactura\n"}, service()).terms == (("invoice", "factura"),)
    server = service("invoice\trecibo\ncar\tcoche")
    assert _glossary({}, server) is server.glossary and _glossary({"glossary": ""}, server) is server.glossary
    merged = _glossary({"glossary": {"Invoice": "x", "INVOICE": "y", "invoice": "factura"}}, server)
    assert dict(merged.terms) == {"invoice": "factura", "car": "coche", "Invoice": "x", "INVOICE": "y"}


@pytest.mark.parametrize("value, message", [
    ({"invoice": ""}, "glossary: entry 1: the target term is empty"),
    ({"a": "b", "invoice\tx": "y"}, "the term 'invoice\\tx' and its target must be text on one line each"),
    ({"invoice": 5}, "the term 'invoice' and its target must be text"),
    ({"invoice": "a\nb"}, "the term 'invoice' and its target must be text on one line each"),
    ({"x" * 100 + "\t": "y"}, "the term '" + "x" * 80 + "' and its target"),  # (a long term cut at 80)
    ("invoice\tfactura\ninvoice\trecibo", "glossary: line 2: 'invoice' again, now as 'recibo'; line 1 gave 'factura'"),
    ({"a": "b", "c": "d", "e": "f", "g": "h"}, "glossary: entry 4: more than 3 terms"),
    (["invoice", "factura"], "glossary must be an object of source: target terms or TSV text"),
    ("invoice\tfact\ud800ura", "not valid text: a lone surrogate"),
])
def test_a_malformed_glossary_is_a_400_naming_what(value, message):
    with pytest.raises(ApiError) as e:
        _glossary({"glossary": value}, service())
    assert e.value.status == 400 and message in e.value.message and e.value.message.startswith("Invalid request")


def test_the_request_glossary_reaches_the_pipeline_in_each_direction():
    tools = SimpleNamespace(engines={
        "en-es": engine(answers({"The invoice is here.": "La recibo está aquí.", "The 50 is here.": "El 50 está aquí."})),
        "es-en": engine(answers({"La factura está aquí.": "The invoice is here."}))})
    terms = glossary.parse(["invoice\tfactura"], "glossary")
    out, *_ = translate_job(tools, ["The invoice is here."], "text", 1, "en", "es", Options(glossary=terms))
    assert out == [["La factura está aquí."]]
    out, *_ = translate_job(tools, ["The invoice is here."], "text", 1, "en", "es")
    assert out == [["La recibo está aquí."]]  # (without it, the model's own)
