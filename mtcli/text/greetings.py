"""Chat's formulas, a table each language. A wish alone is answered from WISHES (the model had few right: "Happy New
Year!" -> "¡El año nuevo!"), with a year or a name after it ("Happy new year 2027!" had come out "¡El nuevo año pasado
2027!": now "¡Feliz año nuevo 2027!"). A greeting the model knows is given it without the year or the name after it,
which go back before its translation's closing marks, a name with the comma a vocative takes ("Hello Tom" had come out
"Hola a Tom", a greeting to someone; "Thanks, Maria!" "¡Gracias, marzo!"); a name before a comma and more is given
that comma ("Hi, Tom, how are you?"). A greeting alone the model misreads is given as the words it learned for it
("¿Qué tal?" had come out "How about it?": it is given "¿Cómo estás?"). A laugh ("lol", "haha", "jaja") at a
sentence's start or end is set aside and written the other language's way (the model dropped it or kept it as typed).
"""

from __future__ import annotations

from mtcli import lazy_re
from mtcli.text.dates import MONTHS, WEEKDAYS
from mtcli.text.sentence import Context, NBest, Sentence, each

# Wishes are formulas, not sentences, and the model had few of them right: "Happy New Year!" -> "¡El año nuevo!",
# "Happy anniversary!" -> "¡Los provisiones de anuales!", "Congratulations, Tom!" -> "¡felicitado, Tom!", "Felices
# fiestas" -> "Happy parties.", "¡Bienvenida!" -> "Come on in!". A wish alone (with a year or a name after it) comes
# from this table, a row each, as labels.HEADINGS does; "happy" and "feliz" alone only before a year ("Happy 2027!").
WISHES = {
    "en": {"happy new year": "feliz año nuevo", "happy birthday": "feliz cumpleaños", "happy anniversary":
           "feliz aniversario", "happy holidays": "felices fiestas", "merry christmas": "feliz Navidad",
           "happy easter": "felices Pascuas", "happy valentine's day": "feliz día de San Valentín",
           "happy mother's day": "feliz día de la Madre", "happy father's day": "feliz día del Padre",
           "season's greetings": "felices fiestas", "best wishes": "mis mejores deseos",
           "congratulations": "felicidades", "congrats": "felicidades", "happy": "feliz"},
    "es": {"feliz año nuevo": "happy New Year", "próspero año nuevo": "happy New Year", "feliz año": "happy New Year",
           "feliz cumpleaños": "happy birthday", "feliz aniversario": "happy anniversary",
           "felices fiestas": "happy holidays", "feliz navidad": "merry Christmas", "felices navidades":
           "merry Christmas", "felicidades": "congratulations", "felicitaciones": "congratulations",
           "enhorabuena": "congratulations", "bienvenido": "welcome", "bienvenida": "welcome",
           "bienvenidos": "welcome", "bienvenidas": "welcome", "feliz": "happy"},
}
_ALONE = {"happy", "feliz"}  # (a wish only before a year)
# greetings the model translates itself, a name after them set aside
_GREETINGS = {
    "en": r"hello|hi|hey|good (?:morning|afternoon|evening|night)|goodnight|goodbye|bye|thanks(?: a lot)?|"
          r"thank you(?: so much)?|welcome(?: back)?|good luck|well done|see you",
    "es": r"hola|buen(?:os días|as tardes|as noches|a suerte)|adiós|chao|chau|(?:muchas )?gracias|"
          r"hasta (?:luego|mañana|pronto)|nos vemos",
}
_OPENING = r"[¡¿\"'«(]*"
_CLOSING = r"[.!…]*[\"'»)]*"
# (a capitalised word that is no one addressed: "Welcome Home", "See You Soon", "Hola A Todos", "See you Monday.")
_NOT_NAMED = "|".join(["home|back|aboard|to|you|all|again|soon|later|tomorrow|tonight|there|now|too|and|from|for|in|"
                       "on|at|my|your|our|a|an|the|de|en|y|para|por|también|mañana|luego|pronto|otra|todos|todas|"
                       "christmas|easter", *WEEKDAYS, *WEEKDAYS.values(), *MONTHS, *MONTHS.values()])
# (whom the model translates: "Happy birthday, Mom!" -> "mamá")
_ROLES = ("mom|mum|mommy|dad|daddy|grandma|grandpa|granny|honey|sweetie|darling|dear|baby|babe|sir|madam|ma'am|"
          "everyone|everybody|guys|friends|folks|team|boss|bro|sis|buddy|man|doctor|doc|teacher|professor|coach|"
          "officer|captain|nurse|mister|miss|mamá|papá|abuela|abuelo|cariño|amor|señor|señora|señorita|jefe|jefa|"
          "hermano|hermana|amigos?|amigas?|chicos|chicas|gente|tío|tía|profesora?|maestra?")
_NAME = rf"(?!(?i:{_NOT_NAMED}|{_ROLES})\b)[A-ZÁÉÍÓÚÑ][A-Za-záéíóúñüÁÉÍÓÚÑÜ'’-]+"  # (in a shout too: "ANNA")
_YEAR = r"(?:19|20)\d\d"
# a wish or a greeting, then a year or a name (up to two capitalised words) ending the sentence: set aside
_TAILED = {source: lazy_re.compile(rf"({_OPENING})((?i:{'|'.join(sorted(wishes, key=len, reverse=True))}|"
                                   rf"{_GREETINGS[source]}))(?:(,? (?:{_NAME}(?: {_NAME})?))|( {_YEAR}))?({_CLOSING})$")
           for source, wishes in WISHES.items()}
# ... or a name then a comma and more ("Hi Tom, how are you?"): the vocative's comma given
_NAMED = {source: lazy_re.compile(rf"{_OPENING}(?i:{greetings}|{'|'.join(WISHES[source])})(?= {_NAME}(?: {_NAME})?,)")
          for source, greetings in _GREETINGS.items()}
_END = lazy_re.compile(r"[.!?…]*[\"'»)]*$")
# a greeting alone (or before a comma: "¿Qué tal, Tom?") given as the words the model learned for it: "¿Qué tal?" had
# come out "How about it?", "¿Qué onda?" "Which one do you hear?", "Buenas" "Good", "¿Qué cuentas?" "What do you
# realize?", "What's new?" "¿Qué es nuevo?", "How are you doing?" "¿Cómo estás haciendo?" (accents may be missing:
# the casing stage puts them back after)
SAID = {
    "en": {"what's new": "what's up", "how are you doing": "how are you"},
    "es": {"qué tal": "cómo estás", "qué onda": "cómo estás", "qué hubo": "cómo estás", "quiubo": "cómo estás",
           "cómo andas": "cómo estás", "buenas": "hola", "qué cuentas": "qué hay de nuevo", "qué hay": "qué hay de nuevo"},
}
_UNACCENTED = str.maketrans("áéíóú", "aeiou")
_ALONE_SAID = {source: lazy_re.compile(rf"([¡¿]*)((?i:{'|'.join(sorted({*said, *(k.translate(_UNACCENTED) for k in said)}))}))"
                                       rf"(?=(?:, ?(?:{_NAME}(?: {_NAME})?|(?i:{_ROLES})))?[.!?…]*$)")  # (someone addressed after it)
               for source, said in SAID.items()}
# a laugh at a sentence's start or end, set aside and written as the other language writes one: the model dropped or
# kept it ("That was so funny haha" -> "Eso fue tan gracioso.", "haha that's great" -> "haha es genial.")
LAUGHS = {"en": (r"lol|lmao|rofl|ha(?:ha)+|he(?:he)+", "jaja"), "es": (r"ja(?:ja)+|je(?:je)+|ji(?:ji)+", "haha")}
_LAUGH_FIRST = {source: lazy_re.compile(rf"(?i:{laugh})(?:(,)|[.!]*) +(?=[^\W\d_¿¡])") for source, (laugh, _) in LAUGHS.items()}
_LAUGH_LAST = {source: lazy_re.compile(rf"(?<=[^\W\d_.!?,]) (?i:{laugh})[.!]*$") for source, (laugh, _) in LAUGHS.items()}
_LAUGH_ALONE = {source: lazy_re.compile(rf"(?i:{laugh})[.!]*") for source, (laugh, _) in LAUGHS.items()}


def parted(text: str, source: str) -> tuple[str, str, str | None]:
    """What the model is given of a sentence, what goes back before its translation's closing marks (a year, a name
    with its comma: "" none), and the sentence's translation where a table answers it (a wish: None else)."""
    if m := _TAILED[source].match(text):
        opening, typed, name, year, closing = m.groups()
        tail = ", " + name.lstrip(", ") if name else year or ""
        wish = WISHES[source].get(typed.lower())
        if wish is None or typed.lower() in _ALONE and not year:
            return (opening + typed + closing, tail, None) if tail and wish is None else (text, "", None)
        wish = wish.upper() if text.isupper() else wish[0].upper() + wish[1:] if typed[:1].isupper() else wish
        opening = opening.replace("¡", "").replace("¿", "") if source == "es" else "¡" + opening if "!" in closing \
            else opening
        return text, "", opening + wish + tail + closing
    if named := _NAMED[source].match(text):
        text = text[: named.end()] + "," + text[named.end() :]
    if said := _ALONE_SAID[source].match(text):
        typed = said[2]
        words = SAID[source].get(typed.lower()) or next(v for k, v in SAID[source].items()
                                                        if k.translate(_UNACCENTED) == typed.lower())
        words = words.upper() if typed.isupper() and len(typed) > 1 else words.capitalize() if typed[:1].isupper() else words
        return said[1] + words + text[said.end() :], "", None
    return text, "", None


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
    """A laugh set aside (in the lead or the trail); a wish answered from the table; a greeting's year or name set
    aside (put back before the translation's closing marks), a vocative's comma given, a greeting alone given as the
    model's words."""

    name = "greetings"

    def strip(self, s: Sentence, c: Context) -> bool:
        source = c.options.source
        if not c.options.protect or source not in WISHES:
            return True
        typed = s.text
        if laughed(s, source):
            return False
        text, tail, answer = parted(s.text, source)
        if answer is not None:
            s.verbatim = answer
            return False
        if tail:
            s.aside[self.name] = tail
        if text != typed:
            s.text, s.spans = text, c.spans(text)
        return True

    def restore(self, s: Sentence, out: NBest, items) -> NBest:
        tail = s.aside.get(self.name)
        if tail is None:
            return out
        return each(out, lambda t: t[: (end := _END.search(t).start())] + tail + t[end:])
