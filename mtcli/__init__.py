"""mtcli: English-to-Spanish translation with a Transformer trained from scratch."""

import os
import sys

__version__ = "0.1.0"


def mpi_launch() -> tuple[int, int, int]:
    """(rank, ranks, ranks on this host) when started by mpiexec/mpirun (MPICH's Hydra, Open MPI),
    read from the launcher's environment without loading MPI; (0, 1, 1) otherwise."""
    env = os.environ
    for rank, size, local in (("PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"),
                              ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE")):
        try:
            if size in env:
                n = int(env[size])
                return int(env.get(rank, 0)), n, int(env.get(local, n))
        except ValueError:
            pass
    return 0, 1, 1


def threads_per_process() -> int:
    """This process's share of the cores it may run on: all of them, or cores // N for each of N
    ranks on one host (the launcher's binding, if narrower, wins)."""
    mask = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(mask, (os.cpu_count() or 1) // mpi_launch()[2]))


# Ranks x threads = cores: each of the N ranks on a host gets cores // N threads for BLAS and Numba,
# set before either loads (a value in the environment wins). A launcher that binds each rank to
# its own cores narrows the rank's affinity mask to them, and then that is the limit. A program
# that loaded NumPy first has already started a BLAS thread per core in every rank: measured here,
# two such ranks of one thread each took 81 ms for half a batch, 2.6 times one process's whole one.
_local = mpi_launch()[2]
BLAS_LOADED_EARLY = _local > 1 and "numpy" in sys.modules
if _local > 1:
    for _var in ("NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, str(threads_per_process()))
