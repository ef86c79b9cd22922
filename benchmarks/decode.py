"""Translation speed of a trained model against CTranslate2 running the same model (exported with
mtcli.export): sentences/s for greedy and beam 4 on unseen sentences sampled across the length
distribution, and the latency of one sentence.

Sides alternate round by round (mtcli, CTranslate2 float32, CTranslate2 int8, mtcli, ...) and each
figure is the median of the rounds, so a machine shared with other work slows every side alike: the
ratios are the result, the absolute figures only describe the machine at that moment. Sentences per
CPU-second (the process's CPU time, all its threads) are printed too: on a crowded machine, where a
process gets a small and varying share of the cores, they measure the work each side does.

    python benchmarks/decode.py [--model mtcli/models/en-es] [--sentences 1500] [--rounds 3]

CTranslate2 counts a batch of "tokens" in source tokens, mtcli in source tokens times the beam (decode._joining:
its caches hold a row per hypothesis), so at beam 4 the same max_batch_size gives CTranslate2 ~4x the rows a step
(docs/benchmarks.md: its products amortise their packing over more rows); --ct2-batch same hands CTranslate2
mtcli's batches (the budget divided by the beam).

--before DIR adds the same model decoded by another tree's mtcli (a change's before) as one more side, in the
same process and rounds: DIR holds that tree's mtcli/ copied as the package mtcli_base, e.g.

    mkdir /tmp/before && git archive main mtcli | tar -x -C /tmp/before && mv /tmp/before/mtcli /tmp/before/mtcli_base
    grep -rl --include=*.py mtcli /tmp/before/mtcli_base | xargs sed -i -E 's/\b(from|import) mtcli\b/\1 mtcli_base/g'
"""

from __future__ import annotations

import argparse
import copy
import importlib
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from mtcli.decode import DEFAULTS, Translator
from mtcli.export import ctranslate2_source, export_ctranslate2, target_tokens

UNSEEN = Path(__file__).resolve().parents[2] / "shared/data/tatoeba-test/unseen.tsv"
ONE = "The plant is green."


def sample(path: Path, n: int, seed: int = 0) -> list[str]:
    """n distinct English sentences drawn uniformly (so their lengths follow the file's)."""
    lines = list(dict.fromkeys(line.split("\t")[0] for line in path.read_text(encoding="utf-8").splitlines()))
    lines = [line for line in lines if line.strip()]
    return [lines[i] for i in np.random.default_rng(seed).choice(len(lines), min(n, len(lines)), replace=False)]


class Mtcli:
    def __init__(self, tr: Translator, defaults=DEFAULTS):
        self.tr, self.defaults = tr, defaults  # (another tree's Translator takes its own options)

    def __call__(self, lines, beam):
        return [r.hypotheses[0].text for r in self.tr.translate_batch(lines, replace(self.defaults, beam_size=beam))]


def first_member(tr):
    """tr decoding its ensemble's first model alone."""
    single = copy.copy(tr)
    single.models = tr.models[:1]
    return single


def before_side(tree: Path, model: str) -> Mtcli:
    """The first member decoded by the mtcli_base package in `tree` (see the module's doc)."""
    sys.path.insert(0, str(tree))
    decode = importlib.import_module("mtcli_base.decode")
    return Mtcli(first_member(decode.Translator(model)), decode.DEFAULTS)


class CTranslate2:
    """A CTranslate2 Translator fed mtcli's own token ids (spelled as the export spells them), with
    mtcli's search settings and max_batch_size (--ct2-batch same: its batches, ct2_batch)."""

    def __init__(self, tr: Translator, model_dir: Path, compute_type: str, threads: int, same_batches: bool = False):
        import ctranslate2

        self.tr, self.same_batches = tr, same_batches
        self.ct2 = ctranslate2.Translator(str(model_dir), device="cpu", compute_type=compute_type,
                                          inter_threads=1, intra_threads=threads)
        self.tgt_ids = {name: i for i, name in reversed(list(enumerate(target_tokens(tr.tgt_tok))))}
        self.max_len = tr.model.cfg.max_tgt_len - 1  # tokens before EOS

    def __call__(self, lines, beam):
        room = self.tr.model.cfg.max_src_len - 2
        tokens = [ctranslate2_source(self.tr.src_tok, ids[:room]) for ids in self.tr.src_tok.encode_batch(lines)]
        results = self.ct2.translate_batch(
            tokens, beam_size=beam, length_penalty=DEFAULTS.length_penalty,
            no_repeat_ngram_size=DEFAULTS.no_repeat_ngram_size, max_decoding_length=self.max_len,
            max_batch_size=ct2_batch(beam, self.same_batches), batch_type=DEFAULTS.batch_type,
            suppress_sequences=[["[PAD]"], ["[START]"]], return_scores=True)
        return self.tr.tgt_tok.decode_batch([[self.tgt_ids[t] for t in r.hypotheses[0]] for r in results])


def ct2_batch(beam: int, same: bool) -> int:
    """CTranslate2's max_batch_size: mtcli's number, or (same) the batches mtcli decodes in CTranslate2's count."""
    return max(1, DEFAULTS.max_batch_size // beam) if same and DEFAULTS.batch_type == "tokens" else DEFAULTS.max_batch_size


def timed(fn, *args):
    """Wall and CPU seconds (all threads of this process) of fn(*args), and its result."""
    t, cpu = time.perf_counter(), time.process_time()
    out = fn(*args)
    return time.perf_counter() - t, time.process_time() - cpu, out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="mtcli/models/en-es")
    ap.add_argument("--data", type=Path, default=UNSEEN, help="TSV whose first column is English")
    ap.add_argument("--sentences", type=int, default=1500)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2, help="CTranslate2 intra_threads")
    ap.add_argument("--calls", type=int, default=20, help="calls on one sentence, after the rounds (median)")
    ap.add_argument("--ct2-batch", choices=("own", "same"), default="own",
                    help="CTranslate2's batches: mtcli's max_batch_size in its own count, or the same batches as mtcli")
    ap.add_argument("--before", type=Path, help="a directory holding another tree's mtcli as mtcli_base (above)")
    args = ap.parse_args()
    same = args.ct2_batch == "same"
    tr = Translator(args.model)
    lines = sample(args.data, args.sentences)
    n_tokens = sum(len(s) for s in tr.src_tok.encode_batch(lines))
    # engine against engine: CTranslate2 decodes one model, so mtcli decodes the same one (an
    # ensemble's first); the ensemble itself is another side
    with tempfile.TemporaryDirectory() as tmp:
        export_ctranslate2(tr.model, tr.src_tok, tr.tgt_tok, Path(tmp))
        sides = {"mtcli": Mtcli(first_member(tr))}
        if args.before:
            sides["mtcli before"] = before_side(args.before, args.model)
        if len(tr.models) > 1:
            sides[f"mtcli, {len(tr.models)} models"] = Mtcli(tr)
        for compute_type in ("float32", "int8"):
            sides[f"CTranslate2 {compute_type}"] = CTranslate2(tr, Path(tmp), compute_type, args.threads, same)
    print(f"{args.model}: {len(lines)} sentences of {args.data.name} ({n_tokens / len(lines):.1f} source tokens "
          f"on average), batches of {DEFAULTS.max_batch_size} {DEFAULTS.batch_type} (CTranslate2's: "
          f"{ct2_batch(1, same)} greedy, {ct2_batch(4, same)} at beam 4), {args.rounds} alternating rounds")
    for name, side in sides.items():  # warm-up: kernels loaded, buffers allocated
        side(lines[:64], 4)
    for label, beam in (("greedy", 1), ("beam 4", 4)):
        times, cpu, outputs = {name: [] for name in sides}, {name: [] for name in sides}, {}
        for _ in range(args.rounds):
            for name, side in sides.items():
                dt, dcpu, outputs[name] = timed(side, lines, beam)
                times[name].append(dt)
                cpu[name].append(dcpu)
        speed = {name: len(lines) / statistics.median(ts) for name, ts in times.items()}
        per_cpu = {name: len(lines) / statistics.median(ts) for name, ts in cpu.items()}
        print(f"\n{label}:")
        for name in sides:
            same = np.mean([a == b for a, b in zip(outputs[name], outputs["mtcli"])])
            print(f"  {name:20} {speed[name]:7.0f} sentences/s  mtcli / this {speed['mtcli'] / speed[name]:5.2f}x"
                  f"  | per CPU-second {per_cpu[name]:6.0f}  mtcli / this {per_cpu['mtcli'] / per_cpu[name]:5.2f}x"
                  f"  | same text as mtcli {same:6.1%}")
    print(f"\none sentence ({ONE!r}), median of {args.calls} calls after the rounds:")
    for label, beam in (("greedy", 1), ("beam 4", 4)):
        lat = {name: statistics.median(timed(side, [ONE], beam)[0] for _ in range(args.calls)) for name, side in sides.items()}
        print(f"  {label}: " + ", ".join(f"{name} {t * 1e3:.1f} ms" for name, t in lat.items())
              + f"; mtcli / CTranslate2 float32 {lat['mtcli'] / lat['CTranslate2 float32']:.2f}x")


if __name__ == "__main__":
    main()
