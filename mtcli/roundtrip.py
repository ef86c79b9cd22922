"""Short lines' n-best ranked again by the way back (issue 40): a greeting, a sign or an interface word of one to
three words gets a wider beam, and each of its translations is scored by the other direction's model reading the
source given it (teacher forcing, no decoding): `Hello.` -> `Salí.` reads back as `Hello.` far less well than
`Hola.` does, which the beam had as its second best. The forward model alone cannot tell them apart (it put
`Salí.` first); the way back costs one forced pass of the back model over a few short pairs, and loading that model
on the first short line. Longer lines are decoded as they were: the ranking was chosen on short inputs only, and
its cost grows with the lines (a wider beam, a reading per hypothesis)."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, replace

from mtcli import lazy_re
from mtcli.config import TranslationOptions

# the length, beam, weight and margin were chosen on benchmarks/sets/short-dev-en-es.tsv and the selection split's short
# lines (benchmarks/roundtrip.py; docs/results.md), never on the scoring sets
ROUNDTRIP_WORDS = 3  # at most, in a line ranked again
ROUNDTRIP_BEAM = 12  # its beam and n-best
ROUNDTRIP_WEIGHT = 0.3  # of the way back's length-normalised log-probability, beside the forward score
# only the hypotheses within this of the best forward score are read back: on both development sets the same
# choices as reading all 12, from 40 % of the readings (the rest follow in their forward order)
ROUNDTRIP_MARGIN = 0.5
# the directions ranked again: es-en's short lines of its selection split gained nothing from the way back (beam 4
# 56.2 %, beam 12 and weight 0.3 56.7 %, weight 1 54.9 %), and no held-out short set of its own chooses for it
ROUNDTRIP_DIRECTIONS = ("en-es",)
_WORDS = lazy_re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def is_short(line: str, most: int = ROUNDTRIP_WORDS) -> bool:
    return 0 < len(_WORDS.findall(line)) <= most


def for_direction(direction: str, back: Callable[[], object]) -> RoundTrip | None:
    """The ranking of `direction`'s short lines by `back` (its other direction's Translator, loaded when asked),
    or None where it is not used."""
    return RoundTrip(back) if direction in ROUNDTRIP_DIRECTIONS else None


@dataclass
class RoundTrip:
    """back() is the other direction's decode.Translator, asked for on the first short line (a CLI loads it then)."""

    back: Callable[[], object]
    weight: float = ROUNDTRIP_WEIGHT
    beam: int = ROUNDTRIP_BEAM
    most_words: int = ROUNDTRIP_WORDS
    margin: float = ROUNDTRIP_MARGIN

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
        read = (back or self.back)().force([t for t, _ in pairs], [s for _, s in pairs], weights=False)
        flat = iter([float(f.logprobs.sum()) / len(f.logprobs) for f in read])
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

        def read(chosen: list[list[int]]) -> None:  # (indices into each line's near hypotheses)
            backs = self.back_scores(sources, [[near[k][i].text for i in c] for k, c in enumerate(chosen)], back)
            for k, (c, found) in enumerate(zip(chosen, backs)):
                value[k].update({i: near[k][i].score + self.weight * b for i, b in zip(c, found)})

        read([sorted(range(len(hs)), key=lambda i: -hs[i].score)[:keep] for hs in near])
        bars = [sorted(v.values())[-keep] if len(v) >= keep else -math.inf for v in value]
        read([[i for i, h in enumerate(hs) if i not in v and h.score >= bar] for hs, v, bar in zip(near, value, bars)])
        out = []
        for r, hyps, v in zip(results, near, value):
            ranked = [hyps[i] for i in sorted(v, key=lambda i: (-v[i], i))]
            rest = [h for h in r.hypotheses if h.text.strip() and all(h is not hyps[i] for i in v)]
            out.append(replace(r, hypotheses=(ranked + rest)[:keep] or r.hypotheses[:keep]))
        return out

    def translate(self, tr, lines: list[str], options: TranslationOptions) -> list:
        """tr.translate_batch(lines, options), the short lines decoded wider and ranked again."""
        short = [i for i, line in enumerate(lines) if is_short(line, self.most_words)] if options.beam_size > 1 else []
        if not short:
            return tr.translate_batch(lines, options)
        # the short lines first: decoded after the others, their beam's buffers came on top of what the check keeps
        # of those until it reads them (2,000 unseen lines, 143 short: the file's peak, +94 MB over 326)
        results: list = [None] * len(lines)
        wide = tr.translate_batch([lines[i] for i in short], self.options_for(options))
        for i, r in zip(short, self.rank([lines[i] for i in short], wide, options.num_hypotheses)):
            results[i] = r
        rest = sorted(set(range(len(lines))) - set(short))
        for i, r in zip(rest, tr.translate_batch([lines[i] for i in rest], options) if rest else []):
            results[i] = r
        return results
