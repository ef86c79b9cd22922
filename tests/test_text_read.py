"""mtcli.text.read: UTF-8, UTF-8 BOM, UTF-16 LE/BE with BOM, LF/CRLF/CR; anything else one line naming
the offset and line; lines handed out as soon as they are complete."""

import codecs

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtcli.errors import UserError
from mtcli.text.read import LineReader, read_lines

LINES = ["Hello.", "", "  ¿Qué tal? 🙂", "last"]


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("encoding,bom", [("utf-8", b""), ("utf-8", codecs.BOM_UTF8),
                                          ("utf-16-le", codecs.BOM_UTF16_LE), ("utf-16-be", codecs.BOM_UTF16_BE)])
def test_encodings_and_line_ends(encoding, bom, end):
    data = bom + (end.join(LINES) + end).encode(encoding)
    assert read_lines(data, "f") == LINES
    assert read_lines(data[: -len(end.encode(encoding))], "f") == LINES  # no final line end


def test_mixed_line_ends_and_unicode_separators_are_not_line_ends():
    assert read_lines(b"a\r\nb\rc\nd\r\r\ne", "f") == ["a", "b", "c", "d", "", "e"]
    assert read_lines("a\u2028b\x0bc\x0cd\x85e\n".encode(), "f") == ["a\u2028b\x0bc\x0cd\x85e"]
    assert read_lines(b"", "f") == [] and read_lines(b"\n", "f") == [""]


@pytest.mark.parametrize("data,where", [
    (b"ok\nok2\nbad \xff here\n", "byte offset 11, line 3"),
    ("héllo\nwor\x00ld".encode(), "byte offset 10, line 2"),
    ("UTF-16 without BOM".encode("utf-16-le"), "byte offset 1, line 1"),
    (codecs.BOM_UTF16_LE + "a\nb".encode("utf-16-le") + b"\x00\xd8", "byte offset 8, line 2"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "byte offset 0, line 1"),
    (b"text\r\nmore\r\x00\x01", "byte offset 11, line 3"),
])
def test_undecodable_input_is_one_line_naming_offset_and_line(data, where):
    with pytest.raises(UserError) as e:
        read_lines(data, "in.txt")
    message = str(e.value)
    assert message.startswith("in.txt: ") and where in message and "\n" not in message


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00\r\n")), max_size=8),
       st.sampled_from(["\n", "\r\n", "\r"]), st.sampled_from(["utf-8", "utf-16"]), st.integers(1, 7))
def test_any_chunking_gives_the_same_lines(lines, end, encoding, size):
    data = end.join(lines).encode(encoding)
    reader, got = LineReader("s"), []
    for k in range(0, len(data), size):
        got += reader.feed(data[k : k + size])
    got += reader.close()
    expected = read_lines(data, "s")
    assert got == expected
    assert expected == (lines[:-1] if lines and lines[-1] == "" else lines)  # "a\n" is one line


def test_a_line_is_handed_out_once_complete():
    reader = LineReader("s")
    assert reader.feed(b"first line\nsecond") == ["first line"]
    assert reader.feed(b" line\r") == []  # a CR may be the start of CRLF
    assert reader.feed(b"\nthird") == ["second line"]
    assert reader.close() == ["third"]
