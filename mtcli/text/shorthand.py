"""Texting shorthand read as the words it stands for before the model sees it: "pls" as "please", "idk" as "I don't
know", "q tal" as "que tal", "tqm" as "te quiero mucho". The corpus has almost none of it, and the model made up the
rest: "pls help" -> "pls ayuda.", "Q tal?" -> "Do you really want it?", "porfa" -> "Please make it".

One table a language, a row a word; whole words only, in any case; a capital first letter kept ("Thx!" ->
"Thanks!"), a shouted sentence's in capitals; an adverb opening the sentence ("by the way", typed or from "btw")
given its comma. Nothing goes back: the translation has no shorthand of its own. Chat's acronyms are this stage's
("BTW", "FYI", "ASAP" in any case), not acronyms.py's; a laugh ("lol", "haha") is greetings.py's.
Left out on purpose: what is shorthand in a chat and ordinary elsewhere ("u" is Spanish "or", "d", "r" and "k"
letters, "pa" and "toy" words, "cos" a cosine), and what the corpus has and the model translates ("gonna", "wanna",
"ok"). A Spanish "x" is "por" between two words only ("gracias x todo", not "3 x 4").
"""

from __future__ import annotations

import re

from mtcli import lazy_re
from mtcli.text import case
from mtcli.text.sentence import Context, NBest, Sentence

SHORTHAND = {
    "en": {
        "pls": "please", "plz": "please", "thx": "thanks", "thanx": "thanks", "thnx": "thanks", "tks": "thanks",
        "ty": "thank you", "tysm": "thank you so much", "np": "no problem", "idk": "I don't know",
        "btw": "by the way", "imo": "in my opinion", "imho": "in my humble opinion", "b4": "before", "2day": "today",
        "2moro": "tomorrow", "2morrow": "tomorrow", "tmrw": "tomorrow", "tmr": "tomorrow", "2nite": "tonight",
        "tonite": "tonight", "msg": "message", "msgs": "messages", "ppl": "people", "bc": "because",
        "cuz": "because", "coz": "because", "gr8": "great", "l8r": "later", "l8": "late", "brb": "I'll be right back",
        "omg": "oh my God", "asap": "as soon as possible", "fyi": "for your information", "dunno": "don't know",
        "lmk": "let me know", "tbh": "to be honest", "nvm": "never mind", "jk": "just kidding",
        "hbu": "how about you", "wyd": "what are you doing", "ily": "I love you", "luv": "love", "bday": "birthday",
        "abt": "about", "w/": "with", "w/o": "without", "rn": "right now", "sth": "something",
        "smth": "something", "pic": "picture", "pics": "pictures", "convo": "conversation", "ofc": "of course",
        "tho": "though", "thru": "through", "u": "you", "ur": "your", "r u": "are you", "c u": "see you",
        "cya": "see you", "yeah": "yes", "yep": "yes", "yup": "yes", "nope": "no", "nah": "no",
    },
    "es": {
        "q": "que", "xq": "porque", "pq": "porque", "porq": "porque", "porfa": "por favor", "porfi": "por favor",
        "xfa": "por favor", "xfavor": "por favor", "tqm": "te quiero mucho", "tkm": "te quiero mucho",
        "tb": "también", "tmb": "también", "tmbn": "también", "dnd": "donde", "ntp": "no te preocupes",
        "bn": "bien", "msj": "mensaje", "msjs": "mensajes", "salu2": "saludos", "grax": "gracias",
        "grcs": "gracias", "hla": "hola", "finde": "fin de semana", "xa": "para", "bss": "besos",
        "bsos": "besos", "mñn": "mañana", "cdo": "cuando", "q tal": "qué tal", "qtal": "qué tal", "x": "por",
    },
}
# "xq" and "pq" opening a question are "por qué" ("¿xq no vienes?")
_WHY = frozenset(("xq", "pq", "porq"))
_LETTER = lazy_re.compile(r"[^\W\d_]")
# a Spanish "x" after these is the letter: "rayos x", "el eje x", "la generación x", "el día x"
_X_NAMED = lazy_re.compile(r"(?:rayos|eje|generación|factor|día|señor|señora|planeta|modelo|punto) $", re.IGNORECASE)


# a sentence adverb opening the sentence, typed out or written out from its shorthand, takes the comma chat leaves
# out: without it the model read it into the clause ("BTW the meeting is at 5." -> "La reunión de la reunión es en
# 5.", "FYI the office is closed." -> "Para tu información en la oficina está cerrada.")
_ADVERB = {"en": lazy_re.compile(r"(?:by the way|for your information|in my (?:humble )?opinion|to be honest|"
                                 r"oh my god|just kidding)(?= [^\W\d_])", re.IGNORECASE)}


def _pattern(language: str) -> lazy_re.Pattern:
    words = "|".join(re.escape(w) for w in sorted(SHORTHAND[language], key=len, reverse=True))
    # (not inside an address, a path, a hashtag, a handle, a file name or a hyphenated word)
    return lazy_re.compile(rf"(?<![\w'’/@#.-])(?:{words})(?![\w'’/@-]|\.\w)", re.IGNORECASE)


_PATTERNS = {language: _pattern(language) for language in SHORTHAND}


def _por(text: str, a: int, b: int) -> bool:
    """Whether the Spanish "x" at text[a:b] stands for "por": between two words ("gracias x todo"; not "3 x 4",
    "x.jpg"), and no letter's name ("rayos x")."""
    between_words = a > 1 and text[a - 1] == " " == text[b : b + 1] and _LETTER.match(text[a - 2]) \
        and _LETTER.match(text[b + 1 : b + 2])
    return bool(between_words) and not _X_NAMED.search(text, max(0, a - 11), a)


def expanded(text: str, language: str) -> str:
    """The text with each shorthand word its table has written out."""
    if language not in SHORTHAND:
        return text
    shouted, question = case.is_shouting(text), text.rstrip().endswith("?")
    lead = len(text) - len(text.lstrip(" ¿¡\"'«("))  # (what may come before a question's first word)

    def word(m: re.Match) -> str:
        typed = m.group()
        out = SHORTHAND[language][typed.lower()]
        if typed.lower() == "x" and not _por(text, m.start(), m.end()):
            return typed
        if typed.lower() in _WHY and question and m.start() <= lead:
            out = "por qué"
        if shouted:
            return out.upper()
        # (a capital kept where it was one: "Thx" at the start, not an all-caps word's inside a sentence, "ASAP")
        capital = typed[:1].isupper() and (typed[1:].islower() or len(typed) == 1 or m.start() <= lead)
        return out[:1].upper() + out[1:] if capital else out

    typed, text = text, _PATTERNS[language].sub(word, text)
    adverb = _ADVERB[language].match(text, lead) if language in _ADVERB else None
    if adverb and _ADVERB[language].match(typed, lead) and "," in text[adverb.end() :]:
        return text  # (typed out, maybe a phrase of its own: "By the way you talk, I'd say ...")
    return text[: adverb.end()] + "," + text[adverb.end() :] if adverb else text


class Shorthand:
    """The sentence with its texting shorthand written out, for the model (nothing to put back)."""

    name = "shorthand"

    def strip(self, s: Sentence, c: Context) -> bool:
        if c.options.case:
            s.text = expanded(s.text, c.options.source)
        return True

    def restore(self, s: Sentence, out: NBest, items) -> NBest:
        return out
