"""i18n JSON (i18next, vue-i18n, Chrome's messages, Flutter's ARB): every string value a text, keys and other
values (numbers, booleans, null) kept, the nesting and order kept, the indentation as the file has it.
Settings.keys: glob patterns of the dotted key paths to translate ("menu.*", "*.title"); a list's items are
numbered ("steps.0"). Keys that begin with "@" (ARB's metadata) are never translated."""

from __future__ import annotations

import fnmatch
import json
import re
import secrets
from collections import Counter

from mtcli.errors import UserError
from mtcli.text.formats.units import Settings, Units
from mtcli import lazy_re

_INDENT = lazy_re.compile(r"\n([ \t]+)\S")
_SURROGATE = lazy_re.compile("[\ud800-\udfff]")  # a lone "\\udfff" escape in the file: no UTF-8 can carry it


class _Verbatim:
    """A number as the file wrote it, written back the same: float() or int() would turn 1e999 into Infinity
    (not JSON), 0.10 into 0.1, and refuse an integer of over 4,300 digits."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


def _object(name: str):
    """json's object hook: a key twice in one object is refused (a dict keeps the last, and the first
    value's text was lost from the translation without a word)."""
    def pairs(items: list) -> dict:
        found = dict(items)
        if len(found) < len(items):
            twice = next(key for key, n in Counter(key for key, _ in items).items() if n > 1)
            raise UserError(f"{name}: the key {twice!r} is twice in one object; only one would be kept: "
                            "keep one or rename the other")
        return found

    return pairs


def read(data: bytes, name: str, settings: Settings):
    try:
        text = data.decode("utf-8-sig")
        doc = json.loads(text, parse_int=_Verbatim, parse_float=_Verbatim, parse_constant=_Verbatim,
                         object_pairs_hook=_object(name))
    except UnicodeDecodeError as e:
        raise UserError(f"{name}: not UTF-8 (byte offset {e.start}): JSON is UTF-8") from None
    except json.JSONDecodeError as e:
        raise UserError(f"{name}: not JSON: line {e.lineno}, column {e.colno}: {e.msg}") from None
    except RecursionError:
        raise UserError(f"{name}: nested too deeply") from None
    if not isinstance(doc, (dict, list)):
        raise UserError(f"{name}: not i18n JSON: expected an object or a list of strings")
    units = Units(text)
    lines = iter(_value_lines(text))

    def walk(node, path: str, metadata: bool = False) -> None:
        pairs = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in pairs:
            here = f"{path}.{key}" if path else str(key)
            meta = metadata or isinstance(key, str) and key.startswith("@")
            if isinstance(value, (dict, list)):
                walk(value, here, meta)
            elif isinstance(value, str):
                line = next(lines)  # (every string value's, in the file's order, the metadata's too)
                if meta:
                    continue
                found = {p for p in settings.keys if fnmatch.fnmatchcase(here, p)}
                matched.update(found)
                if found or not settings.keys:
                    units.add(value, lambda tokens, n=node, k=key: n.__setitem__(k, _joined(tokens)), line)

    matched: set[str] = set()
    try:
        walk(doc, "")
    except RecursionError:
        raise UserError(f"{name}: nested too deeply") from None
    # (a glob that matches nothing, a typo most often, had left the file as it came with no word said)
    units.notes += [f"--keys {p!r} matched no text of {name}" for p in dict.fromkeys(settings.keys) if p not in matched]
    indent = _INDENT.search(text)
    newline = "\r\n" if "\r\n" in text else "\n"

    def write(language: str) -> bytes:
        out = _dumps(doc, indent.group(1) if indent else None)
        return (out.replace("\n", newline) + (newline if text.endswith(("\n", "\r")) else "")).encode("utf-8")

    return units, write


_STRING = lazy_re.compile(r'"(?:[^"\\]|\\.)*"(\s*:)?')  # a string, and a key's colon after it


def _value_lines(text: str) -> list[int]:
    """The line of each string value of a valid JSON text, in order: json gives no positions, and a warning named
    a string's number as its line (attack d's N). No string holds a raw newline (json refuses one)."""
    lines, line, at = [], 1, 0
    for m in _STRING.finditer(text):
        line, at = line + text.count("\n", at, m.start()), m.start()
        if not m[1]:
            lines.append(line)
    return lines


def _dumps(doc, indent: str | None) -> str:
    """json.dumps with each _Verbatim number as the file wrote it (a marker json writes as a string, then
    replaced; a random one, which no text of the file holds) and lone surrogates as the escapes they came as."""
    mark, numbers = secrets.token_hex(8), []

    def verbatim(value):
        if not isinstance(value, _Verbatim):
            raise TypeError(f"{type(value).__name__} is not JSON")
        numbers.append(value.text)
        return f"{mark}{len(numbers) - 1}{mark}"

    out = json.dumps(doc, ensure_ascii=False, indent=indent, default=verbatim)
    out = re.sub(f'"{mark}(\\d+){mark}"', lambda m: numbers[int(m.group(1))], out)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", out)


def _joined(tokens) -> str:
    return "".join(value for kind, value in tokens if kind == "text")
