"""Translation speed of a trained model: sentences/s for batch translation (greedy and beam) of
test-split sentences, and the latency of one sentence.

    python -m benchmarks.decode [--model en-es] [--sentences 2000]
"""

from __future__ import annotations

import argparse
import time

from mtcli import registry
from mtcli.data import read_corpus, resolve_data_path, split_pairs
from mtcli.decode import Translator


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=registry.SHIPPED, help="a name from `mtcli models` or a model directory")
    ap.add_argument("--sentences", type=int, default=2000)
    ap.add_argument("--data", default=None, help="corpus (default: data/spa-eng/spa.txt or $MTCLI_DATA)")
    args = ap.parse_args()
    tr = Translator(registry.resolve(args.model))
    corpus = read_corpus(resolve_data_path(args.data))
    d = tr.meta.get("data", {})
    rows = split_pairs(corpus.pairs, d.get("seed", 0), d.get("split", "grouped"))["test"]
    lines = list(dict.fromkeys(corpus.pairs[i][0] for i in rows))[: args.sentences]
    tr.translate(lines[:64], beam=4)  # warm-up: kernel cache loading
    print(f"{args.model}: {len(lines)} unique test-split sentences, batches of 64")
    for label, beam in (("greedy", 1), ("beam 4", 4), ("beam 5", 5)):
        t = time.perf_counter()
        tr.translate(lines, beam=beam)
        dt = time.perf_counter() - t
        print(f"  {label:7} {len(lines) / dt:8.0f} sentences/s")
    one = "The plant is green."
    for label, beam in (("greedy", 1), ("beam 4", 4)):
        t = time.perf_counter()
        for _ in range(20):
            tr.translate([one], beam=beam)
        print(f"  one sentence, {label}: {(time.perf_counter() - t) / 20 * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
