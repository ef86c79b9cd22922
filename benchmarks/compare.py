"""mtcli against its PyTorch twin on this CPU, in one run, alternating the two.

Each side runs in its own worker process with its own default thread settings (mtcli's Numba
threads sleep between kernels, PyTorch's OpenMP threads spin: in one process one side's choice
would slow the other). The parent warms both up, then alternates timed rounds between them.

Training: a full step (forward, backward, clipping, Adam) on real batches of 64 length-grouped
pairs, for Small/Medium/Large. Decoding: greedy with a key/value cache, one sentence and a batch.

    python -m benchmarks.compare                 # everything (about 5 minutes)
    python -m benchmarks.compare --configs small --rounds 3
    python -m benchmarks.compare --bound --configs large         # one core's GEMM rate on the step's shapes
    python -m benchmarks.compare --torch-setups --configs large  # PyTorch's eager setups, alternating
    python -m benchmarks.compare --profile --configs large       # where one replica thread's CPU goes
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

from mtcli import threads_per_process
from mtcli.config import TrainConfig, model_config
from mtcli.data import load_prepared, make_batches, prepare, resolve_data_path

# mtcli.kernels sets GOMP_SPINCOUNT=0 when it loads (its Numba threads should sleep at once), and
# PyTorch's libgomp would read it too: its threads then sleep between its many small parallel
# regions, and its step took 40-50 % longer. The PyTorch worker gets the environment as it was.
PYTORCH_ENV = dict(os.environ)

DECODE_STEPS = 20  # untrained weights rarely emit EOS: both sides decode a fixed number of steps


def gemm_rate(n=2048, repeat=5) -> float:
    """GFLOP/s of a large float32 matrix product (NumPy's BLAS, all cores), the best of `repeat`:
    the ceiling (a mean wandered between runs by 20 %)."""
    a = np.random.default_rng(0).standard_normal((n, n), dtype=np.float32)
    a @ a
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        a @ a
        best = min(best, time.perf_counter() - t)
    return 2 * n**3 / best / 1e9


def products(cfg, b) -> list[tuple[int, int, int]]:
    """The BLAS products (m, k, n) of a forward pass, x (m, k) @ w (k, n), on the batch's shapes."""
    C, F, V, L = cfg.d_model, cfg.d_ff, cfg.tgt_vocab, cfg.n_layers
    ns, nt = b.src.size, b.tgt_in.size
    enc = [(ns, C, C)] * 4 + [(ns, C, F), (ns, F, C)]
    dec = [(nt, C, C)] * 6 + [(ns, C, C)] * 2 + [(nt, C, F), (nt, F, C)]  # self q k v o, cross q o; cross k v
    return L * (enc + dec) + [(b.n_tokens, C, V)]


def step_flops(cfg, b) -> float:
    """Matrix-product FLOPs of one training step: forward x 3 (forward, two backward products);
    the attention products (Q K^T and P V) run in mtcli's attention kernel, the rest in BLAS."""
    C, L = cfg.d_model, cfg.n_layers
    (B, S), T = b.src.shape, b.tgt_in.shape[1]
    attention = L * (4 * B * S * S * C + 4 * B * T * T * C + 4 * B * T * S * C)
    return 3 * (sum(2 * m * k * n for m, k, n in products(cfg, b)) + attention)


def shards(batch, n):
    from mtcli.distributed import split_batch  # not at the top: it loads the kernels (see PYTORCH_ENV)

    return [s for s in split_batch(batch, n) if s is not None]


def products_rate(cfg, batches, threads, repeat=3) -> float:
    """GFLOP/s of a step's BLAS products alone (forward x @ w, backward x.T @ d and d @ w.T, with the
    transposes BLAS gets in training), run back to back as mtcli's threads run them (each its own
    rows, with single-threaded BLAS): what the shapes allow, the bound on a step."""
    from concurrent.futures import ThreadPoolExecutor

    from threadpoolctl import threadpool_limits

    rng, arrays = np.random.default_rng(0), {}
    array = lambda shape: arrays.setdefault(shape, rng.standard_normal(shape, dtype=np.float32))  # noqa: E731
    work = [[(array((m, k)), array((k, n)), array((m, n)))
             for b in batches for m, k, n in products(cfg, shards(b, threads)[i])] for i in range(threads)]
    flops = 3 * sum(2 * x.shape[0] * x.shape[1] * w.shape[1] for part in work for x, w, _ in part)

    def run(part):
        for x, w, d in part:
            x @ w, x.T @ d, d @ w.T

    best = float("inf")
    with ThreadPoolExecutor(threads) as pool, threadpool_limits(1 if threads > 1 else None, "blas"):
        for _ in range(repeat):
            t = time.perf_counter()
            list(pool.map(run, work))
            best = min(best, time.perf_counter() - t)
    return flops / best / 1e9


def _workload(prepared_dir, config, n_batches):
    prepared = load_prepared(prepared_dir)
    cfg = model_config(config, src_vocab=prepared.src_tok.vocab_size, tgt_vocab=prepared.tgt_tok.vocab_size,
                       case_factors=prepared.src_tok.case_factors)
    train = make_batches(prepared.splits["train"], 64, 0, 0)[:n_batches]
    test = prepared.splits["test"]
    one = next(b for b in make_batches(test, 1, 0, 0) if b.src_len[0] == int(np.median(test.src_lens)))
    return cfg, train, {"one": one, "batch": make_batches(test, 64, 0, 0)[0]}


def _mtcli_side(cfg, tcfg):
    from mtcli.decode import decode_step, start_decoding
    from mtcli.distributed import Replicas
    from mtcli.model import Model
    from mtcli.optim import Adam
    from mtcli.train import train_step

    model, rng = Model(cfg), np.random.default_rng(0)
    adam = Adam(model.flat.size, tcfg.beta1, tcfg.beta2, tcfg.eps)
    replicas = Replicas(model, threads_per_process())

    def train(batches):  # `mtcli train`'s step, its threads held for the round (decoding runs without)
        with replicas:
            for b in batches:
                train_step(replicas, adam, b, rng, 1e-4, tcfg)

    def decode(b):
        state = start_decoding(model, b.src, b.src_len)
        tok = np.full(len(b.src), 2, np.int64)
        for _ in range(DECODE_STEPS):
            logp, state = decode_step(model, state, tok)
            tok = logp.argmax(-1)

    return train, decode


def _torch_side(cfg, tcfg):
    import torch

    from benchmarks.twin import Twin, make_optimizer, train_step

    torch.set_num_threads(os.cpu_count())
    torch.manual_seed(0)
    twin = Twin(cfg)
    opt = make_optimizer(twin, tcfg)

    def decode(b):
        twin.eval()
        twin.greedy(torch.from_numpy(b.src).long(), DECODE_STEPS, stop_at_eos=False)
        twin.train()

    def train(batches):
        for b in batches:
            train_step(twin, opt, b, tcfg, 1e-4)

    return train, decode


def worker(side, prepared_dir, config, n_batches):
    """Answers 'train' / 'one' / 'batch' lines on stdin with the wall and the process's CPU seconds one
    round took, and 'memory' with the process's peak resident memory in MiB."""
    cfg, train, decode_batches = _workload(prepared_dir, config, n_batches)
    train_round, decode = (_mtcli_side if side == "mtcli" else _torch_side)(cfg, TrainConfig())
    train_round(train[:3])  # warm-up: compilation, allocator
    for b in decode_batches.values():
        decode(b)
    print("ready", flush=True)
    for line in sys.stdin:
        t, cpu = time.perf_counter(), time.process_time()
        if line.strip() == "memory":
            print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, flush=True)
            continue
        if line.strip() == "train":
            train_round(train)
        else:
            decode(decode_batches[line.strip()])
        print(time.perf_counter() - t, time.process_time() - cpu, flush=True)


class Worker:
    def __init__(self, side, prepared_dir, config, n_batches):
        self.p = subprocess.Popen([sys.executable, "-m", "benchmarks.compare", "--worker", side, "--prepared",
                                   prepared_dir, "--configs", config, "--batches", str(n_batches)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                  env=PYTORCH_ENV if side == "torch" else None)
        assert self.p.stdout.readline().strip() == "ready"

    def time(self, what) -> tuple[float, ...]:
        """(wall, CPU) seconds of a round; (MiB,) for 'memory'."""
        self.p.stdin.write(what + "\n")
        self.p.stdin.flush()
        return tuple(map(float, self.p.stdout.readline().split()))

    def close(self):
        self.p.stdin.close()
        self.p.wait()


class NoTorch:
    """The PyTorch side when PyTorch is not installed (CI installs mtcli without it): every figure NaN."""

    def time(self, what) -> tuple[float, ...]:
        return (float("nan"),) if what == "memory" else (float("nan"), float("nan"))

    def close(self):
        pass


def alternate(a, b, what, rounds):
    """Medians over the rounds: (a's wall, b's wall), (a's CPU, b's CPU) seconds."""
    ta, tb = [], []
    for _ in range(rounds):
        ta.append(a.time(what))
        tb.append(b.time(what))
    return [tuple(statistics.median(r[i] for r in t) for t in (ta, tb)) for i in (0, 1)]


def bound(prepared_dir, config, n_batches, repeat=5):
    """One core's float32 GEMM rate on each product shape of a step, NumPy's BLAS (mtcli's) and PyTorch's, in
    thread CPU time (it holds on a loaded machine): the least CPU time the step's products alone can take."""
    import torch
    from threadpoolctl import threadpool_limits

    cfg, batches, _ = _workload(prepared_dir, config, n_batches)
    rng = np.random.default_rng(0)

    def gflops(fn, flop):
        fn()
        calls, best = max(1, int(5e8 / flop)), float("inf")
        for _ in range(repeat):
            t = time.thread_time()
            for _ in range(calls):
                fn()
            best = min(best, (time.thread_time() - t) / calls)
        return flop / best / 1e9

    torch.set_num_threads(1)
    counts: dict = {}
    for b in batches:
        for s in shards(b, threads_per_process()):
            for shape in products(cfg, s):
                counts[shape] = counts.get(shape, 0) + 1
    total_flop = total_s = 0.0
    print(f"{config}: one thread, GFLOP/s of x @ w, x.T @ d, d @ w.T   NumPy (OpenBLAS) | PyTorch")
    with threadpool_limits(1, "blas"):
        for (m, k, n), count in sorted(counts.items(), key=lambda kv: -kv[1] * kv[0][0] * kv[0][1] * kv[0][2]):
            x, w, d = (rng.standard_normal(shape, dtype=np.float32) for shape in ((m, k), (k, n), (m, n)))
            tx, tw, td = map(torch.from_numpy, (x, w, d))
            flop = 2 * m * k * n
            ours = [gflops(f, flop) for f in (lambda: x @ w, lambda: x.T @ d, lambda: d @ w.T)]
            theirs = [gflops(f, flop) for f in (lambda: tx @ tw, lambda: tx.T @ td, lambda: td @ tw.T)]
            total_flop += 3 * flop * count
            total_s += sum(flop * count / (r * 1e9) for r in ours)
            print(f"  ({m:4}, {k:4}, {n:5}) x {count:4}: " + " ".join(f"{r:5.1f}" for r in ours) + "   | "
                  + " ".join(f"{r:5.1f}" for r in theirs))
    print(f"  {total_flop / len(batches) / 1e9:.2f} GFLOP of products a step: at least {total_s / len(batches) * 1e3:.0f} ms "
          f"of CPU at these rates, nothing else running")


def profile(prepared_dir, config, n_batches):
    """Where one replica thread's CPU goes: its share of each batch, forward and backward, with one-thread BLAS and
    Numba as in `Replicas`; the self time (thread CPU, callees' excluded) of each kernel and layer function a step,
    mean over the batches (twice each, after a warm-up). "forward_backward" is what is left in the model: the output
    layer's products and the loss."""
    import functools

    import numba
    from threadpoolctl import threadpool_limits

    from mtcli import attention, kernels, layers
    from mtcli import model as model_module
    from mtcli.distributed import split_batch
    from mtcli.kernels.cpu import flush_denormals

    cfg, batches, _ = _workload(prepared_dir, config, n_batches)
    kernels.use_compiled()
    own, calls, stack = {}, {}, []

    def timed(fn, label):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            t = time.thread_time()
            stack.append(0.0)
            try:
                return fn(*args, **kwargs)
            finally:
                spent, inner = time.thread_time() - t, stack.pop()
                own[label], calls[label] = own.get(label, 0.0) + spent - inner, calls.get(label, 0) + 1
                if stack:
                    stack[-1] += spent
        return run

    for name in kernels.__all__:
        setattr(kernels, name, timed(getattr(kernels, name), f"kernel {name}"))
    for module in (layers, attention, model_module):
        for name in ("linear_forward", "linear_backward", "ffn_forward", "ffn_backward", "mha_forward", "mha_backward",
                     "layernorm_forward", "layernorm_backward", "residual_dropout_forward", "dropout_forward",
                     "dropout_backward", "embedding_forward", "embedding_backward", "attention_dropout_mask"):
            if hasattr(module, name):
                setattr(module, name, timed(getattr(module, name), name))
    model_module.Model.forward_backward = timed(model_module.Model.forward_backward, "forward_backward")
    model = model_module.Model(cfg)
    rng, shard = np.random.default_rng(0), lambda b: split_batch(b, threads_per_process())[0]
    numba.set_num_threads(1)
    flush_denormals()
    with threadpool_limits(1, "blas"):
        for b in batches[:3] + [None] + batches * 2:
            if b is None:  # warmed up
                own.clear()
                calls.clear()
                continue
            model.forward_backward(shard(b), rng, 0.1, b.n_tokens)
    steps = 2 * len(batches)
    print(f"{config}: one replica thread's share of a batch, self CPU ms a step (mean of {steps})")
    for label, spent in sorted(own.items(), key=lambda kv: -kv[1]):
        print(f"  {label:32} {spent / steps * 1e3:7.2f}   ({calls[label] / steps:.0f} calls)")
    print(f"  {'total':32} {sum(own.values()) / steps * 1e3:7.2f}")


def torch_setups(prepared_dir, config, n_batches, rounds):
    """The twin's step under PyTorch's eager setups (Adam's implementations, gradients zeroed or dropped),
    alternating rounds in one process: wall and process CPU ms per step, medians."""
    import torch

    from benchmarks.twin import ADAM, Twin, make_optimizer, train_step

    torch.set_num_threads(os.cpu_count())
    cfg, batches, _ = _workload(prepared_dir, config, n_batches)
    tcfg = TrainConfig()
    setups = {f"{adam} Adam, gradients {'zeroed' if zero else 'dropped'}": (adam, zero)
              for adam in ADAM for zero in (False, True) if not (zero and adam != "default")}
    runs = {}
    for name, (adam, zero) in setups.items():
        torch.manual_seed(0)
        twin = Twin(cfg)
        runs[name] = (twin, make_optimizer(twin, tcfg, adam), zero)
    times = {name: [] for name in runs}
    for round_ in range(rounds + 1):
        for name, (twin, opt, zero) in runs.items():
            t, cpu = time.perf_counter(), time.process_time()
            for b in batches if round_ else batches[:3]:  # round 0 warms up
                train_step(twin, opt, b, tcfg, 1e-4, zero)
            if round_:
                times[name].append(((time.perf_counter() - t) / len(batches), (time.process_time() - cpu) / len(batches)))
    print(f"{config}: PyTorch {torch.__version__}, {os.cpu_count()} threads, median of {rounds} alternating rounds "
          f"of {n_batches} steps; load average {os.getloadavg()[0]:.1f}")
    for name, t in times.items():
        print(f"  {name:32} wall {statistics.median(x[0] for x in t) * 1e3:7.1f} ms  "
              f"CPU {statistics.median(x[1] for x in t) * 1e3:7.1f} ms")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--configs", nargs="+", default=["small", "medium", "large"])
    ap.add_argument("--batches", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--prepared", default=os.environ.get("MTCLI_PREPARED", "data/prepared"))
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--bound", action="store_true", help="one core's GEMM rate on each product shape of a step")
    ap.add_argument("--torch-setups", action="store_true", help="the twin's step under PyTorch's eager setups")
    ap.add_argument("--profile", action="store_true", help="self CPU time of each kernel and layer, one thread")
    ap.add_argument("--worker", choices=["mtcli", "torch"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args.worker, args.prepared, args.configs[0], args.batches)
    if args.bound or args.torch_setups or args.profile:
        for name in args.configs:
            if args.bound:
                bound(args.prepared, name, args.batches)
            elif args.profile:
                profile(args.prepared, name, args.batches)
            else:
                torch_setups(args.prepared, name, args.batches, args.rounds)
        return
    try:
        prepared = load_prepared(args.prepared)
    except Exception:
        prepared = prepare(resolve_data_path(None), args.prepared)
    try:
        import torch
    except ImportError:
        torch = None
        print("PyTorch is not installed (pip install -e '.[bench]'): mtcli's side alone, the torch columns nan")
    gemm = gemm_rate()
    print(f"{os.cpu_count()} cores, torch {torch.__version__ if torch else '-'} ({os.cpu_count()} threads), "
          f"float32 GEMM ceiling {gemm:.0f} GFLOP/s; median of {args.rounds} alternating rounds; "
          f"load average {os.getloadavg()[0]:.1f}")
    cfg_train = make_batches(prepared.splits["train"], 64, 0, 0)[: args.batches]
    tokens = sum(b.n_tokens for b in cfg_train)
    print(f"\ntraining step: batch 64, {args.batches} real batches, {tokens / args.batches:.0f} target tokens each")
    print(f"{'config':8} {'mtcli ms':>9} {'torch ms':>9} {'mtcli tok/s':>12} {'torch tok/s':>12} "
          f"{'speed-up':>9} {'GFLOP/s':>8} {'of GEMM':>8} {'BLAS alone':>10} {'peak MiB':>9} {'torch MiB':>9} "
          f"{'CPU ms':>7} {'torch CPU':>9} {'CPU x':>6} {'load':>5}")
    results = {"gemm_gflops": gemm, "train": {}, "decode": {}}
    for name in args.configs:
        cfg = model_config(name, src_vocab=prepared.src_tok.vocab_size, tgt_vocab=prepared.tgt_tok.vocab_size,
                           case_factors=prepared.src_tok.case_factors)
        # on the rows as mtcli's threads split them: each shard is padded to its own longest sentence
        flops = sum(step_flops(cfg, s) for b in cfg_train for s in shards(b, threads_per_process()))
        ours = Worker("mtcli", args.prepared, name, args.batches)
        theirs = Worker("torch", args.prepared, name, args.batches) if torch else NoTorch()
        # CPU time too: on a loaded machine the wall ratio mostly measures the other work (and PyTorch's
        # spinning threads lose more wall time to it); the CPU ratio counts each side's own work, spinning included
        (a, b), (cpu_a, cpu_b) = alternate(ours, theirs, "train", args.rounds)
        gf = flops / a / 1e9
        alone = products_rate(cfg, cfg_train, threads_per_process())
        (mem_a,), (mem_b,) = ours.time("memory"), theirs.time("memory")
        load = os.getloadavg()[0]
        results["train"][name] = {"mtcli_ms": a / args.batches * 1e3, "torch_ms": b / args.batches * 1e3,
                                  "speedup": b / a, "gflops": gf, "of_gemm": gf / gemm,
                                  "blas_products_alone_of_gemm": alone / gemm,
                                  "mtcli_peak_mib": mem_a, "torch_peak_mib": mem_b,
                                  "mtcli_cpu_ms": cpu_a / args.batches * 1e3, "torch_cpu_ms": cpu_b / args.batches * 1e3,
                                  "cpu_ratio": cpu_b / cpu_a, "load_average": load}
        print(f"{name:8} {a / args.batches * 1e3:9.1f} {b / args.batches * 1e3:9.1f} {tokens / a:12,.0f} "
              f"{tokens / b:12,.0f} {b / a:9.2f} {gf:8.1f} {gf / gemm:8.0%} {alone / gemm:10.0%} {mem_a:9.0f} {mem_b:9.0f} "
              f"{cpu_a / args.batches * 1e3:7.1f} {cpu_b / args.batches * 1e3:9.1f} {cpu_b / cpu_a:6.2f} {load:5.1f}")
        if name == "small":
            print(f"\ngreedy decoding (small), {DECODE_STEPS} steps, key/value cache on both sides")
            for what, n in (("one", 1), ("batch", 64)):
                (a, b), _ = alternate(ours, theirs, what, args.rounds * 4)
                results["decode"][what] = {"mtcli_ms": a * 1e3, "torch_ms": b * 1e3, "ratio": a / b}
                print(f"  {'one sentence' if n == 1 else 'batch of 64':14} mtcli {a * 1e3:7.1f} ms  "
                      f"torch {b * 1e3:7.1f} ms  mtcli/torch {a / b:5.2f}  ({n / a:,.0f} vs {n / b:,.0f} sentences/s)")
            print()
        ours.close()
        theirs.close()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
