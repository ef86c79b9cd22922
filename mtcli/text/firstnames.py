"""The first names stage: a first name the model learned as a word kept as a name (attack 2026-12-03: M). A capitalised
word the model never learned is a name kept already (spans.py); these it learned, as the word they also are ("Diana"
the target, "Clara" clear, "Luna" the moon) or from a line or two ("Maria", twice in the corpus's English), and it
translated them so: "Say hello to Maria." -> "Dile hola a Marte.", "Say "hola" to Maria." -> "Di "hola" a marzo."
Kept in a sentence typed with its case, with the capitalised words beside it ("Santa Clara"); one that is a word
too not as the sentence's first word ("Leo un libro.", "Rose early."); the model sees a name's placeholder (spans.py).
Not the names the model copies or renders as the corpus does ("Tom", "Mary", "María" -> "Mary": TWINS)."""

from __future__ import annotations

import unicodedata

from mtcli.text.acronyms import _merged
from mtcli.text.sentence import Context, NBest, Sentence, uncased
from mtcli import lazy_re

# written for this stage: first names of both languages the corpus has a line or two of (data.familiar_words holds
# them), and, in WORDS, those that are words too (of the other language or the same one); not months ("May", "June",
# "April"), nor words capitalised inside sentences as often as names ("Will", "Hope", "Art"; Spanish "el Sol", "la
# Luna", "la Paz", "la Cruz Roja", "Gloria a Dios")
NAMES = frozenset("""Maria Mario Julia Diana Lucía Lucia Pilar Marco Marcos Marie Mercedes Olivia Sofia Sofía Laura
Marta Carmen Elena Sara Paula""".split())
WORDS = frozenset("""Rosa Rosario Clara Linda Lisa Ángel Angel Dolores Marina Rocío Victoria Leo Blanca
Esperanza Soledad Consuelo Amparo Azucena Margarita Violeta Celeste Carol Grace Rose Joy Faith Ray Dawn Frank Jack Bill
Mark Pat Sue Rob Max Holly Ivy Daisy Lily Ruby Pearl Amber Crystal Violet Penny Sandy Iris""".split())
AS_WORDS = NAMES | WORDS
# a name and the one the corpus writes for it in the other language (a translation keeps a name so; mtcli.confidence
# names a name lost only where neither is in it)
TWINS = {"María": "Mary", "Tomás": "Tom", "Juan": "John", "Alicia": "Alice", "Pablo": "Paul", "Jesús": "Jesus",
         "Pedro": "Peter", "Guillermo": "William", "Jorge": "George", "Carlos": "Charles", "Enrique": "Henry",
         "Luis": "Louis", "José": "Joseph", "Miguel": "Michael", "Jaime": "James", "Isabel": "Elizabeth", "Ana": "Ann",
         "Lucía": "Lucy", "Elena": "Helen", "Juana": "Jane", "Marta": "Martha", "Roberto": "Robert",
         "Ricardo": "Richard", "Antonio": "Anthony", "Andrés": "Andrew", "Mateo": "Matthew", "Lucas": "Luke",
         "Marcos": "Mark", "Felipe": "Philip", "Esteban": "Stephen", "Sofía": "Sophie"}
_BOTH = {**TWINS, **{b: a for a, b in TWINS.items()}}
# a run of capitalised words (not ALL CAPS) apart by single spaces: "Maria", "Santa Clara"
_RUN = lazy_re.compile(r"(?<![\w'’-])[A-ZÁÉÍÓÚÑÜ][a-záéíóúñü]+(?: [A-ZÁÉÍÓÚÑÜ][a-záéíóúñü]+)*(?![\w'’-])")
_WORD = lazy_re.compile(r"[^\W\d_]+")


def names_inside(text: str) -> list[tuple[int, int]]:
    """Where the names of AS_WORDS are in a sentence, with the capitalised words beside them; the sentence's first word
    only if it is one of NAMES, or one of WORDS before another capitalised word ("Rosa Pérez": alone, a sentence
    opening with it opens as often with the word, "Leo un libro.", "Rose early."; "Call Sofia" is "Sofia")."""
    first, out = _WORD.search(text), []
    for m in _RUN.finditer(text):
        a, b = m.span()
        if first and a == first.start() and first.group() not in NAMES:  # (its capital the sentence's)
            a = a if first.group() in WORDS and " " in m.group() else text.find(" ", a, b) + 1 or b  # ("Rosa Pérez")
        if any(w in AS_WORDS for w in text[a:b].split(" ")):
            out.append((a, b))
    return out


def first_name(span: str) -> bool:
    """A span holding a name of AS_WORDS (a name's placeholder for it: spans.py)."""
    return any(w in AS_WORDS for w in _WORD.findall(span))


def lost(source: str, translation: str) -> list[str]:
    """The first names of AS_WORDS and TWINS in the source (its first word one of WORDS: no name) that neither the
    translation nor its twin has, as typed (accents and case aside): a name the model made a word ("Maria" ->
    "Marte")."""
    have = {_bare(w) for w in _WORD.findall(translation)}
    names = [w for k, w in enumerate(_WORD.findall(source)) if w in NAMES or w in _BOTH or k and w in WORDS]
    return list(dict.fromkeys(w for w in names if _bare(w) not in have and _bare(_BOTH.get(w, w)) not in have))


def _bare(word: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFD", word.casefold()) if not unicodedata.combining(ch))


class FirstNames:
    """A first name the model learned as a word, inside a sentence, kept (a span: spans.py gives it a name's
    placeholder); nothing to put back but the span."""

    name = "first names"

    def strip(self, s: Sentence, c: Context) -> bool:
        # (a model without a lexicon knows no words: every word goes to it, as sentence.unknown_pieces has it)
        if c.options.protect and c.engine.familiar and not uncased(s.text) and (found := names_inside(s.text)):
            s.spans = _merged(found, s.spans)
        return True

    def restore(self, s: Sentence, out: NBest, items) -> NBest:
        return out

