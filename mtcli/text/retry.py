"""The placeholder retry ladder: every sentence decoded at once; one whose placeholders did not all come back
tried again with other placeholders, unmasked, and at last in phrases of one span each, so that a span is
never lost (protect.restore refuses a half-copied placeholder)."""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from mtcli.errors import quoted
from mtcli.text import protect
from mtcli.text.budget import Budget
from mtcli.text.digits import made_up
from mtcli.text.glossary import as_given
from mtcli.text.kinds import EUROS, euros_as_typed
from mtcli.text.phrases import bare, capital_i, closed
from mtcli.text.sentence import Engine, LineResult, NBest, Sentence, combine, recased, to_pieces
from mtcli.text.swap import swap_all
from mtcli import lazy_re

VERIFY = len(protect.PLACEHOLDERS)  # attempt: the sentence as it is, kept if every span comes back
AROUND = VERIFY + 1  # attempt: phrases of one span each (protect.one_span_phrases)
# attempt: a sentence with glossary terms first with them as they came (Masked.own), kept if the model wrote each
# term's target itself: as placeholders, common words (house -> casa) lost 11-14 BLEU on the sentences that held
# them (docs/glossary.md)
OWN = -1
# attempt: OWN's translation with the words linked to each term replaced by its target (swap.py): the rest of the
# sentence stays the model's, where placeholders made it write worse around them (docs/glossary.md)
SWAP = -2


def decode_all(todo: list[Sentence], engine: Engine, results: list[LineResult],
                source: Callable[[str], str] = str, budget: Budget | None = None) -> None:
    """Decode every sentence's pieces in one call. A sentence whose placeholders did not all come back
    is tried with the next placeholders, then unmasked (kept if the spans survive), and at last in
    phrases of one span each, where a span the model still loses is put at the phrase's edge: all its
    tries decoded in one more call (one call per try cost ~0.1 s CPU each for a few sentences), the
    first that works kept. `source` shows a span in a warning as the document had it (its markup). A line
    over its `budget` after the first call is tried no further (budget.over: the caller passes it through)."""
    budget = budget or Budget(None)
    for s in todo:
        if s.masked.own:  # (spans that come back otherwise: the sentence first with them as they came)
            s.attempt, s.pieces = OWN, to_pieces(s.masked.own.text, engine)
    failed = [(s, got) for s, got in zip(todo, _decoded(todo, engine, budget)) if not _took(s, got)]
    failed = [(s, got) for s, got in failed if s.line not in budget.over]
    own = [(s, combine(got)) for s, got in failed if s.attempt == OWN and s.masked.swap]
    for (s, _), took in zip(own, swap_all(own, engine.align) if own and engine.align else ()):
        s.attempt = SWAP if took else s.attempt
    failed = [s for s, _ in failed if s.attempt != SWAP]
    tries = [_fallbacks(s, engine) for s in failed]
    outs = iter(_decoded([t for ts in tries for t in ts], engine, budget))
    for s, ts in zip(failed, tries):
        got = [next(outs) for _ in ts]
        vars(s).update(vars(next(t for t, g in zip(ts, got) if _took(t, g))))
        if s.attempt == AROUND:
            shown = ", ".join(quoted(source(sp)) for sp in s.masked.sources or s.masked.spans)  # (as written)
            results[s.line].warnings.append(f"the model lost {shown} in translation; translated the sentence "
                                            "in phrases of one each instead")
    for s in todo:  # (a sentence with spans never takes a try that makes a number up: above)
        if not s.masked.spans and s.out and (made := made_up(s.out[0][0], s.masked.text)):
            results[s.line].warnings.append(f"the translation has {', '.join(made)}, which the line does not: "
                                            "the model may have made it up")


def _decoded(todo: list[Sentence], engine: Engine, budget: Budget) -> list[list[NBest]]:
    """Each sentence's pieces' translations, all decoded in one call (its time charged to their lines, but for the
    decoder's one-time work: kernels compiled on a first run took minutes of a loaded machine's wall time)."""
    pieces = [p for s in todo for p in s.pieces]
    started, setup = time.monotonic(), engine.setup()
    outs = iter(engine.decode(pieces) if pieces else [])
    sizes: dict[int, int] = {}
    for s in todo:
        sizes[s.line] = sizes.get(s.line, 0) + sum(map(len, s.pieces))
    # (at least 0: a server's decoder that started while the line waited may have begun before it came)
    budget.share(sizes, max(0.0, time.monotonic() - started - (engine.setup() - setup)))
    return [[next(outs) for _ in s.pieces] for s in todo]


def _took(s: Sentence, got: list[NBest]) -> bool:
    """Whether the translations of this try keep its spans; if so they are its output."""
    if s.attempt == AROUND:
        s.out = _phrases_joined(s, got)
        return True
    nbest = combine(got)
    if s.attempt == OWN:  # (its other spans' placeholders back first)
        restored = [(protect.restore(t, s.masked.own), score) for t, score in nbest]
        if restored[0][0] is None:
            return False
        nbest = [(t, score) for t, score in restored if t is not None]
    if s.shout:
        nbest = [(recased(t, s.masked, str.upper), score) for t, score in nbest]
    terms = [o for o, k in zip(s.masked.spans, s.masked.sources) if o != k] if s.attempt == OWN and not s.shout else []
    if terms:  # (a term the model wrote in another case is the term: "Tierra" for "tierra", a capital opening it kept)
        nbest = [(as_given(t, terms), score) for t, score in nbest]
    # (an amount in euros in the model's sight as the model wrote it: "5 €", "€5" for "5 euros"; as OWN showed it)
    amounts = [span for span in s.masked.spans if EUROS.fullmatch(span)] if s.attempt in (VERIFY, OWN) else []
    if amounts:
        shown = s.masked.own.sources if s.attempt == OWN else ()  # (spans.py: the amounts as OWN showed them)
        nbest = [(euros_as_typed(t, amounts, shown), score) for t, score in nbest]
    source = protect.unmasked(s.masked)
    if any(len(re.findall(rf"(?<!\w){re.escape(o)}(?!\w)", nbest[0][0], re.IGNORECASE)) > n
           for o, n in Counter(terms).items()) \
            or amounts and _more_numbers(nbest[0][0], source, [n for a in amounts for n in EUROS.fullmatch(a).groups() if n]):
        return False  # (written twice: "January the." -> "Enero el enero."; "The fine was 200 euros." -> "El 200 era
        # el 200 euros.")
    if s.attempt in (VERIFY, OWN):  # (the spans in the model's sight: kept, and no number made up beside them)
        kept = [(protect.resign(t, s.masked), score) for t, score in nbest
                if protect.all_kept(as_given(t, terms, opening=False), s.masked) and not made_up(t, source)]
    else:
        kept = [(r, score) for t, score in nbest if (r := protect.restore(t, s.masked)) is not None]
    if kept and kept[0][1] == nbest[0][1]:  # the best one among them
        s.out = kept
        return True
    return False


# the ladder where a sentence writes the default's placeholders itself (retry.OWN's, a span as typed: "50 euros")
SPARE = (("5",), ("12", "5"))


# a number standing alone ("5" in "5 €", not in "1.5", "5.000" or "5x"); counted once a text, not once an amount
_NUMBER = lazy_re.compile(r"(?<![\w.,])\d(?:[\d.,]*\d)?(?!\w|[.,]\d)")


def _more_numbers(text: str, source: str, numbers: list[str]) -> bool:
    """Whether the text holds one of the numbers more times than the source does."""
    ours, theirs = Counter(_NUMBER.findall(text)), Counter(_NUMBER.findall(source))
    return any(ours[n] > theirs[n] for n in numbers)


def ladder(words: str, preferred: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, ...], ...]:
    """`preferred` (Engine.placeholders), or the default ladder (else SPARE) where one of its placeholders is a word of
    the sentence already (`words`: the sentence without its spans; "Tom tiene 5 gatos."), in any case: the casing stage
    makes ALL CAPS "TOM" "Tom" ("A TOM SOLO LE QUEDAN 5 PUNTOS." had stopped the pipeline, two "Tom" for one span),
    and restore would take the sentence's for a span."""
    def free(rungs: tuple[tuple[str, ...], ...]) -> bool:
        ours = "|".join(re.escape(p) for seq in rungs for p in seq)
        return not re.search(rf"(?<![\w.,:/])(?:{ours})(?!\w|[.,:/]\d)", words, re.IGNORECASE)

    return next((rungs for rungs in (preferred, protect.PLACEHOLDERS) if free(rungs)), SPARE)


def _fallbacks(s: Sentence, engine: Engine) -> list[Sentence]:
    """The tries after s's, in order: the next placeholders, the sentence unmasked, phrases of one span each."""
    tries, masked = [], s.masked
    rungs = ladder(protect.remask(masked, ("",)).text, engine.placeholders)  # (every number of it a span: masked)
    for attempt in range(s.attempt + 1, VERIFY):  # (from OWN: first its own placeholders)
        masked = protect.remask(masked, rungs[attempt]) if attempt else masked
        tries.append(replace(s, attempt=attempt, masked=masked, pieces=to_pieces(masked.text, engine)))
    tries.append(replace(s, attempt=VERIFY, masked=masked, pieces=to_pieces(protect.unmasked(masked), engine)))
    phrases = protect.one_span_phrases(masked, rungs[0])
    fitted = [to_pieces(bare(phrase.text), engine) for phrase in phrases]
    return tries + [replace(s, attempt=AROUND, masked=masked, phrases=phrases, counts=[len(f) for f in fitted],
                            pieces=[p for f in fitted for p in f])]


_INNER_END = lazy_re.compile(r"[.!?]+$")
_INNER_START = lazy_re.compile(r"^[¿¡]")


def _phrases_joined(s: Sentence, got: list[NBest]) -> NBest:
    """The phrases' best translations with their spans, joined; only the last keeps its final stop and
    only the first its opening ¿ or ¡."""
    outs, texts, scores = iter(got), [], []
    for k, (phrase, n) in enumerate(zip(s.phrases, s.counts)):
        best = [next(outs)[0] for _ in range(n)]
        text = " ".join(t for t, _ in best)
        text = protect.placed(recased(text, phrase, str.upper) if s.shout else text, phrase)
        if k + 1 < len(s.phrases) and not text.endswith(phrase.spans[0]):  # (a span's own stop: "5 p.m.")
            text = _INNER_END.sub("", text)
        if k:
            text = _INNER_START.sub("", text)
            # (a phrase inside the sentence starts in lowercase where its source did: the model capitalised
            # each, "Precio: 1,234.56 USD En 2024-03-05 En 14:30.")
            if phrase.text[:1].islower() and text[:2].istitle() and not text.startswith(tuple(phrase.spans)):
                text = text[0].lower() + text[1:]
        texts.append(closed(capital_i(text), phrase.text))
        scores += [score for _, score in best]
    return [(" ".join(t for t in texts if t), sum(scores) / max(len(scores), 1))]
