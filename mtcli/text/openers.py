"""A sentence's first word, capitalised as every first word is, is no name when a determiner follows it ("Select the
file.", "Uploaded the file."; in English): software strings open with verbs the model never learned, and kept
as names they stayed in the source language ("Select el archivo."); the model, given them, writes a verb ("Coge el
archivo.", "Levantó el archivo."). A name before a determiner is rare ("Anna called the office." keeps "Anna")."""

from __future__ import annotations

from collections.abc import Callable

from mtcli import lazy_re

# (English's: Spanish's are pronouns too, "Michael la tomó por la mano.", and "a" a preposition)
_DETERMINERS = "the|a|an|all|your|my|this|that|these|those|each|every|some|any|our|their|his|its"
_OPENER = lazy_re.compile(rf"[\"'“‘¿¡(]*([A-Z][a-z]+) (?=(?:{_DETERMINERS}) [^\W\d_])")


def verb_first(text: str, spans: list[tuple[int, int]], spelled: Callable[[str], bool]) -> list[tuple[int, int]]:
    """The spans without the sentence's first word when a determiner follows it and the vocabulary spells it
    (`spelled`: a piece in lowercase it can write; an unknown character or script stays kept)."""
    m = _OPENER.match(text)
    if not m or m.span(1) not in spans or not spelled(m[1].lower()):
        return spans
    return [span for span in spans if span != m.span(1)]
