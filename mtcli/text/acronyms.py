"""The acronyms stage: an acronym or a short ALL CAPS word ("PDF", "CEO", "VPN", "UN", "U.S.", Spanish "EE. UU.")
in a line that is not shouted is a kept span, back as typed or written the target's way where WRITTEN says so ("UN"
-> "ONU", "EE. UU." -> "US"); in a shouted line only one that is no word of the source language ("SEND ME THE
PDF!"; "WHO ARE YOU?" stays a shout). The model had made them other words: "Send me the PDF." -> "Mándame el DI.",
"The CEO resigned." -> "El CIA dimitió.". One with digits ("MP3", "4K", "COVID-19") is a number's span (kinds.py).

Left to the model: the tokens it renders right inside a sentence (MODEL_KNOWS, measured on the corpus's selection
split: benchmarks/acronyms.py --selection), and an ALL CAPS word the source language has that WRITTEN does not
list ("I am VERY tired.", "Do NOT touch."). A line of one acronym is no shout: "OK." had come out "BUENO.", "IT."
"ES."; alone, one the model knows is given it calm ("Ok."), a table's is written the target's way ("USA." ->
"EE. UU."). Back, a Spanish determiner before a written acronym takes its gender and number ("el 50" -> "la ONU",
"el 50" -> "los EE. UU."), and an English "the" goes before one a Spanish article stood before ("La ONU se
reunió." -> "UN met." -> "The UN met.")."""

from __future__ import annotations

import bisect
import re

from mtcli.text.agreement import _BEFORE, _DETERMINER
from mtcli.text import pronouns
from mtcli.text.case import is_shouting
from mtcli.text.sentence import Context, NBest, Sentence, each
from mtcli import lazy_re

# 2 to 6 capitals (and a plural's "s": "PDFs"), capitals with stops ("U.S.", "U.K."), Spain's doubled initials ("EE.
# UU.", "RR. HH."); not inside a word, a name of capitals around "&" ("AT&T": kinds.py), a hyphenated word, a
# contraction ("DON'T"; a possessive's "'s" is the sentence's: "the CEO's")
TOKEN = lazy_re.compile(r"(?<![\w.&'’-])(?:(?:EE|RR)\. ?(?:UU|HH)\.|(?:[A-Z]\.){2,4}|[A-Z]{2,6}s?)(?![\w&]|-\w|['’](?![sS]\b)\w)")
_ROMAN = lazy_re.compile(r"[IVXL]+")  # "II", "XIV": a Roman numeral's (kinds.py), not an acronym
_DOTS = lazy_re.compile(r"[. ]")

# Each source language's acronyms written otherwise in the other language, keyed without stops or spaces ("U.S." is
# "US"), each unambiguous; after a "|" the Spanish writing's gender and number where not masculine singular, the
# English article it takes where Spanish has none ("Vivo en EE. UU." -> "I live in the US."). Chat's acronyms ("BTW",
# "FYI", "LOL", "ASAP") are shorthand.py's: written out there, as words the model knows. A row
# that writes the token as it is makes it an acronym where it is also a word of the source ("OK", "USA" in Spanish).
WRITTEN = {
    "en": {"UN": "ONU|f", "EU": "UE|f", "AI": "IA|f", "NATO": "OTAN|f", "DNA": "ADN", "WHO": "OMS|f",
           "USA": "EE. UU.|mp", "US": "EE. UU.|mp", "USSR": "URSS|f", "UK": "Reino Unido", "UFO": "ovni",
           "AIDS": "sida", "IT": "TI", "HR": "RR. HH.|mp", "NGO": "ONG|f", "VAT": "IVA", "IMF": "FMI", "GDP": "PIB",
           "OECD": "OCDE|f"},  # (chat's BTW, FYI, LOL, ASAP: the shorthand stage, before this one)
    "es": {"ONU": "UN", "UE": "EU", "IA": "AI", "OTAN": "NATO", "ADN": "DNA", "OMS": "WHO", "EEUU": "US|the",
           "URSS": "USSR", "OVNI": "UFO", "SIDA": "AIDS", "TI": "IT", "RRHH": "HR", "ONG": "NGO", "IVA": "VAT",
           "FMI": "IMF", "PIB": "GDP", "OCDE": "OECD", "OK": "OK", "USA": "USA", "sida": "AIDS", "ovni": "UFO",
           "ovnis": "UFOs"},
}
# ... the rows Spanish writes in lowercase, found as words ("Tiene sida." had come out "You have it if you're going.")
_LOWER = {source: lazy_re.compile(rf"(?<!\w)(?:{'|'.join(k for k in rows if k.islower()) or '(?!)'})(?!\w)")
          for source, rows in WRITTEN.items()}
# ... and the Spanish gender of acronyms kept as typed, where feminine (la VPN, la NASA): the model wrote "el 50"
FEMININE = frozenset("VPN API CPU GPU URL RAM ROM SIM IP FAQ CIA NASA BBC NBA NFL FIFA UEFA NSA ESA UCI TV ONU UE IA "
                     "OTAN OMS ONG OCDE URSS".split())
# Tokens the model renders right inside a sentence, left to it: those in 2 lines or more of the selection split's
# lines that are not shouted, 90 % or more of them right with the model alone (benchmarks/acronyms.py --selection:
# en-es TV 41/42, OK 19/19, CD 10/10, UFO 4/4, USA 2/2, but US 0/2, AIDS 0/2; es-en CD 8/8, TV 4/4)
MODEL_KNOWS = {"en": frozenset({"TV", "OK", "CD", "UFO", "USA"}), "es": frozenset({"CD", "TV"})}


def key(token: str) -> str:
    """A token as WRITTEN keys it: without stops, spaces or a plural's "s"."""
    bare = _DOTS.sub("", token)
    return bare[:-1] if bare.endswith("s") and bare[:-1].isupper() else bare


def written(span: str, source: str) -> str:
    """The span as the other language writes it, if a row of WRITTEN says so (a plural as typed: "the 2 UFOs"), else
    as it is."""
    row = WRITTEN[source].get(_DOTS.sub("", span))
    return row.split("|")[0] if row else span


def _without(text: str, tokens: list[re.Match]) -> str:
    return "".join(text[a:b] for a, b in zip([0, *(m.end() for m in tokens)], [*(m.start() for m in tokens), len(text)]))


# what may stand before a sentence's subject: opening marks, a determiner
_LEAD = lazy_re.compile(r"[\W_]*(?:(?:the|my|our|your|his|her|their|this|that|el|la|los|las|mi|tu|su|nuestra|nuestro)\s+)?",
                        re.IGNORECASE)


# "the" before an acronym that opens the sentence as its subject, a lowercase word after it (not "The UN Security"): the model is given the name's
# placeholder without it ("Tom arrested him."), as it reads a name; the Spanish article goes back (_fitted, as for an
# article the model lost). Given "The Tom arrested him.", it made the subject the object: "El arrestó al FBI."
_THE = lazy_re.compile(r"[\W_]*((?i:the)\s+)")
_VERB_AFTER = lazy_re.compile(r" [a-z]")


def leads(text: str, start: int) -> bool:
    """An acronym at `start` opens the sentence, a determiner before it at most: mostly its subject, which the model
    given a number put in the plural ("The 50 arrested him." -> "El FBI lo arrestaron."; with a name, "Tom", 12 of
    26 written sentences with one there came out better, 3 worse: benchmarks/acronyms.py --show). Elsewhere a
    name's placeholder took Spanish's "a" of a person ("Necesito un nuevo a CPU.", "Revisa a la FAQ.")."""
    return start < 16 and bool(_LEAD.fullmatch(text, 0, start))


def found(text: str, familiar: frozenset[str], source: str) -> tuple[list[tuple[int, int]], bool, list[int]]:
    """The acronyms of a sentence to keep (start, end), whether it is one acronym alone that the model knows (to be
    given it calm), and where a table's token is a pronoun in capitals (pronouns.py: to be given it lowercase). `familiar`: the source words the model learned (a token that is one is a word: "VERY");
    none known, only WRITTEN's tokens are acronyms."""
    tokens = sorted([m for m in TOKEN.finditer(text) if not _ROMAN.fullmatch(m.group())]
                    + list(_LOWER[source].finditer(text)), key=lambda m: m.start())
    if not tokens:
        return [], False, []
    table, knows = WRITTEN[source], MODEL_KNOWS[source]

    def word(m: re.Match) -> bool:  # (no lexicon: every token a word but the table's)
        return not familiar or key(m.group()).lower() in familiar

    def acronym(m: re.Match) -> bool:
        return not word(m) or key(m.group()) in table or key(m.group()) in knows

    def calm_word(m: re.Match) -> bool:  # (a word the model or a table writes as an acronym: "OK", Spanish "USA")
        k = key(m.group())
        return k in knows and k not in table or written(k, source) == k and k in table

    alone = not any(c.isalpha() for c in _without(text, tokens))
    if alone:  # (one acronym or a few alone are no shout, but words with "!" or "?": "WHO?", "STOP!"; not "OK!")
        shouted = not all(map(acronym, tokens)) \
            or any(map(word, tokens)) and not all(map(calm_word, tokens)) and text.rstrip()[-1:] in "!?"
    else:  # (decided without the tokens that are no words: "SEND ME THE PDF!" is a shout, "Send me the PDF." not)
        shouted = is_shouting(_without(text, [m for m in tokens if not word(m)]))
    keep, stressed, last = [], [], len(text.rstrip(" \"')»”’"))
    for m in tokens:
        k = key(m.group())
        if not (alone or shouted) and pronouns.stressed(text, m.start(), m.end(), source):
            stressed.append(m.start())
            continue
        if shouted and word(m) or k in knows and not (alone and k in table) or word(m) and k not in table:
            continue
        keep.append((m.start(), m.end() + _stop(text, m.end(), last, m.group(), written(k, source))))
    # (with a mark or without: "OK", "OK!", "OK?" had come out "BUENO", "¡BUENO!", "¿ESTÁ BIEN?")
    calm = alone and not shouted and len(tokens) == 1 and not keep and key(tokens[0].group()) in knows
    return keep, calm, stressed


def _stop(text: str, end: int, last: int, token: str, out: str) -> int:
    """How many characters a token's span takes after its `end` (-1: it leaves out its last): a sentence's last stop
    goes with one written with a stop of its own ("USA." -> "EE. UU.", not "EE. UU.."), not with one written without
    ("U.K." -> "Reino Unido."). `last`: where the sentence's words end (closing marks after)."""
    if end == last or end == last - 1 and text[end] == ".":
        return int(end < last and out.endswith(".")) - (token.endswith(".") and not out.endswith("."))
    return 0


def told(text: str) -> str | None:
    """The language of a line of acronyms only (None: it has other words): the one whose tables alone know them all
    (WRITTEN, MODEL_KNOWS: "UN." English, "ONU." Spanish), else "" (nothing to tell: "OK.", "USA."); None too where
    a table does not know one ("STOP!", "PDF.": the detector's). mtcli.langid
    had told "USA.", "UN.", "TV." Spanish."""
    tokens = TOKEN.findall(text)
    if not tokens or any(c.isalpha() for c in TOKEN.sub("", text)):
        return None
    languages = [{lang for lang in WRITTEN if key(t) in WRITTEN[lang] or key(t) in MODEL_KNOWS[lang]} for t in tokens]
    if not all(languages):  # (a shout, "STOP!", "CAN YOU HELP ME?", or one no table knows, "PDF.": the detector's)
        return None
    found = set.union(*languages)
    return found.pop() if len(found) == 1 else ""


class Acronyms:
    """Acronyms kept (`found`); a lone one the model knows given it calm; back, the words before each written
    one made to fit it (spans.py writes them: `written`)."""

    name = "acronyms"

    def strip(self, s: Sentence, c: Context) -> bool:
        if not c.options.protect:
            return True
        keep, calm, stressed = found(s.text, c.engine.familiar, c.options.source)
        starts = [a for a, _ in s.spans]
        for a in stressed:  # (the Spanish model made "para TI" "for TOM", "para ti" "for you"; a span's as it is)
            k = bisect.bisect_right(starts, a) - 1
            if k < 0 or s.spans[k][1] <= a:
                b = TOKEN.match(s.text, a).end()
                s.text = s.text[:a] + s.text[a:b].lower() + s.text[b:]
        if calm:  # ("OK." -> "Ok.": the casing stage takes it for no shout)
            m = TOKEN.search(s.text)
            s.text = s.text[: m.start()] + m.group()[0] + m.group()[1:].lower() + s.text[m.end():]
            s.spans = [(a, b) for a, b in s.spans if b <= m.start() or a >= m.end()]
        given = set(s.spans) if c.options.glossary else set()  # (a glossary's term is its stage's: terms.py)
        s.spans = _merged(keep, s.spans)
        spans = set(s.spans)
        keep = [(a, b) for a, b in keep if (a, b) in spans - given]  # (a span already, as the same: "PDF" in a shout)
        if keep:
            articles = [_determiner(s.text, a, b, c.options.source) for a, b in keep]
            s.aside[self.name] = [s.text[a:b] for a, b in keep], c.options.source, articles
            if c.options.source == "en" and (the := _THE.match(s.text)) and the.end() == keep[0][0] \
                    and _VERB_AFTER.match(s.text.lower() if is_shouting(s.text) else s.text, keep[0][1]):
                a, n = the.start(1), the.end() - the.start(1)
                s.text = s.text[:a] + s.text[the.end() :]
                s.spans = [(x - n * (x >= a), y - n * (y > a)) for x, y in s.spans]
        return True

    def restore(self, s: Sentence, out: NBest, items) -> NBest:
        if self.name not in s.aside:
            return out
        typed, source, articles = s.aside[self.name]
        ending = _ENDING_POSSESSIVE[source].format("|".join(re.escape(written(t, source)) for t in typed))
        return each(out, lambda t: re.sub(ending, r"\1", _fitted(t, typed, source, articles, s.shout)))


# a possessive's "'s" the model put on a name's placeholder that ends the sentence: Spanish has none ("Trabajo en la
# NASA." had come out "I work in the NASA's.")
_ENDING_POSSESSIVE = {"es": r"(?<!\w)({})['’]s(?=[.!?]*[\"')»”’]*$)", "en": "(?!)({})"}


# a Spanish determiner before an acronym and its English, which a name as placeholder lost ("Mi Tom va lento." -> "Tom
# is going slow.": "PC is going slow.")
_IN_ENGLISH = {**dict.fromkeys("el la los las del al".split(), "the"), "un": "a", "una": "a", "mi": "my", "mis": "my",
               "tu": "your", "tus": "your", **dict.fromkeys("nuestro nuestra nuestros nuestras".split(), "our")}
_ES_BEFORE = lazy_re.compile(rf"(?<!\w)({'|'.join(_IN_ENGLISH)})\s+$", re.IGNORECASE)
# an English determiner before an acronym, an adjective or two between ("a new CPU": no "a" put back)
_EN_PHRASE = lazy_re.compile(r"(?<!\w)(?:the|an?|my|your|his|her|its|our|their|this|that|these|those|some|any|no|every|"
                             r"each|one|of|[\w'’]+'s|\d+)\s+(?:[a-z]+\s+){0,2}$", re.IGNORECASE)
_CURRENCY = lazy_re.compile(r" d[oó]lar(?:es)?(?!\w)", re.IGNORECASE)
_A_AN = lazy_re.compile(r"(?<!\w)(an?)\s+$", re.IGNORECASE)
# an English determiner before an acronym and the Spanish one (masculine singular: made to fit), which a name as
# placeholder lost ("The Tom resigned." -> "Tom renunció.")
_IN_SPANISH = {"the": "el", "a": "un", "an": "un", "my": "mi", "your": "tu", "our": "nuestro", "this": "este",
               "that": "ese"}
_EN_DETERMINER = lazy_re.compile(rf"(?<!\w)({'|'.join(_IN_SPANISH)})\s+$", re.IGNORECASE)


def _determiner(text: str, a: int, b: int, source: str) -> str:
    """The determiner before text[a:b] in the target language ("" none): a Spanish one's English, an English one's
    Spanish; else the English article a row of WRITTEN asks for ("EE. UU." -> "the US")."""
    if source == "en":
        return _IN_SPANISH[m[1].lower()] if (m := _EN_DETERMINER.search(text, max(0, a - 8), a)) else ""
    m = _ES_BEFORE.search(text, max(0, a - 12), a)
    return _IN_ENGLISH[m[1].lower()] if m else WRITTEN["es"].get(_DOTS.sub("", text[a:b]), "").partition("|")[2]


_VOWEL_SOUND = lazy_re.compile(r"[AEIO]|[FHLMNRSX][A-Z]{0,2}$")  # an API, an NGO, an FBI agent; a VPN, a UFO, a NATO


def _merged(keep: list[tuple[int, int]], spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans (in order) with those of `keep` that overlap none; one inside one of `keep` is that one ("USA" kept as
    a word the model never learned is "USA." written "EE. UU.")."""
    starts = [a for a, _ in keep]

    def within(a: int, b: int) -> bool:
        k = bisect.bisect_right(starts, a) - 1
        return k >= 0 and b <= keep[k][1]

    spans = [(a, b) for a, b in spans if not within(a, b)]
    ends = [b for _, b in spans]
    apart = [(a, b) for a, b in keep if (k := bisect.bisect_right(ends, a)) == len(spans) or spans[k][0] >= b]
    return sorted(spans + apart)


def _fitted(text: str, typed: list[str], source: str, articles: list[str | None], shout: bool = False) -> str:
    """The translation with a Spanish determiner before each acronym in its gender and number ("el 50" -> "la ONU"),
    or an English article before one a Spanish article stood before and nothing does now ("Mándame el PDF." -> "Send
    me Tom." -> "Send me PDF." -> "Send me the PDF."). One pass over the text."""
    wants: dict[str, list] = {}  # an acronym as the translation has it -> what goes before each of it, in order
    for token, article in zip(typed, articles):
        out = written(token, source)
        if source == "en":
            kind = WRITTEN["en"].get(_DOTS.sub("", token), "").partition("|")[2]
            plural = kind == "mp" or token.endswith("s") and token[:-1].isupper()
            wants.setdefault(out, []).append(((kind == "f" or key(out) in FEMININE) + 2 * plural, article))
        elif article:
            wants.setdefault(out, []).append(article)
    if not wants:
        return text
    pieces, last = [], 0
    alternatives = "|".join(map(re.escape, sorted(wants, key=len, reverse=True)))
    for m in re.finditer(rf"(?<!\w)(?:{alternatives})(?!\w)", text):
        a, queue = m.start(), wants[m.group()]
        want, window = queue.pop(0) if len(queue) > 1 else queue[0], max(last, a - 24)
        opening = a < 8 and not text[:a].strip(" ¿¡\"'«(")
        if source == "en" and _BEFORE.search(text, window, a):  # (the run of them: "un nuevo" -> "una nueva")
            before, end = text[last:a], a - last
            while d := _BEFORE.search(before, max(0, end - 24), end):
                det = _DETERMINER[d[1].lower()][want[0]]
                det = det.upper() if shout else det.capitalize() if d[1][:1].isupper() else det
                before, end = before[: d.start(1)] + det + before[d.end(1) :], d.start(1)
            pieces.append(before)
        elif source == "en" and want[1]:  # (the English's, lost: "The Tom resigned." -> "Tom renunció.")
            det = _DETERMINER[want[1]][want[0]]
            det = det.upper() if shout else det.capitalize() if opening else det
            before = text[last:a]
            if det in ("el", "EL") and (p := re.search(r"(?<!\w)(de|a) $", before, re.IGNORECASE)):  # (del, al)
                pieces += [before[: p.end(1)], "l" if p[1].islower() else "L", " "]
            else:
                pieces += [before, det + " "]
        elif source == "es" and (d := _A_AN.search(text, window, a)):  # (the model's "a" before a name: "a API")
            an = "an" if _VOWEL_SOUND.match(m.group()) else "a"
            an = an.upper() if shout else an.capitalize() if d[1][0].isupper() else an
            pieces += [text[last : d.start(1)], an, text[d.end(1) : a]]
        elif source == "es" and not _EN_PHRASE.search(text, window, a):
            word = "an" if want == "a" and _VOWEL_SOUND.match(m.group()) else want
            pieces += [text[last:a], (word.upper() if shout else word.capitalize() if opening else word) + " "]
        else:
            pieces.append(text[last:a])
        pieces.append(m.group())
        # (no currency word the model wrote after a number's placeholder: "La URSS dólares para ...")
        last = m.end() + (len(c.group()) if source == "en" and (c := _CURRENCY.match(text, m.end())) else 0)
    return "".join(pieces) + text[last:]
