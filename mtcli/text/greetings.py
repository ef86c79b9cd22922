"""Chat's formulas, a table each language: a greeting alone given as the words the model learned for it ("¿Qué
tal?" had come out "How about it?": it is given "¿Cómo estás?"); a wish's year set aside and put back after the wish's
translation ("Happy new year 2027!" had come out "¡El nuevo año pasado 2027!"; the model is given "Happy new year!");
a name after a greeting or a wish given the comma a vocative takes ("Happy birthday Tom!" -> "Happy birthday, Tom!":
without it the model wrote "Hola a Tom" for "Hello Tom", a greeting to someone); a laugh ("lol", "haha", "jaja") at a
sentence's start or end set aside and written the other language's way (the model dropped it or kept it as typed).
"""

from __future__ import annotations

import re

from mtcli import lazy_re
from mtcli.text.sentence import Context, NBest, Sentence, each

# wishes, and the word that is one alone before a year ("Happy 2027!", "¡Feliz 2027!"; not before a name)
_WISHES = {
    "en": r"happy (?:new year|birthday|holidays|anniversary|easter|thanksgiving|hanukkah|halloween|valentine's day|"
          r"mother's day|father's day|retirement)|merry christmas|season's greetings|best wishes",
    "es": r"feliz (?:año nuevo|año|cumpleaños|navidad|aniversario|día|pascua)|felices (?:fiestas|pascuas|navidades)"
          r"|próspero año(?: nuevo)?",
}
_ALONE = {"en": "happy", "es": "feliz|próspero"}
_GREETINGS = {
    "en": r"hello|hi|hey|good (?:morning|afternoon|evening|night)|goodnight|goodbye|bye|thanks(?: a lot)?|"
          r"thank you(?: so much)?|congratulations|congrats|welcome(?: back)?|good luck|well done|see you",
    "es": r"hola|buen(?:os días|as tardes|as noches|a suerte)|adiós|chao|chau|(?:muchas )?gracias|felicidades|"
          r"felicitaciones|enhorabuena|bienvenid[oa]s?|hasta (?:luego|mañana|pronto)|nos vemos",
}
_OPENING = r"[¡¿\"'«(]*"
_CLOSING = r"[.!…]*[\"'»)]*"
# a wish, then a year (a wish with a noun, then up to two capitalised words: a name, before the end or a comma)
_YEAR = {source: lazy_re.compile(rf"({_OPENING}(?:{wishes}|{_ALONE[source]}))( (?:19|20)\d\d)(?={_CLOSING}$)",
                                  re.IGNORECASE) for source, wishes in _WISHES.items()}
# (a capitalised word that is no one addressed: "Welcome Home", "See You Soon", "Hola A Todos", "See you Monday.")
_NOT_NAMED = ("home|back|aboard|to|you|all|again|soon|later|tomorrow|tonight|there|now|too|and|from|for|in|on|at|my|"
              "your|our|a|an|the|de|en|y|para|por|también|mañana|luego|pronto|otra|todos|todas|monday|tuesday|"
              "wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|"
              "october|november|december|christmas|easter|lunes|martes|miércoles|jueves|viernes|sábado|domingo")
_NAME = rf"(?!(?i:{_NOT_NAMED})\b)[A-ZÁÉÍÓÚÑ][a-záéíóúñü'’-]+"
_NAMED = {source: lazy_re.compile(rf"{_OPENING}(?i:{greetings}|{_WISHES[source]})(?= {_NAME}(?: {_NAME})?(?:{_CLOSING}$|,))")
          for source, greetings in _GREETINGS.items()}
_END = lazy_re.compile(r"[.!?…]*[\"'»)]*$")
# a greeting alone (or before a comma: "¿Qué tal, Tom?") given as the words the model learned for it: "¿Qué tal?" had
# come out "How about it?", "¿Qué onda?" "Which one do you hear?", "Buenas" "Good", "¿Qué cuentas?" "What do you
# realize?", "What's new?" "¿Qué es nuevo?" (accents may be missing: the casing stage puts them back after)
SAID = {
    "en": {"what's new": "what's up"},
    "es": {"qué tal": "cómo estás", "qué onda": "cómo estás", "qué hubo": "cómo estás", "quiubo": "cómo estás",
           "cómo andas": "cómo estás", "buenas": "hola", "qué cuentas": "qué hay de nuevo", "qué hay": "qué hay de nuevo"},
}
_UNACCENTED = str.maketrans("áéíóú", "aeiou")
# (someone addressed after it: a name, or one of these; "¿Qué tal, cómo estás?" is no greeting alone)
_VOCATIVES = "amigos?|amigas?|chicos|chicas|gente|todos|todas|tío|tía|hermano|hermana|guapa|guapo|everyone|guys|man"
_ALONE_SAID = {source: lazy_re.compile(rf"([¡¿]*)((?i:{'|'.join(sorted({*said, *(k.translate(_UNACCENTED) for k in said)}))}))"
                                       rf"(?=(?:, ?(?:{_NAME}(?: {_NAME})?|(?i:{_VOCATIVES})))?[.!?…]*$)")
               for source, said in SAID.items()}
# a laugh at a sentence's start or end, set aside and written as the other language writes one: the model dropped or
# kept it ("That was so funny haha" -> "Eso fue tan gracioso.", "haha that's great" -> "haha es genial.")
LAUGHS = {"en": (r"lol|lmao|rofl|ha(?:ha)+|he(?:he)+", "jaja"), "es": (r"ja(?:ja)+|je(?:je)+|ji(?:ji)+", "haha")}
_LAUGH_FIRST = {source: lazy_re.compile(rf"(?i:{laugh})(?:(,)|[.!]*) +(?=[^\W\d_¿¡])") for source, (laugh, _) in LAUGHS.items()}
_LAUGH_LAST = {source: lazy_re.compile(rf"(?<=[^\W\d_.!?,]) (?i:{laugh})[.!]*$") for source, (laugh, _) in LAUGHS.items()}
_LAUGH_ALONE = {source: lazy_re.compile(rf"(?i:{laugh})[.!]*") for source, (laugh, _) in LAUGHS.items()}


def parted(text: str, source: str) -> tuple[str, str]:
    """What the model is given of a sentence, and the year set aside from it ("" none)."""
    if year := _YEAR[source].match(text):
        return year[1] + text[year.end() :], year[2]
    if named := _NAMED[source].match(text):
        text = text[: named.end()] + "," + text[named.end() :]
    if said := _ALONE_SAID[source].match(text):
        typed = said[2]
        words = SAID[source].get(typed.lower()) or next(v for k, v in SAID[source].items()
                                                        if k.translate(_UNACCENTED) == typed.lower())
        words = words.upper() if typed.isupper() and len(typed) > 1 else words.capitalize() if typed[:1].isupper() else words
        return said[1] + words + text[said.end() :], ""
    return text, ""


def laughed(s: Sentence, source: str) -> bool:
    """A laugh that opens or ends the sentence in its lead or its trail, as the target writes it; True: the sentence
    was a laugh alone (answered)."""
    laugh = LAUGHS[source][1]
    laugh = laugh.upper() if s.text.isupper() and len(s.text) > 4 else laugh
    if _LAUGH_ALONE[source].fullmatch(s.text):
        s.verbatim = laugh
        return True
    if first := _LAUGH_FIRST[source].match(s.text):
        s.lead, s.text, s.lower_first = s.lead + laugh + (first[1] or "") + " ", s.text[first.end() :], True
    elif last := _LAUGH_LAST[source].search(s.text):
        s.text, s.trail = s.text[: last.start()], " " + laugh + s.trail
    return False


class Greetings:
    """A laugh set aside (in the lead or the trail), a greeting alone given as the model's words, a vocative's comma
    given, a wish's year set aside (put back before the translation's closing marks)."""

    name = "greetings"

    def strip(self, s: Sentence, c: Context) -> bool:
        source = c.options.source
        if not c.options.protect or source not in _WISHES:
            return True
        typed = s.text
        if laughed(s, source):
            return False
        text, year = parted(s.text, source)
        if year:
            s.aside[self.name] = year
        if text != typed:
            s.text, s.spans = text, c.spans(text)
        return True

    def restore(self, s: Sentence, out: NBest, items) -> NBest:
        year = s.aside.get(self.name)
        if year is None:
            return out
        return each(out, lambda t: t[: (end := _END.search(t).start())] + year + t[end:])
