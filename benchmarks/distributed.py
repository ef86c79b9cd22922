"""Data-parallel scaling on this machine: epoch time of 1 process against N MPI ranks.

Each setting runs in fresh processes: 1 process with all cores as threads (plain Python, no MPI),
then `mpiexec -n N` with cores // N threads per rank (mtcli sets that from the launcher's
environment); threads split the rows once more, as `mtcli train` does (distributed.Replicas).
All use the same global batches (batch 64, epoch 0) of the real training split and
the training loop's own pieces: shard, forward/backward, one gradient allreduce, clipping, Adam.
A fixed number of steps is timed after a warm-up and extrapolated to the epoch's batch count; the
selection evaluation (sharded over the ranks, as in training) is timed in full.

    python -m benchmarks.distributed                          # small, 1 vs 2 ranks, 200 steps
    python -m benchmarks.distributed --steps 0                # whole epoch
    python -m benchmarks.distributed --config medium --ranks 1 2 4

Needs the distributed extra (pip install -e '.[distributed]') and the tokenized corpus
(--prepared, default $MTCLI_PREPARED or data/prepared).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import mtcli  # noqa: F401  (before NumPy: it sets each rank's BLAS threads, which NumPy reads on import)
import numpy as np


def worker(args) -> None:
    from mtcli import distributed, threads_per_process
    from mtcli.config import TrainConfig, model_config
    from mtcli.data import load_prepared, make_batches
    from mtcli.model import Model, count_params
    from mtcli.optim import Adam, clip_scale
    from mtcli.stats import Stats
    from mtcli.train import EVAL_BATCH

    comm = distributed.world()
    sync = comm.comm.Barrier if comm.size > 1 else (lambda: None)
    prepared = load_prepared(args.prepared)
    cfg = model_config(args.config, src_vocab=prepared.src_tok.vocab_size, tgt_vocab=prepared.tgt_tok.vocab_size,
                       case_factors=prepared.src_tok.case_factors)  # (case-factored ids: data/prepared-cf)
    tcfg = TrainConfig(batch_size=args.batch_size)
    model, rng = Model(cfg), np.random.default_rng([0, comm.rank])
    adam = Adam(model.flat.size, tcfg.beta1, tcfg.beta2, tcfg.eps)
    batches = make_batches(prepared.splits["train"], tcfg.batch_size, 0, 0)
    timed = batches[args.warmup : args.warmup + args.steps] if args.steps else batches
    with distributed.Replicas(model, threads_per_process()) as replicas:
        phases = np.zeros(3)  # forward+backward, allreduce (with waiting for the slowest rank), clip+Adam
        for i, batch in enumerate(batches[: args.warmup] + timed):
            if i == args.warmup or (i == 0 and not args.warmup):
                sync()
                phases[:], start = 0.0, time.perf_counter()
            t0 = time.perf_counter()
            shard = comm.shard(batch)
            s = Stats.zero() if shard is None else replicas.forward_backward(shard, rng, tcfg.label_smoothing, n_total=batch.n_tokens)
            t1 = time.perf_counter()
            comm.reduce_step(model.grad, s, False, 0.0)
            t2 = time.perf_counter()
            grad_sq = replicas.grad_sq if comm.size == 1 else None  # as train.train_step: the threads' sum measured it
            scale = clip_scale(model.grad, tcfg.clip_norm, grad_sq)[1]
            adam.step(model.flat, model.grad, tcfg.lr(adam.t + 1, cfg.d_model), scale)
            phases += (t1 - t0, t2 - t1, time.perf_counter() - t2)
        sync()
        step = (time.perf_counter() - start) / len(timed)

        selection = comm.split(make_batches(prepared.splits["selection"], EVAL_BATCH, 0, 0, shuffle=False))
        sync()
        t = time.perf_counter()
        sums = Stats.zero()
        for b in selection:
            sums += replicas.evaluate(b)
        comm.sum_stats(sums)
        evaluation = time.perf_counter() - t

    allreduce = 0.0  # the gradient allreduce alone, all ranks ready
    if comm.size > 1:
        for _ in range(3):
            comm.reduce_step(model.grad, Stats.zero(), False, 0.0)
        reps = 20
        for _ in range(reps):
            sync()
            t = time.perf_counter()
            comm.reduce_step(model.grad, Stats.zero(), False, 0.0)
            allreduce += (time.perf_counter() - t) / reps
    if comm.rank == 0:
        print(json.dumps({
            "ranks": comm.size, "threads": replicas.n,
            "params": count_params(cfg), "epoch_batches": len(batches), "timed_steps": len(timed),
            "step_s": step, "phases_s": list(phases / len(timed)), "selection_s": evaluation,
            "allreduce_s": allreduce, "epoch_s": step * len(batches) + evaluation,
            "tokens_per_s": sum(b.n_tokens for b in timed) / (step * len(timed))}), flush=True)


def run(n: int, args) -> dict:
    from mtcli.distributed import find_mpiexec

    cmd = [sys.executable, "-m", "benchmarks.distributed", "--worker", "--prepared", args.prepared, "--config",
           args.config, "--batch-size", str(args.batch_size), "--steps", str(args.steps), "--warmup", str(args.warmup)]
    if n > 1:
        mpiexec = find_mpiexec()
        if mpiexec is None:
            sys.exit("mpiexec not found: pip install -e '.[distributed]'")
        cmd = [mpiexec, "-n", str(n), *cmd]
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default="small")
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--batch-size", type=int, default=64, help="global batch (each of N ranks takes 1/N)")
    ap.add_argument("--steps", type=int, default=200, help="timed steps, extrapolated to the epoch (0: whole epoch)")
    ap.add_argument("--warmup", type=int, default=10, help="untimed steps first (kernel loading)")
    ap.add_argument("--prepared", default=os.environ.get("MTCLI_PREPARED", "data/prepared"))
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} before the runs (should be ~0: other "
          f"work on the machine slows the ranks unevenly); {args.config}, global batch {args.batch_size}")
    results = [run(n, args) for n in args.ranks]
    base = results[0]["epoch_s"] * results[0]["ranks"]
    print(f"{results[0]['params']:,} parameters: {4 * results[0]['params'] / 2**20:.1f} MiB allreduced per step; "
          f"{results[0]['epoch_batches']} batches per epoch, {results[0]['timed_steps']} timed")
    print(f"{'ranks':>5} {'thr/rank':>8} {'ms/step':>8} {'fwd+bwd':>8} {'allred.':>8} {'adam':>6} "
          f"{'allred. alone':>13} {'selection s':>11} {'epoch s':>8} {'tok/s':>8} {'speed-up':>8} {'effic.':>7}")
    for r in results:
        fb, ar, up = (1e3 * x for x in r["phases_s"])
        speedup = results[0]["epoch_s"] / r["epoch_s"]
        print(f"{r['ranks']:5d} {r['threads']:8d} {1e3 * r['step_s']:8.1f} {fb:8.1f} {ar:8.1f} {up:6.1f} "
              f"{1e3 * r['allreduce_s']:10.2f} ms {r['selection_s']:11.1f} {r['epoch_s']:8.1f} "
              f"{r['tokens_per_s']:8,.0f} "
              f"{speedup:8.2f} {base / (r['epoch_s'] * r['ranks']):7.0%}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
