"""Fused output bias + log-softmax + cross-entropy over the Spanish vocabulary, with label
smoothing, and the bias gradient.

Runs only on non-padding rows (the caller gathers them), and overwrites the logits with their
gradient so the (N, V) buffer, the largest in the model, is allocated once. Adding the bias and
summing its gradient inside the kernel's own passes, while each row is in cache, spares two passes
over that buffer (NumPy's `logits += b` and `dlogits.sum(0)`).
"""

import math

import numpy as np

from mtcli.kernels.jit import FAST, ROWS_PER_CHUNK, add_chunk_sums, chunk_rows, exp_nonpos, kernel, prange


def cross_entropy_ref(logits, bias, targets, smoothing, grad_scale, dbias):
    """logits (N, V) without the bias (V,) overwritten by grad_scale * d(smoothed loss)/d(logits);
    targets (N,); dbias (V,) += the gradient's column sums. Smoothed target = (1 - smoothing) *
    onehot + smoothing / V. Returns per-row smoothed loss (N,), plain negative log-likelihood (N,),
    argmax == target (N,)."""
    N, V = logits.shape
    logits += bias
    rows = np.arange(N)
    correct = logits.argmax(-1) == targets
    shifted = logits - logits.max(-1, keepdims=True)
    logz = np.log(np.exp(shifted).sum(-1, keepdims=True))
    logp = shifted - logz  # (N, V)
    nll = -logp[rows, targets]
    loss = (1.0 - smoothing) * nll - smoothing * logp.mean(-1)
    grad = np.exp(logp) - smoothing / V
    grad[rows, targets] -= 1.0 - smoothing
    logits[...] = grad * grad_scale
    dbias += logits.sum(0)
    return loss.astype(logits.dtype), nll.astype(logits.dtype), correct


@kernel()
def _add_row_max(x, bias):
    """x += bias, and max(x), with eight independent running maxima (a plain loop is one long
    dependency chain)."""
    n = x.size
    for j in range(n):
        x[j] += bias[j]
    m0 = m1 = m2 = m3 = m4 = m5 = m6 = m7 = x[0]
    j = 0
    while j + 8 <= n:
        m0, m1, m2, m3 = max(m0, x[j]), max(m1, x[j + 1]), max(m2, x[j + 2]), max(m3, x[j + 3])
        m4, m5, m6, m7 = max(m4, x[j + 4]), max(m5, x[j + 5]), max(m6, x[j + 6]), max(m7, x[j + 7])
        j += 8
    m = max(max(max(m0, m1), max(m2, m3)), max(max(m4, m5), max(m6, m7)))
    for rest in range(j, n):
        m = max(m, x[rest])
    return m


@kernel()
def _first_index(x, value):
    """Smallest j with x[j] == value (x.size if none), testing blocks of 32 at a time."""
    n = x.size
    for j0 in range(0, n, 32):
        hit = False
        for j in range(j0, min(j0 + 32, n)):
            hit |= x[j] == value
        if hit:
            for j in range(j0, n):
                if x[j] == value:
                    return j
    return n


@kernel(fastmath=FAST)
def _cross_entropy_row(row, bias, t, smoothing, grad_scale, dbias):
    """One row in place (three passes; the row stays in cache): bias and max, argmax, then exp and
    sums, then the gradient, added to dbias. Sums run in the row's precision, so float32 loops
    vectorise at full width. Returns (smoothed loss, nll, argmax == t)."""
    V = row.size
    real = row.dtype.type
    m = _add_row_max(row, bias)
    correct = _first_index(row, m) == t
    shifted_t = row[t] - m
    z = real(0.0)  # sum of exp(x - m)
    total = real(0.0)  # sum of x, for the mean log-probability
    for j in range(V):
        x = row[j]
        e = exp_nonpos(x - m)
        row[j] = e
        z += e
        total += x
    logz = math.log(z)
    nll = logz - shifted_t
    loss = (1.0 - smoothing) * nll - smoothing * (total / V - m - logz)
    scale, offset = real(grad_scale / z), real(grad_scale * smoothing / V)
    for j in range(V):
        d = row[j] * scale - offset
        row[j] = d
        dbias[j] += d
    target_share = real(grad_scale * (1.0 - smoothing))
    row[t] -= target_share
    dbias[t] -= target_share
    return loss, nll, correct


@kernel(parallel=True)
def cross_entropy(logits, bias, targets, smoothing, grad_scale, dbias):
    """logits (N, V) without the bias (V,) overwritten by grad_scale * d(smoothed loss)/d(logits);
    targets (N,); dbias (V,) += the gradient's column sums. Smoothed target = (1 - smoothing) *
    onehot + smoothing / V. Returns per-row smoothed loss (N,), plain negative log-likelihood (N,),
    argmax == target (N,). Chunks of rows run in parallel, each summing its own bias gradient."""
    N, V = logits.shape
    loss, nll = np.empty(N, logits.dtype), np.empty(N, logits.dtype)
    correct = np.empty(N, np.bool_)
    n_chunks = (N + ROWS_PER_CHUNK - 1) // ROWS_PER_CHUNK
    dbias_part = np.zeros((n_chunks, V), logits.dtype)
    for ch in prange(n_chunks):
        for i in chunk_rows(ch, N):
            row_result = _cross_entropy_row(logits[i], bias, targets[i], smoothing, grad_scale, dbias_part[ch])
            loss[i], nll[i], correct[i] = row_result
    add_chunk_sums(dbias, dbias_part)
    return loss, nll, correct
