"""mtcli: English-to-Spanish translation with a Transformer trained from scratch."""

import os

# One owner per core. Numba kernels and mtcli.layers.matmul spread work over the cores themselves;
# a multi-threaded BLAS on top would busy-wait against them (measured: steps several times slower).
for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

__version__ = "0.1.0"
