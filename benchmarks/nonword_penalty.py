"""The made-up-word penalty (decode.WordCheck) chosen on held-out corpus pairs, never on the unseen set.

A model's test split (pairs it never learned) with a lexicon of the target side of the other splits only, so
that the references hold words the lexicon lacks, as an external text's do: BLEU and the share of outputs with
a word outside that lexicon (and the source), for each penalty.

    nice -n 10 python benchmarks/nonword_penalty.py --limit 1000 --penalties 0 2 5 20
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
DEFAULT_CORPUS = REPO.parent / "shared" / "data" / "spa-eng" / "spa.txt"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", help="model directory or name (default: the shipped en-es)")
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--limit", type=int, default=1000, help="test-split pairs, drawn at random (seed 0)")
    ap.add_argument("--penalties", type=float, nargs="+", default=[0.0, 2.0, 5.0, 20.0])
    ap.add_argument("--beam", type=int, default=4)
    args = ap.parse_args()

    from sacrebleu.metrics import BLEU
    from threadpoolctl import threadpool_limits

    from mtcli import registry
    from mtcli.checkpoint import direction
    from mtcli.data import held_out_pairs, oriented, read_corpus, split_pairs
    from mtcli.decode import WORD, Translator, WordCheck, source_words

    threadpool_limits(1)
    tr = Translator(registry.resolve(args.model or "en-es"))
    tr.nonword_max_words = None  # every line checked
    record = tr.meta["data"]
    if "test" in tr.meta.get("trained_on", []):
        raise SystemExit("the model learned its test split: no held-out pairs to choose on")
    pairs = oriented(read_corpus(args.corpus).pairs, direction(tr.meta))
    split = split_pairs(pairs, record.get("seed", 0), record.get("split", "grouped"))
    lexicon = frozenset(w.lower() for name in ("train", "selection") for i in split[name] for w in WORD.findall(pairs[i][1]))
    test = held_out_pairs(args.corpus, record, "test", "model")
    test = random.Random(0).sample(test, min(args.limit, len(test)))
    src, ref = [p[0] for p in test], [p[1] for p in test]
    pieces = [tr.tgt_tok.id_to_token(i) for i in range(tr.tgt_tok.vocab_size)]
    print(f"{tr.model_dir}: {len(test)} test-split pairs, lexicon of train+selection ({len(lexicon):,} words), "
          f"beam {args.beam}")
    for penalty in args.penalties:
        tr.words = WordCheck(pieces, lexicon, penalty) if penalty else None
        t = time.perf_counter()
        out = [n[0][0] for n in tr.translate(src, beam=args.beam)[0]]
        seconds = time.perf_counter() - t
        odd = sum(any(w.lower() not in lexicon and w.lower() not in source_words(s) for w in WORD.findall(o))
                  for s, o in zip(src, out))
        bleu = BLEU().corpus_score(out, [ref]).score
        print(f"  penalty {penalty:g}: BLEU {bleu:.2f}, outputs with a word outside the lexicon "
              f"{1000 * odd / len(out):.1f} per 1,000, {seconds:.0f} s", flush=True)


if __name__ == "__main__":
    main()
