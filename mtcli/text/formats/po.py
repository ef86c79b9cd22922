"""gettext PO and POT (polib): each message's msgid (and msgid_plural) a text, its translation written to
msgstr (msgstr[0] from the singular, every other form from the plural) and the entry flagged fuzzy, so that
a translator reviews it. msgid, msgctxt, comments, references and obsolete entries stay; an entry translated
already is left unless Settings.overwrite. Placeholders (%s, %(name)s, {0}) are the pipeline's kept spans."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable

from mtcli.errors import UserError
from mtcli.text.formats.units import Settings, Units
from mtcli import lazy_re

PLURAL_FORMS = "nplurals=2; plural=(n != 1);"  # English's and Spanish's: one, and every other number
_NPLURALS = lazy_re.compile(r"nplurals\s*=\s*([0-9]+)")
MAX_PLURALS = 6  # Arabic's (gettext's most)


# a line of an entry: a keyword and its string, or a string continuing one; the escapes msgfmt reads
_LINE = lazy_re.compile(r'(?:(?:msgctxt|msgid|msgid_plural|msgstr(?:\[[0-9]+\])?)[ \t]*)?"(?:[^"\\]|\\(?:[\\"abfnrtv?\']|[0-7]{1,3}|x[0-9A-Fa-f]+))*"[ \t]*')


def _checked(data: bytes, name: str) -> None:
    """A PO file's lines that are neither a comment, blank, nor a keyword's quoted string refused, naming the first (as
    msgfmt: "end-of-line within string"): polib read `msgid "Open file` (no closing quote) as "Open fil" and `msgid
    Hello` as "ell", and the catalog written back had msgids the program's strings no longer match."""
    for n, line in enumerate(data.decode("utf-8", "replace").split("\n"), 1):  # (a U+2028 in a string is no end)
        line = line.strip()
        if line and not line.startswith("#") and not _LINE.fullmatch(line):
            raise UserError(f"{name}: not a PO file: Syntax error in po file {name} (line {n}): {line[:40]!r} is no "
                            "keyword and quoted string (a quote missing, or an escape msgfmt does not know)")


def read(data: bytes, name: str, settings: Settings):
    import polib

    _checked(data, name)

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
    contexts: dict[str, list] = {}  # a msgid -> its entries with a msgctxt, to translate
    for entry in po:
        if entry.obsolete or not entry.msgid:
            continue
        done = any(entry.msgstr_plural.values()) if entry.msgid_plural else bool(entry.msgstr)
        if done and not settings.overwrite:
            continue
        if entry.msgctxt is not None:
            contexts.setdefault(entry.msgid, []).append(entry)
        if entry.msgid_plural:
            for k, source in ((0, entry.msgid), (1, entry.msgid_plural)):
                text, back = _mnemonic(source)
                units.add(units.html(text), lambda tokens, e=entry, k=k, back=back: _plural(e, k, back(_text(tokens)),
                                                                                          forms), entry.linenum)
        else:
            text, back = _mnemonic(entry.msgid)
            units.add(units.html(text), lambda tokens, e=entry, back=back: _single(e, back(_text(tokens))),
                      entry.linenum)
    # the model is given no message's context: one message in two contexts ("Open" a button's, an adjective's) gets
    # one translation, said so at each
    for msgid, entries in contexts.items():
        if len({e.msgctxt for e in entries}) > 1:
            names = ", ".join(repr(e.msgctxt) for e in entries)
            units.notes_at += [(e.linenum, f"{msgid!r} comes in the contexts {names}, which the model is not given: "
                                           "each gets the same translation (marked fuzzy): review it") for e in entries]

    def write(language: str) -> bytes:
        if not po.metadata.get("Language"):  # (a template names none)
            po.metadata["Language"] = language
        try:  # (polib's encoding: the header's charset when Python knows it, else UTF-8)
            return _written(po).encode(po.encoding)
        except UnicodeEncodeError:  # a translation the charset cannot hold (ñ in ASCII): UTF-8, said so
            po.metadata["Content-Type"] = "text/plain; charset=UTF-8"  # (a PO's only content type)
            return _written(po).encode("utf-8")

    return units, write


def _written(po) -> str:
    """The file as polib writes it, less the bare "#" line it writes for a header comment the file had not."""
    text = str(po)
    return text[2:] if not po.header and text.startswith("#\n") else text


# a GTK or Qt mnemonic, "_" or "&" before a word's letter ("Save _As", "&File"): the word had been read as a name and
# kept English ("Guarda _As")
_MNEMONIC = lazy_re.compile(r"(?<![\w&])[_&](?=[^\W\d_])")


def _mnemonic(source: str) -> tuple[str, Callable[[str], str]]:
    """A message without its mnemonic (one "_" or "&" before a letter, the message's only one), and what puts it
    back into a translation: before the letter it marked where the translation has it (a word's first letter
    first), else before its first letter ("Save _As…" -> "Gu_ardar como…", "_Open" -> "_Abrir")."""
    found = _MNEMONIC.findall(source)
    if len(found) != 1 or source.count(found[0]) != 1:
        return source, lambda text: text
    m = _MNEMONIC.search(source)
    marker, letter = m.group(), source[m.end()].lower()

    def back(text: str) -> str:
        lower = text.lower()
        at = next((k for k, c in enumerate(lower) if c == letter and (k == 0 or not lower[k - 1].isalnum())),
                  lower.find(letter))
        at = at if at >= 0 else next((k for k, c in enumerate(text) if c.isalpha()), -1)
        return text if at < 0 else text[:at] + marker + text[at:]

    return source[: m.start()] + source[m.end() :], back


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
