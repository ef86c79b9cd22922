"""How the cost of a training step grows with sentence length and batch size, and an epoch's with
corpus size. Prints tables and draws benchmarks/scaling.png.

    python -m benchmarks.scaling [--config small]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from mtcli import threads_per_process
from mtcli.config import TrainConfig, model_config
from mtcli.data import Batch, load_prepared, make_batches
from mtcli.distributed import Replicas
from mtcli.model import Model
from mtcli.optim import Adam
from mtcli.tokenizer import BOS, EOS
from mtcli.train import train_step


TCFG = TrainConfig()
LENGTHS = [4, 8, 12, 16, 24, 32, 48]
SIZES = [8, 16, 32, 64, 128, 256]
FRACTIONS = [0.05, 0.1, 0.2, 0.4]


def synthetic(B, T, V_src, V_tgt, rng) -> Batch:
    """A batch of B pairs of exactly T tokens per side (no padding), random ids."""
    src = rng.integers(4, V_src, (B, T))
    src[:, 0], src[:, -1] = BOS, EOS
    tgt = rng.integers(4, V_tgt, (B, T + 1))
    tgt[:, 0], tgt[:, -1] = BOS, EOS
    lens = np.full(B, T, np.int32)
    return Batch(src.astype(np.int32), lens, tgt[:, :-1].astype(np.int32), tgt[:, 1:].astype(np.int32), lens)


def step_ms(replicas, adam, batch, rng, repeat=5) -> float:
    """ms for `mtcli train`'s own step (forward, backward, clipping, Adam), after one untimed."""
    train_step(replicas, adam, batch, rng, 1e-4, TCFG)
    t = time.perf_counter()
    for _ in range(repeat):
        train_step(replicas, adam, batch, rng, 1e-4, TCFG)
    return (time.perf_counter() - t) / repeat * 1e3


def measure(replicas, adam, rng, cfg, prepared, lengths, sizes, repeat):
    """(ms per step by length, by batch size, [(pairs, seconds)] by corpus fraction)."""
    by_len = [step_ms(replicas, adam, synthetic(64, T, cfg.src_vocab, cfg.tgt_vocab, rng), rng, repeat) for T in lengths]
    by_batch = [step_ms(replicas, adam, synthetic(B, 12, cfg.src_vocab, cfg.tgt_vocab, rng), rng, repeat) for B in sizes]
    train, by_corpus = prepared.splits["train"], []
    batches = make_batches(train, TCFG.batch_size, 0, 0)
    for f in FRACTIONS:
        t = time.perf_counter()
        for b in batches[: max(1, int(len(batches) * f))]:
            train_step(replicas, adam, b, rng, 1e-4, TCFG)
        by_corpus.append((int(len(train) * f), time.perf_counter() - t))
    return by_len, by_batch, by_corpus


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default="small")
    ap.add_argument("--prepared", default=os.environ.get("MTCLI_PREPARED", "data/prepared"))
    ap.add_argument("--png", default="benchmarks/scaling.png")
    ap.add_argument("--tiny", action="store_true", help="two lengths, two batch sizes, one timed step each (CI)")
    args = ap.parse_args()
    lengths, sizes, repeat = (LENGTHS[:2], SIZES[:2], 1) if args.tiny else (LENGTHS, SIZES, 5)
    prepared = load_prepared(args.prepared)
    cfg = model_config(args.config, src_vocab=prepared.src_tok.vocab_size, tgt_vocab=prepared.tgt_tok.vocab_size,
                       case_factors=prepared.src_tok.case_factors)  # (case-factored ids: data/prepared-cf)
    model, rng = Model(cfg), np.random.default_rng(0)
    adam = Adam(model.flat.size, TCFG.beta1, TCFG.beta2, TCFG.eps)
    with Replicas(model, threads_per_process()) as replicas:
        by_len, by_batch, by_corpus = measure(replicas, adam, rng, cfg, prepared, lengths, sizes, repeat)

    print(f"{args.config}: step time against sentence length (batch 64, both sides T tokens)")
    print("   T   ms/step   us/token   (per-token cost flat = linear; growing = the T^2 attention terms)")
    for T, ms in zip(lengths, by_len):
        print(f"{T:4d} {ms:9.1f} {ms * 1e3 / (64 * T):10.2f}")

    print("\nstep time against batch size (T = 12)")
    print("   B   ms/step   us/token   (falling per-token cost = fixed per-step overheads amortised)")
    for B, ms in zip(sizes, by_batch):
        print(f"{B:4d} {ms:9.1f} {ms * 1e3 / (B * 12):10.2f}")

    print("\nepoch time against corpus size (real length-grouped batches of 64)")
    print("   pairs   seconds   ms/pair")
    for n, s in by_corpus:
        print(f"{n:8,d} {s:9.1f} {s * 1e3 / n:9.3f}")
    full = by_corpus[-1][1] / FRACTIONS[-1]
    print(f"extrapolated full epoch ({len(prepared.splits['train']):,} pairs): {full:.0f} s")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    axes[0].plot(lengths, [ms * 1e3 / (64 * T) for T, ms in zip(lengths, by_len)], "o-")
    axes[0].set(xlabel="sentence length T (tokens)", ylabel="µs per target token", title="length (batch 64)")
    axes[1].plot(sizes, [ms * 1e3 / (B * 12) for B, ms in zip(sizes, by_batch)], "o-")
    axes[1].set(xscale="log", xlabel="batch size B (pairs)", ylabel="µs per target token", title="batch (T = 12)")
    axes[2].plot([n for n, _ in by_corpus], [s for _, s in by_corpus], "o-")
    axes[2].set(xlabel="training pairs", ylabel="seconds", title="epoch time")
    for ax in axes:
        ax.grid(alpha=0.3)
    fig.suptitle(f"mtcli {args.config}: training-step cost")
    fig.tight_layout()
    fig.savefig(args.png, dpi=90)
    print(f"\nwrote {args.png}")


if __name__ == "__main__":
    main()
