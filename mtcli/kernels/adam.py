"""Adam update (thesis 5.2, with bias correction) on the flat parameter buffer, in place."""

import math

import numpy as np
from numba import njit, prange

from mtcli.kernels.elementwise import JIT


def adam_ref(param, grad, m, v, lr, beta1, beta2, eps, t):
    m *= beta1
    m += (1 - beta1) * grad
    v *= beta2
    v += (1 - beta2) * grad * grad
    mhat = m / (1 - beta1**t)
    vhat = v / (1 - beta2**t)
    param -= (lr * mhat / (np.sqrt(vhat) + eps)).astype(param.dtype)


CHUNK = 1 << 16  # elements per parallel task


@njit(**JIT)
def _adam_chunk(param, grad, m, v, lr, beta1, beta2, eps, inv_bc1, inv_bc2, chunk):
    for i in range(chunk * CHUNK, min(param.size, (chunk + 1) * CHUNK)):
        gi = grad[i]
        mi = m[i] * beta1 + (1 - beta1) * gi
        vi = v[i] * beta2 + (1 - beta2) * gi * gi
        m[i] = mi
        v[i] = vi
        param[i] -= lr * (mi * inv_bc1) / (math.sqrt(vi * inv_bc2) + eps)


@njit(**JIT, parallel=True)
def adam(param, grad, m, v, lr, beta1, beta2, eps, t):
    """One Adam step (t >= 1) in place on the flat param, m, v; chunks of CHUNK in parallel."""
    inv_bc1, inv_bc2 = 1.0 / (1 - beta1**t), 1.0 / (1 - beta2**t)  # bias corrections
    n_chunks = (param.size + CHUNK - 1) // CHUNK
    for ch in prange(n_chunks):
        _adam_chunk(param, grad, m, v, lr, beta1, beta2, eps, inv_bc1, inv_bc2, ch)
