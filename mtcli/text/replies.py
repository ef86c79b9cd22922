"""A message's opening word and its comma ("No,", "Good morning,", "Sorry,", "Gracias,") set aside, written in the
target language from a table, and the rest given the model as a sentence of its own.

The model read such an opening with the clause after it, and changed the meaning: it joined "No" to the clause's
verb and turned a reply into a negation ("No, I am tired." -> "No estoy cansado.", "No problem, see you tomorrow."
-> "No te veo mañana."; "No, estoy cansado." -> "I'm not tired."), and a greeting before a question made the
question another ("Good morning, how are you?" -> "Buenos días, ¿por qué estás?", "Good evening, how was your
day?" -> "Bueno, ¿cuánto era tu día?", "Hola, ¿qué tal?" -> "Hi, guys."). Alone, the model translates the rest
as it translates any sentence. Measured: benchmarks/openings.py (docs/text-pipeline.md)."""

from __future__ import annotations

import re

from mtcli import lazy_re
from mtcli.text.sentence import Context, NBest, Sentence

# source language -> an opening (lowercase) -> how the target writes it. Only openings with one usual rendering:
# "Buenas noches," (good evening or good night), "Perdona," (sorry or excuse me) are left to the model; so is
# "Please," / "Por favor,", part of the request it opens, not a word said before it (alone, "No me obligues a ir."
# came out "I don't know obligues.").
OPENINGS = {
    "en": {"no": "no", "no problem": "no hay problema", "yes": "sí", "good morning": "buenos días",
           "good afternoon": "buenas tardes", "good evening": "buenas noches", "good night": "buenas noches",
           "hello": "hola", "hi": "hola", "hey": "oye", "thanks": "gracias", "thank you": "gracias",
           "thanks a lot": "muchas gracias", "thank you very much": "muchas gracias", "sorry": "lo siento",
           "well": "bueno", "okay": "vale", "ok": "vale", "excuse me": "disculpa",
           "congratulations": "felicidades", "oh no": "oh, no"},
    "es": {"no": "no", "sí": "yes", "si": "yes", "buenos días": "good morning", "buenas tardes": "good afternoon",
           "hola": "hello", "oye": "hey", "gracias": "thanks", "muchas gracias": "thank you very much",
           "lo siento": "sorry", "perdón": "sorry", "disculpe": "excuse me", "bueno": "well", "vale": "OK",
           "felicidades": "congratulations", "enhorabuena": "congratulations",
           "oh no": "oh no", "ay no": "oh no", "uy no": "oh no"},
}
# an opening, its comma, then a word; a question or an exclamation after a greeting ("Hola, ¿qué tal?"), not after
# "No" ("No, ¿por qué?" is read whole as well); nothing at a line's end, nor a number ("No, 5 of them."), nor a
# clause that goes on from the opening, which is no sentence alone ("Excuse me, but the truth is ..." lost "but";
# "Disculpe, pero, ¿podría ...?" "Excuse me, butter, ...")
_GOES_ON = r"(?:but|and|or|so|because|pero|y|e|o|u|porque|sino|así que)\b"
_OPENING = {language: lazy_re.compile(
    rf"({'|'.join(sorted(map(re.escape, table), key=len, reverse=True))}), (?!{_GOES_ON})(?=[^\W\d_]|(?<!no, )[¿¡])",
    re.IGNORECASE) for language, table in OPENINGS.items()}


def written(typed: str, target: str, rest: str) -> str:
    """`target` cased as the opening was typed: "GOOD MORNING" -> "BUENOS DÍAS", "Hi" -> "Hola", "hi" -> "hola";
    "OK" alone in capitals is no shout ("OK, but ..." had come out "VALE, ..."), but "OK, I AM COMING." is; an acronym
    stays one ("OK")."""
    if typed.isupper() and (len(typed) > 2 or rest.isupper()):
        return target.upper()
    if target.isupper():
        return target
    return target[:1].upper() + target[1:] if typed[:1].isupper() else target


_WORD = lazy_re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


class Opening:
    """An opening word kept in the lead, in the target language; the translation goes on lowercase after it
    (casing.Continuation, s.lower_first). Continuation keeps an English word's capital after a Spanish source's
    quotation ("dijo María" -> "Mary said"); after an opening the rest typed lowercase ("Por favor, pasa.") is no
    name, so here its translation's first word loses its capital ("Please, come in."), but "I" and the rest's names."""

    name = "opening"

    def strip(self, s: Sentence, c: Context) -> bool:
        table, opening = OPENINGS.get(c.options.source), _OPENING.get(c.options.source)
        if opening and c.options.protect and not s.lead.strip() and (m := opening.match(s.text)):
            s.lead += written(m.group(1), table[m.group(1).lower()], s.text[m.end() :]) + ", "
            s.text, s.lower_first = s.text[m.end() :], True
            first = _WORD.search(s.text)
            if c.options.source != "en" and first and first.group().islower():
                s.aside[self.name] = {w for w in _WORD.findall(s.text) if w[:1].isupper()}  # (names kept)
        return True

    def restore(self, s: Sentence, out: NBest, items) -> NBest:
        names = s.aside.get(self.name)
        if names is None:
            return out  # (the lead goes back with the sentence's edges)

        def first(m: re.Match) -> str:
            w = m.group()
            return w if w in names or w == "I" or w.startswith("I'") or not w[1:].islower() else w.lower()

        n = len(s.lead)  # (the edges stage, after this one, has put the lead back)
        return [(t[:n] + _WORD.sub(first, t[n:], count=1) if t.startswith(s.lead) else t, score) for t, score in out]
