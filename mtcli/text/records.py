"""A line of a record in plain text: a key and its quoted value, the shape of a JSON member, an assignment or a
PHP array's entry (`"greeting": "Hello {name}, welcome back!",`, `title = "Delete %s files?"`,
`'save' => 'Save changes',`). Given the model whole, the key was translated and the marks garbled (`"él
saludó""¿Haced {name}, la bienvenida.`, `¿El = título de %s archivos?`); now the key, the marks around the value and
what ends the line are kept, and the value is translated as a line of its own (lines.in_cells). Only the shapes
below, whole lines: a key a program would use (quoted, or a name with no space) and one quoted value with nothing
after it but a comma or a semicolon; a line of prose with a quotation in it is none of them. `-f json` is still
the way for a whole file (formats/i18n_json.py): it writes the escapes back; here a value keeps the escapes it had.
"""

from __future__ import annotations

from mtcli import lazy_re

_VALUE = r"(?P<q>[\"'])(?P<value>(?:(?!(?P=q))[^\\]|\\.)*)(?P=q)"
_NAME = r"[A-Za-z_$][\w.$-]*"
_END = r"[ \t]*[,;]?[ \t]*"
# (each: the key and what opens the value, then the value and its quotes, then what ends the line)
SHAPES = (
    lazy_re.compile(rf"[ \t]*\"[^\"\\\n]+\"[ \t]*:[ \t]*{_VALUE}{_END}"),  # JSON: "key": "value",
    lazy_re.compile(rf"[ \t]*(?:{_NAME}|\"[^\"\n]+\"|'[^'\n]+')[ \t]*=>?[ \t]*{_VALUE}{_END}"),  # key = "value";
)


def entry(line: str) -> list[str] | None:
    """A record's line as [what comes before the value, what parts them, the value, the rest, ""] (lines.in_cells's
    pieces and separators: the value the one piece translated), or None if the line has none of the SHAPES."""
    found = next((m for shape in SHAPES if (m := shape.fullmatch(line))), None)
    if found is None:
        return None
    return ["", line[: found.start("value")], found.group("value"), line[found.end("value") :], ""]
