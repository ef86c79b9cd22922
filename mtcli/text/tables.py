"""The span-kind table (kinds.py) compiled for each source language: the rows that serve it, its alternation, its
titles and what it writes anew in the other language."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mtcli.text.dates import _ES_MONTH_ALONE, _MONTH_ALONE, _TYPED_SPAN, DATE, ES_DATE
from mtcli.text.kinds import _ES_ORDINAL, ES_TITLE, ES_TITLED, KINDS, TITLE, TITLED, Kind
from mtcli.text.numerals import EN_ORDINAL, ES_NUMBER
from mtcli import lazy_re


@dataclass(frozen=True)
class Table:
    """KINDS' rows that serve one source language, compiled."""

    kinds: tuple[Kind, ...]
    span: re.Pattern  # the rows' alternation (not the rows with `find`, nor a template's), case-insensitive
    maybe_span: re.Pattern  # in every match of span (most sentences have none)
    title: re.Pattern  # a title before a capital
    titled: re.Pattern  # the title and the name after it
    written_anew: re.Pattern  # what `rewritten` writes anew: not kept as it came

    @classmethod
    def of(cls, language: str, title: re.Pattern, titled: re.Pattern, written_anew: str) -> Table:
        kinds = tuple(k for k in KINDS if language in k.languages)
        spanned = [k for k in kinds if not (k.find or k.template)]
        return cls(kinds, lazy_re.compile("|".join(k.pattern for k in spanned), re.IGNORECASE),
                   lazy_re.compile("|".join(dict.fromkeys(k.hint for k in spanned)), re.IGNORECASE),
                   title, titled, lazy_re.compile(written_anew))


class _ByLanguage(dict):
    """Each source language's Table, compiled when a text of that language first needs one (an English line
    does not pay the Spanish table's ~12 ms of regular expressions)."""

    def __missing__(self, language: str) -> Table:
        titles = {"en": (TITLE, TITLED, f"{DATE.pattern}|{_MONTH_ALONE.pattern}|{TITLE.pattern}|(?i:{EN_ORDINAL})"),
                  "es": (ES_TITLE, ES_TITLED,
                         f"{ES_DATE.pattern}|{_ES_MONTH_ALONE.pattern}|{ES_TITLE.pattern}|{_ES_ORDINAL}|{ES_NUMBER}")}[language]
        self[language] = table = Table.of(language, *titles)
        return table


TABLES = _ByLanguage()


def rewritten(span: str, source: str = "en") -> str:
    """A span with each part a row of the source language rewrites written in the other language; others as they are."""
    if _TYPED_SPAN.search(span):
        return span
    for kind in TABLES[source].kinds:
        span = kind.rewrite(span) if kind.rewrite else span
    return span


def in_spanish(span: str) -> str:
    """An English span written anew in Spanish (its dates, a title before a name)."""
    return rewritten(span, "en")
