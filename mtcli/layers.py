"""Layers as forward/backward pairs (thesis ch. 4-5).

`<layer>_forward(...) -> (out, cache)` keeps in `cache` only what `<layer>_backward` needs;
`<layer>_backward(dout, cache, <grads>)` returns the input gradient and adds (`+=`) into the
parameter gradients it is given, so shared buffers accumulate across uses.
"""

from __future__ import annotations

import numpy as np

from mtcli import kernels

def linear_forward(x, w, b):
    """x (..., Cin) @ w (Cin, Cout) + b (Cout,)."""
    out = x.reshape(-1, x.shape[-1]) @ w  # (N, Cout)
    out += b
    return out.reshape(*x.shape[:-1], w.shape[1]), (x, w)


def linear_backward(dout, cache, dw, db):
    x, w = cache
    x2 = x.reshape(-1, x.shape[-1])  # (N, Cin)
    d2 = dout.reshape(-1, dout.shape[-1])  # (N, Cout)
    dw += x2.T @ d2
    db += d2.sum(0)
    return (d2 @ w.T).reshape(*dout.shape[:-1], w.shape[0])


def layernorm_forward(x, g, b):
    shape = x.shape
    out, xhat, rstd = kernels.layernorm_forward(np.ascontiguousarray(x).reshape(-1, shape[-1]), g, b)
    return out.reshape(shape), (xhat, rstd, g)


def layernorm_backward(dout, cache, dg, db):
    xhat, rstd, g = cache
    dx = kernels.layernorm_backward(
        np.ascontiguousarray(dout).reshape(xhat.shape), xhat, rstd, g, dg, db
    )
    return dx.reshape(dout.shape)


def _seed(rng) -> int:
    """A fresh seed for one dropout call's keep decisions (kernels/elementwise.py)."""
    return int(rng.integers(2**63))


def dropout_forward(x, p, rng):
    """Inverted dropout; rng None (inference) or p == 0 is the identity. The cache is (p, seed)."""
    if rng is None or p == 0.0:
        return x, None
    seed = _seed(rng)
    return kernels.dropout(np.ascontiguousarray(x), p, seed), (p, seed)


def residual_dropout_forward(x, sub, p, rng):
    """x + Dropout(sub), the residual connection around a sub-layer, in one pass."""
    if rng is None or p == 0.0:
        return x + sub, None
    seed = _seed(rng)
    return kernels.dropout_add(np.ascontiguousarray(x), np.ascontiguousarray(sub), p, seed), (p, seed)


def dropout_mask(shape, p, rng, dtype):
    """Keep-mask of inverted dropout: 0 with probability p, else 1 / (1 - p)."""
    mask = np.empty(shape, dtype)
    kernels.dropout_mask(mask, p, _seed(rng))
    return mask


def dropout_backward(dout, cache):
    """Gradient of dropout_forward and, for dsub, of residual_dropout_forward (whose dx is dout)."""
    return dout if cache is None else kernels.dropout(np.ascontiguousarray(dout), *cache)


def ffn_forward(x, p):
    """ReLU(x W1 + b1) W2 + b2 (thesis 3.4)."""
    shape = x.shape
    x2 = x.reshape(-1, shape[-1])  # (N, C)
    h = x2 @ p["w1"]  # (N, F)
    kernels.bias_relu(h, p["b1"])
    out = h @ p["w2"]  # (N, C)
    out += p["b2"]
    return out.reshape(shape), (x2, h, p["w1"], p["w2"])


def ffn_backward(dout, cache, g):
    x2, h, w1, w2 = cache
    d2 = dout.reshape(-1, dout.shape[-1])  # (N, C)
    g["w2"] += h.T @ d2
    g["b2"] += d2.sum(0)
    dh = d2 @ w2.T  # (N, F)
    kernels.relu_backward(dh, h, g["b1"])
    g["w1"] += x2.T @ dh
    return (dh @ w1.T).reshape(dout.shape)


def positional_encoding(n_pos, d_model, dtype=np.float32):
    """Fixed sinusoidal table (Vaswani et al.; thesis 3.1): (n_pos, d_model)."""
    pos = np.arange(n_pos)[:, None]
    i = np.arange(d_model)[None, :]
    angle = pos / 10000.0 ** (2 * (i // 2) / d_model)
    return np.where(i % 2 == 0, np.sin(angle), np.cos(angle)).astype(dtype)


def embedding_forward(ids, w, pe):
    """W[ids] * sqrt(d) + PE; ids (B, T) -> (B, T, C)."""
    scale = w.dtype.type(np.sqrt(w.shape[1]))
    if ids.shape[1] > pe.shape[0]:
        raise ValueError(f"sequence of {ids.shape[1]} tokens exceeds the model's {pe.shape[0]} positions")
    return kernels.embedding_forward(ids, w, scale, pe), (ids, scale)


def embedding_backward(dout, cache, dw):
    ids, scale = cache
    kernels.embedding_backward(np.ascontiguousarray(dout), ids, dw, scale)
