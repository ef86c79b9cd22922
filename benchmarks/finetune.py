"""docs/finetune.md's figures: a shipped model fine-tuned on the synthetic UI domain (benchmarks/finetune_set.py:
the first --pairs of its 5,000 pairs), BLEU greedy before and after on the domain's 500 held-out pairs, on the
first 500 pairs of the corpus's selection split (what the recipe was tuned on against forgetting) and, with
--unseen N, on the first N pairs of the unseen Tatoeba test set (scored, never tuned on). CPU seconds of the
whole fine-tuning (every process) and its wall time.

    nice -n 5 python benchmarks/finetune.py --direction en-es --unseen 500
    nice -n 5 python benchmarks/finetune.py --direction en-es --pairs 300 --max-time 120
    python benchmarks/finetune.py --pairs 20 --max-steps 1 --sets domain --limit 8   # (tests' tiny run: one epoch)
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks import finetune_set  # noqa: E402

DATA = REPO.parent / "shared" / "data"
CORPUS = DATA / "spa-eng" / "spa.txt"
UNSEEN = {"en-es": DATA / "tatoeba-test" / "unseen.tsv", "es-en": DATA / "tatoeba-test" / "unseen-es.tsv"}
SELECTION = 500


def tsv(path: Path, limit: int) -> list[tuple[str, str]]:
    rows = [tuple(line.split("\t")[:2]) for line in path.read_text(encoding="utf-8").splitlines() if "\t" in line]
    return rows[:limit]


def selection(direction: str) -> list[tuple[str, str]]:
    """The first pairs of the corpus's selection split, in the direction (the shipped split and seed)."""
    from mtcli.data import oriented, read_corpus, split_pairs

    pairs = oriented(read_corpus(CORPUS).pairs, direction)
    return [pairs[k] for k in split_pairs(pairs, 0, "grouped")["selection"][:SELECTION]]


def bleu(model: Path, test: list[tuple[str, str]]) -> float:
    from mtcli.decode import Translator
    from mtcli.evaluate import evaluate_pairs

    return round(evaluate_pairs(Translator(model), test, beam=1, alpha=0.6)[0]["bleu"], 1)


def blend(base: Path, tuned: Path, share: float, out: Path) -> Path:
    """`tuned` with each model's weights moved back towards its start: start + share x (tuned - start)."""
    import shutil

    from mtcli.checkpoint import load_tensors, member_files, save_tensors

    shutil.copytree(tuned, out, ignore=shutil.ignore_patterns("member[0-9]*", "state*", "*.lock"))
    for start, end in zip(member_files(base), member_files(tuned)):
        (a, _), (b, meta) = load_tensors(start), load_tensors(end)
        mixed = {k: (a[k].astype(np.float32) + share * (b[k].astype(np.float32) - a[k])).astype(b[k].dtype) for k in b}
        save_tensors(out / end.name, mixed, meta)
    return out


def cpu_seconds() -> float:
    """This process's and its finished children's CPU time (fine-tuning an ensemble runs one process a model)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--direction", default="en-es", choices=("en-es", "es-en"))
    ap.add_argument("--pairs", type=int, default=finetune_set.TRAIN, help="the first N of the domain's pairs")
    ap.add_argument("--share", type=float, default=None, help="corpus share [default: mtcli's]")
    ap.add_argument("--max-time", type=float, default=0.0)
    ap.add_argument("--max-steps", type=int, default=0,
                    help="at most N updates, as whole epochs (at least one) [default: mtcli's]: bounded by work, not time")
    ap.add_argument("--unseen", type=int, default=0, help="score the first N unseen pairs too")
    ap.add_argument("--sets", default="domain,selection", help="which of domain, selection to score")
    ap.add_argument("--limit", type=int, default=0, help="score the first N pairs of each set (0: all)")
    ap.add_argument("--before", action="store_true", help="score the shipped model too")
    ap.add_argument("--base-share", type=float, default=None, help="of the base's weights in the result [default: mtcli's]")
    ap.add_argument("--blends", default="", help="with --base-share 0: also score the result with these shares of "
                                                 "the tuned weights, the rest the base's: 0.5,0.3")
    ap.add_argument("--keep", type=Path, default=None, help="fine-tune into this directory (kept)")
    ap.add_argument("--tuned", type=Path, default=None, help="score this fine-tuned model (a --keep) instead")
    args = ap.parse_args()
    from mtcli import registry

    train, test = finetune_set.split(args.direction)
    sets = {name: pairs() for name, pairs in (("domain", lambda: test), ("selection", lambda: selection(args.direction)))
            if name in args.sets.split(",")}
    if args.unseen:
        sets["unseen"] = tsv(UNSEEN[args.direction], args.unseen)
    sets = {name: pairs[: args.limit or None] for name, pairs in sets.items()}
    base = registry.shipped(args.direction)
    out: dict = {"direction": args.direction, "pairs": args.pairs, "max_time": args.max_time}
    if args.before:
        out["before"] = {name: bleu(base, pairs) for name, pairs in sets.items()}
    with tempfile.TemporaryDirectory() as work:
        tuned = args.tuned or args.keep or Path(work) / "ft"
        if not args.tuned:
            out["finetune"] = finetuned(base, train[: args.pairs], tuned, args)
            if not out["finetune"]["epochs"]:
                sys.exit(f"no epoch ended within --max-time {args.max_time:g} s: nothing to score")
        if not (args.tuned and args.blends):  # (a kept model's blends alone: it was scored when it was made)
            out["after"] = {name: bleu(tuned, pairs) for name, pairs in sets.items()}
        for share in filter(None, args.blends.split(",")):
            mixed = blend(base, tuned, float(share), Path(work) / f"blend{share}")
            out[f"after, blended {share}"] = {name: bleu(mixed, pairs) for name, pairs in sets.items()}
    print(json.dumps(out, indent=2))


def finetuned(base: Path, train: list[tuple[str, str]], tuned: Path, args) -> dict:
    """`base` fine-tuned on `train` into `tuned`: the settings, the time taken and how it stopped."""
    from mtcli import finetune

    pairs_file = tuned.parent / f"{tuned.name}-pairs.tsv"
    pairs_file.write_text("".join(f"{a}\t{b}\n" for a, b in train), encoding="utf-8")
    share = finetune.CORPUS_SHARE if args.share is None else args.share
    mix = finetune.BASE_SHARE if args.base_share is None else args.base_share
    start, cpu = time.perf_counter(), cpu_seconds()
    loop, _ = finetune.finetune(base, pairs_file, tuned, CORPUS, share, args.max_time, base_share=mix,
                                max_steps=args.max_steps or finetune.MAX_STEPS)
    return {"share": share, "base share": mix, "wall seconds": round(time.perf_counter() - start),
            "cpu seconds": round(cpu_seconds() - cpu), "epochs": len(loop.history), "best epoch": loop.best_epoch,
            "stopped": loop.done}


if __name__ == "__main__":
    main()
