"""What the check's warnings name on the held-out hand-labelled selection rows, with and without the spared places
(`mtcli.confidence.spared`: what the pipeline kept as it came, an ICU message's structure): the word the way back
doubts (`doubted`) and the runs named as left out, counted on wrong and right rows, flagged by the full check or
not, and every row whose naming differs printed. Reads benchmarks/confidence.py's cache (`build` first); each row
translated again as `mtcli translate` does, for its kept spans (the cache has the translations, not what was kept).

    nice -n 10 python benchmarks/confidence_named.py --model en-es
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import confidence as bench  # noqa: E402
from mtcli import confidence as conf  # noqa: E402
from mtcli import registry  # noqa: E402
from mtcli.decode import Translator  # noqa: E402


def named(row: dict, pieces: list[str], runs: list[str], places) -> tuple:
    """The word doubted and the runs named, as Checker.check names them."""
    s = row["source"]
    return conf.doubted(pieces, row["way_back"][0], s, places), conf.named_runs(runs, s, row["target"], places)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="en-es", choices=sorted(bench.HAND))
    model = parser.parse_args().model
    sel = pickle.loads(Path(bench.CACHE.format(model=model)).read_bytes())["selection"]
    hand = bench._hand(model)
    rows = [(sel[k], hand[k]) for k in sorted(hand) if k >= int(bench.FIT_SHARE * len(sel))]
    tr, back = Translator(registry.shipped(model)), Translator(registry.shipped(bench._back(model)))
    scorer, vocab = conf.load_fitted(tr.model_dir, tr.model.cfg.n_layers).scorers["full"], conf.Vocab.of(tr)
    done = bench._translate(tr, [r["source"] for r, _ in rows])
    counts: Counter = Counter()
    for (r, right), result in zip(rows, done):
        s, wb = r["source"], r["way_back"][0]
        found, runs = conf.read(r["forced"], s, r["target"], r["scores"], None, scorer, vocab, wb)
        key = ("right" if right else "wrong", "flagged" if scorer.confidence(found) < scorer.threshold else "not flagged")
        pieces = [back.tgt_tok.pieces_by_id[i] for i in back.tgt_tok.encode(s)]
        before, after = named(r, pieces, runs, ()), named(r, pieces, runs, conf.spared(s, result.kept))
        counts[(*key, "before")] += bool(before[0] or any(before[1]))
        counts[(*key, "after")] += bool(after[0] or any(after[1]))
        if before != after:
            print(f"{key}: {s!r} -> {r['target']!r} kept {result.kept}: {before} -> {after}")
    same = sum(result.nbest[0][0] == r["target"] for (r, _), result in zip(rows, done))
    print(f"{model}: {len(rows)} held-out hand-labelled rows, {sum(1 - h for _, h in rows)} wrong; "
          f"{same} translated as the cache has them")
    for key, n in sorted(counts.items()):
        print(" ".join(key), "rows with a word named:", n)


if __name__ == "__main__":
    main()
