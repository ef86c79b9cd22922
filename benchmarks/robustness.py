"""How the shipped model fares on text typed the way people type, with the text pipeline (mtcli.text) and
without it (the raw translator on each line).

For the first --limit pairs of an external test set, seven variants of the source side: clean; lowercase
without final punctuation; runs of 1-3 spaces plus leading/trailing blanks; ALL CAPS (references in caps
too); typographic quotes and apostrophes; three consecutive sentences per line (references joined); and
the language's own: English with apostrophes left out; Spanish (`--direction es-en`, unseen-es.tsv) with
its accents dropped, and with the opening ¿ ¡ left out.
Three sides: "off" the raw model on each line, "on" the pipeline, "no case" the pipeline with its case
treatment switched off (TextOptions(case=False, source=...): what the model itself makes of lowercase and ALL CAPS,
issue 17's figure). Scores are case-insensitive sacrebleu BLEU and chrF. Then the numbers criterion: of all pairs whose
reference holds every digit sequence of the source, the share whose translation holds them too.

    nice -n 10 python benchmarks/robustness.py                  # greedy, first 1,000 pairs
    nice -n 10 python benchmarks/robustness.py --direction es-en  # the Spanish->English model on unseen-es.tsv
    python benchmarks/robustness.py --limit 200 --beam 4 --json out.json
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

DATA = {"en-es": REPO.parent / "shared" / "data" / "tatoeba-test" / "unseen.tsv",
        "es-en": REPO.parent / "shared" / "data" / "tatoeba-test" / "unseen-es.tsv"}
_FINAL = re.compile(r"[.!?]+$")
_APOSTROPHE = re.compile(r"(?<=\w)'(?=\w)")  # don't -> dont, I'm -> Im, Tom's -> Toms
DIGITS = re.compile(r"\d+")


def typographic(text: str) -> str:
    """Straight quotes and apostrophes as a word processor makes them."""
    text = re.sub(r"(?<=\w)'|'(?=\s|$)", "’", text)
    text = text.replace("'", "‘")
    n = iter(range(10**6))
    return re.sub('"', lambda m: "“" if next(n) % 2 == 0 else "”", text)


def spaced(text: str, rng: random.Random) -> str:
    words = text.split(" ")
    out = words[0]
    for w in words[1:]:
        out += " " * rng.randint(1, 3) + w
    return " " * rng.randint(0, 3) + out + " " * rng.randint(1, 3)


def variants(pairs: list[tuple[str, str]], seed: int = 0, source: str = "en") -> dict[str, tuple[list[str], list[str]]]:
    """name -> (sources, references); `source` is the source side's language."""
    from mtcli.augment import _unaccented

    rng = random.Random(seed)
    src, ref = [p[0] for p in pairs], [p[1] for p in pairs]
    k = len(pairs) // 3 * 3
    own = {"en": {"apostrophes left out (dont, im, its)": [_APOSTROPHE.sub("", e) for e in src]},
           "es": {"accents dropped (and the opening ¿ ¡)": [_unaccented(e) for e in src],
                  "opening ¿ ¡ left out": [e.replace("¿", "").replace("¡", "") for e in src]}}[source]
    return {
        "clean": (src, ref),
        "lowercase, no final punctuation": ([_FINAL.sub("", e).lower() for e in src], ref),
        "runs of 1-3 spaces, blanks at the ends": ([spaced(e, rng) for e in src], ref),
        "ALL CAPS (references in caps)": ([e.upper() for e in src], [s.upper() for s in ref]),
        "typographic quotes and apostrophes": ([typographic(e) for e in src], ref),
        **{name: (lines, ref) for name, lines in own.items()},
        "three sentences per line": ([" ".join(src[i : i + 3]) for i in range(0, k, 3)],
                                     [" ".join(ref[i : i + 3]) for i in range(0, k, 3)]),
    }


def numbers_kept(sources: list[str], outputs: list[str]) -> float:
    kept = sum(all(d in DIGITS.findall(o) for d in DIGITS.findall(s)) for s, o in zip(sources, outputs))
    return kept / max(len(sources), 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--direction", choices=sorted(DATA), default="en-es")
    ap.add_argument("--model", default=None, help="model directory (default: the shipped model of --direction)")
    ap.add_argument("--data", type=Path, default=None, help="default: the direction's unseen set")
    ap.add_argument("--limit", type=int, default=1000, help="first N pairs (0: all)")
    ap.add_argument("--beam", type=int, default=1, help="1: greedy (default, for speed)")
    ap.add_argument("--roundtrip", choices=["short", "all", "off"], default="short",
                    help="the lines ranked again by the other direction's model (mtcli.roundtrip, --rerank; beam > 1 only)")
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads (1 on a machine that is busy training)")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()

    from sacrebleu.metrics import BLEU, CHRF
    from threadpoolctl import threadpool_limits

    from mtcli import kernels, registry
    from mtcli.data import read_corpus
    from mtcli.config import Options, TranslationOptions
    from mtcli.decode import Translator
    from mtcli.roundtrip import for_direction
    from mtcli.text.pipeline import Engine, TextOptions, translate_lines

    threadpool_limits(args.threads)
    args.data = args.data or DATA[args.direction]
    source = args.direction.split("-")[0]
    model = registry.resolve(args.model or registry.shipped(args.direction))
    tr = Translator(model)
    back = registry.shipped("-".join(reversed(args.direction.split("-"))))
    roundtrip = for_direction(args.direction, functools.cache(lambda: Translator(back)), args.roundtrip)
    engine = Engine.from_translator(tr, TranslationOptions(beam_size=args.beam, max_batch_size=64, batch_type="examples"),
                                    roundtrip)
    decode, memo = engine.decode, {}

    def cached(lines: list[str]) -> list:
        """Decoding is deterministic: a sentence that several variants reduce to is decoded once."""
        new = list(dict.fromkeys(line for line in lines if line not in memo))
        memo.update(zip(new, decode(new)) if new else ())
        return [memo[line] for line in lines]

    engine.decode = cached
    all_pairs = read_corpus(args.data).pairs
    pairs = all_pairs[: args.limit] if args.limit else all_pairs
    decoding = "greedy" if args.beam == 1 else f"beam {args.beam}, round trip {args.roundtrip}"
    print(f"{model} on {args.data.name}: first {len(pairs):,} pairs, {decoding}", flush=True)

    def off(lines: list[str]) -> list[str]:
        return [n[0][0] for n in engine.decode(lines)]

    def on(lines: list[str]) -> list[str]:
        return [r.text for r in translate_lines(lines, engine, Options().text_for(source))]

    def no_case(lines: list[str]) -> list[str]:
        return [r.text for r in translate_lines(lines, engine, TextOptions(case=False, source=source))]

    rows, figures = [], {"model": str(model), "data": str(args.data), "pairs": len(pairs), "decoding": decoding}
    with kernels.references():
        for name, (src, ref) in variants(pairs, source=source).items():
            row = {}
            for side, fn in (("off", off), ("on", on), ("nocase", no_case)):
                t = time.perf_counter()
                hyp = fn(src)
                row[f"bleu_{side}"] = BLEU(lowercase=True).corpus_score(hyp, [ref]).score
                row[f"chrf_{side}"] = CHRF(lowercase=True).corpus_score(hyp, [ref]).score
                row[f"seconds_{side}"] = time.perf_counter() - t
            rows.append((name, row))
            print(f"  {name}: BLEU {row['bleu_off']:.1f} -> {row['bleu_on']:.1f} (no case {row['bleu_nocase']:.1f})",
                  flush=True)
        digit_pairs = [(en, es) for en, es in all_pairs
                       if DIGITS.search(en) and all(d in DIGITS.findall(es) for d in DIGITS.findall(en))]
        src = [en for en, _ in digit_pairs]
        numbers = {"pairs": len(digit_pairs), "off": numbers_kept(src, off(src)), "on": numbers_kept(src, on(src))}
    clean = dict(rows)["clean"]
    print("\n| variant | BLEU off | BLEU on | on - clean | BLEU no case | no case - clean | chrF off | chrF on |"
          "\n|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in rows:
        print(f"| {name} | {r['bleu_off']:.1f} | {r['bleu_on']:.1f} | {r['bleu_on'] - clean['bleu_on']:+.1f} "
              f"| {r['bleu_nocase']:.1f} | {r['bleu_nocase'] - clean['bleu_nocase']:+.1f} "
              f"| {r['chrf_off']:.1f} | {r['chrf_on']:.1f} |")
    print(f"\nnumbers: {numbers['pairs']} pairs (all of {args.data.name}) whose reference holds the source's digit "
          f"sequences; output holds them too: {numbers['off']:.1%} off, {numbers['on']:.1%} on")
    figures.update(variants=dict(rows), numbers=numbers)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
