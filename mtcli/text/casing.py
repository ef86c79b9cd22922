"""The stages of case (case.py's rules applied to a sentence, and spanish.py's for a Spanish source): a word alone
given the model as a fragment, ALL CAPS, lowercase, loose contractions and accents typed without them repaired,
and no capital where the translation goes on after something set aside at its start."""

from __future__ import annotations

import re
from dataclasses import replace

from mtcli.text import case, spanish
from mtcli.text.sentence import Context, NBest, Sentence, each, recased
from mtcli import lazy_re

_FIRST_WORD = lazy_re.compile(r"[^\W\d_]+")
# an English translation's first words that are no name, lowercased after a quotation ('"Hi," he said.')
_CLAUSE_OPENINGS = frozenset("he she it we you they the a an his her its our your their my this that these those "
                             "there then and but so thanks thank please yes not don't it's that's there's we're "
                             "they're you're what where when why how who maybe sure see can could will would do does "
                             "did is are was were let's have has had".split())  # (never "I", "I'll": a capital)
_LONE_WORD = lazy_re.compile(r"[^\W\d_]+(?:['-][^\W\d_]+)?")
# ... but greetings and commands alone on a line come out right as sentences only ("Hello." -> "Hola.", "Wait." ->
# "Espera."; as fragments "aquí hola", "¿Colando?" for "run"): of 19 such words 13 right as sentences, 7 as
# fragments. (In a document a word alone is often a piece of a sentence cut by markup: a fragment still.)
# one-word replies and switch labels alone on a line or in a cell (a form, a settings table, a dialog): the model has
# no good answer for them, as a sentence or a fragment, and the way back (mtcli.roundtrip) finds none in its beam
# ("Yes" -> "Sí que sí", "On" -> "Pase", "Off" -> "Aparte", "Please" and chat's "pls" -> "Por favor, por favor"; "No" -> "No hay nada" where nothing ranks it: a
# document's cell, the server). A row each, as labels.HEADINGS: the same answer on every path. Spanish's alone went
# as wrong, unwarned in a document ("Sí" -> "Follow him", "Cancelar" -> "Begin", "Guardar" -> "Keep going"; of
# the 24 below 2 right alone: "Abrir", "Cerrar"), so every row is read both ways; English's only where the model
# is wrong alone (it gives "Cancelar", "Abre", "Ayuda" itself; "Save" -> "Apártense", "Edit" -> "Divide")
UI_WORDS = (("yes", "sí"), ("no", "no"), ("on", "activado"), ("off", "desactivado"), ("save", "guardar"),
            ("delete", "eliminar"), ("edit", "editar"), ("copy", "copiar"), ("paste", "pegar"), ("print", "imprimir"),
            ("previous", "anterior"))
_SPANISH_UI = (("OK", "aceptar"), ("cancel", "cancelar"), ("open", "abrir"), ("close", "cerrar"), ("delete", "borrar"),
               ("search", "buscar"), ("exit", "salir"), ("back", "atrás"), ("next", "siguiente"), ("help", "ayuda"),
               ("on", "encendido"), ("off", "apagado"), ("send", "enviar"))
REPLIES = {"en": dict(UI_WORDS) | {"please": "por favor"}, "es": {es: en for en, es in UI_WORDS + _SPANISH_UI}}
_ARTICLE = lazy_re.compile(r"(?:el|la|los|las) (?=[^\W\d_])", re.IGNORECASE)
_SENTENCE_WORDS = frozenset("hello hi thanks no sorry welcome help stop wait look listen run".split())


class Continuation:
    """The translation goes on after a quotation or a label set aside in the lead (s.lower_first): its first
    word's capital goes, not an acronym's ("ONU") nor a name's the English has ("Tom"). Whether the English
    starts lowercase is noted here: its first word, capitalised for the model, is no name."""

    name = "continuation"

    def strip(self, s: Sentence, c: Context) -> bool:
        s.aside[self.name] = s.text[:1].islower(), c.options.source
        return True

    def restore(self, s: Sentence, out: NBest, items) -> NBest:
        if not s.lower_first:
            return out
        lower, source = s.aside[self.name]
        names = set(_FIRST_WORD.findall(s.masked.text)[lower:])

        def first(m: re.Match) -> str:
            w = m.group()
            if source != "en":  # (a name the translation spells otherwise: "dijo María" -> "Mary said")
                return w.lower() if w.lower() in _CLAUSE_OPENINGS else w
            return w.lower() if (w[1:].islower() or len(w) == 1) and w not in names else w

        return [(_FIRST_WORD.sub(first, t, count=1), score) for t, score in out]


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
        word = t.removesuffix(".")
        reply = REPLIES[options.source].get(word.lower()) if options.case and options.punctuate and not s.cut \
            else None
        if reply:
            s.verbatim = (reply.upper() if word.isupper() and len(word) > 1 else reply[:1].upper() + reply[1:]
                          if word[:1].isupper() else reply) + t[len(word):]
            return False
        if options.case and options.source == "en" and options.punctuate and s.alone and t.lower() not in c.engine.names \
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
    """ALL CAPS lowercased (upper-cased again in the translation: retry.py), lowercase truecased; in English,
    contractions typed without their apostrophe repaired and "i" made "I"; in Spanish, a sentence typed without
    accents given them back as the corpus writes them (spanish.accented; accents dropped: BLEU -1.7 -> +0.3 against
    clean on 300 unseen pairs, where the vocabulary's words alone had them), and usted's abbreviations spelt out. ALL CAPS is decided on the words outside the spans: a span, or the currency
    word its mask adds ("$25.50" -> "50 dollars"), neither makes nor breaks it. Spanish ALL CAPS had come out
    nonsense (BLEU 0.9 against 31.1: the vocabulary spells "DÓNDE" in single letters and has no "Í" nor "Ñ")."""

    name = "casing"

    def strip(self, s: Sentence, c: Context) -> bool:
        if c.options.case:
            s.shout = case.is_shouting(s.outside)
            s.text = _cased(s.text, s.masked, s, c)
            own = s.masked.own if s.masked else None
            if own and s.shout and c.options.source != "en":  # (retry.OWN's sentence too: "CUESTA 5 EUROS." had
                # reached the model in capitals, "TAKE 5 EUROS.")
                s.masked = replace(s.masked, own=replace(own, text=_cased(own.text, own, s, c)))
        return True

    def restore(self, s: Sentence, out: NBest, items) -> NBest:
        return out  # (ALL CAPS again before the spans come back: retry.py)


def _cased(t: str, masked, s: Sentence, c: Context) -> str:
    english = c.options.source == "en"
    t = recased(t, masked, str.lower) if s.shout else t
    t = case.repair_contractions(t) if english else spanish.accented(spanish.usted(t), c.engine.accents)
    return case.truecase(t, c.engine.names, c.options.punctuate, english) \
        if s.shout or not any(ch.isupper() for ch in s.outside or t) else _fix_i(t) if english else t


_LOWER_I = lazy_re.compile(r"\bi(?=\b|')")


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
