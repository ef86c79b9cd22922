"""Which language a text is in, English or Spanish, or neither when it holds nothing to tell.

Built on py3langid (a naive Bayes classifier over byte n-grams, its model inside the wheel, restricted here to
English and Spanish), with a layer of its own for short lines, where the n-grams say little: words that belong
to one language only (el, los, te, se, yo / the, is, you, I), the letters ñ á í ó ú and the marks ¿ ¡, and
English contractions (don't, I'm). The library's probability and this evidence are added as log-odds.
docs/langid.md has the measurements that chose the library and this layer (benchmarks/langid.py).

    detect("¿Dónde está la estación de autobuses?")  -> Detection(language="es", confidence=0.99...)
    detect("12:30")                                  -> Detection(language=None, confidence=0.0)
    detect("Hotel", prior="es")                      -> Spanish: a word of both languages, the stream's decides

Nothing to tell (language None): a text with no Latin letter once URLs, e-mail addresses, digits, punctuation,
symbols, emoji and a template's placeholders (`{name}`, `%s`, `${count}`, `&nbsp;`: text/kinds.py) are left out.
A word that both languages write alike ("No", "Hotel", "Taxi", "OK", a name)
gets a language with a confidence near 0.5, and a prior decides it; with no prior and no evidence either way
(exactly 0.5) it is English, mtcli's first direction.

The prior: the language most lines of a stream have had so far (detect_stream keeps it), counted as odds of
PRIOR_ODDS to 1 in its favour. A line goes the prior's way unless its own evidence is stronger than that, i.e.
unless it alone would be told with a confidence of at least PRIOR_ODDS / (PRIOR_ODDS + 1) (0.75) for the
other language; the confidence returned is the one with the prior counted in.

Importing this module does not load the library: the first detection does, once per process, under a lock;
after that everything is read-only, so one process may detect from many threads. The model's English and Spanish
part is cached decompressed in the user cache directory (made at the first load, ~0.6 s; read memory-mapped
after that, ~26 ms).
"""

from __future__ import annotations

import math
import mmap
import re
import threading
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from mtcli import lazy_re

LANGUAGES = ("en", "es")
PRIOR_ODDS = 3.0  # a running majority counts as 3:1 for its language (docs/langid.md: chosen on the dev half)
# the log-odds a line of acronyms only gets for the language whose tables alone know them (text/acronyms.py: "UN."
# English, "ONU." Spanish): more than a prior's log(3), as a line's own word of one language
ACRONYM_ODDS = 2.0
WORD_WEIGHT = 2.0  # log-odds of one word that only one of the languages has
MARK_WEIGHT = 3.0  # log-odds of ñ á í ó ú ü ¿ ¡ (Spanish) or of an English contraction, once a line
# the log-odds a text's words outside its quotations need to tell its language alone (a confidence of 0.8): "a true
# idiom." after '"Time is gold"' tells little, and the whole line is read
QUOTED_ODDS = math.log(4.0)
STRONG = 0.8  # detect_stream counts a line towards the majority when its own confidence is at least this

# Written out for this module: frequent words, greetings and courtesies that are words of one of the two languages only. Words that both
# spell alike are in neither (no, a, me, he, son, come, sin, red, once, era, has, van, dice, pie, fin, real).
# Spanish forms are kept without their accents too, for Spanish typed without them.
_SPANISH = """
el la los las lo le les un una unos unas y o de del al en es está están estoy estás estamos soy eres somos sois
fue fui fueron ser estar sido que qué por para con pero porque muy más ya yo tú tu él ella ellos ellas nosotros
nosotras vosotros usted ustedes mi mis tus su sus nuestro nuestra nuestros vuestro se te nos os eso esto este esta
ese esa estos esas aquí allí ahí hay tiene tengo tienes tienen tenemos hace hizo puede puedo puedes quiero quiere
quieres dónde cuándo cómo quién quiénes cuál cuánto cuánta cuántos donde cuando como quien cual también tampoco
nunca siempre ahora hoy ayer mañana bien sí si pues entonces todo todos toda nada algo alguien nadie otro otra
otros mucho mucha muchos muchas poco hasta desde sobre entre hacia según así aún ni dame vamos voy vas va han
hemos había estaba estaban dijo mismo cada uno dos tres
hola gracias adiós perdón favor buenos buenas días noches vale salud bienvenido bienvenida bienvenidos claro
disculpe siento
"""
_ENGLISH = """
the an and or of to in on at is are was were be been being am i you she it we they my your his her its our their
us him them this that these those what where when who why how which whom whose do does did done not yes have had
having will would can could should must shall with for from by about there here all some any very too just so if
but up out get got go goes going went let again always never now today tomorrow yesterday much many more most
only also because than then one
don't doesn't didn't what's it's i'm you're we're they're isn't aren't wasn't weren't can't won't i've i'll i'd
he's she's that's there's let's who's
hello hi thanks thank please sorry goodbye bye welcome morning night cheers excuse problem worries sure great fine
"""
_ES_WORDS = frozenset(w for w in _SPANISH.split()) | frozenset(
    "".join(c for c in unicodedata.normalize("NFD", w) if not unicodedata.combining(c)) for w in _SPANISH.split())
_EN_WORDS = frozenset(_ENGLISH.split())

# (a scheme, an e-mail address tried only where one can start: tried at every character of a long token without
# spaces, "x" * 100,000 or a base64 image in a page, the pattern ran to its end each time: 86 s)
_URL = lazy_re.compile(r"(?:(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*://|www\.)\S+|(?<!\S)[^\s@]+@\S+\.\w+", re.IGNORECASE)
_LATIN_WORD = lazy_re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿĀ-ɏ]+(?:['’][A-Za-zÀ-ÖØ-öø-ÿĀ-ɏ]+)*")
# an ICU message's structure is no evidence either: its type and selectors are English words ("{count, plural, one {un
# archivo} other {# archivos}}" was told English 0.99); the branches' words are (text/icu.py reads the message). Nor
# is it a word the check names (mtcli.confidence: "may have left out: 'one', 'other'")
ICU_STRUCTURE = lazy_re.compile(r"\{\s*[\w.\-]+\s*,\s*(?:(?:plural|selectordinal|select)\s*,(?:\s*offset:\s*\d+)?"
                                r"|(?:number|date|time|spellout|ordinal|duration|choice)\b[^{}]*\})"
                                r"|(?:(?<=[},])|(?<=\d\s))\s*(?:=\d+(?:\.\d+)?|[A-Za-z_][\w\-]*)(?=\s*\{)")  # (not inside a word: linear)
_SPANISH_MARKS = lazy_re.compile(r"[ñÑáÁíÍóÓúÚüÜ¿¡]")
_MARKUP = lazy_re.compile(r"<(script|style)\b.*?</\1\s*>|<!--.*?-->|<[^>]*>", re.IGNORECASE | re.DOTALL)
_CONTRACTION = lazy_re.compile(r"[A-Za-z](?:n['’]t|['’](?:s|m|re|ve|ll|d))\b", re.IGNORECASE)


@dataclass(frozen=True)
class Detection:
    """language: "en", "es", or None when the text holds nothing to tell; confidence: how likely that language
    is, 0.5 (a guess) to 1, and 0.0 with None."""

    language: str | None
    confidence: float


NOTHING = Detection(None, 0.0)

_lock = threading.Lock()
_identifier = None
_mapped: list = []  # the model's arrays memory-mapped from the cache (let_go)


def _classifier():
    """py3langid's identifier, restricted to English and Spanish; made once per process."""
    global _identifier
    if _identifier is None:
        with _lock:
            if _identifier is None:
                _identifier = _load_identifier()
    return _identifier


def _load_identifier():
    from py3langid.langid import LanguageIdentifier

    import numpy as np

    a = _model_arrays()
    _mapped[:] = [array for array in a.values() if isinstance(array, np.memmap)]
    # memoryviews: indexed from Python at the speed of array.array, without copying a memory-mapped cache
    identifier = LanguageIdentifier(a["ptc"], a["pc"], list(LANGUAGES), memoryview(a["nextmove"]),
                                    memoryview(a["out"]), norm_probs=True, tk_row=())
    # each state's row offset (row << 8), which py3langid's constructor makes as a list of 104,583 ints one by one
    # (~8 ms of CPU at each start), at once
    identifier.tk_row, identifier._rowbase = memoryview(a["row"]), memoryview(a["row"].astype(np.int64) << 8)
    return identifier


# py3langid's model file is LZMA-compressed (4.5 MB, 68 MB inside): decompressing it took a third of the CPU of
# `mtcli translate "The plant is green."`. Its English and Spanish part is kept decompressed in the user cache
# directory, one .npy file per array, memory-mapped: a process reads only the DFA rows its text visits.
CACHE_ARRAYS = {"nextmove": ("uint16", "uint32"), "row": ("uint16", "uint32"), "out": ("int32",),
                "ptc": ("float16",), "pc": ("float32",)}


def _model_arrays() -> dict:
    """py3langid's model cut to English and Spanish (naive Bayes columns ptc, pc; the DFA's distinct rows
    nextmove, each state's row and output feature): from the cache made for this py3langid and model file,
    else from the model file, then cached. A cache that cannot be read is made again; one that cannot be
    written is done without."""
    import py3langid
    from py3langid.langid import MODEL_DIR, MODEL_FILE

    path = MODEL_DIR / MODEL_FILE
    stat = path.stat()  # (its SHA-256, read and hashed at each start, cost a one-sentence translation ~5 ms)
    key = f"{py3langid.__version__}-{stat.st_size}-{stat.st_mtime_ns}"  # (importlib.metadata: ~15 ms to load)
    root = _cache_root()
    cached = _read_cache(root / key) if root else None
    if cached is not None:
        return cached
    arrays = _restricted(path)
    if root:  # and read back mapped: the arrays made here had stayed in the heap for the whole run (+20 MB)
        from mtcli import usercache

        usercache.write(root, key, arrays)
        return _read_cache(root / key) or arrays
    return arrays


def _cache_root():
    """The cache's directory (usercache.root: None in a home directory that does not exist)."""
    from mtcli import usercache

    return usercache.root("langid")


def _restricted(path) -> dict:
    """The model file's arrays, its classes cut to LANGUAGES (py3langid's set_languages, done once)."""
    import numpy as np
    from py3langid.modelio import load_model

    ptc, pc, classes, nextmove, row, out = load_model(path)
    columns = [classes.index(lang) for lang in LANGUAGES]
    return {"nextmove": np.frombuffer(nextmove, nextmove.typecode), "row": np.frombuffer(row, row.typecode),
            "out": np.asarray(out, np.int32), "ptc": np.ascontiguousarray(ptc[:, columns]), "pc": pc[columns]}


def _read_cache(directory) -> dict | None:
    """The cached arrays, memory-mapped, or None when they are missing or not what _restricted makes."""
    from mtcli import usercache

    a = usercache.read(directory, CACHE_ARRAYS)
    if a is None:
        return None
    (n_rows, rest), n_states = divmod(a["nextmove"].size, 256), a["row"].size
    sound = (all(a[name].dtype.name in dtypes and a[name].ndim == (2 if name == "ptc" else 1)
                 for name, dtypes in CACHE_ARRAYS.items())
             and rest == 0 and a["out"].size == n_states > 0 and a["ptc"].shape[1] == a["pc"].size == len(LANGUAGES)
             and int(a["row"].max()) < n_rows and -1 <= int(a["out"].min()) and int(a["out"].max()) < len(a["ptc"]))
    return a if sound else None


def let_go() -> None:
    """The pages of the model's arrays mapped from the cache given back (Linux; read again from the file's cached pages
    at the next detection): a file's lines are told a chunk at a time, and the DFA rows they visited (~30 MB) had
    stayed resident through each chunk's decoding, its peak. Arrays not mapped (no cache) are kept."""
    import sys

    if sys.platform.startswith("linux") and _mapped:
        from mtcli.kernels.jit import drop_pages

        page = mmap.PAGESIZE
        drop_pages([(a.ctypes.data // page * page, a.ctypes.data + a.nbytes) for a in _mapped])


def load() -> None:
    """Load the library's model now (a server at start-up) rather than at the first detection."""
    _classifier()


def without_markup(html: str) -> str:
    """An HTML text's words without its markup (tag and attribute names, scripts, styles are English)."""
    import html as entities

    return entities.unescape(_MARKUP.sub(" ", html))


def _words(text: str) -> list[str]:
    return [w.casefold().replace("’", "'") for w in _LATIN_WORD.findall(text)]


def _own_evidence(text: str, words: list[str]) -> float:
    """Log-odds for Spanish (positive) or English (negative) from the words and marks of the text."""
    score = 0.0
    for w in words:
        if w in _ES_WORDS:
            score += WORD_WEIGHT
        elif w in _EN_WORDS:
            score -= WORD_WEIGHT
    if _SPANISH_MARKS.search(text):
        score += MARK_WEIGHT
    if _CONTRACTION.search(text):
        score -= MARK_WEIGHT
    return score


def _log_odds(p: float) -> float:
    p = min(max(p, 1e-9), 1 - 1e-9)
    return math.log(p / (1 - p))


def _evidence(text: str) -> float | None:
    """Log-odds for Spanish over English without a prior; None when the text holds no Latin word."""
    from mtcli.text.icu import START  # (here: mtcli.text loads NumPy, this module's import not)
    from mtcli.text.acronyms import told
    from mtcli.text.kinds import MAYBE_TEMPLATE, TEMPLATE
    from mtcli.text.quotes import unquoted

    bare = _URL.sub(" ", text)
    # the text's own words without its quotations, where they tell a language well enough alone (a title quoted in the
    # other language: 'My favorite book is "Cien años de soledad".' was told Spanish)
    if (rest := unquoted(bare)) != bare and abs(own := _evidence(rest) or 0.0) >= QUOTED_ODDS:
        return own
    bare = ICU_STRUCTURE.sub(" ", bare) if START.search(bare) else bare
    # (placeholders' names are no evidence: "{user_name} %1" was told English 0.61, "Hello {nombre}" Spanish 0.90)
    bare = TEMPLATE.sub(" ", bare) if MAYBE_TEMPLATE.search(bare) else bare
    if (alone := told(bare)) is not None:  # (a line of acronyms: "USA.", "UN." had been told Spanish, "USE.", "A ONE.")
        return {"en": -ACRONYM_ODDS, "es": ACRONYM_ODDS}.get(alone)
    words = _words(bare)
    if not words:
        return None
    lang, p = _classifier().classify(bare)
    p_es = p if lang == "es" else 1.0 - p
    return _log_odds(p_es) + _own_evidence(bare, words)


def _decide(score: float | None, prior: str | None) -> Detection:
    if score is None:
        return NOTHING
    if prior is not None:
        if prior not in LANGUAGES:
            raise ValueError(f"prior must be one of {LANGUAGES} or None, not {prior!r}")
        score += math.log(PRIOR_ODDS) if prior == "es" else -math.log(PRIOR_ODDS)
    # the logistic of |score|: a long text's score (log-odds summed over its words) grows without bound, and
    # exp of a large positive number overflows
    return Detection("es" if score > 0 else "en", 1.0 / (1.0 + math.exp(-abs(score))))


def detect(text: str, prior: str | None = None) -> Detection:
    """The language of `text`; `prior` ("en", "es" or None), the language of the lines around it, decides a
    line whose own evidence is weaker than PRIOR_ODDS to 1 (see the module's docstring)."""
    return _decide(_evidence(text), prior)


def detect_many(lines: Iterable[str], prior: str | None = None) -> list[Detection]:
    """detect() for each line, with the same prior for all (py3langid has no batch call: a line costs ~0.1 ms)."""
    return [detect(line, prior) for line in lines]


def detect_stream(lines: Iterable[str], prior: str | None = None) -> Iterator[Detection]:
    """Line by line, the running majority as the prior of the next line: the language of most lines so far
    that were told by their own evidence with a confidence of at least STRONG (a tie keeps the prior before
    it; `prior` is the one before the first such line). Lines with nothing to tell do not count."""
    counts = {"en": 0, "es": 0}
    for line in lines:
        score = _evidence(line)
        yield _decide(score, prior)
        alone = _decide(score, None)
        if alone.language is not None and alone.confidence >= STRONG:
            counts[alone.language] += 1
            if counts["en"] != counts["es"]:
                prior = max(counts, key=counts.__getitem__)
