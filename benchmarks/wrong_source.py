"""A source language given that the text contradicts (`translate --from es` on English, and the mirror case): how
often mtcli.route warns on lines given the right way (false warnings: should be ~0) and on lines given the wrong
way (warnings deserved), with the thresholds route.SURE and route.SURE_WORDS. Only language identification runs
(Router.questioned, the check translate makes on each line): no model is loaded.

Lines: the first N pairs of the unseen Tatoeba set (scored, never tuned on: the thresholds were chosen on the
corpus), each side given once as its own language and once as the other; and the same lines cut to their first
one to three words (short, often ambiguous lines, which must stay quiet when given the right way).

    python benchmarks/wrong_source.py            # 1,000 lines each way (~2 s)
    python benchmarks/wrong_source.py -n 4000
"""

from __future__ import annotations

import argparse
from pathlib import Path

from mtcli.route import Router

UNSEEN = Path(__file__).resolve().parents[2] / "shared/data/tatoeba-test/unseen.tsv"


def warned(lines: list[str], given: str) -> list[str]:
    router = Router(lambda direction: None, fixed=f"{given}-{'es' if given == 'en' else 'en'}")
    return [line for line in lines if router.questioned(line)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=1000, help="pairs of the unseen set")
    ap.add_argument("--data", type=Path, default=UNSEEN)
    ap.add_argument("--show", action="store_true", help="list the false warnings")
    args = ap.parse_args()
    pairs = [line.split("\t")[:2] for line in args.data.read_text(encoding="utf-8").splitlines()[: args.n]]
    sides = {"en": [p[0] for p in pairs], "es": [p[1] for p in pairs]}
    for name, cut in (("sentences", None), ("1-3 words", True)):
        for language, lines in sides.items():
            if cut:
                lines = [" ".join(line.split()[: 1 + k % 3]) for k, line in enumerate(lines)]
            other = "es" if language == "en" else "en"
            false, deserved = warned(lines, language), warned(lines, other)
            print(f"{name:10} {language} lines: given as {language}: {len(false)} of {len(lines)} warned (false); "
                  f"given as {other}: {len(deserved)} of {len(lines)} warned ({100 * len(deserved) / len(lines):.1f} %)")
            if args.show:
                print("".join(f"  false: {line}\n" for line in false), end="")


if __name__ == "__main__":
    main()
