"""Everyday messages whose meaning the translation must keep (helper fix12a, 2026-12-03): chat's dropped "I" ("Love
you" had come out "Te ama."), a wish with a year or a name after it, an amount in words with its currency, chat
acronyms opening a sentence, an acronym that is the subject, Spanish greetings. Through `mtcli translate -i --json`
as a user runs it (a new process), this checkout's or --tree's (a change's before):

    nice -n 10 python benchmarks/everyday_meaning.py [--direction es-en] [--tree OTHER_TREE] [--show]
    nice -n 10 python benchmarks/everyday_meaning.py --unseen 2000 --tree OTHER_TREE [--direction es-en]

Sets: benchmarks/sets/everyday-meaning-en.tsv and -es.tsv (source<TAB>answers separated by " | ", "# == NAME" starts
a category), written before any output was seen. A line is right when its output, normalised (`normalise`), equals
one of its answers. --unseen N: the first N lines of the unseen Tatoeba set through both trees (measured only, never
tuned on): lines changed, BLEU and chrF of each, and every changed line (to check by hand).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.acronyms import translate as records  # noqa: E402  (one way to run a tree's `mtcli translate`)

SETS = ROOT / "benchmarks" / "sets"
UNSEEN = {"en-es": ROOT.parent / "shared/data/tatoeba-test/unseen.tsv",
          "es-en": ROOT.parent / "shared/data/tatoeba-test/unseen-es.tsv"}
# what does not count: sentence marks anywhere, quotes, emoji and other symbols
_MARKS = re.compile(r"[¡¿.!?,;:…\"«»“”]|[^\w\s'’-]")


def normalise(text: str) -> str:
    return " ".join(_MARKS.sub(" ", text.lower().replace("’", "'")).split())


def read_set(direction: str) -> list[tuple[str, str, list[str]]]:
    """(category, source, answers) of a direction's set."""
    rows, category = [], ""
    for line in (SETS / f"everyday-meaning-{direction.split('-')[0]}.tsv").read_text(encoding="utf-8").splitlines():
        if line.startswith("# == "):
            category = line[5:].split(":")[0]
        elif line.strip() and not line.startswith("#"):
            source, answers = line.split("\t")
            rows.append((category, source, [normalise(a) for a in answers.split(" | ")]))
    return rows


def translate(lines: list[str], source: str, tree: Path) -> list[str]:
    """Each line's best translation by `mtcli translate -i --json` of `tree`'s code."""
    return [r["translations"][0]["text"] if r["translations"] else "" for r in records(lines, source, tree)]


def written_set(args) -> None:
    rows = read_set(args.direction)[: args.limit or None]
    outs = translate([source for _, source, _ in rows], args.direction.split("-")[0], args.tree)
    counts: dict[str, list[int]] = {}
    for (category, source, answers), out in zip(rows, outs):
        right = normalise(out) in answers
        counts.setdefault(category, [0, 0])[0] += right
        counts[category][1] += 1
        if args.show or not right:
            print(f"  {'ok ' if right else 'BAD'} [{category}] {source!r} -> {out!r}")
    print(f"{args.direction} ({args.tree}): " + ", ".join(f"{c} {r}/{n}" for c, (r, n) in counts.items())
          + f"; all {sum(r for r, _ in counts.values())}/{len(rows)}")


def unseen(args) -> None:
    import sacrebleu

    pairs = [line.split("\t")[:2] for line in UNSEEN[args.direction].read_text(encoding="utf-8").splitlines()[: args.unseen]]
    sources, refs = [p[0] for p in pairs], [p[1] for p in pairs]
    source = args.direction.split("-")[0]
    before, after = translate(sources, source, args.tree), translate(sources, source, ROOT)
    for name, outs in (("before", before), ("after", after)):
        print(f"{name}: BLEU {sacrebleu.corpus_bleu(outs, [refs]).score:.2f}, chrF "
              f"{sacrebleu.corpus_chrf(outs, [refs]).score:.2f}")
    changed = [(s, r, b, a) for s, r, b, a in zip(sources, refs, before, after) if b != a]
    print(f"{len(changed)} of {len(sources)} lines changed")
    for s, r, b, a in changed:
        print(f"  {s!r}\n    ref    {r!r}\n    before {b!r}\n    after  {a!r}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--direction", default="en-es", choices=["en-es", "es-en"])
    ap.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose mtcli translates (default: this one)")
    ap.add_argument("--show", action="store_true", help="every line, right or not")
    ap.add_argument("--unseen", type=int, default=0, help="compare --tree with this checkout on N unseen lines")
    ap.add_argument("--limit", type=int, default=0, help="the written set's first N lines (0: all; a tiny run)")
    args = ap.parse_args()
    args.tree = args.tree.resolve()
    unseen(args) if args.unseen else written_set(args)


if __name__ == "__main__":
    sys.exit(main())
