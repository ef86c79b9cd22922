"""The shipped model's n-best ranked again by the way back (issues 40 and 41): each translation beam search found
is scored by the other direction's model reading the source given it (teacher forcing, no decoding), beside its own
score. `Hello.` -> `Salí.` reads back as `Hello.` far less well than `Hola.` does, which the beam had as its second
best; `... in July.` -> `... en jurado.` less well than `... en julio.`, its second. The forward model alone cannot
tell them apart; the way back costs one forced pass of the back model over the hypotheses near each line's best
(none where only the best is near), and loading that model on the first line that has two. A greeting, a sign or
an interface word of one to three words also gets a wider beam: its answer is often further down.
Chosen on short inputs (benchmarks/sets/short-dev-en-es.tsv, the selection split's short lines), which are all the
default ranks; every line (`every`, `--rerank all`) kept the same settings, measured on the corpus's test split
(which the shipped en-es never learned): BLEU +1.2 on 2,000 lines of 4+ words, at ~1.6x a file's CPU
(docs/results.md)."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, replace

from mtcli import lazy_re
from mtcli.config import TranslationOptions

# the length, beam, weight and margin were chosen on benchmarks/sets/short-dev-en-es.tsv and the selection split's short
# lines (benchmarks/roundtrip.py; docs/results.md), never on the scoring sets
ROUNDTRIP_WORDS = 3  # at most, in a line decoded wider
ROUNDTRIP_BEAM = 12  # its beam and n-best
ROUNDTRIP_WEIGHT = 0.3  # of the way back's length-normalised log-probability, beside the forward score
# only the hypotheses within this of the best forward score are read back: on both development sets the same
# choices as reading all 12, from 40 % of the readings (the rest follow in their forward order)
ROUNDTRIP_MARGIN = 0.5
# the directions ranked again: es-en's short lines of its selection split gained nothing from the way back (beam 4
# 56.2 %, beam 12 and weight 0.3 56.7 %, weight 1 54.9 %), and having learned every pair of the corpus it has no
# held-out lines to measure longer ones on
ROUNDTRIP_DIRECTIONS = ("en-es",)
_WORDS = lazy_re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def is_short(line: str, most: int = ROUNDTRIP_WORDS) -> bool:
    return 0 < len(_WORDS.findall(line)) <= most


# pairs the way back reads at once: a pass's (pairs, tokens, vocabulary) log-probabilities are its peak (2,000 unseen
# lines read back by es-en: 164 MB at 64 a batch, 45 MB at 16, at no more CPU: 5.6 s against 6.5)
READ_BACK_BATCH = 16


def read_back(back, sources: list[str], translations: list[str]) -> list:
    """Each source's tokens' log-probabilities (EOS last) under `back` (the other direction's decode.Translator, its
    first model) reading the translation: teacher forcing, no decoding (the way back's ranking; the check's `back`)."""
    return [f.logprobs for f in back.force(translations, sources, attention=False, batch=READ_BACK_BATCH)]


def for_direction(direction: str, back: Callable[[], object], lines: str = "short",
                  done: Callable[[], None] | None = None) -> RoundTrip | None:
    """The ranking of `direction`'s translations by `back` (its other direction's Translator, loaded when asked) of
    the `lines` config.TranslationOptions.rerank names, or None where none are ranked; `done` (RoundTrip.done)."""
    return RoundTrip(back, every=lines == "all", done=done) if direction in ROUNDTRIP_DIRECTIONS and lines != "off" \
        else None


@dataclass
class RoundTrip:
    """back() is the other direction's decode.Translator, asked for on the first line with two hypotheses near its
    best (a CLI loads it then)."""

    back: Callable[[], object]
    weight: float = ROUNDTRIP_WEIGHT
    beam: int = ROUNDTRIP_BEAM
    most_words: int = ROUNDTRIP_WORDS
    margin: float = ROUNDTRIP_MARGIN
    every: bool = True  # every line ranked, else short ones only
    # called once a call's lines are ranked: a CLI lets the back model go until the next call reads with it (a file's
    # chunks: its 29 MB had stayed through the decoding and check of each chunk's other lines, their peak)
    done: Callable[[], None] | None = None

    def options_for(self, options: TranslationOptions) -> TranslationOptions:
        """A short line's decoding: the wider beam, all its hypotheses kept for the ranking."""
        beam = max(self.beam, options.beam_size)
        return replace(options, beam_size=beam, num_hypotheses=beam)

    def back_scores(self, sources: list[str], texts: list[list[str]], back: Callable[[], object] | None = None) \
            -> list[list[float]]:
        """log P(source | translation) / (source tokens + EOS) under the back model (`back()`, default this one's),
        for each translation."""
        pairs = [(t, s) for s, ts in zip(sources, texts) for t in ts]
        if not pairs:
            return [[] for _ in texts]
        unique = list(dict.fromkeys(pairs))  # (an n-best may hold one text twice)
        read = read_back((back or self.back)(), [s for _, s in unique], [t for t, _ in unique])
        found = {pair: float(r.mean()) for pair, r in zip(unique, read)}
        flat = iter([found[pair] for pair in pairs])
        return [[next(flat) for _ in ts] for ts in texts]

    def rank(self, sources: list[str], results: list, keep: int) -> list:
        """Each line's decode.TranslationResult with its hypotheses within `margin` of the best ranked by score +
        weight x the way back, cut to `keep` (the scores shown stay the model's). The way back only lowers a score
        (a log-probability, weight >= 0): each line's `keep` best forward scores are read back first, then only the
        hypotheses whose forward score reaches the keep-th best value so far; the same `keep` come first as from
        reading all, the unread ones after them in their forward order."""
        near = []
        for r in results:
            hyps = [h for h in r.hypotheses if h.text.strip()]
            best = max((h.score for h in hyps), default=0.0)
            near.append([h for h in hyps if h.score >= best - self.margin])
        value: list[dict[int, float]] = [{} for _ in near]  # each line's hypotheses read back: their ranking value
        back = functools.cache(self.back)  # (asked for at the first reading, once)
        alone = [len(hs) < 2 for hs in near]  # (one hypothesis near its best: its order stands, nothing to read)

        def read(chosen: list[list[int]]) -> None:  # (indices into each line's near hypotheses)
            backs = self.back_scores(sources, [[near[k][i].text for i in c] for k, c in enumerate(chosen)], back)
            for k, (c, found) in enumerate(zip(chosen, backs)):
                value[k].update({i: near[k][i].score + self.weight * b for i, b in zip(c, found)})

        read([[] if one else sorted(range(len(hs)), key=lambda i: -hs[i].score)[:keep] for hs, one in zip(near, alone)])
        bars = [sorted(v.values())[-keep] if len(v) >= keep else -math.inf for v in value]
        read([[] if one else [i for i, h in enumerate(hs) if i not in v and h.score >= bar]
              for hs, v, bar, one in zip(near, value, bars, alone)])
        out = []
        for r, hyps, v in zip(results, near, value):
            ranked = [hyps[i] for i in sorted(v, key=lambda i: (-v[i], i))] if v else hyps
            rest = [h for h in r.hypotheses if h.text.strip() and all(h is not k for k in ranked)]
            out.append(replace(r, hypotheses=(ranked + rest)[:keep] or r.hypotheses[:keep]))
        return out

    def translate(self, tr, lines: list[str], options: TranslationOptions) -> list:
        """tr.translate_batch(lines, options), the short lines decoded wider first, theirs (and with `every`, every
        line's) hypotheses ranked again by the way back."""
        if options.beam_size == 1:
            return tr.translate_batch(lines, options)
        short = [i for i, line in enumerate(lines) if is_short(line, self.most_words)]
        rest = sorted(set(range(len(lines))) - set(short))
        # the short lines first: decoded after the others, their beam's buffers came on top of what the check keeps
        # of those until it reads them (2,000 unseen lines, 143 short: the file's peak, +94 MB over 326)
        results: list = [None] * len(lines)
        last = rest if self.every else short  # (the rows whose ranking is the call's last)
        for rows, given in ((short, self.options_for(options)), (rest, replace(options, num_hypotheses=options.beam_size))):
            if rows and (self.every or rows is short):
                found = tr.translate_batch([lines[i] for i in rows], given)
                for i, r in zip(rows, self.rank([lines[i] for i in rows], found, options.num_hypotheses)):
                    results[i] = r
            elif rows:
                for i, r in zip(rows, tr.translate_batch([lines[i] for i in rows], options)):
                    results[i] = r
            if rows is last and self.done:
                self.done()
        return results
