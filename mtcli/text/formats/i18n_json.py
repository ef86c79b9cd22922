"""i18n JSON (i18next, vue-i18n, Chrome's messages, Flutter's ARB): every string value a text, keys and other
values (numbers, booleans, null) kept: the file written back byte for byte but for the strings translated.
Settings.keys: glob patterns of the dotted key paths to translate ("menu.*", "*.title"); a list's items are
numbered ("steps.0"). Keys that begin with "@" (ARB's metadata) are never translated."""

from __future__ import annotations

import fnmatch
import json
from collections import Counter

from mtcli.errors import UserError
from mtcli.text.formats.units import Settings, Units
from mtcli import lazy_re

_SURROGATE = lazy_re.compile("[\ud800-\udfff]")  # a lone "\\udfff" escape in the file: no UTF-8 can carry it


def _number(text: str) -> None:
    """json's number hook: the file's numbers are never read (its bytes are written back as they came), and int()
    refused an integer of over 4,300 digits."""
    return None


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
        doc = json.loads(text, parse_int=_number, parse_float=_number, parse_constant=_number,
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
    values = iter(_values(text))
    edits: list[tuple[int, int, str]] = []  # (start, end) of a string value in the text, and its translation

    def walk(node, path: str, metadata: bool = False) -> None:
        pairs = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in pairs:
            here = f"{path}.{key}" if path else str(key)
            meta = metadata or isinstance(key, str) and key.startswith("@")
            if isinstance(value, (dict, list)):
                walk(value, here, meta)
            elif isinstance(value, str):
                line, start, end = next(values)  # (every string value's, in the file's order, the metadata's too)
                if meta:
                    continue
                found = {p for p in settings.keys if fnmatch.fnmatchcase(here, p)}
                matched.update(found)
                if found or not settings.keys:
                    units.add(units.html(value), lambda tokens, at=(start, end): edits.append(
                        (*at, _string(_joined(tokens)))), line, f"key {json.dumps(here, ensure_ascii=False)}")

    matched: set[str] = set()
    try:
        walk(doc, "")
    except RecursionError:
        raise UserError(f"{name}: nested too deeply") from None
    # (a glob that matches nothing, a typo most often, had left the file as it came with no word said)
    units.notes += [f"--keys {p!r} matched no text of {name}" for p in dict.fromkeys(settings.keys) if p not in matched]
    def write(language: str) -> bytes:
        # the file's own text but for the strings translated: its spacing, line ends, key order, numbers, escapes
        # (less a BOM: RFC 8259 has none, and JSON.parse refuses one)
        out, at = [], 0
        for start, end, string in sorted(edits):
            out += [text[at:start], string]
            at = end
        return ("".join(out) + text[at:]).encode("utf-8")

    return units, write


_STRING = lazy_re.compile(r'"(?:[^"\\]|\\.)*"(\s*:)?')  # a string, and a key's colon after it


def _values(text: str) -> list[tuple[int, int, int]]:
    """The line, start and end of each string value of a valid JSON text, in order: json gives no positions (a
    warning named a string's number as its line, attack d's N; the file was written anew, attack 2026-12-03's Q).
    No string holds a raw newline (json refuses one)."""
    values, line, at = [], 1, 0
    for m in _STRING.finditer(text):
        line, at = line + text.count("\n", at, m.start()), m.start()
        if not m[1]:
            values.append((line, m.start(), m.end()))
    return values


def _string(value: str) -> str:
    """A translation as a JSON string, its lone surrogates as the escapes they came as (no UTF-8 can carry one)."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False))


def _joined(tokens) -> str:
    return "".join(value for kind, value in tokens if kind == "text")
