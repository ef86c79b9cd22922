"""Texting shorthand read as the words it stands for before the model sees it: "pls" as "please", "idk" as "I don't
know", "q tal" as "que tal", "tqm" as "te quiero mucho". The corpus has almost none of it, and the model made up the
rest: "pls help" -> "pls ayuda.", "Q tal?" -> "Do you really want it?", "porfa" -> "Please make it".

One table a language, a row a word; whole words only; a capital first letter kept ("Thx!" -> "Thanks!"), a shouted
sentence's in capitals; an adverb opening the sentence ("by the way", typed or from "btw") given its comma. Nothing
goes back: the translation has no shorthand of its own. Chat's acronyms are this stage's ("BTW", "FYI", "ASAP"), not
acronyms.py's; a laugh ("lol", "haha") is greetings.py's. Never read: what the spans stage keeps as typed (an
address, a path, code, a placeholder) and a glossary's terms ("?u=42" had come out "?you=42", the term "MSG"
"mensaje"); a word in capitals in a line that is not shouted, an acronym ("an RN", "La TB"; chat's own initialisms,
CAPITALS, are read); one capitalised inside a sentence or before a name, a name's ("Malcolm X", "Jk Rowling"); a
word in quotes, a mention ('He wrote "pls".' had come out "por favor, por favor").
Left out on purpose: what is shorthand in a chat and ordinary elsewhere ("u" is Spanish "or", "d", "r" and "k"
letters, "pa" and "toy" words, "cos" a cosine), and what the corpus has and the model translates ("gonna", "wanna",
"ok"). A Spanish "x" is "por" between two words only ("gracias x todo", not "3 x 4").
"""

from __future__ import annotations

import re

from mtcli import lazy_re
from mtcli.text import case, protect
from mtcli.text.kinds import PRIVATE
from mtcli.text.quotes import QUOTE_MARKS
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
        "tho": "though", "thru": "through", "u": "you", "ur": "your", "r u": "are you", "u r": "you are", "c u": "see you",
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
# ... read in capitals in a line not shouted too ("BTW, I am late.", "I need it ASAP."): chat's own initialisms; any
# other word in capitals is an acronym there ("an RN", "the NP train", "MSG is bad", "La TB es grave")
CAPITALS = {"en": frozenset("asap btw fyi omg imo imho tbh brb lmk idk nvm tysm wyd hbu".split()),
            "es": frozenset("tqm tkm ntp xq pq".split())}
# ... the English ones written out as a noun: alone read after a determiner ("my cuz" is a cousin, "the msg" a
# message; not "her", "that": pronouns too, "tell her u r here"; nor Spanish's "el"/"la": "el q vino" is "el que")
NOUNS = frozenset("msg msgs ppl pic pics convo bday luv sth smth".split())
_DETERMINER = lazy_re.compile(r"(?<![\w'’])(?:the|an?|my|your|his|its|our|their) $", re.IGNORECASE)
_NAME_AFTER = lazy_re.compile(r" [A-Z][a-z]")  # "Jk Rowling", "Ty Burrell": two letters before a name, initials
_VERB_AFTER = lazy_re.compile(r" (?:is|was|were|has|had|will|would|can|could|did|does)(?!\w)", re.IGNORECASE)  # (no
# "your" before a verb: "Ur was a city in Mesopotamia.")
_CLOSING = {'"': '"', "'": "'", "«": "»", "“": "”", "‘": "’"}
# a chat "2" ending a sentence after a shorthand word is "too": "ily 2" had come out "Te amo 2."; written after a
# comma, the model read "I love you too." as "Te amo demasiado.", "I love you, too" as "Yo también te quiero."
_TOO = lazy_re.compile(r" 2(?=[.!?…]*$)")
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


def _read(text: str, m: re.Match, language: str, shouted: bool, first: int) -> bool:
    """Whether the table word at m is shorthand: no acronym, name, mention or noun's determiner ("my cuz"). `first`:
    where the sentence's first letter is."""
    typed, a, b = m.group(), m.start(), m.end()
    if typed.isupper() and len(typed) > 1 and not shouted and typed.lower() not in CAPITALS[language]:
        return False
    if typed[:1].isupper() and not typed[1:].isupper() and (a > first or len(typed) == 2 and _NAME_AFTER.match(text, b)):
        return False
    if _CLOSING.get(text[a - 1 : a]) == text[b : b + 1] != "":  # ('the word "u"')
        return False
    if language == "en" and typed.lower() not in NOUNS and _DETERMINER.search(text, max(0, a - 6), a):
        return False
    if typed.lower() == "ur" and _VERB_AFTER.match(text, b):
        return False
    return typed.lower() != "x" or _por(text, a, b)


def expanded(text: str, language: str, kept: list[tuple[int, int]] = ()) -> str:
    """The text with each shorthand word its table has written out but those inside the `kept` spans (start, end, in
    order: addresses, paths, a glossary's terms ...)."""
    if language not in SHORTHAND:
        return text
    shouted, question = case.is_shouting(text), text.rstrip().endswith("?")
    lead = len(text) - len(text.lstrip(" ¿¡\"'«("))  # (what may come before a question's first word)
    first = m.start() if (m := _LETTER.search(text)) else 0
    spans, read = iter(kept), []  # (the spans walked once, as the matches)
    span = next(spans, (len(text) + 1, len(text) + 1))

    def word(m: re.Match) -> str:
        nonlocal span
        typed = m.group()
        while span[1] <= m.start():
            span = next(spans, (len(text) + 1, len(text) + 1))
        if span[0] < m.end() or not _read(text, m, language, shouted, first):
            return typed
        read.append(m.end())
        out = SHORTHAND[language][typed.lower()]
        if typed.lower() in _WHY and question and m.start() <= lead:
            out = "por qué"
        if shouted:
            return out.upper()
        # (a capital kept where it was one: "Thx" at the start, not an all-caps word's inside a sentence, "ASAP")
        capital = typed[:1].isupper() and (typed[1:].islower() or len(typed) == 1 or m.start() <= lead)
        return out[:1].upper() + out[1:] if capital else out

    out = _PATTERNS[language].sub(word, text)
    if language == "en" and read and (too := _TOO.match(text, read[-1])):
        out = out[: len(out) - len(text) + too.start()] + ", too" + text[too.end() :]
    adverb = _ADVERB[language].match(out, lead) if language in _ADVERB else None
    if adverb and _ADVERB[language].match(text, lead) and "," in out[adverb.end() :]:
        return out  # (typed out, maybe a phrase of its own: "By the way you talk, I'd say ...")
    return out[: adverb.end()] + "," + out[adverb.end() :] if adverb else out


class Shorthand:
    """The sentence with its texting shorthand written out, for the model (nothing to put back)."""

    name = "shorthand"

    def strip(self, s: Sentence, c: Context) -> bool:
        source, terms = c.options.source, c.options.glossary
        if not c.options.case or source not in SHORTHAND:
            return True
        for mark in PRIVATE.findall(s.text) if c.items else ():  # (a quotation made an item: quotes.asides)
            parts = c.items.get(mark, ())
            if len(parts) == 3 and parts[0] in QUOTE_MARKS and _PATTERNS[source].fullmatch(parts[1]):
                c.items[mark] = ("".join(parts),)  # a table word alone quoted, a mention, kept: 'He wrote "pls".'
        if not _PATTERNS[source].search(s.text):
            return True
        # (a span that is a table word alone is no span of its own: "gr8", "2moro" read as numbers; "B4" in capitals)
        kept = [(a, b) for a, b in protect.find_spans(s.text, lambda _: False, source=source)
                if not _PATTERNS[source].fullmatch(s.text, a, b)] if c.options.protect else []
        if terms:  # (a glossary's term is the user's: "MSG" glutamato monosódico)
            kept = sorted(kept + [(a, b) for a, b, _ in terms.find(s.text)])
        s.text = expanded(s.text, source, kept)
        return True

    def restore(self, s: Sentence, out: NBest, items) -> NBest:
        return out
