"""A month's name alone ("in July", "en septiembre"): how often the translation names the right month, and BLEU,
on the corpus's held-out test-split pairs that name one, each made once for every month (the month swapped on both
sides). en-es: the shipped model never learned the test split; es-en learned every pair (its figures are
optimistic), so es-en also reads the unseen-es lines that name a month (measured, never tuned on).

    MTCLI_DATA=path/to/spa.txt nice -n 10 python benchmarks/months.py [--direction es-en]

--written also translates WRITTEN's English lines (written for it, each made for all 12 months; no references): how
often the translation names the right month, and puts an article before it (Spanish says "en julio", "hasta mayo").
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WRITTEN = ("Until {m}.", "{m} is hot.", "I was born in {m}.", "We will travel in {m}.", "Since {m} it has rained every day.",
           "I love {m}.", "See you in {m}!", "It snowed a lot in {m}.", "School starts in {m}.", "We met last {m}.",
           "My birthday is in {m}.", "The shop is closed until {m}.", "{m} was a good month.", "They got married in {m}.",
           "Is it cold in {m}?", "I will call you in {m}.", "We moved here in early {m}.", "Prices went up in {m}.")
CORPUS = Path(os.environ.get("MTCLI_DATA", ROOT.parent / "shared/data/spa-eng/spa.txt"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--direction", default="en-es", choices=["en-es", "es-en"])
    ap.add_argument("--limit", type=int, default=40, help="held-out pairs naming a month, before swapping months")
    ap.add_argument("--written", action="store_true", help="also WRITTEN's lines (en-es)")
    args = ap.parse_args()
    import sacrebleu

    from mtcli import registry
    from mtcli.config import Options, TranslationOptions
    from mtcli.data import oriented, read_corpus, split_pairs
    from mtcli.decode import Translator
    from mtcli.text.pipeline import Engine, translate_lines

    source, target = args.direction.split("-")
    spanish = "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre".split()
    english = [m.lower() for m in ("January February March April May June July August September October November "
                                   "December").split()]
    MONTHS = dict(zip(english, spanish))  # (its own: a tree before mtcli.text.dates is measured too)
    names = {"en": [m.capitalize() for m in english], "es": spanish}
    alone = re.compile(rf"\b({'|'.join(names[source])})\b(?! ?\d)(?! de \d)")

    def find(text: str) -> list[tuple[int, int]]:
        return [m.span() for m in alone.finditer(text) if not (source == "en" and m[1] == "May" and m.start() == 0)]
    pairs = oriented(list(read_corpus(CORPUS).pairs), args.direction)
    held = [pairs[i] for i in split_pairs(pairs, 0, "grouped")["test"]]
    chosen, seen = [], set()
    for src, ref in held:
        spans = find(src)
        if len(spans) != 1 or src in seen:
            continue
        month = english[[m.lower() for m in names[source]].index(src[slice(*spans[0])].lower())]
        if re.search(rf"\b{MONTHS[month] if target == 'es' else month}\b", ref, re.IGNORECASE):
            chosen.append((src, ref, month))
            seen.add(src)
    chosen = chosen[: args.limit]
    rows = []  # (source, reference, the month's name in the target)
    for src, ref, month in chosen:
        for other in english:
            def swap(text: str, lang: str) -> str:
                old, new = (month, other) if lang == "en" else (MONTHS[month], MONTHS[other])
                return re.sub(rf"\b{old}\b", lambda m: new.capitalize() if m.group()[0].isupper() else new, text,
                              flags=re.IGNORECASE)
            rows.append((swap(src, source), swap(ref, target), other.capitalize() if target == "en" else
                         MONTHS[other]))
    tr = Translator(registry.resolve(args.direction))
    engine = Engine.from_translator(tr, TranslationOptions(beam_size=4, max_batch_size=64, batch_type="examples"))
    outs = [r.text for r in translate_lines([s for s, _, _ in rows], engine, Options().text_for(source))]
    right = sum(bool(re.search(rf"\b{m}\b", o, re.IGNORECASE)) for o, (_, _, m) in zip(outs, rows))
    bleu = sacrebleu.corpus_bleu(outs, [[r for _, r, _ in rows]])
    article = rf"\b(?:{'el|la|los|las|del|al' if target == 'es' else 'the'}) "  # (before the month: its placeholder's)
    articled = [sum(bool(re.search(rf"{article}{m}\b", t, re.IGNORECASE)) for t, m in zip(texts, (m for *_, m in rows)))
                for texts in (outs, [r for _, r, _ in rows])]
    print(f"{args.direction}: {len(chosen)} held-out pairs x 12 months = {len(rows)} sentences; the right month in "
          f"{right / len(rows):.1%}; BLEU {bleu.score:.2f}; an article before the month in {articled[0]} "
          f"(references: {articled[1]})")
    for (s, _, m), o in list(zip(rows, outs))[:: max(len(rows) // 24, 1)]:
        print(f"  {s!r} -> {o!r}{'' if re.search(rf'{m}', o, re.IGNORECASE) else '   MISSING ' + m}")
    if args.written and source == "en":
        lines = [(t.format(m=m.capitalize()), MONTHS[m]) for t in WRITTEN for m in english]
        outs = [r.text for r in translate_lines([s for s, _ in lines], engine, Options().text_for(source))]
        right = sum(bool(re.search(rf"\b{m}\b", o, re.IGNORECASE)) for o, (_, m) in zip(outs, lines))
        wrong = [(s, o) for o, (s, m) in zip(outs, lines) if re.search(rf"{article}{m}\b", o, re.IGNORECASE)]
        print(f"written: {len(lines)} lines; the right month in {right / len(lines):.1%}; an article before it in "
              f"{len(wrong)}")
        for s, o in wrong:
            print(f"  {s!r} -> {o!r}")


if __name__ == "__main__":
    sys.exit(main())
