"""A currency the model hardly learned given it as one it knows: "euro(s)" reaches it as "dollar(s)" (Spanish
"dólar(es)"), and the translation's dollar word is made the euro word again, in the number the translation gave it.
The corpus has 4 lines with euros and 160 with dollars: an amount written in words lost its currency ("Two euros." ->
"Dos europeos."). An amount in digits ("5 euros", "20 €") is kinds.py's, kept whole, and left alone here; so is a
line that names dollars itself (which dollar word of the translation was a euro would not be known)."""

from __future__ import annotations

import re

from mtcli import lazy_re
from mtcli.text.kinds import PRIVATE
from mtcli.text.sentence import Context, NBest, Sentence, each

# the source's euro word -> the dollar word the model is given; the target's dollar word -> the euro word back
GIVEN = {"en": {"euro": "dollar", "euros": "dollars"}, "es": {"euro": "dólar", "euros": "dólares"}}
BACK = {"en": {"dólar": "euro", "dólares": "euros", "dolar": "euro", "dolares": "euros"},
        "es": {"dollar": "euro", "dollars": "euros", "buck": "euro", "bucks": "euros"}}
# (not after a number in digits, nor before one: "5 euros" is an amount's span, "Euro 2024" a tournament; nor after a
# template's placeholder, "%.2f EUROS", checked apart: kinds.PRIVATE)
_EURO = lazy_re.compile(r"(?<![\d€$£¥])(?<![\d€$£¥] )\b(euros?)\b(?! ?\d)", re.IGNORECASE)
_DOLLAR = lazy_re.compile(r"\b(?:d[oó]lar(?:es)?|dollars?|bucks?)\b", re.IGNORECASE)
_BACK = {source: lazy_re.compile(rf"\b(?:{'|'.join(words)})\b", re.IGNORECASE) for source, words in BACK.items()}


def as_typed(word: str, like: str) -> str:
    """`word` in the case of `like` ("EUROS", "Euros", "euros")."""
    return word.upper() if like.isupper() and len(like) > 1 else word.capitalize() if like[:1].isupper() else word


class Currencies:
    """Euros given the model as dollars, the translation's dollars made euros again."""

    name = "currencies"

    def strip(self, s: Sentence, c: Context) -> bool:
        source = c.options.source
        if c.options.protect and source in GIVEN and _EURO.search(s.text) and not _DOLLAR.search(s.text):
            text = _EURO.sub(lambda m: m[1] if PRIVATE.search(s.text, max(0, m.start() - 2), m.start())
                             else as_typed(GIVEN[source][m[1].lower()], m[1]), s.text)
            if text != s.text:
                s.text, s.aside[self.name] = text, source
        return True

    def restore(self, s: Sentence, out: NBest, items) -> NBest:
        source = s.aside.get(self.name)
        if source is None:
            return out
        return each(out, lambda t: _BACK[source].sub(lambda m: as_typed(BACK[source][m.group().lower()], m.group()), t))
