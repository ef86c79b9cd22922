"""Which parts of a document route.judged_parts keeps as they came (told the target language at route.KEEP_SURE)
or translates with a warning (told it less surely), on parts of one language: each is a false alarm. Beside it the
rule before 2026-12-03b (route.kept_blocks: 3 different words, 0.99, no prior), for the keeps. Only language
identification runs: no model is loaded.

Parts: the blocks of this repository's Markdown (docs/, README, CHANGELOG: English with notation and quoted Spanish),
the first N lines of each unseen Tatoeba side, and the software strings of benchmarks/sets/.

    python benchmarks/document_parts.py            # ~3 s
"""

from __future__ import annotations

import argparse
from pathlib import Path

from mtcli.langid import detect
from mtcli.route import SURE, SURE_WORDS, _WORD, judged_parts
from mtcli.text.formats import blocks_of

ROOT = Path(__file__).resolve().parents[1]
UNSEEN = ROOT.parent / "shared/data/tatoeba-test"


def told(text: str, prior: str | None = None) -> tuple[str | None, float]:
    d = detect(text, prior)
    return d.language, d.confidence


def kept_before(text: str, target: str) -> bool:
    if len(set(_WORD.findall(text.lower()))) < SURE_WORDS:
        return False
    language, confidence = told(text)
    return language == target and confidence >= SURE


def tally(name: str, parts: list[str], source: str, show: int) -> None:
    target = "es" if source == "en" else "en"
    judge = judged_parts(source, target, told)
    kept = [p for p in parts if judge(p)[0]]
    warned = [p for p in parts if judge(p)[1]]
    print(f"{name} ({source}, {len(parts)} parts): kept {len(kept)} (before {sum(kept_before(p, target) for p in parts)}),"
          f" translated with a warning {len(warned)}")
    for label, found in (("kept", kept), ("warned", warned)):
        if show and found:
            print(f"  {label}: {[p[:40] for p in found[:show]]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=4000, help="unseen lines a side")
    ap.add_argument("--show", type=int, default=12, help="parts shown of each kind")
    args = ap.parse_args()
    markdown = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md", ROOT / "CHANGELOG.md"]
    tally("repository Markdown", [b for f in markdown for b in blocks_of(f.read_text().split("\n"), "markdown")],
          "en", args.show)
    for name, source in (("unseen.tsv", "en"), ("unseen-es.tsv", "es")):
        if (UNSEEN / name).exists():
            lines = (UNSEEN / name).read_text().splitlines()[: args.n]
            tally(name, [line.split("\t")[0] for line in lines], source, args.show)
    for source in ("en", "es"):
        strings = (ROOT / f"benchmarks/sets/software-{source}.txt").read_text().splitlines()
        tally(f"software-{source}.txt", [s for s in strings if s.strip()], source, args.show)


if __name__ == "__main__":
    main()
