"""mtcli's training step from two source trees, side by side in one run: did a change make it faster?

Each tree runs `mtcli train`'s step (benchmarks.compare's mtcli side) in its own worker process; the parent
alternates timed rounds between them and prints the medians of wall and process CPU time per step. On a loaded
machine the CPU times are the figure to read (the same tree twice differed by 2 % at load average 15).

    git archive HEAD~3 | tar -x -C /tmp/before      # the tree to compare against
    python -m benchmarks.trees /tmp/before . --config large --rounds 9 --prepared data/prepared-cf
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def worker(prepared_dir, config, n_batches):
    """Answers each line on stdin with the wall and CPU seconds of one round of training steps."""
    from benchmarks.compare import _mtcli_side, _workload
    from mtcli.config import TrainConfig

    cfg, batches, _ = _workload(prepared_dir, config, n_batches)
    train, _ = _mtcli_side(cfg, TrainConfig())
    train(batches[:3])  # warm-up: compilation, allocator
    print("ready", flush=True)
    for _ in sys.stdin:
        wall, cpu = time.perf_counter(), time.process_time()
        train(batches)
        print(time.perf_counter() - wall, time.process_time() - cpu, flush=True)


def start(tree: Path, args) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(tree))  # this tree's mtcli and benchmarks.compare; this file's worker
    run_this_file = f"import runpy; runpy.run_path({__file__!r}, run_name='__main__')"  # the tree may predate it
    p = subprocess.Popen([sys.executable, "-c", run_this_file, "--worker", "--prepared", str(args.prepared),
                          "--config", args.config, "--batches", str(args.batches)],
                         cwd=tree, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    if p.stdout.readline().strip() != "ready":
        sys.exit(f"the worker of {tree} did not start")
    return p


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trees", nargs="*", type=Path, help="two source trees (the first is the reference)")
    ap.add_argument("--config", default="large")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--batches", type=int, default=20)
    ap.add_argument("--prepared", type=Path, default=Path(os.environ.get("MTCLI_PREPARED", "data/prepared")))
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args.prepared, args.config, args.batches)
    if len(args.trees) != 2 or not all((t / "mtcli").is_dir() for t in args.trees):
        sys.exit("give two source trees, each with its mtcli/ directory")
    args.prepared = args.prepared.resolve()  # the workers run in the trees
    workers = [start(t.resolve(), args) for t in args.trees]
    rounds = [[], []]
    for _ in range(args.rounds):
        for w, times in zip(workers, rounds):
            w.stdin.write("round\n")
            w.stdin.flush()
            times.append([float(x) for x in w.stdout.readline().split()])
    print(f"{args.config}: median of {args.rounds} alternating rounds of {args.batches} steps; "
          f"load average {os.getloadavg()[0]:.1f}")
    cpu = []
    for tree, times in zip(args.trees, rounds):
        wall_ms, cpu_ms = (statistics.median(t[i] for t in times) / args.batches * 1e3 for i in (0, 1))
        cpu.append(cpu_ms)
        print(f"  {tree}: {wall_ms:.1f} ms a step wall, {cpu_ms:.1f} ms CPU")
    print(f"  CPU per step, second against first: {cpu[1] / cpu[0] - 1:+.1%}")
    for w in workers:
        w.stdin.close()
        w.wait()


if __name__ == "__main__":
    main()
