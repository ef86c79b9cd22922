"""File translation as a user gets it against the decoding speed benchmarks/decode.py reports.

`mtcli translate -i FILE` runs in a new process each time (start-up, model loading, the choice of
kernels, decoding, output); the benchmark side loads the model once in this process, warms it up
with 64 sentences and times Translator.translate alone, as benchmarks/decode.py does. Both get the
same lines: N English sentences of unseen.tsv spread evenly over its range of lengths, shuffled.
The two sides alternate; medians of the rounds. Also: the wall time of `mtcli translate "..."`.
Each figure is given twice: from wall time, and from CPU time (user + system, all threads), which
a busy machine (another process training) distorts far less.

    python -m benchmarks.translate_cli [--model en-es] [--sentences 2000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mtcli import registry
from mtcli.data import read_corpus
from mtcli.decode import Translator

UNSEEN = Path(__file__).resolve().parents[2] / "shared" / "data" / "tatoeba-test" / "unseen.tsv"


def sample_lines(path: Path, n: int) -> list[str]:
    """n distinct English sides, evenly spaced in length order (short to long), then shuffled."""
    english = sorted(dict.fromkeys(en for en, _ in read_corpus(path).pairs), key=len)
    picked = [english[i * len(english) // n] for i in range(min(n, len(english)))]
    random.Random(0).shuffle(picked)
    return picked


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def cli_seconds(args: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one `mtcli translate ARGS` process."""
    t, c = time.perf_counter(), _children_cpu()
    subprocess.run([sys.executable, "-m", "mtcli", "translate", *args], stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t, _children_cpu() - c


def bench_seconds(tr: Translator, lines: list[str], beam: int) -> tuple[float, float]:
    t, c = time.perf_counter(), time.process_time()
    tr.translate(lines, beam=beam)
    return time.perf_counter() - t, time.process_time() - c


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=registry.SHIPPED, help="a name from `mtcli models` or a model directory")
    ap.add_argument("--sentences", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--data", type=Path, default=UNSEEN, help="TSV to take the English lines from")
    args = ap.parse_args()
    lines = sample_lines(args.data, args.sentences)
    tr = Translator(registry.resolve(args.model))
    tr.translate(lines[:64], beam=4)  # warm-up, as benchmarks/decode.py
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "english.txt"
        src.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        print(f"{args.model}: {len(lines)} lines of {args.data.name}, {args.rounds} rounds (medians)")
        print(f"  sentences/s {'':7} {'CLI':>6} {'bench':>6} {'ratio':>6}")
        for label, flags, beam in (("greedy", ["--greedy"], 1), ("beam 4", ["--beam", "4"], 4)):
            cli, bench = [], []
            for _ in range(args.rounds):
                cli.append(cli_seconds(["-m", args.model, "-i", str(src), *flags]))
                bench.append(bench_seconds(tr, lines, beam))
            for clock, k in (("wall", 0), ("CPU", 1)):
                c = len(lines) / statistics.median(s[k] for s in cli)
                b = len(lines) / statistics.median(s[k] for s in bench)
                print(f"  {label:7} {clock:4} {'':7} {c:6.0f} {b:6.0f} {c / b:6.0%}")
    for label, flags in (("greedy", ["--greedy"]), ("beam 4", ["--beam", "4"])):
        runs = [cli_seconds(["-m", args.model, *flags, "The plant is green."]) for _ in range(5)]
        print(f"  one sentence, {label}: {statistics.median(r[0] for r in runs):.2f} s wall, "
              f"{statistics.median(r[1] for r in runs):.2f} s CPU")


if __name__ == "__main__":
    main()
