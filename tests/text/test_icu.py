"""ICU MessageFormat messages (icu.py): each branch's text translated on its own, the structure (names, types,
offsets, selectors, braces, `#`, simple arguments, quoted literals) kept; what does not read kept whole; no
recursion, whatever the nesting."""

import pytest

from mtcli.text import icu
from mtcli.text.pipeline import translate_lines

from tests.text.fakes import answers, engine, upper

PLURAL = "You have {count, plural, one {# new message} other {# new messages}}."


def _read(text: str) -> list[tuple[str, ...]]:
    """The items read from a message at the start of text, innermost first."""
    parts: list[tuple[str, ...]] = []
    icu.read(text, 0, lambda p: parts.append(p) or chr(0xF0000 + len(parts) - 1))
    return parts


def test_a_plural_s_branches_are_translated_each_and_its_structure_kept():
    seen = []
    (r,) = translate_lines([PLURAL], engine(answers({}, seen, default=str.upper)))
    assert sorted(seen) == ["50 new message", "50 new messages", "You have 50."]
    assert r.text == "YOU HAVE {count, plural, one {# NEW MESSAGE} other {# NEW MESSAGES}}."
    assert icu.skeleton(r.text) == icu.skeleton(PLURAL) == ["{count, plural, one {#} other {#}}"]


@pytest.mark.parametrize("message, translated", [
    ("{gender, select, male {He replied} female {She replied} other {They replied}}",
     "{gender, select, male {HE REPLIED} female {SHE REPLIED} other {THEY REPLIED}}"),
    ("It is your {n, selectordinal, one {#st} two {#nd} few {#rd} other {#th}} visit.",
     "IT IS YOUR {n, selectordinal, one {#ST} two {#ND} few {#RD} other {#TH}} VISIT."),
    ("{n, plural, offset:1 =0 {Nobody} =1 {{name} alone} other {{name} and # others}}",
     "{n, plural, offset:1 =0 {NOBODY} =1 {{name} ALONE} other {{name} AND # OTHERS}}"),
    ("{g, select, female {{n, plural, one {She has # cat} other {She has # cats}}} other {{n, plural, "
     "one {They have # cat} other {They have # cats}}}}",
     "{g, select, female {{n, plural, one {SHE HAS # CAT} other {SHE HAS # CATS}}} other {{n, plural, "
     "one {THEY HAVE # CAT} other {THEY HAVE # CATS}}}}"),
    ("Paid {amount, number, currency} on {d, date, short}.", "PAID {amount, number, currency} ON {d, date, short}."),
    ("{n, plural, one {Don't use '{braces}'} other {It''s # '#' signs}}",
     "{n, plural, one {DON'T USE '{braces}'} other {It''s # '#' SIGNS}}"),  # (a word with a literal inside kept whole)
    ("{ n , plural ,one{# day}other{# days}}", "{ n , plural ,one{# DAY}other{# DAYS}}"),
])
def test_select_selectordinal_offsets_nesting_typed_arguments_and_quotes(message, translated):
    (r,) = translate_lines([message], engine(upper))
    assert r.text == translated
    assert icu.skeleton(r.text) == icu.skeleton(message) is not None


def test_the_structure_s_parts_are_kept_and_the_branches_given_apart():
    assert _read("{n, plural, =0 {none} one {# item} other {# items}} after") == [
        ("#",), ("#",), ("{n, plural, =0 {", "none", "} one {", "\U000f0000 item", "} other {", "\U000f0001 items", "}}")]


@pytest.mark.parametrize("message", [
    "{count, plural, one {# item} other {# items}",  # unclosed
    "{count, plural, one {# item}}",  # no other
    "{count, plural, lots {# item} other {# items}}",  # no plural keyword
    "{count, plural, one {# item} one {# thing} other {# items}}",  # twice the same
    "{count, plural, one # item other # items}",  # branches without braces
    "{count, plural one {# item} other {# items}}",  # no comma
    "{count, plural, one {a { b} other {c}}",  # a brace ICU does not read
    "{count, number",  # unclosed
    "{count, plural, =x {a} other {b}}",  # no number after "="
])
def test_a_message_that_does_not_read_is_kept_as_it_came(message):
    seen = []
    (r,) = translate_lines([f"Note {message} here."], engine(lambda ls: seen.extend(ls) or upper(ls)))
    assert message in r.text and not any("{" in s or "#" in s for s in seen)


@pytest.mark.parametrize("depth", [icu.MAX_DEPTH + 1, 10_000])
def test_deep_nesting_reads_without_recursion_and_keeps_what_is_too_deep(depth):
    message = "{a, select, other {" * depth + "Hi there" + "}}" * depth
    (r,) = translate_lines([message], engine(upper))
    assert r.text == message  # (too deep: kept as it came)
    inner = "{a, select, other {" * icu.MAX_DEPTH + "Hi there" + "}}" * icu.MAX_DEPTH
    assert translate_lines([inner], engine(upper))[0].text == inner.replace("Hi there", "HI THERE")
    assert icu.skeleton(message) is not None


def test_skeleton_tells_a_changed_structure_from_a_kept_one():
    kept = "Tienes {count, plural, one {# mensaje} other {# mensajes}}."
    assert icu.skeleton(kept) == icu.skeleton(PLURAL)
    for broken in ["Tienes {count, plural, one {mensaje} other {# mensajes}}.",  # `#` lost
                   "Tienes {count, plural, uno {# mensaje} other {# mensajes}}.",  # a selector translated
                   "Tienes {cuenta, plural, one {# mensaje} other {# mensajes}}.",  # the name translated
                   "Tienes {count, plural, one {# mensaje} other {# mensajes}."]:  # a brace lost
        assert icu.skeleton(broken) != icu.skeleton(PLURAL), broken
    assert icu.skeleton("{count, plural, one {# item}") is None and icu.skeleton("no message") == []
