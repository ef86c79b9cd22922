"""mtcli against its PyTorch twin on this CPU, in one run, alternating the two.

Training: a full step (forward, backward, clipping, Adam) on real batches of 64 length-grouped
pairs, for Small/Medium/Large. Decoding: greedy with a key/value cache, one sentence and a batch.

    python benchmarks/compare.py                 # everything
    python benchmarks/compare.py --configs small --rounds 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

import mtcli  # noqa: F401  (sets the thread configuration before NumPy loads)
from mtcli.config import TrainConfig, model_config
from mtcli.data import load_prepared, make_batches, prepare, resolve_data_path
from mtcli.model import Model
from mtcli.optim import Adam, clip_grad_norm


def gemm_rate(n=1536, repeat=5) -> float:
    """GFLOP/s of a large float32 matrix product with mtcli's own matmul path."""
    from mtcli.layers import matmul

    a = np.random.default_rng(0).standard_normal((n, n), dtype=np.float32)
    matmul(a, a)
    t = time.perf_counter()
    for _ in range(repeat):
        matmul(a, a)
    return 2 * n**3 * repeat / (time.perf_counter() - t) / 1e9


def step_flops(cfg, b) -> float:
    """Matrix-product FLOPs of one training step: forward x 3 (forward, two backward products)."""
    C, F, V, L = cfg.d_model, cfg.d_ff, cfg.tgt_vocab, cfg.n_layers
    B, S = b.src.shape
    T = b.tgt_in.shape[1]
    ns, nt, n = B * S, B * T, b.n_tokens
    enc = 8 * ns * C * C + 4 * B * S * S * C + 4 * ns * C * F
    dec = 8 * nt * C * C + 4 * B * T * T * C + 4 * nt * C * C + 4 * ns * C * C + 4 * B * T * S * C + 4 * nt * C * F
    return 3 * (L * (enc + dec) + 2 * n * C * V)


def mtcli_step(model, adam, batch, tcfg, rng):
    model.grad.fill(0.0)
    model.forward_backward(batch, rng, tcfg.label_smoothing)
    clip_grad_norm(model.grad, tcfg.clip_norm)
    adam.step(model.flat, model.grad, 1e-4)


def bench_train(prepared, configs, n_batches, rounds, gemm):
    import torch

    from benchmarks.twin import Twin, make_optimizer, train_step

    tcfg = TrainConfig()
    batches = make_batches(prepared.splits["train"], 64, 0, 0)[:n_batches]
    tokens = sum(b.n_tokens for b in batches)
    flops = None
    print(f"\ntraining step, batch 64, {n_batches} real batches ({tokens / n_batches:.0f} target tokens each), "
          f"median of {rounds} alternating rounds")
    print(f"{'config':8} {'mtcli ms':>9} {'torch ms':>9} {'mtcli tok/s':>12} {'torch tok/s':>12} {'ratio':>6} "
          f"{'GFLOP/s':>8} {'of GEMM':>8}")
    rows = []
    for name in configs:
        cfg = model_config(name, src_vocab=prepared.src_tok.vocab_size, tgt_vocab=prepared.tgt_tok.vocab_size)
        model, rng = Model(cfg), np.random.default_rng(0)
        adam = Adam(model.flat.size, tcfg.beta1, tcfg.beta2, tcfg.eps)
        torch.manual_seed(0)
        twin = Twin(cfg)
        opt = make_optimizer(twin, tcfg)
        flops = sum(step_flops(cfg, b) for b in batches)
        for b in batches[:3]:  # warm-up: compilation, allocator
            mtcli_step(model, adam, b, tcfg, rng)
            train_step(twin, opt, b, tcfg, 1e-4)
        ours, theirs = [], []
        for _ in range(rounds):
            t = time.perf_counter()
            for b in batches:
                mtcli_step(model, adam, b, tcfg, rng)
            ours.append(time.perf_counter() - t)
            t = time.perf_counter()
            for b in batches:
                train_step(twin, opt, b, tcfg, 1e-4)
            theirs.append(time.perf_counter() - t)
        a, b_ = statistics.median(ours), statistics.median(theirs)
        gf = flops / a / 1e9
        rows.append((name, a, b_))
        print(f"{name:8} {a / n_batches * 1e3:9.1f} {b_ / n_batches * 1e3:9.1f} {tokens / a:12,.0f} {tokens / b_:12,.0f} "
              f"{b_ / a:6.2f} {gf:8.1f} {gf / gemm:8.0%}")
    return rows


def bench_decode(prepared, n_sentences, rounds):
    import torch

    from benchmarks.twin import Twin

    cfg = model_config("small", src_vocab=prepared.src_tok.vocab_size, tgt_vocab=prepared.tgt_tok.vocab_size)
    model = Model(cfg)
    twin = Twin(cfg).eval()
    batch = make_batches(prepared.splits["test"], n_sentences, 0, 0)[0]
    one = make_batches(prepared.splits["test"], 1, 0, 0)
    typical = next(b for b in one if b.src_len[0] == int(np.median(prepared.splits["test"].src_lens)))
    max_len = 20  # untrained weights rarely emit EOS: fix the length so both do the same work

    def ours(b):
        src = b.src.astype(np.int64)
        state = model.start_decoding(src, b.src_len)
        tok = np.full(len(src), 2, np.int64)
        for _ in range(max_len):
            logp, state = model.decode_step(state, tok)
            tok = logp.argmax(-1)

    def theirs(b):
        twin.greedy(torch.from_numpy(b.src).long(), max_len)

    print(f"\ngreedy decoding, {max_len} steps, key/value cache on both sides, small config")
    for label, b, n in (("one sentence", typical, 1), (f"batch of {n_sentences}", batch, n_sentences)):
        ours(b), theirs(b)
        t_ours, t_theirs = [], []
        for _ in range(rounds):
            t = time.perf_counter()
            ours(b)
            t_ours.append(time.perf_counter() - t)
            t = time.perf_counter()
            theirs(b)
            t_theirs.append(time.perf_counter() - t)
        a, c = statistics.median(t_ours), statistics.median(t_theirs)
        print(f"  {label:16} mtcli {a * 1e3:7.1f} ms  torch {c * 1e3:7.1f} ms  ratio mtcli/torch {a / c:5.2f}  "
              f"({n / a:,.0f} vs {n / c:,.0f} sentences/s)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--configs", nargs="+", default=["small", "medium", "large"])
    ap.add_argument("--batches", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--prepared", default=os.environ.get("MTCLI_PREPARED", "data/prepared"))
    ap.add_argument("--skip-decode", action="store_true")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(os.cpu_count())
    try:
        prepared = load_prepared(args.prepared)
    except Exception:
        prepared = prepare(resolve_data_path(None), args.prepared)
    gemm = gemm_rate()
    print(f"cores {os.cpu_count()}, torch {torch.__version__} with {torch.get_num_threads()} threads, "
          f"measured float32 GEMM rate {gemm:.0f} GFLOP/s")
    bench_train(prepared, args.configs, args.batches, args.rounds, gemm)
    if not args.skip_decode:
        bench_decode(prepared, 64, args.rounds)


if __name__ == "__main__":
    main()
