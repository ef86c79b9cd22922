"""Software strings through the shipped models: are a template's placeholders kept byte for byte, and do ICU
messages keep their structure? The sets (benchmarks/sets/software-en.txt, software-es.txt) were written for
this: menus, buttons, messages, errors and notifications with every placeholder syntax mtcli keeps
(mtcli/text/kinds.py's template rows, mtcli/text/icu.py), and almost-right ones that are prose.

    nice -n 10 python benchmarks/software_strings.py            # both directions, beam 4 (the CLI's default)
    nice -n 10 python benchmarks/software_strings.py --direction es-en --greedy --show

Per line: the multiset of placeholders of the source (found by the same table) is the output's, and every ICU
message the source has is read in the output with the same structure (icu.skeleton: names, types, selectors,
`#` and simple arguments; the branches' texts left out). Also counted: lines whose sentences the model lost a
span of (translated in phrases of one span each, retry.py's last resort).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mtcli.text import icu  # noqa: E402
from mtcli.text.templates import placeholders  # noqa: E402

SETS = {"en-es": REPO / "benchmarks" / "sets" / "software-en.txt",
        "es-en": REPO / "benchmarks" / "sets" / "software-es.txt"}


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
    args = parser.parse_args()

    from mtcli.config import Options, TranslationOptions
    from mtcli.decode import Translator
    from mtcli.text.pipeline import Engine, translate_lines

    for direction in SETS if args.direction == "both" else [args.direction]:
        lines = SETS[direction].read_text(encoding="utf-8").splitlines()[: args.limit or None]
        started = time.perf_counter()
        engine = Engine.from_translator(Translator(REPO / "mtcli" / "models" / direction),
                                        TranslationOptions(beam_size=1 if args.greedy else args.beam))
        results = translate_lines(lines, engine, Options().text_for(direction.split("-")[0]))
        seconds = time.perf_counter() - started
        kept = icu_kept = icu_lines = around = 0
        spans = sum(sum(placeholders(line).values()) for line in lines)
        for line, r in zip(lines, results):
            same, structure = check(line, r.text)
            kept += same
            icu_lines += bool(icu.START.search(line))
            icu_kept += bool(icu.START.search(line)) and structure
            around += any("in phrases of one" in w for w in r.warnings)
            if args.show or not (same and structure):
                print(f"{'ok ' if same and structure else 'BAD'} {line}\n    {r.text}")
        print(f"{direction}: {len(lines)} strings, {spans} placeholders; placeholders kept byte for byte in "
              f"{kept}/{len(lines)} lines ({100 * kept / len(lines):.1f} %); ICU structure kept in "
              f"{icu_kept}/{icu_lines} ({100 * icu_kept / max(icu_lines, 1):.1f} %); translated in phrases of one "
              f"span each (the model lost one) {around}; {seconds:.0f} s", flush=True)


if __name__ == "__main__":
    main()
