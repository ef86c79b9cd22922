"""An amount in euros ("5 euros", "1 euro", "3,50 euros", "20 €"): whether the translation keeps it, and whether the
rest of the sentence is what the model writes for the same sentence in dollars (a number before a currency word the
model knows: what it made of "5 euros" before the amount was a kept span). Two sets: benchmarks/sets/prices-en.txt
and prices-es.txt (written for it), and the corpus's held-out test-split pairs with an amount in dollars on both sides,
made euros on both sides (en-es never learned them; es-en learned every pair: optimistic). The written sets say the
same line by line: each is the other's reference (BLEU, chrF).

    MTCLI_DATA=path/to/spa.txt nice -n 10 python benchmarks/prices.py [--direction es-en] [--show]

Another tree's figures (a change's before): PYTHONPATH=that/tree python benchmarks/prices.py (its mtcli imported).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("MTCLI_DATA", ROOT.parent / "shared/data/spa-eng/spa.txt"))
SETS = ROOT / "benchmarks" / "sets"
_NUMBER = r"\d(?:[\d.,]*\d)?"
# an amount with its currency, in a source or a translation: the same digits, a euro word or € (before or after)
EURO = re.compile(rf"€ ?({_NUMBER})(?: ?(?:euros?|€))?|({_NUMBER}) ?(?:euros?\b|€|EUR\b)", re.IGNORECASE)
ANY = re.compile(rf"(?:[€$] ?)?{_NUMBER}(?: ?(?:euros?\b|dollars?\b|d[oó]lar(?:es)?\b|bucks\b|€|\$))?",
                 re.IGNORECASE)
DOLLAR_WORDS = {"en": ("dollars", "dollar"), "es": ("dólares", "dólar")}


def amounts(text: str) -> list[str]:
    """The digits of each amount in euros in the text, in order."""
    return [re.sub(r"\D", "", m[1] or m[2]) for m in EURO.finditer(text)]


def in_dollars(text: str, lang: str) -> str:
    """The sentence with each amount in euros made one in dollars ("€5" -> "$5", "20 €" -> "20 dollars")."""
    plural, one = DOLLAR_WORDS[lang]
    text = re.sub(rf"(?<!\w)€ ?(?={_NUMBER})", "$", text)
    text = re.sub(rf"({_NUMBER}) ?€", rf"\1 {plural}", text)
    text = re.sub(r"\beuros\b", plural, text)
    text = re.sub(r"\beuro\b", one, text)
    return re.sub(r"\bEUROS\b", plural.upper(), text)


def in_euros(text: str, lang: str) -> str:
    """A corpus sentence's amounts in dollars made euros."""
    plural, one = DOLLAR_WORDS[lang]
    return re.sub(rf"\b{plural}\b", "euros", re.sub(rf"\b{one}\b", "euro", text, flags=re.IGNORECASE),
                  flags=re.IGNORECASE)


def kept(source: str, output: str) -> bool:
    """Every amount of the source in the translation: its digits with a euro word or €."""
    return sorted(amounts(source)) == sorted(amounts(output)) and bool(amounts(source))


def rest(text: str) -> str:
    """The translation without its amounts and their currencies (compared across the euro and dollar twins)."""
    return " ".join(ANY.sub("#", text).split())


def held_out(direction: str) -> list[str]:
    """The test split's sources with an amount in dollars whose reference has one too, made euros."""
    from mtcli.data import oriented, read_corpus, split_pairs

    source, target = direction.split("-")
    pairs = oriented(list(read_corpus(CORPUS).pairs), direction)
    held = [pairs[i] for i in split_pairs(pairs, 0, "grouped")["test"]]
    has = {lang: re.compile(rf"\d ({'|'.join(DOLLAR_WORDS[lang])})\b", re.IGNORECASE) for lang in ("en", "es")}
    chosen = [in_euros(src, source) for src, ref in held if has[source].search(src) and has[target].search(ref)]
    return list(dict.fromkeys(chosen))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--direction", default="en-es", choices=["en-es", "es-en"])
    ap.add_argument("--limit", type=int, default=0, help="first N sentences of each set (0: all)")
    ap.add_argument("--show", action="store_true", help="every sentence's translations")
    args = ap.parse_args()
    import sacrebleu

    from mtcli import registry
    from mtcli.config import Options, TranslationOptions
    from mtcli.decode import Translator
    from mtcli.text.pipeline import Engine, translate_lines

    source, target = args.direction.split("-")

    def written(lang: str) -> list[str]:
        return [line for line in (SETS / f"prices-{lang}.txt").read_text(encoding="utf-8").splitlines()
                if line and not line.startswith("#")]

    sets = {"written": written(source), "held-out": held_out(args.direction)}
    refs = written(target)  # (the two sets say the same, line by line)
    if args.limit:
        sets = {name: lines[: args.limit] for name, lines in sets.items()}
    tr = Translator(registry.resolve(args.direction))
    engine = Engine.from_translator(tr, TranslationOptions(beam_size=4, max_batch_size=64, batch_type="examples"))

    def translate(lines: list[str]) -> list[str]:
        return [r.text for r in translate_lines(lines, engine, Options().text_for(source))]

    for name, lines in sets.items():
        twins = [in_dollars(line, source) for line in lines]
        outs, dollars = translate(lines), translate(twins)
        n = len(lines)
        right = sum(kept(s, o) for s, o in zip(lines, outs))
        same = sum(rest(o) == rest(d) for o, d in zip(outs, dollars))
        chrf = sacrebleu.corpus_chrf([rest(o) for o in outs], [[rest(d) for d in dollars]]).score if n else 0.0
        twin_refs = [in_dollars(r, target) for r in refs[:n]]
        scores = (f"; BLEU {sacrebleu.corpus_bleu(outs, [refs[:n]]).score:.1f}, chrF "
                  f"{sacrebleu.corpus_chrf(outs, [refs[:n]]).score:.1f} against the other set (in dollars: BLEU "
                  f"{sacrebleu.corpus_bleu(dollars, [twin_refs]).score:.1f}, chrF "
                  f"{sacrebleu.corpus_chrf(dollars, [twin_refs]).score:.1f})" if name == "written" else "")
        print(f"{args.direction} {name}: {n} sentences; the amount kept in {right}/{n}; the rest as in dollars in "
              f"{same}/{n} (chrF {chrf:.1f} against the dollars' translations){scores}")
        for s, o, t, d in zip(lines, outs, twins, dollars):
            if args.show or not kept(s, o) or rest(o) != rest(d):
                print(f"  {s!r} -> {o!r}{'' if kept(s, o) else '   AMOUNT LOST'}\n  {t!r} -> {d!r}")


if __name__ == "__main__":
    sys.exit(main())
