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

from mtcli import guards
from mtcli.errors import UserError
from mtcli.text.read import read_lines
from mtcli import lazy_re

MAX_TERMS = 10_000  # a glossary is terms, not a corpus: more is an error (or the wrong file)
MAX_TERM_CHARS = 200
MAX_FILE_BYTES = 4 << 20
HEADER = ("source", "target")
_TOKEN = lazy_re.compile(r"\w+|[^\w\s]")
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
        data = guards.read_once(path, MAX_FILE_BYTES)  # a named pipe with no writer: refused, not waited for
        if len(data) > MAX_FILE_BYTES:
            raise UserError(f"{path}: larger than {MAX_FILE_BYTES >> 20} MB: a glossary holds terms, not a corpus")
    except OSError as e:
        raise UserError(f"cannot read the glossary {path}: {e.strerror or e}") from None
    return parse(read_lines(data, str(path)), str(path))


def with_terms(text: str, spans: list[tuple[int, int]], glossary: Glossary) -> list[tuple[int, int]]:
    """The spans with the glossary's terms among them: a kept span overlapping a term gives way to it ("Windows
    11" as a term, not the number) but for what of it the term leaves ("20" of "20 euros": dropped whole, the
    model could drop the number unwarned), one beside it with spaces only between is one span with it ("Invoice
    5": two placeholders side by side the model lost)."""
    terms = [(s, e) for s, e, _ in glossary.find(text)]
    if not terms:
        return spans
    others = [part for span in spans for part in _outside(text, span, terms)]
    out: list[list[int]] = []  # start, end, whether it holds a term
    for s, e in sorted(others + terms):
        term = (s, e) in terms
        if out and not text[out[-1][1] : s].strip() and not (term and out[-1][2]):  # (two terms: two placeholders)
            out[-1][1:] = [e, term or out[-1][2]]
        else:
            out.append([s, e, term])
    return [(s, e) for s, e, _ in out]


def _outside(text: str, span: tuple[int, int], terms: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of a span outside the terms that overlap it, without their edges' spaces."""
    parts, at = [], span[0]
    for ts, te in sorted(t for t in terms if span[0] < t[1] and t[0] < span[1]) + [(span[1], span[1])]:
        if piece := text[at:ts].strip():
            parts.append((a := text.index(piece, at), a + len(piece)))
        at = max(at, te)
    return parts


def targets(text: str, spans: list[tuple[int, int]], glossary: Glossary) -> tuple[str, ...]:
    """Each span's text as it is to come back: each term in it as its target, the rest as it came."""
    found = glossary.find(text)
    outs = []
    for s, e in spans:
        inside = [(a, b, t) for a, b, t in found if s <= a and b <= e]
        ends = [s] + [b for _, b, _ in inside]
        outs.append("".join(text[x:a] + t for x, (a, _, t) in zip(ends, inside)) + text[ends[-1] : e])
    return tuple(outs)


def as_given(text: str, targets: list[str], opening: bool = True) -> str:
    """The text with each target the model wrote in another case as the glossary writes it ("la Tierra" ->
    "la tierra"): the model's own translation holds the term. `opening`: a capital that opens the text kept."""
    def given(m: re.Match, target: str, lead: int) -> str:
        first = opening and m.group()[:1].isupper() and m.start() <= lead
        return target[:1].upper() + target[1:] if first else target

    for target in dict.fromkeys(targets):  # (each once: a line may hold one term many times)
        lead = len(text) - len(text.lstrip(" ¿¡\"'«("))  # (what may come before a capital that opens the text)
        words = r"\s+".join(map(re.escape, target.split()))
        text = re.sub(rf"(?<!\w){words}(?!\w)", lambda m, t=target, n=lead: given(m, t, n), text, flags=re.IGNORECASE)
    return text


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
