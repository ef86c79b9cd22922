"""A reference-free omission proxy (issue 40): an output much shorter than its source left something out.

The proxy flags an output whose words (runs of letters or digits) number less than `ratio` x its source's, for
sources of at least --min-words words; `ratio` is the 5th percentile of target/source word ratios of the
corpus's pairs of that size (a translation that short is rare among human ones), never chosen on the
unseen set. Validated against hand labels (benchmarks/sets/omission-labels.tsv: line of unseen.tsv, 1 if the
shipped model's output leaves source content out, 0 if not), then measured on the first N unseen lines.

    nice -n 10 python benchmarks/omissions.py --outputs /tmp/out.json              # decode, flag, score labels
    nice -n 10 python benchmarks/omissions.py --outputs /tmp/out.json --sample 50  # lines to label by hand
    nice -n 10 python benchmarks/omissions.py --nonwords off --outputs /tmp/off.json
"""

from __future__ import annotations

import argparse
import json
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", help="model directory or name (default: the shipped en-es)")
    ap.add_argument("--limit", type=int, default=1000, help="first N lines of unseen.tsv")
    ap.add_argument("--min-words", type=int, default=4)
    ap.add_argument("--nonwords", choices=["on", "off"], default="on")
    ap.add_argument("--outputs", type=Path, help="decoded lines kept here and read back when present")
    ap.add_argument("--sample", type=int, help="print this many random lines to label, and stop")
    args = ap.parse_args()

    from mtcli.data import read_corpus

    pairs = read_corpus(DATA / "tatoeba-test" / "unseen.tsv").pairs[: args.limit]
    if args.outputs and args.outputs.is_file():
        out = json.loads(args.outputs.read_text(encoding="utf-8"))
    else:
        from threadpoolctl import threadpool_limits

        from mtcli import registry
        from mtcli.decode import Translator

        threadpool_limits(1)
        tr = Translator(registry.resolve(args.model or "en-es"))
        if args.nonwords == "off":
            tr.words = None
        out = [n[0][0] for n in tr.translate([p[0] for p in pairs])[0]]
        if args.outputs:
            args.outputs.write_text(json.dumps(out, ensure_ascii=False), encoding="utf-8")
    if args.sample:
        for i in sorted(random.Random(1).sample(range(len(pairs)), args.sample)):
            print(f"{i + 1}\t{pairs[i][0]}\t{out[i]}")
        return
    ratio = threshold(read_corpus(DATA / "spa-eng" / "spa.txt").pairs, args.min_words)
    flags = [flagged(s, o, ratio, args.min_words) for (s, _), o in zip(pairs, out)]
    print(f"proxy: fewer than {ratio:.2f} x the source's words (5th percentile of the corpus's pairs of "
          f"{args.min_words}+ words); first {len(pairs):,} unseen lines: {1000 * sum(flags) / len(flags):.1f} "
          f"flagged per 1,000")
    if LABELS.is_file():
        rows = [line.split("\t") for line in LABELS.read_text(encoding="utf-8").splitlines()
                if line.strip() and not line.startswith("#")]
        labelled = [(flags[int(r[0]) - 1], r[1] == "1") for r in rows if int(r[0]) <= len(flags)]
        tp = sum(f and o for f, o in labelled)
        print(f"hand labels ({LABELS.name}, {len(labelled)} lines, {sum(o for _, o in labelled)} with an omission): "
              f"the proxy flags {sum(f for f, _ in labelled)}, {tp} of them right; precision "
              f"{tp / max(sum(f for f, _ in labelled), 1):.0%}, recall {tp / max(sum(o for _, o in labelled), 1):.0%}")


if __name__ == "__main__":
    main()
