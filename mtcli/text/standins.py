"""What the model is shown in a kept span's place, by the span's kind, where the engine's ladder (protect.py) is not
the best for it: one row a source language. A number's stand-in is a number: the Spanish-English model's ladder is a
name ("Tom"), which it made the sentence's subject ("Tiene Tom años." -> "Tom is old.": "Tiene 30 años." had come
out "30 is old.", "La maleta pesa 20 kg." "20 kg's suitcase is heavy."). Measured: benchmarks/standins.py. The tries
after the first (retry.py) are the engine's ladder, as before."""

from __future__ import annotations

import re

from mtcli.text.kinds import KIND, ROMAN_NUMERAL
from mtcli import lazy_re

# the kinds that hold a number's value (a Roman numeral's too: "siglo XXI" had come out "19th century")
NUMBER_KINDS = ("time", "money", "feet and inches", "ratio", "ordinal", "número", "number")
_NUMBER = lazy_re.compile("|".join(f"(?:{KIND[k].pattern})" for k in NUMBER_KINDS), re.IGNORECASE)
_QUANTITY = lazy_re.compile(KIND["quantity"].pattern, re.IGNORECASE)  # (a number with a unit's symbol: "3,5 kg")
_ROMAN = lazy_re.compile(ROMAN_NUMERAL)
# source language -> each kind's stand-in (a kind not here: the ladder's)
STAND_INS = {"es": {"number": "12", "quantity": "12", "roman": "12"}}


def kind(span: str) -> str | None:
    """The span's kind if it is a number: "quantity" ("3,5 kg"), "number" ("20 €", "7:30", "1/2"), "roman" ("XXI")."""
    return next((k for k, p in (("quantity", _QUANTITY), ("number", _NUMBER), ("roman", _ROMAN)) if p.fullmatch(span)), None)


def stood_in(spans: tuple[str, ...], seq: tuple[str, ...], source: str, words: str) -> tuple[str, ...]:
    """`seq` (the ladder's first rung, span i gets seq[i % len(seq)]) with the source's stand-in for each span of a kind
    it has one for, one per span; `seq` where it has none, or the sentence (`words`: without its spans) writes one."""
    table = STAND_INS.get(source, {})
    kinds = [table.get(kind(span)) for span in spans]
    if not any(kinds) or any(re.search(rf"(?<![\w.,]){k}(?![\w]|[.,]\d)", words) for k in set(kinds) if k):
        return seq
    return tuple(k or seq[i % len(seq)] for i, k in enumerate(kinds))
