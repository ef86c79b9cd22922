"""i18n JSON (i18next, vue-i18n, Chrome's messages, Flutter's ARB): every string value a text, keys and other
values (numbers, booleans, null) kept, the nesting and order kept, the indentation as the file has it.
Settings.keys: glob patterns of the dotted key paths to translate ("menu.*", "*.title"); a list's items are
numbered ("steps.0"). Keys that begin with "@" (ARB's metadata) are never translated."""

from __future__ import annotations

import fnmatch
import json
import re

from mtcli.errors import UserError
from mtcli.text.formats.units import Settings, Units

_INDENT = re.compile(r"\n([ \t]+)\S")


def read(data: bytes, name: str, settings: Settings):
    try:
        text = data.decode("utf-8-sig")
        doc = json.loads(text)
    except UnicodeDecodeError as e:
        raise UserError(f"{name}: not UTF-8 (byte offset {e.start}): JSON is UTF-8") from None
    except json.JSONDecodeError as e:
        raise UserError(f"{name}: not JSON: line {e.lineno}, column {e.colno}: {e.msg}") from None
    except RecursionError:
        raise UserError(f"{name}: nested too deeply") from None
    if not isinstance(doc, (dict, list)):
        raise UserError(f"{name}: not i18n JSON: expected an object or a list of strings")
    units = Units(text)
    number = [0]

    def walk(node, path: str) -> None:
        pairs = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in pairs:
            here = f"{path}.{key}" if path else str(key)
            if isinstance(key, str) and key.startswith("@"):
                continue
            if isinstance(value, (dict, list)):
                walk(value, here)
            elif isinstance(value, str) and (not settings.keys or any(fnmatch.fnmatchcase(here, p) for p in settings.keys)):
                number[0] += 1
                units.add(value, lambda tokens, n=node, k=key: n.__setitem__(k, _joined(tokens)), number[0])

    try:
        walk(doc, "")
    except RecursionError:
        raise UserError(f"{name}: nested too deeply") from None
    indent = _INDENT.search(text)
    newline = "\r\n" if "\r\n" in text else "\n"

    def write(language: str) -> bytes:
        out = json.dumps(doc, ensure_ascii=False, indent=indent.group(1) if indent else None)
        return (out.replace("\n", newline) + (newline if text.endswith(("\n", "\r")) else "")).encode("utf-8")

    return units, write


def _joined(tokens) -> str:
    return "".join(value for kind, value in tokens if kind == "text")
