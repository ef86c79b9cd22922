"""A record's line in plain text (records.py): the key and the marks kept, the quoted value translated alone."""

import pytest

from mtcli.text.pipeline import translate_lines
from mtcli.text.records import entry

from tests.text.fakes import engine, upper


@pytest.mark.parametrize("line,expected", [
    # finding DD: the key had been translated and the marks garbled
    # (a greeting's comma before a person's stand-in, standins.py; "Hello, Tom, welcome back" is no short exclamation)
    ('"greeting": "Hello {name}, welcome back!",', '"greeting": "HELLO, {name}, WELCOME BACK!",'),
    ('"farewell": "Goodbye {count}!",', '"farewell": "¡GOODBYE {count}!",'),  # (Spanish opens it)
    ('title = "Delete %s files?"', 'title = "DELETE %s FILES?"'),
    ("    'save' => 'Save changes',", "    'save' => 'SAVE CHANGES',"),
    ('msg.saved_ok = "Saved.";', 'msg.saved_ok = "SAVED.";'),
    ('hint = "Line one.\\nLine two."', 'hint = "LINE ONE.\\nLINE TWO."'),  # (and its escaped newline inside)
])
def test_a_records_key_and_marks_are_kept_and_its_value_translated(line, expected):
    seen = []

    def model(lines):
        seen.extend(lines)
        return upper(lines)

    (r,) = translate_lines([line], engine(model))
    assert r.text == expected
    assert not any('"' in s or "'" in s or "=" in s for s in seen)  # (the model saw the value alone)


@pytest.mark.parametrize("line", ['He said "Hello there".', '"Hello", she said.', 'Tom: "Hi there"',
                                  'The title = "Boss" in 2020', '"a": "b", "c": "d"', "it's = 'fine'", 'a == "b"'])
def test_prose_with_a_quotation_is_no_record(line):
    assert entry(line) is None
