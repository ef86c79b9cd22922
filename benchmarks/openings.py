"""Lines that open with a greeting, a thanks, an apology or a reply word and a comma ("Good morning, how are you?"),
through `mtcli translate` as a user runs it (a new process per tree and direction): the written sets
benchmarks/sets/openings-en-es.tsv and openings-es-en.tsv, scored by first_inputs.py's "content kept" (every item
of a line found in its translation), and, with --unseen N, what else the change touches: of the first N lines of
the unseen test sets, how many come out differently and BLEU / chrF of each tree (measured only, never tuned on).

    nice -n 10 python benchmarks/openings.py [--tree BEFORE_TREE] [--unseen 2000] [--show]

--tree adds another checkout's mtcli (a change's before) on the same lines, side by side.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.first_inputs import UNSEEN, missing, read_set  # noqa: E402

SETS = ROOT / "benchmarks" / "sets"


def translate(lines: list[str], source: str, tree: Path) -> list[str]:
    """`tree`'s `mtcli translate --from SOURCE --no-check -i` of the lines, one output line each."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "in.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(tree)}
        run = subprocess.run([sys.executable, "-m", "mtcli", "translate", "--from", source, "--no-check", "-i", str(path)],
                             capture_output=True, text=True, env=env, cwd=tmp, check=True)  # (not ours: -m reads the cwd first)
    out = run.stdout.splitlines()
    assert len(out) == len(lines), (len(out), len(lines))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", type=Path, action="append", default=[], help="another checkout to compare (repeatable)")
    ap.add_argument("--unseen", type=int, default=0, help="also the first N lines of each unseen set")
    ap.add_argument("--limit", type=int, default=0, help="the first N lines of each written set (0: all)")
    ap.add_argument("--show", action="store_true", help="print every line whose content is not all kept")
    args = ap.parse_args()
    trees = [ROOT, *args.tree]
    for direction in ("en-es", "es-en"):
        rows = read_set(SETS / f"openings-{direction}.tsv")[: args.limit or None]
        for tree in trees:
            outs = translate([r[0] for r in rows], direction[:2], tree)
            lost = [(r[0], out, missing(out, r[1:])) for r, out in zip(rows, outs)]
            kept = sum(not m for *_, m in lost)
            print(f"{direction} {tree}: content kept {kept}/{len(rows)}")
            for src, out, m in lost if args.show else ():
                if m:
                    print(f"    {src} -> {out}   (missing: {'; '.join(m)})")
        if args.unseen:
            import sacrebleu

            pairs = [line.split("\t")[:2] for line in UNSEEN[direction].read_text(encoding="utf-8").splitlines()]
            pairs = pairs[: args.unseen]
            outs = [translate([p[0] for p in pairs], direction[:2], tree) for tree in trees]
            for tree, out in zip(trees, outs):
                bleu = sacrebleu.corpus_bleu(out, [[p[1] for p in pairs]]).score
                chrf = sacrebleu.corpus_chrf(out, [[p[1] for p in pairs]]).score
                changed = sum(a != b for a, b in zip(out, outs[0]))
                print(f"{direction} unseen {len(pairs)} {tree}: BLEU {bleu:.2f} chrF {chrf:.2f}, "
                      f"{changed} lines differ from {ROOT}")


if __name__ == "__main__":
    main()
