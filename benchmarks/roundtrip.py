"""Choosing the round-trip ranking of short lines (mtcli.roundtrip, issue 40) on development data only: the hand-written
benchmarks/sets/short-dev-en-es.tsv (never the scoring set short-en-es.tsv) and the selection split's short lines
(benchmarks/short_selection.py's: every 4th short selection source, with `!`, `.` and no mark, as typed and in
lowercase; the shipped en-es learned them, so they tell mostly whether the ranking spoils what was right). Each line
goes through the text pipeline as `mtcli translate` sends it; for each beam and weight: the share acceptable, and
how often the beam's hypotheses (through the pipeline) hold an acceptable one at all (the most a ranking can reach).

    nice -n 10 python benchmarks/roundtrip.py --beams 4 8 12 --weights 0 0.5 1 2 4 --selection 100

--test N: the settings as shipped (mtcli.roundtrip's), every line ranked against none, on N sources of 4+ words of
the corpus's test split (every 7th; the shipped en-es never learned the split, so it is held out for it): BLEU and
chrF (sacrebleu), a paired bootstrap, the CPU of each, the lines changed. Measured, never chosen on.

    nice -n 10 python benchmarks/roundtrip.py --test 2000
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.first_inputs import DATA, SETS, acceptable, read_set  # noqa: E402


def memoised(method, key):
    """`method` (a Translator's translate_batch or force) answering from memory what it was asked before, each
    item keyed by key(item, other): a grid decodes and reads each line once."""
    memo = {}

    def call(items, other, *rest, **kw):
        keys = [key(item, other, j) for j, item in enumerate(items)]
        todo = [j for j, k in enumerate(keys) if k not in memo]
        if todo:
            given = [other[j] for j in todo] if isinstance(other, list) else other
            for j, r in zip(todo, method([items[j] for j in todo], given, *rest, **kw)):
                memo[keys[j]] = r
        return [memo[k] for k in keys]

    return call


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--direction", choices=["en-es", "es-en"], default="en-es",
                    help="es-en: the selection split's short lines only (no hand-written set)")
    ap.add_argument("--beams", type=int, nargs="+", default=[4, 8, 12])
    ap.add_argument("--weights", type=float, nargs="+", default=[0.0, 0.5, 1.0, 2.0, 4.0])
    ap.add_argument("--selection", type=int, default=100, help="short selection sources (x 6 typings); 0: none")
    ap.add_argument("--corpus", type=Path, default=DATA / "spa-eng" / "spa.txt")
    ap.add_argument("--show", type=float, metavar="WEIGHT", help="print the dev set's changes at this weight")
    ap.add_argument("--test", type=int, metavar="N", help="measure the shipped settings on N test-split lines")
    args = ap.parse_args()
    if args.test:
        return held_out(args.test, args.corpus)

    from threadpoolctl import threadpool_limits

    from benchmarks.short_selection import short_lines
    from mtcli import registry
    from mtcli.checkpoint import direction
    from mtcli.config import Options, TranslationOptions
    from mtcli.data import oriented, read_corpus, split_pairs
    from mtcli.decode import Translator
    from mtcli.roundtrip import RoundTrip
    from mtcli.text.pipeline import Engine, translate_lines

    threadpool_limits(1)
    way, other = args.direction, "-".join(reversed(args.direction.split("-")))
    tr, back = Translator(registry.resolve(way)), Translator(registry.resolve(other))
    tr.translate_batch = memoised(tr.translate_batch, lambda line, o, _: (line, o.beam_size, o.num_hypotheses))
    back.force = memoised(back.force, lambda src, targets, j: (src, targets[j]))
    sets = {"dev": [(r[0], r[1]) for r in read_set(SETS / "short-dev-en-es.tsv")]} if way == "en-es" else {}
    if args.selection:
        record = tr.meta["data"]
        pairs = read_corpus(args.corpus).pairs  # (English, Spanish): short_lines turns them
        rows = split_pairs(oriented(pairs, direction(tr.meta)), record.get("seed", 0),
                           record.get("split", "grouped"))["selection"]
        lines = short_lines(pairs, rows, way == "es-en")[: 6 * args.selection]
        sets["selection"] = [(line[0], "|".join(line[3])) for line in lines]
    text = Options().text_for(way.split("-")[0])
    decoding = TranslationOptions(beam_size=4, max_batch_size=64, batch_type="examples")
    plain = {name: [r.text for r in translate_lines([s for s, _ in rows], Engine.from_translator(tr, decoding), text)]
             for name, rows in sets.items()}
    print(f"{', '.join(f'{n}: {len(r)} lines' for n, r in sets.items())}; beam 4 unranked: " + ", ".join(
        f"{n} {sum(acceptable(o, a) for o, (_, a) in zip(plain[n], r)) / len(r):.1%}" for n, r in sets.items()))
    for beam in args.beams:
        for weight in args.weights:
            rt = RoundTrip(lambda: back, weight, beam)
            t = time.process_time()
            engine = Engine.from_translator(tr, decoding, rt)
            row = []
            for name, rows in sets.items():
                out = [r.text for r in translate_lines([s for s, _ in rows], engine, text)]
                ok = sum(acceptable(o, a) for o, (_, a) in zip(out, rows))
                row.append(f"{name} {ok / len(rows):.1%}")
                if name == "dev" and args.show == weight:
                    for (s, a), o, p in zip(rows, out, plain[name]):
                        if o != p:
                            print(f"    {s!r}: {p!r} -> {o!r} {'ok' if acceptable(o, a) else ''}")
            print(f"beam {beam:2d} weight {weight:4.1f}: {', '.join(row)} ({time.process_time() - t:.1f} s CPU)")
        wide = Engine.from_translator(tr, replace(decoding, num_hypotheses=beam), RoundTrip(lambda: back, 0.0, beam))
        held = [sum(any(acceptable(t, a) for t, _ in r.nbest) for r, (_, a) in
                    zip(translate_lines([s for s, _ in rows], wide, text), rows)) / len(rows) for rows in sets.values()]
        print(f"beam {beam:2d}: one of the {beam} best acceptable: "
              + ", ".join(f"{name} {h:.1%}" for name, h in zip(sets, held)))


def held_out(n: int, corpus: Path, rounds: int = 300) -> None:
    """The shipped ranking on every line against none, on the test split's longer lines (see --test)."""
    import random

    import sacrebleu
    from threadpoolctl import threadpool_limits

    from mtcli import registry
    from mtcli.config import DEFAULTS, Options
    from mtcli.data import held_out_pairs
    from mtcli.decode import Translator
    from mtcli.roundtrip import RoundTrip
    from mtcli.text.pipeline import Engine, translate_lines

    threadpool_limits(1)
    tr, back = Translator(registry.resolve("en-es")), Translator(registry.resolve("es-en"))
    pairs = [p for p in held_out_pairs(corpus, tr.meta["data"], "test", "en-es") if len(p[0].split()) >= 4][::7][:n]
    sources, refs = [s for s, _ in pairs], [t for _, t in pairs]
    text, out = Options().text_for("en"), {}
    for name, ranking in (("none", None), ("every line", RoundTrip(lambda: back))):
        t = time.process_time()
        out[name] = [r.text for r in translate_lines(sources, Engine.from_translator(tr, DEFAULTS, ranking), text)]
        print(f"{name:10s} BLEU {sacrebleu.corpus_bleu(out[name], [refs]).score:.2f} "
              f"chrF {sacrebleu.corpus_chrf(out[name], [refs]).score:.2f} ({time.process_time() - t:.1f} s CPU)")
    rng, wins = random.Random(0), 0
    for _ in range(rounds):
        idx = [rng.randrange(len(pairs)) for _ in pairs]
        a, b = ([out[k][i] for i in idx] for k in ("none", "every line"))
        wins += sacrebleu.corpus_bleu(b, [[refs[i] for i in idx]]).score > sacrebleu.corpus_bleu(a, [[refs[i] for i in idx]]).score
    changed = sum(a != b for a, b in zip(out["none"], out["every line"]))
    print(f"{len(pairs)} lines, {changed} changed; ranked better in {wins} of {rounds} bootstrap samples")


if __name__ == "__main__":
    main()
