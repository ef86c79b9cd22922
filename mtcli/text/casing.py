"""The stages of case (case.py's rules applied to a sentence): a word alone given the model as a fragment,
ALL CAPS, lowercase and loose contractions repaired, and no capital where the translation goes on after
something set aside at its start."""

from __future__ import annotations

import re

from mtcli.text import case
from mtcli.text.sentence import Context, NBest, Sentence, each

_FIRST_WORD = re.compile(r"[^\W\d_]+")
_LONE_WORD = re.compile(r"[^\W\d_]+(?:['-][^\W\d_]+)?")
# ... but greetings and commands alone on a line come out right as sentences only ("Hello." -> "Hola.", "Wait." ->
# "Espera."; as fragments "aquí hola", "¿Colando?" for "run"): of 19 such words 13 right as sentences, 7 as
# fragments. (In a document a word alone is often a piece of a sentence cut by markup: a fragment still.)
_ARTICLE = re.compile(r"(?:el|la|los|las) (?=[^\W\d_])", re.IGNORECASE)
_SENTENCE_WORDS = frozenset("hello hi thanks no sorry welcome help stop wait look listen run".split())


class Continuation:
    """The translation goes on after a quotation or a label set aside in the lead (s.lower_first): its first
    word's capital goes, not an acronym's ("ONU") nor a name's the English has ("Tom"). Whether the English
    starts lowercase is noted here: its first word, capitalised for the model, is no name."""

    name = "continuation"

    def strip(self, s: Sentence, c: Context) -> bool:
        s.aside[self.name] = s.text[:1].islower()
        return True

    def restore(self, s: Sentence, out: NBest, items) -> NBest:
        if not s.lower_first:
            return out
        names = set(_FIRST_WORD.findall(s.masked.text)[s.aside[self.name] :])
        return [(_FIRST_WORD.sub(lambda m: m.group().lower() if (m.group()[1:].islower() or len(m.group()) == 1)
                                 and m.group() not in names else m.group(), t, count=1), score) for t, score in out]


class LoneWord:
    """A word alone, without a stop (a dictionary look-up, a table's cell): a fragment, given the model lowercase
    and as it is. As a sentence it came out a command or noise: "Blue." -> "Apunta.", "Window." -> "Despierta.";
    as a fragment "azul", "ventana" (of 30 common words, 19 nonsense as sentences, 5 as fragments). Its
    translation comes out as the word came: "red" -> "rojo", "Red" -> "Rojo", "RED" -> "ROJO"; without the
    article the model puts before a noun alone, which the English did not have (a sign, a button, a menu item:
    "Exit" -> "La salida" -> "Salida", "Tools" -> "Herramientas")."""

    name = "lone word"

    def strip(self, s: Sentence, c: Context) -> bool:
        t, options = s.text, c.options
        s.alone = bool(_LONE_WORD.fullmatch(t))
        if options.case and options.punctuate and s.alone and t.lower() not in c.engine.names \
                and not (options.keep_stop and t.lower() in _SENTENCE_WORDS):
            s.aside[self.name], s.text = (t[:1].isupper(), not t[1:].isupper()), t.lower()
            s.strip_stop = True
            return False
        return True

    def restore(self, s: Sentence, out: NBest, items) -> NBest:
        if self.name not in s.aside:
            return out
        capital, lower = s.aside[self.name]
        out = each(out, lambda t: _without_article(as_fragment(t, s.masked.text)))
        return each(out, lambda t: (t[:1].upper() + t[1:] if capital else t) if lower else t.upper())


class Casing:
    """ALL CAPS lowercased (upper-cased again in the translation: retry.py), contractions typed without their
    apostrophe repaired, lowercase truecased. ALL CAPS is decided on the words outside the spans: a span, or the
    currency word its mask adds ("$25.50" -> "50 dollars"), neither makes nor breaks it."""

    name = "casing"

    def strip(self, s: Sentence, c: Context) -> bool:
        if c.options.case:
            s.shout = case.is_shouting(s.outside)
            t = s.text.lower() if s.shout else s.text
            t = case.repair_contractions(t)
            s.text = case.truecase(t, c.engine.names, c.options.punctuate) if not any(ch.isupper() for ch in t) \
                else _fix_i(t)
        return True

    def restore(self, s: Sentence, out: NBest, items) -> NBest:
        return out  # (ALL CAPS again before the spans come back: retry.py)


_LOWER_I = re.compile(r"\bi(?=\b|')")


def _fix_i(text: str) -> str:
    return _LOWER_I.sub("I", text)


def _without_article(text: str) -> str:
    """A noun's translation without the article before it (not a name's: "Las Vegas")."""
    m = _ARTICLE.match(text)
    return text[m.end() :] if m and text[m.end()].islower() else text


def as_fragment(text: str, source: str) -> str:
    """A fragment's translation without the question or exclamation marks the model wrapped it in, and
    without the capital it gives every sentence ("the guide" -> "la guía")."""
    for opening, closing in (("¿", "?"), ("¡", "!")):
        if closing not in source and text.startswith(opening) and text.endswith(closing):
            text = text[1:-1].strip()
    word = text.split(" ", 1)[0]  # a sentence's capital ("La", "A"), not a name's or an acronym's ("MacBook", "ONU")
    if source.lstrip()[:1].islower() and text[:1].isupper() and (len(word) == 1 or word[1:].islower()):
        text = text[0].lower() + text[1:]
    return text
