"""What stands right before a glossary term in a translation made to fit the term (glossary.py): the model
wrote it for a placeholder, not for the term. A Spanish determiner takes the term's gender and number ("los 50"
-> "la factura"), an English "a" or "an" its first sound, an English article a Spanish one asked for where a name
as placeholder lost it; a term that opens the sentence is capitalised. Rules of thumb (gender by ending, a short
list of exceptions), stated in docs/glossary.md.
"""

from __future__ import annotations

import re

from mtcli.text.glossary import Glossary, plural
from mtcli import lazy_re

# a Spanish article before a term: English puts one before it too, which a name as placeholder lost
# ("El piso tiene dos dormitorios." -> "Apartment has two bedrooms.")
_ES_ARTICLE = lazy_re.compile(r"(?<!\w)(?:(el|la|los|las|del|al)|(un|una))\s+$", re.IGNORECASE)
_EN_BEFORE = lazy_re.compile(r"(?<!\w)(?:the|a|an|my|your|his|her|its|our|their|this|that|these|those|some|any|no|"
                             r"every|each|one|of|[\w'’]+'s|\d+)\s+$", re.IGNORECASE)


# Spanish determiners, each (masculine, feminine) x (singular, plural): the model chose one for a placeholder,
# not for the term, so the one before a term is made to agree with it ("los 50" -> "la factura")
_DETERMINERS = [d.strip().split("/") for d in (
    "el/la/los/las, un/una/unos/unas, del/de la/de los/de las, al/a la/a los/a las, este/esta/estos/estas, "
    "ese/esa/esos/esas, aquel/aquella/aquellos/aquellas, mi/mi/mis/mis, tu/tu/tus/tus, su/su/sus/sus, "
    "nuestro/nuestra/nuestros/nuestras, vuestro/vuestra/vuestros/vuestras, otro/otra/otros/otras, "
    "algún/alguna/algunos/algunas, ningún/ninguna/ningunos/ningunas, mucho/mucha/muchos/muchas, "
    "nuevo/nueva/nuevos/nuevas").split(",")]
_DETERMINER = {w.lower(): row for row in _DETERMINERS for w in row}
_BEFORE = lazy_re.compile(r"(?<![\w])(" + "|".join(sorted({re.escape(w) for row in _DETERMINERS for w in row}, key=len,
                                                      reverse=True)) + r")\s+$", re.IGNORECASE)
# feminine by ending (la factura, la canción, la ciudad, la costumbre), but these common -a/-ma nouns
_FEMININE = lazy_re.compile(r"(?:a|ión|ion|dad|tad|tud|umbre|ez|sis)$")
_MASCULINE_A = set("día mapa problema sistema programa tema idioma clima esquema diagrama dilema drama poema "
                   "síntoma teorema planeta sofá".split())

# feminine nouns opening on a stressed "a" that take "el" and "un" in the singular
_STRESSED_A = set("agua águila alma arma área aula ala alga habla hacha hambre hada haba".split())

# ... and common feminine nouns the endings miss ("El madre se levanta" came out for "Mother gets up")
_FEMININE_OTHER = set("madre noche gente calle clase leche llave nieve parte muerte suerte frase mente sangre tarde "
                      "torre fuente carne nube fe piel flor mujer ley red luz voz paz cruz nariz raíz sal miel "
                      "imagen sartén mano foto moto radio".split())


def _feminine(word: str) -> bool:
    word = word.lower()
    return word in _FEMININE_OTHER or word not in _MASCULINE_A and bool(_FEMININE.search(word))


def _agrees(det: str, term: str, plural: bool) -> str:
    """The Spanish determiner `det` in the gender and number of `term` (as the model wrote it: its case)."""
    head = term.split(" ")[0].lower()
    if plural:  # (the singular's ending tells the gender: facturas, canciones)
        head = next((h for h in (head[:-2], head[:-1]) if _feminine(h)), head[:-1])
    row = _DETERMINER[det.lower()]
    out = row[_feminine(head) + 2 * plural]
    if not plural and head in _STRESSED_A and row[0] in ("el", "un", "del", "al", "algún", "ningún"):
        out = row[0]  # (el agua, un arma)
    return out.upper() if det.isupper() and len(det) > 1 else out.capitalize() if det[:1].isupper() else out


def _an(term: str) -> str:
    return "an" if re.match(r"(?i)[aeiou](?!n[ei]|s[eu]|ur)|h(?:our|onest|eir)", term) else "a"


def _agreeing_before(before: str, term: str, plural: bool) -> str:
    """The run of determiners right before a Spanish term ("el nuevo") in its gender and number."""
    end = len(before)
    while d := _BEFORE.search(before, 0, end):
        before = before[: d.start(1)] + _agrees(d.group(1), term, plural) + before[d.end(1) :]
        end = d.start(1)
    return before


def notes(text: str, spans: list[tuple[int, int]], outs: tuple[str, ...], glossary: Glossary) -> list[tuple[str, str]]:
    """Each term's target, and for an English target the article a Spanish one before it asks for ("the",
    "a" or "")."""
    found = []
    for (a, b), out in zip(spans, outs):
        if out != text[a:b]:
            m = _ES_ARTICLE.search(text, 0, a) if glossary.languages == ("es", "en") else None
            found.append((out, "" if not m else "the" if m[1] else "a"))
    return found


# an English target's own determiner ("the cat" -> "the kitty"), and the article the model wrote before it then
_EN_OWN = lazy_re.compile(r"(?i)(?:the|a|an|my|your|his|her|its|our|their|this|that|these|those)\s")
_EN_ARTICLE = lazy_re.compile(r"(?<!\w)(the|an?)\s+$", re.IGNORECASE)


def _own_determiner(before: str, term: str, language: str) -> str:
    """What is before a term that brings its own determiner ("the cat" -> "el michi"), less the one the model
    wrote for it ("El el michi y el el michi duermen."); a contraction keeps its preposition (del -> de)."""
    first = term.split(" ", 1)[0].lower()
    if language == "es" and " " in term and first in _DETERMINER and (d := _BEFORE.search(before)):
        keep = {"del": "de ", "al": "a "}.get(d[1].lower(), "")
        return before[: d.start(1)] + (keep.capitalize() if d[1][:1].isupper() else keep)
    if language == "en" and _EN_OWN.match(term) and (d := _EN_ARTICLE.search(before)):
        return before[: d.start(1)]
    return before


def _shouted(term: str, glossary: Glossary) -> bool:
    """The term is a lowercase target (or its plural) in ALL CAPS, found so in a shouted line: a noun, not a name
    the glossary writes with a capital ("Apple Inc.")."""
    lower, language = term.lower(), glossary.languages[1] if glossary.languages else "es"
    return term.isupper() and any(lower in (t, plural(t, language)) for s, t in glossary.terms if s == s.lower())


# how far before a term its determiners and article are looked for (a run of them is shorter): a window, not all
# the text before it, so that a line holding a term many times takes linear time
_REACH = 60


def agreeing(text: str, terms: list[tuple[str, str]], glossary: Glossary) -> str:
    """The translation with what comes right before each term made to fit it: a Spanish determiner its gender
    and number, an English "a" or "an" its first sound (and the article a Spanish one asked for, when nothing
    stands before it), none where the term has its own; a term that opens the sentence capitalised."""
    language = glossary.languages[1] if glossary.languages else "es"
    for term, article in dict.fromkeys(terms):
        opening = re.match(r"[\s¿¡\"'«(]*", text).end()
        found = list(re.finditer(rf"(?<!\w){re.escape(term)}(?!\w)", text))
        pieces, at = [], 0
        for m in found:
            # the window starts after a space (whole words for the patterns' (?<!\w)), never inside the term before
            lo = max(at, text.rfind(" ", 0, m.start() - _REACH) + 1) if m.start() - _REACH > opening else at
            before, word = text[lo : m.start()], m.group()
            if (own := _own_determiner(before, term, language)) != before:
                before = own
            elif language == "es" and (not term[:1].isupper() or _shouted(term, glossary)):
                before = _agreeing_before(before, term, glossary.is_plural(term))
            elif language == "en" and article and not _EN_BEFORE.search(before) \
                    and (article == "the" or not glossary.is_plural(term)):
                before += "the " if article == "the" else f"{_an(term)} "
            elif language == "en" and (d := re.search(r"(?<!\w)(an?)\s+$", before, re.IGNORECASE)):
                before = before[: d.start(1)] + (_an(term).capitalize() if d[1][0].isupper() else _an(term)) + before[d.end(1) :]
            if lo + len(before) > opening and m.start() == opening:  # an article now opens the sentence
                k = opening - lo
                before = before[:k] + before[k].upper() + before[k + 1 :]
            elif lo + len(before) == opening:
                word = word[:1].upper() + word[1:]
            pieces += [text[at:lo], before, word]
            at = m.end()
        text = "".join(pieces) + text[at:]
    return text
