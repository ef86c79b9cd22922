"""The spans stage: what protect.py finds kept out of the model's way as placeholders (put back by the retry
ladder, retry.py), a sentence of spans only answered as it is, and dates and titles written anew in the target
language (kinds.py's rewrites) once the translation holds them."""

from __future__ import annotations

import re
from dataclasses import replace

from mtcli.text import protect
from mtcli.text.acronyms import TOKEN, leads, written
from mtcli.text.dates import month_alone
from mtcli.text.firstnames import first_name
from mtcli.text.kinds import EUROS, KIND, MONEY, PRIVATE, as_shown
from mtcli.text.numerals import ends_one_of, without_possessive
from mtcli.text.tables import TABLES, rewritten
from mtcli.text.retry import ladder
from mtcli.text.standins import NAMES, addressed, joined, stand_ins, stood_in
from mtcli.text.sentence import LETTER, Context, NBest, Sentence, drop_spans, each, is_name, uncased
from mtcli import lazy_re

QUANTITY = lazy_re.compile(KIND["quantity"].pattern, re.IGNORECASE)  # (no currency after its placeholder either)
AMPERSAND = lazy_re.compile(KIND["ampersand name"].pattern)  # ("AT&T": a name's placeholder; "50 has ..." -> "En los 50")
_PLURAL = lazy_re.compile(r"[A-Z]{2,6}s")  # an acronym's plural is no name: "two Tom" came out "dos a PDFs"


class Spans:
    """Each span a placeholder the model copies (protect.py says how well); numbers, symbols and punctuation
    alone are nothing for the model (verbatim). A date or a title written anew (in Spanish for an English source,
    in English for a Spanish one) is not kept; the rest of its span is: "May 5, 2025 10:00" keeps "10:00", "Mr.
    Brown" "Brown"."""

    name = "spans"

    def strip(self, s: Sentence, c: Context) -> bool:
        if s.masked is None:  # (the glossary's stage has masked a sentence with terms its own way: terms.py)
            s.masked = _own(masked(s.text, s.spans, c), s, c)
        s.outside = drop_spans(s.text, s.spans)
        # (the months an English source has no article before: none before them in the translation; not a term's)
        months = [(a, o) for (a, _), o, k in zip(s.spans, s.masked.spans, s.masked.sources)
                  if c.options.source == "en" and month_alone(k, "en") == o]
        articles = {m.end() for m in _ARTICLE_BEFORE.finditer(s.text)} if months else set()  # (once, not per month)
        bare = {o for a, o in months if a not in articles}
        s.aside[self.name] = c.options.source, bare
        if not LETTER.search(s.outside):
            # numbers, symbols, punctuation, terms: nothing for the model (but Spanish's opening marks: English has none)
            out = _spans_out(s.text, s.spans, s.masked.spans)
            s.verbatim = out if c.options.source == "en" else out.replace("¿", "").replace("¡", "")
            return False
        s.text = s.masked.text
        return True

    def restore(self, s: Sentence, out: NBest, items) -> NBest:
        spans, (source, bare) = s.masked.spans if s.masked else (), s.aside.get(self.name, ("en", set()))
        dates = {span: anew for span in spans if (anew := rewritten(span, source)) != span}  # (in the target language)
        table = TABLES[source]
        sources = (s.masked.sources if s.masked else ()) or spans  # (an acronym written anew kept as typed: spared)
        typed = [k if written(k, source) == o != k else o for o, k in zip(spans, sources)]
        parts = [p.strip(" ,") for span in typed for p in (table.written_anew.sub("\0", span).split("\0")
                                                           if span in dates or table.title.search(span) else [span])]
        s.kept.extend(k for part in parts if part for k in as_kept(part, items))
        months = tuple(o for o, k in zip(spans, s.masked.sources) if o != k) if s.masked else ()
        money = [dates.get(span, span) for span in spans if MONEY.fullmatch(span) or QUANTITY.fullmatch(span)]
        kept = (*spans, *dates.values())  # (as written anew: "10 de julio" is "July 10" by then)
        shown = s.masked.text if s.masked and source == "es" else ""  # (a greeting given its own stop: standins.py)
        return each(out, lambda t: _one_currency(without_possessive(_dated(joined(shown, t), dates, months, bare), kept),
                                                money))


def _own(m: protect.Masked, s: Sentence, c: Context) -> protect.Masked:
    """A month's name alone comes back in the target language, as a glossary's term does (terms.py), and an amount in
    euros as typed: the sentence tried first with them as they came (retry.OWN), kept where the model wrote each
    itself, else as placeholders (no retry.SWAP: a word swapped in wrote worse). benchmarks/months.py: en-es BLEU
    37.0 masked at once, 34.0 with SWAP, 37.3 so; es-en 41.3, 45.5, 46.2; the right month 99-100 % each way (55.7 %
    and 65.4 % before). An amount's placeholder alone changed the sentence ("It costs 50." -> "Se cuesta 50."):
    benchmarks/prices.py."""
    outs = tuple(month_alone(span, c.options.source) or span for span in m.spans)
    typed = [out != k or bool(EUROS.fullmatch(k)) for out, k in zip(outs, m.spans)]
    anew = tuple(written(out, c.options.source) for out in outs)  # (an acronym the target writes otherwise: "UN" -> "ONU")
    if not any(typed):
        return replace(m, spans=anew, sources=m.spans) if anew != outs else m
    text, places, shown = _shown(s.text, s.spans, typed, c.options.source)
    return replace(m, spans=anew, sources=m.spans, own=replace(masked(text, places, c), sources=shown))


def _shown(text: str, spans: list[tuple[int, int]], typed: list[bool], source: str):
    """retry.OWN's sentence: the spans `typed` as they came, an amount in euros as the model reads one (kinds.as_shown);
    the other spans' places in it (to be masked), and the amounts as shown (its Masked.sources, for retry)."""
    out, places, shown, at, shift = [], [], [], 0, 0
    for (a, b), own in zip(spans, typed):
        form = as_shown(text[a:b], source) if own and EUROS.fullmatch(text[a:b]) else text[a:b]
        shown += [form] if EUROS.fullmatch(text[a:b]) else []
        out.append(text[at:a] + form)
        places += [] if own else [(a + shift, a + shift + len(form))]
        shift, at = shift + len(form) - (b - a), b
    return "".join(out) + text[at:], places, tuple(shown)


def masked(text: str, spans: list[tuple[int, int]], c: Context) -> protect.Masked:
    """The text with its spans as the placeholders of the engine's ladder (none a word the text has: retry.OWN's
    sentence writes some spans as typed, "It costs 50 euros."), a name's a name."""
    words = protect.mask(text, spans, ("",))  # (the sentence's own words: no typed number is read as a placeholder)
    leading = [leads(text, a) for a, _ in spans]  # (an acronym the sentence opens with: a name's placeholder)
    seq = stood_in(words.spans, ladder(words.text, c.engine.placeholders)[0], c.options.source, words.text)
    seq = stand_ins(text, spans, c.items, _named(words, seq, c, leading), c.options.source)
    m = protect.mask(text, spans, seq)
    return replace(m, text=addressed(m.text, text, spans, seq, c.items, c.options.source))


def _named(masked: protect.Masked, seq: tuple[str, ...], c: Context, leading: list[bool]) -> tuple[str, ...]:
    """`seq`, with a name's placeholder a name the model copies ("50 called while you were out." came out "El 50 y
    no estabas fuera.") that the sentence does not have already. `masked`: the sentence without its spans."""
    bare = c.options.case and uncased(masked.text)  # (the sentence's words as typed)
    names = [(is_name(span, c.engine.familiar, bare) and not _PLURAL.fullmatch(span)) or bool(AMPERSAND.fullmatch(span))
             or first_name(span)
             or lead and bool(TOKEN.fullmatch(span)) for span, lead in zip(masked.spans, leading)]
    if not any(names):
        return seq
    words = set(re.findall(r"\w+", masked.text.lower()))  # ("TOM" is made "Tom": casing)
    name = next((n for n in NAMES if n.lower() not in words), None)
    if name is None:
        return seq
    return tuple(name if is_ else seq[i % len(seq)] for i, is_ in enumerate(names))


def _spans_out(text: str, spans: list[tuple[int, int]], outs: tuple[str, ...]) -> str:
    """The text with each span as it is to come back (a glossary term as its target)."""
    ends = [0] + [e for _, e in spans]
    return "".join(text[a:s] + out for a, (s, _), out in zip(ends, spans, outs)) + text[ends[-1]:]


# an article before a month's name: the English's ("the July of that year", and Spanish's "el febrero pasado" for
# "last February"); the Spanish the model put before its placeholder
_ARTICLE_BEFORE = lazy_re.compile(r"(?<!\w)(?:the|last|next|this|that|previous|following)\s+", re.IGNORECASE)
_ARTICLE = r"(?:(el|la|los|las)|(del)|(al)) "  # (a Spanish translation's)


def _dated(text: str, dates: dict[str, str], months: tuple[str, ...], bare: set[str] = frozenset()) -> str:
    """Each date kept in the text (as the source had it) written the target's way; no Spanish article before a month
    the English had none before (`bare`: its placeholder brought one, "Until 50." -> "Hasta los 50.": "Hasta los
    mayo.", "El julio está caliente."); a month's name alone that opens the text gets a capital (Spanish writes
    months lowercase: "December is ..." -> "Diciembre es ...")."""
    def without(m: re.Match) -> str:  # ("del" -> "de", "al" -> "a", in the article's case)
        left = {2: "de ", 3: "a "}.get(m.lastindex, "")
        return left.upper() if m.group().isupper() else left.capitalize() if m.group()[0].isupper() else left

    if dates:  # (in one pass, the longest first: "1.000" had been rewritten inside "1.000,25", "1,000,25")
        text = re.sub("|".join(map(re.escape, sorted(dates, key=len, reverse=True))), lambda m: dates[m.group()], text)
    for month in bare:
        text = re.sub(rf"(?<!\w){_ARTICLE}(?={re.escape(month)}(?!\w))", without, text, flags=re.IGNORECASE)
    at = len(text) - len(text.lstrip("¿¡\"«'"))
    if any(text.startswith(month, at) for month in months):
        text = text[:at] + text[at : at + 1].upper() + text[at + 1 :]
    return text


_CURRENCY_AFTER = lazy_re.compile(r" (?:d[oó]lar(?:es)?|dollars?|euros?|pesos?|libras?|pounds?|bucks)(?!\w)",
                                  re.IGNORECASE)


def _one_currency(text: str, money: list[str]) -> str:
    """An amount kept with its currency gets none the model wrote after its placeholder ("She earns 50 a month." ->
    "Ella gana 50 dólares al mes.": "2,000 euros dólares"; "€50 euros" had come out "50 euros euros")."""
    ends = ends_one_of(money)
    return _CURRENCY_AFTER.sub(lambda m: "" if ends(text, m.start()) else m.group(), text)


def as_kept(span: str, items: dict[str, tuple[str, ...]]) -> list[str]:
    """A kept span as the text had it: markup kept whole written out ("<img src=x>"), markup whose text
    was translated (an aside, a link) left out, the span cut there; no placeholder character, ever (a
    document's own private-use character, an icon font's glyph, is its text and stays)."""
    def kept(m: re.Match) -> str:
        parts = items.get(m.group())
        if parts is None:
            return m.group()
        return "\0" if len(parts) > 1 else parts[0]  # (an item's verbatim parts are the document's own text)

    if not PRIVATE.search(span):
        return [span]
    return [k.strip() for k in PRIVATE.sub(kept, span).split("\0") if k.strip()]
