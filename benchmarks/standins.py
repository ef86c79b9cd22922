"""A kept number's stand-in (mtcli/text/standins.py): whether the translation keeps each number's value, whether it
makes the number the sentence's subject (the reference does not open with it), BLEU and chrF. Sets: the written
pairs of benchmarks/sets/numbers-kept.tsv (A: everyday numbers, B: a number with a unit, D: Roman numerals; both
directions), or the corpus's selection split's pairs with a digit on both sides (--set selection).

    nice -n 10 python benchmarks/standins.py [--direction es-en] [--set selection] [--off] [--show]

--off: no stand-in by kind (standins.STAND_INS emptied: the engine's ladder for every span); --stand-in KIND=TEXT
("roman=II") another for a kind; PYTHONPATH=other/tree for that tree's figures (a before).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("MTCLI_DATA", ROOT.parent / "shared" / "data" / "spa-eng" / "spa.txt"))
WRITTEN = ROOT / "benchmarks" / "sets" / "numbers-kept.tsv"
ROMAN = re.compile(r"\b(?=[LXVI]{2,}\b)(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})\b")
DIGITS = re.compile(r"\d+")
_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}
# ordinal words for small values, both languages (a Roman numeral's value the target may write as a word)
ORDINALS = {2: ("second", "segund"), 3: ("third", "tercer"), 4: ("fourth", "cuart"), 5: ("fifth", "quint"),
            6: ("sixth", "sext"), 7: ("seventh", "séptim"), 8: ("eighth", "octav"), 9: ("ninth", "noven"),
            10: ("tenth", "décim")}


def value(roman: str) -> int:
    v = [_VALUES[c] for c in roman]
    return sum(-a if a < b else a for a, b in zip(v, v[1:] + [0]))


def numbers_kept(source: str, output: str) -> bool:
    """Each digit run of the source in the output (as many times), and each Roman numeral as typed or its value."""
    want, got = sorted(DIGITS.findall(source)), DIGITS.findall(output)
    if any(got.count(d) < want.count(d) for d in set(want)):
        return False
    for r in ROMAN.findall(source):
        n, low = value(r), output.lower()
        if not (re.search(rf"\b{r}\b", output) or re.search(rf"\b{n}(?:st|nd|rd|th|\.?[ºª])?(?!\d)", output)
                or any(w in low for w in ORDINALS.get(n, ()))):
            return False
    return True


def subject(output: str, reference: str, source: str) -> bool:
    """The output opens with a number (or Roman numeral) of the source where the reference opens with none."""
    first = re.match(r"\W*(\S+)", output)
    opens = first and (DIGITS.match(first[1]) or ROMAN.fullmatch(first[1].rstrip(".,'s")))
    return bool(opens) and not re.match(r"\W*[\dIVXL]", reference)


def selection(direction: str, limit: int) -> list[tuple[str, str, str]]:
    from mtcli.data import oriented, read_corpus, split_pairs

    pairs = oriented(list(read_corpus(CORPUS).pairs), direction)
    held = [pairs[i] for i in split_pairs(pairs, 0, "grouped")["selection"]]
    chosen = sorted({(s, t) for s, t in held if DIGITS.search(s) and sorted(DIGITS.findall(s)) == sorted(DIGITS.findall(t))})
    random.Random(1).shuffle(chosen)
    return [("selection", s, t) for s, t in chosen[: limit or None]]


def written(direction: str) -> list[tuple[str, str, str]]:
    rows = [line.split("\t") for line in WRITTEN.read_text(encoding="utf-8").splitlines() if line and line[0] != "#"]
    return [(cat, es, en) if direction == "es-en" else (cat, en, es) for cat, es, en in rows]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--direction", default="es-en", choices=["en-es", "es-en"])
    ap.add_argument("--set", default="written", choices=["written", "selection"])
    ap.add_argument("--limit", type=int, default=0, help="the first N pairs (selection: a seeded sample; 0: all)")
    ap.add_argument("--off", action="store_true", help="no stand-in by kind")
    ap.add_argument("--stand-in", action="append", default=[], metavar="KIND=TEXT", help="a kind's stand-in instead")
    ap.add_argument("--show", action="store_true", help="every line")
    args = ap.parse_args()
    import sacrebleu

    from mtcli import registry
    from mtcli.config import Options, TranslationOptions
    from mtcli.decode import Translator
    from mtcli.text.pipeline import Engine, translate_lines

    if args.off or args.stand_in:  # (another tree, one without the table: neither)
        from mtcli.text.standins import STAND_INS

        table = STAND_INS.setdefault(args.direction[:2], {})
        table.clear() if args.off else table.update(k.split("=", 1) for k in args.stand_in)
    rows = written(args.direction)[: args.limit or None] if args.set == "written" else selection(args.direction, args.limit)
    tr = Translator(registry.resolve(args.direction))
    engine = Engine.from_translator(tr, TranslationOptions(beam_size=4, max_batch_size=64, batch_type="examples"))
    outs = [r.text for r in translate_lines([s for _, s, _ in rows], engine, Options().text_for(args.direction[:2]))]
    groups = defaultdict(list)
    for row, out in zip(rows, outs):
        groups[row[0]].append((*row[1:], out))
    for cat, got in sorted(groups.items()):
        srcs, refs, hyps = zip(*got)
        kept = sum(numbers_kept(s, o) for s, _, o in got)
        subj = sum(subject(o, r, s) for s, r, o in got)
        print(f"{args.direction} {cat}: {len(got)} lines; numbers kept {kept}/{len(got)}; a number made the subject "
              f"{subj}; BLEU {sacrebleu.corpus_bleu(list(hyps), [list(refs)]).score:.1f}, chrF "
              f"{sacrebleu.corpus_chrf(list(hyps), [list(refs)]).score:.1f}")
        for s, r, o in got:
            if args.show or not numbers_kept(s, o) or subject(o, r, s):
                print(f"  {s!r} -> {o!r}{'' if numbers_kept(s, o) else '   NUMBER LOST'}"
                      f"{'   SUBJECT' if subject(o, r, s) else ''}")


if __name__ == "__main__":
    sys.exit(main())
