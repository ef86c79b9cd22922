"""Short lines of the SELECTION split, for choosing a training recipe (issue 40) without touching the sets that
score it (benchmarks/sets/) or the test split: every selection source of at most augment.SHORT_WORDS words that is
no question (every 4th of them, sorted, ~420 for en-es), typed with each final mark (`!`, `.`, none) as written
and in lowercase, decoded raw (no text pipeline, beam 4).

  acceptable  the output equals one of that source's selection references, up to case and end marks
              (first_inputs.normalise)
  exact       it equals one as written, the reference given the input's final mark (¡…! in Spanish; with no
              mark, a final stop is allowed)

    nice -n 10 python benchmarks/short_selection.py --model runs/trial --prepared data/prepared-cf
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.first_inputs import DATA, normalise  # noqa: E402

MARKS = ("!", ".", "")


def short_lines(pairs, rows, spanish_source: bool) -> list[tuple[str, str, str, list[str]]]:
    """(input, mark, case, references with that mark) for the selection rows' short sources."""
    from mtcli.augment import SHORT_WORDS, _marked

    refs = defaultdict(list)
    for r in rows:
        src, tgt = pairs[r][::-1] if spanish_source else pairs[r]
        if len(src.split()) <= SHORT_WORDS and "?" not in src + tgt and re.search(r"\w", src):
            refs[src].append(tgt)
    chosen = sorted(s for s in refs if not re.search(r"[\"«»“”]", s))[::4]
    return [(typed.lower() if case == "lower" else typed, mark or "none", case,
             [_marked(t, mark, not spanish_source) for t in refs[s]])
            for s in chosen for mark in MARKS for typed in [_marked(s, mark, spanish_source)]
            for case in ("as typed", "lower")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True, help="model directory (a recipe trial, trained without selection)")
    ap.add_argument("--prepared", type=Path, default=REPO / "data" / "prepared", help="its tokenized data")
    ap.add_argument("--corpus", type=Path, default=DATA / "spa-eng" / "spa.txt")
    ap.add_argument("--output", type=Path, help="write input, output, acceptable as TSV")
    args = ap.parse_args()

    import numpy as np
    from threadpoolctl import threadpool_limits

    from mtcli.config import TranslationOptions
    from mtcli.data import read_corpus
    from mtcli.decode import Translator
    from mtcli.text.pipeline import Engine

    threadpool_limits(1)
    tr = Translator(args.model)
    rows = np.load(args.prepared / "selection.npz")["index"]
    lines = short_lines(read_corpus(args.corpus).pairs, rows, tr.direction == "es-en")
    engine = Engine.from_translator(tr, TranslationOptions(beam_size=4, max_batch_size=64, batch_type="examples"))
    outputs = [n[0][0] for n in engine.decode([line[0] for line in lines])]
    counts = defaultdict(lambda: [0, 0, 0])
    for (_, mark, case, refs), out in zip(lines, outputs):
        ok = normalise(out) in {normalise(r) for r in refs}
        exact = (out.strip().removesuffix(".") if mark == "none" else out.strip()) in refs
        for key in ("all", f"mark {mark}", case):
            counts[key] = [counts[key][0] + 1, counts[key][1] + ok, counts[key][2] + exact]
    for key, (n, ok, exact) in counts.items():
        print(f"{key:10s} {n:5d} lines  acceptable {100 * ok / n:5.1f} %  exact {100 * exact / n:5.1f} %")
    if args.output:
        args.output.write_text("".join(f"{line[0]}\t{out}\n" for line, out in zip(lines, outputs)), encoding="utf-8")


if __name__ == "__main__":
    main()
