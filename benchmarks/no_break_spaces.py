"""No-break spaces through the pipeline (issue 38): the unseen set's English lines with a space after a number
before a word or "%" (or after Mr./Mrs./Ms./Dr. before a name), that space made U+00A0; each file translated with
`mtcli translate --greedy -i` (the shipped model). Prints how many no-break spaces came back, and how many
translations are, but for them, the translation of the same line with plain spaces (the stage moves no word).

    nice -n 10 python benchmarks/no_break_spaces.py
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
UNSEEN = REPO.parent / "shared" / "data" / "tatoeba-test" / "unseen.tsv"
SPACE = re.compile(r"(?<=\d) (?=[A-Za-z%])|(?<=\b(?:Mr|Ms|Dr)\.) (?=[A-Z])|(?<=\bMrs\.) (?=[A-Z])")
NB = "\u00a0"


def _translate(lines: list[str], folder: Path, name: str) -> list[str]:
    source, target = folder / f"{name}.txt", folder / f"{name}.out"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "mtcli", "translate", "--greedy", "-i", str(source), "-o", str(target)],
                   check=True, stderr=subprocess.DEVNULL, cwd=REPO)
    return target.read_text(encoding="utf-8").splitlines()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=0, help="the first N lines with such a space (0: all)")
    limit = ap.parse_args().lines or None
    english = [row.split("\t")[0] for row in UNSEEN.read_text(encoding="utf-8").splitlines()]
    plain = [line for line in english if SPACE.search(line)][:limit]
    marked = [SPACE.sub(NB, line) for line in plain]
    with tempfile.TemporaryDirectory() as folder:
        before, after = _translate(plain, Path(folder), "plain"), _translate(marked, Path(folder), "marked")
    print(f"{len(plain)} lines, {sum(line.count(NB) for line in marked)} no-break spaces; "
          f"back: {sum(t.count(NB) for t in after)} in {sum(NB in t for t in after)} lines; translations equal but "
          f"for them: {sum(b == a.replace(NB, ' ') for a, b in zip(after, before))} of {len(plain)}")


if __name__ == "__main__":
    main()
