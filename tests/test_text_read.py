"""mtcli.text.read: UTF-8, UTF-8 BOM, UTF-16 LE/BE with BOM, LF/CRLF/CR; anything else one line naming
the offset and line; lines handed out as soon as they are complete."""

import codecs
import os
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtcli.errors import UserError
from mtcli.text.read import LineReader, arguments, read_document, read_lines, stream_lines

LINES = ["Hello.", "", "  ¿Qué tal? 🙂", "last"]


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("encoding,bom", [("utf-8", b""), ("utf-8", codecs.BOM_UTF8),
                                          ("utf-16-le", codecs.BOM_UTF16_LE), ("utf-16-be", codecs.BOM_UTF16_BE)])
def test_encodings_and_line_ends(encoding, bom, end):
    data = bom + (end.join(LINES) + end).encode(encoding)
    assert read_lines(data, "f") == LINES
    assert read_lines(data[: -len(end.encode(encoding))], "f") == LINES  # no final line end


def test_mixed_line_ends_and_unicode_separators_are_not_line_ends():
    # LF or CRLF line ends: a CR alone is none (a stray one had made two lines of one); CR line ends: every CR
    assert read_lines(b"a\r\nb\rc\nd\r\r\ne", "f") == ["a", "b\rc", "d\r", "e"]
    assert read_lines(b"a\rb\rc", "f") == ["a", "b", "c"]
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


# no U+FEFF: UTF-8 data that begins with it begins with a BOM, which is no text (found in the mutation run)
@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00\r\n\ufeff")), max_size=8),
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


# From the mutation run (mutmut over mtcli/text/read.py, issue 21): the exact refusals, the line end a file is
# written back with, and stream_lines (stdin) read piece by piece.

GIVE = "give UTF-8 or UTF-16 with a BOM"


@pytest.mark.parametrize("data,message", [
    (b"ok\nok2\nbad \xff here\n", f"byte offset 11, line 3: invalid UTF-8 (byte 0xff): not UTF-8 text; {GIVE}"),
    ("café\n".encode("utf-16-le"),  # NULs beside the bad byte: UTF-16 that came without its BOM
     f"byte offset 6, line 1: invalid UTF-8 (byte 0xe9): UTF-16 without a BOM, or binary data; {GIVE}"),
    (codecs.BOM_UTF16_LE + "a\nb".encode("utf-16-le") + b"\x00\xd8",  # a lone surrogate: it has its BOM
     f"byte offset 8, line 2: invalid UTF-16 (byte 0x00): damaged UTF-16, or binary data; {GIVE}"),
    ("héllo\nwor\x00ld".encode(), f"byte offset 10, line 2: a NUL byte: binary data, or UTF-16 without a BOM; {GIVE}"),
])
def test_refusals_name_the_byte_and_what_the_input_looks_like(data, message):
    with pytest.raises(UserError) as e:
        read_lines(data, "in.txt")
    assert str(e.value) == f"in.txt: {message}"


TERMINAL = "not UTF-8 text; give UTF-8 (is the terminal set to another encoding?)"


@pytest.mark.parametrize("texts,message", [
    (["Fine.", "Caf\udce9 is open."], f"argument 2: byte offset 3: invalid UTF-8 (byte 0xe9): {TERMINAL}"),
    (["\udc80 first"], f"argument 1: byte offset 0: invalid UTF-8 (byte 0x80): {TERMINAL}"),
    (["é ok \udcff"], f"argument 1: byte offset 6: invalid UTF-8 (byte 0xff): {TERMINAL}"),
])
def test_arguments_that_were_not_utf8_are_refused(texts, message):
    """sys.argv holds bytes that were not UTF-8 as lone surrogates U+DC80..U+DCFF (surrogateescape): each
    is refused naming its argument, its byte offset in that argument and the byte, both ends of the range."""
    with pytest.raises(UserError) as e:
        arguments(texts)
    assert str(e.value) == message
    assert arguments(["Fine.", "¿Qué tal? 🙂"]) == ["Fine.", "¿Qué tal? 🙂"]


@pytest.mark.parametrize("data,translated,written", [
    (b"I like it.\r\n", "Me gusta.\n", b"Me gusta.\r\n"),  # a one-line Windows file stays CRLF
    (b"one\r\n\r\n", "uno\n\n", b"uno\r\n\r\n"),  # a blank line of a Windows file too
    # no line end at all: --nbest 2 -o writes two rows for the one line, joined by LF, no final line end
    (b"I like it.", "0 ||| Me gusta. ||| -0.1000\n0 ||| Me gusta eso. ||| -0.2000\n",
     b"0 ||| Me gusta. ||| -0.1000\n0 ||| Me gusta eso. ||| -0.2000"),
])
def test_a_document_is_written_back_with_its_first_line_end(data, translated, written):
    assert read_document(data, "in.txt").encode(translated) == written


class _Pipe:
    """A pipe for stream_lines to read. A reader still waiting after 10 s gets the end of the input: a test
    fails instead of hanging."""

    def __init__(self):
        read_end, self._write_end = os.pipe()
        self.stream = os.fdopen(read_end, "rb", buffering=0)
        self._lock = threading.Lock()
        self._watchdog = threading.Timer(10, self.close)
        self._watchdog.start()

    def write(self, data: bytes) -> None:
        os.write(self._write_end, data)

    def close(self) -> None:
        with self._lock:
            if self._write_end is not None:
                os.close(self._write_end)
                self._write_end = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._watchdog.cancel()
        self.close()
        self.stream.close()


def test_stream_lines_hands_out_each_line_as_its_bytes_arrive():
    with _Pipe() as pipe:
        groups = stream_lines(pipe.stream, "<stdin>")
        pipe.write(b"Where is the station?\nI like")
        assert next(groups) == ["Where is the station?"]  # the pipe is still open
        pipe.write(b" cats.\r\nThe end")
        assert next(groups) == ["I like cats."]
        pipe.write(b" of it.")
        pipe.close()
        assert list(groups) == [["The end of it."]]  # the last line, without a line end, at the end


def test_stream_lines_refusal_names_stdin_and_the_line_across_pieces():
    with _Pipe() as pipe:
        groups = stream_lines(pipe.stream, "<stdin>")
        pipe.write(b"ok\n")
        assert next(groups) == ["ok"]
        pipe.write(b"ok2\n")
        assert next(groups) == ["ok2"]
        pipe.write(b"bad \xff here\n")
        with pytest.raises(UserError) as e:
            next(groups)
        assert str(e.value) == f"<stdin>: byte offset 11, line 3: invalid UTF-8 (byte 0xff): not UTF-8 text; {GIVE}"
