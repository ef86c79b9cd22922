"""The numbers a translation may hold: those its source writes in digits or in words ("thirty" may come out "30",
"two thousand" "2.000"); any other is made up by the model. On the first 1,000 unseen lines (beam 4), one output
in each direction had a number its line lacks, both wrong ("... December is the twelfth." -> "... el 20 es el
océano."; "dos horas y media" -> "2:30 hours"); none wrote a number word in digits. retry.py refuses a try that
makes one up where the line has spans (the ladder goes on); a line without spans gets a warning naming it."""

from __future__ import annotations

import re
from mtcli import lazy_re

_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
         "seventeen eighteen nineteen").split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_UNOS = ("cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince dieciséis "
         "diecisiete dieciocho diecinueve").split()
_DECENAS = "veinte treinta cuarenta cincuenta sesenta setenta ochenta noventa".split()
_VEINTI = "veintiuno veintidós veintitrés veinticuatro veinticinco veintiséis veintisiete veintiocho veintinueve"
_ORDINALS = "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split()
_ORDINALES_O = "primer segund tercer cuart quint sext séptim octav noven".split()
_CIENTOS = ("cien ciento doscientos trescientos cuatrocientos quinientos seiscientos setecientos ochocientos "
            "novecientos").split()

WORDS: dict[str, int] = {
    **{w: n for n, w in enumerate(_ONES)}, **{w: 20 + 10 * n for n, w in enumerate(_TENS)},
    **{w: n for n, w in enumerate(_UNOS)}, **{w: 20 + 10 * n for n, w in enumerate(_DECENAS)},
    **{w: 21 + n for n, w in enumerate(_VEINTI.split())}, "veintiún": 21,
    **{w: n + 1 for n, w in enumerate(_ORDINALS)}, "primero": 1, "primer": 1, "tercer": 3, "décimo": 10,
    **{f"{w}{end}": n + 1 for n, w in enumerate(_ORDINALES_O) for end in "oa"},
    **{w: 100 * max(n, 1) for n, w in enumerate(_CIENTOS)}, "hundred": 100, "thousand": 1000, "mil": 1000,
    "million": 10**6, "millón": 10**6, "millones": 10**6, "dozen": 12, "docena": 12,
}
_MULTIPLIERS = {"hundred": 100, "thousand": 1000, "mil": 1000, "million": 10**6, "millón": 10**6, "millones": 10**6}
_WORD = lazy_re.compile(r"[^\W\d_]+")
# a number as written: digits, with groups of three after a separator ("2,000", "2.000") one number
NUMBER = lazy_re.compile(r"\d+(?:[.,]\d{3})*(?![.,]?\d)|\d+")


def _values(number: str) -> tuple[int, set[int]]:
    """A number as written, read whole, and each run of digits in it ("2,000" -> 2000, {2, 0})."""
    return int(re.sub(r"\D", "", number)), {int(run) for run in re.findall(r"\d+", number)}


def said(text: str) -> set[int]:
    """The numbers a text writes, in digits or in words ("twenty-five", "treinta y cinco", "two hundred")."""
    values = {v for m in NUMBER.finditer(text) for whole, runs in [_values(m.group())] for v in (whole, *runs)}
    words = [w.lower() for w in _WORD.findall(text)]
    for k, word in enumerate(words):
        if word not in WORDS:
            continue
        value = WORDS[word]
        values.add(value)
        rest = words[k + 1 : k + 3]
        rest = rest[1:] if rest[:1] == ["y"] else rest  # ("treinta y cinco")
        if rest and rest[0] in WORDS and 20 <= value <= 90 and WORDS[rest[0]] < 10:
            values.add(value + WORDS[rest[0]])
        elif rest and rest[0] in _MULTIPLIERS:
            values.add(value * _MULTIPLIERS[rest[0]])
    return values


def made_up(output: str, source: str) -> list[str]:
    """The numbers of the output its source does not write, in digits or in words, as the output has them."""
    if not any(c.isdigit() for c in output):
        return []
    known = said(source)
    return [m.group() for m in NUMBER.finditer(output) if not _among(m.group(), known)]


def _among(number: str, known: set[int]) -> bool:
    """The number is one of `known` read whole, or each of its runs of digits is ("25.50" of 25 and 50)."""
    whole, runs = _values(number)
    return whole in known or runs <= known
