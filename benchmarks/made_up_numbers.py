"""Numbers the model makes up (issue 38): of the first N distinct source lines of the unseen set, through
`translate_lines` with the shipped model and the default options (beam 4), how many come out with a number the
line does not write, in digits or in words (mtcli.text.digits.made_up), and how many of those are warned.

    nice -n 10 python benchmarks/made_up_numbers.py                      # en-es, unseen.tsv's English
    nice -n 10 python benchmarks/made_up_numbers.py --direction es-en    # unseen.tsv's Spanish
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
UNSEEN = REPO.parent / "shared" / "data" / "tatoeba-test" / "unseen.tsv"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--direction", default="en-es", choices=["en-es", "es-en"])
    ap.add_argument("--lines", type=int, default=1000)
    args = ap.parse_args()

    from threadpoolctl import threadpool_limits

    from mtcli import registry
    from mtcli.config import Options, TranslationOptions
    from mtcli.data import read_corpus
    from mtcli.decode import Translator
    from mtcli.text.digits import made_up
    from mtcli.text.pipeline import Engine, translate_lines

    threadpool_limits(1)
    side = 0 if args.direction == "en-es" else 1
    lines = list(dict.fromkeys(p[side] for p in read_corpus(UNSEEN).pairs))[: args.lines]
    engine = Engine.from_translator(Translator(registry.resolve(args.direction)), TranslationOptions())
    started = time.process_time()
    results = translate_lines(lines, engine, Options().text_for(args.direction[:2]))
    made = [(line, r) for line, r in zip(lines, results) if made_up(r.text, line)]
    for line, r in made:
        print(f"{r.line}\t{line}\t{r.text}\t{'; '.join(r.warnings) or '(no warning)'}")
    warned = sum(any("made it up" in w for w in r.warnings) for _, r in made)
    print(f"{args.direction}, first {len(lines):,} unseen lines: {len(made)} with a number the line lacks "
          f"({100 * len(made) / len(lines):.1f} %), {warned} of them warned; {time.process_time() - started:.0f} s CPU")


if __name__ == "__main__":
    main()
