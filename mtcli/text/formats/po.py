"""gettext PO and POT (polib): each message's msgid (and msgid_plural) a text, its translation written to
msgstr (msgstr[0] from the singular, every other form from the plural) and the entry flagged fuzzy, so that
a translator reviews it. msgid, msgctxt, comments, references and obsolete entries stay; an entry translated
already is left unless Settings.overwrite. Placeholders (%s, %(name)s, {0}) are the pipeline's kept spans."""

from __future__ import annotations

import os
import tempfile

from mtcli.errors import UserError
from mtcli.text.formats.units import Settings, Units
from mtcli import lazy_re

PLURAL_FORMS = "nplurals=2; plural=(n != 1);"  # English's and Spanish's: one, and every other number
_NPLURALS = lazy_re.compile(r"nplurals\s*=\s*([0-9]+)")
MAX_PLURALS = 6  # Arabic's (gettext's most)


def read(data: bytes, name: str, settings: Settings):
    import polib

    # polib reads a file by its path (a string of text that names an existing file would be read as one)
    fd, path = tempfile.mkstemp(suffix=".po")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        po = polib.pofile(path, wrapwidth=78)
    except (OSError, ValueError, UnicodeDecodeError, LookupError) as e:
        message = " ".join(str(e).replace(path, name).split())
        raise UserError(f"{name}: not a PO file: {message}") from None
    finally:
        os.unlink(path)
    units = Units("".join(e.msgid + e.msgid_plural for e in po))
    plural = po.metadata.get("Plural-Forms") or ""
    forms = int(m.group(1)) if (m := _NPLURALS.search(plural)) else 2
    if not 1 <= forms <= MAX_PLURALS and any(e.msgid_plural for e in po):  # (3,000,000 forms made 89 MB)
        raise UserError(f"{name}: Plural-Forms says nplurals={m.group(1)}; a language has 1 to {MAX_PLURALS} forms")
    if not plural and any(e.msgid_plural for e in po):
        po.metadata["Plural-Forms"] = PLURAL_FORMS
    for entry in po:
        if entry.obsolete or not entry.msgid:
            continue
        done = any(entry.msgstr_plural.values()) if entry.msgid_plural else bool(entry.msgstr)
        if done and not settings.overwrite:
            continue
        if entry.msgid_plural:
            for k, source in ((0, entry.msgid), (1, entry.msgid_plural)):
                units.add(source, lambda tokens, e=entry, k=k: _plural(e, k, _text(tokens), forms), entry.linenum)
        else:
            units.add(entry.msgid, lambda tokens, e=entry: _single(e, _text(tokens)), entry.linenum)

    def write(language: str) -> bytes:
        if not po.metadata.get("Language"):  # (a template names none)
            po.metadata["Language"] = language
        try:  # (polib's encoding: the header's charset when Python knows it, else UTF-8)
            return str(po).encode(po.encoding)
        except UnicodeEncodeError:  # a translation the charset cannot hold (ñ in ASCII): UTF-8, said so
            po.metadata["Content-Type"] = "text/plain; charset=UTF-8"  # (a PO's only content type)
            return str(po).encode("utf-8")

    return units, write


def _text(tokens) -> str:
    return "".join(value for kind, value in tokens if kind == "text")


def _single(entry, text: str) -> None:
    entry.msgstr = _edges(entry.msgid, text)
    _fuzzy(entry)


def _plural(entry, k: int, text: str, forms: int) -> None:
    """msgstr[0] from the singular; msgstr[1..] from the plural (Spanish has two forms, as English)."""
    text = _edges(entry.msgid if k == 0 else entry.msgid_plural, text)
    for n in ([0] if k == 0 else range(1, max(forms, 2))):
        entry.msgstr_plural[n] = text
    _fuzzy(entry)


def _fuzzy(entry) -> None:
    if "fuzzy" not in entry.flags:
        entry.flags.insert(0, "fuzzy")


def _edges(source: str, text: str) -> str:
    """A message's leading and trailing whitespace and line end ("Saving...\\n") as the msgid has them:
    gettext checks that they agree."""
    lead = source[: len(source) - len(source.lstrip())]
    trail = source[len(source.rstrip()) :]
    return lead + text.strip() + trail
