"""Bias + ReLU of the feed-forward hidden layer, in place, and its backward; dropout."""

import numpy as np

from mtcli.kernels.jit import add_chunk_sums, kernel


def bias_relu_ref(h, b):
    """h (N, F) <- max(h + b, 0) in place."""
    np.maximum(h + b, 0, out=h)


# The two ReLU kernels are serial: they are memory-bound, and measured no faster in parallel.
@kernel()
def bias_relu(h, b):
    """h (N, F) <- max(h + b, 0) in place."""
    for i in range(h.shape[0]):
        row = h[i]
        for j in range(row.size):
            x = row[j] + b[j]
            row[j] = 0 if x < 0 else x  # not max(x, 0): a NaN stays NaN, as in np.maximum


def relu_backward_ref(dh, h, db):
    """dh (N, F) <- dh * (h > 0) in place, where h is the ReLU output; db += column sums."""
    dh *= h > 0
    db += dh.sum(0)


@kernel()
def relu_backward(dh, h, db):
    """dh (N, F) <- dh * (h > 0) in place, where h is the ReLU output; db += column sums."""
    # in dh's precision (a literal 0 had made g, and the sums, float64: the loop ran at half the width)
    zero = dh.dtype.type(0.0)
    db_sum = np.zeros((1, dh.shape[1]), dh.dtype)
    for i in range(dh.shape[0]):
        drow, hrow = dh[i], h[i]
        for j in range(drow.size):
            g = drow[j] if hrow[j] > 0 else zero
            drow[j] = g
            db_sum[0, j] += g
    add_chunk_sums(db, db_sum)


# Dropout draws no random numbers in NumPy: element i of a call with seed s is kept when a hash of
# (s, i) clears a threshold (SplitMix64's finaliser on s + i * golden ratio; counter-based, like the
# Philox streams of cuRAND and JAX). Nothing is stored for the backward pass, which recomputes the
# same keep decisions from the seed; each call site draws its seed from the training generator.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1, _MIX2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S40 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(40)
_KEEP_BITS = 24  # resolution of rate: 2^-24


@kernel()
def _threshold(rate):
    return np.uint64(round(rate * (1 << _KEEP_BITS)))


def keep_ref(seed, n, rate):
    """(n,) bool: which of elements 0..n-1 a dropout call with this seed keeps."""
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + (np.arange(n, dtype=np.uint64) + np.uint64(1)) * _GOLDEN
        z = (z ^ (z >> _S30)) * _MIX1
        z = (z ^ (z >> _S27)) * _MIX2
        return ((z ^ (z >> _S31)) >> _S40) >= _threshold(rate)


@kernel(inline="always")
def _keep(seed, i, threshold):
    z = seed + np.uint64(i + 1) * _GOLDEN
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return ((z ^ (z >> _S31)) >> _S40) >= threshold


def dropout_ref(x, rate, seed):
    keep = keep_ref(seed, x.size, rate).reshape(x.shape)
    return np.where(keep, x * x.dtype.type(1.0 / (1.0 - rate)), x.dtype.type(0.0))


@kernel()
def dropout(x, rate, seed):
    """Inverted dropout of x (any shape) with the keep decisions of `seed`: x * keep / (1 - rate).
    The backward pass is the same call on the incoming gradient."""
    xf = x.reshape(-1)
    out = np.empty_like(xf)
    thr, scale, zero, s = _threshold(rate), x.dtype.type(1.0 / (1.0 - rate)), x.dtype.type(0.0), np.uint64(seed)
    for i in range(xf.size):
        out[i] = xf[i] * scale if _keep(s, i, thr) else zero
    return out.reshape(x.shape)


def dropout_add_ref(base, x, rate, seed):
    keep = keep_ref(seed, x.size, rate).reshape(x.shape)
    return np.where(keep, base + x * x.dtype.type(1.0 / (1.0 - rate)), base)


@kernel()
def dropout_add(base, x, rate, seed):
    """base + dropout(x, rate, seed) in one pass: the residual connection around a sub-layer."""
    xf, bf = x.reshape(-1), base.reshape(-1)
    out = np.empty_like(xf)
    thr, scale, s = _threshold(rate), x.dtype.type(1.0 / (1.0 - rate)), np.uint64(seed)
    for i in range(xf.size):
        out[i] = bf[i] + xf[i] * scale if _keep(s, i, thr) else bf[i]
    return out.reshape(x.shape)


def dropout_mask_ref(mask, rate, seed):
    mask[...] = dropout_ref(np.ones_like(mask), rate, seed)


@kernel()
def dropout_mask(mask, rate, seed):
    """mask (any shape) <- keep / (1 - rate) in place: for the attention kernels, which take the mask."""
    mf = mask.reshape(-1)
    thr, scale, zero, s = _threshold(rate), mask.dtype.type(1.0 / (1.0 - rate)), mask.dtype.type(0.0), np.uint64(seed)
    for i in range(mf.size):
        mf[i] = scale if _keep(s, i, thr) else zero
