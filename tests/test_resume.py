"""Resume continues: `mtcli train` stopped by a real SIGINT or SIGTERM at a random step, or killed
with SIGKILL, then resumed, performs exactly the steps that were left (counted by a hook around the
training step, and by Adam's step counter and the metrics log), and ends with the same parameters
as a run that was never stopped; with 1 and 2 threads, and with 2 MPI ranks.

A resume that silently starts again from scratch reproduces the uninterrupted run exactly (training
is deterministic), so only counting the steps each process performs tells the two apart."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from mtcli import distributed
from mtcli.checkpoint import METRICS
from mtcli.data import make_batches, prepare
from mtcli.train import load_state
from tests.conftest import REPO, require, tiny_pairs, write_tsv

VOCAB = dict(src_vocab=200, tgt_vocab=220)
BATCH, EPOCHS = 4, 4
OPTIONS = ["--d-model", "16", "--d-ff", "16", "--batch-size", str(BATCH), "--max-epochs", str(EPOCHS),
           "--patience", "100"]

# `mtcli train` with a hook: after every training step it appends Adam's step counter to
# T_STEPS.<rank> (a line per step the process performed) and it writes its pid to T_STEPS.<rank>.pid.
# T_BREAK=resume-from-scratch swaps in the broken resume of tests/test_broken_versions.py.
HOOK = r"""
import os, sys
from mtcli import mpi_launch
import mtcli.train as train

for seam in ("train_step", "load_state"):
    if not callable(getattr(train, seam, None)):
        sys.exit(f"test hook: mtcli.train.{seam} is gone; update tests/test_resume.py's HOOK")
base = os.environ["T_STEPS"] + f".{mpi_launch()[0]}"
log = open(base, "a", buffering=1)
with open(base + ".pid", "w") as f:
    f.write(str(os.getpid()))
real_step = train.train_step

def train_step(replicas, adam, *args, **kwargs):
    result = real_step(replicas, adam, *args, **kwargs)
    log.write(f"{adam.t}\n")
    return result

train.train_step = train_step

if os.environ.get("T_BREAK") == "resume-from-scratch":
    real_load = train.load_state

    def load_state(out):  # reads the saved state, then hands back a fresh one
        model, adam, loop, meta, *rest = real_load(out)
        seed = meta["train"]["seed"]
        fresh = train.Model(model.cfg, seed=seed)
        adam = train.Adam(fresh.flat.size, adam.beta1, adam.beta2, adam.eps)
        loop = train.LoopState(rng=train.np.random.default_rng(seed).bit_generator.state)
        return fresh, adam, loop, meta, *[None] * len(rest)

    train.load_state = load_state

from mtcli.cli import main
sys.argv = ["mtcli", *sys.argv[1:]]
main()
"""

MPIEXEC = distributed.find_mpiexec()


@dataclass
class TinyTraining:
    prepared: Path
    steps_per_epoch: list[int]

    @property
    def total(self) -> int:
        return sum(self.steps_per_epoch)


@pytest.fixture(scope="module")
def tiny_training(tmp_path_factory) -> TinyTraining:
    d = tmp_path_factory.mktemp("resume")
    p = prepare(write_tsv(d / "spa.txt", tiny_pairs()), d / "prepared", **VOCAB)
    per_epoch = [len(make_batches(p.splits["train"], BATCH, 0, e)) for e in range(EPOCHS)]
    return TinyTraining(p.out_dir, per_epoch)


@pytest.fixture(scope="module")
def uninterrupted(tiny_training, tmp_path_factory):
    """Final parameters of runs never stopped, by threads and MPI ranks: `mtcli train` in a process
    of its own, as the interrupted runs are, so that no state an earlier test left in this process
    (thread counts, floating-point modes of libraries loaded in-process) can change the sums."""
    runs = {}

    def params(threads: int, ranks: int = 1) -> np.ndarray:
        if (threads, ranks) not in runs:
            work = tmp_path_factory.mktemp(f"uninterrupted{threads}x{ranks}")
            with _started(tiny_training, work / "run", work / "steps", threads, ranks, "", resume=False) as proc:
                _, err = proc.communicate(timeout=600)
            assert proc.returncode == 0, err
            runs[threads, ranks] = saved(work / "run")[0].flat
        return runs[threads, ranks]

    return params


def saved(out: Path):
    """(model, adam, loop) of the state saved in `out`."""
    return load_state(out)[:3]


def _lines(path: Path) -> list[int]:
    return [int(x) for x in path.read_text().split()] if path.exists() else []


@contextmanager
def _started(data: TinyTraining, out: Path, log: Path, threads: int, ranks: int, broken: str, resume: bool):
    """`mtcli train` (under mpiexec for ranks > 1) with the hook, in a process group of its own that
    is killed on the way out, whatever the test's outcome: no training outlives its test."""
    env = {**os.environ, "MTCLI_PREPARED": str(data.prepared), "T_STEPS": str(log), "T_BREAK": broken}
    cmd = [sys.executable, "-c", HOOK, "train", "--out", str(out), *OPTIONS, "--threads", str(threads)]
    if ranks > 1:
        cmd = [MPIEXEC, "-n", str(ranks), *cmd]
    proc = subprocess.Popen(cmd + ["--resume"] * resume, env=env, cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        yield proc
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def interrupt_and_resume(data: TinyTraining, work: Path, how: signal.Signals, threads: int = 1, ranks: int = 1,
                         seed: int = 0, broken: str = "") -> np.ndarray:
    """Stop `mtcli train` with `how` at a random step (under MPI: SIGINT to mpiexec, which hands it to
    every rank; SIGTERM or SIGKILL to one rank), resume it, and check that the resumed process
    performed exactly the steps the saved state had not. Returns the final parameters."""
    rng = random.Random(seed)
    out, first, second = work / "run", work / "first", work / "second"
    first_epoch = data.steps_per_epoch[0]
    # a kill must come after the first checkpoint (end of epoch 1); a signal anywhere
    at = rng.randint(first_epoch + 1 if how == signal.SIGKILL else 1, data.total - first_epoch)
    rank_log = first.with_name(f"{first.name}.0")
    with _started(data, out, first, threads, ranks, broken, resume=False) as proc:
        deadline = time.time() + 600  # generous: a cold Numba cache on a busy machine compiles for minutes
        while len(_lines(rank_log)) < at:
            assert proc.poll() is None, f"training ended before step {at}:\n{proc.communicate()[1]}"
            assert time.time() < deadline, "training did not reach its step"
            time.sleep(0.002)
        target = proc.pid
        if ranks > 1 and how != signal.SIGINT:
            target = int(first.with_name(f"{first.name}.{rng.randrange(ranks)}.pid").read_text())
        os.kill(target, how)
        _, err = proc.communicate(timeout=600)
    done = _lines(rank_log)
    model, adam, loop = saved(out)
    t0 = adam.t
    if how == signal.SIGKILL:
        assert proc.returncode != 0
        # the last checkpoint: the end of the last finished epoch
        assert (loop.batch, t0) == (0, sum(data.steps_per_epoch[: loop.epoch])) and 1 <= loop.epoch
        assert t0 <= done[-1]
    else:
        assert proc.returncode == 130 and "interrupted" in err, err
        # stopped after the step under way: the state holds every step this process performed
        assert done == list(range(1, t0 + 1)) and t0 >= at, (done[-3:], t0, at)

    with _started(data, out, second, threads, ranks, broken, resume=True) as resumed:
        _, err = resumed.communicate(timeout=600)
    assert resumed.returncode == 0 and "resuming" in err, err
    again = _lines(second.with_name(f"{second.name}.0"))
    assert again[:1] == [t0 + 1], f"the resumed run began at step {again[:1]}, the saved state was at step {t0}"
    assert again == list(range(t0 + 1, data.total + 1)), "the resumed run did not perform exactly the steps left"
    model, adam, loop = saved(out)
    assert adam.t == data.total and loop.epoch == EPOCHS and loop.done.startswith("--max-epochs")
    steps = [json.loads(line)["step"] for line in (out / METRICS).read_text().splitlines()]
    assert steps == list(np.cumsum(data.steps_per_epoch)), "the metrics log's steps"
    return model.flat


SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGKILL]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("how", SIGNALS, ids=lambda s: s.name)
def test_resume_performs_only_the_remaining_steps(tiny_training, uninterrupted, tmp_path, how, threads):
    expected = uninterrupted(threads)  # first: it also fills the Numba cache the subprocesses load
    final = interrupt_and_resume(tiny_training, tmp_path, how, threads=threads, seed=SIGNALS.index(how) * 2 + threads)
    np.testing.assert_array_equal(final, expected)


@pytest.mark.parametrize("how", SIGNALS, ids=lambda s: s.name)
def test_resume_on_mpi_ranks_performs_only_the_remaining_steps(tiny_training, uninterrupted, tmp_path, how):
    """Every rank continues its own dropout stream: a rank that started a new one would train on
    other masks, and the parameters would differ from the uninterrupted run's."""
    require("mpi4py", "pip install -e '.[distributed]'")
    require(Path(MPIEXEC or "mpiexec"), "mpiexec (the mpich package of the distributed extra)")
    expected = uninterrupted(1, ranks=2)
    final = interrupt_and_resume(tiny_training, tmp_path, how, ranks=2, seed=10 + SIGNALS.index(how))
    np.testing.assert_array_equal(final, expected)


def test_each_rank_draws_a_dropout_stream_of_its_own():
    """Rank 0 draws the single-process stream and every other rank its own (dropout masks that repeat
    across ranks would drop the same units of every shard); resumed, a rank continues its saved stream,
    and a rank the saved run did not have starts one of its own that depends on the step."""
    from mtcli.checkpoint import LoopState
    from mtcli.train import _dropout_rng

    def first(rng):
        return rng.integers(1 << 62, size=4).tolist()

    fresh = [first(_dropout_rng(7, rank, LoopState(), 0, False)) for rank in range(4)]
    assert fresh[0] == first(np.random.default_rng(7)) and len({tuple(f) for f in fresh}) == 4
    assert first(_dropout_rng(8, 1, LoopState(), 0, False)) != fresh[1]  # the seed counts on every rank

    saved = [np.random.default_rng([3, rank]) for rank in range(3)]
    for rng in saved:
        rng.random(5)  # streams part-way through, as a run leaves them
    loop = LoopState(rng=saved[0].bit_generator.state, rank_rngs=[s.bit_generator.state for s in saved[1:]])
    resumed = [first(_dropout_rng(7, rank, loop, 40, True)) for rank in range(5)]
    assert resumed[:3] == [first(s) for s in saved]  # each rank continues its own saved stream
    extra = first(_dropout_rng(7, 4, loop, 41, True))
    assert first(_dropout_rng(7, 4, loop, 40, True)) == resumed[4]  # (seeded: a rerun draws the same)
    assert len({tuple(r) for r in resumed}) == 5 and resumed[3] != resumed[4] and extra != resumed[4]
    assert all(r not in fresh for r in resumed[3:])  # new ranks start afresh, not where a fresh run would
