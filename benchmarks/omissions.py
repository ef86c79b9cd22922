"""Reference-free omission proxies (issue 40), validated against hand labels, and the coverage penalty's effect.

Two proxies, each flagging an output that probably left source content out:
  length     fewer words (runs of letters or digits) than `ratio` x its source's, for sources of at least
             --min-words words; `ratio` the 5th percentile of target/source word ratios of the corpus's pairs of
             that size (a translation that short is rare among human ones)
  coverage   a run of source words (not function words alone) that no target position attended to, as the
             check reads it ("may have left out"): the model's fitted coverage head and threshold
             (MODEL/confidence.json, fitted on the selection split)
Neither is chosen on the unseen set. Validated against hand labels (benchmarks/sets/omission-labels.tsv: line of
unseen.tsv, 1 if the shipped model's output leaves source content out, 0 if not; labelled on outputs decoded
with `--nonwords off --coverage-penalty 0`), then measured on the first N unseen lines.

    nice -n 10 python benchmarks/omissions.py --nonwords off --coverage-penalty 0   # as labelled: validation
    nice -n 10 python benchmarks/omissions.py --coverage-penalty 0                  # today's decoding, no penalty
    nice -n 10 python benchmarks/omissions.py                                       # ... with it (the default)
    nice -n 10 python benchmarks/omissions.py --sample 50                           # lines to label by hand
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
DATA = REPO.parent / "shared" / "data"
LABELS = REPO / "benchmarks" / "sets" / "omission-labels.tsv"
TOKENS = re.compile(r"[^\W_]+")


def words(text: str) -> int:
    return len(TOKENS.findall(text))


def threshold(pairs: list[tuple[str, str]], min_words: int, percentile: float = 5.0) -> float:
    """The `percentile` of target/source word ratios of the pairs whose source has min_words words or more."""
    ratios = [words(t) / words(s) for s, t in pairs if words(s) >= min_words]
    return float(np.percentile(ratios, percentile))


def flagged(source: str, output: str, ratio: float, min_words: int) -> bool:
    """The proxy: an output of fewer than ratio x its source's words, the source long enough to tell."""
    n = words(source)
    return n >= min_words and words(output) < ratio * n


def coverage_flags(tr, sources: list[str], outputs: list[str]) -> list[bool]:
    """The coverage proxy: the check's "may have left out" runs, at its fitted threshold."""
    from dataclasses import replace

    from mtcli.config import DEFAULTS
    from mtcli.confidence import Checker, Vocab, uncovered_runs, word_coverage, words as pieces_as_words

    check = Checker(tr, None, replace(DEFAULTS, check="fast"))
    scorer, vocab = check.scorer, Vocab.of(tr)
    flags = []
    for f in tr.force(sources, outputs, check.layers, check.heads):
        spans = pieces_as_words([vocab.src[i % vocab.src_size] for i in f.src[1:-1]])
        flags.append(bool(uncovered_runs(spans, word_coverage(f.attention, spans, scorer.layer, scorer.heads),
                                         scorer.covered)))
    return flags


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", help="model directory or name (default: the shipped en-es)")
    ap.add_argument("--limit", type=int, default=1000, help="first N lines of unseen.tsv")
    ap.add_argument("--min-words", type=int, default=4)
    ap.add_argument("--nonwords", choices=["on", "off"], default="on")
    ap.add_argument("--coverage-penalty", type=float, help="beta (default: config.DEFAULTS')")
    ap.add_argument("--sample", type=int, help="print this many random lines to label, and stop")
    args = ap.parse_args()

    from dataclasses import replace

    from threadpoolctl import threadpool_limits

    from mtcli import registry
    from mtcli.config import DEFAULTS
    from mtcli.data import read_corpus
    from mtcli.decode import Translator

    pairs = read_corpus(DATA / "tatoeba-test" / "unseen.tsv").pairs[: args.limit]
    threadpool_limits(1)
    tr = Translator(registry.resolve(args.model or "en-es"))
    if args.nonwords == "off":
        tr.words = None
    beta = DEFAULTS.coverage_penalty if args.coverage_penalty is None else args.coverage_penalty
    sources = [p[0] for p in pairs]
    out = [r.hypotheses[0].text for r in tr.translate_batch(sources, replace(DEFAULTS, coverage_penalty=beta))]
    if args.sample:
        for i in sorted(random.Random(1).sample(range(len(pairs)), args.sample)):
            print(f"{i + 1}\t{pairs[i][0]}\t{out[i]}")
        return
    import sacrebleu

    print(f"nonwords {args.nonwords}, coverage penalty {beta}: first {len(pairs):,} unseen lines, BLEU "
          f"{sacrebleu.corpus_bleu(out, [[p[1] for p in pairs]]).score:.2f}")
    ratio = threshold(read_corpus(DATA / "spa-eng" / "spa.txt").pairs, args.min_words)
    proxies = {f"length (< {ratio:.2f} x the source's words)": [flagged(s, o, ratio, args.min_words)
                                                               for s, o in zip(sources, out)],
               "coverage (a source word left unattended)": coverage_flags(tr, sources, out)}
    rows = [line.split("\t") for line in LABELS.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]
    as_labelled = args.nonwords == "off" and beta == 0 and not args.model
    for name, flags in proxies.items():
        print(f"  {name}: {1000 * sum(flags) / len(flags):.0f} flagged per 1,000")
        if not as_labelled:
            continue
        labelled = [(flags[int(r[0]) - 1], r[1] == "1") for r in rows if int(r[0]) <= len(flags)]
        tp, said, real = sum(f and o for f, o in labelled), sum(f for f, _ in labelled), sum(o for _, o in labelled)
        print(f"    on the {len(labelled)} hand-labelled lines ({real} omissions) {said} flagged, {tp} right: "
              f"precision {tp / max(said, 1):.0%}, recall {tp / max(real, 1):.0%}")
    if not as_labelled:
        print("  (the hand labels are of the shipped model's outputs with --nonwords off --coverage-penalty 0)")


if __name__ == "__main__":
    main()
