"""Texting shorthand (text/shorthand.py) through `mtcli translate` as a user runs it (a new process, `--json`): the
written sets benchmarks/sets/shorthand-kept-*.tsv (what the stage must leave as typed: kept spans, a glossary's
terms, acronyms, names, quoted words; and a lone word or a chat "2" read once), shorthand-chat-*.tsv (chat lines it
must read), each line with what its translation must hold; and how many of the first N lines of the unseen test
sets come out otherwise than `--before`'s tree translates them (measured only: never tuned on).

    nice -n 10 python benchmarks/shorthand.py [--tree TREE] [--before OTHER_TREE] [--unseen 2000] [--show]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.acronyms import SETS, met  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
UNSEEN = ROOT.parent / "shared/data/tatoeba-test"
GLOSSARY = "MSG\tglutamato monosódico\nRN\tenfermera titulada\nPic\tPic\n"  # (the en sets' "glossary" rows)


def translate(lines: list[str], source: str, tree: Path, glossary: str = "") -> list[str]:
    """Each line's first translation by `mtcli translate -i` of `tree`'s code (cwd a temporary directory: `python -m`
    reads the cwd first)."""
    with tempfile.TemporaryDirectory() as tmp:
        path, terms = Path(tmp) / "in.txt", Path(tmp) / "g.tsv"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        terms.write_text(glossary, encoding="utf-8")
        done = subprocess.run([sys.executable, "-m", "mtcli", "translate", "-i", str(path), "--json", "--from", source,
                               *(["-g", str(terms)] if glossary else [])], capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(tree)}, cwd=tmp, check=True)
    return [json.loads(line)["translations"][0]["text"] for line in done.stdout.splitlines() if line.startswith("{")]


def written(name: str, source: str, tree: Path, show: bool, limit: int = 0) -> dict[str, list[int]]:
    """Right and all lines of a set (its first `limit`, 0 all) by category (its third column, else the set's name)."""
    rows = [line.split("\t") for line in (SETS / f"shorthand-{name}-{source}.tsv").read_text(encoding="utf-8")
            .splitlines() if line and not line.startswith("#")][: limit or None]
    outs = dict(zip([r[0] for r in rows if r[2:] != ["glossary"]],
                    translate([r[0] for r in rows if r[2:] != ["glossary"]], source, tree)))
    if glossed := [r[0] for r in rows if r[2:] == ["glossary"]]:
        outs.update(zip(glossed, translate(glossed, source, tree, GLOSSARY)))
    counts: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    for line, wants, *kind in rows:
        missed = [w for w in wants.split(";") if not met(w, outs[line])]
        counts[kind[0] if kind else name][0] += not missed
        counts[kind[0] if kind else name][1] += 1
        if show or missed:
            print(f"  {line!r} -> {outs[line]!r}" + (f"   MISSED {missed}" if missed else ""))
    return counts


def unseen(n: int, tree: Path, before: Path) -> None:
    for name, source in (("unseen.tsv", "en"), ("unseen-es.tsv", "es")):
        lines = [row.split("\t")[0] for row in (UNSEEN / name).read_text(encoding="utf-8").splitlines()[:n]]
        new, old = translate(lines, source, tree), translate(lines, source, before)
        changed = [(s, o, t) for s, o, t in zip(lines, old, new) if o != t]
        print(f"{name}: {len(changed)} of {len(lines)} lines translated otherwise than by {before}")
        for s, o, t in changed:
            print(f"  {s!r}: {o!r} -> {t!r}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose mtcli translates (default: this one)")
    ap.add_argument("--before", type=Path, help="another checkout (a change's before): its figures beside")
    ap.add_argument("--unseen", type=int, default=0, help="also the first N lines of each unseen set, against --before")
    ap.add_argument("--show", action="store_true", help="every line")
    ap.add_argument("--limit", type=int, default=0, help="the first N lines of each set (0: all)")
    args = ap.parse_args()
    for tree in [args.tree, *([args.before] if args.before else [])]:
        for name in ("kept", "chat"):
            for source in ("en", "es"):
                counts = written(name, source, tree.resolve(), args.show, args.limit)
                print(f"{name}-{source} ({tree}): " + ", ".join(f"{k} {r}/{n}" for k, (r, n) in counts.items()))
    if args.unseen and args.before:
        unseen(args.unseen, args.tree.resolve(), args.before.resolve())


if __name__ == "__main__":
    sys.exit(main())
