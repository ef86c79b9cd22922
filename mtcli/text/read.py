"""Bytes -> lines of text: UTF-8 (with or without a BOM) or UTF-16 with a BOM; line ends LF, CRLF or CR.

Anything else (invalid UTF-8, UTF-16 without a BOM, binary data with NUL bytes) is refused with one line
naming the source, the byte offset and the line, rather than translated into noise. `LineReader` takes
the bytes in pieces as they arrive (a pipe) and hands out each line as soon as its end has been read.
"""

from __future__ import annotations

import codecs
import os
import re
from collections.abc import Iterator
from typing import BinaryIO, NamedTuple

from mtcli.errors import UserError

BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
_LINE_END = re.compile(r"\r\n|\r|\n")
_LF_END = re.compile(r"\r?\n")
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
        data, self._head, self._offset = self._head[len(bom):], b"", len(bom)
        return data

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
        if not self.final_newline and text.endswith("\n"):
            text = text[:-1]
        return ("\ufeff" * self.bom + text.replace("\n", self.newline)).encode(self.encoding)


def read_document(data: bytes, name: str) -> Document:
    """All lines of a whole input and its style; a final line end adds no empty line."""
    reader = LineReader(name)
    lines = reader.feed(data) + reader.close()
    bom = any(data.startswith(b) for b, _ in BOMS)
    return Document(lines, reader.newline or "\n", reader.encoding or "utf-8", bom, not reader.unterminated)


def read_lines(data: bytes, name: str) -> list[str]:
    """All lines of a whole input; a final line end adds no empty line."""
    return read_document(data, name).lines


def stream_lines(stream: BinaryIO, name: str) -> Iterator[list[str]]:
    """The lines of a stream in groups, each group as soon as it has arrived (a pipe is answered line by
    line, not at its end)."""
    reader = LineReader(name)
    fd = stream.fileno()
    while True:
        data = os.read(fd, CHUNK)
        if not data:
            break
        lines = reader.feed(data)
        if lines:
            yield lines
    last = reader.close()
    if last:
        yield last


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
