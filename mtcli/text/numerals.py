"""Numbers whose meaning depends on the language they are written in: rows of the span-kind table (kinds.py) write them
anew in the target language, and a kept number takes no word the placeholder brought.

A Spanish number written with Spain's separators reads as another number in English ("3.000 euros" is three euros to
an English reader, "1,5 millones" one-five): written with English's (DeepL and Google Translate do so), only where the
Spanish is unambiguous: a point before groups of three digits ("3.000", "1.299,99") or a comma before one, two or four
digits and more ("1,5", "15,50"). "1,500" is left as typed (1.5 in Spain, 1500 in Mexico, which writes English's
separators; so does the English source: its "3,000" and "1.5" are Spanish of the Americas, and the RAE accepts both).
An English ordinal ("3rd", "21ST") is written the Spanish way ("3.º").
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mtcli import lazy_re

# a Spanish number with Spain's separators only where none other reads it: thousands points (not four groups of at
# most 255, an IPv4 address), a decimal comma before other than three digits
ES_NUMBER = (r"(?<![\w.,])(?!(?:\d{1,3}\.){3}\d{1,3}(?![\w.,]*\d))"
             r"(?:\d{1,3}(?:\.\d{3})+(?:,\d+)?|\d+,(?:\d{1,2}|\d{4,}))(?![\w.,]*\d)")
_SEPARATOR = lazy_re.compile(r"[.,]")


def number_in_english(span: str) -> str:
    """Each Spanish number in the span written with English's separators ("1.299,99 €" -> "1,299.99 €")."""
    return re.sub(ES_NUMBER, lambda m: _SEPARATOR.sub(lambda s: "," if s.group() == "." else ".", m.group()), span)


# an English ordinal number ("1st", "22nd", "3RD", "11th")
EN_ORDINAL = r"(?<![\w.,])(\d{1,4})(?:st|nd|rd|th)(?![\w-])"  # (not "1st-class": the number row keeps it whole)


def ordinal_in_spanish(span: str) -> str:
    """Each English ordinal in the span written the Spanish way ("3rd" -> "3.º"; the masculine: the noun after it is
    the translation's)."""
    return re.sub(EN_ORDINAL, r"\1.º", span, flags=re.IGNORECASE)


# a kept span that ends in no letter (a number, a date, an amount, a time; not a name) takes no English possessive:
# es-en's placeholder is a name ("Tom"), which the model writes "Tom's" ("03/04/2025's", "23:45's", "July 10's")
_POSSESSIVE = lazy_re.compile(r"['’]s(?!\w)")


def without_possessive(text: str, spans: tuple[str, ...]) -> str:
    """The text with no "'s" right after a kept span that ends in no letter, or an English ordinal ("2nd's time")."""
    ends = ends_one_of([s for s in spans if s and (not s[-1].isalpha() or re.fullmatch(EN_ORDINAL, s, re.IGNORECASE))])
    return _POSSESSIVE.sub(lambda m: "" if ends(text, m.start()) else m.group(), text)


def ends_one_of(spans: list[str]) -> Callable[[str, int], bool]:
    """Whether one of `spans` (in any case) ends at text[at], no word character before it: time linear in the text and
    in its spans' lengths, not in their number (a search of the text for each span was quadratic: 1,000 quantities)."""
    kept, lengths = {s.lower() for s in spans}, {len(s) for s in spans}
    return lambda text, at: any(text[at - n : at].lower() in kept and not (at > n and _WORD.match(text, at - n - 1))
                                for n in lengths if n <= at)


_WORD = lazy_re.compile(r"\w")
