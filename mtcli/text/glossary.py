"""A user's glossary: source terms that must come out as the user's target terms.

A term found in a sentence is one more kept span (spans.py masks it with a placeholder the model copies) and
the placeholder is put back as the target term, so the term comes out exactly as the glossary says wherever
the model puts it; what the model writes around it (articles, agreement) is its own. Measured against the
alternatives in docs/glossary.md.

Matching: whole words, case-insensitive, unless the glossary writes the source term with a capital letter
("Apple"), which then matches as written or in ALL CAPS only; several words match across any spaces; the
longest term first. A plural of a term (English: its last word before "of"/"for"/...; Spanish: its words before
"de"/"para"/...) matches too and comes out as the target term's plural, by the target language's regular rule;
a glossary line of its own wins over a derived plural ("mouse<TAB>ratón", "mice<TAB>ratones").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mtcli.errors import UserError
from mtcli.text.read import read_lines

MAX_TERMS = 10_000  # a glossary is terms, not a corpus: more is an error (or the wrong file)
MAX_TERM_CHARS = 200
MAX_FILE_BYTES = 4 << 20
HEADER = ("source", "target")
_TOKEN = re.compile(r"\w+|[^\w\s]")
# words a plural stops before: "point of sale" -> "points of sale", "tarjeta de crédito" -> "tarjetas de crédito"
_STOPS = {"en": {"of", "for", "in", "on", "to", "with", "at", "by", "from", "and", "or"},
          "es": {"de", "del", "para", "con", "en", "a", "al", "por", "sin", "sobre", "y", "o", "e"}}
_ACCENTS = str.maketrans("áéíóú", "aeiou")


def _plural_en(word: str) -> str:
    if re.search(r"(?:s|x|z|ch|sh)$", word, re.IGNORECASE):
        return word + "es"
    if re.search(r"[^aeiou]y$", word, re.IGNORECASE):
        return word[:-1] + "ies"
    return word + "s"


def _plural_es(word: str) -> str:
    last = word[-1:].lower()
    if last in "aeioué" or last in "áó":
        return word + "s"
    if last in "íú":
        return word + "es"
    if last == "z":
        return word[:-1] + "ces"
    accented = re.search(r"[áéíóú][^aeiouáéíóú]*$", word)
    if last in "sx" and not accented:
        return word  # (la crisis, las crisis; el lunes, los lunes)
    if accented and last in "nsx":  # canción -> canciones, autobús -> autobuses
        return word[: accented.start()] + word[accented.start()].translate(_ACCENTS) + word[accented.start() + 1 :] + "es"
    return word + "es"


PLURAL = {"en": _plural_en, "es": _plural_es}


def plural(term: str, language: str) -> str | None:
    """The regular plural of a term: English inflects the last word before a stop word ("points of sale"),
    Spanish every word before one ("discos duros", "tarjetas de crédito"); None if it has no letters to inflect."""
    words = term.split(" ")
    stop = next((k for k, w in enumerate(words) if k and w.lower() in _STOPS[language]), len(words))
    inflected = [stop - 1] if language == "en" else range(stop)
    if not all(re.fullmatch(r"[^\W\d_]+", words[k]) for k in inflected):
        return None
    out = [PLURAL[language](w) if k in inflected else w for k, w in enumerate(words)]
    return " ".join(out) if out != words else None


# a Spanish sentence holding a term is masked with a name the model copies as it is, not protect's number, which
# es-en reads as an amount where a noun goes ("Mi 50 es muy lento." -> "My fifty is very slow 50."): the first
# name the sentence does not hold already (Tatoeba's are full of Tom and Mary). English keeps the number, which
# en-es copied better than a name ("The Tom is near..." -> "El río Tom..."). Measured in docs/glossary.md
NAMES = {"es": ("Tom", "Mary", "John")}
# a Spanish article before a term: English puts one before it too, which a name as placeholder lost
# ("El piso tiene dos dormitorios." -> "Apartment has two bedrooms.")
_ES_ARTICLE = re.compile(r"(?<!\w)(?:(el|la|los|las|del|al)|(un|una))\s+$", re.IGNORECASE)
_EN_BEFORE = re.compile(r"(?<!\w)(?:the|a|an|my|your|his|her|its|our|their|this|that|these|those|some|any|no|"
                        r"every|each|one|of|[\w'’]+'s|\d+)\s+$", re.IGNORECASE)


def placeholders(text: str, language: str) -> tuple[str, ...] | None:
    """The placeholder sequence for a sentence with terms (None: protect's numbers)."""
    free = [n for n in NAMES.get(language, ()) if not re.search(rf"(?<!\w){n}(?!\w)", text, re.IGNORECASE)]
    return (free[0],) if free else None


def _key(text: str) -> tuple[tuple[str, bool], ...]:
    """A term as the matcher sees it: its tokens, each with whether a space comes before it."""
    return tuple((m.group(), m.start() > 0 and text[m.start() - 1].isspace()) for m in _TOKEN.finditer(text))


def _folded(key: tuple) -> tuple:
    return tuple((t.lower(), sp) for t, sp in key)


@dataclass(frozen=True, eq=False)
class Glossary:
    """(source, target) terms; `languages` (source, target) once bound to a direction (`towards`), which
    plurals need. Matching is by tokens (a dictionary look-up per place and length), in linear time."""

    terms: tuple[tuple[str, str], ...]
    languages: tuple[str, str] | None = None
    lines: tuple[int, ...] = ()  # each term's line in its file (mtcli glossary check names them)
    _exact: dict = field(default_factory=dict, repr=False)  # key -> target (terms with a capital letter)
    _folded: dict = field(default_factory=dict, repr=False)  # folded key -> target
    _longest: list = field(default_factory=lambda: [0], repr=False)
    _plurals: set = field(default_factory=set, repr=False)  # targets that are a term's derived plural

    def __post_init__(self):
        derived, own = {}, {}
        for src, tgt in self.terms:
            forms = [(src, tgt)]
            if self.languages and (p := plural(src, self.languages[0])):
                forms.append((p, plural(tgt, self.languages[1]) or tgt))
                self._plurals.add(forms[-1][1])
            for k, (form, out) in enumerate(forms):
                table = derived if k else own
                if src != src.lower():  # as written, or in ALL CAPS
                    table[("exact", _key(form.upper()))] = out.upper()  # (a shouted term, shouted)
                    table[("exact", _key(form))] = out
                else:
                    table[("folded", _folded(_key(form)))] = out
        for (kind, key), out in {**derived, **own}.items():  # (a line of its own wins over a derived plural)
            (self._exact if kind == "exact" else self._folded)[key] = out
            self._longest[0] = max(self._longest[0], len(key))

    def is_plural(self, target: str) -> bool:
        """A target is plural: a derived plural, or a line of its own whose first word ends like one."""
        head = target.split(" ")[0].lower()
        return target in self._plurals or (len(head) > 3 and head.endswith("s")
                                           and not re.search(r"(?:is|us|[áéíóú]s)$", head))

    def towards(self, source: str, target: str) -> Glossary:
        """The same terms for translating `source` into `target` (their plurals by each language's rule)."""
        return self if self.languages == (source, target) else Glossary(self.terms, (source, target), self.lines)

    def find(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, target) of each term in text, left to right, the longest at each place; the target
        in ALL CAPS where the text has the term so."""
        tokens = list(_TOKEN.finditer(text))
        keys = [(m.group(), m.start() > 0 and text[m.start() - 1].isspace()) for m in tokens]
        found, i = [], 0
        while i < len(tokens):
            for n in range(min(self._longest[0], len(tokens) - i), 0, -1):
                key = ((keys[i][0], False),) + tuple(keys[i + 1 : i + n])
                exact = self._exact.get(key)
                out = exact if exact is not None else self._folded.get(_folded(key))
                # (whole words: a term ending in a symbol, "C++", is not the start of "C++11")
                if out is not None and not _glued(text, tokens[i].start(), tokens[i + n - 1].end()):
                    words = text[tokens[i].start() : tokens[i + n - 1].end()]
                    shout = exact is None and len(words) > 1 and words.isupper()
                    found.append((tokens[i].start(), tokens[i + n - 1].end(), out.upper() if shout else out))
                    i += n
                    break
            else:
                i += 1
        return found


# Spanish determiners, each (masculine, feminine) x (singular, plural): the model chose one for a placeholder,
# not for the term, so the one before a term is made to agree with it ("los 50" -> "la factura")
_DETERMINERS = [d.strip().split("/") for d in (
    "el/la/los/las, un/una/unos/unas, del/de la/de los/de las, al/a la/a los/a las, este/esta/estos/estas, "
    "ese/esa/esos/esas, aquel/aquella/aquellos/aquellas, mi/mi/mis/mis, tu/tu/tus/tus, su/su/sus/sus, "
    "nuestro/nuestra/nuestros/nuestras, vuestro/vuestra/vuestros/vuestras, otro/otra/otros/otras, "
    "algún/alguna/algunos/algunas, ningún/ninguna/ningunos/ningunas, mucho/mucha/muchos/muchas, "
    "nuevo/nueva/nuevos/nuevas").split(",")]
_DETERMINER = {w.lower(): row for row in _DETERMINERS for w in row}
_BEFORE = re.compile(r"(?<![\w])(" + "|".join(sorted({re.escape(w) for row in _DETERMINERS for w in row}, key=len,
                                                      reverse=True)) + r")\s+$", re.IGNORECASE)
# feminine by ending (la factura, la canción, la ciudad, la costumbre), but these common -a/-ma nouns
_FEMININE = re.compile(r"(?:a|ión|ion|dad|tad|tud|umbre|ez|sis)$")
_MASCULINE_A = set("día mapa problema sistema programa tema idioma clima esquema diagrama dilema drama poema "
                   "síntoma teorema planeta sofá".split())

# feminine nouns opening on a stressed "a" that take "el" and "un" in the singular
_STRESSED_A = set("agua águila alma arma área aula ala alga habla hacha hambre hada haba".split())


def _feminine(word: str) -> bool:
    word = word.lower()
    return word not in _MASCULINE_A and bool(_FEMININE.search(word))


def _agrees(det: str, term: str, plural: bool) -> str:
    """The Spanish determiner `det` in the gender and number of `term` (as the model wrote it: its case)."""
    head = term.split(" ")[0].lower()
    if plural:  # (the singular's ending tells the gender: facturas, canciones)
        head = next((h for h in (head[:-2], head[:-1]) if _feminine(h)), head[:-1])
    row = _DETERMINER[det.lower()]
    out = row[_feminine(head) + 2 * plural]
    if not plural and head in _STRESSED_A and row[0] in ("el", "un", "del", "al", "algún", "ningún"):
        out = row[0]  # (el agua, un arma)
    return out.capitalize() if det[:1].isupper() else out


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


def agreeing(text: str, terms: list[tuple[str, str]], glossary: Glossary) -> str:
    """The translation with what comes right before each term made to fit it: a Spanish determiner its gender
    and number, an English "a" or "an" its first sound (and the article a Spanish one asked for, when nothing
    stands before it); a term that opens the sentence capitalised."""
    language = glossary.languages[1] if glossary.languages else "es"
    for term, article in dict.fromkeys(terms):
        for m in reversed(list(re.finditer(rf"(?<!\w){re.escape(term)}(?!\w)", text))):  # (the later first)
            before, word, opening = text[: m.start()], m.group(), re.match(r"[\s¿¡\"'«(]*", text).end()
            if language == "es" and not term[:1].isupper():
                before = _agreeing_before(before, term, glossary.is_plural(term))
            elif language == "en" and article and not _EN_BEFORE.search(before) \
                    and (article == "the" or not glossary.is_plural(term)):
                before += "the " if article == "the" else f"{_an(term)} "
            elif language == "en" and (d := re.search(r"(?<!\w)(an?)\s+$", before, re.IGNORECASE)):
                before = before[: d.start(1)] + (_an(term).capitalize() if d[1][0].isupper() else _an(term)) + before[d.end(1) :]
            if len(before) > opening and len(text[: m.start()]) == opening:  # an article now opens the sentence
                before = before[:opening] + before[opening].upper() + before[opening + 1 :]
            elif len(before) == opening:
                word = word[:1].upper() + word[1:]
            text = before + word + text[m.end() :]
    return text


def _glued(text: str, start: int, end: int) -> bool:
    """The match is part of a longer word: glued to letters, or by a hyphen ("dog" is not in "dog-food")."""
    before, after = text[max(start - 2, 0) : start], text[end : end + 2]
    return (bool(before) and before[-1].isalnum() and text[start].isalnum()) or before[-2:-1].isalnum() and \
        before[-1:] == "-" or (bool(after) and after[0].isalnum() and (text[end - 1].isalnum() or after[0].isdigit())) \
        or after[:1] == "-" and after[1:].isalnum()


def _term_key(src: str) -> tuple:
    return _key(src) if src != src.lower() else _folded(_key(src))


def merged(base: Glossary | None, extra: Glossary | None) -> Glossary | None:
    """base's terms and extra's, extra's target where both have a term (a request's over a server's)."""
    if not (base and extra):
        return base or extra
    terms = {_term_key(src): (src, tgt) for src, tgt in (*base.terms, *extra.terms)}
    return Glossary(tuple(terms.values()), base.languages)


def parse(lines: list[str], name: str, unit: str = "line", most: int = MAX_TERMS) -> Glossary:
    """A glossary from its TSV lines: source TAB target; '#' lines and blank ones skipped; a first line
    'source TAB target' is a header. Anything else malformed is refused in one line naming the line (or
    `unit`: an entry of a request's glossary); more than `most` terms too."""
    targets: dict[tuple, tuple[str, str, int]] = {}
    terms, lines_of = [], []
    for n, line in enumerate(lines, 1):
        line = line.strip("\r\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cells = [c.strip() for c in line.split("\t")]
        if tuple(c.lower() for c in cells) == HEADER and not terms:
            continue
        where = f"{name}: {unit} {n}"
        if len(cells) != 2:
            raise UserError(f"{where}: {len(cells)} column{'s' * (len(cells) != 1)}, not 2: give source TAB target")
        src, tgt = (" ".join(c.split()) for c in cells)
        if not src or not tgt:
            raise UserError(f"{where}: the {'source' if not src else 'target'} term is empty")
        if max(len(src), len(tgt)) > MAX_TERM_CHARS:
            raise UserError(f"{where}: a term longer than {MAX_TERM_CHARS} characters: a glossary holds terms")
        if not re.search(r"\w", src):
            raise UserError(f"{where}: the source term {src!r} has no letter or digit to find in a text")
        key = _term_key(src)
        if key in targets and targets[key][0] != tgt:
            raise UserError(f"{where}: {src!r} again, now as {tgt!r}; {unit} {targets[key][2]} gave "
                            f"{targets[key][0]!r}: keep one")
        if key not in targets:
            targets[key] = (tgt, src, n)
            terms.append((src, tgt))
            lines_of.append(n)
        if len(terms) > most:
            raise UserError(f"{where}: more than {most:,} terms: a glossary holds terms, not a corpus")
    return Glossary(tuple(terms), lines=tuple(lines_of))


def read(path: Path) -> Glossary:
    """A glossary file (UTF-8, or UTF-16 with a BOM), every error one line naming the file and the line."""
    try:
        if path.is_dir():
            raise UserError(f"{path}: a directory, not a glossary file (TSV: source TAB target)")
        if path.stat().st_size > MAX_FILE_BYTES:
            raise UserError(f"{path}: larger than {MAX_FILE_BYTES >> 20} MB: a glossary holds terms, not a corpus")
        data = path.read_bytes()
    except OSError as e:
        raise UserError(f"cannot read the glossary {path}: {e.strerror or e}") from None
    return parse(read_lines(data, str(path)), str(path))


def with_terms(text: str, spans: list[tuple[int, int]], glossary: Glossary) -> list[tuple[int, int]]:
    """The spans with the glossary's terms among them: a kept span overlapping a term gives way to it ("Windows
    11" as a term, not the number), one beside it with spaces only between is one span with it ("Invoice 5":
    two placeholders side by side the model lost)."""
    terms = [(s, e) for s, e, _ in glossary.find(text)]
    if not terms:
        return spans
    others = [(s, e) for s, e in spans if not any(s < te and ts < e for ts, te in terms)]
    out: list[list[int]] = []  # start, end, whether it holds a term
    for s, e in sorted(others + terms):
        term = (s, e) in terms
        if out and not text[out[-1][1] : s].strip() and not (term and out[-1][2]):  # (two terms: two placeholders)
            out[-1][1:] = [e, term or out[-1][2]]
        else:
            out.append([s, e, term])
    return [(s, e) for s, e, _ in out]


def targets(text: str, spans: list[tuple[int, int]], glossary: Glossary) -> tuple[str, ...]:
    """Each span's text as it is to come back: each term in it as its target, the rest as it came."""
    found = glossary.find(text)
    outs = []
    for s, e in spans:
        inside = [(a, b, t) for a, b, t in found if s <= a and b <= e]
        ends = [s] + [b for _, b, _ in inside]
        outs.append("".join(text[x:a] + t for x, (a, _, t) in zip(ends, inside)) + text[ends[-1] : e])
    return tuple(outs)


def check(glossary: Glossary, unknown_source: Callable[[str], list[str]], unknown_target: Callable[[str], list[str]],
          translate: Callable[[list[str]], list[str]]) -> list[str]:
    """What `mtcli glossary check` reports, a line each: terms whose words the model's vocabularies cannot
    spell (`unknown_*`: the words of a text with pieces unknown), and terms whose target the model does not
    write for the term alone (`translate`): those the glossary changes. Either way the glossary puts the
    target in; the model cannot learn or write such a term by itself (`mtcli finetune` can teach it one)."""
    own = translate([src for src, _ in glossary.terms])
    report = []
    for (src, tgt), line, out in zip(glossary.terms, glossary.lines or [0] * len(own), own):
        where = f"line {line}: {src!r} -> {tgt!r}"
        if words := unknown_source(src):
            report.append(f"{where}: the model cannot read {', '.join(map(repr, words))} (unknown pieces)")
        if words := unknown_target(tgt):
            report.append(f"{where}: the model cannot write {', '.join(map(repr, words))} (unknown pieces)")
        if not re.search(rf"(?<!\w){re.escape(tgt)}(?!\w)", out, re.IGNORECASE):
            report.append(f"{where}: the model writes {out!r} for the term alone")
    return report
