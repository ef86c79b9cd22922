"""Software strings through the shipped models: are a template's placeholders kept byte for byte, and do ICU
messages keep their structure? The sets (benchmarks/sets/software-en.txt, software-es.txt) were written for
this: menus, buttons, messages, errors and notifications with every placeholder syntax mtcli keeps
(mtcli/text/kinds.py's template rows, mtcli/text/icu.py), and almost-right ones that are prose.

    nice -n 10 python benchmarks/software_strings.py            # both directions, beam 4 (the CLI's default)
    nice -n 10 python benchmarks/software_strings.py --direction es-en --greedy --show

Per line: the multiset of placeholders of the source (found by the same table) is the output's, and every ICU
message the source has is read in the output with the same structure (icu.skeleton: names, types, selectors,
`#` and simple arguments; the branches' texts left out). Also counted: lines whose sentences the model lost a
span of (translated in phrases of one span each, retry.py's last resort); lines where each placeholder's stand-in
(mtcli/text/standins.py) came back on the first try; and made-up words: a word of the output the corpus's
target side never writes (MTCLI_DATA; the source's own words and placeholders aside), and a stand-in left in the
output ("Tom", "50", "fifty" where the source has none).

    nice -n 10 python benchmarks/software_strings.py --new      # the strings added with the stand-ins only
    nice -n 10 python benchmarks/software_strings.py --stand-in file=notes.txt --old   # another stand-in, tried
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mtcli.text import icu  # noqa: E402
from mtcli.text.templates import placeholders  # noqa: E402

SETS = {"en-es": REPO / "benchmarks" / "sets" / "software-en.txt",
        "es-en": REPO / "benchmarks" / "sets" / "software-es.txt"}
# strings of each set written before the stand-ins (the ones they were chosen on: --old); the rest, --new, after
OLD = {"en-es": 257, "es-en": 71}
LEFT = {"en-es": ("Tom", "Mary", "John", "50", "12", "fifty", "twelve"), "es-en": ("Tom", "Mary", "John", "50", "12",
                                                                                  "fifty", "twelve", "five")}
_WORD = re.compile(r"[^\W\d_]+")


def target_words(direction: str) -> set[str]:
    """Every word the corpus's target side writes, lowercase (empty: no corpus, no made-up words counted)."""
    corpus = os.environ.get("MTCLI_DATA")
    if not corpus or not Path(corpus).exists():
        return set()
    column = 1 if direction == "en-es" else 0
    with open(corpus, encoding="utf-8") as f:
        return {w.lower() for line in f for w in _WORD.findall(line.split("\t")[column])}


def made_up(source: str, output: str, known: set[str], direction: str) -> list[str]:
    """Words of the output that are no word of the target language (the corpus's) nor the source's, and stand-ins
    left in it that the source does not have."""
    for p in placeholders(source):
        output = output.replace(p, " ")
    own = {w.lower() for w in _WORD.findall(source)}
    unknown = [w for w in _WORD.findall(output) if known and w.lower() not in known and w.lower() not in own]
    left = [w for w in LEFT[direction] if re.search(rf"(?<!\w){w}(?!\w)", output, re.I)
            and not re.search(rf"(?<!\w){w}(?!\w)", source, re.I)]
    return unknown + left


def check(source: str, output: str) -> tuple[bool, bool]:
    """(placeholders kept, ICU structure kept)."""
    return placeholders(source) == placeholders(output), icu.skeleton(source) == icu.skeleton(output)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--direction", choices=[*SETS, "both"], default="both")
    parser.add_argument("--beam", type=int, default=4)
    parser.add_argument("--greedy", action="store_true", help="beam 1")
    parser.add_argument("--show", action="store_true", help="print every line and its translation")
    parser.add_argument("--limit", type=int, default=0, help="the first N strings of each set (0: all)")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--old", action="store_true", help="the strings the stand-ins were chosen on only")
    which.add_argument("--new", action="store_true", help="the strings written after them only")
    parser.add_argument("--stand-in", action="append", default=[], metavar="KIND=TEXT",
                        help="another stand-in for a kind of variable, first and inside a sentence (standins.ROWS; 'ladder': "
                        "the placeholders')")
    parser.add_argument("--kind", help="only the strings with a variable of this kind (standins.ROWS)")
    args = parser.parse_args()

    from mtcli.config import Options, TranslationOptions
    from mtcli.decode import Translator
    from mtcli.text import retry
    from mtcli.text.pipeline import Engine, translate_lines

    try:
        from mtcli.text import standins
    except ImportError:  # (a tree from before the stand-ins: benchmarks/software_strings.py run in it)
        standins = None
    failed: set[int] = set()  # the lines whose first try lost a placeholder
    lost: list[bool] = []
    fallbacks = retry._fallbacks

    def recorded(s, engine):  # (a sentence of the line being translated)
        lost.append(True)
        return fallbacks(s, engine)

    retry._fallbacks = recorded
    for direction in SETS if args.direction == "both" else [args.direction]:
        lines = SETS[direction].read_text(encoding="utf-8").splitlines()[: args.limit or None]
        lines = lines[: OLD[direction]] if args.old else lines[OLD[direction]:] if args.new else lines
        for override in args.stand_in:
            kind, text = override.split("=", 1)
            row = standins.ROWS[[r.kind for r in standins.ROWS].index(kind)]
            row.first[direction[:2]] = row.inside[direction[:2]] = None if text == "ladder" else text
        if args.kind:
            lines = [line for line in lines if any(standins.kind(p) == args.kind for p in placeholders(line))]
        known = target_words(direction)
        failed.clear()
        started = time.perf_counter()
        engine = Engine.from_translator(Translator(REPO / "mtcli" / "models" / direction),
                                        TranslationOptions(beam_size=1 if args.greedy else args.beam))
        options, results = Options().text_for(direction.split("-")[0]), []
        for k, line in enumerate(lines):  # (one at a time, as typed: which line's first try lost a placeholder)
            lost.clear()
            results += translate_lines([line], engine, options)
            failed.update({k} if lost else set())
        seconds = time.perf_counter() - started
        kept = icu_kept = icu_lines = around = first = invented = 0
        spans = sum(sum(placeholders(line).values()) for line in lines)
        for k, (line, r) in enumerate(zip(lines, results)):
            same, structure = check(line, r.text)
            kept += same
            icu_lines += bool(icu.START.search(line))
            icu_kept += bool(icu.START.search(line)) and structure
            around += any("in phrases of one" in w for w in r.warnings)
            first += bool(placeholders(line)) and k not in failed
            words = made_up(line, r.text, known, direction)
            invented += bool(words)
            if args.show or not (same and structure):
                print(f"{'ok ' if same and structure else 'BAD'} {line}\n    {r.text}"
                      + (f"    [made up: {', '.join(words)}]" if words else "")
                      + ("    [first try lost one]" if k in failed else ""))
        with_spans = sum(bool(placeholders(line)) for line in lines)
        print(f"{direction}: {len(lines)} strings, {spans} placeholders; placeholders kept byte for byte in "
              f"{kept}/{len(lines)} lines ({100 * kept / len(lines):.1f} %); ICU structure kept in "
              f"{icu_kept}/{icu_lines} ({100 * icu_kept / max(icu_lines, 1):.1f} %); every stand-in back on the "
              f"first try in {first}/{with_spans} lines with placeholders; translated in phrases of one span each "
              f"(the model lost one) {around}; lines with a made-up word or a stand-in left {invented}; "
              f"{seconds:.0f} s", flush=True)


if __name__ == "__main__":
    main()
