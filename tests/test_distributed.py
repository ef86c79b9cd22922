"""Data-parallel training over MPI: 2 ranks on half batches = 1 process on whole ones.

The MPI tests start `mpiexec -n 2` on this machine (loopback) and need the distributed extra
(pip install -e '.[test,distributed]'); without it they are skipped. Its ranks run this file:
`mpiexec -n 2 python -m tests.test_distributed WORKDIR` (see `worker` at the bottom).
"""

from __future__ import annotations

import mtcli  # noqa: F401, I001  (first: the ranks running this file set their BLAS threads before NumPy loads)
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest

from mtcli import distributed
from mtcli.checkpoint import METRICS, STATE, load_tensors
from mtcli.config import ModelConfig, TrainConfig
from mtcli.data import make_batches, prepare
from mtcli.errors import UserError
from mtcli.model import Model, views
from mtcli.optim import Adam
from tests.conftest import REPO, tiny_pairs, write_tsv

VOCAB = dict(src_vocab=200, tgt_vocab=220)
MODEL = dict(**VOCAB, d_model=32, d_ff=64, n_heads=2, n_layers=1)
NO_DROPOUT = dict(dropout=0.0, attn_dropout=0.0)  # so that 1 process and 2 ranks compute the same function
TRAIN = dict(batch_size=16, warmup=10, patience=10)  # warm-up 10: large enough steps to move the loss
MPIEXEC = distributed.find_mpiexec()
needs_mpi = pytest.mark.skipif(
    importlib.util.find_spec("mpi4py") is None or MPIEXEC is None,
    reason="needs mpi4py and mpiexec: pip install -e '.[test,distributed]'",
)


def recording(base):
    """A Comm that keeps every step's whole-batch Stats, and can pretend that a signal reached this
    rank alone before its step `stop_at_step` (1-based)."""

    class Recording(base):
        def __init__(self, *a, stop_at_step=0, **k):
            super().__init__(*a, **k)
            self.steps, self.stop_at_step = [], stop_at_step

        def reduce_step(self, grad, stats, stop, elapsed):
            stop = stop or len(self.steps) + 1 == self.stop_at_step
            stats, stop, elapsed = super().reduce_step(grad, stats, stop, elapsed)
            self.steps.append(asdict(stats))
            return stats, stop, elapsed

    return Recording


def params(run: Path) -> np.ndarray:
    """The saved parameters, without the attention key biases: their gradient is exactly zero (a
    query's scores all shift by q.b_k, which softmax ignores), so what the model computes for it is
    rounding noise, and Adam, dividing by its own size, turns that into steps of ~lr either way."""
    flat = load_tensors(run / STATE)[0]["params"]
    index = views(np.arange(flat.size), ModelConfig(**MODEL))
    return np.delete(flat, np.concatenate([p["bk"].ravel() for p in index.values() if "bk" in p]))


def history(run: Path) -> list[dict]:
    return [{k: v for k, v in json.loads(line).items() if k != "seconds"}
            for line in (run / METRICS).read_text().splitlines()]


# --- without MPI: the arithmetic that makes shards add up to the whole batch ------------------


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tiny")
    return prepare(write_tsv(tmp / "spa.txt", tiny_pairs()), tmp / "prepared", **VOCAB)


def test_shards_partition_each_batch(tiny):
    batch = make_batches(tiny.splits["train"], 16, 0, 0)[0]
    for size in (1, 2, 3, 5):
        shards = [distributed.shard_batch(batch, r, size) for r in range(size)]
        assert sum(len(s.src_len) for s in shards) == len(batch.src_len)
        assert sum(s.n_tokens for s in shards) == batch.n_tokens
        np.testing.assert_array_equal(np.concatenate([s.tgt_len for s in shards]), batch.tgt_len)
        for s in shards:  # padding cut to the shard's own longest sentence
            assert s.src.shape[1] == s.src_len.max() and s.tgt_out.shape[1] == s.tgt_len.max()
    few = make_batches(tiny.splits["train"], 2, 0, 0)[0]
    assert [distributed.shard_batch(few, r, 3) is None for r in range(3)] == [True, False, False]


def test_shard_gradients_sum_to_the_batch_gradient(tiny):
    """What the allreduce relies on: gradients of shards scaled by the whole batch's token count add
    up to the whole batch's mean gradient (to float32 rounding)."""
    batch = make_batches(tiny.splits["train"], 16, 0, 0)[0]
    whole, parts = Model(ModelConfig(**MODEL, **NO_DROPOUT)), Model(ModelConfig(**MODEL, **NO_DROPOUT))
    s = whole.forward_backward(batch, None, 0.1)
    total = 0.0
    for r in range(3):
        total += parts.forward_backward(distributed.shard_batch(batch, r, 3), None, 0.1, n_total=batch.n_tokens).loss
    np.testing.assert_allclose(parts.grad, whole.grad, rtol=1e-4, atol=1e-7)
    assert total == pytest.approx(s.loss, rel=1e-6)


def test_replicas_on_threads_give_the_batch_gradient(tiny):
    """Threads split the batch like ranks do: 3 threads (one with no rows of a 2-pair batch) add up
    to one model's gradient, loss and accuracy; BLAS is held to one thread only while they run."""
    from threadpoolctl import threadpool_info

    blas = lambda: [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]  # noqa: E731
    before = blas()
    for size in (16, 2):
        batch = make_batches(tiny.splits["train"], size, 0, 0)[0]
        whole, threaded = Model(ModelConfig(**MODEL, **NO_DROPOUT)), Model(ModelConfig(**MODEL, **NO_DROPOUT))
        s, e = whole.forward_backward(batch, None, 0.1), whole.evaluate(batch)
        threaded.grad[:] = 1.0  # forward_backward replaces the gradient, it does not add to it
        with distributed.Replicas(threaded, 3) as replicas:
            assert blas() == [1] * len(before)
            t = replicas.forward_backward(batch, np.random.default_rng(0), 0.1)
            te = replicas.evaluate(batch)
        np.testing.assert_allclose(threaded.grad, whole.grad, rtol=1e-4, atol=1e-7)
        assert (t.loss, t.correct, t.n_tokens) == (pytest.approx(s.loss, rel=1e-6), s.correct, s.n_tokens)
        assert (te.nll, te.correct, te.n_tokens) == (pytest.approx(e.nll, rel=1e-6), e.correct, e.n_tokens)
    assert blas() == before


def test_mpi_launch_sets_threads_per_rank():
    """Ranks x threads = cores, decided from the launcher's environment before NumPy loads."""
    code = "import mtcli, os; print(os.environ.get('NUMBA_NUM_THREADS'), os.environ.get('OPENBLAS_NUM_THREADS'))"
    launch_vars = ("PMI_", "OMPI_", "MPI_", "NUMBA_NUM", "OPENBLAS")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(launch_vars)}
    threads = lambda local: str(max(1, min(len(os.sched_getaffinity(0)), os.cpu_count() // local)))  # noqa: E731
    for launcher, expect in [({}, "None"),
                             ({"PMI_RANK": "1", "PMI_SIZE": "2", "MPI_LOCALNRANKS": "2"}, threads(2)),
                             ({"OMPI_COMM_WORLD_SIZE": "64", "OMPI_COMM_WORLD_LOCAL_SIZE": "64"}, threads(64)),
                             ({"PMI_SIZE": "1"}, "None")]:
        out = subprocess.run([sys.executable, "-c", code], env={**clean, **launcher}, capture_output=True, text=True,
                             check=True).stdout.split()
        assert out == [expect, expect], launcher
    rank = {**clean, "PMI_RANK": "0", "PMI_SIZE": "2", "MPI_LOCALNRANKS": "2"}
    for order, early in (("numpy, mtcli", "True"), ("mtcli, numpy", "False")):
        out = subprocess.run([sys.executable, "-c", f"import {order}; print(mtcli.BLAS_LOADED_EARLY)"], env=rank,
                             capture_output=True, text=True, check=True).stdout.strip()
        assert out == early, f"import {order}: its BLAS threads are set too late, and world() says so"


def test_missing_mpi_is_a_clear_error(monkeypatch, run_cli, tmp_path):
    monkeypatch.setitem(sys.modules, "mpi4py", None)  # as if not installed
    code, _, err = run_cli("train", "--ranks", "2", "--out", tmp_path / "run")
    assert code == 2 and "pip install 'mtcli[distributed]'" in err
    monkeypatch.setenv("PMI_SIZE", "2")  # started by a system mpiexec
    monkeypatch.setattr(distributed, "_WORLD", None)
    with pytest.raises(UserError, match=r"rank 0 of 2 by mpiexec.*mtcli\[distributed\]"):
        distributed.world()


# --- with MPI: 2 ranks on loopback -------------------------------------------------------------


@pytest.fixture(scope="module")
def mpi_runs(tiny, tmp_path_factory):
    """One mpiexec -n 2 launch (startup costs more than the tiny runs) and its 1-process references."""
    work = tmp_path_factory.mktemp("mpi")
    shutil.copytree(tiny.out_dir, work / "prepared")
    one = recording(distributed.Comm)()
    from mtcli.train import train

    train(tiny, work / "one", ModelConfig(**MODEL, **NO_DROPOUT), TrainConfig(**TRAIN, max_epochs=1), comm=one)
    shutil.copytree(work / "one", work / "one-then-two")
    proc = subprocess.run([MPIEXEC, "-n", "2", sys.executable, "-m", "tests.test_distributed", str(work)],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return work, one.steps, json.loads((work / "results.json").read_text())


@needs_mpi
def test_two_ranks_match_one_process(mpi_runs):
    """Data parallelism changes only the speed: 2 ranks with B/2 pairs each take the same steps as 1 process with B pairs, and keep
    identical parameters."""
    work, one_steps, results = mpi_runs
    two_steps = results["two"]["steps"]
    assert len(two_steps) == len(one_steps) >= 5
    for a, b in zip(one_steps, two_steps):
        assert b["n_tokens"] == a["n_tokens"] and abs(b["correct"] - a["correct"]) <= 1
        assert b["loss"] == pytest.approx(a["loss"], rel=1e-5) and b["nll"] == pytest.approx(a["nll"], rel=1e-5)
    assert one_steps[-1]["loss"] / one_steps[-1]["n_tokens"] < one_steps[0]["loss"] / one_steps[0]["n_tokens"]
    assert results["two"]["identical_params_every_step"]
    np.testing.assert_allclose(params(work / "two"), params(work / "one"), rtol=1e-4, atol=1e-5)


@needs_mpi
def test_stop_on_one_rank_and_resume_reproduce_an_uninterrupted_run(mpi_runs):
    """A signal that reaches rank 1 alone stops both ranks after the same step; resuming on 2 ranks
    (each continuing its own dropout stream) then gives exactly the uninterrupted run."""
    work, _, results = mpi_runs
    assert results["stopped"] == {"done": "interrupted", "epoch": 0, "batch": 3}
    assert history(work / "stopped") == history(work / "uninterrupted")
    np.testing.assert_array_equal(params(work / "stopped"), params(work / "uninterrupted"))


@needs_mpi
def test_resume_with_another_number_of_ranks(mpi_runs, tiny):
    """1 epoch on 1 process then 1 on 2 ranks, or 2 ranks then 1 process: the same training as 1
    process for both epochs (no dropout: only float32 summation order differs)."""
    from mtcli.train import train

    work, _, _ = mpi_runs
    tcfg = TrainConfig(**TRAIN, max_epochs=2)
    for run in ("two", "one"):
        shutil.copytree(work / run, work / f"{run}-then-one")
        train(tiny, work / f"{run}-then-one", None, tcfg, resume=True, overrides=("max_epochs",))
    for run in ("one-then-two", "two-then-one"):
        for a, b in zip(history(work / run), history(work / "one-then-one"), strict=True):
            assert a.keys() == b.keys() and a["step"] == b["step"]
            for k in ("train_loss", "train_error", "selection_error"):
                assert a[k] == pytest.approx(b[k], rel=1e-4), (run, k)
        np.testing.assert_allclose(params(work / run), params(work / "one-then-one"), rtol=1e-3, atol=1e-4)


@needs_mpi
def test_cli_ranks_option_runs_under_mpiexec(tiny, tmp_path):
    out = tmp_path / "run"
    env = {**os.environ, "MTCLI_PREPARED": str(tiny.out_dir)}
    proc = subprocess.run([sys.executable, "-m", "mtcli", "train", "--ranks", "2", "--out", str(out), "--d-model", "16",
                           "--d-ff", "16", "--batch-size", "8", "--max-epochs", "1"],
                          env=env, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("epoch   1") == 1 and proc.stderr.count("stopped:") == 1, proc.stderr
    assert {"model.safetensors", "state.safetensors", "metrics.jsonl", "src.json", "tgt.json"} <= {
        p.name for p in out.iterdir()}


# --- the ranks' side ---------------------------------------------------------------------------


def worker(work: Path) -> None:
    from mtcli.data import load_prepared
    from mtcli.train import train

    comm = distributed.world()
    assert comm.size == 2
    tiny = load_prepared(work / "prepared")
    digests = []
    adam_step = Adam.step

    def step(self, param, grad, lr, grad_scale=1.0):
        adam_step(self, param, grad, lr, grad_scale)
        digests.append(hashlib.sha256(param.tobytes()).hexdigest())

    Adam.step = step
    mpi = recording(distributed.MPIComm)
    two = mpi(comm.comm)
    train(tiny, work / "two", ModelConfig(**MODEL, **NO_DROPOUT), TrainConfig(**TRAIN, max_epochs=1), comm=two)
    every_rank = comm.comm.allgather(digests)
    results = {"two": {"steps": two.steps, "identical_params_every_step": every_rank[0] == every_rank[1]}}

    train(tiny, work / "one-then-two", None, TrainConfig(**TRAIN, max_epochs=2), resume=True, comm=mpi(comm.comm), overrides=("max_epochs",))

    tcfg = TrainConfig(**TRAIN, max_epochs=2)  # with dropout: each rank's stream must survive the resume
    train(tiny, work / "uninterrupted", ModelConfig(**MODEL), tcfg, comm=mpi(comm.comm))
    loop = train(tiny, work / "stopped", ModelConfig(**MODEL), tcfg, comm=mpi(comm.comm, stop_at_step=3 * comm.rank))
    results["stopped"] = {"done": loop.done, "epoch": loop.epoch, "batch": loop.batch}
    train(tiny, work / "stopped", None, tcfg, resume=True, comm=mpi(comm.comm), overrides=("max_epochs",))
    if comm.rank == 0:
        (work / "results.json").write_text(json.dumps(results))


if __name__ == "__main__":
    worker(Path(sys.argv[1]))
