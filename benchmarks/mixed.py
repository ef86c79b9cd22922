"""Quotations already in the target language, first names the model knows as words, lines mixing the two languages
and numbers whose verb or name the model lost (attack 2026-12-03: L, M, N and its numbers' "Left"), through
`mtcli translate -i --json --from` as a user runs it (a new process), of this tree or another (--tree: a before).

Sets (benchmarks/sets/, written before any output was looked at): quoted-, names-, mixed-, numbers-left- with
-en-es.tsv and -es-en.tsv, each line source<TAB>acceptable translations separated by " | ". Per set: lines
acceptable (benchmarks/first_inputs.normalise: case, spacing and the marks at either end not counted), lines with a
made-up word (a word neither in the model's lexicon nor the line nor its answers), lines flagged by the confidence
check, lines with a warning of the pipeline's or a reason naming one of the line's capitalised words, and lines that
keep every word of the source that every answer writes as typed (a quotation, a name, a word of the target's).

    nice -n 10 python benchmarks/mixed.py [--tree OTHER_TREE] [--show]
    nice -n 10 python benchmarks/mixed.py --unseen 2000 --tree OTHER_TREE    # unseen sets: changed, BLEU, chrF
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.acronyms import lexicon, translate  # noqa: E402
from benchmarks.first_inputs import UNSEEN, acceptable  # noqa: E402

SETS = ROOT / "benchmarks" / "sets"
KINDS = ("quoted", "names", "mixed", "numbers-left")
WORD = re.compile(r"[^\W\d_]+")


def said(record: dict) -> str:
    """Every warning of the line: the pipeline's and the confidence check's reasons."""
    quality = record.get("quality") or {}
    return " ".join(record.get("warnings", []) + [w for s in quality.get("sentences", []) for w in s.get("warnings", [])])


def sets(args) -> None:
    for direction in ("en-es", "es-en"):
        source = direction.split("-")[0]
        words = lexicon(direction)
        for kind in KINDS:
            path = SETS / f"{kind}-{direction}.tsv"
            rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()
                    if line.strip() and not line.startswith("#")][: args.limit or None]
            records = translate([r[0] for r in rows], source, args.tree)
            right = made = flagged = named = same = 0
            for (line, answers), record in zip(rows, records):
                out = record["translations"][0]["text"]
                ok = acceptable(out, answers.replace(" | ", "|"))
                # (the source's words every answer writes as typed: a quotation, a name, a word of the target's)
                typed = [w for w in WORD.findall(line) if len(w) > 2 and all(w in WORD.findall(a) for a in answers.split(" | "))]
                same += all(w in WORD.findall(out) for w in typed)
                mine = {w.lower() for w in WORD.findall(line + " " + answers)}
                invented = [w for w in WORD.findall(out) if w.lower() not in words and w.lower() not in mine]
                warned = said(record)
                names = [w for w in WORD.findall(line) if w[0].isupper() and f"'{w}" in warned]
                right += ok
                made += bool(invented)
                flagged += bool((record.get("quality") or {}).get("flagged"))
                named += bool(names or record.get("warnings"))
                if args.show or not ok:
                    print(f"  {'ok ' if ok else 'BAD'} {line!r} -> {out!r}" + (f"   MADE UP {invented}" if invented else "")
                          + (f"   WARNED {warned!r}" if warned else ""))
            print(f"{kind}-{direction} ({args.tree.name}): {right}/{len(rows)} acceptable; {same} with every word kept "
                  f"that every answer keeps; {made} with a made-up word; {flagged} flagged; {named} with a warning of "
                  "the pipeline's or one naming a capitalised word")


def unseen(args) -> None:
    """The first `args.unseen` lines of each unseen set through both trees: lines changed, BLEU and chrF of each."""
    import sacrebleu

    for direction, path in UNSEEN.items():
        pairs = [line.split("\t")[:2] for line in path.read_text(encoding="utf-8").splitlines()[: args.unseen]]
        src, refs = [p[0] for p in pairs], [p[1] for p in pairs]
        outs, flagged, warned = {}, {}, {}
        for tree in (args.tree, ROOT):
            records = translate(src, direction[:2], tree)
            outs[tree] = [r["translations"][0]["text"] for r in records]
            flagged[tree] = sum(bool((r.get("quality") or {}).get("flagged")) for r in records)
            warned[tree] = sum(bool(r.get("warnings")) for r in records)
        changed = [k for k, (a, b) in enumerate(zip(outs[args.tree], outs[ROOT])) if a != b]
        scores = {t: (sacrebleu.corpus_bleu(o, [refs]).score, sacrebleu.corpus_chrf(o, [refs]).score)
                  for t, o in outs.items()}
        print(f"{direction} unseen, first {len(src)} lines: {len(changed)} changed; BLEU / chrF "
              f"{scores[args.tree][0]:.2f} / {scores[args.tree][1]:.2f} ({args.tree.name}) -> "
              f"{scores[ROOT][0]:.2f} / {scores[ROOT][1]:.2f} (this tree); flagged {flagged[args.tree]} -> "
              f"{flagged[ROOT]}, with a pipeline warning {warned[args.tree]} -> {warned[ROOT]}")
        for k in changed:
            print(f"  {src[k]!r}\n    {outs[args.tree][k]!r}\n    {outs[ROOT][k]!r}\n    ref {refs[k]!r}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose mtcli translates (default: this one)")
    ap.add_argument("--show", action="store_true", help="every line, not only those not acceptable")
    ap.add_argument("--unseen", type=int, default=0, help="the first N lines of the unseen sets, --tree against this one")
    ap.add_argument("--limit", type=int, default=0, help="each set's first N lines (0: all; a tiny run)")
    args = ap.parse_args()
    args.tree = args.tree.resolve()
    unseen(args) if args.unseen else sets(args)


if __name__ == "__main__":
    main()
