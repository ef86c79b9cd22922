"""Words of the target language inside a source sentence (attack 2026-12-03: N, L): a word the model never learned on
its source side (Engine.familiar) that it writes on its target side (Engine.target) is the target language already.
The model made words of neither language of them ("Mañana tengo a meeting con el boss." -> "I have a living in boston
tomorrow.", "meeting" and "boss" unknown to it), and a title quoted in the target language it translated as if it
were the source ('El libro se llama "The Catcher in the Rye".' -> '... "The Catcher doesn't hear Rye".', a negation
made up). Such words are kept as they came, as a name the model never learned is (the already stage; a quotation:
quotes.asides), and the line's warning names them."""

from __future__ import annotations

from mtcli.errors import quoted
from mtcli.text.acronyms import _merged
from mtcli.text.agreement import _ES_ARTICLE, agreeing
from mtcli.text.glossary import Glossary
from mtcli.text.sentence import Context, Engine, NBest, Sentence, each
from mtcli import lazy_re

_WORD = lazy_re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
LANGUAGE = {"en": "Spanish", "es": "English"}  # a source's target language, named


def other(word: str, engine: Engine) -> bool:
    """A word of two letters or more the model never learned on its source side and writes on its target side."""
    low = word.lower()
    return len(low) > 1 and low not in engine.familiar and low in engine.target


def in_target(words: str, engine: Engine) -> bool:
    """A quotation in the target language already: more of its words the target's only (`other`) than the source's
    ('"The Catcher in the Rye"': "in" is a Spanish source's too; not '"Ven aquí."', nor '"no problem"'). Its names
    count neither way (an English source's '"Hi, Louis"': the Spanish side writes "Louis" too): of a quotation not in title case, only its
    lowercase words and its first."""
    found = _WORD.findall(words)
    if not all(w[0].isupper() for w in found if len(w) > 3):
        found = found[:1] + [w for w in found[1:] if w.islower()]
    return sum(other(w, engine) for w in found) > sum(w.lower() in engine.familiar for w in found)


def _article(text: str, at: int) -> str:
    """The English article a Spanish one right before `at` asks for ("the", "a"), or ""."""
    m = _ES_ARTICLE.search(text, 0, at)
    return "" if not m else "the" if m[1] else "a"


class Already:
    """Each word of the target language in the sentence, lowercase (a capitalised one is a name: "Louis" is a word of
    the Spanish side), kept (a span: a run of them one, spans.py) and named in a warning; back, what is before each
    made to fit it as before a glossary's term (agreement.py): a Spanish determiner its gender and number ("los 50"
    -> "la cerveza"), an English article its first sound, and the article a Spanish one before it asks for, which a
    name's placeholder lost ("con el boss" -> "with Tom" -> "with the boss")."""

    name = "already"

    def strip(self, s: Sentence, c: Context) -> bool:
        if not (c.options.protect and c.engine.target and c.engine.familiar):
            return True
        found = [m for m in _WORD.finditer(s.text) if m.group().islower() and other(m.group(), c.engine)
                 and not any(a <= m.start() < b for a, b in s.spans)]  # (a span's already: "pdf" of "a.pdf")
        words = _WORD.findall(s.text) if found else ()
        if found and 2 * sum(other(w.lower(), c.engine) for w in words) <= len(words):  # (more: a sentence of the
            # other language, the line language test's to warn about: "--from es" on English had every word kept)
            s.spans = _merged([m.span() for m in found], s.spans)
            kept = [(a, b) for a, b in s.spans if any(a <= m.start() < b for m in found)]
            es = c.options.source == "es"
            s.aside[self.name] = ([(s.text[a:b], _article(s.text, a) if es else "") for a, b in kept],
                                  Glossary((), ("es", "en") if es else ("en", "es")))
            words = ", ".join(dict.fromkeys(quoted(m.group()) for m in found))
            s.notes.append(f"{words} {'is' if len(found) == 1 else 'are'} {LANGUAGE[c.options.source]} already: kept "
                           "as typed")
        return True

    def restore(self, s: Sentence, out: NBest, items) -> NBest:
        if self.name not in s.aside:
            return out
        terms, glossary = s.aside[self.name]
        return each(out, lambda t: agreeing(t, terms, glossary))
