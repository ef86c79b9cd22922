"""mtcli.text.kinds: the table of protected-span kinds, and every concept of it defined there only (the calendar's,
months, weekdays, dates, in mtcli.text.dates, which the table imports)."""

import ast
import functools
import re
from pathlib import Path

import pytest

from mtcli.text import dates, kinds, numerals, protect, tables


TEXT = Path(kinds.__file__).parent
# where the table and its concepts are defined
HOMES = {Path(kinds.__file__), Path(dates.__file__), Path(numerals.__file__)}
# what only a definition of a kind (or of a concept the kinds share) holds, as a string in a module's code
SIGNATURES = {
    "a month": re.compile(r"(?i)\b(?:january|february|march|april|june|july|august|september|october|november|"
                          r"december|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre)\b"),
    "a weekday": re.compile(r"(?i)\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|lunes|martes|"
                            r"miércoles|jueves|viernes|sábado|domingo)\b"),
    "a private-use character": re.compile("[\ue000-\uf8ff\U000f0000-\U0010ffff]|\\\\[uU]0*(?:e0|f8|f0|10f)",
                                          re.IGNORECASE),
    "a superscript or subscript": re.compile(r"su\[bp\]"),
    "a code span": re.compile(r"``\(\?:|`\[\^`\]|\(`\+\)\(\.\+\?\)|`\(\?=\[\^`"),
    "an emoticon": re.compile(r"</\?3|T_T"),
    "a footnote reference": re.compile(re.escape(r"\[\^[^\]\s]+\]")),
    "a title's Spanish": re.compile(r"\bSra?\.|Prof\."),
    "a currency code": re.compile(r"USD\|EUR"),
    "a unit": re.compile(r"km/h\|"),
    "an ordinal": re.compile(r"st\|nd\|rd\|th"),
    "a year": re.compile(re.escape(r"(?:1[5-9]|2[01])\d\d")),
}
PRIVATE_USE_BOUNDS = {0xE000, 0xF8FF, 0xF900, 0xF0000, 0xFFFFD, 0xFFFFE, 0x100000, 0x10FFFD, 0x10FFFE}


@functools.cache  # (each module parsed once for the ~50 parametrized checks, not once a check: 24 s to 1)
def _code_strings(path: Path) -> tuple[str, ...]:
    """The string constants of a module's code (its docstrings are prose, not definitions)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and node.body
            and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return tuple(n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                 and id(n) not in docs)


def _modules() -> list[Path]:
    return [p for p in sorted(TEXT.rglob("*.py")) if p not in HOMES]


def test_the_table_lists_the_kinds_in_the_order_they_are_tried():
    assert [k.name for k in kinds.KINDS] == [
        "ipv6 address", "url", "email", "code", "tag", "keys", "ampersand name", "apostrophe name", "handle", "path", "file or domain", "number sign", "signo de número", "time", "money", "quantity",
        "feet and inches", "ratio", "date", "title and name", "month", "fecha", "mes", "título y nombre", "ordinal", "ordinal (en)",
        "número", "number",
        "emoticon",
        "roman numeral", "template braces", "template interpolation", "template brace", "printf placeholder",
        "html entity", "escape", "colon name"]
    assert [k.name for k in kinds.KINDS if k.template] == [k.name for k in kinds.KINDS[-7:]]
    for language in ("en", "es"):  # (each compiled when first asked for)
        table = tables.TABLES[language]
        rows = [k for k in kinds.KINDS if language in k.languages]
        assert table.kinds == tuple(rows)
        assert table.span.pattern == "|".join(k.pattern for k in rows if not (k.find or k.template))
    assert [k.name for k in kinds.KINDS if k.find] == ["date", "month", "mes", "roman numeral"]
    assert [k.name for k in kinds.KINDS if k.rewrite] == ["number sign", "signo de número", "date", "title and name", "month", "fecha", "mes",
                                                         "título y nombre", "ordinal", "ordinal (en)", "número"]
    # each language's own rows: English's dates and titles are written in Spanish, Spanish's in English
    assert [k.name for k in kinds.KINDS if k.languages == {"en"}] == ["number sign", "date", "title and name", "month",
                                                                       "ordinal (en)"]
    assert [k.name for k in kinds.KINDS if k.languages == {"es"}] == ["signo de número", "fecha", "mes", "título y nombre", "ordinal",
                                                                       "número"]
    assert [k.name for k in kinds.KINDS if k.own_stop] == ["ipv6 address", "feet and inches", "emoticon"]


@pytest.mark.parametrize("kind", kinds.KINDS, ids=lambda k: k.name)
def test_no_module_but_the_table_holds_a_kind_s_pattern(kind):
    found = [p.name for p in _modules() for s in _code_strings(p) if kind.pattern in s]
    assert not found, f"{kind.name} defined again in {found}"


@pytest.mark.parametrize("concept", SIGNATURES)
def test_no_module_but_the_table_defines_a_concept_of_it(concept):
    found = [(p.name, s[:60]) for p in _modules() for s in _code_strings(p) if SIGNATURES[concept].search(s)]
    assert not found, f"{concept} defined outside mtcli/text/kinds.py, dates.py, numerals.py: {found}"


def test_no_module_but_the_table_holds_the_private_use_ranges_bounds():
    found = [(p.name, hex(n.value)) for p in _modules() for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
             if isinstance(n, ast.Constant) and type(n.value) is int and n.value in PRIVATE_USE_BOUNDS]
    assert not found, found


def test_the_signatures_find_the_definitions_in_the_table():
    """(A check that cannot fail is none: each signature finds its concept in kinds.py or dates.py.)"""
    strings = [s for home in HOMES for s in _code_strings(home)]
    assert all(any(sig.search(s) for s in strings) for sig in SIGNATURES.values() if sig is not SIGNATURES[
        "a private-use character"])
    assert kinds.PRIVATE.pattern == "[\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd]"


def test_a_span_is_written_anew_by_the_rows_that_rewrite_in_the_table_s_order():
    assert tables.in_spanish("Mr. May 5") == "Mr. 5 de mayo"  # (the date first: then no capital follows "Mr.")
    assert tables.in_spanish("Mr. Brown on May 5, 2025") == "Sr. Brown on 5 de mayo de 2025"
    assert tables.in_spanish("`May 5`") == "`May 5`"  # typed: code, markup, a path


EXAMPLES = {"ipv6 address": "ping fe80::1%eth0 now", "url": "see http://x.org/a now", "email": "mail tom@x.org", "code": "run `ls -la` now", "tag": "a <b>b</b>", "keys": "press Ctrl+Shift+S",
            "ampersand name": "call AT&T now", "apostrophe name": "ask O'Brien now",
            "handle": "ask @tom", "path": "open /usr/bin now", "file or domain": "open README.md now",
            "time": "at 5 pm", "money": "pay 20 €", "quantity": "run 10 km", "feet and inches": "he is 5'11\" tall",
            "ratio": "mix it 3 : 1 now",
            "title and name": "ask Mr. Brown", "number": "buy 42 eggs", "emoticon": "fine :-)",
            "título y nombre": "vino el Sr. López", "ordinal": "el 3.er piso", "ordinal (en)": "the 3rd floor",
            "número": "pesa 1,5 kilos", "fecha": "el 4 de junio de 1974",
            "number sign": "No. 5 is mine", "signo de número": "el n.º 5 es mío"}


TEMPLATE_EXAMPLES = {"template braces": "hi {{ name }}", "template interpolation": "pay ${amount}",
                     "template brace": "hi {0}", "printf placeholder": "%1$s left", "html entity": "Q&amp;A",
                     "escape": "one\\ntwo", "colon name": "the :attribute field"}


@pytest.mark.parametrize("kind", [k for k in kinds.KINDS if not k.find], ids=lambda k: k.name)
def test_a_kind_s_hint_is_in_every_span_of_it(kind):
    """A table's span (TEMPLATE for a template's rows) is searched only where some row's hint is: a row's example
    is found, and its match holds its hint."""
    text = {**EXAMPLES, **TEMPLATE_EXAMPLES}[kind.name]
    table = tables.TABLES[min(kind.languages)]
    pattern, maybe = (kinds.TEMPLATE, kinds.MAYBE_TEMPLATE) if kind.template else (table.span, table.maybe_span)
    match = next(m for m in pattern.finditer(text) if re.fullmatch(kind.pattern, m.group(), re.IGNORECASE))
    assert re.search(kind.hint, match.group(), re.IGNORECASE) and maybe.search(text)


@pytest.mark.parametrize("text, spans", [
    ("The rent is 800 euros a month.", ["800 euros"]), ("It is 1 euro.", ["1 euro"]), ("PAY 20 EUROS", ["20 EUROS"]),
    ("Pagué 30 Euros.", ["30 Euros"]), ("The euro is strong.", []), ("I saw 3 Europeans.", ["3"]),
])
def test_an_amount_in_euros_is_kept_whole(text, spans):
    """The word both languages spell alike, kept with its amount: the model wrote "800 ebrio", "30 European"."""
    found = protect.find_spans(text, lambda piece: False)
    assert [text[a:b] for a, b in found] == spans


def test_key_combinations_with_the_mac_symbols_are_one_span():
    """Attack 2026-12-03's R: "Press ⌘+C to copy." kept "⌘" alone and lost "+C"."""
    for text, key in (("Press ⌘+C to copy.", "⌘+C"), ("Press ⇧⌘S to save as.", "⇧⌘S"), ("Hit ⌥+⇧+K now", "⌥+⇧+K"),
                      ("Press Ctrl+C to copy.", "Ctrl+C")):
        spans = protect.find_spans(text, lambda w: False)
        assert [text[a:b] for a, b in spans] == [key], (text, spans)
