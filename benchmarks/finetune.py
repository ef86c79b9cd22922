"""docs/finetune.md's figures: a shipped model fine-tuned on the synthetic UI set (benchmarks/finetune_set.py:
300 pairs of a made-up photo app's interface), BLEU on its 100 held-out UI pairs and on the first --unseen
pairs of the unseen test set, before and after, greedy.

    taskset -c 0 nice -n 10 python benchmarks/finetune.py --direction en-es --share 0.5 --max-time 150
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

SETS = REPO / "benchmarks" / "sets"
CORPUS = REPO.parent / "shared" / "data" / "spa-eng" / "spa.txt"
UNSEEN = {"en-es": REPO.parent / "shared" / "data" / "tatoeba-test" / "unseen.tsv",
          "es-en": REPO.parent / "shared" / "data" / "tatoeba-test" / "unseen-es.tsv"}


def pairs(path: Path, limit: int = 0) -> list[tuple[str, str]]:
    rows = [tuple(line.split("\t")[:2]) for line in path.read_text(encoding="utf-8").splitlines() if "\t" in line]
    return rows[:limit] if limit else rows


def bleu(model: Path, test: list[tuple[str, str]]) -> float:
    from mtcli.decode import Translator
    from mtcli.evaluate import evaluate_pairs

    return round(evaluate_pairs(Translator(model), test, beam=1, alpha=0.6)[0]["bleu"], 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--direction", default="en-es", choices=("en-es", "es-en"))
    ap.add_argument("--share", type=float, default=0.5)
    ap.add_argument("--max-time", type=float, default=150.0)
    ap.add_argument("--unseen", type=int, default=500)
    ap.add_argument("--before-only", action="store_true", help="the scores before fine-tuning only")
    args = ap.parse_args()
    from mtcli import finetune, registry
    from mtcli.checkpoint import write_first_member

    suffix = "" if args.direction == "en-es" else "-es-en"
    train, test = SETS / f"finetune-ui{suffix}.tsv", pairs(SETS / f"finetune-ui-test{suffix}.tsv")
    unseen = pairs(UNSEEN[args.direction], args.unseen)
    base = registry.shipped(args.direction)
    out = {"direction": args.direction, "share": args.share, "max_time": args.max_time,
           "before": {"ui": bleu(base, test), "unseen": bleu(base, unseen)}}
    with tempfile.TemporaryDirectory() as work:
        if (base / "member1.safetensors").exists():  # an ensemble: fine-tuning starts from its first model alone
            first = write_first_member(base, Path(work) / "first")
            out["before, its first model alone"] = {"ui": bleu(first, test), "unseen": bleu(first, unseen)}
        if args.before_only:
            print(json.dumps(out, indent=2))
            return
        start, cpu = time.perf_counter(), time.process_time()
        loop, kept = finetune.finetune(base, train, Path(work) / "ft", CORPUS, args.share, args.max_time)
        out["finetune"] = {"seconds": round(time.perf_counter() - start), "cpu seconds": round(time.process_time() - cpu),
                           "epochs": len(loop.history), "best epoch": loop.best_epoch, "stopped": loop.done}
        out["after"] = {"ui": bleu(Path(work) / "ft", test), "unseen": bleu(Path(work) / "ft", unseen)}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
