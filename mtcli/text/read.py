"""Bytes -> lines of text: UTF-8 (with or without a BOM) or UTF-16 with a BOM; line ends LF, CRLF or CR.

Anything else (invalid UTF-8, UTF-16 without a BOM, binary data with NUL bytes) is refused with one line
naming the source, the byte offset and the line, rather than translated into noise. `LineReader` takes
the bytes in pieces as they arrive (a pipe) and hands out each line as soon as its end has been read.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Callable, Iterable, Iterator
from typing import BinaryIO, NamedTuple

from mtcli.errors import UserError
from mtcli import lazy_re

BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
_LINE_END = lazy_re.compile(r"\r\n|\r|\n")
_LF_END = lazy_re.compile(r"\r?\n")
CHUNK = 1 << 16  # bytes read from a stream at a time: a pipe's worth


class LineReader:
    """feed(bytes) -> the lines completed so far; close() -> the last line (if the input did not end
    with a line end). Byte offsets and line numbers in errors count from the start of the input."""

    def __init__(self, name: str):
        self.name = name
        self.encoding: str | None = None  # settled by the first bytes (a BOM, or none: UTF-8)
        self._head = b""  # first bytes, kept until the BOM question is settled
        self._decoder = None
        self._pending = ""  # text after the last line end
        self._offset = 0  # bytes given to the decoder so far, BOM included
        self.lines = 0  # lines handed out so far
        self.newline: str | None = None  # the first line end read: LF, CRLF or CR
        self.unterminated = False  # the input's last line had no line end
        self.bom = False  # the input began with a byte order mark

    def feed(self, data: bytes) -> list[str]:
        if self.encoding is None:
            self._head += data
            if not self._settle(final=False):
                return []
            data = self._head_text()
        return self._decode(data, final=False)

    def close(self) -> list[str]:
        data = b""
        if self.encoding is None:
            self._settle(final=True)
            data = self._head_text()
        lines = self._decode(data, final=True)
        if self._pending:
            lines.append(self._pending)
            self.lines += 1
            self._pending = ""
            self.unterminated = True
        return lines

    def _settle(self, final: bool) -> bool:
        for bom, enc in BOMS:
            if self._head.startswith(bom):
                self.encoding = enc
                break
        else:
            if not final and any(bom.startswith(self._head) for bom, _ in BOMS):
                return False  # too few bytes yet to tell
            self.encoding = "utf-8"
        self._decoder = codecs.getincrementaldecoder(self.encoding)("strict")
        return True

    def _head_text(self) -> bytes:
        """The first bytes without their BOM."""
        bom = next((b for b, enc in BOMS if enc == self.encoding and self._head.startswith(b)), b"")
        data, self._head, self._offset, self.bom = self._head[len(bom):], b"", len(bom), bool(bom)
        return data

    def document(self, lines: list[str] | None = None) -> Document:
        """`lines` with the style of the input read so far (its line end is settled by the first one read)."""
        return Document(lines or [], self.newline or "\n", self.encoding or "utf-8", self.bom, not self.unterminated)

    def _where(self, text: str, i: int, start: int) -> str:
        """'byte offset B, line L' of text[i], text beginning at byte `start`."""
        at = start + len(text[:i].encode(self.encoding, "surrogatepass"))
        return f"byte offset {at}, line {self.lines + 1 + len(_LINE_END.findall(text[:i]))}"

    def _decode(self, data: bytes, final: bool) -> list[str]:
        held = len(self._decoder.getstate()[0])  # bytes of an incomplete character from the last piece
        start = self._offset - held - len(self._pending.encode(self.encoding, "surrogatepass"))
        try:
            text = self._pending + self._decoder.decode(data, final)
        except UnicodeDecodeError as e:
            valid = self._pending + e.object[: e.start].decode(self.encoding, "replace")
            hint = "UTF-16 without a BOM, or binary data" if b"\x00" in e.object else "not UTF-8 text"
            if self.encoding != "utf-8":  # it began with a UTF-16 BOM: neither hint above fits
                hint = "damaged UTF-16, or binary data"
            raise UserError(f"{self.name}: {self._where(valid, len(valid), start)}: invalid "
                            f"{self.encoding.upper()[:6]} (byte 0x{e.object[e.start]:02x}): {hint}; "
                            "give UTF-8 or UTF-16 with a BOM") from None
        self._offset += len(data)
        if "\x00" in text:
            raise UserError(f"{self.name}: {self._where(text, text.index(chr(0)), start)}: a NUL byte: binary "
                            "data, or UTF-16 without a BOM; give UTF-8 or UTF-16 with a BOM")
        # a CR at the end of a piece may be the first half of a CRLF: it waits for the next piece
        cr = not final and text.endswith("\r")
        body = text[:-1] if cr else text
        if self.newline is None and (end := _LINE_END.search(body)):
            # a text with LF or CRLF line ends: a CR alone inside a line is none (a stray one made two lines)
            lf = body.find("\n")
            self.newline = end.group() if lf < 0 else "\r\n" if body[lf - 1 : lf] == "\r" else "\n"
        *done, self._pending = (_LINE_END if self.newline == "\r" else _LF_END).split(body)
        self._pending += "\r" if cr else ""
        self.lines += len(done)
        return done


class Document(NamedTuple):
    """A whole input's lines, and how to write text back the way it came: a Windows file's CRLF line
    ends and its BOM stay CRLF and a BOM."""

    lines: list[str]
    newline: str = "\n"
    encoding: str = "utf-8"
    bom: bool = False
    final_newline: bool = True  # False: the input's last line had no line end, nor will the output's

    def encode(self, text: str) -> bytes:
        """text (lines ended by LF) as this document's bytes: its line ends, its encoding and BOM."""
        return b"".join(encode_pieces([text], lambda: self))


def encode_pieces(pieces: Iterable[str], style: Callable[[], Document]) -> Iterator[bytes]:
    """Document.encode a piece at a time (text of lines ended by LF, translated a chunk at a time), in the
    Document style() gives when a piece is encoded (a LineReader's, settled while the input is read). The last
    line end waits for the next piece: at the end it is dropped if the input's last line had none."""
    head, held = True, ""
    for text in pieces:
        text, held = held + text, ""
        if text.endswith("\n"):
            text, held = text[:-1], "\n"
        doc = style()
        yield ("\ufeff" * (doc.bom and head) + text.replace("\n", doc.newline)).encode(doc.encoding)
        head = False
    doc = style()
    yield ("\ufeff" * (doc.bom and head) + held.replace("\n", doc.newline) * doc.final_newline).encode(doc.encoding)


def read_document(data: bytes, name: str) -> Document:
    """All lines of a whole input and its style; a final line end adds no empty line."""
    reader = LineReader(name)
    return reader.document(reader.feed(data) + reader.close())


def read_lines(data: bytes, name: str) -> list[str]:
    """All lines of a whole input; a final line end adds no empty line."""
    return read_document(data, name).lines


def stream_lines(stream: BinaryIO, name: str) -> Iterator[list[str]]:
    """The lines of a stream in groups, each group as soon as it has arrived (a pipe is answered line by
    line, not at its end)."""
    fd = stream.fileno()
    return read_lines_of(iter(lambda: os.read(fd, CHUNK), b""), LineReader(name))


def read_lines_of(pieces: Iterable[bytes], reader: LineReader) -> Iterator[list[str]]:
    """The lines of the pieces of bytes, in groups, each as soon as its piece has been read."""
    for data in pieces:
        lines = reader.feed(data)
        if lines:
            yield lines
    last = reader.close()
    if last:
        yield last


def regrouped(groups: Iterable[list[str]], size: int) -> Iterator[list[str]]:
    """Groups of lines as groups of `size` lines (the last one fewer): a file read in pieces, translated in
    calls as large as the decoder batches best, never all at once."""
    kept: list[str] = []
    for group in groups:
        kept += group
        while len(kept) >= size:
            yield kept[:size]
            del kept[:size]
    if kept:
        yield kept


def arguments(texts: list[str]) -> list[str]:
    """Text arguments as lines. Bytes that were not UTF-8 reach Python as lone surrogates
    (surrogateescape): refused, as they are in a file, rather than translated as U+FFFD."""
    for k, text in enumerate(texts, 1):
        bad = next((i for i, c in enumerate(text) if "\udc80" <= c <= "\udcff"), None)
        if bad is not None:
            at = len(text[:bad].encode("utf-8", "surrogateescape"))
            raise UserError(f"argument {k}: byte offset {at}: invalid UTF-8 (byte 0x{ord(text[bad]) - 0xDC00:02x}): "
                            "not UTF-8 text; give UTF-8 (is the terminal set to another encoding?)")
    return list(texts)
