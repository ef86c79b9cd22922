"""File translation as a user gets it: `mtcli translate -i FILE -o OUT` in a new process (start-up,
model loading, the choice of kernels, the text pipeline, decoding, output) against the speed
benchmarks/decode.py reports (Translator.translate_batch with TranslationOptions' defaults, in a warm
process), and with --ct2 against a new CTranslate2 process translating the same file with the same
model exported (mtcli.export, float32, mtcli's tokenizers and search settings, as benchmarks/decode.py
runs it).

Lines: N distinct English sides of unseen.tsv evenly spaced in length (the file's mix of lengths, not
its shortest), repeated if N is larger than the file, shuffled with a fixed seed. The sides alternate
within each round; figures are medians of the rounds. Each is given twice: from wall time, and from
CPU time (user + system, all threads; a child's from its rusage), which a busy machine (another
process training) distorts far less. Also: `mtcli translate "..."` for one sentence.

    python benchmarks/translate_cli.py [--model en-es] [--sentences 2000] [--rounds 3] [--ct2]
"""

from __future__ import annotations

import argparse
import atexit
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from mtcli import registry
from mtcli.checkpoint import member_files, write_first_member
from mtcli.data import read_corpus
from mtcli.decode import DEFAULTS, Translator

UNSEEN = Path(__file__).resolve().parents[2] / "shared" / "data" / "tatoeba-test" / "unseen.tsv"
ONE = "The plant is green."
MODES = (("greedy", ["--greedy"], 1), ("beam 4", ["--beam", "4"], 4))


def sample_lines(path: Path, n: int, seed: int = 0) -> list[str]:
    """n English sides: distinct ones evenly spaced in length order (short to long), cycled if n is
    larger than the file, then shuffled."""
    english = sorted(dict.fromkeys(en for en, _ in read_corpus(path).pairs), key=len)
    picked = [english[i * len(english) // n] for i in range(min(n, len(english)))]
    picked = [picked[i % len(picked)] for i in range(n)]
    random.Random(seed).shuffle(picked)
    return picked


def child_seconds(cmd: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one process."""
    before, t = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter() - t, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def in_process_seconds(tr: Translator, lines: list[str], beam: int) -> tuple[float, float]:
    """benchmarks/decode.py's mtcli side."""
    t, c = time.perf_counter(), time.process_time()
    tr.translate_batch(lines, replace(DEFAULTS, beam_size=beam))
    return time.perf_counter() - t, time.process_time() - c


def ct2_process(ct2_dir: str, model_dir: str, src: str, out: str, beam: str, room: str, max_len: str) -> None:
    """What a CTranslate2 user runs (the child side of --ct2): tokenize, translate, detokenize, write; the
    tokens spelled as the export spells them (with case factors, each English token carries its case)."""
    import ctranslate2

    from mtcli.export import ctranslate2_source, target_tokens
    from mtcli.tokenizer import Tokenizer

    src_tok, tgt_tok = Tokenizer.load(Path(model_dir) / "src.json"), Tokenizer.load(Path(model_dir) / "tgt.json")
    tgt_ids = {name: i for i, name in reversed(list(enumerate(target_tokens(tgt_tok))))}
    translator = ctranslate2.Translator(ct2_dir, device="cpu", compute_type="float32", inter_threads=1,
                                        intra_threads=len(os.sched_getaffinity(0)))
    lines = Path(src).read_text(encoding="utf-8").splitlines()
    tokens = [ctranslate2_source(src_tok, ids[: int(room)]) for ids in src_tok.encode_batch(lines)]
    results = translator.translate_batch(
        tokens, beam_size=int(beam), length_penalty=DEFAULTS.length_penalty,
        no_repeat_ngram_size=DEFAULTS.no_repeat_ngram_size, max_decoding_length=int(max_len),
        max_batch_size=DEFAULTS.max_batch_size, batch_type=DEFAULTS.batch_type,
        suppress_sequences=[["[PAD]"], ["[START]"]])
    texts = tgt_tok.decode_batch([[tgt_ids[t] for t in r.hypotheses[0]] for r in results])
    Path(out).write_text("".join(t + "\n" for t in texts), encoding="utf-8")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=registry.SHIPPED, help="a name from `mtcli models` or a model directory")
    ap.add_argument("--sentences", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--data", type=Path, default=UNSEEN, help="TSV to take the English lines from")
    ap.add_argument("--ct2", action="store_true", help="also a CTranslate2 process (needs the export extra)")
    ap.add_argument("--first-member", action="store_true",
                    help="an ensemble's first model alone on every side (CTranslate2 decodes one model)")
    ap.add_argument("--one", type=int, default=5, help="runs of `mtcli translate SENTENCE` per search (median)")
    ap.add_argument("--ct2-process", nargs=7, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.ct2_process:
        return ct2_process(*args.ct2_process)
    lines = sample_lines(args.data, args.sentences)
    model = registry.resolve(args.model)
    if args.ct2 and len(member_files(model)) > 1 and not args.first_member:
        print(f"{args.model} is an ensemble; CTranslate2 decodes one model, so every side runs its first alone")
        args.first_member = True
    if args.first_member:
        first = tempfile.mkdtemp(prefix="mtcli-first-member-")
        atexit.register(shutil.rmtree, first, ignore_errors=True)  # (a copy of the model's weights)
        model = args.model = write_first_member(model, first)
    tr = Translator(model)
    tr.translate_batch(lines[:64], replace(DEFAULTS, beam_size=4))  # warm-up, as benchmarks/decode.py
    print(f"{args.model}: {len(lines)} lines of {args.data.name}, {args.rounds} alternating rounds (medians); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        src, out = str(Path(tmp) / "english.txt"), str(Path(tmp) / "spanish.txt")
        Path(src).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        sides = {"CLI": lambda flags, beam: child_seconds(
                     [sys.executable, "-m", "mtcli", "translate", "-m", args.model, "-i", src, "-o", out, *flags]),
                 "in-process": lambda flags, beam: in_process_seconds(tr, lines, beam)}
        if args.ct2:
            from mtcli.export import export_ctranslate2

            export_ctranslate2(tr.model, tr.src_tok, tr.tgt_tok, Path(tmp) / "ct2")
            cfg = tr.model.cfg
            sides["CT2 process"] = lambda flags, beam: child_seconds(
                [sys.executable, __file__, "--ct2-process", str(Path(tmp) / "ct2"), str(model), src, out,
                 str(beam), str(cfg.max_src_len - 2), str(cfg.max_tgt_len - 1)])
        print(f"  sentences/s {'':6}" + "".join(f"{name:>12}" for name in sides)
              + "  CLI/in-process" + ("  CLI/CT2 process" if args.ct2 else ""))
        for label, flags, beam in MODES:
            runs = {name: [] for name in sides}
            for _ in range(args.rounds):
                for name, side in sides.items():
                    runs[name].append(side(flags, beam))
            for clock, k in (("wall", 0), ("CPU", 1)):
                speed = {name: len(lines) / statistics.median(r[k] for r in rs) for name, rs in runs.items()}
                print(f"  {label:7} {clock:4} {'':6}" + "".join(f"{s:12.0f}" for s in speed.values())
                      + f"  {speed['CLI'] / speed['in-process']:14.0%}"
                      + (f"  {speed['CLI'] / speed['CT2 process']:15.2f}x" if args.ct2 else ""))
    for label, flags, _ in MODES:
        runs = [child_seconds([sys.executable, "-m", "mtcli", "translate", "-m", args.model, *flags, ONE])
                for _ in range(args.one)]
        print(f"  one sentence, {label}: {statistics.median(r[0] for r in runs):.2f} s wall, "
              f"{statistics.median(r[1] for r in runs):.2f} s CPU (median of {args.one})")
    print(f"  load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
