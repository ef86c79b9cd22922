"""Spanish's own rules for a Spanish source (TextOptions.source "es"), beside case.py's English ones: names
truecased from a table, accents typed without them put back where the vocabulary is sure, a missing final "?"
where a question word opens the sentence, the sentence ends the splitter must not take for one (titles,
abbreviations, a ¿…? or ¡…! pair), usted's abbreviations spelt out, and the raya's dialogue in English's quotes.
Span kinds (dates, titles, ordinals) are rows of kinds.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from mtcli.data import accent_contexts, unaccented
from mtcli.text.case import has_end_punctuation
from mtcli import lazy_re

SPACE = "▁"  # the tokenizers' word-start marker

# names the vocabulary cannot tell from a sentence's first word ("▁Prefiero", "▁Mira" are capitalised only because
# they open sentences; "▁María" and "▁España" because they are names), written in Spanish (Tom, Boston: the names
# both vocabularies hold capitalised are found from them); not the ones that are words too ("china", "lima", "rosa")
NAMES = {w.lower(): w for w in (
    "María Tomás Juan Ana Pedro Pablo Carlos José Luis Miguel Jorge Antonio Manuel Francisco Javier Elena Lucía "
    "Carmen Isabel Laura Sofía Diego Alejandro Fernando Ricardo Roberto Andrés Emilia Marco Ken Mari Dios España "
    "Francia Alemania Inglaterra Italia Japón Canadá Brasil Australia Europa América África Asia México Argentina "
    "Chile Perú Colombia Venezuela Rusia Londres París Madrid Barcelona Tokio Kioto Roma Berlín Boston Nueva "
    "York Estados Unidos").split()}
# a question's opening word (with its accent: "donde", "que" open clauses as often); a sentence that opens with one
# and has no final mark gets "?" ("dónde está la estación" came out "where the train is on the train.")
_QUESTION = lazy_re.compile(r"^[\"'(«]*(?:¿|(?:qué|quién|quiénes|cuál|cuáles|cuándo|cuánto|cuánta|cuántos|cuántas|dónde|adónde|"
                            r"cómo|por qué)(?![^\W\d_]))", re.IGNORECASE)
# abbreviations a sentence goes on after (pysbd's Spanish list is mostly words that end sentences: "no", "en",
# "con", "para", "bien", "entre"...)
BEFORE_NAMES = "sr sra srta sres srs dr dra drs dras d dña prof profa lic ing arq ee rr".split()  # (titles: kinds.py;
# a doubled initial's first half goes on too: "EE. UU.", "RR. HH." had been cut in two sentences, "I'VE DONE. I USE.")
BEFORE_NUMBERS = "núm pág págs tel cap vol".split()
ABBREVIATIONS = [*BEFORE_NAMES, *BEFORE_NUMBERS,
                 *"ud uds vd vds etc av avda ej p.ej aprox admón dpto depto cía atte fdo gral fig vs uu hh".split(),
                 "ee.uu", "rr.hh"]  # (without the space: "Vivo en EE.UU. desde 2010." had been two sentences)
# words after a title that are no name ("la Sra. Presidenta", "el Sr. de la casa")
NOT_NAMES = ("el la los las un una y o e de del en que es está a al con por para se me te le lo su mi tu yo él ella "
             "usted ustedes hoy ayer mañana sí no gracias presidente presidenta alcalde alcaldesa ministro ministra "
             "director directora").split()
# usted's abbreviations, which the model never saw ("Ud." came out a name), spelt out for it
_USTED = {"ud": "usted", "uds": "ustedes", "vd": "usted", "vds": "ustedes"}
_USTED_WORD = lazy_re.compile(r"\b[UuVv]ds?\.(?= ?\S)")  # (not "UD.": an acronym; ALL CAPS is lowercased first)


def names(table: dict[str, str], target: Iterable[str]) -> dict[str, str]:
    """The truecasing table (case.truecase_table) for a Spanish source: of the vocabulary's, the names the target
    vocabulary holds capitalised too ("tom", "boston"), and NAMES."""
    target = set(target)
    return {**{w: cased for w, cased in table.items() if SPACE + cased in target}, **NAMES}


def accent_table(vocab: Iterable[str]) -> dict[str, dict]:
    """For a model whose lexicon has no accents (data.accent_choices): unaccented word -> the accented word the
    source vocabulary holds whole ("estacion" -> "estación", "ano" -> "año"), where it does not hold the unaccented
    one (of 600 selection-split pairs typed without accents, BLEU 52.9 -> 54.4, clean 57.0)."""
    ids = {t: i for i, t in enumerate(vocab)}
    best: dict[str, tuple[int, str]] = {}
    for token, i in ids.items():
        word = token[1:]
        if token.startswith(SPACE) and word.isalpha() and word.islower() and (plain := unaccented(word)) != word:
            best[plain] = min(best.get(plain, (i, word)), (i, word))
    return {"words": {plain: word for plain, (_, word) in best.items() if SPACE + plain not in ids and len(plain) > 1}}


def familiar(words: frozenset[str]) -> frozenset[str]:
    """The source words a model learned (data.familiar_words) and each typed without its accents, which the casing
    stage gives back: "Vayase." had been kept as an unknown name, and "Deten a Tom." came out "Deten looks like Tom."."""
    return words | {unaccented(w) for w in words}


_WORD = lazy_re.compile(r"[^\W\d_]+")  # (data.accent_contexts's words)
_ACCENTED = lazy_re.compile(r"[áéíóúüñ¿¡]", re.IGNORECASE)


def accented(text: str, table: dict[str, dict]) -> str:
    """A sentence typed without a single accent (nor ñ, ¿, ¡) with its words' accents back, in each word's case: a
    word's most frequent form unless the word before or after chooses another (data.accent_choices: "con el" ->
    "con él", "esta bien" -> "está bien", a question's "que" -> "qué"; the more often seen of the two if both do)."""
    if not table or _ACCENTED.search(text):
        return text
    words, before, after = table.get("words", {}), table.get("before", {}), table.get("after", {})
    contexts = accent_contexts(text)

    def word(m: re.Match) -> str:
        w, prev, nxt = next(contexts)
        plain = w.lower()
        chosen = [c for c in (before.get(f"{prev} {plain}"), after.get(f"{plain} {nxt}")) if c]
        out = max(chosen, key=lambda c: c[1])[0] if chosen else words.get(plain)
        if out is None:
            return w
        return out.upper() if w.isupper() and len(w) > 1 else out[0].upper() + out[1:] if w[0].isupper() else out

    return _WORD.sub(word, text)


def usted(text: str) -> str:
    """Ud., Uds., Vd., Vds. spelt out ("¿Ud. viene?" -> "¿Usted viene?", "a Vd." -> "a usted"), in capitals if
    they were, with a capital if they open the sentence."""
    def spelt(m: re.Match) -> str:
        w = m.group()[:-1]
        out = _USTED[w.lower()]
        return out.upper() if w.isupper() else out.capitalize() if not text[: m.start()].strip("¿¡\"'«( ") else out

    return _USTED_WORD.sub(spelt, text) if "." in text else text


_NARRATION_END = lazy_re.compile(r"[\s.,;:]*")
_SPEECH_END = lazy_re.compile(r"[.,;:!?…]$")


def dialogue(line: str) -> str:
    """A line of dialogue opened by a raya ("—Hola —dijo él—. ¿Vienes?") in English's quotes, which the pipeline
    translates inside them ('"Hola," dijo él. "¿Vienes?"' -> '"Hi," he said. "Are you coming?"'): the speech quoted,
    the narration between rayas left outside with the marks after its closing raya. (Normalized, the rayas were
    hyphens: "-Hola - dijo él." came out "-Hello - he said.")"""
    if not line.startswith("—"):
        return line
    parts, out = line[1:].split("—"), []
    for k, part in enumerate(parts):
        if k % 2:  # the narration
            out.append(part.strip())
            continue
        marks = _NARRATION_END.match(part).group() if k else ""
        speech = part[len(marks) :].strip()
        if out:
            out[-1] += marks.strip()
        if speech:
            out.append(f'"{speech}{"," if k + 1 < len(parts) and not _SPEECH_END.search(speech) else ""}"')
    return " ".join(p for p in out if p)


def end_punctuation(text: str) -> str:
    """`text` with a final mark if it had none: the "?" of a ¿ or of a question word opening it, the "!" of a ¡,
    else "."."""
    if not text or has_end_punctuation(text):
        return text
    return text + ("!" if text.lstrip("\"'(«")[:1] == "¡" else "?" if is_question(text) else ".")


def is_question(text: str) -> bool:
    """Opens with ¿ or a question word."""
    return bool(_QUESTION.match(text))
