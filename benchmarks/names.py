"""Names the model never learned (issue 40): held-out corpus sentences with one "Tom" (in both languages), the name
made another, by how often the corpus's source side has it; how often the name comes through the pipeline as
written, and BLEU against the reference with the same name. With --off, the names rule is off (Engine.familiar
empty: every capitalised word goes to the model), for a before/after.

    nice -n 10 python benchmarks/names.py                 # en-es, test split (held out from the shipped model)
    nice -n 10 python benchmarks/names.py --off
    nice -n 10 python benchmarks/names.py --direction es-en
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

CORPUS = REPO.parent / "shared" / "data" / "spa-eng" / "spa.txt"
# names written for this benchmark, none of them in the corpus (checked at run time)
UNSEEN = ("Anna Peter Laura Carlos Priya Mateo Kenji Bergen Nairobi Toronto Zoe Lukas Fatima Dmitri Ingrid Rahul "
          "Seville Winnipeg Tbilisi Bruno").split()
BUCKETS = ((1, 5), (5, 20), (20, 100))  # corpus counts: the names of each are picked from the corpus


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--direction", default="en-es", choices=["en-es", "es-en"])
    ap.add_argument("--split", default="test", choices=["test", "selection"])
    ap.add_argument("--sentences", type=int, default=100)
    ap.add_argument("--off", action="store_true", help="without the names rule")
    args = ap.parse_args()

    from sacrebleu.metrics import BLEU
    from threadpoolctl import threadpool_limits

    from mtcli import registry
    from mtcli.data import WORD, oriented, read_corpus, split_pairs
    from mtcli.decode import Translator
    from mtcli.config import Options, TranslationOptions
    from mtcli.text.pipeline import Engine, translate_lines

    threadpool_limits(1)
    pairs = oriented(list(read_corpus(CORPUS).pairs), args.direction)
    seen, copied = Counter(), Counter()
    for src, tgt in pairs:
        written = set(WORD.findall(tgt))
        for w in set(WORD.findall(src)) - {"Tom", "Mary"}:
            seen[w] += w[0].isupper() and not w.isupper()
            copied[w] += w in written
    if any(seen[n] for n in UNSEEN):
        raise SystemExit(f"names in the corpus: {[n for n in UNSEEN if seen[n]]}")
    buckets = {"0": list(UNSEEN)}
    for lo, hi in BUCKETS:  # names written as they are on the other side (Tom -> Tom): the answer is known
        buckets[f"{lo}-{hi - 1}"] = sorted(w for w, n in seen.items()
                                           if lo <= n < hi and copied[w] >= 0.8 * n and len(w) > 2)[:20]
    held = [pairs[i] for i in split_pairs(pairs, 0, "grouped")[args.split]]
    tom = [(s, t) for s, t in held if len(re.findall(r"\bTom\b", s)) == len(re.findall(r"\bTom\b", t)) == 1
           and "Mary" not in s]
    random.Random(1).shuffle(tom)
    tom = tom[:args.sentences]

    tr = Translator(registry.resolve(args.direction))
    engine = Engine.from_translator(tr, TranslationOptions(beam_size=4, max_batch_size=64, batch_type="examples"))
    if args.off:
        engine.familiar = frozenset()
    print(f"{args.direction}, {args.split} split, {len(tom)} sentences with Tom, names rule "
          f"{'off' if args.off else 'on'}")
    for bucket, names in buckets.items():
        name = [names[i % len(names)] for i in range(len(tom))]
        src = [s.replace("Tom", n) for (s, _), n in zip(tom, name)]
        refs = [t.replace("Tom", n) for (_, t), n in zip(tom, name)]
        outs = [r.text for r in translate_lines(src, engine, Options().text_for(args.direction[:2]))]
        kept = sum(re.search(rf"\b{n}\b", o) is not None for o, n in zip(outs, name))
        bleu = BLEU().corpus_score(outs, [refs]).score
        print(f"  seen {bucket:>5} times: name kept {100 * kept / len(tom):5.1f} %, BLEU {bleu:5.2f}   "
              f"({', '.join(names[:4])}, ...)")


if __name__ == "__main__":
    main()
