"""Calendar words and dates: the names of months and weekdays, a date written with its month's name, and a month's
name alone, each found in a sentence and written the other language's way (kinds.py's "date", "fecha", "month" and
"mes" rows). The shared concepts (MONTHS, WEEKDAYS) are defined here only: tests/text/test_kinds.py."""

from __future__ import annotations

import re
from collections.abc import Callable

from mtcli import lazy_re

WEEKDAYS = {"monday": "lunes", "tuesday": "martes", "wednesday": "miércoles", "thursday": "jueves",
            "friday": "viernes", "saturday": "sábado", "sunday": "domingo"}

# a date with its month's name ("May 5, 2025", "12 March 1990", "the 3rd of July", "June 2020"): one span, put back
# in Spanish ("5 de mayo de 2025"): the model dropped the month ("It happened in May 2020." -> "Ocurrió en 2020.",
# "See you on Monday, June 3." -> "Te veo el lunes, 3.")
MONTHS = dict(zip("january february march april may june july august september october november december".split(),
                  "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre".split()))
_MONTH = "|".join([*(m.capitalize() for m in MONTHS), *(m.upper() for m in MONTHS),
                   *(f"{m[:3].capitalize()}\\.?" for m in MONTHS if m != "may"), "Sept\\.?"])
_ORDINAL = "(?:st|nd|rd|th|ST|ND|RD|TH)"
_DAY = rf"(?:[12]\d|3[01]|0?[1-9]){_ORDINAL}?(?:[–-](?:[12]\d|3[01]|0?[1-9]){_ORDINAL}?)?"  # (May 5–7)
_YEAR = r"(?:1[5-9]|2[01])\d\d"
_DATE_PARTS = (rf"(?P<m1>{_MONTH}) (?P<d1>{_DAY})(?:,? (?P<y1>{_YEAR}))?"  # May 5, 2025
               rf"|(?P<d2>{_DAY})(?: of)? (?P<m2>{_MONTH})(?:,? (?P<y2>{_YEAR}))?"  # 12 March 1990, 3rd of July
               rf"|(?P<m3>{_MONTH}),? (?P<y3>{_YEAR})")  # June 2020
DATE = lazy_re.compile(rf"(?<![\w.,])(?:{_DATE_PARTS})(?![\w:/.-]\d|\w)")
# a month and a number without a year or an ordinal are a date after a word that leads to one or before a mark,
# not "WE MARCH 10 MILES", "I called April 3 times", "May 2 of us come in?", "Step 2 May Fail"
_LEADS_TO_DATE = lazy_re.compile(r"(?:\b(?:on|by|since|until|till|from|before|after|through|between|to|and|of|in|the|"
                                 r"every|each|next|last|this)|[,(])\s*$", re.IGNORECASE)
_LEAD_REACH = 64  # characters before a date looked at for a word that leads to it (normalised text: one space)
_ENDS_DATE = lazy_re.compile(r"\s*(?:[.,;:!?)\]\"'–—-]|$|(?:and|or|to|through|until|at)\b)", re.IGNORECASE)
_TYPED_SPAN = lazy_re.compile(r"[`<>\"=/\\@]")  # code, markup, a path: no date in it is written out


def _date_in_spanish(span: str) -> str:
    """Each date in the span written as Spanish writes it ("May 5, 2025" -> "5 de mayo de 2025"), in its case
    ("MAY 5" -> "5 DE MAYO")."""
    def spanish(m: re.Match) -> str:
        k = next(k for k in "123" if m[f"m{k}"])
        month, day, year = m[f"m{k}"], m[f"d{k}"] if k != "3" else None, m[f"y{k}"]
        name = next(es for en, es in MONTHS.items() if en.startswith(month.rstrip(".").lower()))
        out = " de ".join(p for p in (day and re.sub(rf"(?<=\d){_ORDINAL}", "", day), name, year) if p)
        return out.upper() if month.isupper() and len(month) > 1 else out

    return DATE.sub(spanish, span) if any(c.isdigit() for c in span) else span


# a Spanish date with its month's name ("4 de junio de 1974", "4 de junio", "junio de 2020", "1.º de mayo"): one
# span, written the English way ("June 4, 1974")
_ES_MONTH = "|".join([*MONTHS.values(), "setiembre"])
_ES_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:\.?º)?"
ES_DATE = lazy_re.compile(rf"(?<![\w.,])(?i:(?P<d>{_ES_DAY}) de (?P<m>{_ES_MONTH})(?: del? (?P<y>{_YEAR}))?"
                          rf"|(?P<m2>{_ES_MONTH}) del? (?P<y2>{_YEAR}))(?!\w|[.,/:-]\d)")  # (its groups: SPAN's only)


def _date_in_english(span: str) -> str:
    """Each Spanish date in the span as English writes it ("4 de junio de 1974" -> "June 4, 1974"), in its case."""
    def english(m: re.Match) -> str:
        month, day, year = m["m"] or m["m2"], m["d"] and re.sub(r"\D", "", m["d"]), m["y"] or m["y2"]
        out = f"{_english(month)} {day}" if day else _english(month)
        out += f", {year}" if day and year else f" {year}" if year else ""
        return out.upper() if month.isupper() else out

    return ES_DATE.sub(english, span)


def reads_as_date(text: str) -> list[tuple[int, int]]:
    """Where the text has dates (DATE, and a bare "Month 5" only where it reads as one)."""
    found, at = [], 0
    while m := DATE.search(text, at):
        k = next(k for k in "123" if m[f"m{k}"])
        if m[f"y{k}"] or re.search(f"{_ORDINAL}$", m[f"d{k}"] or "") or _ENDS_DATE.match(text, m.end()) \
                or _LEADS_TO_DATE.search(text, max(m.start() - _LEAD_REACH, 0), m.start()):
            found.append(m.span())
            at = m.end()
        else:
            at = m.start() + 1  # ("Apollo 11 July 20, 1969": "11 July" is none, "July 20, 1969" is one)
    return found


_DIGIT = lazy_re.compile(r"\d")


def _dates(text: str) -> list[tuple[int, int]]:
    return reads_as_date(text) if _DIGIT.search(text) else []  # (a date holds a number)



# a month's name alone ("in July", "until September", "last August"): one span, written in the other language. The
# model had too few pairs of most months to learn them (the corpus has 3 with "September", 14 with "July"): "I was
# born in July." -> "Nací en jurado.", "in September" -> "en el hilo", "en septiembre" -> "in November". Written
# as a month is (capitalised or ALL CAPS in English, lowercase or ALL CAPS in Spanish: "Julio" is a name); never
# before a capitalised word (a title, a name: "November Rain", "April Smith"; an ALL CAPS one follows a shouted
# month) nor a number (DATE's); the months that are also a verb, a name or a word (May, March, April, June, August)
# only after a word that leads to a month, or after another month ("July, August and September"), or between an
# article and a lowercase word, as a noun's ("the March report": the model dropped it, "Necesito el reporte."); not
# after "to", "for", "and" ("I gave the book to June", "I voted for May", "Jack and August")
_MAYBE_NOT_A_MONTH = ("may", "march", "april", "june", "august")
_NAMES = "|".join([*(m.capitalize() for m in MONTHS), *(m.upper() for m in MONTHS)])
_MONTH_ALONE = lazy_re.compile(rf"(?<![\w.,'’-])({_NAMES})(?![\w-]|\s*(?:\d|[A-Z][a-z]))")
_LEADS_TO_MONTH = lazy_re.compile(r"(?:\b(?i:in|of|since|until|till|by|during|early|late|mid|next|last|this|every|"
                                  rf"from|through|before|after|between)|(?:{_NAMES})(?:,| (?i:and|or|to|through|until)))\s+$")
_BEFORE_A_NOUN = lazy_re.compile(r"\b(?i:the|an?)\s+$"), lazy_re.compile(r"\s+[a-z]")  # (the article, the word)
_ES_MONTH_ALONE = lazy_re.compile(rf"(?<![\w.,'’-])({_ES_MONTH}|{_ES_MONTH.upper()})(?![\w-]|\s*\d)")
_TAGGED = lazy_re.compile(r"((?:<[^<>]*>)*)(.*?)((?:<[^<>]*>)*)", re.DOTALL)  # inline markup kept with the month


def months_alone(text: str) -> list[tuple[int, int]]:
    """Where an English text names a month alone."""
    article, noun = _BEFORE_A_NOUN
    return [m.span() for m in _MONTH_ALONE.finditer(text) if m[1].lower() not in _MAYBE_NOT_A_MONTH
            or _LEADS_TO_MONTH.search(text, max(m.start() - _LEAD_REACH, 0), m.start())
            or noun.match(text, m.end()) and article.search(text, max(m.start() - _LEAD_REACH, 0), m.start())]


def meses(text: str) -> list[tuple[int, int]]:
    """Where a Spanish text names a month alone."""
    return [m.span() for m in _ES_MONTH_ALONE.finditer(text)]


def _month_in(span: str, alone: re.Pattern, name: Callable[[str], str]) -> str:
    """A span that is a month's name (inside its inline tags, "<b>July</b>": one span with them) as `name` writes it
    in the other language, ALL CAPS as written; any other as it came."""
    before, month, after = _TAGGED.fullmatch(span).groups()
    if not alone.fullmatch(month):
        return span
    return before + (name(month).upper() if month.isupper() else name(month)) + after


def _english(mes: str) -> str:
    return next(en for en, es in MONTHS.items() if es == mes.lower().replace("setiembre", "septiembre")).capitalize()


def month_in_spanish(span: str) -> str:
    return _month_in(span, _MONTH_ALONE, lambda month: MONTHS[month.lower()])


def month_in_english(span: str) -> str:
    return _month_in(span, _ES_MONTH_ALONE, _english)


def month_alone(span: str, source: str) -> str | None:
    """The span in the other language if it is a month's name alone in `source`'s, else None."""
    anew = month_in_spanish(span) if source == "en" else month_in_english(span)
    return anew if anew != span else None
