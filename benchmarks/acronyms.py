"""Acronyms and short ALL CAPS words ("PDF", "CEO", "UN", "EE. UU.", "OK." alone) through `mtcli translate` as a user
runs it (a new process, `--json`): written sets (benchmarks/sets/acronyms-en.tsv, acronyms-es.tsv: each line with
what its translation must hold), and the corpus's selection split (how often the model alone renders each known ALL
CAPS token right: text/acronyms.py leaves it the ones it gets right).

    nice -n 10 python benchmarks/acronyms.py [--direction es-en] [--tree OTHER_TREE] [--show]
    nice -n 10 python benchmarks/acronyms.py --set roles [--direction es-en]   # sets/roles-en.tsv: names' roles
    MTCLI_DATA=path/to/spa.txt nice -n 10 python benchmarks/acronyms.py --selection [--tree OTHER_TREE]

--tree runs another checkout's mtcli (a change's before) on the same lines.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETS = ROOT / "benchmarks" / "sets"
CORPUS = Path(os.environ.get("MTCLI_DATA", ROOT.parent / "shared/data/spa-eng/spa.txt"))
WORD = re.compile(r"[^\W\d_]+")
# a token as the selection split's measure finds it: ALL CAPS letters (a plural's "s"), dotted capitals
TOKEN = re.compile(r"(?<![\w.])(?:[A-Z]{2,6}s?|(?:[A-Z]\.){2,4}|EE\. ?UU\.)(?!\w)")
# what the model may write for a token besides itself and text/acronyms.py's writing of it (the selection measure)
RENDERED = {"TV": "tele televisión televisor", "OK": "vale bueno acuerdo bien", "CD": "disco", "USA": "Estados Unidos",
            "US": "Estados Unidos", "U.S.": "Estados Unidos", "ATM": "cajero", "ID": "identificación carné documento",
            "UFO": "ovni", "AIDS": "sida"}


def translate(lines: list[str], source: str, tree: Path) -> list[dict]:
    """Each line's --json record from `mtcli translate -i` of `tree`'s code."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "in.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(tree)}
        done = subprocess.run([sys.executable, "-m", "mtcli", "translate", "-i", str(path), "--json", "--from", source],
                              capture_output=True, text=True, env=env, cwd=tmp, check=True)
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def met(expectation: str, out: str) -> bool:
    if expectation == "SHOUT":
        return out == out.upper() and out != out.lower()
    if expectation == "CALM":  # (no word in capitals but an acronym's: "OK." is calm, "GO AWAY." a shout)
        return not re.search(r"\b(?!OK\b|TV\b)[A-Z]{2,}\b", out)
    if expectation.startswith("!"):
        return not re.search(rf"(?<!\w){re.escape(expectation[1:])}(?!\w)", out)
    return any(re.search(rf"(?<!\w){re.escape(form)}s?(?!\w)", out) for form in expectation.split("|"))  # ("PDFs")


def lexicon(direction: str) -> frozenset[str]:
    return frozenset(json.loads((ROOT / "mtcli" / "models" / direction / "lexicon.json").read_text())["words"])


def named_kept(record: dict, wanted: list[str]) -> list[str]:
    """The expected acronyms a confidence warning names."""
    quality = record.get("quality") or {}
    said = " ".join(w for s in quality.get("sentences", []) for w in s.get("warnings", []))
    return [w for w in wanted if re.search(rf"'{re.escape(w)}'", said)]


def written_sets(args) -> None:
    source, target = args.direction.split("-")
    rows = [line.split("\t") for line in (SETS / f"{args.set}-{source}.tsv").read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")][: args.limit or None]
    records = translate([r[0] for r in rows], source, args.tree)
    words = lexicon(args.direction)
    right = made = flagged = named = 0
    for (line, wants), record in zip(rows, records):
        out = record["translations"][0]["text"]
        missed = [w for w in wants.split(";") if not met(w, out)]
        mine = {x.lower() for x in WORD.findall(line + " " + wants.replace("|", " "))}  # (the line's, the expected)
        invented = [w for w in WORD.findall(out) if w.lower() not in words and w.lower() not in mine]
        typed = [w for w in TOKEN.findall(line)]
        said = named_kept(record, typed)
        right += not missed
        made += bool(invented)
        flagged += bool((record.get("quality") or {}).get("flagged"))
        named += bool(said)
        if args.show or missed or invented or said:
            print(f"  {line!r} -> {out!r}" + (f"   MISSED {missed}" if missed else "")
                  + (f"   MADE UP {invented}" if invented else "") + (f"   WARNING NAMES {said}" if said else ""))
    n = len(rows)
    print(f"{args.direction} ({args.tree}): {right}/{n} lines with every expectation met; {made} with a made-up word; "
          f"{flagged} flagged; {named} with a warning naming an acronym")


def selection(args) -> None:
    """Each known ALL CAPS token of the selection split's lines that are not shouted: how often the model's
    translation (as `tree` translates it) holds it or a rendering of it."""
    sys.path.insert(0, str(args.tree))
    from mtcli.data import oriented, read_corpus, split_pairs
    from mtcli.text.case import is_shouting

    for direction in ("en-es", "es-en"):
        source = direction.split("-")[0]
        pairs = oriented(list(read_corpus(CORPUS).pairs), direction)
        chosen = [s for s, _ in (pairs[i] for i in split_pairs(pairs, 0, "grouped")["selection"])
                  if not is_shouting(s) and TOKEN.search(s)]
        records = translate(chosen, source, args.tree)
        counts: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
        for line, record in zip(chosen, records):
            out = record["translations"][0]["text"]
            for token in TOKEN.findall(line):
                bare = token[:-1] if token.endswith("s") and token[:-1].isupper() else token
                forms = [bare, *RENDERED.get(bare, "").split()]
                ok = any(re.search(rf"(?<!\w){re.escape(f)}(?:e?s)?(?!\w)", out, re.IGNORECASE) for f in forms)
                counts[bare][0] += ok
                counts[bare][1] += 1
                if args.show:
                    print(f"  {'ok ' if ok else 'BAD'} {line!r} -> {out!r}")
        print(f"{direction} selection split, {len(chosen)} lines with an ALL CAPS token:",
              ", ".join(f"{t} {r}/{n}" for t, (r, n) in sorted(counts.items(), key=lambda kv: -kv[1][1])))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--direction", default="en-es", choices=["en-es", "es-en"])
    ap.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose mtcli translates (default: this one)")
    ap.add_argument("--selection", action="store_true", help="the selection split's known tokens instead of the sets")
    ap.add_argument("--show", action="store_true", help="every line")
    ap.add_argument("--limit", type=int, default=0, help="the first N lines of the set (0: all)")
    ap.add_argument("--set", default="acronyms", help="the written set: benchmarks/sets/SET-en.tsv, SET-es.tsv")
    args = ap.parse_args()
    args.tree = args.tree.resolve()
    selection(args) if args.selection else written_sets(args)


if __name__ == "__main__":
    sys.exit(main())
