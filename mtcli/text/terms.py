"""The glossary's stage (docs/glossary.md): a sentence whose spans hold a user's terms (sentence.Context.spans finds
them among the kept spans) masked with placeholders that come back as the terms' targets, and what stands before
each target made to fit it once the translation holds them (agreement.py). The retry ladder tries such a sentence
first with its terms as they came (retry.OWN, Masked.own: kept where the model wrote every target itself; as
placeholders alone, common words lost 11-14 BLEU on the sentences that held them), then that translation with the
targets swapped in by the model's word links (swap.py, retry.SWAP), then the placeholders. A sentence
without a term is left to the spans stage (spans.py), which masks the rest and answers a sentence of spans only."""

from __future__ import annotations

from dataclasses import replace

from mtcli.text import protect, spans
from mtcli.text.agreement import agreeing, notes
from mtcli.text.glossary import placeholders, targets
from mtcli.text.retry import OWN, SWAP
from mtcli.text.sentence import Context, NBest, Sentence, each


class Terms:
    """Placeholders of the glossary's language: English sources protect.py's number, Spanish ones a name the
    sentence does not hold (es-en read a number where a noun goes as an amount: BLEU 27.3 against 46.5)."""

    name = "glossary"

    def strip(self, s: Sentence, c: Context) -> bool:
        terms = c.options.glossary
        outs = targets(s.text, s.spans, terms) if terms else ()
        kept = tuple(s.text[a:b] for a, b in s.spans)
        if terms and outs != kept:  # a term's placeholder comes back as its target
            masked = protect.mask(s.text, s.spans, placeholders(s.text, terms.languages[0]) or protect.PLACEHOLDERS[0])
            # (retry.OWN's sentence: its other spans masked as without a glossary, the same words for the model: with
            # all of them as they came, en-es BLEU of the injected set's lines with terms 36.0 against 37.8, no swap)
            own = spans.masked(s.text, [sp for sp, out, k in zip(s.spans, outs, kept) if out == k], c)
            s.masked = replace(masked, spans=outs, sources=kept, own=own, swap=True)
            s.aside[self.name] = notes(s.text, s.spans, outs, terms), terms
        return True

    def restore(self, s: Sentence, out: NBest, items) -> NBest:
        if self.name not in s.aside or s.attempt == OWN:  # (the model's own words fit already)
            return out
        found, terms = s.aside[self.name]
        if s.attempt == SWAP:  # (the articles are the model's own: none asked for)
            found = [(term, "") for term, _ in found]
        kept: dict[str, float] = {}  # (translations that differed in a determiner alone are one now: the best kept)
        for text, score in each(out, lambda t: agreeing(t, found, terms) if found else t):
            kept.setdefault(text, score)
        return list(kept.items())
