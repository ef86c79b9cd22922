"""Data-parallel training: over threads inside a process (`Replicas`) and over MPI ranks (mpi4py),
the Horovod way.

Every rank builds the same global batches (make_batches is deterministic for (seed, epoch)), takes
its contiguous share of each batch's rows, and scales its gradient by 1 / (the global batch's target
tokens); one in-place allreduce-SUM of the flat gradient buffer then leaves every rank holding the
single-process gradient of the whole batch, and every rank applies the same clipping and Adam step,
so parameters stay identical without ever being sent. A second, small allreduce sums the step's
loss statistics and makes the ranks agree on when to stop and on the elapsed time, so that they
all take the same decisions (checkpoint, stop, next epoch) at the same step.

`Comm` is the single process: every collective is the identity and nothing here loads MPI.
`world()` returns an `MPIComm` only when mpiexec/mpirun started more than one rank. Inside each
process, `Replicas` splits the process's rows once more, over threads.
"""

from __future__ import annotations

import importlib.util
import os
import pickle
import shutil
import signal
import subprocess
import sys
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

import numba
import numpy as np
from threadpoolctl import threadpool_limits

from mtcli import BLAS_LOADED_EARLY, kernels, mpi_launch
from mtcli.data import Batch
from mtcli.errors import UserError
from mtcli.kernels.cpu import flush_denormals, restore_denormals
from mtcli.model import Model
from mtcli.stats import Stats

T = TypeVar("T")

INSTALL_HINT = "install the distributed extra: pip install 'mtcli[distributed]' (mpi4py and MPICH)"


def shard_bounds(n: int, rank: int, size: int) -> tuple[int, int]:
    """Rows [lo, hi) of n that rank takes: contiguous, sizes differing by at most one."""
    return n * rank // size, n * (rank + 1) // size


def shard_batch(batch: Batch, rank: int, size: int) -> Batch | None:
    """The rank's rows of a batch, padding cut to their own longest sentence (None: no rows, when
    a batch has fewer pairs than there are ranks)."""
    lo, hi = shard_bounds(len(batch.src_len), rank, size)
    if lo == hi:
        return None
    src_len, tgt_len = batch.src_len[lo:hi], batch.tgt_len[lo:hi]
    S, T = int(src_len.max()), int(tgt_len.max())
    cut = lambda a, width: np.ascontiguousarray(a[lo:hi, :width])  # noqa: E731
    return Batch(cut(batch.src, S), src_len, cut(batch.tgt_in, T), cut(batch.tgt_out, T), tgt_len)


def split_batch(batch: Batch, n: int) -> list[Batch | None]:
    """The batch's rows in n shards, as n ranks (or threads) take them."""
    return [shard_batch(batch, i, n) for i in range(n)]


def _replica_thread() -> None:
    numba.set_num_threads(1)
    flush_denormals()


class Replicas:
    """Data parallelism over n threads of one process, each running forward and backward on its rows
    of the batch into its own gradient buffer; all read the one parameter buffer. Everything heavy
    releases the GIL (BLAS, NumPy on large arrays, the Numba kernels, compiled nogil), so the threads
    run on separate cores, each with single-threaded BLAS and Numba: splitting the batch by rows
    beats splitting every small product and kernel over the cores (measured on 2 cores, Medium: 50
    against 64 ms a step, before any other change). Adam, in the calling thread, still runs its
    kernel on all cores.
    Use as a context manager: while open, BLAS runs on one thread, and every thread of it flushes
    denormal numbers to zero (kernels/cpu.py). n == 1 is the plain model."""

    def __init__(self, model: Model, n: int = 1):
        self.model, self.n = model, max(1, n)
        # each thread's own gradient (rows of one array, for kernels.sum_and_clear); model.grad gets the sum
        self.grads = np.zeros((self.n, model.flat.size), model.dtype) if self.n > 1 else None
        self.models = [Model(model.cfg, model.flat, grad=g) for g in self.grads] if self.n > 1 else [model]
        self._dirty = False  # True: the threads' buffers hold leftovers (a step that was interrupted)
        self.grad_sq: float | None = None  # |model.grad|^2 as the last sum left it (None: not measured)
        self._pool = self._blas = self._fp_mode = None

    def __enter__(self):
        self._fp_mode = flush_denormals()  # this thread's; each replica thread sets its own
        if self.n > 1:
            self._blas = threadpool_limits(1, user_api="blas")
            self._pool = ThreadPoolExecutor(self.n, "mtcli-replica", initializer=_replica_thread)
        return self

    def __exit__(self, *exc):
        if self._pool:
            self._pool.shutdown()
            self._blas.restore_original_limits()
            self._pool = self._blas = None
        restore_denormals(self._fp_mode)

    def _map(self, fn, batch, *args) -> Stats:
        """fn(model, its shard or None, *its args) on every thread; the Stats summed."""
        return sum(self._pool.map(fn, self.models, split_batch(batch, self.n), *args), Stats.zero())

    def forward_backward(self, batch: Batch, rng: np.random.Generator, smoothing: float,
                         n_total: int | None = None) -> Stats:
        """Replaces model.grad with the gradient of the batch's summed loss / n_total (default: the
        batch's target tokens). With n threads, rng draws one seed per thread for its dropout masks
        (None: no dropout)."""
        self.grad_sq = None
        if self.n == 1:
            self.model.grad.fill(0.0)
            return self.model.forward_backward(batch, rng, smoothing, n_total)
        n_total = n_total or batch.n_tokens
        rngs = [None] * self.n if rng is None else [np.random.default_rng(s) for s in rng.integers(2**63, size=self.n)]
        if self._dirty:
            self.grads.fill(0.0)
        self._dirty = True

        def work(model, shard, rng):
            return Stats.zero() if shard is None else model.forward_backward(shard, rng, smoothing, n_total)

        stats = self._map(work, batch, rngs)
        self.grad_sq = kernels.sum_and_clear(self.model.grad, self.grads)
        self._dirty = False
        return stats

    def evaluate(self, batch: Batch) -> Stats:
        if self.n == 1:
            return self.model.evaluate(batch)
        return self._map(lambda model, shard: Stats.zero() if shard is None else model.evaluate(shard), batch)


class Comm:
    """One process: the identity for every collective, at no cost."""

    rank = 0
    size = 1

    def shard(self, batch: Batch) -> Batch | None:
        return batch

    def split(self, items: list[T]) -> list[T]:
        """This rank's share of a list of independent work items (e.g. evaluation batches)."""
        return items

    def reduce_step(self, grad: np.ndarray, stats: Stats, stop: bool, elapsed: float) -> tuple[Stats, bool, float]:
        """After a step's backward pass: the whole batch's gradient (in place) and Stats, whether
        any rank was asked to stop, and the ranks' mean elapsed time."""
        return stats, stop, elapsed

    def sum_stats(self, stats: Stats) -> Stats:
        return stats

    def gather(self, obj) -> list | None:
        """Every rank's obj, in rank order, on rank 0 (None elsewhere)."""
        return [obj]

    def on_root(self, fn: Callable[[], T]) -> T:
        """fn() run by rank 0 alone (reading or writing files); its result, or its exception, on
        every rank, so that no rank is left waiting in a collective that another has abandoned."""
        return fn()

    def agree(self, fn: Callable[[], T]) -> T:
        """fn() run by every rank; if it raises on any rank, it raises on all."""
        return fn()

    def root_first(self, fn: Callable[[], T]) -> T:
        """fn() on rank 0, then on the others (e.g. building a cache once on a shared disk); each
        keeps its own result; an error on any rank is raised on all."""
        return fn()

    def abort(self, code: int) -> None:
        """End every rank at once (after an error on this rank alone)."""


class MPIComm(Comm):
    def __init__(self, comm):
        from mpi4py import MPI

        self.MPI, self.comm = MPI, comm
        self.rank, self.size = comm.Get_rank(), comm.Get_size()

    def shard(self, batch):
        return shard_batch(batch, self.rank, self.size)

    def split(self, items):
        return items[self.rank :: self.size]

    def _sum(self, values: np.ndarray) -> np.ndarray:
        self.comm.Allreduce(self.MPI.IN_PLACE, values, op=self.MPI.SUM)
        return values

    def reduce_step(self, grad, stats, stop, elapsed):
        small = self._sum(np.append(stats.to_array(), [stop, elapsed]))
        self._sum(grad)  # the one big message of a step: 4 bytes per parameter
        return Stats.from_array(small), bool(small[4]), float(small[5]) / self.size

    def sum_stats(self, stats):
        return Stats.from_array(self._sum(stats.to_array()))

    def gather(self, obj):
        return self.comm.gather(obj, root=0)

    def on_root(self, fn):
        outcome = _attempt(fn) if self.rank == 0 else None
        ok, value = self.comm.bcast(_picklable(outcome), root=0)
        if self.rank == 0:
            ok, value = outcome
        if not ok:
            raise value
        return value

    def agree(self, fn):
        ok, value = _attempt(fn)
        errors = self.comm.allgather(None if ok else _picklable((ok, value))[1])
        failed = [e for e in errors if e is not None]
        if not failed:
            return value
        if not ok:
            raise value
        raise failed[0]

    def root_first(self, fn):
        first = _attempt(fn) if self.rank == 0 else None

        def root_outcome():
            if not first[0]:
                raise first[1]

        self.on_root(root_outcome)
        return self.agree(lambda: first[1] if self.rank == 0 else fn())

    def abort(self, code):
        self.comm.Abort(code)


def _attempt(fn) -> tuple[bool, object]:
    try:
        return True, fn()
    except Exception as e:  # noqa: BLE001 - handed to every rank, raised there
        return False, e


def _picklable(outcome):
    """An exception that pickle cannot carry travels as a RuntimeError with its message."""
    if outcome is None or outcome[0]:
        return outcome
    try:
        pickle.dumps(outcome[1])
        return outcome
    except Exception:  # noqa: BLE001
        return False, RuntimeError(f"{type(outcome[1]).__name__}: {outcome[1]}")


_WORLD: Comm | None = None


def world(ranks: int = 0) -> Comm:
    """The processes this run shares its work with: MPI's world when mpiexec started several
    ranks (mpi4py is imported only then), else the single process. ranks: how many were asked for
    (`--ranks`; 0: whatever the launch set)."""
    global _WORLD
    rank, size, _ = mpi_launch()
    if ranks and size > 1 and ranks != size:
        raise UserError(f"--ranks {ranks}, but mpiexec started {size} processes")
    if _WORLD is None:
        if size == 1:
            _WORLD = Comm()
        else:
            try:
                from mpi4py import MPI
            except ImportError as e:
                raise UserError(f"started as rank {rank} of {size} by mpiexec, but MPI for Python is missing "
                                f"({e}); {INSTALL_HINT}") from None
            _WORLD = MPIComm(MPI.COMM_WORLD)
            if BLAS_LOADED_EARLY and rank == 0:
                print("warning: NumPy was imported before mtcli, so each rank's BLAS may run a thread per "
                      "core (oversubscribed, several times slower); import mtcli first", file=sys.stderr)
    return _WORLD


@contextmanager
def ranks_exit_together(comm: Comm):
    """Under MPI, an error that every rank raises alike (a UserError) is printed by rank 0 alone, the
    others exiting with its code; any other, raised on one rank alone, ends all ranks (MPI_Abort)
    rather than leave them waiting."""
    try:
        yield
    except UserError as e:
        if comm.rank:
            raise SystemExit(e.exit_code) from None
        raise
    except (Exception, KeyboardInterrupt) as e:
        if comm.size > 1:
            traceback.print_exc()
            comm.abort(130 if isinstance(e, KeyboardInterrupt) else 1)
        raise


def find_mpiexec() -> str | None:
    """The mpiexec beside this Python (the distributed extra's MPICH), else the first on PATH."""
    here = os.path.dirname(sys.executable)
    return shutil.which("mpiexec", path=here) or shutil.which("mpiexec")


def relaunch(n: int, argv: list[str]) -> int:
    """Run `mtcli ARGV` as n MPI ranks on this machine (mpiexec -n N); returns their exit code.
    mpiexec runs in its own session and gets each SIGINT/SIGTERM once, from here (two Ctrl-C's
    would make it kill the ranks at once); it hands each rank one, and they stop together."""
    if importlib.util.find_spec("mpi4py") is None:
        raise UserError(f"--ranks {n} needs MPI for Python; {INSTALL_HINT}")
    mpiexec = find_mpiexec()
    if mpiexec is None:
        raise UserError(f"--ranks {n} needs mpiexec, which was not found beside {sys.executable} or on PATH; "
                        f"{INSTALL_HINT}")
    proc = subprocess.Popen([mpiexec, "-n", str(n), sys.executable, "-m", "mtcli", *argv], start_new_session=True)
    forward = lambda signum, frame: proc.send_signal(signum)  # noqa: E731
    previous = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        return proc.wait()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
